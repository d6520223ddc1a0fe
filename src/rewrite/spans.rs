//! Finds the byte spans of URL references in an HTML page's raw bytes, so that the rewrite can
//! change `.gif` to `.png` and leave every other byte of the page exactly as it was.
//!
//! Why a small scanner rather than lol_html or html5ever: html5ever gives the meaning (which
//! element, which attribute) but no source positions; lol_html would give positions but is a
//! streaming rewriter with its own selector engine, a new dependency and a re-encoding path for
//! non-UTF-8 pages. What we need is narrow: start tags, their attribute values, `<style>`
//! contents, comments and raw-text elements skipped — in the page's own bytes, so windows-1252
//! and other ASCII-compatible pages are edited without decoding and re-encoding. The scan
//! follows the HTML tokenizer's rules for those constructs (tags are read by `html::lex`, the
//! lexer the markup pass uses too), on [`byte_preserving`] text in which the second bytes of
//! Shift_JIS/Big5/GBK characters can never pass for a `\` or a letter. It is cross-checked against
//! html5ever: after rewriting, the page is parsed again and any reference that still reaches a
//! converted GIF keeps that GIF in the output (see `rewrite::leftovers`), so a reference this
//! scanner misses is never broken, only not improved.

use std::ops::Range;

use encoding_rs::{Encoding, UTF_8};

use crate::css;
use crate::html::lex::{self, is_space};
use crate::html::source;

/// Where a URL was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// A whole attribute value (`src`, `href`, `background`, `lowsrc`, `data`, `poster`).
    Attribute,
    /// One candidate of a `srcset`.
    Srcset,
    /// A `url()` / `@import` inside a `style` attribute.
    StyleAttribute,
    /// A `url()` / `@import` inside a `<style>` block (or a CSS file).
    Css,
}

/// One URL occurrence in the raw bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Occurrence {
    pub place: Place,
    /// The element it is on, lower-cased.
    pub element: String,
    /// The bytes of the URL as written (inside quotes, entities and CSS escapes not decoded).
    pub span: Range<usize>,
}

/// Attributes that hold one URL, on any element.
const URL_ATTRIBUTES: [&str; 7] = [
    "src",
    "href",
    "background",
    "lowsrc",
    "data",
    "poster",
    "dynsrc",
];

/// What a scan of a page finds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scan {
    /// URL occurrences, in source order.
    pub urls: Vec<Occurrence>,
    /// Script text: `<script>` contents, `on…` event attributes, `javascript:` URLs.
    pub scripts: Vec<Range<usize>>,
}

/// All URL occurrences in a page. `text` is the page with every byte at its own offset
/// ([`byte_preserving`]).
pub fn find(text: &str) -> Vec<Occurrence> {
    scan(text).urls
}

/// URL occurrences and script ranges of a page (see [`find`]).
pub fn scan(text: &str) -> Scan {
    let mut found = Scan::default();
    for lex::Found { tag, raw_text } in lex::start_tags(text.as_bytes()) {
        let mut seen: Vec<&str> = Vec::new();
        for attr in &tag.attrs {
            // The first of duplicate attributes wins, as in the HTML parser.
            if seen.contains(&attr.name.as_str()) {
                continue;
            }
            seen.push(&attr.name);
            if let Some(value) = attr.value.clone() {
                attribute(text, &tag.name, &attr.name, value, &mut found);
            }
        }
        match (tag.name.as_str(), raw_text) {
            ("style", Some(range)) => {
                css_occurrences(text, range, Place::Css, &tag.name, &mut found.urls)
            }
            ("script", Some(range)) => found.scripts.push(range),
            _ => {}
        }
    }
    found
}

/// The page as a `&str` whose byte offsets are the page's: a UTF-8 page itself when it is
/// valid, otherwise the page with every non-ASCII byte replaced by `_` (which tokenizes like a
/// name character, as non-ASCII characters do, in HTML and in CSS), and the ASCII-valued second
/// bytes of double-byte characters too (Shift_JIS `ソ` is `83 5C`: a browser, which decodes
/// first, sees no backslash there).
pub fn byte_preserving<'a>(
    bytes: &'a [u8],
    encoding: &'static Encoding,
) -> std::borrow::Cow<'a, str> {
    if encoding == UTF_8 {
        if let Ok(text) = std::str::from_utf8(bytes) {
            return text.into();
        }
    }
    let shadow = source::ascii_shadow(bytes, encoding);
    // The shadow is ASCII.
    String::from_utf8(shadow).unwrap_or_default().into()
}

fn attribute(text: &str, tag: &str, name: &str, value: Range<usize>, scan: &mut Scan) {
    let raw = &text[value.clone()];
    let found = &mut scan.urls;
    if name.starts_with("on")
        || raw.trim_start().len() >= 11
            && raw.trim_start().as_bytes()[..11].eq_ignore_ascii_case(b"javascript:")
    {
        scan.scripts.push(value);
    } else if URL_ATTRIBUTES.contains(&name) {
        let span = trim(raw, value.start);
        if !span.is_empty() {
            found.push(Occurrence {
                place: Place::Attribute,
                element: tag.to_string(),
                span,
            });
        }
    } else if name == "srcset" {
        for span in srcset_spans(raw, value.start) {
            found.push(Occurrence {
                place: Place::Srcset,
                element: tag.to_string(),
                span,
            });
        }
    } else if name == "style" {
        css_occurrences(text, value, Place::StyleAttribute, tag, found);
    }
}

/// URL spans of `url()` and `@import` in a range of CSS.
fn css_occurrences(
    text: &str,
    range: Range<usize>,
    place: Place,
    tag: &str,
    found: &mut Vec<Occurrence>,
) {
    let css_text = &text[range.clone()];
    for r in css::references(css_text) {
        if let Some(span) = css_url_span(css_text, r.span) {
            found.push(Occurrence {
                place,
                element: tag.to_string(),
                span: range.start + span.start..range.start + span.end,
            });
        }
    }
}

/// The URL inside a CSS token span: `url( "a.gif" )` → `a.gif`, `"a.css"` → `a.css`.
pub fn css_url_span(css: &str, token: Range<usize>) -> Option<Range<usize>> {
    let t = css.get(token.clone())?;
    let (mut start, mut end) = (0, t.len());
    if t.len() >= 4 && t.as_bytes()[..4].eq_ignore_ascii_case(b"url(") {
        start = 4;
        end = end.checked_sub(usize::from(t.ends_with(')')))?;
    }
    let inner = &t[start..end];
    if inner.trim().is_empty() {
        // `url(` and blanks to the end of the sheet: no URL (and its blanks are not trimmed
        // from both ends, which would cross).
        return None;
    }
    let lead = inner.len() - inner.trim_start().len();
    let trail = inner.len() - inner.trim_end().len();
    start += lead;
    end -= trail;
    let inner = &t[start..end];
    if inner.len() >= 2
        && (inner.starts_with('"') && inner.ends_with('"')
            || inner.starts_with('\'') && inner.ends_with('\''))
    {
        start += 1;
        end -= 1;
    }
    (start < end).then(|| token.start + start..token.start + end)
}

/// The spans of the URLs in a `srcset` value (the HTML standard's candidate splitting).
fn srcset_spans(value: &str, offset: usize) -> Vec<Range<usize>> {
    let bytes = value.as_bytes();
    let mut spans = Vec::new();
    let mut i = 0;
    loop {
        while i < bytes.len() && (is_space(bytes[i]) || bytes[i] == b',') {
            i += 1;
        }
        if i >= bytes.len() {
            return spans;
        }
        let start = i;
        while i < bytes.len() && !is_space(bytes[i]) {
            i += 1;
        }
        let mut end = i;
        while end > start && bytes[end - 1] == b',' {
            end -= 1;
        }
        if end > start {
            spans.push(offset + start..offset + end);
        }
        if end == i {
            // Descriptors up to the next comma outside parentheses.
            let mut depth = 0usize;
            while i < bytes.len() {
                match bytes[i] {
                    b'(' => depth += 1,
                    b')' => depth = depth.saturating_sub(1),
                    b',' if depth == 0 => break,
                    _ => {}
                }
                i += 1;
            }
        }
    }
}

/// A span without leading and trailing ASCII whitespace (the URL parser strips it).
fn trim(raw: &str, offset: usize) -> Range<usize> {
    let lead = raw.len()
        - raw
            .trim_start_matches(|c: char| c.is_ascii_whitespace())
            .len();
    let kept = raw.trim_matches(|c: char| c.is_ascii_whitespace()).len();
    offset + lead..offset + lead + kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_script_blocks_event_attributes_and_javascript_urls() {
        let page = r#"<script>a="x.gif"</script><a href="javascript:go('y.gif')" onMouseOver="s='z.gif'">"#;
        let ranges: Vec<&str> = scan(page).scripts.into_iter().map(|r| &page[r]).collect();
        assert_eq!(
            ranges,
            vec![r#"a="x.gif""#, "javascript:go('y.gif')", "s='z.gif'"]
        );
    }

    fn urls(page: &str) -> Vec<(Place, &str)> {
        find(page)
            .into_iter()
            .map(|o| (o.place, &page[o.span]))
            .collect()
    }

    #[test]
    fn finds_attribute_srcset_style_and_style_block_urls() {
        let page = r#"<body background=bg.gif><img SRC = " a.gif " srcset="b.gif 1x, c.gif 2x">
            <td style="background: url('d.gif')"><style>p { background: url(e.gif) }</style>
            <input type=image src='f.gif'><a href=g.gif>"#;
        assert_eq!(
            urls(page),
            vec![
                (Place::Attribute, "bg.gif"),
                (Place::Attribute, "a.gif"),
                (Place::Srcset, "b.gif"),
                (Place::Srcset, "c.gif"),
                (Place::StyleAttribute, "d.gif"),
                (Place::Css, "e.gif"),
                (Place::Attribute, "f.gif"),
                (Place::Attribute, "g.gif"),
            ]
        );
    }

    #[test]
    fn skips_comments_scripts_end_tags_and_duplicate_attributes() {
        let page = r#"<!-- <img src=x.gif> --><script>document.write('<img src=y.gif>')</script>
            <textarea><img src=z.gif></textarea></img src=w.gif><img src=a.gif src=b.gif>"#;
        assert_eq!(urls(page), vec![(Place::Attribute, "a.gif")]);
    }

    #[test]
    fn non_utf8_pages_keep_their_offsets() {
        let bytes = b"<p>caf\xe9</p><img alt=\"\xe9t\xe9\" src=\"x.gif\">";
        let text = byte_preserving(bytes, encoding_rs::WINDOWS_1252);
        let found = find(&text);
        assert_eq!(&bytes[found[0].span.clone()], b"x.gif");
    }

    #[test]
    fn a_double_byte_character_ending_in_a_backslash_escapes_nothing() {
        // `ソ` is 83 5C and `表` 95 5C in Shift_JIS; read as bytes, the 5C would escape the
        // closing quote and swallow the next URL.
        let page = "<td style='background:url(\"ソ\")'><p style='background:url(\"表\") \
                    no-repeat, url(\"b.gif\")'>";
        let (bytes, _, _) = encoding_rs::SHIFT_JIS.encode(page);
        let text = byte_preserving(&bytes, encoding_rs::SHIFT_JIS);
        let urls: Vec<&[u8]> = find(&text).into_iter().map(|o| &bytes[o.span]).collect();
        assert_eq!(urls, [&b"\x83\x5c"[..], b"\x95\x5c", b"b.gif"]);
        // The same bytes read as windows-1252 (no such characters there) do swallow it.
        let latin = byte_preserving(&bytes, encoding_rs::WINDOWS_1252);
        assert_ne!(find(&latin).len(), 3);
    }

    #[test]
    fn unterminated_markup_does_not_panic() {
        for page in [
            "<img src=\"a.gif",
            "<img src=",
            "<!--",
            "<style>url(",
            "<a",
            "<",
        ] {
            let _ = find(page);
        }
    }
}
