//! Test helpers shared by unit tests: where `../shared` is, and how a test that needs it skips.

use std::path::PathBuf;

/// `../shared` next to the project (or `$WEBDIET_SHARED`, for worktrees that live elsewhere).
/// `None` when absent, except under `CI=true`, where a missing corpus is a failure.
pub fn shared_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("WEBDIET_SHARED") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared"),
    };
    if dir.is_dir() {
        Some(dir)
    } else if std::env::var("CI").as_deref() == Ok("true") {
        panic!("{} is missing and CI=true", dir.display());
    } else {
        None
    }
}

/// Prints why a test did nothing.
pub fn skip(what: &str) {
    eprintln!("note: skipped: ../shared/corpora/{what} is not here (set WEBDIET_SHARED)");
}
