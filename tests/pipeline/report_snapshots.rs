//! Every renderer on one fixed report: `tests/golden/report/microscape/input/report.json` (an
//! audit of corpus/microscape by webdiet itself, made by `tests/golden/report/make.sh`) is read
//! back and rendered as the terminal summary (default and `--verbose`), Markdown, HTML, JSON,
//! JUnit XML, SARIF, GitLab Code Quality and GitHub's workflow commands, and each output is
//! compared with `expected/`, byte for byte. A change to a renderer shows as a diff of these
//! files; `UPDATE_SNAPSHOTS=1` rewrites them.

use std::path::{Path, PathBuf};

use webdiet::report::terminal::{audit, TextStyle, Verbosity};
use webdiet::report::{ci, html, json, markdown, Report};

fn case() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/report/microscape")
}

fn fixture() -> Report {
    let path = case().join("input/report.json");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Report::load(&bytes, &path).expect("the fixture loads")
}

fn summary(report: &Report, verbosity: Verbosity) -> String {
    let files = [
        Path::new("out/microscape/report.html"),
        Path::new("out/microscape/report.md"),
        Path::new("out/microscape/report.json"),
    ];
    audit::audit(
        report,
        &files,
        &TextStyle {
            color: false,
            verbosity,
        },
    )
}

/// Compares `actual` with `expected/NAME`, or writes it there with `UPDATE_SNAPSHOTS=1`.
fn snapshot(name: &str, actual: &str) {
    let path = case().join("expected").join(name);
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (UPDATE_SNAPSHOTS=1 writes it)", path.display()));
    if expected != actual {
        let (line, (want, got)) = expected
            .lines()
            .zip(actual.lines())
            .enumerate()
            .find(|(_, (a, b))| a != b)
            .map_or_else(
                || {
                    (
                        expected.lines().count().min(actual.lines().count()),
                        ("", ""),
                    )
                },
                |(i, pair)| (i, pair),
            );
        panic!(
            "{name} differs from {} at line {}:\n  expected: {want}\n  actual:   {got}\n\
             ({} lines expected, {} rendered; UPDATE_SNAPSHOTS=1 rewrites it — read the diff)",
            path.display(),
            line + 1,
            expected.lines().count(),
            actual.lines().count()
        );
    }
}

#[test]
fn the_terminal_summary_fits_one_screen_and_matches_its_snapshot() {
    let report = fixture();
    let text = summary(&report, Verbosity::Normal);
    assert!(
        text.lines().count() <= audit::SCREEN_LINES,
        "{} lines:\n{text}",
        text.lines().count()
    );
    snapshot("summary.txt", &text);
}

#[test]
fn the_verbose_terminal_report_matches_its_snapshot() {
    snapshot("verbose.txt", &summary(&fixture(), Verbosity::Verbose));
}

#[test]
fn the_markdown_report_matches_its_snapshot() {
    snapshot("report.md", &markdown::render(&fixture()));
}

#[test]
fn the_html_report_matches_its_snapshot_and_no_chart_label_overlaps() {
    let page = html::render(&fixture());
    for svg in html::overlap::svgs(&page) {
        let boxes = html::overlap::text_boxes(svg);
        let clashes = html::overlap::overlaps(&boxes);
        assert!(clashes.is_empty(), "{clashes:?} in {svg}");
    }
    snapshot("report.html", &page);
}

#[test]
fn the_json_report_matches_its_snapshot() {
    snapshot("report.json", &json::to_string(&fixture()));
}

#[test]
fn the_ci_formats_match_their_snapshots() {
    let report = fixture();
    snapshot("junit.xml", &ci::junit::render(&report));
    snapshot("report.sarif", &ci::sarif::render(&report));
    snapshot("gl-code-quality.json", &ci::gitlab::render(&report));
    snapshot("github.txt", &ci::github::annotations(&report));
}

#[test]
fn the_fixture_has_every_part_the_renderers_show() {
    let report = fixture();
    let savings = report.visitor_savings.as_ref().expect("a visitor's saving");
    assert!(!savings.links.is_empty(), "a named link with a time");
    assert!(report.opportunities.iter().any(|o| o.time_ms.is_some()));
    assert!(
        report.budgets.iter().any(|b| b.fails_run()),
        "a failed budget"
    );
    assert!(
        report.budgets.iter().any(|b| !b.passed && !b.fails_run()),
        "a budget over at warn level"
    );
    assert!(report
        .budgets
        .iter()
        .any(|b| b.metric.starts_with("regression:")));
    assert!(!report.findings.is_empty() && !report.tls_cost.is_empty());
}
