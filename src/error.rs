//! Errors that stop a whole command, and problems that are reported while the run goes on.
//!
//! A fatal [`Error`] ends the command with exit code 2. A [`Problem`] is one bad file or
//! reference: it is printed with its path and counted, and the run continues (ripgrep's rule).

use std::ffi::OsStr;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Serialize;

/// How to install what the render check needs (the `ChromiumMissing` message says it).
pub const CHROMIUM_INSTALL_HINT: &str = "install it with `apt-get install chromium \
     fonts-dejavu-core fonts-liberation`, or set WEBDIET_CHROMIUM to the browser binary";

/// A failure that stops the command. Every variant names the path it is about, printed with
/// [`shown`] (bytes that are not UTF-8 appear as `\xNN`, never as `�`).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{}: no such file or directory", shown(.path))]
    NotFound { path: PathBuf },
    #[error("{}: is {what}, not a site directory", shown(.path))]
    NotADirectory { path: PathBuf, what: &'static str },
    #[error("{}: is a directory, not a report file; `webdiet report` reads the report.json \
             that `audit` and `rewrite` write, e.g. {}", shown(.path), shown(&.path.join("report.json")))]
    ReportIsADirectory { path: PathBuf },
    #[error("{}: {source}", shown(.path))]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: the output directory is inside the input site {}; choose another --out",
            shown(.out), shown(.site))]
    OutputInsideSite { out: PathBuf, site: PathBuf },
    #[error("{}: the input site {} is inside it, and webdiet would replace it; choose another --out",
            shown(.out), shown(.site))]
    OutputContainsSite { out: PathBuf, site: PathBuf },
    #[error("{}: --out must name a directory, and this is {what}", shown(.path))]
    OutputNotADirectory { path: PathBuf, what: &'static str },
    #[error("{}: cannot be an output directory: {} is {what}, not a directory",
            shown(.path), shown(.blocker))]
    OutputUnderAFile {
        path: PathBuf,
        blocker: PathBuf,
        what: &'static str,
    },
    #[error("{}: {reason}, and webdiet replaces only what it wrote itself; choose another \
             --out, or pass --force to replace it", shown(.path))]
    OutputNotOurs { path: PathBuf, reason: String },
    #[error("{}: cannot write {option} here: {reason}", shown(.path))]
    NamedOutputRefused {
        path: PathBuf,
        option: &'static str,
        reason: String,
    },
    #[error("{}: the site is empty (no file was found in it); nothing to rewrite or replay",
             shown(.path))]
    EmptySite { path: PathBuf },
    #[error("{}: no such page in the site (--page)", shown(.path))]
    NoSuchPage { path: PathBuf },
    #[error("{}: {message}", shown(.path))]
    Invalid { path: PathBuf, message: String },
    #[error("{}: Chromium not found; {hint}", shown(.path), hint = CHROMIUM_INSTALL_HINT)]
    ChromiumMissing { path: PathBuf },
    #[error("{}: Chromium did not start: {message}", shown(.path))]
    ChromiumFailed { path: PathBuf, message: String },
    #[error("{message}")]
    Usage { message: String },
}

impl Error {
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    /// What went wrong without the path, for a [`Problem`], which names its path itself.
    pub fn reason(&self) -> String {
        match self {
            Error::Io { source, .. } => source.to_string(),
            Error::NotFound { .. } => "no such file or directory".to_string(),
            Error::Invalid { message, .. } => message.clone(),
            other => other.to_string(),
        }
    }
}

/// A path for a person to read: as it is when it is UTF-8; otherwise each byte that is not
/// UTF-8 is written `\xNN` (a Latin-1 `café` is `caf\xE9`), so the message names the file
/// unambiguously instead of showing `�`. Control characters are escaped the same way.
pub fn shown(path: &Path) -> Shown<'_> {
    Shown(path.as_os_str())
}

/// See [`shown`].
pub struct Shown<'a>(&'a OsStr);

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use std::fmt::Write;
        use std::os::unix::ffi::OsStrExt;
        for chunk in self.0.as_bytes().utf8_chunks() {
            for c in chunk.valid().chars() {
                if c.is_control() {
                    for byte in c.to_string().bytes() {
                        write!(f, "\\x{byte:02X}")?;
                    }
                } else {
                    f.write_char(c)?;
                }
            }
            for byte in chunk.invalid() {
                write!(f, "\\x{byte:02X}")?;
            }
        }
        Ok(())
    }
}

/// [`shown`] as a `String`.
pub fn shown_string(path: &Path) -> String {
    shown(path).to_string()
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// One thing that went wrong with one file while the run went on.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, serde::Deserialize)]
pub struct Problem {
    /// Site-relative path (with `/`) or, for files outside the site, the path as given.
    pub path: String,
    /// Short, stable code: `unreadable`, `symlink-loop`, `symlink-outside-site`, …
    pub code: String,
    /// What happened, for a person.
    pub message: String,
}

impl Problem {
    pub fn new(path: impl Into<String>, code: &str, message: impl Into<String>) -> Self {
        Problem {
            path: path.into(),
            code: code.to_string(),
            message: message.into(),
        }
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {} [{}]", self.path, self.message, self.code)
    }
}
