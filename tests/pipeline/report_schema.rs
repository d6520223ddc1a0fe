//! `docs/report-schema.md` is the contract of `report.json`: this test audits the default
//! corpus through the built binary and checks that every field of the JSON is documented there,
//! and that every documented field (not marked optional) is in the JSON.
//!
//! Fields are compared as dotted paths: `images[].outcome` for a field of every element of an
//! array, `inventory.by_type.*.bytes` for a field under a map whose keys are data. Which objects
//! are such maps is read from the doc itself: a documented path `X.*…` makes `X` one.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_webdiet");

/// One documented field: its path and whether the doc marks it optional.
struct Documented {
    path: String,
    optional: bool,
}

/// The first backticked cell of every table row of the doc is a path; "(optional)" anywhere in
/// the row marks it optional.
fn documented_fields(doc: &str) -> Vec<Documented> {
    doc.lines()
        .filter_map(|line| {
            let row = line.trim().strip_prefix('|')?;
            let first = row.split('|').next()?.trim();
            let path = first.strip_prefix('`')?.strip_suffix('`')?;
            Some(Documented {
                path: path.to_string(),
                optional: row.contains("(optional)"),
            })
        })
        .collect()
}

/// Every key path of `value`: object keys joined with `.`, array elements as `[]`, keys of the
/// objects at `maps` as `*`. Arrays of plain values add no paths below the array.
fn flatten(value: &Value, prefix: &str, maps: &BTreeSet<String>, out: &mut BTreeSet<String>) {
    match value {
        Value::Object(fields) => {
            for (key, child) in fields {
                let path = match (prefix.is_empty(), maps.contains(prefix)) {
                    (_, true) => format!("{prefix}.*"),
                    (true, false) => key.clone(),
                    (false, false) => format!("{prefix}.{key}"),
                };
                out.insert(path.clone());
                flatten(child, &path, maps, out);
            }
        }
        Value::Array(items) => {
            let path = format!("{prefix}[]");
            for item in items {
                flatten(item, &path, maps, out);
            }
        }
        _ => {}
    }
}

/// The report of one audit of `corpus/microscape`, shared by the tests (an audit replays the
/// site twice; once is enough).
fn microscape_report() -> &'static Value {
    static REPORT: OnceLock<Value> = OnceLock::new();
    REPORT.get_or_init(|| {
        let out = tempfile::tempdir().unwrap();
        audit_microscape(out.path())
    })
}

fn audit_microscape(out: &Path) -> Value {
    let site = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/microscape");
    // A generous budget, so that `budgets[]` has a row to check; run from the output directory
    // so that no `webdiet.toml` of the working directory adds others.
    let run = Command::new(BIN)
        .current_dir(out)
        .arg("audit")
        .arg(&site)
        .arg("--out")
        .arg(out)
        .args(["--runs", "1", "--max-requests", "1000000"])
        .output()
        .expect("the webdiet binary runs");
    assert!(
        run.status.success(),
        "webdiet audit failed ({}): {}",
        run.status,
        String::from_utf8_lossy(&run.stderr)
    );
    let path = out.join("report.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: cannot read: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: not JSON: {e}", path.display()))
}

#[test]
fn every_report_field_is_documented_and_every_documented_field_is_written() {
    let doc_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/report-schema.md");
    let doc = std::fs::read_to_string(&doc_path)
        .unwrap_or_else(|e| panic!("{}: cannot read: {e}", doc_path.display()));
    let documented = documented_fields(&doc);
    assert!(
        !documented.is_empty(),
        "{}: no field tables found",
        doc_path.display()
    );

    let mut seen = BTreeSet::new();
    let twice: Vec<&str> = documented
        .iter()
        .filter(|d| !seen.insert(d.path.as_str()))
        .map(|d| d.path.as_str())
        .collect();
    assert!(twice.is_empty(), "documented more than once: {twice:#?}");

    let maps: BTreeSet<String> = documented
        .iter()
        .filter_map(|d| d.path.split_once(".*").map(|(map, _)| map.to_string()))
        .collect();

    let report = microscape_report();
    let mut written = BTreeSet::new();
    flatten(report, "", &maps, &mut written);

    let undocumented: Vec<&str> = written
        .iter()
        .filter(|p| !seen.contains(p.as_str()))
        .map(String::as_str)
        .collect();
    let unwritten: Vec<&str> = documented
        .iter()
        .filter(|d| !d.optional && !written.contains(&d.path))
        .map(|d| d.path.as_str())
        .collect();
    assert!(
        undocumented.is_empty() && unwritten.is_empty(),
        "report.json and docs/report-schema.md disagree.\n\
         In report.json, missing from the doc: {undocumented:#?}\n\
         In the doc (not marked optional), missing from report.json: {unwritten:#?}"
    );
}

#[test]
fn the_report_names_its_schema_version_and_tool() {
    let report = microscape_report();
    assert_eq!(
        report["schema_version"].as_u64(),
        Some(u64::from(webdiet::report::SCHEMA_VERSION)),
        "schema_version"
    );
    assert_eq!(report["tool"]["name"], "webdiet");
}

#[test]
fn a_report_loads_back_with_every_row_naming_its_mode_and_test_as_before() {
    let report = microscape_report();
    let loaded: webdiet::report::Report =
        serde_json::from_value(report.clone()).expect("report.json loads as a Report");
    assert!(!loaded.replay.is_empty(), "the audit replays");
    for (row, json) in loaded
        .replay
        .iter()
        .zip(report["replay"].as_array().unwrap())
    {
        assert_eq!(json["mode"].as_str(), Some(row.mode.as_str()));
        assert_eq!(json["test"].as_str(), Some(row.test.as_str()));
    }
    let again = serde_json::to_value(&loaded.replay).unwrap();
    assert_eq!(
        again.as_array().unwrap().len(),
        report["replay"].as_array().unwrap().len()
    );
    for (a, b) in again
        .as_array()
        .unwrap()
        .iter()
        .zip(report["replay"].as_array().unwrap())
    {
        assert_eq!((&a["mode"], &a["test"]), (&b["mode"], &b["test"]));
    }
}

#[test]
fn an_old_format_replay_row_without_the_later_fields_still_loads() {
    use webdiet::replay::{Mode, ReplayRow, Test};
    // A row as schema 2 wrote it: no link, timed-out runs, TLS part or waterfall, and the
    // mode and test as plain names.
    let mut old = microscape_report()["replay"][0].clone();
    let fields = old.as_object_mut().unwrap();
    for later in ["link", "timed_out_runs", "tls", "waterfall"] {
        fields.remove(later);
    }
    fields.insert("mode".into(), "pipelined-deflate".into());
    fields.insert("test".into(), "validate".into());
    let row: ReplayRow = serde_json::from_value(old).expect("an old row loads");
    assert_eq!(Some(row.mode), Mode::named("pipelined-deflate"));
    assert_eq!(row.test, Test::Validate);
    assert_eq!(
        row.link.name, "loopback",
        "an old row was measured on loopback"
    );

    let mut unknown = microscape_report()["replay"][0].clone();
    unknown["mode"] = "http2.5".into();
    let err = serde_json::from_value::<ReplayRow>(unknown).unwrap_err();
    assert!(
        err.to_string().contains("http2.5") && err.to_string().contains("pipelined"),
        "an unknown mode is named with the valid ones: {err}"
    );
}
