//! A link as it is described, not as it runs: what a [`Link`] is, parsed from `--link` /
//! `--sweep` text ([`spec`], its quantities in [`units`], its loss in [`loss`], a Mahimahi
//! trace in [`trace`]); the named links ([`profiles`]) and their listing (`webdiet links`,
//! [`listing`]); and one direction of a link as a pure function of time ([`shaper`]), which
//! the emulator runs on the wall clock and the simulator on its own.
//!
//! It sits below both the replay (whose emulator, [`crate::sim::link`], runs these links)
//! and the rewrite (whose CSS choice is simulated on them): docs/links.md, docs/replay.md.

pub mod listing;
pub mod loss;
pub mod profiles;
pub mod shaper;
pub mod spec;
pub mod trace;
pub mod units;

pub use spec::{parse, sweep, Direction, Link, LinkSpec, Rate, SpecError, SpecReason};
pub use trace::TraceError;
pub use units::{QueueLimit, UnitError};
