//! `webdiet audit` end to end on the default corpus: the files it writes, budgets and exit
//! codes, dry runs, and the same output for the same input.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::{microscape, webdiet};
use predicates::prelude::*;
use serde_json::Value;

fn audit(out: &Path, extra: &[&str]) -> assert_cmd::assert::Assert {
    webdiet()
        .arg("audit")
        .arg(microscape())
        .arg("--out")
        .arg(out)
        .args(["--runs", "1"])
        .args(extra)
        .assert()
}

fn report(out: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap()
}

/// Every file under `dir` with its bytes.
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .map(Result::unwrap)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e.path().strip_prefix(dir).unwrap().display().to_string();
            (rel, std::fs::read(e.path()).unwrap())
        })
        .collect()
}

#[test]
fn audit_writes_the_rewritten_site_and_every_report() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    audit(&out, &[])
        .success()
        .stdout(predicate::str::contains("first visit"))
        .stdout(predicate::str::contains("pipelined"));
    for file in ["report.json", "report.md", "report.html", "site/index.html"] {
        assert!(out.join(file).is_file(), "{file} missing");
    }
    let r = report(&out);
    assert_eq!(r["tool"]["name"], "webdiet");
    assert_eq!(r["schema_version"], webdiet::report::SCHEMA_VERSION);
    for section in [
        "site",
        "inventory",
        "images",
        "images_total",
        "markup",
        "compression",
        "replay",
        "problems",
    ] {
        assert!(!r[section].is_null(), "section {section} is null");
    }
    // Both sites were replayed in every default mode (cleartext, over TLS and HTTP/2), first
    // visit and validation, on loopback, and simulated on every default link (Cable, DSL, 3G,
    // 4G: no emulated link is measured without --measure); what TLS costs is set beside each
    // cleartext mode on each link.
    let modes = webdiet::replay::Mode::defaults().len();
    let rows = r["replay"].as_array().unwrap();
    let mut links: Vec<&str> = rows
        .iter()
        .map(|row| row["link"]["name"].as_str().unwrap())
        .collect();
    links.dedup();
    let ran: Vec<&str> = r["replay_links"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["unavailable"].is_null())
        .map(|l| l["name"].as_str().unwrap())
        .collect();
    assert_eq!(ran, ["loopback"], "only loopback is replayed by default");
    let defaults: Vec<&str> = webdiet::audit::DEFAULT_LINKS.split(',').collect();
    let mut distinct = links.clone();
    distinct.dedup();
    distinct.sort_unstable();
    distinct.dedup();
    let mut expected: Vec<&str> = ran.iter().chain(&defaults).copied().collect();
    expected.sort_unstable();
    assert_eq!(distinct, expected, "{links:?}");
    for row in rows {
        let link = row["link"]["name"].as_str().unwrap();
        let simulated = &row["simulated_time"]["last_packet_ms"]["median"];
        let measured_runs = row["time"]["last_packet_ms"]["runs"].as_u64().unwrap();
        if link == "loopback" {
            assert!(measured_runs > 0, "loopback is measured: {row}");
        } else {
            assert!(
                simulated.as_f64().is_some_and(|ms| ms > 0.0),
                "{link} is simulated: {row}"
            );
            assert_eq!(measured_runs, 0, "{link} is not measured without --measure");
        }
    }
    assert_eq!(rows.len(), distinct.len() * 2 * modes * 2);
    // Four HTTP/1 modes and HTTP/2 over TLS, each against its cleartext twin on the same link.
    assert_eq!(
        r["tls_cost"].as_array().unwrap().len(),
        distinct.len() * 2 * 5 * 2
    );
    // Header bytes of HTTP/1.1 against HTTP/2, both header sets, both tests: HPACK saves on
    // every one, and more for the browser's large, repetitive headers than for the robot's.
    let headers = r["header_cost"].as_array().unwrap();
    assert_eq!(headers.len(), 2 * 2);
    let saved = |set: &str, test: &str| {
        let c = headers
            .iter()
            .find(|c| c["header_set"] == set && c["test"] == test)
            .unwrap();
        c["request_reduction_pct"].as_f64().unwrap()
    };
    for test in ["first", "validate"] {
        assert!(saved("libwww", test) > 0.0);
        assert!(saved("browser", test) > saved("libwww", test));
    }
    assert_eq!(
        headers.iter().filter(|c| c["headline"] == true).count(),
        2,
        "the default set, libwww, is the headline's, in both tests"
    );
    // The rewrite made the site lighter and broke nothing.
    assert!(r["images_total"]["to_bytes"].as_u64() < r["images_total"]["from_bytes"].as_u64());
    assert_eq!(r["rewrite"]["broken_by_rewrite"], serde_json::json!([]));
    let inv = common::analyze_json(&out.join("site"));
    assert_eq!(inv["broken_references"], serde_json::json!([]));
    // The input is untouched: the corpus test regenerates it byte for byte.
}

#[test]
fn budgets_that_hold_exit_0_and_a_broken_budget_exits_1() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    audit(
        &out,
        &[
            "--max-requests",
            "43",
            "--max-packets",
            "http10=100000",
            "--no-verify-failures",
        ],
    )
    .code(0)
    .stdout(predicate::str::contains("none failed"));
    assert!(report(&out)["budgets"]
        .as_array()
        .unwrap()
        .iter()
        .all(|b| b["passed"] == true));

    audit(
        &out,
        &["--max-requests", "10", "--max-first-visit-bytes", "1000"],
    )
    .code(1)
    .stdout(predicate::str::contains("FAILED max-requests"))
    .stdout(predicate::str::contains("FAILED max-first-visit-bytes"));
}

#[test]
fn budgets_come_from_webdiet_toml_in_the_current_directory() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("webdiet.toml"),
        "[budgets]\nmin-saving-percent = 99.9\n",
    )
    .unwrap();
    webdiet()
        .current_dir(tmp.path())
        .arg("audit")
        .arg(microscape())
        .args(["--out", "out", "--runs", "1", "--modes", "pipelined"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("FAILED min-saving-percent"));

    std::fs::write(
        tmp.path().join("webdiet.toml"),
        "[budgets]\nmax-bytes = 1\n",
    )
    .unwrap();
    webdiet()
        .current_dir(tmp.path())
        .arg("audit")
        .arg(microscape())
        .args(["--out", "out"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("webdiet.toml"));
}

#[test]
fn dry_run_measures_but_writes_no_site() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    audit(&out, &["--dry-run", "--modes", "pipelined"])
        .success()
        .stdout(predicate::str::contains("dry run"));
    assert!(!out.join("site").exists());
    let r = report(&out);
    assert_eq!(r["rewrite"]["dry_run"], true);
    assert!(r["images_total"]["to_bytes"].as_u64() < r["images_total"]["from_bytes"].as_u64());
}

/// A report without what is measured and may differ between runs: timings, the kernel's packet
/// counts and the output path.
fn deterministic(mut r: Value) -> Value {
    r["timings_ms"] = Value::Null;
    r["site"]["rewritten"] = Value::Null;
    r["images_total"]["millis"] = Value::Null;
    r["images_total"]["wall_millis"] = Value::Null;
    r["images_total"]["cpu_millis"] = Value::Null;
    for image in r["images"].as_array_mut().unwrap() {
        image["millis"] = Value::Null;
        image["cpu_millis"] = Value::Null;
    }
    for row in r["replay"].as_array_mut().unwrap() {
        row["kernel"] = Value::Null;
        row["time"] = Value::Null;
        row["waterfall"] = Value::Null;
        // Each run's own kernel counts and times, of which `kernel` and `time` are the spreads.
        row["measured_runs"] = Value::Null;
    }
    // What TLS costs in time is measured; its packets and bytes are not.
    for cost in r["tls_cost"].as_array_mut().unwrap() {
        cost["complete_ms"] = Value::Null;
        cost["complete_pct"] = Value::Null;
    }
    r
}

/// Runs `f` with two threads spinning (this machine's CI runners have two cores).
fn under_load<T>(f: impl FnOnce() -> T) -> T {
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    std::hint::spin_loop();
                }
            });
        }
        let out = f();
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        out
    })
}

#[test]
fn three_audits_of_the_same_input_give_the_same_site_headline_and_simulated_times_at_any_load() {
    let tmp = tempfile::tempdir().unwrap();
    let outs: Vec<PathBuf> = (0..3).map(|i| tmp.path().join(format!("run{i}"))).collect();
    // The default links: loopback replayed, Cable, DSL, 3G and 4G simulated from its
    // recording. The second and third audits run beside two busy threads: the recording (and
    // so every simulated time and waterfall) must not depend on how the replay was scheduled.
    audit(&outs[0], &[]).success();
    for out in &outs[1..] {
        under_load(|| audit(out, &[]).success());
    }
    let first = deterministic(report(&outs[0]));
    assert!(
        first["replay"]
            .as_array()
            .is_some_and(|rows| !rows.is_empty()),
        "the audit replayed"
    );
    for out in &outs[1..] {
        assert!(
            tree(&outs[0].join("site")) == tree(&out.join("site")),
            "rewritten sites differ"
        );
        let other = deterministic(report(out));
        // Each replay row first, named, so that a difference says where it is.
        for (a, b) in first["replay"]
            .as_array()
            .unwrap()
            .iter()
            .zip(other["replay"].as_array().unwrap())
        {
            assert_eq!(
                a, b,
                "{} {} {} on {} differs between runs",
                a["site"], a["mode"], a["test"], a["link"]["name"]
            );
        }
        // Bytes, requests, connections and the packets by the paper's rules included.
        assert_eq!(first, other);
    }
}

#[test]
fn a_rewrite_that_changes_nothing_shows_no_change_in_any_deterministic_figure() {
    // No GIF and no presentational markup: the rewritten site is the original, byte for byte.
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("plain");
    let mut page = String::from("<!DOCTYPE html><html><head><title>Plain</title></head><body>");
    for i in 0..400 {
        page.push_str(&format!(
            "<p>Paragraph {i} of a page that needs no diet.</p>\n"
        ));
    }
    page.push_str("<img src=photo.jpg alt=photo></body></html>\n");
    common::write_site(
        &site,
        &[
            ("index.html", page.as_bytes()),
            (
                "photo.jpg",
                &[0xff, 0xd8, 0xff, 0xe0, 0, 16, b'J', b'F', b'I', b'F'],
            ),
        ],
    );
    let out = tmp.path().join("out");
    webdiet()
        .arg("audit")
        .arg(&site)
        .arg("--out")
        .arg(&out)
        .args(["--runs", "3"])
        .assert()
        .success();
    assert!(
        tree(&site) == tree(&out.join("site")),
        "the rewrite changed nothing"
    );
    let r = report(&out);
    let rows = r["replay"].as_array().unwrap();
    let strip = |row: &Value| {
        let mut row = row.clone();
        row["site"] = Value::Null;
        row["kernel"] = Value::Null;
        row["time"] = Value::Null;
        row["waterfall"] = Value::Null;
        row["measured_runs"] = Value::Null;
        row
    };
    for original in rows.iter().filter(|row| row["site"] == "original") {
        let rewritten = rows
            .iter()
            .find(|row| {
                row["site"] == "rewritten"
                    && row["link"]["name"] == original["link"]["name"]
                    && row["mode"] == original["mode"]
                    && row["test"] == original["test"]
            })
            .expect("a rewritten row per original row");
        assert_eq!(strip(original), strip(rewritten));
    }
}

#[test]
fn report_re_renders_every_format_from_the_json() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    audit(&out, &["--modes", "pipelined"]).success();
    let json = out.join("report.json");
    let render = |format: &str| {
        let output = webdiet()
            .arg("report")
            .arg(&json)
            .args(["--format", format])
            .output()
            .unwrap();
        assert!(output.status.success(), "report --format {format} failed");
        String::from_utf8(output.stdout).unwrap()
    };
    // JSON survives the round trip through the report types unchanged.
    let again: Value = serde_json::from_str(&render("json")).unwrap();
    assert_eq!(again, report(&out));
    assert_eq!(
        render("md"),
        std::fs::read_to_string(out.join("report.md")).unwrap()
    );
    assert_eq!(
        render("html"),
        std::fs::read_to_string(out.join("report.html")).unwrap()
    );
    assert!(render("text").contains("first visit"));

    std::fs::write(tmp.path().join("bad.json"), "{\"not\": \"a report\"}").unwrap();
    webdiet()
        .arg("report")
        .arg(tmp.path().join("bad.json"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("bad.json"));
}

#[test]
fn an_audit_without_replay_holds_the_text_it_estimates_not_the_sites_other_files() {
    if !common::gnu_time() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    // The GIF converts, so the rewrite looks for its name in the site's other files.
    let page: &[u8] = b"<html><body><img src=logo.gif><p>A page and a download.</p></body></html>";
    let logo = common::seeded_gif(3);
    let files: [(&str, &[u8]); 2] = [("index.html", page), ("logo.gif", &logo)];
    let (small, large) = (tmp.path().join("small"), tmp.path().join("large"));
    common::write_site(&small, &files);
    common::write_site(&large, &files);
    // 96 MiB that no stage rewrites or compresses: copied as it is, read for nothing else.
    let download = std::fs::File::create(large.join("video.mpg")).unwrap();
    download.set_len(96 << 20).unwrap();
    let peak = |site: &Path| {
        let out = site.with_extension("out");
        let args = [
            "audit".as_ref(),
            site.as_os_str(),
            "--no-replay".as_ref(),
            "--out".as_ref(),
            out.as_os_str(),
        ];
        common::peak_kib(&args).map(|(kib, _)| kib)
    };
    let (Some(small_kib), Some(large_kib)) = (peak(&small), peak(&large)) else {
        return;
    };
    let report = report(&large.with_extension("out"));
    assert!(
        large.with_extension("out").join("site/logo.png").is_file(),
        "{}",
        report["images_total"]
    );
    assert!(
        large_kib < small_kib + 32 * 1024,
        "with a 96 MiB download the audit peaked at {large_kib} KiB, without it {small_kib} KiB"
    );
}

#[test]
fn a_site_without_a_page_is_rewritten_and_estimated_and_an_empty_one_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    // An archive of images and data, as some captures are: nothing for a browser to open.
    let logo = common::seeded_gif(5);
    let data = br#"{"items": ["one", "two", "three", "one", "two", "three"]}"#.repeat(40);
    let files: [(&str, &[u8]); 2] = [("logo.gif", &logo), ("data.json", &data)];
    let site = tmp.path().join("site");
    common::write_site(&site, &files);
    let out = tmp.path().join("out");
    webdiet()
        .arg("audit")
        .arg(&site)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let report = report(&out);
    let problems = report["problems"].as_array().unwrap();
    assert!(
        problems.iter().any(|p| p["code"] == "no-pages"),
        "{problems:?}"
    );
    assert_eq!(report["inventory"]["pages"], 0);
    // Nothing visited; the estimate read the text all the same.
    assert!(report["replay"].as_array().is_none_or(|r| r.is_empty()));
    let raw = report["compression"]["original"]["totals"]["raw"]
        .as_u64()
        .unwrap();
    assert!(raw >= data.len() as u64, "{raw}");
    // A GIF no page refers to keeps its name and its bytes.
    assert_eq!(std::fs::read(out.join("site/logo.gif")).unwrap(), logo);

    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    webdiet()
        .arg("audit")
        .arg(&empty)
        .arg("--out")
        .arg(tmp.path().join("empty-out"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("the site is empty"));
}

/// `webdiet` as a user who cannot read a file its owner made unreadable: itself when it is not
/// root; as root (who reads everything), `nobody` through util-linux's `setpriv`. `None` when
/// that cannot be arranged (with a note), which CI=true does not accept.
fn webdiet_without_privileges() -> Option<std::process::Command> {
    let uid = std::process::Command::new("id").arg("-u").output().ok()?;
    if String::from_utf8_lossy(&uid.stdout).trim() != "0" {
        return Some(std::process::Command::new(assert_cmd::cargo::cargo_bin(
            "webdiet",
        )));
    }
    let setpriv = std::process::Command::new("setpriv")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !setpriv {
        assert!(
            !common::in_ci(),
            "CI=true but setpriv (util-linux) is missing"
        );
        eprintln!("note: running as root without setpriv; the unreadable-page test is skipped");
        return None;
    }
    let mut run = std::process::Command::new("setpriv");
    run.args(["--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"])
        .arg(assert_cmd::cargo::cargo_bin("webdiet"));
    Some(run)
}

#[test]
fn an_unreadable_page_is_reported_as_unreadable_with_the_reason_not_as_missing() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let site = tmp.path().join("site");
    common::write_site(
        &site,
        &[
            ("index.html", b"<html><body><p>hello</p></body></html>"),
            ("style.css", b"body { color: black }"),
        ],
    );
    std::fs::set_permissions(&site, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(
        site.join("style.css"),
        std::fs::Permissions::from_mode(0o644),
    )
    .unwrap();
    std::fs::set_permissions(
        site.join("index.html"),
        std::fs::Permissions::from_mode(0o000),
    )
    .unwrap();
    let Some(mut run) = webdiet_without_privileges() else {
        return;
    };
    let out = tmp.path().join("out");
    let audit = run
        .arg("audit")
        .arg(&site)
        .arg("--out")
        .arg(&out)
        .arg("--no-replay")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&audit.stderr);
    assert!(
        stderr
            .contains("no page of the site could be read (the page index.html: Permission denied"),
        "{stderr}"
    );
    assert!(!stderr.contains("no HTML file"), "{stderr}");

    let Some(mut run) = webdiet_without_privileges() else {
        return;
    };
    let page = run
        .arg("audit")
        .arg(&site)
        .arg("--out")
        .arg(tmp.path().join("out2"))
        .args([
            "--page",
            "index.html",
            "--runs",
            "1",
            "--link",
            "loopback",
            "--modes",
            "pipelined",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&page.stderr);
    assert_eq!(page.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("index.html: Permission denied"), "{stderr}");
    assert!(!stderr.contains("no such page"), "{stderr}");
}

#[test]
fn the_sites_webdiet_toml_is_read_but_not_copied_into_the_tree_to_deploy() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    common::write_site(
        &site,
        &[
            ("index.html", b"<html><body><p>hello</p></body></html>"),
            ("webdiet.toml", b"[budgets]\nmin-saving-percent = 0\n"),
        ],
    );
    let out = tmp.path().join("out");
    webdiet()
        .arg("audit")
        .arg(&site)
        .arg("--out")
        .arg(&out)
        .arg("--no-replay")
        .current_dir(tmp.path())
        .assert()
        .code(predicate::in_iter([0, 1]));
    assert!(out.join("site/index.html").is_file());
    assert!(
        !out.join("site/webdiet.toml").exists(),
        "the settings are the audit's, not the site's"
    );
    let report = report(&out);
    let budgets = report["budgets"].as_array().unwrap();
    assert!(
        budgets
            .iter()
            .any(|b| b["source"].as_str().unwrap().ends_with("webdiet.toml")),
        "the file was read: {budgets:?}"
    );
}
