//! Finds the `<meta>` tags that Chromium reads for a page's character encoding, the way its
//! charset scanner (`HTMLMetaCharsetParser`) reads them: with the real HTML tokenizer over the
//! bytes as Latin-1, not the standard's byte-level prescan. What differs from the prescan,
//! each checked in Chromium 156 (`docs/markup.md`, "Which encoding"):
//!
//! - the content of `<script>`, `<style>`, `<title>`, `<textarea>`, `<xmp>`, `<iframe>`,
//!   `<noembed>`, `<noframes>` and `<plaintext>` is text, so a `<meta>` in a script string is
//!   not a declaration (the prescan would take it); `<noscript>` is not (scripting is off in
//!   the scanner), so a `<meta>` inside one counts;
//! - comments end as the tokenizer ends them (`<!-->` and `<!--->` are whole comments);
//! - the scan does not stop at 1024 bytes while the page is still in its head: it stops at
//!   the first token after a tag that cannot be in a head (`<body>`, `<p>`, `</head>`…) once
//!   1024 bytes have been read. A `<meta>` 200 KB into a long `<title>` still counts; one that
//!   starts at byte 1024 or later after such a tag does not.
//! - every attribute of a `<meta>` is seen in source order, duplicates included (the tree
//!   builder keeps the first; the scanner lets a later `charset` win).
//!
//! The bytes are read through an ASCII shadow (every non-ASCII byte `_`): everything that
//! delimits markup is ASCII, and a label is ASCII.

use std::cell::{Cell, RefCell};

use html5ever::buffer_queue::BufferQueue;
use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    Tag, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};

use super::lex;

/// Chromium reads at least this many bytes (`kBytesToCheckUnconditionally`) before it stops
/// at a tag that cannot be in a head.
pub const UNCONDITIONAL: usize = 1024;

/// Tags that keep the scanner in the head (start or end tags; `html` and `head` as start
/// tags only).
const HEAD_TAGS: [&str; 8] = [
    "script", "noscript", "style", "link", "meta", "object", "title", "base",
];

/// A tag's attributes: names lower-cased, values with character references decoded.
pub type Attributes = [(String, String)];

/// Calls `visit` with the attributes (name lower-cased, value with character references
/// decoded) of every `<meta>` Chromium's scanner reads, in order, until `visit` returns true
/// (a declaration it accepts) or the scanner would stop. `bytes` is the page without a byte
/// order mark.
pub fn metas(bytes: &[u8], visit: &mut dyn FnMut(&Attributes) -> bool) {
    let scan = Scan {
        piece_end: Cell::new(0),
        markup_end: Cell::new(0),
        in_head: Cell::new(true),
        stop: Cell::new(false),
        meta: Cell::new(None),
        shadow: RefCell::new(Vec::new()),
    };
    let tokenizer = Tokenizer::new(scan, TokenizerOpts::default());
    let queue = BufferQueue::default();
    let mut start = 0;
    while start < bytes.len() {
        let end = lex::memchr(b'>', bytes, start).map_or(bytes.len(), |gt| gt + 1);
        let piece: String = bytes[start..end]
            .iter()
            .map(|&b| if b.is_ascii() { b as char } else { '_' })
            .collect();
        tokenizer
            .sink
            .shadow
            .borrow_mut()
            .extend_from_slice(piece.as_bytes());
        tokenizer.sink.piece_end.set(end);
        queue.push_back(StrTendril::from(piece));
        while !matches!(tokenizer.feed(&queue), html5ever::TokenizerResult::Done) {}
        // A `<meta>` ends its piece: it is the last token of this feed.
        if let Some(lt) = tokenizer.sink.meta.take() {
            let shadow = tokenizer.sink.shadow.borrow();
            if let Some(tag) = lex::tag_at(&shadow, lt) {
                let attrs: Vec<(String, String)> = tag
                    .attrs
                    .iter()
                    .map(|a| {
                        let raw = a.value.clone().map_or(&[][..], |v| &shadow[v]);
                        let raw = std::str::from_utf8(raw).unwrap_or("");
                        (a.name.clone(), lex::decode_attribute(raw).into_owned())
                    })
                    .collect();
                if visit(&attrs) {
                    return;
                }
            }
        }
        if tokenizer.sink.stop.get() {
            return;
        }
        start = end;
    }
}

/// The token sink: follows the scanner's state and notes each `<meta>`'s start.
struct Scan {
    /// Offset just after the piece being fed.
    piece_end: Cell<usize>,
    /// End of the last markup token (tag, comment, doctype).
    markup_end: Cell<usize>,
    in_head: Cell<bool>,
    stop: Cell<bool>,
    /// Where the `<meta>` just read starts.
    meta: Cell<Option<usize>>,
    /// The shadow of what has been fed.
    shadow: RefCell<Vec<u8>>,
}

impl Scan {
    /// Chromium's check after every token: out of the head and past the first 1024 bytes.
    fn check(&self, consumed: usize) {
        if !self.in_head.get() && consumed >= UNCONDITIONAL {
            self.stop.set(true);
        }
    }
}

impl TokenSink for Scan {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        if self.stop.get() {
            return TokenSinkResult::Continue;
        }
        let end = self.piece_end.get();
        let Token::TagToken(Tag { kind, name, .. }) = token else {
            if matches!(token, Token::CommentToken(_) | Token::DoctypeToken(_)) {
                self.markup_end.set(end);
                self.check(end);
            }
            return TokenSinkResult::Continue;
        };
        let name: &str = &name;
        let start = kind == TagKind::StartTag;
        if start && name == "meta" {
            // The token before it (text, or a tag ending where it starts) ended at its `<`.
            let shadow = self.shadow.borrow();
            let lt = (self.markup_end.get()..end).find(|&i| {
                shadow[i] == b'<' && shadow.get(i + 1).is_some_and(u8::is_ascii_alphabetic)
            });
            match lt {
                Some(lt) if self.in_head.get() || lt < UNCONDITIONAL => self.meta.set(Some(lt)),
                _ => self.stop.set(true),
            }
            self.markup_end.set(end);
            self.check(end);
            return TokenSinkResult::Continue;
        }
        let keeps_head = HEAD_TAGS.contains(&name) || start && (name == "html" || name == "head");
        if !keeps_head {
            self.in_head.set(false);
        }
        self.markup_end.set(end);
        self.check(end);
        if !start {
            return TokenSinkResult::Continue;
        }
        // `HTMLTokenizer::UpdateStateFor`, with scripting off and plug-ins on.
        match name {
            "textarea" | "title" => TokenSinkResult::RawData(RawKind::Rcdata),
            "plaintext" => TokenSinkResult::Plaintext,
            "script" => TokenSinkResult::RawData(RawKind::ScriptData),
            "style" | "iframe" | "xmp" | "noembed" | "noframes" => {
                TokenSinkResult::RawData(RawKind::Rawtext)
            }
            _ => TokenSinkResult::Continue,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn charsets(page: &[u8]) -> Vec<String> {
        let mut found = Vec::new();
        metas(page, &mut |attrs| {
            found.extend(
                attrs
                    .iter()
                    .filter(|(n, _)| n == "charset")
                    .map(|(_, v)| v.clone()),
            );
            false
        });
        found
    }

    #[test]
    fn a_meta_in_raw_text_is_text_and_one_in_noscript_is_a_tag() {
        let page = b"<script>var s='<meta charset=a>'</script><style><meta charset=b></style>\
            <title><meta charset=c></title><noscript><meta charset=d></noscript>";
        assert_eq!(charsets(page), ["d"]);
    }

    #[test]
    fn comments_end_where_the_tokenizer_ends_them() {
        assert_eq!(
            charsets(b"<!--><meta charset=a><!---><meta charset=b>"),
            ["a", "b"]
        );
        assert!(charsets(b"<!-- <meta charset=a> -->").is_empty());
    }

    #[test]
    fn the_scan_goes_on_in_the_head_and_stops_at_1024_bytes_after_leaving_it() {
        let title = "x".repeat(5000);
        let head = format!("<head><title>{title}</title><meta charset=a>");
        assert_eq!(charsets(head.as_bytes()), ["a"]);
        let at = |n: usize| format!("<body>{}<meta charset=a>", "x".repeat(n - 6));
        assert_eq!(charsets(at(1023).as_bytes()), ["a"]);
        assert!(charsets(at(1024).as_bytes()).is_empty());
        // Text alone does not leave the head.
        let text = format!("{}<meta charset=a>", "x ".repeat(800));
        assert_eq!(charsets(text.as_bytes()), ["a"]);
    }

    #[test]
    fn duplicate_attributes_are_all_seen_and_references_decoded() {
        assert_eq!(
            charsets(b"<meta charset=a charset='b&#45;c'>"),
            ["a", "b-c"]
        );
    }
}
