//! `--emit-wacz`: a new, self-contained WACZ of the rewritten site, written by the rules of
//! `--out` (never the input, never over a file webdiet did not write unless `--force`, never a
//! half-written file), with a provenance record beside each response.

use std::path::Path;

use serde_json::Value;

use crate::common::{self, archives};

fn rewrite(input: &Path, out: &Path, wacz: &Path, more: &[&str]) -> std::process::Output {
    common::webdiet()
        .arg("rewrite")
        .arg(input)
        .arg("--out")
        .arg(out)
        .arg("--emit-wacz")
        .arg(wacz)
        .args(more)
        .output()
        .unwrap()
}

#[test]
fn the_emitted_wacz_holds_the_rewritten_site_with_provenance_and_reads_back_as_that_site() {
    let set = archives::archives();
    let tmp = tempfile::tempdir().unwrap();
    let wacz = tmp.path().join("lighter.wacz");
    let out = rewrite(
        &set.join("microscape.wacz"),
        &tmp.path().join("out"),
        &wacz,
        &[],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value =
        serde_json::from_slice(&std::fs::read(tmp.path().join("out/report.json")).unwrap())
            .unwrap();
    let emitted = &report["archive"]["emitted"];
    assert!(
        emitted["response_records"].as_u64().unwrap() > 40,
        "{emitted}"
    );
    assert_eq!(emitted["response_records"], emitted["metadata_records"]);

    // Read back, it is the rewritten tree: same pages and files, same bytes.
    let back = archives::analyze(&[wacz.as_os_str()]);
    let tree = common::analyze_json(&tmp.path().join("out/site"));
    assert_eq!(archives::figures(&back), archives::figures(&tree));
    // Each converted image names its original record, digest and check.
    let warc = archives::zip_entry(&wacz, "archive/data.warc.gz");
    let mut text = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::MultiGzDecoder::new(&warc[..]), &mut text)
        .unwrap();
    let text = String::from_utf8_lossy(&text);
    assert!(
        !text.contains("WARC-Type: revisit"),
        "a derived WACZ refers to nothing outside it"
    );
    assert!(!text.contains("WARC-Type: conversion"));
    let provenance = text
        .split("WARC/1.1\r\n")
        .find(|r| {
            r.contains("WARC-Target-URI: metadata://webdiet/http://www.microscape.test/images/")
                && r.contains("gif-to-")
        })
        .expect("a provenance record of a converted image");
    for needle in [
        "\"record_id\": \"<urn:uuid:",
        "\"payload_digest\": \"sha1:",
        "pixel by pixel",
    ] {
        assert!(provenance.contains(needle), "{needle} not in {provenance}");
    }
    // pages.jsonl is the input's.
    assert_eq!(
        archives::zip_entry(&wacz, "pages/pages.jsonl"),
        archives::zip_entry(&set.join("microscape.wacz"), "pages/pages.jsonl")
    );
    let package: Value =
        serde_json::from_slice(&archives::zip_entry(&wacz, "datapackage.json")).unwrap();
    assert!(package["software"].as_str().unwrap().starts_with("webdiet"));
    assert!(package["description"]
        .as_str()
        .unwrap()
        .contains("microscape.wacz"));
}

#[test]
fn the_emitted_wacz_is_never_an_input_nor_a_file_webdiet_did_not_write() {
    let set = archives::archives();
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("in.wacz");
    std::fs::copy(set.join("microscape.wacz"), &input).unwrap();
    let before = std::fs::read(&input).unwrap();
    let refused = rewrite(&input, &tmp.path().join("out"), &input, &[]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--emit-wacz"));
    let foreign = tmp.path().join("mine.wacz");
    std::fs::write(&foreign, b"my own file").unwrap();
    let refused = rewrite(&input, &tmp.path().join("out"), &foreign, &[]);
    assert_eq!(refused.status.code(), Some(2));
    assert_eq!(std::fs::read(&foreign).unwrap(), b"my own file");
    // Its own earlier output it replaces; a foreign file only with --force.
    let ours = tmp.path().join("ours.wacz");
    assert!(rewrite(&input, &tmp.path().join("out"), &ours, &[])
        .status
        .success());
    assert!(rewrite(&input, &tmp.path().join("out"), &ours, &[])
        .status
        .success());
    assert!(
        rewrite(&input, &tmp.path().join("out"), &foreign, &["--force"])
            .status
            .success()
    );
    assert_ne!(std::fs::read(&foreign).unwrap(), b"my own file");
    // Even --force never writes over the input.
    let refused = rewrite(&input, &tmp.path().join("out"), &input, &["--force"]);
    assert_eq!(refused.status.code(), Some(2));
    assert_eq!(
        std::fs::read(&input).unwrap(),
        before,
        "the input was touched"
    );
    // No temporary file is left beside them.
    let left: Vec<String> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("partial"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_directory_can_be_written_as_a_wacz_too() {
    let tmp = tempfile::tempdir().unwrap();
    let wacz = tmp.path().join("site.wacz");
    let out = rewrite(
        &common::microscape(),
        &tmp.path().join("out"),
        &wacz,
        &["--site-url", "http://www.microscape.test/"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let back = archives::analyze(&[wacz.as_os_str()]);
    assert_eq!(back["archive"]["site_url"], "http://www.microscape.test/");
    assert_eq!(back["pages"], 1);
}
