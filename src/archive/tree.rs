//! The virtual site made real: each chosen capture of the site's host written as a file of a
//! private directory (payload decoded, dated by its `Last-Modified` or its capture), redirects
//! as symbolic links to where they lead, names adjusted to their media types ([`super::names`]).
//! Every later stage then reads a directory, as it does for a site on disk; what the capture
//! knows besides the bytes (status, `Content-Type`, charset, dates, records) stays beside it,
//! keyed by site path, for the replay and the reports.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;
use url::Url;

use super::body;
use super::choose::{Chosen, Resolution};
use super::http::HttpHead;
use super::index::Index;
use super::names;
use super::stamp::Stamp;
use crate::error::Problem;
use crate::site::name;

/// A private directory under the system's temporary directory, removed when dropped.
#[derive(Debug)]
pub struct TempTree {
    pub root: PathBuf,
}

impl TempTree {
    pub fn new(what: &str) -> std::io::Result<TempTree> {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let base = std::env::temp_dir();
        loop {
            let n = NEXT.fetch_add(1, Ordering::SeqCst);
            let root = base.join(format!("webdiet-{what}-{}-{n}", std::process::id()));
            match fs::create_dir(&root) {
                Ok(()) => return Ok(TempTree { root }),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
    }
}

impl Drop for TempTree {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.root);
    }
}

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
    /// The capture's HTTP head fields (what the original replay may send back).
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

/// Writes the chosen on-site captures into `root`.
pub fn materialise(
    index: &Index,
    chosen: &BTreeMap<String, Chosen>,
    on_site: &dyn Fn(&Url) -> bool,
    root: &Path,
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

    let cap = crate::input::MAX_SITE_FILE_BYTES;
    let written: Vec<Result<Written, Problem>> = planned
        .par_iter()
        .map(|p| write_file(index, p, root, cap))
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
        record_response(index, &url, c, status, on_site, &mut tree);
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

fn write_file(index: &Index, p: &Planned<'_>, root: &Path, cap: u64) -> Result<Written, Problem> {
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
    let mut file = fs::File::create_new(&target).map_err(|e| {
        problem(
            "archive-unwritable",
            format!("{}: {e}", crate::error::shown(&target)),
        )
    })?;
    let read = body::read(index, payload, &mut file, cap);
    let body = match read {
        Ok(b) => b,
        Err(why) => {
            drop(file);
            let _ = fs::remove_file(&target);
            return Err(problem(
                "archive-body-unreadable",
                format!(
                    "record at {}@{}: {why}; left out",
                    index.segments[payload.segment].name, payload.offset
                ),
            ));
        }
    };
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
        fields: head.fields.clone(),
    };
    Ok((p.path.clone(), capture, payload_at, digest))
}

fn record_response(
    index: &Index,
    url: &Url,
    c: &Chosen,
    status: u16,
    on_site: &dyn Fn(&Url) -> bool,
    tree: &mut Tree,
) {
    let e = &index.entries[c.entry];
    let payload = c.payload.as_ref().map(|&p| &index.entries[p]).unwrap_or(e);
    let mut bytes = Vec::new();
    let read = body::read(index, payload, &mut bytes, 16 << 20);
    let head = match read {
        Ok(b) => b.head.unwrap_or_default(),
        Err(why) => {
            tree.problems.push(Problem::new(
                url.as_str(),
                "archive-body-unreadable",
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
