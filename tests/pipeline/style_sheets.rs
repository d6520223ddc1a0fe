//! Style sheets through the minifier (issue 41): every real sheet of the package corpus is
//! minified under the token proof, re-checked here, with its notices and its ASCII kept; and
//! a windows-1252 page's icon sheet keeps its escapes through `webdiet rewrite`.

use webdiet::css::minify::{minify_sheet, printed_by_lightningcss};
use webdiet::css::proof;
use webdiet::css::tokens::{self, Kind};
use webdiet::notice::is_notice;

use crate::common::sheets::{style_sheets, Tally};
use crate::common::{encodings, package_corpus};

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The comments of `css` that must stay: every one that carries a notice, and the leading
/// ones (before the first token).
fn notices(css: &str) -> Vec<&str> {
    let flat = tokens::tokenize(css);
    let first = flat.toks.iter().position(|t| !t.kind.is_gap());
    flat.toks
        .iter()
        .enumerate()
        .filter(|(_, t)| t.kind == Kind::Comment)
        .map(|(i, t)| (i, &css[t.start..t.end]))
        .filter(|(i, text)| {
            let inner = text.trim_start_matches("/*").trim_end_matches("*/");
            first.is_none_or(|f| *i < f) || is_notice(inner)
        })
        .map(|(_, text)| text)
        .collect()
}

/// Checks one minified sheet against its input, independently of `minify_sheet`'s own check.
fn check_minified(path: &str, input: &[u8], output: &[u8]) {
    let (input, output) = (
        input.strip_prefix(BOM).unwrap_or(input),
        output.strip_prefix(BOM).unwrap_or(output),
    );
    let (input, output) = (
        std::str::from_utf8(input).unwrap(),
        std::str::from_utf8(output).unwrap_or_else(|e| panic!("{path}: output not UTF-8: {e}")),
    );
    if let Err(why) = proof::check(input, output) {
        panic!("{path}: the output fails the proof: {why}");
    }
    assert!(
        !input.is_ascii() || output.is_ascii(),
        "{path}: an ASCII sheet became non-ASCII"
    );
    let mut rest = output;
    for notice in notices(input) {
        match rest.find(notice) {
            Some(at) => rest = &rest[at + notice.len()..],
            None => panic!("{path}: the notice {notice:?} is lost, or out of order"),
        }
    }
}

#[test]
fn every_package_sheet_is_minified_under_the_proof_with_its_notices_and_its_ascii() {
    let Some(root) = package_corpus() else {
        return;
    };
    let sheets = style_sheets(&root);
    assert!(!sheets.is_empty(), "no .css under {}", root.display());
    let mut tally = Tally::default();
    let (mut printed, mut printed_passing) = (0, 0);
    for path in &sheets {
        let name = path.strip_prefix(&root).unwrap().display().to_string();
        let bytes = std::fs::read(path).unwrap();
        let result = minify_sheet(&bytes);
        if let Ok(out) = &result {
            check_minified(&name, &bytes, out);
        }
        tally.add(&name, bytes.len(), &result);
        // What lightningcss printed before the token pass, put to the same proof.
        let text = std::str::from_utf8(bytes.strip_prefix(BOM).unwrap_or(&bytes));
        if let Some(lcss) = text
            .ok()
            .and_then(|t| Some((t, printed_by_lightningcss(t).ok()?)))
        {
            printed += 1;
            printed_passing += usize::from(proof::check(lcss.0, &lcss.1).is_ok());
        }
    }
    eprintln!(
        "package sheets under {}: {}",
        root.display(),
        tally.summary()
    );
    eprintln!("lightningcss's print passes the proof for {printed_passing} of the {printed} sheets it reads");
    for (path, why) in &tally.unparsed {
        eprintln!("  unparsed: {path}: {why}");
    }
    assert!(
        tally.not_proven.is_empty(),
        "outputs that failed the proof: {:?}",
        tally.not_proven
    );
    assert!(
        tally.minified * 2 > tally.files,
        "most sheets should be minified: {}",
        tally.summary()
    );
}

#[test]
fn a_windows_1252_page_s_icon_sheet_keeps_its_escapes_through_the_rewrite() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    encodings::write_icon_font_site(&site);
    let out = tmp.path().join("out");
    crate::modern::rewrite_site(&site, &out, &[]);
    let sheet = std::fs::read(out.join("site/css/icons.css")).unwrap();
    let sheet = String::from_utf8(sheet).unwrap();
    assert!(sheet.is_ascii(), "{sheet}");
    assert!(
        sheet.len() < encodings::ICON_SHEET.len(),
        "not minified: {sheet}"
    );
    for kept in [
        "content:\"\\f000\"",
        "\"caf\\e9  \\2014\"",
        "/*!\n *  Icon sheet",
    ] {
        assert!(sheet.contains(kept), "{kept} lost: {sheet}");
    }
    assert!(!sheet.contains("one icon"), "{sheet}");
}
