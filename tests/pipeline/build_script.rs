//! The build script reruns when a commit or a checkout can change the build's name, and at no
//! other time (issue 44: a checkout without `.git/packed-refs` reran it, and rebuilt the
//! crate, on every cargo command).
//!
//! The check is the issue's own: two cargo commands in a row, the second compiles nothing.
//! Building webdiet itself in a throwaway repository would take minutes (a copy of the crate is
//! another package to Cargo, its dependencies included), so the commands build a probe crate
//! instead: webdiet's `build.rs` and `build/git.rs` as they are, a one-line library, no
//! dependencies. Its twelve cargo commands take 3.3 to 3.9 s in all on the 2-core machine
//! at a load of 4 (2026-12-07), which buys the real thing: Cargo's own reading of what the
//! script watches, in a plain checkout, a worktree and a branch only in `packed-refs`. The
//! cases in between are the unit tests of `build/git.rs`.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A repository holding the probe crate, committed on `main`.
fn probe_repo(root: &Path) -> PathBuf {
    let dir = root.join("main");
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::create_dir_all(dir.join("build")).unwrap();
    for file in ["build.rs", "build/git.rs"] {
        std::fs::copy(here.join(file), dir.join(file)).unwrap();
    }
    std::fs::write(
        dir.join("Cargo.toml"),
        "[package]\nname = \"probe\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("src/lib.rs"),
        "pub const BUILD: &str = env!(\"WEBDIET_BUILD\");\n",
    )
    .unwrap();
    std::fs::write(dir.join(".gitignore"), "/target\n").unwrap();
    git(&dir, &["init", "-q", "-b", "main"]);
    git(&dir, &["add", "."]);
    git(&dir, &["commit", "-q", "-m", "the probe"]);
    dir
}

/// Runs git apart from the user's and the system's configuration.
fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=webdiet",
            "-c",
            "user.email=webdiet@example.org",
        ])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn commit(dir: &Path) {
    git(dir, &["commit", "-q", "--allow-empty", "-m", "a commit"]);
}

/// `cargo build` of the probe in `dir` (its own target directory): whether it compiled
/// anything, the build script's run included.
fn compiles(dir: &Path) -> bool {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args(["build", "--offline"])
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "cargo build in {}: {stderr}",
        dir.display()
    );
    stderr.contains("Compiling probe")
}

#[test]
fn the_second_of_two_cargo_builds_compiles_nothing_until_a_commit() {
    if Command::new("git").arg("--version").output().is_err() {
        assert!(!crate::common::in_ci(), "git is missing and CI=true");
        eprintln!("note: skipped: git is not installed");
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let main = probe_repo(root.path());
    assert!(
        !main.join(".git/packed-refs").exists(),
        "git wrote no packed-refs"
    );
    assert!(compiles(&main), "the first build");
    assert!(
        !compiles(&main),
        "a checkout without packed-refs: the second build"
    );
    commit(&main);
    assert!(compiles(&main), "after a commit");
    assert!(!compiles(&main), "the build after that");

    let tree = root.path().join("tree");
    git(
        &main,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "feature",
            tree.to_str().unwrap(),
        ],
    );
    assert!(compiles(&tree), "a worktree's first build");
    assert!(!compiles(&tree), "a worktree: the second build");
    commit(&main);
    assert!(
        !compiles(&tree),
        "a worktree after a commit on another branch"
    );
    commit(&tree);
    assert!(compiles(&tree), "a worktree after a commit on its branch");

    git(&main, &["pack-refs", "--all"]);
    assert!(compiles(&main), "its branch's loose ref packed");
    assert!(
        !compiles(&main),
        "a branch only in packed-refs: the second build"
    );
    commit(&main);
    assert!(
        compiles(&main),
        "a branch only in packed-refs, after a commit"
    );
    assert!(!compiles(&main), "the build after that");
}
