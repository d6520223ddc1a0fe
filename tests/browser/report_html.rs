//! The HTML report, rendered by headless Chromium: a realistic report (deserialized from JSON, as
//! `report.json` would be read back) must draw its charts, not a blank page. Without Chromium the
//! test skips with a note, unless CI=true.

use crate::common;

use serde_json::json;
use webdiet::report::html::{self, AFTER_COLOUR, BEFORE_COLOUR, SAVED_COLOUR};
use webdiet::report::{markdown, Report};
use webdiet::verify::{self, diff, RenderOptions};

use common::chromium_available;

/// A measured figure over five runs, from `lo` to `hi`.
fn spread(lo: f64, hi: f64) -> serde_json::Value {
    let mid = (lo + hi) / 2.0;
    json!({"median": mid, "min": lo, "max": hi, "q1": (lo + mid) / 2.0, "q3": (mid + hi) / 2.0, "runs": 5})
}

/// A replay row as `report.json` holds it.
fn replay_row(site: &str, mode: &str, test: &str, packets: u64, bytes: u64) -> serde_json::Value {
    json!({
        "site": site, "page": "index.html", "mode": mode, "test": test, "runs": 5,
        "requests": 42, "connections": if mode == "http10" { 42 } else { 1 },
        "bytes_up": bytes / 12, "bytes_down": bytes - bytes / 12,
        "packets_up": packets / 2, "packets_down": packets - packets / 2, "packets": packets,
        "data_segments_up": 42, "data_segments_down": packets / 3,
        "acks_up": packets / 8, "acks_down": 2,
        "lower_bound": packets * 2 / 3, "efficiency": 0.67, "overhead_pct": 4.2,
        "headers": {"up": 42 * 160, "requests": 42, "down": 42 * 240, "responses": 42},
        "header_set": "libwww",
        "kernel": {
            "packets": spread(packets as f64 - 1.0, packets as f64 + 3.0),
            "packets_up": spread(packets as f64 / 2.0, packets as f64 / 2.0 + 2.0),
            "packets_down": spread(packets as f64 / 2.0, packets as f64 / 2.0 + 1.0),
            "data_segments": spread((42 + packets / 3) as f64, (42 + packets / 3) as f64),
            "other": spread(10.0, 14.0),
            "retransmits": spread(0.0, 0.0)
        },
        "time": {"first_byte_ms": spread(2.0, 3.5), "complete_ms": spread(21.5, 30.25)},
        "method": "netns", "mss": 1460
    })
}

fn estimate(raw: u64, deflate6: u64) -> serde_json::Value {
    json!({
        "rule": "saves at least 100 bytes and at least 10% at level 6",
        "files": [],
        "totals": {"raw": raw, "deflate6": deflate6, "deflate9": deflate6 - 50,
                   "best": deflate6 - 200, "gzip6": deflate6 + 12},
        "not_worth_it": []
    })
}

/// A site like the paper's Microscape test page: 40 GIFs, 4 modes × 2 tests × 2 versions.
fn realistic_report() -> Report {
    let mut images = Vec::new();
    let (mut from_total, mut to_total) = (0u64, 0u64);
    for i in 0..40u64 {
        let from = 500 + i * 337;
        let converted = i % 5 != 0;
        let to = if converted { from * 7 / 10 } else { from };
        from_total += from;
        to_total += to;
        let path = if i == 3 {
            "img/<odd> & \"name\".gif".to_string()
        } else {
            format!("img/pic{i:02}.gif")
        };
        images.push(json!({
            "path": path,
            "from_bytes": from,
            "to_path": if converted { path.replace(".gif", ".png") } else { path.clone() },
            "to_bytes": to,
            "frames": if i == 7 { 12 } else { 1 },
            "outcome": if converted { "converted" } else { "kept:png-larger" },
            "reason": if converted { format!("converted(-{} B)", from - to) } else { "kept:png-larger(+37 B)".into() },
            "original_kept": false,
            "millis": 3.5
        }));
    }
    let mut replay = Vec::new();
    for (site, scale) in [("original", 10u64), ("rewritten", 7)] {
        for (m, mode) in ["http10", "persistent", "pipelined", "pipelined-deflate"]
            .iter()
            .enumerate()
        {
            let packets = [500, 300, 180, 150][m] * scale / 10;
            let bytes = [190_000, 180_000, 178_000, 150_000][m] * scale / 10;
            replay.push(replay_row(site, mode, "first", packets, bytes));
            replay.push(replay_row(site, mode, "validate", packets / 2, bytes / 8));
        }
    }
    let report = json!({
        "schema_version": 2,
        "tool": {"name": "webdiet", "version": "0.1.0"},
        "site": {"path": "corpus/microscape", "name": "microscape", "rewritten": "out/microscape/site"},
        "inventory": {
            "pages": 1, "resources": 41, "bytes": 42_000 + from_total,
            "by_type": {"html": {"count": 1, "bytes": 42_000}, "gif": {"count": 40, "bytes": from_total}},
            "references": 43, "broken_references": [], "orphans": [], "external_links": 0
        },
        "images": images,
        "images_total": {"count": 40, "from_bytes": from_total, "to_bytes": to_total,
                         "by_outcome": {"converted": 32, "kept:png-larger": 8},
                         "millis": 140.0, "wall_millis": 80.0},
        "rewrite": {"dry_run": false, "documents_changed": 1, "documents_copied": 0,
                    "broken_by_rewrite": [], "precompressed": []},
        "markup": {"html_bytes_before": 42_000, "html_bytes_after": 31_000, "css_bytes": 2_400,
                   "pages": [{"path": "index.html", "bytes_before": 42_000, "bytes_after": 31_000,
                              "constructs_before": 356, "constructs_after": 10, "changed": true}]},
        "compression": {"rule": "saves at least 100 bytes and at least 10% at level 6",
                        "original": estimate(42_000, 11_000), "rewritten": estimate(33_400, 8_900)},
        "replay": replay,
        "replay_method": "private network namespace, loopback MTU 1500",
        "budgets": [{"name": "max-first-visit-bytes", "limit": 150000.0, "actual": 133000.0, "passed": true},
                    {"name": "max-packets(http10, first)", "limit": 300.0, "actual": 350.0, "passed": false}],
        "problems": [{"path": "broken<1>.html", "code": "unreadable", "message": "permission denied"}],
        "timings_ms": {"rewrite": 80.0}
    });
    let mut report: Report =
        serde_json::from_value(report).expect("the fixture matches the report schema");
    report.derive();
    report
}

fn hex(colour: &str) -> [u8; 3] {
    let n = u32::from_str_radix(colour.trim_start_matches('#'), 16).unwrap();
    [(n >> 16) as u8, (n >> 8) as u8, n as u8]
}

/// Pixels within 3 levels per channel of `colour`.
fn pixels_of(img: &diff::Image, colour: [u8; 3]) -> usize {
    img.pixels
        .chunks(img.channels)
        .filter(|p| (0..3).all(|c| p[c].abs_diff(colour[c]) <= 3))
        .count()
}

#[test]
fn the_html_report_draws_its_charts_in_a_browser() {
    if !chromium_available() {
        return;
    }
    let report = realistic_report();
    let page = html::render(&report);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("report.html");
    std::fs::write(&file, &page).unwrap();

    let opts = RenderOptions {
        window_width: 1200,
        ..RenderOptions::default()
    };
    let shot = verify::render_file(&file, &opts).expect("Chromium renders");
    // Kept for a person to look at: target/tmp/report_html/.
    let keep = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("report_html");
    std::fs::create_dir_all(&keep).unwrap();
    std::fs::write(keep.join("report.html"), &page).unwrap();
    std::fs::write(keep.join("report.png"), &shot.png).unwrap();
    std::fs::write(keep.join("report.md"), markdown::render(&report)).unwrap();

    let img = diff::decode_png(&shot.png).unwrap();
    assert!(img.channels >= 3);
    let total = (img.width * img.height) as usize;
    assert!(
        img.height > 1500,
        "a long page: {}×{}",
        img.width,
        img.height
    );
    let not_white = img
        .pixels
        .chunks(img.channels)
        .filter(|p| p[..3].iter().any(|&c| c < 240))
        .count();
    assert!(
        not_white > total / 50,
        "the page is nearly blank: {not_white} of {total}"
    );

    // Three charts use the before/after colours, one the saved colour; each bar is a solid block.
    let before = pixels_of(&img, hex(BEFORE_COLOUR));
    let after = pixels_of(&img, hex(AFTER_COLOUR));
    let saved = pixels_of(&img, hex(SAVED_COLOUR));
    assert!(before > 20_000, "original bars: {before} pixels");
    assert!(after > 15_000, "rewritten bars: {after} pixels");
    assert!(saved > 5_000, "savings bars: {saved} pixels");
}

#[test]
fn the_realistic_report_exports_to_markdown_and_self_contained_html() {
    let report = realistic_report();
    let md = markdown::render(&report);
    assert!(md.contains("| pipelined-deflate | validate |"), "{md}");
    assert!(md.contains("img/&lt;odd&gt; &amp; \"name\".gif"));
    let page = html::render(&report);
    assert!(page.contains("img/&lt;odd&gt; &amp; &quot;name&quot;.gif"));
    assert!(
        !page.contains(" src=") && !page.contains("href=\"http"),
        "nothing to fetch"
    );
    assert!(
        page.contains("href=\"#images\""),
        "opportunities link to their evidence"
    );
    for id in html::CHART_IDS {
        assert!(page.contains(&format!("<svg id=\"{id}\"")), "{id}");
    }
}

#[test]
fn an_empty_report_renders_notes_instead_of_empty_charts() {
    if !chromium_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("empty.html");
    std::fs::write(&file, html::render(&Report::default())).unwrap();
    let shot = verify::render_file(&file, &RenderOptions::default()).expect("Chromium renders");
    let keep = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("report_html");
    std::fs::create_dir_all(&keep).unwrap();
    std::fs::write(keep.join("empty.png"), &shot.png).unwrap();

    let img = diff::decode_png(&shot.png).unwrap();
    let text = img
        .pixels
        .chunks(img.channels)
        .filter(|p| p[..3].iter().all(|&c| c < 100))
        .count();
    assert!(
        text > 500,
        "headings and notes are drawn: {text} dark pixels"
    );
    assert_eq!(
        pixels_of(&img, hex(BEFORE_COLOUR)),
        0,
        "no replay or type chart"
    );
    assert_eq!(
        pixels_of(&img, hex(AFTER_COLOUR)),
        0,
        "no replay or type chart"
    );
}

/// What Chromium measures of the report at a window width: the page's width against the
/// window's, and for every SVG its class and every text's box in CSS pixels with its font
/// size as drawn (the SVG's scale applied).
const MEASURE: &str = r#"(() => {
  const svgs = [...document.querySelectorAll('svg')].map(svg => {
    const rect = svg.getBoundingClientRect();
    const vb = svg.viewBox && svg.viewBox.baseVal;
    const scale = vb && vb.width ? rect.width / vb.width : 1;
    const texts = [...svg.querySelectorAll('text')].map(t => {
      const r = t.getBoundingClientRect();
      return {text: t.textContent, x0: r.left, x1: r.right, y0: r.top, y1: r.bottom,
              px: parseFloat(getComputedStyle(t).fontSize) * scale};
    });
    return {id: svg.id, cls: svg.getAttribute('class') || '', texts};
  });
  return {window: window.innerWidth, page: document.documentElement.scrollWidth, svgs};
})()"#;

#[test]
fn every_chart_is_readable_at_desktop_and_phone_width() {
    if !chromium_available() {
        return;
    }
    // The renderers' fixed report: an audit of corpus/microscape with a named link.
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden/report/microscape/input/report.json");
    let report = Report::load(&std::fs::read(&fixture).unwrap(), &fixture).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("report.html");
    std::fs::write(&file, html::render(&report)).unwrap();
    for width in [1280, 390] {
        let opts = RenderOptions {
            window_width: width,
            ..RenderOptions::default()
        };
        let mut browser = webdiet::chromium::Browser::launch(&opts).expect("Chromium starts");
        let m = browser
            .evaluate_file(&file, MEASURE)
            .expect("the page measures");
        assert!(
            m["page"].as_f64().unwrap() <= m["window"].as_f64().unwrap() + 1.0,
            "at {width} px the page is wider than the window: {}",
            m["page"]
        );
        let svgs = m["svgs"].as_array().unwrap();
        assert!(svgs.len() >= 6, "{width} px: {} charts", svgs.len());
        for svg in svgs {
            let texts = svg["texts"].as_array().unwrap();
            let f = |t: &serde_json::Value, k: &str| t[k].as_f64().unwrap();
            for t in texts {
                assert!(
                    f(t, "px") >= 8.9,
                    "{width} px, {}: {:?} is drawn at {:.1} px",
                    svg["id"],
                    t["text"],
                    f(t, "px")
                );
            }
            for (i, a) in texts.iter().enumerate() {
                for b in &texts[i + 1..] {
                    let w = f(a, "x1").min(f(b, "x1")) - f(a, "x0").max(f(b, "x0"));
                    let h = f(a, "y1").min(f(b, "y1")) - f(a, "y0").max(f(b, "y0"));
                    assert!(
                        w <= 1.0 || h <= 1.0,
                        "{width} px, {}: {:?} overlaps {:?} ({w:.1} × {h:.1} px)",
                        svg["id"],
                        a["text"],
                        b["text"]
                    );
                }
            }
        }
    }
}
