//! The embedded client, the 1997 libwww "robot": fetches a page, finds what a browser would
//! fetch to show it (images, style sheets and what they import, scripts, frames) with the same
//! reference extractor and resolver as the crawl, and fetches that — over HTTP/1.0 with parallel
//! connections, HTTP/1.1 one request at a time, or HTTP/1.1 pipelined through a small output
//! buffer. Every body is checked against the site: a replay that does not reproduce the site
//! byte for byte is an error, not a result.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::{Condvar, Mutex};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use socket2::{Domain, Protocol, Socket, Type};
use url::Url;

use super::http::{self, Parsed, ResponseHead};
use super::meter::{Counters, Meter};
use super::served::ServedSite;
use crate::deflate;
use crate::site::resolve::{Resolver, Target};
use crate::site::{charset, FileKind};

/// How the client talks to the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// HTTP/1.0: a new connection per request, several in parallel.
    Http10,
    /// HTTP/1.1: one connection, one request at a time.
    Persistent,
    /// HTTP/1.1: one connection, requests written back to back.
    Pipelined,
    /// Pipelined, accepting `Content-Encoding: deflate`.
    PipelinedDeflate,
}

impl Mode {
    pub const ALL: [Mode; 4] = [
        Mode::Http10,
        Mode::Persistent,
        Mode::Pipelined,
        Mode::PipelinedDeflate,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Http10 => "http10",
            Mode::Persistent => "persistent",
            Mode::Pipelined => "pipelined",
            Mode::PipelinedDeflate => "pipelined-deflate",
        }
    }
}

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

/// How the client behaves.
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
    /// Leave Nagle's algorithm on. Default: `false`.
    pub nagle: bool,
    /// Delayed ACKs from the first segment on (`TCP_QUICKACK` off). Default: `true`.
    pub delayed_acks: bool,
    /// `TCP_MAXSEG` for each connection before it connects. Default: none.
    pub tcp_maxseg: Option<u32>,
    /// The segment size the physical minimum is computed with. Default: 1460.
    pub mss: u64,
    /// How long a read may wait. Default: 10 s.
    pub timeout: Duration,
    /// Times in a row a connection may close with requests outstanding before the visit fails
    /// (pipelining stops after 3, as in libwww). Default: 20.
    pub max_failures: usize,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            connections: 4,
            buffer: 1460,
            max_outstanding: 50,
            nagle: false,
            delayed_acks: true,
            tcp_maxseg: None,
            mss: 1460,
            timeout: Duration::from_secs(10),
            max_failures: 20,
        }
    }
}

/// What the first visit left in the cache: validators and bodies, by request target.
#[derive(Debug, Clone, Default)]
pub struct Cache {
    entries: BTreeMap<String, Entry>,
    /// What the first visit fetched, in order: a validation asks for all of it at once.
    order: Vec<Fetch>,
}

#[derive(Debug, Clone)]
struct Entry {
    etag: Option<String>,
    last_modified: Option<String>,
    body: Vec<u8>,
}

impl Cache {
    pub fn len(&self) -> usize {
        self.entries.len()
    }
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// One resource to fetch: the request target as a browser writes it and the site file the
/// server should answer with.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Fetch {
    target: String,
    path: String,
}

/// The robot, bound to one server.
pub struct Client<'a> {
    addr: SocketAddr,
    site: &'a ServedSite,
    resolver: &'a Resolver<'a>,
    opts: &'a ClientOptions,
}

/// Why a visit failed.
pub type VisitError = String;

impl<'a> Client<'a> {
    pub fn new(
        addr: SocketAddr,
        site: &'a ServedSite,
        resolver: &'a Resolver<'a>,
        opts: &'a ClientOptions,
    ) -> Self {
        Client {
            addr,
            site,
            resolver,
            opts,
        }
    }

    /// Shows one page: fetches it and everything it needs. `Test::Validate` uses (and the first
    /// visit fills) `cache`.
    pub fn visit(
        &self,
        page: &str,
        mode: Mode,
        test: Test,
        cache: &mut Cache,
    ) -> Result<Counters, VisitError> {
        let start = Fetch {
            target: format!(
                "/{}",
                self.resolver.page_url(page).path().trim_start_matches('/')
            ),
            path: page.to_string(),
        };
        if test == Test::Validate && cache.entries.is_empty() {
            return Err("a validation needs the first visit's cache".into());
        }
        // A validation knows what the page needs from the cache: it asks for everything at
        // once (what the page says, if it changed, is still discovered from its response).
        let initial = match test {
            Test::First => vec![start],
            Test::Validate => {
                let mut all = vec![start.clone()];
                all.extend(cache.order.iter().filter(|f| **f != start).cloned());
                all
            }
        };
        match mode {
            Mode::Http10 => self.visit_http10(initial, test, cache),
            Mode::Persistent => self.visit_persistent(initial, false, false, test, cache),
            Mode::Pipelined => self.visit_persistent(initial, true, false, test, cache),
            Mode::PipelinedDeflate => self.visit_persistent(initial, true, true, test, cache),
        }
    }

    fn connect(&self) -> std::io::Result<Conn> {
        let socket = Socket::new(Domain::IPV4, Type::STREAM, Some(Protocol::TCP))?;
        if let Some(mss) = self.opts.tcp_maxseg {
            socket.set_tcp_mss(mss)?;
        }
        socket.set_tcp_nodelay(!self.opts.nagle)?;
        socket.connect(&self.addr.into())?;
        if self.opts.delayed_acks {
            socket.set_tcp_quickack(false)?;
        }
        let stream: TcpStream = socket.into();
        stream.set_read_timeout(Some(self.opts.timeout))?;
        stream.set_write_timeout(Some(self.opts.timeout))?;
        Ok(Conn {
            stream,
            input: Vec::new(),
            meter: Meter::default(),
            eof: false,
        })
    }

    fn request(
        &self,
        fetch: &Fetch,
        http11: bool,
        deflate: bool,
        cached: Option<&Entry>,
    ) -> Vec<u8> {
        let mut req = format!(
            "GET {} HTTP/1.{}\r\nHost: {}\r\nUser-Agent: webdiet-robot/0.1\r\nAccept: */*\r\n",
            fetch.target,
            u8::from(http11),
            self.addr
        );
        if deflate {
            req.push_str("Accept-Encoding: deflate\r\n");
        }
        if let Some(entry) = cached {
            if let Some(etag) = &entry.etag {
                req.push_str(&format!("If-None-Match: {etag}\r\n"));
            }
            if let Some(date) = &entry.last_modified {
                req.push_str(&format!("If-Modified-Since: {date}\r\n"));
            }
        }
        req.push_str("\r\n");
        req.into_bytes()
    }

    /// Checks a response against the site and the cache; returns the resource's bytes.
    fn accept(
        &self,
        fetch: &Fetch,
        head: &ResponseHead,
        body: Vec<u8>,
        cache: &Mutex<&mut Cache>,
    ) -> Result<Vec<u8>, VisitError> {
        let expected = self
            .site
            .resource(&fetch.path)
            .ok_or_else(|| format!("{}: not a file of the site", fetch.path))?;
        match head.status {
            200 => {
                let limit = expected.body.len() as u64;
                let decoded = match head.content_encoding.as_deref() {
                    None | Some("identity") => body,
                    Some("deflate") => deflate::inflate_zlib(&body, limit)
                        .map_err(|e| format!("{}: bad deflate body: {e}", fetch.target))?,
                    Some("gzip") => deflate::inflate_gzip(&body, limit)
                        .map_err(|e| format!("{}: bad gzip body: {e}", fetch.target))?,
                    Some(other) => return Err(format!("{}: unknown coding {other}", fetch.target)),
                };
                if decoded != expected.body {
                    return Err(format!(
                        "{}: body differs from {} ({} bytes received, {} expected)",
                        fetch.target,
                        fetch.path,
                        decoded.len(),
                        expected.body.len()
                    ));
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
                    },
                );
                Ok(decoded)
            }
            304 => {
                let cache = cache.lock().expect("no thread panics holding the cache");
                match cache.entries.get(&fetch.target) {
                    Some(entry) if entry.body == expected.body => Ok(entry.body.clone()),
                    Some(_) => Err(format!("{}: 304 for a changed file", fetch.target)),
                    None => Err(format!("{}: 304 without a cached copy", fetch.target)),
                }
            }
            status => Err(format!("{}: status {status}", fetch.target)),
        }
    }

    /// What a browser fetches next because of this resource: the references of a page, the
    /// imports and images of a style sheet. `seen` dedupes by request target, as browsers do.
    fn discover(&self, fetch: &Fetch, body: &[u8], seen: &mut BTreeSet<String>) -> Vec<Fetch> {
        let kind = self.site.site.file(&fetch.path).map(|f| f.kind);
        let (base, values): (Url, Vec<String>) = match kind {
            Some(FileKind::Html) => {
                let text = charset::decode(body).text;
                let refs = crate::html::references(&text);
                let base = self
                    .resolver
                    .base_url(&fetch.path, refs.base_href.as_deref());
                let values = refs
                    .refs
                    .into_iter()
                    .filter(|r| r.kind.is_fetched())
                    .map(|r| r.value)
                    .collect();
                (base, values)
            }
            Some(FileKind::Css) => {
                let text = String::from_utf8_lossy(body);
                let values = crate::css::references(&text)
                    .into_iter()
                    .map(|r| r.value)
                    .collect();
                (self.resolver.page_url(&fetch.path), values)
            }
            _ => return Vec::new(),
        };
        let mut found = Vec::new();
        for value in values {
            let Target::Local { path, .. } = self.resolver.resolve(&base, &value) else {
                continue;
            };
            let Ok(url) = base.join(&value) else { continue };
            let mut target = url.path().to_string();
            if let Some(query) = url.query() {
                target.push('?');
                target.push_str(query);
            }
            if seen.insert(target.clone()) {
                found.push(Fetch { target, path });
            }
        }
        found
    }

    /// HTTP/1.0: each request on its own connection, at most `connections` at a time.
    fn visit_http10(
        &self,
        initial: Vec<Fetch>,
        test: Test,
        cache: &mut Cache,
    ) -> Result<Counters, VisitError> {
        struct Work {
            queue: VecDeque<Fetch>,
            busy: usize,
            seen: BTreeSet<String>,
            total: Counters,
            error: Option<VisitError>,
        }
        let seen = initial.iter().map(|f| f.target.clone()).collect();
        let work = Mutex::new(Work {
            queue: VecDeque::from(initial),
            busy: 0,
            seen,
            total: Counters::default(),
            error: None,
        });
        let wake = Condvar::new();
        let cache = Mutex::new(cache);
        std::thread::scope(|scope| {
            for _ in 0..self.opts.connections.max(1) {
                scope.spawn(|| loop {
                    let fetch = {
                        let mut w = work.lock().expect("no worker panics");
                        loop {
                            if w.error.is_some() {
                                return;
                            }
                            if let Some(f) = w.queue.pop_front() {
                                w.busy += 1;
                                break f;
                            }
                            if w.busy == 0 {
                                return;
                            }
                            w = wake.wait(w).expect("no worker panics");
                        }
                    };
                    let outcome = self.fetch_http10(&fetch, test, &cache);
                    let mut w = work.lock().expect("no worker panics");
                    w.busy -= 1;
                    match outcome {
                        Ok((counters, None)) => w.total += counters,
                        Ok((counters, Some(body))) => {
                            w.total += counters;
                            let mut seen = std::mem::take(&mut w.seen);
                            let next = self.discover(&fetch, &body, &mut seen);
                            w.seen = seen;
                            w.queue.extend(next);
                        }
                        Err(e) => w.error = Some(e),
                    }
                    wake.notify_all();
                });
            }
        });
        let w = work.into_inner().expect("no worker panics");
        match w.error {
            Some(e) => Err(e),
            None => Ok(w.total),
        }
    }

    /// One HTTP/1.0 exchange; retried on a new connection if the server closes early.
    fn fetch_http10(
        &self,
        fetch: &Fetch,
        test: Test,
        cache: &Mutex<&mut Cache>,
    ) -> Result<(Counters, Option<Vec<u8>>), VisitError> {
        let mut total = Counters::default();
        for _ in 0..self.opts.max_failures.max(1) {
            let cached = self.cached(fetch, test, cache);
            let request = self.request(fetch, false, false, cached.as_ref());
            let mut conn = self
                .connect()
                .map_err(|e| format!("{}: connect: {e}", self.addr))?;
            let sent = conn.write(&request);
            let response = match sent {
                Ok(()) => conn.read_response(true),
                Err(e) => Err(e),
            };
            conn.meter.requests += 1;
            total += conn.finish(self.opts.mss);
            match response {
                Ok(Some((head, body))) => {
                    let body = self.accept(fetch, &head, body, cache)?;
                    // A 304's references were all queued from the cache already.
                    return Ok((total, (head.status != 304).then_some(body)));
                }
                Ok(None) => continue,
                Err(e) if is_timeout(&e) => return Err(format!("{}: {e}", fetch.target)),
                Err(_) => continue,
            }
        }
        Err(format!(
            "{}: the server kept closing the connection",
            fetch.target
        ))
    }

    fn cached(&self, fetch: &Fetch, test: Test, cache: &Mutex<&mut Cache>) -> Option<Entry> {
        if test != Test::Validate {
            return None;
        }
        let cache = cache.lock().expect("no thread panics holding the cache");
        cache.entries.get(&fetch.target).cloned()
    }

    /// HTTP/1.1 on one connection at a time: one request at a time, or pipelined. When the
    /// server closes with requests outstanding they go back to the front of the queue and are
    /// reissued on a new connection; after 3 such closes pipelining stops (libwww's rule).
    fn visit_persistent(
        &self,
        initial: Vec<Fetch>,
        pipelined: bool,
        deflate: bool,
        test: Test,
        cache: &mut Cache,
    ) -> Result<Counters, VisitError> {
        let cache = Mutex::new(cache);
        let mut seen: BTreeSet<String> = initial.iter().map(|f| f.target.clone()).collect();
        let mut queue = VecDeque::from(initial);
        let mut outstanding: VecDeque<Fetch> = VecDeque::new();
        let mut total = Counters::default();
        let mut conn: Option<Conn> = None;
        let mut failures = 0;
        let mut out = Vec::new();
        while !queue.is_empty() || !outstanding.is_empty() {
            let c = match &mut conn {
                Some(c) => c,
                None => conn.insert(
                    self.connect()
                        .map_err(|e| format!("{}: connect: {e}", self.addr))?,
                ),
            };
            let depth = if pipelined && failures < 3 {
                self.opts.max_outstanding.max(1)
            } else {
                1
            };
            while outstanding.len() < depth {
                let Some(fetch) = queue.pop_front() else {
                    break;
                };
                let cached = self.cached(&fetch, test, &cache);
                out.extend_from_slice(&self.request(&fetch, true, deflate, cached.as_ref()));
                c.meter.requests += 1;
                outstanding.push_back(fetch);
            }
            // The output buffer goes out each time it fills, the rest on an explicit flush:
            // nothing more to send before the answers come.
            let chunk = if pipelined {
                self.opts.buffer.max(1)
            } else {
                out.len().max(1)
            };
            let mut written = Ok(());
            for piece in out.chunks(chunk) {
                written = c.write(piece);
                if written.is_err() {
                    break;
                }
            }
            out.clear();
            let response = match written {
                Ok(()) => c.read_response(false),
                Err(e) => Err(e),
            };
            match response {
                Ok(Some((head, body))) => {
                    let fetch = outstanding
                        .pop_front()
                        .expect("a response answers a request");
                    let body = self.accept(&fetch, &head, body, &cache)?;
                    // A 304's references were all queued from the cache already.
                    if head.status != 304 {
                        queue.extend(self.discover(&fetch, &body, &mut seen));
                    }
                    if head.connection_close {
                        let c = conn.take().expect("connected");
                        total += c.finish(self.opts.mss);
                        // Requests sent after the one the server closed on go again.
                        while let Some(f) = outstanding.pop_back() {
                            queue.push_front(f);
                        }
                    }
                }
                Ok(None) | Err(_) => {
                    if let Err(e) = &response {
                        if is_timeout(e) {
                            return Err(format!("{}: {e}", self.addr));
                        }
                    }
                    let c = conn.take().expect("connected");
                    total += c.finish(self.opts.mss);
                    failures += 1;
                    if failures > self.opts.max_failures {
                        return Err(format!(
                            "{}: the server kept closing the connection",
                            self.addr
                        ));
                    }
                    while let Some(f) = outstanding.pop_back() {
                        queue.push_front(f);
                    }
                }
            }
        }
        if let Some(c) = conn.take() {
            total += c.finish(self.opts.mss);
        }
        Ok(total)
    }
}

fn is_timeout(e: &std::io::Error) -> bool {
    matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut)
}

/// One client connection with its read buffer and meter.
struct Conn {
    stream: TcpStream,
    input: Vec<u8>,
    meter: Meter,
    /// The server's FIN arrived.
    eof: bool,
}

impl Conn {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.stream.write_all(bytes)?;
        self.meter.bytes_up += bytes.len() as u64;
        Ok(())
    }

    fn fill(&mut self) -> std::io::Result<bool> {
        let mut chunk = [0u8; 32 << 10];
        let n = self.stream.read(&mut chunk)?;
        self.meter.bytes_down += n as u64;
        self.input.extend_from_slice(&chunk[..n]);
        if n == 0 {
            self.eof = true;
        }
        Ok(n > 0)
    }

    /// Reads the next response (incrementally: parse, and read more only on `Partial`).
    /// `None` when the server closed before a whole response arrived. With `to_eof`, keeps
    /// reading after it until the server closes (HTTP/1.0).
    fn read_response(&mut self, to_eof: bool) -> std::io::Result<Option<(ResponseHead, Vec<u8>)>> {
        let (head, start) = loop {
            match http::parse_response(&self.input) {
                Parsed::Complete(head, n) => break (head, n),
                Parsed::Invalid(reason) => {
                    return Err(std::io::Error::new(ErrorKind::InvalidData, reason))
                }
                Parsed::Partial => {
                    if !self.fill()? {
                        return Ok(None);
                    }
                }
            }
        };
        let no_body = head.status == 304 || head.status == 204 || head.status < 200;
        let length = if no_body {
            Some(0)
        } else {
            head.content_length
        };
        match length {
            Some(len) => {
                let end = start + len as usize;
                while self.input.len() < end {
                    if !self.fill()? {
                        return Ok(None);
                    }
                }
                let body = self.input[start..end].to_vec();
                self.input.drain(..end);
                if to_eof {
                    while self.fill()? {}
                }
                Ok(Some((head, body)))
            }
            None => {
                while self.fill()? {}
                let body = self.input.split_off(start);
                self.input.clear();
                Ok(Some((head, body)))
            }
        }
    }

    /// Reads the kernel's counters and closes (the client's FIN).
    fn finish(self, mss: u64) -> Counters {
        let counters = self.meter.finish(&self.stream, mss, self.eof);
        let _ = self.stream.shutdown(std::net::Shutdown::Both);
        counters
    }
}
