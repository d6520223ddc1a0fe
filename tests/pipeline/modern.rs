//! A site as today's generators make it: the rewrite makes its PNG, JPEG and style sheet
//! smaller without changing what a browser shows, says what it dropped, counts the SVG, and
//! `--precompress` writes `.gz`, `.br` and `.zst` files that decode to the page. The render
//! check of the same site is in `tests/browser/render_check.rs`.

use std::path::Path;

use crate::common::{modern, webdiet};

fn rewrite(extra: &[&str]) -> (tempfile::TempDir, serde_json::Value) {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("docs");
    modern::write(&site);
    let report = rewrite_site(&site, &tmp.path().join("out"), extra);
    (tmp, report)
}

/// `webdiet rewrite EXTRA SITE --out OUT`, which must succeed; its report.
pub(crate) fn rewrite_site(site: &Path, out: &Path, extra: &[&str]) -> serde_json::Value {
    webdiet()
        .arg("rewrite")
        .args(extra)
        .arg(site)
        .arg("--out")
        .arg(out)
        .assert()
        .success();
    serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap()
}

fn row<'a>(report: &'a serde_json::Value, path: &str) -> &'a serde_json::Value {
    report["lossless"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["path"] == path)
        .unwrap_or_else(|| panic!("no row for {path}: {}", report["lossless"]))
}

#[test]
fn a_modern_site_gets_smaller_images_and_style_sheets_and_keeps_what_browsers_read() {
    let (tmp, report) = rewrite(&["--precompress"]);
    let out = tmp.path().join("out/site");
    for (path, kind) in [
        ("_images/logo.png", "png"),
        ("_images/photo.jpg", "jpeg"),
        ("_static/style.css", "css"),
        ("_static/app.js", "js"),
    ] {
        let r = row(&report, path);
        assert_eq!(r["kind"], kind);
        assert_eq!(r["outcome"], "optimized", "{r}");
        let (from, to) = (
            r["from_bytes"].as_u64().unwrap(),
            r["to_bytes"].as_u64().unwrap(),
        );
        assert!(to < from, "{r}");
        assert_eq!(std::fs::metadata(out.join(path)).unwrap().len(), to);
    }
    let png = row(&report, "_images/logo.png");
    assert_eq!(png["dropped"], serde_json::json!(["tEXt", "tIME"]));
    let written = std::fs::read(out.join("_images/logo.png")).unwrap();
    assert!(written.windows(4).any(|w| w == b"gAMA"), "gamma kept");
    let jpeg = row(&report, "_images/photo.jpg");
    assert_eq!(jpeg["dropped"], serde_json::json!(["COM"]));
    let written = std::fs::read(out.join("_images/photo.jpg")).unwrap();
    let exif = modern::exif(6);
    assert!(written.windows(exif.len()).any(|w| w == exif), "EXIF kept");
    let svg = row(&report, "_images/diagram.svg");
    assert_eq!(svg["outcome"], "kept:unsupported");
    let css = std::fs::read_to_string(out.join("_static/style.css")).unwrap();
    for fallback in ["#EEEEEE", "rgba(", "-webkit-border-radius"] {
        assert!(css.contains(fallback), "{fallback} lost: {css}");
    }
    assert!(report["rewrite"]["broken_by_rewrite"]
        .as_array()
        .unwrap()
        .is_empty());
    // The page is large enough to be worth compressing: all three files, each decoding to it.
    let page = std::fs::read(out.join("index.html")).unwrap();
    let precompressed = report["rewrite"]["precompressed"].as_array().unwrap();
    for ext in ["gz", "br", "zst"] {
        let name = format!("index.html.{ext}");
        assert!(
            precompressed.iter().any(|p| *p == *name),
            "{precompressed:?}"
        );
        assert!(out.join(&name).is_file());
    }
    let br = std::fs::read(out.join("index.html.br")).unwrap();
    let decoded = webdiet::compression::Coding::Brotli
        .decode(&br, 1 << 20)
        .unwrap();
    assert_eq!(decoded, page);
    let estimate = &report["lossless"]["totals"];
    assert!(
        estimate["png"]["optimized"] == 1 && estimate["css"]["files"] == 1,
        "{estimate}"
    );
}

#[test]
fn no_recompress_and_no_minify_leave_every_file_as_it_was() {
    let (tmp, report) = rewrite(&["--no-recompress", "--no-minify"]);
    let site = tmp.path().join("docs");
    let out = tmp.path().join("out/site");
    for path in [
        "_images/logo.png",
        "_images/photo.jpg",
        "_static/style.css",
        "_static/app.js",
    ] {
        assert_eq!(
            std::fs::read(site.join(path)).unwrap(),
            std::fs::read(out.join(path)).unwrap(),
            "{path}"
        );
    }
    let rows = report["lossless"]["rows"].as_array().unwrap();
    assert!(rows.iter().all(|r| r["kind"] == "svg"), "{rows:?}");
}

#[test]
fn the_audit_ranks_the_lossless_savings_and_estimates_brotli_and_zstd() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("docs");
    modern::write(&site);
    webdiet()
        .args([
            "audit",
            "--dry-run",
            "--modes",
            "pipelined",
            "--runs",
            "1",
            "--link",
            "loopback",
        ])
        .arg(&site)
        .arg("--out")
        .arg(tmp.path().join("out"))
        .assert()
        .success();
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(tmp.path().join("out/report.json")).unwrap())
            .unwrap();
    let ids: Vec<&str> = report["opportunities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["id"].as_str().unwrap())
        .collect();
    for id in [
        "recompress-png",
        "recompress-jpeg",
        "minify-css",
        "minify-js",
        "serve-brotli",
    ] {
        assert!(ids.contains(&id), "{id} missing: {ids:?}");
    }
    let totals = &report["compression"]["rewritten"]["totals"];
    let n = |k: &str| totals[k].as_u64().unwrap();
    assert!(
        n("brotli11") < n("deflate6") && n("zstd19") < n("raw"),
        "{totals}"
    );
    let md = std::fs::read_to_string(tmp.path().join("out/report.md")).unwrap();
    assert!(md.contains("| PNG (lossless) |"), "{md}");
}

#[test]
fn with_image_format_webp_a_plain_png_becomes_a_webp_and_every_reference_follows() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("docs");
    modern::write(&site);
    std::fs::write(site.join("_images/plain.png"), modern::plain_png(1, 255)).unwrap();
    std::fs::write(site.join("_images/scripted.png"), modern::plain_png(2, 0)).unwrap();
    std::fs::write(
        site.join("figures.html"),
        "<!DOCTYPE html><title>Figures</title>\
         <p><img src=\"_images/plain.png\" alt=\"plain\"> <img src=\"_images/logo.png\" alt=\"logo\">\
         <span style=\"background: url('_images/plain.png')\">x</span>\
         <img id=\"s\" src=\"_images/scripted.png\" alt=\"scripted\"></p>\
         <script>document.getElementById('s').dataset.other = '_images/scripted.png';</script>\n",
    )
    .unwrap();
    let out_dir = tmp.path().join("out");
    let report = rewrite_site(&site, &out_dir, &["--image-format", "webp"]);
    let out = out_dir.join("site");

    // The plain PNG is served as a WebP of the same pixels, under a new name.
    let plain = row(&report, "_images/plain.png");
    assert_eq!(plain["outcome"], "optimized", "{plain}");
    assert_eq!(plain["to_path"], "_images/plain.webp", "{plain}");
    assert!(plain["reason"]
        .as_str()
        .unwrap()
        .starts_with("optimized(WebP"));
    assert!(plain.get("original_kept").is_none(), "{plain}");
    let webp = std::fs::read(out.join("_images/plain.webp")).unwrap();
    assert_eq!(plain["to_bytes"].as_u64().unwrap(), webp.len() as u64);
    assert!(webp.len() < modern::plain_png(1, 255).len());
    assert_eq!(
        modern::rgba(&webp).2,
        modern::rgba(&modern::plain_png(1, 255)).2,
        "pixel for pixel"
    );
    assert!(
        !out.join("_images/plain.png").exists(),
        "nothing names it now"
    );
    let page = std::fs::read_to_string(out.join("figures.html")).unwrap();
    assert!(!page.contains("plain.png"), "{page}");
    assert_eq!(page.matches("_images/plain.webp").count(), 2, "{page}");

    // A script names the other one: its references follow, and the PNG stays for the script.
    let scripted = row(&report, "_images/scripted.png");
    assert_eq!(scripted["to_path"], "_images/scripted.webp", "{scripted}");
    assert_eq!(scripted["original_kept"], true, "{scripted}");
    assert!(out.join("_images/scripted.webp").is_file());
    assert_eq!(
        std::fs::read(out.join("_images/scripted.png")).unwrap(),
        modern::plain_png(2, 0),
        "the script's PNG, as it was"
    );
    assert!(page.contains("src=\"_images/scripted.webp\""), "{page}");

    // The logo's gamma would be lost in a WebP: it stays a PNG, recompressed, and says why.
    let logo = row(&report, "_images/logo.png");
    assert!(logo.get("to_path").is_none(), "{logo}");
    assert_eq!(logo["outcome"], "optimized", "{logo}");
    assert!(logo["reason"].as_str().unwrap().contains("gAMA"), "{logo}");
    assert!(page.contains("src=\"_images/logo.png\""), "{page}");
    let written = std::fs::read(out.join("_images/logo.png")).unwrap();
    assert_eq!(logo["to_bytes"].as_u64().unwrap(), written.len() as u64);
    assert!(written.windows(4).any(|w| w == b"gAMA"), "gamma kept");

    assert_eq!(
        report["rewrite"]["broken_by_rewrite"],
        serde_json::json!([])
    );
    let png = report["lossless"]["totals"]["png"].clone();
    assert_eq!(png["files"], 3, "{png}");
    let saved: u64 = [
        "_images/plain.png",
        "_images/scripted.png",
        "_images/logo.png",
    ]
    .iter()
    .map(|p| {
        let r = row(&report, p);
        r["from_bytes"].as_u64().unwrap() - r["to_bytes"].as_u64().unwrap()
    })
    .sum();
    assert_eq!(
        png["from_bytes"].as_u64().unwrap() - png["to_bytes"].as_u64().unwrap(),
        saved
    );
}

#[test]
fn by_default_and_with_no_recompress_the_site_pngs_keep_their_names() {
    for args in [&[][..], &["--image-format", "webp", "--no-recompress"][..]] {
        let tmp = tempfile::tempdir().unwrap();
        let site = tmp.path().join("docs");
        modern::write(&site);
        std::fs::write(site.join("_images/plain.png"), modern::plain_png(1, 255)).unwrap();
        std::fs::write(
            site.join("figures.html"),
            "<!DOCTYPE html><title>F</title><img src=\"_images/plain.png\" alt=\"\">\n",
        )
        .unwrap();
        rewrite_site(&site, &tmp.path().join("out"), args);
        let out = tmp.path().join("out/site");
        assert!(out.join("_images/plain.png").is_file(), "{args:?}");
        assert!(!out.join("_images/plain.webp").exists(), "{args:?}");
        let page = std::fs::read_to_string(out.join("figures.html")).unwrap();
        assert!(page.contains("_images/plain.png"), "{args:?}: {page}");
    }
}

#[test]
fn minify_html_removes_comments_and_white_space_only_where_nothing_can_see_them() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    std::fs::create_dir_all(&site).unwrap();
    let plain = "<!DOCTYPE html>\n<html>\n  <head>\n    <title>A  page</title>\n  </head>\n  <body>\n    \
                 <!-- navigation -->\n    <p>One    two\n       three</p>\n    <pre>  kept   as\n    written </pre>\n\
                 <!--[if IE]><p>old</p><![endif]-->\n  </body>\n</html>\n";
    let scripted = "<!DOCTYPE html><p>a   <!-- ko if: x -->b<!-- /ko --></p>\n\n<script>var x  = 1;</script>\n";
    let styled = "<!DOCTYPE html><style>.c { white-space: pre-wrap }</style><p class=c>a   b</p><!-- c -->\n";
    for (name, page) in [
        ("plain.html", plain),
        ("scripted.html", scripted),
        ("styled.html", styled),
    ] {
        std::fs::write(site.join(name), page).unwrap();
    }
    let out = tmp.path().join("out");
    let report = rewrite_site(&site, &out, &["--minify-html"]);
    let read = |name: &str| std::fs::read_to_string(out.join("site").join(name)).unwrap();

    assert_eq!(
        read("plain.html"),
        "<!DOCTYPE html>\n<html>\n<head>\n<title>A  page</title>\n</head>\n<body>\n\n<p>One two\n\
         three</p>\n<pre>  kept   as\n    written </pre>\n<!--[if IE]><p>old</p><![endif]-->\n</body>\n</html>\n",
        "comments and white space go; the title, the pre and the conditional comment stay"
    );
    // Scripts may read comments (here Knockout's): they stay; the white space still shrinks.
    assert_eq!(
        read("scripted.html"),
        "<!DOCTYPE html><p>a <!-- ko if: x -->b<!-- /ko --></p>\n\n<script>var x  = 1;</script>\n"
    );
    // CSS that keeps white space: only the comment goes.
    assert_eq!(
        read("styled.html"),
        "<!DOCTYPE html><style>.c { white-space: pre-wrap }</style><p class=c>a   b</p>\n"
    );
    for name in ["plain.html", "scripted.html", "styled.html"] {
        let r = row(&report, name);
        assert_eq!(r["kind"], "html", "{r}");
        assert_eq!(r["outcome"], "optimized", "{r}");
        assert_eq!(
            r["to_bytes"].as_u64().unwrap(),
            read(name).len() as u64,
            "{r}"
        );
    }

    // Without the flag no page is touched and no row is written.
    let plain_out = tmp.path().join("plain-out");
    let report = rewrite_site(&site, &plain_out, &[]);
    assert_eq!(
        std::fs::read(plain_out.join("site/plain.html")).unwrap(),
        plain.as_bytes()
    );
    let rows = report["lossless"]["rows"].as_array().unwrap();
    assert!(rows.iter().all(|r| r["kind"] != "html"), "{rows:?}");
}

#[test]
fn an_image_copied_into_several_directories_is_optimised_once_and_written_under_each_name() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("docs");
    modern::write(&site);
    let logo = std::fs::read(site.join("_images/logo.png")).unwrap();
    for copy in ["_images/copy/logo.png", "other/logo-copy.png"] {
        std::fs::create_dir_all(site.join(copy).parent().unwrap()).unwrap();
        std::fs::write(site.join(copy), &logo).unwrap();
    }
    let report = rewrite_site(&site, &tmp.path().join("out"), &[]);
    let out = tmp.path().join("out/site");
    let paths = [
        "_images/logo.png",
        "_images/copy/logo.png",
        "other/logo-copy.png",
    ];
    let optimised = std::fs::read(out.join(paths[0])).unwrap();
    assert!(optimised.len() < logo.len());
    for path in paths {
        let r = row(&report, path);
        assert_eq!(r["outcome"], "optimized", "{r}");
        assert_eq!(r["to_bytes"], optimised.len() as u64, "{r}");
        assert_eq!(std::fs::read(out.join(path)).unwrap(), optimised, "{path}");
    }
    let timed = paths
        .iter()
        .filter(|p| row(&report, p)["cpu_millis"].as_f64().unwrap() > 0.0)
        .count();
    assert_eq!(timed, 1, "optimised once, not once per copy");
}
