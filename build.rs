//! Names the build for `--version` and for `batch`'s settings fingerprint: the package
//! version, plus the git revision (and `-dirty` for uncommitted changes to tracked files) when
//! built from a checkout. Two builds of one version can measure differently (every change to
//! a conversion does), so a batch directory must never mix their unit reports; ripgrep's
//! build script names its builds the same way.

use std::process::Command;

fn main() {
    // What the name depends on: the sources (for `-dirty`), and git's HEAD, the branch it
    // names and the index (a commit moves them).
    for path in ["build.rs", "Cargo.toml", "Cargo.lock", "src"] {
        println!("cargo:rerun-if-changed={path}");
    }
    if let Some(dir) = git(&["rev-parse", "--git-dir"]) {
        let dir = std::path::Path::new(&dir);
        let branch = git(&["symbolic-ref", "-q", "HEAD"]);
        for file in ["HEAD", "index", "packed-refs"]
            .into_iter()
            .chain(branch.as_deref())
        {
            println!("cargo:rerun-if-changed={}", dir.join(file).display());
        }
    }
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let build = match revision() {
        Some(rev) => format!("{version} (rev {rev})"),
        None => version,
    };
    println!("cargo:rustc-env=WEBDIET_BUILD={build}");
}

/// `git rev-parse --short=12 HEAD`, with `-dirty` when a tracked file differs from it; `None`
/// outside a checkout or without git.
fn revision() -> Option<String> {
    let rev = git(&["rev-parse", "--short=12", "HEAD"]).filter(|r| !r.is_empty())?;
    let dirty =
        git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
    Some(match dirty {
        true => format!("{rev}-dirty"),
        false => rev,
    })
}

/// What git prints for `args`, trimmed; `None` if it fails. `--no-optional-locks`: a status
/// must not rewrite the index, which would make this script run again on the next build.
fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("--no-optional-locks")
        .args(args)
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}
