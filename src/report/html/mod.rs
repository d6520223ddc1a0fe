//! The report as one self-contained HTML page: inline CSS, inline SVG charts drawn in Rust, a
//! few lines of script to sort tables. No network, no external fonts or assets.

mod charts;
mod tables;

use std::fmt::Write;

use charts::{grouped_bars, Group, Series};

use super::figures::{self, row, TESTS};
use super::model::Report;
use super::thousands;

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

/// Escapes text for HTML content and quoted attribute values.
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
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
    out.push_str(&cards(report));

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
        out.push_str("<h3>Every row, medians with the range over the runs</h3>");
        out.push_str(&tables::replay_runs(report));
    }

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
        saved.push(Group {
            label: "deflate".into(),
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

    out.push_str("<h2>Images</h2>");
    out.push_str(&tables::images(report));
    if let Some(pages) = tables::pages(report) {
        out.push_str("<h2>Pages</h2>");
        out.push_str(&pages);
    }
    out.push_str("<h2>Budgets</h2>");
    out.push_str(&tables::budgets(report));
    let _ = write!(out, "<h2>Problems ({})</h2>", report.problems.len());
    out.push_str(&tables::problems(report));
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
    card(
        "Budgets",
        if failed == 0 {
            "all pass".into()
        } else {
            format!("{failed} FAIL")
        },
        format!("{} checked", report.budgets.len()),
    );
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
    Option<&'a super::replay::ReplayRow>,
    Option<&'a super::replay::ReplayRow>,
);

fn replay_groups(report: &Report) -> Vec<ReplayGroup<'_>> {
    let mut out = Vec::new();
    for mode in figures::modes(report) {
        for test in TESTS {
            let b = row(report, "original", &mode, test);
            let a = row(report, "rewritten", &mode, test);
            if b.is_some() || a.is_some() {
                out.push((format!("{mode} · {test}"), b, a));
            }
        }
    }
    out
}

fn groups_of(groups: &[ReplayGroup], f: fn(&super::replay::ReplayRow) -> f64) -> Vec<Group> {
    groups
        .iter()
        .map(|(label, b, a)| Group {
            label: label.clone(),
            values: vec![b.map_or(f64::NAN, f), a.map_or(f64::NAN, f)],
        })
        .collect()
}

/// `(type, bytes before, bytes after, files before)` from the inventory, with the image and
/// markup stages applied: converted GIFs move to PNG, the markup stage's HTML and style sheet
/// change HTML and CSS.
pub fn bytes_by_type(report: &Report) -> Vec<(String, u64, u64, usize)> {
    let Some(inv) = &report.inventory else {
        return Vec::new();
    };
    let mut delta: std::collections::BTreeMap<&str, i64> = Default::default();
    for i in &report.images {
        if i.to_path != i.path {
            if !i.original_kept {
                *delta.entry("gif").or_default() -= i.from_bytes as i64;
            }
            *delta.entry("png").or_default() += i.to_bytes as i64;
        }
    }
    if let (Some(b), Some(a)) = (
        figures::markup_number(report, "html_bytes_before"),
        figures::markup_number(report, "html_bytes_after"),
    ) {
        *delta.entry("html").or_default() += a as i64 - b as i64;
        *delta.entry("css").or_default() +=
            figures::markup_number(report, "css_bytes").unwrap_or(0) as i64;
    }
    let mut out: Vec<(String, u64, u64, usize)> = inv
        .by_type
        .iter()
        .map(|(t, s)| {
            let after = s.bytes as i64 + delta.remove(t.as_str()).unwrap_or(0);
            (t.clone(), s.bytes, after.max(0) as u64, s.count)
        })
        .collect();
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

fn method(report: &Report) -> String {
    let runs = report.replay.first().map_or(0, |r| r.runs);
    let mss = report.replay.first().map_or(1460, |r| r.mss);
    let mut out = String::from("<h2>Method</h2><div class=\"method\">");
    let _ = write!(
        out,
        "<p>Each site version is served by webdiet's embedded server and fetched by its client in four \
         protocol modes, as in the 1997 W3C study: HTTP/1.0 with one connection per request, \
         HTTP/1.1 persistent connections, pipelining, and pipelining with deflate. The <em>first</em> \
         test starts with an empty cache; <em>validate</em> revalidates every resource.</p>\
         <p>Packets are counted by the kernel (<code>TCP_INFO</code> on both sockets) inside a private \
         network namespace whose loopback has an Ethernet-like MTU of 1500 bytes, so segments carry at \
         most {mss} bytes (MSS). The counters are read just before the client sends its FIN: following the paper, nothing \
         from the client's FIN on is counted. \
         {}</p>\
         <p><strong>Overhead</strong> = 100 × (1 − bytes / (bytes + 40 × packets)): the share of what \
         went over the wire that was TCP/IP headers (40 bytes per packet). The <strong>minimum \
         packets</strong> is the physical minimum for the same connections and bytes per connection \
         (three-way handshake, data in full-size segments, one acknowledgement per two segments, and \
         the server's FIN when it closes first); <strong>efficiency</strong> = \
         minimum / measured.</p>\
         <p>Figures are medians over {} run(s) per cell; ranges show the smallest and largest run.</p>",
        report
            .replay_method
            .as_ref()
            .map(|m| format!("Segmentation here: {}.", esc(m)))
            .unwrap_or_default(),
        runs
    );
    if let Some(c) = &report.compression {
        let _ = write!(
            out,
            "<p>Deflate estimates compress each text file with zlib; a file is worth compressing when \
             it {}.</p>",
            esc(&c.rule)
        );
    }
    let _ = write!(
        out,
        "<p>Written by {} {}, report schema version {}.</p></div>",
        esc(&report.tool.name),
        esc(&report.tool.version),
        report.schema_version
    );
    out
}

const STYLE: &str = "\
:root{--fg:#1d232a;--muted:#5b6670;--line:#dde3e8;--bg:#ffffff;--soft:#f4f6f8}\
*{box-sizing:border-box}\
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,-apple-system,'Segoe UI',sans-serif}\
main{max-width:1100px;margin:0 auto;padding:24px 20px 48px}\
h1{font-size:26px;margin:0 0 4px}h2{font-size:20px;margin:36px 0 10px;border-bottom:2px solid var(--line);padding-bottom:4px}\
h3{font-size:16px;margin:24px 0 8px}.sub{color:var(--muted);margin:0 0 20px;word-break:break-all}\
.cards{display:flex;flex-wrap:wrap;gap:12px}\
.card{flex:1 1 170px;background:var(--soft);border-radius:8px;padding:12px 14px}\
.card .label{color:var(--muted);font-size:13px}.card .value{font-size:20px;font-weight:600}\
.card .detail{color:var(--muted);font-size:13px}\
figure.chart{margin:18px 0;overflow-x:auto}figcaption{font-weight:600;margin-bottom:6px}\
svg text{font:12px system-ui,sans-serif;fill:var(--fg)}svg .axis{fill:var(--muted)}svg .value{font-size:10px}\
svg .grid{stroke:var(--line);stroke-width:1}svg .baseline{stroke:var(--muted);stroke-width:1}\
.note{color:var(--muted);font-style:italic}\
.scroll{overflow-x:auto}\
table{border-collapse:collapse;width:100%;font-size:13px;margin:8px 0}\
th,td{padding:5px 8px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}\
th{background:var(--soft);cursor:pointer;user-select:none;white-space:nowrap}\
th[aria-sort=ascending]::after{content:' ▲'}th[aria-sort=descending]::after{content:' ▼'}\
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\
tfoot td{font-weight:600}td.ok{color:#1e7a34}td.kept{color:var(--muted)}td.fail{color:#b52a26;font-weight:700}\
td{white-space:nowrap}td.wrap{white-space:normal;word-break:break-word}code{background:var(--soft);padding:0 3px;border-radius:3px}\
#replay-runs{font-size:12px}#replay-runs th,#replay-runs td{padding:4px 5px}#replay-runs th{white-space:normal;vertical-align:bottom}\
footer{margin-top:40px;color:var(--muted);font-size:13px}";

const SCRIPT: &str = "\
(function(){function key(td){var v=td.getAttribute('data-v');\
if(v!==null&&v!==''&&!isNaN(v))return parseFloat(v);return td.textContent.trim();}\
document.querySelectorAll('table.sortable th').forEach(function(th){\
th.addEventListener('click',function(){var t=th.closest('table'),b=t.tBodies[0],\
i=Array.prototype.indexOf.call(th.parentNode.children,th),\
asc=th.getAttribute('aria-sort')!=='ascending';\
t.querySelectorAll('th').forEach(function(h){h.removeAttribute('aria-sort');});\
th.setAttribute('aria-sort',asc?'ascending':'descending');\
var rows=Array.prototype.slice.call(b.rows);rows.sort(function(x,y){\
var p=key(x.cells[i]),q=key(y.cells[i]);\
var r=(typeof p==='number'&&typeof q==='number')?p-q:String(p).localeCompare(String(q));\
return asc?r:-r;});rows.forEach(function(r){b.appendChild(r);});});});})();";

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
    }

    #[test]
    fn numbers_have_separators_and_ranges() {
        let html = render(&sample());
        assert!(html.contains("200,000 → 150,000"));
        assert!(html.contains("160 (160–162)"), "packets median with range");
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
    fn bytes_by_type_moves_converted_gifs_to_png_and_applies_markup() {
        let types = bytes_by_type(&sample());
        let find = |t: &str| types.iter().find(|x| x.0 == t).unwrap().clone();
        assert_eq!(find("gif").2, 300, "only the kept GIF remains");
        assert_eq!(find("png").1, 0);
        assert_eq!(find("png").2, 9_000);
        assert_eq!(find("html").2, 30_000);
        assert_eq!(find("css").2, 2_500);
    }
}
