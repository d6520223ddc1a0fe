//! `--client chromium`: a real browser loads the site over the emulated link, beside (or
//! instead of) webdiet's own robot. Chromium is started from the thread that has entered the
//! link's client namespace, so the browser process lives there and sees nothing but the
//! link; webdiet's server answers in the server namespace with the mode's server half, as
//! for the robot. A first visit on a fresh profile, then a validation on the same profile by
//! a new browser process (the user coming back: its cache on disk, no connection left open),
//! where the browser makes its own conditional requests.
//!
//! Packets and bytes are counted on the link (the forwarder's counters, both directions):
//! the browser's sockets are not ours to read `TCP_INFO` from. A visit is counted from the
//! navigation to the moment the page is complete and the link has gone quiet (its last
//! ACKs); the browser keeps its connections open, so, as under the paper's rule, nothing
//! after the visit counts (closing the browser is not part of it).
//!
//! Faults: a page that does not finish within the timeout is reported with it and the other
//! runs go on; a browser that crashes or does not start is reported and the visit tried once
//! more. Driving Chromium is [`crate::chromium`]'s job; this module orders visits.

pub mod row;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::link::{self, Link, LinkCounters};
use super::protocol::{Mode, Transport};
use super::robot::Test;
use super::server::{self, ServeContext};
use super::transport::tls::{KeyType, TlsSetup, HOST};
use super::transport::ServerTls;
use super::{Method, ReplayOptions, ServedSite};
use crate::chromium::page_load::{LoadOptions, PageLoad};
use crate::chromium::{self as browser, Browser, Network, RenderOptions};
use crate::error::{Error, Result};
use crate::site::resolve::Resolver;
pub use row::BrowserRow;

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

/// Checks, before anything runs, that Chromium can be found (else the install hint).
pub fn check(opts: &ChromiumOptions) -> Result<PathBuf> {
    browser::find_chromium(&RenderOptions {
        chromium: opts.binary.clone(),
        ..RenderOptions::default()
    })
}

/// The modes of `modes` the browser loads the site in.
pub fn browser_modes(modes: &[Mode]) -> Vec<Mode> {
    modes.iter().copied().filter(|m| m.spec().browser).collect()
}

/// One visit's outcome, for the row.
#[derive(Debug, Clone, Default)]
pub struct BrowserVisit {
    pub load: Option<PageLoad>,
    /// What crossed the link during the visit.
    pub link: LinkCounters,
    /// Connections the server accepted during the visit.
    pub connections: u64,
    /// The page did not complete within the timeout.
    pub timed_out: bool,
    /// The browser failed in both attempts: nothing was measured.
    pub failed: bool,
}

/// Loads `site` in Chromium over the emulated link `over`, `opts.runs` times, in every mode
/// of `opts.modes` a browser speaks; one row per mode and test. Returns the rows, the notes
/// (crashes retried, timeouts) and how the link was set up.
pub fn run_here(
    site: &ServedSite,
    opts: &ReplayOptions,
    over: &Link,
    progress: &dyn Fn(&str),
) -> Result<(Vec<BrowserRow>, Option<Method>)> {
    let fail = |message: String| Error::Invalid {
        path: site.site.root.clone(),
        message,
    };
    let Link::Emulated(spec) = over else {
        return Ok((Vec::new(), None));
    };
    let modes = browser_modes(&opts.modes);
    if modes.is_empty() {
        return Ok((Vec::new(), None));
    }
    let resolver = Resolver::new(&site.site, None);
    let page = super::pages(site, &resolver, &super::Pages::Index)
        .ok()
        .and_then(|p| p.into_iter().next());
    let page = match &opts.pages {
        super::Pages::One(p) => p.clone(),
        _ => page.ok_or_else(|| fail("the site has no page for the browser to load".into()))?,
    };
    let mut server_opts = opts.server.clone();
    server_opts.ip = link::SERVER_ADDR.into();
    server_opts.revalidate = true;
    server_opts.idle_timeout = super::patience(over, server_opts.idle_timeout);
    server_opts.request_timeout = super::patience(over, server_opts.request_timeout);
    server_opts.write_timeout = super::patience(over, server_opts.write_timeout);
    let mut tls_opts = opts.tls;
    tls_opts.key = KeyType::EcdsaP256;
    tls_opts.handshake_timeout = super::patience(over, tls_opts.handshake_timeout);
    let tls = if modes.iter().any(|m| m.is_tls()) {
        Some(TlsSetup::new(&tls_opts).map_err(fail)?)
    } else {
        None
    };
    let spki = tls
        .as_ref()
        .map(|t| browser::base64_encode(&t.leaf_spki_sha256));
    let cx = ServeContext::new(site, &resolver, &server_opts);
    let page_timeout = super::patience(over, opts.chromium.timeout);
    let rtt = spec.up.delay + spec.down.delay;
    let runs = opts.runs.max(1);
    let tests: Vec<Test> = Test::ALL
        .into_iter()
        .filter(|t| *t == Test::First || opts.tests.contains(t))
        .collect();
    // visits[mode][test] = one visit per run.
    let mut visits: Vec<Vec<Vec<BrowserVisit>>> = vec![vec![Vec::new(); tests.len()]; modes.len()];
    let mut notes = Vec::new();
    let mut method = None;
    let mut launches = 0usize;
    let total = runs * modes.len() * tests.len();
    let started = Instant::now();
    let mut done = 0usize;
    for run in 0..runs {
        let seed = opts.seed.wrapping_add(run as u64);
        let options = link::EmulatorOptions {
            seed,
            ..link::EmulatorOptions::default()
        };
        let emulator = link::Emulator::start(spec, &options)
            .map_err(|e| fail(format!("emulated link {}: {e}", spec.name)))?;
        // This thread, and the browsers it starts, live in the client's namespace from here.
        emulator
            .client()
            .enter()
            .map_err(|e| fail(format!("emulated link {}: {e}", spec.name)))?;
        if method.is_none() {
            method = Some(Method {
                name: "link".into(),
                detail: emulator.describe(),
                tcp_maxseg: None,
            });
        }
        for (m, &mode) in modes.iter().enumerate() {
            let mode_spec = mode.spec();
            let server_tls = tls.as_ref().filter(|_| mode.is_tls()).map(|t| {
                let mut config = (*t.server).clone();
                // The browser offers h2 and http/1.1: the server says which this mode is.
                config.alpn_protocols = if mode_spec.client.alpn().is_empty() {
                    vec![b"http/1.1".to_vec()]
                } else {
                    mode_spec.client.alpn().iter().map(|p| p.to_vec()).collect()
                };
                ServerTls {
                    config: std::sync::Arc::new(config),
                    handshake_timeout: tls_opts.handshake_timeout,
                }
            });
            let control = server::Control::default();
            std::thread::scope(|scope| -> Result<()> {
                let server = server::Server::start_in(
                    scope,
                    &cx,
                    &control,
                    mode_spec.server,
                    server_tls.as_ref(),
                    Some(emulator.server()),
                )
                .map_err(|e| fail(format!("cannot start the server: {e}")))?;
                let scheme = match mode_spec.transport {
                    Transport::Tcp => "http",
                    Transport::Tls => "https",
                };
                let url = format!("{scheme}://{HOST}:{}/{}", server.addr.port(), page);
                let profiles = Scratch::new().map_err(|e| fail(format!("profile: {e}")))?;
                let mut profile = profiles.0.join("profile-0");
                let mut first_failed = false;
                for (i, &test) in tests.iter().enumerate() {
                    let what = format!("chromium {} {} {}", mode.as_str(), test.as_str(), page);
                    let visit = if first_failed {
                        // Nothing to validate: the first visit left no profile to come back to.
                        BrowserVisit {
                            failed: true,
                            ..BrowserVisit::default()
                        }
                    } else {
                        let mut attempt = 0;
                        loop {
                            let crash = opts.chromium.crash_in_run == Some(run)
                                && m == 0
                                && test == Test::First
                                && attempt == 0;
                            let net_log = opts.chromium.net_log_dir.as_ref().map(|dir| {
                                launches += 1;
                                dir.join(format!("netlog-{launches}.json"))
                            });
                            let setup = Setup {
                                binary: opts.chromium.binary.clone(),
                                profile: &profile,
                                spki: spki.clone().filter(|_| mode.is_tls()),
                                net_log,
                                timeout: page_timeout,
                                crash,
                                quiet: rtt + Duration::from_millis(250),
                            };
                            match visit(&setup, &url, &emulator, &control) {
                                Ok(v) => {
                                    if v.timed_out {
                                        notes.push((
                                            m,
                                            i,
                                            format!(
                                                "{} run {}: {what}: not complete within the \
                                             {:.1} s timeout (load {}), reported as timed out",
                                                over.name(),
                                                run + 1,
                                                page_timeout.as_secs_f64(),
                                                if v.load.as_ref().is_some_and(|l| {
                                                    l.metrics.load_ms.is_some()
                                                }) {
                                                    "fired"
                                                } else {
                                                    "never fired"
                                                }
                                            ),
                                        ));
                                    }
                                    break v;
                                }
                                Err(e) if attempt == 0 => {
                                    notes.push((
                                        m,
                                        i,
                                        format!(
                                            "{} run {}: {what}: the browser failed ({e}); tried \
                                         once more",
                                            over.name(),
                                            run + 1
                                        ),
                                    ));
                                    attempt += 1;
                                    if test == Test::First {
                                        // A fresh profile: the failed visit may have filled
                                        // the cache.
                                        profile = profiles.0.join("profile-1");
                                    }
                                }
                                Err(e) => {
                                    notes.push((
                                        m,
                                        i,
                                        format!(
                                            "{} run {}: {what}: the browser failed again ({e}); \
                                         the run is left out",
                                            over.name(),
                                            run + 1
                                        ),
                                    ));
                                    first_failed |= test == Test::First;
                                    break BrowserVisit {
                                        failed: true,
                                        ..BrowserVisit::default()
                                    };
                                }
                            }
                        }
                    };
                    visits[m][i].push(visit);
                    done += 1;
                    let left = started.elapsed().as_secs_f64() / done as f64
                        * total.saturating_sub(done) as f64;
                    progress(&format!(
                        "{} ({}): run {}/{runs}, {what} done — {done} of {total} browser \
                         visits, about {left:.0} s left",
                        over.name(),
                        opts.label,
                        run + 1
                    ));
                }
                server.stop();
                Ok(())
            })?;
        }
        emulator
            .stop()
            .map_err(|e| fail(format!("emulated link {}: {e}", over.name())))?;
    }
    let row_link = super::row::RowLink::new(
        over,
        (0..runs as u64)
            .map(|r| opts.seed.wrapping_add(r))
            .collect(),
    );
    let mut rows = Vec::new();
    for (m, &mode) in modes.iter().enumerate() {
        for (i, &test) in tests.iter().enumerate() {
            if !opts.tests.contains(&test) {
                continue;
            }
            let mode_notes: Vec<String> = notes
                .iter()
                .filter(|(nm, ni, _)| (*nm, *ni) == (m, i))
                .map(|(_, _, text)| text.clone())
                .collect();
            rows.push(BrowserRow::from_runs(
                &opts.label,
                &page,
                mode,
                test,
                &visits[m][i],
                &row_link,
                page_timeout,
                mode_notes,
            ));
        }
    }
    Ok((rows, method))
}

/// What one visit needs.
struct Setup<'a> {
    binary: Option<PathBuf>,
    profile: &'a Path,
    spki: Option<String>,
    net_log: Option<PathBuf>,
    timeout: Duration,
    crash: bool,
    /// How long the link must stay quiet before a visit's counters are read.
    quiet: Duration,
}

/// One visit: a browser on `setup.profile`, the page at `url`, the link's counters around it.
/// An error is the browser's own failure (it did not start, or it died).
fn visit(
    setup: &Setup,
    url: &str,
    emulator: &link::Emulator,
    control: &server::Control,
) -> std::result::Result<BrowserVisit, String> {
    let render = RenderOptions {
        chromium: setup.binary.clone(),
        timeout: Duration::from_secs(30),
        network: Network::Replay {
            host: HOST.to_string(),
            addr: link::SERVER_ADDR.into(),
            spki_sha256: setup.spki.clone(),
        },
        profile: Some(setup.profile.to_path_buf()),
        freeze_animations: false,
        net_log: setup.net_log.clone(),
        ..RenderOptions::default()
    };
    // The previous browser's goodbyes (FINs and their ACKs) are not this visit's.
    let before = settle(emulator, setup.quiet);
    let accepted = control.accepted_connections();
    let mut chromium = Browser::launch(&render).map_err(|e| e.to_string())?;
    let load_opts = LoadOptions {
        timeout: setup.timeout,
        crash_after_first_response: setup.crash,
        ..LoadOptions::default()
    };
    let load = chromium
        .load_page(url, &load_opts)
        .map_err(|e| e.to_string())?;
    // The last ACKs belong to the visit; closing the browser does not.
    let after = settle(emulator, setup.quiet);
    let connections = control.accepted_connections() - accepted;
    drop(chromium);
    Ok(BrowserVisit {
        timed_out: !load.complete,
        load: Some(load),
        link: LinkCounters {
            up: after.up - before.up,
            down: after.down - before.down,
        },
        connections,
        failed: false,
    })
}

/// The link's counters once nothing has crossed it for `quiet` (at most ten tries).
fn settle(emulator: &link::Emulator, quiet: Duration) -> LinkCounters {
    let mut last = emulator.counters();
    for _ in 0..10 {
        std::thread::sleep(quiet);
        let now = emulator.counters();
        if now == last && now.up.in_flight() == 0 && now.down.in_flight() == 0 {
            break;
        }
        last = now;
    }
    last
}

/// A directory for the run's browser profiles, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> std::io::Result<Self> {
        use std::sync::atomic::{AtomicU32, Ordering};
        static N: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "webdiet-chromium-replay-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)?;
        Ok(Scratch(dir))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
