//! The pipeline end to end through the built binary: analyze, rewrite, audit, the reports
//! and their schema, the link listing, encodings, names and symlinks, the shipped corpus, and
//! the style sheets of Debian packages (the package corpus) under the minifier's proof.
//!
//! One test binary per subject (as ripgrep keeps one): each integration binary links the
//! whole crate, so 27 of them cost more to build than their tests take to run.

#[path = "../common/mod.rs"]
mod common;

mod analyze;
mod audit;
mod build_script;
mod ci_formats;
mod corpus;
mod encodings;
mod help_and_completions;
mod links_command;
mod markup_weight;
mod modern;
mod names;
mod replay_layers;
mod report_imports;
mod report_schema;
mod report_snapshots;
mod rewrite;
mod rewrite_references;
mod style_sheets;
mod symlinks;
