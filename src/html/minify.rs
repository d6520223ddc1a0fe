//! `--minify-html`: a page's comments and the white space its rendering ignores, removed from
//! the page's own bytes, and only where the HTML and CSS rules make the change invisible.
//! Each minified page is parsed again beside the original and must give the same tree but for
//! the removed comments and the reduced white space (`compare::digest_minified`);
//! the render check (`webdiet verify`) then compares the pages in a browser.
//!
//! What changes (docs/modern-sites.md, "Choices"):
//! - **comments** (`<!-- … -->`), unless conditional (`<!--[if IE]>…<![endif]-->`, or a
//!   downlevel-revealed `<!--<![endif]-->`), malformed (`<!-->`, `--!>`, unterminated), or the
//!   caller keeps them (a page with scripts: a script can read a comment, and frameworks mark
//!   their templates with comments);
//! - **white space in text**: a run of spaces, tabs and line breaks becomes one space, or, when
//!   it holds line breaks, those line breaks alone. With `white-space: normal` or `nowrap` a
//!   browser shows any such run as one space, and with `pre-line` it keeps the line breaks and
//!   drops the spaces around them, so the page looks the same under all three. Not inside
//!   `pre`, `textarea`, `listing`, `plaintext`, `template`, raw text (`script`, `style`, …) or
//!   SVG and MathML, and not at all when the caller says the page's CSS may keep white space
//!   (`pre`, `pre-wrap`, `break-spaces`).
//!
//! Nothing else changes: tags, attributes, character references and every other byte stay as
//! written, so the page keeps its encoding.

use super::lex;
use crate::site::charset;

/// What to remove.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Remove comments (not conditional ones).
    pub comments: bool,
    /// Reduce white space in text outside the elements that keep it.
    pub whitespace: bool,
}

impl Options {
    /// What may go from `page`: comments unless a script could read them, white space unless
    /// the page's CSS may keep it (its own, or, when it links or imports a style sheet, the
    /// site's: `sheets_keep_white_space`).
    pub fn for_page(page: &[u8], sheets_keep_white_space: bool) -> Options {
        let links_sheet = lex::may_have_tag(page, b"link")
            || lex::find_seq_ignore_case(page, b"@import", 0).is_some();
        Options {
            comments: !lex::may_have_tag(page, b"script"),
            whitespace: !(keeps_white_space(page) || links_sheet && sheets_keep_white_space),
        }
    }
}

/// Whether a style sheet or a page (its `<style>` blocks and `style` attributes) has a
/// `white-space` declaration that may keep white space: `pre…` or `break-spaces` in the
/// declaration (`pre-line` too, to err on the safe side). A page with one keeps its white
/// space.
pub fn keeps_white_space(text: &[u8]) -> bool {
    let mut at = 0;
    while let Some(i) = lex::find_seq_ignore_case(text, b"white-space", at) {
        let rest = &text[i + 11..text.len().min(i + 11 + 80)];
        let end = rest
            .iter()
            .position(|b| matches!(b, b';' | b'}' | b'"' | b'\'' | b'>'))
            .unwrap_or(rest.len());
        let value = rest[..end].to_ascii_lowercase();
        if value.windows(3).any(|w| w == b"pre") || value.windows(5).any(|w| w == b"break") {
            return true;
        }
        at = i + 11;
    }
    false
}

/// Why a page is kept as it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kept {
    /// Nothing to remove.
    Unchanged,
    /// A page this minifier does not edit (its encoding is not ASCII-compatible).
    Unsupported(String),
    /// The minified page would not parse to the same tree (never written).
    NotSame(String),
}

impl std::fmt::Display for Kept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Kept::Unchanged => f.write_str("nothing to remove"),
            Kept::Unsupported(why) | Kept::NotSame(why) => f.write_str(why),
        }
    }
}

/// Elements whose text keeps its white space, by the HTML parser (raw text, RCDATA) or by the
/// browser's own style sheet (`pre`, `listing`, `textarea`: `white-space: pre`), or whose
/// contents are not shown as they are parsed (`template`).
pub(super) const KEEPS_WHITE_SPACE: [&str; 14] = [
    "pre",
    "listing",
    "textarea",
    "plaintext",
    "template",
    "script",
    "style",
    "xmp",
    "iframe",
    "noembed",
    "noframes",
    "noscript",
    "title",
    "svg",
];

/// Raw-text and RCDATA elements: their contents are text up to their end tag.
const RAW: [&str; 9] = [
    "script", "style", "xmp", "iframe", "noembed", "noframes", "noscript", "textarea", "title",
];

/// The page minified as `opts` says, proved to parse to the same tree; `Err` says why it is
/// kept as it was.
pub fn minify_page(bytes: &[u8], opts: Options) -> Result<Vec<u8>, Kept> {
    let before = charset::decode(bytes);
    let encoding = before.charset.encoding;
    if !encoding.is_ascii_compatible() {
        return Err(Kept::Unsupported(format!(
            "{}: not an ASCII-compatible encoding",
            encoding.name()
        )));
    }
    let mut out = bytes.to_vec();
    if opts.comments {
        out = rewrite(&out, Pass::Comments);
    }
    if opts.whitespace {
        out = rewrite(&out, Pass::WhiteSpace);
    }
    if out == bytes {
        return Err(Kept::Unchanged);
    }
    same_page(&before, &out).map_err(Kept::NotSame)?;
    Ok(out)
}

/// `Ok` when `after` is read in the same encoding as `before` (decoded already) and parses to
/// the same tree but for comments and white space reduced as [`minify_page`] reduces it.
fn same_page(a: &charset::Decoded, after: &[u8]) -> Result<(), String> {
    let b = charset::decode(after);
    if a.charset.encoding != b.charset.encoding {
        return Err(format!(
            "the page would be read as {} instead of {}",
            b.charset.encoding.name(),
            a.charset.encoding.name()
        ));
    }
    let parse = |text: &str| {
        super::parse_tree(text, super::arena::KeepText::All)
            .map(|tree| super::compare::digest_minified(&tree))
            .map_err(|_| "too deeply nested to compare".to_string())
    };
    if parse(&a.text)? != parse(&b.text)? {
        return Err("the minified page parses to another tree".to_string());
    }
    Ok(())
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Pass {
    Comments,
    WhiteSpace,
}

/// One pass over the page's bytes, following the tokenizer's states as far as they decide what
/// is text, a comment or a tag.
fn rewrite(page: &[u8], pass: Pass) -> Vec<u8> {
    let mut out = Vec::with_capacity(page.len());
    // Open elements that keep white space (counted, since they may nest).
    let mut keeping = 0usize;
    let mut i = 0;
    while i < page.len() {
        let b = page[i];
        if b == b'<' {
            if page[i..].starts_with(b"<!--") {
                let (end, removable) = comment(page, i);
                if !(pass == Pass::Comments && removable) {
                    out.extend_from_slice(&page[i..end]);
                }
                i = end;
                continue;
            }
            if matches!(page.get(i + 1), Some(b'!' | b'?')) {
                // A doctype or a bogus comment: up to the next `>`.
                let end = lex::memchr(b'>', page, i).map_or(page.len(), |e| e + 1);
                out.extend_from_slice(&page[i..end]);
                i = end;
                continue;
            }
            if let Some(tag) = lex::tag_at(page, i) {
                let end_tag = page.get(i + 1) == Some(&b'/');
                // `/>` closes an element only in SVG and MathML (`<pre/>` opens a `pre`).
                let foreign = matches!(tag.name.as_str(), "svg" | "math");
                let self_closing = foreign && page[..tag.span.end].ends_with(b"/>");
                let mut end = tag.span.end;
                if !end_tag {
                    if tag.name == "plaintext" {
                        // The rest of the page is text.
                        end = page.len();
                    } else if RAW.contains(&tag.name.as_str()) {
                        end = raw_text_end(page, end, &tag.name);
                    } else if KEEPS_WHITE_SPACE.contains(&tag.name.as_str()) || tag.name == "math" {
                        keeping += usize::from(!self_closing);
                    }
                } else if KEEPS_WHITE_SPACE.contains(&tag.name.as_str()) || tag.name == "math" {
                    keeping = keeping.saturating_sub(1);
                }
                out.extend_from_slice(&page[i..end]);
                i = end;
                continue;
            }
            out.push(b);
            i += 1;
            continue;
        }
        if pass == Pass::WhiteSpace && keeping == 0 && lex::is_space(b) {
            let start = i;
            while i < page.len() && lex::is_space(page[i]) {
                i += 1;
            }
            let run = &page[start..i];
            let breaks = line_breaks(run);
            if breaks == 0 {
                out.push(b' ');
            } else {
                out.extend(std::iter::repeat_n(b'\n', breaks));
            }
            continue;
        }
        out.push(b);
        i += 1;
    }
    out
}

/// Line breaks in a run of white space, as the tokenizer reads them (CR LF is one).
fn line_breaks(run: &[u8]) -> usize {
    let mut n = 0;
    for (k, &c) in run.iter().enumerate() {
        if c == b'\n' && (k == 0 || run[k - 1] != b'\r') || c == b'\r' {
            n += 1;
        }
    }
    n
}

/// The end of the comment that starts at `at` (`<!--`), and whether it may be removed: a
/// well-formed comment (`<!--` … `-->`) that is not a conditional one.
fn comment(page: &[u8], at: usize) -> (usize, bool) {
    let body = at + 4;
    // `<!-->` and `<!--->` end at once (abrupt closing): kept as written.
    if page[body..].starts_with(b">") {
        return (body + 1, false);
    }
    if page[body..].starts_with(b"->") {
        return (body + 2, false);
    }
    let close = lex::find_seq(page, b"-->", body);
    let bang = lex::find_seq(page, b"--!>", body);
    match (close, bang) {
        (Some(c), b) if b.is_none_or(|b| c < b) => {
            let text = &page[body..c];
            let conditional = text.starts_with(b"[if")
                || text.starts_with(b"<![endif]")
                || text.ends_with(b"<![endif]")
                || text.starts_with(b"[endif]");
            (c + 3, !conditional)
        }
        (_, Some(b)) => (b + 4, false),
        // Unterminated: the rest of the page is the comment.
        _ => (page.len(), false),
    }
}

/// Just after the end tag that closes the raw-text element `name` whose contents start at
/// `from` (the end of the page when there is none).
fn raw_text_end(page: &[u8], from: usize, name: &str) -> usize {
    let mut at = from;
    while let Some(lt) = lex::find_seq(page, b"</", at) {
        let after = lt + 2 + name.len();
        let named = page
            .get(lt + 2..after)
            .is_some_and(|n| n.eq_ignore_ascii_case(name.as_bytes()));
        let ends = page
            .get(after)
            .is_none_or(|&c| lex::is_space(c) || c == b'/' || c == b'>');
        if named && ends {
            return lex::tag_at(page, lt).map_or(page.len(), |t| t.span.end);
        }
        at = lt + 2;
    }
    page.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: Options = Options {
        comments: true,
        whitespace: true,
    };

    fn minify(page: &str) -> String {
        String::from_utf8(minify_page(page.as_bytes(), ALL).unwrap()).unwrap()
    }

    #[test]
    fn comments_go_and_white_space_runs_shrink_to_a_space_or_their_line_breaks() {
        assert_eq!(
            minify("<p>one  <!-- note -->   two\n\n    three\t</p>"),
            "<p>one two\n\nthree </p>"
        );
    }

    #[test]
    fn conditional_and_malformed_comments_stay() {
        let page = "<p>a<!--[if IE]><b>old</b><![endif]--> b<!--<![endif]--> c<!--> d</p>";
        assert_eq!(minify_page(page.as_bytes(), ALL), Err(Kept::Unchanged));
    }

    #[test]
    fn text_that_keeps_white_space_is_left_as_written() {
        let page = "<p>a  b</p><pre>x   y\n  <b>z  w</b></pre><textarea>t  <!-- u --> v</textarea>\
                    <script>var  s = '<!-- x -->';</script><style>p  { color: red }</style>\
                    <svg><text>s  v</text></svg><p>c  d</p>";
        assert_eq!(
            minify(page),
            "<p>a b</p><pre>x   y\n  <b>z  w</b></pre><textarea>t  <!-- u --> v</textarea>\
             <script>var  s = '<!-- x -->';</script><style>p  { color: red }</style>\
             <svg><text>s  v</text></svg><p>c d</p>"
        );
    }

    #[test]
    fn tags_attributes_and_references_stay_as_written() {
        let page = "<a  href = 'x  y'  title=\"a  b\">&nbsp;&nbsp;  x</a>";
        assert_eq!(minify(page), page.replace(";  x", "; x"));
        assert_eq!(
            minify("<a  href='x'>a  \u{a0} b</a>"),
            "<a  href='x'>a \u{a0} b</a>"
        );
    }

    #[test]
    fn only_what_was_asked_is_removed() {
        let page = "<p>a  <!--c-->  b</p>";
        let comments = Options {
            comments: true,
            whitespace: false,
        };
        let bytes = minify_page(page.as_bytes(), comments).unwrap();
        assert_eq!(String::from_utf8(bytes).unwrap(), "<p>a    b</p>");
        let white = Options {
            comments: false,
            whitespace: true,
        };
        let bytes = minify_page(page.as_bytes(), white).unwrap();
        assert_eq!(String::from_utf8(bytes).unwrap(), "<p>a <!--c--> b</p>");
    }

    #[test]
    fn a_page_whose_charset_declaration_a_comment_pushed_out_of_reach_is_kept() {
        // Out of the head, Chromium stops looking for a declaration after 1024 bytes: removing
        // the comment brings the late one into reach, and the page would be read in another
        // encoding.
        let page = format!(
            "<!DOCTYPE html><p>cafe</p><!--{}--><meta charset=utf-8>",
            "x".repeat(1100)
        );
        let kept = minify_page(page.as_bytes(), ALL).unwrap_err();
        assert!(
            matches!(kept, Kept::NotSame(ref why) if why.contains("read as")),
            "{kept:?}"
        );
    }

    #[test]
    fn a_pre_written_as_self_closing_still_keeps_its_white_space() {
        assert_eq!(minify("<pre/>a  b</pre><p>c  d"), "<pre/>a  b</pre><p>c d");
        assert_eq!(minify("<svg/><p>c  d"), "<svg/><p>c d");
    }

    #[test]
    fn an_unclosed_pre_keeps_the_rest_of_the_page() {
        let page = "<p>a  b</p><pre>x  y<p>c  d";
        assert_eq!(minify(page), "<p>a b</p><pre>x  y<p>c  d");
    }

    #[test]
    fn a_page_in_utf_16_is_not_edited() {
        let page = b"\xff\xfe<\0p\0>\0a\0 \0 \0b\0";
        assert!(matches!(minify_page(page, ALL), Err(Kept::Unsupported(_))));
    }

    fn same(before: &[u8], after: &[u8]) -> Result<(), String> {
        same_page(&charset::decode(before), after)
    }

    #[test]
    fn a_minified_page_that_parsed_differently_is_refused() {
        // The proof on its own: white space changed inside `pre`, a run removed, a line break
        // turned into a space are each refused; a comment removed and a run reduced are not.
        assert!(same(b"<pre>a  b</pre>", b"<pre>a b</pre>").is_err());
        assert!(same(b"<p>a  b<!--c--></p>", b"<p>a b</p>").is_ok());
        assert!(same(b"<p>a  b</p>", b"<p>ab</p>").is_err());
        assert!(
            same(b"<p>a\n b</p>", b"<p>a b</p>").is_err(),
            "a line break is kept"
        );
    }
}
