//! The `analyze` summary on the terminal: counts and bytes by type, references, the broken
//! ones first.

use std::fmt::Write;

use super::style::{bold, TextStyle, Verbosity};
use crate::inventory::Inventory;
use crate::report::format::{plural, thousands};
use crate::site::FileKind;

/// How many broken references the summary lists before "and N more".
pub const TOP_BROKEN: usize = 10;

/// The `analyze` summary: counts and bytes by type, references, top broken references.
pub fn inventory(inv: &Inventory, style: &TextStyle) -> String {
    let mut out = String::new();
    let files = inv.pages + inv.resources;
    let _ = writeln!(
        out,
        "{}: {} page{}, {} other file{}, {} bytes",
        bold(&inv.site, style),
        inv.pages,
        plural(inv.pages),
        inv.resources,
        plural(inv.resources),
        thousands(inv.bytes)
    );
    if !inv.symlinks.is_empty() {
        let _ = writeln!(
            out,
            "  and {} symbolic link{} inside the site (what they lead to is counted once)",
            inv.symlinks.len(),
            plural(inv.symlinks.len())
        );
    }
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
    if !inv.broken_references.is_empty() && style.verbosity != Verbosity::Quiet {
        let _ = writeln!(out);
        let limit = if style.verbosity == Verbosity::Verbose {
            usize::MAX
        } else {
            TOP_BROKEN
        };
        let _ = writeln!(out, "  {}", bold("broken references", style));
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
    if style.verbosity == Verbosity::Verbose && !inv.orphans.is_empty() {
        let _ = writeln!(out);
        let _ = writeln!(out, "  {}", bold("orphans", style));
        for o in &inv.orphans {
            let _ = writeln!(out, "    {o}");
        }
    }
    out
}
