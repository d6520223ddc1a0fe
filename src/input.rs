//! Reading a file webdiet was given — a report, `webdiet.toml`, a link trace, a file of the
//! site: only a regular file, and only up to a stated size. A FIFO would block the read
//! forever and `/dev/zero` never ends, so the file is opened without blocking (`O_NONBLOCK`:
//! opening a FIFO then returns at once), its type is checked on the open descriptor (no window
//! in which the path can change), and at most `limit` bytes are read.

use std::fs::{self, File, Metadata};
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

use crate::error::{Error, Result};

/// The most webdiet reads of a `report.json`: 1 GiB.
pub const MAX_REPORT_BYTES: u64 = 1 << 30;
/// The most webdiet reads of a small settings file (`webdiet.toml`): 1 MiB.
pub const MAX_SETTINGS_BYTES: u64 = 1 << 20;
/// The most webdiet reads of a link trace (mahimahi's are a few MB): 256 MiB.
pub const MAX_TRACE_BYTES: u64 = 256 << 20;
/// The most webdiet reads of one file of a site into memory: 4 GiB.
pub const MAX_SITE_FILE_BYTES: u64 = 4 << 30;

/// "a file", "a FIFO", "a character device" (`/dev/null`), … for messages.
pub fn kind_of(meta: &Metadata) -> &'static str {
    let kind = meta.file_type();
    if kind.is_file() {
        "a file"
    } else if kind.is_dir() {
        "a directory"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "not a file"
    }
}

/// Why a file cannot be read as input.
#[derive(Debug)]
pub enum Unreadable {
    /// Opening or reading failed.
    Io(io::Error),
    /// It is a FIFO, a device, a socket or a directory (`kind_of`).
    NotAFile(&'static str),
    /// It holds more than the limit.
    TooLarge { limit: u64 },
}

impl From<Unreadable> for io::Error {
    fn from(e: Unreadable) -> Self {
        match e {
            Unreadable::Io(e) => e,
            other => io::Error::other(other.to_string()),
        }
    }
}

impl std::fmt::Display for Unreadable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unreadable::Io(e) => write!(f, "{e}"),
            Unreadable::NotAFile(kind) => {
                write!(
                    f,
                    "is {kind}, not a regular file; webdiet reads only regular files"
                )
            }
            Unreadable::TooLarge { limit } => write!(
                f,
                "is larger than {limit} bytes, the most webdiet reads of such a file"
            ),
        }
    }
}

/// Opens the regular file at `path` (symbolic links followed) for reading, refusing anything
/// else without blocking on it; returns it with its metadata.
pub fn open_regular(path: &Path) -> std::result::Result<(File, Metadata), Unreadable> {
    let file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .map_err(Unreadable::Io)?;
    let meta = file.metadata().map_err(Unreadable::Io)?;
    if !meta.is_file() {
        return Err(Unreadable::NotAFile(kind_of(&meta)));
    }
    Ok((file, meta))
}

/// The first `n` bytes of the regular file at `path` (fewer when it is shorter), and its
/// metadata: what sniffing a file's kind reads.
pub fn read_head(path: &Path, n: usize) -> std::result::Result<(Vec<u8>, Metadata), Unreadable> {
    let (file, meta) = open_regular(path)?;
    let mut head = Vec::with_capacity(n);
    file.take(n as u64)
        .read_to_end(&mut head)
        .map_err(Unreadable::Io)?;
    Ok((head, meta))
}

/// Reads the regular file at `path` (symbolic links followed), at most `limit` bytes of it.
pub fn read_limited(path: &Path, limit: u64) -> std::result::Result<Vec<u8>, Unreadable> {
    let (file, meta) = open_regular(path)?;
    if meta.len() > limit {
        return Err(Unreadable::TooLarge { limit });
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // One byte past the limit tells a file that grew since the stat.
    File::take(file, limit + 1)
        .read_to_end(&mut bytes)
        .map_err(Unreadable::Io)?;
    if bytes.len() as u64 > limit {
        return Err(Unreadable::TooLarge { limit });
    }
    Ok(bytes)
}

/// [`read_limited`], its failure an [`Error`] naming `path`.
pub fn read(path: &Path, limit: u64) -> Result<Vec<u8>> {
    read_limited(path, limit).map_err(|e| match e {
        Unreadable::Io(e) if e.kind() == io::ErrorKind::NotFound => Error::NotFound {
            path: path.to_path_buf(),
        },
        Unreadable::Io(e) => Error::io(path, e),
        other => Error::Invalid {
            path: path.to_path_buf(),
            message: other.to_string(),
        },
    })
}

/// [`read`] as UTF-8 text.
pub fn read_text(path: &Path, limit: u64) -> Result<String> {
    String::from_utf8(read(path, limit)?).map_err(|e| Error::Invalid {
        path: path.to_path_buf(),
        message: format!("not UTF-8 text: {e}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fifo_a_device_and_an_oversized_file_are_refused_without_reading() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("f");
        assert!(std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        let refused = |path: &Path, limit| read_limited(path, limit).unwrap_err().to_string();
        assert!(refused(&fifo, 10).contains("is a FIFO"));
        assert!(refused(Path::new("/dev/zero"), 10).contains("is a character device"));
        assert!(refused(dir.path(), 10).contains("is a directory"));
        let big = dir.path().join("big");
        File::create(&big).unwrap().set_len(11).unwrap();
        assert!(refused(&big, 10).contains("larger than 10 bytes"));
        assert_eq!(read_limited(&big, 11).unwrap().len(), 11);
    }
}
