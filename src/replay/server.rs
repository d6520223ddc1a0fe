//! The embedded HTTP/1.0 + 1.1 server: a static file server on loopback that buffers its output
//! the way the 1997 study describes — one response buffer per connection, flushed when full, when
//! no further pipelined request is already waiting to be read, or before going idle — so that a
//! pipelined validation's 304s leave in a handful of segments instead of one each.
//!
//! One thread per connection (bounded), blocking sockets with read/write timeouts: a slow or
//! hostile client holds only its own thread, never the others.

use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread::Scope;
use std::time::{Duration, Instant, SystemTime};

use socket2::{Domain, Protocol, Socket, Type};

use super::http::{self, Parsed, Request};
use super::served::{Resource, ServedSite};
use crate::site::resolve::{Resolver, Target};

/// How the server behaves.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ServerOptions {
    /// Port on 127.0.0.1. Default: 0 (an ephemeral port).
    pub port: u16,
    /// Leave Nagle's algorithm on. Default: `false` (TCP_NODELAY, as in the study).
    pub nagle: bool,
    /// Delayed ACKs from the first segment on (`TCP_QUICKACK` off), as 1997 stacks did; Linux
    /// otherwise starts each connection ACKing every segment at once. Default: `true`.
    pub delayed_acks: bool,
    /// `TCP_MAXSEG` for the listening socket, inherited by accepted connections. Default: none.
    pub tcp_maxseg: Option<u32>,
    /// The per-connection response buffer: flushed once it holds this many bytes. Requests are
    /// answered as they are parsed, so the pipeline depth the server holds is bounded by one
    /// 16 KiB read plus this buffer. Default: 64 KiB.
    pub buffer: usize,
    /// How long the rest of a partly received pipelined request may keep the response buffer
    /// waiting. Default: 50 ms (libwww's flush timer).
    pub partial_wait: Duration,
    /// Longest request head accepted. Default: 8 KiB.
    pub max_request_head: usize,
    /// How long a connection may stay silent. Default: 10 s.
    pub idle_timeout: Duration,
    /// How long a request head may take to arrive once it has started (slow-loris bound).
    /// Default: 10 s.
    pub request_timeout: Duration,
    /// How long one write may block on a client that does not read. Default: 10 s.
    pub write_timeout: Duration,
    /// Connections served at once; more are answered 503 and closed. Default: 128.
    pub max_connections: usize,
    /// Test hook: close each connection after this many responses, with requests outstanding
    /// (what libwww had to survive). Default: none.
    pub close_after: Option<usize>,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            port: 0,
            nagle: false,
            delayed_acks: true,
            tcp_maxseg: None,
            buffer: 64 << 10,
            partial_wait: Duration::from_millis(50),
            max_request_head: 8 << 10,
            idle_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(10),
            write_timeout: Duration::from_secs(10),
            max_connections: 128,
            close_after: None,
        }
    }
}

/// The state a server shares with its threads; owned by the caller, outside the thread scope.
#[derive(Debug, Default)]
pub struct Control {
    stop: AtomicBool,
    active: AtomicUsize,
}

/// A running server; [`Server::stop`] ends its accept loop.
pub struct Server<'env> {
    pub addr: SocketAddr,
    control: &'env Control,
}

impl Server<'_> {
    /// Binds 127.0.0.1 and serves `site` on threads of `scope` until [`Server::stop`].
    pub fn start<'scope, 'env>(
        scope: &'scope Scope<'scope, 'env>,
        site: &'env ServedSite,
        resolver: &'env Resolver<'env>,
        opts: &'env ServerOptions,
        control: &'env Control,
    ) -> std::io::Result<Server<'env>> {
        let listener = listen(opts)?;
        let addr = listener.local_addr()?;
        let (stop, active) = (&control.stop, &control.active);
        scope.spawn(move || {
            for stream in listener.incoming() {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                if active.fetch_add(1, Ordering::SeqCst) >= opts.max_connections {
                    active.fetch_sub(1, Ordering::SeqCst);
                    let _ = (&stream).write_all(
                        b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                    );
                    continue;
                }
                scope.spawn(move || {
                    let _ = Connection::new(stream, site, resolver, opts).run();
                    active.fetch_sub(1, Ordering::SeqCst);
                });
            }
        });
        Ok(Server { addr, control })
    }

    /// Stops accepting: sets the flag and wakes the accept loop with one connection.
    pub fn stop(&self) {
        self.control.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr);
    }
}

fn listen(opts: &ServerOptions) -> std::io::Result<TcpListener> {
    let socket = Socket::new(Domain::IPV4, Type::STREAM, Some(Protocol::TCP))?;
    socket.set_reuse_address(true)?;
    if let Some(mss) = opts.tcp_maxseg {
        socket.set_tcp_mss(mss)?;
    }
    let addr: SocketAddr = ([127, 0, 0, 1], opts.port).into();
    socket.bind(&addr.into())?;
    socket.listen(128)?;
    Ok(socket.into())
}

struct Connection<'a> {
    stream: TcpStream,
    site: &'a ServedSite,
    resolver: &'a Resolver<'a>,
    opts: &'a ServerOptions,
    input: Vec<u8>,
    output: Vec<u8>,
    served: usize,
}

/// What to do after a response.
#[derive(PartialEq, Eq)]
enum After {
    KeepOpen,
    Close,
}

impl<'a> Connection<'a> {
    fn new(
        stream: TcpStream,
        site: &'a ServedSite,
        resolver: &'a Resolver<'a>,
        opts: &'a ServerOptions,
    ) -> Self {
        Connection {
            stream,
            site,
            resolver,
            opts,
            input: Vec::new(),
            output: Vec::new(),
            served: 0,
        }
    }

    fn run(mut self) -> std::io::Result<()> {
        self.stream.set_nodelay(!self.opts.nagle)?;
        if self.opts.delayed_acks {
            socket2::SockRef::from(&self.stream).set_tcp_quickack(false)?;
        }
        self.stream.set_read_timeout(Some(self.opts.idle_timeout))?;
        self.stream
            .set_write_timeout(Some(self.opts.write_timeout))?;
        // When the request head now being read began to arrive.
        let mut partial_since: Option<Instant> = None;
        loop {
            match http::parse_request(&self.input) {
                Parsed::Complete(req, n) => {
                    self.input.drain(..n);
                    partial_since = None;
                    let after = self.respond(&req);
                    self.served += 1;
                    let hook = self.opts.close_after.is_some_and(|k| self.served >= k);
                    if after == After::Close || hook {
                        return self.close();
                    }
                    if self.output.len() >= self.opts.buffer {
                        self.flush()?;
                    }
                }
                Parsed::Invalid(reason) => {
                    self.simple(400, "Bad Request", &reason);
                    return self.close();
                }
                Parsed::Partial => {
                    if self.input.is_empty() {
                        partial_since = None;
                    } else if partial_since.get_or_insert_with(Instant::now).elapsed()
                        > self.opts.request_timeout
                    {
                        self.simple(408, "Request Timeout", "request head too slow");
                        return self.close();
                    }
                    if self.input.len() > self.opts.max_request_head {
                        self.simple(
                            431,
                            "Request Header Fields Too Large",
                            "request head too long",
                        );
                        return self.close();
                    }
                    // Flush only when no further request is already waiting to be read. Part of
                    // one (a client buffer that split a request) counts as waiting, for at most
                    // `partial_wait`: the rest is on its way.
                    if !self.output.is_empty() {
                        if self.read_waiting()? {
                            continue;
                        }
                        if self.input.is_empty() || !self.read_within(self.opts.partial_wait)? {
                            self.flush()?;
                        }
                        continue;
                    }
                    if !self.read_blocking()? {
                        // The client closed its side (or went silent): send what is left.
                        self.flush()?;
                        return self.close();
                    }
                }
            }
        }
    }

    /// Reads whatever is already waiting, without blocking. True when something was read.
    fn read_waiting(&mut self) -> std::io::Result<bool> {
        self.stream.set_nonblocking(true)?;
        let mut chunk = [0u8; 16 << 10];
        let got = match self.stream.read(&mut chunk) {
            Ok(0) => false,
            Ok(n) => {
                self.input.extend_from_slice(&chunk[..n]);
                true
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => false,
            Err(e) => {
                self.stream.set_nonblocking(false)?;
                return Err(e);
            }
        };
        self.stream.set_nonblocking(false)?;
        Ok(got)
    }

    /// Waits up to `wait` for more input; true when something was read.
    fn read_within(&mut self, wait: Duration) -> std::io::Result<bool> {
        self.stream
            .set_read_timeout(Some(wait.max(Duration::from_millis(1))))?;
        let got = self.read_blocking();
        self.stream.set_read_timeout(Some(self.opts.idle_timeout))?;
        got
    }

    /// Blocks for more input; false on end of stream or idle timeout.
    fn read_blocking(&mut self) -> std::io::Result<bool> {
        let mut chunk = [0u8; 16 << 10];
        match self.stream.read(&mut chunk) {
            Ok(0) => Ok(false),
            Ok(n) => {
                self.input.extend_from_slice(&chunk[..n]);
                Ok(true)
            }
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => Ok(false),
            Err(e) => Err(e),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if !self.output.is_empty() {
            self.stream.write_all(&self.output)?;
            self.output.clear();
        }
        Ok(())
    }

    fn close(mut self) -> std::io::Result<()> {
        self.flush()?;
        let _ = self.stream.shutdown(Shutdown::Write);
        // Drain until the client closes too, so that unread requests do not turn our FIN
        // into a reset that could destroy responses the client has not read yet.
        let deadline = Instant::now() + Duration::from_secs(2);
        self.stream.set_read_timeout(Some(Duration::from_secs(2)))?;
        let mut sink = [0u8; 4096];
        while Instant::now() < deadline && matches!(self.stream.read(&mut sink), Ok(n) if n > 0) {}
        Ok(())
    }

    fn respond(&mut self, req: &Request) -> After {
        let keep_open = if req.minor == 0 {
            req.keep_alive && !req.connection_close
        } else {
            !req.connection_close
        };
        let head_only = req.method == "HEAD";
        if req.method != "GET" && !head_only {
            self.simple(501, "Not Implemented", "only GET and HEAD");
            return After::Close;
        }
        let resolved = match self.resolver.resolve(&origin(), &req.target) {
            Target::Local { path, .. } if req.target.starts_with('/') => {
                self.site.resource(&path).map(|r| (path, r))
            }
            _ => None,
        };
        let Some((_, res)) = resolved else {
            self.simple(404, "Not Found", "no such file");
            return if keep_open {
                After::KeepOpen
            } else {
                After::Close
            };
        };
        let connection = match (req.minor, keep_open) {
            (0, true) => "Connection: keep-alive\r\n",
            (1, false) | (0, false) => "Connection: close\r\n",
            _ => "",
        };
        let (body, coding, etag) = pick_variant(res, req);
        let date = http::http_date(SystemTime::now());
        let version = if req.minor == 0 {
            "HTTP/1.0"
        } else {
            "HTTP/1.1"
        };
        if not_modified(res, &etag, req) {
            let head = format!(
                "{version} 304 Not Modified\r\nDate: {date}\r\nETag: {etag}\r\n{connection}\r\n"
            );
            self.output.extend_from_slice(head.as_bytes());
        } else {
            let mut head = format!(
                "{version} 200 OK\r\nDate: {date}\r\nServer: webdiet\r\nLast-Modified: {}\r\n\
                 ETag: {etag}\r\nContent-Type: {}\r\nContent-Length: {}\r\n{connection}",
                res.last_modified,
                res.content_type,
                body.len()
            );
            if let Some(coding) = coding {
                head.push_str(&format!(
                    "Content-Encoding: {coding}\r\nVary: Accept-Encoding\r\n"
                ));
            } else if res.deflated.is_some() {
                head.push_str("Vary: Accept-Encoding\r\n");
            }
            head.push_str("\r\n");
            self.output.extend_from_slice(head.as_bytes());
            if !head_only {
                self.output.extend_from_slice(body);
            }
        }
        if keep_open {
            After::KeepOpen
        } else {
            After::Close
        }
    }

    /// A short error response; the connection closes after it.
    fn simple(&mut self, status: u16, reason: &str, message: &str) {
        let body = format!("{status} {reason}: {message}\n");
        let head = format!(
            "HTTP/1.1 {status} {reason}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        self.output.extend_from_slice(head.as_bytes());
        self.output.extend_from_slice(body.as_bytes());
    }
}

/// The origin request targets are resolved against (the Resolver's own site origin).
fn origin() -> url::Url {
    url::Url::parse("http://webdiet.invalid/").expect("constant URL parses")
}

/// The body to send, its `Content-Encoding` and its entity tag (one per variant).
fn pick_variant<'r>(res: &'r Resource, req: &Request) -> (&'r [u8], Option<&'static str>, String) {
    let tagged = |suffix: &str| format!("{}-{suffix}\"", res.etag.trim_end_matches('"'));
    if req.accept_deflate {
        if let Some(body) = &res.deflated {
            return (body, Some("deflate"), tagged("deflate"));
        }
    }
    if req.accept_gzip {
        if let Some(body) = &res.gzipped {
            return (body, Some("gzip"), tagged("gzip"));
        }
    }
    (&res.body, None, res.etag.clone())
}

/// RFC 9110 §13.1: If-None-Match wins; If-Modified-Since only without it.
fn not_modified(res: &Resource, etag: &str, req: &Request) -> bool {
    match (&req.if_none_match, &req.if_modified_since) {
        (Some(tags), _) => tags
            .split(',')
            .map(|t| t.trim().trim_start_matches("W/"))
            .any(|t| t == "*" || t == etag),
        (None, Some(since)) => *since == res.last_modified,
        (None, None) => false,
    }
}
