//! Chromium's visits in the HTML report: the metrics table (original and rewritten, every
//! link, mode and test) and the browser's own waterfall as an inline SVG, one bar per
//! request on one lane per connection, so the connections a browser opened and the order it
//! found the images in can be seen.

use std::fmt::Write;

use super::tables::{table, Cell};
use crate::replay::{BrowserRow, Mode, Test};
use crate::report::format::{self, html as esc, thousands};
use crate::report::model::browser::{links, metrics, row};
use crate::report::model::Report;
use crate::report::phrases::{self, faults, metric};

/// The section, or `None` when Chromium did not run and was not asked for.
pub fn section(report: &Report) -> Option<String> {
    if report.browser.is_empty() && report.browser_unavailable.is_none() {
        return None;
    }
    let mut out = String::from("<h3 id=\"chromium\">Chromium over the emulated links</h3>");
    if let Some(why) = &report.browser_unavailable {
        let _ = write!(out, "<p class=\"note\">Not run: {}</p>", esc(why));
    }
    if let Some(h) = phrases::browser_headline(report) {
        let _ = write!(out, "<p><strong>{}</strong></p>", esc(&h));
    }
    if report.browser.is_empty() {
        return Some(out);
    }
    out.push_str(
        "<p class=\"note\">Median over the runs, from the navigation's start (TTFB, first and \
         largest contentful paint, DOMContentLoaded, load, the last byte of the last request); \
         packets and bytes counted on the link, both ways.</p>",
    );
    out.push_str(&metrics_table(report));
    for link in links(report) {
        for mode in Mode::browser_headline_order() {
            let (Some(o), Some(r)) = (
                row(report, link, "original", mode, Test::First),
                row(report, link, "rewritten", mode, Test::First),
            ) else {
                continue;
            };
            let _ = write!(
                out,
                "<h4>Waterfall over {} ({}, first visit, the median run)</h4>",
                esc(link),
                esc(mode.as_str())
            );
            out.push_str(&waterfall(o));
            out.push_str(&waterfall(r));
        }
    }
    Some(out)
}

fn metrics_table(report: &Report) -> String {
    let rows = report
        .browser
        .iter()
        .map(|r| {
            let mut cells = vec![
                Cell::text(&r.link.name),
                Cell::text(&r.site),
                Cell::text(r.mode.as_str()),
                Cell::text(r.test.as_str()),
                Cell::text(&r.protocol),
                Cell::number(
                    r.requests as f64,
                    &format!("{} ({})", r.requests, r.not_modified),
                ),
                Cell::number(r.connections.median, &format!("{}", r.connections.median)),
            ];
            for (_, spread) in metrics(r) {
                cells.push(Cell::number(
                    spread.map_or(f64::NAN, |s| s.median),
                    &metric(spread),
                ));
            }
            cells.push(Cell::count(r.packets.median as u64));
            let bytes = (r.bytes_up.median + r.bytes_down.median) as u64;
            cells.push(Cell::count(bytes));
            cells.push(Cell::long(&faults(r).unwrap_or_default()));
            cells
        })
        .collect();
    table(
        "browser-metrics",
        &[
            "link",
            "site",
            "mode",
            "test",
            "protocol",
            "requests (304)",
            "conn",
            "TTFB",
            "FCP",
            "LCP",
            "DCL",
            "load",
            "complete",
            "packets",
            "bytes",
            "runs",
        ],
        rows,
        Vec::new(),
    )
}

const WIDTH: f64 = 1060.0;
const LABEL: f64 = 230.0;
const LANE: f64 = 14.0;
const TOP: f64 = 28.0;

/// The browser's waterfall of one row as an `<svg class="waterfall">`: per request, the
/// connection set-up (grey), waiting for the first byte (light) and the transfer (dark),
/// with the FCP, LCP and load marks.
pub fn waterfall(r: &BrowserRow) -> String {
    let requests: Vec<_> = r
        .waterfall
        .iter()
        .filter(|q| q.url.starts_with("http"))
        .collect();
    if requests.is_empty() {
        return format!(
            "<p class=\"note\">{}: no request was recorded.</p>",
            esc(&r.site)
        );
    }
    let end = requests
        .iter()
        .filter_map(|q| q.done_ms)
        .chain([
            r.metrics.load_ms.map_or(0.0, |s| s.median),
            r.metrics.lcp_ms.map_or(0.0, |s| s.median),
        ])
        .fold(1.0_f64, f64::max);
    let plot = WIDTH - LABEL - 20.0;
    let x = |ms: f64| LABEL + plot * (ms.max(0.0) / end).min(1.0);
    let plot_bottom = TOP + LANE * requests.len() as f64;
    let height = plot_bottom + 40.0;
    let mut svg = String::new();
    let _ = write!(
        svg,
        "<figure class=\"chart wide\"><figcaption>{} site: {} requests on {} connection(s), {} \
         bytes</figcaption><svg class=\"waterfall\" viewBox=\"0 0 {WIDTH} {height}\" \
         width=\"{WIDTH}\" height=\"{height}\" role=\"img\" aria-label=\"{} waterfall\">",
        esc(&r.site),
        requests.len(),
        r.connections_used(),
        thousands((r.bytes_up.median + r.bytes_down.median) as u64),
        esc(&r.site)
    );
    let _ = write!(
        svg,
        "<text x=\"{LABEL}\" y=\"14\" font-size=\"11\">0</text><text x=\"{}\" y=\"14\" \
         font-size=\"11\" text-anchor=\"end\">{}</text>",
        WIDTH - 20.0,
        esc(&format::ms(end))
    );
    for (i, q) in requests.iter().enumerate() {
        let y = TOP + LANE * i as f64;
        let name = q
            .url
            .split_once("://")
            .and_then(|(_, rest)| rest.split_once('/'))
            .map_or(q.url.as_str(), |(_, path)| path);
        let name = if name.is_empty() { "/" } else { name };
        let conn = q
            .connection
            .map_or_else(|| "cache".to_string(), |c| format!("#{c}"));
        let _ = write!(
            svg,
            "<text x=\"4\" y=\"{}\" font-size=\"10\">{} {}</text>",
            y + 10.0,
            esc(&conn),
            esc(&truncate(name, 30))
        );
        let bar = |svg: &mut String, from: Option<f64>, to: Option<f64>, colour: &str| {
            if let (Some(a), Some(b)) = (from, to) {
                let _ = write!(
                    svg,
                    "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"10\" fill=\"{colour}\"/>",
                    x(a),
                    y + 2.0,
                    (x(b) - x(a)).max(1.0)
                );
            }
        };
        bar(&mut svg, q.connect_start_ms, q.connect_end_ms, "#bbbbbb");
        bar(
            &mut svg,
            Some(q.start_ms),
            q.first_byte_ms.or(q.done_ms),
            "#9ecae1",
        );
        bar(&mut svg, q.first_byte_ms, q.done_ms, "#3182bd");
        let _ = write!(
            svg,
            "<title>{} on {}: {} → {}</title>",
            esc(&q.url),
            esc(&conn),
            esc(&format::ms(q.start_ms)),
            esc(&q.done_ms.map_or("—".into(), format::ms))
        );
    }
    // The paint marks: a line each, and its name under the plot; names that would touch
    // go one row lower.
    let mut marks: Vec<(&str, f64, &str)> = [
        ("FCP", r.metrics.fcp_ms, "#31a354"),
        ("LCP", r.metrics.lcp_ms, "#e6550d"),
        ("load", r.metrics.load_ms, "#756bb1"),
    ]
    .into_iter()
    .filter_map(|(name, spread, colour)| Some((name, x(spread?.median), colour)))
    .collect();
    marks.sort_by(|a, b| a.1.total_cmp(&b.1));
    let mut rows_end: Vec<f64> = Vec::new();
    for (name, mx, colour) in marks {
        let width = super::charts::text_width(name, 10.0);
        let row = rows_end
            .iter()
            .position(|&end| mx > end + 2.0)
            .unwrap_or(rows_end.len());
        if row == rows_end.len() {
            rows_end.push(0.0);
        }
        rows_end[row] = mx + width;
        let _ = write!(
            svg,
            "<line x1=\"{mx:.1}\" x2=\"{mx:.1}\" y1=\"{}\" y2=\"{}\" stroke=\"{colour}\" \
             stroke-width=\"1.5\"/><text x=\"{mx:.1}\" y=\"{}\" font-size=\"10\" \
             fill=\"{colour}\">{name}</text>",
            TOP - 4.0,
            plot_bottom,
            plot_bottom + 12.0 + 12.0 * row as f64
        );
    }
    svg.push_str("</svg></figure>");
    svg
}

fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let cut: String = text.chars().take(max - 1).collect();
        format!("{cut}…")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::model::sample::browser_row as sample_browser_row;

    #[test]
    fn the_waterfall_draws_a_lane_per_request_and_the_paint_marks() {
        let r = sample_browser_row("original", "h2", "first", 1500.0);
        let svg = waterfall(&r);
        assert!(svg.contains("<svg class=\"waterfall\""));
        assert_eq!(svg.matches("<title>").count(), 3, "{svg}");
        for mark in ["FCP", "LCP", "load"] {
            assert!(svg.contains(&format!(">{mark}</text>")), "{mark}");
        }
        assert!(svg.contains("1 connection(s)"), "{svg}");
    }

    #[test]
    fn urls_in_the_waterfall_are_escaped() {
        let mut r = sample_browser_row("original", "h2", "first", 1500.0);
        r.waterfall[1].url = "https://h/<script>".into();
        let svg = waterfall(&r);
        assert!(!svg.contains("<script>"));
        assert!(svg.contains("&lt;script&gt;"));
    }

    #[test]
    fn the_section_is_there_only_when_the_browser_ran_or_was_asked_for() {
        assert!(section(&Report::default()).is_none());
        let report = Report {
            browser: vec![
                sample_browser_row("original", "h2", "first", 3900.0),
                sample_browser_row("rewritten", "h2", "first", 3100.0),
            ],
            ..Report::default()
        };
        let html = section(&report).unwrap();
        assert!(html.contains("id=\"browser-metrics\""));
        assert_eq!(html.matches("<svg class=\"waterfall\"").count(), 2);
        assert!(html.contains("LCP on 3G"));
    }
}
