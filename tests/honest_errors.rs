//! Errors say the truth: `verify` never calls nothing a success. Each test runs the real
//! binary.

mod common;

use std::os::unix::fs::symlink;

use common::{chromium_available, webdiet, write_site};
use predicates::prelude::*;

/// `(stdout, stderr)` of a finished run whose exit code is `code`.
fn run(cmd: &mut assert_cmd::Command, code: i32) -> (String, String) {
    let out = cmd.assert().code(code).get_output().clone();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn verify_with_no_page_to_compare_fails_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    for tree in [&a, &b] {
        write_site(tree, &[("style.css", b"p { color: red }")]);
    }
    let (stdout, _) = run(
        webdiet()
            .arg("verify")
            .arg(&a)
            .arg(&b)
            .arg("--out")
            .arg(dir.path().join("out")),
        1,
    );
    assert!(stdout.contains("no page to compare"), "{stdout}");
    assert!(!stdout.contains("renders identically"), "{stdout}");
    assert!(!stdout.contains("0 of 0"), "{stdout}");

    let (stdout, _) = run(webdiet().args(["verify", "--json"]).arg(&a).arg(&b), 1);
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["pages"].as_array().unwrap().len(), 0);
    assert_eq!(report["incomplete"].as_array().unwrap().len(), 1);
}

#[test]
fn verify_refuses_to_check_zero_pages() {
    let dir = tempfile::tempdir().unwrap();
    write_site(dir.path(), &[("index.html", b"<p>x")]);
    webdiet()
        .args(["verify", "--pages", "0"])
        .arg(dir.path())
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--pages"));
}

#[test]
fn verify_with_an_unreadable_page_fails_and_names_it() {
    if !chromium_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    for tree in [&a, &b] {
        write_site(
            tree,
            &[("index.html", b"<html><body><p>Hello</p></body></html>")],
        );
    }
    // A page that cannot be opened, even by root: a link to nothing.
    symlink("missing.html", a.join("lost.html")).unwrap();
    let (stdout, stderr) = run(
        webdiet()
            .arg("verify")
            .arg(&a)
            .arg(&b)
            .arg("--out")
            .arg(dir.path().join("out")),
        1,
    );
    assert!(stdout.contains("1 page could not be read"), "{stdout}");
    assert!(stdout.contains("lost.html"), "{stdout}");
    assert!(stdout.contains("NOT VERIFIED"), "{stdout}");
    // The listing says which tree the file is in.
    assert!(
        stderr.contains(&format!("{}/lost.html", a.display())),
        "{stderr}"
    );
}
