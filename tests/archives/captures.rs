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

/// `rewrite --emit-wacz` of `archive`: the emitted WACZ's records, as text, and its CDXJ.
fn emitted(archive: &Path, tmp: &Path) -> (String, String) {
    let wacz = tmp.join("emitted.wacz");
    let out = common::webdiet()
        .arg("rewrite")
        .arg(archive)
        .arg("--out")
        .arg(tmp.join("emitted"))
        .arg("--emit-wacz")
        .arg(&wacz)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let warc = archives::zip_entry(&wacz, "archive/data.warc.gz");
    let mut text = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::MultiGzDecoder::new(&warc[..]), &mut text)
        .unwrap();
    let cdxj = String::from_utf8(archives::zip_entry(&wacz, "indexes/index.cdx")).unwrap();
    (String::from_utf8_lossy(&text).into_owned(), cdxj)
}

/// The HTTP head of the emitted `response` record of `url`.
fn emitted_head<'a>(records: &'a str, url: &str) -> &'a str {
    let record = records
        .split("WARC/1.1\r\n")
        .find(|r| {
            r.contains("WARC-Type: response") && r.contains(&format!("WARC-Target-URI: {url}\r\n"))
        })
        .unwrap_or_else(|| panic!("no response record of {url}"));
    let block = record.split_once("\r\n\r\n").unwrap().1;
    block.split_once("\r\n\r\n").unwrap().0
}

#[test]
fn the_emitted_wacz_keeps_the_captured_type_of_a_file_the_rewrite_left_of_its_kind() {
    let tmp = tempfile::tempdir().unwrap();
    let dot = archives::warc_record(
        "response",
        "http://www.site.test/graph.dot",
        "2014-01-27T17:12:02Z",
        &[],
        &archives::http_response(
            "HTTP/1.1 200 OK",
            &[("Content-Type", "text/vnd.graphviz")],
            b"digraph { a -> b }\n",
        ),
    );
    let page = archives::warc_record(
        "response",
        "http://www.site.test/",
        "2014-01-27T17:12:01Z",
        &[],
        &archives::http_response(
            "HTTP/1.1 200 OK",
            &[("Content-Type", "text/html; charset=ISO-8859-1")],
            b"<title>graph</title><font color=red><a href=\"graph.dot\">the graph</a></font>",
        ),
    );
    let archive = warc(tmp.path(), "graph.warc", &[page, dot]);
    let (records, cdxj) = emitted(&archive, tmp.path());
    // webdiet's extension map knows no `.dot`: it would say application/octet-stream.
    let head = emitted_head(&records, "http://www.site.test/graph.dot");
    assert!(
        head.contains("\r\nContent-Type: text/vnd.graphviz\r\n"),
        "{head}"
    );
    assert!(
        cdxj.lines()
            .any(|l| l.contains("/graph.dot") && l.contains("\"mime\": \"text/vnd.graphviz\"")),
        "{cdxj}"
    );
    // The page, edited (markup → CSS), is still a page: its captured type and charset.
    let head = emitted_head(&records, "http://www.site.test/");
    assert!(
        head.contains("\r\nContent-Type: text/html; charset=ISO-8859-1\r\n"),
        "{head}"
    );
}

#[test]
fn a_uri_agnostic_revisit_is_the_page_its_original_at_another_url_holds() {
    // pywb's example-url-agnostic-{revisit,orig}.warc.gz, in their shape: the revisit of
    // http://test@example.com/ (the Internet Archive's profile) names a response of
    // http://example.iana.org/ in the other file.
    let tmp = tempfile::tempdir().unwrap();
    let body = "<!doctype html><title>Example Domain</title><p>for examples</p>";
    let digest = "sha1:B2LTWWPUOYAH7UIPQ7ZUPQ4VMBSVC36A";
    let original = archives::warc_record(
        "response",
        "http://example.iana.org/",
        "2013-07-02T19:54:02Z",
        &[("WARC-Payload-Digest", digest)],
        &archives::http_response(
            "HTTP/1.0 200 OK",
            &[("Content-Type", "text/html; charset=UTF-8")],
            body.as_bytes(),
        ),
    );
    // Without WARC-Refers-To (the helper writes record IDs of its own), the original is found
    // by target URI and date; by record ID is checked in src/archive/choose.rs.
    let revisit = archives::warc_record(
        "revisit",
        "http://test@example.com/",
        "2013-07-29T19:51:51Z",
        &[
            ("WARC-Payload-Digest", digest),
            (
                "WARC-Profile",
                "http://netpreserve.org/warc/1.0/revisit/uri-agnostic-identical-payload-digest",
            ),
            ("WARC-Truncated", "length"),
            ("WARC-Refers-To-Target-URI", "http://example.iana.org/"),
            ("WARC-Refers-To-Date", "2013-07-02T19:54:02Z"),
        ],
        &archives::http_response(
            "HTTP/1.0 200 OK",
            &[("Content-Type", "text/html; charset=UTF-8")],
            b"",
        ),
    );
    let revisits = warc(tmp.path(), "revisit.warc", &[revisit]);
    let originals = warc(tmp.path(), "orig.warc", &[original]);
    let inv = archives::analyze(&[
        revisits.as_os_str(),
        "--with".as_ref(),
        originals.as_os_str(),
    ]);
    let a = &inv["archive"];
    assert_eq!(a["site_url"], "http://example.com/", "{a}");
    assert_eq!(a["revisits_resolved"]["target-and-date"], 1, "{a}");
    assert!(a["missing"].as_array().unwrap().is_empty(), "{a}");
    assert_eq!(a["pages"][0], "index.html");
    assert_eq!(inv["bytes"], body.len(), "{inv}");
}

#[test]
fn a_status_line_without_reason_phrase_and_cr_cr_lf_line_ends_are_read() {
    let tmp = tempfile::tempdir().unwrap();
    // pywb's missing-status-text.warc, byte for byte: every line ends CR CR LF, the status line
    // has no reason phrase, and the block ends without the head's blank line.
    let pywb: &[u8] = b"WARC/1.0\r\r\nWARC-Type: response\r\r\n\
        WARC-Record-ID: <urn:uuid:125f3091-65f6-4d0e-96dd-dbff7c551275>\r\r\n\
        WARC-Date: 2014-01-27T17:12:38Z\r\r\nContent-Length: 107\r\r\n\
        Content-Type: application/http; msgtype=response\r\r\n\
        WARC-Payload-Digest: sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ\r\r\n\
        WARC-Target-URI: http://iana.org/bads\r\r\n\
        WARC-Warcinfo-ID: <urn:uuid:f087c2a7-14b3-43b7-9c47-79f29f4b39e7>\r\r\n\r\r\n\
        HTTP/1.0 302 \r\r\nLocation: http://www.iana.org/badst\r\r\nServer: BigIP\r\r\n\
        Connection: close\r\r\nContent-Length: 0\r\r\n\r\r\n";
    // And a page whose status line is `HTTP/1.0 200`, nothing after the code.
    let page = archives::warc_record(
        "response",
        "http://iana.org/",
        "2014-01-27T17:12:39Z",
        &[],
        &archives::http_response(
            "HTTP/1.0 200",
            &[("Content-Type", "text/html")],
            b"<title>IANA</title><a href=\"bads\">bad</a>",
        ),
    );
    let archive = warc(
        tmp.path(),
        "missing-status-text.warc",
        &[pywb.to_vec(), page],
    );
    let inv = archives::analyze(&[archive.as_os_str()]);
    let a = &inv["archive"];
    assert_eq!(a["records"]["response"], 2, "{a}");
    assert_eq!(a["aliases"][0]["url"], "http://iana.org/bads", "{a}");
    assert_eq!(a["aliases"][0]["status"], 302);
    assert_eq!(a["aliases"][0]["location"], "http://www.iana.org/badst");
    assert_eq!(inv["pages"], 1, "{inv}");
    let problems = inv["problems"].as_array().unwrap();
    assert!(problems.is_empty(), "{problems:?}");
    let out = common::webdiet()
        .arg("audit")
        .arg(&archive)
        .args(["--no-replay", "--out"])
        .arg(tmp.path().join("audit"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_sites_host_is_the_one_whose_captures_make_pages() {
    // As pywb's dupes.warc.gz: example.com's page, and iana.org captured first but only as a
    // redirect and as revisits whose originals are in another file.
    let tmp = tempfile::tempdir().unwrap();
    let redirect = archives::warc_record(
        "response",
        "http://iana.org/",
        "2014-01-27T17:12:01Z",
        &[],
        &archives::http_response(
            "HTTP/1.1 302 Found",
            &[("Location", "http://www.iana.org/")],
            b"",
        ),
    );
    let revisit = archives::warc_record(
        "revisit",
        "http://www.iana.org/",
        "2014-01-27T17:12:02Z",
        &[
            (
                "WARC-Payload-Digest",
                "sha1:OSSAPWJ23L56IYVRW3GFEAR4MCJMGPTB",
            ),
            (
                "WARC-Profile",
                "http://netpreserve.org/warc/0.18/revisit/identical-payload-digest",
            ),
        ],
        &archives::http_response("HTTP/1.1 200 OK", &[("Content-Type", "text/html")], b""),
    );
    let page = html_page(
        "http://example.com/",
        "2014-01-27T17:12:03Z",
        "<title>Example Domain</title>",
    );
    let archive = warc(tmp.path(), "dupes.warc", &[redirect, revisit, page]);
    let inv = archives::analyze(&[archive.as_os_str()]);
    assert_eq!(inv["archive"]["site_url"], "http://example.com/", "{inv}");
    assert_eq!(inv["pages"], 1);
}
