//! Errors that stop a whole command, and problems that are reported while the run goes on.
//!
//! A fatal [`Error`] ends the command with exit code 2. A [`Problem`] is one bad file or
//! reference: it is printed with its path and counted, and the run continues (ripgrep's rule).

use std::path::PathBuf;

use serde::Serialize;

/// A failure that stops the command. Every variant names the path it is about.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{path}: no such file or directory")]
    NotFound { path: PathBuf },
    #[error("{path}: is a file, not a site directory")]
    NotADirectory { path: PathBuf },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{out}: the output directory is inside the input site {site}; choose another --out")]
    OutputInsideSite { out: PathBuf, site: PathBuf },
    #[error("{path}: {message}")]
    Invalid { path: PathBuf, message: String },
    #[error("{path}: Chromium not found; {hint}", hint = crate::verify::browser::INSTALL_HINT)]
    ChromiumMissing { path: PathBuf },
    #[error("{path}: Chromium did not start: {message}")]
    ChromiumFailed { path: PathBuf, message: String },
    #[error("{message}")]
    Usage { message: String },
    #[error("`webdiet {command}` is not yet implemented in this version")]
    NotImplemented { command: &'static str },
}

impl Error {
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }
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
