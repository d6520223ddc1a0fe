//! The links the replay runs over, behind one entry point, [`replay_over`]: a [`Link`] is
//! `Loopback` or `Emulated`, and each runs where it can.
//!
//! - `Loopback`: the private loopback ([`netns`]: a re-executed child in a network namespace
//!   of its own whose `lo` behaves like Ethernet), or, where no namespace can be made or with
//!   `--no-netns`, the host loopback with `TCP_MAXSEG` clamped ([`host`]);
//! - `Emulated`: webdiet's own link emulator, in the same child: the replay's client and
//!   server in two network namespaces joined by TUN devices, with a user-space forwarder
//!   between them that applies, per direction, random loss, a drop-tail queue, a rate (or a
//!   Mahimahi trace) and a propagation delay. Real packets and the real kernel TCP on both
//!   ends (slow start, delayed ACKs, loss recovery); nothing but the timing is simulated. This
//!   kernel has no netem, hence user space; the design follows Mahimahi's DelayShell,
//!   LinkShell and LossShell, built in one piece. The replay's driver starts one per run
//!   ([`start_run`]).
//!
//! - what a link is, its profiles and its shaper, a pure function of time, sit below the replay
//!   in [`crate::sim::link`];
//! - [`namespace`], [`forwarder`], [`emulator`]: the running link, [`Emulator`];
//! - [`capture`]: `--capture`.
//!
//! Design, measured timing error and the profile table with sources: `docs/links.md`.

pub mod capture;
pub mod emulator;
pub mod forwarder;
pub mod host;
pub mod namespace;
pub mod netns;
pub mod timing;

pub use crate::sim::link::{Direction, Link, LinkSpec, QueueLimit};
pub use crate::sys::TcpInfo;
pub use capture::Capture;
pub use emulator::{Emulator, EmulatorOptions, LinkReport, Priority, Threading};
pub use forwarder::{DirectionCounters, LinkCounters};
pub use namespace::{Netns, CLIENT_ADDR, CLIENT_DEVICE, SERVER_ADDR, SERVER_DEVICE};

/// Why an emulated link could not be set up or kept running.
#[derive(Debug, thiserror::Error)]
pub enum LinkError {
    /// A step of the setup failed: `what` names the step (and so what is missing).
    #[error("{what}: {source}")]
    Setup {
        what: String,
        #[source]
        source: std::io::Error,
    },
    #[error("the link forwarder failed: {0}")]
    Forwarder(#[source] std::io::Error),
    #[error("the link's {0} thread panicked")]
    Panicked(&'static str),
}

/// The kernel's segment counts of a TCP connection (`TCP_INFO`), to check the link's
/// counters and a capture against.
pub fn tcp_segments(socket: &impl std::os::fd::AsRawFd) -> std::io::Result<TcpInfo> {
    crate::sys::tcp_info(socket)
}

/// Gives the calling thread real-time priority where permitted, and says whether it did. The
/// replay's client and server threads may use it so that a busy machine delays their reaction
/// to a packet no more than the forwarder's (what the link's timing tests do).
pub fn try_realtime() -> bool {
    crate::sys::set_realtime(1).is_ok()
}

/// What became of the replay over one link.
#[derive(Debug)]
pub enum Over {
    Ran(crate::replay::Replay),
    /// It could not run here: what is missing.
    Unavailable(String),
}

/// Runs the replay of `site` over `link`, where it can: loopback in a private namespace,
/// else on the host loopback (always possible); an emulated link in a private namespace, or
/// not at all. `progress` hears an emulated link's progress lines.
pub fn replay_over(
    site: &crate::replay::ServedSite,
    opts: &crate::replay::ReplayOptions,
    link: &Link,
    progress: &dyn Fn(&str),
) -> crate::error::Result<Over> {
    let in_child = |progress: &dyn Fn(&str)| match netns::run_in_child(site, opts, link, progress) {
        Ok(replay) => Ok(Ok(replay)),
        Err(netns::ChildError::Unavailable(reason)) => Ok(Err(reason)),
        Err(netns::ChildError::Failed(message)) => Err(child_failed(site, message)),
    };
    match link {
        Link::Loopback => {
            let unavailable = if opts.netns {
                match in_child(&|_| {})? {
                    Ok(replay) => return Ok(Over::Ran(replay)),
                    Err(reason) => Some(reason),
                }
            } else {
                None
            };
            host::replay(site, opts, unavailable).map(Over::Ran)
        }
        Link::Emulated(_) if !opts.netns => Ok(Over::Unavailable(
            "--no-netns: an emulated link needs network namespaces".into(),
        )),
        Link::Emulated(_) => Ok(match in_child(progress)? {
            Ok(replay) => Over::Ran(replay),
            Err(reason) => Over::Unavailable(reason),
        }),
    }
}

fn child_failed(site: &crate::replay::ServedSite, message: String) -> crate::error::Error {
    // The child's message already starts with the site's path.
    let prefix = format!("{}: ", site.site.root.display());
    crate::error::Error::Invalid {
        path: site.site.root.clone(),
        message: message
            .strip_prefix(&prefix)
            .unwrap_or(&message)
            .to_string(),
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
