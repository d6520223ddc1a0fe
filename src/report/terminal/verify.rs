//! The `verify` summary on the terminal: pages checked, identical, the worst page; every
//! differing page when verbose (the worst ten otherwise); pages not checked because their
//! render timed out, apart from the differences and in the verdict.

use std::fmt::Write;

use super::style::{bold, TextStyle, Verbosity};
use crate::report::format::{plural, thousands};

/// How many differing pages the summary lists unless verbose.
const TOP_PAGES: usize = 10;

/// The `verify` summary: pages checked, identical, the worst page; every differing page when
/// verbose (the worst ten otherwise).
pub fn verify(report: &crate::verify::VerifyReport, style: &TextStyle) -> String {
    let differs = report.pages.iter().any(|p| p.differing_pixels > 0)
        || !report.problems.is_empty()
        || !report.missing_in_rewritten.is_empty();
    let timed_out = report.timed_out();
    let verdict = if report.all_identical() && report.nothing_checked() {
        format!(
            "NOT CHECKED: {timed_out} page{} timed out, nothing compared (no difference found)",
            plural(timed_out)
        )
    } else if report.all_identical() && timed_out > 0 {
        format!(
            "renders identically where checked; {timed_out} page{} not checked (timed out)",
            plural(timed_out)
        )
    } else if report.all_identical() {
        "renders identically".to_string()
    } else if differs {
        "RENDERING CHANGED".to_string()
    } else {
        "NOT VERIFIED".to_string()
    };
    let reasons: String = report.incomplete.iter().map(|r| format!("{r}\n")).collect();
    if style.verbosity == Verbosity::Quiet {
        return format!("{reasons}{}\n", bold(&verdict, style));
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
        differing.len().min(TOP_PAGES)
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
    if timed_out > 0 {
        let _ = writeln!(
            out,
            "{timed_out} page{} not checked (timed out): not a difference; the machine was busy \
             or the page is heavy, run `verify` again on {}",
            plural(timed_out),
            if timed_out == 1 { "it" } else { "them" }
        );
        let shown = match style.verbosity {
            Verbosity::Verbose => timed_out,
            _ => timed_out.min(TOP_PAGES),
        };
        for n in &report.not_checked[..shown] {
            let _ = writeln!(
                out,
                "  not checked (timed out)  {}  ({} bytes with what it loads, {:.0} s)",
                n.page,
                thousands(n.weight_bytes),
                n.patience_s
            );
        }
        if timed_out > shown {
            let _ = writeln!(out, "  … and {} more", timed_out - shown);
        }
    }
    out.push_str(&reasons);
    let _ = writeln!(out, "{}", bold(&verdict, style));
    out
}
