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
