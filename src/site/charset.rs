//! Which character encoding a page is in, decided the way a browser decides it.
//!
//! Order (HTML standard, "determining the character encoding"): byte order mark, then a
//! `<meta charset>` / `<meta http-equiv=content-type>` in the first 1024 bytes (the prescan),
//! then a guess: UTF-8 when the bytes are valid UTF-8, otherwise windows-1252 (what browsers
//! use for unlabelled Western pages; ISO-8859-1 labels mean windows-1252 too). A page that is
//! later rewritten is edited in its own bytes (`html::Page`), never decoded and encoded again.

use encoding_rs::{Encoding, UTF_8, WINDOWS_1252};
use serde::Serialize;

/// How far the `<meta>` prescan looks, as in the HTML standard.
const PRESCAN_LEN: usize = 1024;

/// Where a page's encoding came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CharsetSource {
    Bom,
    Meta,
    /// No declaration: valid UTF-8 or the windows-1252 fallback.
    Sniffed,
}

/// A page's encoding and how it was found.
#[derive(Debug, Clone, Copy)]
pub struct Charset {
    pub encoding: &'static Encoding,
    pub source: CharsetSource,
}

impl Charset {
    pub fn name(&self) -> &'static str {
        self.encoding.name()
    }
}

/// Decides the encoding of an HTML document.
pub fn detect(bytes: &[u8]) -> Charset {
    if let Some((encoding, _)) = Encoding::for_bom(bytes) {
        return Charset {
            encoding,
            source: CharsetSource::Bom,
        };
    }
    if let Some(encoding) = prescan(&bytes[..bytes.len().min(PRESCAN_LEN)]) {
        return Charset {
            encoding,
            source: CharsetSource::Meta,
        };
    }
    let encoding = if std::str::from_utf8(bytes).is_ok() {
        UTF_8
    } else {
        WINDOWS_1252
    };
    Charset {
        encoding,
        source: CharsetSource::Sniffed,
    }
}

/// A decoded page. `malformed` is true when some bytes were invalid in the encoding and were
/// replaced by U+FFFD (a browser shows the same replacement characters).
pub struct Decoded {
    pub text: String,
    pub charset: Charset,
    pub malformed: bool,
}

/// Decodes a page with its detected encoding.
pub fn decode(bytes: &[u8]) -> Decoded {
    let charset = detect(bytes);
    let (text, _, malformed) = charset.encoding.decode(bytes);
    Decoded {
        text: text.into_owned(),
        charset,
        malformed,
    }
}

/// The HTML standard's prescan for `<meta>` charset declarations (simplified: comments and
/// other tags are skipped, attribute values may be quoted or not).
fn prescan(head: &[u8]) -> Option<&'static Encoding> {
    let mut i = 0;
    while i < head.len() {
        let rest = &head[i..];
        if rest.starts_with(b"<!--") {
            i += find(&rest[4..], b"-->").map_or(rest.len(), |p| p + 7);
            continue;
        }
        if rest.len() > 6 && rest[..5].eq_ignore_ascii_case(b"<meta") && is_space_or_slash(rest[5])
        {
            let (attrs, used) = attributes(&rest[5..]);
            if let Some(encoding) = meta_encoding(&attrs) {
                return Some(encoding);
            }
            i += 5 + used;
            continue;
        }
        if rest.starts_with(b"<")
            && rest.len() > 1
            && (rest[1].is_ascii_alphabetic() || rest[1] == b'/')
        {
            i += find(rest, b">").map_or(rest.len(), |p| p + 1);
            continue;
        }
        i += 1;
    }
    None
}

fn meta_encoding(attrs: &[(String, String)]) -> Option<&'static Encoding> {
    let get = |name: &str| {
        attrs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    let label = if let Some(charset) = get("charset") {
        charset.to_string()
    } else if get("http-equiv").is_some_and(|v| v.eq_ignore_ascii_case("content-type")) {
        charset_from_content(get("content")?)?
    } else {
        return None;
    };
    let encoding = Encoding::for_label(label.trim().as_bytes())?;
    // The standard: a UTF-16 label in a meta means UTF-8; x-user-defined means windows-1252.
    Some(
        if encoding == encoding_rs::UTF_16BE || encoding == encoding_rs::UTF_16LE {
            UTF_8
        } else if encoding == encoding_rs::X_USER_DEFINED {
            WINDOWS_1252
        } else {
            encoding
        },
    )
}

/// `text/html; charset=iso-8859-1` → `iso-8859-1`.
fn charset_from_content(content: &str) -> Option<String> {
    let lower = content.to_ascii_lowercase();
    let at = lower.find("charset")?;
    let rest = lower[at + 7..].trim_start();
    let rest = rest.strip_prefix('=')?.trim_start();
    let value: String = match rest.chars().next()? {
        q @ ('"' | '\'') => rest[1..].chars().take_while(|&c| c != q).collect(),
        _ => rest
            .chars()
            .take_while(|&c| !c.is_ascii_whitespace() && c != ';')
            .collect(),
    };
    (!value.is_empty()).then_some(value)
}

fn is_space_or_slash(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'/')
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Reads attributes up to the closing `>`; returns them lower-cased by name and the bytes used.
fn attributes(input: &[u8]) -> (Vec<(String, String)>, usize) {
    let mut attrs = Vec::new();
    let mut i = 0;
    let skip_space = |i: &mut usize| {
        while *i < input.len() && is_space_or_slash(input[*i]) {
            *i += 1;
        }
    };
    loop {
        skip_space(&mut i);
        if i >= input.len() {
            return (attrs, i);
        }
        if input[i] == b'>' {
            return (attrs, i + 1);
        }
        let start = i;
        while i < input.len() && !matches!(input[i], b'=' | b'>') && !is_space_or_slash(input[i]) {
            i += 1;
        }
        let name = String::from_utf8_lossy(&input[start..i]).to_ascii_lowercase();
        skip_space(&mut i);
        let mut value = String::new();
        if i < input.len() && input[i] == b'=' {
            i += 1;
            skip_space(&mut i);
            if i < input.len() && matches!(input[i], b'"' | b'\'') {
                let quote = input[i];
                i += 1;
                let start = i;
                while i < input.len() && input[i] != quote {
                    i += 1;
                }
                value = String::from_utf8_lossy(&input[start..i]).into_owned();
                i += 1;
            } else {
                let start = i;
                while i < input.len() && input[i] != b'>' && !is_space_or_slash(input[i]) {
                    i += 1;
                }
                value = String::from_utf8_lossy(&input[start..i]).into_owned();
            }
        }
        if !name.is_empty() {
            attrs.push((name, value));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_charset_is_honoured() {
        let page = b"<html><head><meta charset=\"iso-8859-2\"></head>";
        assert_eq!(detect(page).encoding, encoding_rs::ISO_8859_2);
    }

    #[test]
    fn http_equiv_content_type_is_honoured() {
        let page =
            b"<HTML><META HTTP-EQUIV=\"Content-Type\" CONTENT=\"text/html; charset=ISO-8859-1\">";
        let charset = detect(page);
        assert_eq!(charset.encoding, WINDOWS_1252);
        assert_eq!(charset.source, CharsetSource::Meta);
    }

    #[test]
    fn undeclared_latin1_falls_back_to_windows_1252() {
        let decoded = decode(b"<p>caf\xe9 \x93quoted\x94</p>");
        assert_eq!(decoded.charset.encoding, WINDOWS_1252);
        assert_eq!(decoded.text, "<p>caf\u{e9} \u{201c}quoted\u{201d}</p>");
        assert!(!decoded.malformed);
    }

    #[test]
    fn undeclared_valid_utf8_is_utf8() {
        assert_eq!(detect("<p>café</p>".as_bytes()).encoding, UTF_8);
    }

    #[test]
    fn bom_wins_over_meta() {
        let page = b"\xef\xbb\xbf<meta charset=windows-1252>";
        assert_eq!(detect(page).encoding, UTF_8);
    }

    #[test]
    fn meta_inside_comment_is_ignored() {
        let page = b"<!-- <meta charset=koi8-r> --><p>caf\xe9";
        assert_eq!(detect(page).encoding, WINDOWS_1252);
    }

    #[test]
    fn invalid_bytes_in_declared_utf8_are_flagged() {
        let decoded = decode(b"<meta charset=utf-8><p>caf\xe9</p>");
        assert!(decoded.malformed);
    }
}
