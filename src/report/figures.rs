//! Figures derived from a [`Report`] that both the Markdown and the HTML exporter show: the
//! headline, where the savings come from, the replay matrix. One place, so the two agree.

use super::model::Report;
use super::thousands;
use crate::replay::protocol::Role;
use crate::replay::{Mode, ReplayRow, Spread, Test};
use std::collections::BTreeMap;

/// The two tests: an empty cache, then revalidating everything.
pub const TESTS: [Test; 2] = Test::ALL;

/// Bytes, requests and packets of one visit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Visit {
    pub bytes: u64,
    pub requests: u64,
    pub packets: u64,
}

impl From<&ReplayRow> for Visit {
    fn from(r: &ReplayRow) -> Self {
        Visit {
            bytes: r.bytes_up + r.bytes_down,
            requests: r.requests,
            packets: r.packets,
        }
    }
}

/// The first visit before → after, from the replay rows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Headline {
    /// The mode the figures come from (the reference mode when it was replayed).
    pub mode: Mode,
    pub before: Visit,
    pub after: Visit,
}

/// The replay row of `site` × `mode` × `test`, if there is one.
pub fn row<'a>(report: &'a Report, site: &str, mode: Mode, test: Test) -> Option<&'a ReplayRow> {
    report
        .replay
        .iter()
        .find(|r| r.site == site && r.mode == mode && r.test == test)
}

/// The first visit of the first mode of [`Mode::headline_order`] replayed for both site
/// versions; `None` without replay rows.
pub fn headline(report: &Report) -> Option<Headline> {
    Mode::headline_order().into_iter().find_map(|mode| {
        let before = row(report, "original", mode, Test::First)?;
        let after = row(report, "rewritten", mode, Test::First)?;
        Some(Headline {
            mode,
            before: before.into(),
            after: after.into(),
        })
    })
}

/// The modes that have at least one replay row, in the replay's table order.
pub fn modes(report: &Report) -> Vec<Mode> {
    Mode::all()
        .into_iter()
        .filter(|m| report.replay.iter().any(|r| r.mode == *m))
        .collect()
}

/// What the rewrite saves when requests are cheap: on `link`, the first visit's page-complete
/// time, original → rewritten, under HTTP/1.0 ([`Role::ConnectionPerRequest`]) and under
/// HTTP/2 ([`Role::Multiplexed`], over TLS when that ran: every request at once on one
/// connection). `None` unless both modes ran on both site versions over that link.
pub fn rewrite_by_protocol(report: &Report, link: &str) -> Option<String> {
    let on = |site: &str, mode: Mode| {
        report.replay.iter().find(|r| {
            r.link.name == link && r.site == site && r.mode == mode && r.test == Test::First
        })
    };
    let pair = |mode: Mode| Some((on("original", mode)?, on("rewritten", mode)?));
    let h1 = Mode::with_role(Role::ConnectionPerRequest)?;
    let (h1o, h1r) = pair(h1)?;
    let h2c = Mode::with_role(Role::Multiplexed)?;
    let h2 = h2c.over_tls().filter(|m| pair(*m).is_some()).unwrap_or(h2c);
    let (h2o, h2r) = pair(h2)?;
    let part = |o: &ReplayRow, r: &ReplayRow| {
        let (a, b) = (&o.time.complete_ms, &r.time.complete_ms);
        let saved = a.median - b.median;
        format!(
            "{} → {} ({}{})",
            super::replay::format_ms(a.median),
            super::replay::format_ms(b.median),
            if a.overlaps(b) {
                "no measurable change".to_string()
            } else {
                format!(
                    "{} {}",
                    if saved >= 0.0 { "saves" } else { "costs" },
                    super::replay::format_ms(saved.abs())
                )
            },
            reduction_pct(a.median, b.median)
                .filter(|_| !a.overlaps(b))
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

/// A measured figure as `median (low–high)`, the range the report uses for it.
pub fn spread_text(s: &Spread, digits: usize) -> String {
    let (lo, hi) = s.range();
    format!("{:.digits$} ({lo:.digits$}–{hi:.digits$})", s.median)
}

/// The reduction between two measured figures, or "no measurable change" when their ranges
/// overlap.
pub fn measured_reduction_text(before: &Spread, after: &Spread) -> String {
    if before.overlaps(after) {
        "no measurable change".into()
    } else {
        reduction_text(before.median, after.median)
    }
}

/// `100 × (1 − after / before)`, `None` when `before` is 0.
pub fn reduction_pct(before: f64, after: f64) -> Option<f64> {
    (before > 0.0).then(|| 100.0 * (1.0 - after / before))
}

/// `-42.0%`-style text for a reduction, `—` when there is no base.
pub fn reduction_text(before: f64, after: f64) -> String {
    match reduction_pct(before, after) {
        // Negative zero would print as `-0.0%`.
        Some(p) => format!("{:.1}%", if p == 0.0 { 0.0 } else { -p }),
        None => "—".to_string(),
    }
}

/// One byte count out of the `markup` section: `html_bytes_before`, `html_bytes_after` or
/// `css_bytes`.
pub fn markup_number(report: &Report, key: &str) -> Option<u64> {
    let m = report.markup.as_ref()?;
    match key {
        "html_bytes_before" => Some(m.html_bytes_before),
        "html_bytes_after" => Some(m.html_bytes_after),
        "css_bytes" => Some(m.css_bytes),
        _ => None,
    }
}

/// `site-sheet`, `per-page, atomic classes`…: where the CSS went and how it is classed.
pub fn css_choice(m: &crate::rewrite::markup::MarkupReport) -> String {
    match m.css_classes.as_str() {
        "atomic" => format!("{}, atomic classes", m.css_mode),
        _ => m.css_mode.clone(),
    }
}

/// Where the generated CSS went, in words that agree with the mode.
pub fn css_placement(m: &crate::rewrite::markup::MarkupReport) -> String {
    match (m.css_mode.as_str(), &m.css_path) {
        ("site-sheet", Some(path)) => format!(
            "CSS in the shared sheet {path} ({} bytes)",
            thousands(m.css_bytes)
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
pub fn markup_line(m: &crate::rewrite::markup::MarkupReport) -> String {
    let before: usize = m.constructs_before.values().sum();
    let after: usize = m.constructs_after.values().sum();
    let what = if m.css_bytes > 0 {
        "HTML + sheet"
    } else {
        "HTML"
    };
    let raw_after = m.html_bytes_after + m.css_bytes;
    let deflated_after = m.html_deflated_after + m.css_deflated;
    let change = |b: u64, a: u64| match reduction_pct(b as f64, a as f64) {
        Some(0.0) => "±0.0%".to_string(),
        Some(p) => format!("{:+.1}%", -p),
        None => "n/a".to_string(),
    };
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
        thousands(m.html_bytes_before),
        thousands(raw_after),
        change(m.html_bytes_before, raw_after),
        thousands(m.html_deflated_before),
        thousands(deflated_after),
        change(m.html_deflated_before, deflated_after),
        css_placement(m)
    )
}

/// `2 pages kept as they were (sheet-share 1, page-larger 1)`: pages whose conversion would
/// have made them (or, with their share of the sheet, the site) heavier.
pub fn pages_kept(m: &crate::rewrite::markup::MarkupReport) -> String {
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
            thousands(t.bytes),
            t.files,
            if t.files == 1 { "" } else { "s" },
        )
    })
}

/// Where the bytes saved come from. Each figure may be negative (a step that grew the site).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Savings {
    /// GIF bytes minus what pages refer to now.
    pub images: i64,
    /// HTML bytes before minus HTML bytes after and the new style sheet; `None` when the
    /// markup stage did not run or did not say.
    pub markup: Option<i64>,
    /// Raw text bytes minus their deflate level-6 size (of the rewritten site when estimated);
    /// `None` without a compression estimate.
    pub deflate: Option<i64>,
}

pub fn savings(report: &Report) -> Savings {
    let t = &report.images_total;
    let markup = match (
        markup_number(report, "html_bytes_before"),
        markup_number(report, "html_bytes_after"),
    ) {
        (Some(before), Some(after)) => Some(
            before as i64 - after as i64 - markup_number(report, "css_bytes").unwrap_or(0) as i64,
        ),
        _ => None,
    };
    let deflate = report.compression.as_ref().map(|c| {
        let e = c.rewritten.as_ref().unwrap_or(&c.original);
        e.totals.raw as i64 - e.totals.deflate6 as i64
    });
    Savings {
        images: t.from_bytes as i64 - t.to_bytes as i64,
        markup,
        deflate,
    }
}

/// What the image stage bought and what it cost: bytes saved against the CPU seconds spent,
/// at which `--effort`, and how many images each format serves. So that a user can weigh
/// `--effort max` against the default.
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
            signed((saved as f64 / cpu) as i64)
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
        signed(saved),
        if efforts.is_empty() {
            "-".to_string()
        } else {
            efforts.into_iter().collect::<Vec<_>>().join("/")
        },
    )
}

/// What the GIFs were converted to, for headlines: `PNG/APNG`, or `PNG/APNG/WebP` once a
/// WebP is served (`--image-format webp|best`).
pub fn image_targets(report: &Report) -> &'static str {
    let webp = report
        .images
        .iter()
        .any(|r| r.format == super::model::ImageFormat::Webp);
    if webp {
        "PNG/APNG/WebP"
    } else {
        "PNG/APNG"
    }
}

/// `1234567` → `1,234,567`, `-5` → `-5`.
pub fn signed(n: i64) -> String {
    if n < 0 {
        format!("-{}", super::thousands(n.unsigned_abs()))
    } else {
        super::thousands(n as u64)
    }
}

/// A small hand-built report for the exporters' unit tests: two GIFs (one with a hostile path),
/// replay rows for two modes, markup and compression figures, a failing budget, a problem.
#[cfg(test)]
pub fn sample() -> Report {
    use super::model::{BudgetResult, CompressionReport, ImageRow, ImagesTotal};
    use crate::deflate::{Estimate, Sizes};
    use crate::error::Problem;
    use crate::image::Outcome;

    let image = |path: &str, from: u64, to: u64, outcome: Outcome, reason: &str| ImageRow {
        path: path.into(),
        from_bytes: from,
        to_path: if outcome == Outcome::Converted {
            path.replace(".gif", ".png")
        } else {
            path.into()
        },
        to_bytes: to,
        png_bytes: Some(to),
        webp_bytes: None,
        frames: 1,
        outcome,
        reason: reason.into(),
        original_kept: false,
        millis: 1.0,
        cpu_millis: 1.0,
        effort: crate::image::Effort::Default,
        format: if outcome == Outcome::Converted {
            super::model::ImageFormat::Png
        } else {
            super::model::ImageFormat::Gif
        },
    };
    let images = vec![
        image(
            "img/logo.gif",
            12_000,
            9_000,
            Outcome::Converted,
            "converted(-3000 B)",
        ),
        image(
            "img/<b>&\"q\".gif",
            300,
            300,
            Outcome::PngLarger,
            "kept:png-larger(+37 B)",
        ),
    ];
    let replay_row = crate::replay::row::sample_row;
    let mut replay = Vec::new();
    for (site, scale) in [("original", 4u64), ("rewritten", 3)] {
        for mode in ["http10", "pipelined"] {
            replay.push(replay_row(site, mode, "first", 40 * scale, 50_000 * scale));
            replay.push(replay_row(
                site,
                mode,
                "validate",
                10 * scale,
                3_000 * scale,
            ));
        }
    }
    let estimate = |raw: u64, d6: u64| {
        let sizes = Sizes {
            raw,
            deflate6: d6,
            deflate9: d6,
            best: d6,
            gzip6: d6 + 12,
            ..Sizes::default()
        };
        Estimate {
            rule: "saves at least 100 bytes".into(),
            files: vec![crate::deflate::FileEstimate {
                path: "index.html".into(),
                sizes,
                worth_it: true,
            }],
            totals: sizes,
            ..Estimate::default()
        }
    };
    let mut report = Report::new(std::path::Path::new("sites/demo & co"));
    report.images_total = ImagesTotal::of(&images);
    report.images = images;
    report.replay = replay;
    report.markup = Some(crate::rewrite::markup::MarkupReport {
        html_bytes_before: 40_000,
        html_bytes_after: 30_000,
        css_bytes: 2_000,
        css_mode: "site-sheet".into(),
        css_classes: "combined".into(),
        constructs_before: [("font".to_string(), 300), ("spacer-gif".to_string(), 4)].into(),
        constructs_after: [("spacer-gif".to_string(), 1)].into(),
        left_as_is: [("spacer-alt-text".to_string(), 1)].into(),
        pages: vec![crate::rewrite::markup::MarkupPage {
            path: "index.html".into(),
            bytes_before: 40_000,
            bytes_after: 30_000,
            constructs_before: 300,
            constructs_after: 10,
            changed: true,
            ..Default::default()
        }],
        ..Default::default()
    });
    report.compression = Some(CompressionReport {
        rule: "saves at least 100 bytes and at least 10% at level 6".into(),
        original: estimate(42_000, 12_000),
        rewritten: Some(estimate(32_000, 9_000)),
    });
    report.budgets = vec![
        BudgetResult {
            name: "max-first-visit-bytes".into(),
            limit: 100_000.0,
            actual: Some(150_000.0),
            passed: false,
            unmeasured: None,
        },
        BudgetResult {
            name: "max-packets(pipelined, first)".into(),
            limit: 200.0,
            actual: Some(120.0),
            passed: true,
            unmeasured: None,
        },
    ];
    report.problems = vec![Problem::new("a<b>.html", "unreadable", "bad & worse")];
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rewrite_is_priced_under_http10_and_under_http2_on_the_same_link() {
        use crate::replay::row::sample_row;
        let timed = |site: &str, mode: &str, ms: [f64; 3]| {
            let mut r = sample_row(site, mode, "first", 100, 10_000);
            r.link.name = "Cable".into();
            r.time.complete_ms = Spread::of(ms);
            r
        };
        let mut report = sample();
        report.replay = vec![
            timed("original", "http10", [2000.0, 2010.0, 2020.0]),
            timed("rewritten", "http10", [1500.0, 1510.0, 1520.0]),
            timed("original", "h2", [1000.0, 1010.0, 1020.0]),
            timed("rewritten", "h2", [1005.0, 1012.0, 1030.0]),
        ];
        let line = rewrite_by_protocol(&report, "Cable").unwrap();
        assert!(
            line.contains("2.01 s → 1.51 s (saves 500 ms, 25%)"),
            "{line}"
        );
        assert!(
            line.contains("(h2, 1 connection) 1.01 s → 1.01 s (no measurable change)"),
            "{line}"
        );
        assert_eq!(
            rewrite_by_protocol(&report, "loopback"),
            None,
            "nothing ran there"
        );
    }

    #[test]
    fn reductions_never_divide_by_zero() {
        assert_eq!(reduction_pct(0.0, 5.0), None);
        assert_eq!(reduction_text(0.0, 0.0), "—");
        assert_eq!(reduction_text(200.0, 150.0), "-25.0%");
        assert_eq!(reduction_text(42.0, 42.0), "0.0%");
    }

    #[test]
    fn signed_numbers_keep_their_sign() {
        assert_eq!(signed(-1234), "-1,234");
        assert_eq!(signed(1234), "1,234");
    }
}
