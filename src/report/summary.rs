//! The `audit` terminal summary: what a person reads in ten seconds — bytes and requests before
//! and after, where the saving comes from, the replay matrix, the budgets.

use std::fmt::Write;

use super::replay::ReplayRow;
use super::{thousands, Report};
use crate::config::{Config, OutputPaths};
use crate::image::Outcome;

fn paint(text: &str, code: &str, config: &Config) -> String {
    if config.color {
        format!("\x1b[{code}m{text}\x1b[0m")
    } else {
        text.to_string()
    }
}

/// `-12.3%` for a change from `before` to `after`.
fn change(before: f64, after: f64) -> String {
    if before == 0.0 {
        return "n/a".to_string();
    }
    format!("{:+.1}%", 100.0 * (after - before) / before)
}

fn row<'a>(report: &'a Report, site: &str, mode: &str, test: &str) -> Option<&'a ReplayRow> {
    report
        .replay
        .iter()
        .find(|r| r.site == site && r.mode == mode && r.test == test)
}

/// The full summary.
pub fn audit(report: &Report, out: &OutputPaths, config: &Config) -> String {
    let mut s = String::new();
    let target = match &report.site.rewritten {
        Some(dir) => format!("→ {dir}"),
        None => "(dry run: reports only, no rewritten site kept)".to_string(),
    };
    let _ = writeln!(
        s,
        "{} {target}",
        paint(&format!("webdiet audit {}", report.site.path), "1", config)
    );

    // Headline: a first visit, pipelined, before → after.
    if let (Some(o), Some(r)) = (
        row(report, "original", "pipelined", "first"),
        row(report, "rewritten", "pipelined", "first"),
    ) {
        let (ob, rb) = (o.bytes_up + o.bytes_down, r.bytes_up + r.bytes_down);
        let _ = writeln!(
            s,
            "  first visit: {} → {} bytes ({}), {} → {} requests",
            thousands(ob),
            thousands(rb),
            paint(&change(ob as f64, rb as f64), "32", config),
            o.requests,
            r.requests
        );
    }

    // Where the saving comes from.
    let t = &report.images_total;
    let converted = t.by_outcome.get(&Outcome::Converted).copied().unwrap_or(0);
    let _ = writeln!(
        s,
        "  GIF → PNG/APNG: {} → {} bytes ({}), {converted} of {} converted",
        thousands(t.from_bytes),
        thousands(t.to_bytes),
        change(t.from_bytes as f64, t.to_bytes as f64),
        t.count
    );
    match &report.markup {
        Some(m) => {
            let before: usize = m.constructs_before.values().sum();
            let after: usize = m.constructs_after.values().sum();
            let sheet = super::figures::css_placement(m);
            let _ = writeln!(
                s,
                "  markup → CSS ({}): {before} → {after} presentational constructs, HTML {} → {} bytes, {sheet} ({})",
                super::figures::css_choice(m),
                thousands(m.html_bytes_before),
                thousands(m.html_bytes_after),
                change(
                    m.html_bytes_before as f64,
                    (m.html_bytes_after + m.css_bytes) as f64
                )
            );
        }
        None => {
            let _ = writeln!(s, "  markup → CSS: not run");
        }
    }
    if let Some(line) = super::figures::text_images_line(report) {
        let _ = writeln!(s, "  {line}");
    }
    if let Some(c) = &report.compression {
        let est = c.rewritten.as_ref().unwrap_or(&c.original);
        let _ = writeln!(
            s,
            "  deflate (level 6) on {} text file{}: {} → {} bytes ({}); worth it for {}",
            est.files.len(),
            if est.files.len() == 1 { "" } else { "s" },
            thousands(est.totals.raw),
            thousands(est.totals.deflate6),
            change(est.totals.raw as f64, est.totals.deflate6 as f64),
            est.files.len() - est.not_worth_it.len()
        );
    }

    // The replay matrix.
    if !report.replay.is_empty() {
        let _ = writeln!(s);
        let _ = writeln!(
            s,
            "  packets, median of {} run{} — {}",
            report.replay[0].runs,
            if report.replay[0].runs == 1 { "" } else { "s" },
            report.replay_method.as_deref().unwrap_or("")
        );
        let _ = writeln!(
            s,
            "  {:<18} {:>30}   {:>28}",
            "mode", "first visit: original → rewritten", "validation: original → rewritten"
        );
        for mode in ["http10", "persistent", "pipelined", "pipelined-deflate"] {
            let cell = |test: &str| -> String {
                match (
                    row(report, "original", mode, test),
                    row(report, "rewritten", mode, test),
                ) {
                    (Some(o), Some(r)) => format!(
                        "{:>4} → {:>4} ({:>6})",
                        o.packets,
                        r.packets,
                        change(o.packets as f64, r.packets as f64)
                    ),
                    _ => "-".to_string(),
                }
            };
            if row(report, "original", mode, "first").is_none()
                && row(report, "original", mode, "validate").is_none()
            {
                continue;
            }
            let _ = writeln!(
                s,
                "  {:<18} {:>30}   {:>28}",
                mode,
                cell("first"),
                cell("validate")
            );
        }
    }

    if !report.rewrite.broken_by_rewrite.is_empty() {
        let _ = writeln!(
            s,
            "  {} reference(s) broken by the rewrite (see report.json)",
            paint(
                &report.rewrite.broken_by_rewrite.len().to_string(),
                "31",
                config
            )
        );
    }
    if !report.problems.is_empty() {
        let _ = writeln!(
            s,
            "  {} problem(s), listed above and in report.json",
            report.problems.len()
        );
    }
    s.push_str(&budgets(report, config));
    let _ = writeln!(s, "  reports: {}", out.report_json().display());
    s
}

/// The budget verdicts (also all that `--quiet` prints).
pub fn budgets(report: &Report, config: &Config) -> String {
    let mut s = String::new();
    if report.budgets.is_empty() {
        return s;
    }
    let failed = report.budgets.iter().filter(|b| !b.passed).count();
    let _ = writeln!(
        s,
        "  budgets: {} held, {}",
        report.budgets.len() - failed,
        if failed == 0 {
            paint("none failed", "32", config)
        } else {
            paint(&format!("{failed} FAILED"), "31;1", config)
        }
    );
    for b in &report.budgets {
        let actual = b
            .actual
            .map(|a| format!("{a:.0}"))
            .unwrap_or_else(|| "not measured".to_string());
        let verdict = if b.passed {
            paint("ok", "32", config)
        } else {
            paint("FAILED", "31;1", config)
        };
        let _ = writeln!(
            s,
            "    {verdict:<6} {}: limit {:.0}, measured {actual}",
            b.name, b.limit
        );
    }
    s
}
