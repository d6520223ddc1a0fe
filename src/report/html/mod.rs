//! The report as one self-contained HTML page: inline CSS, inline SVG charts drawn in Rust, a
//! few lines of script to sort tables. No network, no external fonts or assets.

mod browser;
mod charts;
mod page;
mod tables;
mod timecharts;

use std::fmt::Write;

use charts::{grouped_bars, Group, Series};
use page::{method, SCRIPT, STYLE};

use super::figures::{self, row, TESTS};
use super::model::Report;
use super::thousands;
use crate::replay::{Mode, Test};

/// Bar colour of the original site (and of "before").
pub const BEFORE_COLOUR: &str = "#d9534f";
/// Bar colour of the rewritten site (and of "after").
pub const AFTER_COLOUR: &str = "#2b7bb9";
/// Bar colour of bytes saved.
pub const SAVED_COLOUR: &str = "#3c9d4e";
/// The ids of the four chart `<svg>` elements.
pub const CHART_IDS: [&str; 4] = [
    "chart-packets",
    "chart-bytes",
    "chart-types",
    "chart-savings",
];

const BEFORE: Series = Series {
    name: "original",
    colour: BEFORE_COLOUR,
};
const AFTER: Series = Series {
    name: "rewritten",
    colour: AFTER_COLOUR,
};

/// Escapes text for HTML content and quoted attribute values. A control character (from a
/// file name: a bell, an ANSI escape) is shown as its bytes, `\x1B`, as on stderr
/// ([`crate::error::shown`]); newlines and tabs stay.
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' | '\t' => out.push(c),
            c if c.is_control() => {
                for byte in c.to_string().bytes() {
                    let _ = write!(out, "\\x{byte:02X}");
                }
            }
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Renders the whole page.
pub fn render(report: &Report) -> String {
    let mut out = String::with_capacity(64 * 1024);
    out.push_str(&page_head(report));
    out.push_str(&cards(report));
    out.push_str(&replay_section(report));
    if let Some(section) = browser::section(report) {
        out.push_str(&section);
    }
    out.push_str(&bytes_section(report));
    out.push_str(&findings_section(report));
    if let Some(a) = &report.archive {
        out.push_str(&super::archive::html(a));
    }
    out.push_str(&method(report));
    let _ = writeln!(
        out,
        "<footer>{} {} · report schema {}</footer></main><script>{SCRIPT}</script></body></html>",
        esc(&report.tool.name),
        esc(&report.tool.version),
        report.schema_version
    );
    out
}

/// The document head and the page title.
fn page_head(report: &Report) -> String {
    let mut out = String::new();
    let title = format!("webdiet audit: {}", report.site.name);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{}</title><style>{STYLE}</style></head><body><main>\
         <h1>{}</h1><p class=\"sub\">{}{}</p>",
        esc(&title),
        esc(&title),
        esc(&report.site.path),
        report
            .site
            .rewritten
            .as_ref()
            .map(|r| format!(" → {}", esc(r)))
            .unwrap_or_default()
    );
    out
}

/// The replay: packets and bytes per mode, the matrix, times, waterfalls, sweeps, TLS and
/// header costs, every row.
fn replay_section(report: &Report) -> String {
    let mut out = String::new();
    out.push_str("<h2>Protocol replay</h2>");
    let groups = replay_groups(report);
    if groups.is_empty() {
        out.push_str("<p class=\"note\">No replay was run, so there are no packet or byte counts per protocol mode.</p>");
    } else {
        let packets = groups_of(&groups, |r| r.packets as f64);
        let bytes = groups_of(&groups, |r| (r.bytes_up + r.bytes_down) as f64);
        out.push_str(&grouped_bars(
            CHART_IDS[0],
            "Packets per protocol mode, first visit and validation",
            &packets,
            &[BEFORE, AFTER],
            |v| thousands(v.round() as u64),
        ));
        out.push_str(&grouped_bars(
            CHART_IDS[1],
            "Bytes per protocol mode, first visit and validation",
            &bytes,
            &[BEFORE, AFTER],
            short_bytes,
        ));
        out.push_str("<h3>Matrix</h3>");
        out.push_str(&tables::replay_matrix(report));
        for link in crate::report::replay::links(&report.replay) {
            let _ = write!(
                out,
                "<h3>Time over {}</h3><p class=\"note\">From the first SYN, median (range) over \
                 the runs: the paper's time (to the last counted packet), the page's first byte, \
                 the page complete.</p>",
                esc(link)
            );
            out.push_str(&tables::times(report, link));
            if let Some(line) = figures::rewrite_by_protocol(report, link) {
                let _ = write!(out, "<p>{}.</p>", esc(&line));
            }
        }
        out.push_str(&waterfalls(report));
        out.push_str(&sweep_charts(report));
        if let Some(tls) = tables::tls_cost(report) {
            let _ = write!(
                out,
                "<h3>What TLS costs</h3><p class=\"note\">{}; each mode over TLS against the \
                 same mode in cleartext on the same link; page complete is the median over the \
                 runs.{}</p>",
                esc(&report.tls_cost[0].tls),
                super::tls::headline(&report.tls_cost, "original")
                    .map(|h| format!(" {}.", esc(&h)))
                    .unwrap_or_default()
            );
            out.push_str(&tls);
        }
        if let Some(headers) = tables::header_cost(report) {
            let _ = write!(
                out,
                "<h3>Header bytes, HTTP/1.1 against HTTP/2</h3><p class=\"note\">Mean header \
                 bytes per message; {}. The set marked * is the one of the other figures.</p>",
                esc(&super::headers::spdy_note())
            );
            out.push_str(&headers);
        }
        out.push_str("<h3>Every row, medians with the range over the runs</h3>");
        out.push_str(&tables::replay_runs(report));
    }
    out
}

/// Where the bytes are (by content type) and where the savings come from.
fn bytes_section(report: &Report) -> String {
    let mut out = String::new();
    out.push_str("<h2>Where the bytes are</h2>");
    let types = bytes_by_type(report);
    if types.is_empty() {
        out.push_str("<p class=\"note\">No inventory in this report.</p>");
    } else {
        let groups: Vec<Group> = types
            .iter()
            .map(|(t, b, a, _)| Group {
                label: t.clone(),
                values: vec![*b as f64, *a as f64],
            })
            .collect();
        out.push_str(&grouped_bars(
            CHART_IDS[2],
            "Bytes by content type, before and after",
            &groups,
            &[
                Series {
                    name: "before",
                    colour: BEFORE_COLOUR,
                },
                Series {
                    name: "after",
                    colour: AFTER_COLOUR,
                },
            ],
            short_bytes,
        ));
        out.push_str(&tables::by_type(&types));
    }
    let s = figures::savings(report);
    let mut saved = vec![Group {
        label: "GIF → PNG".into(),
        values: vec![s.images as f64],
    }];
    if let Some(m) = s.markup {
        saved.push(Group {
            label: "markup → CSS".into(),
            values: vec![m as f64],
        });
    }
    if let Some(d) = s.deflate {
        // Not part of the headline: only the reference mode's deflate twin sends compressed
        // text.
        saved.push(Group {
            label: Mode::reference()
                .deflated()
                .map_or("deflate".to_string(), |m| format!("deflate ({m} only)")),
            values: vec![d as f64],
        });
    }
    out.push_str(&grouped_bars(
        CHART_IDS[3],
        "Where the savings come from (bytes saved)",
        &saved,
        &[Series {
            name: "bytes saved",
            colour: SAVED_COLOUR,
        }],
        short_bytes,
    ));
    out
}

/// Opportunities, images, markup, pages, budgets and problems.
fn findings_section(report: &Report) -> String {
    let mut out = String::new();
    if !report.opportunities.is_empty() {
        out.push_str("<h2>Opportunities</h2>");
        out.push_str(&tables::opportunities(report));
    }
    out.push_str("<h2>Images</h2>");
    out.push_str(&tables::images(report));
    if let Some(constructs) = tables::constructs(report) {
        let _ = write!(
            out,
            "<h2>Presentational markup</h2><p>{}</p>",
            esc(&report.markup.as_ref().map_or(String::new(), |m| format!(
                "{}: {}",
                figures::css_choice(m),
                m.css_mode_reason
            )))
        );
        out.push_str(&constructs);
    }
    if let Some(text_images) = tables::text_images(report) {
        out.push_str("<h2>Text drawn as images</h2>");
        out.push_str(&text_images);
    }
    if let Some(pages) = tables::pages(report) {
        out.push_str("<h2>Pages</h2>");
        out.push_str(&pages);
    }
    out.push_str("<h2>Budgets</h2>");
    out.push_str(&tables::budgets(report));
    let _ = write!(out, "<h2>Problems ({})</h2>", report.problems.len());
    out.push_str(&tables::problems(report));
    out
}

/// A line colour per mode, by its place in the replay's table.
const MODE_COLOURS: [&str; 13] = [
    "#d9534f", "#8e44ad", "#2b7bb9", "#3c9d4e", "#e67e22", "#b8860b", "#16a085", "#7f8c8d",
    "#c0392b", "#2c3e50", "#1abc9c", "#d35400", "#6d4c41",
];

fn mode_colour(mode: Mode) -> &'static str {
    let i = Mode::all()
        .iter()
        .position(|m| *m == mode)
        .unwrap_or(MODE_COLOURS.len() - 1);
    MODE_COLOURS[i % MODE_COLOURS.len()]
}

/// The link the waterfalls are drawn for: the first emulated link (where waiting shows), else
/// the first link.
fn waterfall_link(report: &Report) -> Option<&str> {
    let links = crate::report::replay::links(&report.replay);
    links
        .iter()
        .find(|l| **l != "loopback")
        .or(links.first())
        .copied()
}

/// A request waterfall per mode over one link: the first visit of each site version, from the
/// run whose paper's time is the median.
fn waterfalls(report: &Report) -> String {
    let Some(link) = waterfall_link(report) else {
        return String::new();
    };
    let mut out = String::new();
    let _ = write!(
        out,
        "<h3>Request waterfall over {}</h3><p class=\"note\">First visit, the run whose paper's \
         time is the median: each request from the moment it was written, its first byte and its \
         last byte, in the order they were sent (ms from the first SYN).</p>",
        esc(link)
    );
    for (i, mode) in figures::modes(report).iter().enumerate() {
        let _ = write!(
            out,
            "<details{}><summary>{}</summary>",
            if i == 0 { " open" } else { "" },
            esc(mode.as_str())
        );
        for site in ["original", "rewritten"] {
            let Some(row) = report.replay.iter().find(|r| {
                r.link.name == link && r.site == site && r.mode == *mode && r.test == Test::First
            }) else {
                continue;
            };
            let id = format!("waterfall-{mode}-{site}");
            out.push_str(&timecharts::waterfall(
                &id,
                &format!("{mode}, {site} site, {link}"),
                &row.waterfall,
            ));
        }
        out.push_str("</details>");
    }
    out
}

/// For every sweep (`--sweep`) and site version, the first visit's page-complete time against
/// the swept value, a line per mode.
fn sweep_charts(report: &Report) -> String {
    use crate::report::sweeps;
    let mut out = String::new();
    for (n, sweep) in sweeps::sweeps(&report.replay).iter().enumerate() {
        let _ = write!(
            out,
            "<h3>Sweep: {}</h3><p class=\"note\">First visit, page complete (the last byte of the \
             last object), median over the runs at each point; dashed lines are modes over TLS.</p>",
            esc(&sweep.title())
        );
        let xs: Vec<f64> = sweep.points.iter().map(|p| p.0).collect();
        for site in sweeps::sites(&report.replay) {
            let lines: Vec<timecharts::Line> = sweeps::modes(&report.replay, sweep)
                .into_iter()
                .map(|mode| timecharts::Line {
                    name: mode.to_string(),
                    colour: mode_colour(mode),
                    dashed: mode.is_tls(),
                    values: sweeps::curve(&report.replay, sweep, site, mode),
                })
                .collect();
            out.push_str(&timecharts::lines(
                &format!("sweep-{n}-{site}"),
                &format!("{}, {site} site: page complete", sweep.title()),
                sweep.key.axis(),
                &xs,
                &lines,
            ));
        }
    }
    out
}

/// The headline figures as cards.
fn cards(report: &Report) -> String {
    let mut out = String::from("<section class=\"cards\">");
    let mut card = |label: &str, value: String, detail: String| {
        let _ = write!(
            out,
            "<div class=\"card\"><div class=\"label\">{}</div><div class=\"value\">{}</div>\
             <div class=\"detail\">{}</div></div>",
            esc(label),
            esc(&value),
            esc(&detail)
        );
    };
    if let Some(h) = figures::headline(report) {
        let pair = |b: u64, a: u64| {
            (
                format!("{} → {}", thousands(b), thousands(a)),
                figures::reduction_text(b as f64, a as f64),
            )
        };
        let (v, d) = pair(h.before.bytes, h.after.bytes);
        card(&format!("First-visit bytes ({})", h.mode), v, d);
        let (v, d) = pair(h.before.requests, h.after.requests);
        card("Requests", v, d);
        let (v, d) = pair(h.before.packets, h.after.packets);
        card("Packets", v, d);
    } else {
        let t = &report.images_total;
        card(
            "GIF bytes",
            format!("{} → {}", thousands(t.from_bytes), thousands(t.to_bytes)),
            "no replay was run".into(),
        );
    }
    let failed = report.budgets.iter().filter(|b| !b.passed).count();
    let (verdict, detail) = match (report.budgets.len(), failed) {
        (0, _) => ("none set".to_string(), "no budget was given".to_string()),
        (n, 0) => ("all pass".to_string(), format!("{n} checked")),
        (n, f) => (format!("{f} FAIL"), format!("{n} checked")),
    };
    card("Budgets", verdict, detail);
    card(
        "Problems",
        report.problems.len().to_string(),
        "files with trouble".into(),
    );
    out.push_str("</section>");
    out
}

/// `(label, original row, rewritten row)` for each mode × test that was replayed.
type ReplayGroup<'a> = (
    String,
    Option<&'a crate::replay::ReplayRow>,
    Option<&'a crate::replay::ReplayRow>,
);

fn replay_groups(report: &Report) -> Vec<ReplayGroup<'_>> {
    let mut out = Vec::new();
    for mode in figures::modes(report) {
        for test in TESTS {
            let b = row(report, "original", mode, test);
            let a = row(report, "rewritten", mode, test);
            if b.is_some() || a.is_some() {
                out.push((format!("{mode} · {test}"), b, a));
            }
        }
    }
    out
}

fn groups_of(groups: &[ReplayGroup], f: fn(&crate::replay::ReplayRow) -> f64) -> Vec<Group> {
    groups
        .iter()
        .map(|(label, b, a)| Group {
            label: label.clone(),
            values: vec![b.map_or(f64::NAN, f), a.map_or(f64::NAN, f)],
        })
        .collect()
}

/// `(type, bytes before, bytes after, files before)` from the inventory, with the image and
/// markup stages applied: the GIFs that were converted form one `gif → png` row with their
/// net effect (a GIF kept because a script still names it counts after, too); the markup
/// stage's HTML and style sheet change HTML and CSS.
pub fn bytes_by_type(report: &Report) -> Vec<(String, u64, u64, usize)> {
    let Some(inv) = &report.inventory else {
        return Vec::new();
    };
    let converted: Vec<_> = report
        .images
        .iter()
        .filter(|i| i.to_path != i.path)
        .collect();
    let (from, to) = converted.iter().fold((0u64, 0u64), |(f, t), i| {
        let kept = if i.original_kept { i.from_bytes } else { 0 };
        (f + i.from_bytes, t + i.to_bytes + kept)
    });
    let mut delta: std::collections::BTreeMap<&str, i64> = Default::default();
    if let (Some(b), Some(a)) = (
        figures::markup_number(report, "html_bytes_before"),
        figures::markup_number(report, "html_bytes_after"),
    ) {
        *delta.entry("html").or_default() += a as i64 - b as i64;
        *delta.entry("css").or_default() +=
            figures::markup_number(report, "css_bytes").unwrap_or(0) as i64;
    }
    let mut out: Vec<(String, u64, u64, usize)> = Vec::new();
    for (t, s) in &inv.by_type {
        let (mut before, mut count) = (s.bytes, s.count);
        if t == "gif" {
            // The converted ones are in their own row.
            before = before.saturating_sub(from);
            count = count.saturating_sub(converted.len());
        }
        let after = before as i64 + delta.remove(t.as_str()).unwrap_or(0);
        out.push((t.clone(), before, after.max(0) as u64, count));
    }
    if !converted.is_empty() {
        out.push(("gif → png".to_string(), from, to, converted.len()));
    }
    for (t, d) in delta {
        out.push((t.to_string(), 0, d.max(0) as u64, 0));
    }
    out
}

/// `1234567` → `1.2 MB`, `2048` → `2.0 kB`, `12` → `12 B` (decimal units).
fn short_bytes(v: f64) -> String {
    let a = v.abs();
    if a >= 1e6 {
        format!("{:.1} MB", v / 1e6)
    } else if a >= 1e3 {
        format!("{:.1} kB", v / 1e3)
    } else {
        format!("{v:.0} B")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::model::InventorySummary;

    fn sample() -> Report {
        let mut r = figures::sample();
        let mut inv = InventorySummary::default();
        for (t, count, bytes) in [("html", 3, 40_000), ("gif", 2, 12_300), ("css", 1, 500)] {
            inv.by_type
                .insert(t.into(), crate::inventory::TypeStats { count, bytes });
        }
        r.inventory = Some(inv);
        r
    }

    #[test]
    fn a_sweep_is_drawn_as_lines_and_each_mode_gets_a_waterfall_over_the_first_emulated_link() {
        use crate::replay::row::{sample_row, RowLink};
        use crate::replay::{link::spec, RequestTiming, Spread};
        let mut r = sample();
        r.replay.clear();
        for (i, link) in spec::sweep("spdy-cable", "rtt=20,80,200")
            .unwrap()
            .iter()
            .enumerate()
        {
            for mode in ["http10", "h2"] {
                let mut row = sample_row("original", mode, "first", 100, 10_000);
                row.link = RowLink::new(link, vec![1]);
                row.time.complete_ms = Spread::of([300.0 * (i + 1) as f64]);
                row.waterfall = vec![RequestTiming {
                    target: "/index.html".into(),
                    sent_ms: 1.0,
                    first_byte_ms: 30.0,
                    done_ms: 60.0,
                }];
                r.replay.push(row);
            }
        }
        let html = render(&r);
        assert!(
            html.contains("<h3>Sweep: spdy-cable, RTT 20–200 ms</h3>"),
            "{html}"
        );
        assert!(html.contains("<svg id=\"sweep-0-original\""));
        assert_eq!(html.matches("<polyline").count(), 2, "a line per mode");
        assert!(html.contains("<h3>Request waterfall over spdy-cable,rtt=20ms</h3>"));
        assert!(html.contains("<svg id=\"waterfall-http10-original\""));
        assert!(html.contains("<svg id=\"waterfall-h2-original\""));
    }

    #[test]
    fn control_characters_from_file_names_never_reach_the_page_raw() {
        let mut r = sample();
        r.images[0].path = "img/bell\u{7}esc\u{1b}[31mnl\u{85}.gif".into();
        let html = render(&r);
        let raw: Vec<char> = html
            .chars()
            .filter(|c| c.is_control() && !matches!(c, '\n' | '\t'))
            .collect();
        assert!(raw.is_empty(), "raw control characters {raw:?} in the page");
        assert!(html.contains("img/bell\\x07esc\\x1B[31mnl\\xC2\\x85.gif"));
    }

    #[test]
    fn every_string_from_the_report_is_escaped() {
        let html = render(&sample());
        assert!(!html.contains("<b>&"), "raw image path leaked");
        assert!(html.contains("img/&lt;b&gt;&amp;&quot;q&quot;.gif"));
        assert!(html.contains("a&lt;b&gt;.html") && html.contains("bad &amp; worse"));
        assert!(html.contains("demo &amp; co"));
    }

    #[test]
    fn the_page_is_self_contained() {
        let html = render(&sample());
        for outside in ["src=\"http", "href=\"http", "@import", "url(", "<link"] {
            assert!(!html.contains(outside), "{outside}");
        }
        assert!(html.starts_with("<!DOCTYPE html>") && html.trim_end().ends_with("</html>"));
    }

    #[test]
    fn charts_and_sortable_tables_are_there() {
        let html = render(&sample());
        for id in CHART_IDS {
            assert!(html.contains(&format!("<svg id=\"{id}\"")), "{id}");
        }
        for id in [
            "images",
            "pages",
            "replay-matrix",
            "replay-runs",
            "budgets",
            "problems",
        ] {
            assert!(
                html.contains(&format!("<table class=\"sortable\" id=\"{id}\"")),
                "{id}"
            );
        }
        assert!(html.contains("addEventListener('click'"));
        assert!(html.contains("data-v=\"12000\""), "numeric sort keys");
        // Per image the format and effort chosen and the CPU spent; in all, bytes against CPU.
        for header in ["Format", "Effort", "CPU ms"] {
            assert!(html.contains(&format!(">{header}</th>")), "{header}");
        }
        assert!(html.contains("bytes saved for"), "the images' cost line");
    }

    #[test]
    fn numbers_have_separators_and_ranges() {
        let html = render(&sample());
        assert!(html.contains("200,000 → 150,000"));
        assert!(
            html.contains("161 (160–162)"),
            "kernel packets: median with range"
        );
        assert!(html.contains("12.5 (11.0–14.0)"));
        assert!(html.contains(">FAIL<"));
    }

    #[test]
    fn an_empty_report_has_notes_instead_of_charts() {
        let html = render(&Report::default());
        assert!(html.contains("No replay was run"));
        assert!(!html.contains("id=\"chart-packets\""));
        assert!(html.contains("The site has no GIFs."));
        assert!(!html.contains("\"NaN") && !html.contains(">NaN") && !html.contains("inf\""));
    }

    #[test]
    fn bytes_by_type_shows_a_conversion_as_one_row_with_its_net_effect() {
        let types = bytes_by_type(&sample());
        let find = |t: &str| types.iter().find(|x| x.0 == t).cloned();
        let gif = find("gif").unwrap();
        assert_eq!(
            (gif.1, gif.2, gif.3),
            (300, 300, 1),
            "only the GIF that stayed"
        );
        let conversion = find("gif → png").unwrap();
        assert_eq!(
            (conversion.1, conversion.2, conversion.3),
            (12_000, 9_000, 1)
        );
        assert!(find("png").is_none(), "no PNG row of its own");
        assert_eq!(find("html").unwrap().2, 30_000);
        assert_eq!(find("css").unwrap().2, 2_500);
    }
}
