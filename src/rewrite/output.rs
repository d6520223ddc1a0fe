//! Writing the rewritten tree: everything goes into a temporary sibling of `out_site`, which
//! replaces `out_site` by renames only when it is complete. Refuses any output location inside
//! the input site, or containing it (the old output is deleted on success). The command line
//! points `out_site` into the output's staging directory (`crate::output`), which decides
//! what may be replaced in the user's output directory.
//!
//! Directories are made through [`crate::output::create_dir_all`] only, so that a tree being
//! removed on Ctrl-C cannot grow back under a worker thread.

use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use crate::error::{Error, Problem, Result};
use crate::output::create_dir_all;
use crate::site::{name, Site};

/// Why copying a file of the input failed: the input could not be read, or the copy could
/// not be written. They are different problems (`unreadable`, `unwritable`).
#[derive(Debug)]
pub(super) enum CopyError {
    Read(io::Error),
    Write(io::Error),
}

impl CopyError {
    pub fn problem(&self, path: &str) -> Problem {
        match self {
            CopyError::Read(e) => Problem::new(path, "unreadable", e.to_string()),
            CopyError::Write(e) => Problem::new(path, "unwritable", e.to_string()),
        }
    }
}

/// A tree being built.
pub(super) struct Staging {
    pub dir: PathBuf,
    done: bool,
    /// Whether the tree is synced to disk before it is moved into place (not for a scratch
    /// tree).
    durable: bool,
}

impl Staging {
    /// Creates an empty staging directory next to `out_site`; with `durable`, the tree is
    /// synced to disk before it is moved into place ([`Staging::finish`]).
    pub fn create(site_root: &Path, out_site: &Path, durable: bool) -> Result<Self> {
        let site = fs::canonicalize(site_root).map_err(|e| Error::io(site_root, e))?;
        let parent = match out_site.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        create_dir_all(&parent).map_err(|e| Error::io(&parent, e))?;
        let parent = fs::canonicalize(&parent).map_err(|e| Error::io(&parent, e))?;
        let name = out_site
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "site".to_string());
        let target = parent.join(&name);
        if target.starts_with(&site) || site.starts_with(&target) {
            return Err(Error::OutputInsideSite {
                out: out_site.to_path_buf(),
                site: site_root.to_path_buf(),
            });
        }
        let dir = parent.join(format!(".{name}.partial-{}", std::process::id()));
        if dir.exists() {
            fs::remove_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        }
        fs::create_dir(&dir).map_err(|e| Error::io(&dir, e))?;
        Ok(Staging {
            dir,
            done: false,
            durable,
        })
    }

    /// Where a site path of the staged tree is on disk (through [`name::under`], so that a
    /// name keeps its bytes and no name leaves the tree).
    pub fn path(&self, path: &str) -> io::Result<PathBuf> {
        Ok(name::under(&self.dir, path)?)
    }

    /// The staged bytes of a site path.
    pub fn read(&self, path: &str) -> io::Result<Vec<u8>> {
        fs::read(self.path(path)?)
    }

    /// Where to write a site path, its directories made. Never through a link already written
    /// there: that would change the file the link leads to.
    fn dest(&self, path: &str) -> io::Result<PathBuf> {
        let dest = self.path(path)?;
        if let Some(parent) = dest.parent() {
            create_dir_all(parent)?;
        }
        if fs::symlink_metadata(&dest).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(std::io::Error::other(
                "a symbolic link of the site has this name; not written through it",
            ));
        }
        Ok(dest)
    }

    /// Writes a new file at a site-relative path. Every byte is written, or it is an error
    /// (and the tree is synced once, when durable, before it is moved into place).
    pub fn write(&self, path: &str, bytes: &[u8]) -> std::io::Result<()> {
        fs::write(self.dest(path)?, bytes)
    }

    /// Copies a file of the input site unchanged, with its permission bits.
    pub fn copy(&self, site: &Site, path: &str) -> std::result::Result<(), CopyError> {
        let disk = site.disk_path(path).map_err(CopyError::Read)?;
        let (mut from, meta) =
            crate::input::open_regular(&disk).map_err(|e| CopyError::Read(e.into()))?;
        let permissions = meta.permissions();
        let dest = self.dest(path).map_err(CopyError::Write)?;
        let mut to = fs::File::create(&dest).map_err(CopyError::Write)?;
        let mut buf = vec![0; 64 * 1024];
        loop {
            let n = match from.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(CopyError::Read(e)),
            };
            to.write_all(&buf[..n]).map_err(CopyError::Write)?;
        }
        to.set_permissions(permissions).map_err(CopyError::Write)
    }

    /// Makes a symbolic link at a site-relative path; `target` is written into it as it is
    /// (a relative path, escaped like a site path).
    pub fn link(&self, path: &str, target: &str) -> std::io::Result<()> {
        std::os::unix::fs::symlink(name::to_path(target), self.dest(path)?)
    }

    /// Makes sure a directory of the staged tree exists (the target of a link to a directory
    /// that holds no file of the output).
    pub fn make_dir(&self, path: &str) -> std::io::Result<()> {
        create_dir_all(&self.path(path)?)
    }

    /// Moves the finished tree to `out_site`, replacing what was there; a durable tree is
    /// first written to disk, every file of it, by one `syncfs` (one flush for the tree, where
    /// an `fdatasync` a file took one each: most of the time of a rewrite of 100,000 small
    /// files), which also reports a write that failed on its way to the disk.
    pub fn finish(mut self, out_site: &Path) -> Result<()> {
        if self.durable {
            fs::File::open(&self.dir)
                .and_then(|dir| crate::sys::syncfs(&dir))
                .map_err(|e| Error::io(&self.dir, e))?;
        }
        let old = self
            .dir
            .with_file_name(format!(".site.old-{}", std::process::id()));
        let had_old = out_site.exists();
        if had_old {
            fs::rename(out_site, &old).map_err(|e| Error::io(out_site, e))?;
        }
        fs::rename(&self.dir, out_site).map_err(|e| Error::io(out_site, e))?;
        self.done = true;
        if had_old {
            fs::remove_dir_all(&old).map_err(|e| Error::io(&old, e))?;
        }
        Ok(())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.done {
            let _ = fs::remove_dir_all(&self.dir);
        }
    }
}
