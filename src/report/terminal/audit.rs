//! The `audit` summary on the terminal, in the order of every report: the verdict (budgets,
//! what failed), what the rewrite saves a visitor per named link, the opportunities ranked
//! with their time, then where the reports are. By default it fits one screen (at most
//! [`SCREEN_LINES`] lines); `--verbose` adds the evidence, every table of today's reports.

use std::fmt::Write;
use std::path::Path;

use super::evidence;
use super::style::{paint, TextStyle, Verbosity};
use crate::report::format::{self, plural};
use crate::report::model::{BudgetResult, Report};
use crate::report::phrases;

/// The most lines the default summary prints: one screen.
pub const SCREEN_LINES: usize = 25;
/// Failed budgets listed by the default summary before "and N more".
const TOP_BUDGETS: usize = 5;
/// Opportunities listed by the default summary.
const TOP_OPPORTUNITIES: usize = 5;

/// The summary; `reports` are the files written, the first the one a person opens.
pub fn audit(report: &Report, reports: &[&Path], style: &TextStyle) -> String {
    let verbose = style.verbosity == Verbosity::Verbose;
    let mut s = String::new();
    let target = match &report.site.rewritten {
        Some(dir) => format!("→ {dir}"),
        None => "(dry run: reports only, no rewritten site kept)".to_string(),
    };
    let _ = writeln!(
        s,
        "{} {target}",
        paint(&format!("webdiet audit {}", report.site.path), "1", style)
    );
    s.push_str(&verdict(
        report,
        style,
        if verbose { usize::MAX } else { TOP_BUDGETS },
    ));
    s.push_str(&visitor(report, style));
    s.push_str(&opportunities(
        report,
        if verbose {
            usize::MAX
        } else {
            TOP_OPPORTUNITIES
        },
        verbose,
    ));
    s.push_str(&trouble(report, style));
    if let Some(a) = &report.archive {
        s.push_str(&archive(a));
    }
    if verbose {
        s.push_str("\n  where the bytes saved come from\n");
        s.push_str(&evidence::sources(report));
        s.push_str(&evidence::matrix(report));
        s.push_str(&evidence::times(report));
        s.push_str(&evidence::sweeps(&report.replay));
        s.push_str(&evidence::browser(report));
        s.push_str(&evidence::tls(&report.tls_cost));
        s.push_str(&evidence::headers(&report.header_cost));
        s.push('\n');
    }
    s.push_str(&where_reports(reports, verbose));
    s
}

/// The budgets in one line, then the ones that did not hold (up to `limit`).
fn verdict(report: &Report, style: &TextStyle, limit: usize) -> String {
    let mut s = String::new();
    if report.budgets.is_empty() {
        let _ = writeln!(
            s,
            "  budgets: none set (webdiet.toml, --max-requests…, --budgets FILE, --baseline)"
        );
        return s;
    }
    let failed: Vec<&BudgetResult> = report.budgets.iter().filter(|b| b.fails_run()).collect();
    let warned: Vec<&BudgetResult> = report
        .budgets
        .iter()
        .filter(|b| !b.passed && !b.fails_run())
        .collect();
    let held = report.budgets.len() - failed.len() - warned.len();
    let mut parts = vec![format!("{held} held")];
    if !warned.is_empty() {
        parts.push(paint(&format!("{} over (warn)", warned.len()), "33", style));
    }
    parts.push(if failed.is_empty() {
        paint("none failed", "32", style)
    } else {
        paint(&format!("{} FAILED", failed.len()), "31;1", style)
    });
    let _ = writeln!(s, "  budgets: {}", parts.join(", "));
    let listed: Vec<&&BudgetResult> = failed.iter().chain(&warned).collect();
    for b in listed.iter().take(limit) {
        let mark = if b.fails_run() {
            paint("FAILED", "31;1", style)
        } else {
            paint("warn  ", "33", style)
        };
        let _ = writeln!(s, "    {mark} {}: {}", b.name, phrases::budget_line(b));
    }
    if listed.len() > limit {
        let _ = writeln!(
            s,
            "    … and {} more (report.md and report.html list every budget)",
            listed.len() - limit
        );
    }
    s
}

/// What the rewrite saves a visitor: the first visit before → after, and its time on each
/// named link; Chromium's headline when it ran.
fn visitor(report: &Report, style: &TextStyle) -> String {
    let mut s = String::new();
    if let Some(heading) = phrases::visitor_heading(report) {
        let _ = writeln!(s, "  {heading}");
        for line in phrases::visitor_lines(report) {
            let _ = writeln!(s, "    {}", paint(&line, "1", style));
        }
    }
    match (&report.visitor_savings, phrases::visit_line(report)) {
        (Some(v), Some(line)) => {
            let _ = writeln!(s, "  a first visit: {line}");
            for t in &v.links {
                let _ = writeln!(s, "  {}", paint(&phrases::link_time(report, t), "1", style));
            }
            if v.links.is_empty() {
                let _ = writeln!(
                    s,
                    "  time: no named link was replayed (--link Cable adds one)"
                );
            }
        }
        _ => {
            let t = &report.images_total;
            let _ = writeln!(
                s,
                "  images: {} → {} bytes ({}); no replay was run",
                format::thousands(t.from_bytes),
                format::thousands(t.to_bytes),
                format::change(t.from_bytes as f64, t.to_bytes as f64)
            );
        }
    }
    if let Some(line) = phrases::browser_headline(report) {
        let _ = writeln!(s, "  {}", paint(&line, "1", style));
    }
    s
}

/// The ranked opportunities, up to `limit`; with `detail`, what to do and where the evidence is.
fn opportunities(report: &Report, limit: usize, detail: bool) -> String {
    let mut s = String::new();
    if report.opportunities.is_empty() {
        return s;
    }
    let link = report
        .opportunities
        .iter()
        .find_map(|o| o.time_link.as_deref());
    let _ = writeln!(
        s,
        "  opportunities, ranked (a first visit saves: bytes, requests, packets{})",
        link.map_or(String::new(), |l| format!(", time on {l}; ~ estimated"))
    );
    let n = |v: Option<i64>| v.map_or("—".to_string(), format::signed);
    for o in report.opportunities.iter().take(limit) {
        let status = if o.status == "done" { "done" } else { "to do" };
        let _ = writeln!(
            s,
            "    {status:<6} {:>9} B {:>4} req {:>5} pkts {:>8}  {}",
            n(o.bytes),
            n(o.requests),
            n(o.packets),
            phrases::opportunity_time(o),
            o.title
        );
        if detail {
            let _ = writeln!(
                s,
                "    {:<6} {}; evidence: report.html#{}",
                "", o.action, o.evidence
            );
        }
    }
    if report.opportunities.len() > limit {
        let _ = writeln!(
            s,
            "    … and {} more in report.html",
            report.opportunities.len() - limit
        );
    }
    s
}

/// References the rewrite broke, and the problems met.
fn trouble(report: &Report, style: &TextStyle) -> String {
    let mut s = String::new();
    let broken = report.rewrite.broken_by_rewrite.len();
    if broken > 0 {
        let _ = writeln!(
            s,
            "  {} reference{} broken by the rewrite (report.json → rewrite.broken_by_rewrite)",
            paint(&broken.to_string(), "31", style),
            plural(broken)
        );
    }
    if !report.problems.is_empty() {
        let _ = writeln!(
            s,
            "  {} problem{} with single files (on stderr above, and in report.json)",
            report.problems.len(),
            plural(report.problems.len())
        );
    }
    s
}

/// Where the reports are: the first one, then the others by name when they sit beside it.
/// What the web archive held (`crate::archive::facts`), as label and value lines.
pub fn archive(a: &crate::archive::ArchiveReport) -> String {
    let mut s = String::from("\n  web archive\n");
    for (label, value) in crate::archive::facts(a) {
        let _ = writeln!(s, "  {label:<16} {value}");
    }
    s
}

fn where_reports(reports: &[&Path], verbose: bool) -> String {
    let Some(first) = reports.first() else {
        return String::new();
    };
    let dir = first.parent();
    let others: Vec<String> = reports[1..]
        .iter()
        .map(|p| match (dir, p.parent()) {
            (Some(a), Some(b)) if a == b => p.file_name().map_or(p.display().to_string(), |n| {
                n.to_string_lossy().into_owned()
            }),
            _ => p.display().to_string(),
        })
        .collect();
    let mut s = format!("  reports: {}", first.display());
    if !others.is_empty() {
        let _ = write!(s, " (also {})", others.join(", "));
    }
    s.push('\n');
    if !verbose {
        s.push_str(
            "  every table (packets, times, TLS, headers, images): --verbose, or the reports\n",
        );
    }
    s
}

/// The budget verdicts alone (what `--quiet` prints): every budget, held or not.
pub fn budgets(report: &Report, style: &TextStyle) -> String {
    let mut s = String::new();
    if report.budgets.is_empty() {
        return s;
    }
    let failed = report.budgets.iter().filter(|b| b.fails_run()).count();
    let _ = writeln!(
        s,
        "  budgets: {} held, {}",
        report.budgets.iter().filter(|b| b.passed).count(),
        if failed == 0 {
            paint("none failed", "32", style)
        } else {
            paint(&format!("{failed} FAILED"), "31;1", style)
        }
    );
    for b in &report.budgets {
        let verdict = match (b.passed, b.fails_run()) {
            (true, _) => paint("ok", "32", style),
            (false, true) => paint("FAILED", "31;1", style),
            (false, false) => paint("warn", "33", style),
        };
        let _ = writeln!(
            s,
            "    {verdict:<6} {}: {}",
            b.name,
            phrases::budget_line(b)
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::model::sample::sample;

    fn text(report: &Report, verbosity: Verbosity) -> String {
        audit(
            report,
            &[
                Path::new("out/demo/report.html"),
                Path::new("out/demo/report.json"),
            ],
            &TextStyle {
                color: false,
                verbosity,
            },
        )
    }

    #[test]
    fn the_default_summary_leads_with_the_verdict_then_the_saving_then_opportunities() {
        let t = text(&sample(), Verbosity::Normal);
        let at = |what: &str| t.find(what).unwrap_or_else(|| panic!("{what}: {t}"));
        assert!(at("budgets: 1 held, 1 FAILED") < at("a first visit: "));
        assert!(at("a first visit: ") < at("opportunities, ranked"));
        assert!(at("opportunities, ranked") < at("reports: out/demo/report.html"));
        assert!(t.contains("(also report.json)"), "{t}");
        assert!(t.contains("FAILED max-first-visit-bytes (pipelined): 150,000 bytes measured"));
        assert!(t.lines().count() <= SCREEN_LINES, "{t}");
    }

    #[test]
    fn verbose_adds_the_evidence_after_the_summary() {
        let t = text(&sample(), Verbosity::Verbose);
        let at = |what: &str| t.find(what).unwrap_or_else(|| panic!("{what}: {t}"));
        assert!(at("opportunities, ranked") < at("packets by the paper's rules"));
        assert!(t.contains("evidence: report.html#images"), "{t}");
        assert!(!t.contains("--verbose, or the reports"));
    }

    #[test]
    fn many_failed_budgets_are_cut_to_fit_the_screen() {
        let mut r = sample();
        let failed = r.budgets[0].clone();
        r.budgets = vec![failed; 40];
        let t = text(&r, Verbosity::Normal);
        assert!(t.contains("… and 35 more"), "{t}");
        assert!(t.lines().count() <= SCREEN_LINES, "{t}");
    }
}
