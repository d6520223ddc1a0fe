//! Hostile page shapes do not crash webdiet or exhaust memory. Depth: pages of 1,000,000 nested
//! `<div>`, `<font>` and tables, and 100,000 `<table>` tags in a row, through `analyze`,
//! `rewrite` and `audit --no-replay`, run as the binary with the default main-thread stack.
//! Pages nested deeper than `html::MAX_DEPTH` are read from their start tags (`too-deep`) and
//! keep their markup; the GIF they name at the deepest level is still converted and its
//! reference rewritten. Size: a 10 MB page is rewritten within the memory bound that
//! `docs/markup.md` ("Limits") documents, a page of converted tables takes under 20 bytes
//! of memory per byte more as it grows (issue 24: 15 MB in under 300 MB), and a page with a
//! colour of its own on every row takes CPU in proportion to its size (issue 39: twice the
//! page took 3.3 times the CPU).

use crate::common;

use std::path::Path;

use common::webdiet;

const NESTING: usize = 1_000_000;

/// The pages: `(name, bytes)`. Each opens with a colour and an image, nests, and names a GIF
/// at the bottom (unclosed tags: the parser closes them at the end of the page, and the page
/// stays under the 16 MiB parse limit).
fn pages() -> Vec<(&'static str, Vec<u8>)> {
    let page = |open: &str, n: usize| {
        let mut text = String::from("<html><body bgcolor=white><img src=top.gif>");
        text.push_str(&open.repeat(n));
        text.push_str("<font color=red>deepest</font><img src=pic.gif alt=deep>");
        text.into_bytes()
    };
    vec![
        ("div.html", page("<div>", NESTING)),
        ("font.html", page("<font>", NESTING)),
        ("table.html", page("<table><td>", NESTING)),
        ("tables-in-a-row.html", page("<table>", 100_000)),
    ]
}

fn site(root: &Path) -> Vec<(&'static str, Vec<u8>)> {
    let pages = pages();
    let gif = common::encodings::picture_gif();
    let mut files: Vec<(&str, &[u8])> = pages.iter().map(|(n, b)| (*n, &b[..])).collect();
    files.push(("pic.gif", &gif));
    files.push(("top.gif", &gif));
    common::write_site(root, &files);
    pages
}

#[test]
fn analyze_reads_every_reference_of_pages_nested_a_million_deep() {
    let tmp = tempfile::tempdir().unwrap();
    site(tmp.path());
    let inv = common::analyze_json(tmp.path());
    let too_deep: Vec<&str> = inv["problems"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["code"] == "too-deep")
        .filter_map(|p| p["path"].as_str())
        .collect();
    for name in ["div.html", "font.html", "table.html"] {
        assert!(
            too_deep.iter().any(|p| p.ends_with(name)),
            "{name}: {too_deep:?}"
        );
    }
    assert!(!too_deep.iter().any(|p| p.ends_with("tables-in-a-row.html")));
    // The images at the top and at the bottom of the pages were found.
    let orphans = inv["orphans"].as_array().unwrap();
    for image in ["pic.gif", "top.gif"] {
        assert!(!orphans.iter().any(|o| o == image), "{orphans:?}");
    }
    assert_eq!(inv["broken_references"], serde_json::json!([]));
}

#[test]
fn rewrite_keeps_pages_nested_a_million_deep_and_points_them_at_the_png() {
    let tmp = tempfile::tempdir().unwrap();
    let pages = site(&tmp.path().join("site"));
    let out = tmp.path().join("out");
    webdiet()
        .arg("rewrite")
        .arg(tmp.path().join("site"))
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
    for (name, before) in &pages {
        let after = std::fs::read(out.join("site").join(name)).unwrap();
        let text = String::from_utf8(after.clone()).unwrap();
        assert!(text.ends_with("<img src=pic.png alt=deep>"), "{name}");
        let row = report["markup"]["pages"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["path"] == *name)
            .unwrap();
        if *name == "tables-in-a-row.html" {
            // Not too deep: parsed and converted, or kept only for its bytes.
            assert!(row["left_as_is"].get("too-deep").is_none(), "{row:#}");
            assert!(row["changed"] == true || row["kept"].is_string(), "{row:#}");
            continue;
        }
        // Only the two image references changed: same length, `.gif` → `.png`.
        assert_eq!(after.len(), before.len(), "{name}");
        let restored = text.replace(".png", ".gif");
        assert!(restored.as_bytes() == &before[..], "{name}");
        assert_eq!(row["changed"], false, "{row:#}");
        assert!(
            row["left_as_is"]["too-deep"].as_u64().unwrap() >= 2,
            "{row:#}"
        );
    }
    assert_eq!(
        report["rewrite"]["broken_by_rewrite"],
        serde_json::json!([])
    );
}

#[test]
fn audit_without_replay_finishes_on_pages_nested_a_million_deep() {
    let tmp = tempfile::tempdir().unwrap();
    site(&tmp.path().join("site"));
    let out = tmp.path().join("out");
    webdiet()
        .arg("audit")
        .arg(tmp.path().join("site"))
        .arg("--out")
        .arg(&out)
        .arg("--no-replay")
        .assert()
        .success();
    assert!(out.join("report.json").is_file());
    assert!(out.join("site/div.html").is_file());
}

/// A page of `bytes` bytes of ordinary markup: paragraphs of text with links, and every tenth
/// block a table with presentational attributes and a `<font>`, for the markup pass to convert.
fn large_page(bytes: usize) -> Vec<u8> {
    let mut page = String::from("<html><head><title>big</title></head><body bgcolor=white>\n");
    let mut i = 0;
    while page.len() < bytes {
        let words = format!("paragraph {i} of a large page, with some words to make it longer ");
        if i % 10 == 0 {
            page.push_str(&format!(
                "<table border=1 cellpadding=2><tr><td bgcolor=#eeeeee align=center>\
                 <font color=red>{words}</font></td><td>{words}</td></tr></table>\n"
            ));
        } else {
            page.push_str(&format!(
                "<p>{words}{words}<a href=\"p{i}.html\">link</a></p>\n"
            ));
        }
        i += 1;
    }
    page.push_str("</body></html>\n");
    page.into_bytes()
}

/// Peak resident memory of a child process, read from /proc while it runs.
fn peak_memory(mut child: std::process::Child) -> (std::process::ExitStatus, u64) {
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak_kb = 0;
    loop {
        if let Ok(status) = std::fs::read_to_string(&status_file) {
            let hwm = status
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok());
            peak_kb = peak_kb.max(hwm.unwrap_or(0));
        }
        if let Some(status) = child.try_wait().unwrap() {
            return (status, peak_kb * 1024);
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// Rewrites a site of one page; the peak resident memory, once the page was converted.
fn rewrite_peak(page: &[u8]) -> u64 {
    let tmp = tempfile::tempdir().unwrap();
    common::write_site(&tmp.path().join("site"), &[("index.html", page)]);
    let out = tmp.path().join("out");
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("webdiet"))
        .arg("rewrite")
        .arg(tmp.path().join("site"))
        .arg("--out")
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let (status, peak) = peak_memory(child);
    assert!(status.success());
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
    assert_eq!(
        report["markup"]["pages_changed"], 1,
        "the page was converted"
    );
    peak
}

#[test]
fn a_10_mb_page_is_rewritten_within_the_documented_memory_bound() {
    let page = large_page(10_000_000);
    let peak = rewrite_peak(&page);
    // docs/markup.md: a page of ordinary markup takes at most 40 times its size.
    let bound = 40 * page.len() as u64;
    assert!(peak < bound, "peak {peak} bytes ≥ {bound}");
}

/// `benches/huge-page.sh`'s `table` page: four elements to convert every 164 bytes (a table
/// with a width, a cell with a colour and an alignment, a `<font>`), the worst shape the
/// converter meets.
fn table_page(bytes: usize) -> Vec<u8> {
    let mut page = String::from("<html><body>");
    let mut n = 0;
    while page.len() < bytes {
        page.push_str(&format!(
            "<table width=100%><tr><td bgcolor=#eeeeee align=center><font face=Arial size=2 \
             color=red>Item {n} of the old news</font></td></tr></table><center><b>x</b></center>"
        ));
        n += 1;
    }
    page.push_str("</body></html>");
    page.into_bytes()
}

#[test]
fn a_page_of_converted_tables_takes_under_20_bytes_of_memory_per_byte_more_as_it_grows() {
    // Issue 24: 15 MB in under 300 MB. The slope between two sizes leaves out what does not
    // grow with the page (the binary, the threads), which a debug build makes larger. From 2
    // to 5 MB it was 25 bytes per byte before the converter's lists and edits were made
    // compact, 16 after (docs/markup.md, "Limits").
    let (small, large) = (table_page(2_000_000), table_page(5_000_000));
    let (small_peak, large_peak) = (rewrite_peak(&small), rewrite_peak(&large));
    assert!(
        large_peak > small_peak,
        "{large_peak} bytes at most for the larger page"
    );
    let grown = large_peak - small_peak;
    let bound = 20 * (large.len() - small.len()) as u64;
    assert!(
        grown < bound,
        "{grown} bytes more for {} bytes more of page: at least 20 per byte",
        large.len() - small.len()
    );
}

/// [`table_page`] with a colour of its own on every row (`benches/huge-page.sh`'s `colours`
/// page): the cell's background and the text, so that every row adds two rules of its own to
/// the style sheet.
fn colours_page(bytes: usize) -> Vec<u8> {
    let mut page = String::from("<html><body>");
    let mut n: u32 = 0;
    while page.len() < bytes {
        let (background, text) = (
            n.wrapping_mul(40503) & 0xff_ffff,
            n.wrapping_mul(9973) & 0xff_ffff,
        );
        page.push_str(&format!(
            "<table width=100%><tr><td bgcolor=#{background:06x} align=center><font face=Arial \
             size=2 color=#{text:06x}>Item {n} of the old news</font></td></tr></table>\
             <center><b>x</b></center>"
        ));
        n += 1;
    }
    page.push_str("</body></html>");
    page.into_bytes()
}

/// The CPU time (user and system, GNU time) of `webdiet rewrite` on a site of one page: the
/// least of `runs` runs. `None` without GNU time.
fn rewrite_cpu(page: &[u8], runs: usize) -> Option<f64> {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    common::write_site(&site, &[("index.html", page)]);
    let mut least = f64::INFINITY;
    for run in 0..runs {
        let out = tmp.path().join(format!("out{run}"));
        let args = [
            "rewrite".as_ref(),
            site.as_os_str(),
            "--out".as_ref(),
            out.as_os_str(),
            "--quiet".as_ref(),
        ];
        least = least.min(common::cpu_seconds(&args)?);
    }
    Some(least)
}

/// Issue 39: a 15 MB page with a colour of its own on every row did not finish in 10 minutes;
/// twice the page took 3.3 times the CPU. Naming the sheet's rules compared every rule's hash
/// with every other's, quadratic in the rules, and the page has two rules a row.
///
/// What is checked is the relation the issue is about, twice the page for about twice the
/// CPU, measured as it happens: the CPU time of the binary on a page and on the page twice
/// over. A ratio of two runs on the same machine does not depend on its speed, and CPU time
/// (not wall time) leaves out the time other processes take; each figure is the least of two
/// runs, taken under the timing lock so that no timing test runs beside it. The debug binary
/// is what runs, whose time follows the work done more closely than an optimised one's
/// (less of it is waiting on memory). Linear work gives 2.0 (measured 1.9 to 2.1); the
/// quadratic naming gave about 3 at these sizes and more with every doubling; 2.6 leaves
/// room for a loaded machine. A count of operations exposed by the library would be exact,
/// but would count only what it was put in to count; a slope of memory does not see CPU.
#[test]
fn a_page_with_a_colour_of_its_own_on_every_row_takes_cpu_in_proportion_to_its_size() {
    if !common::gnu_time() {
        return;
    }
    let (small, large) = (colours_page(600_000), colours_page(1_200_000));
    let _turn = common::timing_turn();
    let (Some(small_cpu), Some(large_cpu)) = (rewrite_cpu(&small, 2), rewrite_cpu(&large, 2))
    else {
        return;
    };
    let ratio = large_cpu / small_cpu;
    assert!(
        ratio < 2.6,
        "{large_cpu:.2} CPU-s for {} bytes against {small_cpu:.2} for {}: {ratio:.2} times",
        large.len(),
        small.len()
    );
}
