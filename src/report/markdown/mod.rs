//! The report as GitHub Markdown, ready to paste into a pull request or a job summary, in the
//! order of every report: the verdict (budgets, what failed), what the rewrite saves a visitor
//! per named link, the opportunities ranked with their time and a link to their evidence, then
//! the evidence (`evidence.rs`).

mod escape;
mod evidence;

use std::fmt::Write;

pub use escape::cell;
use escape::upper_first;

use crate::report::format;
use crate::report::model::Report;
use crate::report::phrases;

/// Renders the whole report.
pub fn render(report: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "## webdiet audit: {}\n", cell(&report.site.name));
    verdict(&mut out, report);
    paint(&mut out, report);
    visitor(&mut out, report);
    opportunities(&mut out, report);
    evidence::render(&mut out, report);
    if let Some(a) = &report.archive {
        out.push_str("### Web archive\n\n| | |\n|---|---|\n");
        for (label, value) in crate::archive::facts(a) {
            let _ = writeln!(out, "| {} | {} |", cell(&label), cell(&value));
        }
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "**Problems:** {}\n\n<sub>{} {}, report schema {}</sub>",
        report.problems.len(),
        cell(&report.tool.name),
        cell(&report.tool.version),
        report.schema_version
    );
    out
}

/// The budgets: how many held, then every one with its figures, failures first.
fn verdict(out: &mut String, report: &Report) {
    let _ = writeln!(out, "### Verdict\n");
    if report.budgets.is_empty() {
        let _ = writeln!(out, "No budgets were set.\n");
        return;
    }
    if let Some((fails, sentence)) = phrases::verdict(report) {
        let _ = writeln!(
            out,
            "**{}** — {sentence}.\n",
            if fails { "FAIL" } else { "Pass" }
        );
    }
    let _ = writeln!(
        out,
        "| Budget | Level | Limit | Actual | Result |\n|---|---|---:|---:|---|"
    );
    let mut rows: Vec<&crate::report::model::BudgetResult> = report.budgets.iter().collect();
    rows.sort_by_key(|b| (!b.fails_run(), b.passed));
    for b in rows {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            cell(&b.name),
            b.level.as_str(),
            format::number(b.limit),
            b.actual.map_or_else(
                || format!(
                    "not measured: {}",
                    cell(b.unmeasured.as_deref().unwrap_or("no figure"))
                ),
                format::number
            ),
            match (b.passed, b.fails_run()) {
                (true, _) => "pass",
                (false, true) => "**FAIL**",
                (false, false) => "*over (warn)*",
            }
        );
    }
    let _ = writeln!(out);
}

/// What the rewrite saves a visitor: the first visit, and its time on every named link.
fn visitor(out: &mut String, report: &Report) {
    let _ = writeln!(out, "### What a visitor saves\n");
    match (&report.visitor_savings, phrases::visit_line(report)) {
        (Some(v), Some(line)) => {
            let _ = writeln!(out, "- **First visit:** {}", cell(&line));
            for t in &v.links {
                let _ = writeln!(
                    out,
                    "- **{}**",
                    cell(&upper_first(&phrases::link_time(report, t)))
                );
            }
            if v.links.is_empty() {
                let _ = writeln!(
                    out,
                    "- No named link was replayed, so no time (`--link Cable` adds one)."
                );
            }
        }
        _ => {
            let t = &report.images_total;
            let _ = writeln!(
                out,
                "- **Images:** {} → {} bytes ({}); no replay was run.",
                format::thousands(t.from_bytes),
                format::thousands(t.to_bytes),
                format::change(t.from_bytes as f64, t.to_bytes as f64),
            );
        }
    }
    if let Some(h) = phrases::browser_headline(report) {
        let _ = writeln!(out, "- **{}**", cell(&h));
    }
    let _ = writeln!(out);
}

/// What a visitor sees: per link, the simulated browser's first and largest paint of every
/// page before and after (median and 90th percentile), and the pages that paint later.
fn paint(out: &mut String, report: &Report) {
    let Some(v) = &report.visitor else {
        return;
    };
    let _ = writeln!(
        out,
        "### What a visitor sees
"
    );
    if let Some(h) = phrases::visitor_heading(report) {
        let _ = writeln!(
            out,
            "{}.
",
            cell(&upper_first(&h))
        );
    }
    let _ = writeln!(
        out,
        "| Link | Protocol, visit | FCP median | FCP p90 | LCP median | LCP p90 | Pages later |\n\
         |---|---|---:|---:|---:|---:|---:|"
    );
    let pair = |c: &crate::sim::paint::site::Compared, p90: bool| {
        let (a, b) = match p90 {
            false => (c.original.median_ms, c.rewritten.median_ms),
            true => (c.original.p90_ms, c.rewritten.p90_ms),
        };
        format!(
            "{} → {} ({})",
            format::ms(a),
            format::ms(b),
            format::change(a, b)
        )
    };
    for l in &v.links {
        let _ = writeln!(
            out,
            "| {}{} | {}, {} | {} | {} | {} | {} | {} |",
            cell(&l.link),
            if l.cpu_slowdown > 1 {
                format!(" (CPU ×{})", l.cpu_slowdown)
            } else {
                String::new()
            },
            l.speaks.as_str(),
            l.visit.as_str(),
            pair(&l.fcp, false),
            pair(&l.fcp, true),
            pair(&l.lcp, false),
            pair(&l.lcp, true),
            l.later.len()
        );
    }
    let later: Vec<String> = v
        .links
        .iter()
        .flat_map(|l| {
            l.later.iter().take(5).map(move |(page, ms)| {
                format!(
                    "{} ({}, {}, {}): {}",
                    cell(page),
                    cell(&l.link),
                    l.speaks.as_str(),
                    l.visit.as_str(),
                    format::plus_ms(*ms)
                )
            })
        })
        .collect();
    if !later.is_empty() {
        let _ = writeln!(out, "\n**Pages that paint later:** {}", later.join("; "));
    }
    let _ = writeln!(
        out,
        "\n<sub>{}. How the browser is simulated: docs/simulation.md, \"The visitor\".</sub>\n",
        cell(&phrases::visitor_cpu(&v.cpu))
    );
}

/// The opportunities, ranked, each with its time and a link to its evidence.
fn opportunities(out: &mut String, report: &Report) {
    if report.opportunities.is_empty() {
        return;
    }
    let link = report
        .opportunities
        .iter()
        .find_map(|o| o.time_link.as_deref());
    let _ = writeln!(
        out,
        "### Opportunities\n\nRanked by what they save a first visit{}. *done*: the rewrite \
         did it; *to do*: a person must. ~ marks a time estimated from the link's rates.\n\n\
         | Opportunity | Status | What | Bytes | Requests | Packets | Time{} | Evidence |\n\
         |---|---|---|---:|---:|---:|---:|---|",
        link.map_or(String::new(), |l| format!(" (time on {})", cell(l))),
        link.map_or(String::new(), |l| format!(" on {}", cell(l)))
    );
    let n = |v: Option<i64>| v.map_or("—".to_string(), format::signed);
    for o in &report.opportunities {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | [{}](#{}) |",
            cell(&o.title),
            if o.status == "done" { "done" } else { "to do" },
            cell(&o.action),
            n(o.bytes),
            n(o.requests),
            n(o.packets),
            phrases::opportunity_time(o),
            o.evidence.replace('-', " "),
            o.evidence
        );
    }
    let _ = writeln!(out);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::model::sample::sample;

    #[test]
    fn the_verdict_comes_first_then_the_saving_then_the_opportunities_then_the_evidence() {
        let md = render(&sample());
        let at = |what: &str| md.find(what).unwrap_or_else(|| panic!("{what}: {md}"));
        assert!(at("### Verdict") < at("### What a visitor saves"));
        assert!(at("### What a visitor saves") < at("### Opportunities"));
        assert!(at("### Opportunities") < at("### Where the savings come from"));
        assert!(at("### Where the savings come from") < at("### Replay"));
        assert!(
            md.contains("**FAIL** — 1 of 2 budgets held, 1 failed."),
            "{md}"
        );
    }

    #[test]
    fn the_first_visit_comes_from_the_pipelined_replay() {
        let md = render(&sample());
        assert!(
            md.contains(
                "**First visit:** 200,000 → 150,000 bytes (-25.0%), 10 → 10 requests, 160 → 120 \
                 packets (pipelined, index.html)"
            ),
            "{md}"
        );
    }

    #[test]
    fn every_opportunity_links_to_a_section_that_exists() {
        let md = render(&sample());
        for o in &sample().opportunities {
            assert!(md.contains(&format!("(#{})", o.evidence)), "{}", o.id);
            let heading = md
                .lines()
                .filter(|l| l.starts_with("### "))
                .any(|l| l[4..].to_lowercase().replace(' ', "-") == o.evidence);
            assert!(heading, "no heading for #{}: {md}", o.evidence);
        }
    }

    #[test]
    fn savings_name_their_sources() {
        let md = render(&sample());
        assert!(
            md.contains("| GIF → PNG | 3,000 | 2 GIFs, 12,300 → 9,300 bytes |"),
            "{md}"
        );
        assert!(md.contains("| markup → CSS | 8,000 | HTML 40,000 → 30,000 bytes"));
    }

    #[test]
    fn a_measured_change_inside_the_noise_is_no_measurable_change() {
        let mut report = sample();
        for row in &mut report.replay {
            row.kernel.packets = crate::replay::Spread::of([100.0, 130.0, 160.0]);
        }
        let md = render(&report);
        assert!(
            md.contains("| http10 | first | 160 | 120 | -25.0% | 130 (100–160) | 130 (100–160) | no measurable change |"),
            "{md}"
        );
    }

    #[test]
    fn paths_cannot_break_tables_or_inject_html() {
        let md = render(&sample());
        assert!(
            md.contains("| img/&lt;b&gt;&amp;\"q\".gif | 300 | 300 | 0 | gif | default | 1 | kept:png-larger |"),
            "{md}"
        );
    }

    #[test]
    fn budgets_say_pass_or_fail() {
        let md = render(&sample());
        assert!(
            md.contains(
                "| max-first-visit-bytes (pipelined) | error | 100,000 | 150,000 | **FAIL** |"
            ),
            "{md}"
        );
        assert!(md.contains("| 200 | 120 | pass |"));
        assert!(md.contains("**Problems:** 1"));
    }

    #[test]
    fn long_image_tables_fold_away() {
        let mut report = sample();
        assert!(!render(&report).contains("GIFs</summary>"));
        let row = report.images[0].clone();
        report.images = vec![row; evidence::FOLD_ROWS + 1];
        let md = render(&report);
        assert!(
            md.contains("<details><summary>21 GIFs</summary>\n\n| File |"),
            "{md}"
        );
    }

    #[test]
    fn an_empty_report_still_renders() {
        let md = render(&Report::default());
        assert!(md.contains("no replay was run"), "{md}");
        assert!(md.contains("No GIFs."));
        assert!(md.contains("No budgets were set."));
        assert!(!md.contains("markup → CSS"));
    }
}
