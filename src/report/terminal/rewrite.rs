//! The `rewrite` summary on the terminal (and `audit --verbose`'s rewrite details): image bytes
//! before and after, counts by outcome, pages edited, the largest savings and what was kept.

use std::fmt::Write;

use super::style::{bold, TextStyle, Verbosity};
use crate::report::format::{plural, thousands};
use crate::report::model::images::ImageRow;
use crate::report::model::Report;
use crate::report::phrases;

/// How many rows of the largest savings and of kept GIFs the rewrite summary lists.
const TOP_IMAGES: usize = 5;

/// The `rewrite` summary: image bytes before/after, counts by outcome, pages edited.
pub fn rewrite(report: &Report, json: &std::path::Path, style: &TextStyle) -> String {
    let mut out = String::new();
    let t = &report.images_total;
    let saved = t.from_bytes as i64 - t.to_bytes as i64;
    let pct = if t.from_bytes == 0 {
        0.0
    } else {
        100.0 * saved as f64 / t.from_bytes as f64
    };
    let _ = writeln!(
        out,
        "{}: {} GIF{}, {} → {} bytes ({:+.1}%), {:.2} s",
        bold(&report.site.path, style),
        t.count,
        plural(t.count),
        thousands(t.from_bytes),
        thousands(t.to_bytes),
        -pct,
        t.wall_millis / 1000.0
    );
    for (outcome, n) in &t.by_outcome {
        let _ = writeln!(out, "  {:<20} {:>6}", outcome.code(), n);
    }
    let _ = writeln!(out, "  {}", phrases::images_cost_line(report));
    let _ = writeln!(
        out,
        "  pages and style sheets: {} edited, {} copied unchanged",
        report.rewrite.documents_changed, report.rewrite.documents_copied
    );
    if let Some(m) = &report.markup {
        let _ = writeln!(out, "  {}", phrases::markup_line(m));
    }
    if let Some(line) = phrases::text_images_line(report) {
        let _ = writeln!(out, "  {line}");
    }
    let kept_originals = report
        .images
        .iter()
        .filter(|r| r.outcome == crate::image::Outcome::Converted && r.original_kept)
        .count();
    if kept_originals > 0 {
        let _ = writeln!(
            out,
            "  {kept_originals} converted GIF{} also copied (still named by scripts, templates or other text)",
            plural(kept_originals)
        );
    }
    if report.rewrite.broken_by_rewrite.is_empty() {
        let _ = writeln!(out, "  references broken by the rewrite: none");
    } else {
        let _ = writeln!(
            out,
            "  {} references broken by the rewrite:",
            bold(&report.rewrite.broken_by_rewrite.len().to_string(), style)
        );
        for b in &report.rewrite.broken_by_rewrite {
            let _ = writeln!(out, "    {} → {}: {}", b.page, b.reference, b.reason);
        }
    }
    if style.verbosity != Verbosity::Quiet {
        let limit = if style.verbosity == Verbosity::Verbose {
            usize::MAX
        } else {
            TOP_IMAGES
        };
        let mut rows: Vec<&ImageRow> = report
            .images
            .iter()
            .filter(|r| r.to_bytes < r.from_bytes)
            .collect();
        rows.sort_by_key(|r| std::cmp::Reverse(r.from_bytes - r.to_bytes));
        if !rows.is_empty() {
            let _ = writeln!(out);
            let _ = writeln!(out, "  {}", bold("largest savings", style));
        }
        for r in rows.iter().take(limit) {
            let _ = writeln!(
                out,
                "    {} {} → {} ({} frame{}, {:.0} ms)",
                r.path,
                thousands(r.from_bytes),
                thousands(r.to_bytes),
                r.frames,
                plural(r.frames),
                r.millis
            );
        }
        if style.verbosity == Verbosity::Verbose {
            let _ = writeln!(out, "  {}", bold("kept", style));
            for r in report.images.iter().filter(|r| r.to_path == r.path) {
                let _ = writeln!(out, "    {} {}", r.path, r.reason);
            }
        }
    }
    let _ = writeln!(out, "\n  report: {}", json.display());
    out
}
