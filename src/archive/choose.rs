//! One capture per URL, and what it stands for: the capture closest to `--at` (the Wayback
//! Machine's rule) or else the latest, its revisit resolved to the record that holds the
//! payload, across every input file.
//!
//! Revisits (WARC 1.1 §6.7): `identical-payload-digest` (and the Internet Archive's and pywb's
//! `uri-agnostic-identical-payload-digest`, whose original is a capture of another URL) by
//! `WARC-Refers-To`, else by `WARC-Refers-To-Target-URI` and `WARC-Refers-To-Date`, else by
//! the payload digest alone (URL-agnostic, as Browsertrix's cross-crawl dedupe writes them,
//! any spelling of the digest); `server-not-modified`
//! (and a captured 304) by the latest earlier capture of the same URL that holds a body. A
//! revisit that cannot be resolved is a missing resource with its reason, never an empty file.
//! Both spellings of the profile URIs (1.0 and 1.1) are accepted (warcio wrote 1.0's into 1.1
//! files).

use std::collections::{BTreeMap, HashMap};

use super::index::{Entry, Index, Profile};
use super::record::RecordType;
use super::stamp::Stamp;

/// How a revisit found its payload.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Resolution {
    /// `WARC-Refers-To` named the record.
    RefersTo,
    /// `WARC-Refers-To-Target-URI` and `-Date` named it.
    TargetAndDate,
    /// A record with the same payload digest (any URL).
    Digest,
    /// The latest earlier capture of the same URL (`server-not-modified`, a captured 304).
    EarlierCapture,
}

/// The capture chosen for one URL.
#[derive(Debug, Clone)]
pub struct Chosen {
    /// The chosen record (maybe a revisit): its date, status and headers are the capture's.
    pub entry: usize,
    /// The record whose block holds the body: `entry` itself, or what its revisit names.
    pub payload: Result<usize, String>,
    /// How a revisit was resolved.
    pub resolution: Option<Resolution>,
    /// Captures of this URL in the inputs.
    pub captures: usize,
}

/// Chooses one capture per URL (SURT key) among the records that make captures.
pub fn choose(index: &Index, at: Option<Stamp>) -> BTreeMap<String, Chosen> {
    let mut by_key: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, e) in index.entries.iter().enumerate() {
        if e.is_capture() {
            by_key.entry(e.key.as_str()).or_default().push(i);
        }
    }
    let lookup = Lookup::new(index);
    by_key
        .into_iter()
        .map(|(key, captures)| {
            let entry = pick(&index.entries, &captures, at);
            let (payload, resolution) = lookup.payload_of(entry, &captures);
            (
                key.to_string(),
                Chosen {
                    entry,
                    payload,
                    resolution,
                    captures: captures.len(),
                },
            )
        })
        .collect()
}

/// The closest capture to `at` (the earlier one on a tie), or the latest (the later in the
/// files on a tie).
fn pick(entries: &[Entry], captures: &[usize], at: Option<Stamp>) -> usize {
    match at {
        Some(at) => *captures
            .iter()
            .min_by_key(|&&i| ((entries[i].date.0 - at.0).unsigned_abs(), entries[i].date))
            .expect("a group has a capture"),
        None => *captures
            .iter()
            .max_by_key(|&&i| (entries[i].date, i))
            .expect("a group has a capture"),
    }
}

/// Maps for resolving revisits.
struct Lookup<'a> {
    entries: &'a [Entry],
    by_id: HashMap<&'a str, usize>,
    by_uri_date: HashMap<(&'a str, Stamp), usize>,
    by_digest: HashMap<String, usize>,
}

fn holds_body(e: &Entry) -> bool {
    matches!(e.rtype, RecordType::Response | RecordType::Resource)
        && e.status.is_none_or(|s| s != 304)
}

impl<'a> Lookup<'a> {
    fn new(index: &'a Index) -> Self {
        let mut by_id = HashMap::new();
        let mut by_uri_date = HashMap::new();
        let mut by_digest = HashMap::new();
        for (i, e) in index.entries.iter().enumerate() {
            if !holds_body(e) {
                continue;
            }
            if let Some(id) = &e.record_id {
                by_id.insert(id.trim_start_matches('<').trim_end_matches('>'), i);
            }
            by_uri_date.entry((e.key.as_str(), e.date)).or_insert(i);
            if let Some(d) = &e.payload_digest {
                by_digest.entry(normal_digest(d)).or_insert(i);
            }
        }
        Lookup {
            entries: &index.entries,
            by_id,
            by_uri_date,
            by_digest,
        }
    }

    /// The record holding `chosen`'s body, or why there is none.
    fn payload_of(
        &self,
        chosen: usize,
        same_url: &[usize],
    ) -> (Result<usize, String>, Option<Resolution>) {
        let e = &self.entries[chosen];
        let not_modified = e.rtype == RecordType::Revisit && e.profile() == Profile::NotModified
            || e.status == Some(304);
        if not_modified {
            let earlier = same_url
                .iter()
                .copied()
                .filter(|&i| {
                    holds_body(&self.entries[i]) && self.entries[i].date <= e.date && i != chosen
                })
                .max_by_key(|&i| (self.entries[i].date, i));
            return match earlier {
                Some(i) => (Ok(i), Some(Resolution::EarlierCapture)),
                None => (
                    Err(format!(
                        "{} at {}: not modified, and no earlier capture of it holds a body",
                        if e.rtype == RecordType::Revisit {
                            "revisit"
                        } else {
                            "a 304 response"
                        },
                        e.date.to14()
                    )),
                    None,
                ),
            };
        }
        if e.rtype != RecordType::Revisit {
            return (Ok(chosen), None);
        }
        if e.profile() == Profile::Unknown {
            return (
                Err(format!(
                    "revisit with the profile {:?}, which webdiet does not know (WARC: a reader \
                     shall not interpret it)",
                    e.profile.as_deref().unwrap_or("(none)")
                )),
                None,
            );
        }
        if let Some(&i) = e.refers_to.as_deref().and_then(|id| self.by_id.get(id)) {
            return (Ok(i), Some(Resolution::RefersTo));
        }
        if let (Some(uri), Some(date)) = (&e.refers_to_uri, e.refers_to_date) {
            let key = super::surt::key(uri);
            if let Some(&i) = self.by_uri_date.get(&(key.as_str(), date)) {
                return (Ok(i), Some(Resolution::TargetAndDate));
            }
        }
        if let Some(&i) = e
            .payload_digest
            .as_deref()
            .and_then(|d| self.by_digest.get(&normal_digest(d)))
        {
            return (Ok(i), Some(Resolution::Digest));
        }
        let mut tried = Vec::new();
        if let Some(id) = &e.refers_to {
            tried.push(format!("WARC-Refers-To {id}"));
        }
        if let Some(uri) = &e.refers_to_uri {
            tried.push(format!("target {uri}"));
        }
        if let Some(d) = &e.payload_digest {
            tried.push(format!("digest {d}"));
        }
        (
            Err(format!(
                "revisit at {} names a record found in none of the inputs ({}); give the \
                 archive that holds it with --with",
                e.date.to14(),
                if tried.is_empty() {
                    "it names nothing".to_string()
                } else {
                    tried.join(", ")
                }
            )),
            None,
        )
    }
}

/// The key a payload digest is looked up by: one for every spelling of it (base32 or hex,
/// padded or not, any case), so that a revisit written by one tool finds the original written
/// by another.
fn normal_digest(d: &str) -> String {
    crate::digest::canonical(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(rtype: RecordType, uri: &str, date: &str, digest: &str) -> Entry {
        Entry {
            segment: 0,
            offset: 0,
            length: 0,
            rtype,
            record_id: None,
            uri: uri.to_string(),
            key: super::super::surt::key(uri),
            date: Stamp::parse14(date).unwrap(),
            status: Some(200),
            mime: "image/gif".into(),
            payload_digest: Some(digest.to_string()),
            refers_to: None,
            refers_to_uri: None,
            refers_to_date: None,
            profile: Some(
                "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest".into(),
            ),
            block_len: 0,
        }
    }

    #[test]
    fn a_revisit_finds_its_original_by_digest_whether_spelt_in_hex_or_base32() {
        // The original written by warcprox (hex), the revisit by another tool (base32), and
        // the other way round.
        let hex = "sha1:a9993e364706816aba3e25717850c26c9cd0d89d";
        let base32 = "sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5";
        for (original, revisit) in [(hex, base32), (base32, hex)] {
            let index = Index {
                entries: vec![
                    entry(
                        RecordType::Response,
                        "http://a.test/x.gif",
                        "19970101000000",
                        original,
                    ),
                    entry(
                        RecordType::Revisit,
                        "http://a.test/y.gif",
                        "19970201000000",
                        revisit,
                    ),
                ],
                ..Index::default()
            };
            let chosen = choose(&index, None);
            let y = &chosen[&super::super::surt::key("http://a.test/y.gif")];
            assert_eq!(y.payload, Ok(0), "{original} then {revisit}");
            assert_eq!(y.resolution, Some(Resolution::Digest));
        }
    }

    #[test]
    fn a_uri_agnostic_revisit_finds_its_original_at_another_url() {
        // As pywb's example-url-agnostic-revisit.warc.gz writes it: the revisit of
        // http://test@example.com/ names a response of http://example.iana.org/ (in another
        // file) by record ID, and by target URI and date.
        let digest = "sha1:B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A";
        let mut original = entry(
            RecordType::Response,
            "http://example.iana.org/",
            "20130702195402",
            digest,
        );
        original.record_id = Some("<urn:uuid:c0b8a812-1a11-4cd1-9189-58bc8eb6457f>".into());
        let mut revisit = entry(
            RecordType::Revisit,
            "http://test@example.com/",
            "20130729195151",
            "sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        );
        revisit.profile = Some(
            "http://netpreserve.org/warc/1.0/revisit/uri-agnostic-identical-payload-digest".into(),
        );
        revisit.refers_to_uri = Some("http://example.iana.org/".into());
        revisit.refers_to_date = Stamp::parse14("20130702195402");
        let by_target = revisit.clone();
        revisit.refers_to = Some("urn:uuid:c0b8a812-1a11-4cd1-9189-58bc8eb6457f".into());
        for (revisit, how) in [
            (revisit, Resolution::RefersTo),
            (by_target, Resolution::TargetAndDate),
        ] {
            let index = Index {
                entries: vec![revisit, original.clone()],
                ..Index::default()
            };
            let chosen = choose(&index, None);
            let page = &chosen[&super::super::surt::key("http://example.com/")];
            assert_eq!(page.payload, Ok(1));
            assert_eq!(page.resolution, Some(how));
        }
    }
}
