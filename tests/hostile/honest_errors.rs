//! Errors say the truth: `verify` never calls nothing a success, every file the run could not
//! use is listed on stderr once and with the right reason, paths are printed escaped rather
//! than garbled, and the help states the limits the parser enforces. Each test runs the real
//! binary.

use crate::common;

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::Command;

use common::{chromium_available, webdiet, write_site, SPACER_GIF};
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

#[test]
fn report_on_a_directory_says_it_is_a_directory() {
    let dir = tempfile::tempdir().unwrap();
    webdiet()
        .arg("report")
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is a directory"))
        .stderr(predicate::str::contains("report.json"))
        .stderr(predicate::str::contains("no such file").not());
}

/// A site with a corrupt GIF that a page shows, a FIFO named like a page and a page that
/// cannot be opened (a link to nothing, unreadable even for root).
fn odd_site(root: &Path) {
    write_site(
        root,
        &[
            (
                "index.html",
                b"<html><body><img src=broken.gif><img src=dot.gif></body></html>",
            ),
            ("broken.gif", b"GIF89a\x01\x00\x01\x00garbage"),
            ("dot.gif", SPACER_GIF),
        ],
    );
    let made = Command::new("mkfifo")
        .arg(root.join("pipe.html"))
        .status()
        .unwrap();
    assert!(made.success());
    symlink("nowhere.html", root.join("lost.html")).unwrap();
}

#[test]
fn corrupt_gifs_fifos_and_unreadable_files_are_listed_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("odd");
    odd_site(&site);
    let out = dir.path().join("out");
    let expect = |command: &str, stderr: &str, codes: &[&str]| {
        for (file, code) in [
            ("broken.gif", "corrupt-image"),
            ("pipe.html", "not-a-file"),
            ("lost.html", "symlink-dangling"),
        ] {
            let line = format!("{}/{file}: ", site.display());
            let listed = stderr
                .lines()
                .any(|l| l.contains(&line) && l.ends_with(&format!("[{code}]")));
            assert_eq!(
                listed,
                codes.contains(&code),
                "{command}: {file} [{code}]\n{stderr}"
            );
        }
    };
    let all = ["corrupt-image", "not-a-file", "symlink-dangling"];
    let (_, stderr) = run(webdiet().arg("analyze").arg(&site), 0);
    // analyze does not decode images.
    expect("analyze", &stderr, &["not-a-file", "symlink-dangling"]);
    let (_, stderr) = run(
        webdiet().arg("rewrite").arg(&site).arg("--out").arg(&out),
        0,
    );
    expect("rewrite", &stderr, &all);
    let (_, stderr) = run(
        webdiet()
            .arg("audit")
            .arg(&site)
            .arg("--out")
            .arg(&out)
            .arg("--no-replay"),
        0,
    );
    expect("audit", &stderr, &all);
    let (_, stderr) = run(
        webdiet().arg("replay").arg(&site).args([
            "--runs",
            "1",
            "--modes",
            "pipelined",
            "--tests",
            "first",
        ]),
        0,
    );
    expect("replay", &stderr, &["not-a-file", "symlink-dangling"]);
}

#[test]
fn a_file_that_cannot_be_read_is_reported_once_and_never_as_unwritable() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("latin1");
    write_site(
        &site,
        &[("index.html", b"<p><a href=\"caf%E9.html\">caf\xe9</a>")],
    );
    // A Latin-1 name, as old FTP uploads have them.
    let name = site.join(OsStr::from_bytes(b"caf\xe9.html"));
    std::fs::write(&name, "<p>latin").unwrap();
    let out = dir.path().join("out");
    for command in ["rewrite", "audit"] {
        let mut cmd = webdiet();
        cmd.arg(command).arg(&site).arg("--out").arg(&out);
        if command == "audit" {
            cmd.arg("--no-replay");
        }
        let (_, stderr) = run(&mut cmd, 0);
        assert!(!stderr.contains("[unwritable]"), "{command}:\n{stderr}");
        let mut seen = std::collections::BTreeSet::new();
        for line in stderr.lines().filter(|l| l.ends_with(']')) {
            let path = line.split(": ").nth(1).unwrap_or(line);
            let code = line.rsplit('[').next().unwrap();
            assert!(
                seen.insert((path.to_string(), code.to_string())),
                "{command} printed {path} [{code} twice:\n{stderr}"
            );
            assert!(
                line.matches(path).count() == 1,
                "{command} repeats the path in: {line}"
            );
        }
    }
}

#[test]
fn paths_that_are_not_utf8_are_printed_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join(OsStr::from_bytes(b"caf\xe9-missing"));
    let (_, stderr) = run(webdiet().arg("analyze").arg(&missing), 2);
    assert!(stderr.contains("caf\\xE9-missing"), "{stderr}");
    assert!(!stderr.contains('\u{FFFD}'), "{stderr}");

    // A site whose own directory name is Latin-1: problems inside it name it escaped.
    let site = dir.path().join(OsStr::from_bytes(b"site-\xe9"));
    write_site(&site, &[("index.html", b"<p>x")]);
    symlink("nowhere.html", site.join("lost.html")).unwrap();
    let (_, stderr) = run(webdiet().arg("analyze").arg(&site), 0);
    assert!(stderr.contains("site-\\xE9/lost.html"), "{stderr}");
    assert!(!stderr.contains('\u{FFFD}'), "{stderr}");
}

#[test]
fn modes_all_and_tests_both_are_accepted_as_the_help_says() {
    let dir = tempfile::tempdir().unwrap();
    write_site(
        dir.path(),
        &[("index.html", b"<p>x"), ("dot.gif", SPACER_GIF)],
    );
    let (stdout, _) = run(
        webdiet()
            .arg("replay")
            .arg(dir.path())
            .args(["--modes", "all", "--tests", "both", "--runs", "1", "--json"]),
        0,
    );
    let rows: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let rows = rows.as_array().unwrap();
    let mut modes: Vec<&str> = rows.iter().map(|r| r["mode"].as_str().unwrap()).collect();
    modes.sort();
    modes.dedup();
    let mut all = webdiet::replay::Mode::names();
    all.sort();
    assert_eq!(modes, all, "--modes all is every mode of the table");
    assert_eq!(rows.len(), 2 * all.len(), "every mode × two tests");
}

#[test]
fn numeric_limits_are_in_the_help_and_enforced() {
    let help = webdiet().args(["help", "replay"]).output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    for (flag, low, high) in [
        ("--runs", 1u64, 1000u64),
        ("--connections", 1, 64),
        ("--mss", 88, 65_000),
        ("--client-buffer", 64, 1 << 20),
    ] {
        let section = help
            .split("\n      --")
            .find(|s| s.starts_with(&flag[2..]))
            .unwrap_or_else(|| panic!("{flag} is not in the help"));
        assert!(
            section.contains(&format!("{low}–{high}")),
            "the help of {flag} does not give {low}–{high}:\n{section}"
        );
        let dir = tempfile::tempdir().unwrap();
        for bad in [low - 1, high + 1] {
            webdiet()
                .arg("replay")
                .arg(dir.path())
                .args([flag, &bad.to_string()])
                .assert()
                .code(2)
                .stderr(predicate::str::contains(flag));
        }
    }
}
