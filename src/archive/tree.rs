//! The virtual site made real: each chosen capture of the site's host written as a file of a
//! private directory (payload decoded, dated by its `Last-Modified` or its capture), redirects
//! as symbolic links to where they lead, names adjusted to their media types ([`super::names`]).
//! Every later stage then reads a directory, as it does for a site on disk; what the capture
//! knows besides the bytes (status, `Content-Type`, charset, dates, records) stays beside it,
//! keyed by site path, for the replay and the reports.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;
use url::Url;

use super::body;
use super::budget::Budget;
use super::choose::{Chosen, Resolution};
use super::http::HttpHead;
use super::index::Index;
use super::names;
use super::stamp::Stamp;
use crate::error::Problem;
use crate::site::name;

/// What the capture says about one file of the site.
#[derive(Debug, Clone)]
pub struct FileCapture {
    pub url: String,
    pub status: u16,
    /// `Content-Type` as captured.
    pub content_type: Option<String>,
    pub charset: Option<String>,
    /// `Content-Encoding` as the server sent it (also read from `x-orig-content-encoding`).
    pub sent_encoding: Option<String>,
    /// The body was stored in chunks (and de-chunked to make the file).
    pub chunked: bool,
    /// The head says chunked, and the body was stored de-chunked (read as stored).
    pub chunked_as_stored: bool,
    pub date: Stamp,
    /// The chosen record and the record that held the body (the same unless a revisit).
    pub record_id: Option<String>,
    pub payload_record_id: Option<String>,
    pub payload_digest: Option<String>,
    pub resolution: Option<Resolution>,
    /// Bytes as captured (HTTP head and body as sent), and of the decoded payload.
    pub wire_bytes: u64,
    pub payload_bytes: u64,
    pub captures: usize,
    /// The capture's HTTP head fields that the rewritten site's headers are compared with
    /// (`archive::COMPARED`, a private list; the others are not kept: a few hundred bytes a
    /// file).
    pub fields: Vec<(String, String)>,
}

/// A captured response that is not a file: a redirect, a 404, a 5xx.
#[derive(Debug, Clone)]
pub struct CapturedResponse {
    pub url: String,
    pub status: u16,
    pub reason: String,
    pub content_type: Option<String>,
    pub location: Option<String>,
    pub body: Vec<u8>,
    pub date: Stamp,
    pub record_id: Option<String>,
    /// The chosen record (for copying it into a derived WACZ).
    pub entry: usize,
}

/// The materialised site.
#[derive(Debug, Default)]
pub struct Tree {
    pub files: BTreeMap<String, FileCapture>,
    /// Symbolic links made: link path → file path (a redirect's URL, or a URL whose name was
    /// adjusted to its type).
    pub links: BTreeMap<String, String>,
    /// Responses that are no file, by request target (`/path?query`).
    pub responses: BTreeMap<String, CapturedResponse>,
    /// Captured URL → site path, for every file and link.
    pub url_paths: BTreeMap<String, String>,
    /// Which chosen record each file's body came from (index into the entries).
    pub payload_entry: BTreeMap<String, usize>,
    pub renamed: Vec<(String, String)>,
    pub unresolved: Vec<(String, String)>,
    pub problems: Vec<Problem>,
}

/// A capture planned as a file.
struct Planned<'a> {
    url: Url,
    chosen: &'a Chosen,
    path: String,
    mime: String,
    /// The name the URL itself has, when the file's differs (a link is made there).
    alias: Option<String>,
    /// A directory URL (`/`, `/docs/`): named after the explicit URLs, and dropped when its
    /// body is the one its index page already has (`/` and `/index.html` captured alike).
    dir_url: bool,
    /// The name it wanted and did not get (another URL had it).
    wanted: Option<String>,
}

/// Writes the chosen on-site captures into `root`, their decoded bodies (and the captured
/// responses that are no file, held in memory) totalling at most `budget` bytes, each within
/// [`Budget::record`] of its record's size; past either, a capture is left out and reported
/// (`archive-over-budget`).
pub fn materialise(
    index: &Index,
    chosen: &BTreeMap<String, Chosen>,
    on_site: &dyn Fn(&Url) -> bool,
    root: &Path,
    budget: u64,
) -> Tree {
    let mut tree = Tree::default();
    let mut planned: Vec<Planned<'_>> = Vec::new();
    let mut redirects = Vec::new();
    for c in chosen.values() {
        let e = &index.entries[c.entry];
        let Ok(url) = Url::parse(&e.uri) else {
            continue;
        };
        if !on_site(&url) {
            continue;
        }
        let payload = match &c.payload {
            Ok(p) => &index.entries[*p],
            Err(why) => {
                tree.unresolved.push((e.uri.clone(), why.clone()));
                continue;
            }
        };
        let status = match (e.status, payload.status) {
            (Some(304), Some(s)) | (None, Some(s)) => s,
            (Some(s), _) => s,
            (None, None) => 200,
        };
        match status {
            200..=299 => {
                let mime = if e.mime.is_empty() {
                    payload.mime.clone()
                } else {
                    e.mime.clone()
                };
                planned.push(Planned {
                    path: names::site_path(&url),
                    dir_url: url.path().ends_with('/') && url.query().is_none(),
                    url,
                    chosen: c,
                    mime,
                    alias: None,
                    wanted: None,
                })
            }
            300..=599 => redirects.push((url, c, status)),
            other => tree.problems.push(Problem::new(
                &e.uri,
                "archive-status-unused",
                format!("captured status {other} makes neither a file nor an alias; left out"),
            )),
        }
    }
    assign_names(&mut planned, &mut tree);

    let left = AtomicU64::new(budget);
    let written: Vec<Result<Written, Problem>> = planned
        .par_iter()
        .map(|p| write_file(index, p, root, &left))
        .collect();
    for (w, p) in written.into_iter().zip(&planned) {
        match w {
            Ok((path, capture, payload, digest)) => {
                tree.problems.extend(digest);
                if let Some(wanted) = &p.wanted {
                    if p.dir_url && same_bytes(root, wanted, &path) {
                        if let Ok(file) = name::under(root, &path) {
                            let _ = fs::remove_file(file);
                        }
                        tree.url_paths.insert(capture.url.clone(), wanted.clone());
                        continue;
                    }
                    tree.problems.push(Problem::new(
                        p.url.as_str(),
                        "archive-name-collision",
                        format!("another URL already takes the name {wanted}; written as {path}"),
                    ));
                }
                if p.alias.is_none() && path != names::site_path(&p.url) {
                    tree.renamed.push((p.url.to_string(), path.clone()));
                }
                tree.url_paths.insert(capture.url.clone(), path.clone());
                tree.payload_entry.insert(path.clone(), payload);
                tree.files.insert(path, capture);
            }
            Err(problem) => tree.problems.push(problem),
        }
    }
    for p in &planned {
        if let Some(alias) = &p.alias {
            if tree.files.contains_key(&p.path) {
                tree.links.insert(alias.clone(), p.path.clone());
                tree.renamed.push((p.url.to_string(), p.path.clone()));
            }
        }
    }
    for (url, c, status) in redirects {
        record_response(index, &url, c, status, on_site, &left, &mut tree);
    }
    make_links(root, &mut tree);
    tree
}

/// Whether two files of the tree hold the same bytes.
fn same_bytes(root: &Path, a: &str, b: &str) -> bool {
    let read = |p: &str| fs::read(name::under(root, p).ok()?).ok();
    matches!((read(a), read(b)), (Some(x), Some(y)) if x == y)
}

/// Gives each planned file a name of its own: adjusted to its media type where the URL's name
/// would be served as something else, and out of the way of a directory of the same name.
fn assign_names(planned: &mut [Planned<'_>], tree: &mut Tree) {
    let mut dirs = BTreeSet::new();
    for p in planned.iter() {
        let mut at = p.path.as_str();
        while let Some((dir, _)) = at.rsplit_once('/') {
            dirs.insert(dir.to_string());
            at = dir;
        }
    }
    let mut taken: BTreeSet<String> = BTreeSet::new();
    planned.sort_by(|a, b| (a.dir_url, a.url.as_str()).cmp(&(b.dir_url, b.url.as_str())));
    for p in planned.iter_mut() {
        let url_name = p.path.clone();
        let mut path = url_name.clone();
        if !names::name_fits(&path, &p.mime) || dirs.contains(&path) {
            let ext = names::extension_for(&p.mime).unwrap_or("file");
            path = format!("{path}.{ext}");
        }
        let mut n = 1;
        let stem = path.clone();
        while taken.contains(&path) || dirs.contains(&path) {
            n += 1;
            path = match stem.rsplit_once('.') {
                Some((s, e)) if !e.contains('/') => format!("{s}~{n}.{e}"),
                _ => format!("{stem}~{n}"),
            };
        }
        if n > 1 {
            p.wanted = Some(stem);
        }
        taken.insert(path.clone());
        if path != url_name && !dirs.contains(&url_name) && !taken.contains(&url_name) {
            p.alias = Some(url_name);
        }
        p.path = path;
    }
    // Names taken by files are not free for links.
    for p in planned.iter() {
        if let Some(alias) = &p.alias {
            if taken.contains(alias) {
                tree.problems.push(Problem::new(
                    p.url.as_str(),
                    "archive-name-collision",
                    format!(
                        "{alias} is another file's name; the URL resolves to {}",
                        p.path
                    ),
                ));
            }
        }
    }
}

/// A file written: its path, what the capture says, the record its body came from, and a
/// digest mismatch found on the way (reported; the file is kept, as the archive holds it).
type Written = (String, FileCapture, usize, Option<Problem>);

fn write_file(
    index: &Index,
    p: &Planned<'_>,
    root: &Path,
    left: &AtomicU64,
) -> Result<Written, Problem> {
    let chosen = &index.entries[p.chosen.entry];
    let payload_at = *p
        .chosen
        .payload
        .as_ref()
        .expect("planned files are resolved");
    let payload = &index.entries[payload_at];
    let problem = |code: &str, why: String| Problem::new(p.url.as_str(), code, why);
    // The one way from a name to the disk, which refuses a name that would leave `root`; and a
    // new file only: never through a link or over a file already there.
    let target = name::under(root, &p.path)
        .map_err(|e| problem("archive-unsafe-name", format!("{e}; left out")))?;
    if let Some(parent) = target.parent() {
        fs::create_dir_all(parent)
            .map_err(|e| problem("archive-unwritable", format!("{}: {e}", parent.display())))?;
    }
    let file = fs::File::create_new(&target).map_err(|e| {
        problem(
            "archive-unwritable",
            format!("{}: {e}", crate::error::shown(&target)),
        )
    })?;
    // Past 4 GiB no later stage would read the file anyway.
    let cap = Budget::record(payload.length).min(crate::input::MAX_SITE_FILE_BYTES);
    let mut out = Budgeted::new(file, cap, left);
    let read = body::read(index, payload, &mut out, cap);
    let body = match read {
        Ok(b) => b,
        Err(why) => {
            let over = out.refused.take();
            out.give_back();
            drop(out);
            let _ = fs::remove_file(&target);
            let at = format!(
                "record at {}@{}",
                index.segments[payload.segment].name, payload.offset
            );
            return Err(match over {
                Some(over) => problem("archive-over-budget", format!("{at}: {over}; left out")),
                None => problem("archive-body-unreadable", format!("{at}: {why}; left out")),
            });
        }
    };
    let file = out.inner;
    // A revisit's own head (its status and headers) is the capture's; the body is the original's.
    let own_head = (p.chosen.entry != payload_at)
        .then(|| body::head_of(index, chosen))
        .flatten()
        .filter(|h| h.status != 304);
    let head: HttpHead = own_head.or(body.head.clone()).unwrap_or_else(|| HttpHead {
        status: 200,
        reason: "OK".into(),
        fields: if payload.mime.is_empty() {
            Vec::new()
        } else {
            vec![("Content-Type".to_string(), payload.mime.clone())]
        },
        len: 0,
    });
    let modified = head
        .get("last-modified")
        .and_then(Stamp::parse_http)
        .unwrap_or(chosen.date);
    let _ = file.set_modified(modified.system_time());
    let digest = body
        .digest_mismatch
        .map(|why| problem("archive-digest-mismatch", why));
    let capture = FileCapture {
        url: p.url.to_string(),
        status: head.status,
        content_type: head.get("content-type").map(str::to_string),
        charset: head.charset(),
        sent_encoding: head.sent("content-encoding").map(str::to_string),
        chunked: body.dechunked,
        chunked_as_stored: body.chunked_as_stored,
        date: chosen.date,
        record_id: chosen.record_id.clone(),
        payload_record_id: payload.record_id.clone(),
        payload_digest: payload.payload_digest.clone(),
        resolution: p.chosen.resolution,
        wire_bytes: payload.block_len,
        payload_bytes: body.payload_bytes,
        captures: p.chosen.captures,
        fields: head
            .fields
            .iter()
            .filter(|(name, _)| super::COMPARED.iter().any(|c| name.eq_ignore_ascii_case(c)))
            .cloned()
            .collect(),
    };
    Ok((p.path.clone(), capture, payload_at, digest))
}

fn record_response(
    index: &Index,
    url: &Url,
    c: &Chosen,
    status: u16,
    on_site: &dyn Fn(&Url) -> bool,
    left: &AtomicU64,
    tree: &mut Tree,
) {
    let e = &index.entries[c.entry];
    let payload = c.payload.as_ref().map(|&p| &index.entries[p]).unwrap_or(e);
    // Held in memory to be served: at most 16 MiB, within the record's and the input's budget.
    let cap = Budget::record(payload.length).min(16 << 20);
    let mut out = Budgeted::new(Vec::new(), cap, left);
    let read = body::read(index, payload, &mut out, cap);
    let refused = out.refused.take();
    if read.is_err() {
        out.give_back();
    }
    let mut bytes = out.inner;
    let head = match read {
        Ok(b) => b.head.unwrap_or_default(),
        Err(why) => {
            let (code, why) = match refused {
                Some(over) => ("archive-over-budget", over),
                None => ("archive-body-unreadable", why),
            };
            tree.problems.push(Problem::new(
                url.as_str(),
                code,
                format!("{status} response: {why}; served without its body"),
            ));
            bytes.clear();
            body::head_of(index, e).unwrap_or_default()
        }
    };
    let location = head
        .get("location")
        .and_then(|l| url.join(l).ok())
        .map(|l| l.to_string());
    let mut target = url.path().to_string();
    if let Some(q) = url.query() {
        target.push('?');
        target.push_str(q);
    }
    if (300..400).contains(&status) {
        if let Some(to) = location.as_deref().and_then(|l| Url::parse(l).ok()) {
            if on_site(&to) {
                let from = names::site_path(url);
                let to = names::site_path(&to);
                tree.links.entry(from.clone()).or_insert(to);
                tree.url_paths.insert(url.to_string(), from);
            }
        }
    }
    tree.responses.insert(
        target,
        CapturedResponse {
            url: url.to_string(),
            status,
            reason: head.reason.clone(),
            content_type: head.get("content-type").map(str::to_string),
            location,
            body: bytes,
            date: e.date,
            record_id: e.record_id.clone(),
            entry: c.entry,
        },
    );
}

/// A record's decoded body on its way out, refused past the record's own bound
/// ([`Budget::record`]) or when the input's budget is spent: `refused` says which.
struct Budgeted<'a, W> {
    inner: W,
    written: u64,
    record_cap: u64,
    left: &'a AtomicU64,
    refused: Option<String>,
}

impl<'a, W> Budgeted<'a, W> {
    fn new(inner: W, record_cap: u64, left: &'a AtomicU64) -> Self {
        Budgeted {
            inner,
            written: 0,
            record_cap,
            left,
            refused: None,
        }
    }
}

impl<W> Budgeted<'_, W> {
    /// Returns what was written to the input's budget (the body was not kept after all).
    fn give_back(&mut self) {
        self.left.fetch_add(self.written, Ordering::Relaxed);
        self.written = 0;
    }
}

impl<W: Write> Write for Budgeted<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = buf.len() as u64;
        if self.written + n > self.record_cap {
            self.refused = Some(format!(
                "its body decodes to more than {} bytes, {} times what the record takes in \
                 the archive plus 1 MiB, which no body encoded once can reach (a \
                 decompression bomb)",
                self.record_cap,
                Budget::DEFLATE_RATIO
            ));
            return Err(io::Error::other("over the record's budget"));
        }
        let reserved = self
            .left
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
                left.checked_sub(n)
            });
        if reserved.is_err() {
            self.refused = Some(
                "the archive's decoded bodies would pass its disk budget (--archive-budget: \
                 64 MiB plus that many times the archive's size)"
                    .to_string(),
            );
            return Err(io::Error::other("over the archive's budget"));
        }
        self.written += n;
        self.inner.write_all(buf)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Makes the symbolic links whose names are free and whose targets are files (following
/// links to links); reports the rest.
fn make_links(root: &Path, tree: &mut Tree) {
    let links = std::mem::take(&mut tree.links);
    let mut made = BTreeMap::new();
    let dirs: BTreeSet<String> = tree
        .files
        .keys()
        .flat_map(|p| {
            let mut out = Vec::new();
            let mut at = p.as_str();
            while let Some((dir, _)) = at.rsplit_once('/') {
                out.push(dir.to_string());
                at = dir;
            }
            out
        })
        .collect();
    for (from, to) in &links {
        let mut target = to.clone();
        for _ in 0..8 {
            match links.get(&target) {
                Some(next) if next != &target => target = next.clone(),
                _ => break,
            }
        }
        if !tree.files.contains_key(&target) || tree.files.contains_key(from) || dirs.contains(from)
        {
            continue;
        }
        let link = match name::under(root, from) {
            Ok(link) => link,
            Err(e) => {
                tree.problems
                    .push(Problem::new(from, "archive-unsafe-name", e.to_string()));
                continue;
            }
        };
        if let Some(parent) = link.parent() {
            let _ = fs::create_dir_all(parent);
        }
        let relative = crate::site::relative_to(from, &target);
        match std::os::unix::fs::symlink(name::to_path(&relative), &link) {
            Ok(()) => {
                made.insert(from.clone(), target);
            }
            Err(e) => tree.problems.push(Problem::new(
                from,
                "archive-unwritable",
                format!("link to {target}: {e}"),
            )),
        }
    }
    tree.links = made;
}
