//! A browser's load of one page as the simulator's [`Exchange`]: the connections a browser
//! opens, the bytes it and webdiet's server write on them, and what makes each write — the
//! page's bytes that name a fetch, or a sheet that arrived, or a connection free again.
//!
//! The sizes are what webdiet's server and a current Chromium write: the server's own response
//! heads (HTTP/1.1 text, or HPACK'd for HTTP/2), a Chromium request's fields (`replay::headers`'
//! `browser` set, without the cookie webdiet's server never sets), text gzipped (or brotli'd),
//! every file's bytes as served, and for TLS 1.3 Chromium's ClientHello (its post-quantum key
//! share makes it about 1,900 bytes) and the server's flight with an ECDSA certificate and two
//! session tickets. docs/simulation.md ("The visitor") lists them and checks the whole against
//! Chromium over the emulated link.

use std::collections::BTreeSet;

use super::super::headers::{Dest, HeaderSet, RequestHeaders};
use super::super::simulate::{Connection, Exchange, Message, Side, Trigger};
use super::files::Files;
use super::graph::{FetchKind, Found, PageGraph};
use super::Visit;

/// How the browser speaks to webdiet's server.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Speaks {
    /// HTTP/1.1 in cleartext, up to six connections, text gzipped.
    Http1,
    /// HTTP/2 over TLS 1.3, one connection, text gzipped.
    H2,
    /// HTTP/2 over TLS 1.3, text as brotli.
    H2Brotli,
}

impl Speaks {
    pub fn as_str(self) -> &'static str {
        match self {
            Speaks::Http1 => "http1",
            Speaks::H2 => "h2",
            Speaks::H2Brotli => "h2-br",
        }
    }

    fn tls(self) -> bool {
        !matches!(self, Speaks::Http1)
    }
}

/// A message of the exchange: connection and index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct At {
    pub conn: usize,
    pub message: usize,
}

/// The exchange and where the milestones' messages are in it.
#[derive(Debug, Clone)]
pub struct Built {
    pub exchange: Exchange,
    /// The page's response: its first message (head and first bytes), the one that ends with
    /// the first content, and its last.
    pub page_start: At,
    pub content: At,
    pub page_end: At,
    /// Each fetch's response (its last message), as the graph lists them; `None` for one that
    /// was never asked for.
    pub fetches: Vec<Option<At>>,
}

/// Chromium's ClientHello with its X25519MLKEM768 and X25519 key shares.
const CLIENT_HELLO: u64 = 1_900;
/// ServerHello, EncryptedExtensions, an ECDSA P-256 certificate chain, CertificateVerify and
/// Finished, in records.
const SERVER_FLIGHT: u64 = 1_350;
/// The client's Finished (and change_cipher_spec), in records.
const CLIENT_FINISHED: u64 = 80;
/// Two TLS 1.3 session tickets, in records (`transport::tls::TLS13_TICKETS`).
const TICKETS: u64 = 2 * 250;
/// A TLS record's header and tag, per 16 KiB of plaintext.
const RECORD_OVERHEAD: u64 = 22;
/// HTTP/2's connection preface, SETTINGS and WINDOW_UPDATE from the client; SETTINGS and its
/// ACK from the server.
const H2_CLIENT_PREFACE: u64 = 24 + 9 + 36 + 13;
const H2_SERVER_SETTINGS: u64 = 9 + 18 + 9;
/// An HTTP/2 frame header, per DATA frame of 16 KiB.
const FRAME: u64 = 9;
/// webdiet's server's HTTP/1.1 `200` head for a browser (`protocol::http1::server`): status
/// line, `Date`, `Server`, `Last-Modified`, `ETag`, `Content-Type`, `Content-Length`,
/// `Connection`, `Cache-Control: no-cache`; and what `Content-Encoding` and `Vary` add.
const H1_HEAD: u64 = 260;
const H1_CODED: u64 = 50;
/// Its `304` head (`Date`, `ETag`, `Connection`).
const H1_NOT_MODIFIED: u64 = 150;
/// The same fields HPACK'd on a connection's first response, on a later one (most of them
/// indexed by then), and a `304`'s.
const H2_FIRST_HEAD: u64 = 140;
const H2_HEAD: u64 = 45;
const H2_NOT_MODIFIED: u64 = 30;

/// What one request and its answer weigh on the wire, before TLS.
struct Weights {
    request: u64,
    response: u64,
}

/// The exchange of a browser loading `graph` (its site `site`), speaking `speaks`. On
/// [`Visit::AfterLanding`], what `cached` holds is revalidated (a 304), the rest fetched.
pub fn build(
    graph: &PageGraph,
    site: &dyn Files,
    cached: &BTreeSet<String>,
    speaks: Speaks,
    visit: Visit,
) -> Built {
    let revalidated = |path: &str| match visit {
        Visit::First => false,
        Visit::AfterLanding => cached.contains(path),
        Visit::Repeat => true,
    };
    let weigh = |path: &str, dest: Dest, n: usize| -> Weights {
        let (body, coded) = body_of(site, path, speaks);
        let is_304 = revalidated(path);
        let request = request_bytes(path, dest, speaks, n, is_304);
        let response = match (speaks, is_304) {
            (Speaks::Http1, true) => H1_NOT_MODIFIED,
            (Speaks::Http1, false) => H1_HEAD + if coded { H1_CODED } else { 0 } + body,
            (_, true) => H2_NOT_MODIFIED,
            (_, false) => {
                let head = if n == 0 { H2_FIRST_HEAD } else { H2_HEAD };
                head + FRAME * (1 + body.div_ceil(16_384)) + body
            }
        };
        Weights { request, response }
    };
    let sealed = |bytes: u64| match speaks.tls() {
        true => bytes + RECORD_OVERHEAD * bytes.div_ceil(16_384).max(1),
        false => bytes,
    };
    let page = weigh(&graph.page, Dest::Document, 0);
    // A revalidated page comes as a 304 alone: its bytes are the cache's, all at once.
    let page_body = match revalidated(&graph.page) {
        true => 0,
        false => body_of(site, &graph.page, speaks).0,
    };
    // The page's bytes split where its first content ends: the coded body's share of it.
    let content_at = graph
        .first_content
        .map_or(page_body, |c| scale(c, graph.bytes, page_body))
        .min(page_body);
    let head = page.response - page_body;

    let mut first = Connection::new(Trigger::Start, Vec::new());
    let go = match speaks.tls() {
        false => Trigger::Established { conn: 0 },
        true => {
            first.messages.push(msg(
                Side::Client,
                CLIENT_HELLO,
                Trigger::Established { conn: 0 },
            ));
            first.messages.push(msg(
                Side::Server,
                SERVER_FLIGHT,
                received(0, 0, CLIENT_HELLO),
            ));
            received(0, 1, SERVER_FLIGHT)
        }
    };
    let preface = if speaks.tls() {
        CLIENT_FINISHED + H2_CLIENT_PREFACE
    } else {
        0
    };
    first
        .messages
        .push(msg(Side::Client, sealed(preface + page.request), go));
    let asked = first.messages.len() - 1;
    let server_extra = if speaks.tls() {
        TICKETS + H2_SERVER_SETTINGS
    } else {
        0
    };
    let part_a = sealed(server_extra + head + content_at);
    let part_b = page_body - content_at;
    first.messages.push(msg(
        Side::Server,
        part_a,
        received(0, asked, sealed(preface + page.request)),
    ));
    let page_start = At {
        conn: 0,
        message: first.messages.len() - 1,
    };
    let content = page_start;
    let mut page_end = page_start;
    if part_b > 0 {
        first.messages.push(msg(
            Side::Server,
            sealed(part_b),
            received(0, asked, sealed(preface + page.request)),
        ));
        page_end = At {
            conn: 0,
            message: first.messages.len() - 1,
        };
    }
    let mut conns = vec![first];

    // Where the page's bytes up to `offset` (as the site holds them) have arrived.
    let page_trigger = |offset: u64| -> Trigger {
        let coded = scale(offset, graph.bytes, page_body);
        if coded <= content_at || part_b == 0 {
            let bytes = sealed(server_extra + head + coded.min(content_at)).min(part_a);
            received(content.conn, content.message, bytes.max(1))
        } else {
            let rest = coded - content_at;
            received(
                page_end.conn,
                page_end.message,
                sealed(rest).min(sealed(part_b)),
            )
        }
    };

    let mut fetches: Vec<Option<At>> = vec![None; graph.fetches.len()];
    // HTTP/1.1: the six connections' last answers; connection 0 is the page's.
    let mut slots: Vec<Option<At>> = vec![Some(page_end)];
    let mut next_slot = 0usize;
    for (i, f) in graph.fetches.iter().enumerate() {
        let dest = match f.kind {
            FetchKind::Stylesheet => Dest::Style,
            FetchKind::Script | FetchKind::LateScript => Dest::Script,
            FetchKind::Image => Dest::Image,
            FetchKind::Frame => Dest::Frame,
            FetchKind::Other => Dest::Other,
        };
        let found = match f.found {
            Found::Page { offset } => page_trigger(offset),
            Found::After { fetch } => match fetches[fetch] {
                Some(at) => received(at.conn, at.message, conn_bytes(&conns, at)),
                None => continue,
            },
        };
        let w = weigh(&f.path, dest, i + 1);
        match speaks {
            Speaks::H2 | Speaks::H2Brotli => {
                let c = &mut conns[0];
                c.messages.push(msg(Side::Client, sealed(w.request), found));
                let req = c.messages.len() - 1;
                c.messages.push(msg(
                    Side::Server,
                    sealed(w.response),
                    received(0, req, sealed(w.request)),
                ));
                fetches[i] = Some(At {
                    conn: 0,
                    message: c.messages.len() - 1,
                });
            }
            Speaks::Http1 => {
                // The next of six connections in turn.
                if slots.len() < 6 {
                    slots.push(None);
                }
                let slot = (1 + next_slot) % slots.len().max(1);
                next_slot += 1;
                // A new connection opens once the fetch is found; an open one takes it once the
                // fetch is found and its last answer is in.
                let (conn, trigger, also) = match slots[slot] {
                    Some(last) => {
                        let free = received(last.conn, last.message, conn_bytes(&conns, last));
                        (last.conn, free, Some(found))
                    }
                    None => {
                        let conn = conns.len();
                        conns.push(Connection::new(found, Vec::new()));
                        (conn, Trigger::Established { conn }, None)
                    }
                };
                let c = &mut conns[conn];
                c.messages.push(Message {
                    also,
                    ..msg(Side::Client, w.request, trigger)
                });
                let req = c.messages.len() - 1;
                c.messages.push(msg(
                    Side::Server,
                    w.response,
                    received(conn, req, w.request),
                ));
                let at = At {
                    conn,
                    message: c.messages.len() - 1,
                };
                slots[slot] = Some(at);
                fetches[i] = Some(at);
            }
        }
    }
    Built {
        exchange: Exchange {
            connections: conns,
            pools: Vec::new(),
        },
        page_start,
        content,
        page_end,
        fetches,
    }
}

fn msg(from: Side, bytes: u64, trigger: Trigger) -> Message {
    Message {
        from,
        bytes: bytes.max(1),
        trigger,
        after_ns: 0,
        also: None,
    }
}

fn received(conn: usize, message: usize, bytes: u64) -> Trigger {
    Trigger::Received {
        conn,
        message,
        bytes: bytes.max(1),
    }
}

/// The bytes of a message already in the exchange.
fn conn_bytes(conns: &[Connection], at: At) -> u64 {
    conns[at.conn].messages[at.message].bytes
}

/// `x` of `of` scaled to `to` (a page offset to its coded body's), rounded up.
fn scale(x: u64, of: u64, to: u64) -> u64 {
    if of == 0 {
        return to;
    }
    ((u128::from(x) * u128::from(to)).div_ceil(u128::from(of))) as u64
}

/// A file's body as the server sends it to a browser, and whether it was coded.
fn body_of(site: &dyn Files, path: &str, speaks: Speaks) -> (u64, bool) {
    site.sent(path, speaks).unwrap_or((1, false))
}

/// A Chromium request's bytes: HTTP/1.1 text, or the HPACK'd fields (about 60% of the text on
/// a connection's first request, then the path and what changes).
fn request_bytes(path: &str, dest: Dest, speaks: Speaks, n: usize, conditional: bool) -> u64 {
    let fields = RequestHeaders {
        set: HeaderSet::Browser,
        dest,
        compressed: Some("gzip"),
        referer: (n > 0).then(|| "http://replay.webdiet.test/".to_string()),
        priority: !matches!(speaks, Speaks::Http1),
    }
    .fields();
    // Each field is `name: value` and CRLF; the request line and `Host` add the path and
    // about 40 bytes; a revalidation, `If-None-Match` and `If-Modified-Since` (about 90).
    let text: u64 = fields
        .iter()
        .filter(|(name, _)| *name != "cookie")
        .map(|(name, value)| (name.len() + value.len() + 4) as u64)
        .sum::<u64>()
        + (path.len() + 40) as u64
        + if conditional { 90 } else { 0 };
    match speaks {
        Speaks::Http1 => text,
        _ if n == 0 => text * 6 / 10,
        // A HEADERS frame: its header, the indexed fields (about 40 bytes), the path, and the
        // validators as literals (about 60).
        _ => FRAME + 40 + path.len() as u64 + if conditional { 60 } else { 0 },
    }
}
