//! The Markdown report's evidence, after the verdict, the saving and the opportunities:
//! where the savings come from, the replay matrix, the times per link, sweeps, Chromium's
//! visits, what TLS and header compression cost, compression, images, markup, images of text,
//! the largest files. Each section's heading is the anchor an opportunity's evidence names.

use std::fmt::Write;

use super::escape::{cell, upper_first};
use crate::replay::{Mode, Test};
use crate::report::format::{self, thousands};
use crate::report::model::figures::{self, row, Savings, TESTS};
use crate::report::model::headers as header_model;
use crate::report::model::sweeps::{curve, modes as sweep_modes, sweeps as find_sweeps};
use crate::report::model::{browser, Report};
use crate::report::phrases;

/// Image tables longer than this are folded into a `<details>` element.
pub const FOLD_ROWS: usize = 20;

/// Every evidence section, in order.
pub fn render(out: &mut String, report: &Report) {
    savings(out, report);
    replay(out, report);
    times(out, report);
    sweeps(out, report);
    chromium(out, report);
    tls_cost(out, report);
    header_cost(out, report);
    compression(out, report);
    images(out, report);
    markup(out, report);
    text_images(out, report);
    largest_files(out, report);
}

/// Where the bytes saved come from, by stage.
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
        format::signed(images),
        t.count,
        thousands(t.from_bytes),
        thousands(t.to_bytes)
    );
    if let Some(saved) = markup {
        if let Some(m) = &report.markup {
            let _ = writeln!(
                out,
                "| markup → CSS | {} | HTML {} → {} bytes, style sheet {} bytes; deflated {} → {} \
                 bytes |",
                format::signed(saved),
                thousands(m.html_bytes_before),
                thousands(m.html_bytes_after),
                thousands(m.css_bytes),
                thousands(m.html_deflated_before),
                thousands(m.html_deflated_after + m.css_deflated)
            );
        }
    }
    if let (Some(saved), Some(c)) = (deflate, &report.compression) {
        let e = c.rewritten.as_ref().unwrap_or(&c.original);
        let _ = writeln!(
            out,
            "| deflate (level 6; only in pipelined-deflate, not in the headline) | {} | text {} → {} bytes; rule: {} |",
            format::signed(saved),
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
                format::signed(t.from_bytes as i64 - t.to_bytes as i64),
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
        let _ = writeln!(out, "\n{}", upper_first(&e.codings_line()));
    }
    if let Some(line) = phrases::text_images_line(report) {
        let _ = writeln!(out, "\n{}", upper_first(&line));
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
                (Some(b), Some(a)) => format::change(f(b) as f64, f(a) as f64),
                _ => "—".into(),
            };
            let packets = |r: &crate::replay::ReplayRow| r.packets;
            let bytes = |r: &crate::replay::ReplayRow| r.bytes_up + r.bytes_down;
            let kernel = |r: Option<&crate::replay::ReplayRow>| {
                r.map_or("—".into(), |r| format::spread(&r.kernel.packets, 0))
            };
            let kernel_delta = match (before, after) {
                (Some(b), Some(a)) => format::measured_change(&b.kernel.packets, &a.kernel.packets),
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

/// Per link with time: the simulated times (the paper's time, the first byte and the page
/// complete, original and rewritten); where the link was measured too, the measured medians
/// with their ranges and the simulation's error against them.
fn times(out: &mut String, report: &Report) {
    use crate::replay::ReplayRow;
    for link in figures::time_links(report) {
        let on = |site: &str, mode: Mode, test: Test| {
            report
                .replay
                .iter()
                .find(|r| r.link.name == link && r.site == site && r.mode == mode && r.test == test)
        };
        if let Some(sim) = phrases::simulated_on(report, link) {
            let _ = writeln!(
                out,
                "### Time on {}, simulated\n\nFrom the first SYN, simulated ({}; the same on any \
                 machine, docs/simulation.md): the paper's time (to the last byte read), the \
                 page's first byte, the page complete.\n\n\
                 | Mode | Test | Paper's time original | rewritten | Δ | First byte original | rewritten | Complete original | rewritten |\n\
                 |---|---|---:|---:|---:|---:|---:|---:|---:|",
                cell(link),
                phrases::simulation_model(sim)
            );
            for mode in figures::modes(report) {
                for test in TESTS {
                    let (b, a) = (on("original", mode, test), on("rewritten", mode, test));
                    let (Some(sb), Some(sa)) = (
                        b.and_then(|r| r.simulated_time.as_ref()),
                        a.and_then(|r| r.simulated_time.as_ref()),
                    ) else {
                        continue;
                    };
                    let (Some(b), Some(a)) = (b, a) else {
                        continue;
                    };
                    let ms = |s: &crate::replay::Spread| format::ms(s.median);
                    let _ = writeln!(
                        out,
                        "| {} | {test} | {} | {} | {} | {} | {} | {} | {} |",
                        cell(mode.as_str()),
                        ms(&sb.last_packet_ms),
                        ms(&sa.last_packet_ms),
                        phrases::simulated_change(b, a),
                        ms(&sb.first_byte_ms),
                        ms(&sa.first_byte_ms),
                        ms(&sb.complete_ms),
                        ms(&sa.complete_ms),
                    );
                }
            }
            if let Some(line) = phrases::rewrite_by_protocol(report, link) {
                let _ = writeln!(out, "\n{}.", cell(&line));
            }
            let _ = writeln!(out);
        }
        if !figures::measured_on(report, link) {
            continue;
        }
        let runs = report
            .replay
            .iter()
            .filter(|r| r.link.name == link && r.measured())
            .map(|r| r.runs)
            .max()
            .unwrap_or(0);
        let _ = writeln!(
            out,
            "### Time over {}, measured\n\nOver the emulated link, from the first SYN, median \
             (range) of up to {runs} run(s): the paper's time (to the last counted packet), the \
             page's first byte, the page complete. Δ is a change only where the 90% confidence \
             intervals of the medians are apart.\n\n\
             | Mode | Test | Paper's time original | rewritten | Δ | First byte original | rewritten | Complete original | rewritten |\n\
             |---|---|---:|---:|---:|---:|---:|---:|---:|",
            cell(link)
        );
        for mode in figures::modes(report) {
            for test in TESTS {
                let measured = |site| on(site, mode, test).filter(|r| r.measured());
                let (b, a) = (measured("original"), measured("rewritten"));
                if b.is_none() && a.is_none() {
                    continue;
                }
                let paper = |r: Option<&ReplayRow>| {
                    r.map_or("—".into(), |r| {
                        cell(&format::time_spread(
                            &r.time.last_packet_ms,
                            r.timed_out_runs,
                            r.runs,
                        ))
                    })
                };
                let ms = |r: Option<&ReplayRow>, f: fn(&ReplayRow) -> f64| {
                    r.map_or("—".into(), |r| format::ms(f(r)))
                };
                let delta = match (b, a) {
                    (Some(b), Some(a)) => cell(&phrases::measured_time_change(b, a)),
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
        if phrases::simulated_on(report, link).is_none() {
            if let Some(line) = phrases::rewrite_by_protocol(report, link) {
                let _ = writeln!(out, "\n{}.", cell(&line));
            }
        }
        if let Some(v) = phrases::validation_on(report, link) {
            let _ = writeln!(out, "\n{}.", cell(&v));
        }
        let _ = writeln!(out);
    }
    if let Some(warning) = phrases::load_warning(report) {
        let _ = writeln!(out, "**Warning:** {}.\n", cell(&warning));
    }
}

/// Every sweep as a table: a line per point, a column per mode.
fn sweeps(out: &mut String, report: &Report) {
    for sweep in find_sweeps(&report.replay) {
        let modes = sweep_modes(&report.replay, &sweep);
        for site in figures::sites(&report.replay) {
            let _ = writeln!(
                out,
                "### Sweep: {} ({site} site)\n\nFirst visit, page complete, simulated (or \
                 the median over the runs) at each point.\n",
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
                    .map(|c| c[p].map_or("—".to_string(), format::ms))
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
         same link, packets by the paper's rules, page complete simulated where the link was, else \
         as a median over the runs.\n\n\
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
            format::plus_ms(c.complete_ms),
            c.complete_pct,
            format::plus(c.packets),
            c.packets_pct,
            format::plus(c.bytes),
            c.bytes_pct,
            c.full_handshakes,
            c.resumed_handshakes,
            thousands(c.handshake_packets),
            thousands(c.handshake_bytes),
            c.handshake_round_trips
        );
    }
    if let Some(line) = phrases::tls_headline(&report.tls_cost, "original") {
        let _ = writeln!(out, "\n{line}.");
    }
    let _ = writeln!(out);
}

/// Header bytes: HTTP/1.1 against HTTP/2 with HPACK, per header set, beside SPDY's figures.
fn header_cost(out: &mut String, report: &Report) {
    let Some([http1_mode, h2_mode]) = header_model::modes() else {
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
        phrases::spdy_note()
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
    let fold = report.images.len() > FOLD_ROWS;
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
            format::signed(i.from_bytes as i64 - i.to_bytes as i64),
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
        format::signed(t.from_bytes as i64 - t.to_bytes as i64),
        t.cpu_millis
    );
    let _ = writeln!(out, "{}\n", phrases::images_cost_line(report));
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
        "### Presentational markup\n\nCSS: {}. {}\n\n| Construct | Before | After |\n|---|---:|---:|",
        phrases::css_choice(m),
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
        let _ = writeln!(out, "\nLeft as they were: {}.", reasons.join(", "));
    }
    if !m.pages_kept.is_empty() {
        let _ = writeln!(out, "\n{}.", cell(&phrases::pages_kept(m)));
    }
    let _ = writeln!(out);
}

/// The Markdown section: metrics per link and site, and webdiet's client beside the browser.
fn chromium(out: &mut String, report: &Report) {
    if report.browser.is_empty() && report.browser_unavailable.is_none() {
        return;
    }
    out.push_str("### Chromium over the emulated links\n\n");
    if let Some(why) = &report.browser_unavailable {
        let _ = writeln!(out, "Not run: {}\n", cell(why));
    }
    if let Some(h) = phrases::browser_headline(report) {
        let _ = writeln!(out, "**{h}**\n");
    }
    for link in browser::links(report) {
        let _ = writeln!(
            out,
            "#### {}\n\nMedian over the runs, ms from the navigation's start; packets and bytes \
             counted on the link.\n\n| site | mode | test | protocol | requests (304) | conn | \
             TTFB | FCP | LCP | DCL | load | complete | packets | bytes |\n|---|---|---|---|---:|\
             ---:|---:|---:|---:|---:|---:|---:|---:|---:|",
            cell(link)
        );
        for r in report.browser.iter().filter(|r| r.link.name == link) {
            let cells: Vec<String> = browser::metrics(r)
                .iter()
                .map(|(_, s)| phrases::metric(*s))
                .collect();
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} ({}) | {} | {} | {} | {} |",
                r.site,
                r.mode,
                r.test,
                cell(&r.protocol),
                r.requests,
                r.not_modified,
                r.connections.median,
                cells.join(" | "),
                r.packets.median,
                thousands((r.bytes_up.median + r.bytes_down.median) as u64)
            );
        }
        let notes: Vec<String> = report
            .browser
            .iter()
            .filter(|r| r.link.name == link)
            .flat_map(|r| r.notes.iter().cloned())
            .collect();
        for n in notes {
            let _ = writeln!(out, "\n- {}", cell(&n));
        }
        let beside = phrases::beside_lines(report, link);
        if !beside.is_empty() {
            out.push_str(
                "\nwebdiet's client beside Chromium (original site; page complete from the \
                 first SYN, packets):\n\n```\n",
            );
            for l in beside {
                let _ = writeln!(out, "{l}");
            }
            out.push_str("```\n");
        }
    }
    out.push('\n');
}

/// The text files and what deflate would make of them: the evidence of `enable-deflate`.
fn compression(out: &mut String, report: &Report) {
    let Some(c) = &report.compression else {
        return;
    };
    let est = c.rewritten.as_ref().unwrap_or(&c.original);
    let _ = writeln!(
        out,
        "### Compression\n\nThe text files of the rewritten site at deflate level 6; worth \
         compressing when it {}.\n",
        cell(&c.rule)
    );
    let worth = est.files.iter().filter(|f| f.worth_it).count();
    let fold = worth > FOLD_ROWS;
    if fold {
        let _ = writeln!(out, "<details><summary>{worth} files</summary>\n");
    }
    let _ = writeln!(
        out,
        "| File | Bytes | Deflated | Saved | Worth it |\n|---|---:|---:|---:|---|"
    );
    for f in est.files.iter().filter(|f| f.worth_it) {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | yes |",
            cell(&f.path),
            thousands(f.sizes.raw),
            thousands(f.sizes.deflate6),
            format::signed(f.sizes.raw as i64 - f.sizes.deflate6 as i64)
        );
    }
    let _ = writeln!(
        out,
        "| **{} files** | **{}** | **{}** | **{}** | {} worth it |\n",
        est.files.len(),
        thousands(est.totals.raw),
        thousands(est.totals.deflate6),
        format::signed(est.totals.raw as i64 - est.totals.deflate6 as i64),
        worth
    );
    if fold {
        let _ = writeln!(out, "</details>\n");
    }
}

/// Images that look like text, one row per file: the evidence of `images-of-text`.
fn text_images(out: &mut String, report: &Report) {
    let Some(m) = &report.markup else {
        return;
    };
    if m.text_images.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "### Text drawn as images\n\n{}.\n\n| File | Alt text | Size | Bytes | Pages |\n\
         |---|---|---:|---:|---|",
        cell(&upper_first(
            &phrases::text_images_line(report).unwrap_or_default()
        ))
    );
    let mut files: std::collections::BTreeMap<
        &str,
        (&crate::rewrite::markup::TextImageRow, Vec<&str>),
    > = std::collections::BTreeMap::new();
    for t in &m.text_images {
        files
            .entry(t.file.as_str())
            .or_insert((t, Vec::new()))
            .1
            .push(&t.page);
    }
    for (file, (t, pages)) in files {
        let _ = writeln!(
            out,
            "| {} | {} | {}×{} | {} | {} |",
            cell(file),
            cell(&t.alt),
            t.width,
            t.height,
            thousands(t.bytes),
            cell(&pages.join(", "))
        );
    }
    let _ = writeln!(out);
}

/// Files of 100 KB or more: the evidence of `oversized`.
fn largest_files(out: &mut String, report: &Report) {
    let files = figures::oversized(report);
    if files.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "### Largest files\n\nFiles of the rewritten site of {} bytes or more.\n\n\
         | File | Bytes |\n|---|---:|",
        thousands(figures::OVERSIZED_BYTES)
    );
    for (path, bytes) in files {
        let _ = writeln!(out, "| {} | {} |", cell(&path), thousands(bytes));
    }
    let _ = writeln!(out);
}
