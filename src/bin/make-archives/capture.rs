//! `capture` and `big`: a site directory fetched through webdiet's own server, the responses
//! written as records.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};

use webdiet::archive::cdxj::{self, Line};
use webdiet::archive::http::{self, Parsed};
use webdiet::archive::package::{self, Package};
use webdiet::archive::stamp::Stamp;
use webdiet::archive::wacz::Page;
use webdiet::archive::warc::{self, Record, Writer};
use webdiet::replay::protocol::http1;
use webdiet::replay::server::{Control, ServeContext, Server};
use webdiet::replay::{ServedSite, ServerOptions};
use webdiet::site::resolve::Resolver;
use webdiet::site::{self, CrawlOptions, FileKind};

/// One exchange, as a crawler records it.
#[derive(Clone)]
pub struct Exchange {
    pub url: String,
    pub date: Stamp,
    pub request: Vec<u8>,
    pub response: Vec<u8>,
}

/// A record to write, in every format.
#[derive(Clone)]
pub enum Rec {
    Info(String),
    Exchange(Exchange),
    /// A revisit: the HTTP head it carries, its profile, and what it names.
    Revisit {
        url: String,
        date: Stamp,
        head: Vec<u8>,
        profile: &'static str,
        refers_to: Option<String>,
        target: Option<(String, Stamp)>,
        digest: String,
    },
}

/// Runs `f` with webdiet's server serving `dir` on a loopback port.
pub fn with_server<T>(dir: &Path, f: impl FnOnce(SocketAddr) -> T) -> Result<T, String> {
    let crawled = site::crawl(dir, &CrawlOptions::default()).map_err(|e| e.to_string())?;
    let (served, _) = ServedSite::from_site(&crawled);
    let resolver = Resolver::new(&served.site, None);
    let opts = ServerOptions::default();
    let cx = ServeContext::new(&served, &resolver, &opts);
    let control = Control::default();
    std::thread::scope(|scope| {
        let server = Server::start(scope, &cx, &control, &http1::SERVER, None)
            .map_err(|e| format!("server: {e}"))?;
        let out = f(server.addr);
        server.stop();
        Ok(out)
    })
}

/// The request a crawler sends, and the response as read off the socket.
pub fn fetch(
    addr: SocketAddr,
    host: &str,
    target: &str,
    extra: &[(&str, String)],
) -> Result<(Vec<u8>, Vec<u8>), String> {
    let mut req = format!(
        "GET {target} HTTP/1.1\r\nHost: {host}\r\nUser-Agent: make-archives (webdiet tests)\r\n"
    );
    for (k, v) in extra {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("Connection: close\r\n\r\n");
    let mut stream = TcpStream::connect(addr).map_err(|e| e.to_string())?;
    stream
        .write_all(req.as_bytes())
        .map_err(|e| e.to_string())?;
    let mut response = Vec::new();
    stream
        .read_to_end(&mut response)
        .map_err(|e| e.to_string())?;
    Ok((req.into_bytes(), response))
}

/// The head of a response and the offset of its body.
pub fn split(response: &[u8]) -> Result<(http::HttpHead, usize), String> {
    match http::parse_head(response) {
        Parsed::Head(h) => {
            let len = h.len;
            Ok((h, len))
        }
        _ => Err("the server's response has no complete head".into()),
    }
}

/// The response re-framed in chunks of 1000 bytes (what a proxy or a dynamic server sends).
pub fn chunked(response: &[u8]) -> Result<Vec<u8>, String> {
    let (head, at) = split(response)?;
    let mut out = format!("HTTP/1.1 {} {}\r\n", head.status, head.reason).into_bytes();
    for (k, v) in &head.fields {
        if !k.eq_ignore_ascii_case("content-length") {
            out.extend_from_slice(format!("{k}: {v}\r\n").as_bytes());
        }
    }
    out.extend_from_slice(b"Transfer-Encoding: chunked\r\n\r\n");
    for part in response[at..].chunks(1000) {
        out.extend_from_slice(format!("{:x}\r\n", part.len()).as_bytes());
        out.extend_from_slice(part);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"0\r\n\r\n");
    Ok(out)
}

/// A response a server would have sent, made here (a redirect, an older page, an error).
pub fn made_response(status: &str, fields: &[(&str, &str)], body: &[u8]) -> Vec<u8> {
    let mut out = format!("HTTP/1.1 {status}\r\nServer: webdiet\r\n").into_bytes();
    for (k, v) in fields {
        out.extend_from_slice(format!("{k}: {v}\r\n").as_bytes());
    }
    out.extend_from_slice(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes());
    out.extend_from_slice(body);
    out
}

/// Where each record landed, for a CDXJ.
pub struct Placed {
    pub ids: Vec<Option<String>>,
    pub lines: Vec<Line>,
}

/// Writes records as WARC 1.1 into `path` (gzipped per record when `gzip`).
pub fn write_warc(path: &Path, gzip: bool, recs: &[Rec]) -> Result<Placed, String> {
    let file = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut w = Writer::new(std::io::BufWriter::new(file), gzip);
    let filename = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut placed = Placed {
        ids: Vec::new(),
        lines: Vec::new(),
    };
    let err = |e: std::io::Error| format!("{}: {e}", path.display());
    for rec in recs {
        match rec {
            Rec::Info(description) => {
                let block = warc::warcinfo_block("make-archives (webdiet tests)", description);
                w.warc(&Record {
                    rtype: "warcinfo",
                    uri: None,
                    date: Stamp::parse14("19970101000000").expect("constant date"),
                    content_type: Some("application/warc-fields"),
                    fields: vec![("WARC-Filename", filename.clone())],
                    block: &block,
                    payload_at: None,
                })
                .map_err(err)?;
                placed.ids.push(None);
            }
            Rec::Exchange(x) => {
                w.warc(&Record {
                    rtype: "request",
                    uri: Some(&x.url),
                    date: x.date,
                    content_type: Some("application/http; msgtype=request"),
                    fields: Vec::new(),
                    block: &x.request,
                    payload_at: None,
                })
                .map_err(err)?;
                let (head, at) = split(&x.response)?;
                let written = w
                    .warc(&Record {
                        rtype: "response",
                        uri: Some(&x.url),
                        date: x.date,
                        content_type: Some("application/http; msgtype=response"),
                        fields: Vec::new(),
                        block: &x.response,
                        payload_at: Some(at),
                    })
                    .map_err(err)?;
                placed.lines.push(Line {
                    url: x.url.clone(),
                    date: x.date,
                    mime: head.get("content-type").map(mime_field),
                    status: Some(head.status),
                    digest: written.payload_digest.clone(),
                    length: written.length,
                    offset: written.offset,
                    filename: filename.clone(),
                });
                placed.ids.push(Some(written.record_id));
            }
            Rec::Revisit {
                url,
                date,
                head,
                profile,
                refers_to,
                target,
                digest,
            } => {
                let mut fields = vec![("WARC-Profile", profile.to_string())];
                if let Some(id) = refers_to {
                    fields.push(("WARC-Refers-To", id.clone()));
                }
                if let Some((uri, when)) = target {
                    fields.push(("WARC-Refers-To-Target-URI", uri.clone()));
                    fields.push(("WARC-Refers-To-Date", when.to_iso()));
                }
                fields.push(("WARC-Payload-Digest", digest.clone()));
                let (h, _) = split(head)?;
                let written = w
                    .warc(&Record {
                        rtype: "revisit",
                        uri: Some(url),
                        date: *date,
                        content_type: Some("application/http; msgtype=response"),
                        fields,
                        block: head,
                        payload_at: None,
                    })
                    .map_err(err)?;
                placed.lines.push(Line {
                    url: url.clone(),
                    date: *date,
                    mime: Some("warc/revisit".into()),
                    status: Some(h.status),
                    digest: Some(digest.clone()),
                    length: written.length,
                    offset: written.offset,
                    filename: filename.clone(),
                });
                placed.ids.push(Some(written.record_id));
            }
        }
    }
    w.flush().map_err(err)?;
    Ok(placed)
}

/// cdxj-indexer's `mime`: the value up to the first `;` or space, case kept.
fn mime_field(content_type: &str) -> String {
    content_type
        .split([';', ' ', '\t'])
        .next()
        .unwrap_or("")
        .to_string()
}

/// Writes the exchanges (and, for a revisit, the full response it stands for) as ARC v1.
pub fn write_arc(path: &Path, gzip: bool, exchanges: &[&Exchange]) -> Result<(), String> {
    let err = |e: std::io::Error| format!("{}: {e}", path.display());
    let file = std::fs::File::create(path).map_err(err)?;
    let mut w = Writer::new(std::io::BufWriter::new(file), gzip);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let desc = format!(
        "1 0 make-archives\nURL IP-address Archive-date Content-type Archive-length\n<arcmetadata software=\"webdiet tests\" file=\"{name}\"/>\n"
    );
    w.arc(
        &format!("filedesc://{name}"),
        "0.0.0.0",
        Stamp::parse14("19970101000000").expect("constant date"),
        "text/plain",
        desc.as_bytes(),
    )
    .map_err(err)?;
    for x in exchanges {
        let (head, _) = split(&x.response)?;
        let mime = head
            .get("content-type")
            .map(mime_field)
            .unwrap_or_else(|| "no-type".into());
        w.arc(&x.url, "127.0.0.1", x.date, &mime, &x.response)
            .map_err(err)?;
    }
    w.flush().map_err(err)
}

/// The URL path of a site file, as a browser asks for it.
fn target_of(resolver: &Resolver<'_>, path: &str) -> String {
    resolver.page_url(path).path().to_string()
}

/// `capture`: every file of the site, plus the crawl's habits (see the module doc).
pub fn capture(dir: &Path, out: &Path, name: &str, host: &str) -> Result<(), String> {
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let crawled = site::crawl(dir, &CrawlOptions::default()).map_err(|e| e.to_string())?;
    let resolver = Resolver::new(&crawled, None);
    let t0 = Stamp::parse14("19970110120000").expect("constant date");
    let t1 = Stamp::parse14("19970201120000").expect("constant date");
    let t2 = Stamp::parse14("19970315120000").expect("constant date");
    let t3 = Stamp::parse14("19970316120000").expect("constant date");
    let url = |target: &str| format!("http://{host}{target}");
    let gifs: Vec<&str> = crawled
        .files
        .iter()
        .filter(|f| f.kind == FileKind::Gif)
        .map(|f| f.path.as_str())
        .collect();
    // Revisits whose originals are in the earlier file; one not-modified revisit.
    let revisited: Vec<&str> = gifs.iter().take(3).copied().collect();
    let not_modified = gifs.get(3).copied();
    // The page `/` leads to (the root's index page), else the first page at the root: the
    // one with several captures, sent chunked.
    let root_index = resolver.entry_page();
    let index_page = root_index
        .clone()
        .or_else(|| {
            crawled
                .files
                .iter()
                .find(|f| f.kind == FileKind::Html && !f.path.contains('/'))
                .map(|f| f.path.clone())
        })
        .ok_or("the site has no page at its root")?;

    let (fetched, root, conditional) = with_server(dir, |addr| -> Result<_, String> {
        let mut fetched = Vec::new();
        for (i, f) in crawled.files.iter().enumerate() {
            let target = target_of(&resolver, &f.path);
            let text = matches!(f.kind, FileKind::Html | FileKind::Css | FileKind::Js);
            let extra: Vec<(&str, String)> = if text {
                vec![("Accept-Encoding", "gzip".to_string())]
            } else {
                Vec::new()
            };
            let (request, response) = fetch(addr, host, &target, &extra)?;
            fetched.push((
                f.path.clone(),
                Exchange {
                    url: url(&target),
                    date: Stamp(t2.0 + i as i64),
                    request,
                    response,
                },
            ));
        }
        let gzip = [("Accept-Encoding", "gzip".to_string())];
        let (request, response) = fetch(addr, host, "/", &gzip)?;
        let root = Exchange {
            url: url("/"),
            date: Stamp(t2.0 + fetched.len() as i64),
            request,
            response,
        };
        let conditional = match not_modified {
            Some(path) => {
                let first = &fetched.iter().find(|(p, _)| p == path).expect("fetched").1;
                let (head, _) = split(&first.response)?;
                let etag = head.get("etag").unwrap_or("").to_string();
                let target = target_of(&resolver, path);
                let (request, response) = fetch(addr, host, &target, &[("If-None-Match", etag)])?;
                Some(Exchange {
                    url: url(&target),
                    date: t3,
                    request,
                    response,
                })
            }
            None => None,
        };
        Ok((fetched, root, conditional))
    })??;

    // The earlier crawl: the revisited images in full, at t0.
    let earlier: Vec<Rec> = std::iter::once(Rec::Info(format!("{name}: an earlier crawl")))
        .chain(
            fetched
                .iter()
                .filter(|(p, _)| revisited.contains(&p.as_str()))
                .map(|(_, x)| {
                    Rec::Exchange(Exchange {
                        date: t0,
                        ..x.clone()
                    })
                }),
        )
        .collect();
    let earlier_path = out.join(format!("{name}-earlier.warc.gz"));
    let earlier_placed = write_warc(&earlier_path, true, &earlier)?;
    let earlier_ids: Vec<Option<String>> = earlier_placed.ids[1..].to_vec();

    let mut recs = vec![Rec::Info(format!(
        "{name}: captured through webdiet's server"
    ))];
    // An older version of the index page, a month before.
    let page = &fetched
        .iter()
        .find(|(p, _)| *p == index_page)
        .expect("fetched")
        .1;
    let older_body =
        "<!-- as it was on 1997-02-01 -->\n<html><body><p>Under construction.</p></body></html>\n";
    recs.push(Rec::Exchange(Exchange {
        date: t1,
        response: made_response(
            "200 OK",
            &[("Content-Type", "text/html")],
            older_body.as_bytes(),
        ),
        ..page.clone()
    }));
    let mut main_index_digest = None;
    for (path, x) in &fetched {
        if let Some(k) = revisited.iter().position(|r| r == path) {
            let (_, at) = split(&x.response)?;
            let digest = webdiet::digest::sha1_warc(&x.response[at..]);
            recs.push(Rec::Revisit {
                url: x.url.clone(),
                date: x.date,
                head: x.response[..at].to_vec(),
                profile: warc::IDENTICAL_PAYLOAD,
                refers_to: earlier_ids.get(k).cloned().flatten(),
                target: Some((x.url.clone(), t0)),
                digest,
            });
            continue;
        }
        if *path == index_page {
            let framed = chunked(&x.response)?;
            let (_, at) = split(&framed)?;
            main_index_digest = Some(webdiet::digest::sha1_warc(&framed[at..]));
            recs.push(Rec::Exchange(Exchange {
                response: framed,
                ..x.clone()
            }));
            continue;
        }
        recs.push(Rec::Exchange(x.clone()));
    }
    // `/` is the index page again: a revisit by digest alone (URL-agnostic dedupe). Its body
    // must be the index page's as stored, so it is re-framed the same way.
    let root_framed = chunked(&root.response)?;
    let (_, at) = split(&root_framed)?;
    let root_digest = webdiet::digest::sha1_warc(&root_framed[at..]);
    if root_index.is_some() && Some(&root_digest) == main_index_digest.as_ref() {
        recs.push(Rec::Revisit {
            url: root.url.clone(),
            date: root.date,
            head: root_framed[..at].to_vec(),
            profile: warc::IDENTICAL_PAYLOAD,
            refers_to: None,
            target: None,
            digest: root_digest,
        });
    } else if root_index.is_some() {
        return Err("`/` and the index page differ; the site's root is not its index page".into());
    }
    if let Some(x) = &conditional {
        let (head, at) = split(&x.response)?;
        if head.status != 304 {
            return Err(format!(
                "the conditional request got {}, not 304",
                head.status
            ));
        }
        let digest = fetched
            .iter()
            .find(|(_, f)| f.url == x.url)
            .and_then(|(_, f)| {
                split(&f.response)
                    .ok()
                    .map(|(_, a)| webdiet::digest::sha1_warc(&f.response[a..]))
            })
            .unwrap_or_default();
        recs.push(Rec::Revisit {
            url: x.url.clone(),
            date: x.date,
            head: x.response[..at].to_vec(),
            profile: warc::NOT_MODIFIED,
            refers_to: None,
            target: None,
            digest,
        });
    }
    for (target, status, to) in [
        ("/old/", "301 Moved Permanently", "/index.html"),
        ("/start", "302 Found", "/"),
    ] {
        let body = format!("<p>Moved to <a href=\"{to}\">{to}</a></p>\n");
        recs.push(Rec::Exchange(Exchange {
            url: url(target),
            date: t2,
            request: format!("GET {target} HTTP/1.1\r\nHost: {host}\r\n\r\n").into_bytes(),
            response: made_response(
                status,
                &[("Location", &url(to)), ("Content-Type", "text/html")],
                body.as_bytes(),
            ),
        }));
    }

    let main_gz = out.join(format!("{name}.warc.gz"));
    let placed = write_warc(&main_gz, true, &recs)?;
    write_warc(&out.join(format!("{name}.warc")), false, &recs)?;

    // ARC: no revisits in ARC, so every response in full; the older page too.
    let mut arc_x: Vec<&Exchange> = Vec::new();
    for r in &recs {
        if let Rec::Exchange(x) = r {
            arc_x.push(x);
        }
    }
    for (path, x) in &fetched {
        if revisited.contains(&path.as_str()) {
            arc_x.push(x);
        }
    }
    arc_x.sort_by(|a, b| (a.date, &a.url).cmp(&(b.date, &b.url)));
    write_arc(&out.join(format!("{name}.arc.gz")), true, &arc_x)?;
    write_arc(&out.join(format!("{name}.arc")), false, &arc_x)?;

    // WACZ: both WARCs, their index, the HTML files as pages.
    let pages: Vec<Page> = crawled
        .files
        .iter()
        .filter(|f| f.kind == FileKind::Html)
        .map(|f| {
            let x = &fetched
                .iter()
                .find(|(p, _)| *p == f.path)
                .expect("fetched")
                .1;
            Page::new(&x.url, x.date, None)
        })
        .collect();
    let earlier_name = format!("{name}-earlier.warc.gz");
    let package_with = |wacz: &str, main: &Path, main_name: &str, lines: Vec<Line>| {
        let mut lines = lines;
        lines.extend(earlier_placed.lines.iter().cloned());
        let cdx = cdxj::sorted(&lines);
        let warcs: Vec<(&Path, &str)> = vec![(main, main_name), (&earlier_path, &earlier_name)];
        package::write(
            &out.join(wacz),
            &Package {
                warcs: &warcs,
                cdxj: &cdx,
                pages_header: None,
                pages: &pages,
                title: name,
                description: "captured through webdiet's server by make-archives",
                created: t3,
                main_page: pages.first(),
            },
        )
        .map_err(|e| format!("{wacz}: {e}"))
    };
    package_with(
        &format!("{name}.wacz"),
        &main_gz,
        &format!("{name}.warc.gz"),
        placed.lines,
    )?;
    // The same without the not-modified revisit, which ReplayWeb.page 2.5 replays as the 304
    // it records rather than as the capture it stands for (docs/archives.md): the WACZ the
    // ReplayWeb.page render check compares with.
    let replayable: Vec<Rec> = recs
        .iter()
        .filter(|r| !matches!(r, Rec::Revisit { profile, .. } if *profile == warc::NOT_MODIFIED))
        .cloned()
        .collect();
    let replayable_name = format!("{name}-replayable.warc.gz");
    let replayable_gz = out.join(&replayable_name);
    let placed = write_warc(&replayable_gz, true, &replayable)?;
    package_with(
        &format!("{name}-replayable.wacz"),
        &replayable_gz,
        &replayable_name,
        placed.lines,
    )?;
    Ok(())
}

/// `big`: the site's capture, then third-party records of pseudo-random bytes until the file
/// holds about `bytes` bytes (gzip cannot shrink them).
pub fn big(dir: &Path, out: &Path, bytes: u64) -> Result<(), String> {
    let tmp: PathBuf = out.with_extension("parts");
    capture(dir, &tmp, "site", "www.big.test")?;
    let err = |e: std::io::Error| format!("{}: {e}", out.display());
    let mut file = std::fs::File::create(out).map_err(err)?;
    let mut head = std::fs::File::open(tmp.join("site.warc.gz")).map_err(err)?;
    let mut written = std::io::copy(&mut head, &mut file).map_err(err)?;
    let _ = std::fs::remove_dir_all(&tmp);
    let mut w = Writer::new(std::io::BufWriter::new(file), true).with_level(1);
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut n = 0;
    let chunk = 64usize << 20;
    let mut body = vec![0u8; chunk];
    while written < bytes {
        for word in body.chunks_mut(8) {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            word.copy_from_slice(&state.to_le_bytes()[..word.len()]);
        }
        let response = made_response(
            "200 OK",
            &[("Content-Type", "application/octet-stream")],
            &body,
        );
        let url = format!("http://media.example.org/big-{n}.bin");
        let w2 = w
            .warc(&Record {
                rtype: "response",
                uri: Some(&url),
                date: Stamp::parse14("19970315130000").expect("constant date"),
                content_type: Some("application/http; msgtype=response"),
                fields: Vec::new(),
                block: &response,
                payload_at: Some(response.len() - body.len()),
            })
            .map_err(err)?;
        written += w2.length;
        n += 1;
    }
    w.flush().map_err(err)
}

/// `many`: `n` tiny pages of `http://www.many.test/`, a response record each (gzipped per
/// record), each page linking to the next: the archive of many small records whose cost must
/// grow linearly (tests/archives/scale.rs, benches/archive-scale.sh).
pub fn many(out: &Path, n: usize) -> Result<(), String> {
    let err = |e: std::io::Error| format!("{}: {e}", out.display());
    let file = std::fs::File::create(out).map_err(err)?;
    let mut w = Writer::new(std::io::BufWriter::new(file), true).with_level(1);
    for i in 0..n {
        let url = match i {
            0 => "http://www.many.test/".to_string(),
            i => format!("http://www.many.test/p{i}.html"),
        };
        let body = format!(
            "<html><head><title>Page {i}</title></head><body><p><a href=\"p{}.html\">next</a>\
             </p></body></html>\n",
            i + 1
        );
        let response = made_response("200 OK", &[("Content-Type", "text/html")], body.as_bytes());
        w.warc(&Record {
            rtype: "response",
            uri: Some(&url),
            date: Stamp::parse14("20050101000000").expect("constant date"),
            content_type: Some("application/http; msgtype=response"),
            fields: Vec::new(),
            block: &response,
            payload_at: Some(response.len() - body.len()),
        })
        .map_err(err)?;
    }
    w.flush().map_err(err)
}
