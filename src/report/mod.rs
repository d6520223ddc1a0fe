//! The report: one model, computed once, and thin renderers that read it.
//!
//! `model/` holds the data the stages measured and everything derived from it, computed once
//! by [`Report::finish`]. `format.rs` writes numbers, differences and units; `phrases.rs` the
//! sentences several renderers share. The renderers — `terminal/`, `markdown/`, `html/`,
//! `json.rs`, and the CI formats in `ci/` — import only those, never each other (as ripgrep's
//! printers stand beside its searcher, and hyperfine's exporters beside its benchmark
//! results). `tests/pipeline/report_imports.rs` checks that the imports inside this directory
//! form no circle.

pub mod ci;
pub mod format;
pub mod html;
pub mod json;
pub mod markdown;
pub mod model;
pub mod phrases;
pub mod terminal;

pub use model::budgets::{Gates, Limit, Measure, PaintMetric};
pub use model::images::{ImageFormat, ImageRow, ImagesTotal};
pub use model::{
    BudgetLevel, BudgetResult, CompressionReport, InventorySummary, Report, RewriteSummary,
    SiteInfo, Tool, SCHEMA_VERSION,
};
pub use terminal::{TextStyle, Verbosity};
