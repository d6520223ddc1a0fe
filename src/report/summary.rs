//! The `audit` terminal summary: what a person reads in ten seconds — bytes and requests before
//! and after, where the saving comes from, the replay matrix, the budgets.

use std::fmt::Write;

use super::TextStyle;
use super::{thousands, Report};
use crate::image::Outcome;
use crate::replay::{Mode, ReplayRow, Spread, Test};

fn paint(text: &str, code: &str, style: &TextStyle) -> String {
    if style.color {
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

/// The change between two measured figures, or "no measurable change" when their ranges over
/// the runs overlap.
pub fn measured_change(before: &Spread, after: &Spread) -> String {
    if before.overlaps(after) {
        "no measurable change".to_string()
    } else {
        change(before.median, after.median)
    }
}

fn row<'a>(report: &'a Report, site: &str, mode: Mode, test: Test) -> Option<&'a ReplayRow> {
    report
        .replay
        .iter()
        .find(|r| r.site == site && r.mode == mode && r.test == test)
}

/// The full summary.
pub fn audit(report: &Report, reports_at: &std::path::Path, style: &TextStyle) -> String {
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

    // Headline: a first visit in the reference mode, before → after.
    if let (Some(o), Some(r)) = (
        row(report, "original", Mode::reference(), Test::First),
        row(report, "rewritten", Mode::reference(), Test::First),
    ) {
        let (ob, rb) = (o.bytes_up + o.bytes_down, r.bytes_up + r.bytes_down);
        let _ = writeln!(
            s,
            "  first visit: {} → {} bytes ({}), {} → {} requests",
            thousands(ob),
            thousands(rb),
            paint(&change(ob as f64, rb as f64), "32", style),
            o.requests,
            r.requests
        );
    }

    if let Some(line) = time_headline(report) {
        let _ = writeln!(s, "  {}", paint(&line, "1", style));
    }
    if let Some(line) = super::browser::headline(report) {
        let _ = writeln!(s, "  {}", paint(&line, "1", style));
    }

    // Where the saving comes from.
    let t = &report.images_total;
    let converted = t.by_outcome.get(&Outcome::Converted).copied().unwrap_or(0);
    let _ = writeln!(
        s,
        "  GIF → {}: {} → {} bytes ({}), {converted} of {} converted",
        super::figures::image_targets(report),
        thousands(t.from_bytes),
        thousands(t.to_bytes),
        change(t.from_bytes as f64, t.to_bytes as f64),
        t.count
    );
    match &report.markup {
        Some(m) => {
            let _ = writeln!(s, "  {}", super::figures::markup_line(m));
        }
        None => {
            let _ = writeln!(s, "  markup → CSS: not run");
        }
    }
    for line in report.lossless.iter().flat_map(|l| l.lines()) {
        let _ = writeln!(s, "  {line}");
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
        if est.totals.brotli11 > 0 {
            let _ = writeln!(s, "  {}", est.totals.codings_line());
        }
    }

    // The replay matrix: the deterministic packets, and the kernel's count with its noise.
    if !report.replay.is_empty() {
        let runs = report.replay[0].runs;
        let _ = writeln!(s);
        let _ = writeln!(
            s,
            "  packets by the paper's rules (the same on every run); kernel count: median of {runs} \
             run{} — {}",
            if runs == 1 { "" } else { "s" },
            report.replay_method.as_deref().unwrap_or("")
        );
        let _ = writeln!(
            s,
            "  {:<23} {:>30}   {:>30}",
            "mode", "first visit: original → rewritten", "validation: original → rewritten"
        );
        for mode in super::figures::modes(report) {
            let pair = |test: Test| {
                Some((
                    row(report, "original", mode, test)?,
                    row(report, "rewritten", mode, test)?,
                ))
            };
            let cell = |test: Test| match pair(test) {
                Some((o, r)) => format!(
                    "{:>5} → {:>5} ({:>6})",
                    o.packets,
                    r.packets,
                    change(o.packets as f64, r.packets as f64)
                ),
                None => "-".to_string(),
            };
            let kernel = |test: Test| match pair(test) {
                Some((o, r)) => format!(
                    "{:>5} → {:>5} ({})",
                    o.kernel.packets.median,
                    r.kernel.packets.median,
                    measured_change(&o.kernel.packets, &r.kernel.packets)
                ),
                None => "-".to_string(),
            };
            if pair(Test::First).is_none() && pair(Test::Validate).is_none() {
                continue;
            }
            let _ = writeln!(
                s,
                "  {mode:<23} {:>30}   {:>30}",
                cell(Test::First),
                cell(Test::Validate)
            );
            let _ = writeln!(
                s,
                "  {:<23} {:>30}   {:>30}",
                "  kernel",
                kernel(Test::First),
                kernel(Test::Validate)
            );
        }
    }

    s.push_str(&time_blocks(report));
    s.push_str(&super::sweeps::text_tables(&report.replay));
    s.push_str(&super::browser::audit_block(report));
    s.push_str(&super::tls::terminal_block(&report.tls_cost));
    s.push_str(&super::headers::terminal_block(&report.header_cost));

    if !report.opportunities.is_empty() {
        let _ = writeln!(s);
        let _ = writeln!(
            s,
            "  opportunities, ranked (first visit: bytes, requests, packets saved)"
        );
        for o in report.opportunities.iter().take(6) {
            let n = |v: Option<i64>| v.map_or("—".to_string(), super::figures::signed);
            let _ = writeln!(
                s,
                "  {:<9} {:>9} B {:>4} req {:>5} pkts  {}",
                o.status,
                n(o.bytes),
                n(o.requests),
                n(o.packets),
                o.title
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
                style
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
    s.push_str(&budgets(report, style));
    let _ = writeln!(s, "  reports: {}", reports_at.display());
    s
}

/// The row of a site, mode and test over `link`.
fn row_on<'a>(
    report: &'a Report,
    link: &str,
    site: &str,
    mode: Mode,
    test: Test,
) -> Option<&'a ReplayRow> {
    report
        .replay
        .iter()
        .find(|r| r.link.name == link && r.site == site && r.mode == mode && r.test == test)
}

/// The emulated links of the report, in order.
pub fn emulated_links(report: &Report) -> Vec<&str> {
    super::replay::links(&report.replay)
        .into_iter()
        .filter(|l| *l != "loopback")
        .collect()
}

/// The time saved on a named link: "first visit on Cable (pipelined): 1.00 s → 0.85 s".
/// The first emulated link, in the mode of the byte headline.
pub fn time_headline(report: &Report) -> Option<String> {
    let link = *emulated_links(report).first()?;
    let mode = Mode::reference();
    let o = row_on(report, link, "original", mode, Test::First)?;
    let r = row_on(report, link, "rewritten", mode, Test::First)?;
    let (a, b) = (&o.time.last_packet_ms, &r.time.last_packet_ms);
    Some(format!(
        "first visit on {link} ({mode}, median of {} runs): {} → {} ({})",
        o.runs,
        super::replay::format_ms(a.median),
        super::replay::format_ms(b.median),
        measured_change(a, b)
    ))
}

/// Per emulated link, the paper's time of every mode, original → rewritten.
fn time_blocks(report: &Report) -> String {
    let mut s = String::new();
    for link in emulated_links(report) {
        let runs = report
            .replay
            .iter()
            .find(|r| r.link.name == link)
            .map_or(0, |r| r.runs);
        let _ = writeln!(s);
        let _ = writeln!(
            s,
            "  time over {link} (first SYN to the last counted packet, median of {runs} runs)"
        );
        let _ = writeln!(
            s,
            "  {:<23} {:<42} validation: original → rewritten",
            "mode", "first visit: original → rewritten"
        );
        for mode in super::figures::modes(report) {
            let cell = |test: Test| {
                let o = row_on(report, link, "original", mode, test)?;
                let r = row_on(report, link, "rewritten", mode, test)?;
                let (a, b) = (&o.time.last_packet_ms, &r.time.last_packet_ms);
                let out = |row: &ReplayRow, v: f64| {
                    let mark = if row.timed_out_runs > 0 { "≥" } else { "" };
                    format!("{mark}{}", super::replay::format_ms(v))
                };
                // Times right-aligned, the change after them left-aligned: the arrows line
                // up whether a cell says a percentage or "no measurable change".
                Some(format!(
                    "{:>8} → {:>8} {:<22}",
                    out(o, a.median),
                    out(r, b.median),
                    format!("({})", measured_change(a, b))
                ))
            };
            let (first, validate) = (cell(Test::First), cell(Test::Validate));
            if first.is_none() && validate.is_none() {
                continue;
            }
            let dash = || "-".to_string();
            let _ = writeln!(
                s,
                "  {mode:<23} {:<42} {}",
                first.unwrap_or_else(dash),
                validate.unwrap_or_else(dash).trim_end()
            );
        }
        if let Some(line) = super::figures::rewrite_by_protocol(report, link) {
            let _ = writeln!(s, "  {line}");
        }
        let timed_out: usize = report
            .replay
            .iter()
            .filter(|r| r.link.name == link)
            .map(|r| r.timed_out_runs)
            .sum();
        if timed_out > 0 {
            let _ = writeln!(
                s,
                "  {timed_out} run(s) timed out over {link}; they count in the medians at the \
                 time they were abandoned (≥)"
            );
        }
    }
    s
}

/// The budget verdicts (also all that `--quiet` prints).
pub fn budgets(report: &Report, style: &TextStyle) -> String {
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
            paint("none failed", "32", style)
        } else {
            paint(&format!("{failed} FAILED"), "31;1", style)
        }
    );
    for b in &report.budgets {
        let actual = match (b.actual, &b.unmeasured) {
            (Some(a), _) => format!("measured {a:.0}"),
            (None, Some(why)) => format!("not measured: {why}"),
            (None, None) => "not measured".to_string(),
        };
        let verdict = if b.passed {
            paint("ok", "32", style)
        } else {
            paint("FAILED", "31;1", style)
        };
        let _ = writeln!(
            s,
            "    {verdict:<6} {}: limit {:.0}, {actual}",
            b.name, b.limit
        );
    }
    s
}
