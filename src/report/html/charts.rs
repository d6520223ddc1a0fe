//! Inline SVG bar charts, drawn here so the report needs no script library and no network.
//!
//! Horizontal bars, so that no label ever shares room with another: each group's label on a
//! line of its own, a bar per series under it, each bar's value at its end (inside the bar,
//! in white, when the bar reaches the right edge). The chart is narrow (viewBox
//! [`WIDTH`] units) and scales with the page, up to a maximum width: text stays readable from a
//! phone's width to a desktop's ([`crate::report::html`] tests measure it, and the browser
//! tests measure it again in Chromium at 1280 and 390 CSS pixels).

use std::fmt::Write;

use crate::report::format::html as esc;

/// Bar colour of the original site (and of "before").
pub const BEFORE_COLOUR: &str = "#d9534f";
/// Bar colour of the rewritten site (and of "after").
pub const AFTER_COLOUR: &str = "#2b7bb9";
/// Bar colour of bytes saved.
pub const SAVED_COLOUR: &str = "#3c9d4e";

/// One coloured series of a chart (e.g. "original" in red).
pub struct Series<'a> {
    pub name: &'a str,
    /// A CSS colour; the render test looks for these exact pixels.
    pub colour: &'a str,
}

/// One group of bars: its label and one value per series (NaN where there is none).
pub struct Group {
    pub label: String,
    pub values: Vec<f64>,
}

/// The chart's width in viewBox units.
pub const WIDTH: f64 = 480.0;
/// Font sizes, in viewBox units: group labels and legend, and bar values.
pub const LABEL_FONT: f64 = 15.0;
pub const VALUE_FONT: f64 = 13.0;
const LEFT: f64 = 4.0;
/// Room right of the longest bar for its value.
const VALUE_ROOM: f64 = 90.0;
const BAR: f64 = 16.0;
const BAR_GAP: f64 = 3.0;
const GROUP_GAP: f64 = 10.0;
const LABEL_LINE: f64 = 20.0;

/// A conservative width of `text` at `font` units: what no common sans-serif font exceeds,
/// so that what fits by this measure fits on screen.
pub fn text_width(text: &str, font: f64) -> f64 {
    text.chars()
        .map(|c| match c {
            'i' | 'j' | 'l' | '.' | ',' | ':' | ';' | '\'' | '|' | '!' | ' ' | '(' | ')' => 0.36,
            'm' | 'w' | 'M' | 'W' | '—' | '→' | '%' | '@' => 0.92,
            c if c.is_ascii_uppercase() => 0.72,
            _ => 0.62,
        })
        .sum::<f64>()
        * font
}

/// A horizontal bar chart as an `<svg id="{id}" class="bars">` in a figure, or a short note
/// when there is nothing to draw or every value is zero or less. A negative value draws no bar
/// but keeps its label; a missing one (NaN) says so.
pub fn bars(
    id: &str,
    title: &str,
    groups: &[Group],
    series: &[Series],
    label: fn(f64) -> String,
) -> String {
    let note = |text: &str| {
        format!(
            "<figure class=\"chart\"><figcaption>{}</figcaption><p class=\"note\">{text}</p>\
             </figure>",
            esc(title)
        )
    };
    if groups.is_empty() || series.is_empty() {
        return note("No data to chart.");
    }
    let max = groups
        .iter()
        .flat_map(|g| g.values.iter().copied())
        .filter(|v| v.is_finite())
        .fold(0.0_f64, f64::max);
    if max <= 0.0 {
        return note("Every value is zero.");
    }
    let plot = WIDTH - LEFT - VALUE_ROOM;
    let len = |v: f64| plot * (v.max(0.0) / max).min(1.0);
    let mut body = String::new();
    // Legend: swatches and names, wrapped to the width.
    let (mut x, mut y) = (LEFT, 0.0);
    for s in series {
        let w = 20.0 + text_width(s.name, LABEL_FONT) + 16.0;
        if x > LEFT && x + w > WIDTH {
            x = LEFT;
            y += LABEL_LINE;
        }
        let _ = write!(
            body,
            "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"14\" height=\"14\" fill=\"{}\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"{LABEL_FONT}\" class=\"legend\">{}</text>",
            y + 3.0,
            esc(s.colour),
            x + 20.0,
            y + 15.0,
            esc(s.name)
        );
        x += w;
    }
    y += LABEL_LINE + 10.0;
    for g in groups {
        let _ = write!(
            body,
            "<text x=\"{LEFT}\" y=\"{:.1}\" font-size=\"{LABEL_FONT}\" class=\"label\">{}</text>",
            y + 14.0,
            esc(&g.label)
        );
        y += LABEL_LINE;
        for (si, s) in series.iter().enumerate() {
            let v = g.values.get(si).copied().unwrap_or(f64::NAN);
            let by = y + si as f64 * (BAR + BAR_GAP);
            let text_y = by + BAR - 3.0;
            if !v.is_finite() {
                let _ = write!(
                    body,
                    "<text x=\"{LEFT}\" y=\"{text_y:.1}\" font-size=\"{VALUE_FONT}\" \
                     class=\"value axis\">{}: not measured</text>",
                    esc(s.name)
                );
                continue;
            }
            let w = len(v);
            let shown = label(v);
            let _ = write!(
                body,
                "<rect x=\"{LEFT}\" y=\"{by:.1}\" width=\"{w:.1}\" height=\"{BAR}\" fill=\"{}\">\
                 <title>{}: {}</title></rect>",
                esc(s.colour),
                esc(&format!("{} {}", g.label, s.name)),
                esc(&shown)
            );
            let tw = text_width(&shown, VALUE_FONT);
            if LEFT + w + 4.0 + tw <= WIDTH {
                let _ = write!(
                    body,
                    "<text x=\"{:.1}\" y=\"{text_y:.1}\" font-size=\"{VALUE_FONT}\" \
                     class=\"value\">{}</text>",
                    LEFT + w + 4.0,
                    esc(&shown)
                );
            } else {
                let _ = write!(
                    body,
                    "<text x=\"{:.1}\" y=\"{text_y:.1}\" font-size=\"{VALUE_FONT}\" \
                     text-anchor=\"end\" fill=\"#ffffff\" class=\"value inside\">{}</text>",
                    LEFT + w - 4.0,
                    esc(&shown)
                );
            }
        }
        y += series.len() as f64 * (BAR + BAR_GAP) + GROUP_GAP;
    }
    let height = y.ceil();
    format!(
        "<figure class=\"chart\"><figcaption>{}</figcaption><svg id=\"{}\" class=\"bars\" \
         viewBox=\"0 0 {WIDTH} {height}\" role=\"img\" aria-label=\"{}\" \
         xmlns=\"http://www.w3.org/2000/svg\">{body}</svg></figure>",
        esc(title),
        esc(id),
        esc(title)
    )
}

/// The smallest 1, 2 or 5 × 10ⁿ that is at least `v` (a readable top for an axis).
pub fn nice_ceiling(v: f64) -> f64 {
    let exp = 10f64.powf(v.log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0]
        .into_iter()
        .map(|m| m * exp)
        .find(|&c| c >= v)
        .unwrap_or(10.0 * exp)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::html::overlap::{overlaps, text_boxes};

    fn plain(v: f64) -> String {
        format!("{v}")
    }

    fn two_series() -> [Series<'static>; 2] {
        [
            Series {
                name: "original",
                colour: "#111111",
            },
            Series {
                name: "rewritten",
                colour: "#222222",
            },
        ]
    }

    #[test]
    fn empty_or_zero_data_gives_a_note_not_an_svg() {
        let out = bars("c", "T", &[], &two_series(), plain);
        assert!(out.contains("No data to chart.") && !out.contains("<svg"));
        let groups = [Group {
            label: "x".into(),
            values: vec![0.0, -3.0],
        }];
        let out = bars("c", "T", &groups, &two_series(), plain);
        assert!(out.contains("Every value is zero.") && !out.contains("<svg"));
    }

    #[test]
    fn missing_values_are_said_and_nothing_divides_by_zero() {
        let groups = [
            Group {
                label: "x".into(),
                values: vec![0.0, 0.0],
            },
            Group {
                label: "y".into(),
                values: vec![f64::NAN, 4.0],
            },
        ];
        let out = bars("c", "T", &groups, &two_series(), plain);
        assert!(!out.contains("NaN") && !out.contains("inf"), "{out}");
        assert!(out.contains("original: not measured"));
        assert!(out.contains("fill=\"#222222\""));
    }

    #[test]
    fn bars_scale_to_the_largest_value_and_labels_are_escaped() {
        let groups = [Group {
            label: "<x>".into(),
            values: vec![50.0, 100.0],
        }];
        let out = bars("c", "T", &groups, &two_series(), plain);
        let plot = WIDTH - LEFT - VALUE_ROOM;
        assert!(out.contains(&format!("width=\"{plot:.1}\"")), "{out}");
        assert!(out.contains(&format!("width=\"{:.1}\"", plot / 2.0)));
        assert!(out.contains("&lt;x&gt;") && !out.contains("<x>"));
    }

    #[test]
    fn no_two_labels_of_a_crowded_chart_overlap() {
        // Every mode of the table with long names and values of every size, as a full
        // replay gives: the chart the old vertical bars could not label.
        let groups: Vec<Group> = crate::replay::Mode::all()
            .into_iter()
            .enumerate()
            .map(|(i, m)| Group {
                label: format!("{m} · first visit"),
                values: vec![1_234_567.0 / (i + 1) as f64, 987_654.0 / (i + 2) as f64],
            })
            .collect();
        let svg = bars("c", "T", &groups, &two_series(), |v| {
            crate::report::format::thousands(v as u64)
        });
        let boxes = text_boxes(&svg);
        assert!(boxes.len() > 2 * groups.len(), "{svg}");
        assert_eq!(overlaps(&boxes), Vec::<(String, String)>::new());
        assert!(
            boxes.iter().all(|b| b.x0 >= 0.0 && b.x1 <= WIDTH),
            "every label inside the chart"
        );
    }

    #[test]
    fn axis_tops_are_round() {
        assert_eq!(nice_ceiling(7.0), 10.0);
        assert_eq!(nice_ceiling(120.0), 200.0);
        assert_eq!(nice_ceiling(200_000.0), 200_000.0);
    }
}
