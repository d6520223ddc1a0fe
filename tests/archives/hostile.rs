//! Hostile archives: every kind of damage is reported where it is, as a problem with its code,
//! and every undamaged record around it still makes its page; nothing crashes and nothing is
//! written outside the run's own directories.

use std::path::Path;

use serde_json::Value;

use crate::common::{self, archives};

/// `analyze --json FILE`: the inventory, or (exit 2) the error message.
fn analyze(file: &Path) -> Result<Value, String> {
    let out = common::webdiet()
        .args(["analyze", "--json"])
        .arg(file)
        .output()
        .unwrap();
    match out.status.code() {
        Some(0) => Ok(serde_json::from_slice(&out.stdout).unwrap()),
        Some(2) => Err(String::from_utf8_lossy(&out.stderr).into_owned()),
        other => panic!(
            "{}: exit {other:?} (a crash?): {}",
            file.display(),
            String::from_utf8_lossy(&out.stderr)
        ),
    }
}

fn pages(inv: &Value) -> Vec<String> {
    let mut pages: Vec<String> = inv["documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["path"].as_str().unwrap().to_string())
        .collect();
    pages.sort();
    pages
}

fn codes(inv: &Value) -> Vec<String> {
    inv["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["code"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn damaged_records_are_reported_and_the_records_around_them_still_read() {
    let dir = archives::archives().join("hostile");
    for (file, code, kept) in [
        (
            "truncated.warc.gz",
            "archive-gzip-corrupt",
            &["good-0.html", "good-2.html"][..],
        ),
        ("lying.warc", "archive-length-wrong", &["good-1.html"][..]),
        (
            "lying.warc",
            "archive-length-past-end",
            &["good-1.html"][..],
        ),
        (
            "huge-header.warc",
            "archive-header-too-large",
            &["good-0.html"][..],
        ),
        (
            "huge-http-head.warc.gz",
            "archive-http-invalid",
            &["good-0.html"][..],
        ),
        (
            "badhash.wacz",
            "wacz-hash-mismatch",
            &["good-0.html", "good-1.html"][..],
        ),
        (
            "slip.wacz",
            "wacz-unsafe-name",
            &["good-0.html", "good-1.html"][..],
        ),
    ] {
        let inv = analyze(&dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(
            codes(&inv).iter().any(|c| c == code),
            "{file}: no {code} in {:?}",
            inv["problems"]
        );
        assert_eq!(pages(&inv), kept, "{file}");
    }
}

#[test]
fn a_wacz_entry_that_climbs_out_is_never_read_and_nothing_is_written_outside() {
    let dir = archives::archives().join("hostile");
    let inv = analyze(&dir.join("slip.wacz")).unwrap();
    let unsafe_names: Vec<&str> = inv["problems"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["code"] == "wacz-unsafe-name")
        .map(|p| p["path"].as_str().unwrap())
        .collect();
    assert_eq!(unsafe_names.len(), 2, "{unsafe_names:?}");
    assert!(unsafe_names.iter().any(|p| p.contains("../../evil")));
    for place in [dir.as_path(), dir.parent().unwrap(), &std::env::temp_dir()] {
        assert!(!place.join("evil.warc.gz").exists());
    }
    // The records behind the unsafe names are never indexed: only the two good pages.
    assert_eq!(inv["archive"]["records"]["response"], 2);
}

#[test]
fn a_file_that_cannot_be_read_by_offset_is_refused_with_the_reason() {
    let dir = archives::archives().join("hostile");
    let whole = analyze(&dir.join("whole.warc.gz")).unwrap_err();
    assert!(whole.contains("whole file is one gzip stream"), "{whole}");
    let plain = analyze(&dir.join("notgzip.warc.gz")).unwrap_err();
    assert!(plain.contains("not a gzip file"), "{plain}");
    let tmp = tempfile::tempdir().unwrap();
    let junk = tmp.path().join("junk.wacz");
    std::fs::write(&junk, b"not a zip at all").unwrap();
    let junk = analyze(&junk).unwrap_err();
    assert!(junk.contains("not a readable ZIP"), "{junk}");
}
