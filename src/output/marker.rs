//! The small file by which webdiet knows its own output: `DIR/.webdiet-output` lists what a
//! run wrote into `DIR`. (The marker of a staging directory, which says which process is
//! building it, is `crate::scratch`'s.)

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// The name of the marker in an output directory.
pub const MARKER: &str = ".webdiet-output";
/// `entries` holding this claims every name in the directory (verify's diff images).
pub(super) const EVERYTHING: &str = "*";
const TOOL: &str = "webdiet";

/// `DIR/.webdiet-output`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Marker {
    /// Always `webdiet`.
    pub tool: String,
    /// The version that last wrote to the directory.
    pub version: String,
    /// The command that last wrote to it (`audit`, `rewrite`, `verify`).
    pub command: String,
    /// The names directly in the directory that webdiet wrote and may replace; `*` for all.
    pub entries: BTreeSet<String>,
}

/// What is found at `DIR/.webdiet-output`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// Nothing: webdiet never wrote here (or this is a new directory).
    Absent,
    Ours(Marker),
    /// Something of that name that webdiet did not write.
    Foreign(String),
}

impl Marker {
    pub fn new(command: &str, entries: BTreeSet<String>) -> Self {
        Marker {
            tool: TOOL.to_string(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            command: command.to_string(),
            entries,
        }
    }

    /// Reads the marker of `dir`.
    pub fn find(dir: &Path) -> Found {
        let path = dir.join(MARKER);
        match fs::symlink_metadata(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Found::Absent,
            Err(e) => return Found::Foreign(format!("cannot be read: {e}")),
            Ok(meta) if !meta.is_file() => {
                return Found::Foreign("is not a file webdiet wrote".to_string())
            }
            Ok(_) => {}
        }
        match fs::read(&path)
            .map_err(|e| e.to_string())
            .and_then(|bytes| serde_json::from_slice::<Marker>(&bytes).map_err(|e| e.to_string()))
        {
            Ok(marker) if marker.tool == TOOL => Found::Ours(marker),
            Ok(_) => Found::Foreign("was not written by webdiet".to_string()),
            Err(e) => Found::Foreign(format!("is not a webdiet marker ({e})")),
        }
    }

    /// Whether webdiet wrote the entry `name` of the directory.
    pub fn claims(&self, name: &str) -> bool {
        self.entries.contains(name) || self.entries.contains(EVERYTHING)
    }

    pub fn to_json(&self) -> String {
        crate::report::json::to_string(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_marker_is_read_back_and_claims_what_it_lists() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(Marker::find(dir.path()), Found::Absent);
        let marker = Marker::new("audit", ["site".to_string()].into());
        fs::write(dir.path().join(MARKER), marker.to_json()).unwrap();
        let Found::Ours(read) = Marker::find(dir.path()) else {
            panic!("our marker was not recognised")
        };
        assert!(read.claims("site"));
        assert!(!read.claims("report.json"));
        fs::write(dir.path().join(MARKER), "my notes").unwrap();
        assert!(matches!(Marker::find(dir.path()), Found::Foreign(_)));
    }
}
