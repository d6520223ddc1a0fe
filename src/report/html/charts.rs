//! Inline SVG bar charts, drawn here so the report needs no script library and no network.

use std::fmt::Write;

use super::esc;

/// One coloured series of a chart (e.g. "original" in red).
pub struct Series<'a> {
    pub name: &'a str,
    /// A CSS colour; the render test looks for these exact pixels.
    pub colour: &'a str,
}

/// One group of bars on the x axis: its label and one value per series.
pub struct Group {
    pub label: String,
    pub values: Vec<f64>,
}

const WIDTH: f64 = 1060.0;
const PLOT_HEIGHT: f64 = 220.0;
const LEFT: f64 = 80.0;
const TOP: f64 = 34.0;
const BOTTOM: f64 = 52.0;

/// A grouped vertical bar chart as an `<svg id="{id}">`, or a short note when there is nothing to
/// draw or every value is zero or less. Negative values draw no bar but keep their label.
pub fn grouped_bars(
    id: &str,
    title: &str,
    groups: &[Group],
    series: &[Series],
    label: fn(f64) -> String,
) -> String {
    if groups.is_empty() || series.is_empty() {
        return format!(
            "<figure class=\"chart\"><figcaption>{}</figcaption><p class=\"note\">No data to chart.</p></figure>",
            esc(title)
        );
    }
    let max = groups
        .iter()
        .flat_map(|g| g.values.iter().copied())
        .filter(|v| v.is_finite())
        .fold(0.0_f64, f64::max);
    if max <= 0.0 {
        return format!(
            "<figure class=\"chart\"><figcaption>{}</figcaption><p class=\"note\">Every value is zero.</p></figure>",
            esc(title)
        );
    }
    let scale_max = nice_ceiling(max);
    let height = TOP + PLOT_HEIGHT + BOTTOM;
    let plot_w = WIDTH - LEFT - 10.0;
    let group_w = plot_w / groups.len() as f64;
    let bar_w = (group_w * 0.8 / series.len() as f64).min(60.0);
    let y = |v: f64| TOP + PLOT_HEIGHT * (1.0 - (v.max(0.0) / scale_max).min(1.0));

    let mut svg = String::new();
    let _ = write!(
        svg,
        "<figure class=\"chart\"><figcaption>{}</figcaption>\
         <svg id=\"{}\" viewBox=\"0 0 {WIDTH} {height}\" width=\"{WIDTH}\" height=\"{height}\" \
         role=\"img\" aria-label=\"{}\" xmlns=\"http://www.w3.org/2000/svg\">",
        esc(title),
        esc(id),
        esc(title)
    );
    // Legend.
    let mut x = LEFT;
    for s in series {
        let _ = write!(
            svg,
            "<rect x=\"{x}\" y=\"6\" width=\"14\" height=\"14\" fill=\"{}\"/>\
             <text x=\"{}\" y=\"18\" class=\"legend\">{}</text>",
            esc(s.colour),
            x + 20.0,
            esc(s.name)
        );
        x += 40.0 + 8.0 * s.name.chars().count() as f64;
    }
    // Grid and y labels.
    for k in 0..=4 {
        let v = scale_max * k as f64 / 4.0;
        let gy = y(v);
        let _ = write!(
            svg,
            "<line x1=\"{LEFT}\" x2=\"{}\" y1=\"{gy:.1}\" y2=\"{gy:.1}\" class=\"grid\"/>\
             <text x=\"{}\" y=\"{:.1}\" class=\"axis\" text-anchor=\"end\">{}</text>",
            LEFT + plot_w,
            LEFT - 6.0,
            gy + 4.0,
            esc(&label(v))
        );
    }
    // Bars.
    for (gi, g) in groups.iter().enumerate() {
        let gx = LEFT + gi as f64 * group_w;
        let bars_w = bar_w * series.len() as f64;
        let start = gx + (group_w - bars_w) / 2.0;
        for (si, s) in series.iter().enumerate() {
            let Some(&v) = g.values.get(si) else { continue };
            if !v.is_finite() {
                continue;
            }
            let bx = start + si as f64 * bar_w;
            let by = y(v);
            let bh = TOP + PLOT_HEIGHT - by;
            let _ = write!(
                svg,
                "<rect x=\"{:.1}\" y=\"{by:.1}\" width=\"{:.1}\" height=\"{bh:.1}\" fill=\"{}\">\
                 <title>{}: {}</title></rect>\
                 <text x=\"{:.1}\" y=\"{:.1}\" class=\"value\" text-anchor=\"middle\">{}</text>",
                bx + 1.0,
                bar_w - 2.0,
                esc(s.colour),
                esc(&format!("{} {}", g.label, s.name)),
                esc(&label(v)),
                bx + bar_w / 2.0,
                by - 4.0,
                esc(&label(v))
            );
        }
        // A label `a · b` goes on two lines so that eight groups fit side by side.
        let _ = write!(
            svg,
            "<text x=\"{:.1}\" y=\"{:.1}\" class=\"axis\" text-anchor=\"middle\">",
            gx + group_w / 2.0,
            TOP + PLOT_HEIGHT + 18.0,
        );
        for (li, line) in g.label.split(" · ").enumerate() {
            let _ = write!(
                svg,
                "<tspan x=\"{:.1}\" dy=\"{}\">{}</tspan>",
                gx + group_w / 2.0,
                if li == 0 { 0 } else { 15 },
                esc(line)
            );
        }
        svg.push_str("</text>");
    }
    let _ = write!(
        svg,
        "<line x1=\"{LEFT}\" x2=\"{}\" y1=\"{:.1}\" y2=\"{:.1}\" class=\"baseline\"/></svg></figure>",
        LEFT + plot_w,
        TOP + PLOT_HEIGHT,
        TOP + PLOT_HEIGHT
    );
    svg
}

/// The smallest 1, 2 or 5 × 10ⁿ that is at least `v` (a readable top for the axis).
pub(super) fn nice_ceiling(v: f64) -> f64 {
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

    fn plain(v: f64) -> String {
        format!("{v}")
    }

    #[test]
    fn empty_data_gives_a_note_not_an_svg() {
        let out = grouped_bars(
            "c",
            "T",
            &[],
            &[Series {
                name: "a",
                colour: "#000",
            }],
            plain,
        );
        assert!(out.contains("No data to chart."));
        assert!(!out.contains("<svg"));
    }

    fn two_series() -> [Series<'static>; 2] {
        [
            Series {
                name: "a",
                colour: "#111111",
            },
            Series {
                name: "b",
                colour: "#222222",
            },
        ]
    }

    #[test]
    fn all_zero_data_gives_a_note() {
        let groups = [Group {
            label: "x".into(),
            values: vec![0.0, -3.0],
        }];
        let series = two_series();
        let out = grouped_bars("c", "T", &groups, &series, plain);
        assert!(out.contains("Every value is zero.") && !out.contains("<svg"));
    }

    #[test]
    fn zero_values_draw_without_dividing_by_zero() {
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
        let series = two_series();
        let out = grouped_bars("c", "T", &groups, &series, plain);
        assert!(!out.contains("NaN") && !out.contains("inf"), "{out}");
        assert!(out.contains("fill=\"#222222\""));
    }

    #[test]
    fn bars_scale_to_the_largest_value() {
        let groups = [Group {
            label: "<x>".into(),
            values: vec![50.0, 100.0],
        }];
        let series = two_series();
        let out = grouped_bars("c", "T", &groups, &series, plain);
        assert!(
            out.contains(&format!("height=\"{PLOT_HEIGHT:.1}\"")),
            "{out}"
        );
        assert!(out.contains(&format!("height=\"{:.1}\"", PLOT_HEIGHT / 2.0)));
        assert!(out.contains("&lt;x&gt;") && !out.contains("<x>"));
    }

    #[test]
    fn axis_tops_are_round() {
        assert_eq!(nice_ceiling(7.0), 10.0);
        assert_eq!(nice_ceiling(120.0), 200.0);
        assert_eq!(nice_ceiling(200_000.0), 200_000.0);
    }
}
