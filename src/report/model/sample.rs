//! A small hand-built report for the unit tests of the model and the renderers: two GIFs (one
//! with a hostile path), replay rows for two modes, markup and compression figures, a failing
//! budget, a problem.

use super::images::{ImageFormat, ImageRow, ImagesTotal};
use super::report::{BudgetResult, CompressionReport, Report};
use crate::chromium::page_load::BrowserRequest;
use crate::deflate::{Estimate, Sizes};
use crate::error::Problem;
use crate::image::Outcome;
use crate::replay::chromium::row::BrowserMetrics;
use crate::replay::row::{RowLink, Spread};
use crate::replay::study::{Study, StudyRow, Variant};
use crate::replay::BrowserRow;

pub fn sample() -> Report {
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
            ImageFormat::Png
        } else {
            ImageFormat::Gif
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
                estimated: false,
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
            name: "max-first-visit-bytes (pipelined)".into(),
            limit: 100_000.0,
            actual: Some(150_000.0),
            passed: false,
            unmeasured: None,
            level: Default::default(),
            metric: "bytes".into(),
            operator: "<=".into(),
            unit: "bytes".into(),
            page: Some("index.html".into()),
            link: None,
            source: "flags".into(),
        },
        BudgetResult {
            name: "max-packets (pipelined, first visit)".into(),
            limit: 200.0,
            actual: Some(120.0),
            passed: true,
            unmeasured: None,
            level: Default::default(),
            metric: "packets".into(),
            operator: "<=".into(),
            unit: "packets".into(),
            page: Some("index.html".into()),
            link: None,
            source: "flags".into(),
        },
    ];
    report.problems = vec![Problem::new("a<b>.html", "unreadable", "bad & worse")];
    report.derive();
    report
}

/// A made-up browser row: LCP `lcp` ms over three runs.
pub fn browser_row(site: &str, mode: &str, test: &str, lcp: f64) -> BrowserRow {
    let three = |a: f64| Spread::of([a, a + 10.0, a + 20.0]);
    let link = crate::sim::link::parse("3G").unwrap().remove(0);
    BrowserRow {
        client: "chromium".into(),
        site: site.into(),
        page: "index.html".into(),
        mode: mode.parse().unwrap(),
        test: test.parse().unwrap(),
        link: RowLink::new(&link, vec![1, 2, 3]),
        runs: 3,
        timed_out_runs: 0,
        failed_runs: 0,
        timeout_ms: 60_000.0,
        protocol: "h2".into(),
        requests: 3,
        not_modified: 0,
        connections: Spread::of([1.0; 3]),
        packets: three(100.0),
        packets_up: three(40.0),
        packets_down: three(60.0),
        data_segments: three(50.0),
        bytes_up: three(1000.0),
        bytes_down: three(50_000.0),
        metrics: BrowserMetrics {
            ttfb_ms: Some(three(600.0)),
            fcp_ms: Some(three(lcp - 200.0)),
            lcp_ms: Some(three(lcp)),
            dom_content_loaded_ms: Some(three(lcp - 100.0)),
            load_ms: Some(three(lcp + 100.0)),
            complete_ms: Some(three(lcp + 150.0)),
            complete_from_first_syn_ms: Some(three(lcp + 149.0)),
        },
        notes: Vec::new(),
        waterfall: ["/", "/a.png", "/b.png"]
            .iter()
            .enumerate()
            .map(|(i, path)| BrowserRequest {
                url: format!("https://replay.webdiet.test{path}"),
                connection: Some(1),
                protocol: Some("h2".into()),
                status: Some(200),
                from_cache: false,
                start_ms: i as f64 * 100.0,
                connect_start_ms: (i == 0).then_some(1.0),
                connect_end_ms: (i == 0).then_some(600.0),
                sent_ms: Some(i as f64 * 100.0 + 610.0),
                first_byte_ms: Some(i as f64 * 100.0 + 910.0),
                done_ms: Some(i as f64 * 100.0 + 1000.0),
                encoded_bytes: 10_000,
                failed: None,
            })
            .collect(),
    }
}

/// A made-up document-size study: every variant at 1 KiB, 20 KiB and 100 KiB.
pub fn study() -> Study {
    let mut rows = Vec::new();
    for (i, v) in Variant::ALL.into_iter().enumerate() {
        for size in [1024u64, 20 * 1024, 100 * 1024] {
            rows.push(StudyRow {
                size,
                variant: v.as_str().into(),
                duration_ms: Spread::of([0.1 * (i + 1) as f64 + size as f64 / 1e5]),
                connect_ms: Spread::of([0.2]),
                bytes: size + 300,
                packets: 10,
                handshake_round_trips: 0,
            });
        }
    }
    Study {
        link: "loopback".into(),
        method: "netns".into(),
        mss: 1460,
        runs: 1,
        cipher: "aes-gcm".into(),
        rows,
    }
}
