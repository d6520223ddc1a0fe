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
use super::written;
use crate::site::name;
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

#[cfg(test)]
impl Rename {
    /// `.gif` → `.png`, the common rename of the tests.
    pub(super) fn png() -> Rename {
        Rename {
            old_tail: ".gif".to_string(),
            new_tail: ".png".to_string(),
        }
    }
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

/// The reference `raw`, as written in a style sheet (UTF-8, no character references), as it
/// should now be written; see [`retarget_in`].
pub fn retarget(raw: &[u8], rename: &Rename) -> Option<Vec<u8>> {
    retarget_in(raw, rename, encoding_rs::UTF_8, Place::Css)
}

/// The reference as it should now be written, or `None` when the reference's last path
/// segment is not recognisably the file's name (then it is left alone, and the original file
/// stays in the output). Query and fragment are kept; relative form is kept.
///
/// The name is found in the URL as the browser reads it (`rewrite::written`): the bytes decoded in
/// the page's `encoding` (Shift_JIS and Big5 write `表`, `ソ`, `許` with 0x5C, the byte of `\`,
/// as their second byte), then character references decoded in attribute values
/// (`&#97;.gif` is `a.gif`, and its `#` no fragment), the path ending at the first `?` or `#`
/// of that text. Only the bytes that spell the old tail change.
pub fn retarget_in(
    raw: &[u8],
    rename: &Rename,
    encoding: &'static Encoding,
    place: Place,
) -> Option<Vec<u8>> {
    written::retarget(raw, &written::read(raw, encoding, place), rename, false)
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
        let units = written::read(raw, cx.encoding, occ.place);
        let value = written::text(&units);
        let Target::Local { path, .. } = cx.resolver.resolve(&cx.base, &value) else {
            continue;
        };
        let Some(rename) = cx.renames.get(&path) else {
            continue;
        };
        let query_named = named_with_query(&path, &cx.base, &value);
        if let Some(replacement) = written::retarget(raw, &units, rename, query_named) {
            edits.push(RefEdit {
                span: occ.span.clone(),
                replacement,
            });
        }
    }
    edits
}

/// Whether `path`, the file `value` resolved to, is named with the URL's query (a web
/// archive's capture of `q?.gif`, which the resolver looks up before `q`): then the query is
/// part of the file's name, and of what is renamed.
fn named_with_query(path: &str, base: &Url, value: &str) -> bool {
    let Ok(url) = base.join(value) else {
        return false;
    };
    url.query()
        .is_some_and(|q| !q.is_empty() && path.ends_with(&name::query_name("", q)))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn retargeted(raw: &str, rename: &Rename) -> Option<String> {
        retarget(raw.as_bytes(), rename).map(|b| String::from_utf8(b).unwrap())
    }

    #[test]
    fn retarget_keeps_the_relative_form_query_and_fragment() {
        let r = Rename::png();
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
            retargeted("../Icons/WWW/w3c_home", &Rename::png()).as_deref(),
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
        assert_eq!(retargeted("a.jpg", &Rename::png()), None);
        assert_eq!(retargeted("", &Rename::png()), None);
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
}
