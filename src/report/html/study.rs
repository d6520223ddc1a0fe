//! The document-size study's chart (`webdiet replay --document-sizes --chart FILE`): a
//! standalone SVG of duration against size with one line per variant, like the 1998 study's
//! figures.

use std::fmt::Write;

use crate::replay::study::{Study, Variant};
use crate::report::format::html as esc;
use crate::report::format::size_kib as size_text;

/// Line colours, one per variant, in [`Variant::ALL`] order.
const COLOURS: [&str; 5] = ["#222222", "#d9534f", "#2b7bb9", "#e8a33d", "#3c9d4e"];

/// Duration against size, one line per variant: a standalone SVG document.
/// The first line of every chart webdiet writes: how it recognises a chart of its own that
/// a later run may replace.
pub const CHART_SIGNATURE: &str = "<!-- webdiet replay: the document-sizes chart -->\n";

pub fn chart_svg(study: &Study) -> String {
    const W: f64 = 900.0;
    const H: f64 = 480.0;
    const LEFT: f64 = 70.0;
    const RIGHT: f64 = 20.0;
    const TOP: f64 = 60.0;
    const BOTTOM: f64 = 50.0;
    let max_size = study.rows.iter().map(|r| r.size).max().unwrap_or(1).max(1) as f64;
    let max_ms = study
        .rows
        .iter()
        .map(|r| r.duration_ms.median)
        .filter(|v| v.is_finite())
        .fold(0.0_f64, f64::max);
    let top_ms = nice(max_ms);
    let top_kib = nice(max_size / 1024.0);
    let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
    let x = |size: u64| LEFT + pw * (size as f64 / 1024.0) / top_kib;
    let y = |ms: f64| TOP + ph * (1.0 - (ms / top_ms).clamp(0.0, 1.0));
    let title = format!(
        "Duration of a single GET against document size ({}, median of {} run(s))",
        study.link, study.runs
    );
    let mut svg = String::from(CHART_SIGNATURE);
    let _ = write!(
        svg,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {W} {H}\" width=\"{W}\" \
         height=\"{H}\" role=\"img\" aria-label=\"{}\" font-family=\"sans-serif\" font-size=\"12\">\
         <rect width=\"{W}\" height=\"{H}\" fill=\"white\"/>\
         <text x=\"{LEFT}\" y=\"20\" font-size=\"14\" font-weight=\"bold\">{}</text>",
        esc(&title),
        esc(&title)
    );
    for k in 0..=5 {
        let ms = top_ms * k as f64 / 5.0;
        let gy = y(ms);
        let _ = write!(
            svg,
            "<line x1=\"{LEFT}\" x2=\"{}\" y1=\"{gy:.1}\" y2=\"{gy:.1}\" stroke=\"#ddd\"/>\
             <text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            LEFT + pw,
            LEFT - 6.0,
            gy + 4.0,
            trim(ms)
        );
        let kib = top_kib * k as f64 / 5.0;
        let gx = LEFT + pw * kib / top_kib;
        let _ = write!(
            svg,
            "<text x=\"{gx:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}k</text>",
            TOP + ph + 18.0,
            trim(kib)
        );
    }
    let _ = write!(
        svg,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">document size (KiB)</text>\
         <text transform=\"translate(16 {:.1}) rotate(-90)\" text-anchor=\"middle\">\
         milliseconds, request write → last byte</text>",
        LEFT + pw / 2.0,
        H - 10.0,
        TOP + ph / 2.0
    );
    for (i, v) in Variant::ALL.into_iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let mut points: Vec<(u64, f64)> = study
            .rows
            .iter()
            .filter(|r| r.variant == v.as_str() && r.duration_ms.median.is_finite())
            .map(|r| (r.size, r.duration_ms.median))
            .collect();
        points.sort_by_key(|p| p.0);
        let path: Vec<String> = points
            .iter()
            .map(|&(s, ms)| format!("{:.1},{:.1}", x(s), y(ms)))
            .collect();
        let _ = write!(
            svg,
            "<polyline class=\"variant\" data-variant=\"{}\" fill=\"none\" stroke=\"{colour}\" \
             stroke-width=\"2\" points=\"{}\"/>",
            esc(v.as_str()),
            path.join(" ")
        );
        for &(s, ms) in &points {
            let _ = write!(
                svg,
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{colour}\"><title>{} {}: \
                 {ms:.3} ms</title></circle>",
                x(s),
                y(ms),
                esc(v.as_str()),
                size_text(s)
            );
        }
        let lx = LEFT + i as f64 * 150.0;
        let _ = write!(
            svg,
            "<rect x=\"{lx}\" y=\"32\" width=\"14\" height=\"4\" fill=\"{colour}\"/>\
             <text x=\"{}\" y=\"38\">{}</text>",
            lx + 20.0,
            esc(v.as_str())
        );
    }
    svg.push_str("</svg>\n");
    svg
}

/// A round axis top at or above `v` (1, 2 or 5 times a power of ten).
fn nice(v: f64) -> f64 {
    if v.is_nan() || v <= 0.0 || v.is_infinite() {
        return 1.0;
    }
    let p = 10f64.powf(v.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * p)
        .find(|c| *c >= v)
        .unwrap_or(10.0 * p)
}

/// `2.5`, `40`, `0.125`: short axis labels.
fn trim(v: f64) -> String {
    let s = format!("{v:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::model::sample::study;

    #[test]
    fn the_chart_draws_one_line_per_variant_through_every_size() {
        let svg = chart_svg(&study());
        assert!(svg.starts_with(CHART_SIGNATURE));
        assert!(
            svg[CHART_SIGNATURE.len()..].starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\"")
        );
        assert_eq!(svg.matches("<polyline").count(), Variant::ALL.len());
        assert_eq!(svg.matches("<circle").count(), 3 * Variant::ALL.len());
        assert!(svg.contains("data-variant=\"tls1.3-resumed\""));
        assert!(
            svg.contains(">100k</text>") || svg.contains(">100k<"),
            "{svg}"
        );
    }

    #[test]
    fn axis_tops_are_round() {
        assert_eq!(nice(73.0), 100.0);
        assert_eq!(nice(0.31), 0.5);
        assert_eq!(nice(0.0), 1.0);
        assert_eq!(trim(2.5), "2.5");
        assert_eq!(trim(40.0), "40");
    }
}
