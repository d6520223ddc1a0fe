//! Bad input gets a clear message with its path, the run goes on, nothing panics, and the
//! input is never written to.

use crate::common;

use std::os::unix::fs::symlink;

use common::{analyze_json, webdiet, write_site, SPACER_GIF};
use predicates::prelude::*;

fn problem_codes(inv: &serde_json::Value) -> Vec<(String, String)> {
    inv["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["path"].as_str().unwrap().to_string(),
                p["code"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn nonexistent_site_is_a_fatal_error_naming_the_path() {
    webdiet()
        .args(["analyze", "/no/such/site-dir"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("/no/such/site-dir"))
        .stderr(predicate::str::contains("no such file or directory"));
}

#[test]
fn a_file_instead_of_a_directory_is_a_fatal_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("page.html");
    std::fs::write(&file, "<p>x").unwrap();
    webdiet()
        .arg("analyze")
        .arg(&file)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("page.html"))
        .stderr(predicate::str::contains("not a site directory"));
}

#[test]
fn usage_errors_exit_2() {
    webdiet().arg("analyze").assert().code(2);
    webdiet().args(["frobnicate", "x"]).assert().code(2);
}

#[test]
fn odd_files_are_reported_and_the_rest_is_still_analyzed() {
    let dir = tempfile::tempdir().unwrap();
    write_site(
        dir.path(),
        &[
            ("index.html", b"<img src=ok.gif><a href=empty.html>e</a>"),
            ("ok.gif", SPACER_GIF),
            ("binary.html", b"\x00\x01\x02\x03\xff\xfe garbage"),
            ("empty.html", b""),
            ("empty.gif", b""),
            ("latin1.html", b"<p>Gr\xfc\xdfe \x96 caf\xe9</p>"),
            ("fake.gif", b"<html>not a gif</html>"),
        ],
    );
    symlink(dir.path(), dir.path().join("loop")).unwrap();
    symlink("/etc", dir.path().join("outside")).unwrap();
    symlink("missing-target", dir.path().join("dangling.html")).unwrap();
    let before = snapshot(dir.path());

    let inv = analyze_json(dir.path());
    let codes = problem_codes(&inv);
    for (path, code) in [
        // Served as text/html, it is a page however odd its bytes (browsers render it).
        ("binary.html", "charset-guessed"),
        ("empty.html", "empty"),
        ("latin1.html", "charset-guessed"),
        ("fake.gif", "misnamed"),
        ("loop", "symlink-loop"),
        ("outside", "symlink-outside-site"),
        ("dangling.html", "symlink-dangling"),
    ] {
        assert!(
            codes.contains(&(path.to_string(), code.to_string())),
            "expected {code} for {path} in {codes:?}"
        );
    }
    // The good page is still analyzed and nothing under /etc was listed.
    assert_eq!(inv["broken_references"], serde_json::json!([]));
    assert!(inv["bytes"].as_u64().unwrap() < 10_000);
    assert_eq!(before, snapshot(dir.path()), "the input directory changed");
}

#[test]
fn problems_are_printed_on_stderr_with_their_path() {
    let dir = tempfile::tempdir().unwrap();
    write_site(
        dir.path(),
        &[("index.html", b"<p>x"), ("bad.css", b"\x00\x00\x00")],
    );
    webdiet()
        .arg("analyze")
        .arg(dir.path())
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "bad.css: named as css but the content is binary",
        ));
}

#[test]
fn a_huge_page_is_listed_but_not_parsed() {
    let dir = tempfile::tempdir().unwrap();
    let mut huge = b"<html><body>".to_vec();
    huge.resize(50 << 20, b'x');
    write_site(
        dir.path(),
        &[
            ("index.html", b"<a href=huge.html>h</a>"),
            ("huge.html", &huge),
        ],
    );
    let inv = analyze_json(dir.path());
    assert!(problem_codes(&inv).contains(&("huge.html".to_string(), "too-large".to_string())));
    assert_eq!(inv["pages"], 2);
    assert!(inv["bytes"].as_u64().unwrap() > 50 << 20);
}

#[test]
fn unreadable_files_are_reported() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    write_site(
        dir.path(),
        &[("index.html", b"<p>x"), ("secret.html", b"<p>s")],
    );
    let secret = dir.path().join("secret.html");
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o000)).unwrap();
    if std::fs::read(&secret).is_ok() {
        eprintln!("note: running as root, permissions do not stop reads; skipping");
        return;
    }
    let inv = analyze_json(dir.path());
    assert!(problem_codes(&inv).contains(&("secret.html".to_string(), "unreadable".to_string())));
}

#[test]
fn output_directory_inside_the_site_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    write_site(dir.path(), &[("index.html", b"<p>x")]);
    webdiet()
        .arg("rewrite")
        .arg(dir.path())
        .arg("--out")
        .arg(dir.path().join("out"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("inside the input site"));
}

/// Every path with its bytes and permissions, to prove the input was not touched.
fn snapshot(root: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for entry in walkdir::WalkDir::new(root).sort_by_file_name() {
        let entry = entry.unwrap();
        let rel = entry
            .path()
            .strip_prefix(root)
            .unwrap()
            .display()
            .to_string();
        let bytes = if entry.file_type().is_file() {
            std::fs::read(entry.path()).unwrap()
        } else {
            Vec::new()
        };
        out.push((rel, bytes));
    }
    out
}

fn mkfifo(path: &std::path::Path) {
    let made = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(made.success(), "mkfifo {}", path.display());
}

/// Runs webdiet with `args`, and kills it if it has not finished in 20 s: a read that blocks
/// or never ends is then a test failure, not a hung test.
fn finishes(args: &[&std::ffi::OsStr]) -> std::process::Output {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("webdiet"))
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > std::time::Duration::from_secs(20) {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("webdiet {args:?} did not finish in 20 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

fn assert_refused(out: &std::process::Output, names: &std::path::Path, says: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(&names.display().to_string()), "{stderr}");
    assert!(stderr.contains(says), "expected {says:?} in: {stderr}");
}

#[test]
fn report_refuses_a_fifo_a_device_and_a_file_over_its_limit_without_reading_them() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("f.json");
    mkfifo(&fifo);
    let out = finishes(&["report".as_ref(), fifo.as_os_str()]);
    assert_refused(&out, &fifo, "is a FIFO, not a regular file");
    let zero = std::path::Path::new("/dev/zero");
    let out = finishes(&["report".as_ref(), zero.as_os_str()]);
    assert_refused(&out, zero, "is a character device, not a regular file");
    // A sparse file of 2 GiB: over the limit, and refused before a byte of it is read.
    let huge = dir.path().join("huge.json");
    std::fs::File::create(&huge)
        .unwrap()
        .set_len(2 << 30)
        .unwrap();
    let out = finishes(&["report".as_ref(), huge.as_os_str()]);
    assert_refused(&out, &huge, &format!("larger than {} bytes", 1u64 << 30));
}

#[test]
fn a_fifo_or_an_endless_device_as_settings_or_trace_is_refused_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    write_site(&site, &[("index.html", b"<p>hi")]);
    let toml = site.join("webdiet.toml");
    mkfifo(&toml);
    let audit = |site: &std::path::Path| {
        finishes(&[
            "audit".as_ref(),
            site.as_os_str(),
            "--dry-run".as_ref(),
            "--no-replay".as_ref(),
            "--out".as_ref(),
            dir.path().join("out").as_os_str(),
        ])
    };
    assert_refused(&audit(&site), &toml, "is a FIFO, not a regular file");
    std::fs::remove_file(&toml).unwrap();
    symlink("/dev/zero", &toml).unwrap();
    assert_refused(&audit(&site), &toml, "is a character device");
    std::fs::remove_file(&toml).unwrap();
    std::fs::File::create(&toml)
        .unwrap()
        .set_len(2 << 30)
        .unwrap();
    assert_refused(
        &audit(&site),
        &toml,
        &format!("larger than {} bytes", 1u64 << 20),
    );
    std::fs::remove_file(&toml).unwrap();

    let trace = dir.path().join("up.trace");
    mkfifo(&trace);
    let link = format!("trace:{},{}", trace.display(), trace.display());
    let out = finishes(&[
        "replay".as_ref(),
        site.as_os_str(),
        "--link".as_ref(),
        link.as_ref(),
    ]);
    assert_refused(&out, &trace, "is a FIFO, not a regular file");
}

#[test]
fn a_fifo_or_a_device_given_as_the_site_is_called_what_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("site");
    mkfifo(&fifo);
    for command in ["analyze", "audit"] {
        let out = finishes(
            &[command.as_ref(), fifo.as_os_str(), "--no-replay".as_ref()]
                [..if command == "analyze" { 2 } else { 3 }],
        );
        assert_refused(&out, &fifo, "is a FIFO, not a site directory");
    }
    let out = finishes(&["analyze".as_ref(), "/dev/null".as_ref()]);
    assert_refused(
        &out,
        std::path::Path::new("/dev/null"),
        "is a character device, not a site directory",
    );
}
