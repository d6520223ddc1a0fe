//! No name from an archive reaches the disk outside webdiet's own trees: archives whose
//! captures, redirects and WACZ entries aim at a file outside (`make-archives traversal`:
//! encoded, double- and triple-encoded, backslashed, overlong UTF-8, full-width, NUL, key
//! escapes, plain climbs, absolute paths), run through every command that reads an archive,
//! leave that file and its directory as they were, and each capture is kept under a safe name
//! or reported (docs/archives.md, "Names from archives, and the disk").

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde_json::Value;

use crate::common::{self, archives};

/// A victim's directory, the archives aimed at it, and a private `$TMPDIR` for webdiet.
struct Aimed {
    _dir: tempfile::TempDir,
    root: PathBuf,
    aim: PathBuf,
    made: PathBuf,
    tmp: PathBuf,
}

const VICTIM: &[u8] = b"the file an archive must never reach\n";

fn aimed() -> Aimed {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let aim = root.join("aim");
    std::fs::create_dir(&aim).unwrap();
    let victim = aim.join("victim.html");
    std::fs::write(&victim, VICTIM).unwrap();
    let file = std::fs::File::options().write(true).open(&victim).unwrap();
    file.set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(978_307_200))
        .unwrap();
    let made = root.join("archives");
    archives::make_archives(&["traversal", made.to_str().unwrap(), aim.to_str().unwrap()]);
    let tmp = root.join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    Aimed {
        _dir: dir,
        root,
        aim,
        made,
        tmp,
    }
}

impl Aimed {
    /// Fails unless the victim is byte for byte and date for date as it was, alone in its
    /// directory, and the root holds only what the test made and the outputs it named.
    fn assert_untouched(&self, after: &str) {
        let victim = self.aim.join("victim.html");
        assert_eq!(
            std::fs::read(&victim).unwrap(),
            VICTIM,
            "{after}: victim changed"
        );
        let modified = std::fs::metadata(&victim).unwrap().modified().unwrap();
        assert_eq!(
            modified,
            SystemTime::UNIX_EPOCH + Duration::from_secs(978_307_200),
            "{after}: the victim's date changed"
        );
        let names = |dir: &Path| -> Vec<String> {
            let mut names: Vec<String> = std::fs::read_dir(dir)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            names
        };
        assert_eq!(
            names(&self.aim),
            ["victim.html"],
            "{after}: a file appeared beside it"
        );
        let root = names(&self.root);
        assert!(
            root.iter()
                .all(|n| ["aim", "archives", "tmp", "out"].contains(&n.as_str())),
            "{after}: {root:?}"
        );
        assert!(
            names(&self.tmp).is_empty(),
            "{after}: webdiet left {:?} in $TMPDIR",
            names(&self.tmp)
        );
    }

    /// `webdiet ARGS` with `$TMPDIR` set to the private one: exit 0 and stdout.
    fn run(&self, args: &[&str]) -> Vec<u8> {
        let out = common::webdiet()
            .args(args)
            .env("TMPDIR", &self.tmp)
            .current_dir(&self.root)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    }
}

#[test]
fn no_capture_redirect_or_entry_of_an_archive_writes_outside_webdiets_own_trees() {
    let a = aimed();
    let out = a.root.join("out");
    for name in [
        "traversal.warc.gz",
        "traversal.warc",
        "traversal.arc",
        "traversal.wacz",
    ] {
        let input = a.made.join(name);
        let input = input.to_str().unwrap();
        let inv: Value = serde_json::from_slice(&a.run(&["analyze", "--json", input])).unwrap();
        a.assert_untouched(&format!("analyze {name}"));
        // Kept under a safe name: the encoded climb is one file of the site.
        let docs: Vec<&str> = inv["documents"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["path"].as_str().unwrap())
            .collect();
        assert!(
            docs.contains(&"%2E%2E%2Faim%2Fvictim.html") && docs.contains(&"a%2F%2Fb.html"),
            "{name}: {docs:?}"
        );
        assert!(docs
            .iter()
            .all(|d| !d.split('/').any(|s| s == ".." || s == ".")));
        let rewritten = out.join(format!("{name}.rewrite"));
        let wacz = out.join(format!("{name}.wacz"));
        a.run(&[
            "rewrite",
            input,
            "--out",
            rewritten.to_str().unwrap(),
            "--emit-wacz",
            wacz.to_str().unwrap(),
        ]);
        a.assert_untouched(&format!("rewrite {name}"));
        let audited = out.join(format!("{name}.audit"));
        a.run(&["audit", input, "--out", audited.to_str().unwrap()]);
        a.assert_untouched(&format!("audit {name}"));
        // The emitted WACZ is read back the same way.
        a.run(&["analyze", wacz.to_str().unwrap()]);
        a.assert_untouched(&format!("analyze the WACZ emitted from {name}"));
        // Nothing in the outputs climbs either.
        for entry in walkdir::WalkDir::new(&out).follow_links(false) {
            let entry = entry.unwrap();
            let inside = entry.path().strip_prefix(&out).unwrap();
            assert!(
                inside
                    .components()
                    .all(|c| matches!(c, std::path::Component::Normal(_))),
                "{}",
                entry.path().display()
            );
            if entry.path_is_symlink() {
                let target = std::fs::canonicalize(entry.path());
                assert!(
                    target.as_ref().map_or(true, |t| t.starts_with(&out)),
                    "{} leads to {target:?}",
                    entry.path().display()
                );
            }
        }
    }
}

#[test]
fn every_climbing_wacz_entry_is_reported_and_never_read() {
    let a = aimed();
    let inv: Value = serde_json::from_slice(&a.run(&[
        "analyze",
        "--json",
        a.made.join("traversal.wacz").to_str().unwrap(),
    ]))
    .unwrap();
    let refused = inv["problems"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["code"] == "wacz-unsafe-name")
        .count();
    assert_eq!(refused, 7, "{:#?}", inv["problems"]);
    a.assert_untouched("analyze traversal.wacz");
}

#[test]
fn an_encoded_double_slash_is_one_page_that_the_audit_visits() {
    let a = aimed();
    let report = a.root.join("out/slashes");
    a.run(&[
        "audit",
        a.made.join("slashes.warc.gz").to_str().unwrap(),
        "--out",
        report.to_str().unwrap(),
    ]);
    let report: Value =
        serde_json::from_slice(&std::fs::read(report.join("report.json")).unwrap()).unwrap();
    let text = report.to_string();
    assert!(
        text.contains("a%2F%2Fb.html"),
        "the page is not in the report"
    );
    assert!(
        std::fs::read_dir(a.root.join("out/slashes/site"))
            .unwrap()
            .any(|e| e.unwrap().file_name() == "a%2F%2Fb.html"),
        "the rewritten site does not hold the page under its one name"
    );
    a.assert_untouched("audit slashes.warc.gz");
}

#[test]
fn the_test_archives_reach_their_aim_when_read_the_naive_way() {
    // The archive is a real threat, so that the tests above can fail: joining each URL's
    // percent-decoded path to a tree 3 directories below the aim's parent (as webdiet once
    // did) lands on the victim.
    let a = aimed();
    let tree = a.tmp.join("webdiet-archive-1-0/site");
    let urls = std::fs::read(a.made.join("traversal.warc")).unwrap();
    let urls = String::from_utf8_lossy(&urls);
    let reaching = urls
        .lines()
        .filter_map(|l| l.strip_prefix("WARC-Target-URI: "))
        .filter(|u| {
            let path = url::Url::parse(u).unwrap().path().to_string();
            let decoded: Vec<u8> = percent_encoding::percent_decode_str(&path).collect();
            let joined = tree.join(String::from_utf8_lossy(&decoded).trim_start_matches('/'));
            normalise(&joined) == a.aim.join("victim.html")
        })
        .count();
    assert!(
        reaching >= 4,
        "only {reaching} captures would reach the victim naively"
    );
}

/// A path with `.` and `..` resolved lexically.
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}
