//! Real captures, read as their readers (warcio, pywb, ReplayWeb.page) read them: each case is
//! a small WARC written by hand the way some tool writes it, and webdiet must read the site
//! the capture holds, not refuse it or read another.

use std::path::Path;

use serde_json::Value;

use crate::common::{self, archives};
use archives::html_page;

/// Writes `records` as one plain WARC at `dir/name`.
fn warc(dir: &Path, name: &str, records: &[Vec<u8>]) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, records.concat()).unwrap();
    path
}

/// An archive's entry pages, in order, and its start page.
fn pages(archive: &Path) -> (Vec<String>, Value) {
    let inventory = archives::analyze(&[archive.as_os_str()]);
    let a = &inventory["archive"];
    let pages = a["pages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap().to_string())
        .collect();
    (pages, a["start_page"].clone())
}

const DAY: &str = "2014-01-27T17:12:";

#[test]
fn without_pages_jsonl_a_visit_starts_at_the_site_root_else_at_the_crawls_first_page() {
    let tmp = tempfile::tempdir().unwrap();
    let page = |path: &str, second: u32| {
        html_page(
            &format!("http://www.site.test/{path}"),
            &format!("{DAY}{second:02}Z"),
            &format!("<title>{path}</title><a href=\"zeta.html\">z</a>"),
        )
    };
    // The root captured after other pages: it still comes first, as a directory's index does.
    let root_later = warc(
        tmp.path(),
        "root-later.warc",
        &[page("zeta.html", 1), page("about.html", 2), page("", 3)],
    );
    let (list, start) = pages(&root_later);
    assert_eq!(list, ["index.html", "zeta.html", "about.html"]);
    assert_eq!(start["rule"], "site-root", "{start}");
    assert_eq!(start["path"], "index.html");
    // `/` never captured, `/index.html` was: the root's index page.
    let index_only = warc(
        tmp.path(),
        "index-only.warc",
        &[page("zeta.html", 1), page("index.html", 2)],
    );
    let (list, start) = pages(&index_only);
    assert_eq!(list, ["index.html", "zeta.html"]);
    assert_eq!(start["rule"], "root-index");
    // No root page at all: the crawl's first HTML 200 capture (its seed), not the
    // alphabetically first page.
    let no_root = warc(
        tmp.path(),
        "no-root.warc",
        &[page("zeta.html", 1), page("about.html", 2)],
    );
    let (list, start) = pages(&no_root);
    assert_eq!(list, ["zeta.html", "about.html"]);
    assert_eq!(start["rule"], "first-html-200");

    // The emitted WACZ opens at that page too.
    let wacz = tmp.path().join("lighter.wacz");
    let out = common::webdiet()
        .arg("rewrite")
        .arg(&root_later)
        .arg("--out")
        .arg(tmp.path().join("out"))
        .arg("--emit-wacz")
        .arg(&wacz)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let package: Value =
        serde_json::from_slice(&archives::zip_entry(&wacz, "datapackage.json")).unwrap();
    assert_eq!(package["mainPageURL"], "http://www.site.test/", "{package}");
}
