//! Where a replay runs, behind one entry point, [`replay_over`]: a
//! [`Link`](crate::sim::link::Link) is `Loopback` or `Emulated`, and each runs where it can.
//!
//! - `Loopback`: the private loopback ([`netns`]: a re-executed child in a network namespace
//!   of its own whose `lo` behaves like Ethernet), or, where no namespace can be made or with
//!   `--no-netns`, the host loopback with `TCP_MAXSEG` clamped ([`host`]);
//! - `Emulated`: the emulated link ([`crate::replay::link`]), in the same child.
//!
//! Wherever it is, the clients run through [`here::run_here`]; [`run::replay`] asks for every
//! link of the options in turn. The top storey of the replay (docs/replay.md, "Storeys").

pub mod here;
pub mod host;
pub mod netns;
pub mod over;
pub mod run;

pub use over::{replay_over, Over};
