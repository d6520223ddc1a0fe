//! The collection on the terminal: totals, the distribution of savings per site, the sites
//! that save most, the sample's estimate, the failures.

use std::fmt::Write;
use std::path::Path;

use super::{largest_savings, pct, Collection, Histogram, Metric};
use crate::report::format::thousands;

pub fn render(c: &Collection, json: &Path) -> String {
    let s = &c.summary;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "webdiet merge: {} of {} sites ({} pages, {} files), {} bytes",
        s.sites,
        c.units.len(),
        thousands(s.pages),
        thousands(s.files),
        thousands(s.site_bytes.before)
    );
    let _ = writeln!(
        out,
        "  rewrite saves {} bytes ({}); deflate would save {} more",
        thousands(s.site_bytes.saved().max(0) as u64),
        pct(s.site_bytes.saved(), s.site_bytes.before),
        thousands(s.deflate_saved_bytes.max(0) as u64)
    );
    for (name, m) in [
        ("first-visit bytes", &s.visit_bytes),
        ("requests", &s.requests),
        ("packets", &s.packets),
    ] {
        if m.sites > 0 {
            let _ = writeln!(
                out,
                "  {name} (loopback, {} sites): {} → {} ({})",
                m.sites,
                thousands(m.before),
                thousands(m.after),
                pct(-m.saved(), m.before)
            );
        }
    }
    let _ = writeln!(out, "\n  bytes saved per site (sites per bin):");
    out.push_str(&bars(&s.site_bytes));
    if s.packets.sites > 0 {
        let _ = writeln!(out, "  packets saved per site:");
        out.push_str(&bars(&s.packets));
    }
    let top = largest_savings(c, 10);
    if !top.is_empty() {
        let _ = writeln!(out, "\n  largest savings:");
        for row in top {
            let _ = writeln!(
                out,
                "    {:>12} B  {:>6}  {}",
                thousands(row.saved_bytes.max(0) as u64),
                pct(row.saved_bytes, row.bytes),
                row.unit
            );
        }
    }
    if let Some(e) = &c.sample_estimate {
        out.push('\n');
        out.push_str(&format!("  {}\n", sample_line(e)));
    }
    if let Some(note) = super::reruns_note(c) {
        let _ = writeln!(out, "\n  {note}");
    }
    let missing = c.missing();
    if !missing.is_empty() {
        let _ = writeln!(out, "\n  units without a report: {}", missing.len());
        for (_, unit, why) in missing {
            let _ = writeln!(out, "    {unit}: {}", why.unwrap_or("not run"));
        }
    }
    let _ = writeln!(out, "\n  collection: {}", crate::error::shown(json));
    out
}

fn bars(m: &Metric) -> String {
    let most = m.histogram.counts.iter().copied().max().unwrap_or(0).max(1);
    let mut out = String::new();
    for (label, n) in Histogram::labels().iter().zip(&m.histogram.counts) {
        let width = (*n as usize * 30).div_ceil(most as usize);
        let _ = writeln!(out, "    {label:>8} {:<30} {n}", "█".repeat(width));
    }
    out
}

/// The sample's estimate in one sentence.
pub fn sample_line(e: &super::SampleEstimate) -> String {
    let interval = |ci: Option<(f64, f64)>, digits: usize| match ci {
        Some((lo, hi)) => format!(" (95% interval {lo:.digits$} to {hi:.digits$})"),
        None => " (one site: no interval)".into(),
    };
    match (e.mean_saved_ms, e.mean_saved_pct) {
        (Some(ms), pct) => format!(
            "sample (seed {}, {} of {} units timed over {}): time saved per first visit \
             {ms:.0} ms a site{}{}; one visit to every site of the list saves {:.0} s{}",
            e.seed,
            e.timed,
            e.population,
            e.link,
            interval(e.mean_saved_ms_ci95, 0),
            pct.map(|p| format!(", {p:.1}%{}", interval(e.mean_saved_pct_ci95, 1)))
                .unwrap_or_default(),
            e.total_saved_s.unwrap_or(0.0),
            interval(e.total_saved_s_ci95, 0),
        ),
        (None, _) => format!(
            "sample (seed {}, {} units over {}): no sampled site could be timed",
            e.seed, e.sampled, e.link
        ),
    }
}
