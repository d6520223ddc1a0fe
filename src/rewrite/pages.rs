//! Page and style-sheet rewriting: the one place where the bytes of a page change.
//!
//! A page is never re-serialized. Edits are byte ranges of the original page with their
//! replacement ([`RefEdit`]); [`apply`] splices them in and leaves every other byte — markup,
//! whitespace, charset — as written. [`reference_edits`] computes the edits that point
//! references at converted images; later rewrites (presentational markup → CSS) add their own
//! edits to the same list.

use std::collections::BTreeMap;
use std::ops::Range;

use encoding_rs::Encoding;
use url::Url;

use super::spans::{self, Occurrence, Place};
use crate::site::resolve::{Resolver, Target};

/// Replace `span` of the original bytes with `replacement`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefEdit {
    pub span: Range<usize>,
    pub replacement: Vec<u8>,
}

/// How a converted file's name changes: `dir/Logo.GIF` → `dir/Logo.png` is
/// `{ old_tail: ".GIF", new_tail: ".png" }`; the stem is kept as written in each reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rename {
    /// The end of the file name that is replaced (`.gif` in any case; empty when the GIF's
    /// name has no `.gif` extension, and the new tail is appended).
    pub old_tail: String,
    /// What replaces it (`.png`, or `.gif.png`, `-2.png` … when `.png` was taken).
    pub new_tail: String,
}

/// Splices sorted, non-overlapping edits into `bytes`. Overlapping edits are skipped.
pub fn apply(bytes: &[u8], edits: &[RefEdit]) -> Vec<u8> {
    let mut sorted: Vec<&RefEdit> = edits.iter().collect();
    sorted.sort_by_key(|e| (e.span.start, e.span.end));
    let mut out = Vec::with_capacity(bytes.len() + 16 * edits.len());
    let mut at = 0;
    for edit in sorted {
        if edit.span.start < at || edit.span.end > bytes.len() {
            continue;
        }
        out.extend_from_slice(&bytes[at..edit.span.start]);
        out.extend_from_slice(&edit.replacement);
        at = edit.span.end;
    }
    out.extend_from_slice(&bytes[at..]);
    out
}

/// [`retarget_in`] for a reference in UTF-8 (a style sheet's text).
pub fn retarget(raw: &[u8], rename: &Rename) -> Option<Vec<u8>> {
    retarget_in(raw, rename, encoding_rs::UTF_8)
}

/// The reference as it should now be written, or `None` when the reference's last path
/// segment is not recognisably the file's name (then it is left alone, and the original file
/// stays in the output). Query and fragment are kept; relative form is kept.
///
/// The last segment is found in the text as the browser decodes it (`encoding`), not in the
/// bytes: Shift_JIS and Big5 write `表`, `ソ`, `許` with 0x5C, the byte of `\`, as their second
/// byte. `?`, `#`, `/`, `.` and the ASCII tail are never such a byte, so they are found in
/// the bytes as they are.
pub fn retarget_in(raw: &[u8], rename: &Rename, encoding: &'static Encoding) -> Option<Vec<u8>> {
    let path_end = raw
        .iter()
        .position(|&b| b == b'?' || b == b'#')
        .unwrap_or(raw.len());
    let path = match std::str::from_utf8(&raw[..path_end]) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => encoding.decode_without_bom_handling(&raw[..path_end]).0,
    };
    let seg_start = path.rfind(['/', '\\']).map_or(0, |p| p + 1);
    let seg = path[seg_start..].as_bytes();
    let tail = rename.old_tail.as_bytes();
    let ends_with_tail =
        |b: &[u8]| b.len() > tail.len() && b[b.len() - tail.len()..].eq_ignore_ascii_case(tail);
    let cut = if ends_with_tail(seg) && ends_with_tail(&raw[..path_end]) {
        path_end - tail.len()
    } else if !tail.is_empty() && !seg.is_empty() && !seg.contains(&b'.') {
        // Extensionless (`../Icons/w3c_home` for `w3c_home.gif`): append the new tail.
        path_end
    } else {
        return None;
    };
    let mut out = Vec::with_capacity(raw.len() + rename.new_tail.len());
    out.extend_from_slice(&raw[..cut]);
    out.extend_from_slice(rename.new_tail.as_bytes());
    out.extend_from_slice(&raw[path_end..]);
    Some(out)
}

/// Where a document's references are resolved from.
pub struct Context<'a> {
    pub resolver: &'a Resolver<'a>,
    pub base: Url,
    /// The document's encoding, to read non-ASCII URLs for resolution.
    pub encoding: &'static Encoding,
    /// Site path of each renamed file → how its name changes.
    pub renames: &'a BTreeMap<String, Rename>,
}

/// Edits that point every reference to a renamed file at its new name.
/// `occurrences` come from [`spans::find`] (pages) or [`css_occurrences`] (style sheets).
pub fn reference_edits(bytes: &[u8], occurrences: &[Occurrence], cx: &Context<'_>) -> Vec<RefEdit> {
    let mut edits = Vec::new();
    for occ in occurrences {
        let raw = &bytes[occ.span.clone()];
        let value = decode(raw, cx.encoding, occ.place);
        let Target::Local { path, .. } = cx.resolver.resolve(&cx.base, &value) else {
            continue;
        };
        let Some(rename) = cx.renames.get(&path) else {
            continue;
        };
        if let Some(replacement) = retarget_in(raw, rename, cx.encoding) {
            edits.push(RefEdit {
                span: occ.span.clone(),
                replacement,
            });
        }
    }
    edits
}

/// The URL occurrences of a style sheet.
pub fn css_occurrences(text: &str) -> Vec<Occurrence> {
    crate::css::references(text)
        .into_iter()
        .filter_map(|r| {
            Some(Occurrence {
                place: Place::Css,
                element: String::new(),
                span: spans::css_url_span(text, r.span)?,
            })
        })
        .collect()
}

/// A URL as written → the URL the browser resolves (charset decoded; character references
/// decoded in attribute values).
fn decode(raw: &[u8], encoding: &'static Encoding, place: Place) -> String {
    let text = match std::str::from_utf8(raw) {
        Ok(text) => text.to_string(),
        Err(_) => encoding.decode_without_bom_handling(raw).0.into_owned(),
    };
    match place {
        Place::Attribute | Place::Srcset if text.contains('&') => decode_entities(&text),
        _ => text,
    }
}

/// Decodes numeric character references and the entities that occur in URLs (`&amp;` …).
/// Others are left as written.
pub fn decode_entities(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        let end = rest[1..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '#'))
            .map_or(rest.len(), |e| e + 1);
        let name = &rest[1..end];
        let decoded = match name {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            "nbsp" => Some('\u{a0}'),
            _ => name.strip_prefix('#').and_then(|n| {
                let code = match n.strip_prefix(['x', 'X']) {
                    Some(hex) => u32::from_str_radix(hex, 16).ok(),
                    None => n.parse().ok(),
                };
                code.and_then(char::from_u32)
            }),
        };
        match decoded {
            Some(c) => {
                out.push(c);
                rest = &rest[end..];
                if rest.starts_with(';') {
                    rest = &rest[1..];
                }
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png() -> Rename {
        Rename {
            old_tail: ".gif".to_string(),
            new_tail: ".png".to_string(),
        }
    }

    fn retargeted(raw: &str, rename: &Rename) -> Option<String> {
        retarget(raw.as_bytes(), rename).map(|b| String::from_utf8(b).unwrap())
    }

    #[test]
    fn retarget_keeps_the_relative_form_query_and_fragment() {
        let r = png();
        assert_eq!(
            retargeted("../img/a.gif", &r).as_deref(),
            Some("../img/a.png")
        );
        assert_eq!(
            retargeted("a.GIF?v=2#top", &r).as_deref(),
            Some("a.png?v=2#top")
        );
        assert_eq!(retargeted("/abs/a.gif", &r).as_deref(), Some("/abs/a.png"));
        assert_eq!(
            retargeted("http://example.org/x/a.gif", &r).as_deref(),
            Some("http://example.org/x/a.png")
        );
        assert_eq!(
            retargeted("..\\img\\a.gif", &r).as_deref(),
            Some("..\\img\\a.png")
        );
    }

    #[test]
    fn retarget_appends_to_extensionless_references_and_uses_clash_free_tails() {
        assert_eq!(
            retargeted("../Icons/WWW/w3c_home", &png()).as_deref(),
            Some("../Icons/WWW/w3c_home.png")
        );
        let clash = Rename {
            old_tail: ".gif".to_string(),
            new_tail: ".gif.png".to_string(),
        };
        assert_eq!(
            retargeted("a.gif?x", &clash).as_deref(),
            Some("a.gif.png?x")
        );
        assert_eq!(retargeted("a.jpg", &png()), None);
        assert_eq!(retargeted("", &png()), None);
    }

    #[test]
    fn apply_splices_edits_and_keeps_other_bytes() {
        let page = b"<IMG  SRC=a.gif ALT='\xe9'><img src=\"b.gif\">";
        let edits = vec![
            RefEdit {
                span: 34..39,
                replacement: b"b.png".to_vec(),
            },
            RefEdit {
                span: 10..15,
                replacement: b"a.png".to_vec(),
            },
        ];
        assert_eq!(
            apply(page, &edits),
            b"<IMG  SRC=a.png ALT='\xe9'><img src=\"b.png\">".to_vec()
        );
    }

    #[test]
    fn entities_in_urls_are_decoded_for_resolution() {
        assert_eq!(decode_entities("a.gif?x=1&amp;y=2"), "a.gif?x=1&y=2");
        assert_eq!(decode_entities("a&#46;gif&copy"), "a.gif&copy");
    }
}
