//! Reads start and end tags straight from a page's bytes, with the byte range of every name and
//! attribute, following the HTML tokenizer's rules for tags. html5ever gives the meaning of a
//! page but no source positions; this lexer gives the positions, so that the rewrite can change
//! one attribute and leave every other byte of the page as written.
//!
//! It reads an ASCII "shadow" of the page ([`super::source::Source::shadow`]): one byte per
//! code unit, ASCII as written and every other character as `_`. Everything that delimits a tag
//! (`<`, `>`, quotes, `=`, `/`, whitespace) is ASCII, so the shadow tokenizes like the page in
//! any encoding the rewrite edits.

use std::ops::Range;

/// One attribute of a lexed tag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LexedAttr {
    /// The name, ASCII-lower-cased (non-ASCII characters are `_` in the shadow).
    pub name: String,
    /// The name as written.
    pub name_span: Range<usize>,
    /// The value without its quotes, when there is a value.
    pub value: Option<Range<usize>>,
    /// The whole attribute: name, `=`, quotes and value.
    pub span: Range<usize>,
}

/// A start or end tag as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LexedTag {
    /// `<` to just after `>` (or the end of the input for an unterminated tag).
    pub span: Range<usize>,
    /// The tag name as written.
    pub name_span: Range<usize>,
    /// The name, ASCII-lower-cased.
    pub name: String,
    /// Every attribute in source order, duplicates included (the parser keeps the first).
    pub attrs: Vec<LexedAttr>,
    /// Whether the tag ended with `>` (an unterminated tag is dropped by the tokenizer).
    pub closed: bool,
}

/// Whitespace as the HTML tokenizer knows it.
pub fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c')
}

/// Lexes the tag whose `<` is at `lt` (`<name` for a start tag, `</name` for an end tag).
/// Returns `None` when no tag starts there.
pub fn tag_at(text: &[u8], lt: usize) -> Option<LexedTag> {
    let after = lt + 1 + usize::from(text.get(lt + 1) == Some(&b'/'));
    if text.get(lt) != Some(&b'<') || !text.get(after)?.is_ascii_alphabetic() {
        return None;
    }
    let mut i = after;
    while i < text.len() && !is_space(text[i]) && text[i] != b'/' && text[i] != b'>' {
        i += 1;
    }
    let name_span = after..i;
    let name = String::from_utf8_lossy(&text[name_span.clone()]).to_ascii_lowercase();
    let mut attrs = Vec::new();
    loop {
        while i < text.len() && (is_space(text[i]) || text[i] == b'/') {
            i += 1;
        }
        if i >= text.len() {
            return Some(LexedTag {
                span: lt..text.len(),
                name_span,
                name,
                attrs,
                closed: false,
            });
        }
        if text[i] == b'>' {
            return Some(LexedTag {
                span: lt..i + 1,
                name_span,
                name,
                attrs,
                closed: true,
            });
        }
        let name_start = i;
        i += 1; // The first character may be `=`.
        while i < text.len() && !is_space(text[i]) && !matches!(text[i], b'/' | b'>' | b'=') {
            i += 1;
        }
        let attr_name = name_start..i;
        let mut j = i;
        while j < text.len() && is_space(text[j]) {
            j += 1;
        }
        let mut value = None;
        if j < text.len() && text[j] == b'=' {
            j += 1;
            while j < text.len() && is_space(text[j]) {
                j += 1;
            }
            if j < text.len() && (text[j] == b'"' || text[j] == b'\'') {
                let quote = text[j];
                let end = memchr(quote, text, j + 1).unwrap_or(text.len());
                value = Some(j + 1..end);
                i = (end + 1).min(text.len());
            } else {
                let start = j;
                while j < text.len() && !is_space(text[j]) && text[j] != b'>' {
                    j += 1;
                }
                value = Some(start..j);
                i = j;
            }
        }
        attrs.push(LexedAttr {
            name: String::from_utf8_lossy(&text[attr_name.clone()]).to_ascii_lowercase(),
            name_span: attr_name.clone(),
            value,
            span: attr_name.start..i,
        });
    }
}

/// The offset of the next `needle` at or after `from`.
pub fn memchr(needle: u8, hay: &[u8], from: usize) -> Option<usize> {
    hay.get(from..)?
        .iter()
        .position(|&b| b == needle)
        .map(|p| p + from)
}

/// The offset of the next `needle` sequence at or after `from`.
pub fn find_seq(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    hay.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lexed(text: &str) -> LexedTag {
        tag_at(text.as_bytes(), 0).unwrap()
    }

    #[test]
    fn attributes_keep_their_spans_quotes_and_duplicates() {
        let text = r#"<TD Align = "center" bgcolor=red/ nowrap bgcolor='x'>"#;
        let tag = lexed(text);
        assert_eq!(tag.name, "td");
        assert!(tag.closed);
        assert_eq!(tag.span, 0..text.len());
        let spans: Vec<(&str, &str)> = tag
            .attrs
            .iter()
            .map(|a| (a.name.as_str(), &text[a.span.clone()]))
            .collect();
        assert_eq!(
            spans,
            vec![
                ("align", r#"Align = "center""#),
                ("bgcolor", "bgcolor=red/"),
                ("nowrap", "nowrap"),
                ("bgcolor", "bgcolor='x'"),
            ]
        );
        assert_eq!(&text[tag.attrs[0].value.clone().unwrap()], "center");
    }

    #[test]
    fn attributes_without_separators_and_end_tags_lex_like_the_tokenizer() {
        let tag = lexed(r#"<a b="c"d=e =f>"#);
        let names: Vec<&str> = tag.attrs.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["b", "d", "=f"]);
        let end = lexed("</FONT >");
        assert_eq!((end.name.as_str(), end.closed), ("font", true));
        assert!(tag_at(b"< p>", 0).is_none());
        assert!(tag_at(b"<", 0).is_none());
        assert!(!lexed("<img src=\"a").closed);
    }
}
