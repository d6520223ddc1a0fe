//! The report as one self-contained HTML page: inline CSS, inline SVG charts drawn in Rust, a
//! few lines of script to sort tables. No network, no external fonts or assets.
//!
//! The page leads with the verdict (budgets, what failed), then what the rewrite saves a
//! visitor per named link, then the opportunities ranked with their time and a link to their
//! evidence; the evidence follows (`evidence.rs`). This file only orders the sections and
//! draws the first three; the children never import it.

mod browser;
pub mod charts;
mod evidence;
pub mod overlap;
mod page;
pub mod study;
mod tables;
mod timecharts;

use std::fmt::Write;

pub use charts::{AFTER_COLOUR, BEFORE_COLOUR, SAVED_COLOUR};
pub use evidence::CHART_IDS;
use page::{method, SCRIPT, STYLE};

use crate::report::format::{self, html as esc, thousands};
use crate::report::model::{figures, Report};
use crate::report::phrases;

/// Renders the whole page.
pub fn render(report: &Report) -> String {
    let mut out = String::with_capacity(64 * 1024);
    out.push_str(&page_head(report));
    out.push_str(&verdict(report));
    out.push_str(&paint(report));
    out.push_str(&saving(report));
    out.push_str(&opportunities(report));
    out.push_str(&evidence::render(report));
    if let Some(a) = &report.archive {
        out.push_str("<section><h2>Web archive</h2><table><tbody>");
        for (label, value) in crate::archive::facts(a) {
            let _ = write!(
                out,
                "<tr><th>{}</th><td>{}</td></tr>",
                esc(&label),
                esc(&value)
            );
        }
        out.push_str("</tbody></table></section>");
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
    let title = format!("webdiet audit: {}", report.site.name);
    format!(
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
    )
}

/// The verdict: the budgets in one sentence and every budget, the failed ones first.
fn verdict(report: &Report) -> String {
    let mut out = String::from("<h2 id=\"verdict\">Verdict</h2>");
    if let Some((fails, sentence)) = phrases::verdict(report) {
        let _ = write!(
            out,
            "<p class=\"lead\"><span class=\"{}\">{}</span>: {}.</p>",
            if fails {
                "verdict-fail"
            } else {
                "verdict-pass"
            },
            if fails { "FAIL" } else { "Pass" },
            esc(&sentence)
        );
    }
    out.push_str(&tables::budgets(report));
    out
}

/// What a visitor sees: a card per link with the simulated browser's first and largest paint
/// (medians over every page, first visit in HTTP/2), and the pages that paint later.
fn paint(report: &Report) -> String {
    let Some(v) = &report.visitor else {
        return String::new();
    };
    let mut out = String::from("<h2 id=\"paint\">What a visitor sees</h2>");
    if let Some(h) = phrases::visitor_heading(report) {
        let _ = write!(out, "<p>{}</p>", esc(&h));
    }
    out.push_str("<section class=\"cards\">");
    for l in v.headline() {
        let _ = write!(
            out,
            "<div class=\"card\"><div class=\"label\">First paint on {}{}</div>\
             <div class=\"value\">{} → {}</div><div class=\"detail\">{}; largest paint {} → \
             {} ({}); p90 {} → {}; {} page(s) paint later</div></div>",
            esc(&l.link),
            if l.cpu_slowdown > 1 {
                format!(" (CPU ×{})", l.cpu_slowdown)
            } else {
                String::new()
            },
            esc(&format::ms(l.fcp.original.median_ms)),
            esc(&format::ms(l.fcp.rewritten.median_ms)),
            esc(&format::change(
                l.fcp.original.median_ms,
                l.fcp.rewritten.median_ms
            )),
            esc(&format::ms(l.lcp.original.median_ms)),
            esc(&format::ms(l.lcp.rewritten.median_ms)),
            esc(&format::change(
                l.lcp.original.median_ms,
                l.lcp.rewritten.median_ms
            )),
            esc(&format::ms(l.fcp.original.p90_ms)),
            esc(&format::ms(l.fcp.rewritten.p90_ms)),
            l.later.len()
        );
    }
    out.push_str("</section>");
    let _ = write!(
        out,
        "<p class=\"note\">{}.</p>",
        esc(&phrases::visitor_cpu(&v.cpu))
    );
    out
}

/// What a visitor saves: a card per named link with the time, then the first visit's bytes,
/// requests and packets.
fn saving(report: &Report) -> String {
    let mut out =
        String::from("<h2 id=\"saving\">What a visitor saves</h2><section class=\"cards\">");
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
    match &report.visitor_savings {
        Some(s) => {
            for t in &s.links {
                let runs = figures::runs_on(report, &t.link);
                let mut detail = format!(
                    "{}; {}",
                    phrases::time_saving(t),
                    phrases::time_source(t, runs)
                );
                if let Some(check) = phrases::measured_check(report, t) {
                    detail = format!("{detail}; {check}");
                }
                card(
                    &format!("First visit on {} ({})", t.link, t.mode),
                    format!(
                        "{} → {}",
                        format::ms(t.original_ms.median),
                        format::ms(t.rewritten_ms.median)
                    ),
                    detail,
                );
            }
            let pair = |b: u64, a: u64| {
                (
                    format!("{} → {}", thousands(b), thousands(a)),
                    format::change(b as f64, a as f64),
                )
            };
            let (v, d) = pair(s.original.bytes, s.rewritten.bytes);
            card(&format!("First-visit bytes ({})", s.mode), v, d);
            let (v, d) = pair(s.original.requests, s.rewritten.requests);
            card("Requests", v, d);
            let (v, d) = pair(s.original.packets, s.rewritten.packets);
            card("Packets", v, d);
        }
        None => {
            let t = &report.images_total;
            card(
                "GIF bytes",
                format!("{} → {}", thousands(t.from_bytes), thousands(t.to_bytes)),
                "no replay was run".into(),
            );
        }
    }
    out.push_str("</section>");
    let notes: Vec<String> = [
        report
            .visitor_savings
            .as_ref()
            .filter(|s| s.links.is_empty())
            .map(|_| "No named link was replayed, so no time (--link Cable adds one).".into()),
        phrases::browser_headline(report),
    ]
    .into_iter()
    .flatten()
    .collect();
    for n in notes {
        let _ = write!(out, "<p><strong>{}</strong></p>", esc(&n));
    }
    out
}

/// The opportunities, ranked, each with its time and a link to its evidence.
fn opportunities(report: &Report) -> String {
    let mut out = String::from("<h2 id=\"opportunities\">Opportunities</h2>");
    if report.opportunities.is_empty() {
        out.push_str("<p class=\"note\">Nothing to report.</p>");
        return out;
    }
    out.push_str(
        "<p class=\"note\">Ranked by what they save a first visit; ~ marks a time estimated \
         from the link's rates. Done: the rewrite did it; to do: a person must.</p>",
    );
    out.push_str(&tables::opportunities(report));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::model::InventorySummary;
    use evidence::CHART_IDS;

    fn sample() -> Report {
        let mut r = crate::report::model::sample::sample();
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
        use crate::replay::{RequestTiming, Spread};
        use crate::sim::link::spec;
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
            html.contains("<h4>Sweep: spdy-cable, RTT 20–200 ms</h4>"),
            "{html}"
        );
        assert!(html.contains("<svg id=\"sweep-0-original\""));
        assert_eq!(html.matches("<polyline").count(), 2, "a line per mode");
        assert!(html.contains("<h4>Request waterfall over spdy-cable,rtt=20ms</h4>"));
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
    fn the_lossless_pass_has_a_table_per_kind_with_its_savings() {
        use crate::rewrite::lossless::{Kind, KindTotal, LosslessReport};
        let mut report = sample();
        assert!(!render(&report).contains("id=\"lossless\""));
        let mut lossless = LosslessReport::default();
        lossless.totals.insert(
            Kind::Png,
            KindTotal {
                files: 4,
                optimized: 3,
                from_bytes: 90_000,
                to_bytes: 61_000,
                cpu_millis: 0.0,
            },
        );
        report.lossless = Some(lossless);
        let html = render(&report);
        let at = |what: &str| html.find(what).unwrap_or_else(|| panic!("{what}"));
        assert!(at("id=\"images\"") < at("id=\"lossless\""));
        assert!(html[at("id=\"lossless\"")..].contains("90,000"));
        assert!(html[at("id=\"lossless\"")..].contains(">29,000<"));
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
    fn the_page_leads_with_the_verdict_the_saving_and_the_opportunities_with_time() {
        let html = render(&sample());
        let at = |what: &str| html.find(what).unwrap_or_else(|| panic!("{what}"));
        assert!(at("id=\"verdict\"") < at("id=\"saving\""));
        assert!(at("id=\"saving\"") < at("id=\"opportunities\""));
        assert!(at("id=\"opportunities\"") < at("id=\"evidence\""));
        assert!(at("id=\"evidence\"") < at("id=\"chart-packets\""));
        for o in &sample().opportunities {
            assert!(
                html.contains(&format!("href=\"#{}\"", o.evidence)),
                "{}",
                o.id
            );
            assert!(
                html.contains(&format!("id=\"{}\"", o.evidence)),
                "{}",
                o.evidence
            );
        }
    }

    #[test]
    fn no_label_of_any_chart_overlaps_another() {
        let html = render(&sample());
        let charts = overlap::svgs(&html);
        assert!(charts.len() >= 4, "{}", charts.len());
        for svg in charts {
            let boxes = overlap::text_boxes(svg);
            assert_eq!(
                overlap::overlaps(&boxes),
                Vec::<(String, String)>::new(),
                "{svg}"
            );
        }
    }
}
