//! Names the build for `--version` and for `batch`'s settings fingerprint: the package
//! version, plus the git revision (and `-dirty` for uncommitted changes to tracked files) when
//! built from a checkout. Two builds of one version can measure differently (every change to
//! a conversion does), so a batch directory must never mix their unit reports; ripgrep's
//! build script names its builds the same way. The date of that revision's commit dates the
//! man pages (`webdiet man`).

use std::path::PathBuf;

#[path = "build/git.rs"]
mod git;

fn main() {
    let dir =
        std::env::var_os("CARGO_MANIFEST_DIR").map_or_else(|| PathBuf::from("."), PathBuf::from);
    // What the name depends on: the sources (for `-dirty`), and the git files a commit or a
    // checkout changes (`git::watched`). Only paths that exist: Cargo reruns the script on
    // every command while a watched path is missing.
    let sources = ["build.rs", "Cargo.toml", "Cargo.lock", "src"].map(|p| dir.join(p));
    for path in sources
        .iter()
        .filter(|p| p.exists())
        .chain(&git::watched(&dir))
    {
        println!("cargo:rerun-if-changed={}", path.display());
    }
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let build = match git::revision(&dir) {
        Some(rev) => format!("{version} (rev {rev})"),
        None => version,
    };
    println!("cargo:rustc-env=WEBDIET_BUILD={build}");
    let date = git::commit_date(&dir).unwrap_or_default();
    println!("cargo:rustc-env=WEBDIET_COMMIT_DATE={date}");
}
