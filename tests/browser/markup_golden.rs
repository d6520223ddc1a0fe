//! Golden cases for the markup stage: each `tests/golden/markup/<case>/input.html` must convert
//! to `expected.html` linking a site sheet whose content is `expected.css`. The expected page is
//! the input with only the edited tags changed. Every case was also
//! rendered in Chromium against its input (`benches/markup-golden-render.sh`); see
//! `docs/markup.md`. Set `WEBDIET_BLESS=1` to rewrite the expectations after a reviewed change.
//!
//! A case may have `images.tsv`: what the page's images are (`src`, width, height, fill
//! `transparent` / `#rrggbb` / `-`, colours), standing for the files the rewrite would read.

use std::fs;
use std::path::Path;

use std::collections::BTreeMap;

use webdiet::image::{Fill, ImageFacts};
use webdiet::markup::{build_sheet, convert_page, MarkupOptions};

/// Reads a case's `images.tsv` (empty when there is none).
fn images(case: &Path) -> BTreeMap<String, ImageFacts> {
    let Ok(text) = fs::read_to_string(case.join("images.tsv")) else {
        return BTreeMap::new();
    };
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            assert_eq!(
                f.len(),
                5,
                "{}: bad images.tsv line {line:?}",
                case.display()
            );
            let fill = match f[3] {
                "transparent" => Some(Fill::Transparent),
                "-" => None,
                hex => {
                    let n = u32::from_str_radix(hex.trim_start_matches('#'), 16).unwrap();
                    Some(Fill::Solid([(n >> 16) as u8, (n >> 8) as u8, n as u8]))
                }
            };
            let facts = ImageFacts {
                width: f[1].parse().unwrap(),
                height: f[2].parse().unwrap(),
                frames: 1,
                colors: f[4].parse().unwrap(),
                fill,
            };
            (f[0].to_string(), facts)
        })
        .collect()
}

#[test]
fn every_golden_case_converts_to_its_expected_page_and_sheet() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/markup");
    let bless = std::env::var("WEBDIET_BLESS").is_ok_and(|v| v == "1");
    let mut cases: Vec<_> = fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("input.html").exists())
        .collect();
    cases.sort();
    assert!(
        !cases.is_empty(),
        "no golden cases under {}",
        root.display()
    );
    let mut failures = Vec::new();
    for case in &cases {
        let input = fs::read_to_string(case.join("input.html")).unwrap();
        let opts = MarkupOptions {
            page_path: "input.html".to_string(),
            images: images(case),
            ..MarkupOptions::default()
        };
        let page = convert_page(input.as_bytes(), &opts);
        let sheet = build_sheet([&page]).unwrap();
        let html = String::from_utf8(page.bytes(input.as_bytes(), Some(&sheet.names))).unwrap();
        let css = sheet.css.clone();
        let mut left = String::new();
        for (construct, reason) in page.left_as_is.iter() {
            left.push_str(&format!("{construct}\t{reason}\n"));
        }
        let expected = [
            ("expected.html", html),
            ("expected.css", css),
            ("expected-left.tsv", left),
        ];
        for (file, actual) in expected {
            let path = case.join(file);
            if bless {
                fs::write(&path, &actual).unwrap();
            } else if fs::read_to_string(&path).ok().as_deref() != Some(actual.as_str()) {
                failures.push(format!("{}: {file} differs", case.display()));
            }
        }
        // Relations every case must satisfy whatever its content.
        for (construct, after) in &page.constructs_after {
            let before = page.constructs_before.get(construct).copied().unwrap_or(0);
            assert!(*after <= before, "{}: {construct} grew", case.display());
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The rewrite converts a page once, with classes, and derives the other class candidates
/// from that conversion: atomic classes by filling the slots differently, a per-page `<style>`
/// by putting it where the proven `<link>` was. On every golden case (both class styles) the
/// derived page must be byte for byte the page a conversion made for that mode directly.
#[test]
fn candidates_derived_from_one_conversion_equal_direct_conversions() {
    use webdiet::markup::CssMode;
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/markup");
    let mut derived_per_page = 0;
    for case in fs::read_dir(&root).unwrap().map(|e| e.unwrap().path()) {
        let Ok(input) = fs::read(case.join("input.html")) else {
            continue;
        };
        let opts = |css: CssMode, atomic_classes: bool| MarkupOptions {
            css,
            page_path: "input.html".to_string(),
            images: images(&case),
            atomic_classes,
            ..MarkupOptions::default()
        };
        let once = convert_page(&input, &opts(CssMode::SiteSheet, false));
        for atomic in [false, true] {
            let direct = convert_page(&input, &opts(CssMode::SiteSheet, atomic));
            let derived = once.with_classes(atomic);
            assert_eq!(derived.rules, direct.rules, "{}", case.display());
            let (a, b) = (
                build_sheet([&derived]).unwrap(),
                build_sheet([&direct]).unwrap(),
            );
            assert_eq!(a.css, b.css, "{}", case.display());
            assert_eq!(
                derived.bytes(&input, Some(&a.names)),
                direct.bytes(&input, Some(&b.names)),
                "{} (atomic: {atomic})",
                case.display()
            );
            let Some(per_page) = derived.per_page("input.html", "webdiet.css", &Default::default())
            else {
                continue;
            };
            let direct = convert_page(&input, &opts(CssMode::PerPage, atomic));
            assert_eq!(
                String::from_utf8_lossy(&per_page.bytes(&input, None)),
                String::from_utf8_lossy(&direct.bytes(&input, None)),
                "{} (per-page, atomic: {atomic})",
                case.display()
            );
            derived_per_page += usize::from(per_page.changed);
        }
    }
    assert!(
        derived_per_page >= 20,
        "{derived_per_page} per-page pages compared"
    );
}
