//! The replay stage: re-runs the 1997 W3C experiment on a site. An embedded server serves the
//! site and a client visits it in every mode of the table ([`protocol::MODES`]) — HTTP/1.0
//! with parallel connections, HTTP/1.1 persistent, pipelined and pipelined with deflate; the
//! same over TLS (`https*`); HTTP/2 in cleartext (`h2c`, `h2c-deflate`) and over TLS (`h2`);
//! and, when asked for, HTTP/2 with push or preload hints — for a first visit and a cache
//! validation, and one meter says what each cost in bytes and packets, with Ethernet-like
//! segmentation (MSS 1460) rather than loopback's. The client is webdiet's robot (the libwww
//! robot's rules, [`robot_visitor`]), Chromium ([`chromium`]), or both.
//!
//! One picture, three layers:
//! - the *link* carries the packets ([`link`], one entry point for all of them): a private
//!   network namespace whose loopback behaves like Ethernet, the host loopback with
//!   `TCP_MAXSEG` clamped where namespaces are unavailable, or an emulated link (rate, delay,
//!   loss, queue) between two namespaces;
//! - the *transport* on top ([`transport`]: TCP, or TLS over TCP for the `https*` and `h2`
//!   modes);
//! - the *protocols* ([`protocol`]: HTTP/1.x and HTTP/2), each a client half and a server
//!   half; the table [`protocol::MODES`] names the modes.
//!
//! One [`driver`] runs every client over a link: the runs, a server per mode on the one
//! listening socket, the progress estimate. All of them share one meter ([`meter`]); the
//! robot's rows are [`row::ReplayRow`], the browser's [`BrowserRow`], aggregated over the
//! runs the same way ([`row::Runs`]).
//! `replay(&ServedSite, &ReplayOptions) -> Replay`.

pub mod chromium;
pub mod driver;
pub mod link;
pub mod load;
pub mod meter;
pub mod protocol;
pub mod recording;
pub mod robot;
pub mod robot_visitor;
pub mod row;
pub mod served;
pub mod server;
pub mod simulated;
pub mod study;
pub mod transport;

use serde::{Deserialize, Serialize};

pub use crate::sim::headers::HeaderSet;
pub use crate::sim::link::Link;
pub use chromium::{BrowserRow, ChromiumOptions, ClientKind};

pub use meter::Counters;
pub use protocol::http1::message as http;
pub use protocol::Mode;
pub use robot::{ClientOptions, RequestTiming, Test, Visit};
pub use row::{ReplayRow, RowLink, Spread, TlsRow};

pub use served::ServedSite;
pub use server::ServerOptions;
pub use transport::{Cipher, TlsOptions, TlsVersion};

use crate::error::{Error, Result};
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
    /// Every page in turn (`--all-pages`), summed into one row.
    All,
    /// Every page in turn, a row each (the document-size study, [`study`]).
    Each,
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
    /// Fewer (or more) runs on some links (`--runs-on LINK=N`): a link whose name is, or
    /// starts with, `LINK,` (a sweep over it) runs N times. Default: none.
    #[serde(default)]
    pub runs_on: Vec<(String, usize)>,
    /// The links to replay over, in order (`--link`, `--sweep`). Default: `loopback` only.
    #[serde(default = "loopback_only")]
    pub links: Vec<Link>,
    /// The loss seed of the first run on an emulated link; run `i` uses `seed + i`, so runs
    /// see distinct, recorded loss patterns. Default: 1.
    #[serde(default = "first_seed")]
    pub seed: u64,
    /// TCP maximum segment size (payload bytes per segment). Default: 1460 (Ethernet). Over
    /// an emulated link the link's MTU − 40.
    pub mss: u32,
    /// Run in a private network namespace with an Ethernet-like loopback. Default: `true`;
    /// `false` runs in the current namespace (with `TCP_MAXSEG` clamped) so that an outside
    /// capture on `lo` can check the counts (and no emulated link can run).
    pub netns: bool,
    /// Capture the run with tcpdump into this file (inside the namespace: on `lo`, or over an
    /// emulated link on the client's device `wd-client`, first run only). Default: none.
    pub capture: Option<std::path::PathBuf>,
    pub server: ServerOptions,
    pub client: ClientOptions,
    /// TLS for the modes over TLS (`https*`). Default: TLS 1.3, resumption on, AES-GCM.
    #[serde(default)]
    pub tls: TlsOptions,
    /// Who visits (`--client`): webdiet's robot, Chromium over the emulated links, or both.
    /// Default: webdiet's robot only.
    #[serde(default = "robot_only")]
    pub clients: Vec<ClientKind>,
    /// How Chromium visits, when `clients` has it.
    #[serde(default)]
    pub chromium: ChromiumOptions,
    /// The links time is simulated on ([`simulated`], docs/simulation.md), from what the
    /// loopback replay recorded; a link here and in `links` is also measured, and its rows
    /// carry both. Default: none.
    #[serde(default)]
    pub simulate: Vec<Link>,
    /// Loss seeds per simulated link that loses packets: its simulated times are quantiles
    /// over them. Default: 20.
    #[serde(default = "default_sim_seeds")]
    pub sim_seeds: usize,
    /// Simulate the 1997 links with a 1997 TCP stack (Reno, an initial window of 2, a 3 s
    /// initial RTO, no SACK) instead of today's Linux with Reno (`--tcp-1997`). Simulated
    /// only: the emulated runs keep the kernel's TCP. Default: `false`.
    #[serde(default)]
    pub tcp_1997: bool,
}

fn default_sim_seeds() -> usize {
    20
}

fn robot_only() -> Vec<ClientKind> {
    vec![ClientKind::Webdiet]
}

fn loopback_only() -> Vec<Link> {
    vec![Link::Loopback]
}

fn first_seed() -> u64 {
    1
}

impl Default for ReplayOptions {
    fn default() -> Self {
        ReplayOptions {
            label: "original".into(),
            pages: Pages::Index,
            modes: Mode::defaults(),
            tests: Test::ALL.to_vec(),
            runs: 5,
            runs_on: Vec::new(),
            links: loopback_only(),
            seed: first_seed(),
            mss: 1460,
            netns: true,
            capture: None,
            server: ServerOptions::default(),
            client: ClientOptions::default(),
            tls: TlsOptions::default(),
            clients: robot_only(),
            chromium: ChromiumOptions::default(),
            simulate: Vec::new(),
            sim_seeds: default_sim_seeds(),
            tcp_1997: false,
        }
    }
}

impl ReplayOptions {
    /// How many runs `link` gets: `--runs-on` for it (or for the base of its sweep), else
    /// `runs`.
    pub fn runs_for(&self, link: &Link) -> usize {
        let name = link.name().to_ascii_lowercase();
        self.runs_on
            .iter()
            .rev()
            .find(|(base, _)| {
                let base = base.to_ascii_lowercase();
                name == base || name.starts_with(&format!("{base},"))
            })
            .map_or(self.runs, |(_, n)| *n)
            .max(1)
    }
}

/// How segmentation was made to look like Ethernet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Method {
    /// `netns` (a network namespace, as root), `userns+netns` (unprivileged), `tcp-maxseg`
    /// (the host loopback with `TCP_MAXSEG` clamped: data segments exact, ACKs not), or
    /// `link` (two namespaces joined by webdiet's link emulator).
    pub name: String,
    /// What was set up, or why the namespace could not be used.
    pub detail: String,
    /// `TCP_MAXSEG` set on the sockets, if any.
    pub tcp_maxseg: Option<u32>,
}

/// What became of one link of the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinkRun {
    pub name: String,
    /// How it ran, or `None` when it could not.
    pub method: Option<Method>,
    /// Why it could not run (what is missing), when it did not.
    pub unavailable: Option<String>,
}

/// The replay's result: one row per link, mode and test.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Replay {
    /// How the first link that ran got its segmentation.
    pub method: Method,
    pub mss: u32,
    pub rows: Vec<ReplayRow>,
    /// Every link asked for, in order, with how it ran or why not.
    #[serde(default)]
    pub links: Vec<LinkRun>,
    /// Chromium's visits (`--client chromium`), one row per emulated link, mode and test.
    #[serde(default)]
    pub browser: Vec<BrowserRow>,
    /// What the loopback replay's visits wrote, for the simulator (not in reports).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub recorded: Vec<simulated::Recorded>,
}

/// Replays `site` over every link of `opts`.
pub fn replay(site: &ServedSite, opts: &ReplayOptions) -> Result<Replay> {
    replay_with(site, opts, &|_| {})
}

/// [`replay`], telling `progress` what runs on a slow link and how long is left.
pub fn replay_with(
    site: &ServedSite,
    opts: &ReplayOptions,
    progress: &dyn Fn(&str),
) -> Result<Replay> {
    if opts.clients.contains(&ClientKind::Chromium) {
        chromium::check(&opts.chromium)?;
    }
    if let Some(file) = &opts.capture {
        crate::output::check_named_file(
            file,
            "--capture",
            &site.site.root,
            &link::capture::is_ours,
        )?;
    }
    let mut rows = Vec::new();
    let mut browser = Vec::new();
    let mut links = Vec::new();
    let mut method = None;
    let mut mss = opts.mss;
    let mut recorded = Vec::new();
    let mut loopback_rows: Vec<ReplayRow> = Vec::new();
    for link in &opts.links {
        let mut o = pinned(opts, link);
        o.runs = opts.runs_for(link);
        if let Link::Emulated(spec) = link {
            o.mss = spec.mtu - 40;
        }
        match link::replay_over(site, &o, link, progress)? {
            link::Over::Ran(replay) => {
                links.push(LinkRun {
                    name: link.name().into(),
                    method: Some(replay.method.clone()),
                    unavailable: None,
                });
                if method.is_none() {
                    mss = replay.mss;
                    method = Some(replay.method);
                }
                rows.extend(replay.rows);
                browser.extend(replay.browser);
                recorded.extend(replay.recorded);
            }
            link::Over::Unavailable(reason) => links.push(LinkRun {
                name: link.name().into(),
                method: None,
                unavailable: Some(reason),
            }),
        }
    }
    // No link could run, or simulated time needs the loopback recording that no link made:
    // the loopback replay runs (its rows reported only when nothing else ran).
    let needs_recording = !opts.simulate.is_empty() && recorded.is_empty();
    if method.is_none() || needs_recording {
        let mut o = pinned(opts, &Link::Loopback);
        o.links = loopback_only();
        if method.is_some() {
            // A capture was of the links asked for.
            o.capture = None;
        }
        o.runs = if method.is_none() {
            opts.runs_for(&Link::Loopback)
        } else {
            1
        };
        if let link::Over::Ran(replay) = link::replay_over(site, &o, &Link::Loopback, &|_| {})? {
            recorded.extend(replay.recorded);
            if method.is_none() {
                links.push(LinkRun {
                    name: "loopback".into(),
                    method: Some(replay.method.clone()),
                    unavailable: None,
                });
                mss = replay.mss;
                method = Some(replay.method);
                rows.extend(replay.rows);
            } else {
                // Unreported, but the simulated rows take their counts from it.
                loopback_rows = replay.rows;
            }
        }
    }
    let method = method.ok_or_else(|| Error::Invalid {
        path: site.site.root.clone(),
        message: "no link could run, not even the host loopback".into(),
    })?;
    for link in &opts.simulate {
        if recorded.is_empty() {
            return Err(simulated::no_recording(site));
        }
        let sim = simulated::simulate_over(site, opts, &recorded, link)?;
        let mut all = std::mem::take(&mut rows);
        let reported = all.len();
        all.extend(loopback_rows.iter().cloned());
        simulated::merge(&mut all, sim, link);
        // The unreported loopback rows were only the simulated rows' base.
        let extra = loopback_rows.len();
        let mut kept: Vec<ReplayRow> = all.drain(..reported).collect();
        kept.extend(all.into_iter().skip(extra));
        rows = kept;
    }
    Ok(Replay {
        method,
        mss,
        rows,
        links,
        browser,
        recorded: Vec::new(),
    })
}

/// `opts` with the congestion control the replay pins over `link` on both ends.
fn pinned(opts: &ReplayOptions, link: &Link) -> ReplayOptions {
    let mut o = opts.clone();
    let c = Some(simulated::congestion_for(link));
    o.client.tcp.congestion = c;
    o.server.tcp.congestion = c;
    o
}

/// How long a read or write may wait over `link` before the visit counts as timed out: the
/// replay's 10 s, plus the time to drain both full queues and a round trip, so that a slow
/// link's own buffering never passes for a stall.
pub fn patience(link: &Link, base: std::time::Duration) -> std::time::Duration {
    let Link::Emulated(spec) = link else {
        return base;
    };
    let drain = |d: &link::Direction| {
        let bytes = match d.queue {
            link::QueueLimit::Packets(n) => u64::from(n) * u64::from(spec.mtu),
            link::QueueLimit::Bytes(b) => b,
        };
        d.rate
            .mean_bits_per_second()
            .map_or(0.0, |bps| (bytes * 8) as f64 / bps.max(1) as f64)
    };
    base + std::time::Duration::from_secs_f64(drain(&spec.up) + drain(&spec.down))
        + spec.up.delay * 2
        + spec.down.delay * 2
}

/// Runs the replay's clients in this process, each through the one [`driver`]: webdiet's
/// robot ([`robot_visitor`]) and, over an emulated link, Chromium ([`chromium`]), as
/// `opts.clients` asks.
pub fn run_here(
    site: &ServedSite,
    opts: &ReplayOptions,
    method: Method,
    over: &Link,
    progress: &dyn Fn(&str),
) -> Result<Replay> {
    let mut replay = if opts.clients.contains(&ClientKind::Webdiet) {
        robot_visitor::run(site, opts, method, over, progress)?
    } else {
        Replay {
            method,
            mss: opts.mss,
            rows: Vec::new(),
            links: Vec::new(),
            browser: Vec::new(),
            recorded: Vec::new(),
        }
    };
    if opts.clients.contains(&ClientKind::Chromium) {
        let (rows, link_method) = chromium::run(site, opts, over, progress)?;
        replay.browser = rows;
        if let (Some(m), false) = (link_method, opts.clients.contains(&ClientKind::Webdiet)) {
            replay.method = m;
        }
    }
    Ok(replay)
}

pub(crate) fn pages(
    site: &ServedSite,
    resolver: &Resolver,
    which: &Pages,
) -> Result<Vec<String>, String> {
    let html: Vec<String> = site
        .site
        .files
        .iter()
        .filter(|f| f.kind == FileKind::Html)
        .map(|f| f.path.clone())
        .collect();
    match which {
        Pages::All | Pages::Each if html.is_empty() => Err("the site has no pages".into()),
        Pages::All | Pages::Each => Ok(html),
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
mod recording_tests;
#[cfg(test)]
pub(crate) mod tests;
