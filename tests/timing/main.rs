//! Timing and packet-count tests: the emulated link (tests of its physics), the replay over
//! it and on loopback against captures, and Chromium over the link. Every test here holds the
//! one timing lock (`common::timing_turn`), so they run one at a time whatever the harness's
//! thread count, and never beside another test binary's timing test.
//!
//! One test binary per subject (as ripgrep keeps one): each integration binary links the
//! whole crate, so 27 of them cost more to build than their tests take to run.

#[path = "../common/mod.rs"]
mod common;

mod browser_replay;
mod link;
mod link_replay;
mod link_userns;
mod replay;
