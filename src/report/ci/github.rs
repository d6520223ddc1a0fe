//! GitHub Actions: workflow-command annotations on stdout, and the job summary.
//!
//! GitHub shows at most [`MAX_ERRORS`] error and [`MAX_WARNINGS`] warning annotations per step
//! (50 per job) and drops the rest without a word, so webdiet writes no more than that: the
//! budgets that failed, then the largest per-file findings, and one notice that says how many
//! were left out and where they are. The job summary takes Markdown up to [`SUMMARY_LIMIT`]
//! bytes per step; [`step_summary`] cuts a report to fit, at a section boundary, with a note.

use std::fmt::Write;

use crate::report::format::repo_path;
use crate::report::model::{FindingLevel, Report};
use crate::report::phrases;

/// Error annotations GitHub shows per step.
pub const MAX_ERRORS: usize = 10;
/// Warning annotations GitHub shows per step.
pub const MAX_WARNINGS: usize = 10;
/// Annotations GitHub shows per job.
pub const MAX_PER_JOB: usize = 50;
/// What one step may write to `$GITHUB_STEP_SUMMARY`: 1024 KiB.
pub const SUMMARY_LIMIT: usize = 1024 * 1024;

/// A command's message: `%`, CR and LF escaped.
fn data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A command's property value: also `:` and `,` escaped.
fn property(text: &str) -> String {
    data(text).replace(':', "%3A").replace(',', "%2C")
}

/// One annotation.
struct Annotation {
    level: &'static str,
    file: Option<String>,
    line: Option<u32>,
    title: String,
    message: String,
}

impl Annotation {
    fn command(&self) -> String {
        let mut props = Vec::new();
        if let Some(file) = &self.file {
            props.push(format!("file={}", property(file)));
        }
        if let Some(line) = self.line {
            props.push(format!("line={line}"));
        }
        props.push(format!("title={}", property(&self.title)));
        format!(
            "::{} {}::{}",
            self.level,
            props.join(","),
            data(&self.message)
        )
    }
}

/// The workflow commands: errors (budgets that fail the run, references the rewrite broke),
/// then warnings (budgets over at warn level, the largest findings a person should act on),
/// each capped as GitHub caps them, and a notice for what was left out. One command a line.
pub fn annotations(report: &Report) -> String {
    let site = &report.site.path;
    let page_file = |page: &Option<String>| page.as_ref().map(|p| repo_path(site, p));
    let mut errors = Vec::new();
    let mut warnings = Vec::new();
    for b in report.budgets.iter().filter(|b| !b.passed) {
        let a = Annotation {
            level: if b.fails_run() { "error" } else { "warning" },
            file: page_file(&b.page),
            line: None,
            title: format!("webdiet budget: {}", b.name),
            message: format!("{}: {}", b.name, phrases::budget_line(b)),
        };
        if b.fails_run() {
            errors.push(a);
        } else {
            warnings.push(a);
        }
    }
    for f in &report.findings {
        let a = Annotation {
            level: if f.level == FindingLevel::Error {
                "error"
            } else {
                "warning"
            },
            file: Some(repo_path(site, &f.path)),
            line: f.line,
            title: f.rule.clone(),
            message: f.message.clone(),
        };
        match f.level {
            FindingLevel::Error => errors.push(a),
            FindingLevel::Warning => warnings.push(a),
            FindingLevel::Note => {}
        }
    }
    let mut out = String::new();
    for a in errors.iter().take(MAX_ERRORS) {
        let _ = writeln!(out, "{}", a.command());
    }
    for a in warnings.iter().take(MAX_WARNINGS) {
        let _ = writeln!(out, "{}", a.command());
    }
    let (more_errors, more_warnings) = (
        errors.len().saturating_sub(MAX_ERRORS),
        warnings.len().saturating_sub(MAX_WARNINGS),
    );
    if more_errors + more_warnings > 0 {
        let notice = Annotation {
            level: "notice",
            file: None,
            line: None,
            title: "webdiet: more findings".into(),
            message: format!(
                "{more_errors} more error{} and {more_warnings} more warning{} were not \
                 annotated (GitHub shows {MAX_ERRORS} of each per step); the job summary, \
                 report.md and report.html list them all",
                if more_errors == 1 { "" } else { "s" },
                if more_warnings == 1 { "" } else { "s" }
            ),
        };
        let _ = writeln!(out, "{}", notice.command());
    }
    out
}

/// What to append to a step summary that already holds `used` bytes: `markdown` whole when it
/// fits under [`SUMMARY_LIMIT`], else cut before the last section (`### `) that fits, with a
/// note saying where the rest is; empty when not even the note fits.
pub fn step_summary(markdown: &str, used: usize) -> String {
    const NOTE: &str = "\n\n> The report was cut here to stay under GitHub's 1 MiB job \
                        summary; the whole of it is in report.md and report.html (upload \
                        them as the job's artifacts).\n";
    let room = SUMMARY_LIMIT.saturating_sub(used);
    if markdown.len() <= room {
        return markdown.to_string();
    }
    let budget = room.saturating_sub(NOTE.len());
    let mut cut = 0;
    for (at, _) in markdown.match_indices("\n### ") {
        if at > budget {
            break;
        }
        cut = at;
    }
    if cut == 0 && NOTE.len() > room {
        return String::new();
    }
    format!("{}{NOTE}", &markdown[..cut])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::model::sample::sample;

    #[test]
    fn commands_escape_what_github_would_read_as_syntax() {
        let a = Annotation {
            level: "warning",
            file: Some("a,b:c.html".into()),
            line: Some(3),
            title: "t".into(),
            message: "50% less\nnext".into(),
        };
        assert_eq!(
            a.command(),
            "::warning file=a%2Cb%3Ac.html,line=3,title=t::50%25 less%0Anext"
        );
    }

    #[test]
    fn annotations_stop_at_githubs_caps_and_a_notice_counts_the_rest() {
        let mut r = sample();
        let failed = r.budgets[0].clone();
        r.budgets = vec![failed; 25];
        let warning = r
            .findings
            .iter()
            .find(|f| f.level == FindingLevel::Warning)
            .unwrap()
            .clone();
        r.findings = vec![warning; 30];
        let out = annotations(&r);
        let count = |level: &str| out.lines().filter(|l| l.starts_with(level)).count();
        assert_eq!(count("::error "), MAX_ERRORS);
        assert_eq!(count("::warning "), MAX_WARNINGS);
        assert_eq!(count("::notice "), 1);
        assert!(out.lines().count() <= MAX_PER_JOB);
        assert!(out.contains("15 more errors and 20 more warnings"), "{out}");
    }

    #[test]
    fn a_summary_that_does_not_fit_is_cut_at_a_section_with_a_note() {
        let section = format!("\n### Part\n{}", "x".repeat(300 * 1024));
        let md = format!("## head{}", section.repeat(5));
        let fits = step_summary(&md, 0);
        assert!(fits.len() <= SUMMARY_LIMIT, "{}", fits.len());
        assert!(fits.ends_with("artifacts).\n"));
        assert_eq!(
            fits.matches("### Part").count(),
            3,
            "three of 300 KiB fit in 1 MiB"
        );
        assert_eq!(step_summary("small", 0), "small");
        let nearly_full = step_summary(&md, SUMMARY_LIMIT - 10);
        assert!(nearly_full.is_empty());
    }
}
