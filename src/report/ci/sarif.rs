//! The per-file findings as SARIF 2.1.0, for GitHub code scanning and other SARIF readers:
//! one run, the rules of `model::findings::RULES` with their stable ids, a result per finding
//! with its file and its line where known, and a fingerprint so that a finding keeps its
//! identity from run to run.
//!
//! A file is always a relative reference with a `uriBaseId`, never an absolute URI beside one
//! (which the SARIF validator refuses, SARIF1004): for a relative site directory, a path from
//! the repository's root (`%SRCROOT%`: the site directory as given joined with the file); for
//! an absolute one, a path from the site directory (`SITEROOT`), whose `file:` URI
//! `originalUriBaseIds` gives. At most [`MAX_RESULTS`] results, the most
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

/// The base of the files of a relative site directory: the repository's root, which code
/// scanning resolves itself (the site directory as given is a path from it).
pub const SRCROOT: &str = "%SRCROOT%";
/// The base of the files of an absolute site directory (or one that climbs out with `..`):
/// the site directory itself.
pub const SITEROOT: &str = "SITEROOT";

/// Percent-encodes a path for a URI: RFC 3986's unreserved characters and `/` stay.
fn encode(path: &str) -> String {
    utf8_percent_encode(path, URI_PATH).to_string()
}

/// Whether a path has a `..` segment.
fn climbs(path: &str) -> bool {
    path.split('/').any(|s| s == "..")
}

/// The file of a finding as a relative URI reference, with the base it is relative to:
/// [`SRCROOT`] and the site directory as given joined with the site path (`./` dropped) for a
/// relative site directory; [`SITEROOT`] and the site path for an absolute one, or one with a
/// `..` segment (a `file:` URI must not have one).
pub fn uri(site: &str, path: &str) -> (String, &'static str) {
    if site.starts_with('/') || climbs(site) {
        (encode(path), SITEROOT)
    } else {
        (encode(&repo_path(site, path)), SRCROOT)
    }
}

/// The `originalUriBaseIds` of a log: [`SRCROOT`] described, and for an absolute site
/// directory [`SITEROOT`] as its `file:` URI (absolute, ending with `/`, without `..`,
/// query or fragment, as SARIF1004 wants).
fn bases(site: &str) -> Value {
    let mut bases = json!({ SRCROOT: {
        "description": { "text": "The repository's root: paths start with the site \
                                  directory as given to webdiet." },
    }});
    if site.starts_with('/') || climbs(site) {
        let mut base = json!({
            "description": { "text": format!("The site directory as given to webdiet: {site}") },
        });
        if site.starts_with('/') && !climbs(site) {
            let dir = format!("{}/", site.trim_end_matches('/'));
            base["uri"] = json!(format!("file://{}", encode(&dir)));
        }
        bases[SITEROOT] = base;
    }
    bases
}

fn result(report: &Report, f: &Finding) -> Value {
    let index = RULES.iter().position(|r| r.id == f.rule);
    let (uri, base) = uri(&report.site.path, &f.path);
    let mut location = json!({
        "physicalLocation": {
            "artifactLocation": { "uri": uri, "uriBaseId": base },
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
            "originalUriBaseIds": bases(&report.site.path),
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
    fn uris_of_a_relative_site_start_at_the_repository_root() {
        assert_eq!(
            uri("./corpus/microscape", "img/a b.gif"),
            ("corpus/microscape/img/a%20b.gif".to_string(), SRCROOT)
        );
        assert!(!is_ours(b"{\"version\": \"2.1.0\"}"));
    }

    #[test]
    fn uris_of_an_absolute_site_are_relative_to_its_directory_given_as_a_file_uri() {
        assert_eq!(
            uri("/srv/my site/", "a:b.html"),
            ("a%3Ab.html".to_string(), SITEROOT)
        );
        let absolute = bases("/srv/my site/");
        assert_eq!(absolute[SITEROOT]["uri"], "file:///srv/my%20site/");
        assert_eq!(uri("../site", "index.html").1, SITEROOT);
        assert!(
            bases("../site")[SITEROOT].get("uri").is_none(),
            "no file URI with a .. segment"
        );
        assert!(bases("site")[SITEROOT].is_null(), "only the bases used");
    }
}
