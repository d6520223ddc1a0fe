//! The terminal summaries a person reads in ten seconds.

use std::fmt::Write;

use super::thousands;
use crate::config::{Config, Verbosity};
use crate::inventory::Inventory;
use crate::site::FileKind;

/// How many broken references the summary lists before "and N more".
const TOP_BROKEN: usize = 10;

fn bold(text: &str, config: &Config) -> String {
    if config.color {
        format!("\x1b[1m{text}\x1b[0m")
    } else {
        text.to_string()
    }
}

/// The `analyze` summary: counts and bytes by type, references, top broken references.
pub fn inventory(inv: &Inventory, config: &Config) -> String {
    let mut out = String::new();
    let files = inv.pages + inv.resources;
    let _ = writeln!(
        out,
        "{}: {} page{}, {} other file{}, {} bytes",
        bold(&inv.site, config),
        inv.pages,
        plural(inv.pages),
        inv.resources,
        plural(inv.resources),
        thousands(inv.bytes)
    );
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "  {:<8} {:>7} {:>13} {:>6}",
        "type", "files", "bytes", "share"
    );
    for kind in FileKind::ALL {
        if let Some(stats) = inv.by_type.get(kind.as_str()) {
            let share = if inv.bytes == 0 {
                0.0
            } else {
                100.0 * stats.bytes as f64 / inv.bytes as f64
            };
            let _ = writeln!(
                out,
                "  {:<8} {:>7} {:>13} {:>5.1}%",
                kind.as_str(),
                stats.count,
                thousands(stats.bytes),
                share
            );
        }
    }
    let _ = writeln!(
        out,
        "  {:<8} {:>7} {:>13}",
        "total",
        files,
        thousands(inv.bytes)
    );
    let _ = writeln!(out);
    let fetched: usize = inv
        .documents
        .iter()
        .map(|d| d.references.iter().filter(|r| r.fetched).count())
        .sum();
    let _ = writeln!(
        out,
        "  references {} ({} fetched, {} followed) · external links {} · broken {} · orphans {} · problems {}",
        inv.references,
        fetched,
        inv.references - fetched,
        inv.external_links.len(),
        inv.broken_references.len(),
        inv.orphans.len(),
        inv.problems.len()
    );
    if !inv.broken_references.is_empty() && config.verbosity != Verbosity::Quiet {
        let _ = writeln!(out);
        let limit = if config.verbosity == Verbosity::Verbose {
            usize::MAX
        } else {
            TOP_BROKEN
        };
        let _ = writeln!(out, "  {}", bold("broken references", config));
        for b in inv.broken_references.iter().take(limit) {
            let _ = writeln!(out, "    {} → {}: {}", b.page, b.reference, b.reason);
        }
        if inv.broken_references.len() > limit {
            let _ = writeln!(
                out,
                "    … and {} more (--verbose or --json lists them all)",
                inv.broken_references.len() - limit
            );
        }
    }
    if config.verbosity == Verbosity::Verbose && !inv.orphans.is_empty() {
        let _ = writeln!(out);
        let _ = writeln!(out, "  {}", bold("orphans", config));
        for o in &inv.orphans {
            let _ = writeln!(out, "    {o}");
        }
    }
    out
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
