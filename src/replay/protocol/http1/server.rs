//! The server half of HTTP/1.0 and 1.1: a static file server that buffers its output the way
//! the 1997 study describes — one response buffer per connection, flushed when full, when no
//! further pipelined request is already waiting to be read, or before going idle — so that a
//! pipelined validation's 304s leave in a handful of segments instead of one each. Bounded:
//! request heads by size and time, writes by time (see [`ServerOptions`]).

use std::io::Write;
use std::net::TcpStream;
use std::time::{Duration, Instant};

use crate::replay::http::{self, Parsed, Request};
use crate::replay::protocol::half::ServerHalf;
use crate::replay::served::Resource;
use crate::replay::serving::{ServeContext, ServerOptions};
use crate::replay::transport::tcp::Wire;

/// The HTTP/1 server half.
#[derive(Debug)]
pub struct Http1Server;

impl ServerHalf for Http1Server {
    fn serve(&self, wire: Wire, cx: &ServeContext<'_>) {
        let _ = Connection::new(wire, cx).run();
    }

    fn refuse(&self, stream: TcpStream) {
        let _ = (&stream).write_all(
            b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        );
    }
}

struct Connection<'a> {
    wire: Option<Wire>,
    cx: &'a ServeContext<'a>,
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
    fn new(wire: Wire, cx: &'a ServeContext<'a>) -> Self {
        Connection {
            wire: Some(wire),
            cx,
            opts: cx.opts,
            input: Vec::new(),
            output: Vec::new(),
            served: 0,
        }
    }

    fn run(mut self) -> std::io::Result<()> {
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
                        let nothing_coming = self.input.is_empty() && !self.wire().holds_partial();
                        if nothing_coming || !self.read_within(self.opts.partial_wait)? {
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

    fn wire(&mut self) -> &mut Wire {
        self.wire.as_mut().expect("open until close")
    }

    /// Reads whatever is already waiting, without blocking. True when something was read.
    fn read_waiting(&mut self) -> std::io::Result<bool> {
        let mut input = std::mem::take(&mut self.input);
        let got = self.wire().read_waiting(&mut input);
        self.input = input;
        got
    }

    /// Waits up to `wait` for more input; true when something was read.
    fn read_within(&mut self, wait: Duration) -> std::io::Result<bool> {
        let mut input = std::mem::take(&mut self.input);
        let got = self.wire().read_within(&mut input, wait);
        self.input = input;
        got
    }

    /// Blocks for more input; false on end of stream or idle timeout.
    fn read_blocking(&mut self) -> std::io::Result<bool> {
        let mut input = std::mem::take(&mut self.input);
        let got = self.wire().read_blocking(&mut input);
        self.input = input;
        got
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if !self.output.is_empty() {
            let output = std::mem::take(&mut self.output);
            self.wire().write_all(&output)?;
        }
        Ok(())
    }

    /// Sends what is left and closes, in one write.
    fn close(mut self) -> std::io::Result<()> {
        let output = std::mem::take(&mut self.output);
        match self.wire.take() {
            Some(wire) => wire.close_with(&output, Duration::from_secs(2)),
            None => Ok(()),
        }
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
        let Some((_, res)) = self.cx.lookup(&req.target) else {
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
        let date = &self.cx.date;
        let version = if req.minor == 0 {
            "HTTP/1.0"
        } else {
            "HTTP/1.1"
        };
        if let Some(captured) = &res.captured {
            // An archive's redirect or error, as captured.
            let mut head = format!(
                "{version} {} {}\r\nDate: {date}\r\nServer: webdiet\r\n",
                captured.status, captured.reason
            );
            if !res.content_type.is_empty() {
                head.push_str(&format!("Content-Type: {}\r\n", res.content_type));
            }
            if let Some(location) = &captured.location {
                head.push_str(&format!("Location: {location}\r\n"));
            }
            head.push_str(&format!(
                "Content-Length: {}\r\n{connection}\r\n",
                res.body.len()
            ));
            self.output.extend_from_slice(head.as_bytes());
            if !head_only {
                self.output.extend_from_slice(&res.body);
            }
        } else if not_modified(res, &etag, req) {
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
            if self.opts.revalidate {
                head.push_str("Cache-Control: no-cache\r\n");
            }
            if let Some(coding) = coding {
                head.push_str(&format!(
                    "Content-Encoding: {coding}\r\nVary: Accept-Encoding\r\n"
                ));
            } else if res.deflated().is_some() {
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

/// The body to send, its `Content-Encoding` and its entity tag (one per variant).
fn pick_variant<'r>(res: &'r Resource, req: &Request) -> (&'r [u8], Option<&'static str>, String) {
    res.variant(req.accept_deflate, req.accept_gzip)
}

/// RFC 9110 §13.1: If-None-Match wins; If-Modified-Since only without it.
fn not_modified(res: &Resource, etag: &str, req: &Request) -> bool {
    res.not_modified(
        etag,
        req.if_none_match.as_deref(),
        req.if_modified_since.as_deref(),
    )
}
