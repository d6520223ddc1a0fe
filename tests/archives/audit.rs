//! The whole audit on a WARC, an ARC and a WACZ of corpus/microscape gives the directory's
//! figures: the same images converted to the same bytes, the same deflate estimates, the same
//! bytes, requests and packets (the paper's rule) in every mode of the replay, in every report.
//! Captured through webdiet's own server, the captures' headers are webdiet's own, so nothing
//! differs; what the reports say of the archive is checked beside.

use std::path::Path;

use serde_json::Value;

use crate::common::{self, archives};

fn audit(input: &Path, out: &Path, more: &[&std::ffi::OsStr]) -> Value {
    let done = common::webdiet()
        .arg("audit")
        .arg(input)
        .args(more)
        .args(["--link", "loopback", "--runs", "1", "--out"])
        .arg(out)
        .output()
        .unwrap();
    assert!(
        done.status.success(),
        "audit {}: {}",
        input.display(),
        String::from_utf8_lossy(&done.stderr)
    );
    serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap()
}

/// What the audit measured of the site: images, markup, deflate, and the replay's
/// deterministic counts per site, mode and test.
fn figures(report: &Value) -> Value {
    let images: Vec<Value> = report["images"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            serde_json::json!([
                i["path"],
                i["from_bytes"],
                i["to_path"],
                i["to_bytes"],
                i["outcome"]
            ])
        })
        .collect();
    let replay: Vec<Value> = report["replay"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            serde_json::json!([
                r["site"],
                r["mode"],
                r["test"],
                r["requests"],
                r["bytes_up"],
                r["bytes_down"],
                r["packets"],
                r["headers"]
            ])
        })
        .collect();
    serde_json::json!({
        "inventory": report["inventory"],
        "images": images,
        "images_total": [report["images_total"]["count"], report["images_total"]["from_bytes"],
            report["images_total"]["to_bytes"], report["images_total"]["by_outcome"]],
        "markup": report["markup"]["html_bytes_after"],
        "compression": [report["compression"]["original"]["totals"], report["compression"]["rewritten"]["totals"]],
        "replay": replay,
        "broken_by_rewrite": report["rewrite"]["broken_by_rewrite"],
    })
}

#[test]
fn the_audit_of_a_warc_an_arc_and_a_wacz_gives_the_directorys_figures() {
    let set = archives::archives();
    let tmp = tempfile::tempdir().unwrap();
    let directory = figures(&audit(&common::microscape(), &tmp.path().join("dir"), &[]));
    let earlier = set.join("microscape-earlier.warc.gz");
    for (n, (file, more)) in [
        (
            "microscape.warc.gz",
            vec!["--with".as_ref(), earlier.as_os_str()],
        ),
        ("microscape.arc", vec![]),
        ("microscape.wacz", vec![]),
    ]
    .into_iter()
    .enumerate()
    {
        let out = tmp.path().join(format!("a{n}"));
        let report = audit(&set.join(file), &out, &more);
        let got = figures(&report);
        for (key, value) in directory.as_object().unwrap() {
            assert_eq!(&got[key], value, "{file}: {key}");
        }
        let a = &report["archive"];
        assert_eq!(a["files"], 43, "{file}");
        // The rewritten site is served with webdiet's headers: the one page sent gzipped and
        // chunked at capture is sent plain now, and its bytes (and ETag) changed.
        let changed: Vec<&str> = a["header_changes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["header"].as_str().unwrap())
            .collect();
        assert!(
            changed.contains(&"content-encoding") && changed.contains(&"etag"),
            "{file}: {changed:?}"
        );
        assert!(!changed.contains(&"content-type"), "{file}: {changed:?}");
        for report in ["report.md", "report.html"] {
            let text = std::fs::read_to_string(out.join(report)).unwrap();
            assert!(text.contains("Web archive"), "{file} {report}");
        }
    }
}
