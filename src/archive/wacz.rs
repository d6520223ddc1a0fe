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

use super::record::Segment;
use super::stamp::Stamp;
use crate::error::{Error, Problem, Result};

/// The most bytes read of a small entry (`pages.jsonl`, `datapackage.json`).
const MAX_SMALL_ENTRY: u64 = 256 << 20;

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
    /// Entries whose hash `datapackage.json` gives and which matched it.
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

/// Opens a WACZ: lists its entries, checks names and hashes, reads its pages.
pub fn open(path: &Path) -> Result<Wacz> {
    let (file, _) = crate::input::open_regular(path).map_err(|e| Error::io(path, e.into()))?;
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
    let read_small = |name: &str| -> std::result::Result<Vec<u8>, String> {
        let (way, method) = names.get(name).ok_or("missing")?;
        let entry = archive.get_entry(*way).map_err(|e| e.to_string())?;
        let mut out = Vec::new();
        let limited = |r: Box<dyn Read + '_>, out: &mut Vec<u8>| {
            r.take(MAX_SMALL_ENTRY + 1)
                .read_to_end(out)
                .map_err(|e| e.to_string())
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
            other => return Err(format!("compression method {} is not read", other.as_u16())),
        };
        if out.len() as u64 > MAX_SMALL_ENTRY {
            return Err(format!("larger than {MAX_SMALL_ENTRY} bytes"));
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
            Err(why) => wacz.problems.push(Problem::new(
                format!("{shown}!{pages_file}"),
                "wacz-corrupt",
                why,
            )),
        }
    }

    match read_small("datapackage.json") {
        Ok(bytes) => check_hashes(&bytes, &names, &archive, &shown, &mut wacz),
        Err(why) => wacz.problems.push(Problem::new(
            format!("{shown}!datapackage.json"),
            "wacz-no-datapackage",
            format!("datapackage.json: {why}; the package's hashes were not checked"),
        )),
    }
    Ok(wacz)
}

fn read_pages(bytes: &[u8], wacz: &mut Wacz, shown: &str, main: bool) {
    for (n, line) in String::from_utf8_lossy(bytes).lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let value: serde_json::Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                wacz.problems.push(Problem::new(
                    shown,
                    "wacz-bad-page",
                    format!("line {}: not JSON: {e}", n + 1),
                ));
                continue;
            }
        };
        if value.get("format").is_some() && value.get("url").is_none() {
            if main && wacz.pages_header.is_none() {
                wacz.pages_header = Some(line.to_string());
            }
            continue;
        }
        match serde_json::from_value::<Page>(value) {
            Ok(page) => wacz.pages.push(page),
            Err(e) => wacz.problems.push(Problem::new(
                shown,
                "wacz-bad-page",
                format!("line {}: {e}", n + 1),
            )),
        }
    }
}

/// Checks each resource `datapackage.json` lists against the entry of that name: bytes and
/// SHA-256, streamed.
fn check_hashes(
    bytes: &[u8],
    names: &BTreeMap<String, (rawzip::ZipArchiveEntryWayfinder, CompressionMethod)>,
    archive: &ZipArchive<rawzip::FileReader>,
    shown: &str,
    wacz: &mut Wacz,
) {
    let package: serde_json::Value = match serde_json::from_slice(bytes) {
        Ok(v) => v,
        Err(e) => {
            wacz.problems.push(Problem::new(
                format!("{shown}!datapackage.json"),
                "wacz-bad-datapackage",
                format!("not JSON: {e}"),
            ));
            return;
        }
    };
    let resources = package
        .get("resources")
        .and_then(|r| r.as_array())
        .cloned()
        .unwrap_or_default();
    for resource in resources {
        let Some(name) = resource.get("path").and_then(|p| p.as_str()) else {
            continue;
        };
        let at = format!("{shown}!{name}");
        let Some((way, method)) = names.get(name) else {
            wacz.problems.push(Problem::new(
                at,
                "wacz-missing-entry",
                "datapackage.json lists it, and the package does not hold it",
            ));
            continue;
        };
        let Some(expected) = resource.get("hash").and_then(|h| h.as_str()) else {
            continue;
        };
        let hashed = archive
            .get_entry(*way)
            .map_err(|e| e.to_string())
            .and_then(|entry| {
                let reader: Box<dyn Read> = match *method {
                    CompressionMethod::STORE => Box::new(entry.reader()),
                    CompressionMethod::DEFLATE => Box::new(crate::deflate::stream::inflate_raw(
                        std::io::BufReader::new(entry.reader()),
                    )),
                    other => {
                        return Err(format!("compression method {} is not read", other.as_u16()))
                    }
                };
                crate::digest::sha256_hex(reader).map_err(|e| e.to_string())
            });
        match hashed {
            Ok((hex, len)) => {
                let declared = resource.get("bytes").and_then(|b| b.as_u64());
                let hash_ok = expected.eq_ignore_ascii_case(&format!("sha256:{hex}"))
                    || expected.eq_ignore_ascii_case(&hex);
                if !hash_ok {
                    wacz.problems.push(Problem::new(
                        at,
                        "wacz-hash-mismatch",
                        format!(
                            "datapackage.json says {expected}, the entry hashes to sha256:{hex}"
                        ),
                    ));
                } else if declared.is_some_and(|d| d != len) {
                    wacz.problems.push(Problem::new(
                        at,
                        "wacz-hash-mismatch",
                        format!(
                            "datapackage.json says {} bytes, the entry has {len}",
                            declared.unwrap_or(0)
                        ),
                    ));
                } else {
                    wacz.verified += 1;
                }
            }
            Err(why) => wacz.problems.push(Problem::new(at, "wacz-corrupt", why)),
        }
    }
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
