//! The emulated link, running: webdiet's own link emulator, the replay's client and server in
//! two network namespaces joined by TUN devices, with a user-space forwarder between them that
//! applies, per direction, random loss, a drop-tail queue, a rate (or a Mahimahi trace) and a
//! propagation delay. Real packets and the real kernel TCP on both ends (slow start, delayed
//! ACKs, loss recovery); nothing but the timing is simulated. This kernel has no netem, hence
//! user space; the design follows Mahimahi's DelayShell, LinkShell and LossShell, built in one
//! piece. The replay's driver starts one per run ([`start_run`]).
//!
//! - what a link is, its profiles and its shaper, a pure function of time, sit below the replay
//!   in [`crate::sim::link`];
//! - [`namespace`], [`forwarder`], [`emulator`]: the running link, [`Emulator`];
//! - [`capture`], for `--capture`.
//!
//! Where a replay runs over a link (a namespace of its own, or the host) is the replay's top
//! storey, [`crate::replay::place`]. Design, measured timing error and the profile table with
//! sources: `docs/links.md`.

pub mod capture;
pub mod emulator;
pub mod forwarder;
pub mod namespace;
pub mod timing;

pub use crate::sim::link::{Direction, Link, LinkSpec, QueueLimit};
pub use crate::sys::TcpInfo;
pub use capture::Capture;
pub use emulator::{
    start_run, Emulator, EmulatorOptions, LinkReport, Priority, StartError, Threading,
};
pub use forwarder::{DirectionCounters, LinkCounters};
pub use namespace::{LinkError, Netns, CLIENT_ADDR, CLIENT_DEVICE, SERVER_ADDR, SERVER_DEVICE};

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
