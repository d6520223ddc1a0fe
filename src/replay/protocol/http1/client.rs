//! The client half of HTTP/1.x, the 1997 libwww robot's three styles: HTTP/1.0 with parallel
//! connections, HTTP/1.1 one request at a time, and HTTP/1.1 pipelined through a small output
//! buffer. What to fetch and how to check it is the [`Robot`]'s; this file only frames requests
//! and responses and decides which connection carries them.

use std::collections::{BTreeSet, VecDeque};
use std::io::ErrorKind;
use std::sync::{Condvar, Mutex};
use std::time::Instant;

use crate::replay::http::{self as message, Parsed, ResponseHead};
use crate::replay::meter::Counters;
use crate::replay::protocol::half::ClientHalf;
use crate::replay::robot::{Answer, Cache, Clock, Entry, Fetch, Robot, Test, Visit, VisitError};
use crate::replay::script::Opened;
use crate::replay::transport::{Conn, Connector};

pub use crate::replay::robot::ClientOptions;

/// How requests are spread over connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// HTTP/1.0: a new connection per request, [`ClientOptions::connections`] in parallel.
    Parallel,
    /// HTTP/1.1: one connection, one request at a time.
    Persistent,
    /// HTTP/1.1: one connection, requests written back to back.
    Pipelined,
}

/// The HTTP/1 client half in one style.
#[derive(Debug)]
pub struct Http1Client {
    pub style: Style,
    /// Send `Accept-Encoding: deflate`.
    pub deflate: bool,
}

impl ClientHalf for Http1Client {
    fn visit(
        &self,
        robot: &Robot<'_>,
        connector: &Connector<'_>,
        page: &str,
        test: Test,
        cache: &mut Cache,
    ) -> Result<Visit, VisitError> {
        let initial = robot.initial(page, test, cache)?;
        let clock = Clock::start();
        let page = initial[0].target.clone();
        let run = Run {
            robot,
            connector,
            test,
            clock: &clock,
            page: &page,
        };
        let counters = match self.style {
            Style::Parallel => run.parallel(initial, cache),
            Style::Persistent => run.persistent(initial, false, self.deflate, cache),
            Style::Pipelined => run.persistent(initial, true, self.deflate, cache),
        }?;
        Ok(Visit {
            counters,
            timing: clock.timing(connector),
            timed_out: false,
            recorded: Vec::new(),
        })
    }
}

/// One visit in progress.
struct Run<'r, 'a> {
    robot: &'r Robot<'a>,
    connector: &'r Connector<'a>,
    test: Test,
    clock: &'r Clock,
    /// The page's request target: its first response byte is the visit's first byte.
    page: &'r str,
}

impl Run<'_, '_> {
    fn request(
        &self,
        fetch: &Fetch,
        http11: bool,
        deflate: bool,
        cached: Option<&Entry>,
    ) -> Vec<u8> {
        let host = self.connector.addr.to_string();
        let mut req = format!(
            "GET {} HTTP/1.{}\r\nHost: {host}\r\n",
            fetch.target,
            u8::from(http11),
        );
        let coding = deflate.then_some("deflate");
        for (name, value) in self.robot.request_headers(fetch, &host, coding, false) {
            req.push_str(&title_case(name));
            req.push_str(": ");
            req.push_str(&value);
            req.push_str("\r\n");
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

    fn connect(&self) -> Result<Conn<'_>, VisitError> {
        self.connected(self.connector.connect())
    }

    /// A connection of HTTP/1.0's pool, the `seq`-th queued.
    fn connect_queued(&self, seq: u64) -> Result<Conn<'_>, VisitError> {
        self.connected(self.connector.connect_queued(seq))
    }

    fn connected<'c>(&self, conn: std::io::Result<Conn<'c>>) -> Result<Conn<'c>, VisitError> {
        conn.map_err(|source| VisitError::Connect {
            addr: self.connector.addr.to_string(),
            source,
        })
    }

    /// Reads the next response of `fetch`, timing the page's first byte.
    fn read(
        &self,
        conn: &mut Conn<'_>,
        fetch: &Fetch,
        to_eof: bool,
    ) -> std::io::Result<Option<(ResponseHead, Vec<u8>)>> {
        let page = fetch.target == self.page;
        let response = read_response(conn, to_eof, self.clock, &fetch.target, page)?;
        if response.is_some() {
            self.clock.response_done(&fetch.target);
        }
        Ok(response)
    }

    /// HTTP/1.0: each request on its own connection, at most `connections` at a time. Each
    /// queued fetch carries its place in the queue and the response that named it, which is
    /// what its connection waited for (the simulator's pool replays the same turns).
    fn parallel(&self, initial: Vec<Fetch>, cache: &mut Cache) -> Result<Counters, VisitError> {
        struct Work {
            queue: VecDeque<(u64, Opened, Fetch)>,
            queued: u64,
            busy: usize,
            seen: BTreeSet<String>,
            total: Counters,
            error: Option<VisitError>,
        }
        let seen = initial.iter().map(|f| f.target.clone()).collect();
        let queued = initial.len() as u64;
        let work = Mutex::new(Work {
            queue: (0..)
                .zip(initial)
                .map(|(i, f)| (i, Opened::Start, f))
                .collect(),
            queued,
            busy: 0,
            seen,
            total: Counters::default(),
            error: None,
        });
        let wake = Condvar::new();
        let cache = Mutex::new(cache);
        std::thread::scope(|scope| {
            for _ in 0..self.robot.opts.connections.max(1) {
                scope.spawn(|| loop {
                    let (seq, opened, fetch) = {
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
                    let outcome = self.fetch_http10(&fetch, seq, &opened, &cache);
                    let mut w = work.lock().expect("no worker panics");
                    w.busy -= 1;
                    match outcome {
                        Ok((counters, None)) => w.total += counters,
                        Ok((counters, Some(body))) => {
                            w.total += counters;
                            let mut seen = std::mem::take(&mut w.seen);
                            let next = self.robot.discover(&fetch, &body, &mut seen);
                            w.seen = seen;
                            for f in next {
                                let seq = w.queued;
                                w.queued += 1;
                                let opened = Opened::AfterResponse(fetch.target.clone());
                                w.queue.push_back((seq, opened, f));
                            }
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

    /// One HTTP/1.0 exchange, the `seq`-th queued, after `opened`; retried on a new
    /// connection if the server closes early.
    fn fetch_http10(
        &self,
        fetch: &Fetch,
        seq: u64,
        opened: &Opened,
        cache: &Mutex<&mut Cache>,
    ) -> Result<(Counters, Option<Vec<u8>>), VisitError> {
        let mut total = Counters::default();
        for _ in 0..self.robot.opts.max_failures.max(1) {
            let cached = self.robot.cached(fetch, self.test, cache);
            let request = self.request(fetch, false, false, cached.as_ref());
            let mut conn = self.connect_queued(seq)?;
            conn.meter.script.seq = seq;
            conn.meter.script.pooled = true;
            conn.meter.script.opened = opened.clone();
            conn.meter
                .script
                .request(&fetch.target, request.len() as u64);
            conn.meter.request();
            conn.meter.headers.up += request.len() as u64;
            conn.meter.headers.requests += 1;
            self.clock.sent(&fetch.target, Instant::now());
            let response = match conn.write(&request, true) {
                Ok(()) => self.read(&mut conn, fetch, true),
                Err(e) => Err(e),
            };
            total += conn.finish();
            match response {
                Ok(Some((head, body))) => {
                    let body = self.robot.accept(fetch, &answer(&head), body, cache)?;
                    // A 304's references were all queued from the cache already.
                    return Ok((total, (head.status != 304).then_some(body)));
                }
                Ok(None) => continue,
                Err(source) if is_timeout(&source) => {
                    return Err(VisitError::Io {
                        at: fetch.target.clone(),
                        source,
                    })
                }
                Err(_) => continue,
            }
        }
        Err(VisitError::KeptClosing {
            at: fetch.target.clone(),
        })
    }

    /// HTTP/1.1 on one connection at a time: one request at a time, or pipelined. When the
    /// server closes with requests outstanding they go back to the front of the queue and are
    /// reissued on a new connection; after 3 such closes pipelining stops (libwww's rule).
    fn persistent(
        &self,
        initial: Vec<Fetch>,
        pipelined: bool,
        deflate: bool,
        cache: &mut Cache,
    ) -> Result<Counters, VisitError> {
        let opts = self.robot.opts;
        let cache = Mutex::new(cache);
        let mut seen: BTreeSet<String> = initial.iter().map(|f| f.target.clone()).collect();
        let mut queue = VecDeque::from(initial);
        let mut outstanding: VecDeque<Fetch> = VecDeque::new();
        let mut total = Counters::default();
        let mut conn: Option<Conn<'_>> = None;
        let mut failures = 0;
        let mut out = Vec::new();
        // For the simulator: connections in the order opened, each after the last response.
        let (mut opened, mut last_done) = (0u64, Opened::Start);
        while !queue.is_empty() || !outstanding.is_empty() {
            let c = match &mut conn {
                Some(c) => c,
                None => {
                    let c = conn.insert(self.connect()?);
                    c.meter.script.seq = opened;
                    c.meter.script.opened = last_done.clone();
                    opened += 1;
                    c
                }
            };
            let depth = if pipelined && failures < 3 {
                opts.max_outstanding.max(1)
            } else {
                1
            };
            let mut sent_now = Vec::new();
            while outstanding.len() < depth {
                let Some(fetch) = queue.pop_front() else {
                    break;
                };
                sent_now.push(fetch.target.clone());
                let cached = self.robot.cached(&fetch, self.test, &cache);
                let request = self.request(&fetch, true, deflate, cached.as_ref());
                c.meter.headers.up += request.len() as u64;
                c.meter.headers.requests += 1;
                out.extend_from_slice(&request);
                c.meter.script.request(&fetch.target, request.len() as u64);
                c.meter.request();
                outstanding.push_back(fetch);
            }
            // The output buffer goes out each time it fills, the rest on an explicit flush:
            // nothing more to send before the answers come.
            let chunk = if pipelined {
                c.payload_fitting(opts.buffer.max(1))
            } else {
                out.len().max(1)
            };
            let at = Instant::now();
            for target in &sent_now {
                self.clock.sent(target, at);
            }
            let written = c.write_chunked(&out, chunk);
            out.clear();
            let front = outstanding.front().cloned();
            let response = match (written, &front) {
                (Ok(()), Some(fetch)) => self.read(c, fetch, false),
                (Ok(()), None) => Ok(None),
                (Err(e), _) => Err(e),
            };
            match response {
                Ok(Some((head, body))) => {
                    let fetch = outstanding
                        .pop_front()
                        .expect("a response answers a request");
                    last_done = Opened::AfterResponse(fetch.target.clone());
                    let body = self.robot.accept(&fetch, &answer(&head), body, &cache)?;
                    // A 304's references were all queued from the cache already.
                    if head.status != 304 {
                        queue.extend(self.robot.discover(&fetch, &body, &mut seen));
                    }
                    if head.connection_close {
                        let c = conn.take().expect("connected");
                        total += c.finish();
                        // Requests sent after the one the server closed on go again.
                        while let Some(f) = outstanding.pop_back() {
                            queue.push_front(f);
                        }
                    }
                }
                Ok(None) | Err(_) => {
                    if let Err(e) = response {
                        if is_timeout(&e) {
                            return Err(VisitError::Io {
                                at: self.connector.addr.to_string(),
                                source: e,
                            });
                        }
                    }
                    let c = conn.take().expect("connected");
                    total += c.finish();
                    failures += 1;
                    if failures > opts.max_failures {
                        return Err(VisitError::KeptClosing {
                            at: self.connector.addr.to_string(),
                        });
                    }
                    while let Some(f) = outstanding.pop_back() {
                        queue.push_front(f);
                    }
                }
            }
        }
        if let Some(c) = conn.take() {
            total += c.finish();
        }
        Ok(total)
    }
}

/// `accept-encoding` → `Accept-Encoding`: how HTTP/1 clients write header names.
fn title_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = true;
    for c in name.chars() {
        out.push(if upper { c.to_ascii_uppercase() } else { c });
        upper = c == '-';
    }
    out
}

fn answer(head: &ResponseHead) -> Answer {
    Answer {
        status: head.status,
        content_encoding: head.content_encoding.clone(),
        etag: head.etag.clone(),
        last_modified: head.last_modified.clone(),
    }
}

fn is_timeout(e: &std::io::Error) -> bool {
    crate::replay::transport::tcp::is_timeout(e)
}

/// Reads the next response (incrementally: parse, and read more only on `Partial`). `None`
/// when the server closed before a whole response arrived. With `to_eof`, keeps reading after
/// it until the server closes (HTTP/1.0). `first_byte` is told when the first bytes arrive.
fn read_response(
    conn: &mut Conn<'_>,
    to_eof: bool,
    clock: &Clock,
    target: &str,
    page: bool,
) -> std::io::Result<Option<(ResponseHead, Vec<u8>)>> {
    let first = |at: Instant| {
        clock.response_byte(target, at);
        if page {
            clock.page_byte();
        }
    };
    // Only the response's own bytes count: over TLS a read may bring nothing but a session
    // ticket, which is not the response's first byte.
    let fill = |conn: &mut Conn<'_>| -> std::io::Result<bool> {
        let before = conn.input.len();
        let got = conn.fill()?;
        if conn.input.len() > before {
            first(conn.read_at.unwrap_or_else(Instant::now));
        }
        Ok(got)
    };
    if !conn.input.is_empty() {
        first(conn.read_at.unwrap_or_else(Instant::now));
    }
    let (head, start) = loop {
        match message::parse_response(&conn.input) {
            Parsed::Complete(head, n) => break (head, n),
            Parsed::Invalid(reason) => {
                return Err(std::io::Error::new(ErrorKind::InvalidData, reason))
            }
            Parsed::Partial => {
                if !fill(conn)? {
                    return Ok(None);
                }
            }
        }
    };
    conn.meter.headers.down += start as u64;
    conn.meter.headers.responses += 1;
    let no_body = head.status == 304 || head.status == 204 || head.status < 200;
    let length = if no_body {
        Some(0)
    } else {
        head.content_length
    };
    let body = match length {
        Some(len) => {
            let end = body_end(start, len, target)?;
            while conn.input.len() < end {
                if !fill(conn)? {
                    return Ok(None);
                }
            }
            let body = conn.input[start..end].to_vec();
            conn.input.drain(..end);
            conn.meter.response(end as u64);
            if to_eof {
                while fill(conn)? {}
            }
            body
        }
        None => {
            while fill(conn)? {}
            let body = conn.input.split_off(start);
            conn.meter.response((start + body.len()) as u64);
            conn.input.clear();
            body
        }
    };
    Ok(Some((head, body)))
}

/// Where a body of `content_length` bytes that starts at `start` of the input ends. A length
/// no buffer could hold (a hostile or broken server) is an error naming the request, not an
/// overflow.
fn body_end(start: usize, content_length: u64, target: &str) -> std::io::Result<usize> {
    usize::try_from(content_length)
        .ok()
        .and_then(|len| start.checked_add(len))
        .ok_or_else(|| {
            std::io::Error::new(
                ErrorKind::InvalidData,
                format!(
                    "the response to {target} announces Content-Length: {content_length}, \
                     more than this machine can address"
                ),
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_ends_its_content_length_after_the_head() {
        assert_eq!(body_end(120, 3000, "/a.gif").unwrap(), 3120);
    }

    #[test]
    fn a_content_length_past_what_memory_can_address_is_an_error_naming_the_request() {
        for len in [u64::MAX, usize::MAX as u64, usize::MAX as u64 - 10] {
            let err = body_end(120, len, "/a.gif").unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidData);
            let text = err.to_string();
            assert!(
                text.contains("/a.gif") && text.contains(&len.to_string()),
                "{text}"
            );
        }
    }
}
