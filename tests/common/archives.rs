//! Web archives for the tests, made by the repository's own `make-archives` (corpus/microscape
//! captured through webdiet's server, a site of quirks, hostile archives), once per test
//! binary; and the archivists' tools the tests check webdiet's output with: warcio,
//! py-wacz, cdxj-indexer (a Python virtual environment), ReplayWeb.page (its npm package) and
//! pywb's sample archives (its sdist), which `.ci/run` installs under `target/archive-tools/`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::in_ci;

/// Runs `make-archives` with `args`; panics with its message when it fails.
pub fn make_archives(args: &[&str]) {
    let out = Command::new(env!("CARGO_BIN_EXE_make-archives"))
        .args(args)
        .output()
        .expect("make-archives runs");
    assert!(
        out.status.success(),
        "make-archives {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The test archives, written once per test binary into a directory that lives as long as it:
/// `microscape.{warc.gz,warc,arc.gz,arc,wacz}`, `microscape-earlier.warc.gz`,
/// `quirks.warc.gz` and `hostile/`.
pub fn archives() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let out = dir.path().to_str().expect("a UTF-8 temporary path");
        let site = super::microscape();
        let site = site.to_str().expect("a UTF-8 repository path");
        make_archives(&["capture", site, out, "microscape", "www.microscape.test"]);
        make_archives(&["quirks", out]);
        make_archives(&["hostile", out]);
        dir
    })
    .path()
}

/// Where `.ci/run` installs the archive tools (`WEBDIET_ARCHIVE_TOOLS` names another place).
fn tools_dir() -> PathBuf {
    std::env::var_os("WEBDIET_ARCHIVE_TOOLS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/archive-tools"))
}

/// A command of the Python tools (`warcio`, `wacz`, `cdxj-indexer`), or `None` (with a note)
/// when they are not installed; in CI a missing tool fails the test.
pub fn python_tool(name: &str) -> Option<PathBuf> {
    let path = tools_dir().join("venv/bin").join(name);
    if path.is_file() {
        return Some(path);
    }
    assert!(
        !in_ci(),
        "CI=true but {} is missing: .ci/run installs warcio, wacz and cdxj-indexer there",
        path.display()
    );
    eprintln!("note: {} is not installed; skipping", path.display());
    None
}

/// pywb's sample archives (`sample_archive/warcs/` of the pywb 2.10.0 sdist, which `.ci/run`
/// downloads and unpacks under `target/archive-tools/pywb/`), or `None` (with a note) when
/// they are not there; in CI their absence fails the test.
pub fn pywb_samples() -> Option<PathBuf> {
    let dir = tools_dir().join("pywb/pywb-2.10.0/sample_archive/warcs");
    if dir.join("iana.warc.gz").is_file() {
        return Some(dir);
    }
    assert!(
        !in_ci(),
        "CI=true but pywb's sample archives are missing at {}: .ci/run downloads pywb's sdist \
         there",
        dir.display()
    );
    eprintln!("note: {} is not there; skipping", dir.display());
    None
}

/// The unpacked `replaywebpage` npm package (`ui.js`, `sw.js`), or `None` (with a note).
pub fn replaywebpage() -> Option<PathBuf> {
    let dir = tools_dir().join("replaywebpage/package");
    if dir.join("ui.js").is_file() && dir.join("sw.js").is_file() {
        return Some(dir);
    }
    assert!(
        !in_ci(),
        "CI=true but ReplayWeb.page is missing at {}: .ci/run unpacks the npm package there",
        dir.display()
    );
    eprintln!("note: {} is not there; skipping", dir.display());
    None
}

/// One entry of a ZIP (a WACZ), decompressed.
pub fn zip_entry(zip: &Path, name: &str) -> Vec<u8> {
    use std::io::Read;
    let bytes = std::fs::read(zip).expect("the ZIP file is readable");
    let archive = rawzip::ZipArchive::from_slice(&bytes).expect("a ZIP file");
    let mut entries = archive.entries();
    while let Some(e) = entries.next_entry().expect("a readable central directory") {
        if e.file_path().as_ref() != name.as_bytes() {
            continue;
        }
        let entry = archive.get_entry(e.wayfinder()).expect("a readable entry");
        let mut out = Vec::new();
        if e.compression_method() == rawzip::CompressionMethod::DEFLATE {
            flate2::read::DeflateDecoder::new(entry.data())
                .read_to_end(&mut out)
                .expect("a deflated entry");
        } else {
            out.extend_from_slice(entry.data());
        }
        return out;
    }
    panic!("{} has no entry {name}", zip.display());
}

/// Runs `webdiet analyze --json` on an archive (with more arguments) and parses the output.
pub fn analyze(args: &[&std::ffi::OsStr]) -> serde_json::Value {
    let out = super::webdiet()
        .args(["analyze", "--json"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "analyze {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("analyze --json prints JSON")
}

/// The figures of an inventory that describe the site, not where it was read from.
pub fn figures(inventory: &serde_json::Value) -> serde_json::Value {
    let mut out = serde_json::Map::new();
    for key in [
        "pages",
        "resources",
        "bytes",
        "by_type",
        "references",
        "broken_references",
        "orphans",
        "external_links",
        "documents",
    ] {
        out.insert(key.to_string(), inventory[key].clone());
    }
    serde_json::Value::Object(out)
}

/// One plain WARC/1.1 record written by hand, for captures as other tools write them: its
/// type, target URI and date (`2014-01-27T17:12:38Z`), more header fields, and the block.
pub fn warc_record(
    rtype: &str,
    uri: &str,
    date: &str,
    fields: &[(&str, &str)],
    block: &[u8],
) -> Vec<u8> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(1);
    let id = NEXT.fetch_add(1, Ordering::Relaxed);
    let mut out = format!(
        "WARC/1.1\r\nWARC-Type: {rtype}\r\nWARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-{id:012}>\r\n\
         WARC-Date: {date}\r\nWARC-Target-URI: {uri}\r\n"
    );
    if rtype == "response" || rtype == "revisit" {
        out.push_str("Content-Type: application/http; msgtype=response\r\n");
    }
    for (name, value) in fields {
        out.push_str(&format!("{name}: {value}\r\n"));
    }
    out.push_str(&format!("Content-Length: {}\r\n\r\n", block.len()));
    let mut out = out.into_bytes();
    out.extend_from_slice(block);
    out.extend_from_slice(b"\r\n\r\n");
    out
}

/// An HTTP response block: `status_line` (`HTTP/1.1 200 OK`), headers, body.
pub fn http_response(status_line: &str, headers: &[(&str, &str)], body: &[u8]) -> Vec<u8> {
    let mut out = format!("{status_line}\r\n");
    for (name, value) in headers {
        out.push_str(&format!("{name}: {value}\r\n"));
    }
    out.push_str("\r\n");
    let mut out = out.into_bytes();
    out.extend_from_slice(body);
    out
}

/// A `response` record of an HTML 200 page.
pub fn html_page(uri: &str, date: &str, body: &str) -> Vec<u8> {
    let block = http_response(
        "HTTP/1.1 200 OK",
        &[("Content-Type", "text/html")],
        body.as_bytes(),
    );
    warc_record("response", uri, date, &[], &block)
}
