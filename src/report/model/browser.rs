//! Chromium's visits in the report: which links it ran over, the row of a site, link, mode
//! and test, webdiet's own row beside it, and the metrics every table shows.

use super::report::Report;
use crate::replay::row::Spread;
use crate::replay::{BrowserRow, Mode, ReplayRow, Test};

/// The emulated links Chromium ran over, in report order.
pub fn links(report: &Report) -> Vec<&str> {
    let mut links: Vec<&str> = Vec::new();
    for row in &report.browser {
        if !links.contains(&row.link.name.as_str()) {
            links.push(&row.link.name);
        }
    }
    links
}

/// The browser row of a site, link, mode and test.
pub fn row<'a>(
    report: &'a Report,
    link: &str,
    site: &str,
    mode: Mode,
    test: Test,
) -> Option<&'a BrowserRow> {
    report
        .browser
        .iter()
        .find(|r| r.link.name == link && r.site == site && r.mode == mode && r.test == test)
}

/// The robot's row of the same site, link, mode and test.
pub fn robot_row<'a>(report: &'a Report, b: &BrowserRow) -> Option<&'a ReplayRow> {
    report.replay.iter().find(|r| {
        r.link.name == b.link.name && r.site == b.site && r.mode == b.mode && r.test == b.test
    })
}

/// The metrics the tables show, with their names.
pub fn metrics(row: &BrowserRow) -> [(&'static str, Option<&Spread>); 6] {
    let m = &row.metrics;
    [
        ("TTFB", m.ttfb_ms.as_ref()),
        ("FCP", m.fcp_ms.as_ref()),
        ("LCP", m.lcp_ms.as_ref()),
        ("DCL", m.dom_content_loaded_ms.as_ref()),
        ("load", m.load_ms.as_ref()),
        ("complete", m.complete_ms.as_ref()),
    ]
}
