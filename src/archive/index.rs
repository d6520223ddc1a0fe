//! The one indexing pass: every record of every input file, with what choosing and reading a
//! capture needs (URL, date, type, status, MIME type, payload digest, revisit references,
//! file and offset), and nothing of its body. Files are scanned in parallel; memory grows with
//! the number of records, never with their size.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::record::{self, Found, RecordError, RecordType, Segment};
use super::stamp::Stamp;
use super::wacz::{self, Page};
use super::{record_format, surt};
use crate::error::{Error, Problem, Result};

/// One record, as the index keeps it.
#[derive(Debug, Clone)]
pub struct Entry {
    /// Which [`Index::segments`] holds it.
    pub segment: usize,
    pub offset: u64,
    pub length: u64,
    pub rtype: RecordType,
    pub record_id: Option<String>,
    pub uri: String,
    /// [`surt::key`] of `uri`.
    pub key: String,
    pub date: Stamp,
    /// The HTTP status, when the block is an HTTP response.
    pub status: Option<u16>,
    /// The media type without parameters: HTTP `Content-Type`, else the record's (`resource`).
    pub mime: String,
    pub payload_digest: Option<String>,
    pub refers_to: Option<String>,
    pub refers_to_uri: Option<String>,
    pub refers_to_date: Option<Stamp>,
    /// `WARC-Profile` of a revisit.
    pub profile: Option<String>,
    /// Bytes of the record's block (HTTP head and body as stored).
    pub block_len: u64,
}

/// What a revisit record says it repeats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// `…/revisit/identical-payload-digest` (WARC 1.0, 1.1, and the 0.18 draft's spelling), and
    /// `…/revisit/uri-agnostic-identical-payload-digest` (the Internet Archive's and pywb's
    /// URL-agnostic revisits: the original is a capture of another URL with the same payload).
    IdenticalPayload,
    NotModified,
    Unknown,
}

impl Entry {
    pub fn profile(&self) -> Profile {
        let p = self.profile.as_deref().unwrap_or("").to_ascii_lowercase();
        if p.ends_with("/revisit/identical-payload-digest")
            || p.ends_with("/revisit/uri-agnostic-identical-payload-digest")
        {
            Profile::IdenticalPayload
        } else if p.ends_with("/revisit/server-not-modified") {
            Profile::NotModified
        } else {
            Profile::Unknown
        }
    }

    /// A record a capture can be made of: a response or resource with a URL, or a revisit.
    pub fn is_capture(&self) -> bool {
        let web = self.uri.starts_with("http:") || self.uri.starts_with("https:");
        web && match self.rtype {
            RecordType::Response => self.status.is_some(),
            RecordType::Resource => true,
            RecordType::Revisit => true,
            _ => false,
        }
    }
}

/// Every record of every input.
#[derive(Debug, Default)]
pub struct Index {
    pub segments: Vec<Segment>,
    pub entries: Vec<Entry>,
    /// Pages the WACZ inputs list, in order.
    pub pages: Vec<Page>,
    /// The `pages.jsonl` header line of the first WACZ that has one.
    pub pages_header: Option<String>,
    /// Bad records, bad packages: each with where and why.
    pub problems: Vec<Problem>,
    /// Records read, per record type.
    pub types: BTreeMap<String, usize>,
    /// `datapackage.json` hashes that matched.
    pub wacz_verified: usize,
    /// `continuation` records seen (segmented records are reported, not joined).
    pub continuations: usize,
}

/// Indexes every input file (a WARC, an ARC, a WACZ), fatal only when a file cannot be opened
/// at all or is not an archive of a known kind.
pub fn build(inputs: &[PathBuf], budget: super::Budget) -> Result<Index> {
    let mut index = Index::default();
    for input in inputs {
        let meta = std::fs::metadata(input).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => Error::NotFound {
                path: input.clone(),
            },
            _ => Error::io(input, e),
        })?;
        if !meta.is_file() {
            return Err(Error::Invalid {
                path: input.clone(),
                message: format!("is {}, not an archive file", crate::input::kind_of(&meta)),
            });
        }
        if super::is_wacz(input) {
            let w = wacz::open(input, budget)?;
            index.segments.extend(w.segments);
            index.pages.extend(w.pages);
            if index.pages_header.is_none() {
                index.pages_header = w.pages_header;
            }
            index.problems.extend(w.problems);
            index.wacz_verified += w.verified;
        } else {
            let (syntax, gzip) = record_format(input).ok_or_else(|| Error::Invalid {
                path: input.clone(),
                message: "not a .warc, .warc.gz, .arc, .arc.gz or .wacz file".into(),
            })?;
            index.segments.push(Segment {
                path: input.clone(),
                name: input.display().to_string(),
                filename: file_name(input),
                start: 0,
                len: meta.len(),
                syntax,
                gzip,
            });
        }
    }
    let scanned: Vec<Scanned> = index
        .segments
        .par_iter()
        .enumerate()
        .map(|(i, seg)| scan_segment(i, seg))
        .collect();
    for (entries, problems, fatal) in scanned {
        index.entries.extend(entries);
        index.problems.extend(problems);
        if let Err(message) = fatal {
            index
                .problems
                .push(Problem::new("", "archive-unreadable", message));
        }
    }
    for e in &index.entries {
        *index.types.entry(e.rtype.as_str().to_string()).or_default() += 1;
        if e.rtype == RecordType::Continuation {
            index.continuations += 1;
        }
    }
    Ok(index)
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// What one segment's scan found: its records, its bad records, and why it stopped early.
type Scanned = (Vec<Entry>, Vec<Problem>, std::result::Result<(), String>);

fn scan_segment(i: usize, seg: &Segment) -> Scanned {
    let mut entries = Vec::new();
    let mut problems = Vec::new();
    let at = |offset: u64| format!("{}@{offset}", seg.name);
    let fatal = record::scan(seg, &mut |offset,
                                        found: std::result::Result<
        Found,
        RecordError,
    >| {
        match found {
            Ok(found) => {
                if let Some(Err(why)) = &found.http {
                    if found.header.rtype == RecordType::Response {
                        problems.push(Problem::new(
                            at(offset),
                            "archive-http-invalid",
                            format!("{}: {why}; the record is left out", found.header.uri),
                        ));
                    }
                }
                entries.push(entry_of(i, found));
            }
            Err(err) => problems.push(Problem::new(at(offset), err.code(), err.to_string())),
        }
    })
    .map_err(|e| format!("{}: {e}", seg.name));
    (entries, problems, fatal)
}

fn entry_of(segment: usize, found: Found) -> Entry {
    let h = &found.header;
    let http = found.http.and_then(|r| r.ok());
    let get = |n: &str| h.get(n).map(str::to_string);
    let bracket = |v: String| v.trim_start_matches('<').trim_end_matches('>').to_string();
    let mime = http
        .as_ref()
        .and_then(|h| h.media_type())
        .or_else(|| {
            (h.rtype != RecordType::Response || h.fields.is_empty())
                .then(|| h.content_type.as_deref().map(super::http::essence))
                .flatten()
        })
        .or_else(|| get("WARC-Identified-Payload-Type").map(|t| super::http::essence(&t)))
        .unwrap_or_default();
    Entry {
        segment,
        offset: found.offset,
        length: found.length,
        rtype: h.rtype.clone(),
        record_id: h.record_id.clone(),
        key: surt::key(&h.uri),
        uri: h.uri.clone(),
        date: h.date.unwrap_or_default(),
        status: http.as_ref().map(|h| h.status),
        mime,
        payload_digest: get("WARC-Payload-Digest"),
        refers_to: get("WARC-Refers-To").map(bracket),
        refers_to_uri: get("WARC-Refers-To-Target-URI").map(bracket),
        refers_to_date: get("WARC-Refers-To-Date").and_then(|d| Stamp::parse_warc(&d)),
        profile: get("WARC-Profile"),
        block_len: h.block_len,
    }
}
