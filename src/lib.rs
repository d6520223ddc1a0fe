//! webdiet: makes old, heavy web sites lighter and proves by how much.
//!
//! The pipeline is a chain of stages, each a function from one named type to the next with an
//! options struct: [`site::crawl`] → [`inventory::analyze`] → … → [`report`]. [`app::run`] wires
//! them for the command line.

/// This build: the package version, and the git revision it was built from (`build.rs`).
/// `--version` prints it, and `batch` keys its unit reports by it.
pub const BUILD: &str = env!("WEBDIET_BUILD");

pub mod app;
pub mod archive;
pub mod audit;
pub mod batch;
pub mod budget;
/// The build script's questions to git (`build/git.rs`), compiled into the library only for
/// their tests: a build script has none of its own.
#[cfg(test)]
#[path = "../build/git.rs"]
mod build_git;
pub mod chromium;
pub mod cli;
pub mod compression;
pub mod config;
pub mod css;
pub mod deflate;
pub mod digest;
pub mod error;
pub mod hash;
pub mod html;
pub mod image;
pub mod input;
pub mod inventory;
pub mod js;
pub mod markup;
pub mod merge;
pub mod notice;
pub mod output;
pub mod replay;
pub mod report;
pub mod rewrite;
pub mod scratch;
pub mod sim;
pub mod site;
mod sys;
#[cfg(test)]
mod testing;
pub mod verify;
