//! The report as data: what the stages measured (`report.rs`, the schema of `report.json`) and
//! everything derived from it, computed once by [`Report::finish`] (`finish.rs`). The
//! renderers read this and never compute a figure of their own.
//!
//! Each file has one job and the imports run one way: `report.rs` and `images.rs` hold the
//! types; `tls.rs`, `headers.rs` and `sweeps.rs` derive from replay rows; `figures.rs`,
//! `savings.rs`, `opportunities.rs`, `findings.rs`, `browser.rs`, `budgets.rs` and
//! `baseline.rs` derive from the report; `finish.rs` calls them in order. This file only
//! declares them.

pub mod baseline;
pub mod browser;
pub mod budgets;
pub mod figures;
pub mod findings;
mod finish;
pub mod headers;
pub mod images;
pub mod opportunities;
pub mod report;
pub mod savings;
pub mod sweeps;
pub mod tls;

#[cfg(test)]
pub mod sample;

pub use report::*;
