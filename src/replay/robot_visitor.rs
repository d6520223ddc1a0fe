//! webdiet's robot as a client of the replay [`driver`]: in every mode, for every run, one
//! visit of each page by the mode's client half per test (a first visit, then a validation
//! from its cache), summed into one row per mode, page group and test.

use super::driver::{self, ModeRun, Needs, Visitor};
use super::meter::{Framing, Model};
use super::options::{patience, Method, Pages, Replay, ReplayOptions};
use super::protocol::{self, Mode};
use super::recording;
use super::robot::{self, ClientOptions, Robot, Test, Visit};
use super::row::{self, ReplayRow};
use super::served::ServedSite;
use super::server::ServerOptions;
use super::simulated::Recorded;
use super::transport::{Connector, TlsOptions};
use crate::error::{Error, Result};
use crate::sim::link::Link;
use crate::site::resolve::Resolver;

/// Replays `site` over `over` with webdiet's robot, `opts.runs` times in every mode of
/// `opts.modes`; `method` says how segmentation was made Ethernet-like (over an emulated
/// link, the link's own set-up replaces it).
pub fn run(
    site: &ServedSite,
    opts: &ReplayOptions,
    method: Method,
    over: &Link,
    progress: &dyn Fn(&str),
) -> Result<Replay> {
    let resolver = Resolver::new(&site.site, None);
    let pages = crate::replay::options::pages(site, &resolver, &opts.pages).map_err(|message| {
        Error::Invalid {
            path: site.site.root.clone(),
            message,
        }
    })?;
    let client_opts = client_options(opts, &method, over);
    let mut visitor = RobotVisitor::new(Robot::new(site, &resolver, &client_opts), opts, pages);
    visitor.tcp_maxseg = method.tcp_maxseg;
    let capture = opts.capture.as_deref();
    let driven = driver::drive(site, &resolver, opts, over, &mut visitor, capture, progress)?;
    let method = driven.link_method.clone().unwrap_or(method);
    Ok(Replay {
        rows: visitor.rows(opts, &driven, &method, over),
        recorded: match over {
            Link::Loopback => visitor.recorded(opts),
            Link::Emulated(_) => Vec::new(),
        },
        method,
        mss: opts.mss,
        links: Vec::new(),
        browser: Vec::new(),
    })
}

/// The robot's options over `over`: the sockets clamped as `method` says, and, over an
/// emulated link, patience for the link's own buffering.
fn client_options(opts: &ReplayOptions, method: &Method, over: &Link) -> ClientOptions {
    let mut client_opts = opts.client.clone();
    client_opts.tcp.tcp_maxseg = method.tcp_maxseg;
    if let Link::Emulated(_) = over {
        client_opts.timeout = patience(over, client_opts.timeout);
    }
    client_opts
}

/// The robot's visits, as they are measured.
struct RobotVisitor<'a> {
    robot: Robot<'a>,
    modes: Vec<Mode>,
    tests: Vec<Test>,
    mss: u32,
    /// `TCP_MAXSEG` of the server's sockets too.
    tcp_maxseg: Option<u32>,
    /// The pages each row sums: all of them in one row, or one row per page; with its label.
    groups: Vec<(String, Vec<String>)>,
    /// `measured[mode][group][test]`: one visit (summed over the group's pages) per run.
    measured: Vec<Vec<Vec<Vec<Visit>>>>,
}

impl<'a> RobotVisitor<'a> {
    fn new(robot: Robot<'a>, opts: &ReplayOptions, pages: Vec<String>) -> Self {
        let groups: Vec<(String, Vec<String>)> = match &opts.pages {
            Pages::All => vec![(format!("{} pages", pages.len()), pages)],
            Pages::Each => pages.iter().map(|p| (p.clone(), vec![p.clone()])).collect(),
            _ => vec![(pages[0].clone(), pages)],
        };
        RobotVisitor {
            robot,
            modes: opts.modes.clone(),
            tests: opts.tests.clone(),
            mss: opts.mss,
            tcp_maxseg: None,
            measured: vec![vec![vec![Vec::new(); Test::ALL.len()]; groups.len()]; opts.modes.len()],
            groups,
        }
    }

    /// The tests a page gets: those asked for, and a first visit before a validation.
    fn tests_run(&self) -> impl Iterator<Item = (usize, Test)> + '_ {
        Test::ALL
            .into_iter()
            .enumerate()
            .filter(|(_, test)| self.tests.contains(test) || *test == Test::First)
    }

    /// Every page of group `g` in turn, each test summed over the pages into `sums`.
    fn visit_group(
        &self,
        run: &ModeRun<'_>,
        connector: &Connector<'_>,
        g: usize,
    ) -> std::result::Result<Vec<Option<Visit>>, String> {
        let pages = &self.groups[g].1;
        let mut sums: Vec<Option<Visit>> = vec![None; Test::ALL.len()];
        for page in pages {
            let visits = self.visit_page(run, connector, page)?;
            for (i, visit) in visits {
                add_visit(
                    sums[i].get_or_insert_with(Visit::default),
                    visit,
                    pages.len() == 1,
                );
            }
        }
        Ok(sums)
    }

    /// One page, a first visit and then its validation (`None`: not made, its first visit
    /// having timed out), by test index.
    fn visit_page(
        &self,
        run: &ModeRun<'_>,
        connector: &Connector<'_>,
        page: &str,
    ) -> std::result::Result<Vec<(usize, Option<Visit>)>, String> {
        let mut cache = robot::Cache::default();
        let mut first_timed_out = false;
        let mut visits = Vec::new();
        for (i, test) in self.tests_run() {
            let what = format!("{} {} {}", run.mode.as_str(), test.as_str(), page);
            let visit = if first_timed_out {
                // Nothing to validate: this run's validation timed out with its first visit
                // (counted, with no time).
                None
            } else {
                let mut visit = visit_once(
                    run.mode.spec().client,
                    &self.robot,
                    connector,
                    page,
                    test,
                    &mut cache,
                    run.emulator.is_some(),
                )
                .map_err(|e| format!("{what}: {e}"))?;
                let scripts = connector.recorder.take();
                if !visit.timed_out {
                    let rule = recording::ServerRule {
                        buffer_bytes: run.server_opts.buffer as u64,
                        wait_ns: run.server_opts.partial_wait.as_nanos() as u64,
                        framing: connector.model.framing,
                        connections: self.robot.opts.connections,
                    };
                    visit.recorded = vec![recording::build(scripts, &rule)];
                }
                first_timed_out = visit.timed_out && test == Test::First;
                Some(visit)
            };
            visits.push((i, visit));
            run.progress.done(&what);
        }
        Ok(visits)
    }

    /// What the first completed run of every row recorded, for the simulator.
    fn recorded(&self, opts: &ReplayOptions) -> Vec<Recorded> {
        let mut out = Vec::new();
        for (m, &mode) in self.modes.iter().enumerate() {
            for ((page_label, _), measured) in self.groups.iter().zip(&self.measured[m]) {
                for (i, test) in Test::ALL.into_iter().enumerate() {
                    let first = measured[i].iter().find(|v| !v.timed_out);
                    if let (true, Some(visit)) = (self.tests.contains(&test), first) {
                        out.push(Recorded {
                            site: opts.label.clone(),
                            page: page_label.clone(),
                            mode,
                            test,
                            pages: visit.recorded.clone(),
                        });
                    }
                }
            }
        }
        out
    }

    /// One row per mode, page group and test asked for.
    fn rows(
        &self,
        opts: &ReplayOptions,
        driven: &driver::Driven,
        method: &Method,
        over: &Link,
    ) -> Vec<ReplayRow> {
        let row_link = row::RowLink::new(over, driven.seeds.clone());
        let label = driven.chain_bytes.as_ref().map(|chain| row::TlsLabel {
            version: opts.tls.version.as_str().to_string(),
            // Both ends allow this suite only: it is the negotiated one.
            suite: opts.tls.suite_name(),
            resumption: opts.tls.resumption,
            chain_bytes: chain.clone(),
        });
        let mut rows = Vec::new();
        for (m, &mode) in self.modes.iter().enumerate() {
            for ((page_label, _), measured) in self.groups.iter().zip(&self.measured[m]) {
                for (i, test) in Test::ALL.into_iter().enumerate() {
                    if self.tests.contains(&test) {
                        let mut row = ReplayRow::from_runs(
                            &opts.label,
                            page_label,
                            mode,
                            test,
                            &measured[i],
                            self.robot.opts.headers,
                            &method.name,
                            opts.mss,
                            label.as_ref().filter(|_| mode.is_tls()),
                            &row_link,
                        );
                        row.congestion_control =
                            opts.client.tcp.congestion.map(|c| c.as_str().to_string());
                        rows.push(row);
                    }
                }
            }
        }
        rows
    }
}

impl Visitor for RobotVisitor<'_> {
    fn needs(&self) -> Needs {
        Needs::Server
    }

    fn modes(&self) -> &[Mode] {
        &self.modes
    }

    fn visits_per_mode(&self) -> usize {
        let pages: usize = self.groups.iter().map(|(_, pages)| pages.len()).sum();
        pages * self.tests_run().count()
    }

    fn noun(&self) -> &'static str {
        "visits"
    }

    fn configure(&self, server: &mut ServerOptions, _tls: &mut TlsOptions) {
        server.tcp.tcp_maxseg = self.tcp_maxseg;
    }

    fn run_mode(&mut self, run: &mut ModeRun<'_>) -> std::result::Result<(), String> {
        let Some(server) = &run.server else {
            return Err("the robot's mode has no server".into());
        };
        let client_tls = run
            .tls
            .filter(|_| run.mode.is_tls())
            .map(|t| t.client.with_alpn(run.mode.spec().client.alpn()));
        let connector = Connector {
            addr: server.addr,
            tcp: self.robot.opts.tcp,
            timeout: self.robot.opts.timeout,
            model: Model {
                mss: u64::from(self.mss),
                server_buffer: run.server_opts.buffer as u64,
                framing: client_tls.as_ref().map_or(Framing::NONE, |t| t.framing),
            },
            own: &server.control.own,
            tls: client_tls.as_ref(),
            visit: Default::default(),
            recorder: Default::default(),
        };
        for g in 0..self.groups.len() {
            let sums = self.visit_group(run, &connector, g)?;
            for (i, sum) in sums.into_iter().enumerate() {
                if let Some(sum) = sum {
                    self.measured[run.mode_index][g][i].push(sum);
                }
            }
        }
        Ok(())
    }
}

/// One visit of `page` by a mode's client half, as a new browser session (its first TLS
/// connection makes a full handshake). Over an emulated link a visit that gave up waiting is
/// a timed-out visit, its times those at which it was abandoned; anything else is an error.
fn visit_once(
    client: &dyn protocol::ClientHalf,
    robot: &Robot<'_>,
    connector: &Connector<'_>,
    page: &str,
    test: Test,
    cache: &mut robot::Cache,
    emulated: bool,
) -> std::result::Result<Visit, String> {
    connector
        .new_visit()
        .map_err(|e| format!("a session to resume: {e}"))?;
    match client.visit(robot, connector, page, test, cache) {
        Ok(visit) => Ok(visit),
        Err(e) => {
            let marks = connector.visit.marks();
            if !(emulated && marks.timed_out) {
                return Err(e.to_string());
            }
            let at = marks.first_syn.map(|t| t.elapsed()).unwrap_or_default();
            Ok(Visit {
                timed_out: true,
                timing: robot::Timing {
                    first_byte: at,
                    complete: at,
                    last_packet: at,
                    requests: Vec::new(),
                },
                ..Visit::default()
            })
        }
    }
}

/// Adds one page's visit to a row's sum over its pages (`None`: not made, counted as timed
/// out). The waterfall is kept for a row of one page only.
fn add_visit(sum: &mut Visit, visit: Option<Visit>, one_page: bool) {
    let Some(visit) = visit else {
        sum.timed_out = true;
        return;
    };
    sum.counters += visit.counters;
    sum.timing.first_byte += visit.timing.first_byte;
    sum.timing.complete += visit.timing.complete;
    sum.timing.last_packet += visit.timing.last_packet;
    sum.timing.requests = if one_page {
        visit.timing.requests
    } else {
        Vec::new()
    };
    sum.timed_out |= visit.timed_out;
    sum.recorded.extend(visit.recorded);
}
