//! Test helpers shared by unit tests: where `../shared` and the package corpus are, and how a
//! test that needs them skips.

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

/// The real sheets and scripts `.ci/package-corpus.sh` unpacks: `target/package-corpus/root`,
/// or `$WEBDIET_PACKAGE_CORPUS/root`. `None` when absent (with a note on how to get them),
/// except under `CI=true`, where a missing corpus is a failure.
pub fn package_corpus() -> Option<PathBuf> {
    let dir = match std::env::var_os("WEBDIET_PACKAGE_CORPUS") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/package-corpus"),
    }
    .join("root");
    if dir.is_dir() {
        Some(dir)
    } else if std::env::var("CI").as_deref() == Ok("true") {
        panic!(
            "{} is missing and CI=true (run .ci/package-corpus.sh)",
            dir.display()
        );
    } else {
        eprintln!(
            "note: skipped: {} is not here (run .ci/package-corpus.sh, or set \
             WEBDIET_PACKAGE_CORPUS)",
            dir.display()
        );
        None
    }
}
