//! webdiet's own link emulator: the replay's client and server in two network namespaces
//! joined by TUN devices, with a user-space forwarder between them that applies, per
//! direction, random loss, a drop-tail queue, a rate (or a Mahimahi trace) and a propagation
//! delay. Real packets and the real kernel TCP on both ends (slow start, delayed ACKs, loss
//! recovery); nothing but the timing is simulated. This kernel has no netem, hence user space;
//! the design follows Mahimahi's DelayShell, LinkShell and LossShell, built in one piece.
//!
//! - [`spec`]: what a link is, parsed from `--link` / `--sweep` text; [`profiles`] names them;
//! - [`shaper`]: one direction as a pure function of time (tested on a virtual clock);
//! - [`namespace`], [`forwarder`], [`emulator`]: the running link, [`Emulator`];
//! - [`listing`]: `webdiet links`.
//!
//! Design, measured timing error and the profile table with sources: `docs/links.md`.

pub mod emulator;
pub mod forwarder;
pub mod listing;
pub mod loss;
pub mod namespace;
pub mod profiles;
pub mod shaper;
pub mod spec;
pub mod timing;
pub mod trace;
pub mod units;

pub use crate::sys::TcpInfo;
pub use emulator::{Emulator, EmulatorOptions, LinkReport, Priority, Threading};
pub use forwarder::{DirectionCounters, LinkCounters};
pub use namespace::{Netns, CLIENT_ADDR, CLIENT_DEVICE, SERVER_ADDR, SERVER_DEVICE};
pub use spec::{parse, sweep, Direction, Link, LinkSpec, QueueLimit, Rate, SpecError};

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
