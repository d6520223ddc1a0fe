//! The server half of HTTP/2 (the `h2` crate, on a single-threaded tokio runtime per
//! connection, inside the replay's otherwise synchronous server thread).
//!
//! Like the HTTP/1 server it buffers: it takes every request that has arrived — and, when
//! part of a frame has arrived, waits up to `partial_wait` for the rest (a batch the client
//! wrote at once reaches a slow link's far end as several segments) — answers them all (in
//! priority order), and only then lets the connection write, so that one batch of requests
//! is answered in as few writes as the codec makes. Priorities are RFC 9218's
//! `priority` field (the scheme `h2` leaves to the application: the crate sends streams in the
//! order they are given data): urgency first, then stream id, so the page goes before style
//! sheets and style sheets before images in document order; bodies longer than one frame
//! (16 KiB) of equal urgency may interleave at frame boundaries, as `h2` schedules them.
//!
//! Push (`h2c-push`, `h2-push`): a page requested without validators (a first visit) comes
//! with a PUSH_PROMISE for every resource it needs, then the page, then those responses in the
//! order their urgency says (style sheets before images, document order within one urgency). Hints (`h2c-hints`): the
//! page's response carries `link: <…>; rel=preload` for the same resources.
//!
//! Bounds: a handshake must finish within `request_timeout`, a silent connection ends after
//! `idle_timeout`, at most 128 concurrent streams, header lists of at most 16 KiB, and `h2`'s
//! own limits on reset streams (RST_STREAM floods end in GOAWAY). A refused connection gets a
//! SETTINGS frame and a GOAWAY with `REFUSED_STREAM`.

use std::collections::BTreeSet;
use std::io::Write;
use std::net::TcpStream;
use std::time::Duration;

use bytes::Bytes;

use super::io::{HeldIo, Hold};
use h2::server::{self, SendResponse};
use http::{HeaderMap, Request, Response, StatusCode};

use crate::compression::Coding;
use crate::replay::protocol::half::ServerHalf;
use crate::replay::robot::{self, Fetch};
use crate::replay::served::Resource;
use crate::replay::serving::ServeContext;
use crate::replay::transport::tcp::Wire;
use crate::replay::transport::tls::Session;
use crate::sim::headers::Dest;

/// Concurrent streams a client may open.
pub const MAX_STREAMS: u32 = 128;
/// Largest header list accepted.
pub const MAX_HEADER_LIST: u32 = 16 << 10;

/// The HTTP/2 server half.
#[derive(Debug)]
pub struct H2Server {
    /// Push what a page needs on a first visit.
    pub push: bool,
    /// Name what a page needs in `link: rel=preload` on its response.
    pub hints: bool,
    /// Send this coding (pre-computed, see `served::Resource`) to a client that accepts it,
    /// before deflate and gzip.
    pub prefer: Option<Coding>,
}

impl ServerHalf for H2Server {
    fn serve(&self, wire: Wire, cx: &ServeContext<'_>) {
        let (stream, tls, early) = wire.into_parts();
        let Ok(rt) = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .build()
        else {
            return;
        };
        let _ = rt.block_on(self.run(stream, tls, early, cx));
    }

    fn refuse(&self, stream: TcpStream) {
        // A server preface (an empty SETTINGS frame) and GOAWAY(last stream 0, REFUSED_STREAM).
        let mut frames = vec![0, 0, 0, 0x4, 0, 0, 0, 0, 0];
        frames.extend([0, 0, 8, 0x7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x7]);
        let _ = (&stream).write_all(&frames);
    }
}

type Failure = Box<dyn std::error::Error + Send + Sync>;

impl H2Server {
    async fn run(
        &self,
        stream: TcpStream,
        tls: Option<Session>,
        early: Vec<u8>,
        cx: &ServeContext<'_>,
    ) -> Result<(), Failure> {
        stream.set_nonblocking(true)?;
        let (io, hold) = HeldIo::new(tokio::net::TcpStream::from_std(stream)?, tls, early);
        let handshake = server::Builder::new()
            .max_concurrent_streams(MAX_STREAMS)
            .max_header_list_size(MAX_HEADER_LIST)
            .max_concurrent_reset_streams(64)
            .max_pending_accept_reset_streams(64)
            .max_local_error_reset_streams(Some(256))
            .initial_window_size(1 << 20)
            .handshake::<_, Bytes>(io);
        let mut conn = tokio::time::timeout(cx.opts.request_timeout, handshake).await??;
        let served = self.serve_streams(&mut conn, &hold, cx).await;
        // However the streams ended, the connection is closed properly: the GOAWAY goes out
        // and the codec lets go of every stream it still holds (within the write timeout).
        match &served {
            Ok(()) => conn.graceful_shutdown(),
            Err(_) => conn.abrupt_shutdown(h2::Reason::INTERNAL_ERROR),
        }
        let closing = std::future::poll_fn(|task| conn.poll_closed(task));
        let _ = tokio::time::timeout(cx.opts.write_timeout, closing).await;
        served
    }

    /// Answers batches of requests until the client leaves, goes quiet for the idle timeout
    /// or breaks the protocol.
    async fn serve_streams(
        &self,
        conn: &mut server::Connection<HeldIo, Bytes>,
        hold: &Hold,
        cx: &ServeContext<'_>,
    ) -> Result<(), Failure> {
        loop {
            // Wait for a request, then take every other one that has already arrived.
            let first = match tokio::time::timeout(cx.opts.idle_timeout, conn.accept()).await {
                Ok(Some(Ok(request))) => request,
                Ok(Some(Err(e))) => return Err(e.into()),
                Ok(None) => return Ok(()),
                // Idle: the caller says goodbye with a GOAWAY.
                Err(_) => return Ok(()),
            };
            // Hold the output while the batch is answered, then send it in one write.
            hold.hold();
            let mut batch = vec![first];
            loop {
                while let Ok(Some(next)) = tokio::time::timeout(Duration::ZERO, conn.accept()).await
                {
                    batch.push(next?);
                }
                // Part of a frame is here (a batch written at once, split into segments by
                // the link): the rest is on its way and belongs to this batch, as the HTTP/1
                // server waits for a split request, for at most `partial_wait`.
                if !hold.holds_partial() {
                    break;
                }
                match tokio::time::timeout(cx.opts.partial_wait, conn.accept()).await {
                    Ok(Some(next)) => batch.push(next?),
                    _ => break,
                }
            }
            batch.sort_by_key(|(req, respond)| {
                (urgency(req.headers()), respond.stream_id().as_u32())
            });
            let mut pushes = Vec::new();
            for (req, respond) in batch {
                pushes.extend(self.answer(req, respond, cx)?);
            }
            let mut early: Vec<_> = Self::flush(conn, hold, cx).await?.into_iter().collect();
            // What is pushed goes out once the pages are written, so that `h2`, which takes
            // turns between every stream with queued data, cannot put it before them.
            if !pushes.is_empty() {
                hold.hold();
                for push in pushes {
                    push.send()?;
                }
                early.extend(Self::flush(conn, hold, cx).await?);
            }
            for (req, respond) in early {
                for push in self.answer(req, respond, cx)? {
                    push.send()?;
                }
            }
        }
    }

    /// Lets the connection encode every queued frame in one poll (the client's windows are
    /// large enough for a whole batch) and writes what was held; a request that arrived
    /// meanwhile is returned, to be answered after the release. A client that does not read is
    /// let go after the write timeout.
    async fn flush(
        conn: &mut server::Connection<HeldIo, Bytes>,
        hold: &Hold,
        cx: &ServeContext<'_>,
    ) -> Result<Option<(Request<h2::RecvStream>, SendResponse<Bytes>)>, Failure> {
        let early = match tokio::time::timeout(Duration::ZERO, conn.accept()).await {
            Ok(Some(next)) => Some(next?),
            _ => None,
        };
        tokio::time::timeout(cx.opts.write_timeout, hold.release()).await??;
        Ok(early)
    }

    /// The body to send for `res`, its coding and entity tag: the preferred coding when the
    /// client accepts it, else deflate or gzip when accepted, else the bytes as they are.
    fn variant<'r>(
        &self,
        res: &'r Resource,
        accepts: &dyn Fn(&str) -> bool,
    ) -> (&'r [u8], Option<&'static str>, String) {
        let preferred = self.prefer.filter(|c| accepts(c.token()));
        match preferred.and_then(|c| res.coded(c)) {
            Some(found) => found,
            None => res.variant(accepts("deflate"), accepts("gzip")),
        }
    }

    /// Answers one request: 404, 304 or 200 with the body, hinting on a page; pushing on a page
    /// promises what it needs and returns those responses, for the caller to send after it.
    fn answer(
        &self,
        req: Request<h2::RecvStream>,
        mut respond: SendResponse<Bytes>,
        cx: &ServeContext<'_>,
    ) -> Result<Vec<Push>, Failure> {
        let target = req
            .uri()
            .path_and_query()
            .map_or("/", |p| p.as_str())
            .to_string();
        let headers = req.headers();
        let Some((path, res)) = cx.lookup(&target) else {
            let response = Response::builder().status(StatusCode::NOT_FOUND).body(())?;
            respond.send_response(response, true)?;
            return Ok(Vec::new());
        };
        let value = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
        let accepts = |coding: &str| {
            value("accept-encoding").is_some_and(|v| {
                v.split(',')
                    .any(|c| c.split(';').next().unwrap_or("").trim() == coding)
            })
        };
        if let Some(captured) = &res.captured {
            // An archive's redirect or error, as captured.
            let mut response = Response::builder()
                .status(captured.status)
                .header("date", cx.date.as_str())
                .header("server", "webdiet")
                .header("content-length", res.body.len());
            if !res.content_type.is_empty() {
                response = response.header("content-type", res.content_type.as_ref());
            }
            if let Some(location) = &captured.location {
                response = response.header("location", location.as_str());
            }
            let empty = res.body.is_empty();
            let mut stream = respond.send_response(response.body(())?, empty)?;
            if !empty {
                stream.send_data(Bytes::copy_from_slice(&res.body), true)?;
            }
            return Ok(Vec::new());
        }
        let (body, coding, etag) = self.variant(res, &accepts);
        let first_visit = value("if-none-match").is_none() && value("if-modified-since").is_none();
        if res.not_modified(&etag, value("if-none-match"), value("if-modified-since")) {
            let response = Response::builder()
                .status(StatusCode::NOT_MODIFIED)
                .header("date", cx.date.as_str())
                .header("etag", etag)
                .body(())?;
            respond.send_response(response, true)?;
            return Ok(Vec::new());
        }
        let page = crate::archive::http::essence(&res.content_type) == "text/html";
        let needs: Vec<Fetch> = if page && (self.push || self.hints) {
            let fetch = Fetch {
                target: target.clone(),
                path: path.clone(),
                dest: Dest::Document,
                referrer: None,
            };
            let mut seen = BTreeSet::from([target.clone()]);
            robot::discover(cx.site, cx.resolver, &fetch, &res.body, &mut seen)
        } else {
            Vec::new()
        };
        let mut pushed = Vec::new();
        if self.push && first_visit {
            let authority = req.uri().authority().map(|a| a.to_string());
            for need in &needs {
                let mut uri = http::Uri::builder()
                    .scheme("http")
                    .path_and_query(need.target.as_str());
                if let Some(a) = &authority {
                    uri = uri.authority(a.as_str());
                }
                let promise = Request::builder().uri(uri.build()?).body(())?;
                // The client may refuse pushes (SETTINGS_ENABLE_PUSH 0): then it asks itself.
                if let Ok(sender) = respond.push_request(promise) {
                    pushed.push((need.clone(), sender));
                }
            }
        }
        let mut response = ok_response(cx, res, coding, &etag, body.len());
        if self.hints {
            for need in &needs {
                let kind = match need.dest {
                    Dest::Style => "style",
                    Dest::Script => "script",
                    Dest::Image => "image",
                    _ => "fetch",
                };
                response.headers_mut().append(
                    "link",
                    format!("<{}>; rel=preload; as={kind}", need.target).parse()?,
                );
            }
        }
        let mut stream = respond.send_response(response, body.is_empty())?;
        if !body.is_empty() {
            stream.send_data(Bytes::copy_from_slice(body), true)?;
        }
        // Pushed responses by the urgency a browser would have asked for them with (style
        // sheets before images), in document order within one urgency, as requests are.
        pushed.sort_by_key(|(need, _)| need.dest.urgency());
        let mut pushes = Vec::new();
        for (need, sender) in pushed {
            let Some((_, res)) = cx.lookup(&need.target) else {
                continue;
            };
            let (body, coding, etag) = self.variant(res, &accepts);
            pushes.push(Push {
                sender,
                response: ok_response(cx, res, coding, &etag, body.len()),
                body: Bytes::copy_from_slice(body),
            });
        }
        Ok(pushes)
    }
}

/// A promised response, ready to go once the page it came with is written.
struct Push {
    sender: h2::server::SendPushedResponse<Bytes>,
    response: Response<()>,
    body: Bytes,
}

impl Push {
    fn send(mut self) -> Result<(), Failure> {
        let mut stream = self
            .sender
            .send_response(self.response, self.body.is_empty())?;
        if !self.body.is_empty() {
            stream.send_data(self.body, true)?;
        }
        Ok(())
    }
}

/// A 200 response head for a resource.
fn ok_response(
    cx: &ServeContext<'_>,
    res: &Resource,
    coding: Option<&str>,
    etag: &str,
    length: usize,
) -> Response<()> {
    let mut response = Response::new(());
    let h = response.headers_mut();
    let mut put = |name: &'static str, value: &str| {
        if let Ok(value) = value.parse() {
            h.insert(name, value);
        }
    };
    put("date", &cx.date);
    put("server", "webdiet");
    put("last-modified", &res.last_modified);
    put("etag", etag);
    if cx.opts.revalidate {
        put("cache-control", "no-cache");
    }
    put("content-type", &res.content_type);
    put("content-length", &length.to_string());
    if let Some(coding) = coding {
        put("content-encoding", coding);
        put("vary", "accept-encoding");
    } else if res.deflated().is_some() || res.brotli().is_some() {
        put("vary", "accept-encoding");
    }
    response
}

/// The RFC 9218 urgency a request asks for (3, the default, without a `priority` field).
fn urgency(headers: &HeaderMap) -> u8 {
    headers
        .get("priority")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            v.split(',')
                .filter_map(|p| p.trim().strip_prefix("u="))
                .find_map(|u| u.trim().parse::<u8>().ok())
        })
        .map_or(3, |u| u.min(7))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urgency_is_read_from_the_priority_field() {
        let mut h = HeaderMap::new();
        assert_eq!(urgency(&h), 3);
        h.insert("priority", "u=0, i".parse().unwrap());
        assert_eq!(urgency(&h), 0);
        h.insert("priority", "i, u=5".parse().unwrap());
        assert_eq!(urgency(&h), 5);
        h.insert("priority", "u=99".parse().unwrap());
        assert_eq!(urgency(&h), 7);
    }
}
