//! The rewrite stage as a user sees it: golden cases under `tests/golden/rewrite/<case>/`
//! (`input/` pages, `gifs.txt` naming the GIFs to generate, `expected/` pages byte for byte
//! and `expected/files.txt` the complete output tree), the command line, and Space Jam from
//! `../shared/corpora` (no reference that resolved before may be broken after).

use crate::common;

use common::shared_corpus;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use webdiet::image::Outcome;
use webdiet::inventory::{self, AnalyzeOptions};
use webdiet::rewrite::{self, RewriteOptions};
use webdiet::site::{self, resolve::Target};

fn golden_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/rewrite")
}

/// A GIF made here: `big` (64×48, 16 colours: converts), `tiny` (1×1 with a 2-colour palette:
/// smaller than any PNG can be, so it stays GIF at every effort), `anim`
/// (3 frames: APNG), `big-png` (any bytes, for a file that is already a PNG).
fn make_file(kind: &str) -> Vec<u8> {
    let colors = if kind == "tiny" { 2 } else { 16 };
    let palette: Vec<u8> = (0..colors)
        .flat_map(|i| [i * 16, 255 - i * 8, i * 5])
        .collect();
    let pattern = |w: usize, h: usize, seed: usize| -> Vec<u8> {
        (0..w * h)
            .map(|i| (((i % w) / 4 + (i / w) / 3 + seed) % 16) as u8)
            .collect()
    };
    let mut out = Vec::new();
    let frames: Vec<(u16, u16, Vec<u8>)> = match kind {
        "big" => vec![(64, 48, pattern(64, 48, 0))],
        "tiny" => vec![(1, 1, vec![0])],
        "anim" => (0..3).map(|s| (64, 48, pattern(64, 48, s))).collect(),
        "big-png" => return b"\x89PNG\r\n\x1a\nnot really".to_vec(),
        other => panic!("unknown fixture kind {other}"),
    };
    {
        let (w, h) = (frames[0].0, frames[0].1);
        let mut enc = gif::Encoder::new(&mut out, w, h, &palette).unwrap();
        if frames.len() > 1 {
            enc.set_repeat(gif::Repeat::Infinite).unwrap();
        }
        for (w, h, pixels) in frames {
            let frame = gif::Frame {
                width: w,
                height: h,
                delay: 20,
                buffer: pixels.into(),
                ..gif::Frame::default()
            };
            enc.write_frame(&frame).unwrap();
        }
    }
    out
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.unwrap();
        let rel = entry.path().strip_prefix(from).unwrap();
        let dest = to.join(rel);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
        } else {
            std::fs::copy(entry.path(), &dest).unwrap();
        }
    }
}

fn files_under(root: &Path) -> BTreeSet<String> {
    walkdir::WalkDir::new(root)
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e.path().strip_prefix(root).unwrap();
            rel.components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/")
        })
        .collect()
}

fn run_rewrite(site_dir: &Path, out: &Path) -> rewrite::Rewrite {
    let site = site::crawl(site_dir, &Default::default()).unwrap();
    let inv = inventory::analyze(&site, &AnalyzeOptions::default());
    let opts = RewriteOptions {
        out_site: out.to_path_buf(),
        image: Default::default(),
        keep_originals: false,
        analyze: AnalyzeOptions::default(),
        precompress: false,
        markup: None,
        // What these cases pin is the references; minifying the sheets is tested on its own.
        lossless: rewrite::lossless::LosslessOptions {
            text: false,
            ..Default::default()
        },
        scratch: false,
        memo: None,
    };
    rewrite::rewrite(&site, &inv, &opts).unwrap()
}

/// Builds a case's input site in a temporary directory.
fn build_case(case: &Path, into: &Path) {
    copy_tree(&case.join("input"), into);
    let list = std::fs::read_to_string(case.join("gifs.txt")).unwrap();
    for line in list.lines().filter(|l| !l.trim().is_empty()) {
        let (path, kind) = line.rsplit_once(' ').unwrap();
        let dest = into.join(path);
        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
        std::fs::write(dest, make_file(kind)).unwrap();
    }
}

#[test]
fn golden_cases_rewrite_references_and_keep_every_other_byte() {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(golden_root())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    cases.sort();
    assert!(!cases.is_empty());
    for case in cases {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let tmp = tempfile::tempdir().unwrap();
        let input = tmp.path().join("input");
        build_case(&case, &input);
        let before = files_under(&input);
        let out = tmp.path().join("out/site");
        let done = run_rewrite(&input, &out);

        assert!(
            done.broken_by_rewrite.is_empty(),
            "{name}: {:?}",
            done.broken_by_rewrite
        );
        assert_eq!(
            files_under(&input),
            before,
            "{name}: the input is untouched"
        );
        let expected_files: BTreeSet<String> =
            std::fs::read_to_string(case.join("expected/files.txt"))
                .unwrap()
                .lines()
                .map(str::to_string)
                .collect();
        assert_eq!(files_under(&out), expected_files, "{name}: output tree");
        for file in files_under(&case.join("expected")) {
            if file == "files.txt" {
                continue;
            }
            let want = std::fs::read(case.join("expected").join(&file)).unwrap();
            let got = std::fs::read(out.join(&file)).unwrap();
            assert!(
                want == got,
                "{name}/{file}:\n--- expected\n{}\n--- got\n{}",
                String::from_utf8_lossy(&want),
                String::from_utf8_lossy(&got)
            );
        }
        for row in &done.images {
            assert!(
                out.join(&row.to_path).is_file(),
                "{name}: {} exists",
                row.to_path
            );
            if row.outcome == Outcome::Converted {
                assert!(row.to_bytes < row.from_bytes);
                assert!(row.to_path.ends_with(".png"));
            }
        }
    }
}

/// `webdiet rewrite --image-format FORMAT` on a golden case; the output directory and report.
fn rewrite_to(case: &str, format: &str, tmp: &Path) -> (PathBuf, serde_json::Value) {
    let input = tmp.join("in");
    build_case(&golden_root().join(case), &input);
    let out = tmp.join("out");
    Command::cargo_bin("webdiet")
        .unwrap()
        .args([
            "rewrite",
            "--no-markup",
            "--no-minify",
            "--image-format",
            format,
        ])
        .arg(&input)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let report = serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
    (out, report)
}

#[test]
fn webp_format_writes_webp_files_and_points_every_reference_at_them() {
    let tmp = tempfile::tempdir().unwrap();
    let (out, report) = rewrite_to("relative-forms", "webp", tmp.path());
    let expected = golden_root().join("relative-forms/expected");
    // The PNG golden case, with each converted GIF served as WebP instead; the 1×1 GIF that
    // no PNG beats may become a WebP too (a lossless WebP's overhead is smaller).
    let tiny_converted = report["images"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["path"] == "img/tiny.gif" && r["outcome"] == "converted");
    let as_webp = |text: String| {
        let text = text.replace(".png", ".webp");
        if tiny_converted {
            text.replace("img/tiny.gif", "img/tiny.webp")
        } else {
            text
        }
    };
    let files: BTreeSet<String> = std::fs::read_to_string(expected.join("files.txt"))
        .unwrap()
        .lines()
        .map(|l| as_webp(l.to_string()))
        .collect();
    assert_eq!(files_under(&out.join("site")), files);
    for page in ["sub/page.html", "css/site.css", "index.html"] {
        let want = as_webp(std::fs::read_to_string(expected.join(page)).unwrap());
        let got = std::fs::read_to_string(out.join("site").join(page)).unwrap();
        assert_eq!(got, want, "{page}");
    }
    for row in report["images"].as_array().unwrap() {
        let (outcome, format) = (row["outcome"].as_str().unwrap(), row["format"].as_str());
        match outcome {
            "converted" => {
                assert_eq!(format, Some("webp"), "{row}");
                assert!(row["to_path"].as_str().unwrap().ends_with(".webp"));
                assert!(row["png_bytes"].is_null(), "no PNG is made: {row}");
                assert_eq!(row["webp_bytes"], row["to_bytes"]);
            }
            other => assert_eq!(format, Some("gif"), "{other}: {row}"),
        }
    }
    assert_eq!(
        report["rewrite"]["broken_by_rewrite"],
        serde_json::json!([])
    );
}

#[test]
fn best_format_serves_the_smaller_of_png_and_webp_for_each_gif() {
    let tmp = tempfile::tempdir().unwrap();
    let (out, report) = rewrite_to("relative-forms", "best", tmp.path());
    let page = std::fs::read_to_string(out.join("site/sub/page.html")).unwrap();
    let mut converted = BTreeSet::new();
    for row in report["images"].as_array().unwrap() {
        if row["outcome"] != "converted" {
            continue;
        }
        converted.insert(row["path"].as_str().unwrap());
        let (png, webp) = (
            row["png_bytes"].as_u64().unwrap(),
            row["webp_bytes"].as_u64().unwrap(),
        );
        let to_path = row["to_path"].as_str().unwrap();
        let name = to_path.rsplit('/').next().unwrap();
        assert!(page.contains(name), "the page names {name}");
        assert!(out.join("site").join(to_path).is_file());
        match row["format"].as_str().unwrap() {
            "webp" => assert!(webp < png && to_path.ends_with(".webp"), "{row}"),
            "png" | "apng" => assert!(png <= webp && to_path.ends_with(".png"), "{row}"),
            other => panic!("{other}: {row}"),
        }
    }
    for gif in ["img/bg.gif", "img/logo.gif", "img/anim.gif"] {
        assert!(converted.contains(gif), "{gif} converts: {converted:?}");
    }
}

#[test]
fn every_gif_has_exactly_one_outcome_and_totals_add_up() {
    let case = golden_root().join("script-rollover");
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("in");
    build_case(&case, &input);
    let done = run_rewrite(&input, &tmp.path().join("out/site"));
    let gifs: Vec<&str> = done.images.iter().map(|r| r.path.as_str()).collect();
    assert_eq!(gifs, vec!["img/off.gif", "img/on.gif", "unused.gif"]);
    let outcome = |p: &str| done.images.iter().find(|r| r.path == p).unwrap();
    assert_eq!(outcome("unused.gif").outcome, Outcome::Unreferenced);
    assert!(
        outcome("img/on.gif").original_kept,
        "a script still names it"
    );
    assert!(!outcome("img/off.gif").original_kept);
    let total = &done.images_total;
    assert_eq!(total.count, 3);
    assert_eq!(total.by_outcome.values().sum::<usize>(), 3);
    assert_eq!(
        total.to_bytes,
        done.images.iter().map(|r| r.to_bytes).sum::<u64>()
    );
    assert!(total.to_bytes < total.from_bytes);
}

#[test]
fn output_inside_the_input_is_refused_and_nothing_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("in");
    build_case(&golden_root().join("name-clash"), &input);
    let before = files_under(&input);
    let site = site::crawl(&input, &Default::default()).unwrap();
    let inv = inventory::analyze(&site, &AnalyzeOptions::default());
    for out in [
        input.join("out/site"),
        input.clone(),
        tmp.path().to_path_buf(),
    ] {
        let opts = RewriteOptions {
            out_site: out,
            image: Default::default(),
            keep_originals: false,
            analyze: AnalyzeOptions::default(),
            precompress: false,
            markup: None,
            lossless: Default::default(),
            scratch: false,
            memo: None,
        };
        assert!(rewrite::rewrite(&site, &inv, &opts).is_err());
    }
    assert_eq!(files_under(&input), before);
}

#[test]
fn keep_originals_copies_converted_gifs() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("in");
    build_case(&golden_root().join("extensionless"), &input);
    let site = site::crawl(&input, &Default::default()).unwrap();
    let inv = inventory::analyze(&site, &AnalyzeOptions::default());
    let out = tmp.path().join("out/site");
    let opts = RewriteOptions {
        out_site: out.clone(),
        image: Default::default(),
        keep_originals: true,
        analyze: AnalyzeOptions::default(),
        precompress: false,
        markup: None,
        // What these cases pin is the references; minifying the sheets is tested on its own.
        lossless: rewrite::lossless::LosslessOptions {
            text: false,
            ..Default::default()
        },
        scratch: false,
        memo: None,
    };
    rewrite::rewrite(&site, &inv, &opts).unwrap();
    assert!(out.join("Icons/WWW/w3c_home.gif").is_file());
    assert!(out.join("Icons/WWW/w3c_home.png").is_file());
}

#[test]
fn command_writes_the_site_and_a_report_with_images() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("in");
    build_case(&golden_root().join("relative-forms"), &input);
    let out = tmp.path().join("out");
    Command::cargo_bin("webdiet")
        .unwrap()
        .args([
            "rewrite",
            input.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .assert()
        .success()
        .stdout(predicates::str::contains("converted"));
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
    let images = report["images"].as_array().unwrap();
    assert_eq!(images.len(), 4);
    for row in images {
        for key in [
            "path",
            "from_bytes",
            "to_path",
            "to_bytes",
            "outcome",
            "reason",
        ] {
            assert!(!row[key].is_null(), "{key} in {row}");
        }
    }
    assert_eq!(report["images_total"]["count"], 4);
    assert_eq!(report["images_total"]["by_outcome"]["kept:png-larger"], 1);
    assert!(out.join("site/img/logo.png").is_file());

    // Rewriting again replaces the previous output.
    Command::cargo_bin("webdiet")
        .unwrap()
        .args([
            "rewrite",
            input.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--no-apng",
        ])
        .assert()
        .success();
    assert!(out.join("site/img/anim.gif").is_file());
    assert!(!out.join("site/img/anim.png").exists());
}

#[test]
fn spacejam_rewrite_breaks_no_reference() {
    let Some(spacejam) = shared_corpus("spacejam") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    let done = run_rewrite(&spacejam, &out);
    assert!(
        done.broken_by_rewrite.is_empty(),
        "{:?}",
        done.broken_by_rewrite
    );
    assert!(done.images_total.to_bytes < done.images_total.from_bytes);
    assert_eq!(done.images_total.count, done.images.len());

    // Independently: every reference that resolved in the original resolves in the result.
    let before_site = site::crawl(&spacejam, &Default::default()).unwrap();
    let before = inventory::analyze(&before_site, &AnalyzeOptions::default());
    let after_site = site::crawl(&out, &Default::default()).unwrap();
    let after = inventory::analyze(&after_site, &AnalyzeOptions::default());
    let broken_after: BTreeSet<(String, String)> = after
        .broken_references
        .iter()
        .map(|b| (b.page.clone(), b.reference.clone()))
        .collect();
    let mut checked = 0;
    for doc in &before.documents {
        for r in &doc.references {
            if matches!(r.target, Target::Local { .. }) {
                let png = r.value.replace(".gif", ".png");
                assert!(
                    !broken_after.contains(&(doc.path.clone(), r.value.clone()))
                        && !broken_after.contains(&(doc.path.clone(), png)),
                    "{} → {} broke",
                    doc.path,
                    r.value
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 1000);
    // Rewritten pages still parse to as many references as before.
    for doc in &before.documents {
        let after_doc = after.documents.iter().find(|d| d.path == doc.path).unwrap();
        assert_eq!(
            doc.references.len(),
            after_doc.references.len(),
            "{}",
            doc.path
        );
    }
}

/// A `w × h` GIF whose pixels cycle through `colours` palette entries.
fn gif_of_colours(w: u16, h: u16, colours: usize) -> Vec<u8> {
    let palette: Vec<u8> = (0..colours.max(2))
        .flat_map(|i| [(i * 7) as u8, (i * 13 % 256) as u8, (255 - i) as u8])
        .collect();
    let pixels = (0..usize::from(w) * usize::from(h))
        .map(|i| (i % colours) as u8)
        .collect();
    common::still_gif(w, h, &palette, None, pixels)
}

#[test]
fn text_drawn_as_images_is_listed_with_colours_bytes_and_one_request_per_file() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("in");
    let button = gif_of_colours(120, 20, 4);
    let strip = gif_of_colours(120, 20, 200);
    let nav = r#"<a href="b.html"><img src="news.gif" width=120 height=20 alt="News"></a>
        <a href="c.html"><img src="strip.gif" width=120 height=20 alt="Photo strip"></a>"#;
    for (name, bytes) in [
        ("a.html", nav.as_bytes()),
        ("b.html", nav.as_bytes()),
        ("news.gif", &button[..]),
        ("strip.gif", &strip[..]),
    ] {
        std::fs::create_dir_all(&site).unwrap();
        std::fs::write(site.join(name), bytes).unwrap();
    }
    let out = tmp.path().join("out");
    Command::cargo_bin("webdiet")
        .unwrap()
        .args([
            "rewrite",
            site.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .assert()
        .success();
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
    let rows = report["markup"]["text_images"].as_array().unwrap();
    // The 4-colour button on both pages; the 200-colour strip is a picture, not text.
    assert_eq!(rows.len(), 2, "{rows:#?}");
    for row in rows {
        assert_eq!(row["alt"], "News");
        assert_eq!(row["colors"], 4);
        let file = row["file"].as_str().unwrap();
        let on_disk = std::fs::metadata(out.join("site").join(file))
            .unwrap()
            .len();
        assert_eq!(row["bytes"].as_u64(), Some(on_disk), "{row}");
    }
    let total = &report["markup"]["text_images_total"];
    assert_eq!(
        (total["shown"].as_u64(), total["files"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!(total["bytes"], rows[0]["bytes"]);
}

#[test]
fn a_missing_background_moved_into_the_shared_sheet_is_not_broken_by_the_rewrite() {
    let tmp = tempfile::tempdir().unwrap();
    let site_dir = tmp.path().join("in");
    // Ten pages of lines after `<basefont>` tags, which go (Chromium gives them no effect):
    // together they pay for the sheet and its request, raw and deflated.
    let lines: String = (0..1000)
        .map(|i| format!("<basefont size={}><p>line {i}\n", i % 7 + 1))
        .collect();
    let page = format!(
        r#"<body background="img/missing.gif"><font color=red>x</font>
        <img src="img/also-missing.gif">{lines}"#
    );
    std::fs::create_dir_all(site_dir.join("sub")).unwrap();
    for n in 0..10 {
        std::fs::write(site_dir.join(format!("sub/page{n}.html")), &page).unwrap();
    }
    std::fs::write(
        site_dir.join("index.html"),
        b"<a href=sub/page0.html>in</a>",
    )
    .unwrap();
    let site = site::crawl(&site_dir, &Default::default()).unwrap();
    let inv = inventory::analyze(&site, &AnalyzeOptions::default());
    assert_eq!(inv.broken_references.len(), 2 * 10);
    let opts = RewriteOptions {
        out_site: tmp.path().join("out"),
        image: Default::default(),
        keep_originals: false,
        analyze: AnalyzeOptions::default(),
        precompress: false,
        markup: Some(rewrite::markup::CssChoice::Fixed(
            webdiet::markup::CssMode::SiteSheet,
        )),
        lossless: Default::default(),
        scratch: false,
        memo: None,
    };
    let done = rewrite::rewrite(&site, &inv, &opts).unwrap();
    let sheet = std::fs::read_to_string(tmp.path().join("out/webdiet.css")).unwrap();
    assert!(sheet.contains("sub/img/missing.gif"), "{sheet}");
    assert!(
        done.broken_by_rewrite.is_empty(),
        "{:?}",
        done.broken_by_rewrite
    );
}

#[test]
fn pages_changed_only_by_the_markup_pass_count_as_edited() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    let plain =
        b"<!DOCTYPE html><html><head><title>p</title></head><body><p>plain</p></body></html>";
    // Lines after `<basefont>` tags, which go: converting pays.
    let lines: String = (0..300)
        .map(|i| format!("<basefont size={}><p>line {i}\n", i % 7 + 1))
        .collect();
    let centred =
        format!("<html><body><center><font color=red>centred</font></center>{lines}</body></html>");
    let centred = centred.as_bytes();
    common::write_site(
        &site,
        &[
            ("a.html", centred),
            ("b.html", centred),
            ("plain.html", plain),
        ],
    );
    let out = tmp.path().join("out");
    Command::cargo_bin("webdiet")
        .unwrap()
        .arg("rewrite")
        .arg(&site)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
    let differs = |page: &str| {
        std::fs::read(site.join(page)).unwrap()
            != std::fs::read(out.join("site").join(page)).unwrap()
    };
    let edited = ["a.html", "b.html", "plain.html"]
        .into_iter()
        .filter(|p| differs(p))
        .count() as u64;
    assert_eq!(
        edited, 2,
        "the two pages with presentational markup changed"
    );
    assert_eq!(report["rewrite"]["documents_changed"], edited);
    assert_eq!(report["rewrite"]["documents_copied"], 3 - edited);
    assert_eq!(report["markup"]["pages_changed"], edited);
}

/// Runs `webdiet rewrite` on `input` into `out` and returns the command's assertion.
fn rewrite_command(input: &Path, out: &Path) -> assert_cmd::assert::Assert {
    rewrite_command_with(input, out, &[])
}

fn rewrite_command_with(input: &Path, out: &Path, args: &[&str]) -> assert_cmd::assert::Assert {
    Command::cargo_bin("webdiet")
        .unwrap()
        .arg("rewrite")
        .args(args)
        .arg(input)
        .arg("--out")
        .arg(out)
        .assert()
}

#[test]
fn a_gif_named_by_a_jsp_is_renamed_in_its_html_and_kept_while_its_code_or_other_text_names_it() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("in");
    let jsp = r#"<%@ page contentType="text/html" %><html><body><img src="images/logo.gif"></body></html>"#;
    let code = r#"<html><body><% String icon = "images/icon.gif"; %><img src="<%= icon %>"></body></html>"#;
    common::write_site(
        &input,
        &[
            ("images/logo.gif", &common::seeded_gif(1)),
            ("images/icon.gif", &common::seeded_gif(2)),
            ("images/note.gif", &common::seeded_gif(3)),
            (
                "index.html",
                b"<html><body><img src=\"images/logo.gif\"><img src=\"images/icon.gif\">\
                  <img src=\"images/note.gif\"></body></html>",
            ),
            ("hello.jsp", jsp.as_bytes()),
            ("code.php", code.as_bytes()),
            (
                "legacy.asp",
                b"<html><body><img src=\"images/note.gif\"></body></html>",
            ),
        ],
    );
    let out = tmp.path().join("out");
    rewrite_command(&input, &out)
        .success()
        .stdout(predicates::str::contains(
            "references broken by the rewrite: none",
        ));
    let site = out.join("site");
    let read = |p: &str| std::fs::read_to_string(site.join(p)).unwrap();
    // The JSP's HTML is edited like a page's; its directive keeps every byte.
    assert_eq!(read("hello.jsp"), jsp.replace("logo.gif", "logo.png"));
    assert!(!site.join("images/logo.gif").exists());
    // A name inside a code block is left as written, so its GIF stays beside the PNG.
    assert_eq!(read("code.php"), code);
    assert!(site.join("images/icon.gif").is_file());
    // A template webdiet does not edit is scanned: what it names stays.
    assert_eq!(
        read("legacy.asp"),
        "<html><body><img src=\"images/note.gif\"></body></html>"
    );
    assert!(site.join("images/note.gif").is_file());
    for png in ["logo", "icon", "note"] {
        assert!(site.join(format!("images/{png}.png")).is_file(), "{png}");
    }
}

#[test]
fn xml_dtd_and_text_files_that_begin_like_html_are_not_pages_and_keep_every_byte() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("in");
    let fonts = paying_markup();
    let html_like = format!("<!-- c -->\n<html><body bgcolor=\"#ffffff\">{fonts}</body></html>");
    let not_pages: [(&str, String); 4] = [
        ("doc/page.xml", html_like.clone()),
        (
            "doc/site.dtd",
            "<!-- a DTD -->\n<!ELEMENT font ANY>".to_string(),
        ),
        (
            "build.xml",
            format!("<!-- build -->\n<project>{fonts}</project>"),
        ),
        ("notes.xml.txt", html_like.clone()),
    ];
    let index = format!("<html><body bgcolor=\"#ffffff\">{fonts}</body></html>");
    let mut files: Vec<(&str, &[u8])> = vec![("index.html", index.as_bytes())];
    files.extend(not_pages.iter().map(|(p, t)| (*p, t.as_bytes())));
    common::write_site(&input, &files);
    assert_eq!(common::analyze_json(&input)["pages"], 1);
    let out = tmp.path().join("out");
    rewrite_command(&input, &out).success();
    let site = out.join("site");
    assert_ne!(
        std::fs::read_to_string(site.join("index.html")).unwrap(),
        index,
        "the page itself is converted"
    );
    for (path, text) in &not_pages {
        assert_eq!(
            &std::fs::read_to_string(site.join(path)).unwrap(),
            text,
            "{path}"
        );
    }
}

#[test]
fn pages_with_a_base_href_keep_every_reference_and_the_rewrite_exits_0() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("in");
    let fonts = paying_markup();
    let page_with = |base: &str, img: &str| {
        format!(
            "<html><head><title>t</title><base href=\"{base}\"></head>\
             <body bgcolor=\"#ffffff\"><img src=\"{img}\">{fonts}</body></html>"
        )
    };
    let page = |base: &str| page_with(base, "logo.gif");
    // Pages enough that each one's share of the sheet's request is paid for.
    common::write_site(
        &input,
        &[
            ("index.html", page("sub/").as_bytes()),
            ("doc/deep.html", page("../sub/").as_bytes()),
            (
                "doc/here.html",
                page_with("./", "../sub/logo.gif").as_bytes(),
            ),
            ("abs.html", page("http://example.com/sub/").as_bytes()),
            ("sub/logo.gif", &common::seeded_gif(4)),
        ],
    );
    let out = tmp.path().join("out");
    rewrite_command_with(&input, &out, &["--css", "site-sheet"])
        .code(0)
        .stdout(predicates::str::contains(
            "references broken by the rewrite: none",
        ));
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
    assert_eq!(
        report["rewrite"]["broken_by_rewrite"],
        serde_json::json!([])
    );
    // `sub/` is one directory down: the sheet's link climbs one.
    let index = std::fs::read_to_string(out.join("site/index.html")).unwrap();
    assert!(
        index.contains("<link rel=stylesheet href=../webdiet.css>"),
        "{index}"
    );
    // An absolute base cannot be placed: that page keeps its markup.
    let abs = std::fs::read_to_string(out.join("site/abs.html")).unwrap();
    assert_eq!(abs, page("http://example.com/sub/"));
}

/// Presentational markup whose conversion pays on any page: a `<font>` that becomes a class,
/// and lines after `<basefont>` tags, which go.
fn paying_markup() -> String {
    let lines: String = (0..300)
        .map(|i| format!("<basefont size={}><p>line {i}\n", i % 7 + 1))
        .collect();
    format!("<font color=\"#990000\" face=\"Arial\">x</font>{lines}")
}

#[test]
fn a_site_without_gifs_says_it_has_no_image_to_serve_and_a_webp_is_typed_webp() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("in");
    let webp = b"RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00\x2f\x00\x00\x00\x10\x07\x10\x11\x11\x88\x88\xfe\x07\x00";
    common::write_site(
        &input,
        &[
            (
                "index.html",
                b"<html><body><img src=\"a.webp\"></body></html>",
            ),
            ("a.webp", webp),
        ],
    );
    let inv = common::analyze_json(&input);
    assert_eq!(inv["by_type"]["webp"]["count"], 1, "{inv}");
    assert!(inv["by_type"].get("other").is_none(), "{inv}");
    let out = tmp.path().join("out");
    let assert = rewrite_command(&input, &out).success();
    let stdout = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    assert!(
        stdout.lines().all(|l| !l.trim_end().ends_with("served as")),
        "{stdout}"
    );
}

/// `seeded_gif(0)` with one palette entry changed: the same size, other bytes and pixels.
fn same_size_other_gif() -> Vec<u8> {
    let mut gif = common::seeded_gif(0);
    // The global colour table starts after the 13-byte header; entry 5's red.
    gif[13 + 5 * 3] ^= 0x40;
    gif
}

#[test]
fn a_gif_copied_into_several_directories_is_converted_once_and_served_converted_everywhere() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("in");
    let icon = common::seeded_gif(0);
    let other = same_size_other_gif();
    assert_eq!((icon.len(), icon != other), (other.len(), true));
    let page = br#"<img src="a/icon.gif"><img src="b/icon.gif"><img src="c/icon.gif">
        <img src="d/other.gif">"#;
    common::write_site(
        &input,
        &[
            ("index.html", page),
            ("a/icon.gif", &icon),
            ("b/icon.gif", &icon),
            ("c/icon.gif", &icon),
            ("d/other.gif", &other),
            ("unused/icon.gif", &icon),
        ],
    );
    let out = tmp.path().join("out/site");
    let done = run_rewrite(&input, &out);
    let row = |p: &str| done.images.iter().find(|r| r.path == p).unwrap();
    let copies = ["a/icon.gif", "b/icon.gif", "c/icon.gif"];
    let png = std::fs::read(out.join("a/icon.png")).unwrap();
    for path in copies {
        let r = row(path);
        assert_eq!(r.outcome, Outcome::Converted, "{path}: {}", r.reason);
        assert_eq!(r.to_path, path.replace(".gif", ".png"));
        assert_eq!(std::fs::read(out.join(&r.to_path)).unwrap(), png, "{path}");
        assert!(!out.join(path).exists(), "{path} is no longer served");
    }
    // Converted once: one of the copies carries the conversion's time, the others none.
    let timed = copies.iter().filter(|p| row(p).cpu_millis > 0.0).count();
    assert_eq!(timed, 1);
    // Of the same size but other bytes: converted on its own, to another PNG.
    let other_row = row("d/other.gif");
    assert_eq!(other_row.outcome, Outcome::Converted);
    assert!(other_row.cpu_millis > 0.0);
    assert_ne!(std::fs::read(out.join("d/other.png")).unwrap(), png);
    // Not referenced: not converted, whatever its copies became.
    assert_eq!(row("unused/icon.gif").outcome, Outcome::Unreferenced);
    assert_eq!(std::fs::read(out.join("unused/icon.gif")).unwrap(), icon);
    let page = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(
        !page.contains("icon.gif") && !page.contains("other.gif"),
        "{page}"
    );
}
