//! Decides what a file is from its first bytes and its name.
//!
//! A file is a page the way a server and a browser would take it: by its extension first (the
//! server's MIME map: `.html`, `.htm`, `.shtml` and `.xhtml` are pages, whatever bytes they
//! hold, since a server sends them as `text/html` or XHTML and browsers render UTF-16 and NUL
//! bytes); a file with any other extension is never a page, whatever it starts with (a `.dtd`,
//! a `build.xml` or a `.xml.txt` beginning with `<!--` is XML or text, and a browser shows it
//! as such); only a file without an extension is sniffed, with the WHATWG MIME sniffing rules'
//! HTML patterns. Magic numbers win over extensions (a GIF named `.html` is a GIF, and is
//! reported as misnamed); the binary test only decides for style sheets, scripts and files
//! without an extension.

use serde::Serialize;

/// How many leading bytes the sniffer looks at (the MIME sniffing standard's resource header).
pub const SNIFF_LEN: usize = 512;

/// The kinds of file webdiet tells apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FileKind {
    Html,
    Css,
    Gif,
    Png,
    Jpeg,
    Webp,
    Js,
    Other,
}

impl FileKind {
    /// The kind a file's name gives, as a server types it (no sniffing): what a file made in
    /// memory is taken for.
    pub fn of_name(path: &str) -> FileKind {
        match media_type(path) {
            "text/html" => FileKind::Html,
            "text/css" => FileKind::Css,
            "application/javascript" => FileKind::Js,
            "image/gif" => FileKind::Gif,
            "image/png" => FileKind::Png,
            "image/jpeg" => FileKind::Jpeg,
            "image/webp" => FileKind::Webp,
            _ => FileKind::Other,
        }
    }

    pub const ALL: [FileKind; 8] = [
        FileKind::Html,
        FileKind::Css,
        FileKind::Gif,
        FileKind::Png,
        FileKind::Jpeg,
        FileKind::Webp,
        FileKind::Js,
        FileKind::Other,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            FileKind::Html => "html",
            FileKind::Css => "css",
            FileKind::Gif => "gif",
            FileKind::Png => "png",
            FileKind::Jpeg => "jpeg",
            FileKind::Webp => "webp",
            FileKind::Js => "js",
            FileKind::Other => "other",
        }
    }

    /// Whether the kind is text that deflate can shrink.
    pub fn is_text(self) -> bool {
        matches!(self, FileKind::Html | FileKind::Css | FileKind::Js)
    }
}

/// Classifies a file; the note says when name and content disagree.
pub fn classify(name: &str, head: &[u8]) -> (FileKind, Option<String>) {
    let ext = extension(name);
    let by_ext = match ext.as_str() {
        "html" | "htm" | "shtml" | "xhtml" => Some(FileKind::Html),
        "css" => Some(FileKind::Css),
        "gif" => Some(FileKind::Gif),
        "png" => Some(FileKind::Png),
        "jpg" | "jpeg" | "jpe" => Some(FileKind::Jpeg),
        "webp" => Some(FileKind::Webp),
        "js" | "mjs" => Some(FileKind::Js),
        _ => None,
    };
    if let Some(magic) = by_magic(head) {
        let note = match by_ext {
            Some(named) if named != magic => Some(format!(
                "named as {} but the content is {}",
                named.as_str(),
                magic.as_str()
            )),
            _ => None,
        };
        return (magic, note);
    }
    let binary = looks_binary(head);
    match by_ext {
        // The extension claims an image but the magic number is missing: not that image.
        Some(kind @ (FileKind::Gif | FileKind::Png | FileKind::Jpeg | FileKind::Webp)) => (
            FileKind::Other,
            Some(format!(
                "named as {} but the content is not {}",
                kind.as_str(),
                kind.as_str()
            )),
        ),
        Some(kind) if binary && kind != FileKind::Html => (
            FileKind::Other,
            Some(format!(
                "named as {} but the content is binary",
                kind.as_str()
            )),
        ),
        Some(kind) => (kind, None),
        // Served by its extension (`.xml`, `.dtd`, `.txt`, `.jsp`…): not sniffed.
        None if !ext.is_empty() => (FileKind::Other, None),
        None if !binary && starts_like_html(head) => (FileKind::Html, None),
        None => (FileKind::Other, None),
    }
}

fn extension(name: &str) -> String {
    match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => ext.to_ascii_lowercase(),
        _ => String::new(),
    }
}

fn by_magic(head: &[u8]) -> Option<FileKind> {
    if head.starts_with(b"GIF87a") || head.starts_with(b"GIF89a") {
        Some(FileKind::Gif)
    } else if head.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some(FileKind::Png)
    } else if head.starts_with(b"\xff\xd8\xff") {
        Some(FileKind::Jpeg)
    } else if head.len() >= 12 && head.starts_with(b"RIFF") && &head[8..12] == b"WEBP" {
        Some(FileKind::Webp)
    } else {
        None
    }
}

/// The MIME sniffing standard's "binary data byte" test on a file's first 512
/// bytes. UTF-16 text (with its byte order mark) is text.
pub fn looks_binary(head: &[u8]) -> bool {
    let head = &head[..head.len().min(SNIFF_LEN)];
    let body = match ascii_view(head) {
        std::borrow::Cow::Borrowed(body) => body,
        std::borrow::Cow::Owned(_) => return false,
    };
    body.iter()
        .any(|&b| matches!(b, 0x00..=0x08 | 0x0b | 0x0e..=0x1a | 0x1c..=0x1f))
}

/// The text after a byte order mark; for UTF-16, one byte per code unit (ASCII as is, anything
/// else 0xFF), so that the HTML patterns can be looked for.
fn ascii_view(head: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    if let Some(rest) = head.strip_prefix(b"\xef\xbb\xbf") {
        return rest.into();
    }
    let little = match head.get(..2) {
        Some(b"\xff\xfe") => true,
        Some(b"\xfe\xff") => false,
        _ => return head.into(),
    };
    head[2..]
        .chunks_exact(2)
        .map(|pair| {
            let unit = match little {
                true => u16::from_le_bytes([pair[0], pair[1]]),
                false => u16::from_be_bytes([pair[0], pair[1]]),
            };
            u8::try_from(unit).ok().filter(u8::is_ascii).unwrap_or(0xff)
        })
        .collect::<Vec<u8>>()
        .into()
}

/// The standard's HTML patterns: a tag-terminated `<!DOCTYPE HTML`, `<HTML`, `<HEAD`, … or
/// `<!--` after leading whitespace.
fn starts_like_html(head: &[u8]) -> bool {
    let body = &*ascii_view(head);
    let start = body
        .iter()
        .position(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c'))
        .unwrap_or(body.len());
    let rest = &body[start..];
    if rest.starts_with(b"<!--") {
        return true;
    }
    const TAGS: [&str; 17] = [
        "<!doctype html",
        "<html",
        "<script",
        "<iframe",
        "<h1",
        "<div",
        "<font",
        "<table",
        "<a",
        "<style",
        "<title",
        "<b",
        "<body",
        "<br",
        "<p",
        "<head",
        "<center",
    ];
    TAGS.iter().any(|tag| {
        rest.len() > tag.len()
            && rest[..tag.len()].eq_ignore_ascii_case(tag.as_bytes())
            && matches!(rest[tag.len()], b' ' | b'>')
    })
}

/// Whether a media type is text that deflate shrinks.
pub fn is_text(content_type: &str) -> bool {
    // Parameters (`; charset=…`, as a captured type has them) do not change the answer.
    let content_type = content_type.split(';').next().unwrap_or("").trim();
    content_type.starts_with("text/")
        || matches!(
            content_type,
            "application/javascript"
                | "application/json"
                | "application/xml"
                | "application/xhtml+xml"
                | "image/svg+xml"
        )
}

/// The media type a static server would send for a path, by extension.
pub fn media_type(path: &str) -> &'static str {
    let name = path.rsplit('/').next().unwrap_or(path);
    let ext = Some(extension(name)).filter(|e| !e.is_empty());
    match ext.as_deref() {
        Some("html" | "htm" | "shtml") => "text/html",
        Some("xhtml" | "xht") => "application/xhtml+xml",
        Some("css") => "text/css",
        Some("js" | "mjs") => "application/javascript",
        Some("json") => "application/json",
        Some("xml" | "xsl") => "application/xml",
        Some("svg") => "image/svg+xml",
        Some("txt" | "text" | "md") => "text/plain",
        Some("gif") => "image/gif",
        Some("png" | "apng") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("ico") => "image/x-icon",
        Some("webp") => "image/webp",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_number_wins_over_extension() {
        let (kind, note) = classify("photo.html", b"GIF89a\x01\x00");
        assert_eq!(kind, FileKind::Gif);
        assert!(note.unwrap().contains("named as html"));
    }

    #[test]
    fn binary_content_named_css_is_other_but_named_html_is_still_a_page() {
        let (kind, note) = classify("x.css", b"\x00\x01\x02garbage");
        assert_eq!(kind, FileKind::Other);
        assert!(note.is_some());
        // A server sends it as text/html and a browser renders it, NUL bytes and all.
        let (kind, note) = classify("x.html", b"<p>a\x00b</p>\x01");
        assert_eq!((kind, note), (FileKind::Html, None));
    }

    #[test]
    fn utf16_text_with_a_byte_order_mark_is_text_and_sniffed_as_html() {
        let utf16 = |bom: &[u8], little: bool| {
            let mut bytes = bom.to_vec();
            for unit in "<html><p>caf\u{e9}</p>".encode_utf16() {
                let pair = if little {
                    unit.to_le_bytes()
                } else {
                    unit.to_be_bytes()
                };
                bytes.extend_from_slice(&pair);
            }
            bytes
        };
        for (bom, little) in [(&b"\xff\xfe"[..], true), (b"\xfe\xff", false)] {
            let bytes = utf16(bom, little);
            assert_eq!(classify("page.htm", &bytes), (FileKind::Html, None));
            assert_eq!(classify("page", &bytes).0, FileKind::Html);
            assert_eq!(classify("style.css", &bytes).0, FileKind::Css);
        }
    }

    #[test]
    fn a_webp_is_typed_webp_by_its_magic_number() {
        let webp = b"RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00";
        assert_eq!(classify("photo.webp", webp), (FileKind::Webp, None));
        assert_eq!(classify("photo", webp).0, FileKind::Webp);
        assert_eq!(classify("photo.webp", b"not a webp").0, FileKind::Other);
    }

    #[test]
    fn gif_extension_without_magic_is_not_a_gif() {
        assert_eq!(classify("a.gif", b"<html>").0, FileKind::Other);
    }

    #[test]
    fn extensionless_html_is_sniffed() {
        assert_eq!(classify("README", b"  <HTML>\n<head>").0, FileKind::Html);
        assert_eq!(classify("notes", b"plain words").0, FileKind::Other);
    }

    #[test]
    fn media_types_follow_the_file_name_not_its_directory() {
        assert_eq!(media_type("a/page.XHTML"), "application/xhtml+xml");
        assert_eq!(media_type("v1.2/readme"), "application/octet-stream");
        assert_eq!(media_type("img/logo.gif"), "image/gif");
    }

    #[test]
    fn a_file_with_an_extension_that_is_not_a_page_s_is_never_sniffed_as_html() {
        let html_like = b"<!-- c -->\n<html><body bgcolor=red><font color=red>x</font>";
        for name in [
            "site.dtd",
            "build.xml",
            "notes.xml.txt",
            "page.jsp",
            "index.php",
        ] {
            assert_eq!(classify(name, html_like), (FileKind::Other, None), "{name}");
        }
        assert_eq!(classify("README", html_like).0, FileKind::Html);
        assert_eq!(classify("page.shtml", html_like).0, FileKind::Html);
    }

    #[test]
    fn empty_html_file_is_still_html() {
        assert_eq!(classify("empty.html", b"").0, FileKind::Html);
    }

    #[test]
    fn windows_1252_text_is_not_binary() {
        assert_eq!(classify("old.htm", b"<p>caf\xe9</p>").0, FileKind::Html);
    }
}
