//! Simulated time as a client of the replay [`driver`]: the simulator ([`crate::sim::simulate`])
//! visits the site over a link in every mode, from what the loopback replay's robot recorded
//! ([`super::recording`]), without a network. It needs nothing from the driver
//! ([`Needs::Nothing`]) and gets the same runs and modes as the other visitors: one run over
//! a link that loses nothing (a second would give the same times), one per loss seed over a
//! lossy one (`--sim-seeds`, 20 by default), so that its figures are quantiles over recorded
//! seeds. Every link of a replay is simulated in microseconds to milliseconds of CPU, and the
//! same on any machine at any load.
//!
//! The TCP modelled is the one the replay pins on its sockets ([`congestion_for`]): CUBIC,
//! or Reno on the 1997 links; with `--tcp-1997`, a 1997 stack on those.

use serde::{Deserialize, Serialize};

use super::driver::{self, ModeRun, Needs, Visitor};
use super::options::ReplayOptions;
use super::protocol::Mode;
pub use super::recording::Recorded;
use super::robot::{RequestTiming, Test};
use super::row::{median_interval, ReplayRow, RowLink, SimulatedTime, Spread};
use super::script::RecordedVisit;
use super::served::ServedSite;
use crate::error::{Error, Result};
use crate::sim::link::profiles::{self, Family};
use crate::sim::link::Link;
use crate::sim::simulate::{self, Congestion, SimOptions, TcpModel, Timeline};
use crate::site::resolve::Resolver;

/// Whether `link` is one of the 1997 study's profiles (or one with overrides).
fn is_1997(link: &Link) -> bool {
    let base = link.name().split(',').next().unwrap_or_default();
    profiles::find(base).is_some_and(|p| p.family == Family::Study1997)
}

/// The congestion control the replay pins over `link`: Reno over the 1997 study's links (the
/// honest choice for 1997), CUBIC elsewhere (what most servers run; this machine's default is
/// BBR, which new namespaces inherit, so it is never left to the system).
pub fn congestion_for(link: &Link) -> Congestion {
    if is_1997(link) {
        Congestion::Reno
    } else {
        Congestion::Cubic
    }
}

/// The TCP the simulator models over `link`, and its name in reports: Linux with the
/// congestion control the replay pins and the replay's own socket options (delayed ACKs from
/// the first segment unless `--quick-acks`), or a 1997 stack.
pub fn tcp_for(link: &Link, opts: &ReplayOptions) -> (TcpModel, &'static str) {
    if opts.tcp_1997 && is_1997(link) {
        return (TcpModel::stack_1997(), "1997");
    }
    let c = congestion_for(link);
    let model = TcpModel {
        delayed_from_start: opts.client.tcp.delayed_acks,
        ..TcpModel::linux(c)
    };
    (model, c.as_str())
}

/// Whether `link` loses packets at random (then its simulation is one per seed).
fn lossy(link: &Link) -> bool {
    match link {
        Link::Loopback => false,
        Link::Emulated(spec) => spec.up.loss.rate() > 0.0 || spec.down.loss.rate() > 0.0,
    }
}

/// What one simulated visit (summed over a group's pages) gave.
#[derive(Debug, Clone, Default)]
struct SimVisit {
    last_packet_ns: u64,
    first_byte_ns: u64,
    complete_ns: u64,
    retransmits: u64,
    timed_out: bool,
    waterfall: Vec<RequestTiming>,
}

/// The figures of one recorded visit's timeline.
fn figures(visit: &RecordedVisit, t: &Timeline) -> SimVisit {
    let at = |m: &super::recording::MessageRef, f: fn(&simulate::MessageTime) -> Option<u64>| {
        t.connections
            .get(m.conn)
            .and_then(|c| c.messages.get(m.message))
            .and_then(f)
    };
    let missing = t.timed_out;
    let first_byte = visit
        .requests
        .first()
        .and_then(|r| r.response.first())
        .and_then(|m| at(m, |m| m.first_byte_ns));
    let complete = visit
        .requests
        .iter()
        .filter_map(|r| r.response.last())
        .filter_map(|m| at(m, |m| m.last_byte_ns))
        .max();
    let last_packet = visit
        .counted
        .iter()
        .filter_map(|m| at(m, |m| m.last_byte_ns))
        .max();
    let ms = |ns: Option<u64>| ns.map_or(0.0, |ns| ns as f64 / 1e6);
    let waterfall = visit
        .requests
        .iter()
        .map(|r| RequestTiming {
            target: r.target.clone(),
            sent_ms: ms(at(&r.request, |m| m.written_ns)),
            first_byte_ms: ms(r.response.first().and_then(|m| at(m, |m| m.first_byte_ns))),
            done_ms: ms(r.response.last().and_then(|m| at(m, |m| m.last_byte_ns))),
        })
        .collect();
    let end = t.complete_ns;
    SimVisit {
        last_packet_ns: if missing {
            end
        } else {
            last_packet.unwrap_or(end).max(complete.unwrap_or(0))
        },
        first_byte_ns: first_byte.unwrap_or(end),
        complete_ns: if missing {
            end
        } else {
            complete.unwrap_or(end)
        },
        retransmits: t.connections.iter().map(|c| c.retransmits).sum(),
        timed_out: missing,
        waterfall,
    }
}

/// The simulator as a visitor: every recorded row of the replay's modes, once per seed.
struct SimVisitor<'a> {
    modes: Vec<Mode>,
    recorded: &'a [Recorded],
    options: SimOptions,
    /// The first loss seed; run `i` uses `seed + i`.
    seed: u64,
    /// By recorded row: one visit per run.
    visits: Vec<Vec<SimVisit>>,
    seeds: Vec<u64>,
}

impl Visitor for SimVisitor<'_> {
    fn needs(&self) -> Needs {
        Needs::Nothing
    }

    fn modes(&self) -> &[Mode] {
        &self.modes
    }

    fn visits_per_mode(&self) -> usize {
        self.recorded.len().div_ceil(self.modes.len().max(1))
    }

    fn noun(&self) -> &'static str {
        "simulated visits"
    }

    fn run_mode(&mut self, run: &mut ModeRun<'_>) -> std::result::Result<(), String> {
        let Link::Emulated(spec) = run.link else {
            return Err("only an emulated link can be simulated".into());
        };
        let seed = self.seed.wrapping_add(run.run as u64);
        if run.mode_index == 0 {
            self.seeds.push(seed);
        }
        for (i, r) in self.recorded.iter().enumerate() {
            if r.mode != run.mode {
                continue;
            }
            // A debugging aid (docs/simulation.md): WEBDIET_SIM_TRACE="SITE MODE TEST" prints
            // that row's packets on stderr, to set beside a capture of the emulated link.
            let traced = std::env::var("WEBDIET_SIM_TRACE")
                .is_ok_and(|t| t == format!("{} {} {}", r.site, r.mode, r.test));
            let options = SimOptions {
                seed,
                trace: traced,
                ..self.options.clone()
            };
            let mut sum = SimVisit::default();
            for page in &r.pages {
                if traced {
                    eprintln!("{}: exchange {:?}", spec.name, page.exchange);
                }
                let t = simulate::simulate(&page.exchange, spec, &options)
                    .map_err(|e| format!("{} {} {}: {e}", r.mode, r.test, r.page))?;
                for p in &t.packets {
                    eprintln!("{}: {p}", spec.name);
                }
                let v = figures(page, &t);
                sum.last_packet_ns += v.last_packet_ns;
                sum.first_byte_ns += v.first_byte_ns;
                sum.complete_ns += v.complete_ns;
                sum.retransmits += v.retransmits;
                sum.timed_out |= v.timed_out;
                sum.waterfall = if r.pages.len() == 1 {
                    v.waterfall
                } else {
                    Vec::new()
                };
            }
            self.visits[i].push(sum);
            run.progress.done(r.page.as_str());
        }
        Ok(())
    }
}

/// One row's simulated figures.
#[derive(Debug, Clone)]
pub struct SimRow {
    pub site: String,
    pub page: String,
    pub mode: Mode,
    pub test: Test,
    pub time: SimulatedTime,
    pub waterfall: Vec<RequestTiming>,
}

/// Simulates every recorded row over `link` (an emulated link's spec) through the driver.
pub fn simulate_over(
    site: &ServedSite,
    opts: &ReplayOptions,
    recorded: &[Recorded],
    link: &Link,
) -> Result<Vec<SimRow>> {
    let (tcp, tcp_name) = tcp_for(link, opts);
    let mut o = opts.clone();
    o.runs = if lossy(link) {
        opts.sim_seeds.max(1)
    } else {
        1
    };
    let mut modes: Vec<Mode> = recorded.iter().map(|r| r.mode).collect();
    modes.sort();
    modes.dedup();
    let mut visitor = SimVisitor {
        modes,
        recorded,
        options: SimOptions {
            tcp,
            ..SimOptions::default()
        },
        seed: opts.seed,
        visits: vec![Vec::new(); recorded.len()],
        seeds: Vec::new(),
    };
    let resolver = Resolver::new(&site.site, None);
    driver::drive(site, &resolver, &o, link, &mut visitor, None, &|_| {})?;
    let seeds = visitor.seeds.clone();
    Ok(recorded
        .iter()
        .zip(visitor.visits)
        .map(|(r, visits)| {
            let spread =
                |f: &dyn Fn(&SimVisit) -> u64| Spread::of(visits.iter().map(|v| f(v) as f64 / 1e6));
            let last_packet = spread(&|v| v.last_packet_ns);
            // The waterfall of the seed whose paper's time is the median.
            let waterfall = visits
                .iter()
                .find(|v| v.last_packet_ns as f64 / 1e6 == last_packet.median)
                .map(|v| v.waterfall.clone())
                .unwrap_or_default();
            SimRow {
                site: r.site.clone(),
                page: r.page.clone(),
                mode: r.mode,
                test: r.test,
                time: SimulatedTime {
                    last_packet_ms: last_packet,
                    first_byte_ms: spread(&|v| v.first_byte_ns),
                    complete_ms: spread(&|v| v.complete_ns),
                    tcp: tcp_name.to_string(),
                    seeds: seeds.clone(),
                    timed_out_seeds: visits.iter().filter(|v| v.timed_out).count(),
                    retransmits: Spread::of(visits.iter().map(|v| v.retransmits as f64)),
                },
                waterfall,
            }
        })
        .collect())
}

/// Puts simulated rows over `link` into `rows`: beside the measured figures of the row of the
/// same site, page, mode and test over that link when it was measured, else in a row of their
/// own, with the loopback row's bytes and packets (the same on any link) and no measured time.
pub fn merge(rows: &mut Vec<ReplayRow>, simulated: Vec<SimRow>, link: &Link) {
    for s in simulated {
        let same = |r: &ReplayRow| {
            r.site == s.site && r.page == s.page && r.mode == s.mode && r.test == s.test
        };
        if let Some(row) = rows
            .iter_mut()
            .find(|r| same(r) && r.link.name == link.name())
        {
            row.simulated_time = Some(s.time);
            row.simulated_waterfall = s.waterfall;
            continue;
        }
        let Some(base) = rows.iter().find(|r| same(r) && r.link.name == "loopback") else {
            continue;
        };
        let mut row = base.clone();
        row.link = RowLink::new(link, s.time.seeds.clone());
        row.runs = 0;
        row.timed_out_runs = 0;
        row.kernel = Default::default();
        row.time = Default::default();
        row.waterfall = Vec::new();
        row.method = "simulated".to_string();
        row.congestion_control = None;
        row.simulated_time = Some(s.time);
        row.simulated_waterfall = s.waterfall;
        rows.push(row);
    }
}

/// Why the simulation needs a recording it does not have.
pub fn no_recording(site: &ServedSite) -> Error {
    Error::Invalid {
        path: site.site.root.clone(),
        message: "simulated time needs the loopback replay's recording, and it made none".into(),
    }
}

/// Whether the measured times of two rows (the original and the rewritten site, say) can be
/// told apart: the 90% confidence intervals of their medians (over the runs) do not overlap.
/// With fewer than 5 runs there is no such interval, and they cannot.
pub fn told_apart(a: &ReplayRow, b: &ReplayRow) -> bool {
    match (
        median_interval(&a.last_packet_runs_ms(), 0.9),
        median_interval(&b.last_packet_runs_ms(), 0.9),
    ) {
        (Some((a0, a1)), Some((b0, b1))) => a1 < b0 || b1 < a0,
        _ => false,
    }
}

/// How far the simulated page-complete times over one link are from the measured medians.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Validation {
    pub link: String,
    /// Rows with both figures.
    pub rows: usize,
    /// Mean absolute percentage error: mean of |simulated − measured| / measured.
    pub mape_pct: f64,
    /// The row with the largest absolute error, and that error (signed: simulated − measured,
    /// in percent of measured).
    pub worst_pct: f64,
    pub worst_row: String,
    /// Spearman's rank correlation between simulated and measured over the rows: 1 when the
    /// simulation orders them exactly as the measurement does.
    pub rank_correlation: f64,
}

/// The simulation's error against the measurement, per link that has rows with both.
pub fn validation(rows: &[ReplayRow]) -> Vec<Validation> {
    let mut links: Vec<&str> = Vec::new();
    for r in rows {
        if r.measured() && r.simulated_time.is_some() && !links.contains(&r.link.name.as_str()) {
            links.push(&r.link.name);
        }
    }
    links
        .into_iter()
        .filter_map(|link| {
            let pairs: Vec<(String, f64, f64)> = rows
                .iter()
                .filter(|r| r.link.name == link && r.measured())
                .filter_map(|r| {
                    let s = r.simulated_time.as_ref()?;
                    let m = r.time.complete_ms.median;
                    (m > 0.0).then(|| {
                        (
                            format!("{} {} {}", r.site, r.mode, r.test),
                            s.complete_ms.median,
                            m,
                        )
                    })
                })
                .collect();
            error_of(link, &pairs)
        })
        .collect()
}

/// The error figures of (row, simulated, measured) triples.
pub fn error_of(link: &str, pairs: &[(String, f64, f64)]) -> Option<Validation> {
    if pairs.is_empty() {
        return None;
    }
    let errors: Vec<f64> = pairs.iter().map(|(_, s, m)| 100.0 * (s - m) / m).collect();
    let mape = errors.iter().map(|e| e.abs()).sum::<f64>() / errors.len() as f64;
    let (worst, worst_pct) = errors
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.abs().total_cmp(&b.1.abs()))
        .map(|(i, e)| (i, *e))?;
    let sim: Vec<f64> = pairs.iter().map(|p| p.1).collect();
    let meas: Vec<f64> = pairs.iter().map(|p| p.2).collect();
    Some(Validation {
        link: link.to_string(),
        rows: pairs.len(),
        mape_pct: mape,
        worst_pct,
        worst_row: pairs[worst].0.clone(),
        rank_correlation: spearman(&sim, &meas),
    })
}

/// Spearman's rank correlation (ties get their mean rank); 1 for fewer than two values.
pub fn spearman(a: &[f64], b: &[f64]) -> f64 {
    fn ranks(v: &[f64]) -> Vec<f64> {
        let mut idx: Vec<usize> = (0..v.len()).collect();
        idx.sort_by(|&i, &j| v[i].total_cmp(&v[j]));
        let mut r = vec![0.0; v.len()];
        let mut i = 0;
        while i < idx.len() {
            let mut j = i;
            while j + 1 < idx.len() && v[idx[j + 1]] == v[idx[i]] {
                j += 1;
            }
            let mean = (i + j) as f64 / 2.0 + 1.0;
            for k in i..=j {
                r[idx[k]] = mean;
            }
            i = j + 1;
        }
        r
    }
    if a.len() < 2 {
        return 1.0;
    }
    let (ra, rb) = (ranks(a), ranks(b));
    let n = a.len() as f64;
    let mean = (n + 1.0) / 2.0;
    let cov: f64 = ra
        .iter()
        .zip(&rb)
        .map(|(x, y)| (x - mean) * (y - mean))
        .sum();
    let va: f64 = ra.iter().map(|x| (x - mean).powi(2)).sum();
    let vb: f64 = rb.iter().map(|y| (y - mean).powi(2)).sum();
    if va == 0.0 || vb == 0.0 {
        return 1.0;
    }
    cov / (va * vb).sqrt()
}
