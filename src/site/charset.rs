//! Which character encoding a page is in, decided the way Chromium decides it for a page served
//! over HTTP (as webdiet's server, its render check and a real server serve it).
//!
//! Order (Chromium's `TextResourceDecoder`, checked case by case in Chromium 156; see
//! `docs/markup.md`, "Which encoding"):
//! 1. a byte order mark;
//! 2. the `charset` of the HTTP `Content-Type`, when the page came with one
//!    ([`detect_served`]; a site on disk has none, and webdiet's server sends none);
//! 3. a `<meta charset>`, or a `<meta http-equiv=content-type content="…charset=…">`, found by
//!    Chromium's tokenizer-based scanner ([`crate::html::meta_scan`]): not in script strings,
//!    comments as the tokenizer ends them, and past byte 1024 while the page is still in its
//!    head. A `content` without `http-equiv=content-type` declares nothing;
//! 4. an XML declaration at the very start, `<?xml … encoding="…"?>`, which Chromium honours
//!    for HTML too (a `<meta>` overrides it); `<\0?\0x\0` without a byte order mark is UTF-16;
//! 5. no declaration: an ASCII page is windows-1252 (every ASCII-compatible encoding reads it
//!    the same); a page that is valid UTF-8 is windows-1252 too, because Chromium does not use
//!    its detector's UTF-8 answer for pages served over HTTP (so that sites label UTF-8) and
//!    falls back to its default, windows-1252 for an English browser; anything else is
//!    *guessed* by chardetng. Chromium guesses with its own detector (CED, Compact Encoding
//!    Detection, C++ with no Rust port); chardetng is Firefox's, built for the same job (legacy
//!    pages without a label) and agreeing with CED on the pages tried (EUC-JP, Shift_JIS,
//!    windows-1251, KOI8-R, windows-1252), but not necessarily on every page. So a guessed
//!    encoding is marked [`Charset::guessed`]: the markup pass then never moves a non-ASCII
//!    attribute value into CSS (`encoding-guessed`), it leaves it in the page's own bytes,
//!    which the browser reads as it always did.
//!
//! Labels as in a `<meta>`: UTF-16 means UTF-8 and x-user-defined means windows-1252. A page
//! that is later rewritten is edited in its own bytes (`html::Page`), never decoded and
//! encoded again.
//!
//! This is the one module that uses a charset detector (chardetng).

use chardetng::{EncodingDetector, Iso2022JpDetection, Utf8Detection};
use encoding_rs::{Encoding, UTF_16BE, UTF_16LE, UTF_8, WINDOWS_1252, X_USER_DEFINED};
use serde::Serialize;

/// Where a page's encoding came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CharsetSource {
    Bom,
    /// The `charset` of the HTTP `Content-Type`.
    Http,
    Meta,
    /// `<?xml … encoding="…"?>` at the start of the page.
    XmlDeclaration,
    /// No declaration: windows-1252 for ASCII and UTF-8 bytes, otherwise a guess.
    Sniffed,
}

/// A page's encoding and how it was found.
#[derive(Debug, Clone, Copy)]
pub struct Charset {
    pub encoding: &'static Encoding,
    pub source: CharsetSource,
    /// No declaration and bytes that are not ASCII: the encoding is a detector's guess, which
    /// Chromium's own detector may not share (see the module documentation).
    pub guessed: bool,
}

impl Charset {
    pub fn name(&self) -> &'static str {
        self.encoding.name()
    }

    fn from(encoding: &'static Encoding, source: CharsetSource) -> Charset {
        Charset {
            encoding,
            source,
            guessed: false,
        }
    }
}

/// Decides the encoding of an HTML document read from disk (no HTTP header).
pub fn detect(bytes: &[u8]) -> Charset {
    detect_served(bytes, None)
}

/// Decides the encoding of an HTML document served with `http_charset`, the `charset`
/// parameter of its `Content-Type` (as a web archive records it), when there is one.
pub fn detect_served(bytes: &[u8], http_charset: Option<&str>) -> Charset {
    if let Some((encoding, _)) = Encoding::for_bom(bytes) {
        return Charset::from(encoding, CharsetSource::Bom);
    }
    if let Some(encoding) = http_charset.and_then(|label| Encoding::for_label(label.as_bytes())) {
        return Charset::from(encoding, CharsetSource::Http);
    }
    if bytes.starts_with(b"<\0?\0x\0") {
        return Charset::from(UTF_16LE, CharsetSource::XmlDeclaration);
    }
    if bytes.starts_with(b"\0<\0?\0x") {
        return Charset::from(UTF_16BE, CharsetSource::XmlDeclaration);
    }
    let xml = xml_declaration(bytes);
    let mut meta = None;
    crate::html::meta_scan::metas(bytes, &mut |attrs| {
        meta = meta_encoding(attrs);
        meta.is_some()
    });
    if let Some(encoding) = meta {
        return Charset::from(encoding, CharsetSource::Meta);
    }
    if let Some(encoding) = xml {
        return Charset::from(encoding, CharsetSource::XmlDeclaration);
    }
    guess(bytes)
}

/// No declaration (module documentation, step 5).
fn guess(bytes: &[u8]) -> Charset {
    let ascii = bytes.is_ascii();
    let encoding = if ascii || std::str::from_utf8(bytes).is_ok() {
        WINDOWS_1252
    } else {
        let mut detector = EncodingDetector::new(Iso2022JpDetection::Deny);
        detector.feed(bytes, true);
        detector.guess(None, Utf8Detection::Deny)
    };
    Charset {
        encoding,
        source: CharsetSource::Sniffed,
        guessed: !ascii,
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

/// A label as a `<meta>` or an XML declaration gives it: UTF-16 means UTF-8 (the page was
/// read as ASCII to find it), x-user-defined means windows-1252 in a `<meta>`.
fn declared(label: &str, meta: bool) -> Option<&'static Encoding> {
    let encoding = Encoding::for_label(label.as_bytes())?;
    Some(match encoding {
        e if e == UTF_16BE || e == UTF_16LE => UTF_8,
        e if e == X_USER_DEFINED && meta => WINDOWS_1252,
        e => e,
    })
}

/// The encoding a `<meta>`'s attributes declare, by Chromium's rules
/// (`EncodingFromMetaAttributes`): a `charset` attribute always sets the label, a later one
/// too; a `content` sets it only while no label is set, and then counts only with
/// `http-equiv=content-type` (in any place in the tag). An unknown label declares nothing
/// (the scan goes on).
fn meta_encoding(attrs: &[(String, String)]) -> Option<&'static Encoding> {
    let mut pragma = false;
    let mut from_content = false;
    let mut label = String::new();
    for (name, value) in attrs {
        match name.as_str() {
            "http-equiv" => pragma |= value.eq_ignore_ascii_case("content-type"),
            "charset" => {
                label = value.clone();
                from_content = false;
            }
            "content" if label.is_empty() => {
                label = charset_from_content(value).unwrap_or_default();
                from_content = true;
            }
            _ => {}
        }
    }
    if label.is_empty() || from_content && !pragma {
        return None;
    }
    declared(label.trim_matches(is_html_space), true)
}

fn is_html_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0c')
}

/// `text/html; charset=iso-8859-1` → `iso-8859-1`, as Chromium's `ExtractCharset` reads it:
/// the first `charset` followed by `=` (spaces and control characters around it skipped), the
/// value quoted or up to a space, quote or `;`; a quote without its end gives nothing.
fn charset_from_content(content: &str) -> Option<String> {
    let bytes = content.as_bytes();
    let lower = content.to_ascii_lowercase();
    let mut from = 0;
    while let Some(found) = lower[from..].find("charset") {
        let mut at = from + found + 7;
        from = at;
        let skip = |at: &mut usize| {
            while bytes.get(*at).is_some_and(|&b| b <= b' ') {
                *at += 1;
            }
        };
        skip(&mut at);
        if bytes.get(at) != Some(&b'=') {
            continue;
        }
        at += 1;
        skip(&mut at);
        let quote = bytes.get(at).copied().filter(|&b| b == b'"' || b == b'\'');
        at += usize::from(quote.is_some());
        if at >= bytes.len() {
            return None;
        }
        let end = (at..bytes.len())
            .find(|&i| match quote {
                Some(q) => bytes[i] == q,
                None => bytes[i] <= b' ' || matches!(bytes[i], b'"' | b'\'' | b';'),
            })
            .unwrap_or(bytes.len());
        if quote.is_some() && end == bytes.len() {
            return None;
        }
        return Some(content[at..end].to_string());
    }
    None
}

/// The encoding of an XML declaration at the very start of the page, as Chromium's
/// `CheckForXMLCharset` reads it: `<?xml` (lower case), up to the first `>`, the first
/// `encoding` (lower case) then `=` and a quoted label, spaces and control characters around
/// the `=` skipped.
fn xml_declaration(bytes: &[u8]) -> Option<&'static Encoding> {
    if !bytes.starts_with(b"<?xml") {
        return None;
    }
    let decl = &bytes[..crate::html::lex::memchr(b'>', bytes, 0)?];
    let mut at = crate::html::lex::find_seq(decl, b"encoding", 0)? + 8;
    let skip = |at: &mut usize| {
        while decl.get(*at).is_some_and(|&b| b <= b' ') {
            *at += 1;
        }
    };
    skip(&mut at);
    if decl.get(at) != Some(&b'=') {
        return None;
    }
    at += 1;
    skip(&mut at);
    let quote = *decl.get(at).filter(|&&b| b == b'"' || b == b'\'')?;
    let end = crate::html::lex::memchr(quote, decl, at + 1)?;
    declared(std::str::from_utf8(&decl[at + 1..end]).ok()?, false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use encoding_rs::{EUC_JP, ISO_8859_5, KOI8_R, SHIFT_JIS, WINDOWS_1251};

    /// What Chromium 156 decided for each page served over HTTP without a charset
    /// (`document.characterSet`, 2026-12-03): ISO-8859-5 is declared in each, the text is
    /// ASCII, so windows-1252 means "not honoured".
    #[test]
    fn declarations_are_read_as_chromium_reads_them() {
        let m = "<meta charset=iso-8859-5>";
        let title = "x".repeat(40_000);
        let cases: Vec<(String, &'static Encoding)> = vec![
            (format!("{m}<p>a"), ISO_8859_5),
            (format!("<!-->{m}<p>a"), ISO_8859_5),
            (format!("<!--->{m}<p>a"), ISO_8859_5),
            (format!("<!-- x {m} -->"), WINDOWS_1252),
            (format!("<head><title>{title}</title>{m}"), ISO_8859_5),
            (format!("<body>{}{m}", "x".repeat(1017)), ISO_8859_5),
            (format!("<body>{}{m}", "x".repeat(1018)), WINDOWS_1252),
            (
                format!("<head><p>a</p>{}{m}", "x ".repeat(600)),
                WINDOWS_1252,
            ),
            (
                format!("<head>{}{m}", "<link rel=x href=y>".repeat(60)),
                ISO_8859_5,
            ),
            (
                format!("<head></head>{}{m}", " ".repeat(1100)),
                WINDOWS_1252,
            ),
            (format!("<script>var s = '{m}';</script>"), WINDOWS_1252),
            (format!("<style>/* {m} */</style>"), WINDOWS_1252),
            (format!("<title>{m}</title>"), WINDOWS_1252),
            (format!("<textarea>{m}</textarea>"), WINDOWS_1252),
            (format!("<noscript>{m}</noscript>"), ISO_8859_5),
            (format!("<a title='{m}'>x</a>"), WINDOWS_1252),
            (format!("<svg>{m}</svg>"), ISO_8859_5),
            (
                "<meta content='text/html; charset=iso-8859-5'>".into(),
                WINDOWS_1252,
            ),
            (
                "<meta http-equiv=refresh content='text/html; charset=iso-8859-5'>".into(),
                WINDOWS_1252,
            ),
            (
                "<meta content='text/html; charset=iso-8859-5' http-equiv=Content-Type>".into(),
                ISO_8859_5,
            ),
            (
                "<meta http-equiv=content-type content='text/html;charset=\"iso-8859-5\"'>".into(),
                ISO_8859_5,
            ),
            (
                "<meta http-equiv=content-type content='text/html; charset = iso-8859-5'>".into(),
                ISO_8859_5,
            ),
            (
                "<meta http-equiv=content-type content='text/html; charset=\"iso-8859-5'>".into(),
                WINDOWS_1252,
            ),
            (
                "<meta http-equiv=' content-type' content='charset=iso-8859-5'>".into(),
                WINDOWS_1252,
            ),
            (
                "<meta content='text/html; charset=iso-8859-5' charset=koi8-r>".into(),
                KOI8_R,
            ),
            (
                "<meta charset=koi8-r content='charset=iso-8859-5' http-equiv=content-type>".into(),
                KOI8_R,
            ),
            ("<meta charset=iso-8859-5 charset=koi8-r>".into(), KOI8_R),
            (
                "<meta charset=iso-8859-5 charset=bogus>".into(),
                WINDOWS_1252,
            ),
            (format!("<meta charset=bogus>{m}"), ISO_8859_5),
            ("<meta charset='iso&#45;8859-5'>".into(), ISO_8859_5),
            ("<meta charset=utf-16>".into(), UTF_8),
            ("<meta charset=x-user-defined>".into(), WINDOWS_1252),
            (
                "<?xml version='1.0' encoding='iso-8859-5'?><p>a".into(),
                ISO_8859_5,
            ),
            (
                "<?xml version=\"1.0\" encoding = \"iso-8859-5\" ?>\n<!DOCTYPE html>".into(),
                ISO_8859_5,
            ),
            (
                "<?xml version='1.0' encoding='iso-8859-5'?><meta charset=koi8-r>".into(),
                KOI8_R,
            ),
            (
                "<?xml version='1.0' encoding='iso-8859-5'?><meta charset=bogus>".into(),
                ISO_8859_5,
            ),
            (
                "<?xml version='1.0' encoding='bogus'?><meta charset=iso-8859-5>".into(),
                ISO_8859_5,
            ),
            (
                " <?xml version='1.0' encoding='iso-8859-5'?>".into(),
                WINDOWS_1252,
            ),
            (
                "<?XML version='1.0' encoding='iso-8859-5'?>".into(),
                WINDOWS_1252,
            ),
            (
                "<?xml version='1.0' ENCODING='iso-8859-5'?>".into(),
                WINDOWS_1252,
            ),
            (
                "<?xml version='1.0' encoding=iso-8859-5 ?>".into(),
                WINDOWS_1252,
            ),
            ("<?xml version='1.0' encoding='utf-16'?>".into(), UTF_8),
        ];
        for (page, expected) in cases {
            let page = format!("{page}<p>plain ascii text</p>");
            assert_eq!(detect(page.as_bytes()).encoding, expected, "{page:.120}");
        }
    }

    #[test]
    fn an_unclosed_xml_declaration_still_names_its_encoding_at_the_first_gt() {
        // Chromium reads the declaration up to the first `>`, wherever it is.
        let page = b"<?xml version='1.0' encoding='iso-8859-5'<p>a</p>";
        assert_eq!(detect(page).source, CharsetSource::XmlDeclaration);
    }

    #[test]
    fn a_byte_order_mark_wins_then_the_http_charset() {
        let page = b"\xef\xbb\xbf<meta charset=windows-1252>";
        assert_eq!(detect(page).encoding, UTF_8);
        assert_eq!(detect_served(page, Some("koi8-r")).encoding, UTF_8);
        let page = b"<?xml version='1.0' encoding='iso-8859-5'?><meta charset=windows-1251>";
        let served = detect_served(page, Some(" KOI8-R "));
        assert_eq!(
            (served.encoding, served.source),
            (KOI8_R, CharsetSource::Http)
        );
        assert_eq!(detect_served(page, Some("bogus")).encoding, WINDOWS_1251);
        assert_eq!(detect(b"<\0?\0x\0m\0l\0").encoding, UTF_16LE);
    }

    #[test]
    fn undeclared_latin1_is_guessed_windows_1252() {
        let decoded = decode(b"<p>caf\xe9 na\xefve \x93quoted\x94 d\xe9j\xe0 vu</p>");
        assert_eq!(decoded.charset.encoding, WINDOWS_1252);
        assert!(decoded.charset.guessed);
        assert_eq!(
            decoded.text,
            "<p>caf\u{e9} na\u{ef}ve \u{201c}quoted\u{201d} d\u{e9}j\u{e0} vu</p>"
        );
        assert!(!decoded.malformed);
    }

    #[test]
    fn undeclared_legacy_pages_are_guessed_as_chromium_guesses_them() {
        let text = "東京の天気は晴れです。今日はとても良い日ですね。日本語のテキストです。";
        for (encoding, text) in [
            (EUC_JP, text),
            (SHIFT_JIS, text),
            (WINDOWS_1251, "Привет мир, это страница на русском языке"),
            (KOI8_R, "Привет мир, это страница на русском языке"),
        ] {
            let page = format!("<html><body><p>{text}</p>");
            let bytes = encoding.encode(&page).0;
            let charset = detect(&bytes);
            // chardetng says KOI8-U where Chromium's detector says KOI8-R: the two differ
            // only in Ukrainian letters and box drawing, so the Russian text reads the same.
            assert_eq!(charset.encoding.decode(&bytes).0, page, "{text}");
            let same = charset.encoding == encoding
                || encoding == KOI8_R && charset.encoding == encoding_rs::KOI8_U;
            assert!(same, "{text}: {}", charset.name());
            assert!(charset.guessed && charset.source == CharsetSource::Sniffed);
        }
    }

    #[test]
    fn undeclared_utf8_is_read_as_windows_1252_as_chromium_does_over_http() {
        let charset = detect("<p>東京 café</p>".as_bytes());
        assert_eq!((charset.encoding, charset.guessed), (WINDOWS_1252, true));
        let ascii = detect(b"<p>cafe</p>");
        assert_eq!((ascii.encoding, ascii.guessed), (WINDOWS_1252, false));
        // Chromium does not detect ISO-2022-JP either: its bytes are ASCII.
        let jis = encoding_rs::ISO_2022_JP
            .encode("<p>東京の天気は晴れです。</p>")
            .0;
        assert_eq!(detect(&jis).encoding, WINDOWS_1252);
    }

    #[test]
    fn invalid_bytes_in_declared_utf8_are_flagged() {
        let decoded = decode(b"<meta charset=utf-8><p>caf\xe9</p>");
        assert!(decoded.malformed);
        assert!(!decoded.charset.guessed);
    }
}
