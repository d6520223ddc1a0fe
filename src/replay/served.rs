//! The site as the replay serves it: every file's bytes in memory with its validators and, for
//! text, its pre-compressed variants — computed once up front, as a server with
//! `gzip_static`/pre-compressed files would, never per request.
//!
//! A served site comes either from a crawled directory (the original) or from an in-memory map
//! of path → bytes (the rewritten site); both become the same [`ServedSite`]. The original of a
//! web archive is served as it was captured ([`ServedSite::serve_captured`]): each file with its
//! captured `Content-Type`, and the captured redirects and errors at their own URLs.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::compression::Coding;
use crate::deflate;
use crate::error::{Error, Problem, Result};
use crate::sim::paint::{Files, Speaks};
use crate::site::{name, FileKind, Site, SiteFile};

use super::http;

/// One file as the server sends it.
#[derive(Debug, Clone)]
pub struct Resource {
    pub body: Vec<u8>,
    /// The zlib-format body for `Content-Encoding: deflate`, when it is smaller; made on first
    /// use ([`Resource::deflated`]).
    pub(super) deflated: OnceLock<Option<Vec<u8>>>,
    /// The gzip-format body for `Content-Encoding: gzip`, when it is smaller.
    pub(super) gzipped: OnceLock<Option<Vec<u8>>>,
    /// The brotli body (level 5, what a server compresses on the fly) for
    /// `Content-Encoding: br`, when it is smaller; sent only by the modes that prefer it.
    pub(super) brotli: OnceLock<Option<Vec<u8>>>,
    /// Whether the body is text, which the server compresses (decided by the media type the
    /// resource was made with).
    text: bool,
    /// Webdiet's own (by the file's extension), or what a capture said.
    pub content_type: Cow<'static, str>,
    /// A response served as it was captured instead of as a file: its status and where it
    /// leads. Default: none (a 200 with webdiet's headers).
    pub captured: Option<CapturedHead>,
    /// A strong validator: length and a 64-bit hash of the bytes.
    pub etag: String,
    pub last_modified: String,
    /// When the file was last modified (its `Last-Modified`), to the second.
    pub modified: SystemTime,
}

/// The status line and `Location` of a captured response that is no file (a redirect, a 404).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CapturedHead {
    pub status: u16,
    pub reason: String,
    pub location: Option<String>,
    /// The request target on this site a redirect leads to (`/index.html`), when it leads to
    /// this site: what a client asks for next.
    pub follow: Option<String>,
}

/// A captured response to serve at a request target, as [`ServedSite::serve_captured`] takes it.
#[derive(Debug, Clone)]
pub struct CapturedResponse {
    /// `/path?query`, as a client asks for it.
    pub target: String,
    pub head: CapturedHead,
    pub content_type: Option<String>,
    pub body: Vec<u8>,
}

/// A site ready to be served and checked against.
#[derive(Debug, Clone)]
pub struct ServedSite {
    /// The file list, for URL resolution (`crate::site::resolve::Resolver`).
    pub site: Site,
    /// Where the files came from, when they are a directory on disk.
    pub dir: Option<PathBuf>,
    resources: BTreeMap<String, Resource>,
    /// Captured responses that are no file, by request target (an archive's original).
    captured: BTreeMap<String, Resource>,
}

impl ServedSite {
    /// Reads every file of a crawled site. Unreadable files are left out and listed.
    pub fn from_site(site: &Site) -> (Self, Vec<Problem>) {
        let mut resources = BTreeMap::new();
        let mut problems = Vec::new();
        let mut files = Vec::new();
        for file in &site.files {
            let disk = match site.disk_path(&file.path) {
                Ok(disk) => disk,
                Err(e) => {
                    problems.push(Problem::new(&file.path, "unsafe-name", e.to_string()));
                    continue;
                }
            };
            let body = match crate::input::read_limited(&disk, crate::input::MAX_SITE_FILE_BYTES) {
                Ok(body) => body,
                Err(e) => {
                    problems.push(Problem::new(&file.path, "unreadable", e.to_string()));
                    continue;
                }
            };
            let mtime = std::fs::metadata(&disk)
                .and_then(|m| m.modified())
                .unwrap_or(UNIX_EPOCH);
            files.push(SiteFile {
                bytes: body.len() as u64,
                ..file.clone()
            });
            resources.insert(file.path.clone(), Resource::new(&file.path, body, mtime));
        }
        let served = ServedSite {
            site: Site::from_files(site.root.clone(), files, Vec::new())
                .with_links(site.links.clone()),
            dir: Some(site.root.clone()),
            resources,
            captured: BTreeMap::new(),
        };
        (served, problems)
    }

    /// [`ServedSite::from_site`] of the files it would serve as text only (typed by name, as
    /// every resource is): all that the compression estimate reads.
    pub fn text_of(site: &Site) -> (Self, Vec<Problem>) {
        let text = site
            .files
            .iter()
            .filter(|f| http::is_text(crate::site::media_type(&f.path)))
            .cloned()
            .collect();
        Self::from_site(&site.with_files(text))
    }

    /// Serves an in-memory site (the rewritten one). `name` stands for its root in messages.
    pub fn from_memory(name: impl Into<PathBuf>, files: BTreeMap<String, Vec<u8>>) -> Self {
        // Whole seconds: HTTP dates have no finer resolution.
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| UNIX_EPOCH + Duration::from_secs(d.as_secs()))
            .unwrap_or(UNIX_EPOCH);
        let mut list = Vec::new();
        let mut resources = BTreeMap::new();
        for (path, body) in files {
            list.push(SiteFile {
                path: path.clone(),
                kind: FileKind::of_name(&path),
                bytes: body.len() as u64,
            });
            resources.insert(path.clone(), Resource::new(&path, body, now));
        }
        ServedSite {
            site: Site::from_files(name.into(), list, Vec::new()),
            dir: None,
            resources,
            captured: BTreeMap::new(),
        }
    }

    /// Serves the site as a web archive captured it: each file named in `types` with that
    /// `Content-Type` (charset and all), and each response in `responses` at its request
    /// target, with its captured status, `Location` and body.
    pub fn serve_captured(
        &mut self,
        types: &BTreeMap<String, String>,
        responses: Vec<CapturedResponse>,
    ) {
        for (path, res) in self.resources.iter_mut() {
            if let Some(t) = types.get(path) {
                res.content_type = Cow::Owned(t.clone());
            }
        }
        for r in responses {
            let mut res = Resource::new(&r.target, r.body, UNIX_EPOCH);
            res.deflated = OnceLock::from(None);
            res.gzipped = OnceLock::from(None);
            res.content_type = Cow::Owned(r.content_type.unwrap_or_default());
            res.captured = Some(r.head);
            self.captured.insert(r.target, res);
        }
    }

    /// A captured response at a request target (`/path?query`), if the site has one.
    pub fn captured_at(&self, target: &str) -> Option<&Resource> {
        self.captured.get(target)
    }

    /// The resource at a site path, as resolved by the `Resolver`.
    pub fn resource(&self, path: &str) -> Option<&Resource> {
        self.resources.get(path)
    }

    /// Every site path with its bytes.
    pub fn files(&self) -> impl Iterator<Item = (&str, &Resource)> {
        self.resources.iter().map(|(p, r)| (p.as_str(), r))
    }

    /// Compresses every text body the server may send (deflate, gzip, brotli 5), in
    /// parallel, once: a server does it before it serves ([`super::server::ServeContext::new`]),
    /// so that no replay times a compression, and a run that never serves (`--no-replay`)
    /// never pays for it.
    pub fn encode_all(&self) {
        use rayon::prelude::*;
        let all: Vec<&Resource> = self
            .resources
            .values()
            .chain(self.captured.values())
            .collect();
        all.par_iter().with_max_len(1).for_each(|r| r.encode());
    }

    /// The `Date` the replay's server sends: the newest `Last-Modified` of the site. A fixed,
    /// site-given date rather than the clock, so that HTTP/2's compressed headers (whose size
    /// depends on the date's digits through HPACK's Huffman code, and on whether it repeats) are
    /// the same on every run.
    pub fn date(&self) -> String {
        let newest = self
            .resources
            .values()
            .map(|r| r.modified)
            .max()
            .unwrap_or(UNIX_EPOCH);
        http::http_date(newest)
    }

    /// Dates this site's files like `original`'s: a file the original has keeps the
    /// original's `Last-Modified`, a new one gets the original's newest. The rewritten site
    /// was written seconds ago, file by file, so its own times would differ from run to run
    /// (and change how HPACK compresses the headers); the replay compares the two sites, not
    /// when they were written.
    pub fn dated_like(&mut self, original: &ServedSite) {
        let newest = original
            .resources
            .values()
            .map(|r| r.modified)
            .max()
            .unwrap_or(UNIX_EPOCH);
        for (path, res) in self.resources.iter_mut() {
            let modified = original.resource(path).map_or(newest, |o| o.modified);
            res.modified = modified;
            res.last_modified = http::http_date(modified);
        }
    }

    /// Each file's `Last-Modified`, in seconds since the epoch.
    pub fn modified(&self) -> BTreeMap<String, u64> {
        self.resources
            .iter()
            .map(|(p, r)| {
                let secs = r
                    .modified
                    .duration_since(UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs());
                (p.clone(), secs)
            })
            .collect()
    }

    /// Sets the `Last-Modified` of the files `modified` names (seconds since the epoch).
    pub fn set_modified(&mut self, modified: &BTreeMap<String, u64>) {
        for (path, res) in self.resources.iter_mut() {
            if let Some(&secs) = modified.get(path) {
                res.modified = UNIX_EPOCH + Duration::from_secs(secs);
                res.last_modified = http::http_date(res.modified);
            }
        }
    }

    /// Every text resource (HTML, CSS, scripts…) with its bytes: what deflate estimates cover.
    pub fn text_files(&self) -> impl Iterator<Item = (&str, &[u8])> {
        self.files()
            .filter(|(_, r)| http::is_text(&r.content_type))
            .map(|(p, r)| (p, r.body.as_slice()))
    }

    /// Writes the site to a directory (for the namespace child, which reads a directory):
    /// every file under its byte name ([`name::under`]), every link as a link, last.
    pub fn write_to(&self, dir: &std::path::Path) -> Result<()> {
        let create_parent = |target: &std::path::Path| match target.parent() {
            Some(parent) => std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e)),
            None => Ok(()),
        };
        let place = |path: &str| name::under(dir, path).map_err(|e| Error::io(dir, e.into()));
        for (path, res) in &self.resources {
            let target = place(path)?;
            create_parent(&target)?;
            std::fs::write(&target, &res.body).map_err(|e| Error::io(dir.join(path), e))?;
        }
        for link in &self.site.links {
            let target = place(&link.path)?;
            create_parent(&target)?;
            std::os::unix::fs::symlink(name::to_path(&link.target), &target)
                .map_err(|e| Error::io(dir.join(&link.path), e))?;
        }
        Ok(())
    }
}

impl Resource {
    /// The body to send, its `Content-Encoding` and its entity tag (one per variant), for a
    /// client that accepts deflate and/or gzip.
    pub fn variant(
        &self,
        accept_deflate: bool,
        accept_gzip: bool,
    ) -> (&[u8], Option<&'static str>, String) {
        let tagged = |suffix: &str| format!("{}-{suffix}\"", self.etag.trim_end_matches('"'));
        if accept_deflate {
            if let Some(body) = self.deflated() {
                return (body, Some("deflate"), tagged("deflate"));
            }
        }
        if accept_gzip {
            if let Some(body) = self.gzipped() {
                return (body, Some("gzip"), tagged("gzip"));
            }
        }
        (&self.body, None, self.etag.clone())
    }

    /// The body in `coding`, its token and its entity tag, when the resource has that variant.
    pub fn coded(&self, coding: Coding) -> Option<(&[u8], Option<&'static str>, String)> {
        let body = match coding {
            Coding::Brotli => self.brotli()?,
            // No mode offers zstd: it is estimated and pre-compressed, not replayed
            // (docs/modern-sites.md says why).
            Coding::Zstd => return None,
        };
        let etag = format!("{}-{}\"", self.etag.trim_end_matches('"'), coding.token());
        Some((body, Some(coding.token()), etag))
    }

    /// RFC 9110 §13.1: If-None-Match wins; If-Modified-Since only without it. `etag` is the
    /// chosen variant's.
    pub fn not_modified(
        &self,
        etag: &str,
        if_none_match: Option<&str>,
        if_modified_since: Option<&str>,
    ) -> bool {
        match (if_none_match, if_modified_since) {
            (Some(tags), _) => tags
                .split(',')
                .map(|t| t.trim().trim_start_matches("W/"))
                .any(|t| t == "*" || t == etag),
            (None, Some(since)) => since == self.last_modified,
            (None, None) => false,
        }
    }

    fn new(path: &str, body: Vec<u8>, mtime: SystemTime) -> Self {
        let content_type = Cow::Borrowed(crate::site::media_type(path));
        Resource {
            etag: format!("\"{:x}-{:016x}\"", body.len(), fnv1a(&body)),
            last_modified: http::http_date(mtime),
            modified: mtime,
            text: http::is_text(&content_type),
            body,
            deflated: OnceLock::new(),
            gzipped: OnceLock::new(),
            brotli: OnceLock::new(),
            content_type,
            captured: None,
        }
    }

    /// `coder(body)` when the body is text and the result is smaller.
    fn encoded<'a>(
        &self,
        cell: &'a OnceLock<Option<Vec<u8>>>,
        coder: impl FnOnce(&[u8]) -> Vec<u8>,
    ) -> Option<&'a [u8]> {
        cell.get_or_init(|| {
            self.text
                .then(|| coder(&self.body))
                .filter(|v| v.len() < self.body.len())
        })
        .as_deref()
    }

    /// The zlib-format body for `Content-Encoding: deflate` (level 6), when it is smaller.
    pub fn deflated(&self) -> Option<&[u8]> {
        self.encoded(&self.deflated, |b| deflate::zlib(b, deflate::SERVER_LEVEL))
    }

    /// The gzip-format body for `Content-Encoding: gzip` (level 6), when it is smaller.
    pub fn gzipped(&self) -> Option<&[u8]> {
        self.encoded(&self.gzipped, |b| deflate::gzip(b, deflate::SERVER_LEVEL))
    }

    /// The brotli body (level 5), when it is smaller.
    pub fn brotli(&self) -> Option<&[u8]> {
        self.encoded(&self.brotli, |b| Coding::Brotli.fast(b))
    }

    /// Makes every encoded body now, so that none is compressed while a replay is timed.
    fn encode(&self) {
        self.deflated();
        self.gzipped();
        self.brotli();
    }
}

/// FNV-1a, 64 bits: enough to tell versions of one file apart for an ETag.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The simulated browser reads a served site from memory.
impl Files for ServedSite {
    fn site(&self) -> &Site {
        &self.site
    }

    fn bytes(&self, path: &str) -> Option<Cow<'_, [u8]>> {
        self.resource(path)
            .map(|r| Cow::Borrowed(r.body.as_slice()))
    }

    fn sent(&self, path: &str, speaks: Speaks) -> Option<(u64, bool)> {
        let res = self.resource(path)?;
        let coded = match speaks {
            Speaks::H2Brotli => res.brotli(),
            _ => res.gzipped(),
        };
        Some(match coded {
            Some(c) => (c.len() as u64, true),
            None => (res.body.len() as u64, false),
        })
    }

    fn pixels(&self, path: &str) -> u64 {
        self.resource(path)
            .and_then(|r| crate::image::dimensions(&r.body))
            .map_or(0, |(w, h)| u64::from(w) * u64::from(h))
    }
}
