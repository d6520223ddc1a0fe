//! Nothing left behind: a run killed in the middle of an archive leaves nothing that the next
//! run does not remove. SIGINT, SIGTERM and SIGHUP are caught and the scratch tree removed at
//! once; SIGKILL cannot be caught, and the next run finds the tree's owner gone (its lock on
//! the tree's marker released by the kernel) and removes it: in `$TMPDIR`, in an output
//! directory, and in a batch's `units/` (docs/archives.md, "Nothing left behind").

use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::common::{self, archives};

/// 20,000 tiny records: long enough to materialise that a run can be caught at it.
fn many() -> &'static Path {
    static FILE: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    let (_, file) = FILE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("many.warc.gz");
        archives::make_archives(&["many", file.to_str().unwrap(), "20000"]);
        (dir, file)
    });
    file
}

/// The entries of `dir` whose names start with `prefix`.
fn entries(dir: &Path, prefix: &str) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter(|e| e.file_name().to_string_lossy().starts_with(prefix))
                .map(|e| e.path())
                .collect()
        })
        .unwrap_or_default()
}

/// Waits (up to two minutes) until `dir` holds an entry named `prefix…` that holds a `site`
/// directory (the run is at work in it); panics if the child ends first.
fn wait_for_work(child: &mut Child, dir: &Path, prefix: &str) -> PathBuf {
    let start = Instant::now();
    loop {
        if let Some(found) = entries(dir, prefix)
            .into_iter()
            .find(|p| p.join("site").exists() || walk_has_site(p))
        {
            return found;
        }
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the run ended ({status}) before it was caught at work in {prefix}…");
        }
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "no {prefix}… in {}",
            dir.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Whether a scratch tree nested one level down (a staging directory's archive) has a site.
fn walk_has_site(dir: &Path) -> bool {
    entries(dir, ".webdiet-scratch-")
        .iter()
        .any(|p| p.join("site").exists())
}

/// Starts `webdiet ARGS…` with `$TMPDIR` at `tmp`, its standard output dropped.
fn start(args: &[&std::ffi::OsStr], tmp: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_webdiet"))
        .args(args)
        .env("TMPDIR", tmp)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap()
}

fn signal(child: &Child, sig: i32) {
    let pid = i32::try_from(child.id()).unwrap();
    // A test may send signals to its own children.
    let sent = Command::new("kill")
        .arg(format!("-{sig}"))
        .arg(pid.to_string())
        .status()
        .unwrap();
    assert!(sent.success());
}

#[test]
fn a_caught_signal_during_an_archive_run_removes_its_scratch_tree_at_once() {
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        let tmp = tempfile::tempdir().unwrap();
        let mut child = start(
            &["analyze".as_ref(), "--quiet".as_ref(), many().as_os_str()],
            tmp.path(),
        );
        wait_for_work(&mut child, tmp.path(), ".webdiet-scratch-archive-");
        signal(&child, sig);
        let status = child.wait().unwrap();
        assert!(!status.success(), "signal {sig}: {status}");
        let left: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().collect();
        assert!(left.is_empty(), "signal {sig} left {left:?}");
    }
}

#[test]
fn what_a_killed_archive_run_leaves_the_next_run_removes() {
    // In $TMPDIR (a command without an output directory).
    let tmp = tempfile::tempdir().unwrap();
    let mut child = start(
        &["analyze".as_ref(), "--quiet".as_ref(), many().as_os_str()],
        tmp.path(),
    );
    let left = wait_for_work(&mut child, tmp.path(), ".webdiet-scratch-archive-");
    signal(&child, libc::SIGKILL);
    child.wait().unwrap();
    assert!(
        left.exists(),
        "SIGKILL cannot be caught: the tree is still there"
    );
    let next = common::webdiet()
        .args(["links"])
        .env("TMPDIR", tmp.path())
        .output()
        .unwrap();
    assert!(next.status.success());
    assert!(
        !left.exists(),
        "the next run did not remove {}",
        left.display()
    );
    let said = String::from_utf8_lossy(&next.stderr);
    assert!(
        said.contains("removed, the scratch tree of an interrupted run"),
        "{said}"
    );

    // In an output directory: the archive's tree is kept in the run's staging directory.
    let out = tmp.path().join("out");
    let args = [
        "rewrite".as_ref(),
        "--out".as_ref(),
        out.as_os_str(),
        many().as_os_str(),
    ];
    let mut child = start(&args, tmp.path());
    let staging = wait_for_work(&mut child, &out, ".webdiet-partial-");
    signal(&child, libc::SIGKILL);
    child.wait().unwrap();
    assert!(staging.exists());
    let next = common::webdiet()
        .args(["rewrite", "--quiet", "--out"])
        .arg(&out)
        .arg(common::microscape())
        .env("TMPDIR", tmp.path())
        .output()
        .unwrap();
    assert!(
        next.status.success(),
        "{}",
        String::from_utf8_lossy(&next.stderr)
    );
    assert!(
        !staging.exists(),
        "the next run did not remove {}",
        staging.display()
    );
    assert!(entries(tmp.path(), ".webdiet-").is_empty());
}

#[test]
fn a_batch_unit_killed_by_its_scheduler_leaves_nothing_the_next_shard_keeps() {
    let tmp = tempfile::tempdir().unwrap();
    let list = tmp.path().join("list.txt");
    std::fs::write(&list, format!("{}\n", many().display())).unwrap();
    let out = tmp.path().join("batch");
    let batch = |extra: &[&str]| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_webdiet"));
        cmd.args(["batch", "--quiet", "--no-replay", "--out"])
            .arg(&out)
            .arg(&list)
            .args(extra)
            .env("TMPDIR", tmp.path())
            .stdout(std::process::Stdio::null());
        cmd
    };
    let mut child = batch(&[]).spawn().unwrap();
    let units = out.join("units");
    let left = wait_for_work(&mut child, &units, ".webdiet-scratch-unit-");
    signal(&child, libc::SIGKILL);
    child.wait().unwrap();
    assert!(left.exists());
    // Another shard of the same batch (here one with no unit of its own) starts, finds the
    // killed unit's tree ownerless, and removes it.
    let next = batch(&["--shard", "1/2"]).output().unwrap();
    assert!(
        next.status.success(),
        "{}",
        String::from_utf8_lossy(&next.stderr)
    );
    assert!(
        !left.exists(),
        "the next shard did not remove {}",
        left.display()
    );
    assert!(entries(&units, ".webdiet-scratch-").is_empty());
}
