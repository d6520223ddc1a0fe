//! A page's bytes as the HTML tokenizer reads them, position for position, in the page's own
//! encoding: so that edits can be made to the bytes a user wrote without decoding and
//! re-encoding the rest of the page.
//!
//! The *shadow* is one ASCII byte per code unit of the page after its byte order mark: ASCII
//! characters as written, every other code unit `_`. Every character that delimits markup
//! (`<`, `>`, quotes, `=`, `/`, `!`, `-`, whitespace) is ASCII and is never part of a
//! multi-byte character in the encodings handled here, so the shadow tokenizes like the page.
//! Two families need care:
//!
//! - Shift_JIS, Big5, GBK/gb18030 and EUC-KR have double-byte characters whose second byte can
//!   be an ASCII letter, digit or `\` (`ソ` is `83 5C` in Shift_JIS). The shadow masks those
//!   second bytes (`__`), so a CSS scanner never reads a `\` escape where a browser, which
//!   decodes first, sees a character.
//! - UTF-16 pages (with a byte order mark; a `<meta>` cannot declare UTF-16) have two bytes per
//!   code unit; the shadow has one byte per unit and [`Source::bytes_of`] maps back.
//!
//! Stateful encodings (ISO-2022-JP, `replacement`) have no such mapping: [`Source::new`]
//! refuses them.

use std::borrow::Cow;
use std::ops::Range;

use encoding_rs::{Encoding, BIG5, EUC_KR, GB18030, GBK, SHIFT_JIS, UTF_16BE, UTF_16LE};

/// A page's bytes with its shadow.
pub struct Source<'a> {
    bytes: &'a [u8],
    encoding: &'static Encoding,
    /// Length of the byte order mark (0 without one).
    bom: usize,
    /// Bytes per code unit: 1, or 2 for UTF-16.
    unit: usize,
    /// The page's own bytes when they are all ASCII (most pages): a copy of a 15 MB page
    /// was 15 MB more for every parse.
    shadow: Cow<'a, [u8]>,
}

/// Why a page has no [`Source`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatefulEncoding(pub &'static Encoding);

impl<'a> Source<'a> {
    /// The page `bytes` read in `encoding` (as `site::charset::detect` decided it). A byte order
    /// mark for that encoding is skipped, as browsers skip it.
    pub fn new(
        bytes: &'a [u8],
        encoding: &'static Encoding,
    ) -> Result<Source<'a>, StatefulEncoding> {
        let unit = if encoding == UTF_16LE || encoding == UTF_16BE {
            2
        } else if encoding.is_ascii_compatible() {
            1
        } else {
            return Err(StatefulEncoding(encoding));
        };
        let bom = match Encoding::for_bom(bytes) {
            Some((bom_encoding, len)) if bom_encoding == encoding => len,
            _ => 0,
        };
        let body = &bytes[bom..];
        let shadow = if unit == 2 {
            body.chunks(2)
                .map(|pair| {
                    let unit = match (pair, encoding == UTF_16LE) {
                        ([lo, hi], true) | ([hi, lo], false) => u16::from_le_bytes([*lo, *hi]),
                        _ => 0xfffd,
                    };
                    u8::try_from(unit).ok().filter(u8::is_ascii).unwrap_or(b'_')
                })
                .collect()
        } else if body.is_ascii() {
            Cow::Borrowed(body)
        } else {
            Cow::Owned(ascii_shadow(body, encoding))
        };
        Ok(Source {
            bytes,
            encoding,
            bom,
            unit,
            shadow,
        })
    }

    /// The page's own bytes, byte order mark included.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    pub fn encoding(&self) -> &'static Encoding {
        self.encoding
    }

    /// One ASCII byte per code unit (see the module documentation).
    pub fn shadow(&self) -> &[u8] {
        &self.shadow
    }

    /// The shadow as text (it is ASCII).
    #[cfg(test)]
    fn shadow_text(&self) -> &str {
        // The shadow holds ASCII bytes only.
        std::str::from_utf8(&self.shadow).unwrap_or("")
    }

    /// The bytes of the page that a shadow range stands for. A UTF-16 page of an odd length
    /// ends in half a code unit: its last unit stands for that one byte.
    pub fn bytes_of(&self, shadow: Range<usize>) -> Range<usize> {
        let at = |unit: usize| (self.bom + unit * self.unit).min(self.bytes.len());
        at(shadow.start)..at(shadow.end)
    }

    /// The page cut after every `>`, each piece decoded: the tokenizer is fed one piece at a
    /// time, so that every tag it emits ends at the end of the piece being fed. Cutting there
    /// changes nothing in the decoding: `>` is never part of a multi-byte character.
    pub fn pieces(&self) -> impl Iterator<Item = (Range<usize>, String)> + '_ {
        self.chunks(1)
    }

    /// The page cut after the first `>` at least `at_least` code units from the last cut, each
    /// chunk decoded (fewer, larger pieces, for a parse that needs no source map).
    pub fn chunks(&self, at_least: usize) -> impl Iterator<Item = (Range<usize>, String)> + '_ {
        let mut start = 0;
        std::iter::from_fn(move || {
            if start >= self.shadow.len() {
                return None;
            }
            let from = (start + at_least.max(1) - 1).min(self.shadow.len());
            let end = self.shadow[from..]
                .iter()
                .position(|&b| b == b'>')
                .map_or(self.shadow.len(), |p| from + p + 1);
            let range = start..end;
            start = end;
            let bytes = &self.bytes[self.bytes_of(range.clone())];
            let (text, _) = self.encoding.decode_without_bom_handling(bytes);
            Some((range, text.into_owned()))
        })
    }
}

/// ASCII text in `encoding` (two bytes per character in UTF-16). Any other character is
/// written as a numeric character reference, which callers only leave where the parser decodes
/// references (attribute values).
pub fn encode_ascii(encoding: &'static Encoding, text: &str, out: &mut Vec<u8>) {
    let mut push = |b: u8| match encoding {
        e if e == UTF_16LE => out.extend_from_slice(&[b, 0]),
        e if e == UTF_16BE => out.extend_from_slice(&[0, b]),
        _ => out.push(b),
    };
    for c in text.chars() {
        match u8::try_from(c).ok().filter(u8::is_ascii) {
            Some(b) => push(b),
            None => format!("&#{};", u32::from(c)).bytes().for_each(&mut push),
        }
    }
}

/// The shadow of bytes in an ASCII-compatible encoding (see the module documentation).
pub fn ascii_shadow(bytes: &[u8], encoding: &'static Encoding) -> Vec<u8> {
    let mut shadow: Vec<u8> = bytes
        .iter()
        .map(|&b| if b.is_ascii() { b } else { b'_' })
        .collect();
    mask_ascii_trail_bytes(bytes, encoding, &mut shadow);
    shadow
}

/// Masks (`_`) the ASCII-valued second bytes of double-byte characters (see the module
/// documentation). A lead byte that is a character on its own (Shift_JIS katakana) is left
/// alone, as is a pair that does not decode (the browser then reads the ASCII byte as ASCII).
fn mask_ascii_trail_bytes(body: &[u8], encoding: &'static Encoding, shadow: &mut [u8]) {
    let gb = encoding == GBK || encoding == GB18030;
    if !(encoding == SHIFT_JIS || encoding == BIG5 || encoding == EUC_KR || gb) {
        return;
    }
    let decodes_to_one = |bytes: &[u8]| {
        encoding
            .decode_without_bom_handling_and_without_replacement(bytes)
            .is_some_and(|s| s.chars().count() == 1)
    };
    let mut i = 0;
    while i < body.len() {
        if body[i].is_ascii() || decodes_to_one(&body[i..=i]) {
            i += 1;
            continue;
        }
        if gb && body.get(i + 1).is_some_and(u8::is_ascii_digit) {
            if let Some(four) = body.get(i..i + 4) {
                if decodes_to_one(four) {
                    shadow[i + 1] = b'_';
                    shadow[i + 3] = b'_';
                    i += 4;
                    continue;
                }
            }
        }
        match body.get(i..i + 2) {
            Some(pair) if decodes_to_one(pair) => {
                shadow[i + 1] = b'_';
                i += 2;
            }
            _ => i += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use encoding_rs::UTF_8;

    #[test]
    fn a_utf16_page_of_an_odd_length_maps_its_last_half_unit_inside_the_page() {
        // Found by the html_rewrite fuzz target: a UTF-16BE byte order mark and one byte.
        let bytes = [0xfe, 0xff, 0xfe];
        let source = Source::new(&bytes, UTF_16BE).unwrap();
        assert_eq!(source.shadow(), b"_");
        assert_eq!(source.bytes_of(0..1), 2..3);
        let pieces: Vec<_> = source.pieces().collect();
        assert_eq!(pieces.len(), 1);
        // A longer page whose last code unit is half there.
        let mut odd = vec![0xfe, 0xff];
        odd.extend("<p>a</p>".encode_utf16().flat_map(u16::to_be_bytes));
        odd.push(0x3c);
        let source = Source::new(&odd, UTF_16BE).unwrap();
        let last = source.shadow().len();
        assert_eq!(source.bytes_of(last - 1..last).end, odd.len());
    }

    #[test]
    fn double_byte_characters_never_show_a_backslash_or_letter_in_the_shadow() {
        // ソ = 83 5C, 表 = 95 5C, ア = 83 41 in Shift_JIS; ｱ (B1) is one byte.
        let (bytes, _, _) = SHIFT_JIS.encode("<p style=\"x:url(ソ表ア)\">ｱA</p>");
        let source = Source::new(&bytes, SHIFT_JIS).unwrap();
        assert_eq!(source.shadow_text(), "<p style=\"x:url(______)\">_A</p>");
        // Big5 許 = B3 5C, GBK 乗 = 81 5C, gb18030 four bytes (digits second and fourth).
        for (encoding, text) in [(BIG5, "a許b"), (GBK, "a乗b"), (GB18030, "a\u{80}b")] {
            let (bytes, _, _) = encoding.encode(text);
            let source = Source::new(&bytes, encoding).unwrap();
            let shadow = source.shadow_text();
            assert!(shadow.starts_with('a') && shadow.ends_with('b'), "{shadow}");
            assert!(shadow[1..shadow.len() - 1].bytes().all(|b| b == b'_'));
        }
    }

    #[test]
    fn utf16_pages_map_code_units_to_byte_pairs() {
        let mut bytes = vec![0xff, 0xfe];
        for u in "<p>é</p>".encode_utf16() {
            bytes.extend_from_slice(&u.to_le_bytes());
        }
        let source = Source::new(&bytes, UTF_16LE).unwrap();
        assert_eq!(source.shadow_text(), "<p>_</p>");
        assert_eq!(source.bytes_of(3..4), 8..10);
        let pieces: Vec<String> = source.pieces().map(|(_, t)| t).collect();
        assert_eq!(pieces, ["<p>", "é</p>"]);
        let mut out = Vec::new();
        encode_ascii(UTF_16LE, "<b>é", &mut out);
        assert_eq!(out, b"<\0b\0>\0&\0#\x002\x003\x003\0;\0");
    }

    #[test]
    fn a_utf8_bom_is_skipped_and_stateful_encodings_are_refused() {
        let source = Source::new(b"\xef\xbb\xbf<p>", UTF_8).unwrap();
        assert_eq!(source.shadow_text(), "<p>");
        assert_eq!(source.bytes_of(0..3), 3..6);
        assert!(Source::new(b"<p>", encoding_rs::ISO_2022_JP).is_err());
    }
}
