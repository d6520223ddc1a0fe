//! A page's bytes outside the constructs the rewrite edits stay byte-identical, in the page's
//! own encoding: one page per encoding family (UTF-8 with a byte order mark, UTF-16 LE and BE,
//! Shift_JIS, EUC-JP, GBK, Big5, windows-1251, KOI8-R, ISO-8859-2, undeclared windows-1252, a
//! page with NUL bytes), rewritten once by the binary and checked one test per family. Every
//! byte outside a tag is kept, every tag the rewrite has no reason to touch is kept, and inside
//! an edited tag every attribute it does not convert (`alt`, `title`, `src` of a page whose
//! image stays…) is kept byte for byte. Their rendering is checked in `tests/render_check.rs`.

use crate::common;

use std::path::PathBuf;
use std::sync::OnceLock;

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
    edit::text_content(&dom)
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

/// The attributes of a tag, each as its bytes (`name`, `name=value`, `name="value"`), with its
/// name in ASCII lower case. `ascii` reads the code unit at a byte offset (as in [`tokens`]).
fn attributes<'a>(
    tag: &'a [u8],
    unit: usize,
    ascii: &dyn Fn(usize) -> Option<u8>,
) -> Vec<(String, &'a [u8])> {
    let space = |i: usize| ascii(i).is_some_and(|b| b.is_ascii_whitespace());
    let end = tag.len() - unit; // the closing `>`
    let mut i = unit; // after `<`
    while i < end && !space(i) {
        i += unit;
    }
    let mut out = Vec::new();
    loop {
        while i < end && (space(i) || ascii(i) == Some(b'/')) {
            i += unit;
        }
        if i >= end {
            return out;
        }
        let start = i;
        while i < end && !space(i) && ascii(i) != Some(b'=') {
            i += unit;
        }
        let name: String = (start..i)
            .step_by(unit)
            .map(|j| ascii(j).map_or('?', |b| b.to_ascii_lowercase() as char))
            .collect();
        if ascii(i) == Some(b'=') {
            i += unit;
            match ascii(i) {
                Some(q @ (b'"' | b'\'')) => {
                    i += unit;
                    while i < end && ascii(i) != Some(q) {
                        i += unit;
                    }
                    i = (i + unit).min(end);
                }
                _ => {
                    while i < end && !space(i) {
                        i += unit;
                    }
                }
            }
        }
        out.push((name, &tag[start..i]));
    }
}

/// Attributes the rewrite converts to CSS or points at the PNG.
const CONVERTED: &[&str] = &[
    "bgcolor",
    "text",
    "color",
    "size",
    "face",
    "align",
    "valign",
    "border",
    "cellpadding",
    "width",
    "nowrap",
    "noshade",
    "src",
];

/// The rewritten site, made once for every test of this file (in the target's temporary
/// directory, replaced on each run).
struct Rewritten {
    site: PathBuf,
    pages: Vec<EncodedPage>,
    report: serde_json::Value,
}

fn rewritten() -> &'static Rewritten {
    static SITE: OnceLock<Rewritten> = OnceLock::new();
    SITE.get_or_init(|| {
        let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("encodings");
        let _ = std::fs::remove_dir_all(&root);
        let pages = encodings::write(&root.join("site"));
        let out = root.join("out");
        webdiet()
            .arg("rewrite")
            .arg(root.join("site"))
            .arg("--out")
            .arg(&out)
            .args(["--css", "site-sheet"])
            .assert()
            .success();
        let report = std::fs::read(out.join("report.json")).unwrap();
        Rewritten {
            site: out.join("site"),
            pages,
            report: serde_json::from_slice(&report).unwrap(),
        }
    })
}

/// Rewrites the family's page and checks that only what the rewrite edits changed.
fn keeps_every_byte_outside_the_edited_constructs(name: &str) {
    let Rewritten {
        site,
        pages,
        report,
    } = rewritten();
    let page = pages.iter().find(|p| p.name == name).unwrap();
    let after = std::fs::read(site.join(name)).unwrap();
    let row = report["markup"]["pages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["path"] == name)
        .unwrap_or_else(|| panic!("{name} is a page of the markup pass"));
    assert_eq!(row["changed"], true, "{name} was converted: {row:#}");
    // Everything but `<center>`, `<u>` and `<tt>`, whose CSS form is longer than they are.
    assert_eq!(
        row["constructs_after"], row["left_as_is"]["css-longer"],
        "{name}: {row:#}"
    );
    assert_eq!(row["constructs_after"], 3, "{name}: {row:#}");

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
    // Inside the edited tags: between two kept tokens, every attribute of a replaced tag that
    // the rewrite does not convert is in one of the tags that replaced it, byte for byte.
    let unit = if page.encoding.is_ascii_compatible() {
        1
    } else {
        2
    };
    let ascii_of = |bytes: &[u8], i: usize| -> Option<u8> {
        let pair = bytes.get(i..i + unit)?;
        match (unit, page.encoding == encoding_rs::UTF_16LE) {
            (1, _) => Some(pair[0]),
            (_, true) if pair[1] == 0 => Some(pair[0]),
            (_, false) if pair[0] == 0 => Some(pair[1]),
            _ => None,
        }
    };
    let (mut i, mut j) = (0, 0);
    let mut checked = 0;
    while i < before_tokens.len() {
        let gap_before: Vec<&[u8]> = (i..before_tokens.len())
            .take_while(|&k| !kept_before[k])
            .filter_map(|k| match before_tokens[k] {
                Token::Tag(t) => Some(t),
                Token::Byte(_) => None,
            })
            .collect();
        let skipped = (i..before_tokens.len())
            .take_while(|&k| !kept_before[k])
            .count();
        let gap_after: Vec<&[u8]> = (j..after_tokens.len())
            .take_while(|&k| !kept_after[k])
            .filter_map(|k| match after_tokens[k] {
                Token::Tag(t) => Some(t),
                Token::Byte(_) => None,
            })
            .collect();
        let skipped_after = (j..after_tokens.len())
            .take_while(|&k| !kept_after[k])
            .count();
        for tag in gap_before {
            let tag_ascii = |k: usize| ascii_of(tag, k);
            for (attr, bytes) in attributes(tag, unit, &tag_ascii) {
                if CONVERTED.contains(&attr.as_str()) || (attr == "src" && unit == 2) {
                    continue;
                }
                checked += 1;
                assert!(
                    gap_after
                        .iter()
                        .any(|t| t.windows(bytes.len()).any(|w| w == bytes)),
                    "{name}: attribute {attr} of an edited tag changed: {:?}",
                    String::from_utf8_lossy(bytes)
                );
            }
        }
        i += skipped + 1;
        j += skipped_after + 1;
    }
    assert!(
        checked >= 2,
        "{name}: the alt and title of edited tags were checked"
    );

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
    // The image half edits the reference in every page it can edit in place; UTF-16 pages
    // keep the GIF's name (and the GIF).
    let png = page
        .encoding
        .decode_without_bom_handling(&after)
        .0
        .contains("pic.png");
    assert_eq!(png, page.encoding.is_ascii_compatible(), "{name}");
    assert!(site.join("pic.gif").exists() && site.join("pic.png").exists());
}

macro_rules! family {
    ($($test:ident: $page:literal,)*) => {
        $(
            #[test]
            fn $test() {
                keeps_every_byte_outside_the_edited_constructs($page);
            }
        )*

        #[test]
        fn every_page_of_the_fixture_has_its_test() {
            let names: Vec<&str> = encodings::pages().iter().map(|p| p.name).collect();
            assert_eq!(names, [$($page),*]);
        }
    };
}

family! {
    utf8_with_a_byte_order_mark_keeps_it_and_every_byte_outside_the_edits: "utf8-bom.html",
    utf16le_with_a_byte_order_mark_is_a_page_edited_in_place: "utf16le.html",
    utf16be_with_a_byte_order_mark_is_a_page_edited_in_place: "utf16be.html",
    shift_jis_is_edited_in_place_without_reencoding: "shift_jis.html",
    euc_jp_is_edited_in_place_without_reencoding: "euc-jp.html",
    gbk_is_edited_in_place_without_reencoding: "gbk.html",
    big5_is_edited_in_place_without_reencoding: "big5.html",
    windows_1251_is_edited_in_place_without_reencoding: "windows-1251.html",
    koi8_r_is_edited_in_place_without_reencoding: "koi8-r.html",
    iso_8859_2_is_edited_in_place_without_reencoding: "iso-8859-2.html",
    undeclared_windows_1252_is_edited_in_place_without_reencoding: "windows-1252-undeclared.html",
    a_page_with_nul_bytes_is_a_page_edited_in_place: "nul-bytes.html",
}

/// Issue 24, item 3: for each way of deciding an encoding that webdiet once decided unlike
/// Chromium, webdiet reads the page as Chromium does (or knows it guessed), and after the
/// rewrite the cell's background picture is still there: the `background` attribute either
/// stays in the page, where the browser reads it as before, or goes into the sheet as a URL
/// that names an existing file. (Before, a `<meta>` after `<!-->`, after byte 1024 or in an
/// XML declaration was missed, a `<meta>` in a script string was taken, and the value was
/// moved into the sheet in the wrong encoding: the picture was lost.)
#[test]
fn pages_are_read_in_the_encoding_chromium_reads_them_in_and_keep_their_pictures() {
    // In the target's temporary directory, replaced on each run, to be looked at.
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("sniffed");
    let _ = std::fs::remove_dir_all(&root);
    let site = root.join("site");
    // With the family pages, so that the shared sheet pays for itself.
    encodings::write(&site);
    let pages = encodings::write_sniffed(&site);
    let out = root.join("out");
    webdiet()
        .arg("rewrite")
        .arg(&site)
        .arg("--out")
        .arg(&out)
        .args(["--css", "site-sheet"])
        .assert()
        .success();
    let sheet = std::fs::read_to_string(out.join("site/webdiet.css")).unwrap_or_default();
    let in_sheet: Vec<String> = webdiet::css::references(&sheet)
        .into_iter()
        .map(|r| r.value)
        .collect();
    for page in &pages {
        let charset = charset::detect(&page.bytes);
        assert_eq!(
            (charset.encoding, charset.guessed),
            (page.chromium, page.guessed),
            "{}: read as Chromium reads it",
            page.name
        );
        let after = std::fs::read(out.join("site").join(page.name)).unwrap();
        let (text, _, _) = page.chromium.decode(&after);
        let stem = page.picture.trim_end_matches(".gif");
        let kept = ["gif", "png"]
            .iter()
            .map(|ext| format!("background=\"{stem}.{ext}\""))
            .find(|attr| text.contains(attr.as_str()));
        match kept {
            Some(attr) => {
                let file = &attr[12..attr.len() - 1];
                assert!(
                    out.join("site").join(file).exists(),
                    "{}: {file}",
                    page.name
                );
            }
            None => {
                assert!(
                    !text.contains("background="),
                    "{}: the background is in the page in another form: {text}",
                    page.name
                );
                let named = in_sheet
                    .iter()
                    .any(|url| url.starts_with(stem) && out.join("site").join(url).exists());
                assert!(named, "{}: the sheet names the picture: {sheet}", page.name);
            }
        }
    }
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
    let guessed = report["markup"]["left_as_is"]["encoding-guessed"].as_u64();
    assert_eq!(
        guessed,
        Some(pages.iter().filter(|p| p.guessed).count() as u64),
        "the background of each guessed page is left, with its reason"
    );
}
