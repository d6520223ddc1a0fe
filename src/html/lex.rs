//! Reads start and end tags straight from a page's bytes, with the byte range of every name and
//! attribute, following the HTML tokenizer's rules for tags. html5ever gives the meaning of a
//! page but no source positions; this lexer gives the positions, so that the rewrite can change
//! one attribute and leave every other byte of the page as written.
//!
//! It reads an ASCII "shadow" of the page ([`super::source::Source::shadow`]): one byte per
//! code unit, ASCII as written and every other character as `_`. Everything that delimits a tag
//! (`<`, `>`, quotes, `=`, `/`, whitespace) is ASCII, so the shadow tokenizes like the page in
//! any encoding the rewrite edits.

use std::borrow::Cow;
use std::ops::Range;

use html5ever::data::{C1_REPLACEMENTS, NAMED_ENTITIES};

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
    let name = lower(&text[name_span.clone()]);
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
            name: lower(&text[attr_name.clone()]),
            name_span: attr_name.clone(),
            value,
            span: attr_name.start..i,
        });
    }
}

/// A name ASCII-lower-cased (other bytes become U+FFFD: no name the callers look for has them).
fn lower(name: &[u8]) -> String {
    name.iter()
        .map(|&b| match b.is_ascii() {
            true => char::from(b.to_ascii_lowercase()),
            false => '\u{fffd}',
        })
        .collect()
}

/// Elements whose content is raw text: no tags inside.
const RAW_TEXT: [&str; 8] = [
    "script", "style", "xmp", "iframe", "noembed", "noframes", "textarea", "title",
];

/// A start tag found by [`start_tags`].
pub struct Found {
    pub tag: LexedTag,
    /// For a raw-text element (`<script>`, `<style>`, `<title>`…), its content.
    pub raw_text: Option<Range<usize>>,
}

/// Every start tag of a page in source order, as the tokenizer in its data state finds them:
/// comments, other markup declarations and end tags are skipped, and so is the content of
/// raw-text elements, which comes with their tag. Tags cut off by the end of the page are
/// skipped (the tokenizer drops them). Linear in the page, whatever its nesting.
pub fn start_tags(text: &[u8]) -> impl Iterator<Item = Found> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        while let Some(lt) = memchr(b'<', text, i) {
            i = lt + 1;
            let rest = &text[lt..];
            if rest.starts_with(b"<!--") {
                i = comment_end(text, lt);
            } else if rest.starts_with(b"<!") || rest.starts_with(b"<?") || rest.starts_with(b"</")
            {
                i = memchr(b'>', text, lt + 1).map_or(text.len(), |e| e + 1);
            } else if let Some(tag) = tag_at(text, lt) {
                i = tag.span.end;
                if !tag.closed {
                    continue;
                }
                let mut raw_text = None;
                if RAW_TEXT.contains(&tag.name.as_str()) {
                    let close = find_close(text, &tag.name, i).unwrap_or(text.len());
                    raw_text = Some(i..close);
                    i = close;
                }
                return Some(Found { tag, raw_text });
            }
        }
        None
    })
}

/// Just after the comment that starts with the `<!--` at `lt`, where the tokenizer ends it:
/// `<!-->` and `<!--->` are whole (empty) comments, any other ends at the first `-->` or
/// `--!>` after its `<!--`, or at the end of the text.
fn comment_end(text: &[u8], lt: usize) -> usize {
    let body = lt + 4;
    if text[body..].starts_with(b">") {
        return body + 1;
    }
    if text[body..].starts_with(b"->") {
        return body + 2;
    }
    let end = |seq: &[u8]| find_seq(text, seq, body).map(|e| e + seq.len());
    match (end(b"-->"), end(b"--!>")) {
        (Some(a), Some(b)) => a.min(b),
        (a, b) => a.or(b).unwrap_or(text.len()),
    }
}

/// The offset of `</tag` (any case) followed by a space, `/` or `>`, from `from`.
fn find_close(bytes: &[u8], tag: &str, from: usize) -> Option<usize> {
    let mut i = from;
    while let Some(lt) = find_seq(bytes, b"</", i) {
        let name_end = lt + 2 + tag.len();
        if bytes.len() >= name_end
            && bytes[lt + 2..name_end].eq_ignore_ascii_case(tag.as_bytes())
            && bytes
                .get(name_end)
                .is_none_or(|&b| is_space(b) || b == b'/' || b == b'>')
        {
            return Some(lt);
        }
        i = lt + 2;
    }
    None
}

/// An attribute value as the tokenizer decodes it: numeric and named character references
/// (a named one without `;` followed by `=` or a letter or digit is left as written, the
/// standard's rule for attribute values).
pub fn decode_attribute(raw: &str) -> Cow<'_, str> {
    let references = attribute_references(raw);
    if references.is_empty() {
        return Cow::Borrowed(raw);
    }
    let mut out = String::with_capacity(raw.len());
    let mut at = 0;
    for r in references {
        out.push_str(&raw[at..r.span.start]);
        out.push_str(&r.chars);
        at = r.span.end;
    }
    out.push_str(&raw[at..]);
    Cow::Owned(out)
}

/// A character reference in an attribute value, as the tokenizer reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CharRef {
    /// Where it is written in the value: `&` to the end of its name or number, with the `;`
    /// when there is one.
    pub span: Range<usize>,
    /// The one or two characters it stands for.
    pub chars: String,
}

/// The character references of an attribute value, in source order, by the rules of
/// [`decode_attribute`]: what the rewrite needs to know which bytes of a reference spell which
/// character of the URL a browser reads (`&#97;.gif` is `a.gif`, its `a` written in 5 bytes).
pub fn attribute_references(raw: &str) -> Vec<CharRef> {
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(amp) = raw[at..].find('&').map(|i| i + at) {
        let rest = &raw[amp + 1..];
        let mut chars = String::new();
        let used = match rest.strip_prefix('#') {
            Some(number) => numeric_reference(number, &mut chars).map(|n| n + 2),
            None => named_reference(rest, &mut chars).map(|n| n + 1),
        };
        match used {
            Some(n) => {
                found.push(CharRef {
                    span: amp..amp + n,
                    chars,
                });
                at = amp + n;
            }
            None => at = amp + 1,
        }
    }
    found
}

/// `x41;` / `65` after `&#`: pushes the character, returns the bytes used.
fn numeric_reference(text: &str, out: &mut String) -> Option<usize> {
    let (hex, digits_at) = match text.as_bytes().first() {
        Some(b'x' | b'X') => (true, 1),
        _ => (false, 0),
    };
    let digits = text[digits_at..]
        .bytes()
        .take_while(|b| {
            if hex {
                b.is_ascii_hexdigit()
            } else {
                b.is_ascii_digit()
            }
        })
        .count();
    if digits == 0 {
        return None;
    }
    let number = &text[digits_at..digits_at + digits];
    let value = u32::from_str_radix(number, if hex { 16 } else { 10 }).unwrap_or(u32::MAX);
    let c = match value {
        0x80..=0x9f => C1_REPLACEMENTS[(value - 0x80) as usize]
            .unwrap_or_else(|| char::from_u32(value).unwrap_or('\u{fffd}')),
        0 => '\u{fffd}',
        v => char::from_u32(v).unwrap_or('\u{fffd}'),
    };
    out.push(c);
    let end = digits_at + digits;
    Some(end + usize::from(text[end..].starts_with(';')))
}

/// A named reference after `&`: the longest name the standard knows, pushed as its
/// characters; returns the bytes used.
fn named_reference(text: &str, out: &mut String) -> Option<usize> {
    let mut longest = None;
    for (i, c) in text.char_indices() {
        if !(c.is_ascii_alphanumeric() || c == ';') {
            break;
        }
        let end = i + 1;
        match NAMED_ENTITIES.get(&text[..end]) {
            Some(&(0, _)) => {}
            Some(&found) => longest = Some((end, found)),
            None => break,
        }
        if c == ';' {
            break;
        }
    }
    let (len, (first, second)) = longest?;
    let next = text[len..].chars().next();
    if !text[..len].ends_with(';') && next.is_some_and(|c| c == '=' || c.is_ascii_alphanumeric()) {
        return None;
    }
    out.extend(char::from_u32(first));
    if second != 0 {
        out.extend(char::from_u32(second));
    }
    Some(len)
}

/// The offset of the next `needle` at or after `from`.
pub fn memchr(needle: u8, hay: &[u8], from: usize) -> Option<usize> {
    hay.get(from..)?
        .iter()
        .position(|&b| b == needle)
        .map(|p| p + from)
}

/// Whether `<` followed by `name` (ASCII, any case) occurs anywhere in `text`: false means no
/// start tag whose name begins with `name` exists, so no element made from one can either (a
/// cheap test before a whole parse).
pub fn may_have_tag(text: &[u8], name: &[u8]) -> bool {
    may_have_any_tag(text, &[name])
}

/// [`may_have_tag`] for any of `names`, in one pass over `text`.
pub fn may_have_any_tag(text: &[u8], names: &[&[u8]]) -> bool {
    let mut at = 0;
    while let Some(lt) = memchr(b'<', text, at) {
        let after = lt + 1;
        let starts = |name: &&[u8]| {
            text.get(after..after + name.len())
                .is_some_and(|n| n.eq_ignore_ascii_case(name))
        };
        if names.iter().any(starts) {
            return true;
        }
        at = after;
    }
    false
}

/// The offset of the next `needle` (ASCII, any letter case) at or after `from`.
pub fn find_seq_ignore_case(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    let first = needle.first()?;
    (from..hay.len().saturating_sub(needle.len() - 1)).find(|&i| {
        hay[i].eq_ignore_ascii_case(first) && hay[i..i + needle.len()].eq_ignore_ascii_case(needle)
    })
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
    fn attribute_values_decode_references_like_the_tokenizer() {
        for (raw, decoded) in [
            ("a.gif?x=1&amp;y=2", "a.gif?x=1&y=2"),
            ("&#233;t&#xE9;&#x2603", "été☃"),
            ("&#150;&#0;", "\u{2013}\u{fffd}"),
            ("&eacute;&eacute", "éé"),
            // In attribute values a reference without ";" before a letter or "=" stays.
            ("?a=1&copy=2&notit;", "?a=1&copy=2&notit;"),
            ("&unknown; & &#;", "&unknown; & &#;"),
        ] {
            assert_eq!(decode_attribute(raw), decoded, "{raw}");
        }
    }

    #[test]
    fn each_reference_has_the_span_it_is_written_in() {
        let raw = "&#97;&#x61&period;gif&amp&copy=&notit;&fjlig;";
        let references = attribute_references(raw);
        let found: Vec<(&str, &str)> = references
            .iter()
            .map(|r| (&raw[r.span.clone()], r.chars.as_str()))
            .collect();
        assert_eq!(
            found,
            [
                ("&#97;", "a"),
                ("&#x61", "a"),
                ("&period;", "."),
                ("&amp", "&"),
                ("&fjlig;", "fj"),
            ]
        );
    }

    #[test]
    fn start_tags_skip_comments_end_tags_and_raw_text() {
        let page = b"<!-- <a> --><p a=1></p><script>if (a<b) x='<i>'</script><b>";
        let names: Vec<String> = start_tags(page).map(|f| f.tag.name).collect();
        assert_eq!(names, ["p", "script", "b"]);
    }

    #[test]
    fn comments_end_where_the_tokenizer_ends_them() {
        let page = b"<!--><i><!---><u><!-- a --!><b><!-- <s> -->";
        let names: Vec<String> = start_tags(page).map(|f| f.tag.name).collect();
        assert_eq!(names, ["i", "u", "b"]);
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
