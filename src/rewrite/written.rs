//! A reference as a browser reads it, and the bytes of the page that spell each of its
//! characters: what the rewrite needs to rename a file in a reference without re-writing the
//! rest of it.
//!
//! A browser reads an attribute in three steps: the page's bytes are decoded in its encoding,
//! character references are decoded (`&#97;` is `a`, `&period;` is `.`, `&amp` is `&`, by the
//! tokenizer's rules for attribute values, [`crate::html::lex::attribute_references`]), and
//! the result is the URL, whose path ends at its first `?` or `#` and is percent-decoded by the
//! server (`a%2Egif` names `a.gif`). So the name in `src="&#97;.gif"` is `a.gif`, written in
//! nine bytes, and the `#` of `&#97;` is no fragment. Working on the bytes instead is how
//! `&#97;.gif` once became `&.png#97;.gif` (issue 41).
//!
//! [`read`] keeps, for every character of the URL, the range of page bytes it came from; the
//! rewrite then replaces exactly the bytes that spell the old tail (`.gif`, however written)
//! with the new tail written plainly, or inserts the new tail after the name's last character.
//! Nothing else of the reference changes: its query and fragment, its relative form and the
//! references it is written with elsewhere stay as they are.

use std::ops::Range;

use encoding_rs::{Encoding, UTF_8};

use super::pages::Rename;
use super::spans::Place;
use crate::html::lex;

/// One character of a URL, and the bytes of the reference that spell it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Unit {
    pub raw: Range<usize>,
    pub c: char,
}

/// The characters of the URL a reference's bytes `raw` stand for: decoded in the page's
/// `encoding`, and character references decoded where the HTML tokenizer decodes them
/// (attribute values, which a `style` attribute's CSS is read from too; not `<style>` blocks
/// nor style sheets).
pub(super) fn read(raw: &[u8], encoding: &'static Encoding, place: Place) -> Vec<Unit> {
    let (text, raw_of) = decode_charset(raw, encoding);
    let with_references = matches!(
        place,
        Place::Attribute | Place::Srcset | Place::StyleAttribute
    );
    let references = match with_references {
        true => lex::attribute_references(&text),
        false => Vec::new(),
    };
    let mut units = Vec::with_capacity(text.len());
    let mut next = references.iter().peekable();
    let mut at = 0;
    while at < text.len() {
        if let Some(r) = next.next_if(|r| r.span.start == at) {
            let bytes = raw_of[r.span.start].start..raw_of[r.span.end - 1].end;
            units.extend(r.chars.chars().map(|c| Unit {
                raw: bytes.clone(),
                c,
            }));
            at = r.span.end;
            continue;
        }
        let c = text[at..].chars().next().expect("at is a char boundary");
        units.push(Unit {
            raw: raw_of[at].clone(),
            c,
        });
        at += c.len_utf8();
    }
    units
}

/// The URL the units stand for.
pub(super) fn text(units: &[Unit]) -> String {
    units.iter().map(|u| u.c).collect()
}

/// The text of `raw` decoded in `encoding` (invalid bytes as U+FFFD, as a browser decodes
/// them), and for each byte of that text the range of `raw` its character came from.
fn decode_charset(raw: &[u8], encoding: &'static Encoding) -> (String, Vec<Range<usize>>) {
    if encoding == UTF_8 || raw.is_ascii() {
        if let Ok(text) = std::str::from_utf8(raw) {
            let raw_of = text
                .char_indices()
                .flat_map(|(i, c)| std::iter::repeat_n(i..i + c.len_utf8(), c.len_utf8()))
                .collect();
            return (text.to_string(), raw_of);
        }
    }
    // A byte at a time, so that each character is known by the bytes that completed it.
    let mut decoder = encoding.new_decoder_without_bom_handling();
    let mut text = String::with_capacity(raw.len() * 2);
    let mut raw_of = Vec::with_capacity(raw.len() * 2);
    let mut start = 0;
    for i in 0..=raw.len() {
        let (input, last) = match raw.get(i) {
            Some(b) => (std::slice::from_ref(b), false),
            None => (&[][..], true),
        };
        let before = text.len();
        let room = decoder.max_utf8_buffer_length(input.len()).unwrap_or(16);
        text.reserve(room);
        let _ = decoder.decode_to_string(input, &mut text, last);
        if text.len() > before {
            let end = (i + 1).min(raw.len());
            raw_of.extend(std::iter::repeat_n(start..end, text.len() - before));
            start = end;
        }
    }
    (text, raw_of)
}

/// The reference `raw` (its URL read into `units`) as it should be written for the file it
/// names to take its new name, or `None` when its name is not recognisably the file's.
///
/// The file's name is the last segment of the URL's path, percent-decoded as a server decodes
/// it, or with `query_named` the segment, `?` and the query as written (a web archive's capture
/// of `q?.gif` is the file `q?.gif`). The rule is the one files and links are renamed by
/// ([`super::links::renamed`]): a name that ends with the old tail gets the new one in its
/// place; a name without an extension gets the new tail appended.
pub(super) fn retarget(
    raw: &[u8],
    units: &[Unit],
    rename: &Rename,
    query_named: bool,
) -> Option<Vec<u8>> {
    let path_end = units
        .iter()
        .position(|u| matches!(u.c, '?' | '#'))
        .unwrap_or(units.len());
    let name_end = match query_named {
        true => units.iter().position(|u| u.c == '#').unwrap_or(units.len()),
        false => path_end,
    };
    let seg_start = units[..path_end]
        .iter()
        .rposition(|u| matches!(u.c, '/' | '\\'))
        .map_or(0, |p| p + 1);
    let name = name_bytes(&units[seg_start..name_end], path_end - seg_start);
    let tail = rename.old_tail.as_bytes();
    let last = name.last()?;
    let ends_with_tail = name.len() > tail.len()
        && name[name.len() - tail.len()..]
            .iter()
            .zip(tail)
            .all(|((_, b), t)| b.eq_ignore_ascii_case(t));
    let cut = if ends_with_tail {
        match tail.len() {
            0 => last.0.end..last.0.end,
            n => {
                let first = &name[name.len() - n];
                // A tail that starts inside a reference standing for two characters
                // (`&fjlig;`) cannot be replaced alone.
                let before = name.len().checked_sub(n + 1).map(|i| &name[i].0);
                if before == Some(&first.0) {
                    return None;
                }
                first.0.start..last.0.end
            }
        }
    } else if !tail.is_empty() && !name.iter().any(|(_, b)| *b == b'.') {
        // Extensionless (`../Icons/w3c_home` for `w3c_home.gif`): append the new tail.
        last.0.end..last.0.end
    } else {
        return None;
    };
    let mut out = Vec::with_capacity(raw.len() + rename.new_tail.len());
    out.extend_from_slice(&raw[..cut.start]);
    out.extend_from_slice(rename.new_tail.as_bytes());
    out.extend_from_slice(&raw[cut.end..]);
    Some(out)
}

/// The bytes of a file name as a server sees them, each with the bytes of the reference that
/// spell it: the first `path_len` units are a path segment, percent-decoded (`%2E` is `.`);
/// the rest, a query kept in the name, as written. Tabs and newlines, which the URL parser
/// removes, are no part of it.
fn name_bytes(units: &[Unit], path_len: usize) -> Vec<(Range<usize>, u8)> {
    let units: Vec<(usize, &Unit)> = units
        .iter()
        .enumerate()
        .filter(|(_, u)| !matches!(u.c, '\t' | '\n' | '\r'))
        .collect();
    let mut out = Vec::with_capacity(units.len());
    let mut i = 0;
    while i < units.len() {
        let (index, unit) = units[i];
        let hex = |k: usize| {
            units
                .get(i + k)
                .filter(|(index, u)| *index < path_len && u.c.is_ascii_hexdigit())
                .map(|(_, u)| u)
        };
        if index < path_len && unit.c == '%' {
            if let (Some(high), Some(low)) = (hex(1), hex(2)) {
                let digits = format!("{}{}", high.c, low.c);
                let byte = u8::from_str_radix(&digits, 16).expect("two hex digits");
                out.push((unit.raw.start..low.raw.end, byte));
                i += 3;
                continue;
            }
        }
        let mut buf = [0; 4];
        for &b in unit.c.encode_utf8(&mut buf).as_bytes() {
            out.push((unit.raw.clone(), b));
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attribute(raw: &str, rename: &Rename, query_named: bool) -> Option<String> {
        let units = read(raw.as_bytes(), UTF_8, Place::Attribute);
        retarget(raw.as_bytes(), &units, rename, query_named).map(|b| String::from_utf8(b).unwrap())
    }

    /// What a browser reads in the attribute value `raw`.
    fn browser_reads(raw: &str) -> String {
        lex::decode_attribute(raw).into_owned()
    }

    #[test]
    fn a_name_written_with_character_references_is_read_as_the_browser_reads_it() {
        let units = read("&#97;.gif?x&amp;y#f".as_bytes(), UTF_8, Place::Attribute);
        assert_eq!(text(&units), "a.gif?x&y#f");
        assert_eq!(units[0].raw, 0..5);
        assert_eq!(units[1].raw, 5..6);
        // Not in a style sheet: there `&` is a character of the URL.
        let css = read(b"&#97;.gif", UTF_8, Place::Css);
        assert_eq!(text(&css), "&#97;.gif");
    }

    #[test]
    fn only_the_bytes_that_spell_the_tail_change() {
        let r = Rename::png();
        for (raw, expected) in [
            ("&#97;.gif", "&#97;.png"),
            ("&#x61;.gif", "&#x61;.png"),
            ("&#97.gif", "&#97.png"),
            ("a&period;gif", "a.png"),
            ("a&#46;GIF?v=1", "a.png?v=1"),
            ("a.gi&#x66;#x", "a.png#x"),
            ("caf&eacute;.gif", "caf&eacute;.png"),
            ("caf&eacute.gif", "caf&eacute.png"),
            ("a%2Egif", "a.png"),
            ("a.gif?v=1&amp;w=.gif", "a.png?v=1&amp;w=.gif"),
            ("a.gif#x.gif", "a.png#x.gif"),
            ("dir&#47;a.gif", "dir&#47;a.png"),
        ] {
            assert_eq!(
                attribute(raw, &r, false).as_deref(),
                Some(expected),
                "{raw}"
            );
            // The new URL is the old one with its path's tail replaced.
            let old = browser_reads(raw);
            let new = browser_reads(expected);
            let at = old.find(['?', '#']).unwrap_or(old.len());
            let old_path = old[..at].replace("%2E", ".");
            assert_eq!(
                new,
                format!("{}.png{}", &old_path[..old_path.len() - 4], &old[at..]),
                "{raw}"
            );
        }
    }

    #[test]
    fn a_query_or_fragment_spelled_with_references_ends_the_path() {
        let extensionless = Rename {
            old_tail: String::new(),
            new_tail: ".png".to_string(),
        };
        for (raw, expected) in [
            ("q?.gif", "q.png?.gif"),
            ("q&#63;.gif", "q.png&#63;.gif"),
            ("q&#x23;.gif", "q.png&#x23;.gif"),
            ("&#113;?.gif", "&#113;.png?.gif"),
        ] {
            assert_eq!(
                attribute(raw, &extensionless, false).as_deref(),
                Some(expected),
                "{raw}"
            );
        }
        // `w3c_home` names `w3c_home.gif`; `q?.gif` with a query names `q.gif` the same way.
        assert_eq!(
            attribute("q?.gif", &Rename::png(), false).as_deref(),
            Some("q.png?.gif")
        );
        // The path has another extension: not this file's name (its query is no name).
        assert_eq!(attribute("x.png?.gif", &Rename::png(), false), None);
        assert_eq!(attribute("&#97;.jpg", &Rename::png(), false), None);
    }

    #[test]
    fn a_file_named_with_its_query_is_renamed_in_the_query() {
        // A capture of `q?.gif` is the file `q?.gif`, renamed `q?.png`: the reference must ask
        // for `q` with the query `.png`.
        assert_eq!(
            attribute("q?.gif", &Rename::png(), true).as_deref(),
            Some("q?.png")
        );
        assert_eq!(
            attribute("q&#63;.gif#top", &Rename::png(), true).as_deref(),
            Some("q&#63;.png#top")
        );
        assert_eq!(attribute("s.php?id=3", &Rename::png(), true), None);
    }

    #[test]
    fn a_tail_inside_a_two_character_reference_is_left_alone() {
        let odd = Rename {
            old_tail: "j".to_string(),
            new_tail: ".png".to_string(),
        };
        assert_eq!(attribute("a&fjlig;", &odd, false), None);
    }

    #[test]
    fn legacy_pages_are_read_in_their_encoding() {
        // Shift_JIS `ソ` is 83 5C: its second byte is no backslash, so the name is `ソ.gif`.
        let (bytes, _, _) = encoding_rs::SHIFT_JIS.encode("img/ソ&#46;gif");
        let units = read(&bytes, encoding_rs::SHIFT_JIS, Place::Attribute);
        assert_eq!(text(&units), "img/ソ.gif");
        let out = retarget(&bytes, &units, &Rename::png(), false).unwrap();
        assert_eq!(encoding_rs::SHIFT_JIS.decode(&out).0, "img/ソ.png");
        // Windows-1252 `é` is one byte; `&eacute;` the same character.
        let bytes = b"caf\xe9&eacute;.gif";
        let units = read(bytes, encoding_rs::WINDOWS_1252, Place::Attribute);
        assert_eq!(text(&units), "café\u{e9}.gif");
        assert_eq!(units[3].raw, 3..4);
        assert_eq!(
            retarget(bytes, &units, &Rename::png(), false).unwrap(),
            b"caf\xe9&eacute;.png"
        );
    }
}
