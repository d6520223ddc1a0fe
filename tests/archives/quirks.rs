//! The capture → site rules on a site of quirks: a query string keeps its own reversible name
//! and references with it resolve to it; the charset only HTTP gives is reported and kept;
//! captured 404 and 500 are broken references; a redirect is an alias; another host is a
//! third party, listed; a `.php` page served as HTML is a page; an image without extension is
//! an image; a body Browsertrix stored decoded is read as it is; a revisit whose original is
//! nowhere is missing, with its reason.

use serde_json::Value;

use crate::common::archives;

fn quirks() -> Value {
    archives::analyze(&[archives::archives().join("quirks.warc.gz").as_os_str()])
}

fn document<'a>(inventory: &'a Value, path: &str) -> &'a Value {
    inventory["documents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["path"] == path)
        .unwrap_or_else(|| panic!("no document {path}: {}", inventory["documents"]))
}

#[test]
fn a_query_string_url_is_a_file_of_its_own_that_references_reach() {
    let inv = quirks();
    let index = document(&inv, "index.html");
    let search = index["references"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["value"].as_str().unwrap().starts_with("search.php"))
        .unwrap();
    assert_eq!(search["target"]["type"], "local", "{search}");
    assert_eq!(search["target"]["path"], "search.php?q=gif&page=2.html");
    // The name gives the URL back.
    let renamed = inv["archive"]["renamed"].as_array().unwrap();
    assert!(
        renamed.is_empty()
            || renamed
                .iter()
                .all(|r| r["path"].as_str().unwrap().contains('.'))
    );
}

#[test]
fn statuses_hosts_charsets_and_types_come_from_the_capture() {
    let inv = quirks();
    let a = &inv["archive"];
    let errors: Vec<(u64, &str)> = a["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["status"].as_u64().unwrap(), e["url"].as_str().unwrap()))
        .collect();
    assert!(
        errors.contains(&(404, "http://www.quirks.test/missing.gif")),
        "{errors:?}"
    );
    assert!(
        errors.contains(&(500, "http://www.quirks.test/broken.html")),
        "{errors:?}"
    );
    let broken: Vec<&str> = inv["broken_references"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["reference"].as_str().unwrap())
        .collect();
    for reference in ["missing.gif", "broken.html", "pixel.gif"] {
        assert!(
            broken.contains(&reference),
            "{reference} not broken: {broken:?}"
        );
    }
    assert_eq!(a["third_party"][0]["host"], "cdn.other.test", "{a}");
    assert_eq!(a["aliases"][0]["status"], 301);
    assert_eq!(a["http_charsets"]["latin.html"], "iso-8859-1");
    assert_eq!(a["http_charsets"]["sjis.html"], "Shift_JIS");
    assert!(a["missing"][0]["reason"]
        .as_str()
        .unwrap()
        .contains("none of the inputs"));
    // Served as HTML: a page; served as a GIF: an image, whatever the names say.
    // index.html, search.php?…, latin.html, sjis.html, page.php.html (not the 500).
    assert_eq!(inv["pages"], 5, "{}", inv["by_type"]);
    assert_eq!(inv["by_type"]["gif"]["count"], 1);
    let style = document(&inv, "style.css");
    assert_eq!(style["bytes"], 900, "the stored (decoded) body is the file");
    assert_eq!(
        a["content_encoded"], 1,
        "sent gzipped, says x-orig-content-encoding"
    );
}

#[test]
fn the_original_of_an_archive_is_replayed_with_its_captured_statuses_and_types() {
    let tmp = tempfile::tempdir().unwrap();
    let out = crate::common::webdiet()
        .args([
            "replay",
            "--json",
            "--link",
            "loopback",
            "--runs",
            "1",
            "--modes",
            "persistent",
        ])
        .arg(archives::archives().join("quirks.warc.gz"))
        .env("TMPDIR", tmp.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: Value = serde_json::from_slice(&out.stdout).unwrap();
    // The page, its style sheet, `logo`, and `old-logo.gif`: a captured 302 to `logo`, served
    // as captured and followed; the broken and third-party images are not asked for.
    for row in rows.as_array().unwrap() {
        if row["test"] == "first" {
            assert_eq!(row["requests"], 4, "{row}");
        }
    }
    // The archive's private tree is gone once the run is over.
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("webdiet-archive")
        })
        .collect();
    assert!(left.is_empty(), "{left:?}");
}
