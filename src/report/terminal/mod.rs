//! The terminal renderers: what a person reads in ten seconds. `audit` (the summary that fits
//! one screen, and the evidence with `--verbose`), and the summaries of `analyze`, `rewrite`,
//! `verify` and `replay`. Each reads the model and writes with `format.rs`; none imports
//! another renderer.

pub mod audit;
pub mod evidence;
pub mod inventory;
pub mod replay;
pub mod rewrite;
pub mod study;
pub mod style;
pub mod verify;

pub use style::{TextStyle, Verbosity};
