//! pywb's own sample archives (real captures of heritrix, wget, wpull, warcprox and pywb's
//! recorder, from its sdist: `.ci/run` downloads them), read as warcio and pywb read them. Each
//! WARC and ARC audits, and gives the same pages and the same savings as the site warcio alone
//! writes out of it as a directory (`warcio_site.py`, beside this file): the archive reader is
//! held to the plain reading of the archivists' own library. The deliberately broken ones are
//! refused with their reason.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common::{self, archives};

/// Samples that hold no web page at all, only a redirect (`missing-status-text.warc`, a 302)
/// or JSON (`post-test.warc.gz`, `httpbin-resource.warc.gz`): they audit, their files read and
/// estimated, nothing visited, and a `no-pages` problem says so; as the directory warcio makes
/// of them does, where it makes one that is not empty.
const NO_PAGE: [&str; 3] = [
    "httpbin-resource.warc.gz",
    "missing-status-text.warc",
    "post-test.warc.gz",
];

/// The deliberately broken samples: pywb's tests read them for their errors.
const BROKEN: [&str; 2] = ["bad.arc", "example-bad.warc.gz.bad"];

/// The other archives a sample's revisits point into (`--with`).
fn with_of(name: &str) -> Option<&'static str> {
    (name == "example-url-agnostic-revisit.warc.gz").then_some("example-url-agnostic-orig.warc.gz")
}

/// The WARC and ARC samples, by name.
fn samples(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| {
            [".warc", ".warc.gz", ".arc", ".arc.gz"]
                .iter()
                .any(|ext| n.ends_with(ext))
                && !BROKEN.contains(&n.as_str())
        })
        .collect();
    names.sort();
    names
}

/// `webdiet audit INPUT --no-replay --out OUT` with more arguments: its exit code, its
/// standard error, and its report when it wrote one.
fn audit(input: &Path, more: &[&std::ffi::OsStr], out: &Path) -> (i32, String, Option<Value>) {
    let done = common::webdiet()
        .arg("audit")
        .arg(input)
        .args(more)
        .args(["--no-replay", "--out"])
        .arg(out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&done.stderr).into_owned();
    let report = std::fs::read(out.join("report.json"))
        .ok()
        .map(|b| serde_json::from_slice(&b).unwrap());
    (done.status.code().unwrap_or(-1), stderr, report)
}

/// The directory warcio makes of `archives` (`warcio_site.py`), and the site's origin.
fn warcio_directory(python: &Path, archives: &[PathBuf], out: &Path) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/archives/warcio_site.py");
    let done = Command::new(python)
        .arg(script)
        .arg(out)
        .args(archives)
        .output()
        .unwrap();
    assert!(
        done.status.success(),
        "warcio_site.py {archives:?}: {}",
        String::from_utf8_lossy(&done.stderr)
    );
    String::from_utf8(done.stdout).unwrap().trim().to_string()
}

/// The name `warcio_site.py` gives the file of a URL (its rule, restated): the path
/// percent-decoded, `index.html` for a directory, no query, `.html` added to a page that lacks
/// it.
fn directory_name(url: &str) -> String {
    let url = url::Url::parse(url).unwrap();
    let mut path = percent_encoding::percent_decode_str(url.path())
        .decode_utf8_lossy()
        .trim_start_matches('/')
        .to_string();
    if path.is_empty() || path.ends_with('/') {
        path.push_str("index.html");
    }
    if !path.ends_with(".html") && !path.ends_with(".htm") {
        path.push_str(".html");
    }
    path
}

/// What the audit found of the site: its pages, and what the rewrite saved (images, markup,
/// the lossless passes), without the times. An archive's page under another name than its
/// URL's (`index.html?example=1.html` for `http://example.com/?example=1`) is named as the
/// directory names that URL: a directory holds no query strings, and that difference of names
/// is the only one between the two.
fn figures(report: &Value) -> Value {
    let renamed: Vec<(&str, &str)> = report["archive"]["renamed"]
        .as_array()
        .map(|r| {
            r.iter()
                .map(|r| (r["path"].as_str().unwrap(), r["url"].as_str().unwrap()))
                .collect()
        })
        .unwrap_or_default();
    let mut pages: Vec<String> = report["markup"]["pages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let path = p["path"].as_str().unwrap();
            match renamed.iter().find(|(p, _)| *p == path) {
                Some((_, url)) => directory_name(url),
                None => path.to_string(),
            }
        })
        .collect();
    pages.sort();
    let mut lossless = report["lossless"]["totals"].clone();
    for totals in lossless.as_object_mut().unwrap().values_mut() {
        totals.as_object_mut().unwrap().remove("cpu_millis");
    }
    let images = &report["images_total"];
    let markup = &report["markup"];
    serde_json::json!({
        "pages": pages,
        "images": [images["count"], images["from_bytes"], images["to_bytes"], images["by_outcome"]],
        "markup": [markup["html_bytes_before"], markup["html_bytes_after"], markup["css_bytes"]],
        "lossless": lossless,
    })
}

#[test]
fn every_pywb_sample_audits_to_the_pages_and_savings_of_the_directory_warcio_makes_of_it() {
    let (Some(dir), Some(python)) = (archives::pywb_samples(), archives::python_tool("python"))
    else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let names = samples(&dir);
    assert!(names.len() >= 15, "{names:?}");
    for name in &names {
        let out = tmp.path().join(name);
        let mut inputs = vec![dir.join(name)];
        let mut more: Vec<&std::ffi::OsStr> = Vec::new();
        let with = with_of(name).map(|w| dir.join(w));
        if let Some(with) = &with {
            more.extend(["--with".as_ref(), with.as_os_str()]);
            inputs.push(with.clone());
        }
        let (code, stderr, archive) = audit(&dir.join(name), &more, &out.join("archive"));
        assert!(!stderr.contains("panicked"), "{name}: {stderr}");
        let origin = warcio_directory(&python, &inputs, &out.join("site"));
        let site_url = ["--site-url".as_ref(), origin.as_ref()];
        let site_url: &[&std::ffi::OsStr] = if origin.is_empty() { &[] } else { &site_url };
        let (dir_code, dir_stderr, directory) =
            audit(&out.join("site"), site_url, &out.join("directory"));
        assert_eq!(code, 0, "{name}: {stderr}");
        let warcio_empty = std::fs::read_dir(out.join("site"))
            .unwrap()
            .next()
            .is_none();
        if warcio_empty {
            // httpbin-resource.warc.gz holds `resource` records only, which the plain reading
            // leaves out, and missing-status-text.warc a redirect: their directories are
            // empty, and an empty directory is refused.
            assert_eq!(dir_code, 2, "{name}, warcio's directory: {dir_stderr}");
            assert!(dir_stderr.contains("the site is empty"), "{dir_stderr}");
            let archive = archive.unwrap();
            assert!(
                archive["archive"]["captures"].as_u64().unwrap() >= 1,
                "{name}"
            );
            continue;
        }
        assert_eq!(dir_code, 0, "{name}, warcio's directory: {dir_stderr}");
        let (archive, directory) = (archive.unwrap(), directory.unwrap());
        assert_eq!(figures(&archive), figures(&directory), "{name}");
        let no_pages = |report: &Value| {
            report["problems"]
                .as_array()
                .unwrap()
                .iter()
                .any(|p| p["code"] == "no-pages")
        };
        let pages = archive["inventory"]["pages"].as_u64().unwrap();
        if NO_PAGE.contains(&name.as_str()) {
            assert_eq!(pages, 0, "{name}");
            assert!(no_pages(&archive) && no_pages(&directory), "{name}");
            assert!(
                archive["archive"]["captures"].as_u64().unwrap() >= 1,
                "{name}"
            );
        } else {
            assert!(pages >= 1, "{name}");
            assert!(!no_pages(&archive), "{name}");
        }
        // Nothing the readers read is called broken: no body left out for its framing, no
        // digest called a mismatch for its spelling, no head refused that warcio reads. One
        // exception, deliberate: example-extra.warc's second copy of its response starts
        // `HTTPX/1.1 200 OK`, which pywb's own verifying reader refuses too ("Expected Status
        // Line starting with ['HTTP/1.0', 'HTTP/1.1']", its test_indexing.py); webdiet reports
        // it and reads the first copy, which the revisit names.
        let problems: Vec<&Value> = archive["problems"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| {
                let code = p["code"].as_str().unwrap();
                let httpx = name == "example-extra.warc"
                    && code == "archive-http-invalid"
                    && p["message"]
                        .as_str()
                        .unwrap()
                        .contains("invalid HTTP version");
                matches!(
                    code,
                    "archive-body-unreadable" | "archive-digest-mismatch" | "archive-http-invalid"
                ) && !httpx
            })
            .collect();
        assert!(problems.is_empty(), "{name}: {problems:?}");
    }
}

#[test]
fn pywbs_captures_read_as_pywb_reads_them() {
    let Some(dir) = archives::pywb_samples() else {
        return;
    };
    let analyze = |name: &str, more: &[&std::ffi::OsStr]| {
        let mut args = vec![dir.join(name).into_os_string()];
        args.extend(more.iter().map(|m| m.to_os_string()));
        let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
        archives::analyze(&args)
    };
    // Chunked in its headers, stored de-chunked: every file of iana.org is read, the start
    // page is the root's.
    let iana = analyze("iana.warc.gz", &[]);
    let a = &iana["archive"];
    assert_eq!(a["files"], 29, "{a}");
    assert!(a["missing"].as_array().unwrap().is_empty(), "{a}");
    assert!(a["chunked_as_stored"].as_u64().unwrap() >= 20, "{a}");
    assert_eq!(a["start_page"]["path"], "index.html");
    assert_eq!(a["start_page"]["rule"], "site-root");
    // A URL-agnostic revisit, its original in the other file.
    let orig = dir.join("example-url-agnostic-orig.warc.gz");
    let agnostic = analyze(
        "example-url-agnostic-revisit.warc.gz",
        &["--with".as_ref(), orig.as_os_str()],
    );
    let a = &agnostic["archive"];
    assert_eq!(a["site_url"], "http://example.com/", "{a}");
    assert_eq!(a["revisits_resolved"]["refers-to"], 1, "{a}");
    assert_eq!(agnostic["pages"], 1);
    // `HTTP/1.0 302 ` with CR CR LF line ends: a redirect, not "no capture".
    let missing = analyze("missing-status-text.warc", &[]);
    assert_eq!(
        missing["archive"]["aliases"][0]["location"],
        "http://www.iana.org/badst"
    );
    // A hex payload digest is that digest.
    let hex = analyze("example2.warc.gz", &[]);
    assert!(
        hex["problems"].as_array().unwrap().is_empty(),
        "{}",
        hex["problems"]
    );
}

#[test]
fn pywbs_broken_samples_are_refused_with_their_reason() {
    let Some(dir) = archives::pywb_samples() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    // `example-bad.warc.gz.bad` is a whole-file gzip; named as the WARC it claims to be.
    let bad_gzip = tmp.path().join("example-bad.warc.gz");
    std::fs::copy(dir.join("example-bad.warc.gz.bad"), &bad_gzip).unwrap();
    for (input, reason) in [
        (dir.join("bad.arc"), "holds no capture of a web page"),
        (bad_gzip, "the whole file is one gzip stream"),
    ] {
        let (code, stderr, report) = audit(&input, &[], &tmp.path().join("out"));
        assert_eq!(code, 2, "{}: {stderr}", input.display());
        assert!(stderr.contains(reason), "{stderr}");
        assert!(stderr.contains(&input.display().to_string()), "{stderr}");
        assert!(
            !stderr.contains("panicked") && !stderr.contains("): :"),
            "{stderr}"
        );
        assert!(report.is_none(), "a refused audit wrote a report");
    }
}
