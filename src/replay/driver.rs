//! One driver for every client that visits the replayed site. Whoever visits — webdiet's
//! robot ([`super::robot_visitor`]), Chromium ([`super::chromium`]) — the replay around the
//! visits is the same: the server's and TLS options stretched to the link's patience, the
//! certificates made once, then for each run a fresh emulated link with the run's seed (the
//! calling thread in its client namespace), for each mode a server with the mode's server
//! half, the visits, the server stopped, the link stopped; and one progress estimate. The
//! listening socket is bound once and held by the driver while the servers of every mode
//! (and, on loopback, every run) take turns on it: another program binding the same
//! `--port` never finds it free.
//!
//! A client is a [`Visitor`]: it says what it [`Needs`] and visits one mode of one run at a
//! time ([`Visitor::run_mode`]), given a [`ModeRun`] — the run, the mode, the server's
//! address and admission [`Control`], the link, the TLS set-up. It keeps its own measurements
//! and makes its own rows once [`drive`] returns. A visitor that needs no network at all (a
//! simulator computing the visits from the site and the link's figures) says
//! [`Needs::Nothing`]: the driver then starts no link and no server and calls it once per run
//! and mode with `server: None` and `emulator: None`, so it gets the same runs, seeds, modes
//! and progress lines as the others.

use std::cell::Cell;
use std::net::{SocketAddr, TcpListener};
use std::path::Path;
use std::time::Instant;

use super::link::{self, Capture, Emulator, Link};
use super::options::{patience, Method, ReplayOptions};
use super::protocol::Mode;
use super::served::ServedSite;
use super::server::{self, Control, ServeContext, Server, ServerOptions};
use super::transport::tls::TlsSetup;
use super::transport::{ServerTls, TlsOptions};
use crate::error::{Error, Result};
use crate::site::resolve::Resolver;

/// What a visitor needs from the replay around it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Needs {
    /// No link and no server: the visitor computes its visits (a simulator).
    Nothing,
    /// A server per mode, over whatever link the replay runs on (webdiet's robot).
    Server,
    /// A server per mode over an emulated link, and nothing on loopback (a browser, which must
    /// live in the link's client namespace to see nothing but the link).
    EmulatedServer,
}

/// A client of the replay.
pub trait Visitor {
    fn needs(&self) -> Needs;
    /// The modes it visits in, in order.
    fn modes(&self) -> &[Mode];
    /// Visits one mode of one run makes, for the progress estimate.
    fn visits_per_mode(&self) -> usize;
    /// What a progress line calls its visits (`visits`, `browser visits`).
    fn noun(&self) -> &'static str;
    /// Adapts the server's and TLS options (already stretched to the link) to this client.
    fn configure(&self, _server: &mut ServerOptions, _tls: &mut TlsOptions) {}
    /// The TLS the server of `mode` (a mode over TLS) speaks. Default: the set-up's server
    /// config as it is.
    fn server_tls(
        &self,
        setup: &TlsSetup,
        _mode: Mode,
        handshake_timeout: std::time::Duration,
    ) -> ServerTls {
        ServerTls {
            config: setup.server.clone(),
            handshake_timeout,
        }
    }
    /// Visits the site in `run.mode` once per test; an error stops the replay.
    fn run_mode(&mut self, run: &mut ModeRun<'_>) -> std::result::Result<(), String>;
}

/// The mode's server, as a visitor sees it.
pub struct ServerEnd<'a> {
    pub addr: SocketAddr,
    pub control: &'a Control,
}

/// What a visitor's [`Visitor::run_mode`] gets: one mode of one run.
pub struct ModeRun<'a> {
    /// The run, counted from 0.
    pub run: usize,
    /// The mode, and its index in [`Visitor::modes`].
    pub mode: Mode,
    pub mode_index: usize,
    /// `None` under [`Needs::Nothing`].
    pub server: Option<ServerEnd<'a>>,
    /// The server's options, as the driver set them.
    pub server_opts: &'a ServerOptions,
    pub link: &'a Link,
    /// The run's emulated link, when the replay runs over one (and the visitor needs it).
    pub emulator: Option<&'a Emulator>,
    /// The run's certificates and configs, when a mode of the visitor is over TLS.
    pub tls: Option<&'a TlsSetup>,
    pub progress: &'a Progress<'a>,
}

/// What the driver saw, for the visitor's rows.
#[derive(Debug, Clone)]
pub struct Driven {
    /// How the emulated link was set up (from the first run), over an emulated link.
    pub link_method: Option<Method>,
    /// The loss seed of each run over an emulated link (empty on loopback).
    pub seeds: Vec<u64>,
    /// The certificate chain the server sent, leaf first, when a mode was over TLS.
    pub chain_bytes: Option<Vec<usize>>,
}

/// The progress estimate: visits done of the replay's total, and the time left at the pace
/// so far. Said over emulated links only (on loopback a replay takes seconds).
pub struct Progress<'a> {
    say: &'a dyn Fn(&str),
    shown: bool,
    prefix: String,
    noun: &'static str,
    runs: usize,
    run: Cell<usize>,
    done: Cell<usize>,
    total: usize,
    started: Instant,
}

impl Progress<'_> {
    /// One visit, `what`, is done.
    pub fn done(&self, what: &str) {
        let done = self.done.get() + 1;
        self.done.set(done);
        if !self.shown {
            return;
        }
        let total = self.total;
        let left =
            self.started.elapsed().as_secs_f64() / done as f64 * total.saturating_sub(done) as f64;
        (self.say)(&format!(
            "{}: run {}/{}, {what} done — {done} of {total} {}, about {left:.0} s left",
            self.prefix,
            self.run.get() + 1,
            self.runs,
            self.noun
        ));
    }
}

/// Runs `visitor` over `over`, `opts.runs` times, in each of its modes; `capture` (over an
/// emulated link) records the first run on the client's device.
pub fn drive(
    site: &ServedSite,
    resolver: &Resolver<'_>,
    opts: &ReplayOptions,
    over: &Link,
    visitor: &mut dyn Visitor,
    capture: Option<&Path>,
    progress: &dyn Fn(&str),
) -> Result<Driven> {
    let fail = |message: String| Error::Invalid {
        path: site.site.root.clone(),
        message,
    };
    let needs = visitor.needs();
    let spec = match over {
        Link::Emulated(spec) if needs != Needs::Nothing => Some(spec),
        _ => None,
    };
    let mut driven = Driven {
        link_method: None,
        seeds: Vec::new(),
        chain_bytes: None,
    };
    if needs == Needs::EmulatedServer && spec.is_none() {
        return Ok(driven);
    }
    let (server_opts, tls_opts) = server_options(opts, over, visitor);
    // Certificates and configs for this replay only, in memory, when a mode needs them.
    let tls = if needs != Needs::Nothing && visitor.modes().iter().any(|m| m.is_tls()) {
        Some(TlsSetup::new(&tls_opts).map_err(|e| fail(e.to_string()))?)
    } else {
        None
    };
    driven.chain_bytes = tls.as_ref().map(|t| t.chain_bytes.clone());
    let cx = ServeContext::new(site, resolver, &server_opts);
    let listen = |netns: Option<&link::Netns>| {
        server::listen(&server_opts, netns)
            .map_err(|e| fail(format!("cannot start the server: {e}")))
    };
    // One socket listens for every server of the replay, so that no other program can take
    // its port between two of them; over an emulated link, one per run (a fresh namespace).
    let held = match needs {
        Needs::Nothing => None,
        _ if spec.is_some() => None,
        _ => Some(listen(None)?),
    };
    let runs = opts.runs.max(1);
    let progress = Progress {
        say: progress,
        shown: matches!(over, Link::Emulated(_)),
        prefix: format!("{} ({})", over.name(), opts.label),
        noun: visitor.noun(),
        runs,
        run: Cell::new(0),
        done: Cell::new(0),
        total: runs * visitor.modes().len() * visitor.visits_per_mode(),
        started: Instant::now(),
    };
    for run in 0..runs {
        progress.run.set(run);
        let emulator = match spec {
            Some(spec) => {
                let seed = opts.seed.wrapping_add(run as u64);
                driven.seeds.push(seed);
                let emulator = link::start_run(spec, seed).map_err(|e| fail(e.to_string()))?;
                if run == 0 {
                    driven.link_method = Some(Method {
                        name: "link".into(),
                        detail: emulator.describe(),
                        tcp_maxseg: None,
                    });
                }
                Some(emulator)
            }
            None => None,
        };
        let per_run = match &emulator {
            Some(emulator) => Some(listen(Some(emulator.server()))?),
            None => None,
        };
        let capture = match (capture, &emulator) {
            (Some(file), Some(_)) if run == 0 => Some(Capture::start(
                file,
                link::CLIENT_DEVICE,
                link::SERVER_ADDR,
            )?),
            _ => None,
        };
        let modes = visitor.modes().to_vec();
        for (mode_index, mode) in modes.into_iter().enumerate() {
            let end = End {
                cx: &cx,
                server_opts: &server_opts,
                handshake_timeout: tls_opts.handshake_timeout,
                tls: tls.as_ref(),
                emulator: emulator.as_ref(),
                listener: per_run.as_ref().or(held.as_ref()),
            };
            end.run_mode(visitor, run, mode, mode_index, over, &progress)
                .map_err(fail)?;
        }
        drop(per_run);
        capture.map_or(Ok(()), Capture::finish)?;
        if let Some(emulator) = emulator {
            emulator
                .stop()
                .map_err(|e| fail(format!("emulated link {}: {e}", over.name())))?;
        }
    }
    Ok(driven)
}

/// The server's and TLS options for `visitor` over `over`: over an emulated link the server
/// listens on the link's server end and every timeout waits for the link's own buffering too.
fn server_options(
    opts: &ReplayOptions,
    over: &Link,
    visitor: &dyn Visitor,
) -> (ServerOptions, TlsOptions) {
    let mut server_opts = opts.server.clone();
    let mut tls_opts = opts.tls;
    if let Link::Emulated(_) = over {
        server_opts.ip = link::SERVER_ADDR.into();
        server_opts.idle_timeout = patience(over, server_opts.idle_timeout);
        server_opts.request_timeout = patience(over, server_opts.request_timeout);
        server_opts.write_timeout = patience(over, server_opts.write_timeout);
        tls_opts.handshake_timeout = patience(over, tls_opts.handshake_timeout);
    }
    visitor.configure(&mut server_opts, &mut tls_opts);
    (server_opts, tls_opts)
}

/// What the server of every mode of one run is made from.
struct End<'a> {
    cx: &'a ServeContext<'a>,
    server_opts: &'a ServerOptions,
    handshake_timeout: std::time::Duration,
    tls: Option<&'a TlsSetup>,
    emulator: Option<&'a Emulator>,
    /// The socket the mode's server accepts on; `None` for a visitor that needs none.
    listener: Option<&'a TcpListener>,
}

impl End<'_> {
    /// One mode of one run: the mode's server on the held socket (unless the visitor needs
    /// none), the visits, the server stopped.
    fn run_mode(
        &self,
        visitor: &mut dyn Visitor,
        run: usize,
        mode: Mode,
        mode_index: usize,
        over: &Link,
        progress: &Progress<'_>,
    ) -> std::result::Result<(), String> {
        let Some(listener) = self.listener else {
            return visitor.run_mode(&mut ModeRun {
                run,
                mode,
                mode_index,
                server: None,
                server_opts: self.server_opts,
                link: over,
                emulator: None,
                tls: None,
                progress,
            });
        };
        let server_tls = self
            .tls
            .filter(|_| mode.is_tls())
            .map(|t| visitor.server_tls(t, mode, self.handshake_timeout));
        let control = server::Control::default();
        std::thread::scope(|scope| {
            let server = Server::start_on(
                scope,
                self.cx,
                &control,
                mode.spec().server,
                server_tls.as_ref(),
                listener,
            )
            .map_err(|e| format!("cannot start the server: {e}"))?;
            let outcome = visitor.run_mode(&mut ModeRun {
                run,
                mode,
                mode_index,
                server: Some(ServerEnd {
                    addr: server.addr,
                    control: &control,
                }),
                server_opts: self.server_opts,
                link: over,
                emulator: self.emulator,
                tls: self.tls,
                progress,
            });
            server.stop();
            outcome
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};

    /// A visitor that needs no network, as a simulator would be: it notes what it was given.
    struct Notes {
        modes: Vec<Mode>,
        seen: Vec<(usize, Mode, bool, bool)>,
    }

    impl Visitor for Notes {
        fn needs(&self) -> Needs {
            Needs::Nothing
        }
        fn modes(&self) -> &[Mode] {
            &self.modes
        }
        fn visits_per_mode(&self) -> usize {
            1
        }
        fn noun(&self) -> &'static str {
            "simulated visits"
        }
        fn run_mode(&mut self, run: &mut ModeRun<'_>) -> std::result::Result<(), String> {
            let seen = (
                run.run,
                run.mode,
                run.server.is_none(),
                run.emulator.is_none(),
            );
            self.seen.push(seen);
            run.progress.done(run.mode.as_str());
            Ok(())
        }
    }

    #[test]
    fn a_visitor_that_needs_no_network_gets_every_run_and_mode_and_no_link_or_server() {
        let site = super::super::tests::site();
        let resolver = Resolver::new(&site.site, None);
        let over = crate::sim::link::parse("ppp-1997").unwrap().remove(0);
        let modes: Vec<Mode> = ["http10", "https-persistent"]
            .iter()
            .map(|m| m.parse().unwrap())
            .collect();
        let opts = ReplayOptions {
            runs: 3,
            ..ReplayOptions::default()
        };
        let mut visitor = Notes {
            modes: modes.clone(),
            seen: Vec::new(),
        };
        let lines = std::sync::Mutex::new(Vec::new());
        let say = |line: &str| lines.lock().unwrap().push(line.to_string());
        let driven = drive(&site, &resolver, &opts, &over, &mut visitor, None, &say).unwrap();
        let expected: Vec<(usize, Mode, bool, bool)> = (0..3)
            .flat_map(|run| modes.iter().map(move |&m| (run, m, true, true)))
            .collect();
        assert_eq!(visitor.seen, expected);
        assert!(driven.link_method.is_none() && driven.seeds.is_empty());
        assert!(
            driven.chain_bytes.is_none(),
            "no server, so no certificates"
        );
        let lines = lines.into_inner().unwrap();
        assert_eq!(lines.len(), 6);
        assert!(lines[5].contains("6 of 6 simulated visits"), "{lines:?}");
    }

    /// A visitor that checks each mode's server is on the port and accepts, and ends the
    /// squatter's watch at its last mode (the port still held).
    struct OnThePort<'a> {
        modes: Vec<Mode>,
        port: u16,
        runs: usize,
        stop: &'a AtomicBool,
        accepted: u64,
    }

    impl Visitor for OnThePort<'_> {
        fn needs(&self) -> Needs {
            Needs::Server
        }
        fn modes(&self) -> &[Mode] {
            &self.modes
        }
        fn visits_per_mode(&self) -> usize {
            1
        }
        fn noun(&self) -> &'static str {
            "connections"
        }
        fn run_mode(&mut self, run: &mut ModeRun<'_>) -> std::result::Result<(), String> {
            let server = run.server.as_ref().ok_or("no server")?;
            if server.addr.port() != self.port {
                return Err(format!("the server is on {}", server.addr));
            }
            let before = server.control.accepted_connections();
            let stream = std::net::TcpStream::connect(server.addr).map_err(|e| e.to_string())?;
            while server.control.accepted_connections() == before {
                std::thread::yield_now();
            }
            drop(stream);
            self.accepted += 1;
            if run.run + 1 == self.runs && run.mode_index + 1 == self.modes.len() {
                self.stop.store(true, Ordering::SeqCst);
            }
            Ok(())
        }
    }

    #[test]
    fn the_port_is_held_across_every_mode_and_run_so_a_squatter_never_gets_it() {
        let site = super::super::tests::site();
        let resolver = Resolver::new(&site.site, None);
        let port = super::super::tests::free_port();
        let opts = ReplayOptions {
            runs: 3,
            server: ServerOptions {
                port,
                ..ServerOptions::default()
            },
            ..ReplayOptions::default()
        };
        let modes: Vec<Mode> = ["http10", "persistent", "pipelined", "h2c"]
            .iter()
            .map(|m| m.parse().unwrap())
            .collect();
        let stop = AtomicBool::new(false);
        let mut visitor = OnThePort {
            modes,
            port,
            runs: 3,
            stop: &stop,
            accepted: 0,
        };
        let (driven, taken) = std::thread::scope(|s| {
            let squatter =
                s.spawn(|| super::super::tests::squat(([127, 0, 0, 1], port).into(), &stop));
            let driven = drive(
                &site,
                &resolver,
                &opts,
                &Link::Loopback,
                &mut visitor,
                None,
                &|_| {},
            );
            stop.store(true, Ordering::SeqCst);
            (driven, squatter.join().unwrap())
        });
        driven.expect("the replay completes");
        assert_eq!(
            visitor.accepted,
            3 * 4,
            "every mode of every run was served"
        );
        assert_eq!(taken, 0, "the squatter got the port");
    }
}
