//! The HTML report's evidence, after the verdict, the saving and the opportunities: where the
//! bytes are and where the savings come from, the protocol replay (charts, matrix, times per
//! link, waterfalls, sweeps), Chromium's visits, what TLS and header compression cost,
//! compression, images, markup, images of text, the largest files, pages, every replay row,
//! the problems. Each section has the id an opportunity's evidence names.

use std::fmt::Write;

use super::charts::{bars, Group, Series, AFTER_COLOUR, BEFORE_COLOUR, SAVED_COLOUR};
use super::{browser, tables, timecharts};
use crate::replay::{Mode, Test};
use crate::report::format::{html as esc, short_bytes, thousands};
use crate::report::model::figures::{self, row};
use crate::report::model::{sweeps, Report};
use crate::report::phrases;

/// The ids of the four bar charts.
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

/// Every evidence section, in order.
pub fn render(report: &Report) -> String {
    let mut out = String::from("<section class=\"evidence\"><h2 id=\"evidence\">Evidence</h2>");
    out.push_str(&bytes_section(report));
    out.push_str(&replay_section(report));
    if let Some(section) = browser::section(report) {
        out.push_str(&section);
    }
    out.push_str(&findings_section(report));
    out.push_str("</section>");
    out
}

/// The replay: packets and bytes per mode, the matrix, times, waterfalls, sweeps, TLS and
/// header costs, every row.
fn replay_section(report: &Report) -> String {
    let mut out = String::new();
    out.push_str("<h3 id=\"replay\">Protocol replay</h3>");
    let groups = replay_groups(report);
    if groups.is_empty() {
        out.push_str(
            "<p class=\"note\">No replay was run, so there are no packet or byte counts per \
             protocol mode.</p>",
        );
        return out;
    }
    let packets = groups_of(&groups, |r| r.packets as f64);
    let bytes = groups_of(&groups, |r| r.bytes() as f64);
    out.push_str("<div class=\"charts\">");
    out.push_str(&bars(
        CHART_IDS[0],
        "Packets of a first visit, per protocol mode",
        &packets,
        &[BEFORE, AFTER],
        |v| thousands(v.round() as u64),
    ));
    out.push_str(&bars(
        CHART_IDS[1],
        "Bytes of a first visit, per protocol mode",
        &bytes,
        &[BEFORE, AFTER],
        short_bytes,
    ));
    out.push_str(
        "</div><h4>Matrix</h4><p class=\"note\">First visit and validation; packets by \
                  the paper's rules, the same on every run.</p>",
    );
    out.push_str(&tables::replay_matrix(report));
    for link in figures::time_links(report) {
        if let Some(sim) = phrases::simulated_on(report, link) {
            let _ = write!(
                out,
                "<h4>Time on {}, simulated</h4><p class=\"note\">From the first SYN, simulated \
                 ({}; the same on any machine): the paper's time (to the last byte read), the \
                 page's first byte, the page complete.</p>",
                esc(link),
                esc(&phrases::simulation_model(sim))
            );
            out.push_str(&tables::times(report, link, true));
            if let Some(line) = phrases::rewrite_by_protocol(report, link) {
                let _ = write!(out, "<p>{}.</p>", esc(&line));
            }
        }
        if figures::measured_on(report, link) {
            let _ = write!(
                out,
                "<h4>Time over {}, measured</h4><p class=\"note\">Over the emulated link, from \
                 the first SYN, median (range) over the runs: the paper's time (to the last \
                 counted packet), the page's first byte, the page complete. Δ is a change only \
                 where the 90% confidence intervals of the medians are apart.</p>",
                esc(link)
            );
            out.push_str(&tables::times(report, link, false));
            if phrases::simulated_on(report, link).is_none() {
                if let Some(line) = phrases::rewrite_by_protocol(report, link) {
                    let _ = write!(out, "<p>{}.</p>", esc(&line));
                }
            }
            if let Some(v) = phrases::validation_on(report, link) {
                let _ = write!(out, "<p>{}.</p>", esc(&v));
            }
        }
    }
    if let Some(w) = phrases::load_warning(report) {
        let _ = write!(
            out,
            "<p class=\"note\"><strong>Warning:</strong> {}.</p>",
            esc(&w)
        );
    }
    out.push_str(&waterfalls(report));
    out.push_str(&sweep_charts(report));
    if let Some(tls) = tables::tls_cost(report) {
        let _ = write!(
            out,
            "<h4 id=\"tls\">What TLS costs</h4><p class=\"note\">{}; each mode over TLS \
             against the same mode in cleartext on the same link; page complete is simulated where \
             the link was, else the median over the runs.{}</p>",
            esc(&report.tls_cost[0].tls),
            phrases::tls_headline(&report.tls_cost, "original")
                .map(|h| format!(" {}.", esc(&h)))
                .unwrap_or_default()
        );
        out.push_str(&tls);
    }
    if let Some(headers) = tables::header_cost(report) {
        let _ = write!(
            out,
            "<h4 id=\"headers\">Header bytes, HTTP/1.1 against HTTP/2</h4><p class=\"note\">\
             Mean header bytes per message; {}. The set marked * is the one of the other \
             figures.</p>",
            esc(&phrases::spdy_note())
        );
        out.push_str(&headers);
    }
    out
}

/// Where the bytes are (by content type) and where the savings come from.
fn bytes_section(report: &Report) -> String {
    let mut out = String::new();
    out.push_str("<h3 id=\"where-the-bytes-are\">Where the bytes are, and the savings</h3>");
    out.push_str("<div class=\"charts\">");
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
    out.push_str(&bars(
        CHART_IDS[3],
        "Where the savings come from (bytes saved)",
        &saved,
        &[Series {
            name: "bytes saved",
            colour: SAVED_COLOUR,
        }],
        short_bytes,
    ));
    let types = figures::bytes_by_type(report);
    if types.is_empty() {
        out.push_str("</div><p class=\"note\">No inventory in this report.</p>");
        return out;
    }
    let groups: Vec<Group> = types
        .iter()
        .map(|t| Group {
            label: t.kind.clone(),
            values: vec![t.before as f64, t.after as f64],
        })
        .collect();
    out.push_str(&bars(
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
    out.push_str("</div>");
    out.push_str(&tables::by_type(&types));
    out
}

/// Compression, images, markup, images of text, the largest files, pages, every row, problems.
fn findings_section(report: &Report) -> String {
    let mut out = String::new();
    if let Some(c) = &report.compression {
        let _ = write!(
            out,
            "<h3 id=\"compression\">Compression</h3><p class=\"note\">The text files of the \
             rewritten site at deflate level 6; worth compressing when it {}.</p>",
            esc(&c.rule)
        );
        out.push_str(&tables::compression(report).unwrap_or_default());
        if c.original.totals.brotli11 > 0 {
            let e = c.rewritten.as_ref().unwrap_or(&c.original);
            let _ = write!(out, "<p>{}.</p>", esc(&e.codings_line()));
        }
    }
    out.push_str("<h3 id=\"images\">Images</h3>");
    out.push_str(&tables::images(report));
    if let Some(lossless) = tables::lossless(report) {
        out.push_str(
            "<h4 id=\"lossless\">Lossless recompression and minification</h4><p class=\"note\">\
             The site's own PNGs and JPEGs recompressed and checked pixel for pixel, style \
             sheets and scripts minified, SVGs counted; a file is replaced only when it gets \
             smaller.</p>",
        );
        out.push_str(&lossless);
    }
    if let Some(constructs) = tables::constructs(report) {
        let _ = write!(
            out,
            "<h3 id=\"presentational-markup\">Presentational markup</h3><p>{}</p>",
            esc(&report.markup.as_ref().map_or(String::new(), |m| format!(
                "{}: {}",
                phrases::css_choice(m),
                m.css_mode_reason
            )))
        );
        out.push_str(&constructs);
    }
    if let Some(text_images) = tables::text_images(report) {
        out.push_str("<h3 id=\"text-drawn-as-images\">Text drawn as images</h3>");
        out.push_str(&text_images);
    }
    if let Some(files) = tables::largest_files(report) {
        out.push_str("<h3 id=\"largest-files\">Largest files</h3>");
        out.push_str(&files);
    }
    if let Some(pages) = tables::pages(report) {
        out.push_str("<h3 id=\"pages\">Pages</h3>");
        out.push_str(&pages);
    }
    if !report.replay.is_empty() {
        out.push_str(
            "<h3 id=\"every-row\">Every replay row, medians with the range over the runs</h3>",
        );
        out.push_str(&tables::replay_runs(report));
    }
    let _ = write!(
        out,
        "<h3 id=\"problems\">Problems ({})</h3>",
        report.problems.len()
    );
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
    let links = figures::links(&report.replay);
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
        "<h4>Request waterfall over {}</h4><p class=\"note\">First visit, the run whose paper's \
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
    let mut out = String::new();
    for (n, sweep) in sweeps::sweeps(&report.replay).iter().enumerate() {
        let _ = write!(
            out,
            "<h4>Sweep: {}</h4><p class=\"note\">First visit, page complete (the last byte of the \
             last object), simulated (or the median over the runs) at each point; dashed lines are \
             modes over TLS.</p>",
            esc(&sweep.title())
        );
        let xs: Vec<f64> = sweep.points.iter().map(|p| p.0).collect();
        for site in figures::sites(&report.replay) {
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

/// `(mode, original row, rewritten row)` for the first visit of each mode that was replayed
/// (the validations are in the matrix).
type ReplayGroup<'a> = (
    String,
    Option<&'a crate::replay::ReplayRow>,
    Option<&'a crate::replay::ReplayRow>,
);

fn replay_groups(report: &Report) -> Vec<ReplayGroup<'_>> {
    figures::modes(report)
        .into_iter()
        .filter_map(|mode| {
            let b = row(report, "original", mode, Test::First);
            let a = row(report, "rewritten", mode, Test::First);
            (b.is_some() || a.is_some()).then(|| (mode.to_string(), b, a))
        })
        .collect()
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
