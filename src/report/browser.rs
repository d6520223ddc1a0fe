//! Chromium's visits in the text and Markdown reports: the headline ("LCP on 3G: 3.90 s →
//! 3.10 s"), the metrics of the original against the rewritten site per link, and webdiet's
//! own client set beside the browser in the same mode, link and site.

use std::fmt::Write;

use super::replay::format_ms;
use super::summary::measured_change;
use super::{thousands, Report};
use crate::replay::row::Spread;
use crate::replay::{BrowserRow, Mode, ReplayRow, Test};

/// The emulated links Chromium ran over, in report order.
pub fn links(report: &Report) -> Vec<&str> {
    let mut links: Vec<&str> = Vec::new();
    for row in &report.browser {
        if !links.contains(&row.link.name.as_str()) {
            links.push(&row.link.name);
        }
    }
    links
}

/// The browser row of a site, link, mode and test.
pub fn row<'a>(
    report: &'a Report,
    link: &str,
    site: &str,
    mode: Mode,
    test: Test,
) -> Option<&'a BrowserRow> {
    report
        .browser
        .iter()
        .find(|r| r.link.name == link && r.site == site && r.mode == mode && r.test == test)
}

/// The robot's row of the same site, link, mode and test.
pub fn robot_row<'a>(report: &'a Report, b: &BrowserRow) -> Option<&'a ReplayRow> {
    report.replay.iter().find(|r| {
        r.link.name == b.link.name && r.site == b.site && r.mode == b.mode && r.test == b.test
    })
}

/// "LCP on 3G (chromium, h2, median of 5 runs): 3.90 s → 3.10 s (-20.5%)", on the first link
/// the browser ran over.
pub fn headline(report: &Report) -> Option<String> {
    let link = *links(report).first()?;
    Mode::browser_headline_order().into_iter().find_map(|mode| {
        let o = row(report, link, "original", mode, Test::First)?;
        let r = row(report, link, "rewritten", mode, Test::First)?;
        let (a, b) = (o.metrics.lcp_ms.as_ref()?, r.metrics.lcp_ms.as_ref()?);
        Some(format!(
            "LCP on {link} (chromium, {mode}, median of {} runs): {} → {} ({})",
            a.runs,
            format_ms(a.median),
            format_ms(b.median),
            measured_change(a, b)
        ))
    })
}

/// A metric's median, or `—` when no run reached it.
pub fn metric(spread: Option<&Spread>) -> String {
    spread.map_or_else(|| "—".to_string(), |s| format_ms(s.median))
}

/// The metrics the tables show, with their names.
pub fn metrics(row: &BrowserRow) -> [(&'static str, Option<&Spread>); 6] {
    let m = &row.metrics;
    [
        ("TTFB", m.ttfb_ms.as_ref()),
        ("FCP", m.fcp_ms.as_ref()),
        ("LCP", m.lcp_ms.as_ref()),
        ("DCL", m.dom_content_loaded_ms.as_ref()),
        ("load", m.load_ms.as_ref()),
        ("complete", m.complete_ms.as_ref()),
    ]
}

/// What the runs of a row met: timeouts and failures, or nothing.
pub fn faults(row: &BrowserRow) -> Option<String> {
    let mut parts = Vec::new();
    if row.timed_out_runs > 0 {
        parts.push(format!(
            "{} of {} runs timed out ({} limit)",
            row.timed_out_runs,
            row.runs,
            format_ms(row.timeout_ms)
        ));
    }
    if row.failed_runs > 0 {
        parts.push(format!(
            "{} of {} runs failed (browser crashed twice)",
            row.failed_runs, row.runs
        ));
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// One line of a row for the replay command's table.
fn line(row: &BrowserRow) -> String {
    let mut s = format!(
        "  {:<9} {:<17} {:<8} {:<8} {:>3} req ({:>2}× 304) {:>2} conn",
        row.site,
        row.mode,
        row.test,
        row.protocol,
        row.requests,
        row.not_modified,
        row.connections.median
    );
    for (_, spread) in metrics(row) {
        let _ = write!(s, " {:>9}", metric(spread));
    }
    let _ = write!(
        s,
        " {:>6} {:>10}",
        row.packets.median,
        thousands((row.bytes_up.median + row.bytes_down.median) as u64)
    );
    if let Some(f) = faults(row) {
        let _ = write!(s, "  [{f}]");
    }
    s
}

/// The browser's rows as a table (`webdiet replay --client chromium`).
pub fn table(rows: &[BrowserRow]) -> String {
    let mut s = String::new();
    let mut links: Vec<&str> = Vec::new();
    for r in rows {
        if !links.contains(&r.link.name.as_str()) {
            links.push(&r.link.name);
        }
    }
    for link in links {
        let of_link: Vec<&BrowserRow> = rows.iter().filter(|r| r.link.name == link).collect();
        let runs = of_link.first().map_or(0, |r| r.runs);
        let _ = writeln!(
            s,
            "\n  chromium over {link} (median of {runs} run{}; times from the navigation's start, \
             packets and bytes on the link)",
            if runs == 1 { "" } else { "s" }
        );
        let _ = writeln!(
            s,
            "  {:<9} {:<17} {:<8} {:<8} {:>24} {:>7} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>6} {:>10}",
            "site", "mode", "test", "protocol", "requests", "", "TTFB", "FCP", "LCP", "DCL",
            "load", "complete", "pkts", "bytes"
        );
        for r in &of_link {
            let _ = writeln!(s, "{}", line(r));
        }
        for r in &of_link {
            for note in &r.notes {
                let _ = writeln!(s, "  note: {note}");
            }
        }
    }
    s
}

/// The audit's block: per link, the browser's metrics original → rewritten, then webdiet's
/// client beside the browser.
pub fn audit_block(report: &Report) -> String {
    let mut s = String::new();
    if let Some(why) = &report.browser_unavailable {
        let _ = writeln!(s, "\n  chromium: not run: {why}");
    }
    for link in links(report) {
        let rows: Vec<&BrowserRow> = report
            .browser
            .iter()
            .filter(|r| r.link.name == link && r.site == "original")
            .collect();
        let runs = rows.first().map_or(0, |r| r.runs);
        let _ = writeln!(
            s,
            "\n  chromium over {link} (median of {runs} run{}, from the navigation's start)",
            if runs == 1 { "" } else { "s" }
        );
        let _ = writeln!(
            s,
            "  {:<17} {:<8} {:<8} {:>36} {:>36} {:>30}",
            "mode", "test", "metric", "original → rewritten", "", ""
        );
        for o in &rows {
            let Some(r) = row(report, link, "rewritten", o.mode, o.test) else {
                continue;
            };
            for ((name, a), (_, b)) in metrics(o).into_iter().zip(metrics(r)) {
                let change = match (a, b) {
                    (Some(a), Some(b)) => measured_change(a, b),
                    _ => String::new(),
                };
                let _ = writeln!(
                    s,
                    "  {:<17} {:<8} {:<8} {:>10} → {:>10} ({change})",
                    o.mode,
                    o.test,
                    name,
                    metric(a),
                    metric(b)
                );
            }
            let _ = writeln!(
                s,
                "  {:<17} {:<8} {:<8} {:>10} → {:>10} ({}), bytes {} → {}, {} → {} requests, \
                 {} connections",
                o.mode,
                o.test,
                "packets",
                o.packets.median,
                r.packets.median,
                measured_change(&o.packets, &r.packets),
                thousands((o.bytes_up.median + o.bytes_down.median) as u64),
                thousands((r.bytes_up.median + r.bytes_down.median) as u64),
                o.requests,
                r.requests,
                o.connections.median
            );
            for f in [faults(o), faults(r)].into_iter().flatten() {
                let _ = writeln!(s, "  {:<17} {:<8} note: {f}", o.mode, o.test);
            }
        }
        let beside = beside_lines(report, link);
        if !beside.is_empty() {
            let _ = writeln!(
                s,
                "  webdiet's client beside chromium, original site, same mode and link: page \
                 complete from the first SYN, and packets"
            );
            for l in beside {
                let _ = writeln!(s, "  {l}");
            }
        }
    }
    s
}

/// "persistent first  chromium 612 ms, 210 pkts, 6 conn | webdiet 1.62 s, 253 pkts, 1 conn".
fn beside_lines(report: &Report, link: &str) -> Vec<String> {
    report
        .browser
        .iter()
        .filter(|b| b.link.name == link && b.site == "original")
        .filter_map(|b| {
            let w = robot_row(report, b)?;
            let complete = b.metrics.complete_from_first_syn_ms.as_ref()?;
            Some(format!(
                "{:<17} {:<8} chromium {:>9}, {:>4} pkts, {} conn | webdiet {:>9}, {:>4} pkts \
                 (paper's rule), {} conn",
                b.mode,
                b.test,
                format_ms(complete.median),
                b.packets.median,
                b.connections.median,
                format_ms(w.time.complete_ms.median),
                w.packets,
                w.connections
            ))
        })
        .collect()
}

/// The Markdown section: metrics per link and site, and webdiet's client beside the browser.
pub fn markdown(report: &Report) -> String {
    let mut out = String::new();
    if report.browser.is_empty() && report.browser_unavailable.is_none() {
        return out;
    }
    out.push_str("\n## Chromium over the emulated links\n\n");
    if let Some(why) = &report.browser_unavailable {
        let _ = writeln!(out, "Not run: {}\n", super::markdown::cell(why));
    }
    if let Some(h) = headline(report) {
        let _ = writeln!(out, "**{h}**\n");
    }
    for link in links(report) {
        let _ = writeln!(
            out,
            "### {}\n\nMedian over the runs, ms from the navigation's start; packets and bytes \
             counted on the link.\n\n| site | mode | test | protocol | requests (304) | conn | \
             TTFB | FCP | LCP | DCL | load | complete | packets | bytes |\n|---|---|---|---|---:|\
             ---:|---:|---:|---:|---:|---:|---:|---:|---:|",
            super::markdown::cell(link)
        );
        for r in report.browser.iter().filter(|r| r.link.name == link) {
            let cells: Vec<String> = metrics(r).iter().map(|(_, s)| metric(*s)).collect();
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} ({}) | {} | {} | {} | {} |",
                r.site,
                r.mode,
                r.test,
                super::markdown::cell(&r.protocol),
                r.requests,
                r.not_modified,
                r.connections.median,
                cells.join(" | "),
                r.packets.median,
                thousands((r.bytes_up.median + r.bytes_down.median) as u64)
            );
        }
        let notes: Vec<String> = report
            .browser
            .iter()
            .filter(|r| r.link.name == link)
            .flat_map(|r| r.notes.iter().cloned())
            .collect();
        for n in notes {
            let _ = writeln!(out, "\n- {}", super::markdown::cell(&n));
        }
        let beside = beside_lines(report, link);
        if !beside.is_empty() {
            out.push_str(
                "\nwebdiet's client beside Chromium (original site; page complete from the \
                 first SYN, packets):\n\n```\n",
            );
            for l in beside {
                let _ = writeln!(out, "{l}");
            }
            out.push_str("```\n");
        }
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::chromium::page_load::BrowserRequest;
    use crate::replay::chromium::row::BrowserMetrics;
    use crate::replay::row::RowLink;

    /// A made-up browser row: LCP `lcp` ms over three runs.
    pub fn sample_browser_row(site: &str, mode: &str, test: &str, lcp: f64) -> BrowserRow {
        let three = |a: f64| Spread::of([a, a + 10.0, a + 20.0]);
        let link = crate::replay::link::parse("3G").unwrap().remove(0);
        BrowserRow {
            client: "chromium".into(),
            site: site.into(),
            page: "index.html".into(),
            mode: mode.parse().unwrap(),
            test: test.parse().unwrap(),
            link: RowLink::new(&link, vec![1, 2, 3]),
            runs: 3,
            timed_out_runs: 0,
            failed_runs: 0,
            timeout_ms: 60_000.0,
            protocol: "h2".into(),
            requests: 3,
            not_modified: 0,
            connections: Spread::of([1.0; 3]),
            packets: three(100.0),
            packets_up: three(40.0),
            packets_down: three(60.0),
            data_segments: three(50.0),
            bytes_up: three(1000.0),
            bytes_down: three(50_000.0),
            metrics: BrowserMetrics {
                ttfb_ms: Some(three(600.0)),
                fcp_ms: Some(three(lcp - 200.0)),
                lcp_ms: Some(three(lcp)),
                dom_content_loaded_ms: Some(three(lcp - 100.0)),
                load_ms: Some(three(lcp + 100.0)),
                complete_ms: Some(three(lcp + 150.0)),
                complete_from_first_syn_ms: Some(three(lcp + 149.0)),
            },
            notes: Vec::new(),
            waterfall: ["/", "/a.png", "/b.png"]
                .iter()
                .enumerate()
                .map(|(i, path)| BrowserRequest {
                    url: format!("https://replay.webdiet.test{path}"),
                    connection: Some(1),
                    protocol: Some("h2".into()),
                    status: Some(200),
                    from_cache: false,
                    start_ms: i as f64 * 100.0,
                    connect_start_ms: (i == 0).then_some(1.0),
                    connect_end_ms: (i == 0).then_some(600.0),
                    sent_ms: Some(i as f64 * 100.0 + 610.0),
                    first_byte_ms: Some(i as f64 * 100.0 + 910.0),
                    done_ms: Some(i as f64 * 100.0 + 1000.0),
                    encoded_bytes: 10_000,
                    failed: None,
                })
                .collect(),
        }
    }

    fn report() -> Report {
        Report {
            browser: vec![
                sample_browser_row("original", "h2", "first", 3900.0),
                sample_browser_row("rewritten", "h2", "first", 3100.0),
            ],
            ..Report::default()
        }
    }

    #[test]
    fn the_headline_names_lcp_on_the_first_link_original_to_rewritten() {
        let h = headline(&report()).unwrap();
        assert!(
            h.starts_with("LCP on 3G (chromium, h2, median of 3 runs): 3.91 s → 3.11 s"),
            "{h}"
        );
        assert!(h.contains("-20.5%"), "{h}");
    }

    #[test]
    fn no_browser_rows_no_headline_and_no_markdown_section() {
        assert!(headline(&Report::default()).is_none());
        assert!(markdown(&Report::default()).is_empty());
    }

    #[test]
    fn the_markdown_section_has_a_row_per_site_with_every_metric() {
        let md = markdown(&report());
        assert!(md.contains("### 3G"), "{md}");
        let rows: Vec<&str> = md
            .lines()
            .filter(|l| l.starts_with("| original") || l.starts_with("| rewritten"))
            .collect();
        assert_eq!(rows.len(), 2, "{md}");
        assert!(
            rows[0].contains("3.91 s") && rows[1].contains("3.11 s"),
            "{md}"
        );
    }

    #[test]
    fn a_missing_browser_is_said_in_the_block_and_the_markdown() {
        let r = Report {
            browser_unavailable: Some("chromium: Chromium not found; install it".into()),
            ..Report::default()
        };
        assert!(audit_block(&r).contains("not run: chromium: Chromium not found"));
        assert!(markdown(&r).contains("Not run: chromium: Chromium not found"));
    }

    #[test]
    fn timeouts_and_failures_are_said_with_the_limit() {
        let mut row = sample_browser_row("original", "h2", "first", 1000.0);
        assert!(faults(&row).is_none());
        row.timed_out_runs = 1;
        row.failed_runs = 1;
        let f = faults(&row).unwrap();
        assert!(f.contains("1 of 3 runs timed out (60.0 s limit)"), "{f}");
        assert!(f.contains("1 of 3 runs failed"), "{f}");
    }
}
