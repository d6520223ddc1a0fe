//! The terminal tables of replay rows: per link, the modes × 2 tests side by side per site
//! version (bytes and packets), then the link's times.

use std::fmt::Write;

use super::thousands;
use crate::replay::{Mode, ReplayRow, Spread, Test};

/// The links of `rows`, in the order they first appear.
pub fn links(rows: &[ReplayRow]) -> Vec<&str> {
    super::first_seen(rows, |r| &r.link.name)
}

/// A time given in milliseconds, in words: `840 ms`, `1.38 s`, `65.1 s`.
pub fn format_ms(ms: f64) -> String {
    if ms < 1000.0 {
        format!("{ms:.0} ms")
    } else if ms < 10_000.0 {
        format!("{:.2} s", ms / 1000.0)
    } else {
        format!("{:.1} s", ms / 1000.0)
    }
}

/// A measured time with its range over the runs: `1.38 s (1.20–1.52)`; `≥` and the count
/// when runs timed out.
pub fn time_cell(row: &ReplayRow, spread: &Spread) -> String {
    if spread.runs == 0 {
        return format!("timed out ({}/{})", row.timed_out_runs, row.runs);
    }
    let (lo, hi) = spread.range();
    let unit = |v: f64| {
        if spread.max < 1000.0 {
            format!("{v:.0}")
        } else {
            format!("{:.2}", v / 1000.0)
        }
    };
    let mut text = format!(
        "{}{} ({}–{})",
        if row.timed_out_runs > 0 { "≥" } else { "" },
        format_ms(spread.median),
        unit(lo),
        unit(hi)
    );
    if row.timed_out_runs > 0 {
        text.push_str(&format!(" {}/{} timed out", row.timed_out_runs, row.runs));
    }
    text
}

/// The times of one link: per site version and mode, the paper's time (first to last
/// counted packet), the page's first byte and the page complete, medians with their ranges,
/// and the simulated paper's time beside them.
pub fn time_table(rows: &[ReplayRow], link: &str) -> String {
    let rows: Vec<&ReplayRow> = rows.iter().filter(|r| r.link.name == link).collect();
    let mut out = String::new();
    let Some(first) = rows.first() else {
        return out;
    };
    let _ = writeln!(
        out,
        "\n  time over {link}: from the first SYN, median (range) of {} run(s); paper = to the \
         last counted packet, complete = last byte of the last object; sim = the paper's time \
         simulated (docs/simulation.md)",
        first.runs
    );
    let mut sites: Vec<&str> = rows.iter().map(|r| r.site.as_str()).collect();
    sites.dedup();
    for site in sites {
        let _ = writeln!(
            out,
            "  {site:<23} {:>24} {:>9} {:>9} {:>9} | {:>24} {:>9} {:>9} {:>9}",
            "first visit: paper",
            "1st byte",
            "complete",
            "sim",
            "validation: paper",
            "1st byte",
            "complete",
            "sim"
        );
        let mut modes: Vec<Mode> = rows
            .iter()
            .filter(|r| r.site == site)
            .map(|r| r.mode)
            .collect();
        modes.dedup();
        for mode in modes {
            let cell = |test: Test| match rows
                .iter()
                .find(|r| r.site == site && r.mode == mode && r.test == test)
            {
                Some(r) => format!(
                    "{:>24} {:>9} {:>9} {:>9}",
                    time_cell(r, &r.time.last_packet_ms),
                    format_ms(r.time.first_byte_ms.median),
                    format_ms(r.time.complete_ms.median),
                    r.simulated_time
                        .as_ref()
                        .map_or("—".into(), |s| format_ms(s.last_packet_ms.median))
                ),
                None => format!("{:>54}", "—"),
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
        let mut modes: Vec<Mode> = rows
            .iter()
            .filter(|r| r.site == site)
            .map(|r| r.mode)
            .collect();
        modes.dedup();
        for mode in modes {
            let cell = |test: Test| match rows
                .iter()
                .find(|r| r.site == site && r.mode == mode && r.test == test)
            {
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
    out.push_str(&super::sweeps::text_tables(rows));
    out.push_str(&super::tls::terminal_block(&super::tls::costs(rows)));
    out.push_str(&super::headers::terminal_block(&super::headers::costs(
        rows,
        &first.header_set,
    )));
    out
}
