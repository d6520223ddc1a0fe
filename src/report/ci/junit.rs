//! Budgets as JUnit XML, the lingua franca of CI test panels (Jenkins, GitLab, Azure), in
//! sitespeed.io's mapping: a `<testsuite>` per page (per page and link for a time budget), a
//! `<testcase>` per budget, a `<failure>` with the measured and the allowed value when an
//! `error` budget does not hold. A `warn` budget over its limit passes with the figures in
//! `<system-out>`; one that could not be measured is an `<error>`.

use std::collections::BTreeMap;
use std::fmt::Write;

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

/// Escapes text for XML content and attribute values; characters XML 1.0 cannot hold (most
/// control characters) are written as `\xNN`.
fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || matches!(c as u32, 0xFFFE | 0xFFFF) => {
                for b in c.to_string().bytes() {
                    let _ = write!(out, "\\x{b:02X}");
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

/// The JUnit XML of the report's budgets.
pub fn render(report: &Report) -> String {
    let mut suites: BTreeMap<String, Vec<&BudgetResult>> = BTreeMap::new();
    for b in &report.budgets {
        suites.entry(suite_of(b)).or_default().push(b);
    }
    let failures = |bs: &[&BudgetResult]| {
        bs.iter()
            .filter(|b| b.fails_run() && b.actual.is_some())
            .count()
    };
    let errors = |bs: &[&BudgetResult]| bs.iter().filter(|b| b.actual.is_none()).count();
    let all: Vec<&BudgetResult> = report.budgets.iter().collect();
    let mut out = String::from(SIGNATURE);
    let _ = writeln!(
        out,
        "<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" time=\"0\">",
        xml(&format!("webdiet audit {}", report.site.path)),
        all.len(),
        failures(&all),
        errors(&all)
    );
    for (name, budgets) in &suites {
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"0\" \
             time=\"0\">",
            xml(name),
            budgets.len(),
            failures(budgets),
            errors(budgets)
        );
        let _ = writeln!(
            out,
            "    <properties><property name=\"site\" value=\"{}\"/><property name=\"tool\" \
             value=\"{} {}\"/></properties>",
            xml(&report.site.path),
            xml(&report.tool.name),
            xml(&report.tool.version)
        );
        for b in budgets {
            let _ = write!(
                out,
                "    <testcase classname=\"{}\" name=\"{}\" time=\"0\"",
                xml(name),
                xml(&b.name)
            );
            let detail = format!(
                "{}: {} (metric {}, {} {} {}, level {}, set in {})",
                b.name,
                phrases::budget_line(b),
                b.metric,
                b.metric,
                b.operator,
                crate::report::format::number(b.limit),
                b.level.as_str(),
                b.source
            );
            match (b.actual, b.passed, b.fails_run()) {
                (None, _, _) => {
                    let _ = writeln!(
                        out,
                        ">\n      <error type=\"unmeasured\" message=\"{}\">{}</error>\n    \
                         </testcase>",
                        xml(&phrases::budget_line(b)),
                        xml(&detail)
                    );
                }
                (Some(_), false, true) => {
                    let _ = writeln!(
                        out,
                        ">\n      <failure type=\"budget\" message=\"{}\">{}</failure>\n    \
                         </testcase>",
                        xml(&phrases::budget_line(b)),
                        xml(&detail)
                    );
                }
                (Some(_), false, false) => {
                    let _ = writeln!(
                        out,
                        ">\n      <system-out>{}</system-out>\n    </testcase>",
                        xml(&format!("over its limit at warn level: {detail}"))
                    );
                }
                (Some(_), true, _) => {
                    let _ = writeln!(out, "/>");
                }
            }
        }
        let _ = writeln!(out, "  </testsuite>");
    }
    out.push_str("</testsuites>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::model::sample::sample;

    #[test]
    fn a_suite_per_page_a_case_per_budget_and_the_figures_in_the_failure() {
        let xml = render(&sample());
        assert!(xml.starts_with(SIGNATURE) && is_ours(xml.as_bytes()));
        assert!(xml.contains("<testsuites name=\"webdiet audit sites/demo &amp; co\" tests=\"2\" failures=\"1\" errors=\"0\""), "{xml}");
        assert_eq!(xml.matches("<testsuite ").count(), 1, "{xml}");
        assert!(xml.contains("name=\"webdiet.index.html\""));
        assert!(xml.contains(
            "<failure type=\"budget\" message=\"150,000 bytes measured, at most 100,000 bytes allowed\">"
        ), "{xml}");
        assert!(xml.contains("name=\"max-packets (pipelined, first visit)\" time=\"0\"/>"));
    }

    #[test]
    fn an_unmeasured_budget_is_an_error_and_a_warning_passes() {
        let mut r = sample();
        r.budgets[1].actual = None;
        r.budgets[1].passed = false;
        r.budgets[1].unmeasured = Some("the replay was skipped".into());
        r.budgets[0].level = crate::report::model::BudgetLevel::Warn;
        let xml = render(&r);
        assert!(xml.contains("failures=\"0\" errors=\"1\""), "{xml}");
        assert!(xml.contains("<error type=\"unmeasured\""));
        assert!(xml.contains("<system-out>over its limit at warn level"));
    }

    #[test]
    fn text_that_xml_cannot_hold_is_escaped() {
        assert_eq!(xml("a<b>&\"'\u{1b}"), "a&lt;b&gt;&amp;&quot;&apos;\\x1B");
    }
}
