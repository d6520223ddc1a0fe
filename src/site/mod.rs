//! A site snapshot on disk: which files it has and what kind each one is.
//!
//! The crawl only lists and classifies (walkdir + a 512-byte sniff per file); contents are read
//! when a later stage needs them, so memory stays bounded by the largest file, not the site.
//! The input directory is never written to.

pub mod charset;
pub mod resolve;
mod sniff;

use std::collections::BTreeMap;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::Serialize;
use walkdir::WalkDir;

use crate::error::{Error, Problem, Result};
pub use sniff::{media_type, FileKind};

/// Options for [`crawl`].
#[derive(Debug, Clone)]
pub struct CrawlOptions {
    /// Follow symbolic links that stay inside the site root. Default: `true`.
    /// Links that leave the root are never followed; loops are reported.
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
    /// Path relative to the site root, `/`-separated, as stored on disk.
    pub path: String,
    /// What the file is, by content sniffing and extension.
    pub kind: FileKind,
    /// Size in bytes.
    pub bytes: u64,
}

/// A crawled site: the root and its files, sorted by path.
#[derive(Debug, Clone)]
pub struct Site {
    /// The directory as the user named it.
    pub root: PathBuf,
    /// Every regular file found, sorted by `path`.
    pub files: Vec<SiteFile>,
    /// Files and directories that could not be listed or read, with the reason.
    pub problems: Vec<Problem>,
    index: BTreeMap<String, usize>,
}

impl Site {
    /// The file at a site-relative path, exactly as spelled.
    pub fn file(&self, path: &str) -> Option<&SiteFile> {
        self.index.get(path).map(|&i| &self.files[i])
    }

    /// The absolute location of a site-relative path.
    pub fn disk_path(&self, path: &str) -> PathBuf {
        self.root.join(path)
    }

    /// Reads a file's bytes.
    pub fn read(&self, path: &str) -> Result<Vec<u8>> {
        let disk = self.disk_path(path);
        fs::read(&disk).map_err(|e| Error::io(disk, e))
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
            problems,
            index,
        }
    }
}

/// The directory name used for default output locations.
pub fn site_name(root: &Path) -> String {
    let canonical = fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    canonical
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "site".to_string())
}

/// Lists and classifies every file under `root`.
///
/// Fails only when `root` itself is unusable; every other trouble becomes a [`Problem`].
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
        });
    }
    let canonical_root = fs::canonicalize(root).map_err(|e| Error::io(root, e))?;

    let mut files = Vec::new();
    let mut problems = Vec::new();
    let mut outside = Vec::new();
    let walker = WalkDir::new(root)
        .follow_links(opts.follow_links)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|entry| {
            if !entry.path_is_symlink() {
                return true;
            }
            match fs::canonicalize(entry.path()) {
                Ok(target) if target.starts_with(&canonical_root) => true,
                Ok(target) => {
                    outside.push((entry.path().to_path_buf(), target));
                    false
                }
                // A dangling link: let the walker report it.
                Err(_) => true,
            }
        });
    for entry in walker {
        let entry = match entry {
            Ok(entry) => entry,
            Err(err) => {
                problems.push(walk_problem(root, &err));
                continue;
            }
        };
        if !entry.file_type().is_file() {
            problems.extend(not_a_file(root, &entry));
            continue;
        }
        let rel = relative_path(root, entry.path());
        match classify(entry.path()) {
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
    for (link, target) in outside {
        problems.push(Problem::new(
            relative_path(root, &link),
            "symlink-outside-site",
            format!(
                "symbolic link to {} leaves the site root; not followed",
                target.display()
            ),
        ));
    }
    problems.sort();
    Ok(Site::from_files(root.to_path_buf(), files, problems))
}

fn walk_problem(root: &Path, err: &walkdir::Error) -> Problem {
    let path = err
        .path()
        .map(|p| relative_path(root, p))
        .unwrap_or_else(|| root.display().to_string());
    if let Some(ancestor) = err.loop_ancestor() {
        return Problem::new(
            path,
            "symlink-loop",
            format!(
                "symbolic link loops back to {}; not followed",
                relative_path(root, ancestor)
            ),
        );
    }
    let message = match err.io_error() {
        Some(io) => io.to_string(),
        None => err.to_string(),
    };
    Problem::new(path, "unreadable", message)
}

/// `root/a/b.html` → `a/b.html`, with `/` separators on every platform.
fn relative_path(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.is_empty() {
        ".".to_string()
    } else {
        parts.join("/")
    }
}

/// Reads the first bytes of a file and decides its kind.
fn classify(path: &Path) -> std::io::Result<(FileKind, u64, Option<String>)> {
    let mut file = fs::File::open(path)?;
    let bytes = file.metadata()?.len();
    let mut head = Vec::with_capacity(sniff::SNIFF_LEN);
    file.by_ref()
        .take(sniff::SNIFF_LEN as u64)
        .read_to_end(&mut head)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (kind, note) = sniff::classify(&name, &head);
    Ok((kind, bytes, note))
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
