//! Render checks in a real Chromium: verify, the markup pass and the GIF conversion rendered
//! pixel-identical, and the HTML report as a browser shows it.
//!
//! One test binary per subject (as ripgrep keeps one): each integration binary links the
//! whole crate, so 27 of them cost more to build than their tests take to run.

#[path = "../common/mod.rs"]
mod common;

mod gif_render;
mod markup_golden;
mod markup_site;
mod render_check;
mod replaywebpage;
mod report_html;
mod verify;
