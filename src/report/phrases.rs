//! The sentences several renderers share, built from the model with `format.rs`: the markup
//! stage in one line, where the CSS went, what the images cost, the rewrite under HTTP/1.0 and
//! HTTP/2, what TLS and header compression cost, Chromium's headline. Written once, so that
//! the terminal, Markdown and HTML reports say the same thing in the same words.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::format;
use super::model::figures::row_on;
use super::model::headers::{self, HeaderCost};
use super::model::tls::TlsCost;
use super::model::{browser, LinkTime, Report, TimeSource};
use crate::replay::protocol::Role;
use crate::replay::row::{SimulatedTime, Spread};
use crate::replay::simulated::Validation;
use crate::replay::{BrowserRow, Mode, ReplayRow, Test};
use crate::rewrite::markup::MarkupReport;

/// What the rewrite saves when requests are cheap: on `link`, the first visit's page-complete
/// time, original → rewritten, under HTTP/1.0 ([`Role::ConnectionPerRequest`]) and under
/// HTTP/2 ([`Role::Multiplexed`], over TLS when that ran: every request at once on one
/// connection); simulated where the rows are, else measured. `None` unless both modes ran on
/// both site versions over that link.
pub fn rewrite_by_protocol(report: &Report, link: &str) -> Option<String> {
    let on = |site: &str, mode: Mode| row_on(report, link, site, mode, Test::First);
    let pair = |mode: Mode| Some((on("original", mode)?, on("rewritten", mode)?));
    let h1 = Mode::with_role(Role::ConnectionPerRequest)?;
    let (h1o, h1r) = pair(h1)?;
    let h2c = Mode::with_role(Role::Multiplexed)?;
    let h2 = h2c.over_tls().filter(|m| pair(*m).is_some()).unwrap_or(h2c);
    let (h2o, h2r) = pair(h2)?;
    let part = |o: &ReplayRow, r: &ReplayRow| {
        // Simulated where both rows are (any difference is then the rewrite's), else measured.
        let (a, b) = match (&o.simulated_time, &r.simulated_time) {
            (Some(a), Some(b)) => (&a.complete_ms, &b.complete_ms),
            _ => (&o.time.complete_ms, &r.time.complete_ms),
        };
        let simulated = o.simulated_time.is_some() && r.simulated_time.is_some();
        let noise = !simulated && a.overlaps(b);
        let saved = a.median - b.median;
        format!(
            "{} → {} ({}{})",
            format::ms(a.median),
            format::ms(b.median),
            if noise {
                "no measurable change".to_string()
            } else {
                format!(
                    "{} {}",
                    if saved >= 0.0 { "saves" } else { "costs" },
                    format::ms(saved.abs())
                )
            },
            format::change_pct(a.median, b.median)
                .filter(|_| !noise)
                .map_or(String::new(), |p| format!(", {:.0}%", p.abs()))
        )
    };
    Some(format!(
        "The rewrite on {link}, first visit, page complete: under HTTP/1.0 ({h1}, {} \
         connections) {}; under HTTP/2 ({h2}, 1 connection) {}",
        h1o.connections,
        part(h1o, h1r),
        part(h2o, h2r)
    ))
}

/// `site-sheet`, `per-page, atomic classes`…: where the CSS went and how it is classed.
pub fn css_choice(m: &MarkupReport) -> String {
    match m.css_classes.as_str() {
        "atomic" => format!("{}, atomic classes", m.css_mode),
        _ => m.css_mode.clone(),
    }
}

/// Where the generated CSS went, in words that agree with the mode.
pub fn css_placement(m: &MarkupReport) -> String {
    match (m.css_mode.as_str(), &m.css_path) {
        ("site-sheet", Some(path)) => format!(
            "CSS in the shared sheet {path} ({} bytes)",
            format::thousands(m.css_bytes)
        ),
        ("site-sheet", None) => "no shared sheet was needed".to_string(),
        ("per-page", _) => "CSS in a <style> block per page".to_string(),
        ("inline-style", _) => "CSS in style attributes".to_string(),
        ("unchanged", _) => "no candidate saved bytes, the markup was left alone".to_string(),
        (other, _) => format!("CSS placed by mode {other}"),
    }
}

/// The markup stage in one line: constructs, pages, and its effect on bytes raw and deflated
/// (the shared sheet counted with the pages), which need not agree in sign.
pub fn markup_line(m: &MarkupReport) -> String {
    let before: usize = m.constructs_before.values().sum();
    let after: usize = m.constructs_after.values().sum();
    let what = if m.css_bytes > 0 {
        "HTML + sheet"
    } else {
        "HTML"
    };
    let raw_after = m.html_bytes_after + m.css_bytes;
    let deflated_after = m.html_deflated_after + m.css_deflated;
    let change = |b: u64, a: u64| format::change(b as f64, a as f64);
    let kept = match m.pages_kept.is_empty() {
        true => String::new(),
        false => format!("; {}", pages_kept(m)),
    };
    format!(
        "markup → CSS ({}): {before} → {after} presentational constructs in {} page{}; {what} \
         {} → {} bytes ({}), deflated {} → {} ({}), from the original pages to the rewritten \
         ones (image references included); {}{kept}",
        css_choice(m),
        m.pages_changed,
        if m.pages_changed == 1 { "" } else { "s" },
        format::thousands(m.html_bytes_before),
        format::thousands(raw_after),
        change(m.html_bytes_before, raw_after),
        format::thousands(m.html_deflated_before),
        format::thousands(deflated_after),
        change(m.html_deflated_before, deflated_after),
        css_placement(m)
    )
}

/// `2 pages kept as they were (sheet-share 1, page-larger 1)`: pages whose conversion would
/// have made them (or, with their share of the sheet, the site) heavier.
pub fn pages_kept(m: &MarkupReport) -> String {
    let n: usize = m.pages_kept.values().sum();
    let reasons: Vec<String> = m
        .pages_kept
        .iter()
        .map(|(r, k)| format!("{r} {k}"))
        .collect();
    format!(
        "{n} page{} kept as {} (larger converted: {})",
        if n == 1 { "" } else { "s" },
        if n == 1 { "it was" } else { "they were" },
        reasons.join(", ")
    )
}

/// One line on the images that look like text (audit only), or `None` when there are none.
pub fn text_images_line(report: &Report) -> Option<String> {
    let t = &report.markup.as_ref()?.text_images_total;
    (t.files > 0).then(|| {
        format!(
            "text drawn as images (audit only, not rewritten): {} file{} shown {} time{}, {} bytes; as CSS-styled text a first visit would make {} request{} fewer",
            t.files,
            if t.files == 1 { "" } else { "s" },
            t.shown,
            if t.shown == 1 { "" } else { "s" },
            format::thousands(t.bytes),
            t.files,
            if t.files == 1 { "" } else { "s" },
        )
    })
}

/// What the image stage bought and what it cost: bytes saved against the CPU seconds spent,
/// at which `--effort`, and how many images each format serves.
pub fn images_cost_line(report: &Report) -> String {
    let t = &report.images_total;
    let saved = t.from_bytes as i64 - t.to_bytes as i64;
    let efforts: std::collections::BTreeSet<String> = report
        .images
        .iter()
        .filter(|r| r.outcome != crate::image::Outcome::Unreferenced)
        .map(|r| r.effort.to_string())
        .collect();
    let mut formats: BTreeMap<String, usize> = BTreeMap::new();
    for r in &report.images {
        *formats.entry(r.format.to_string()).or_default() += 1;
    }
    let formats: Vec<String> = formats.iter().map(|(f, n)| format!("{f} {n}")).collect();
    let cpu = t.cpu_millis / 1000.0;
    let per_second = if cpu > 0.0 {
        format!(
            ", {} bytes per CPU second",
            format::signed((saved as f64 / cpu) as i64)
        )
    } else {
        String::new()
    };
    let served = match formats.is_empty() {
        true => "no image to serve".to_string(),
        false => format!("served as {}", formats.join(", ")),
    };
    format!(
        "images: {} bytes saved for {cpu:.2} CPU s at --effort {}{per_second}; {served}",
        format::signed(saved),
        if efforts.is_empty() {
            "-".to_string()
        } else {
            efforts.into_iter().collect::<Vec<_>>().join("/")
        },
    )
}

/// "LCP on 3G (chromium, h2, median of 5 runs): 3.90 s → 3.10 s (-20.5%)", on the first link
/// the browser ran over.
pub fn browser_headline(report: &Report) -> Option<String> {
    let link = *browser::links(report).first()?;
    Mode::browser_headline_order().into_iter().find_map(|mode| {
        let o = browser::row(report, link, "original", mode, Test::First)?;
        let r = browser::row(report, link, "rewritten", mode, Test::First)?;
        let (a, b) = (o.metrics.lcp_ms.as_ref()?, r.metrics.lcp_ms.as_ref()?);
        Some(format!(
            "LCP on {link} (chromium, {mode}, median of {} runs): {} → {} ({})",
            a.runs,
            format::ms(a.median),
            format::ms(b.median),
            format::measured_change(a, b)
        ))
    })
}

/// A metric's median, or `—` when no run reached it.
pub fn metric(spread: Option<&Spread>) -> String {
    spread.map_or_else(|| "—".to_string(), |s| format::ms(s.median))
}

/// What the runs of a row met: timeouts and failures, or nothing.
pub fn faults(row: &BrowserRow) -> Option<String> {
    let mut parts = Vec::new();
    if row.timed_out_runs > 0 {
        parts.push(format!(
            "{} of {} runs timed out ({} limit)",
            row.timed_out_runs,
            row.runs,
            format::ms(row.timeout_ms)
        ));
    }
    if row.failed_runs > 0 {
        parts.push(format!(
            "{} of {} runs failed (browser crashed twice)",
            row.failed_runs, row.runs
        ));
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// "persistent first  chromium 612 ms, 210 pkts, 6 conn | webdiet 1.62 s, 253 pkts, 1 conn".
pub fn beside_lines(report: &Report, link: &str) -> Vec<String> {
    report
        .browser
        .iter()
        .filter(|b| b.link.name == link && b.site == "original")
        .filter_map(|b| {
            let w = browser::robot_row(report, b)?;
            let complete = b.metrics.complete_from_first_syn_ms.as_ref()?;
            Some(format!(
                "{:<17} {:<8} chromium {:>9}, {:>4} pkts, {} conn | webdiet {:>9}, {:>4} pkts \
                 (paper's rule), {} conn",
                b.mode,
                b.test,
                format::ms(complete.median),
                b.packets.median,
                b.connections.median,
                format::ms(w.time.complete_ms.median),
                w.packets,
                w.connections
            ))
        })
        .collect()
}

/// `+172 packets (+37.0%), +37,781 bytes (+20.8%)`.
pub fn extra_text(c: &TlsCost) -> String {
    format!(
        "{} packets ({:+.1}%), {} bytes ({:+.1}%)",
        format::plus(c.packets),
        c.packets_pct,
        format::plus(c.bytes),
        c.bytes_pct
    )
}

/// `43 connections: 1 full + 42 resumed handshakes, 43 round trips`.
pub fn handshakes_text(c: &TlsCost) -> String {
    format!(
        "{} connection{}: {} full + {} resumed handshake{}, {} round trip{}, {} handshake packets, {} bytes",
        c.connections,
        if c.connections == 1 { "" } else { "s" },
        c.full_handshakes,
        c.resumed_handshakes,
        if c.full_handshakes + c.resumed_handshakes == 1 { "" } else { "s" },
        c.handshake_round_trips,
        if c.handshake_round_trips == 1 { "" } else { "s" },
        c.handshake_packets,
        format::thousands(c.handshake_bytes)
    )
}

/// The headline of TLS's cost: the first visit of [`Role::ConnectionPerRequest`] over TLS
/// (`https10`, a handshake per connection) against the reference mode over TLS
/// (`https-pipelined`, one), for the site that has both, on the first link; `None`
/// otherwise. Over an emulated link it names the time too.
pub fn tls_headline(costs: &[TlsCost], site: &str) -> Option<String> {
    let link = costs.first()?.link.as_str();
    let many_mode = Mode::with_role(Role::ConnectionPerRequest)?.over_tls()?;
    let one_mode = Mode::reference().over_tls()?;
    let on = |mode: Mode, link: &str| {
        costs
            .iter()
            .find(|c| c.site == site && c.mode == mode && c.test == Test::First && c.link == link)
    };
    let (many, one) = (on(many_mode, link)?, on(one_mode, link)?);
    let mut line = format!(
        "TLS on a first visit ({}): {many_mode} {} packets over {} ({} connections), \
         {one_mode} {} over {} (1 connection)",
        many.tls,
        format::plus(many.packets),
        many.cleartext,
        many.connections,
        format::plus(one.packets),
        one.cleartext,
    );
    // Time where it means something to a user: the first emulated link.
    let timed = costs
        .iter()
        .find(|c| c.link != "loopback")
        .map(|c| c.link.as_str());
    if let Some(link) = timed {
        if let (Some(many), Some(one)) = (on(many_mode, link), on(one_mode, link)) {
            line.push_str(&format!(
                "; on {link}, page complete {many_mode} {} ({:+.0}%), {one_mode} {} ({:+.0}%)",
                format::plus_ms(many.complete_ms),
                many.complete_pct,
                format::plus_ms(one.complete_ms),
                one.complete_pct
            ));
        }
    }
    Some(line)
}

/// `requests 183 → 31 B (−83%), responses 160 → 27 B (−83%)`.
pub fn header_line(c: &HeaderCost) -> String {
    format!(
        "requests {:.0} → {:.0} B ({:+.0}%), responses {:.0} → {:.0} B ({:+.0}%)",
        c.http1_request_bytes,
        c.h2_request_bytes,
        -c.request_reduction_pct,
        c.http1_response_bytes,
        c.h2_response_bytes,
        -c.response_reduction_pct
    )
}

/// The SPDY reference, said once wherever the comparison is shown.
pub fn spdy_note() -> String {
    format!(
        "SPDY reported −{:.0}% for requests and −{:.0}% for responses",
        headers::SPDY_REQUEST_REDUCTION_PCT,
        headers::SPDY_RESPONSE_REDUCTION_PCT
    )
}

/// Where a link's time comes from: `measured, median of 2 runs`, `simulated`.
pub fn time_source(t: &LinkTime, runs: usize) -> String {
    match t.source {
        TimeSource::Measured => format!(
            "measured, median of {runs} run{}",
            if runs == 1 { "" } else { "s" }
        ),
        TimeSource::Simulated => "simulated".to_string(),
    }
}

/// What the rewrite does to a link's time: `saves 51 ms, -12.2%`, `costs 3 ms, +0.8%`, or
/// `no measurable change` when a measured difference is inside the noise.
pub fn time_saving(t: &LinkTime) -> String {
    if !t.resolved() {
        return "no measurable change".to_string();
    }
    let saved = t.saved_ms();
    format!(
        "{} {}, {}",
        if saved >= 0.0 { "saves" } else { "costs" },
        format::ms(saved.abs()),
        format::change(t.original_ms.median, t.rewritten_ms.median)
    )
}

/// A first visit's time on a named link, original → rewritten, with where it comes from:
/// `first visit on Cable (h2, simulated): 380 ms → 330 ms (saves 50 ms, -13.2%)`, or
/// `first visit on Cable (pipelined, measured, median of 2 runs): …`; where a simulated link
/// was measured too (`audit --measure`), the measured medians and how far the simulation is
/// from them.
pub fn link_time(report: &Report, t: &LinkTime) -> String {
    let on = |site| row_on(report, &t.link, site, t.mode, Test::First);
    let runs = match (on("original"), on("rewritten")) {
        (Some(o), Some(r)) => o.runs.min(r.runs),
        _ => 0,
    };
    let mark = if t.timed_out_runs > 0 { "≥" } else { "" };
    let mut line = format!(
        "first visit on {} ({}, {}): {mark}{} → {mark}{} ({})",
        t.link,
        t.mode,
        time_source(t, runs),
        simulated_ms_or_ms(t, &t.original_ms),
        simulated_ms_or_ms(t, &t.rewritten_ms),
        time_saving(t)
    );
    if let Some(check) = measured_check(report, t) {
        let _ = write!(line, "; {check}");
    }
    line
}

/// Where a simulated link time was measured too (`audit --measure`): `measured 413 ms → 362
/// ms (median of 5 runs, -12.3%), simulated within 4%`, the larger error of the two visits.
pub fn measured_check(report: &Report, t: &LinkTime) -> Option<String> {
    let o = row_on(report, &t.link, "original", t.mode, Test::First)?;
    let r = row_on(report, &t.link, "rewritten", t.mode, Test::First)?;
    if t.source != TimeSource::Simulated || !(o.measured() && r.measured()) {
        return None;
    }
    let runs = o.runs.min(r.runs);
    let err = |s: f64, m: f64| (100.0 * (s - m) / m).abs();
    let worst = err(t.original_ms.median, o.time.last_packet_ms.median)
        .max(err(t.rewritten_ms.median, r.time.last_packet_ms.median));
    Some(format!(
        "measured {} → {} (median of {runs} run{}, {}), simulated within {worst:.0}%",
        format::ms(o.time.last_packet_ms.median),
        format::ms(r.time.last_packet_ms.median),
        format::plural(runs),
        measured_time_change(o, r)
    ))
}

/// A link time's figure: over several loss seeds, a simulated time with its interquartile
/// range.
fn simulated_ms_or_ms(t: &LinkTime, s: &Spread) -> String {
    match t.source {
        TimeSource::Simulated => format::simulated_ms(s),
        TimeSource::Measured => format::ms(s.median),
    }
}

/// The change between the simulated paper's times of two rows: deterministic, so any
/// difference is the rewrite's (over loss seeds, the medians'); `—` unless both were simulated.
pub fn simulated_change(before: &ReplayRow, after: &ReplayRow) -> String {
    match (&before.simulated_time, &after.simulated_time) {
        (Some(b), Some(a)) => format::change(b.last_packet_ms.median, a.last_packet_ms.median),
        _ => "—".into(),
    }
}

/// The change between two measured paper's times, never claiming what the runs cannot tell:
/// the change of the medians when their 90% confidence intervals are apart, else "no
/// measurable change" with both intervals, or, with too few runs for an interval, that there
/// are too few to tell.
pub fn measured_time_change(before: &ReplayRow, after: &ReplayRow) -> String {
    if crate::replay::simulated::told_apart(before, after) {
        return format::change(
            before.time.last_packet_ms.median,
            after.time.last_packet_ms.median,
        );
    }
    let ci = |r: &ReplayRow| crate::replay::row::median_interval(&r.last_packet_runs_ms(), 0.9);
    match (ci(before), ci(after)) {
        (Some((a0, a1)), Some((b0, b1))) => {
            format!("no measurable change: 90% CIs {a0:.0}–{a1:.0} and {b0:.0}–{b1:.0} ms")
        }
        _ => format!("too few runs to tell ({})", before.runs.min(after.runs)),
    }
}

/// How the simulation modelled a link: `Linux TCP, cubic`, `…, medians over 20 loss seeds`.
pub fn simulation_model(sim: &SimulatedTime) -> String {
    format!(
        "Linux TCP, {}{}",
        sim.tcp,
        if sim.seeds.len() > 1 {
            format!(", medians over {} loss seeds", sim.seeds.len())
        } else {
            String::new()
        }
    )
}

/// The first simulated row over `link`'s model, for a table's heading; `None` when nothing
/// was simulated there.
pub fn simulated_on<'a>(report: &'a Report, link: &str) -> Option<&'a SimulatedTime> {
    report.replay.iter().find_map(|r| {
        (r.link.name == link)
            .then_some(r.simulated_time.as_ref())
            .flatten()
    })
}

/// The simulation's error against the measurement over one link, in words.
pub fn validation(v: &Validation) -> String {
    format!(
        "simulated against measured on {}, page complete: MAPE {:.1}% over {} rows, worst \
         {:+.1}% ({}), rank correlation {:.2}",
        v.link, v.mape_pct, v.rows, v.worst_pct, v.worst_row, v.rank_correlation
    )
}

/// The simulation's error on `link`, when it was measured there too.
pub fn validation_on(report: &Report, link: &str) -> Option<String> {
    report
        .simulation_error
        .iter()
        .find(|v| v.link == link)
        .map(validation)
}

/// The warning when the machine was too busy for the measured times to mean much.
pub fn load_warning(report: &Report) -> Option<String> {
    report.measured_load.as_ref().and_then(|l| l.warning())
}

/// The first visit's bytes, requests and packets before → after, in one line:
/// `180,847 → 150,211 bytes (-16.9%), 43 → 43 requests, 193 → 161 packets (pipelined)`.
pub fn visit_line(report: &Report) -> Option<String> {
    let s = report.visitor_savings.as_ref()?;
    let (o, r) = (&s.original, &s.rewritten);
    Some(format!(
        "{} → {} bytes ({}), {} → {} requests, {} → {} packets ({}, {})",
        format::thousands(o.bytes),
        format::thousands(r.bytes),
        format::change(o.bytes as f64, r.bytes as f64),
        o.requests,
        r.requests,
        format::thousands(o.packets),
        format::thousands(r.packets),
        s.mode,
        s.page
    ))
}

/// What a budget measured against its limit: `150,000 bytes measured, at most 100,000
/// allowed`, or why it could not be measured.
pub fn budget_line(b: &super::model::BudgetResult) -> String {
    let unit = |v: f64| {
        if b.unit.is_empty() || b.unit == "count" || b.unit == "%" {
            format!(
                "{}{}",
                format::number(v),
                if b.unit == "%" { "%" } else { "" }
            )
        } else {
            format!("{} {}", format::number(v), b.unit)
        }
    };
    let bound = if b.operator == ">=" {
        "at least"
    } else {
        "at most"
    };
    match (b.actual, &b.unmeasured) {
        (Some(a), _) => format!("{} measured, {bound} {} allowed", unit(a), unit(b.limit)),
        (None, why) => format!(
            "not measured ({}), {bound} {} allowed",
            why.as_deref().unwrap_or("no figure"),
            unit(b.limit)
        ),
    }
}

/// An opportunity's time saved on its link, for a table cell: `49 ms`, `~49 ms` when
/// estimated, `—` when there is none.
pub fn opportunity_time(o: &super::model::Opportunity) -> String {
    match o.time_ms {
        Some(ms) => {
            let estimated = o
                .time_basis
                .as_deref()
                .is_some_and(|b| b.starts_with("estimated"));
            format!("{}{}", if estimated { "~" } else { "" }, format::ms(ms))
        }
        None => "—".to_string(),
    }
}

/// The budgets in one sentence: `7 of 9 budgets held, 1 failed, 1 over at warn level`, and
/// whether the run fails; `None` without budgets.
pub fn verdict(report: &Report) -> Option<(bool, String)> {
    if report.budgets.is_empty() {
        return None;
    }
    let failed = report.budgets.iter().filter(|b| b.fails_run()).count();
    let warned = report
        .budgets
        .iter()
        .filter(|b| !b.passed && !b.fails_run())
        .count();
    let more = match (failed, warned) {
        (0, 0) => String::new(),
        (f, 0) => format!(", {f} failed"),
        (0, w) => format!(", {w} over at warn level"),
        (f, w) => format!(", {f} failed, {w} over at warn level"),
    };
    Some((
        failed > 0,
        format!(
            "{} of {} budgets held{more}",
            report.budgets.len() - failed - warned,
            report.budgets.len()
        ),
    ))
}

/// What a visitor sees, the headline: one line per link, the simulated browser's first visit
/// to every page in HTTP/2 (`sim::paint`): the first and the largest contentful paint's
/// median before → after, and how many pages paint later. Empty without the visitor.
pub fn visitor_lines(report: &Report) -> Vec<String> {
    let Some(v) = &report.visitor else {
        return Vec::new();
    };
    v.headline()
        .map(|l| {
            let later = match l.later.len() {
                0 => "no page paints later".to_string(),
                1 => format!(
                    "1 page paints later ({}, {})",
                    l.later[0].0,
                    format::plus_ms(l.later[0].1)
                ),
                n => format!(
                    "{n} pages paint later (most: {}, {})",
                    l.later[0].0,
                    format::plus_ms(l.later[0].1)
                ),
            };
            let error = report
                .visitor_error
                .iter()
                .filter(|e| e.link == l.link && e.metric != "load")
                .map(|e| {
                    format!(
                        "{} {:.1}% off Chromium over {} loads",
                        e.metric.to_uppercase(),
                        e.mape_pct,
                        e.rows
                    )
                })
                .collect::<Vec<_>>();
            let later = match error.is_empty() {
                true => later,
                false => format!("{later} (simulated: {})", error.join(", ")),
            };
            format!(
                "{}{}: first paint {} → {} ({}), largest paint {} → {} ({}); {later}",
                l.link,
                if l.cpu_slowdown > 1 {
                    format!(" (CPU ×{})", l.cpu_slowdown)
                } else {
                    String::new()
                },
                format::ms(l.fcp.original.median_ms),
                format::ms(l.fcp.rewritten.median_ms),
                format::change(l.fcp.original.median_ms, l.fcp.rewritten.median_ms),
                format::ms(l.lcp.original.median_ms),
                format::ms(l.lcp.rewritten.median_ms),
                format::change(l.lcp.original.median_ms, l.lcp.rewritten.median_ms),
            )
        })
        .collect()
}

/// The visitor headline's own heading: what was simulated, over how many pages.
pub fn visitor_heading(report: &Report) -> Option<String> {
    let v = report.visitor.as_ref()?;
    Some(format!(
        "what a visitor sees (a browser's first visit to each of {} page{}, h2 over TLS, \
         simulated; medians over the pages)",
        v.pages,
        format::plural(v.pages)
    ))
}

/// The browser's own time the visitor's loads add to the network's, in words.
pub fn visitor_cpu(cpu: &crate::sim::paint::Cpu) -> String {
    let ms = |ns: u64| format::ms(ns as f64 / 1e6);
    format!(
        "Chromium's own time, measured on this machine (docs/simulation.md, \"The visitor\"): \
         {} before the request, then {} to the first paint, {} to the largest, {} to \
         DOMContentLoaded, {} to load once what each waits for is in (×4 on lighthouse-mobile)",
        ms(cpu.navigation_ns),
        ms(cpu.fcp_ns),
        ms(cpu.lcp_ns),
        ms(cpu.dcl_ns),
        ms(cpu.load_ns)
    )
}
