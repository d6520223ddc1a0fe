//! The replay stage: re-runs the 1997 W3C experiment on a site. An embedded server serves the
//! site, an embedded client (the libwww "robot") visits it in every mode of the table —
//! HTTP/1.0 with parallel connections, HTTP/1.1 persistent, pipelined, pipelined with deflate —
//! for a first visit and a cache validation, and one meter says what each cost in bytes and
//! packets, with Ethernet-like segmentation (MSS 1460) rather than loopback's.
//!
//! One picture, three layers:
//! - the *link* carries the packets: a private network namespace whose loopback behaves like
//!   Ethernet ([`netns`]), or, where namespaces are unavailable, the host loopback with
//!   `TCP_MAXSEG` clamped;
//! - the *transport* on top ([`transport`]: TCP);
//! - the *protocols* ([`protocol`]: HTTP/1.x), each a client half and a server half; the table
//!   [`protocol::MODES`] names the modes.
//!
//! All of them share one meter ([`meter`]) and one row type ([`row::ReplayRow`]).
//! `replay(&ServedSite, &ReplayOptions) -> Replay`.

pub mod headers;
pub mod link;
pub mod meter;
pub mod netns;
pub mod protocol;
pub mod robot;
pub mod row;
pub mod served;
pub mod server;
mod sys;
pub use sys::thread_cpu_time;
pub mod transport;

use serde::{Deserialize, Serialize};

pub use meter::Counters;
pub use protocol::http1::message as http;
pub use protocol::Mode;
pub use robot::{ClientOptions, Test, Visit};
pub use row::{ReplayRow, Spread};
pub use served::ServedSite;
pub use server::ServerOptions;

use crate::error::{Error, Result};
use crate::site::resolve::Resolver;
use crate::site::FileKind;
use meter::Model;
use transport::Connector;

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
    /// Default: [`Mode::defaults`].
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
            modes: Mode::defaults(),
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

/// Runs server and client in this process and network namespace: for each mode, a server
/// with the mode's server half, and `runs` visits of every page by its client half.
pub fn run_here(site: &ServedSite, opts: &ReplayOptions, method: Method) -> Result<Replay> {
    let fail = |message: String| Error::Invalid {
        path: site.site.root.clone(),
        message,
    };
    let resolver = Resolver::new(&site.site, None);
    let pages = pages(site, &resolver, &opts.pages).map_err(fail)?;
    let mut server_opts = opts.server.clone();
    server_opts.tcp.tcp_maxseg = method.tcp_maxseg;
    let mut client_opts = opts.client.clone();
    client_opts.tcp.tcp_maxseg = method.tcp_maxseg;
    let model = Model {
        mss: u64::from(opts.mss),
        server_buffer: server_opts.buffer as u64,
    };
    let robot = robot::Robot::new(site, &resolver, &client_opts);
    let cx = server::ServeContext::new(site, &resolver, &server_opts);
    let runs = opts.runs.max(1);
    let page_label = match &opts.pages {
        Pages::All => format!("{} pages", pages.len()),
        _ => pages[0].clone(),
    };
    let mut rows = Vec::new();
    for &mode in &opts.modes {
        let spec = mode.spec();
        // measured[test] = one visit (summed over the pages) per run.
        let mut measured: Vec<Vec<Visit>> = vec![Vec::new(); Test::ALL.len()];
        let control = server::Control::default();
        std::thread::scope(|scope| -> Result<()> {
            let server = server::Server::start(scope, &cx, &control, spec.server)
                .map_err(|e| fail(format!("cannot start the server: {e}")))?;
            let connector = Connector {
                addr: server.addr,
                tcp: client_opts.tcp,
                timeout: client_opts.timeout,
                model,
                own: &control.own,
            };
            let outcome = (|| {
                for _ in 0..runs {
                    let mut per_test = vec![Visit::default(); Test::ALL.len()];
                    for page in &pages {
                        let mut cache = robot::Cache::default();
                        for (i, test) in Test::ALL.into_iter().enumerate() {
                            let visit = spec
                                .client
                                .visit(&robot, &connector, page, test, &mut cache)
                                .map_err(|e| {
                                    format!("{} {} {}: {e}", mode.as_str(), test.as_str(), page)
                                })?;
                            per_test[i].counters += visit.counters;
                            per_test[i].timing.first_byte += visit.timing.first_byte;
                            per_test[i].timing.complete += visit.timing.complete;
                        }
                    }
                    for (i, visit) in per_test.into_iter().enumerate() {
                        measured[i].push(visit);
                    }
                }
                Ok(())
            })();
            server.stop();
            outcome.map_err(fail)
        })?;
        for (i, test) in Test::ALL.into_iter().enumerate() {
            if opts.tests.contains(&test) {
                rows.push(ReplayRow::from_runs(
                    &opts.label,
                    &page_label,
                    mode,
                    test,
                    &measured[i],
                    client_opts.headers,
                    &method.name,
                    opts.mss,
                ));
            }
        }
    }
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

#[cfg(test)]
mod tests;
