//! The collection as one HTML page: totals, the distribution of savings per site (bars), the
//! sites that save most, the sample's estimate, the failures.

use std::fmt::Write;

use super::{largest_savings, pct, Collection, Histogram, Metric};
use crate::report::format::html as esc;
use crate::report::format::thousands;

pub fn render(c: &Collection) -> String {
    let s = &c.summary;
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>webdiet: a collection of {} sites</title><style>\
         body{{font-family:sans-serif;max-width:60em;margin:2em auto}}\
         table{{border-collapse:collapse}}td,th{{padding:.2em .6em;border-bottom:1px solid #ddd}}\
         td.n{{text-align:right}}.bar{{background:#2a7;height:.8em;display:inline-block}}\
         </style></head><body>\n",
        c.units.len()
    );
    let _ = writeln!(
        out,
        "<h1>A collection of {} sites</h1><p>{} sites measured, {} pages, {} files, {} bytes.</p>",
        c.units.len(),
        s.sites,
        thousands(s.pages),
        thousands(s.files),
        thousands(s.site_bytes.before)
    );
    out.push_str("<h2>Totals</h2><table><tr><th>figure</th><th>sites</th><th>before</th><th>after</th><th>saved</th></tr>\n");
    for (name, m) in [
        ("site bytes (rewrite)", &s.site_bytes),
        ("first-visit bytes (loopback)", &s.visit_bytes),
        ("requests (loopback)", &s.requests),
        ("packets (loopback)", &s.packets),
    ] {
        let _ = writeln!(
            out,
            "<tr><td>{name}</td><td class=n>{}</td><td class=n>{}</td><td class=n>{}</td>\
             <td class=n>{} ({})</td></tr>",
            m.sites,
            thousands(m.before),
            thousands(m.after),
            m.saved(),
            pct(m.saved(), m.before)
        );
    }
    let _ = writeln!(
        out,
        "</table><p>Deflate (level 6) on the rewritten text would save {} bytes more.</p>",
        thousands(s.deflate_saved_bytes.max(0) as u64)
    );
    for (name, m) in [
        ("site bytes", &s.site_bytes),
        ("requests", &s.requests),
        ("packets", &s.packets),
    ] {
        let _ = writeln!(out, "<h2>Savings per site: {name}</h2>");
        out.push_str(&bars(m));
    }
    let top = largest_savings(c, 20);
    if !top.is_empty() {
        out.push_str(
            "<h2>Largest savings</h2><table><tr><th>site</th><th>bytes</th><th>saved</th></tr>\n",
        );
        for row in top {
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td class=n>{}</td><td class=n>{} ({})</td></tr>",
                esc(&row.unit),
                thousands(row.bytes),
                thousands(row.saved_bytes.max(0) as u64),
                pct(row.saved_bytes, row.bytes)
            );
        }
        out.push_str("</table>\n");
    }
    if let Some(e) = &c.sample_estimate {
        let _ = writeln!(
            out,
            "<h2>The sample</h2><p>{}.</p>",
            esc(&super::terminal::sample_line(e))
        );
    }
    if let Some(note) = super::reruns_note(c) {
        let _ = writeln!(
            out,
            "<h2>Units run more than once</h2><p>{}.</p>",
            esc(&note)
        );
    }
    out.push_str("<h2>Failures</h2>\n");
    let missing = c.missing();
    if missing.is_empty() {
        out.push_str("<p>None: every unit of the list has a report.</p>\n");
    } else {
        out.push_str("<ul>\n");
        for (_, unit, why) in missing {
            let _ = writeln!(
                out,
                "<li><code>{}</code>: {}</li>",
                esc(unit),
                esc(why.unwrap_or("not run"))
            );
        }
        out.push_str("</ul>\n");
    }
    out.push_str("</body></html>\n");
    out
}

fn bars(m: &Metric) -> String {
    let most = m.histogram.counts.iter().copied().max().unwrap_or(0).max(1);
    let mut out = String::from("<table>\n");
    for (label, n) in Histogram::labels().iter().zip(&m.histogram.counts) {
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td><span class=bar style=\"width:{}em\"></span></td><td class=n>{n}</td></tr>",
            esc(label),
            *n as f64 * 20.0 / most as f64
        );
    }
    out.push_str("</table>\n");
    out
}
