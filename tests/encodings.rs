//! A page's bytes outside the constructs the rewrite edits stay byte-identical, in the page's
//! own encoding: one page per encoding family (UTF-8 with a byte order mark, UTF-16 LE and BE,
//! Shift_JIS, EUC-JP, GBK, Big5, windows-1251, KOI8-R, ISO-8859-2, undeclared windows-1252, a
//! page with NUL bytes), each rewritten by the binary. Their rendering is checked in
//! `tests/render_check.rs`.

mod common;

use common::encodings::{self, EncodedPage};
use common::webdiet;
use webdiet::html::{self, edit};
use webdiet::site::charset;

/// A page as tags (kept whole) and single bytes of everything else, for a diff. `unit` is the
/// width of a code unit (2 in UTF-16, where `<` is `3C 00` or `00 3C`).
#[derive(Debug, PartialEq, Eq, Clone)]
enum Token<'a> {
    Tag(&'a [u8]),
    Byte(&'a [u8]),
}

fn tokens<'a>(bytes: &'a [u8], page: &EncodedPage) -> Vec<Token<'a>> {
    let unit = if page.encoding.is_ascii_compatible() {
        1
    } else {
        2
    };
    let ascii = |i: usize| -> Option<u8> {
        let pair = bytes.get(i..i + unit)?;
        match (unit, page.encoding == encoding_rs::UTF_16LE) {
            (1, _) => Some(pair[0]),
            (_, true) if pair[1] == 0 => Some(pair[0]),
            (_, false) if pair[0] == 0 => Some(pair[1]),
            _ => None,
        }
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let starts_tag = ascii(i) == Some(b'<')
            && ascii(i + unit).is_some_and(|b| b.is_ascii_alphabetic() || b == b'/');
        let end = (i..bytes.len())
            .step_by(unit)
            .find(|&j| ascii(j) == Some(b'>'))
            .filter(|_| starts_tag);
        match end {
            Some(end) => {
                out.push(Token::Tag(&bytes[i..end + unit]));
                i = end + unit;
            }
            None => {
                let next = (i + unit).min(bytes.len());
                out.push(Token::Byte(&bytes[i..next]));
                i = next;
            }
        }
    }
    out
}

/// Which tokens of `a` and `b` a longest common subsequence keeps.
fn common<'a>(a: &[Token<'a>], b: &[Token<'a>]) -> (Vec<bool>, Vec<bool>) {
    let (n, m) = (a.len(), b.len());
    let mut table = vec![0u32; (n + 1) * (m + 1)];
    let at = |i: usize, j: usize| i * (m + 1) + j;
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            table[at(i, j)] = if a[i] == b[j] {
                table[at(i + 1, j + 1)] + 1
            } else {
                table[at(i + 1, j)].max(table[at(i, j + 1)])
            };
        }
    }
    let (mut kept_a, mut kept_b) = (vec![false; n], vec![false; m]);
    let (mut i, mut j) = (0, 0);
    while i < n && j < m {
        if a[i] == b[j] {
            kept_a[i] = true;
            kept_b[j] = true;
            i += 1;
            j += 1;
        } else if table[at(i + 1, j)] >= table[at(i, j + 1)] {
            i += 1;
        } else {
            j += 1;
        }
    }
    (kept_a, kept_b)
}

/// What a browser shows as text: the page decoded as a browser decodes it, parsed, its text.
fn text_content(bytes: &[u8]) -> String {
    let decoded = charset::decode(bytes);
    let dom = html::parse(&decoded.text).expect("a shallow page");
    edit::text_content(&dom.document)
}

/// Whether a tag of the original is one the rewrite may change: presentational elements, tags
/// with presentational attributes, the image whose GIF became a PNG.
fn editable(tag: &[u8], page: &EncodedPage) -> bool {
    let decoded = page
        .encoding
        .decode_without_bom_handling(tag)
        .0
        .to_lowercase();
    [
        "<font",
        "</font",
        "<center",
        "</center",
        "<basefont",
        "<u>",
        "</u>",
        "<tt>",
        "</tt>",
        "bgcolor",
        "align",
        "border",
        "cellpadding",
        "width",
        "nowrap",
        "noshade",
        "text=",
        "pic.gif",
        "</head>",
    ]
    .iter()
    .any(|c| decoded.contains(c))
}

#[test]
fn every_encoding_family_keeps_every_byte_outside_the_edited_tags() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    let pages = encodings::write(&site);
    let out = tmp.path().join("out");
    webdiet()
        .arg("rewrite")
        .arg(&site)
        .arg("--out")
        .arg(&out)
        .args(["--css", "site-sheet"])
        .assert()
        .success();
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
    for page in &pages {
        let after = std::fs::read(out.join("site").join(page.name)).unwrap();
        let name = page.name;
        let row = report["markup"]["pages"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["path"] == name)
            .unwrap_or_else(|| panic!("{name} is a page of the markup pass"));
        assert_eq!(row["changed"], true, "{name} was converted: {row:#}");
        assert_eq!(row["constructs_after"], 0, "{name}: {row:#}");

        let (before_tokens, after_tokens) = (tokens(&page.bytes, page), tokens(&after, page));
        let (kept_before, kept_after) = common(&before_tokens, &after_tokens);
        for (token, kept) in before_tokens.iter().zip(&kept_before) {
            match token {
                Token::Byte(b) => assert!(*kept, "{name}: text byte {b:x?} lost"),
                Token::Tag(t) => assert!(
                    *kept || editable(t, page),
                    "{name}: a tag the rewrite has no reason to touch changed: {:?}",
                    String::from_utf8_lossy(t)
                ),
            }
        }
        for (token, kept) in after_tokens.iter().zip(&kept_after) {
            if let (Token::Byte(b), false) = (token, kept) {
                panic!("{name}: text byte {b:x?} added");
            }
        }

        let (was, is) = (charset::detect(&page.bytes), charset::detect(&after));
        assert_eq!(was.encoding, page.encoding, "{name}");
        assert_eq!(
            (is.encoding, is.source),
            (was.encoding, was.source),
            "{name} still declares (or is still read in) its encoding"
        );
        assert_eq!(
            text_content(&after),
            text_content(&page.bytes),
            "{name}: the text a browser shows"
        );
        // The image half edits the reference in every page it can edit in place; UTF-16
        // pages keep the GIF's name (and the GIF).
        let png = page
            .encoding
            .decode_without_bom_handling(&after)
            .0
            .contains("pic.png");
        assert_eq!(png, page.encoding.is_ascii_compatible(), "{name}");
    }
    assert!(out.join("site/pic.gif").exists() && out.join("site/pic.png").exists());
}
