//! Sortable HTML tables: every cell carries its sort key, so the page script only reorders rows.

use std::fmt::Write;

use crate::replay::{Mode, ReplayRow, Spread, Test};
use crate::report::format::{self, html as esc, thousands};
use crate::report::model::figures::{self, row, TypeBytes, TESTS};
use crate::report::model::Report;
use crate::report::phrases;

/// One table cell: escaped display HTML and, for numbers, the value to sort by.
pub struct Cell {
    html: String,
    key: Option<f64>,
    class: &'static str,
}

impl Cell {
    /// Text, escaped here.
    pub fn text(s: &str) -> Self {
        Cell {
            html: esc(s),
            key: None,
            class: "",
        }
    }
    /// A count with thousands separators, sorted by value.
    pub fn count(n: u64) -> Self {
        Cell {
            html: thousands(n),
            key: Some(n as f64),
            class: "num",
        }
    }
    /// A signed whole number.
    pub fn signed(n: i64) -> Self {
        Cell {
            html: format::signed(n),
            key: Some(n as f64),
            class: "num",
        }
    }
    /// A number shown as `shown` (already plain text), sorted by `value`.
    pub fn number(value: f64, shown: &str) -> Self {
        Cell {
            html: esc(shown),
            key: value.is_finite().then_some(value),
            class: "num",
        }
    }
    /// A link to a section of the page, `#anchor`.
    pub fn anchor(text: &str, anchor: &str) -> Self {
        Cell {
            html: format!("<a href=\"#{}\">{}</a>", esc(anchor), esc(text)),
            key: None,
            class: "",
        }
    }
    /// Long text that may wrap (paths, reasons, messages).
    pub fn long(s: &str) -> Self {
        Cell::text(s).with_class("wrap")
    }
    fn with_class(mut self, class: &'static str) -> Self {
        self.class = class;
        self
    }
}

/// A `<table class="sortable">` with a header row, body rows and optional footer rows (footers
/// stay put when sorting).
pub fn table(id: &str, headers: &[&str], rows: Vec<Vec<Cell>>, foot: Vec<Vec<Cell>>) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "<div class=\"scroll\"><table class=\"sortable\" id=\"{}\"><thead><tr>",
        esc(id)
    );
    for h in headers {
        let _ = write!(out, "<th title=\"click to sort\">{}</th>", esc(h));
    }
    out.push_str("</tr></thead><tbody>");
    let write_rows = |out: &mut String, rows: Vec<Vec<Cell>>| {
        for r in rows {
            out.push_str("<tr>");
            for c in r {
                let _ = write!(out, "<td");
                if !c.class.is_empty() {
                    let _ = write!(out, " class=\"{}\"", c.class);
                }
                if let Some(k) = c.key {
                    let _ = write!(out, " data-v=\"{k}\"");
                }
                let _ = write!(out, ">{}</td>", c.html);
            }
            out.push_str("</tr>");
        }
    };
    write_rows(&mut out, rows);
    out.push_str("</tbody>");
    if !foot.is_empty() {
        out.push_str("<tfoot>");
        write_rows(&mut out, foot);
        out.push_str("</tfoot>");
    }
    out.push_str("</table></div>");
    out
}

pub fn images(report: &Report) -> String {
    if report.images.is_empty() {
        return "<p class=\"note\">The site has no GIFs.</p>".into();
    }
    let rows = report
        .images
        .iter()
        .map(|i| {
            vec![
                Cell::long(&i.path),
                Cell::count(i.from_bytes),
                Cell::count(i.to_bytes),
                Cell::signed(i.from_bytes as i64 - i.to_bytes as i64),
                Cell::count(i.frames as u64),
                Cell::text(&i.format.to_string()),
                Cell::text(&i.effort.to_string()),
                // Whole milliseconds: report.json keeps fewer digits than the run had, and a
                // report re-rendered from it must be the same page.
                Cell::count(i.cpu_millis.round() as u64),
                Cell::text(i.outcome.code()).with_class(if i.outcome.code() == "converted" {
                    "ok"
                } else {
                    "kept"
                }),
                Cell::long(&i.reason),
            ]
        })
        .collect();
    let t = &report.images_total;
    let foot = vec![vec![
        Cell::text(&format!("{} GIFs", t.count)),
        Cell::count(t.from_bytes),
        Cell::count(t.to_bytes),
        Cell::signed(t.from_bytes as i64 - t.to_bytes as i64),
        Cell::text(""),
        Cell::text(""),
        Cell::text(""),
        Cell::count(t.cpu_millis.round() as u64),
        Cell::text(""),
        Cell::text(""),
    ]];
    format!(
        "<p>{}</p>{}",
        esc(&phrases::images_cost_line(report)),
        table(
            "images",
            &[
                "Path",
                "GIF bytes",
                "Result bytes",
                "Saved",
                "Frames",
                "Format",
                "Effort",
                "CPU ms",
                "Outcome",
                "Reason",
            ],
            rows,
            foot,
        )
    )
}

/// Presentational constructs before and after the markup pass, with the reasons some were left.
pub fn constructs(report: &Report) -> Option<String> {
    let m = report.markup.as_ref()?;
    if m.constructs_before.is_empty() {
        return None;
    }
    let rows = m
        .constructs_before
        .iter()
        .map(|(name, before)| {
            let after = m.constructs_after.get(name).copied().unwrap_or(0);
            vec![
                Cell::text(name),
                Cell::count(*before as u64),
                Cell::count(after as u64),
            ]
        })
        .collect();
    let mut out = table(
        "constructs",
        &["construct", "before", "after"],
        rows,
        Vec::new(),
    );
    if !m.left_as_is.is_empty() {
        let reasons = m
            .left_as_is
            .iter()
            .map(|(r, n)| vec![Cell::text(r), Cell::count(*n as u64)])
            .collect();
        out.push_str(&table(
            "left-as-is",
            &["left as is because", "constructs"],
            reasons,
            Vec::new(),
        ));
    }
    if !m.pages_kept.is_empty() {
        let kept = m
            .pages_kept
            .iter()
            .map(|(r, n)| vec![Cell::text(&format!("kept:{r}")), Cell::count(*n as u64)])
            .collect();
        out.push_str(&table(
            "pages-kept",
            &["page kept as it was because", "pages"],
            kept,
            Vec::new(),
        ));
    }
    Some(out)
}

/// Images that look like text (audit only), one row per file, with the pages that show it.
pub fn text_images(report: &Report) -> Option<String> {
    let markup = report.markup.as_ref()?;
    if markup.text_images.is_empty() {
        return None;
    }
    let mut files: std::collections::BTreeMap<&str, (&crate::rewrite::markup::TextImageRow, u64)> =
        std::collections::BTreeMap::new();
    for row in &markup.text_images {
        files.entry(row.file.as_str()).or_insert((row, 0)).1 += 1;
    }
    let keys = [
        "file", "alt text", "width", "height", "colours", "bytes", "shown",
    ];
    let rows = files
        .values()
        .map(|(r, shown)| {
            vec![
                Cell::long(&r.file),
                Cell::text(&r.alt),
                Cell::count(u64::from(r.width)),
                Cell::count(u64::from(r.height)),
                Cell::count(r.colors as u64),
                Cell::count(r.bytes),
                Cell::count(*shown),
            ]
        })
        .collect();
    let t = &markup.text_images_total;
    let foot = vec![vec![
        Cell::text(&format!("{} files = requests saved", t.files)),
        Cell::text(""),
        Cell::text(""),
        Cell::text(""),
        Cell::text(""),
        Cell::count(t.bytes),
        Cell::count(t.shown as u64),
    ]];
    Some(table("text-images", &keys, rows, foot))
}

/// Per-page markup figures: bytes and presentational constructs before and after.
pub fn pages(report: &Report) -> Option<String> {
    let markup = report.markup.as_ref()?;
    if markup.pages.is_empty() {
        return None;
    }
    let keys = [
        "path",
        "bytes before",
        "bytes after",
        "deflated before",
        "deflated after",
        "constructs before",
        "constructs after",
        "changed",
    ];
    let rows = markup
        .pages
        .iter()
        .map(|p| {
            vec![
                Cell::long(&p.path),
                Cell::count(p.bytes_before),
                Cell::count(p.bytes_after),
                Cell::count(p.deflated_before),
                Cell::count(p.deflated_after),
                Cell::count(p.constructs_before as u64),
                Cell::count(p.constructs_after as u64),
                Cell::text(if p.changed { "yes" } else { "no" }),
            ]
        })
        .collect();
    Some(table("pages", &keys, rows, Vec::new()))
}

/// Modes × tests, original vs rewritten.
pub fn replay_matrix(report: &Report) -> String {
    let mut rows = Vec::new();
    for mode in figures::modes(report) {
        for test in TESTS {
            let (b, a) = (
                row(report, "original", mode, test),
                row(report, "rewritten", mode, test),
            );
            if b.is_none() && a.is_none() {
                continue;
            }
            let get = |r: Option<&ReplayRow>, f: fn(&ReplayRow) -> u64| {
                r.map_or(Cell::text("—"), |r| Cell::count(f(r)))
            };
            let delta = |f: fn(&ReplayRow) -> u64| match (b, a) {
                (Some(b), Some(a)) => {
                    let (x, y) = (f(b) as f64, f(a) as f64);
                    let p = format::change_pct(x, y).unwrap_or(0.0);
                    Cell::number(p, &format::change(x, y))
                }
                _ => Cell::text("—"),
            };
            let packets: fn(&ReplayRow) -> u64 = |r| r.packets;
            let bytes: fn(&ReplayRow) -> u64 = |r| r.bytes_up + r.bytes_down;
            rows.push(vec![
                Cell::text(mode.as_str()),
                Cell::text(test.as_str()),
                get(b, packets),
                get(a, packets),
                delta(packets),
                get(b, bytes),
                get(a, bytes),
                delta(bytes),
            ]);
        }
    }
    table(
        "replay-matrix",
        &[
            "Mode",
            "Test",
            "Packets original",
            "Packets rewritten",
            "Δ packets",
            "Bytes original",
            "Bytes rewritten",
            "Δ bytes",
        ],
        rows,
        Vec::new(),
    )
}

/// The times of one link, original and rewritten, per mode and test: simulated, or measured
/// (the rows measured there only).
pub fn times(report: &Report, link: &str, simulated: bool) -> String {
    let on = |site: &str, mode: Mode, test: Test| {
        report
            .replay
            .iter()
            .find(|r| r.link.name == link && r.site == site && r.mode == mode && r.test == test)
    };
    let mut rows = Vec::new();
    for mode in figures::modes(report) {
        for test in TESTS {
            let shown = |r: &&ReplayRow| {
                if simulated {
                    r.simulated_time.is_some()
                } else {
                    r.measured()
                }
            };
            let (b, a) = (
                on("original", mode, test).filter(shown),
                on("rewritten", mode, test).filter(shown),
            );
            if b.is_none() && a.is_none() {
                continue;
            }
            let time = |r: Option<&ReplayRow>, s: fn(&ReplayRow) -> Spread| {
                r.map_or(Cell::text("—"), |r| {
                    let spread = s(r);
                    let text = if simulated {
                        format::ms(spread.median)
                    } else {
                        format::time_spread(&spread, r.timed_out_runs, r.runs)
                    };
                    Cell::number(spread.median, &text)
                })
            };
            let [paper, first, complete]: [fn(&ReplayRow) -> Spread; 3] = if simulated {
                [
                    |r| {
                        r.simulated_time
                            .as_ref()
                            .map(|s| s.last_packet_ms)
                            .unwrap_or_default()
                    },
                    |r| {
                        r.simulated_time
                            .as_ref()
                            .map(|s| s.first_byte_ms)
                            .unwrap_or_default()
                    },
                    |r| {
                        r.simulated_time
                            .as_ref()
                            .map(|s| s.complete_ms)
                            .unwrap_or_default()
                    },
                ]
            } else {
                [
                    |r| r.time.last_packet_ms,
                    |r| r.time.first_byte_ms,
                    |r| r.time.complete_ms,
                ]
            };
            let delta = match (b, a) {
                (Some(b), Some(a)) if simulated => Cell::text(&phrases::simulated_change(b, a)),
                (Some(b), Some(a)) => Cell::text(&phrases::measured_time_change(b, a)),
                _ => Cell::text("—"),
            };
            rows.push(vec![
                Cell::text(mode.as_str()),
                Cell::text(test.as_str()),
                time(b, paper),
                time(a, paper),
                delta,
                time(b, first),
                time(a, first),
                time(b, complete),
                time(a, complete),
            ]);
        }
    }
    let id = format!(
        "time-{}{}",
        if simulated { "simulated-" } else { "" },
        link.chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect::<String>()
    );
    table(
        &id,
        &[
            "Mode",
            "Test",
            "Paper's time original",
            "Paper's time rewritten",
            "Δ",
            "First byte original",
            "First byte rewritten",
            "Complete original",
            "Complete rewritten",
        ],
        rows,
        Vec::new(),
    )
}

/// What TLS costs: each mode over TLS against the same mode in cleartext.
pub fn tls_cost(report: &Report) -> Option<String> {
    if report.tls_cost.is_empty() {
        return None;
    }
    let rows = report
        .tls_cost
        .iter()
        .map(|c| {
            vec![
                Cell::text(&c.link),
                Cell::text(&c.site),
                Cell::text(c.mode.as_str()),
                Cell::text(c.test.as_str()),
                Cell::number(
                    c.complete_ms,
                    &format!(
                        "{} ({:+.0}%)",
                        format::plus_ms(c.complete_ms),
                        c.complete_pct
                    ),
                ),
                Cell::number(
                    c.packets as f64,
                    &format!("{} ({:+.1}%)", format::plus(c.packets), c.packets_pct),
                ),
                Cell::number(
                    c.bytes as f64,
                    &format!("{} ({:+.1}%)", format::plus(c.bytes), c.bytes_pct),
                ),
                Cell::text(&format!("{} + {}", c.full_handshakes, c.resumed_handshakes)),
                Cell::count(c.handshake_packets),
                Cell::count(c.handshake_bytes),
                Cell::count(c.handshake_round_trips),
            ]
        })
        .collect();
    Some(table(
        "tls-cost",
        &[
            "Link",
            "Site",
            "Mode",
            "Test",
            "Δ page complete",
            "Δ packets",
            "Δ bytes",
            "Handshakes (full + resumed)",
            "Handshake packets",
            "Handshake bytes",
            "Round trips",
        ],
        rows,
        Vec::new(),
    ))
}

/// Header bytes per message, HTTP/1.1 against HTTP/2, per header set.
pub fn header_cost(report: &Report) -> Option<String> {
    if report.header_cost.is_empty() {
        return None;
    }
    let bytes = |v: f64| Cell::number(v, &format!("{v:.0} B"));
    let pct = |v: f64| Cell::number(v, &format!("{v:.0}%"));
    let rows = report
        .header_cost
        .iter()
        .map(|c| {
            vec![
                Cell::text(&c.site),
                Cell::text(c.test.as_str()),
                Cell::text(&format!(
                    "{}{}",
                    c.header_set,
                    if c.headline { " *" } else { "" }
                )),
                bytes(c.http1_request_bytes),
                bytes(c.h2_request_bytes),
                pct(c.request_reduction_pct),
                bytes(c.http1_response_bytes),
                bytes(c.h2_response_bytes),
                pct(c.response_reduction_pct),
            ]
        })
        .collect();
    Some(table(
        "header-cost",
        &[
            "Site",
            "Test",
            "Header set",
            "Request, HTTP/1.1",
            "Request, HTTP/2",
            "Saved",
            "Response, HTTP/1.1",
            "Response, HTTP/2",
            "Saved",
        ],
        rows,
        Vec::new(),
    ))
}

/// Every replay row: the deterministic figures, and the kernel's count and the times with
/// their spread over the runs.
pub fn replay_runs(report: &Report) -> String {
    let spread = |s: &Spread, digits: usize| {
        let (lo, hi) = s.range();
        Cell::number(
            s.median,
            &format!("{:.digits$} ({lo:.digits$}–{hi:.digits$})", s.median),
        )
    };
    let rows = report
        .replay
        .iter()
        .map(|r| {
            vec![
                Cell::text(&r.site),
                Cell::text(r.mode.as_str()),
                Cell::text(r.test.as_str()),
                Cell::count(r.runs as u64),
                Cell::number(
                    r.requests as f64,
                    &format!("{} / {}", r.requests, r.connections),
                ),
                Cell::number(
                    r.bytes() as f64,
                    &format!("{} / {}", thousands(r.bytes_up), thousands(r.bytes_down)),
                ),
                Cell::count(r.packets),
                Cell::count(r.data_segments_up + r.data_segments_down),
                Cell::count(r.lower_bound),
                Cell::number(r.efficiency, &format!("{:.2}", r.efficiency)),
                Cell::number(r.overhead_pct, &format!("{:.1}%", r.overhead_pct)),
                spread(&r.kernel.packets, 0),
                spread(&r.kernel.data_segments, 0),
                Cell::number(
                    r.kernel.retransmits.max,
                    &format!("{}", r.kernel.retransmits.max),
                ),
                spread(&r.time.complete_ms, 1),
            ]
        })
        .collect();
    table(
        "replay-runs",
        &[
            "Site",
            "Mode",
            "Test",
            "Runs",
            "Requests / conns",
            "Bytes up / down",
            "Packets",
            "Data segs",
            "Lower bound",
            "Effi\u{ad}ciency",
            "Over\u{ad}head",
            "Kernel packets (range)",
            "Kernel data segs (range)",
            "Retrans\u{ad}mits",
            "ms (range)",
        ],
        rows,
        Vec::new(),
    )
}

/// What the rewrite saved and what it only reports, ranked, with the time on the first named
/// link and a link to the evidence.
pub fn opportunities(report: &Report) -> String {
    let n = |v: Option<i64>| match v {
        Some(v) => Cell::number(v as f64, &format::signed(v)),
        None => Cell::text("—"),
    };
    let link = report
        .opportunities
        .iter()
        .find_map(|o| o.time_link.as_deref());
    let rows = report
        .opportunities
        .iter()
        .map(|o| {
            vec![
                Cell::long(&o.title),
                Cell::text(if o.status == "done" { "done" } else { "to do" })
                    .with_class(if o.status == "done" { "ok" } else { "" }),
                Cell::long(&o.action),
                n(o.bytes),
                n(o.requests),
                n(o.packets),
                Cell::number(o.time_ms.unwrap_or(f64::NAN), &phrases::opportunity_time(o)),
                Cell::anchor(&o.evidence.replace('-', " "), &o.evidence),
                Cell::long(&o.basis),
            ]
        })
        .collect();
    let time = format!("Time{}", link.map_or(String::new(), |l| format!(" on {l}")));
    table(
        "opportunities",
        &[
            "Opportunity",
            "Status",
            "What",
            "Bytes",
            "Requests",
            "Packets",
            &time,
            "Evidence",
            "Basis",
        ],
        rows,
        Vec::new(),
    )
}

/// Every budget, the ones that failed first.
pub fn budgets(report: &Report) -> String {
    if report.budgets.is_empty() {
        return "<p class=\"note\">No budgets were set (webdiet.toml, --max-requests…, \
                --budgets FILE, --baseline).</p>"
            .into();
    }
    let mut sorted: Vec<&crate::report::model::BudgetResult> = report.budgets.iter().collect();
    sorted.sort_by_key(|b| (!b.fails_run(), b.passed));
    let rows = sorted
        .into_iter()
        .map(|b| {
            vec![
                Cell::long(&b.name),
                Cell::text(b.level.as_str()),
                Cell::number(b.limit, &format::number(b.limit)),
                match b.actual {
                    Some(actual) => Cell::number(actual, &format::number(actual)),
                    None => Cell::long(&format!(
                        "not measured: {}",
                        b.unmeasured.as_deref().unwrap_or("no figure")
                    )),
                },
                match (b.passed, b.fails_run()) {
                    (true, _) => Cell::text("pass").with_class("ok"),
                    (false, true) => Cell::text("FAIL").with_class("fail"),
                    (false, false) => Cell::text("over (warn)").with_class("warn"),
                },
                Cell::long(&b.source),
            ]
        })
        .collect();
    table(
        "budgets",
        &["Budget", "Level", "Limit", "Actual", "Result", "Set in"],
        rows,
        Vec::new(),
    )
}

/// The text files worth compressing, raw and deflated.
pub fn compression(report: &Report) -> Option<String> {
    let c = report.compression.as_ref()?;
    let est = c.rewritten.as_ref().unwrap_or(&c.original);
    let rows = est
        .files
        .iter()
        .map(|f| {
            vec![
                Cell::long(&f.path),
                Cell::count(f.sizes.raw),
                Cell::count(f.sizes.deflate6),
                Cell::signed(f.sizes.raw as i64 - f.sizes.deflate6 as i64),
                Cell::text(if f.worth_it { "yes" } else { "no" }),
            ]
        })
        .collect();
    Some(table(
        "compression-files",
        &["File", "Bytes", "Deflated (level 6)", "Saved", "Worth it"],
        rows,
        vec![vec![
            Cell::text(&format!("{} files", est.files.len())),
            Cell::count(est.totals.raw),
            Cell::count(est.totals.deflate6),
            Cell::signed(est.totals.raw as i64 - est.totals.deflate6 as i64),
            Cell::text(""),
        ]],
    ))
}

/// The lossless pass per kind: files seen and optimised, bytes before and after.
pub fn lossless(report: &Report) -> Option<String> {
    let l = report.lossless.as_ref().filter(|l| !l.totals.is_empty())?;
    let rows = l
        .totals
        .iter()
        .map(|(kind, t)| {
            vec![
                Cell::text(kind.as_str()),
                Cell::count(t.files as u64),
                Cell::count(t.optimized as u64),
                Cell::count(t.from_bytes),
                Cell::count(t.to_bytes),
                Cell::signed(t.from_bytes as i64 - t.to_bytes as i64),
            ]
        })
        .collect();
    Some(table(
        "lossless-kinds",
        &["Kind", "Files", "Optimized", "Before", "After", "Saved"],
        rows,
        vec![vec![
            Cell::text("all"),
            Cell::count(l.totals.values().map(|t| t.files as u64).sum()),
            Cell::count(l.totals.values().map(|t| t.optimized as u64).sum()),
            Cell::count(l.totals.values().map(|t| t.from_bytes).sum()),
            Cell::count(l.totals.values().map(|t| t.to_bytes).sum()),
            Cell::signed(
                l.totals
                    .values()
                    .map(|t| t.from_bytes as i64 - t.to_bytes as i64)
                    .sum(),
            ),
        ]],
    ))
}

/// Files of the rewritten site of 100 KB or more.
pub fn largest_files(report: &Report) -> Option<String> {
    let files = figures::oversized(report);
    if files.is_empty() {
        return None;
    }
    let rows = files
        .iter()
        .map(|(path, bytes)| vec![Cell::long(path), Cell::count(*bytes)])
        .collect();
    Some(table(
        "largest-files-table",
        &["File", "Bytes"],
        rows,
        Vec::new(),
    ))
}

pub fn problems(report: &Report) -> String {
    if report.problems.is_empty() {
        return "<p class=\"note\">No problems.</p>".into();
    }
    let rows = report
        .problems
        .iter()
        .map(|p| {
            vec![
                Cell::long(&p.path),
                Cell::text(&p.code),
                Cell::long(&p.message),
            ]
        })
        .collect();
    table("problems", &["Path", "Code", "Message"], rows, Vec::new())
}

/// Bytes per content type, before and after ([`figures::bytes_by_type`]).
pub fn by_type(types: &[TypeBytes]) -> String {
    let rows = types
        .iter()
        .map(|t| {
            vec![
                Cell::text(&t.kind),
                Cell::count(t.files as u64),
                Cell::count(t.before),
                Cell::count(t.after),
                Cell::signed(t.before as i64 - t.after as i64),
            ]
        })
        .collect();
    table(
        "by-type",
        &["Type", "Files", "Bytes before", "Bytes after", "Saved"],
        rows,
        Vec::new(),
    )
}
