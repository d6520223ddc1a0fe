//! WACZ 1.x packages (a ZIP or ZIP64 file, rawzip): which entries hold records (`archive/`),
//! the curator's pages (`pages/*.jsonl`), and the package's own hashes (`datapackage.json`),
//! checked entry by entry with every mismatch reported. Entry names are checked like tar
//! paths: an absolute name, a `..` or `.` segment, a backslash or a NUL byte makes an entry
//! unsafe, and it is reported and left unread. The WARCs inside are STORE entries (the spec
//! says so, for random access), so their records are read in place, by offset, from the
//! WACZ file itself.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

use rawzip::{CompressionMethod, ZipArchive, RECOMMENDED_BUFFER_SIZE};

use super::budget::Budget;
use super::record::Segment;
use super::stamp::Stamp;
use crate::error::{Error, Problem, Result};

/// The most problems of one kind listed for one package; the rest are counted.
const MAX_LISTED: usize = 20;

/// A page the curator listed.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Page {
    pub url: String,
    /// RFC 3339 as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ts: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

impl Page {
    /// A page as a WACZ lists it, with the `id` and `title` readers expect of every line.
    pub fn new(url: &str, ts: Stamp, title: Option<&str>) -> Page {
        Page {
            url: url.to_string(),
            ts: Some(ts.to_iso()),
            title: Some(title.unwrap_or(url).to_string()),
            id: Some(
                crate::digest::sha1_warc(format!("{url} {}", ts.to14()).as_bytes())[5..21]
                    .to_ascii_lowercase(),
            ),
        }
    }

    pub fn stamp(&self) -> Option<Stamp> {
        self.ts.as_deref().and_then(Stamp::parse_warc)
    }
}

/// What a WACZ holds.
#[derive(Debug, Default)]
pub struct Wacz {
    /// Its WARC (and ARC) entries, as segments of the WACZ file.
    pub segments: Vec<Segment>,
    /// `pages/pages.jsonl` (and `extraPages.jsonl`) in order, the header line left out.
    pub pages: Vec<Page>,
    /// The header line of `pages/pages.jsonl`, as written.
    pub pages_header: Option<String>,
    /// Unsafe names, hash mismatches, unreadable entries.
    pub problems: Vec<Problem>,
    /// Entries whose hash `datapackage.json` gives and which matched it (each once, however
    /// often it is listed).
    pub verified: usize,
}

/// Whether a ZIP entry name is safe to act on: relative, `/`-separated, without `.`, `..`,
/// empty segments (but a trailing `/` for directories), backslashes or NUL bytes.
pub fn safe_name(raw: &[u8]) -> std::result::Result<&str, String> {
    let name = std::str::from_utf8(raw).map_err(|_| "the name is not UTF-8".to_string())?;
    if name.is_empty() {
        return Err("empty name".into());
    }
    if name.starts_with('/') {
        return Err("absolute name".into());
    }
    if name.contains('\\') || name.contains('\0') {
        return Err("backslash or NUL in the name".into());
    }
    let body = name.strip_suffix('/').unwrap_or(name);
    for segment in body.split('/') {
        match segment {
            ".." => return Err("`..` in the name climbs out of the package".into()),
            "." | "" => return Err("empty or `.` segment in the name".into()),
            _ => {}
        }
    }
    Ok(name)
}

/// Opens a WACZ: lists its entries, checks names and hashes, reads its pages; its small
/// entries within `budget` ([`Budget::small_entry`]).
pub fn open(path: &Path, budget: Budget) -> Result<Wacz> {
    let (file, meta) = crate::input::open_regular(path).map_err(|e| Error::io(path, e.into()))?;
    let small_cap = budget.small_entry(meta.len());
    let mut buffer = vec![0u8; RECOMMENDED_BUFFER_SIZE];
    let archive = ZipArchive::from_file(file, &mut buffer).map_err(|e| Error::Invalid {
        path: path.to_path_buf(),
        message: format!("not a readable ZIP file, so not a WACZ: {e}"),
    })?;
    let shown = path.display().to_string();
    let mut wacz = Wacz::default();
    // name → (wayfinder, method, is_dir)
    let mut names = BTreeMap::new();
    let expected = archive.entries_hint();
    let mut entries = archive.entries(&mut buffer);
    let mut seen = 0u64;
    loop {
        let entry = match entries.next_entry() {
            Ok(Some(entry)) => entry,
            Ok(None) => break,
            Err(e) => {
                wacz.problems.push(Problem::new(
                    &shown,
                    "wacz-corrupt",
                    format!("the ZIP central directory is damaged after {seen} entries: {e}"),
                ));
                break;
            }
        };
        seen += 1;
        if seen > expected {
            wacz.problems.push(Problem::new(
                &shown,
                "wacz-corrupt",
                format!("the central directory holds more entries than the {expected} it declares"),
            ));
            break;
        }
        let raw = entry.file_path();
        let raw: &[u8] = raw.as_ref();
        match safe_name(raw) {
            Ok(name) if !entry.is_dir() => {
                if names
                    .insert(
                        name.to_string(),
                        (entry.wayfinder(), entry.compression_method()),
                    )
                    .is_some()
                {
                    wacz.problems.push(Problem::new(
                        format!("{shown}!{name}"),
                        "wacz-duplicate-entry",
                        "the package holds two entries of this name; the last is read",
                    ));
                }
            }
            Ok(_) => {}
            Err(why) => wacz.problems.push(Problem::new(
                format!("{shown}!{}", String::from_utf8_lossy(raw).escape_debug()),
                "wacz-unsafe-name",
                format!("{why}; entry left unread"),
            )),
        }
    }
    // A small entry's bytes, or the problem's code and why.
    let read_small = |name: &str| -> std::result::Result<Vec<u8>, (&'static str, String)> {
        let corrupt = |e: String| ("wacz-corrupt", e);
        let (way, method) = names.get(name).ok_or(("wacz-corrupt", "missing".into()))?;
        let entry = archive
            .get_entry(*way)
            .map_err(|e| corrupt(e.to_string()))?;
        let mut out = Vec::new();
        let limited = |r: Box<dyn Read + '_>, out: &mut Vec<u8>| {
            r.take(small_cap + 1)
                .read_to_end(out)
                .map_err(|e| corrupt(e.to_string()))
        };
        match *method {
            CompressionMethod::STORE => {
                limited(Box::new(entry.verifying_reader(entry.reader())), &mut out)?
            }
            CompressionMethod::DEFLATE => limited(
                Box::new(entry.verifying_reader(crate::deflate::stream::inflate_raw(
                    std::io::BufReader::new(entry.reader()),
                ))),
                &mut out,
            )?,
            other => {
                return Err(corrupt(format!(
                    "compression method {} is not read",
                    other.as_u16()
                )))
            }
        };
        if out.len() as u64 > small_cap {
            return Err((
                "wacz-over-budget",
                format!(
                    "inflates to more than {small_cap} bytes, the budget of a package of {} \
                     bytes (--archive-budget); left unread",
                    meta.len()
                ),
            ));
        }
        Ok(out)
    };

    for (name, (way, method)) in &names {
        let Some(inner) = name.strip_prefix("archive/") else {
            continue;
        };
        let Some((syntax, gzip)) = super::record_format(Path::new(inner)) else {
            continue;
        };
        if *method != CompressionMethod::STORE {
            wacz.problems.push(Problem::new(
                format!("{shown}!{name}"),
                "wacz-compressed-entry",
                "the WARC is compressed inside the ZIP (WACZ requires STORE), so its records \
                 cannot be read by offset; left unread",
            ));
            continue;
        }
        match archive.get_entry(*way) {
            Ok(entry) => {
                let (start, end) = entry.compressed_data_range();
                wacz.segments.push(Segment {
                    path: path.to_path_buf(),
                    name: format!("{shown}!{name}"),
                    filename: inner.to_string(),
                    start,
                    len: end - start,
                    syntax,
                    gzip,
                });
            }
            Err(e) => wacz.problems.push(Problem::new(
                format!("{shown}!{name}"),
                "wacz-corrupt",
                format!("entry unreadable: {e}"),
            )),
        }
    }
    if wacz.segments.is_empty() {
        wacz.problems.push(Problem::new(
            &shown,
            "wacz-no-archive",
            "no WARC or ARC file under archive/",
        ));
    }

    for pages_file in ["pages/pages.jsonl", "pages/extraPages.jsonl"] {
        if !names.contains_key(pages_file) {
            if pages_file == "pages/pages.jsonl" {
                wacz.problems.push(Problem::new(
                    &shown,
                    "wacz-no-pages",
                    "no pages/pages.jsonl (WACZ requires it); the HTML 200 responses are the pages",
                ));
            }
            continue;
        }
        match read_small(pages_file) {
            Ok(bytes) => read_pages(
                &bytes,
                &mut wacz,
                &format!("{shown}!{pages_file}"),
                pages_file == "pages/pages.jsonl",
            ),
            Err((code, why)) => {
                wacz.problems
                    .push(Problem::new(format!("{shown}!{pages_file}"), code, why))
            }
        }
    }

    match read_small("datapackage.json") {
        Ok(bytes) => check_hashes(&bytes, &names, &archive, &shown, &mut wacz),
        Err((code, why)) => wacz.problems.push(Problem::new(
            format!("{shown}!datapackage.json"),
            if code == "wacz-over-budget" {
                code
            } else {
                "wacz-no-datapackage"
            },
            format!("datapackage.json: {why}; the package's hashes were not checked"),
        )),
    }
    Ok(wacz)
}

fn read_pages(bytes: &[u8], wacz: &mut Wacz, shown: &str, main: bool) {
    let mut pages = Vec::new();
    let mut header = None;
    let mut problems = Capped::new(&mut wacz.problems, shown);
    for (n, line) in String::from_utf8_lossy(bytes).lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let value: serde_json::Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                let why = format!("line {}: not JSON: {e}", n + 1);
                problems.push(shown.to_string(), "wacz-bad-page", why);
                continue;
            }
        };
        if value.get("format").is_some() && value.get("url").is_none() {
            if main && header.is_none() {
                header = Some(line.to_string());
            }
            continue;
        }
        match serde_json::from_value::<Page>(value) {
            Ok(page) => pages.push(page),
            Err(e) => {
                let why = format!("line {}: {e}", n + 1);
                problems.push(shown.to_string(), "wacz-bad-page", why)
            }
        }
    }
    drop(problems);
    wacz.pages.extend(pages);
    if wacz.pages_header.is_none() {
        wacz.pages_header = header;
    }
}

/// What `datapackage.json` says of one entry: its name, SHA-256 and size.
#[derive(Debug, serde::Deserialize)]
struct Resource {
    path: Option<String>,
    hash: Option<String>,
    bytes: Option<u64>,
}

/// Reads `datapackage.json`'s `resources` one at a time, handing each to a function, so that
/// a package that lists millions of resources is not held in memory: only those the package
/// holds are kept (see [`check_hashes`]).
struct EachResource<'f, F>(&'f mut F);

impl<'de, F: FnMut(Resource)> serde::de::DeserializeSeed<'de> for EachResource<'_, F> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> std::result::Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, F: FnMut(Resource)> serde::de::Visitor<'de> for EachResource<'_, F> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a data package (an object with a list of resources)")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(
        self,
        mut map: A,
    ) -> std::result::Result<(), A::Error> {
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            if key == "resources" {
                map.next_value_seed(Resources(&mut *self.0))?;
            } else {
                map.next_value::<serde::de::IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

struct Resources<'f, F>(&'f mut F);

impl<'de, F: FnMut(Resource)> serde::de::DeserializeSeed<'de> for Resources<'_, F> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> std::result::Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, F: FnMut(Resource)> serde::de::Visitor<'de> for Resources<'_, F> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a list of resources")
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(
        self,
        mut seq: A,
    ) -> std::result::Result<(), A::Error> {
        while let Some(r) = seq.next_element::<Resource>()? {
            (self.0)(r);
        }
        Ok(())
    }
}

/// Problems of one kind, the first [`MAX_LISTED`] listed and the rest counted in one more.
struct Capped<'a> {
    problems: &'a mut Vec<Problem>,
    shown: &'a str,
    counts: BTreeMap<&'static str, usize>,
}

impl<'a> Capped<'a> {
    fn new(problems: &'a mut Vec<Problem>, shown: &'a str) -> Self {
        Capped {
            problems,
            shown,
            counts: BTreeMap::new(),
        }
    }

    fn push(&mut self, path: String, code: &'static str, message: String) {
        let n = self.counts.entry(code).or_default();
        *n += 1;
        if *n <= MAX_LISTED {
            self.problems.push(Problem::new(path, code, message));
        }
    }
}

impl Drop for Capped<'_> {
    fn drop(&mut self) {
        for (code, n) in &self.counts {
            if *n > MAX_LISTED {
                self.problems.push(Problem::new(
                    self.shown,
                    code,
                    format!(
                        "{} more of these in the package, not listed",
                        n - MAX_LISTED
                    ),
                ));
            }
        }
    }
}

/// Checks each resource `datapackage.json` lists against the entry of that name: bytes and
/// SHA-256, streamed, each entry hashed once however often it is listed.
fn check_hashes(
    bytes: &[u8],
    names: &BTreeMap<String, (rawzip::ZipArchiveEntryWayfinder, CompressionMethod)>,
    archive: &ZipArchive<rawzip::FileReader>,
    shown: &str,
    wacz: &mut Wacz,
) {
    // The resources the package holds, by entry name; the others are reported as they come.
    let mut listed: BTreeMap<String, Vec<Resource>> = BTreeMap::new();
    let mut problems = Capped::new(&mut wacz.problems, shown);
    let mut each = |r: Resource| {
        let Some(path) = r.path.as_deref() else {
            return;
        };
        if names.contains_key(path) {
            listed.entry(path.to_string()).or_default().push(r);
        } else {
            problems.push(
                format!("{shown}!{path}"),
                "wacz-missing-entry",
                "datapackage.json lists it, and the package does not hold it".into(),
            );
        }
    };
    let mut json = serde_json::Deserializer::from_slice(bytes);
    let parsed = serde::de::DeserializeSeed::deserialize(EachResource(&mut each), &mut json)
        .and_then(|()| json.end());
    if let Err(e) = parsed {
        problems.push(
            format!("{shown}!datapackage.json"),
            "wacz-bad-datapackage",
            format!("not a data package: {e}"),
        );
        return;
    }
    let mut verified = 0;
    for (name, resources) in &listed {
        let at = format!("{shown}!{name}");
        let Some((way, method)) = names.get(name) else {
            continue;
        };
        if resources.len() > 1 {
            problems.push(
                at.clone(),
                "wacz-duplicate-resource",
                format!(
                    "datapackage.json lists it {} times; it is hashed once",
                    resources.len()
                ),
            );
        }
        if resources.iter().all(|r| r.hash.is_none()) {
            continue;
        }
        let (hex, len) = match hash_entry(archive, *way, *method) {
            Ok(hashed) => hashed,
            Err(why) => {
                problems.push(at, "wacz-corrupt", why);
                continue;
            }
        };
        let mut matched = true;
        for r in resources {
            let Some(expected) = r.hash.as_deref() else {
                continue;
            };
            let hash_ok = expected.eq_ignore_ascii_case(&format!("sha256:{hex}"))
                || expected.eq_ignore_ascii_case(&hex);
            matched &= hash_ok && r.bytes.is_none_or(|d| d == len);
            if !hash_ok {
                problems.push(
                    at.clone(),
                    "wacz-hash-mismatch",
                    format!("datapackage.json says {expected}, the entry hashes to sha256:{hex}"),
                );
            } else if let Some(declared) = r.bytes.filter(|&d| d != len) {
                problems.push(
                    at.clone(),
                    "wacz-hash-mismatch",
                    format!("datapackage.json says {declared} bytes, the entry has {len}"),
                );
            }
        }
        verified += usize::from(matched);
    }
    drop(problems);
    wacz.verified += verified;
}

/// The SHA-256 (hex) and size of an entry's uncompressed bytes, streamed.
fn hash_entry(
    archive: &ZipArchive<rawzip::FileReader>,
    way: rawzip::ZipArchiveEntryWayfinder,
    method: CompressionMethod,
) -> std::result::Result<(String, u64), String> {
    let entry = archive.get_entry(way).map_err(|e| e.to_string())?;
    let reader: Box<dyn Read> = match method {
        CompressionMethod::STORE => Box::new(entry.reader()),
        CompressionMethod::DEFLATE => Box::new(crate::deflate::stream::inflate_raw(
            std::io::BufReader::new(entry.reader()),
        )),
        other => return Err(format!("compression method {} is not read", other.as_u16())),
    };
    crate::digest::sha256_hex(reader).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_names_are_checked_like_tar_paths() {
        assert_eq!(
            safe_name(b"archive/data.warc.gz"),
            Ok("archive/data.warc.gz")
        );
        assert!(safe_name(b"archive/../../etc/passwd")
            .unwrap_err()
            .contains(".."));
        assert!(safe_name(b"/etc/passwd").is_err());
        assert!(safe_name(b"archive\\x.warc").is_err());
        assert!(safe_name(b"archive//x.warc").is_err());
        assert!(safe_name(b"./x").is_err());
        assert!(safe_name(b"\xff.warc").is_err());
        assert_eq!(safe_name(b"pages/"), Ok("pages/"));
    }
}
