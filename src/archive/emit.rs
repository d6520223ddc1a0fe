//! `--emit-wacz FILE`: the rewritten site written back as a new, self-contained WACZ that
//! ReplayWeb.page and pywb replay. Each file is a `response` record carrying the headers
//! webdiet's server sends for it (ReplayWeb.page's loader ignores `conversion` records, so
//! the derived content is not one), dated at the rewrite (`WARC-Date`: it is not a capture),
//! with a `metadata://` record beside it saying where it came from: the original record and
//! digest, the transform, and how it was verified. What the site did not rewrite is copied in,
//! not referred to: the captured redirects and errors of its host, and the third-party
//! captures its pages show. The input is never touched; the file follows the output rules of
//! `--out` (not an input, not over a file webdiet did not write without `--force`, written
//! through a temporary name and renamed).

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use url::Url;

use super::cdxj::{self, Line};
use super::package::{self, Package};
use super::stamp::Stamp;
use super::wacz::Page;
use super::warc::{self, Record, Writer};
use super::{body, names, ArchiveSite, Emitted};
use crate::error::{Error, Result};
use crate::replay::ServedSite;
use crate::report::Report;
use crate::site::{self, CrawlOptions, Site};

/// Checks that `path` may be written: not one of the inputs (nor inside one), and an existing
/// file only when webdiet wrote it (its ZIP comment says so) or `force`.
pub fn check_target(path: &Path, inputs: &[&Path], force: bool) -> Result<()> {
    let refuse = |reason: String| Error::NamedOutputRefused {
        path: path.to_path_buf(),
        option: "--emit-wacz",
        reason,
    };
    if let Ok(target) = std::fs::canonicalize(path) {
        for input in inputs {
            if std::fs::canonicalize(input).is_ok_and(|i| i == target) {
                return Err(refuse(
                    "it is an input of this run, which webdiet never writes".to_string(),
                ));
            }
        }
    }
    for input in inputs {
        let ours = |p: &Path| force || written_by_webdiet(p);
        crate::output::check_named_file(path, "--emit-wacz", input, &ours)?;
    }
    Ok(())
}

/// Whether the file ends with the ZIP comment of a WACZ webdiet wrote.
pub fn written_by_webdiet(path: &Path) -> bool {
    let Ok((mut file, meta)) = crate::input::open_regular(path) else {
        return false;
    };
    let tail = package::SIGNATURE.len() as u64;
    if meta.len() < tail {
        return false;
    }
    use std::io::Seek;
    let mut end = vec![0; tail as usize];
    file.seek(std::io::SeekFrom::End(-(tail as i64))).is_ok()
        && file.read_exact(&mut end).is_ok()
        && end == package::SIGNATURE.as_bytes()
}

/// What the emitted WACZ is made from.
pub struct Source<'a> {
    /// The input as given (named in datapackage.json).
    pub input: &'a Path,
    /// The original site's tree (a directory, or the archive's materialised tree).
    pub original: &'a Site,
    /// The rewritten tree.
    pub rewritten: &'a Path,
    pub archive: Option<&'a ArchiveSite>,
    /// `--site-url`, for a directory input.
    pub site_url: Option<&'a Url>,
    /// The rewrite's report: which images were converted and how they were verified.
    pub report: &'a Report,
}

/// Writes the WACZ to `path`.
pub fn emit(path: &Path, src: &Source<'_>) -> Result<Emitted> {
    let temp_zip = crate::output::staging_name(path);
    let temp_warc = PathBuf::from(format!("{}.warc.gz", temp_zip.display()));
    let parent = temp_zip.parent().map(Path::to_path_buf).unwrap_or_default();
    crate::output::create_dir_all(&parent).map_err(|e| Error::io(&parent, e))?;
    let written = write_all(&temp_warc, &temp_zip, src);
    let _ = std::fs::remove_file(&temp_warc);
    match written {
        Ok(emitted) => {
            std::fs::rename(&temp_zip, path).map_err(|e| {
                let _ = std::fs::remove_file(&temp_zip);
                Error::io(path, e)
            })?;
            Ok(Emitted {
                path: path.display().to_string(),
                ..emitted
            })
        }
        Err(e) => {
            let _ = std::fs::remove_file(&temp_zip);
            Err(e)
        }
    }
}

fn write_all(temp_warc: &Path, temp_zip: &Path, src: &Source<'_>) -> Result<Emitted> {
    let now = Stamp::now();
    let origin = src
        .archive
        .map(|a| a.origin.clone())
        .or_else(|| src.site_url.cloned())
        .unwrap_or_else(|| Url::parse("http://localhost/").expect("constant URL"));
    let rewritten = site::crawl(src.rewritten, &CrawlOptions::default())?;
    let files: Vec<_> = rewritten
        .files
        .iter()
        .filter(|f| {
            !(f.path.ends_with(".gz") && rewritten.file(&f.path[..f.path.len() - 3]).is_some())
        })
        .cloned()
        .collect();
    let rewritten = rewritten.with_files(files);
    let (mut served, _) = ServedSite::from_site(&rewritten);
    served.set_modified(&original_mtimes(src.original, &served));
    let date = served.date();

    let file = std::fs::File::create(temp_warc).map_err(|e| Error::io(temp_warc, e))?;
    let mut w = Writer::new(std::io::BufWriter::new(file), true);
    let warc_name = "data.warc.gz";
    let io = |e: std::io::Error| Error::io(temp_warc, e);
    let info = warc::warcinfo_block(
        &format!("webdiet {}", env!("CARGO_PKG_VERSION")),
        &format!("the rewritten site of {}", src.input.display()),
    );
    w.warc(&Record {
        rtype: "warcinfo",
        uri: None,
        date: now,
        content_type: Some("application/warc-fields"),
        fields: vec![("WARC-Filename", warc_name.to_string())],
        block: &info,
        payload_at: None,
    })
    .map_err(io)?;

    let mut lines = Vec::new();
    let mut emitted = Emitted {
        path: String::new(),
        response_records: 0,
        metadata_records: 0,
        bytes: 0,
    };
    let provenance = Provenance::new(src);
    for (path, res) in served.files() {
        let content_type = content_type_of(src, &rewritten, path, res);
        let head = format!(
            "HTTP/1.1 200 OK\r\nDate: {date}\r\nServer: webdiet\r\nLast-Modified: {}\r\n\
             ETag: {}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
            res.last_modified,
            res.etag,
            res.body.len()
        );
        let mut block = head.clone().into_bytes();
        block.extend_from_slice(&res.body);
        let mut urls = vec![provenance.url_of(path, &origin)];
        if let Some(a) = src.archive {
            // Other URLs the capture made this file for (`/` for `/index.html`).
            for (url, p) in &a.tree.url_paths {
                if p == path && !urls.contains(url) && !a.tree.links.contains_key(p) {
                    urls.push(url.clone());
                }
            }
        }
        for url in urls {
            let mime = content_type
                .split([';', ' '])
                .next()
                .unwrap_or("")
                .to_string();
            let id = response(
                &mut w,
                &url,
                &block,
                head.len(),
                now,
                (200, Some(mime)),
                &mut lines,
            )
            .map_err(io)?;
            emitted.response_records += 1;
            let about = provenance.of(path, &url, &res.body);
            metadata(&mut w, &url, &id, &about, now, &mut lines, &mut emitted).map_err(io)?;
        }
    }
    if let Some(a) = src.archive {
        copy_captured(a, &mut w, now, &mut lines, &mut emitted).map_err(io)?;
    }
    w.flush().map_err(io)?;
    drop(w);

    let cdx = cdxj::sorted(&lines);
    let (pages, header) = pages_of(src, &provenance, &origin, now);
    let hash = input_hash(src.input);
    let description = format!(
        "The site of {} made lighter by webdiet (GIF → PNG/APNG, presentational markup → CSS), \
         each response beside a metadata:// record of its provenance.{}",
        src.input.display(),
        hash.map(|h| format!(" Input sha256:{h}."))
            .unwrap_or_default()
    );
    let bytes = package::write(
        temp_zip,
        &Package {
            warcs: &[(temp_warc, warc_name)],
            cdxj: &cdx,
            pages_header: header.as_deref(),
            pages: &pages,
            title: &format!(
                "{} (rewritten by webdiet)",
                crate::site::site_name(src.input)
            ),
            description: &description,
            created: now,
            main_page: pages.first(),
        },
    )
    .map_err(|e| Error::io(temp_zip, e))?;
    emitted.bytes = bytes;
    Ok(emitted)
}

/// The `Content-Type` a rewritten file is emitted with. The archive's own type is the truth for
/// a file the rewrite left of the same kind (an edited page, a recompressed PNG, a file it did
/// not touch): its captured `Content-Type`, whole, even one webdiet's extension map does not
/// know (`text/vnd.graphviz`, which it would serve as `application/octet-stream`). A file of a
/// new kind (`x.png` made of `x.gif`, the site's style sheet) takes the type webdiet serves it
/// with, and a page the charset its capture's HTTP header gave ([`super::charset_kept`]).
fn content_type_of(
    src: &Source<'_>,
    rewritten: &Site,
    path: &str,
    res: &crate::replay::served::Resource,
) -> String {
    let kind = |site: &Site| site.file(path).map(|f| f.kind);
    let captured = src
        .archive
        .and_then(|a| a.tree.files.get(path))
        .and_then(|f| f.content_type.as_deref())
        .map(str::trim)
        .filter(|t| !t.is_empty());
    match captured {
        Some(t) if kind(src.original).is_some() && kind(src.original) == kind(rewritten) => {
            t.to_string()
        }
        _ => match src
            .archive
            .and_then(|a| super::charset_kept(a, path, &res.body))
        {
            Some(cs) => format!("{}; charset={cs}", res.content_type),
            None => res.content_type.to_string(),
        },
    }
}

/// A `response` record of `block` (an HTTP head of `head_len` bytes and a body) at `url`, with
/// its CDXJ line (`status`, `mime`); returns its record ID.
fn response(
    w: &mut Writer<std::io::BufWriter<std::fs::File>>,
    url: &str,
    block: &[u8],
    head_len: usize,
    now: Stamp,
    (status, mime): (u16, Option<String>),
    lines: &mut Vec<Line>,
) -> std::io::Result<String> {
    let written = w.warc(&Record {
        rtype: "response",
        uri: Some(url),
        date: now,
        content_type: Some("application/http; msgtype=response"),
        fields: Vec::new(),
        block,
        payload_at: Some(head_len),
    })?;
    lines.push(Line {
        url: url.to_string(),
        date: now,
        mime,
        status: Some(status),
        digest: written.payload_digest,
        length: written.length,
        offset: written.offset,
        filename: "data.warc.gz".into(),
    });
    Ok(written.record_id)
}

/// The `metadata://` record beside the response for `url`: its provenance, as JSON.
fn metadata(
    w: &mut Writer<std::io::BufWriter<std::fs::File>>,
    url: &str,
    response_id: &str,
    about: &serde_json::Value,
    now: Stamp,
    lines: &mut Vec<Line>,
    emitted: &mut Emitted,
) -> std::io::Result<()> {
    let block = serde_json::to_vec_pretty(about).map_err(std::io::Error::other)?;
    let uri = format!("metadata://webdiet/{url}");
    let m = w.warc(&Record {
        rtype: "metadata",
        uri: Some(&uri),
        date: now,
        content_type: Some("application/json"),
        fields: vec![("WARC-Concurrent-To", response_id.to_string())],
        block: &block,
        payload_at: Some(0),
    })?;
    lines.push(Line {
        url: uri,
        date: now,
        mime: Some("application/json".into()),
        status: None,
        digest: m.payload_digest,
        length: m.length,
        offset: m.offset,
        filename: "data.warc.gz".into(),
    });
    emitted.metadata_records += 1;
    Ok(())
}

/// Each rewritten file's `Last-Modified`: its original's when the original has it, else the
/// original's newest (as the replay dates the rewritten site).
fn original_mtimes(original: &Site, served: &ServedSite) -> BTreeMap<String, u64> {
    let secs = |path: &str| {
        original
            .disk_path(path)
            .and_then(std::fs::metadata)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map(|d| d.as_secs())
    };
    let newest = original
        .files
        .iter()
        .filter_map(|f| secs(&f.path))
        .max()
        .unwrap_or(0);
    served
        .files()
        .map(|(p, _)| (p.to_string(), secs(p).unwrap_or(newest)))
        .collect()
}

/// The captured responses that are not files (redirects and errors of the site's host) and
/// the third-party captures, copied as they were captured.
fn copy_captured(
    a: &ArchiveSite,
    w: &mut Writer<std::io::BufWriter<std::fs::File>>,
    now: Stamp,
    lines: &mut Vec<Line>,
    emitted: &mut Emitted,
) -> std::io::Result<()> {
    let mut entries: Vec<(String, usize)> = a
        .tree
        .responses
        .values()
        .map(|r| (r.url.clone(), r.entry))
        .collect();
    let host = super::surt::host_key(a.origin.as_str());
    for c in a.chosen.values() {
        let e = &a.index.entries[c.entry];
        if super::surt::host_key(&e.uri) != host && c.payload.is_ok() {
            entries.push((e.uri.clone(), c.entry));
        }
    }
    for (url, at) in entries {
        let chosen = &a.index.entries[at];
        let payload = a
            .chosen
            .get(&chosen.key)
            .and_then(|c| c.payload.as_ref().ok())
            .map_or(chosen, |&p| &a.index.entries[p]);
        let mut block = Vec::new();
        if body::copy_block(&a.index, payload, &mut block).is_err() {
            continue;
        }
        let (status, mime, head_len) = match super::http::parse_block_head(&block) {
            super::http::Parsed::Head(h) => (
                Some(h.status),
                h.get("content-type")
                    .map(|t| t.split([';', ' ']).next().unwrap_or("").to_string()),
                h.len,
            ),
            _ => continue,
        };
        let id = response(
            w,
            &url,
            &block,
            head_len,
            now,
            (status.unwrap_or(0), mime),
            lines,
        )?;
        emitted.response_records += 1;
        let about = serde_json::json!({
            "url": url,
            "transform": "copied",
            "detail": "the captured response, as captured (the rewrite changes only the site's own files)",
            "verification": "the block is the original's, byte for byte",
            "original": {
                "url": chosen.uri,
                "date": chosen.date.to_iso(),
                "record_id": chosen.record_id,
                "payload_record_id": payload.record_id,
                "payload_digest": payload.payload_digest,
                "status": status,
            },
            "software": format!("webdiet {}", env!("CARGO_PKG_VERSION")),
        });
        metadata(w, &url, &id, &about, now, lines, emitted)?;
    }
    Ok(())
}

/// The pages: the input's `pages.jsonl` when it has one (dates kept, as the curator wrote
/// them), else the entry pages dated now, the page a visit starts at first (it becomes
/// `mainPageURL`): an archive's start page ([`super::pages`]), a directory's index page.
fn pages_of(
    src: &Source<'_>,
    provenance: &Provenance<'_>,
    origin: &Url,
    now: Stamp,
) -> (Vec<Page>, Option<String>) {
    if let Some(a) = src.archive {
        if !a.index.pages.is_empty() {
            return (a.index.pages.clone(), a.index.pages_header.clone());
        }
        let pages = a
            .pages
            .iter()
            .map(|p| Page::new(&provenance.url_of(p, origin), now, None))
            .collect();
        return (pages, None);
    }
    let mut paths: Vec<&str> = src
        .original
        .files
        .iter()
        .filter(|f| f.kind == site::FileKind::Html)
        .map(|f| f.path.as_str())
        .collect();
    let index = site::resolve::Resolver::new(src.original, None).entry_page();
    if let Some(at) = index.and_then(|i| paths.iter().position(|p| *p == i)) {
        let first = paths.remove(at);
        paths.insert(0, first);
    }
    let pages = paths
        .into_iter()
        .map(|p| Page::new(&provenance.url_of(p, origin), now, None))
        .collect();
    (pages, None)
}

/// SHA-256 of the input file (none for a directory).
fn input_hash(input: &Path) -> Option<String> {
    let (file, meta) = crate::input::open_regular(input).ok()?;
    meta.is_file().then_some(())?;
    crate::digest::sha256_hex(std::io::BufReader::new(file))
        .ok()
        .map(|(h, _)| h)
}

/// Where each rewritten file came from.
struct Provenance<'a> {
    src: &'a Source<'a>,
    /// Rewritten path → the image row that made it.
    converted: BTreeMap<&'a str, &'a crate::report::ImageRow>,
}

impl<'a> Provenance<'a> {
    fn new(src: &'a Source<'a>) -> Self {
        let converted = src
            .report
            .images
            .iter()
            .filter(|r| r.to_path != r.path)
            .map(|r| (r.to_path.as_str(), r))
            .collect();
        Provenance { src, converted }
    }

    /// The URL of a rewritten file: its capture's, or one under the site's origin.
    fn url_of(&self, path: &str, origin: &Url) -> String {
        self.src
            .archive
            .and_then(|a| a.tree.files.get(path))
            .map(|f| f.url.clone())
            .unwrap_or_else(|| names::url_of(origin, path).to_string())
    }

    fn original_record(&self, path: &str) -> serde_json::Value {
        match self.src.archive.and_then(|a| a.tree.files.get(path)) {
            Some(f) => serde_json::json!({
                "url": f.url,
                "date": f.date.to_iso(),
                "record_id": f.record_id,
                "payload_record_id": f.payload_record_id,
                "payload_digest": f.payload_digest,
                "status": f.status,
                "content_type": f.content_type,
                "payload_bytes": f.payload_bytes,
            }),
            None if self.src.original.file(path).is_some() => serde_json::json!({
                "file": path,
            }),
            None => serde_json::Value::Null,
        }
    }

    fn of(&self, path: &str, url: &str, body: &[u8]) -> serde_json::Value {
        let (transform, original, detail, verification) = if let Some(row) =
            self.converted.get(path)
        {
            (
                format!("gif-to-{}", serde_json::to_value(row.format).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()),
                self.original_record(&row.path),
                row.reason.clone(),
                "lossless: decoded again and compared with the GIF pixel by pixel, frame by frame and delay by delay".to_string(),
            )
        } else if self.src.original.file(path).is_some() {
            let same = self.src.original.read(path).is_ok_and(|b| b == body);
            let markup = self
                .src
                .report
                .markup
                .as_ref()
                .and_then(|m| m.pages.iter().find(|p| p.path == path));
            let detail = match markup {
                Some(p) if p.changed => format!(
                    "presentational markup → CSS: {} constructs → {}; references to converted images renamed",
                    p.constructs_before, p.constructs_after
                ),
                _ if same => "byte for byte as captured".to_string(),
                _ => "references to converted images renamed".to_string(),
            };
            (
                if same { "unchanged" } else { "edited" }.to_string(),
                self.original_record(path),
                detail,
                if same {
                    "identical bytes".to_string()
                } else {
                    format!(
                        "every reference that resolved in the original resolves here ({} broken by the rewrite); the rendering is compared by `webdiet verify`",
                        self.src.report.rewrite.broken_by_rewrite.len()
                    )
                },
            )
        } else {
            (
                "new".to_string(),
                serde_json::Value::Null,
                "made by the rewrite (the site's shared style sheet)".to_string(),
                "every page that uses it resolves it".to_string(),
            )
        };
        serde_json::json!({
            "url": url,
            "file": path,
            "transform": transform,
            "detail": detail,
            "verification": verification,
            "original": original,
            "software": format!("webdiet {}", env!("CARGO_PKG_VERSION")),
        })
    }
}
