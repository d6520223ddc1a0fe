//! GitLab's Code Quality report (a subset of Code Climate's issue format): the per-file
//! findings and the budgets that did not hold, each with a check name, a severity, a file and
//! line from the repository's root, and a fingerprint unique to the finding (GitLab shows only
//! the first of several with one fingerprint).

use serde_json::{json, Value};

use crate::report::format::repo_path;
use crate::report::model::{BudgetLevel, FindingLevel, Report};

/// Whether `bytes` are a Code Quality report webdiet wrote: an array whose every issue comes
/// from webdiet's engine (an empty array holds nothing to lose).
pub fn is_ours(bytes: &[u8]) -> bool {
    serde_json::from_slice::<Value>(bytes).is_ok_and(|v| {
        v.as_array()
            .is_some_and(|issues| issues.iter().all(|i| i["engine_name"] == "webdiet"))
    })
}

/// The Code Quality JSON of the report.
pub fn render(report: &Report) -> String {
    let site = &report.site.path;
    let mut issues: Vec<Value> = Vec::new();
    for b in report.budgets.iter().filter(|b| !b.passed) {
        let page = b
            .page
            .clone()
            .or_else(|| report.visitor_savings.as_ref().map(|s| s.page.clone()))
            .unwrap_or_else(|| "index.html".to_string());
        issues.push(json!({
            "type": "issue",
            "engine_name": "webdiet",
            "check_name": format!("webdiet/budget/{}", b.metric),
            "description": format!("{}: {}", b.name, crate::report::phrases::budget_line(b)),
            "categories": ["Performance"],
            "severity": match b.level {
                BudgetLevel::Error => "critical",
                BudgetLevel::Warn => "minor",
            },
            "fingerprint": format!("webdiet/budget:{}:{}:{}", b.metric, page, b.name),
            "location": { "path": repo_path(site, &page), "lines": { "begin": 1 } },
        }));
    }
    for f in &report.findings {
        issues.push(json!({
            "type": "issue",
            "engine_name": "webdiet",
            "check_name": f.rule,
            "description": f.message,
            "categories": [if f.level == FindingLevel::Error { "Bug Risk" } else { "Performance" }],
            "severity": match f.level {
                FindingLevel::Error => "major",
                FindingLevel::Warning => "minor",
                FindingLevel::Note => "info",
            },
            "fingerprint": f.fingerprint,
            "location": {
                "path": repo_path(site, &f.path),
                "lines": { "begin": f.line.unwrap_or(1) },
            },
        }));
    }
    crate::report::format::json(&issues)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::model::sample::sample;

    #[test]
    fn failed_budgets_and_findings_become_issues_with_unique_fingerprints() {
        let report = sample();
        let text = render(&report);
        assert!(is_ours(text.as_bytes()));
        let issues: Vec<Value> = serde_json::from_str(&text).unwrap();
        assert_eq!(issues.len(), 1 + report.findings.len());
        assert_eq!(issues[0]["severity"], "critical");
        let prints: std::collections::BTreeSet<&str> = issues
            .iter()
            .map(|i| i["fingerprint"].as_str().unwrap())
            .collect();
        assert_eq!(prints.len(), issues.len());
        assert!(is_ours(b"[]"));
        assert!(!is_ours(b"[{\"engine_name\": \"eslint\"}]"));
    }
}
