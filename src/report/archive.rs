//! The archive section of every report format (terminal, Markdown, HTML): what the WARC, ARC
//! or WACZ held, the captures chosen and their spread, what the site lacks (unresolved
//! revisits, captured errors), what it leads elsewhere to (redirects, third parties), and which
//! headers the rewritten site is served with differently. Each renderer reads only
//! [`ArchiveReport`].

use std::fmt::Write;

use crate::archive::ArchiveReport;

use super::html::esc;
use super::markdown::cell;
use super::thousands;

/// The facts, as (label, value) lines shared by the three formats.
fn facts(a: &ArchiveReport) -> Vec<(String, String)> {
    let records: Vec<String> = a.records.iter().map(|(t, n)| format!("{n} {t}")).collect();
    let mut out = vec![
        ("inputs".to_string(), a.inputs.join(", ")),
        ("records".to_string(), records.join(", ")),
        (
            "captures".to_string(),
            format!(
                "{} of {} URLs{}; {} URLs captured more than once",
                a.captures,
                a.urls,
                a.at.as_deref()
                    .map(|t| format!(", each the closest to {t}"))
                    .unwrap_or_else(|| ", the latest of each".to_string()),
                a.several_captures.len()
            ),
        ),
    ];
    if let (Some(from), Some(to)) = (&a.chosen_earliest, &a.chosen_latest) {
        out.push((
            "chosen set".to_string(),
            format!("{from} to {to} ({:.1} days apart)", a.chosen_spread_days),
        ));
    }
    out.push((
        "site".to_string(),
        format!(
            "{} files of {}; {} bytes as captured, {} bytes of payload ({} chunked, {} content-encoded)",
            a.files,
            a.site_url,
            thousands(a.wire_bytes),
            thousands(a.payload_bytes),
            a.chunked,
            a.content_encoded
        ),
    ));
    out.push((
        "entry pages".to_string(),
        format!("{} from {}", a.pages.len(), a.pages_source),
    ));
    if !a.revisits_resolved.is_empty() || !a.missing.is_empty() {
        let resolved: Vec<String> = a
            .revisits_resolved
            .iter()
            .map(|(how, n)| format!("{n} by {how}"))
            .collect();
        out.push((
            "revisits".to_string(),
            format!(
                "resolved {}; {} missing resources",
                if resolved.is_empty() {
                    "none".to_string()
                } else {
                    resolved.join(", ")
                },
                a.missing.len()
            ),
        ));
    }
    for m in &a.missing {
        out.push(("missing".to_string(), format!("{}: {}", m.url, m.reason)));
    }
    for r in &a.aliases {
        out.push((
            format!("redirect {}", r.status),
            format!(
                "{} → {}",
                r.url,
                r.location.as_deref().unwrap_or("(no Location)")
            ),
        ));
    }
    for e in &a.errors {
        out.push((format!("captured {}", e.status), e.url.clone()));
    }
    for t in &a.third_party {
        out.push((
            "third party".to_string(),
            format!(
                "{}: {} captures, {} bytes stored",
                t.host,
                t.captures,
                thousands(t.stored_bytes)
            ),
        ));
    }
    for r in &a.renamed {
        out.push(("renamed".to_string(), format!("{} → {}", r.url, r.path)));
    }
    for (path, cs) in &a.http_charsets {
        out.push(("HTTP charset".to_string(), format!("{path}: {cs}")));
    }
    if a.wacz_hashes_verified > 0 {
        out.push((
            "WACZ hashes".to_string(),
            format!("{} entries match datapackage.json", a.wacz_hashes_verified),
        ));
    }
    for h in &a.header_changes {
        out.push((
            format!("header {}", h.header),
            format!(
                "{} files served differently, e.g. {}: {:?} captured, {:?} served",
                h.files, h.example_path, h.captured, h.served
            ),
        ));
    }
    if let Some(e) = &a.emitted {
        out.push((
            "emitted WACZ".to_string(),
            format!(
                "{}: {} response and {} metadata records, {} bytes",
                e.path,
                e.response_records,
                e.metadata_records,
                thousands(e.bytes)
            ),
        ));
    }
    out
}

/// For the terminal.
pub fn text(a: &ArchiveReport) -> String {
    let mut s = String::from("\n  web archive\n");
    for (label, value) in facts(a) {
        let _ = writeln!(s, "  {label:<16} {value}");
    }
    s
}

/// A Markdown section.
pub fn markdown(a: &ArchiveReport) -> String {
    let mut s = String::from("### Web archive\n\n| | |\n|---|---|\n");
    for (label, value) in facts(a) {
        let _ = writeln!(s, "| {} | {} |", cell(&label), cell(&value));
    }
    s.push('\n');
    s
}

/// An HTML section.
pub fn html(a: &ArchiveReport) -> String {
    let mut s = String::from("<section><h2>Web archive</h2><table><tbody>");
    for (label, value) in facts(a) {
        let _ = write!(
            s,
            "<tr><th>{}</th><td>{}</td></tr>",
            esc(&label),
            esc(&value)
        );
    }
    s.push_str("</tbody></table></section>");
    s
}
