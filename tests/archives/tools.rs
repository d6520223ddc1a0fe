//! The archivists' tools agree: `warcio check` passes every WARC make-archives and
//! `--emit-wacz` write, `wacz validate` every WACZ, and the CDXJ inside each WACZ is
//! cdxj-indexer's for the same WARCs, line for line (also for a site at an IP address, whose
//! SURT keys cdxj-indexer reverses like a name's).

use std::path::Path;
use std::process::Command;

use crate::common::{self, archives};

/// Runs a tool: whether it succeeded, its stdout, and everything it said.
fn run(tool: &Path, args: &[&std::ffi::OsStr]) -> (bool, String, String) {
    let out = Command::new(tool).args(args).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let said = format!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
    (out.status.success(), stdout, said)
}

/// corpus/microscape written as a WACZ, its URLs under `site_url`.
fn emitted_directory(tmp: &Path, name: &str, site_url: &str) -> std::path::PathBuf {
    let wacz = tmp.join(format!("{name}.wacz"));
    let out = common::webdiet()
        .arg("rewrite")
        .arg(common::microscape())
        .arg("--out")
        .arg(tmp.join(name))
        .args(["--site-url", site_url, "--emit-wacz"])
        .arg(&wacz)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    wacz
}

/// The emitted WACZ of microscape's capture, written once.
fn emitted(tmp: &Path) -> std::path::PathBuf {
    let wacz = tmp.join("lighter.wacz");
    let out = common::webdiet()
        .arg("rewrite")
        .arg(archives::archives().join("microscape.wacz"))
        .arg("--out")
        .arg(tmp.join("out"))
        .arg("--emit-wacz")
        .arg(&wacz)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    wacz
}

#[test]
fn warcio_check_passes_every_warc_we_write() {
    let Some(warcio) = archives::python_tool("warcio") else {
        return;
    };
    let set = archives::archives();
    let tmp = tempfile::tempdir().unwrap();
    let wacz = emitted(tmp.path());
    let inner = tmp.path().join("data.warc.gz");
    std::fs::write(&inner, archives::zip_entry(&wacz, "archive/data.warc.gz")).unwrap();
    for file in [
        set.join("microscape.warc.gz"),
        set.join("microscape.warc"),
        set.join("microscape-earlier.warc.gz"),
        set.join("quirks.warc.gz"),
        inner,
    ] {
        let (ok, _, said) = run(
            &warcio,
            &["check".as_ref(), "-v".as_ref(), file.as_os_str()],
        );
        assert!(ok, "warcio check {}: {said}", file.display());
        assert!(said.contains("digest pass"), "{said}");
    }
}

#[test]
fn wacz_validate_passes_the_waczs_we_write() {
    let Some(wacz_tool) = archives::python_tool("wacz") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let set = archives::archives();
    for file in [emitted(tmp.path()), set.join("microscape.wacz")] {
        let (ok, _, said) = run(
            &wacz_tool,
            &["validate".as_ref(), "-f".as_ref(), file.as_os_str()],
        );
        assert!(
            ok && said.contains("Validation succeeded"),
            "{}: {said}",
            file.display()
        );
    }
}

#[test]
fn our_cdxj_is_cdxj_indexers_for_the_same_warcs() {
    let Some(indexer) = archives::python_tool("cdxj-indexer") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let set = archives::archives();
    for (wacz, warcs) in [
        (emitted(tmp.path()), vec!["data.warc.gz"]),
        (
            set.join("microscape.wacz"),
            vec!["microscape.warc.gz", "microscape-earlier.warc.gz"],
        ),
        // Sites at an IP address: `1,0,0,127:8080)/…`, `::1:8080)/…`.
        (
            emitted_directory(tmp.path(), "ipv4", "http://127.0.0.1:8080/"),
            vec!["data.warc.gz"],
        ),
        (
            emitted_directory(tmp.path(), "ipv6", "http://[::1]:8080/"),
            vec!["data.warc.gz"],
        ),
    ] {
        let dir = tmp.path().join("warcs");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut args: Vec<std::ffi::OsString> = vec!["--sort".into()];
        for name in &warcs {
            let path = dir.join(name);
            std::fs::write(
                &path,
                archives::zip_entry(&wacz, &format!("archive/{name}")),
            )
            .unwrap();
            args.push(path.into_os_string());
        }
        let refs: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
        let (ok, theirs, said) = run(&indexer, &refs);
        assert!(ok, "{said}");
        let ours = String::from_utf8(archives::zip_entry(&wacz, "indexes/index.cdx")).unwrap();
        assert_eq!(ours, theirs, "{}", wacz.display());
    }
}
