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
//! more. Driving Chromium is [`crate::chromium`]'s job; this module is Chromium's
//! visitor of the replay [`driver`], which starts the link and the servers around it.

pub mod row;
pub mod validate;

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::driver::{self, ModeRun, Needs, Visitor};
use super::link::{self, Link, LinkCounters};
use super::options::{patience, Method, Pages, ReplayOptions};
use super::protocol::{Mode, Transport};
use super::robot::Test;
use super::row::RowLink;
use super::served::ServedSite;
use super::server::{self, ServerOptions};
use super::transport::tls::{KeyType, TlsSetup, HOST};
use super::transport::{ServerTls, TlsOptions};
use crate::chromium::page_load::LoadOptions;
use crate::chromium::{self as browser, Browser, Network, RenderOptions};
use crate::error::{Error, Result};
pub use crate::replay::options::{ChromiumOptions, ClientKind};
use crate::site::resolve::Resolver;
pub use row::{BrowserRow, BrowserVisit};

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

/// Loads `site` in Chromium over the emulated link `over` through the replay [`driver`],
/// `opts.runs` times, in every mode of `opts.modes` a browser speaks; one row per mode and
/// test. Returns the rows and how the link was set up (`None` on loopback, where the
/// browser does not run).
pub fn run(
    site: &ServedSite,
    opts: &ReplayOptions,
    over: &Link,
    progress: &dyn Fn(&str),
) -> Result<(Vec<BrowserRow>, Option<Method>)> {
    let modes = browser_modes(&opts.modes);
    if !matches!(over, Link::Emulated(_)) || modes.is_empty() {
        return Ok((Vec::new(), None));
    }
    let resolver = Resolver::new(&site.site, None);
    let page = match &opts.pages {
        Pages::One(p) => p.clone(),
        _ => crate::replay::options::pages(site, &resolver, &Pages::Index)
            .ok()
            .and_then(|p| p.into_iter().next())
            .ok_or_else(|| Error::Invalid {
                path: site.site.root.clone(),
                message: "the site has no page for the browser to load".into(),
            })?,
    };
    let mut visitor = ChromiumVisitor::new(opts, over, modes, page);
    let driven = driver::drive(site, &resolver, opts, over, &mut visitor, None, progress)?;
    let rows = visitor.rows(opts, &driven, over);
    Ok((rows, driven.link_method))
}

/// Chromium's visits, as they are measured.
struct ChromiumVisitor<'a> {
    chromium: &'a ChromiumOptions,
    link_name: String,
    modes: Vec<Mode>,
    /// The tests made: a first visit, and a validation when asked for.
    tests: Vec<Test>,
    page: String,
    page_timeout: Duration,
    rtt: Duration,
    /// `visits[mode][test]`: one visit per run.
    visits: Vec<Vec<Vec<BrowserVisit>>>,
    /// Crashes retried, timeouts: (mode, test, what happened).
    notes: Vec<(usize, usize, String)>,
    /// Browsers launched so far (the NetLog files are numbered by it).
    launches: usize,
}

impl<'a> ChromiumVisitor<'a> {
    fn new(opts: &'a ReplayOptions, over: &Link, modes: Vec<Mode>, page: String) -> Self {
        let rtt = match over {
            Link::Emulated(spec) => spec.up.delay + spec.down.delay,
            Link::Loopback => Duration::ZERO,
        };
        let tests: Vec<Test> = Test::ALL
            .into_iter()
            .filter(|t| *t == Test::First || opts.tests.contains(t))
            .collect();
        ChromiumVisitor {
            chromium: &opts.chromium,
            link_name: over.name().to_string(),
            visits: vec![vec![Vec::new(); tests.len()]; modes.len()],
            modes,
            tests,
            page,
            page_timeout: patience(over, opts.chromium.timeout),
            rtt,
            notes: Vec::new(),
            launches: 0,
        }
    }

    /// One test's visit in one mode of one run, tried once more if the browser fails.
    fn visit_test(
        &mut self,
        run: &ModeRun<'_>,
        (i, test): (usize, Test),
        url: &str,
        profiles: &crate::scratch::Scratch,
        profile: &mut PathBuf,
    ) -> std::result::Result<BrowserVisit, String> {
        let (Some(server), Some(emulator)) = (&run.server, run.emulator) else {
            return Err("the browser's mode has no server over an emulated link".into());
        };
        let what = format!(
            "chromium {} {} {}",
            run.mode.as_str(),
            test.as_str(),
            self.page
        );
        let spki = run
            .tls
            .filter(|_| run.mode.is_tls())
            .map(|t| browser::base64_encode(&t.leaf_spki_sha256));
        let m = run.mode_index;
        let here = format!("{} run {}: {what}", self.link_name, run.run + 1);
        for attempt in 0..2 {
            let net_log = self.chromium.net_log_dir.as_ref().map(|dir| {
                self.launches += 1;
                dir.join(format!("netlog-{}.json", self.launches))
            });
            let setup = Setup {
                binary: self.chromium.binary.clone(),
                profile,
                spki: spki.clone(),
                net_log,
                timeout: self.page_timeout,
                crash: self.chromium.crash_in_run == Some(run.run)
                    && m == 0
                    && test == Test::First
                    && attempt == 0,
                quiet: self.rtt + Duration::from_millis(250),
                cpu_slowdown: crate::sim::link::profiles::cpu_slowdown(&self.link_name) as u32,
            };
            match visit(&setup, url, emulator, server.control) {
                Ok(v) => {
                    if v.timed_out {
                        let load =
                            match v.load.as_ref().is_some_and(|l| l.metrics.load_ms.is_some()) {
                                true => "fired",
                                false => "never fired",
                            };
                        self.notes.push((
                            m,
                            i,
                            format!(
                                "{here}: not complete within the {:.1} s timeout (load {load}), \
                                 reported as timed out",
                                self.page_timeout.as_secs_f64(),
                            ),
                        ));
                    }
                    return Ok(v);
                }
                Err(e) if attempt == 0 => {
                    self.notes.push((
                        m,
                        i,
                        format!("{here}: the browser failed ({e}); tried once more"),
                    ));
                    if test == Test::First {
                        // A fresh profile: the failed visit may have filled the cache.
                        *profile = profiles.path().join("profile-1");
                    }
                }
                Err(e) => {
                    self.notes.push((
                        m,
                        i,
                        format!("{here}: the browser failed again ({e}); the run is left out"),
                    ));
                }
            }
        }
        Ok(BrowserVisit {
            failed: true,
            ..BrowserVisit::default()
        })
    }

    /// One row per mode and test asked for.
    fn rows(&self, opts: &ReplayOptions, driven: &driver::Driven, over: &Link) -> Vec<BrowserRow> {
        let row_link = RowLink::new(over, driven.seeds.clone());
        let mut rows = Vec::new();
        for (m, &mode) in self.modes.iter().enumerate() {
            for (i, &test) in self.tests.iter().enumerate() {
                if !opts.tests.contains(&test) {
                    continue;
                }
                let notes: Vec<String> = self
                    .notes
                    .iter()
                    .filter(|(nm, ni, _)| (*nm, *ni) == (m, i))
                    .map(|(_, _, text)| text.clone())
                    .collect();
                rows.push(BrowserRow::from_runs(
                    &opts.label,
                    &self.page,
                    mode,
                    test,
                    &self.visits[m][i],
                    &row_link,
                    self.page_timeout,
                    notes,
                ));
            }
        }
        rows
    }
}

impl Visitor for ChromiumVisitor<'_> {
    fn needs(&self) -> Needs {
        Needs::EmulatedServer
    }

    fn modes(&self) -> &[Mode] {
        &self.modes
    }

    fn visits_per_mode(&self) -> usize {
        self.tests.len()
    }

    fn noun(&self) -> &'static str {
        "browser visits"
    }

    fn configure(&self, server: &mut ServerOptions, tls: &mut TlsOptions) {
        server.revalidate = true;
        tls.key = KeyType::EcdsaP256;
    }

    fn server_tls(&self, setup: &TlsSetup, mode: Mode, handshake_timeout: Duration) -> ServerTls {
        let mut config = (*setup.server).clone();
        let alpn = mode.spec().client.alpn();
        // The browser offers h2 and http/1.1: the server says which this mode is.
        config.alpn_protocols = if alpn.is_empty() {
            vec![b"http/1.1".to_vec()]
        } else {
            alpn.iter().map(|p| p.to_vec()).collect()
        };
        ServerTls {
            config: std::sync::Arc::new(config),
            handshake_timeout,
        }
    }

    fn run_mode(&mut self, run: &mut ModeRun<'_>) -> std::result::Result<(), String> {
        let Some(server) = &run.server else {
            return Err("the browser's mode has no server".into());
        };
        let scheme = match run.mode.spec().transport {
            Transport::Tcp => "http",
            Transport::Tls => "https",
        };
        let url = format!("{scheme}://{HOST}:{}/{}", server.addr.port(), self.page);
        let profiles = crate::scratch::Scratch::temp("chromium-replay")
            .map_err(|e| format!("profile: {e}"))?;
        let mut profile = profiles.path().join("profile-0");
        let mut first_failed = false;
        for (i, test) in self.tests.clone().into_iter().enumerate() {
            let visit = if first_failed {
                // Nothing to validate: the first visit left no profile to come back to.
                BrowserVisit {
                    failed: true,
                    ..BrowserVisit::default()
                }
            } else {
                let v = self.visit_test(run, (i, test), &url, &profiles, &mut profile)?;
                first_failed = v.failed && test == Test::First;
                v
            };
            self.visits[run.mode_index][i].push(visit);
            run.progress.done(&format!(
                "chromium {} {} {}",
                run.mode.as_str(),
                test.as_str(),
                self.page
            ));
        }
        Ok(())
    }
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
    /// The main thread slowed down this many times (Lighthouse's mobile profile: 4).
    cpu_slowdown: u32,
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
        cpu_slowdown: setup.cpu_slowdown,
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
