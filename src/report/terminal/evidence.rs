//! `audit --verbose` on the terminal: the evidence after the summary — where the bytes saved
//! come from, the packet matrix, the time tables per link, sweeps, Chromium's visits, what TLS
//! and header compression cost. The `replay` command's tables reuse the blocks that read rows
//! only.

use std::fmt::Write;

use crate::image::Outcome;
use crate::replay::{BrowserRow, Mode, ReplayRow, Test};
use crate::report::format::{self, thousands};
use crate::report::model::figures::{self, row, row_on};
use crate::report::model::headers::{self as header_model, HeaderCost};
use crate::report::model::sweeps::{curve, modes as sweep_modes, sweeps as find_sweeps};
use crate::report::model::tls::{links as tls_links, TlsCost};
use crate::report::model::{browser, Report};
use crate::report::phrases;

/// Where the bytes saved come from: the images, the markup, the text images, deflate.
pub fn sources(report: &Report) -> String {
    let mut s = String::new();
    let t = &report.images_total;
    let converted = t.by_outcome.get(&Outcome::Converted).copied().unwrap_or(0);
    let _ = writeln!(
        s,
        "  GIF → {}: {} → {} bytes ({}), {converted} of {} converted",
        figures::image_targets(report),
        thousands(t.from_bytes),
        thousands(t.to_bytes),
        format::change(t.from_bytes as f64, t.to_bytes as f64),
        t.count
    );
    match &report.markup {
        Some(m) => {
            let _ = writeln!(s, "  {}", phrases::markup_line(m));
        }
        None => {
            let _ = writeln!(s, "  markup → CSS: not run");
        }
    }
    for line in report.lossless.iter().flat_map(|l| l.lines()) {
        let _ = writeln!(s, "  {line}");
    }
    if let Some(line) = phrases::text_images_line(report) {
        let _ = writeln!(s, "  {line}");
    }
    if let Some(c) = &report.compression {
        let est = c.rewritten.as_ref().unwrap_or(&c.original);
        let _ = writeln!(
            s,
            "  deflate (level 6) on {} text file{}: {} → {} bytes ({}); worth it for {}",
            est.files.len(),
            if est.files.len() == 1 { "" } else { "s" },
            thousands(est.totals.raw),
            thousands(est.totals.deflate6),
            format::change(est.totals.raw as f64, est.totals.deflate6 as f64),
            est.files.len() - est.not_worth_it.len()
        );
        if est.totals.brotli11 > 0 {
            let _ = writeln!(s, "  {}", est.codings_line());
        }
    }
    s
}

/// The replay matrix: per mode, the packets by the paper's rules and the kernel's count with
/// its noise, first visit and validation.
pub fn matrix(report: &Report) -> String {
    let mut s = String::new();
    // The replay matrix: the deterministic packets, and the kernel's count with its noise.
    if !report.replay.is_empty() {
        let runs = report.replay[0].runs;
        let _ = writeln!(s);
        let _ = writeln!(
            s,
            "  packets by the paper's rules (the same on every run); kernel count: median of {runs} \
             run{} — {}",
            if runs == 1 { "" } else { "s" },
            report.replay_method.as_deref().unwrap_or("")
        );
        let _ = writeln!(
            s,
            "  {:<23} {:>30}   {:>30}",
            "mode", "first visit: original → rewritten", "validation: original → rewritten"
        );
        for mode in figures::modes(report) {
            let pair = |test: Test| {
                Some((
                    row(report, "original", mode, test)?,
                    row(report, "rewritten", mode, test)?,
                ))
            };
            let cell = |test: Test| match pair(test) {
                Some((o, r)) => format!(
                    "{:>5} → {:>5} ({:>6})",
                    o.packets,
                    r.packets,
                    format::change(o.packets as f64, r.packets as f64)
                ),
                None => "-".to_string(),
            };
            let kernel = |test: Test| match pair(test) {
                Some((o, r)) => format!(
                    "{:>5} → {:>5} ({})",
                    o.kernel.packets.median,
                    r.kernel.packets.median,
                    format::measured_change(&o.kernel.packets, &r.kernel.packets)
                ),
                None => "-".to_string(),
            };
            if pair(Test::First).is_none() && pair(Test::Validate).is_none() {
                continue;
            }
            let _ = writeln!(
                s,
                "  {mode:<23} {:>30}   {:>30}",
                cell(Test::First),
                cell(Test::Validate)
            );
            let _ = writeln!(
                s,
                "  {:<23} {:>30}   {:>30}",
                "  kernel",
                kernel(Test::First),
                kernel(Test::Validate)
            );
        }
    }

    s
}

/// Per link with time: the simulated paper's time of every mode, original → rewritten; where
/// the link was measured too, the measured medians with what the runs can tell, the
/// simulation's error, and the machine's load.
pub fn times(report: &Report) -> String {
    let mut s = String::new();
    for link in figures::time_links(report) {
        let simulated = phrases::simulated_on(report, link);
        if let Some(sim) = simulated {
            let _ = writeln!(s);
            let _ = writeln!(
                s,
                "  time on {link}, simulated ({}; the same on any machine): first SYN to the \
                 last byte read",
                phrases::simulation_model(sim)
            );
            time_table(&mut s, report, link, &|o, r| {
                let (a, b) = (o.simulated_time.as_ref()?, r.simulated_time.as_ref()?);
                Some((
                    a.last_packet_ms.median,
                    b.last_packet_ms.median,
                    phrases::simulated_change(o, r),
                ))
            });
            if let Some(line) = phrases::rewrite_by_protocol(report, link) {
                let _ = writeln!(s, "  {line}");
            }
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
        let _ = writeln!(s);
        let _ = writeln!(
            s,
            "  time over {link}, measured on the emulated link (median of up to {runs} runs; a \
             change only where the 90% confidence intervals of the medians are apart)"
        );
        time_table(&mut s, report, link, &|o, r| {
            (o.measured() && r.measured()).then(|| {
                (
                    o.time.last_packet_ms.median,
                    r.time.last_packet_ms.median,
                    phrases::measured_time_change(o, r),
                )
            })
        });
        if simulated.is_none() {
            if let Some(line) = phrases::rewrite_by_protocol(report, link) {
                let _ = writeln!(s, "  {line}");
            }
        }
        let timed_out: usize = report
            .replay
            .iter()
            .filter(|r| r.link.name == link)
            .map(|r| r.timed_out_runs)
            .sum();
        if timed_out > 0 {
            let _ = writeln!(
                s,
                "  {timed_out} run(s) timed out over {link}; they count in the medians at the \
                 time they were abandoned (≥)"
            );
        }
        if let Some(v) = phrases::validation_on(report, link) {
            let _ = writeln!(s, "  {v}");
        }
    }
    if let Some(warning) = phrases::load_warning(report) {
        let _ = writeln!(s, "  warning: {warning}");
    }
    s
}

/// A pair's two times (original, rewritten) and their change, or `None` when not both have it.
type PairTimes = dyn Fn(&ReplayRow, &ReplayRow) -> Option<(f64, f64, String)>;

/// One time table: a line per mode, first visit and validation, original → rewritten, with
/// `times` giving a pair's two times and their change.
fn time_table(s: &mut String, report: &Report, link: &str, times: &PairTimes) {
    let _ = writeln!(
        s,
        "  {:<23} {:<42} validation: original → rewritten",
        "mode", "first visit: original → rewritten"
    );
    for mode in figures::modes(report) {
        let cell = |test: Test| {
            let o = row_on(report, link, "original", mode, test)?;
            let r = row_on(report, link, "rewritten", mode, test)?;
            let (a, b, change) = times(o, r)?;
            let out = |row: &ReplayRow, v: f64| {
                let mark = if row.timed_out_runs > 0 { "≥" } else { "" };
                format!("{mark}{}", format::ms(v))
            };
            // Times right-aligned, the change after them left-aligned: the arrows line up
            // whatever the change says.
            Some(format!(
                "{:>8} → {:>8} {:<22}",
                out(o, a),
                out(r, b),
                format!("({change})")
            ))
        };
        let (first, validate) = (cell(Test::First), cell(Test::Validate));
        if first.is_none() && validate.is_none() {
            continue;
        }
        let dash = || "-".to_string();
        let _ = writeln!(
            s,
            "  {mode:<23} {:<42} {}",
            first.unwrap_or_else(dash),
            validate.unwrap_or_else(dash).trim_end()
        );
    }
}

/// The audit's block: per link, the browser's metrics original → rewritten, then webdiet's
/// client beside the browser.
pub fn browser(report: &Report) -> String {
    let mut s = String::new();
    if let Some(why) = &report.browser_unavailable {
        let _ = writeln!(s, "\n  chromium: not run: {why}");
    }
    for link in browser::links(report) {
        let rows: Vec<&BrowserRow> = report
            .browser
            .iter()
            .filter(|r| r.link.name == link && r.site == "original")
            .collect();
        let runs = rows.first().map_or(0, |r| r.runs);
        let _ = writeln!(
            s,
            "\n  chromium over {link} (median of {runs} run{}, from the navigation's start)",
            if runs == 1 { "" } else { "s" }
        );
        let _ = writeln!(
            s,
            "  {:<17} {:<8} {:<8} {:>36} {:>36} {:>30}",
            "mode", "test", "metric", "original → rewritten", "", ""
        );
        for o in &rows {
            let Some(r) = browser::row(report, link, "rewritten", o.mode, o.test) else {
                continue;
            };
            for ((name, a), (_, b)) in browser::metrics(o).into_iter().zip(browser::metrics(r)) {
                let change = match (a, b) {
                    (Some(a), Some(b)) => format::measured_change(a, b),
                    _ => String::new(),
                };
                let _ = writeln!(
                    s,
                    "  {:<17} {:<8} {:<8} {:>10} → {:>10} ({change})",
                    o.mode,
                    o.test,
                    name,
                    phrases::metric(a),
                    phrases::metric(b)
                );
            }
            let _ = writeln!(
                s,
                "  {:<17} {:<8} {:<8} {:>10} → {:>10} ({}), bytes {} → {}, {} → {} requests, \
                 {} connections",
                o.mode,
                o.test,
                "packets",
                o.packets.median,
                r.packets.median,
                format::measured_change(&o.packets, &r.packets),
                thousands((o.bytes_up.median + o.bytes_down.median) as u64),
                thousands((r.bytes_up.median + r.bytes_down.median) as u64),
                o.requests,
                r.requests,
                o.connections.median
            );
            for f in [phrases::faults(o), phrases::faults(r)]
                .into_iter()
                .flatten()
            {
                let _ = writeln!(s, "  {:<17} {:<8} note: {f}", o.mode, o.test);
            }
        }
        let beside = phrases::beside_lines(report, link);
        if !beside.is_empty() {
            let _ = writeln!(
                s,
                "  webdiet's client beside chromium, original site, same mode and link: page \
                 complete from the first SYN, and packets"
            );
            for l in beside {
                let _ = writeln!(s, "  {l}");
            }
        }
    }
    s
}

/// The compact terminal block: per link and site, each mode over TLS with its extra packets,
/// bytes and page-complete time on a first visit and a validation, then the headline. Empty
/// without TLS rows.
pub fn tls(costs: &[TlsCost]) -> String {
    let mut s = String::new();
    let Some(first) = costs.first() else {
        return s;
    };
    let _ = writeln!(
        s,
        "\n  what TLS costs over the same mode in cleartext ({}); packets by the paper's rules, \
         time = page complete (simulated where the link was simulated, else the measured median)",
        first.tls
    );
    for link in tls_links(costs) {
        let of_link: Vec<&TlsCost> = costs.iter().filter(|c| c.link == link).collect();
        let mut sites: Vec<&str> = of_link.iter().map(|c| c.site.as_str()).collect();
        sites.dedup();
        for site in &sites {
            let _ = writeln!(
                s,
                "  {:<24} {:>42}   {:>42}",
                format!("{site} site, {link}"),
                "first visit",
                "validation"
            );
            let mut modes: Vec<Mode> = of_link
                .iter()
                .filter(|c| c.site == *site)
                .map(|c| c.mode)
                .collect();
            modes.dedup();
            for mode in modes {
                let cell = |test: Test| {
                    of_link
                        .iter()
                        .find(|c| c.site == *site && c.mode == mode && c.test == test)
                        .map_or("-".to_string(), |c| {
                            format!(
                                "{:>5} pkts ({:+6.1}%) {:>8} B {:>8}",
                                format::plus(c.packets),
                                c.packets_pct,
                                format::plus(c.bytes),
                                format::plus_ms(c.complete_ms)
                            )
                        })
                };
                let _ = writeln!(
                    s,
                    "  {mode:<24} {:>42}   {:>42}",
                    cell(Test::First),
                    cell(Test::Validate)
                );
            }
        }
    }
    if let Some(line) = phrases::tls_headline(costs, &first.site) {
        let _ = writeln!(s, "  {line}");
    }
    s
}

/// The terminal block: one line per site, test and header set. Empty without pairs.
pub fn headers(costs: &[HeaderCost]) -> String {
    let mut s = String::new();
    let Some([http1_mode, h2_mode]) = header_model::modes() else {
        return s;
    };
    if costs.is_empty() {
        return s;
    }
    let _ = writeln!(
        s,
        "\n  header bytes per message, HTTP/1.1 ({http1_mode}) → HTTP/2 with HPACK ({h2_mode}); {}",
        phrases::spdy_note()
    );
    for c in costs {
        let _ = writeln!(
            s,
            "  {:<10} {:<9} {:<8}{} {}",
            c.site,
            c.test,
            c.header_set,
            if c.headline { "*" } else { " " },
            phrases::header_line(c)
        );
    }
    let _ = writeln!(
        s,
        "  (* the header set of the other figures; --headers libwww|browser chooses it)"
    );
    s
}

/// A plain-text table per sweep and site: a line per point, a column per mode, the first
/// visit's page-complete median. Empty without sweeps.
pub fn sweeps(rows: &[ReplayRow]) -> String {
    let mut s = String::new();
    for sweep in find_sweeps(rows) {
        let modes = sweep_modes(rows, &sweep);
        for site in figures::sites(rows) {
            let _ = writeln!(
                s,
                "\n  sweep {} ({site} site): first visit, page complete (simulated, or the measured \
                 median)",
                sweep.title()
            );
            let _ = write!(s, "  {:>10}", sweep.key.axis());
            for m in &modes {
                let _ = write!(s, " {m:>12}");
            }
            s.push('\n');
            let curves: Vec<Vec<Option<f64>>> = modes
                .iter()
                .map(|m| curve(rows, &sweep, site, *m))
                .collect();
            for (p, (value, _)) in sweep.points.iter().enumerate() {
                let _ = write!(s, "  {value:>10}");
                for c in &curves {
                    let cell = c[p].map_or("-".to_string(), format::ms);
                    let _ = write!(s, " {cell:>12}");
                }
                s.push('\n');
            }
        }
    }
    s
}
