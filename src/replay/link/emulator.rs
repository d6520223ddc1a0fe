//! An emulated link, running: the client's and the server's namespaces, their TUN devices,
//! and the forwarder threads between them, from [`Emulator::start`] until [`Emulator::stop`]
//! (or drop). The replay runs its server threads in [`Emulator::server`] and its client
//! threads in [`Emulator::client`], and reads the link's counters at the end.

use std::fs::File;
use std::io::Write;
use std::net::Ipv4Addr;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::forwarder::{self, Lane, LinkCounters, SharedCounters};
use super::namespace::{self, End, EndConfig, EndSetup, LinkError, Netns};
use super::timing::{Lateness, TimingSummary};
use crate::sim::link::loss::Rng;
use crate::sim::link::shaper::Shaper;
use crate::sim::link::LinkSpec;
use crate::sys;

/// How the forwarder's work is spread over threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Threading {
    /// One thread per direction: a busy direction never delays the other.
    PerDirection,
    /// One thread polls both directions: fewer wake-ups competing for the 2 cores.
    Single,
}

/// Options for [`Emulator::start`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EmulatorOptions {
    /// Seeds the random losses (each direction draws from its own stream derived from it).
    /// Default: 1. The replay records the seed of every run.
    pub seed: u64,
    /// Default: [`Threading::PerDirection`], chosen by measurement (docs/links.md).
    pub threading: Threading,
    /// Busy-wait this long before a release instead of sleeping to the deadline. Default: 0;
    /// the timerfd alone keeps the median release error in tens of µs (docs/links.md).
    pub spin: Duration,
    /// Run the forwarder threads at real-time priority (`SCHED_FIFO`) where permitted (root).
    /// Default: `true`: on a busy machine a normal thread's wake-up waits for another task's
    /// time slice, which measured up to tens of ms of release error (docs/links.md). The
    /// threads sleep between releases, and the kernel caps real-time tasks at 95% of the CPU.
    pub realtime: bool,
    /// TCP timestamps in both namespaces. Default: off, as on the replay's loopback, so that
    /// TCP payloads are MTU − 40 bytes.
    pub timestamps: bool,
}

impl Default for EmulatorOptions {
    fn default() -> Self {
        EmulatorOptions {
            seed: 1,
            threading: Threading::PerDirection,
            spin: Duration::ZERO,
            realtime: true,
            timestamps: false,
        }
    }
}

/// The `SCHED_FIFO` priority of the forwarder threads: above every normal task, below the
/// kernel's own real-time threads (which use 50 and up).
const REALTIME_PRIORITY: i32 = 10;

/// How the forwarder threads are scheduled.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Priority {
    /// `SCHED_FIFO`.
    Realtime,
    /// Normal time-sharing, and why real-time was not used.
    Normal(String),
}

/// What the run did: counters and timing error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinkReport {
    pub counters: LinkCounters,
    /// Release time actual − scheduled, both directions together.
    pub timing: TimingSummary,
}

/// A running emulated link.
pub struct Emulator {
    spec: LinkSpec,
    priority: Priority,
    client: End,
    server: End,
    stop: Arc<File>,
    threads: Vec<JoinHandle<std::io::Result<Vec<Lane>>>>,
    up: Arc<SharedCounters>,
    down: Arc<SharedCounters>,
}

impl Emulator {
    /// Makes both namespaces and their TUN devices and starts forwarding. Needs root, or a
    /// process that has entered a user namespace of its own, and `/dev/net/tun`.
    pub fn start(spec: &LinkSpec, options: &EmulatorOptions) -> Result<Self, LinkError> {
        let end = |role, device, address, peer| EndConfig {
            role,
            device,
            address,
            peer,
            mtu: spec.mtu,
            timestamps: options.timestamps,
        };
        let client = namespace::make_end(end(
            "client",
            namespace::CLIENT_DEVICE,
            namespace::CLIENT_ADDR,
            namespace::SERVER_ADDR,
        ))?;
        let server = namespace::make_end(end(
            "server",
            namespace::SERVER_DEVICE,
            namespace::SERVER_ADDR,
            namespace::CLIENT_ADDR,
        ))?;
        let setup = |what: &str| {
            let what = what.to_string();
            move |source| LinkError::Setup { what, source }
        };
        let client_tun = Arc::new(client.tun.try_clone().map_err(setup("dup of a TUN fd"))?);
        let server_tun = Arc::new(server.tun.try_clone().map_err(setup("dup of a TUN fd"))?);
        let stop = Arc::new(sys::eventfd().map_err(setup("eventfd"))?);
        let up = Arc::new(SharedCounters::default());
        let down = Arc::new(SharedCounters::default());
        let mut seeds = Rng::new(options.seed);
        let epoch = sys::monotonic_ns();
        let spin = options.spin.as_nanos() as u64;
        let lanes = vec![
            Lane::new(
                client_tun.clone(),
                server_tun.clone(),
                Shaper::new(&spec.up, seeds.next_u64()),
                epoch,
                spin,
                up.clone(),
            ),
            Lane::new(
                server_tun,
                client_tun,
                Shaper::new(&spec.down, seeds.next_u64()),
                epoch,
                spin,
                down.clone(),
            ),
        ]
        .into_iter()
        .collect::<Result<Vec<Lane>, _>>()
        .map_err(setup("timerfd"))?;
        let groups: Vec<Vec<Lane>> = match options.threading {
            Threading::Single => vec![lanes],
            Threading::PerDirection => lanes.into_iter().map(|lane| vec![lane]).collect(),
        };
        let mut threads = Vec::new();
        let (priority_tx, priority_rx) = std::sync::mpsc::channel::<Result<(), String>>();
        let realtime = options.realtime;
        for group in groups {
            let stop = stop.clone();
            let priority_tx = priority_tx.clone();
            let thread = std::thread::Builder::new()
                .name("webdiet-link".into())
                .spawn(move || {
                    let priority = if realtime {
                        sys::set_realtime(REALTIME_PRIORITY).map_err(|e| e.to_string())
                    } else {
                        Err("not asked for".into())
                    };
                    let _ = priority_tx.send(priority);
                    forwarder::run(group, &stop)
                })
                .map_err(setup("forwarder thread"))?;
            threads.push(thread);
        }
        // One answer per thread (each keeps its sender while it runs).
        drop(priority_tx);
        let refusals: Vec<String> = priority_rx
            .iter()
            .take(threads.len())
            .filter_map(Result::err)
            .collect();
        let priority = match refusals.first() {
            None => Priority::Realtime,
            Some(reason) => Priority::Normal(reason.clone()),
        };
        Ok(Emulator {
            priority,
            spec: spec.clone(),
            client,
            server,
            stop,
            threads,
            up,
            down,
        })
    }

    pub fn spec(&self) -> &LinkSpec {
        &self.spec
    }

    /// The client's namespace (address [`Emulator::client_addr`]).
    pub fn client(&self) -> &Netns {
        &self.client.netns
    }

    /// The server's namespace (address [`Emulator::server_addr`]).
    pub fn server(&self) -> &Netns {
        &self.server.netns
    }

    pub fn client_addr(&self) -> Ipv4Addr {
        self.client.setup.address
    }

    pub fn server_addr(&self) -> Ipv4Addr {
        self.server.setup.address
    }

    /// How the forwarder threads are scheduled.
    pub fn priority(&self) -> &Priority {
        &self.priority
    }

    /// What was set up on each end.
    pub fn setup(&self) -> (&EndSetup, &EndSetup) {
        (&self.client.setup, &self.server.setup)
    }

    /// One line for the report: what carries the packets.
    pub fn describe(&self) -> String {
        let (c, s) = self.setup();
        let mut text = format!(
            "emulated link {}: namespaces joined by TUN devices {} {} ↔ {} {}, MTU {}",
            self.spec.name, c.device, c.address, s.device, s.address, c.mtu
        );
        let mut on: Vec<&str> = c.offloads_on.iter().map(String::as_str).collect();
        on.extend(s.offloads_on.iter().map(String::as_str));
        on.sort_unstable();
        on.dedup();
        if on.is_empty() {
            text.push_str(", offloads off");
        } else {
            text.push_str(&format!(", offloads still on: {}", on.join(" ")));
        }
        match &self.priority {
            Priority::Realtime => text.push_str(", forwarder at real-time priority"),
            Priority::Normal(why) => {
                text.push_str(&format!(", forwarder at normal priority ({why})"))
            }
        }
        match (c.tcp_timestamps, s.tcp_timestamps) {
            (Some(false), Some(false)) => text.push_str(", TCP timestamps off"),
            (Some(true), Some(true)) => text.push_str(", TCP timestamps on"),
            _ => text.push_str(", TCP timestamps could not be set (kernel default)"),
        }
        text
    }

    /// The counters so far (packets held for release are in neither forwarded nor dropped).
    pub fn counters(&self) -> LinkCounters {
        LinkCounters {
            up: self.up.snapshot(),
            down: self.down.snapshot(),
        }
    }

    /// Stops forwarding and returns the final counters and timing error.
    pub fn stop(mut self) -> Result<LinkReport, LinkError> {
        let lateness = self.halt()?;
        Ok(LinkReport {
            counters: self.counters(),
            timing: lateness.summary(),
        })
    }

    fn halt(&mut self) -> Result<Lateness, LinkError> {
        let _ = (&*self.stop).write(&1u64.to_ne_bytes());
        let mut lateness = Lateness::default();
        let mut failure = None;
        for thread in self.threads.drain(..) {
            match thread.join() {
                Ok(Ok(lanes)) => lanes.iter().for_each(|l| lateness.merge(&l.lateness)),
                Ok(Err(e)) => failure = Some(LinkError::Forwarder(e)),
                Err(_) => failure = Some(LinkError::Panicked("forwarder")),
            }
        }
        match failure {
            Some(e) => Err(e),
            None => Ok(lateness),
        }
    }
}

impl Drop for Emulator {
    fn drop(&mut self) {
        if !self.threads.is_empty() {
            let _ = self.halt();
        }
    }
}

/// Why [`start_run`] could not give a run its link: which link, and what failed.
#[derive(Debug, thiserror::Error)]
#[error("emulated link {name}: {source}")]
pub struct StartError {
    pub name: String,
    #[source]
    pub source: LinkError,
}

/// A fresh emulated link for one run of the replay, with the calling thread (and every
/// client thread it starts) in the link's client namespace from here on.
pub fn start_run(spec: &LinkSpec, seed: u64) -> Result<Emulator, StartError> {
    let options = EmulatorOptions {
        seed,
        ..EmulatorOptions::default()
    };
    let failed = |source| StartError {
        name: spec.name.clone(),
        source,
    };
    let emulator = Emulator::start(spec, &options).map_err(failed)?;
    emulator.client().enter().map_err(failed)?;
    Ok(emulator)
}
