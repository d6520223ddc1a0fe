//! The terminal summaries a person reads in ten seconds.

use std::fmt::Write;

use super::thousands;
use super::{TextStyle, Verbosity};
use crate::inventory::Inventory;
use crate::site::FileKind;

/// How many broken references the summary lists before "and N more".
const TOP_BROKEN: usize = 10;

fn bold(text: &str, style: &TextStyle) -> String {
    if style.color {
        format!("\x1b[1m{text}\x1b[0m")
    } else {
        text.to_string()
    }
}

/// The `analyze` summary: counts and bytes by type, references, top broken references.
pub fn inventory(inv: &Inventory, style: &TextStyle) -> String {
    let mut out = String::new();
    let files = inv.pages + inv.resources;
    let _ = writeln!(
        out,
        "{}: {} page{}, {} other file{}, {} bytes",
        bold(&inv.site, style),
        inv.pages,
        plural(inv.pages),
        inv.resources,
        plural(inv.resources),
        thousands(inv.bytes)
    );
    if !inv.symlinks.is_empty() {
        let _ = writeln!(
            out,
            "  and {} symbolic link{} inside the site (what they lead to is counted once)",
            inv.symlinks.len(),
            plural(inv.symlinks.len())
        );
    }
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "  {:<8} {:>7} {:>13} {:>6}",
        "type", "files", "bytes", "share"
    );
    for kind in FileKind::ALL {
        if let Some(stats) = inv.by_type.get(kind.as_str()) {
            let share = if inv.bytes == 0 {
                0.0
            } else {
                100.0 * stats.bytes as f64 / inv.bytes as f64
            };
            let _ = writeln!(
                out,
                "  {:<8} {:>7} {:>13} {:>5.1}%",
                kind.as_str(),
                stats.count,
                thousands(stats.bytes),
                share
            );
        }
    }
    let _ = writeln!(
        out,
        "  {:<8} {:>7} {:>13}",
        "total",
        files,
        thousands(inv.bytes)
    );
    let _ = writeln!(out);
    let fetched: usize = inv
        .documents
        .iter()
        .map(|d| d.references.iter().filter(|r| r.fetched).count())
        .sum();
    let _ = writeln!(
        out,
        "  references {} ({} fetched, {} followed) · external links {} · broken {} · orphans {} · problems {}",
        inv.references,
        fetched,
        inv.references - fetched,
        inv.external_links.len(),
        inv.broken_references.len(),
        inv.orphans.len(),
        inv.problems.len()
    );
    if !inv.broken_references.is_empty() && style.verbosity != Verbosity::Quiet {
        let _ = writeln!(out);
        let limit = if style.verbosity == Verbosity::Verbose {
            usize::MAX
        } else {
            TOP_BROKEN
        };
        let _ = writeln!(out, "  {}", bold("broken references", style));
        for b in inv.broken_references.iter().take(limit) {
            let _ = writeln!(out, "    {} → {}: {}", b.page, b.reference, b.reason);
        }
        if inv.broken_references.len() > limit {
            let _ = writeln!(
                out,
                "    … and {} more (--verbose or --json lists them all)",
                inv.broken_references.len() - limit
            );
        }
    }
    if style.verbosity == Verbosity::Verbose && !inv.orphans.is_empty() {
        let _ = writeln!(out);
        let _ = writeln!(out, "  {}", bold("orphans", style));
        for o in &inv.orphans {
            let _ = writeln!(out, "    {o}");
        }
    }
    out
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// How many rows of the largest savings and of kept GIFs the rewrite summary lists.
const TOP_IMAGES: usize = 5;

/// The `rewrite` summary: image bytes before/after, counts by outcome, pages edited.
pub fn rewrite(report: &super::Report, json: &std::path::Path, style: &TextStyle) -> String {
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
    let _ = writeln!(out, "  {}", super::figures::images_cost_line(report));
    let _ = writeln!(
        out,
        "  pages and style sheets: {} edited, {} copied unchanged",
        report.rewrite.documents_changed, report.rewrite.documents_copied
    );
    if let Some(m) = &report.markup {
        let _ = writeln!(out, "  {}", super::figures::markup_line(m));
    }
    if let Some(line) = super::figures::text_images_line(report) {
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
        let mut rows: Vec<&super::ImageRow> = report
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

/// The `verify` summary: pages checked, identical, the worst page; every differing page when
/// verbose (the worst ten otherwise).
pub fn verify(report: &crate::verify::VerifyReport, style: &TextStyle) -> String {
    let differs = report.pages.iter().any(|p| p.differing_pixels > 0)
        || !report.problems.is_empty()
        || !report.missing_in_rewritten.is_empty();
    let verdict = if report.all_identical() {
        "renders identically"
    } else if differs {
        "RENDERING CHANGED"
    } else {
        "NOT VERIFIED"
    };
    let reasons: String = report.incomplete.iter().map(|r| format!("{r}\n")).collect();
    if style.verbosity == Verbosity::Quiet {
        return format!("{reasons}{}\n", bold(verdict, style));
    }
    let mut out = String::new();
    let checked = report.pages.len();
    let identical = report.identical();
    if checked > 0 {
        let _ = writeln!(
            out,
            "{} vs {}: {checked} of {} page{} checked, {identical} pixel-identical",
            bold(&report.original.display().to_string(), style),
            report.rewritten.display(),
            report.pages_in_both,
            plural(report.pages_in_both),
        );
    }
    let mut differing: Vec<_> = report
        .pages
        .iter()
        .filter(|p| p.differing_pixels > 0)
        .collect();
    differing.sort_by(|a, b| b.share.total_cmp(&a.share).then(a.page.cmp(&b.page)));
    let shown = if style.verbosity == Verbosity::Verbose {
        differing.len()
    } else {
        differing.len().min(TOP_BROKEN)
    };
    for page in &differing[..shown] {
        let _ = writeln!(
            out,
            "  {:>8.4}%  {:>11} px  {}  → {}",
            100.0 * page.share,
            thousands(page.differing_pixels),
            page.page,
            page.diff_image
                .as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_default()
        );
    }
    if differing.len() > shown {
        let _ = writeln!(out, "  … and {} more", differing.len() - shown);
    }
    if let Some(worst) = report.worst() {
        let _ = writeln!(
            out,
            "worst: {} ({:.4}% of pixels differ)",
            worst.page,
            100.0 * worst.share
        );
    }
    let truncated = report.pages.iter().filter(|p| p.truncated).count();
    if truncated > 0 {
        let _ = writeln!(
            out,
            "{truncated} page{} taller than the size limit: compared down to the limit only",
            plural(truncated)
        );
    }
    if !report.missing_in_rewritten.is_empty() {
        let _ = writeln!(
            out,
            "{} page{} missing from the rewritten tree",
            report.missing_in_rewritten.len(),
            plural(report.missing_in_rewritten.len())
        );
    }
    if !report.problems.is_empty() {
        let _ = writeln!(
            out,
            "{} problem{} (pages not compared)",
            report.problems.len(),
            plural(report.problems.len())
        );
    }
    out.push_str(&reasons);
    let _ = writeln!(out, "{}", bold(verdict, style));
    out
}
