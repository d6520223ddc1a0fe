//! The replay's robot, whatever protocol carries it: what a visit fetches (the 1997 libwww
//! robot's rules: the page, then what a browser fetches to show it — images, style sheets and
//! what they import, scripts, frames — found with the crawl's own reference extractor and
//! resolver), what the first visit leaves in the cache for the validation, and the check that
//! every body received is the site's file byte for byte: a replay that does not reproduce the
//! site is an error, not a result.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use url::Url;

use super::meter::Counters;
use super::served::ServedSite;
use super::transport::{Connector, TcpOptions};
use crate::compression::Coding;
use crate::deflate;
use crate::html::RefKind;
use crate::sim::headers::{Dest, HeaderSet, RequestHeaders};
use crate::site::resolve::{Resolver, Target};
use crate::site::{charset, FileKind};

/// Which visit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Test {
    /// Empty cache: plain GETs.
    First,
    /// Conditional GETs with the first visit's validators: 304s.
    Validate,
}

impl Test {
    pub const ALL: [Test; 2] = [Test::First, Test::Validate];

    pub fn as_str(self) -> &'static str {
        match self {
            Test::First => "first",
            Test::Validate => "validate",
        }
    }
}

impl std::fmt::Display for Test {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

impl std::str::FromStr for Test {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Test::ALL
            .into_iter()
            .find(|t| t.as_str() == s)
            .ok_or_else(|| format!("unknown test {s:?}; the tests are first, validate"))
    }
}

/// What the first visit left in the cache: validators and bodies, by request target.
#[derive(Debug, Clone, Default)]
pub struct Cache {
    entries: BTreeMap<String, Entry>,
    /// What the first visit fetched, in order: a validation asks for all of it at once.
    order: Vec<Fetch>,
}

/// One cached response.
#[derive(Debug, Clone)]
pub struct Entry {
    pub etag: Option<String>,
    pub last_modified: Option<String>,
    body: Vec<u8>,
    /// What the body names, in document order, found once for every validation of this
    /// cache ([`Robot::validation_order`]).
    children: OnceLock<Vec<Fetch>>,
}

impl Cache {
    pub fn len(&self) -> usize {
        self.entries.len()
    }
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// One resource to fetch: the request target as a browser writes it, the site file the
/// server should answer with, what it is for, and the page or sheet that named it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetch {
    pub target: String,
    pub path: String,
    pub dest: Dest,
    /// The request target of the document that named it (`None` for the page itself).
    pub referrer: Option<String>,
}

/// What a reference of this kind is fetched for.
fn dest_of(kind: RefKind) -> Dest {
    match kind {
        RefKind::Stylesheet | RefKind::CssImport => Dest::Style,
        RefKind::Script => Dest::Script,
        RefKind::Frame | RefKind::Iframe => Dest::Frame,
        RefKind::Object | RefKind::Embed => Dest::Other,
        _ => Dest::Image,
    }
}

/// A response as the robot checks it, whatever the protocol's framing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub status: u16,
    pub content_encoding: Option<String>,
    pub etag: Option<String>,
    pub last_modified: Option<String>,
}

/// When things happened in one visit, from its first SYN (the same origin for every mode and
/// every link).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Timing {
    /// The first byte of the page's response.
    pub first_byte: Duration,
    /// The last byte of the last object: the page is complete.
    pub complete: Duration,
    /// The paper's time: to the last packet that counts, as the client sees it — the moment
    /// it sends its last FIN, after the last byte it read (and, in HTTP/1.0, the server's
    /// FIN, which counts).
    pub last_packet: Duration,
    /// Each request: sent, first byte and last byte of its response (a waterfall).
    pub requests: Vec<RequestTiming>,
}

/// One request of a visit, in milliseconds from the visit's first SYN.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RequestTiming {
    /// The request target.
    pub target: String,
    /// When the request was written (the last attempt's, for a request sent again).
    pub sent_ms: f64,
    /// When the first byte of its response arrived (as the client's reads see it).
    pub first_byte_ms: f64,
    /// When the last byte of its response arrived.
    pub done_ms: f64,
}

/// What one visit cost and how long it took.
#[derive(Debug, Clone, Default)]
pub struct Visit {
    pub counters: Counters,
    pub timing: Timing,
    /// The visit gave up waiting (a lossy or slow link): its counters are incomplete, and its
    /// times are those at which it was abandoned.
    pub timed_out: bool,
    /// What the visit's client and server wrote, for the simulator: one per page visited
    /// (recorded on loopback; empty for a visit that timed out).
    pub recorded: Vec<super::script::RecordedVisit>,
}

/// Why a visit failed; each variant names the server address or request target it is about.
#[derive(Debug, thiserror::Error)]
pub enum VisitError {
    #[error("a validation needs the first visit's cache")]
    NoFirstVisit,
    #[error("{addr}: connect: {source}")]
    Connect {
        addr: String,
        #[source]
        source: std::io::Error,
    },
    /// Reading or writing failed at `at` (a server address or a request target).
    #[error("{at}: {source}")]
    Io {
        at: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{at}: the server kept closing the connection")]
    KeptClosing { at: String },
    #[error("{addr}: the visit took more than {limit:?}")]
    TooSlow { addr: String, limit: Duration },
    #[error("{addr}: the server did not agree to HTTP/2 by ALPN")]
    NoHttp2 { addr: String },
    /// The HTTP/2 library refused or reported a failure at `at`.
    #[error("{at}: {reason}")]
    Http2 { at: String, reason: String },
    /// A request webdiet built could not be sent (a header value HTTP does not allow).
    #[error("{target}: cannot build the request: {reason}")]
    BadRequest { target: String, reason: String },
    /// The client's own machinery failed (not the server).
    #[error("{what}: {reason}")]
    Client { what: &'static str, reason: String },
    #[error("{path}: not a file of the site")]
    NotInSite { path: String },
    #[error("{target}: pushed, but not a file of the site")]
    PushedNotInSite { target: String },
    #[error("{target}: bad {coding} body: {source}")]
    BadBody {
        target: String,
        coding: &'static str,
        #[source]
        source: std::io::Error,
    },
    #[error("{target}: unknown coding {coding}")]
    UnknownCoding { target: String, coding: String },
    #[error("{target}: body differs from {path} ({received} bytes received, {expected} expected)")]
    BodyDiffers {
        target: String,
        path: String,
        received: usize,
        expected: usize,
    },
    #[error("{target}: 304 for a changed file")]
    NotModifiedButChanged { target: String },
    #[error("{target}: 304 without a cached copy")]
    NotModifiedUncached { target: String },
    #[error("{target}: status {status}")]
    Status { target: String, status: u16 },
}

/// The moments of one request.
#[derive(Debug, Clone, Default)]
struct RequestMarks {
    sent: Option<Instant>,
    first_byte: Option<Instant>,
    done: Option<Instant>,
}

/// Records the visit's times as the protocol sees them happen.
#[derive(Debug, Default)]
pub struct Clock {
    first_byte: Mutex<Option<Instant>>,
    last_byte: Mutex<Option<Instant>>,
    /// By request target, in the order first sent.
    requests: Mutex<Vec<(String, RequestMarks)>>,
}

impl Clock {
    pub fn start() -> Self {
        Clock::default()
    }

    /// Bytes of the page's response arrived (only the first call counts).
    pub fn page_byte(&self) {
        self.page_byte_at(Instant::now());
    }

    /// Bytes of the page's response arrived at `at` (the earliest call counts).
    pub fn page_byte_at(&self, at: Instant) {
        if let Ok(mut t) = self.first_byte.lock() {
            *t = Some(t.map_or(at, |t| t.min(at)));
        }
    }

    /// A whole object arrived.
    pub fn object_done(&self) {
        self.object_done_at(Instant::now());
    }

    /// A whole object arrived at `at` (the latest of these is the page complete).
    fn object_done_at(&self, at: Instant) {
        if let Ok(mut t) = self.last_byte.lock() {
            *t = Some(t.map_or(at, |t| t.max(at)));
        }
    }

    fn mark(&self, target: &str, f: impl FnOnce(&mut RequestMarks)) {
        if let Ok(mut requests) = self.requests.lock() {
            match requests.iter_mut().find(|(t, _)| t == target) {
                Some((_, marks)) => f(marks),
                None => {
                    let mut marks = RequestMarks::default();
                    f(&mut marks);
                    requests.push((target.to_string(), marks));
                }
            }
        }
    }

    /// The request for `target` was written at `at` (a request sent again starts anew).
    pub fn sent(&self, target: &str, at: Instant) {
        self.mark(target, |m| {
            *m = RequestMarks {
                sent: Some(at),
                ..RequestMarks::default()
            }
        });
    }

    /// The first byte of `target`'s response arrived at `at` (the first call counts).
    pub fn response_byte(&self, target: &str, at: Instant) {
        self.mark(target, |m| {
            m.first_byte.get_or_insert(at);
        });
    }

    /// The last byte of `target`'s response arrived: the object is done.
    pub fn response_done(&self, target: &str) {
        self.response_done_at(target, Instant::now());
    }

    /// The last byte of `target`'s response arrived at `at` (as a protocol task saw it, before
    /// the visit heard of it).
    pub fn response_done_at(&self, target: &str, at: Instant) {
        self.mark(target, |m| {
            m.first_byte.get_or_insert(at);
            m.done = Some(at);
        });
        self.object_done_at(at);
    }

    /// The times, from the visit's first SYN as the connector saw it.
    pub fn timing(&self, connector: &Connector<'_>) -> Timing {
        let marks = connector.visit.marks();
        let origin = marks.first_syn.unwrap_or_else(Instant::now);
        let since = |t: Option<Instant>| {
            t.map(|t| t.saturating_duration_since(origin))
                .unwrap_or_default()
        };
        let get = |t: &Mutex<Option<Instant>>| t.lock().ok().and_then(|t| *t);
        let ms = |t: Option<Instant>| since(t).as_secs_f64() * 1000.0;
        let requests = self
            .requests
            .lock()
            .map(|r| {
                r.iter()
                    .map(|(target, m)| RequestTiming {
                        target: target.clone(),
                        sent_ms: ms(m.sent),
                        first_byte_ms: ms(m.first_byte),
                        done_ms: ms(m.done),
                    })
                    .collect()
            })
            .unwrap_or_default();
        Timing {
            first_byte: since(get(&self.first_byte)),
            complete: since(get(&self.last_byte)),
            last_packet: since(marks.last_counted),
            requests,
        }
    }
}

/// How the robot behaves, whatever the protocol.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientOptions {
    /// Parallel connections in `http10` mode. Default: 4.
    pub connections: usize,
    /// The output buffer in pipelined modes: requests go out in chunks of this size, the rest
    /// on an explicit flush once the pipeline is written. Default: 1460, one full Ethernet
    /// segment per flush (libwww used 1024 in 1997: with Nagle off every flush is a segment,
    /// so 1024 sends 40% more request segments; `--client-buffer 1024` reproduces it).
    pub buffer: usize,
    /// Requests outstanding on one pipelined connection at most. Default: 50 (libwww's).
    pub max_outstanding: usize,
    /// Socket options.
    pub tcp: TcpOptions,
    /// How long a read may wait. Default: 10 s.
    pub timeout: Duration,
    /// Times in a row a connection may close with requests outstanding before the visit fails
    /// (pipelining stops after 3, as in libwww). Default: 20.
    pub max_failures: usize,
    /// Which request headers to send (`--headers`). Default: `libwww`, the study's robot.
    pub headers: HeaderSet,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            connections: 4,
            buffer: 1460,
            max_outstanding: 50,
            tcp: TcpOptions::default(),
            timeout: Duration::from_secs(10),
            max_failures: 20,
            headers: HeaderSet::Libwww,
        }
    }
}

/// The robot, bound to one site.
pub struct Robot<'a> {
    pub site: &'a ServedSite,
    pub resolver: &'a Resolver<'a>,
    pub opts: &'a ClientOptions,
}

impl<'a> Robot<'a> {
    pub fn new(site: &'a ServedSite, resolver: &'a Resolver<'a>, opts: &'a ClientOptions) -> Self {
        Robot {
            site,
            resolver,
            opts,
        }
    }

    /// What a visit asks for first: the page; a validation asks for everything the first
    /// visit fetched at once (what the page says, if it changed, is still discovered from its
    /// response).
    pub fn initial(&self, page: &str, test: Test, cache: &Cache) -> Result<Vec<Fetch>, VisitError> {
        let start = Fetch {
            target: format!(
                "/{}",
                self.resolver.page_url(page).path().trim_start_matches('/')
            ),
            path: page.to_string(),
            dest: Dest::Document,
            referrer: None,
        };
        match test {
            Test::First => Ok(vec![start]),
            Test::Validate if cache.entries.is_empty() => Err(VisitError::NoFirstVisit),
            Test::Validate => Ok(self.validation_order(start, cache)),
        }
    }

    /// Everything the first visit fetched, in the order a robot fetching one thing at a time
    /// would have found it: breadth first from the page, each body's references in document
    /// order. The first visit's own order is when each response happened to complete, which
    /// HTTP/1.0's parallel connections leave to the scheduler; a validation (and the
    /// recording the simulator replays) must not depend on that.
    fn validation_order(&self, start: Fetch, cache: &Cache) -> Vec<Fetch> {
        let mut seen = BTreeSet::from([start.target.clone()]);
        let mut queue = VecDeque::from([start]);
        let mut all = Vec::with_capacity(cache.order.len() + 1);
        while let Some(fetch) = queue.pop_front() {
            let first = all.is_empty();
            match cache.entries.get(&fetch.target) {
                Some(entry) => {
                    let children = entry
                        .children
                        .get_or_init(|| self.discover(&fetch, &entry.body, &mut BTreeSet::new()));
                    queue.extend(
                        children
                            .iter()
                            .filter(|c| seen.insert(c.target.clone()))
                            .cloned(),
                    );
                }
                // What the first visit did not keep (an error answer) is not asked again.
                None if !first => continue,
                None => {}
            }
            all.push(fetch);
        }
        // Anything cached that no cached body names now (never on a static site), by target.
        let mut rest: Vec<&Fetch> = cache
            .order
            .iter()
            .filter(|f| !seen.contains(&f.target))
            .collect();
        rest.sort_by(|a, b| a.target.cmp(&b.target));
        all.extend(rest.into_iter().cloned());
        all
    }

    /// The request headers for `fetch` (beyond method, target and host), as `host` names the
    /// server; `compressed`, the coding the robot accepts, in the deflate and brotli modes,
    /// `priority` where the protocol carries RFC 9218 priorities (HTTP/2).
    pub fn request_headers(
        &self,
        fetch: &Fetch,
        host: &str,
        compressed: Option<&'static str>,
        priority: bool,
    ) -> Vec<(&'static str, String)> {
        RequestHeaders {
            set: self.opts.headers,
            dest: fetch.dest,
            compressed,
            referer: fetch.referrer.as_ref().map(|r| format!("http://{host}{r}")),
            priority,
        }
        .fields()
    }

    /// The cache entry a conditional request for `fetch` is made from.
    pub fn cached(&self, fetch: &Fetch, test: Test, cache: &Mutex<&mut Cache>) -> Option<Entry> {
        if test != Test::Validate {
            return None;
        }
        let cache = cache.lock().expect("no thread panics holding the cache");
        cache.entries.get(&fetch.target).cloned()
    }

    /// Checks a response against the site and the cache; returns the resource's bytes.
    pub fn accept(
        &self,
        fetch: &Fetch,
        head: &Answer,
        body: Vec<u8>,
        cache: &Mutex<&mut Cache>,
    ) -> Result<Vec<u8>, VisitError> {
        // An archive's redirect, served as captured: the next request is where it leads
        // ([`discover`]).
        if let Some(captured) = self
            .site
            .captured_at(&fetch.target)
            .and_then(|r| r.captured.as_ref())
        {
            if captured.status == head.status && captured.follow.is_some() {
                return Ok(body);
            }
        }
        let expected = self
            .site
            .resource(&fetch.path)
            .ok_or_else(|| VisitError::NotInSite {
                path: fetch.path.clone(),
            })?;
        match head.status {
            200 => {
                let limit = expected.body.len() as u64;
                let decoded = match head.content_encoding.as_deref() {
                    None | Some("identity") => body,
                    Some("deflate") => deflate::inflate_zlib(&body, limit).map_err(|source| {
                        VisitError::BadBody {
                            target: fetch.target.clone(),
                            coding: "deflate",
                            source,
                        }
                    })?,
                    Some("gzip") => deflate::inflate_gzip(&body, limit).map_err(|source| {
                        VisitError::BadBody {
                            target: fetch.target.clone(),
                            coding: "gzip",
                            source,
                        }
                    })?,
                    Some(token) if Coding::from_token(token).is_some() => {
                        let coding = Coding::from_token(token).expect("matched just above");
                        coding
                            .decode(&body, limit)
                            .map_err(|source| VisitError::BadBody {
                                target: fetch.target.clone(),
                                coding: coding.token(),
                                source,
                            })?
                    }
                    Some(other) => {
                        return Err(VisitError::UnknownCoding {
                            target: fetch.target.clone(),
                            coding: other.to_string(),
                        })
                    }
                };
                if decoded != expected.body {
                    return Err(VisitError::BodyDiffers {
                        target: fetch.target.clone(),
                        path: fetch.path.clone(),
                        received: decoded.len(),
                        expected: expected.body.len(),
                    });
                }
                let mut cache = cache.lock().expect("no thread panics holding the cache");
                if !cache.entries.contains_key(&fetch.target) {
                    cache.order.push(fetch.clone());
                }
                cache.entries.insert(
                    fetch.target.clone(),
                    Entry {
                        etag: head.etag.clone(),
                        last_modified: head.last_modified.clone(),
                        body: decoded.clone(),
                        children: OnceLock::new(),
                    },
                );
                Ok(decoded)
            }
            304 => {
                let cache = cache.lock().expect("no thread panics holding the cache");
                match cache.entries.get(&fetch.target) {
                    Some(entry) if entry.body == expected.body => Ok(entry.body.clone()),
                    Some(_) => Err(VisitError::NotModifiedButChanged {
                        target: fetch.target.clone(),
                    }),
                    None => Err(VisitError::NotModifiedUncached {
                        target: fetch.target.clone(),
                    }),
                }
            }
            status => Err(VisitError::Status {
                target: fetch.target.clone(),
                status,
            }),
        }
    }

    /// The resource at a request target a server named (a push, a preload hint), as if
    /// `referrer` had referred to it; `None` when it is not a file of the site.
    pub fn discover_target(&self, referrer: &Fetch, target: &str) -> Option<Fetch> {
        let base = self.resolver.page_url(&referrer.path);
        let Target::Local { path, .. } = self.resolver.resolve(&base, target) else {
            return None;
        };
        let dest = match self.site.site.file(&path)?.kind {
            FileKind::Css => Dest::Style,
            FileKind::Js => Dest::Script,
            FileKind::Html => Dest::Frame,
            _ => Dest::Image,
        };
        Some(Fetch {
            target: target.to_string(),
            path,
            dest,
            referrer: Some(referrer.target.clone()),
        })
    }

    /// What a browser fetches next because of this resource: the references of a page, the
    /// imports and images of a style sheet. `seen` dedupes by request target, as browsers do.
    pub fn discover(&self, fetch: &Fetch, body: &[u8], seen: &mut BTreeSet<String>) -> Vec<Fetch> {
        discover(self.site, self.resolver, fetch, body, seen)
    }
}

/// What a browser fetches next because of `fetch` (whose bytes are `body`), as [`Robot::discover`]
/// says; also what a server pushes with a page.
pub fn discover(
    site: &ServedSite,
    resolver: &Resolver<'_>,
    fetch: &Fetch,
    body: &[u8],
    seen: &mut BTreeSet<String>,
) -> Vec<Fetch> {
    if let Some(to) = site
        .captured_at(&fetch.target)
        .and_then(|r| r.captured.as_ref())
        .and_then(|c| c.follow.clone())
    {
        // A captured redirect: a browser asks for where it leads, for the same purpose.
        let base = resolver.page_url(&fetch.path);
        let Target::Local { path, .. } = resolver.resolve(&base, &to) else {
            return Vec::new();
        };
        return if seen.insert(to.clone()) {
            vec![Fetch {
                target: to,
                path,
                dest: fetch.dest,
                referrer: fetch.referrer.clone(),
            }]
        } else {
            Vec::new()
        };
    }
    let kind = site.site.file(&fetch.path).map(|f| f.kind);
    let (base, values): (Url, Vec<(RefKind, String)>) = match kind {
        Some(FileKind::Html) => {
            let text = charset::decode(body).text;
            let refs = crate::html::references(&text);
            let base = resolver.base_url(&fetch.path, refs.base_href.as_deref());
            let values = refs
                .refs
                .into_iter()
                .filter(|r| r.kind.is_fetched())
                .map(|r| (r.kind, r.value))
                .collect();
            (base, values)
        }
        Some(FileKind::Css) => {
            let text = String::from_utf8_lossy(body);
            let values = crate::css::references(&text)
                .into_iter()
                .map(|r| (RefKind::from_css(r.kind), r.value))
                .collect();
            (resolver.page_url(&fetch.path), values)
        }
        _ => return Vec::new(),
    };
    let mut found = Vec::new();
    for (kind, value) in values {
        let Target::Local { path, .. } = resolver.resolve(&base, &value) else {
            continue;
        };
        let Ok(url) = base.join(&value) else { continue };
        let mut target = url.path().to_string();
        if let Some(query) = url.query() {
            target.push('?');
            target.push_str(query);
        }
        if seen.insert(target.clone()) {
            found.push(Fetch {
                target,
                path,
                dest: dest_of(kind),
                referrer: Some(fetch.target.clone()),
            });
        }
    }
    found
}
