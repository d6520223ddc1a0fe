//! `webdiet analyze`: the crawl and inventory, through the binary, on small sites made here
//! and on the real snapshots in ../shared.

use crate::common;

use common::{analyze_json, shared_corpus, webdiet, write_site, SPACER_GIF};
use predicates::prelude::*;
use serde_json::Value;

/// The resolved target of the first reference written as `value` in `page`.
fn target_of<'a>(inv: &'a Value, page: &str, value: &str) -> &'a Value {
    let doc = inv["documents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["path"] == page)
        .unwrap_or_else(|| panic!("no document {page}"));
    &doc["references"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["value"] == value)
        .unwrap_or_else(|| panic!("no reference {value} in {page}"))["target"]
}

#[test]
fn every_resolution_case_finds_its_file() {
    let dir = tempfile::tempdir().unwrap();
    let index = br##"<html><head><link rel=stylesheet href="css/site.css?v=2">
<style>@import "css/more.css"; td { background: url('img/cell.gif') }</style></head>
<body background="img\bg.gif">
<img src="IMAGES/LOGO.gif"><img src="icons/home"><img src="my%20pics/caf%C3%A9.gif#x">
<img src="img/x.gif?size=2" srcset="img/x.gif 1x, img/cell.gif 2x">
<span style="background:url(img/x.gif)">x</span>
<a href="sub/">sub</a><a href="#top">top</a><a href="http://www.example.com/">ext</a>
<a href="mailto:a@example.com">mail</a></body></html>"##;
    write_site(
        dir.path(),
        &[
            ("index.html", index),
            (
                "sub/index.html",
                br#"<base href="../img/"><img src="x.gif"><img src="../img/bg.gif">"#,
            ),
            (
                "css/site.css",
                b"body { background: url(../img/x.gif) } @media print { p { list-style: url(\"/img/cell.gif\") } }",
            ),
            ("css/more.css", b"/* url(missing.gif) */ p { color: red }"),
            ("img/x.gif", SPACER_GIF),
            ("img/bg.gif", SPACER_GIF),
            ("img/cell.gif", SPACER_GIF),
            ("Images/Logo.GIF", SPACER_GIF),
            ("icons/home.gif", SPACER_GIF),
            ("my pics/caf\u{e9}.gif", SPACER_GIF),
        ],
    );
    let inv = analyze_json(dir.path());
    assert_eq!(inv["broken_references"], serde_json::json!([]));
    let local = |page, value, path: &str, how: &str| {
        let t = target_of(&inv, page, value);
        assert_eq!(t["type"], "local", "{value}: {t}");
        assert_eq!(t["path"], path, "{value}");
        assert_eq!(t["how"], how, "{value}");
    };
    local("index.html", "css/site.css?v=2", "css/site.css", "exact");
    local("index.html", "css/more.css", "css/more.css", "exact");
    local("index.html", "img/cell.gif", "img/cell.gif", "exact");
    local("index.html", "img\\bg.gif", "img/bg.gif", "exact");
    local(
        "index.html",
        "IMAGES/LOGO.gif",
        "Images/Logo.GIF",
        "case-insensitive",
    );
    local(
        "index.html",
        "icons/home",
        "icons/home.gif",
        "extensionless",
    );
    local(
        "index.html",
        "my%20pics/caf%C3%A9.gif#x",
        "my pics/caf\u{e9}.gif",
        "exact",
    );
    local("index.html", "img/x.gif?size=2", "img/x.gif", "exact");
    local("index.html", "sub/", "sub/index.html", "directory-index");
    local("sub/index.html", "x.gif", "img/x.gif", "exact");
    local("sub/index.html", "../img/bg.gif", "img/bg.gif", "exact");
    local("css/site.css", "../img/x.gif", "img/x.gif", "exact");
    local("css/site.css", "/img/cell.gif", "img/cell.gif", "exact");
    assert_eq!(
        target_of(&inv, "index.html", "http://www.example.com/")["type"],
        "external"
    );
    assert_eq!(
        target_of(&inv, "index.html", "mailto:a@example.com")["type"],
        "external"
    );
    assert_eq!(inv["orphans"], serde_json::json!([]));
}

#[test]
fn inventory_json_has_the_documented_keys_and_consistent_totals() {
    let dir = tempfile::tempdir().unwrap();
    write_site(
        dir.path(),
        &[
            (
                "index.html",
                b"<img src=a.gif><img src=gone.gif><a href=b.html>b</a>",
            ),
            ("b.html", b"<p>b</p>"),
            ("a.gif", SPACER_GIF),
            ("unused.gif", SPACER_GIF),
            ("style.css", b"p{}"),
        ],
    );
    let inv = analyze_json(dir.path());
    for key in [
        "pages",
        "resources",
        "bytes",
        "by_type",
        "references",
        "broken_references",
        "orphans",
        "external_links",
        "problems",
    ] {
        assert!(inv.get(key).is_some(), "missing key {key}");
    }
    assert_eq!(inv["pages"], 2);
    assert_eq!(inv["resources"], 3);
    let by_type = inv["by_type"].as_object().unwrap();
    let count: u64 = by_type.values().map(|t| t["count"].as_u64().unwrap()).sum();
    let bytes: u64 = by_type.values().map(|t| t["bytes"].as_u64().unwrap()).sum();
    assert_eq!(count, 5);
    assert_eq!(bytes, inv["bytes"].as_u64().unwrap());
    assert_eq!(inv["by_type"]["gif"]["count"], 2);
    assert_eq!(inv["references"], 3);
    let broken = inv["broken_references"].as_array().unwrap();
    assert_eq!(broken.len(), 1);
    assert_eq!(broken[0]["page"], "index.html");
    assert_eq!(broken[0]["reference"], "gone.gif");
    assert!(broken[0]["reason"]
        .as_str()
        .unwrap()
        .contains("no such file"));
    assert_eq!(
        inv["orphans"],
        serde_json::json!(["style.css", "unused.gif"])
    );
}

#[test]
fn human_output_is_a_summary_table() {
    let dir = tempfile::tempdir().unwrap();
    write_site(
        dir.path(),
        &[
            ("index.html", b"<img src=a.gif><img src=gone.gif>"),
            ("a.gif", SPACER_GIF),
        ],
    );
    webdiet()
        .arg("analyze")
        .arg(dir.path())
        .assert()
        .success()
        .stdout(predicate::str::contains("1 page, 1 other file"))
        .stdout(predicate::str::contains("gif"))
        .stdout(predicate::str::contains("broken references"))
        .stdout(predicate::str::contains("index.html → gone.gif"));
}

#[test]
fn windows_1252_pages_without_a_charset_are_read_as_such() {
    let dir = tempfile::tempdir().unwrap();
    write_site(
        dir.path(),
        &[
            ("index.html", b"<p>caf\xe9</p><img src=\"caf\xe9.gif\">"),
            ("caf\u{e9}.gif", SPACER_GIF),
        ],
    );
    let inv = analyze_json(dir.path());
    assert_eq!(inv["documents"][0]["charset"], "windows-1252");
    assert_eq!(inv["broken_references"], serde_json::json!([]));
    assert_eq!(inv["problems"][0]["code"], "charset-guessed");
}

#[test]
fn analyze_shared_spacejam_finishes_with_plausible_counts() {
    let Some(dir) = shared_corpus("spacejam") else {
        return;
    };
    let inv = analyze_json(&dir);
    assert_eq!(inv["pages"], 380);
    assert_eq!(inv["by_type"]["gif"]["count"], 459);
    let refs = inv["references"].as_u64().unwrap();
    assert!(refs > 2 * 380, "only {refs} references in 380 pages");
    let broken = inv["broken_references"].as_array().unwrap().len() as u64;
    assert!(broken * 100 < refs, "{broken} of {refs} references broken");
}

#[test]
fn analyze_shared_libwww_resolves_extensionless_icons() {
    let Some(dir) = shared_corpus("libwww-docs") else {
        return;
    };
    let inv = analyze_json(&dir);
    assert!(inv["pages"].as_u64().unwrap() > 300);
    let t = target_of(
        &inv,
        "Library/User/Applications.html",
        "../../Icons/WWW/w3c_home",
    );
    assert_eq!(t["path"], "Icons/WWW/w3c_home.gif");
    assert_eq!(t["how"], "extensionless");
    let extensionless = inv["documents"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|d| d["references"].as_array().unwrap())
        .filter(|r| r["target"]["how"] == "extensionless")
        .count();
    assert!(
        extensionless > 100,
        "only {extensionless} negotiated references"
    );
    let broken_icons = inv["broken_references"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["kind"] == "img")
        .count();
    let images: usize = inv["documents"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|d| d["references"].as_array().unwrap())
        .filter(|r| r["kind"] == "img")
        .count();
    assert!(
        broken_icons * 10 < images,
        "{broken_icons} of {images} images broken"
    );
}

#[test]
fn analyze_the_default_corpus_finds_the_study_page_and_all_its_images() {
    let inv = analyze_json(&common::microscape());
    assert_eq!(inv["pages"], 1);
    assert_eq!(inv["by_type"]["gif"]["count"], 42);
    assert_eq!(inv["broken_references"], serde_json::json!([]));
    assert_eq!(inv["orphans"], serde_json::json!([]));
    assert_eq!(inv["problems"], serde_json::json!([]));
    let fetched: std::collections::BTreeSet<&str> = inv["documents"][0]["references"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["fetched"] == true)
        .map(|r| r["target"]["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        fetched.len(),
        42,
        "a first visit fetches the 42 distinct images"
    );
    assert_eq!(inv["documents"][0]["quirks"], true);
}
