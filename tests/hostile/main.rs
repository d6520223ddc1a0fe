//! Bad input and the promises about it: honest errors, output safety, limits on huge pages
//! and GIF bombs, and property tests over generated input.
//!
//! One test binary per subject (as ripgrep keeps one): each integration binary links the
//! whole crate, so 27 of them cost more to build than their tests take to run.

#[path = "../common/mod.rs"]
mod common;

mod bad_input;
mod gif_limits;
mod honest_errors;
mod output_safety;
mod page_limits;
mod properties;
