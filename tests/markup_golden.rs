//! Golden cases for the markup stage: each `tests/golden/markup/<case>/input.html` must convert
//! to `expected.html` linking a site sheet whose content is `expected.css`. Every case was also
//! rendered in Chromium against its input (`benches/markup-golden-render.sh`); see
//! `docs/markup.md`. Set `WEBDIET_BLESS=1` to rewrite the expectations after a reviewed change.

use std::fs;
use std::path::Path;

use webdiet::markup::{build_sheet, convert_page, MarkupOptions};

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
            ..MarkupOptions::default()
        };
        let page = convert_page(&input, &opts);
        let sheet = build_sheet([&page]).unwrap();
        let html = if page.changed {
            sheet.page_html(&page)
        } else {
            page.html.clone()
        };
        let css = sheet.css.clone();
        let mut left = String::new();
        for (construct, reason) in &page.left_as_is {
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
