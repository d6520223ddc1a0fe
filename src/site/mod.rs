//! A site snapshot on disk: which files it has and what kind each one is.
//!
//! The crawl only lists and classifies (walkdir + a 512-byte sniff per file); contents are read
//! when a later stage needs them, so memory stays bounded by the largest file, not the site.
//! The input directory is never written to.

pub mod charset;
pub mod name;
pub mod resolve;
mod sniff;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde::Serialize;
use walkdir::WalkDir;

use crate::error::{Error, Problem, Result};
pub use sniff::{is_text, looks_binary, media_type, FileKind, SNIFF_LEN};

/// Options for [`crawl`].
#[derive(Debug, Clone)]
pub struct CrawlOptions {
    /// Keep symbolic links that stay inside the site root: listed in [`Site::links`], followed
    /// when a URL passes through them (as a server with `FollowSymLinks` does), and written as
    /// links by the rewrite. Default: `true`. When `false`, links are skipped without a word.
    /// Links that leave the root, dangle or loop are reported and never followed.
    pub follow_links: bool,
}

impl Default for CrawlOptions {
    fn default() -> Self {
        CrawlOptions { follow_links: true }
    }
}

/// One file of the site.
#[derive(Debug, Clone, Serialize)]
pub struct SiteFile {
    /// Path relative to the site root, `/`-separated: the name on disk as a key of
    /// [`name`] (bytes that are not UTF-8 escaped as `\xHH`).
    pub path: String,
    /// What the file is, by content sniffing and extension.
    pub kind: FileKind,
    /// Size in bytes.
    pub bytes: u64,
}

/// A symbolic link inside the site that leads to a file or directory inside the site.
///
/// The crawl lists links instead of walking through them, so a file that a link also reaches
/// is listed (and counted, converted, copied) once, under its own path; a URL through the link
/// reaches it all the same ([`resolve`]), and the rewrite writes the link as a link.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct SiteLink {
    /// The link's own site path.
    pub path: String,
    /// Its target as written in the link (`readlink`), escaped like a site path.
    pub target: String,
    /// The site path it leads to, every link on the way followed: a file of the site, or a
    /// directory (never the root or a directory holding the link: those are loops).
    pub leads_to: String,
    /// Whether it leads to a directory.
    pub dir: bool,
}

impl SiteLink {
    /// The target to write when the link is made again in another tree: as written when it is
    /// a relative path that never climbs above the site root on its way, else the relative path
    /// from the link's directory to where it leads (an absolute target, or one that climbs out
    /// of the root and back in, would lead back into the input, or nowhere).
    pub fn portable_target(&self) -> String {
        if stays_inside(&self.path, &self.target) {
            self.target.clone()
        } else {
            relative_to(&self.path, &self.leads_to)
        }
    }
}

/// Whether `target`, written in the link at `link`, is relative and, read one segment at a
/// time from the link's directory, never goes above the site root.
pub fn stays_inside(link: &str, target: &str) -> bool {
    if target.is_empty() || target.starts_with('/') {
        return false;
    }
    let mut depth = link.matches('/').count();
    for segment in target.split('/') {
        match segment {
            "" | "." => {}
            ".." if depth == 0 => return false,
            ".." => depth -= 1,
            _ => depth += 1,
        }
    }
    true
}

/// The relative path that leads from the directory of the site path `from` to the site path
/// `to` (`a/b/l`, `c/x.gif` → `../../c/x.gif`).
pub fn relative_to(from: &str, to: &str) -> String {
    let from_dir: Vec<&str> = match from.rsplit_once('/') {
        Some((dir, _)) => dir.split('/').collect(),
        None => Vec::new(),
    };
    let to: Vec<&str> = to.split('/').filter(|s| !s.is_empty()).collect();
    let common = from_dir.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut parts = vec![".."; from_dir.len() - common];
    parts.extend(&to[common..]);
    if parts.is_empty() {
        ".".to_string()
    } else {
        parts.join("/")
    }
}

/// A crawled site: the root and its files, sorted by path.
#[derive(Debug, Clone)]
pub struct Site {
    /// The directory as the user named it.
    pub root: PathBuf,
    /// Every regular file found, sorted by `path`.
    pub files: Vec<SiteFile>,
    /// Symbolic links inside the site that lead inside it, sorted by `path`.
    pub links: Vec<SiteLink>,
    /// Files and directories that could not be listed or read, with the reason.
    pub problems: Vec<Problem>,
    index: BTreeMap<String, usize>,
    link_index: BTreeMap<String, usize>,
}

impl Site {
    /// The file at a site-relative path, exactly as spelled.
    pub fn file(&self, path: &str) -> Option<&SiteFile> {
        self.index.get(path).map(|&i| &self.files[i])
    }

    /// The symbolic link at a site-relative path, exactly as spelled.
    pub fn link(&self, path: &str) -> Option<&SiteLink> {
        self.link_index.get(path).map(|&i| &self.links[i])
    }

    /// The absolute location of a site-relative path: the one place where a site path meets
    /// the disk ([`name::under`]: a key that would leave the root is an error).
    pub fn disk_path(&self, path: &str) -> std::io::Result<PathBuf> {
        Ok(name::under(&self.root, path)?)
    }

    /// Reads a file's bytes. An error names the file by its site path (escaped once, readable),
    /// under the root as given.
    pub fn read(&self, path: &str) -> Result<Vec<u8>> {
        self.disk_path(path)
            .and_then(|disk| {
                crate::input::read_limited(&disk, crate::input::MAX_SITE_FILE_BYTES)
                    .map_err(Into::into)
            })
            .map_err(|e| Error::io(self.root.join(path), e))
    }

    /// A short name for the site: its directory name (`corpus/microscape` → `microscape`).
    pub fn name(&self) -> String {
        site_name(&self.root)
    }

    /// Builds a site from a list of files (used by tests and by the rewrite stage).
    pub fn from_files(root: PathBuf, mut files: Vec<SiteFile>, problems: Vec<Problem>) -> Self {
        files.sort_by(|a, b| a.path.cmp(&b.path));
        let index = files
            .iter()
            .enumerate()
            .map(|(i, f)| (f.path.clone(), i))
            .collect();
        Site {
            root,
            files,
            links: Vec::new(),
            problems,
            index,
            link_index: BTreeMap::new(),
        }
    }

    /// The same site with these symbolic links.
    pub fn with_links(mut self, mut links: Vec<SiteLink>) -> Self {
        links.sort();
        self.link_index = links
            .iter()
            .enumerate()
            .map(|(i, l)| (l.path.clone(), i))
            .collect();
        self.links = links;
        self
    }

    /// The same site (root, links, problems) with another list of files.
    pub fn with_files(&self, files: Vec<SiteFile>) -> Self {
        Site::from_files(self.root.clone(), files, self.problems.clone())
            .with_links(self.links.clone())
    }
}

/// The directory name used for default output locations (an archive's file name without its
/// archive extensions: `microscape.warc.gz` → `microscape`).
pub fn site_name(root: &Path) -> String {
    if let Some(name) = crate::archive::site_name(root) {
        return name;
    }
    let canonical = fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    canonical
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "site".to_string())
}

/// Lists and classifies every file under `root`, and the symbolic links inside it.
///
/// Links are not walked through: each is read once, kept as a [`SiteLink`] when it leads to a
/// file or directory inside the root, and otherwise reported (`symlink-outside-site`,
/// `symlink-loop`, `symlink-dangling`). Fails only when `root` itself is unusable; every other
/// trouble becomes a [`Problem`].
pub fn crawl(root: &Path, opts: &CrawlOptions) -> Result<Site> {
    let meta = fs::metadata(root).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => Error::NotFound {
            path: root.to_path_buf(),
        },
        _ => Error::io(root, e),
    })?;
    if !meta.is_dir() {
        return Err(Error::NotADirectory {
            path: root.to_path_buf(),
            what: crate::input::kind_of(&meta),
        });
    }
    let canonical_root = fs::canonicalize(root).map_err(|e| Error::io(root, e))?;

    let mut files = Vec::new();
    let mut links = Vec::new();
    let mut problems = Vec::new();
    let walker = WalkDir::new(root).follow_links(false).sort_by_file_name();
    for entry in walker {
        let entry = match entry {
            Ok(entry) => entry,
            Err(err) => {
                problems.push(walk_problem(root, &err));
                continue;
            }
        };
        let rel = relative_path(root, entry.path());
        if entry.path_is_symlink() && entry.depth() > 0 {
            if opts.follow_links {
                match read_link(&canonical_root, entry.path(), &rel) {
                    Ok(Some(link)) => links.push(link),
                    Ok(None) => {}
                    Err(problem) => problems.push(problem),
                }
            }
            continue;
        }
        if !entry.file_type().is_file() {
            problems.extend(not_a_file(root, &entry));
            continue;
        }
        let file_name = rel.rsplit('/').next().unwrap_or(&rel);
        match classify(entry.path(), file_name) {
            Ok((kind, bytes, note)) => {
                if let Some(note) = note {
                    problems.push(Problem::new(&rel, "misnamed", note));
                }
                files.push(SiteFile {
                    path: rel,
                    kind,
                    bytes,
                });
            }
            Err(err) => problems.push(Problem::new(rel, "unreadable", err.to_string())),
        }
    }
    problems.sort();
    Ok(Site::from_files(root.to_path_buf(), files, problems).with_links(links))
}

/// Reads one symbolic link: `Ok(Some)` when it leads to a file or directory inside the site,
/// `Ok(None)` when it leads to something that is neither (a FIFO, a device: skipped like the
/// walk skips them), a problem otherwise.
fn read_link(
    canonical_root: &Path,
    link: &Path,
    rel: &str,
) -> std::result::Result<Option<SiteLink>, Problem> {
    let written =
        fs::read_link(link).map_err(|e| Problem::new(rel, "unreadable", e.to_string()))?;
    let target = name::from_path(&written);
    let canonical = match fs::canonicalize(link) {
        Ok(canonical) => canonical,
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            return Err(Problem::new(
                rel,
                "symlink-loop",
                format!("symbolic link to {target} loops through other links; not followed"),
            ))
        }
        Err(e)
            if e.kind() == std::io::ErrorKind::NotFound
                || e.raw_os_error() == Some(libc::ENOTDIR) =>
        {
            return Err(Problem::new(
                rel,
                "symlink-dangling",
                format!("symbolic link to {target} leads to nothing; left out"),
            ))
        }
        Err(e) => return Err(Problem::new(rel, "unreadable", e.to_string())),
    };
    let Ok(inside) = canonical.strip_prefix(canonical_root) else {
        return Err(Problem::new(
            rel,
            "symlink-outside-site",
            format!(
                "symbolic link to {} leaves the site root; not followed",
                name::from_path(&canonical)
            ),
        ));
    };
    let leads_to = name::from_path(inside);
    let meta =
        fs::metadata(&canonical).map_err(|e| Problem::new(rel, "unreadable", e.to_string()))?;
    if meta.is_dir() {
        // A link to the directory that holds it, or to one above: the tree would be endless.
        let holder = link
            .parent()
            .and_then(|p| fs::canonicalize(p).ok())
            .unwrap_or_else(|| canonical_root.to_path_buf());
        if holder.starts_with(&canonical) {
            let shown = if leads_to.is_empty() { "." } else { &leads_to };
            return Err(Problem::new(
                rel,
                "symlink-loop",
                format!("symbolic link loops back to {shown}; not followed"),
            ));
        }
    } else if !meta.is_file() {
        return Ok(None);
    }
    Ok(Some(SiteLink {
        path: rel.to_string(),
        target,
        leads_to,
        dir: meta.is_dir(),
    }))
}

fn walk_problem(root: &Path, err: &walkdir::Error) -> Problem {
    let path = err
        .path()
        .map(|p| relative_path(root, p))
        .unwrap_or_else(|| root.display().to_string());
    let message = match err.io_error() {
        Some(io) => io.to_string(),
        None => err.to_string(),
    };
    Problem::new(path, "unreadable", message)
}

/// `root/a/b.html` → `a/b.html`, the site path of the bytes on disk ([`name::from_path`]).
fn relative_path(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    if rel.as_os_str().is_empty() {
        ".".to_string()
    } else {
        name::from_path(rel)
    }
}

/// Reads the first bytes of a file and decides its kind (`name`: its file name as a key).
fn classify(path: &Path, name: &str) -> std::io::Result<(FileKind, u64, Option<String>)> {
    let (head, meta) = crate::input::read_head(path, sniff::SNIFF_LEN)?;
    let (kind, note) = sniff::classify(name, &head);
    Ok((kind, meta.len(), note))
}

/// A FIFO, socket or device in the site is no file a server could send: reported, never read
/// (opening a FIFO would block the crawl).
fn not_a_file(root: &Path, entry: &walkdir::DirEntry) -> Option<Problem> {
    use std::os::unix::fs::FileTypeExt;
    let kind = entry.file_type();
    let what = if kind.is_fifo() {
        "a FIFO (named pipe)"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device file"
    } else {
        return None;
    };
    Some(Problem::new(
        relative_path(root, entry.path()),
        "not-a-file",
        format!("{what}, not a regular file; skipped"),
    ))
}

#[cfg(test)]
mod tests;
