//! A rewrite never makes a page, or the site, heavier (issue 10, point 7). The site is built
//! here with the two shapes that made a real documentation site 4.2% heavier: a colour chart
//! whose thousands of one-off `bgcolor` cells became a sheet of one-off classes that every page
//! loaded, and pages full of `<tt>`, which turned into longer `<span class=…>`. Next to them,
//! pages whose conversion pays must still be converted.

use crate::common;

use std::path::Path;

use common::webdiet;
use serde_json::Value;

/// A colour chart: `cells` cells, each with its own colour, ten to a row.
fn colour_chart(cells: u32) -> String {
    let mut page = String::from(
        "<html><head><title>Colours</title></head><body bgcolor=white>\n<table border=0>\n",
    );
    for i in 0..cells {
        if i % 10 == 0 {
            page.push_str("<tr>");
        }
        // An odd multiplier is a bijection modulo 2^24: every colour is different.
        let colour = (i.wrapping_mul(2_654_435_761) >> 3) & 0xff_ffff;
        page.push_str(&format!("<td bgcolor=\"#{colour:06X}\">{i}</td>"));
        if i % 10 == 9 {
            page.push_str("</tr>\n");
        }
    }
    page.push_str("</table>\n</body></html>\n");
    page
}

/// A reference page: `<tt>` for every name, and nothing else presentational.
fn teletype_page(uses: usize) -> String {
    let mut page = String::from("<html><head><title>API</title></head><body>\n");
    for i in 0..uses {
        page.push_str(&format!(
            "<p>The function <tt>call_{i}</tt> takes <tt>x</tt> and returns <tt>y</tt>.</p>\n"
        ));
    }
    page.push_str("</body></html>\n");
    page
}

/// A page where converting pays: the same long `<font>` over and over, and cell attributes
/// that every page of the site shares.
fn paying_page(n: usize) -> String {
    let mut page = String::from(
        "<html><head><title>News</title></head>\n<body bgcolor=\"#ffffff\" text=\"#000000\">\n\
         <table width=\"100%\" cellpadding=4 border=0>\n",
    );
    for i in 0..40 {
        page.push_str(&format!(
            "<tr><td bgcolor=\"#eeeeee\" align=center valign=top width=\"20%\">\
             <font face=\"Arial\" size=\"2\" color=\"#333333\">item {i} of page {n}</font></td>\
             <td valign=top><font face=\"Arial\" size=\"2\" color=\"#333333\">words about \
             item {i}</font></td></tr>\n"
        ));
    }
    page.push_str("</table>\n</body></html>\n");
    page
}

/// The site: a colour chart of 2,500 cells, two `<tt>` pages, ten pages that pay.
fn site(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut pages = vec![
        ("colours.html".to_string(), colour_chart(2_500)),
        ("api.html".to_string(), teletype_page(200)),
        ("api2.html".to_string(), teletype_page(50)),
    ];
    for n in 0..10 {
        pages.push((format!("news{n}.html"), paying_page(n)));
    }
    let pages: Vec<(String, Vec<u8>)> = pages
        .into_iter()
        .map(|(n, p)| (n, p.into_bytes()))
        .collect();
    let files: Vec<(&str, &[u8])> = pages.iter().map(|(n, b)| (n.as_str(), &b[..])).collect();
    common::write_site(root, &files);
    pages
}

fn deflated(bytes: &[u8]) -> u64 {
    webdiet::deflate::zlib(bytes, webdiet::deflate::SERVER_LEVEL).len() as u64
}

/// Rewrites the site with `--css MODE` and returns the report and each page's bytes after.
fn rewrite(tmp: &Path, mode: &str) -> (Value, Vec<Vec<u8>>, Option<Vec<u8>>) {
    let site_dir = tmp.join("site");
    let pages = site(&site_dir);
    let out = tmp.join(format!("out-{mode}"));
    webdiet()
        .arg("rewrite")
        .arg(&site_dir)
        .arg("--out")
        .arg(&out)
        .args(["--css", mode])
        .assert()
        .success();
    let report: Value =
        serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
    let after = pages
        .iter()
        .map(|(name, _)| std::fs::read(out.join("site").join(name)).unwrap())
        .collect();
    let sheet = report["markup"]["css_path"]
        .as_str()
        .map(|p| std::fs::read(out.join("site").join(p)).unwrap());
    (report, after, sheet)
}

fn row<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["markup"]["pages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["path"] == name)
        .unwrap_or_else(|| panic!("{name} has a row"))
}

#[test]
fn no_page_and_not_the_site_gets_heavier_raw_or_deflated_in_any_css_mode() {
    let tmp = tempfile::tempdir().unwrap();
    let pages = site(&tmp.path().join("originals"));
    for mode in ["auto", "site-sheet", "per-page", "inline-style"] {
        let (report, after, sheet) = rewrite(tmp.path(), mode);
        let (mut raw, mut packed) = ((0, 0), (0, 0));
        for ((name, before), after) in pages.iter().zip(&after) {
            assert!(
                after.len() <= before.len(),
                "{mode}: {name} grew from {} to {} bytes",
                before.len(),
                after.len()
            );
            assert!(
                deflated(after) <= deflated(before),
                "{mode}: {name} grew deflated from {} to {} bytes",
                deflated(before),
                deflated(after)
            );
            raw = (raw.0 + before.len() as u64, raw.1 + after.len() as u64);
            packed = (packed.0 + deflated(before), packed.1 + deflated(after));
        }
        if let Some(sheet) = &sheet {
            raw.1 += sheet.len() as u64;
            packed.1 += deflated(sheet);
        }
        assert!(
            raw.1 <= raw.0,
            "{mode}: site HTML+CSS {} → {}",
            raw.0,
            raw.1
        );
        assert!(
            packed.1 <= packed.0,
            "{mode}: site deflated HTML+CSS {} → {}",
            packed.0,
            packed.1
        );
        // The report's "before" is the original page: one size per page, raw and deflated.
        for (name, before) in &pages {
            let row = row(&report, name);
            assert_eq!(row["bytes_before"], before.len() as u64, "{mode}: {name}");
            assert_eq!(row["deflated_before"], deflated(before), "{mode}: {name}");
        }
        // `<tt>` stays `<tt>`: its CSS form is longer than the element.
        for name in ["api.html", "api2.html"] {
            let row = row(&report, name);
            assert_eq!(row["changed"], false, "{mode}: {row:#}");
            assert_eq!(
                row["by_construct"]["tt"]["after"],
                row["by_construct"]["tt"]["before"]
            );
            assert!(
                row["left_as_is"]["css-longer"].as_u64().unwrap() > 0,
                "{row:#}"
            );
        }
    }
}

#[test]
fn a_colour_chart_keeps_its_cells_and_stays_out_of_the_shared_sheet() {
    let tmp = tempfile::tempdir().unwrap();
    let (report, _, sheet) = rewrite(tmp.path(), "site-sheet");
    let chart = row(&report, "colours.html");
    assert_eq!(chart["changed"], false, "{chart:#}");
    // Its cells get smaller as classes, raw and deflated, but not with the 2,500 one-off
    // rules it would add to the sheet every page loads.
    let reason = chart["kept"]
        .as_str()
        .and_then(|k| k.strip_prefix("kept:"))
        .unwrap_or_else(|| panic!("the chart keeps its bytes with a reason: {chart:#}"));
    assert_eq!(reason, "sheet-share", "{chart:#}");
    assert!(
        chart["left_as_is"][reason].as_u64().unwrap() >= 2_500,
        "{chart:#}"
    );
    let kept = &report["markup"]["pages_kept"];
    assert!(kept[reason].as_u64().unwrap() >= 1, "{kept:#}");
    // The shared sheet holds the rules the news pages share, not 2,500 one-off colours.
    let sheet = sheet.expect("the news pages link a shared sheet");
    assert!(
        sheet.len() < 2_000,
        "a sheet of {} bytes is not the colour chart's",
        sheet.len()
    );
}

/// The weight rule keeps the pages a conversion would make heavier, and only those: with the
/// shared sheet (named, since by default a sheet is not given to pages without one, which it
/// would make paint later), every news page is converted.
#[test]
fn pages_where_the_conversion_pays_are_still_converted() {
    let tmp = tempfile::tempdir().unwrap();
    let pages = site(&tmp.path().join("originals"));
    let (report, after, _) = rewrite(tmp.path(), "site-sheet");
    assert_ne!(
        report["markup"]["css_mode"], "unchanged",
        "{:#}",
        report["markup"]
    );
    for ((name, before), after) in pages.iter().zip(&after) {
        if !name.starts_with("news") {
            continue;
        }
        let row = row(&report, name);
        assert_eq!(row["changed"], true, "{name}: {row:#}");
        assert_eq!(row["constructs_after"], 0, "{name}: {row:#}");
        assert!(after.len() < before.len(), "{name}");
        let text = String::from_utf8_lossy(after);
        assert!(
            !text.contains("<font") && !text.contains("bgcolor"),
            "{name}"
        );
    }
    assert_eq!(report["markup"]["pages_changed"], 10);
}

/// Pages with no style sheet, whose markup a shared sheet would make lighter: by default the
/// rewrite does not give them the sheet, which would make every first visit wait for it
/// before anything paints (issue 40: two documentation sites painted a third later); asked for
/// by name, it does, and the audit's visitor says they paint later.
#[test]
fn by_default_no_page_gets_a_sheet_that_would_make_it_paint_later() {
    let tmp = tempfile::tempdir().unwrap();
    let (auto, after, sheet) = rewrite(tmp.path(), "auto");
    assert_ne!(
        auto["markup"]["css_mode"], "site-sheet",
        "{:#}",
        auto["markup"]
    );
    assert!(sheet.is_none(), "no shared sheet is written");
    for page in &after {
        let text = String::from_utf8_lossy(page);
        assert!(!text.contains("rel=\"stylesheet\""), "{text}");
    }
    // The shared sheet was the cheapest in bytes, and the report says why it was not taken.
    let totals = &auto["markup"]["mode_totals"];
    let cheapest = totals
        .as_object()
        .unwrap()
        .iter()
        .min_by_key(|(_, v)| v.as_u64().unwrap())
        .map(|(k, _)| k.clone())
        .unwrap();
    assert!(cheapest.starts_with("site-sheet"), "{totals}");
    let reason = auto["markup"]["css_mode_reason"].as_str().unwrap();
    assert!(reason.contains("paint later"), "{reason}");

    // Named, the sheet is the user's: taken, and the audit's visitor counts the pages that
    // paint later.
    let site_dir = tmp.path().join("site");
    let out = tmp.path().join("audit-sheet");
    webdiet()
        .arg("audit")
        .arg(&site_dir)
        .args(["--css", "site-sheet", "--out"])
        .arg(&out)
        .assert()
        .success();
    let report: Value =
        serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
    assert_eq!(report["markup"]["css_mode"], "site-sheet");
    let later = report["visitor"]["links"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["speaks"] == "h2" && l["visit"] == "first")
        .map(|l| l["later"].as_array().unwrap().len())
        .max()
        .unwrap();
    assert!(later > 0, "{:#}", report["visitor"]["links"][0]["later"]);
}
