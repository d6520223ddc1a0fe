//! What a replay is asked for and what it gives back: its options ([`ReplayOptions`], with
//! which pages, which clients, and how Chromium visits) and its outcome ([`Replay`]: the rows,
//! how each link ran). Vocabulary of the replay's upper storeys, shared by the clients and by
//! the places a replay runs (docs/replay.md, "Storeys").

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::chromium::row::BrowserRow;
use super::protocol::mode::Mode;
use super::recording::Recorded;
use super::robot::{ClientOptions, Test};
use super::row::ReplayRow;
use super::served::ServedSite;
use super::serving::ServerOptions;
use super::transport::TlsOptions;
use crate::error::Result;
use crate::sim::link::{self, Link};
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
    /// Every page in turn, a row each (the document-size study, [`study`](super::study)).
    Each,
}

/// Options for [`replay`](super::place::run::replay).
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
    /// The links time is simulated on ([`simulated`](super::simulated), docs/simulation.md), from what the
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

pub(crate) fn loopback_only() -> Vec<Link> {
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
    pub recorded: Vec<Recorded>,
}

/// Who visits the site (`--client`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClientKind {
    /// webdiet's own robot (the 1997 libwww robot's rules), in every mode.
    Webdiet,
    /// Headless Chromium, in the modes a browser speaks ([`super::protocol::ModeSpec::browser`]).
    Chromium,
}

impl ClientKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ClientKind::Webdiet => "webdiet",
            ClientKind::Chromium => "chromium",
        }
    }
}

/// How Chromium visits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChromiumOptions {
    /// The browser binary. Default: `$WEBDIET_CHROMIUM`, else `chromium`, `chromium-browser`
    /// or `google-chrome` on `PATH`.
    pub binary: Option<PathBuf>,
    /// How long one page load may take (until `load` and the last request), plus the
    /// link's own buffering (the time to drain its full queues and a round trip).
    /// Default: 60 s.
    pub timeout: Duration,
    /// Test hook: in this run (counted from 0) the browser of the first visit of the first
    /// mode is killed after the page's first response. Default: none.
    #[serde(default)]
    pub crash_in_run: Option<usize>,
    /// Write each browser's NetLog (every name lookup and connection attempt) into this
    /// directory, `netlog-N.json`. Default: none.
    #[serde(default)]
    pub net_log_dir: Option<PathBuf>,
}

impl Default for ChromiumOptions {
    fn default() -> Self {
        ChromiumOptions {
            binary: None,
            timeout: Duration::from_secs(60),
            crash_in_run: None,
            net_log_dir: None,
        }
    }
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
            crate::sim::link::QueueLimit::Packets(n) => u64::from(n) * u64::from(spec.mtu),
            crate::sim::link::QueueLimit::Bytes(b) => b,
        };
        d.rate
            .mean_bits_per_second()
            .map_or(0.0, |bps| (bytes * 8) as f64 / bps.max(1) as f64)
    };
    base + std::time::Duration::from_secs_f64(drain(&spec.up) + drain(&spec.down))
        + spec.up.delay * 2
        + spec.down.delay * 2
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
