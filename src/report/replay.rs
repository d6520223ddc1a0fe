//! The replay section of the report: one row per site version, mode and test (medians over the
//! runs), and the terminal table that puts the 4 modes × 2 tests side by side, original vs
//! rewritten.

use std::fmt::Write;

use serde::{Deserialize, Serialize};

use super::thousands;

/// Smallest and largest value over the runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Range {
    pub min: u64,
    pub max: u64,
}

/// One mode × test of one site version. Counts are medians over `runs`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReplayRow {
    /// `original` or `rewritten`.
    pub site: String,
    /// The page visited, or `N pages` with `--all-pages`.
    pub page: String,
    /// `http10`, `persistent`, `pipelined` or `pipelined-deflate`.
    pub mode: String,
    /// `first` or `validate`.
    pub test: String,
    pub runs: usize,
    pub requests: u64,
    pub connections: u64,
    /// TCP payload bytes client → server.
    pub bytes_up: u64,
    /// TCP payload bytes server → client.
    pub bytes_down: u64,
    pub packets_up: u64,
    pub packets_down: u64,
    /// Packets under the paper's rule (nothing from the client's FIN on), both directions.
    pub packets: u64,
    pub packets_range: Range,
    pub data_segments_up: u64,
    pub data_segments_down: u64,
    /// Data segments both ways, over the runs: should not vary.
    pub data_segments_range: Range,
    /// The physical minimum for the same connections and bytes.
    pub min_packets: u64,
    /// `min_packets / packets` (1 = nothing wasted).
    pub efficiency: f64,
    /// 100 × (1 − bytes / (bytes + 40 × packets)).
    pub overhead_pct: f64,
    pub retransmits: u64,
    pub elapsed_ms: f64,
    /// [min, max] over the runs.
    pub elapsed_ms_range: [f64; 2],
    /// How Ethernet-like segmentation was obtained: `netns`, `userns+netns` or `tcp-maxseg`.
    pub method: String,
    pub mss: u32,
}

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
        "replay of {} — MSS {}, {} run(s) per cell, medians; method: {}",
        first.page, first.mss, first.runs, first.method
    );
    for site in sites {
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "  {site:<18} {:^40} | {:^40}",
            "first visit", "validation"
        );
        let _ = writeln!(
            out,
            "  {:<18} {:>5} {:>9} {:>5} {:>5} {:>4} {:>7} | {:>5} {:>9} {:>5} {:>5} {:>4} {:>7}",
            "mode",
            "req",
            "bytes",
            "pkts",
            "min",
            "conn",
            "ms",
            "req",
            "bytes",
            "pkts",
            "min",
            "conn",
            "ms"
        );
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
                Some(r) => format!(
                    "{:>5} {:>9} {:>5} {:>5} {:>4} {:>7.1}",
                    r.requests,
                    thousands(r.bytes_up + r.bytes_down),
                    r.packets,
                    r.min_packets,
                    r.connections,
                    r.elapsed_ms
                ),
                None => format!("{:>40}", "—"),
            };
            let _ = writeln!(out, "  {mode:<18} {} | {}", cell("first"), cell("validate"));
        }
    }
    out
}
