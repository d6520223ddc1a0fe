//! `quirks`: a small site whose every page is an edge of the capture → site mapping, written
//! as a server would have sent it: a query-string URL, pages whose charset only the HTTP header
//! gives (ISO-8859-1, Shift_JIS), a captured 404 and 500, a third-party host, a `.php` page
//! served as HTML, an extensionless image, redirects (one an image a page shows), a style sheet stored decoded with its
//! `Content-Encoding` renamed `x-orig-content-encoding` (as Browsertrix does), and a revisit
//! whose original is in no file.

use std::path::Path;

use webdiet::archive::stamp::Stamp;
use webdiet::archive::warc;

use crate::capture::{made_response, write_warc, Exchange, Rec};

/// A 1×1 GIF.
pub const PIXEL: &[u8] = b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;";

pub const HOST: &str = "www.quirks.test";

pub fn write(out: &Path) -> Result<(), String> {
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let date = Stamp::parse14("20010911080000").expect("constant date");
    let index = "<!DOCTYPE html><html><head><title>Quirks</title>\
        <link rel=\"stylesheet\" href=\"style.css\"></head><body>\
        <p><a href=\"search.php?q=gif&amp;page=2\">search</a> \
        <a href=\"latin.html\">latin</a> <a href=\"sjis.html\">sjis</a> \
        <a href=\"broken.html\">broken</a> <a href=\"page.php\">php</a> \
        <a href=\"moved.html\">moved</a></p>\
        <p><img src=\"missing.gif\" alt=\"\"> <img src=\"http://cdn.other.test/logo.gif\" alt=\"\"> \
        <img src=\"logo\" alt=\"\"> <img src=\"pixel.gif\" alt=\"\"> \
        <img src=\"old-logo.gif\" alt=\"\"></p></body></html>\n";
    let (sjis, _, _) =
        encoding_rs::SHIFT_JIS.encode("<html><body><p>日本語のページ</p></body></html>\n");
    let latin: Vec<u8> = b"<html><body><p>caf\xe9 cr\xe8me</p></body></html>\n".to_vec();
    let css_body = b"body { background: #ffffff; color: #000000 }\n".repeat(20);
    let at = |target: &str| format!("http://{HOST}{target}");
    let html = [("Content-Type", "text/html")];
    let exchanges: Vec<(String, Vec<u8>)> = vec![
        (at("/"), made_response("200 OK", &html, index.as_bytes())),
        (
            at("/search.php?q=gif&page=2"),
            made_response(
                "200 OK",
                &[("Content-Type", "text/html; charset=utf-8")],
                b"<html><body><p>Results for gif, page 2</p></body></html>\n",
            ),
        ),
        (
            at("/latin.html"),
            made_response(
                "200 OK",
                &[("Content-Type", "text/html; charset=iso-8859-1")],
                &latin,
            ),
        ),
        (
            at("/sjis.html"),
            made_response(
                "200 OK",
                &[("Content-Type", "text/html; charset=Shift_JIS")],
                &sjis,
            ),
        ),
        (
            at("/missing.gif"),
            made_response("404 Not Found", &html, b"<p>Not found</p>\n"),
        ),
        (
            at("/broken.html"),
            made_response("500 Internal Server Error", &html, b"<p>Oops</p>\n"),
        ),
        (
            "http://cdn.other.test/logo.gif".to_string(),
            made_response("200 OK", &[("Content-Type", "image/gif")], PIXEL),
        ),
        (
            at("/page.php"),
            made_response(
                "200 OK",
                &html,
                b"<html><body><p>Made by PHP</p></body></html>\n",
            ),
        ),
        (
            at("/logo"),
            made_response("200 OK", &[("Content-Type", "image/gif")], PIXEL),
        ),
        (
            at("/moved.html"),
            made_response(
                "301 Moved Permanently",
                &[
                    ("Location", &at("/latin.html")),
                    ("Content-Type", "text/html"),
                ],
                b"<p>Moved</p>\n",
            ),
        ),
        (
            at("/old-logo.gif"),
            made_response(
                "302 Found",
                &[("Location", &at("/logo")), ("Content-Type", "text/html")],
                b"<p>Found</p>\n",
            ),
        ),
        (
            at("/style.css"),
            made_response(
                "200 OK",
                &[
                    ("Content-Type", "text/css"),
                    ("x-orig-content-encoding", "gzip"),
                ],
                &css_body,
            ),
        ),
    ];
    let mut recs = vec![Rec::Info("quirks".into())];
    for (i, (url, response)) in exchanges.into_iter().enumerate() {
        recs.push(Rec::Exchange(Exchange {
            request: format!("GET {url} HTTP/1.1\r\n\r\n").into_bytes(),
            url,
            date: Stamp(date.0 + i as i64),
            response,
        }));
    }
    recs.push(Rec::Revisit {
        url: at("/pixel.gif"),
        date,
        head: b"HTTP/1.1 200 OK\r\nContent-Type: image/gif\r\nContent-Length: 43\r\n\r\n".to_vec(),
        profile: warc::IDENTICAL_PAYLOAD,
        refers_to: Some("<urn:uuid:00000000-0000-5000-8000-000000000000>".into()),
        target: None,
        digest: "sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA".into(),
    });
    write_warc(&out.join("quirks.warc.gz"), true, &recs)?;
    Ok(())
}
