//! The collection as Markdown: totals, the distribution of savings per site, the sites that
//! save most, the sample's estimate, the failures.

use std::fmt::Write;

use super::{largest_savings, pct, Collection, Histogram};
use crate::report::format::thousands;

pub fn render(c: &Collection) -> String {
    let s = &c.summary;
    let mut out = String::new();
    let _ = writeln!(out, "# webdiet: a collection of {} sites\n", c.units.len());
    let _ = writeln!(
        out,
        "{} sites measured, {} pages, {} files, {} bytes.\n",
        s.sites,
        thousands(s.pages),
        thousands(s.files),
        thousands(s.site_bytes.before)
    );
    let _ = writeln!(out, "## Totals\n");
    let _ = writeln!(out, "| figure | sites | before | after | saved |");
    let _ = writeln!(out, "|---|---:|---:|---:|---:|");
    for (name, m) in [
        ("site bytes (rewrite)", &s.site_bytes),
        ("first-visit bytes (loopback)", &s.visit_bytes),
        ("requests (loopback)", &s.requests),
        ("packets (loopback)", &s.packets),
    ] {
        let _ = writeln!(
            out,
            "| {name} | {} | {} | {} | {} ({}) |",
            m.sites,
            thousands(m.before),
            thousands(m.after),
            m.saved(),
            pct(m.saved(), m.before)
        );
    }
    let _ = writeln!(
        out,
        "\nDeflate (level 6) on the rewritten text would save {} bytes more.\n",
        thousands(s.deflate_saved_bytes.max(0) as u64)
    );
    let _ = writeln!(out, "## Savings per site\n");
    let _ = writeln!(
        out,
        "Sites per bin of the saving, in percent of the site's own figure.\n"
    );
    let _ = writeln!(
        out,
        "| saved | site bytes | first-visit bytes | requests | packets |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|---:|");
    for (i, label) in Histogram::labels().iter().enumerate() {
        let _ = writeln!(
            out,
            "| {label} | {} | {} | {} | {} |",
            s.site_bytes.histogram.counts[i],
            s.visit_bytes.histogram.counts[i],
            s.requests.histogram.counts[i],
            s.packets.histogram.counts[i]
        );
    }
    let top = largest_savings(c, 20);
    if !top.is_empty() {
        let _ = writeln!(out, "\n## Largest savings\n");
        let _ = writeln!(out, "| site | bytes | saved | packets before → after |");
        let _ = writeln!(out, "|---|---:|---:|---:|");
        for row in top {
            let packets = row
                .visit
                .as_ref()
                .map(|v| format!("{} → {}", v.before.packets, v.after.packets))
                .unwrap_or_else(|| "—".into());
            let _ = writeln!(
                out,
                "| {} | {} | {} ({}) | {packets} |",
                row.unit.replace('|', "\\|"),
                thousands(row.bytes),
                thousands(row.saved_bytes.max(0) as u64),
                pct(row.saved_bytes, row.bytes)
            );
        }
    }
    if let Some(e) = &c.sample_estimate {
        let _ = writeln!(out, "\n## The sample\n");
        let _ = writeln!(out, "{}.", super::terminal::sample_line(e));
    }
    if let Some(note) = super::reruns_note(c) {
        let _ = writeln!(out, "\n## Units run more than once\n\n{note}.");
    }
    let missing = c.missing();
    let _ = writeln!(out, "\n## Failures\n");
    if missing.is_empty() {
        let _ = writeln!(out, "None: every unit of the list has a report.");
    }
    for (_, unit, why) in missing {
        let _ = writeln!(out, "- `{unit}`: {}", why.unwrap_or("not run"));
    }
    out
}
