//! The `audit` terminal summary: what a person reads in ten seconds — bytes and requests before
//! and after, where the saving comes from, the replay matrix, the budgets.

use std::fmt::Write;

use super::TextStyle;
use super::{thousands, Report};
use crate::image::Outcome;
use crate::replay::protocol::Role;
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

/// The time headline's mode: [`Role::TimeHeadline`] (h2) when it was replayed, else the
/// reference mode, else the first mode with simulated time.
fn time_mode(report: &Report, link: &str) -> Option<Mode> {
    let has = |m: Mode| {
        ["original", "rewritten"]
            .iter()
            .all(|site| row_on(report, link, site, m, Test::First).is_some())
    };
    Mode::with_role(Role::TimeHeadline)
        .into_iter()
        .chain([Mode::reference()])
        .chain(super::figures::modes(report))
        .find(|m| has(*m))
}

/// The time headline: "first visit on Cable (h2, simulated): 380 ms → 330 ms (-13.2%)", on
/// the first link with time, and, where that link was measured too, the measured medians and
/// how far the simulation is from them.
pub fn time_headline(report: &Report) -> Option<String> {
    let link = *super::figures::time_links(report).first()?;
    let mode = time_mode(report, link)?;
    let o = row_on(report, link, "original", mode, Test::First)?;
    let r = row_on(report, link, "rewritten", mode, Test::First)?;
    let ms = super::replay::format_ms;
    let mut line = match (&o.simulated_time, &r.simulated_time) {
        (Some(a), Some(b)) => format!(
            "first visit on {link} ({mode}, simulated): {} → {} ({})",
            super::figures::simulated_text(&a.last_packet_ms, a.seeds.len()),
            super::figures::simulated_text(&b.last_packet_ms, b.seeds.len()),
            super::figures::simulated_change(o, r)
        ),
        _ => format!(
            "first visit on {link} ({mode}, measured, median of {} runs): {} → {} ({})",
            o.runs.min(r.runs),
            ms(o.time.last_packet_ms.median),
            ms(r.time.last_packet_ms.median),
            super::figures::measured_time_change(o, r)
        ),
    };
    if let (true, true, Some(a), Some(b)) = (
        o.measured(),
        r.measured(),
        &o.simulated_time,
        &r.simulated_time,
    ) {
        let err = |s: f64, m: f64| (100.0 * (s - m) / m).abs();
        let worst = err(a.last_packet_ms.median, o.time.last_packet_ms.median)
            .max(err(b.last_packet_ms.median, r.time.last_packet_ms.median));
        line.push_str(&format!(
            "; measured {} → {} (median of {} runs, {}), simulated within {worst:.0}%",
            ms(o.time.last_packet_ms.median),
            ms(r.time.last_packet_ms.median),
            o.runs.min(r.runs),
            super::figures::measured_time_change(o, r)
        ));
    }
    Some(line)
}

/// Per link with time: the simulated paper's time of every mode, original → rewritten; where
/// the link was measured too, the measured medians with what the runs can tell, the
/// simulation's error, and the machine's load.
fn time_blocks(report: &Report) -> String {
    let mut s = String::new();
    for link in super::figures::time_links(report) {
        let simulated = report.replay.iter().find_map(|r| {
            (r.link.name == link)
                .then_some(r.simulated_time.as_ref())
                .flatten()
        });
        if let Some(sim) = simulated {
            let seeds = if sim.seeds.len() > 1 {
                format!(", median of {} loss seeds", sim.seeds.len())
            } else {
                String::new()
            };
            let _ = writeln!(s);
            let _ = writeln!(
                s,
                "  time on {link}, simulated (Linux TCP, {}{seeds}; the same on any machine): \
                 first SYN to the last byte read",
                sim.tcp
            );
            time_table(&mut s, report, link, &|o, r| {
                let (a, b) = (o.simulated_time.as_ref()?, r.simulated_time.as_ref()?);
                Some((
                    a.last_packet_ms.median,
                    b.last_packet_ms.median,
                    super::figures::simulated_change(o, r),
                ))
            });
            if let Some(line) = super::figures::rewrite_by_protocol(report, link) {
                let _ = writeln!(s, "  {line}");
            }
        }
        if super::figures::measured_on(report, link) {
            let runs = report
                .replay
                .iter()
                .filter(|r| r.link.name == link && r.measured())
                .map(|r| r.runs)
                .max()
                .unwrap_or(0);
            let _ = writeln!(s);
            let _ = writeln!(
                s,
                "  time over {link}, measured on the emulated link (median of up to {runs} runs; a \
                 change only where the 90% confidence intervals of the medians are apart)"
            );
            time_table(&mut s, report, link, &|o, r| {
                (o.measured() && r.measured()).then(|| {
                    (
                        o.time.last_packet_ms.median,
                        r.time.last_packet_ms.median,
                        super::figures::measured_time_change(o, r),
                    )
                })
            });
            if simulated.is_none() {
                if let Some(line) = super::figures::rewrite_by_protocol(report, link) {
                    let _ = writeln!(s, "  {line}");
                }
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
                     time they were abandoned"
                );
            }
            if let Some(v) = report.simulation_error.iter().find(|v| v.link == link) {
                let _ = writeln!(s, "  {}", super::figures::validation_text(v));
            }
        }
    }
    if let Some(warning) = report.measured_load.as_ref().and_then(|l| l.warning()) {
        let _ = writeln!(s, "  warning: {warning}");
    }
    s
}

/// A pair's two times (original, rewritten) and their change, or `None` when not both have it.
type PairTimes = dyn Fn(&ReplayRow, &ReplayRow) -> Option<(f64, f64, String)>;

/// One time table: a line per mode, first visit and validation, original → rewritten, with
/// `times` giving a pair's two times and their change.
fn time_table(s: &mut String, report: &Report, link: &str, times: &PairTimes) {
    let _ = writeln!(
        s,
        "  {:<23} {:<42} validation: original → rewritten",
        "mode", "first visit: original → rewritten"
    );
    for mode in super::figures::modes(report) {
        let cell = |test: Test| {
            let o = row_on(report, link, "original", mode, test)?;
            let r = row_on(report, link, "rewritten", mode, test)?;
            let (a, b, change) = times(o, r)?;
            let out = |row: &ReplayRow, v: f64| {
                let mark = if row.timed_out_runs > 0 { "≥" } else { "" };
                format!("{mark}{}", super::replay::format_ms(v))
            };
            // Times right-aligned, the change after them left-aligned: the arrows line up
            // whatever the change says.
            Some(format!(
                "{:>8} → {:>8} {:<22}",
                out(o, a),
                out(r, b),
                format!("({change})")
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
