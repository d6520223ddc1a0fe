//! The replay stage: re-runs the 1997 W3C experiment on a site. An embedded server serves the
//! site on loopback, an embedded client (the libwww "robot") visits it in four modes — HTTP/1.0
//! with parallel connections, HTTP/1.1 persistent, pipelined, pipelined with deflate — for a
//! first visit and a cache validation, and the kernel's TCP counters say what each cost in
//! bytes and packets, with Ethernet-like segmentation (MSS 1460) rather than loopback's.
//!
//! `replay(&ServedSite, &ReplayOptions) -> Replay`: by default the run happens in a private
//! network namespace (a re-executed child process, see [`netns`]); where namespaces are not
//! available it falls back to clamping `TCP_MAXSEG` on the host loopback, and says so.

pub mod client;
pub mod http;
pub mod link;
pub mod meter;
pub mod netns;
pub mod served;
pub mod server;
mod sys;

use std::time::Instant;

use serde::{Deserialize, Serialize};

pub use client::{ClientOptions, Mode, Test};
pub use meter::Counters;
pub use served::ServedSite;
pub use server::ServerOptions;

use crate::error::{Error, Result};
use crate::report::replay::{Range, ReplayRow};
use crate::site::resolve::Resolver;
use crate::site::FileKind;

/// Which pages the robot visits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Pages {
    /// The site's index page (or, without one, its first page).
    Index,
    /// One page, by site path (`--page`).
    One(String),
    /// Every page in turn (`--all-pages`).
    All,
}

/// Options for [`replay`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReplayOptions {
    /// Which site this is in the report: `original` or `rewritten`. Default: `original`.
    pub label: String,
    /// Default: the index page.
    pub pages: Pages,
    /// Default: all four.
    pub modes: Vec<Mode>,
    /// Default: first visit and validation.
    pub tests: Vec<Test>,
    /// Repetitions of each combination; rows hold medians. Default: 5 (as in the paper).
    pub runs: usize,
    /// TCP maximum segment size (payload bytes per segment). Default: 1460 (Ethernet).
    pub mss: u32,
    /// Run in a private network namespace with an Ethernet-like loopback. Default: `true`;
    /// `false` runs in the current namespace (with `TCP_MAXSEG` clamped) so that an outside
    /// capture on `lo` can check the counts.
    pub netns: bool,
    /// Capture the run with tcpdump into this file (inside the namespace). Default: none.
    pub capture: Option<std::path::PathBuf>,
    pub server: ServerOptions,
    pub client: ClientOptions,
}

impl Default for ReplayOptions {
    fn default() -> Self {
        ReplayOptions {
            label: "original".into(),
            pages: Pages::Index,
            modes: Mode::ALL.to_vec(),
            tests: Test::ALL.to_vec(),
            runs: 5,
            mss: 1460,
            netns: true,
            capture: None,
            server: ServerOptions::default(),
            client: ClientOptions::default(),
        }
    }
}

/// How segmentation was made to look like Ethernet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Method {
    /// `netns` (a network namespace, as root), `userns+netns` (unprivileged), or `tcp-maxseg`
    /// (the host loopback with `TCP_MAXSEG` clamped: data segments exact, ACKs not).
    pub name: String,
    /// What was set up, or why the namespace could not be used.
    pub detail: String,
    /// `TCP_MAXSEG` set on the sockets, if any.
    pub tcp_maxseg: Option<u32>,
}

/// The replay's result: one row per mode and test.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Replay {
    pub method: Method,
    pub mss: u32,
    pub rows: Vec<ReplayRow>,
}

/// Replays `site` as configured: in a private network namespace when possible.
pub fn replay(site: &ServedSite, opts: &ReplayOptions) -> Result<Replay> {
    let fallback = if opts.netns {
        match netns::run_in_child(site, opts) {
            Ok(replay) => return Ok(replay),
            Err(netns::ChildError::Unavailable(reason)) => Some(reason),
            Err(netns::ChildError::Failed(message)) => {
                // The child's message already starts with the site's path.
                let prefix = format!("{}: ", site.site.root.display());
                return Err(Error::Invalid {
                    path: site.site.root.clone(),
                    message: message
                        .strip_prefix(&prefix)
                        .unwrap_or(&message)
                        .to_string(),
                });
            }
        }
    } else {
        None
    };
    let timestamps = std::fs::read_to_string("/proc/sys/net/ipv4/tcp_timestamps")
        .map(|s| s.trim() != "0")
        .unwrap_or(true);
    // With timestamps, 12 bytes of every segment are TCP options: ask for 12 more.
    let maxseg = opts.mss + if timestamps { 12 } else { 0 };
    let detail = match fallback {
        Some(reason) => {
            format!("host loopback, TCP_MAXSEG {maxseg}; namespace unavailable: {reason}")
        }
        None => format!("current network namespace (--no-netns), TCP_MAXSEG {maxseg}"),
    };
    let method = Method {
        name: "tcp-maxseg".into(),
        detail,
        tcp_maxseg: Some(maxseg),
    };
    run_here(site, opts, method)
}

/// Deflate estimates for every text resource of a served site (the report's `compression`).
pub fn compression(
    site: &ServedSite,
    rule: &crate::deflate::WorthRule,
) -> crate::deflate::Estimate {
    crate::deflate::estimate(
        site.files()
            .filter(|(_, r)| http::is_text(r.content_type))
            .map(|(p, r)| (p, r.body.as_slice())),
        rule,
    )
}

/// Runs server and client in this process and network namespace.
pub fn run_here(site: &ServedSite, opts: &ReplayOptions, method: Method) -> Result<Replay> {
    let fail = |message: String| Error::Invalid {
        path: site.site.root.clone(),
        message,
    };
    let resolver = Resolver::new(&site.site, None);
    let pages = pages(site, &resolver, &opts.pages).map_err(fail)?;
    let mut server_opts = opts.server.clone();
    server_opts.tcp_maxseg = method.tcp_maxseg;
    let mut client_opts = opts.client.clone();
    client_opts.tcp_maxseg = method.tcp_maxseg;
    client_opts.mss = u64::from(opts.mss);
    let control = server::Control::default();
    let runs = opts.runs.max(1);
    // measured[mode][test] = one (counters, elapsed ms) per run.
    let mut measured: Vec<(Mode, Test, Vec<RunResult>)> = Vec::new();
    for &mode in &opts.modes {
        for &test in &opts.tests {
            measured.push((mode, test, Vec::new()));
        }
    }
    std::thread::scope(|scope| -> Result<()> {
        let server = server::Server::start(scope, site, &resolver, &server_opts, &control)
            .map_err(|e| fail(format!("cannot start the server: {e}")))?;
        let client = client::Client::new(server.addr, site, &resolver, &client_opts);
        let outcome = (|| {
            for &mode in &opts.modes {
                for _ in 0..runs {
                    let mut per_test = [(Counters::default(), 0.0), (Counters::default(), 0.0)];
                    for page in &pages {
                        let mut cache = client::Cache::default();
                        for (i, test) in Test::ALL.into_iter().enumerate() {
                            let started = Instant::now();
                            let counters =
                                client.visit(page, mode, test, &mut cache).map_err(|e| {
                                    format!("{} {} {}: {e}", mode.as_str(), test.as_str(), page)
                                })?;
                            per_test[i].0 += counters;
                            per_test[i].1 += started.elapsed().as_secs_f64() * 1000.0;
                        }
                    }
                    for (m, t, runs) in measured.iter_mut() {
                        if *m == mode {
                            let i = Test::ALL.iter().position(|x| x == t).expect("a test");
                            runs.push(per_test[i]);
                        }
                    }
                }
            }
            Ok(())
        })();
        server.stop();
        outcome.map_err(fail)
    })?;
    let page_label = match &opts.pages {
        Pages::All => format!("{} pages", pages.len()),
        _ => pages[0].clone(),
    };
    let rows = measured
        .into_iter()
        .map(|(mode, test, runs)| {
            row(
                &opts.label,
                &page_label,
                mode,
                test,
                &runs,
                &method,
                opts.mss,
            )
        })
        .collect();
    Ok(Replay {
        method,
        mss: opts.mss,
        rows,
    })
}

fn pages(site: &ServedSite, resolver: &Resolver, which: &Pages) -> Result<Vec<String>, String> {
    let html: Vec<String> = site
        .site
        .files
        .iter()
        .filter(|f| f.kind == FileKind::Html)
        .map(|f| f.path.clone())
        .collect();
    match which {
        Pages::All if html.is_empty() => Err("the site has no pages".into()),
        Pages::All => Ok(html),
        Pages::One(page) if site.resource(page).is_some() => Ok(vec![page.clone()]),
        Pages::One(page) => Err(format!("{page}: no such page in the site")),
        Pages::Index => resolver
            .entry_page()
            .or_else(|| html.first().cloned())
            .map(|p| vec![p])
            .ok_or_else(|| "the site has no index page and no other page".into()),
    }
}

/// One run of one mode and test: its counters and elapsed milliseconds.
type RunResult = (Counters, f64);

/// The median of each measure over the runs, with the range of packets and time.
fn row(
    label: &str,
    page: &str,
    mode: Mode,
    test: Test,
    runs: &[RunResult],
    method: &Method,
    mss: u32,
) -> ReplayRow {
    let med = |f: &dyn Fn(&Counters) -> u64| median(runs.iter().map(|(c, _)| f(c)).collect());
    let packets: Vec<u64> = runs.iter().map(|(c, _)| c.packets()).collect();
    let mut elapsed: Vec<f64> = runs.iter().map(|(_, ms)| *ms).collect();
    elapsed.sort_by(f64::total_cmp);
    let median_counters = Counters {
        requests: med(&|c| c.requests),
        connections: med(&|c| c.connections),
        bytes_up: med(&|c| c.bytes_up),
        bytes_down: med(&|c| c.bytes_down),
        packets_up: med(&|c| c.packets_up),
        packets_down: med(&|c| c.packets_down),
        data_segments_up: med(&|c| c.data_segments_up),
        data_segments_down: med(&|c| c.data_segments_down),
        min_packets: med(&|c| c.min_packets),
        retransmits: med(&|c| c.retransmits),
    };
    let packets_median = median(packets.clone());
    ReplayRow {
        site: label.to_string(),
        page: page.to_string(),
        mode: mode.as_str().to_string(),
        test: test.as_str().to_string(),
        runs: runs.len(),
        requests: median_counters.requests,
        connections: median_counters.connections,
        bytes_up: median_counters.bytes_up,
        bytes_down: median_counters.bytes_down,
        packets_up: median_counters.packets_up,
        packets_down: median_counters.packets_down,
        packets: packets_median,
        packets_range: Range {
            min: packets.iter().copied().min().unwrap_or(0),
            max: packets.iter().copied().max().unwrap_or(0),
        },
        data_segments_up: median_counters.data_segments_up,
        data_segments_down: median_counters.data_segments_down,
        data_segments_range: Range {
            min: runs
                .iter()
                .map(|(c, _)| c.data_segments_up + c.data_segments_down)
                .min()
                .unwrap_or(0),
            max: runs
                .iter()
                .map(|(c, _)| c.data_segments_up + c.data_segments_down)
                .max()
                .unwrap_or(0),
        },
        min_packets: median_counters.min_packets,
        efficiency: if packets_median == 0 {
            0.0
        } else {
            median_counters.min_packets as f64 / packets_median as f64
        },
        overhead_pct: Counters {
            packets_up: packets_median,
            packets_down: 0,
            ..median_counters
        }
        .overhead_pct(),
        retransmits: median_counters.retransmits,
        // The lower middle, like every counter, so an even `--runs` reports one measured run.
        elapsed_ms: elapsed
            .get((elapsed.len().max(1) - 1) / 2)
            .copied()
            .unwrap_or(0.0),
        elapsed_ms_range: [
            elapsed.first().copied().unwrap_or(0.0),
            elapsed.last().copied().unwrap_or(0.0),
        ],
        method: method.name.clone(),
        mss,
    }
}

/// The median of a list (the lower middle for an even count, so it is always a measured value).
fn median(mut values: Vec<u64>) -> u64 {
    values.sort_unstable();
    values
        .get((values.len().max(1) - 1) / 2)
        .copied()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests;
