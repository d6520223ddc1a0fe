//! Properties that hold for any input, checked on generated inputs (proptest, a bounded number
//! of cases each so `cargo test` stays fast; `PROPTEST_CASES=N` runs more):
//! - a page rewritten by the public stages (crawl → analyze → rewrite, images and markup)
//!   still parses, every reference that resolved still resolves, and its text is unchanged;
//! - a style sheet's URL occurrences are exact and retargeting them changes nothing else;
//! - GIF conversion never panics, never fails its own verification on a valid GIF, and the
//!   PNG's first frame is what Chromium shows for the GIF (computed here independently);
//! - the replay server's request parser never panics, and pipelined requests parse the same
//!   whole or split at any point.

use crate::common;

use std::collections::BTreeSet;

use markup5ever_rcdom::{Handle, NodeData};
use proptest::prelude::*;
use webdiet::image::{self, Effort, ImageOptions, Outcome};
use webdiet::inventory::{self, AnalyzeOptions, Inventory};
use webdiet::replay::http::{parse_request, Parsed};
use webdiet::rewrite::markup::CssChoice;
use webdiet::rewrite::pages::{apply, css_occurrences, retarget, RefEdit, Rename};
use webdiet::rewrite::{self, RewriteOptions};
use webdiet::site::resolve::Target;
use webdiet::site::{self, CrawlOptions};

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(cases),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

// ---------------------------------------------------------------------------------------------
// (a) HTML rewrite round trip

/// References the generated pages use: GIFs that convert (in any letter case, relative,
/// through `..`, with query and fragment), a spacer, and one that is missing.
const GIF_REFS: [&str; 10] = [
    "a.gif",
    "A.GIF",
    "./a.gif",
    "img/B.GIF",
    "img/../a.gif",
    "img/b.gif",
    "a.gif?v=2#top",
    "/img/B.GIF",
    "s.gif",
    "missing.gif",
];

fn gif_ref() -> impl Strategy<Value = &'static str> {
    prop::sample::select(&GIF_REFS[..])
}

/// Text with entities, non-ASCII letters and whitespace, as old pages have it.
fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            "[A-Za-z0-9 ,.!?]{1,12}",
            Just("&amp;".to_string()),
            Just("&lt;b&gt;".to_string()),
            Just("&eacute;t&eacute;".to_string()),
            Just("&#233;&#x263A;".to_string()),
            Just("caf\u{e9} \u{2014} na\u{ef}ve".to_string()),
            Just("\n  ".to_string()),
            Just("&nbsp;".to_string()),
        ],
        1..4,
    )
    .prop_map(|parts| parts.concat())
}

fn color() -> impl Strategy<Value = &'static str> {
    prop::sample::select(&["red", "#ffcc00", "#003366", "white", "navy"][..])
}

/// One piece of a page body.
fn item() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        text(),
        gif_ref().prop_map(|r| format!("<img src=\"{r}\" alt=\"x\">")),
        (gif_ref(), 1u8..40, 1u8..40)
            .prop_map(|(r, w, h)| format!("<img src={r} width={w} height={h}>")),
        (gif_ref(), text()).prop_map(|(r, t)| format!("<a href=\"{r}\">{t}</a>")),
        (gif_ref(), text())
            .prop_map(|(r, t)| format!("<div style=\"background: url('{r}')\">{t}</div>")),
        Just("<br>".to_string()),
        Just("<hr width=50% align=left>".to_string()),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        let children = prop::collection::vec(inner, 1..4).prop_map(|v| v.concat());
        prop_oneof![
            (color(), 1u8..7, children.clone())
                .prop_map(|(c, s, x)| format!("<font color={c} size={s}>{x}</font>")),
            children
                .clone()
                .prop_map(|x| format!("<center>{x}</center>")),
            children.clone().prop_map(|x| format!("<b>{x}</b>")),
            children.clone().prop_map(|x| format!("<tt>{x}</tt>")),
            children
                .clone()
                .prop_map(|x| format!("<p align=right>{x}</p>")),
            (color(), children.clone()).prop_map(|(c, x)| format!(
                "<table border=0 bgcolor={c}><tr><td align=center valign=top>{x}</td></tr></table>"
            )),
            children.prop_map(|x| format!("<div align=center>{x}</div>")),
        ]
    })
}

fn page() -> impl Strategy<Value = String> {
    (
        any::<bool>(),
        prop::option::of((color(), gif_ref())),
        prop::option::of(gif_ref()),
        prop::collection::vec(item(), 1..6),
    )
        .prop_map(|(standards, body, style, items)| {
            let doctype = if standards { "<!DOCTYPE html>\n" } else { "" };
            let style = style
                .map(|r| format!("<style>p {{ background: url({r}) }}</style>"))
                .unwrap_or_default();
            let body = body
                .map(|(c, r)| format!("<body bgcolor={c} background=\"{r}\">"))
                .unwrap_or_else(|| "<body>".to_string());
            format!(
                "{doctype}<html><head><title>T</title>{style}</head>\n{body}\n{}\n</body></html>\n",
                items.concat()
            )
        })
}

/// A 32×32 GIF of stripes (the PNG is smaller) and the classic spacer.
fn site_gifs() -> (Vec<u8>, Vec<u8>) {
    let pixels: Vec<u8> = (0..32 * 32).map(|i| ((i % 32) / 3 % 4) as u8).collect();
    let palette = [200, 0, 0, 0, 0, 200, 0, 120, 0, 255, 255, 255];
    let stripes = common::still_gif(32, 32, &palette, None, pixels);
    (stripes, common::SPACER_GIF.to_vec())
}

/// The text a reader sees: every text node outside `<style>`, `<script>` and `<head>`.
fn visible_text(html: &str) -> String {
    fn walk(node: &Handle, out: &mut String) {
        match &node.data {
            NodeData::Text { contents } => out.push_str(&contents.borrow()),
            NodeData::Element { name, .. }
                if matches!(&*name.local, "style" | "script" | "head") => {}
            _ => {
                for child in node.children.borrow().iter() {
                    walk(child, out);
                }
            }
        }
    }
    use html5ever::tendril::TendrilSink;
    let dom = html5ever::parse_document(markup5ever_rcdom::RcDom::default(), Default::default())
        .one(html);
    let mut out = String::new();
    walk(&dom.document, &mut out);
    out
}

/// References of one document that resolve to a file of the site, by value as written.
fn resolving(inv: &Inventory, path: &str) -> BTreeSet<String> {
    inv.documents
        .iter()
        .filter(|d| d.path == path)
        .flat_map(|d| &d.references)
        .filter(|r| matches!(&r.target, Target::Local { .. }))
        .filter(|r| {
            !inv.broken_references
                .iter()
                .any(|b| b.page == path && b.reference == r.value)
        })
        .map(|r| r.value.clone())
        .collect()
}

fn broken(inv: &Inventory) -> BTreeSet<String> {
    inv.broken_references
        .iter()
        .map(|b| b.reference.clone())
        .collect()
}

proptest! {
    #![proptest_config(config(48))]

    #[test]
    fn a_rewritten_page_keeps_its_text_and_every_reference_that_resolved(page in page()) {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("site");
        let (stripes, spacer) = site_gifs();
        common::write_site(
            &root,
            &[
                ("index.html", page.as_bytes()),
                ("a.gif", &stripes),
                ("img/B.GIF", &stripes),
                ("s.gif", &spacer),
            ],
        );
        let site = site::crawl(&root, &CrawlOptions::default()).unwrap();
        let before = inventory::analyze(&site, &AnalyzeOptions::default());
        let opts = RewriteOptions {
            out_site: tmp.path().join("out/site"),
            image: ImageOptions {
                effort: Effort::Fast,
                ..ImageOptions::default()
            },
            keep_originals: false,
            analyze: AnalyzeOptions::default(),
            precompress: false,
            markup: Some(CssChoice::Auto),
            lossless: Default::default(),
            scratch: false,
            memo: None,
        };
        let result = rewrite::rewrite(&site, &before, &opts).unwrap();
        prop_assert!(result.broken_by_rewrite.is_empty(), "{:?}", result.broken_by_rewrite);

        let written = site::crawl(&opts.out_site, &CrawlOptions::default()).unwrap();
        let after = inventory::analyze(&written, &AnalyzeOptions::default());
        let out_page = std::fs::read(opts.out_site.join("index.html")).unwrap();
        let out_page = String::from_utf8(out_page).expect("the page stays UTF-8");
        // Parses, and shows the same text.
        prop_assert_eq!(visible_text(&out_page), visible_text(&page));
        // Nothing that was broken is new; nothing that resolved is broken.
        let newly_broken: Vec<_> = broken(&after).difference(&broken(&before)).cloned().collect();
        prop_assert!(newly_broken.is_empty(), "{:?}\n{}", newly_broken, out_page);
        // Every converted GIF the page used is now reached under its new name.
        let reached_before = resolving(&before, "index.html").len();
        let reached_after = resolving(&after, "index.html");
        prop_assert!(
            reached_after.iter().all(|v| !v.contains("missing")),
            "{:?}", reached_after
        );
        // Spacers may turn into CSS, so the page may refer to fewer files, never more.
        prop_assert!(reached_after.len() <= reached_before + 1, "{:?}", reached_after);
    }
}

// ---------------------------------------------------------------------------------------------
// (b) CSS reference rewriting

/// One piece of a style sheet, and how many URL references it holds.
fn css_piece() -> impl Strategy<Value = (String, usize)> {
    let name = prop::sample::select(&["a.gif", "img/B.GIF", "x y.gif", "é.gif", "a.gif?x#y"][..]);
    prop_oneof![
        name.clone()
            .prop_map(|n| (format!("p{{background:url({})}}", n.replace(' ', "\\ ")), 1)),
        name.clone()
            .prop_map(|n| (format!("p {{ background: url(\"{n}\") }}"), 1)),
        name.clone()
            .prop_map(|n| (format!("td{{background-image:url( '{n}' )}}"), 1)),
        name.clone().prop_map(|n| (format!("@import \"{n}\";"), 1)),
        name.clone()
            .prop_map(|n| (format!("@import url({});", n.replace(' ', "%20")), 1)),
        name.clone().prop_map(|n| (format!("/* url({n}) */"), 0)),
        name.prop_map(|n| (
            format!("li{{list-style:url({}) square}}", n.replace(' ', "\\ ")),
            1
        )),
        "[a-z]{1,6}\\{[a-z-]{1,8}:[a-z0-9 #]{1,10}\\}".prop_map(|s| (s, 0)),
        "[ \n\t]{1,3}".prop_map(|s| (s, 0)),
    ]
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn css_references_are_found_exactly_and_retargeting_touches_nothing_else(
        pieces in prop::collection::vec(css_piece(), 0..12)
    ) {
        let text: String = pieces.iter().map(|(p, _)| p.as_str()).collect();
        let expected: usize = pieces.iter().map(|(_, n)| n).sum();
        let occurrences = css_occurrences(&text);
        prop_assert_eq!(occurrences.len(), expected, "{}", text);
        let rename = Rename { old_tail: ".gif".into(), new_tail: ".png".into() };
        let mut edits = Vec::new();
        for occ in &occurrences {
            let raw = &text.as_bytes()[occ.span.clone()];
            let value = String::from_utf8_lossy(raw);
            prop_assert!(value.to_ascii_lowercase().contains(".gif"), "{:?} in {}", value, text);
            let replacement = retarget(raw, &rename).unwrap();
            let new = String::from_utf8(replacement.clone()).unwrap();
            prop_assert_eq!(new.to_ascii_lowercase(), value.to_ascii_lowercase().replace(".gif", ".png"));
            edits.push(RefEdit { span: occ.span.clone(), replacement });
        }
        let out = String::from_utf8(apply(text.as_bytes(), &edits)).unwrap();
        // Everything but the extensions is unchanged.
        prop_assert_eq!(out.to_ascii_lowercase().replace(".png", ".gif"), text.to_ascii_lowercase());
        prop_assert!(!out.contains(".gif") || text.matches("/*").count() > 0, "{}", out);
    }
}

#[test]
fn an_unclosed_url_of_blanks_at_the_end_of_a_sheet_has_no_reference() {
    // Found by the `css_references` fuzzer: the blanks were trimmed from both ends and the
    // span crossed (a panic).
    for text in [
        "p{background:url( ",
        "p{background:url(   ",
        "@import url(\t",
    ] {
        assert!(css_occurrences(text).is_empty(), "{text:?}");
    }
    assert_eq!(css_occurrences("p{background:url( a.gif ").len(), 1);
}

// ---------------------------------------------------------------------------------------------
// (c) GIF decode and convert

/// A generated frame: rectangle (may lie past the screen), palette (local or not), indices.
#[derive(Debug, Clone)]
struct GenFrame {
    rect: (u16, u16, u16, u16),
    local: Option<Vec<u8>>,
    transparent: Option<u8>,
    dispose: gif::DisposalMethod,
    delay: u16,
    interlaced: bool,
    pixels: Vec<u8>,
}

fn gen_frame() -> impl Strategy<Value = GenFrame> {
    (
        (0u16..24, 0u16..24, 0u16..28, 0u16..28),
        prop::option::of(1usize..=256),
        any::<Option<u8>>(),
        prop::sample::select(
            &[
                gif::DisposalMethod::Any,
                gif::DisposalMethod::Keep,
                gif::DisposalMethod::Background,
                gif::DisposalMethod::Previous,
            ][..],
        ),
        0u16..4,
        any::<bool>(),
        any::<u64>(),
    )
        .prop_map(
            |(rect, local, transparent, dispose, delay, interlaced, seed)| {
                let colors = local.unwrap_or(16);
                let n = usize::from(rect.2) * usize::from(rect.3);
                let mut s = seed;
                let pixels = (0..n)
                    .map(|i| {
                        // Runs of one index, like drawings, with some noise.
                        if i % 5 == 0 {
                            s = s
                                .wrapping_mul(6364136223846793005)
                                .wrapping_add(1442695040888963407);
                        }
                        ((s >> 33) as usize % colors) as u8
                    })
                    .collect();
                let local = local.map(|c| (0..c * 3).map(|i| (i * 53 % 251) as u8).collect());
                GenFrame {
                    rect,
                    local,
                    transparent: transparent.map(|t| (usize::from(t) % colors) as u8),
                    dispose,
                    delay,
                    interlaced,
                    pixels,
                }
            },
        )
}

fn encode_gif(screen: (u16, u16), frames: &[GenFrame]) -> Vec<u8> {
    let global: Vec<u8> = (0..16 * 3).map(|i| (i * 17 % 256) as u8).collect();
    let mut out = Vec::new();
    {
        let mut enc = gif::Encoder::new(&mut out, screen.0, screen.1, &global).unwrap();
        if frames.len() > 1 {
            enc.set_repeat(gif::Repeat::Infinite).unwrap();
        }
        for f in frames {
            let (left, top, width, height) = f.rect;
            let frame = gif::Frame {
                left,
                top,
                width,
                height,
                delay: f.delay,
                dispose: f.dispose,
                transparent: f.transparent,
                palette: f.local.clone(),
                interlaced: f.interlaced,
                buffer: f.pixels.clone().into(),
                ..gif::Frame::default()
            };
            enc.write_frame(&frame).unwrap();
        }
    }
    out
}

/// The first frame as Chromium shows it, computed from the generator's own description: the
/// screen grown to the first frame, transparent except the frame's opaque pixels.
fn first_frame_shown(screen: (u16, u16), f: &GenFrame) -> image_crate::RgbaImage {
    let (l, t, w, h) = (
        u32::from(f.rect.0),
        u32::from(f.rect.1),
        u32::from(f.rect.2),
        u32::from(f.rect.3),
    );
    let width = u32::from(screen.0).max(l + w);
    let height = u32::from(screen.1).max(t + h);
    let palette: Vec<u8> = match &f.local {
        Some(p) => p.clone(),
        None => (0..16 * 3).map(|i| (i * 17 % 256) as u8).collect(),
    };
    // An interlaced frame's rows are stored in pass order: stored row k is shown at order[k].
    let order: Vec<u32> = if f.interlaced {
        [(0, 8), (4, 8), (2, 4), (1, 2)]
            .iter()
            .flat_map(|&(start, step)| (start..h).step_by(step))
            .collect()
    } else {
        (0..h).collect()
    };
    let mut img = image_crate::RgbaImage::new(width, height);
    for (k, &y) in order.iter().enumerate() {
        for x in 0..w {
            let i = f.pixels[(k as u32 * w + x) as usize];
            if Some(i) == f.transparent {
                continue;
            }
            let c = &palette[usize::from(i) * 3..usize::from(i) * 3 + 3];
            img.put_pixel(l + x, t + y, image_crate::Rgba([c[0], c[1], c[2], 255]));
        }
    }
    img
}

use ::image as image_crate;

proptest! {
    #![proptest_config(config(96))]

    #[test]
    fn gif_conversion_never_fails_verification_and_shows_the_browsers_first_frame(
        screen in (0u16..40, 0u16..40),
        frames in prop::collection::vec(gen_frame(), 1..5),
    ) {
        let gif = encode_gif(screen, &frames);
        let opts = ImageOptions { effort: Effort::Fast, min_saving: 0, ..ImageOptions::default() };
        let c = image::convert_gif(&gif, &opts);
        let first = &frames[0];
        let nothing = (u32::from(screen.0).max(u32::from(first.rect.0) + u32::from(first.rect.2)))
            * (u32::from(screen.1).max(u32::from(first.rect.1) + u32::from(first.rect.3)))
            == 0;
        if nothing {
            prop_assert_eq!(c.outcome, Outcome::Corrupt, "{}", c.reason);
            return Ok(());
        }
        prop_assert!(
            matches!(c.outcome, Outcome::Converted | Outcome::PngLarger),
            "{}", c.reason
        );
        prop_assert_eq!(c.frames, frames.len());
        if let Some(png) = &c.png {
            let shown = image_crate::load_from_memory(png).unwrap().into_rgba8();
            let expected = first_frame_shown(screen, first);
            prop_assert_eq!(shown.dimensions(), expected.dimensions());
            for (a, b) in expected.pixels().zip(shown.pixels()) {
                prop_assert!(a == b || (a.0[3] == 0 && b.0[3] == 0), "{:?} vs {:?}", a, b);
            }
        }
    }

    #[test]
    fn any_bytes_after_a_gif_header_never_panic(body in prop::collection::vec(any::<u8>(), 0..400)) {
        let mut bytes = b"GIF89a".to_vec();
        bytes.extend_from_slice(&body);
        let c = image::convert_gif(&bytes, &ImageOptions::default());
        prop_assert!(c.png.is_none() || c.outcome == Outcome::Converted);
        let _ = image::facts(&bytes);
    }
}

// ---------------------------------------------------------------------------------------------
// (d) the replay server's HTTP request parser

#[derive(Debug, Clone, PartialEq)]
struct GenRequest {
    method: &'static str,
    target: String,
    minor: u8,
    connection: Option<&'static str>,
    etag: Option<String>,
    accept: Option<&'static str>,
    extra: Vec<(String, String)>,
}

fn gen_request() -> impl Strategy<Value = GenRequest> {
    (
        prop::sample::select(&["GET", "HEAD"][..]),
        "/[a-zA-Z0-9._~%/-]{0,20}(\\?[a-z0-9=&]{0,8})?",
        0u8..2,
        prop::option::of(prop::sample::select(
            &["close", "keep-alive", "Keep-Alive, TE"][..],
        )),
        prop::option::of("\"[a-z0-9-]{1,12}\""),
        prop::option::of(prop::sample::select(
            &["gzip, deflate", "deflate;q=0", "identity", "x-gzip"][..],
        )),
        prop::collection::vec(("X-[A-Za-z]{1,8}", "[ -~]{0,16}"), 0..3),
    )
        .prop_map(
            |(method, target, minor, connection, etag, accept, extra)| GenRequest {
                method,
                target,
                minor,
                connection,
                etag,
                accept,
                extra,
            },
        )
}

fn wire(r: &GenRequest) -> String {
    let mut s = format!(
        "{} {} HTTP/1.{}\r\nHost: 127.0.0.1\r\n",
        r.method, r.target, r.minor
    );
    if let Some(c) = r.connection {
        s += &format!("Connection: {c}\r\n");
    }
    if let Some(e) = &r.etag {
        s += &format!("If-None-Match: {e}\r\n");
    }
    if let Some(a) = r.accept {
        s += &format!("Accept-Encoding: {a}\r\n");
    }
    for (name, value) in &r.extra {
        s += &format!("{name}: {}\r\n", value.trim());
    }
    s + "\r\n"
}

/// Requests at the front of `buf`, one after another, as the server reads a pipelined stream,
/// and how many bytes they took.
fn parse_all(buf: &[u8]) -> (Vec<webdiet::replay::http::Request>, usize) {
    let mut out = Vec::new();
    let mut at = 0;
    while let Parsed::Complete(req, n) = parse_request(&buf[at..]) {
        assert!(n > 0 && at + n <= buf.len());
        out.push(req);
        at += n;
    }
    (out, at)
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn any_bytes_never_panic_the_request_parser(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        if let Parsed::Complete(_, n) = parse_request(&bytes) {
            prop_assert!(n > 0 && n <= bytes.len());
        }
    }

    #[test]
    fn pipelined_requests_parse_the_same_whole_or_split_anywhere(
        requests in prop::collection::vec(gen_request(), 1..6),
        split in any::<prop::sample::Index>(),
    ) {
        let stream: String = requests.iter().map(wire).collect();
        let bytes = stream.as_bytes();
        let (whole, used) = parse_all(bytes);
        prop_assert_eq!(used, bytes.len());
        prop_assert_eq!(whole.len(), requests.len());
        for (got, want) in whole.iter().zip(&requests) {
            prop_assert_eq!(&got.method, want.method);
            prop_assert_eq!(&got.target, &want.target);
            prop_assert_eq!(got.minor, want.minor);
            prop_assert_eq!(got.connection_close, want.connection == Some("close"));
            prop_assert_eq!(got.if_none_match.as_deref(), want.etag.as_deref());
            prop_assert_eq!(got.accept_deflate, want.accept == Some("gzip, deflate"));
            prop_assert_eq!(got.accept_gzip, matches!(want.accept, Some("gzip, deflate" | "x-gzip")));
        }
        // Arriving in two reads: what is complete in the first is parsed, the rest after the
        // second read is appended.
        let cut = split.index(bytes.len() + 1);
        let (mut seen, used) = parse_all(&bytes[..cut]);
        let (rest, _) = parse_all(&bytes[used..]);
        seen.extend(rest);
        prop_assert_eq!(seen, whole);
    }
}

// ---------------------------------------------------------------------------------------------
// (c) Style-sheet minification

/// Pieces of CSS that sit next to each other in every order: tokens that may run into one
/// another once the white space between them goes, comments of every kind, escapes, blocks.
const CSS_PIECES: &[&str] = &[
    "a",
    "b1",
    "-",
    "+",
    "*",
    "/",
    "\\",
    "\\9",
    "\\0 ",
    "!",
    "important",
    ">",
    "~",
    ",",
    ";",
    ":",
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    "1",
    ".5",
    "2px",
    "%",
    "#f00",
    "\"s\"",
    "'\\f000'",
    "url(x)",
    "url( \"y\" )",
    "calc(",
    "expression(",
    "and",
    "@media",
    "@x",
    "@font-face",
    "--v",
    "<!--",
    "-->",
    "first-letter",
    "=",
    "|",
    " ",
    "  ",
    "\n",
    "\t",
    "/**/",
    "/* c */",
    "/*! n */",
    "/* \\*/",
    "/*/",
    "*/",
    "@import",
    "@charset \"utf-8\";",
    "@supports",
    "@-webkit-keyframes",
    "@page",
    "from",
    "0%",
    "\\\n",
    "u+1f",
    "e-",
    "not",
    "only",
];

/// `pieces` joined, with each closing bracket that closes nothing left out and every block
/// still open closed at the end (so that most sheets are read, not refused).
fn balanced(pieces: &[&str]) -> String {
    let mut css = String::new();
    let mut open = Vec::new();
    for piece in pieces {
        let closer = match piece.chars().last() {
            Some('{') => Some('}'),
            Some('(') => Some(')'),
            Some('[') => Some(']'),
            _ => None,
        };
        if matches!(*piece, "}" | ")" | "]") && open.last() != piece.chars().next().as_ref() {
            continue;
        }
        if matches!(*piece, "}" | ")" | "]") {
            open.pop();
        }
        open.extend(closer);
        css.push_str(piece);
    }
    css.extend(open.iter().rev());
    css
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn a_minified_sheet_is_proved_no_larger_and_minifies_to_itself(
        pieces in prop::collection::vec(prop::sample::select(CSS_PIECES), 0..60)
    ) {
        use webdiet::css::minify::{minify_text, Kept};
        let css = balanced(&pieces);
        match minify_text(&css) {
            Ok(out) => {
                prop_assert!(out.len() <= css.len(), "{:?} → {:?}", css, out);
                prop_assert_eq!(minify_text(&out).ok(), Some(out.clone()), "{:?}", css);
            }
            Err(Kept::NotProven(why)) => prop_assert!(false, "{:?}: {}", css, why),
            Err(_) => {}
        }
    }
}
