//! The per-file findings as SARIF 2.1.0, for GitHub code scanning and other SARIF readers:
//! one run, the rules of `model::findings::RULES` with their stable ids, a result per finding
//! with its file (a path from the repository's root, the site directory as given on the
//! command line joined with the file) and its line where known, and a fingerprint so that a
//! finding keeps its identity from run to run. At most [`MAX_RESULTS`] results, the most
//! severe and largest first, as GitHub shows only the top 5,000 of a run; the run says how
//! many were left out.

use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use serde_json::{json, Value};

use crate::report::format::repo_path;
use crate::report::model::findings::RULES;
use crate::report::model::{Finding, Report};

/// The SARIF schema a file names.
pub const SCHEMA_URI: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";
/// The most results a run holds (GitHub includes "only the top 5,000 results").
pub const MAX_RESULTS: usize = 5_000;

/// What a URI path keeps as it is: RFC 3986's unreserved characters and `/`.
const URI_PATH: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b'/');

/// Whether `bytes` are a SARIF log webdiet wrote (its one run's tool is webdiet).
pub fn is_ours(bytes: &[u8]) -> bool {
    serde_json::from_slice::<Value>(bytes).is_ok_and(|v| {
        v["version"] == "2.1.0" && v["runs"][0]["tool"]["driver"]["name"] == "webdiet"
    })
}

/// The file of a finding as a URI reference from the repository's root: the site directory as
/// given, joined with the site path, `./` dropped, every other character percent-encoded.
pub fn uri(site: &str, path: &str) -> String {
    let joined = repo_path(site, path);
    let encoded = utf8_percent_encode(&joined, URI_PATH).to_string();
    if joined.starts_with('/') {
        format!("file://{encoded}")
    } else {
        encoded
    }
}

fn result(report: &Report, f: &Finding) -> Value {
    let index = RULES.iter().position(|r| r.id == f.rule);
    let mut location = json!({
        "physicalLocation": {
            "artifactLocation": {
                "uri": uri(&report.site.path, &f.path),
                "uriBaseId": "%SRCROOT%",
            },
        },
    });
    if let Some(line) = f.line {
        location["physicalLocation"]["region"] = json!({ "startLine": line });
    }
    let mut r = json!({
        "ruleId": f.rule,
        "level": f.level.as_str(),
        "message": { "text": f.message },
        "locations": [location],
        "partialFingerprints": { "webdiet/v1": f.fingerprint },
    });
    if let Some(i) = index {
        r["ruleIndex"] = json!(i);
    }
    if let Some(bytes) = f.bytes {
        r["properties"] = json!({ "bytesSaved": bytes });
    }
    r
}

/// The SARIF log of the report's findings, pretty-printed.
pub fn render(report: &Report) -> String {
    let rules: Vec<Value> = RULES
        .iter()
        .map(|r| {
            json!({
                "id": r.id,
                "name": r.name,
                "shortDescription": { "text": r.name },
                "fullDescription": { "text": r.help },
                "help": { "text": r.help },
                "defaultConfiguration": { "level": r.level.as_str() },
                "properties": { "tags": ["performance", "webdiet"] },
            })
        })
        .collect();
    let results: Vec<Value> = report
        .findings
        .iter()
        .take(MAX_RESULTS)
        .map(|f| result(report, f))
        .collect();
    let left_out = report.findings.len().saturating_sub(MAX_RESULTS);
    let mut notes = Vec::new();
    if left_out > 0 {
        notes.push(json!({
            "level": "note",
            "message": { "text": format!(
                "{left_out} findings left out: a run holds the {MAX_RESULTS} most severe and \
                 largest (GitHub shows no more); report.json lists all {}",
                report.findings.len()
            )},
        }));
    }
    let log = json!({
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": report.tool.name,
                "version": report.tool.version,
                "semanticVersion": report.tool.version,
                "rules": rules,
            }},
            "invocations": [{
                "executionSuccessful": true,
                "toolExecutionNotifications": notes,
            }],
            "originalUriBaseIds": { "%SRCROOT%": {
                "description": { "text": "The repository's root: paths start with the site \
                                          directory as given to webdiet." },
            }},
            "results": results,
            "properties": { "site": report.site.path, "findings": report.findings.len() },
        }],
    });
    crate::report::format::json(&log)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::model::sample::sample;

    #[test]
    fn every_finding_is_a_result_with_a_stable_rule_and_a_location() {
        let report = sample();
        let text = render(&report);
        assert!(is_ours(text.as_bytes()));
        let log: Value = serde_json::from_str(&text).unwrap();
        let run = &log["runs"][0];
        assert_eq!(
            run["results"].as_array().unwrap().len(),
            report.findings.len()
        );
        assert_eq!(
            run["tool"]["driver"]["rules"].as_array().unwrap().len(),
            RULES.len()
        );
        let first = &run["results"][0];
        let i = first["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(run["tool"]["driver"]["rules"][i]["id"], first["ruleId"]);
        assert!(
            first["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .unwrap()
                .starts_with("sites/demo%20%26%20co/")
        );
    }

    #[test]
    fn the_results_stop_at_githubs_cap_and_the_run_says_so() {
        let mut report = sample();
        let one = report.findings[0].clone();
        report.findings = vec![one; MAX_RESULTS + 7];
        let log: Value = serde_json::from_str(&render(&report)).unwrap();
        assert_eq!(
            log["runs"][0]["results"].as_array().unwrap().len(),
            MAX_RESULTS
        );
        let note = &log["runs"][0]["invocations"][0]["toolExecutionNotifications"][0];
        assert!(note["message"]["text"]
            .as_str()
            .unwrap()
            .starts_with("7 findings left out"));
    }

    #[test]
    fn uris_start_at_the_repository_root() {
        assert_eq!(
            uri("./corpus/microscape", "img/a b.gif"),
            "corpus/microscape/img/a%20b.gif"
        );
        assert_eq!(
            uri("/srv/site/", "index.html"),
            "file:///srv/site/index.html"
        );
        assert!(!is_ours(b"{\"version\": \"2.1.0\"}"));
    }
}
