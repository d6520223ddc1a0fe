//! The rewrite must not change how pages look: the default corpus and a sample of Space Jam
//! pages, rewritten (images and markup), render pixel-identical in headless Chromium.

mod common;

use std::path::Path;

use common::{chromium_available, shared_corpus, webdiet};

/// Rewrites `site` into a temporary directory and checks `pages` of it (all when `None`).
fn rewrite_and_verify(site: &Path, pages: Option<usize>) {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    webdiet()
        .arg("rewrite")
        .arg(site)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let mut verify = webdiet();
    verify
        .arg("verify")
        .arg(site)
        .arg(out.join("site"))
        .arg("--out")
        .arg(tmp.path().join("diff"))
        .arg("--json");
    if let Some(n) = pages {
        verify.args(["--pages", &n.to_string()]);
    }
    let output = verify.output().unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|_| panic!("verify failed: {}", String::from_utf8_lossy(&output.stderr)));
    let differing: Vec<String> = report["pages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["differing_pixels"] != 0)
        .map(|p| format!("{} ({} px)", p["page"], p["differing_pixels"]))
        .collect();
    assert!(
        differing.is_empty(),
        "pages render differently: {differing:?}"
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn the_rewritten_default_corpus_renders_pixel_identical() {
    if chromium_available() {
        rewrite_and_verify(&common::microscape(), None);
    }
}

#[test]
fn a_sample_of_rewritten_space_jam_pages_renders_pixel_identical() {
    let Some(spacejam) = shared_corpus("spacejam") else {
        return;
    };
    if chromium_available() {
        rewrite_and_verify(&spacejam, Some(12));
    }
}
