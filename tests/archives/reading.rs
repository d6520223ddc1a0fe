//! The same site, whatever holds it: corpus/microscape as a directory and as the WARC (record
//! gzipped and plain), ARC (both) and WACZ make-archives captured through webdiet's server
//! analyze to the same inventory; `--at` and `--with` choose which captures make the site.

use std::ffi::OsStr;
use std::path::Path;

use crate::common::{self, archives};

use archives::figures;

fn analyze_archive(file: &Path, more: &[&OsStr]) -> serde_json::Value {
    let mut args: Vec<&OsStr> = vec![file.as_os_str()];
    args.extend_from_slice(more);
    archives::analyze(&args)
}

#[test]
fn a_warc_an_arc_and_a_wacz_of_microscape_analyze_to_the_directorys_inventory() {
    let set = archives::archives();
    let directory = figures(&common::analyze_json(&common::microscape()));
    let earlier = set.join("microscape-earlier.warc.gz");
    let with: [&OsStr; 2] = [OsStr::new("--with"), earlier.as_os_str()];
    for (file, more) in [
        ("microscape.warc.gz", &with[..]),
        ("microscape.warc", &with[..]),
        ("microscape.arc.gz", &[][..]),
        ("microscape.arc", &[][..]),
        ("microscape.wacz", &[][..]),
    ] {
        let inventory = analyze_archive(&set.join(file), more);
        assert_eq!(
            figures(&inventory),
            directory,
            "{file} reads as another site"
        );
        let archive = &inventory["archive"];
        assert!(
            archive["missing"].as_array().unwrap().is_empty(),
            "{file}: {archive}"
        );
        assert_eq!(
            archive["files"],
            directory["pages"].as_u64().unwrap() + directory["resources"].as_u64().unwrap()
        );
        // What the directory cannot say: the capture's redirects are symbolic links of the site.
        assert_eq!(archive["aliases"].as_array().unwrap().len(), 2, "{file}");
        let links: Vec<&str> = inventory["symlinks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["path"].as_str().unwrap())
            .collect();
        assert_eq!(links, ["old/index.html", "start"], "{file}");
    }
}

#[test]
fn several_captures_revisits_chunks_and_gzip_are_resolved_to_the_captured_bytes() {
    let set = archives::archives();
    let inventory = archives::analyze(&[set.join("microscape.wacz").as_os_str()]);
    let a = &inventory["archive"];
    // index.html twice (an older version), the revisited images in two files, `/`.
    assert!(a["several_captures"].as_array().unwrap().len() >= 4, "{a}");
    for how in ["refers-to", "digest", "earlier-capture"] {
        assert!(
            a["revisits_resolved"][how].as_u64().unwrap() >= 1,
            "{how}: {a}"
        );
    }
    assert_eq!(a["chunked"], 1);
    assert_eq!(a["content_encoded"], 1);
    // As captured (chunked and gzipped) is smaller than the payload it decodes to.
    assert!(
        a["wire_bytes"].as_u64() < a["payload_bytes"].as_u64(),
        "{a}"
    );
    assert_eq!(a["pages_source"], "pages.jsonl");
    assert_eq!(a["wacz_hashes_verified"], 4);
}

#[test]
fn at_takes_the_capture_closest_to_a_time() {
    let set = archives::archives();
    let wacz = set.join("microscape.wacz");
    let latest = archives::analyze(&[wacz.as_os_str()]);
    let older = archives::analyze(&[wacz.as_os_str(), OsStr::new("--at"), OsStr::new("19970201")]);
    assert_eq!(older["archive"]["at"], "19970201000000");
    let references = |inv: &serde_json::Value, page: &str| {
        inv["documents"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["path"] == page)
            .map(|d| d["references"].as_array().unwrap().len())
    };
    // index.html of 1997-02-01 was still under construction: no image in it. Each URL has its
    // own closest capture: `/` was captured once, in March, and is now another page.
    assert_eq!(references(&older, "index.html"), Some(0));
    assert!(references(&latest, "index.html").unwrap() > 0);
    assert_eq!(older["pages"], 2);
    assert!(
        older["archive"]["chosen_earliest"].as_str()
            < latest["archive"]["chosen_earliest"].as_str()
    );
    let usage = common::webdiet()
        .args(["analyze", "--at", "yesterday"])
        .arg(&wacz)
        .output()
        .unwrap();
    assert_eq!(usage.status.code(), Some(2));
}

#[test]
fn revisits_into_a_file_not_given_are_missing_resources_with_their_reason_not_empty_files() {
    let set = archives::archives();
    let alone = archives::analyze(&[set.join("microscape.warc.gz").as_os_str()]);
    let missing = alone["archive"]["missing"].as_array().unwrap();
    assert_eq!(missing.len(), 3, "{missing:?}");
    for m in missing {
        assert!(m["reason"].as_str().unwrap().contains("--with"), "{m}");
    }
    let broken: Vec<&str> = alone["broken_references"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["reference"].as_str().unwrap())
        .collect();
    assert_eq!(broken.len(), 3, "{broken:?}");
    assert!(broken.iter().all(|b| b.ends_with(".gif")));
}

#[test]
fn with_and_at_need_an_archive_and_a_missing_input_is_not_created() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("nothing.warc.gz");
    let out = common::webdiet()
        .arg("analyze")
        .arg(&missing)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no such file"));
    assert!(!missing.exists(), "reading an archive created it");
    let out = common::webdiet()
        .arg("analyze")
        .arg(common::microscape())
        .args(["--at", "1997"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not one"));
}

#[test]
fn a_real_site_captured_into_a_warc_and_a_wacz_analyzes_like_its_directory() {
    let Some(site) = common::shared_corpus("libwww-docs") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().to_str().unwrap();
    archives::make_archives(&[
        "capture",
        site.to_str().unwrap(),
        out,
        "libwww",
        "www.w3.org",
    ]);
    // The capture knows the site's URL: absolute links to its host are its own, as
    // `--site-url` makes them for the directory.
    let directory = common::webdiet()
        .args(["analyze", "--json", "--site-url", "http://www.w3.org/"])
        .arg(&site)
        .output()
        .unwrap();
    let directory = figures(&serde_json::from_slice(&directory.stdout).unwrap());
    let earlier = tmp.path().join("libwww-earlier.warc.gz");
    for (file, more) in [
        (
            "libwww.warc.gz",
            vec![OsStr::new("--with"), earlier.as_os_str()],
        ),
        ("libwww.arc.gz", vec![]),
        ("libwww.wacz", vec![]),
    ] {
        let inventory = analyze_archive(&tmp.path().join(file), &more);
        for (key, value) in directory.as_object().unwrap() {
            assert_eq!(&inventory[key], value, "{file}: {key}");
        }
    }
}
