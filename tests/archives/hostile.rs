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
        (
            "bomb.warc.gz",
            "archive-over-budget",
            &["good-0.html", "good-1.html"][..],
        ),
        (
            "bombpackage.wacz",
            "wacz-over-budget",
            &["good-0.html", "good-1.html"][..],
        ),
        (
            "bigpackage.wacz",
            "wacz-missing-entry",
            &["good-0.html", "good-1.html"][..],
        ),
        (
            "listed200.wacz",
            "wacz-duplicate-resource",
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

#[test]
fn a_body_encoded_twice_stops_at_its_records_budget_and_writes_nothing() {
    let dir = archives::archives().join("hostile");
    let tmp = tempfile::tempdir().unwrap();
    let out = common::webdiet()
        .args(["analyze", "--json"])
        .arg(dir.join("bomb.warc.gz"))
        .env("TMPDIR", tmp.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let inv: Value = serde_json::from_slice(&out.stdout).unwrap();
    let bomb = inv["problems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["code"] == "archive-over-budget")
        .expect("the bomb is reported");
    // 256 MiB from a record of a few hundred bytes: stopped at 1 MiB plus 1,032 times it.
    let message = bomb["message"].as_str().unwrap();
    assert!(message.contains("1032 times"), "{message}");
    assert!(
        inv["archive"]["missing"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["url"].as_str().unwrap().ends_with("/bomb.html")),
        "{}",
        inv["archive"]["missing"]
    );
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
}

#[test]
fn a_datapackage_that_lists_entries_again_and_again_costs_each_entry_once() {
    let dir = archives::archives().join("hostile");
    // The WARC listed 200 times is hashed and counted once, with one problem saying so.
    let inv = analyze(&dir.join("listed200.wacz")).unwrap();
    assert_eq!(inv["archive"]["wacz_hashes_verified"], 1);
    assert_eq!(codes(&inv), ["wacz-duplicate-resource"]);
    // 2,000,000 resources the package does not hold: 20 listed, the rest counted in one.
    let inv = analyze(&dir.join("bigpackage.wacz")).unwrap();
    let missing: Vec<&Value> = inv["problems"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["code"] == "wacz-missing-entry")
        .collect();
    assert_eq!(missing.len(), 21);
    assert!(missing[20]["message"]
        .as_str()
        .unwrap()
        .starts_with("1999980 more"));
}

#[test]
fn a_datapackage_of_millions_of_resources_takes_memory_in_proportion_to_the_package() {
    if !common::gnu_time() {
        return;
    }
    let dir = archives::archives().join("hostile");
    for name in ["bigpackage.wacz", "bombpackage.wacz"] {
        let file = dir.join(name);
        let bytes = std::fs::metadata(&file).unwrap().len();
        let Some((kib, _)) = common::peak_kib(&["analyze".as_ref(), file.as_os_str()]) else {
            return;
        };
        // The JSON is read within the package's budget (1 MiB plus 32 times the package) and
        // its resources one at a time: 64 MiB of process, plus what the budget lets in.
        let budget = (1 << 20) + 32 * bytes;
        assert!(
            kib * 1024 < (64 << 20) + budget,
            "{name}: {kib} KiB for a package of {bytes} bytes"
        );
    }
}

#[test]
fn an_archive_expands_on_disk_only_as_far_as_its_budget_and_the_flag_raises_it() {
    let dir = archives::archives().join("hostile");
    let file = dir.join("expanding.warc");
    let bytes = std::fs::metadata(&file).unwrap().len();
    let run = |extra: &[&str]| -> Value {
        let out = common::webdiet()
            .args(["analyze", "--json"])
            .args(extra)
            .arg(&file)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let over = |inv: &Value| {
        inv["problems"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| p["code"] == "archive-over-budget")
            .count()
    };
    let zeros = |inv: &Value| inv["by_type"]["other"]["bytes"].as_u64().unwrap_or(0);
    // 96 MiB of bodies from an archive of about 100 KB: 64 MiB plus 32 times the archive
    // fit, the rest is left out and reported, and the good pages around it are read.
    let inv = run(&[]);
    assert!(over(&inv) > 0, "{:#?}", inv["problems"]);
    assert!(zeros(&inv) <= (64 << 20) + 32 * bytes);
    assert_eq!(pages(&inv), ["good-0.html", "good-1.html"]);
    // Raised, it reads them all.
    let inv = run(&["--archive-budget", "1000"]);
    assert_eq!(over(&inv), 0, "{:#?}", inv["problems"]);
    assert_eq!(zeros(&inv), 8 * (12 << 20));
}
