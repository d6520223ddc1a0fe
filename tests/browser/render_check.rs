//! The rewrite must not change how pages look: the default corpus, samples of Space Jam and of
//! HTML Tidy's clean-mode regression cases, a page of spacer GIFs and every golden markup case,
//! rewritten (images and markup), render pixel-identical in headless Chromium; so does a page in
//! every encoding family and one per way of deciding an encoding (`common::encodings`), and a
//! windows-1252 page whose icon sheet was minified.

use crate::common;

use std::path::Path;

use common::{chromium_available, shared_corpus, webdiet};

/// Rewrites `site` into a temporary directory and checks `pages` of it (all when `None`).
fn rewrite_and_verify(site: &Path, pages: Option<usize>) {
    rewrite_and_verify_with(site, pages, &[]);
}

/// The same, with extra `rewrite` arguments; returns the rewrite's report.
fn rewrite_and_verify_with(site: &Path, pages: Option<usize>, args: &[&str]) -> serde_json::Value {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    webdiet()
        .arg("rewrite")
        .args(args)
        .arg(site)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let checked = verify_trees(site, &out.join("site"), tmp.path(), pages);
    assert!(checked > 0, "no page of {} was checked", site.display());
    serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap()
}

/// `webdiet verify` on two trees: every page checked must be pixel-identical. Returns how many
/// pages were checked.
fn verify_trees(original: &Path, rewritten: &Path, scratch: &Path, pages: Option<usize>) -> usize {
    let mut verify = webdiet();
    verify
        .arg("verify")
        .arg(original)
        .arg(rewritten)
        .arg("--out")
        .arg(scratch.join("diff"))
        .arg("--json");
    if let Some(n) = pages {
        verify.args(["--pages", &n.to_string()]);
    }
    let output = verify.output().unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|_| panic!("verify failed: {}", String::from_utf8_lossy(&output.stderr)));
    let differing: Vec<String> = report["pages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["differing_pixels"] != 0)
        .map(|p| format!("{} ({} px)", p["page"], p["differing_pixels"]))
        .collect();
    assert!(
        differing.is_empty(),
        "pages render differently: {differing:?}"
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    report["pages"].as_array().unwrap().len()
}

#[test]
fn the_rewritten_default_corpus_renders_pixel_identical() {
    if chromium_available() {
        rewrite_and_verify(&common::microscape(), None);
    }
}

#[test]
fn the_default_corpus_rewritten_to_webp_renders_pixel_identical() {
    if !chromium_available() {
        return;
    }
    let report = rewrite_and_verify_with(&common::microscape(), None, &["--image-format", "webp"]);
    let webp = report["images"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["format"] == "webp")
        .count();
    assert!(webp > 0, "some pages really show WebP images");
}

#[test]
fn pages_minified_by_minify_html_render_pixel_identical() {
    if !chromium_available() {
        return;
    }
    let report = rewrite_and_verify_with(&common::microscape(), None, &["--minify-html"]);
    let rows = report["lossless"]["rows"].as_array().unwrap();
    let minified = rows
        .iter()
        .filter(|r| r["kind"] == "html" && r["outcome"] == "optimized")
        .count();
    assert!(minified > 0, "the check compared minified pages: {rows:?}");
}

#[test]
fn a_sample_of_rewritten_space_jam_pages_renders_pixel_identical() {
    let Some(spacejam) = shared_corpus("spacejam") else {
        return;
    };
    if chromium_available() {
        rewrite_and_verify(&spacejam, Some(12));
    }
}

/// A GIF of `w × h` pixels, all palette index 0 (`transparent` makes index 0 transparent).
fn flat_gif(w: u16, h: u16, rgb: [u8; 3], transparent: bool) -> Vec<u8> {
    let palette = [rgb[0], rgb[1], rgb[2], 255, 255, 255];
    let pixels = vec![0u8; usize::from(w) * usize::from(h)];
    common::still_gif(w, h, &palette, transparent.then_some(0), pixels)
}

/// Spacers in the places old sites put them: alone in cells, between words, stretched into
/// rules, floated, aligned, inside links, with one size or none declared.
const SPACER_BODY: &str = r##"<body bgcolor=white>
<table border=0 cellpadding=0 cellspacing=0><tr>
<td bgcolor=#ffcc00><img src=s.gif width=140 height=6></td><td><img src=s.gif width=1 height=30></td>
<td valign=top><font size=5>Big<img src=s.gif width=20 height=1>words</font></td></tr>
<tr><td colspan=3><img src="img/black.gif" width=600 height=2></td></tr>
<tr><td><img src=s.gif width=10></td><td><img src=s.gif height=7></td><td><img src=s.gif></td></tr>
</table>
<p>Text <img src=s.gif width=30 height=30 align=left> floated left, then
<img src=s.gif width=12 height=12 align=right hspace=4 vspace=2> right, and
<img src=s.gif width=8 height=40 align=absmiddle>middle, <img src=s.gif width=8 height=40 align=top>top,
<img src="img/black.gif" width=3 height=3 align=middle>dot.
<p><a href="x.html"><img src=s.gif width=50 height=20 border=0></a>linked
<a href="y.html"><img src="img/black.gif" width=50 height=5></a>bar
<center><img src=s.gif width=300 height=10><br><img src="img/blue.gif" width=200 height=1></center>
<p>Kept: <img src=s.gif width=10 height=10 alt="*">star, <img src=s.gif width=20 height=20 usemap="#m">map,
<img src=s.gif width="50%" height=4>half, <img src="img/black.gif" width=9 height=9 border=2>boxed.
<map name=m><area href=z.html coords="0,0,5,5"></map>
</body>"##;

/// Copies of the spacer page in each rendering mode.
const PAGES_PER_MODE: usize = 20;

#[test]
fn spacer_gifs_become_sized_spans_and_render_pixel_identical() {
    if !chromium_available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    let quirks = format!("<html>{SPACER_BODY}</html>");
    let standards = format!("<!DOCTYPE html><html>{SPACER_BODY}</html>");
    let black = flat_gif(1, 1, [0, 0, 0], false);
    let blue = flat_gif(2, 2, [0, 0, 153], false);
    // A site of 20 pages in each mode with the same layout: spacers alone make one page
    // heavier (spans and their CSS), and the rewrite never makes a page heavier; shared by
    // 40 pages, the sheet pays.
    let names: Vec<(String, String)> = (0..PAGES_PER_MODE)
        .map(|n| (format!("quirks{n}.html"), format!("standards{n}.html")))
        .collect();
    let mut files: Vec<(&str, &[u8])> = vec![
        ("s.gif", common::SPACER_GIF),
        ("img/black.gif", &black),
        ("img/blue.gif", &blue),
    ];
    for (q, s) in &names {
        files.push((q, quirks.as_bytes()));
        files.push((s, standards.as_bytes()));
    }
    common::write_site(&site, &files);
    let out = tmp.path().join("out");
    // The shared sheet named: by default these pages, which have no sheet, would keep their
    // markup rather than paint later (tests/pipeline/markup_weight.rs).
    webdiet()
        .arg("rewrite")
        .arg(&site)
        .args(["--css", "site-sheet"])
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
    let markup = &report["markup"];
    let before = markup["constructs_before"]["spacer-gif"].as_u64().unwrap();
    let after = markup["constructs_after"]["spacer-gif"]
        .as_u64()
        .unwrap_or(0);
    // 20 spacers per page; per page four are kept (alt text, usemap, a percentage, a border
    // under a solid fill).
    let pages = 2 * PAGES_PER_MODE as u64;
    assert_eq!((before, after), (pages * 20, pages * 4), "{markup:#}");
    let page = std::fs::read_to_string(out.join("site/quirks0.html")).unwrap();
    assert_eq!(page.matches("<img").count(), 4, "{page}");
    // The pages are copies: four of them, two in each mode, are enough to render.
    assert_eq!(
        verify_trees(&site, &out.join("site"), tmp.path(), Some(4)),
        4
    );
}

/// A GIF standing for an `images.tsv` row: one flat fill, or two colours in stripes (`-`).
fn golden_image(w: u16, h: u16, fill: &str) -> Vec<u8> {
    match fill {
        "transparent" => flat_gif(w, h, [0, 0, 0], true),
        "-" => {
            let pixels = (0..usize::from(w) * usize::from(h))
                .map(|i| ((i / 3) % 2) as u8)
                .collect();
            common::still_gif(w, h, &[200, 30, 30, 30, 30, 200], None, pixels)
        }
        hex => {
            let n = u32::from_str_radix(hex.trim_start_matches('#'), 16).unwrap();
            flat_gif(w, h, [(n >> 16) as u8, (n >> 8) as u8, n as u8], false)
        }
    }
}

#[test]
fn every_golden_markup_case_renders_like_its_input() {
    if !chromium_available() {
        return;
    }
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/markup");
    let tmp = tempfile::tempdir().unwrap();
    let (before, after) = (tmp.path().join("input"), tmp.path().join("expected"));
    let mut cases = 0;
    for entry in std::fs::read_dir(&golden).unwrap() {
        let case = entry.unwrap().path();
        if !case.join("input.html").exists() {
            continue;
        }
        cases += 1;
        let name = case.file_name().unwrap().to_str().unwrap().to_string();
        let read = |f: &str| std::fs::read(case.join(f)).unwrap_or_default();
        let mut images = Vec::new();
        for line in String::from_utf8(read("images.tsv")).unwrap().lines() {
            let f: Vec<&str> = line.split('\t').collect();
            if f.len() == 5 {
                let bytes = golden_image(f[1].parse().unwrap(), f[2].parse().unwrap(), f[3]);
                images.push((format!("{name}/{}", f[0]), bytes));
            }
        }
        let page = format!("{name}/input.html");
        let css = format!("{name}/webdiet.css");
        let mut a: Vec<(&str, &[u8])> = images.iter().map(|(p, b)| (p.as_str(), &b[..])).collect();
        let mut b = a.clone();
        let (input, expected, sheet) = (
            read("input.html"),
            read("expected.html"),
            read("expected.css"),
        );
        a.push((&page, &input));
        b.push((&page, &expected));
        b.push((&css, &sheet));
        common::write_site(&before, &a);
        common::write_site(&after, &b);
    }
    assert!(cases > 0, "no golden cases under {}", golden.display());
    assert_eq!(verify_trees(&before, &after, tmp.path(), None), cases);
}

#[test]
fn a_sample_of_html_tidys_clean_mode_cases_renders_pixel_identical() {
    let Some(cases) = shared_corpus("tidy-clean") else {
        return;
    };
    if chromium_available() {
        rewrite_and_verify(&cases, Some(48));
    }
}

#[test]
fn a_page_in_every_encoding_family_renders_pixel_identical_after_the_rewrite() {
    if !chromium_available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    let pages = common::encodings::write(&site);
    let out = tmp.path().join("out");
    // The shared sheet named: by default these pages, which have no sheet, would keep their
    // markup rather than paint later (tests/pipeline/markup_weight.rs).
    webdiet()
        .arg("rewrite")
        .arg(&site)
        .args(["--css", "site-sheet"])
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    for page in &pages {
        let after = std::fs::read(out.join("site").join(page.name)).unwrap();
        assert_ne!(after, page.bytes, "{} was converted", page.name);
    }
    let checked = verify_trees(&site, &out.join("site"), tmp.path(), None);
    assert_eq!(checked, pages.len());
}

/// Issue 24, item 3: pages whose encoding only the browser's own rules decide (an unlabelled
/// EUC-JP page, `<!-->` before the `<meta>`, a `<meta>` after byte 1024 still in the head, a
/// `<meta content>` without `http-equiv`, an XML declaration, a `<meta>` in a script string),
/// each with a cell whose background picture has a non-ASCII name, rewritten with a shared
/// sheet: pixel-identical in Chromium. (Before, the value was moved into the sheet in the
/// encoding webdiet had wrongly decided, and the picture was lost.)
#[test]
fn pages_whose_encoding_only_the_browser_s_rules_decide_render_pixel_identical() {
    if !chromium_available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    // With the family pages, so that the shared sheet pays for itself.
    let family = common::encodings::write(&site);
    let pages = common::encodings::write_sniffed(&site);
    let out = tmp.path().join("out");
    webdiet()
        .arg("rewrite")
        .arg(&site)
        .arg("--out")
        .arg(&out)
        .args(["--css", "site-sheet"])
        .assert()
        .success();
    for page in &pages {
        let after = std::fs::read(out.join("site").join(page.name)).unwrap();
        assert_ne!(after, page.bytes, "{} was converted", page.name);
    }
    let checked = verify_trees(&site, &out.join("site"), tmp.path(), None);
    assert_eq!(checked, pages.len() + family.len());
}

/// Words split by presentational tags that have no effect: `<font>` without attributes, with
/// an empty `color`, and `<basefont>` between two words. Chromium shapes each text node on its
/// own, so unwrapping such a font or removing such a basefont (joining the text around it)
/// moved 70,563 px of 1,000 words; the fonts stay (without the empty attribute) and the
/// basefonts between words stay.
#[test]
fn words_split_by_tags_without_effect_render_pixel_identical() {
    if !chromium_available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    let words: String = (0..1000)
        .map(|i| match i % 4 {
            0 => format!("<font color=\"\">w{i}</font> "),
            1 => format!("<font>w{i}</font> "),
            2 => format!("w{i} <basefont size={}>", i % 7 + 1),
            _ => format!("w{i} "),
        })
        .collect();
    let page = format!("<html><body bgcolor=white><p>{words}</body></html>");
    common::write_site(&site, &[("words.html", page.as_bytes())]);
    // The conversion itself, as the library makes it (the rewrite keeps this page as it is:
    // the change saves raw bytes but not deflated ones).
    let converted = webdiet::markup::convert_page(
        page.as_bytes(),
        &webdiet::markup::MarkupOptions {
            css: webdiet::markup::CssMode::InlineStyle,
            page_path: "words.html".into(),
            ..Default::default()
        },
    );
    assert!(converted.changed, "{:?}", converted.left_as_is);
    let joins = converted
        .left_as_is
        .iter()
        .filter(|(c, r)| *c == "basefont" && *r == "joins-text")
        .count();
    assert_eq!(joins, 250);
    let after = converted.bytes(page.as_bytes(), None);
    let text = String::from_utf8(after.clone()).unwrap();
    assert_eq!(
        text.matches("<font>").count(),
        500,
        "the fonts stay: {text}"
    );
    let out = tmp.path().join("out");
    common::write_site(&out.join("site"), &[("words.html", &after)]);
    assert_eq!(verify_trees(&site, &out.join("site"), tmp.path(), None), 1);
}

/// Presentational markup whose conversion pays on any page (the pass must save bytes): a
/// `<font>` that becomes a class, and lines after `<basefont>` tags, which go.
fn fonts() -> String {
    let lines: String = (0..300)
        .map(|i| format!("<basefont size={}><p>line {i}\n", i % 7 + 1))
        .collect();
    format!("<p><font color=\"#990000\" face=\"Arial\" size=\"+1\">Some words</font></p>{lines}")
}

#[test]
fn pages_with_a_base_href_render_pixel_identical_and_nothing_breaks() {
    if !chromium_available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    let page = |base: &str, img: &str| {
        format!(
            "<html><head><title>t</title><base href=\"{base}\"></head>\
             <body bgcolor=\"#ffffcc\" text=\"#003300\"><img src=\"{img}\" width=64 height=48>{}\
             </body></html>",
            fonts()
        )
    };
    common::write_site(
        &site,
        &[
            ("index.html", page("sub/", "logo.gif").as_bytes()),
            ("doc/deep.html", page("../sub/", "logo.gif").as_bytes()),
            ("doc/here.html", page("./", "../sub/logo.gif").as_bytes()),
            ("sub/logo.gif", &common::seeded_gif(7)),
        ],
    );
    let report = rewrite_and_verify_with(&site, None, &["--css", "site-sheet"]);
    assert_eq!(
        report["rewrite"]["broken_by_rewrite"],
        serde_json::json!([])
    );
    assert!(
        report["markup"]["pages_changed"].as_u64().unwrap() > 0,
        "the pages are converted: {}",
        report["markup"]
    );
}

#[test]
fn pages_whose_scripts_set_presentational_attributes_render_pixel_identical() {
    if !chromium_available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    let page = |body_attrs: &str, body: &str| {
        format!(
            "<html><head><title>t</title></head><body bgcolor=\"#ffffff\" {body_attrs}>{body}{}\
             </body></html>",
            fonts()
        )
    };
    let pages = [
        ("document-bgcolor.html", page("onload=\"document.bgColor = '#ff0000'\"", "")),
        (
            "set-attribute.html",
            page(
                "",
                "<table bgcolor=\"#ffffff\"><tr><td id=c bgcolor=\"#eeeeee\">cell</td></tr></table>\
                 <script>document.getElementById('c').setAttribute('bgcolor', '#ff0000')</script>",
            ),
        ),
        (
            "font-color.html",
            page(
                "",
                "<font id=f color=\"#000099\">blue</font>\
                 <script>document.getElementById('f').color = '#00ff00'</script>",
            ),
        ),
        (
            "align.html",
            page(
                "",
                "<p align=left id=p>moved</p>\
                 <script>setTimeout(function () { document.getElementById('p').align = 'right' }, 20)</script>",
            ),
        ),
        (
            "jquery-attr.html",
            page("", "<div id=d align=left>x</div><script src=\"js/attr.js\"></script>"),
        ),
        ("plain.html", page("", "<script>var n = 1 + 1;</script>")),
    ];
    let mut files: Vec<(&str, &[u8])> = pages.iter().map(|(p, t)| (*p, t.as_bytes())).collect();
    // A jQuery-style helper in a script file of its own.
    let attr_js = b"var $ = function (id) { var el = document.getElementById(id); \
        return { attr: function (n, v) { el.setAttribute(n, v); return this; } }; };\n\
        $('d').attr('align', 'right');";
    files.push(("js/attr.js", attr_js));
    common::write_site(&site, &files);
    let report = rewrite_and_verify_with(&site, None, &[]);
    // Each page whose script names what the pass converts keeps its markup, with the reason.
    for page in report["markup"]["pages"].as_array().unwrap() {
        let path = page["path"].as_str().unwrap();
        let reason = &page["left_as_is"]["script-touches-markup"];
        if path == "plain.html" {
            assert!(reason.is_null(), "{page}");
        } else {
            assert!(!page["changed"].as_bool().unwrap(), "{page}");
            assert!(reason.as_u64().unwrap() > 0, "{page}");
        }
    }
}

/// `webdiet verify ORIGINAL REWRITTEN --out DIFF --json`, run to its end.
fn verify_output(original: &Path, rewritten: &Path, diff: &Path) -> std::process::Output {
    webdiet()
        .arg("verify")
        .arg(original)
        .arg(rewritten)
        .arg("--out")
        .arg(diff)
        .arg("--json")
        .output()
        .unwrap()
}

#[test]
fn a_modern_site_renders_pixel_identical_after_its_images_and_style_sheet_are_optimised() {
    if !chromium_available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("docs");
    common::modern::write(&site);
    let report = rewrite_and_verify_with(&site, None, &[]);
    // The check compared the optimised files, not copies: each one changed.
    let rows = report["lossless"]["rows"].as_array().unwrap();
    let optimized = rows.iter().filter(|r| r["outcome"] == "optimized").count();
    assert_eq!(optimized, 4, "{rows:?}");
    // And it would have seen a lost EXIF orientation or gamma: the same site with them
    // stripped renders differently.
    let stripped = tmp.path().join("stripped");
    common::modern::write(&stripped);
    let jpeg = std::fs::read(stripped.join("_images/photo.jpg")).unwrap();
    let exif = common::modern::exif(6);
    let at = jpeg
        .windows(exif.len())
        .position(|w| w == exif)
        .expect("the EXIF block");
    let mut upright = jpeg.clone();
    upright[at + exif.len() - 7] = 1;
    std::fs::write(stripped.join("_images/photo.jpg"), upright).unwrap();
    let output = verify_output(&site, &stripped, &tmp.path().join("diff2"));
    assert_eq!(
        output.status.code(),
        Some(1),
        "an upright photo must differ"
    );
}

#[test]
fn a_windows_1252_page_keeps_its_icons_after_its_style_sheet_is_minified() {
    if !chromium_available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    common::encodings::write_icon_font_site(&site);
    let report = rewrite_and_verify_with(&site, None, &[]);
    let rows = report["lossless"]["rows"].as_array().unwrap();
    let sheet = rows.iter().find(|r| r["path"] == "css/icons.css").unwrap();
    assert_eq!(sheet["outcome"], "optimized", "{sheet}");
    // And it would have seen the sheet as lightningcss printed it (its escapes decoded into
    // UTF-8 bytes, read as windows-1252): that renders differently.
    let decoded = tmp.path().join("decoded");
    common::encodings::write_icon_font_site(&decoded);
    let printed =
        webdiet::css::minify::printed_by_lightningcss(common::encodings::ICON_SHEET).unwrap();
    assert!(!printed.is_ascii(), "{printed}");
    std::fs::write(decoded.join("css/icons.css"), printed).unwrap();
    let output = verify_output(&site, &decoded, &tmp.path().join("diff2"));
    assert_eq!(output.status.code(), Some(1), "decoded escapes must differ");
}

#[test]
fn pngs_made_lossless_webps_render_pixel_identical() {
    if !chromium_available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("docs");
    common::modern::write(&site);
    for (name, seed, edge) in [("opaque", 1, 255), ("cut-out", 2, 0), ("soft-edge", 3, 128)] {
        let png = common::modern::plain_png(seed, edge);
        std::fs::write(site.join(format!("_images/{name}.png")), png).unwrap();
    }
    std::fs::write(
        site.join("figures.html"),
        "<!DOCTYPE html><title>Figures</title><body style=\"background:#c8e0f0\">\
         <p><img src=\"_images/opaque.png\" alt=\"\"> <img src=\"_images/cut-out.png\" alt=\"\">\
         <img src=\"_images/soft-edge.png\" alt=\"\"> <img src=\"_images/logo.png\" alt=\"\"></p>\
         <div style=\"width:200px;height:70px;background:url('_images/cut-out.png') 5px 3px\"></div>\n",
    )
    .unwrap();
    let report = rewrite_and_verify_with(&site, None, &["--image-format", "webp"]);
    // The check compared WebPs: the opaque and the cut-out PNG became one; the logo (gamma)
    // and the partly transparent one, which Chromium would draw differently, did not.
    let rows = report["lossless"]["rows"].as_array().unwrap();
    let webps: Vec<&str> = rows.iter().filter_map(|r| r["to_path"].as_str()).collect();
    assert_eq!(
        webps,
        ["_images/cut-out.webp", "_images/opaque.webp"],
        "{rows:?}"
    );
}

#[test]
fn chromium_draws_partly_transparent_pixels_of_a_webp_unlike_the_same_pixels_of_a_png() {
    // Why a PNG with partly transparent pixels stays a PNG (src/image/png_webp.rs): the same
    // pixels, verified equal by both decoders, render differently once they are a WebP.
    if !chromium_available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (before, after) = (tmp.path().join("before"), tmp.path().join("after"));
    let png = common::modern::plain_png(3, 128);
    let (w, h, rgba) = common::modern::rgba(&png);
    let webp = {
        let mut out = Vec::new();
        image_webp::WebPEncoder::new(&mut out)
            .encode(&rgba, w, h, image_webp::ColorType::Rgba8)
            .unwrap();
        out
    };
    for (dir, file, bytes) in [(&before, "i.png", &png), (&after, "i.webp", &webp)] {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join(file), bytes).unwrap();
        let page = format!(
            "<!DOCTYPE html><body style=\"background:#c8e0f0\"><img src=\"{file}\" alt=\"\">\n"
        );
        std::fs::write(dir.join("index.html"), page).unwrap();
    }
    let output = verify_output(&before, &after, &tmp.path().join("diff"));
    assert_eq!(
        output.status.code(),
        Some(1),
        "the partly transparent edge renders differently: {}",
        String::from_utf8_lossy(&output.stdout)
    );
}
