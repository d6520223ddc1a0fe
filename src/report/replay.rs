//! The terminal table of replay rows: the modes × 2 tests side by side, per site version.

use std::fmt::Write;

use super::thousands;
use crate::replay::ReplayRow;

/// The side-by-side table.
pub fn table(rows: &[ReplayRow]) -> String {
    let mut out = String::new();
    let mut sites: Vec<&str> = rows.iter().map(|r| r.site.as_str()).collect();
    sites.dedup();
    let Some(first) = rows.first() else {
        return "no replay rows\n".into();
    };
    let _ = writeln!(
        out,
        "replay of {} — MSS {}, {} run(s) per cell; packets by the paper's rules (kernel \
         median and range beside); method: {}",
        first.page, first.mss, first.runs, first.method
    );
    for site in sites {
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "  {site:<18} {:^46} | {:^46}",
            "first visit", "validation"
        );
        let head = format!(
            "{:>5} {:>9} {:>5} {:>13} {:>4} {:>6}",
            "req", "bytes", "pkts", "kernel", "conn", "ms"
        );
        let _ = writeln!(out, "  {:<18} {head} | {head}", "mode");
        let mut modes: Vec<&str> = rows
            .iter()
            .filter(|r| r.site == site)
            .map(|r| r.mode.as_str())
            .collect();
        modes.dedup();
        for mode in modes {
            let cell = |test: &str| match rows
                .iter()
                .find(|r| r.site == site && r.mode == mode && r.test == test)
            {
                Some(r) => {
                    let (lo, hi) = r.kernel.packets.range();
                    format!(
                        "{:>5} {:>9} {:>5} {:>13} {:>4} {:>6.1}",
                        r.requests,
                        thousands(r.bytes()),
                        r.packets,
                        format!("{} ({lo}–{hi})", r.kernel.packets.median),
                        r.connections,
                        r.time.complete_ms.median
                    )
                }
                None => format!("{:>46}", "—"),
            };
            let _ = writeln!(out, "  {mode:<18} {} | {}", cell("first"), cell("validate"));
        }
    }
    out
}
