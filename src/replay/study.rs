//! The 1998 HTTP-vs-HTTPS study (Goldberg, Buff, Schmitt, "A Comparison of HTTP and HTTPS
//! Performance") redone: single GETs of documents of given sizes — 1 to 20 KiB and 40 to
//! 100 KiB in the study — over HTTP and over HTTPS with TLS 1.2 and TLS 1.3, full and resumed,
//! timed as the study timed them: from the request's write to the end of the response's read,
//! the connection's set-up (TCP, and TLS's handshake) measured apart.
//!
//! Each variant is an ordinary replay ([`super::replay`]: the HTTP/1.0 robot, `http10` or
//! `https10`) of a generated site of one document per size, one row per document. The link is
//! whatever the replay runs on: [`link_name`] is the one place that says which.

use serde::{Deserialize, Serialize};

use super::options::{Pages, ReplayOptions};
use super::place::run::replay;
use super::protocol::mode::Mode;
use super::protocol::Role;
use super::robot::Test;
use super::row::Spread;
use super::served::ServedSite;
use super::transport::tls::TlsVersion;
use crate::error::Result;

/// One way of fetching the documents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    Http,
    Tls12,
    Tls13,
    Tls12Resumed,
    Tls13Resumed,
}

impl Variant {
    pub const ALL: [Variant; 5] = [
        Variant::Http,
        Variant::Tls12,
        Variant::Tls13,
        Variant::Tls12Resumed,
        Variant::Tls13Resumed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Variant::Http => "http",
            Variant::Tls12 => "tls1.2",
            Variant::Tls13 => "tls1.3",
            Variant::Tls12Resumed => "tls1.2-resumed",
            Variant::Tls13Resumed => "tls1.3-resumed",
        }
    }

    /// The replay that measures this variant, from the run's options.
    fn options(self, base: &ReplayOptions) -> ReplayOptions {
        let mut opts = base.clone();
        opts.label = self.as_str().to_string();
        opts.pages = Pages::Each;
        opts.tests = vec![Test::First];
        let per_request = Mode::with_role(Role::ConnectionPerRequest)
            .expect("the mode table has a connection-per-request mode");
        opts.modes = vec![if self == Variant::Http {
            per_request
        } else {
            per_request
                .over_tls()
                .expect("the connection-per-request mode has a TLS twin")
        }];
        opts.tls.version = match self {
            Variant::Tls12 | Variant::Tls12Resumed => TlsVersion::V12,
            _ => TlsVersion::V13,
        };
        let resumed = matches!(self, Variant::Tls12Resumed | Variant::Tls13Resumed);
        opts.tls.resumption = resumed;
        opts.tls.warm = resumed;
        opts
    }
}

/// One document × variant, over the runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StudyRow {
    /// The document's size in bytes (the response body).
    pub size: u64,
    /// `http`, `tls1.2`, `tls1.3`, `tls1.2-resumed`, `tls1.3-resumed`.
    pub variant: String,
    /// From the request's write to the response's last byte: the study's timer.
    pub duration_ms: Spread,
    /// From the SYN until the request could be written: TCP's handshake, and TLS's.
    pub connect_ms: Spread,
    /// TCP payload bytes both ways, handshake included.
    pub bytes: u64,
    /// Packets by the model, under the paper's rule.
    pub packets: u64,
    /// Round trips the TLS handshake added (0 over HTTP).
    pub handshake_round_trips: u64,
}

/// The study's result.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Study {
    /// What carried the packets: `loopback` until the link emulator lands.
    pub link: String,
    /// How segmentation was made Ethernet-like (the replay's method).
    pub method: String,
    pub mss: u32,
    pub runs: usize,
    /// The AEAD of the HTTPS variants (`--cipher`).
    pub cipher: String,
    pub rows: Vec<StudyRow>,
}

/// The link the study ran on, in words. The replay has only the loopback (in a private
/// namespace) until the link emulator of issue 12 lands; its link option in [`ReplayOptions`]
/// is then what this names, and the study runs unchanged on `lan-1997` or a modern link.
pub fn link_name(_opts: &ReplayOptions) -> String {
    "loopback".to_string()
}

/// Parses `1k..20k,40k,60k,80k,100k`: sizes in bytes, `k` = 1024; `A..B` counts from `A` to
/// `B` in steps of `A`.
pub fn parse_sizes(spec: &str) -> std::result::Result<Vec<u64>, String> {
    let size = |text: &str| -> std::result::Result<u64, String> {
        let t = text.trim().to_ascii_lowercase();
        let (digits, unit) = match t.strip_suffix('k') {
            Some(d) => (d, 1024),
            None => (t.as_str(), 1),
        };
        match digits.parse::<u64>() {
            Ok(n) if n > 0 && n * unit <= 16 << 20 => Ok(n * unit),
            _ => Err(format!(
                "{text:?}: a size is a positive number of bytes up to 16M, or of KiB with k (40k)"
            )),
        }
    };
    let mut sizes = Vec::new();
    for item in spec.split(',').filter(|s| !s.trim().is_empty()) {
        match item.split_once("..") {
            Some((from, to)) => {
                let (from, to) = (size(from)?, size(to)?);
                if to < from || (to - from) / from > 1000 {
                    return Err(format!(
                        "{item:?}: A..B needs A <= B and at most 1000 steps of A"
                    ));
                }
                sizes.extend((1..=to / from).map(|i| i * from));
            }
            None => sizes.push(size(item)?),
        }
    }
    sizes.sort_unstable();
    sizes.dedup();
    if sizes.is_empty() {
        return Err(format!(
            "{spec:?}: no size given (e.g. 1k..20k,40k,60k,80k,100k)"
        ));
    }
    Ok(sizes)
}

/// The document of `size` bytes the study fetches: HTML text, like the study's prefixes of
/// the HTTP specification, generated (the same bytes on every run).
pub fn document(size: u64) -> Vec<u8> {
    let head = format!("<html><head><title>A document of {size} bytes</title></head><body>\n");
    let tail = "</body></html>\n";
    let words = [
        "the",
        "protocol",
        "request",
        "response",
        "server",
        "client",
        "message",
        "header",
        "entity",
        "connection",
        "persistent",
        "cache",
        "method",
        "resource",
        "transfer",
    ];
    let mut body = String::new();
    let mut i = 0usize;
    while (head.len() + body.len() + tail.len()) < size as usize {
        if i.is_multiple_of(12) {
            body.push_str("<p>");
        }
        body.push_str(words[(i * 7 + i / 15) % words.len()]);
        body.push(if i % 12 == 11 { '\n' } else { ' ' });
        i += 1;
    }
    let mut out = format!("{head}{body}").into_bytes();
    out.truncate((size as usize).saturating_sub(tail.len()));
    out.extend_from_slice(tail.as_bytes());
    out.truncate(size as usize);
    out
}

fn doc_path(size: u64) -> String {
    format!("doc-{size:08}.html")
}

/// Runs every variant on the documents of `sizes`, with `base`'s runs, MSS, namespace and
/// cipher.
pub fn run(sizes: &[u64], base: &ReplayOptions) -> Result<Study> {
    let files = sizes.iter().map(|&s| (doc_path(s), document(s))).collect();
    let site = ServedSite::from_memory("document-sizes", files);
    let mut rows = Vec::new();
    let mut method = String::new();
    for variant in Variant::ALL {
        let replayed = replay(&site, &variant.options(base))?;
        method = replayed.method.name.clone();
        for row in replayed.rows {
            let Some(&size) = sizes.iter().find(|&&s| doc_path(s) == row.page) else {
                continue;
            };
            rows.push(StudyRow {
                size,
                variant: variant.as_str().to_string(),
                duration_ms: row.time.after_connect_ms.unwrap_or_default(),
                connect_ms: row.time.connect_ms,
                bytes: row.bytes(),
                packets: row.packets,
                handshake_round_trips: row.tls.as_ref().map_or(0, |t| t.handshake_round_trips),
            });
        }
    }
    Ok(Study {
        link: link_name(base),
        method,
        mss: base.mss,
        runs: base.runs.max(1),
        cipher: base.tls.cipher.as_str().to_string(),
        rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_as_the_study_listed_them() {
        let sizes = parse_sizes("1k..20k,40k,60k,80k,100k").unwrap();
        assert_eq!(sizes.len(), 24);
        assert_eq!(sizes[0], 1024);
        assert_eq!(sizes[19], 20 * 1024);
        assert_eq!(*sizes.last().unwrap(), 100 * 1024);
        assert_eq!(parse_sizes("500, 2k,500").unwrap(), vec![500, 2048]);
        for bad in ["", "0", "x", "20k..1k", "1..5000", "17000k"] {
            assert!(parse_sizes(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn documents_have_exactly_their_size_and_are_html() {
        for size in [1u64, 80, 1024, 40 * 1024 + 7] {
            let doc = document(size);
            assert_eq!(doc.len() as u64, size);
        }
        let doc = String::from_utf8(document(4096)).unwrap();
        assert!(doc.starts_with("<html>") && doc.ends_with("</body></html>\n"));
    }

    #[test]
    fn every_variant_fetches_every_document_and_https_costs_a_handshake_more() {
        let base = ReplayOptions {
            runs: 1,
            netns: false,
            ..ReplayOptions::default()
        };
        let sizes = [1024, 8 * 1024];
        let study = run(&sizes, &base).unwrap();
        assert_eq!(study.rows.len(), sizes.len() * Variant::ALL.len());
        let get = |variant: &str, size: u64| {
            study
                .rows
                .iter()
                .find(|r| r.variant == variant && r.size == size)
                .unwrap()
        };
        for size in sizes {
            let http = get("http", size);
            assert!(http.bytes > size, "the body and the heads");
            assert_eq!(http.handshake_round_trips, 0);
            assert_eq!(get("tls1.3", size).handshake_round_trips, 1);
            assert_eq!(get("tls1.2", size).handshake_round_trips, 2);
            assert_eq!(get("tls1.2-resumed", size).handshake_round_trips, 1);
            for v in ["tls1.2", "tls1.3"] {
                let (full, resumed) = (get(v, size), get(&format!("{v}-resumed"), size));
                assert!(full.bytes > http.bytes, "{v}");
                assert!(
                    resumed.bytes < full.bytes,
                    "{v}: no certificate when resumed"
                );
            }
            assert!(study.rows.iter().all(|r| r.duration_ms.runs == 1));
        }
        assert!(get("http", 8 * 1024).bytes > get("http", 1024).bytes);
    }
}
