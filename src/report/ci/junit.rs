//! Budgets as JUnit XML, the lingua franca of CI test panels (Jenkins, GitLab, Azure), in
//! sitespeed.io's mapping: a `<testsuite>` per page (per page and link for a time budget), a
//! `<testcase>` per budget, a `<failure>` with the measured and the allowed value when an
//! `error` budget does not hold. A `warn` budget over its limit passes with the figures in
//! `<system-out>`; one that could not be measured is an `<error>`. The site and the tool are
//! `<properties>` of the first suite only: written in every suite, they repeat, which readers
//! that gather a run's properties refuse.
//!
//! quick-junit (nextest's) writes the XML: the escaping, the counts and the layout are a
//! maintained crate's; this file only maps budgets to suites and cases.

use std::collections::BTreeMap;
use std::time::Duration;

use quick_junit::{NonSuccessKind, Property, TestCase, TestCaseStatus, TestSuite};

use crate::report::model::{BudgetResult, Report};
use crate::report::phrases;

/// How every file this renderer writes begins: how webdiet recognises one of its own that a
/// later run may replace.
pub const SIGNATURE: &str =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- webdiet audit: budgets as JUnit XML -->\n";

/// Whether `bytes` are a JUnit file webdiet wrote.
pub fn is_ours(bytes: &[u8]) -> bool {
    bytes.starts_with(SIGNATURE.as_bytes())
}

/// Text with the characters XML 1.0 cannot hold (most control characters) written as
/// `\xNN`, so that they are shown rather than dropped (quick-junit drops them).
fn visible(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || matches!(c as u32, 0x7F | 0xFFFE | 0xFFFF) => {
                for b in c.to_string().bytes() {
                    out.push_str(&format!("\\x{b:02X}"));
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// The suite a budget belongs to: its page, with the link for a time budget; `site` for the
/// budgets of the site as a whole.
fn suite_of(b: &BudgetResult) -> String {
    match (&b.page, &b.link) {
        (Some(page), Some(link)) => format!("webdiet.{page} on {link}"),
        (Some(page), None) => format!("webdiet.{page}"),
        (None, Some(link)) => format!("webdiet.site on {link}"),
        (None, None) => "webdiet.site".to_string(),
    }
}

/// The test case of one budget in suite `suite`.
fn case(suite: &str, b: &BudgetResult) -> TestCase {
    let line = visible(&phrases::budget_line(b));
    let detail = visible(&format!(
        "{}: {} (metric {}, {} {} {}, level {}, set in {})",
        b.name,
        phrases::budget_line(b),
        b.metric,
        b.metric,
        b.operator,
        crate::report::format::number(b.limit),
        b.level.as_str(),
        b.source
    ));
    let failed = |kind: NonSuccessKind, ty: &str| {
        let mut status = TestCaseStatus::non_success(kind);
        status
            .set_type(ty)
            .set_message(line.as_str())
            .set_description(detail.as_str());
        status
    };
    let mut out_text = None;
    let status = match (b.actual, b.passed, b.fails_run()) {
        (None, _, _) => failed(NonSuccessKind::Error, "unmeasured"),
        (Some(_), false, true) => failed(NonSuccessKind::Failure, "budget"),
        (Some(_), false, false) => {
            out_text = Some(format!("over its limit at warn level: {detail}"));
            TestCaseStatus::success()
        }
        (Some(_), true, _) => TestCaseStatus::success(),
    };
    let mut case = TestCase::new(visible(&b.name), status);
    case.set_classname(visible(suite)).set_time(Duration::ZERO);
    if let Some(text) = out_text {
        case.set_system_out(text);
    }
    case
}

/// The JUnit XML of the report's budgets.
pub fn render(report: &Report) -> String {
    let mut suites: BTreeMap<String, Vec<&BudgetResult>> = BTreeMap::new();
    for b in &report.budgets {
        suites.entry(suite_of(b)).or_default().push(b);
    }
    let mut junit =
        quick_junit::Report::new(visible(&format!("webdiet audit {}", report.site.path)));
    junit.set_time(Duration::ZERO);
    for (i, (name, budgets)) in suites.iter().enumerate() {
        let mut suite = TestSuite::new(visible(name));
        suite.set_time(Duration::ZERO);
        if i == 0 {
            suite.add_properties([
                Property::new("site", visible(&report.site.path)),
                Property::new(
                    "tool",
                    visible(&format!("{} {}", report.tool.name, report.tool.version)),
                ),
            ]);
        }
        suite.add_test_cases(budgets.iter().map(|b| case(name, b)));
        junit.add_test_suite(suite);
    }
    let xml = junit
        .to_string()
        .expect("a JUnit report of strings always serializes");
    // quick-junit's declaration, then the comment that marks the file as webdiet's.
    let body = xml
        .strip_prefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>")
        .unwrap_or(&xml)
        .trim_start_matches('\n');
    format!("{SIGNATURE}{body}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::model::sample::sample;

    #[test]
    fn a_suite_per_page_a_case_per_budget_and_the_figures_in_the_failure() {
        let xml = render(&sample());
        assert!(xml.starts_with(SIGNATURE) && is_ours(xml.as_bytes()));
        assert!(
            xml.contains("<testsuites name=\"webdiet audit sites/demo &amp; co\" tests=\"2\""),
            "{xml}"
        );
        assert!(xml.contains("failures=\"1\" errors=\"0\""), "{xml}");
        assert_eq!(xml.matches("<testsuite ").count(), 1, "{xml}");
        assert!(xml.contains("name=\"webdiet.index.html\""));
        assert!(xml.contains(
            "<failure message=\"150,000 bytes measured, at most 100,000 bytes allowed\" type=\"budget\">"
        ), "{xml}");
        assert!(
            xml.contains("name=\"max-packets (pipelined, first visit)\""),
            "{xml}"
        );
    }

    #[test]
    fn an_unmeasured_budget_is_an_error_and_a_warning_passes() {
        let mut r = sample();
        r.budgets[1].actual = None;
        r.budgets[1].passed = false;
        r.budgets[1].unmeasured = Some("the replay was skipped".into());
        r.budgets[0].level = crate::report::model::BudgetLevel::Warn;
        let xml = render(&r);
        assert!(xml.contains("errors=\"1\" failures=\"0\""), "{xml}");
        assert!(xml.contains("type=\"unmeasured\">"), "{xml}");
        assert!(xml.contains("<system-out>over its limit at warn level"));
    }

    #[test]
    fn text_that_xml_cannot_hold_is_shown_as_its_bytes() {
        assert_eq!(visible("a<b>&\"'\u{1b}\t"), "a<b>&\"'\\x1B\t");
        let mut r = sample();
        r.site.path = "a<b>&\u{1b}".into();
        let xml = render(&r);
        assert!(
            xml.contains("name=\"webdiet audit a&lt;b&gt;&amp;\\x1B\""),
            "{xml}"
        );
    }

    #[test]
    fn the_site_and_the_tool_are_properties_of_one_suite_only() {
        let mut r = sample();
        let mut other = r.budgets[0].clone();
        other.page = Some("other.html".into());
        r.budgets.push(other);
        let xml = render(&r);
        assert!(xml.matches("<testsuite ").count() >= 2, "{xml}");
        assert_eq!(xml.matches("<properties>").count(), 1, "{xml}");
        assert_eq!(xml.matches("name=\"site\"").count(), 1, "{xml}");
    }
}
