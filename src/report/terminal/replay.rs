//! The `replay` command's tables on the terminal: per link, the modes × 2 tests side by side
//! per site version (bytes and packets), then the link's times, what TLS and header
//! compression cost, and Chromium's visits.

use std::fmt::Write;

use super::evidence;
use crate::replay::{BrowserRow, Mode, ReplayRow, Test};
use crate::report::format::{self, thousands};
use crate::report::model::figures::links;
use crate::report::model::{browser, headers, tls};
use crate::report::phrases;

/// The modes of `site`'s rows, in row order.
fn modes_of<R: std::borrow::Borrow<ReplayRow>>(rows: &[R], site: &str) -> Vec<Mode> {
    let mut modes: Vec<Mode> = rows
        .iter()
        .map(|r| r.borrow())
        .filter(|r| r.site == site)
        .map(|r| r.mode)
        .collect();
    modes.dedup();
    modes
}

/// The row of `site`, `mode` and `test`.
fn find<'a, R: std::borrow::Borrow<ReplayRow>>(
    rows: &'a [R],
    site: &str,
    mode: Mode,
    test: Test,
) -> Option<&'a ReplayRow> {
    rows.iter()
        .map(|r| r.borrow())
        .find(|r| r.site == site && r.mode == mode && r.test == test)
}

/// The times of one link: per site version and mode, the paper's time (first to last
/// counted packet), the page's first byte and the page complete, medians with their ranges.
pub fn time_table(rows: &[ReplayRow], link: &str) -> String {
    let rows: Vec<&ReplayRow> = rows.iter().filter(|r| r.link.name == link).collect();
    let mut out = String::new();
    let Some(first) = rows.first() else {
        return out;
    };
    let _ = writeln!(
        out,
        "\n  time over {link}: from the first SYN, median (range) of {} run(s); paper = to the \
         last counted packet, complete = last byte of the last object",
        first.runs
    );
    let mut sites: Vec<&str> = rows.iter().map(|r| r.site.as_str()).collect();
    sites.dedup();
    for site in sites {
        let _ = writeln!(
            out,
            "  {site:<23} {:>24} {:>9} {:>9} | {:>24} {:>9} {:>9}",
            "first visit: paper",
            "1st byte",
            "complete",
            "validation: paper",
            "1st byte",
            "complete"
        );
        for mode in modes_of(&rows, site) {
            let cell = |test: Test| match find(&rows, site, mode, test) {
                Some(r) => format!(
                    "{:>24} {:>9} {:>9}",
                    format::time_spread(&r.time.last_packet_ms, r.timed_out_runs, r.runs),
                    format::ms(r.time.first_byte_ms.median),
                    format::ms(r.time.complete_ms.median)
                ),
                None => format!("{:>44}", "—"),
            };
            let _ = writeln!(
                out,
                "  {mode:<23} {} | {}",
                cell(Test::First),
                cell(Test::Validate)
            );
        }
    }
    out
}

/// The side-by-side tables, one set per link.
pub fn table(rows: &[ReplayRow]) -> String {
    let mut out = String::new();
    for (i, link) in links(rows).into_iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let of_link: Vec<ReplayRow> = rows
            .iter()
            .filter(|r| r.link.name == link)
            .cloned()
            .collect();
        out.push_str(&link_table(&of_link));
        out.push_str(&time_table(rows, link));
    }
    if out.is_empty() {
        return "no replay rows\n".into();
    }
    out
}

/// Bytes and packets of one link's rows.
fn link_table(rows: &[ReplayRow]) -> String {
    let mut out = String::new();
    let mut sites: Vec<&str> = rows.iter().map(|r| r.site.as_str()).collect();
    sites.dedup();
    let Some(first) = rows.first() else {
        return "no replay rows\n".into();
    };
    let _ = writeln!(
        out,
        "replay of {} over {} — MSS {}, {} run(s) per cell; packets by the paper's rules \
         (kernel median and range beside); method: {}",
        first.page, first.link.name, first.mss, first.runs, first.method
    );
    for site in sites {
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "  {site:<23} {:^48} | {:^48}",
            "first visit", "validation"
        );
        let head = format!(
            "{:>5} {:>9} {:>5} {:>13} {:>4} {:>8}",
            "req", "bytes", "pkts", "kernel", "conn", "paper ms"
        );
        let _ = writeln!(out, "  {:<23} {head} | {head}", "mode");
        for mode in modes_of(rows, site) {
            let cell = |test: Test| match find(rows, site, mode, test) {
                Some(r) if r.timed_out_runs == r.runs => {
                    format!("{:>48}", format!("every run timed out ({})", r.runs))
                }
                Some(r) => {
                    let (lo, hi) = r.kernel.packets.range();
                    format!(
                        "{:>5} {:>9} {:>5} {:>13} {:>4} {:>8.1}",
                        r.requests,
                        thousands(r.bytes()),
                        r.packets,
                        format!("{} ({lo}–{hi})", r.kernel.packets.median),
                        r.connections,
                        r.time.last_packet_ms.median
                    )
                }
                None => format!("{:>48}", "—"),
            };
            let _ = writeln!(
                out,
                "  {mode:<23} {} | {}",
                cell(Test::First),
                cell(Test::Validate)
            );
        }
    }
    out.push_str(&evidence::sweeps(rows));
    out.push_str(&evidence::tls(&tls::costs(rows)));
    out.push_str(&evidence::headers(&headers::costs(rows, &first.header_set)));
    out
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
    for (_, spread) in browser::metrics(row) {
        let _ = write!(s, " {:>9}", phrases::metric(spread));
    }
    let _ = write!(
        s,
        " {:>6} {:>10}",
        row.packets.median,
        thousands((row.bytes_up.median + row.bytes_down.median) as u64)
    );
    if let Some(f) = phrases::faults(row) {
        let _ = write!(s, "  [{f}]");
    }
    s
}

/// The browser's rows as a table (`webdiet replay --client chromium`).
pub fn browser_table(rows: &[BrowserRow]) -> String {
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
