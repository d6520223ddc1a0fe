//! What an archive input was, for the report: records read, captures per URL and the time
//! spread of the chosen set, revisits resolved and not, redirects, captured errors, third-party
//! hosts, both sizes (as captured and as payload), and which headers the rewritten site's
//! server sends differently from the capture.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::report::format::thousands;

/// The archive part of a report (`report.archive`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ArchiveReport {
    /// The archive files read, the input first, then `--with`.
    pub inputs: Vec<String>,
    /// `--at`, as 14 digits, when given.
    pub at: Option<String>,
    /// The site's own origin (the host of the first entry page); other hosts are third parties.
    pub site_url: String,
    /// Records read, per WARC type.
    pub records: BTreeMap<String, usize>,
    /// Distinct URLs (SURT keys) with at least one capture, on the site and off it.
    pub urls: usize,
    /// Capture records (responses, resources, revisits).
    pub captures: usize,
    /// URLs captured more than once, most captures first (at most 50).
    pub several_captures: Vec<UrlCaptures>,
    /// The earliest and latest capture of the chosen set, and the days between them.
    pub chosen_earliest: Option<String>,
    pub chosen_latest: Option<String>,
    pub chosen_spread_days: f64,
    /// Files the site is made of.
    pub files: usize,
    /// Their bytes as captured (HTTP head and body as sent: chunked, compressed) and as payload.
    pub wire_bytes: u64,
    pub payload_bytes: u64,
    /// Files whose body was stored in chunks (as sent), and whose body was sent with a
    /// Content-Encoding.
    pub chunked: usize,
    /// Files whose head says `Transfer-Encoding: chunked` and whose body was stored already
    /// de-chunked: read as stored, as warcio and pywb read them.
    #[serde(default)]
    pub chunked_as_stored: usize,
    pub content_encoded: usize,
    /// Revisits resolved, by how.
    pub revisits_resolved: BTreeMap<String, usize>,
    /// Captures that are missing resources (an unresolved revisit, an unreadable body).
    pub missing: Vec<Missing>,
    /// Redirects (3xx): aliases of where they lead.
    pub aliases: Vec<Alias>,
    /// Captured 4xx and 5xx responses: broken references.
    pub errors: Vec<Alias>,
    /// Hosts other than the site's, with their captures and stored bytes.
    pub third_party: Vec<ThirdParty>,
    /// URLs whose file has another name (a query string, a name that did not fit its type).
    pub renamed: Vec<Renamed>,
    /// Where the entry pages came from: `pages.jsonl` or `html-200-responses`.
    pub pages_source: String,
    /// The entry pages, the one a visit starts at first.
    pub pages: Vec<String>,
    /// The page a visit starts at (the audit's headline page, the emitted WACZ's
    /// `mainPageURL`), and the rule that chose it; `null` when the site has no page.
    #[serde(default)]
    pub start_page: Option<StartPage>,
    /// Pages whose charset the capture's HTTP header gives.
    pub http_charsets: BTreeMap<String, String>,
    /// datapackage.json hashes that matched.
    pub wacz_hashes_verified: usize,
    /// Headers the rewritten site is served with that differ from the capture's, per header:
    /// how many files, and an example.
    pub header_changes: Vec<HeaderChange>,
    /// The WACZ written with `--emit-wacz`.
    pub emitted: Option<Emitted>,
}

/// The page a visit of an archive's site starts at, and why that one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StartPage {
    /// Its site path.
    pub path: String,
    /// The rule that chose it: `pages-jsonl`, `site-root`, `root-index` or `first-html-200`.
    pub rule: String,
    /// The rule in words.
    pub why: String,
}

impl StartPage {
    pub fn new(path: &str, rule: &str, why: &str) -> Self {
        StartPage {
            path: path.to_string(),
            rule: rule.to_string(),
            why: why.to_string(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UrlCaptures {
    pub url: String,
    pub captures: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Missing {
    pub url: String,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Alias {
    pub url: String,
    pub status: u16,
    pub location: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThirdParty {
    pub host: String,
    pub captures: usize,
    pub stored_bytes: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Renamed {
    pub url: String,
    pub path: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeaderChange {
    pub header: String,
    pub files: usize,
    pub example_path: String,
    pub captured: String,
    pub served: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Emitted {
    pub path: String,
    pub response_records: usize,
    pub metadata_records: usize,
    pub bytes: u64,
}

/// What the report says of an archive, as (label, value) lines: each report format (terminal,
/// Markdown, HTML) lays them out its own way.
pub fn facts(a: &ArchiveReport) -> Vec<(String, String)> {
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
    if a.chunked_as_stored > 0 {
        out.push((
            "stored de-chunked".to_string(),
            format!(
                "{} files say Transfer-Encoding: chunked and were stored de-chunked; read as stored",
                a.chunked_as_stored
            ),
        ));
    }
    out.push((
        "entry pages".to_string(),
        format!("{} from {}", a.pages.len(), a.pages_source),
    ));
    if let Some(start) = &a.start_page {
        out.push((
            "start page".to_string(),
            format!("{}: {}", start.path, start.why),
        ));
    }
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
