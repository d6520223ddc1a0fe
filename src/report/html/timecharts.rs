//! Inline SVG charts of time: the request waterfall of one visit, as WebPageTest draws it, and
//! line charts of time against a swept RTT or loss rate. Drawn here, like `charts.rs`, so the
//! report needs no script library and no network.

use std::fmt::Write;

use super::charts::nice_ceiling;
use crate::replay::RequestTiming;
use crate::report::format::html as esc;

const WIDTH: f64 = 1060.0;
/// Room for the request targets on the waterfall's left.
const LABEL_W: f64 = 300.0;
const ROW_H: f64 = 16.0;
const TOP: f64 = 30.0;
const AXIS_H: f64 = 26.0;
/// More rows than this are left out of the drawing (the table in report.json has them all).
pub const MAX_ROWS: usize = 150;

/// The waiting part of a request (sent → first byte) and the receiving part (first → last
/// byte), as WebPageTest colours them.
pub const WAIT_COLOUR: &str = "#9fc5e8";
pub const RECEIVE_COLOUR: &str = "#1f5f9e";

/// A request waterfall as an `<svg id="{id}">`: a row per request in the order they were
/// sent, a bar from sent to first byte and on to the last byte; or a note when there is
/// nothing to draw.
pub fn waterfall(id: &str, title: &str, requests: &[RequestTiming]) -> String {
    let mut rows: Vec<&RequestTiming> = requests.iter().collect();
    rows.sort_by(|a, b| a.sent_ms.total_cmp(&b.sent_ms));
    let end = rows.iter().map(|r| r.done_ms).fold(0.0_f64, f64::max);
    if rows.is_empty() || end <= 0.0 {
        return format!(
            "<figure class=\"chart\"><figcaption>{}</figcaption><p class=\"note\">No request \
             timings to draw.</p></figure>",
            esc(title)
        );
    }
    let hidden = rows.len().saturating_sub(MAX_ROWS);
    rows.truncate(MAX_ROWS);
    let scale = nice_ceiling(end);
    let plot_w = WIDTH - LABEL_W - 20.0;
    let x = |ms: f64| LABEL_W + plot_w * (ms.max(0.0) / scale).min(1.0);
    let height = TOP + ROW_H * rows.len() as f64 + AXIS_H;
    let mut svg = String::new();
    let _ = write!(
        svg,
        "<figure class=\"chart wide\"><figcaption>{}</figcaption>\
         <svg id=\"{}\" class=\"waterfall\" viewBox=\"0 0 {WIDTH} {height}\" width=\"{WIDTH}\" \
         height=\"{height}\" role=\"img\" aria-label=\"{}\" xmlns=\"http://www.w3.org/2000/svg\">\
         <rect x=\"{LABEL_W}\" y=\"6\" width=\"14\" height=\"12\" fill=\"{WAIT_COLOUR}\"/>\
         <text x=\"{}\" y=\"16\" class=\"legend\">waiting (sent → first byte)</text>\
         <rect x=\"{}\" y=\"6\" width=\"14\" height=\"12\" fill=\"{RECEIVE_COLOUR}\"/>\
         <text x=\"{}\" y=\"16\" class=\"legend\">receiving (first → last byte)</text>",
        esc(title),
        esc(id),
        esc(title),
        LABEL_W + 20.0,
        LABEL_W + 230.0,
        LABEL_W + 250.0,
    );
    for k in 0..=5 {
        let ms = scale * k as f64 / 5.0;
        let gx = x(ms);
        let _ = write!(
            svg,
            "<line x1=\"{gx:.1}\" x2=\"{gx:.1}\" y1=\"{TOP}\" y2=\"{:.1}\" class=\"grid\"/>\
             <text x=\"{gx:.1}\" y=\"{:.1}\" class=\"axis\" text-anchor=\"middle\">{}</text>",
            height - AXIS_H,
            height - AXIS_H + 16.0,
            esc(&ms_label(ms, scale))
        );
    }
    for (i, r) in rows.iter().enumerate() {
        let y = TOP + ROW_H * i as f64;
        let target: String = if r.target.chars().count() > 40 {
            let tail: String = r.target.chars().rev().take(39).collect();
            format!("…{}", tail.chars().rev().collect::<String>())
        } else {
            r.target.clone()
        };
        let (sent, first, done) = (x(r.sent_ms), x(r.first_byte_ms), x(r.done_ms));
        let _ = write!(
            svg,
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"12\" class=\"axis\" \
             text-anchor=\"end\">{}</text><g><title>{}: sent {:.1} ms, first byte {:.1} ms, last byte {:.1} ms</title>\
             <rect x=\"{sent:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{WAIT_COLOUR}\"/>\
             <rect x=\"{first:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{RECEIVE_COLOUR}\"/></g>",
            LABEL_W - 6.0,
            y + ROW_H - 4.0,
            esc(&target),
            esc(&r.target),
            r.sent_ms,
            r.first_byte_ms,
            r.done_ms,
            y + 2.0,
            (first - sent).max(1.0),
            ROW_H - 4.0,
            y + 2.0,
            (done - first).max(1.0),
            ROW_H - 4.0,
        );
    }
    svg.push_str("</svg>");
    if hidden > 0 {
        let _ = write!(
            svg,
            "<p class=\"note\">{hidden} later request(s) not drawn.</p>"
        );
    }
    svg.push_str("</figure>");
    svg
}

/// One line of a line chart: a name, a colour, whether it is dashed, and a value per x
/// (`None` where it did not run).
pub struct Line<'a> {
    pub name: String,
    pub colour: &'a str,
    pub dashed: bool,
    pub values: Vec<Option<f64>>,
}

const PLOT_H: f64 = 240.0;
const LEFT: f64 = 70.0;
const LEGEND_W: f64 = 230.0;

/// A line chart of milliseconds (y) against `xs`, as an `<svg id="{id}">`; or a note when
/// no line has a value.
pub fn lines(id: &str, title: &str, x_label: &str, xs: &[f64], lines: &[Line]) -> String {
    let top = lines
        .iter()
        .flat_map(|l| l.values.iter().flatten().copied())
        .filter(|v| v.is_finite())
        .fold(0.0_f64, f64::max);
    if xs.len() < 2 || top <= 0.0 {
        return format!(
            "<figure class=\"chart\"><figcaption>{}</figcaption><p class=\"note\">No data to \
             chart.</p></figure>",
            esc(title)
        );
    }
    let scale = nice_ceiling(top);
    let (x_min, x_max) = xs
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(*v), hi.max(*v)));
    let span = if x_max > x_min { x_max - x_min } else { 1.0 };
    let plot_w = WIDTH - LEFT - LEGEND_W - 20.0;
    let px = |v: f64| LEFT + plot_w * (v - x_min) / span;
    let py = |ms: f64| TOP + PLOT_H * (1.0 - (ms.max(0.0) / scale).min(1.0));
    let height = TOP + PLOT_H + 50.0;
    let mut svg = String::new();
    let _ = write!(
        svg,
        "<figure class=\"chart wide\"><figcaption>{}</figcaption>\
         <svg id=\"{}\" class=\"lines\" viewBox=\"0 0 {WIDTH} {height}\" width=\"{WIDTH}\" \
         height=\"{height}\" role=\"img\" aria-label=\"{}\" xmlns=\"http://www.w3.org/2000/svg\">",
        esc(title),
        esc(id),
        esc(title)
    );
    for k in 0..=4 {
        let ms = scale * k as f64 / 4.0;
        let gy = py(ms);
        let _ = write!(
            svg,
            "<line x1=\"{LEFT}\" x2=\"{:.1}\" y1=\"{gy:.1}\" y2=\"{gy:.1}\" class=\"grid\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" class=\"axis\" text-anchor=\"end\">{}</text>",
            LEFT + plot_w,
            LEFT - 6.0,
            gy + 4.0,
            esc(&ms_label(ms, scale))
        );
    }
    for &v in xs {
        let _ = write!(
            svg,
            "<text x=\"{:.1}\" y=\"{:.1}\" class=\"axis\" text-anchor=\"middle\">{v}</text>",
            px(v),
            TOP + PLOT_H + 16.0
        );
    }
    let _ = write!(
        svg,
        "<text x=\"{:.1}\" y=\"{:.1}\" class=\"axis\" text-anchor=\"middle\">{}</text>\
         <line x1=\"{LEFT}\" x2=\"{:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" class=\"baseline\"/>",
        LEFT + plot_w / 2.0,
        TOP + PLOT_H + 38.0,
        esc(x_label),
        LEFT + plot_w,
        TOP + PLOT_H,
        TOP + PLOT_H
    );
    for (i, line) in lines.iter().enumerate() {
        let points: Vec<String> = xs
            .iter()
            .zip(&line.values)
            .filter_map(|(x, v)| v.map(|v| format!("{:.1},{:.1}", px(*x), py(v))))
            .collect();
        let dash = if line.dashed {
            " stroke-dasharray=\"6 4\""
        } else {
            ""
        };
        let _ = write!(
            svg,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{dash}>\
             <title>{}</title></polyline>",
            points.join(" "),
            esc(line.colour),
            esc(&line.name)
        );
        for (x, v) in xs.iter().zip(&line.values) {
            if let Some(v) = v {
                let _ = write!(
                    svg,
                    "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{}\"><title>{} at {x}: \
                     {v:.0} ms</title></circle>",
                    px(*x),
                    py(*v),
                    esc(line.colour),
                    esc(&line.name)
                );
            }
        }
        let ly = TOP + 6.0 + 16.0 * i as f64;
        let lx = WIDTH - LEGEND_W;
        let _ = write!(
            svg,
            "<line x1=\"{lx}\" x2=\"{}\" y1=\"{ly:.1}\" y2=\"{ly:.1}\" stroke=\"{}\" \
             stroke-width=\"2\"{dash}/><text x=\"{}\" y=\"{:.1}\" class=\"legend\">{}</text>",
            lx + 24.0,
            esc(line.colour),
            lx + 30.0,
            ly + 4.0,
            esc(&line.name)
        );
    }
    svg.push_str("</svg></figure>");
    svg
}

/// `0`, `250 ms`, `1.5 s`: seconds once the axis reaches them.
fn ms_label(ms: f64, scale: f64) -> String {
    if ms == 0.0 {
        "0".into()
    } else if scale >= 2000.0 {
        format!("{} s", ms / 1000.0)
    } else {
        format!("{ms} ms")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(target: &str, sent: f64, first: f64, done: f64) -> RequestTiming {
        RequestTiming {
            target: target.into(),
            sent_ms: sent,
            first_byte_ms: first,
            done_ms: done,
        }
    }

    #[test]
    fn a_waterfall_draws_each_request_from_sent_to_last_byte_in_sending_order() {
        let svg = waterfall(
            "w",
            "first visit",
            &[
                request("/b.gif", 50.0, 80.0, 100.0),
                request("/index.html", 0.0, 20.0, 40.0),
            ],
        );
        assert!(svg.contains("<svg id=\"w\""));
        let (page, image) = (
            svg.find("/index.html:").unwrap(),
            svg.find("/b.gif:").unwrap(),
        );
        assert!(page < image, "rows follow the order the requests were sent");
        // The axis is 0–100 ms over the plot's width: the page's wait starts at the left edge.
        assert!(
            svg.contains(&format!("<rect x=\"{LABEL_W:.1}\" y=\"")),
            "{svg}"
        );
        assert_eq!(svg.matches(WAIT_COLOUR).count(), 3, "legend + two bars");
    }

    #[test]
    fn an_empty_waterfall_is_a_note() {
        assert!(waterfall("w", "t", &[]).contains("No request timings"));
    }

    #[test]
    fn long_visits_are_cut_at_the_row_limit_and_say_so() {
        let many: Vec<RequestTiming> = (0..MAX_ROWS + 5)
            .map(|i| {
                request(
                    &format!("/{i}.gif"),
                    i as f64,
                    i as f64 + 1.0,
                    i as f64 + 2.0,
                )
            })
            .collect();
        let svg = waterfall("w", "t", &many);
        assert!(svg.contains("5 later request(s) not drawn"));
        assert_eq!(svg.matches("<g><title>").count(), MAX_ROWS);
    }

    #[test]
    fn a_line_chart_has_a_polyline_per_line_and_skips_missing_points() {
        let svg = lines(
            "l",
            "sweep",
            "RTT (ms)",
            &[20.0, 40.0, 80.0],
            &[
                Line {
                    name: "http10".into(),
                    colour: "#c00",
                    dashed: false,
                    values: vec![Some(300.0), Some(500.0), Some(900.0)],
                },
                Line {
                    name: "h2".into(),
                    colour: "#00c",
                    dashed: true,
                    values: vec![Some(200.0), None, Some(400.0)],
                },
            ],
        );
        assert_eq!(svg.matches("<polyline").count(), 2);
        assert_eq!(svg.matches("<circle").count(), 5);
        assert!(svg.contains("stroke-dasharray"));
        // 900 ms tops the axis at 1,000 ms: the 900 ms point sits 10 % below the top.
        assert!(
            svg.contains(&format!("cy=\"{:.1}\"", TOP + PLOT_H * 0.1)),
            "{svg}"
        );
    }

    #[test]
    fn a_line_chart_without_values_is_a_note() {
        let svg = lines("l", "t", "x", &[1.0, 2.0], &[]);
        assert!(svg.contains("No data"));
    }
}
