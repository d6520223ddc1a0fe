//! The report as GitHub Markdown, ready to paste into a pull request: headline, where the savings
//! come from, the replay matrix, images, budgets.

use std::fmt::Write;

use super::figures::{self, row, Savings, TESTS};
use super::model::Report;
use super::thousands;
use crate::replay::{Mode, Test};

/// Image tables longer than this are folded into a `<details>` element.
const FOLD_IMAGES: usize = 20;

/// Renders the summary and the main tables.
pub fn render(report: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "## webdiet audit: {}\n", cell(&report.site.name));
    headline(&mut out, report);
    savings(&mut out, report);
    opportunities(&mut out, report);
    replay(&mut out, report);
    times(&mut out, report);
    sweeps(&mut out, report);
    out.push_str(&super::browser::markdown(report));
    tls_cost(&mut out, report);
    header_cost(&mut out, report);
    images(&mut out, report);
    markup(&mut out, report);
    budgets(&mut out, report);
    let _ = writeln!(
        out,
        "**Problems:** {}\n\n<sub>{} {}, report schema {}</sub>",
        report.problems.len(),
        cell(&report.tool.name),
        cell(&report.tool.version),
        report.schema_version
    );
    out
}

/// Escapes text for a table cell or a line: Markdown punctuation, HTML, pipes and newlines.
pub fn cell(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\n' | '\r' => out.push(' '),
            '\\' | '|' | '*' | '_' | '`' | '[' | ']' | '#' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

fn headline(out: &mut String, report: &Report) {
    if let Some(line) = super::summary::time_headline(report) {
        let _ = writeln!(out, "**Time:** {}\n", cell(&line));
    }
    match figures::headline(report) {
        Some(h) => {
            let _ = writeln!(
                out,
                "**First visit ({}):** {} → {} bytes ({}), {} → {} requests, {} → {} packets\n",
                h.mode,
                thousands(h.before.bytes),
                thousands(h.after.bytes),
                figures::reduction_text(h.before.bytes as f64, h.after.bytes as f64),
                h.before.requests,
                h.after.requests,
                thousands(h.before.packets),
                thousands(h.after.packets),
            );
        }
        None => {
            let t = &report.images_total;
            let _ = writeln!(
                out,
                "**Images:** {} → {} bytes ({}); no replay was run.\n",
                thousands(t.from_bytes),
                thousands(t.to_bytes),
                figures::reduction_text(t.from_bytes as f64, t.to_bytes as f64),
            );
        }
    }
}

fn savings(out: &mut String, report: &Report) {
    let Savings {
        images,
        markup,
        deflate,
    } = figures::savings(report);
    let _ = writeln!(out, "### Where the savings come from\n");
    let _ = writeln!(out, "| Source | Bytes saved | Detail |\n|---|---:|---|");
    let t = &report.images_total;
    let _ = writeln!(
        out,
        "| GIF → PNG | {} | {} GIFs, {} → {} bytes |",
        figures::signed(images),
        t.count,
        thousands(t.from_bytes),
        thousands(t.to_bytes)
    );
    if let Some(saved) = markup {
        let n = |key| figures::markup_number(report, key).map_or("—".into(), thousands);
        let deflated = report.markup.as_ref().map_or(String::new(), |m| {
            format!(
                "; deflated {} → {} bytes",
                thousands(m.html_deflated_before),
                thousands(m.html_deflated_after + m.css_deflated)
            )
        });
        let _ = writeln!(
            out,
            "| markup → CSS | {} | HTML {} → {} bytes, style sheet {} bytes{deflated} |",
            figures::signed(saved),
            n("html_bytes_before"),
            n("html_bytes_after"),
            n("css_bytes")
        );
    }
    if let (Some(saved), Some(c)) = (deflate, &report.compression) {
        let e = c.rewritten.as_ref().unwrap_or(&c.original);
        let _ = writeln!(
            out,
            "| deflate (level 6; only in pipelined-deflate, not in the headline) | {} | text {} → {} bytes; rule: {} |",
            figures::signed(saved),
            thousands(e.totals.raw),
            thousands(e.totals.deflate6),
            cell(&c.rule)
        );
    }
    if let Some(l) = &report.lossless {
        for (kind, t) in &l.totals {
            let _ = writeln!(
                out,
                "| {} (lossless) | {} | {} of {} files optimized, {} → {} bytes |",
                kind.as_str(),
                figures::signed(t.from_bytes as i64 - t.to_bytes as i64),
                t.optimized,
                t.files,
                thousands(t.from_bytes),
                thousands(t.to_bytes)
            );
        }
    }
    if let Some(c) = report
        .compression
        .as_ref()
        .filter(|c| c.original.totals.brotli11 > 0)
    {
        let e = c.rewritten.as_ref().unwrap_or(&c.original);
        let _ = writeln!(out, "\n{}", upper_first(&e.totals.codings_line()));
    }
    if let Some(line) = figures::text_images_line(report) {
        let _ = writeln!(out, "\n{}", upper_first(&line));
    }
    let _ = writeln!(out);
}

fn opportunities(out: &mut String, report: &Report) {
    if report.opportunities.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "### Opportunities\n\nRanked by packets, then bytes, a first visit saves. *done*: the \
         rewrite did it; *reported*: a person must.\n\n\
         | Opportunity | Status | Bytes | Requests | Packets | Files | Basis |\n\
         |---|---|---:|---:|---:|---|---|"
    );
    let n = |v: Option<i64>| v.map_or("—".to_string(), figures::signed);
    for o in &report.opportunities {
        let files = match o.files.len() {
            0 => "—".to_string(),
            1..=3 => o
                .files
                .iter()
                .map(|f| cell(f))
                .collect::<Vec<_>>()
                .join(", "),
            k => format!("{}, … ({k} files)", cell(&o.files[0])),
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {files} | {} |",
            cell(&o.title),
            o.status,
            n(o.bytes),
            n(o.requests),
            n(o.packets),
            cell(&o.basis)
        );
    }
    let _ = writeln!(out);
}

fn replay(out: &mut String, report: &Report) {
    let _ = writeln!(out, "### Replay\n");
    if report.replay.is_empty() {
        let _ = writeln!(out, "No replay was run.\n");
        return;
    }
    if let Some(r) = report.replay.first() {
        let _ = writeln!(
            out,
            "Page {}, MSS {}, method {}. Packets by the paper's rules are the same on every \
             run; the kernel's count is the median of {} run(s) with its range (\"no measurable \
             change\" when the two ranges overlap).\n",
            cell(&r.page),
            r.mss,
            cell(&r.method),
            r.runs
        );
    }
    let _ = writeln!(
        out,
        "| Mode | Test | Packets original | Packets rewritten | Δ packets | Kernel original | Kernel rewritten | Δ kernel | Bytes original | Bytes rewritten | Δ bytes |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    for mode in figures::modes(report) {
        for test in TESTS {
            let before = row(report, "original", mode, test);
            let after = row(report, "rewritten", mode, test);
            if before.is_none() && after.is_none() {
                continue;
            }
            let num = |r: Option<&crate::replay::ReplayRow>,
                       f: fn(&crate::replay::ReplayRow) -> u64| {
                r.map_or("—".into(), |r| thousands(f(r)))
            };
            let delta = |f: fn(&crate::replay::ReplayRow) -> u64| match (before, after) {
                (Some(b), Some(a)) => figures::reduction_text(f(b) as f64, f(a) as f64),
                _ => "—".into(),
            };
            let packets = |r: &crate::replay::ReplayRow| r.packets;
            let bytes = |r: &crate::replay::ReplayRow| r.bytes_up + r.bytes_down;
            let kernel = |r: Option<&crate::replay::ReplayRow>| {
                r.map_or("—".into(), |r| figures::spread_text(&r.kernel.packets, 0))
            };
            let kernel_delta = match (before, after) {
                (Some(b), Some(a)) => {
                    figures::measured_reduction_text(&b.kernel.packets, &a.kernel.packets)
                }
                _ => "—".into(),
            };
            let _ = writeln!(
                out,
                "| {} | {test} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                cell(mode.as_str()),
                num(before, packets),
                num(after, packets),
                delta(packets),
                kernel(before),
                kernel(after),
                kernel_delta,
                num(before, bytes),
                num(after, bytes),
                delta(bytes),
            );
        }
    }
    let _ = writeln!(out);
}

/// A time table per link: the paper's time, the first byte and the page complete, original
/// and rewritten, medians with their ranges.
fn times(out: &mut String, report: &Report) {
    use crate::replay::ReplayRow;
    for link in super::replay::links(&report.replay) {
        let on = |site: &str, mode: Mode, test: Test| {
            report
                .replay
                .iter()
                .find(|r| r.link.name == link && r.site == site && r.mode == mode && r.test == test)
        };
        let runs = report
            .replay
            .iter()
            .find(|r| r.link.name == link)
            .map_or(0, |r| r.runs);
        let _ = writeln!(
            out,
            "### Time over {}\n\nFrom the first SYN, median (range) of {runs} run(s): the paper's \
             time (to the last counted packet), the page's first byte, the page complete.\n\n\
             | Mode | Test | Paper's time original | rewritten | Δ | First byte original | rewritten | Complete original | rewritten |\n\
             |---|---|---:|---:|---:|---:|---:|---:|---:|",
            cell(link)
        );
        for mode in figures::modes(report) {
            for test in TESTS {
                let (b, a) = (on("original", mode, test), on("rewritten", mode, test));
                if b.is_none() && a.is_none() {
                    continue;
                }
                let paper = |r: Option<&ReplayRow>| {
                    r.map_or("—".into(), |r| {
                        cell(&super::replay::time_cell(r, &r.time.last_packet_ms))
                    })
                };
                let ms = |r: Option<&ReplayRow>, f: fn(&ReplayRow) -> f64| {
                    r.map_or("—".into(), |r| super::replay::format_ms(f(r)))
                };
                let delta = match (b, a) {
                    (Some(b), Some(a)) => super::summary::measured_change(
                        &b.time.last_packet_ms,
                        &a.time.last_packet_ms,
                    ),
                    _ => "—".into(),
                };
                let first: fn(&ReplayRow) -> f64 = |r| r.time.first_byte_ms.median;
                let complete: fn(&ReplayRow) -> f64 = |r| r.time.complete_ms.median;
                let _ = writeln!(
                    out,
                    "| {} | {test} | {} | {} | {delta} | {} | {} | {} | {} |",
                    cell(mode.as_str()),
                    paper(b),
                    paper(a),
                    ms(b, first),
                    ms(a, first),
                    ms(b, complete),
                    ms(a, complete),
                );
            }
        }
        if let Some(line) = figures::rewrite_by_protocol(report, link) {
            let _ = writeln!(out, "\n{}.", cell(&line));
        }
        let _ = writeln!(out);
    }
}

/// Every sweep as a table: a line per point, a column per mode.
fn sweeps(out: &mut String, report: &Report) {
    use super::sweeps::{curve, modes, sites, sweeps};
    for sweep in sweeps(&report.replay) {
        let modes = modes(&report.replay, &sweep);
        for site in sites(&report.replay) {
            let _ = writeln!(
                out,
                "### Sweep: {} ({site} site)\n\nFirst visit, page complete, median over the \
                 runs at each point.\n",
                cell(&sweep.title())
            );
            let _ = writeln!(
                out,
                "| {} | {} |\n|---:|{}",
                sweep.key.axis(),
                modes
                    .iter()
                    .map(|m| cell(m.as_str()))
                    .collect::<Vec<_>>()
                    .join(" | "),
                "---:|".repeat(modes.len())
            );
            let curves: Vec<Vec<Option<f64>>> = modes
                .iter()
                .map(|m| curve(&report.replay, &sweep, site, *m))
                .collect();
            for (p, (value, _)) in sweep.points.iter().enumerate() {
                let cells: Vec<String> = curves
                    .iter()
                    .map(|c| c[p].map_or("—".to_string(), super::replay::format_ms))
                    .collect();
                let _ = writeln!(out, "| {value} | {} |", cells.join(" | "));
            }
            let _ = writeln!(out);
        }
    }
}

/// What TLS costs: each mode over TLS against the same mode in cleartext.
fn tls_cost(out: &mut String, report: &Report) {
    let Some(first) = report.tls_cost.first() else {
        return;
    };
    let _ = writeln!(
        out,
        "### What TLS costs\n\n{}; each mode over TLS against the same mode in cleartext on the \
         same link, packets by the paper's rules, page complete as a median over the runs.\n\n\
         | Link | Site | Mode | Test | Δ page complete | Δ packets | Δ bytes | Handshakes (full + resumed) | Handshake packets | Handshake bytes | Round trips |\n\
         |---|---|---|---|---:|---:|---:|---:|---:|---:|---:|",
        cell(&first.tls)
    );
    for c in &report.tls_cost {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} ({:+.0}%) | {} ({:+.1}%) | {} ({:+.1}%) | {} + {} | {} | {} | {} |",
            cell(&c.link),
            cell(&c.site),
            cell(c.mode.as_str()),
            cell(c.test.as_str()),
            super::tls::plus_time(c.complete_ms),
            c.complete_pct,
            super::tls::plus(c.packets),
            c.packets_pct,
            super::tls::plus(c.bytes),
            c.bytes_pct,
            c.full_handshakes,
            c.resumed_handshakes,
            thousands(c.handshake_packets),
            thousands(c.handshake_bytes),
            c.handshake_round_trips
        );
    }
    if let Some(line) = super::tls::headline(&report.tls_cost, "original") {
        let _ = writeln!(out, "\n{line}.");
    }
    let _ = writeln!(out);
}

/// Header bytes: HTTP/1.1 against HTTP/2 with HPACK, per header set, beside SPDY's figures.
fn header_cost(out: &mut String, report: &Report) {
    let Some([http1_mode, h2_mode]) = super::headers::modes() else {
        return;
    };
    if report.header_cost.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "### Header bytes, HTTP/1.1 against HTTP/2\n\nMean header bytes per message, `{http1_mode}` \
         against `{h2_mode}` (HPACK), for both request header sets; {}. The set marked * is \
         the one of the other figures.\n\n\
         | Site | Test | Header set | Request, HTTP/1.1 | Request, HTTP/2 | Saved | Response, HTTP/1.1 | Response, HTTP/2 | Saved |\n\
         |---|---|---|---:|---:|---:|---:|---:|---:|",
        super::headers::spdy_note()
    );
    for c in &report.header_cost {
        let _ = writeln!(
            out,
            "| {} | {} | {}{} | {:.0} B | {:.0} B | {:.0}% | {:.0} B | {:.0} B | {:.0}% |",
            cell(&c.site),
            cell(c.test.as_str()),
            cell(&c.header_set),
            if c.headline { " *" } else { "" },
            c.http1_request_bytes,
            c.h2_request_bytes,
            c.request_reduction_pct,
            c.http1_response_bytes,
            c.h2_response_bytes,
            c.response_reduction_pct
        );
    }
    let _ = writeln!(out);
}

fn images(out: &mut String, report: &Report) {
    let _ = writeln!(out, "### Images\n");
    if report.images.is_empty() {
        let _ = writeln!(out, "No GIFs.\n");
        return;
    }
    // A long table folds away so that the pull request stays readable.
    let fold = report.images.len() > FOLD_IMAGES;
    if fold {
        let _ = writeln!(
            out,
            "<details><summary>{} GIFs</summary>\n",
            report.images.len()
        );
    }
    let _ = writeln!(
        out,
        "| File | Before | After | Saved | Format | Effort | CPU ms | Outcome | Reason |\n\
         |---|---:|---:|---:|---|---|---:|---|---|"
    );
    for i in &report.images {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {:.0} | {} | {} |",
            cell(&i.path),
            thousands(i.from_bytes),
            thousands(i.to_bytes),
            figures::signed(i.from_bytes as i64 - i.to_bytes as i64),
            i.format,
            i.effort,
            i.cpu_millis,
            i.outcome.code(),
            cell(&i.reason)
        );
    }
    let t = &report.images_total;
    let _ = writeln!(
        out,
        "| **{} GIFs** | **{}** | **{}** | **{}** | | | **{:.0}** | | |\n",
        t.count,
        thousands(t.from_bytes),
        thousands(t.to_bytes),
        figures::signed(t.from_bytes as i64 - t.to_bytes as i64),
        t.cpu_millis
    );
    let _ = writeln!(out, "{}\n", figures::images_cost_line(report));
    if fold {
        let _ = writeln!(out, "</details>\n");
    }
}

/// Presentational constructs before and after, and why some were left.
fn markup(out: &mut String, report: &Report) {
    let Some(m) = &report.markup else {
        return;
    };
    if m.constructs_before.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "### Presentational markup ({})

{}

| Construct | Before | After |
|---|---:|---:|",
        figures::css_choice(m),
        cell(&m.css_mode_reason)
    );
    for (name, before) in &m.constructs_before {
        let after = m.constructs_after.get(name).copied().unwrap_or(0);
        let _ = writeln!(out, "| {} | {before} | {after} |", cell(name));
    }
    if !m.left_as_is.is_empty() {
        let reasons: Vec<String> = m
            .left_as_is
            .iter()
            .map(|(r, n)| format!("{} × {n}", cell(r)))
            .collect();
        let _ = writeln!(
            out,
            "
Left as they were: {}.",
            reasons.join(", ")
        );
    }
    if !m.pages_kept.is_empty() {
        let _ = writeln!(out, "\n{}.", cell(&figures::pages_kept(m)));
    }
    let _ = writeln!(out);
}

fn budgets(out: &mut String, report: &Report) {
    if report.budgets.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "### Budgets\n\n| Budget | Limit | Actual | Result |\n|---|---:|---:|---|"
    );
    for b in &report.budgets {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            cell(&b.name),
            number(b.limit),
            b.actual.map_or_else(
                || format!(
                    "not measured: {}",
                    b.unmeasured.as_deref().unwrap_or("no figure")
                ),
                number
            ),
            if b.passed { "pass" } else { "**FAIL**" }
        );
    }
    let _ = writeln!(out);
}

/// Whole numbers with separators, others with two decimals.
pub(crate) fn number(x: f64) -> String {
    if x.fract() == 0.0 && x.is_finite() && x.abs() < 1e15 {
        figures::signed(x as i64)
    } else {
        format!("{x:.2}")
    }
}

/// `text` with its first letter in upper case.
fn upper_first(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headline_comes_from_the_pipelined_first_visit() {
        let md = render(&figures::sample());
        assert!(
            md.contains("**First visit (pipelined):** 200,000 → 150,000 bytes (-25.0%)"),
            "{md}"
        );
        assert!(md.contains("10 → 10 requests, 160 → 120 packets"));
    }

    #[test]
    fn savings_name_their_sources() {
        let md = render(&figures::sample());
        assert!(
            md.contains("| GIF → PNG | 3,000 | 2 GIFs, 12,300 → 9,300 bytes |"),
            "{md}"
        );
        assert!(md.contains(
            "| markup → CSS | 8,000 | HTML 40,000 → 30,000 bytes, style sheet 2,000 bytes; deflated"
        ));
        assert!(md.contains(
            "| deflate (level 6; only in pipelined-deflate, not in the headline) | 23,000 |"
        ));
    }

    #[test]
    fn presentational_constructs_are_listed_before_and_after_with_the_reasons_left() {
        let md = render(&figures::sample());
        assert!(
            md.contains("### Presentational markup (site-sheet)"),
            "{md}"
        );
        assert!(md.contains("| font | 300 | 0 |"), "{md}");
        assert!(md.contains("| spacer-gif | 4 | 1 |"), "{md}");
        assert!(
            md.contains("Left as they were: spacer-alt-text × 1."),
            "{md}"
        );
    }

    #[test]
    fn a_measured_change_inside_the_noise_is_no_measurable_change() {
        let mut report = figures::sample();
        for row in &mut report.replay {
            // Both versions' kernel counts spread over the same range.
            row.kernel.packets = crate::replay::Spread::of([100.0, 130.0, 160.0]);
        }
        let md = render(&report);
        assert!(
            md.contains("| http10 | first | 160 | 120 | -25.0% | 130 (100–160) | 130 (100–160) | no measurable change |"),
            "{md}"
        );
    }

    #[test]
    fn replay_matrix_has_a_row_per_mode_and_test() {
        let md = render(&figures::sample());
        assert!(
            md.contains(
                "| http10 | first | 160 | 120 | -25.0% | 161 (160–162) | 121 (120–122) | -24.8% \
                 | 200,000 | 150,000 | -25.0% |"
            ),
            "{md}"
        );
        assert!(md.contains("| pipelined | validate | 40 | 30 |"));
        assert!(
            !md.contains("| persistent |"),
            "modes without rows are left out"
        );
    }

    #[test]
    fn paths_cannot_break_tables_or_inject_html() {
        let md = render(&figures::sample());
        assert!(
            md.contains(
                "| img/&lt;b&gt;&amp;\"q\".gif | 300 | 300 | 0 | gif | default | 1 | kept:png-larger |"
            ),
            "{md}"
        );
        assert_eq!(cell("a|b\nc_d"), "a\\|b c\\_d");
    }

    #[test]
    fn budgets_say_pass_or_fail() {
        let md = render(&figures::sample());
        assert!(
            md.contains("| max-first-visit-bytes | 100,000 | 150,000 | **FAIL** |"),
            "{md}"
        );
        assert!(md.contains("| max-packets(pipelined, first) | 200 | 120 | pass |"));
        assert!(md.contains("**Problems:** 1"));
    }

    #[test]
    fn long_image_tables_fold_away() {
        let mut report = figures::sample();
        assert!(!render(&report).contains("<details>"));
        let row = report.images[0].clone();
        report.images = vec![row; FOLD_IMAGES + 1];
        let md = render(&report);
        assert!(
            md.contains("<details><summary>21 GIFs</summary>\n\n| File |"),
            "{md}"
        );
        assert!(md.contains("</details>"));
    }

    #[test]
    fn an_empty_report_still_renders() {
        let md = render(&Report::default());
        assert!(md.contains("no replay was run"), "{md}");
        assert!(md.contains("No GIFs."));
        assert!(!md.contains("### Budgets"));
        assert!(!md.contains("markup → CSS"));
    }
}
