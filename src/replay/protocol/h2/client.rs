//! The client half of HTTP/2: the robot as a browser uses HTTP/2 — one connection, every
//! request of a page issued at once as soon as it is known, each with its RFC 9218 priority.
//! The `h2` crate runs on a single-threaded tokio runtime for the length of one visit; the rest
//! of the replay stays synchronous.
//!
//! Requests are sent in document order from one task, so the stream ids and the bytes on the
//! wire do not depend on scheduling; responses are awaited concurrently. A validation asks for
//! everything at once with the first visit's validators. Pushed responses (`h2c-push`) are
//! checked and cached like fetched ones and not asked for again; `link: rel=preload` hints
//! (`h2c-hints`) are followed as soon as the page's response head arrives, before its body.
//!
//! The connection is closed without GOAWAY, as browsers leave a connection: the socket is shut
//! down right after the kernel's counters are read, so under the paper's rule only the
//! exchange counts.

use std::collections::BTreeSet;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::Poll;
use std::time::Instant;

use bytes::Bytes;
use h2::client::{self, ResponseFuture, SendRequest};
use http::{HeaderMap, Request, StatusCode};
use tokio::sync::mpsc;

use super::io::{Hold, MeteredIo, Record};
use super::model;
use crate::replay::protocol::half::ClientHalf;
use crate::replay::robot::{Answer, Cache, Clock, Fetch, Robot, Test, Visit, VisitError};
use crate::replay::script::{BatchAfter, H2Script};
use crate::replay::transport::tls::ALPN_H2;
use crate::replay::transport::Connector;

/// The windows the client offers, so that the server is never held back by flow control in a
/// replay (Chromium offers 6 MiB per stream and 15 MiB per connection).
const STREAM_WINDOW: u32 = 8 << 20;
const CONNECTION_WINDOW: u32 = 16 << 20;

/// The HTTP/2 client half.
#[derive(Debug)]
pub struct H2Client {
    /// Send `accept-encoding` for compressed text: the coding the robot names (`deflate`,
    /// `br`); with browser headers, every coding a browser names.
    pub accept: Option<&'static str>,
    /// Accept server pushes (SETTINGS_ENABLE_PUSH 1).
    pub push: bool,
    /// Follow `link: rel=preload` on the page's response at once.
    pub hints: bool,
}

/// What a response task tells the visit.
enum Event {
    /// The page's response head arrived, with what its `link` fields ask to preload.
    PageHead {
        hinted: Vec<String>,
        head_at: Instant,
    },
    /// A response is complete.
    Done {
        index: usize,
        answer: Answer,
        body: Vec<u8>,
        /// When the response head arrived: its first byte, as the client sees it.
        head_at: Instant,
        /// When its last byte arrived.
        done_at: Instant,
    },
    /// The server promised to push `target` with the page's response: one more response to
    /// wait for, and one target the robot must not ask for itself. Sent before that response's
    /// `Done`.
    Promised {
        target: String,
    },
    /// A pushed response is complete.
    Pushed {
        parent: usize,
        target: String,
        promised_at: Instant,
        answer: Answer,
        body: Vec<u8>,
        head_at: Instant,
        done_at: Instant,
    },
    Failed(String),
}

impl ClientHalf for H2Client {
    fn alpn(&self) -> &'static [&'static [u8]] {
        &[ALPN_H2]
    }

    fn visit(
        &self,
        robot: &Robot<'_>,
        connector: &Connector<'_>,
        page: &str,
        test: Test,
        cache: &mut Cache,
    ) -> Result<Visit, VisitError> {
        let initial = robot.initial(page, test, cache)?;
        let mut conn = connector.connect().map_err(|source| VisitError::Connect {
            addr: connector.addr.to_string(),
            source,
        })?;
        let (handle, tls, early) = conn
            .async_parts()
            .and_then(|(s, tls, early)| s.set_nonblocking(true).map(|()| (s, tls, early)))
            .map_err(|source| VisitError::Io {
                at: connector.addr.to_string(),
                source,
            })?;
        if let Some(session) = &tls {
            if session.alpn() != Some(ALPN_H2) {
                return Err(VisitError::NoHttp2 {
                    addr: connector.addr.to_string(),
                });
            }
        }
        let mut held = None;
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .build()
            .map_err(|e| VisitError::Client {
                what: "tokio runtime",
                reason: e.to_string(),
            })?;
        let record = Arc::new(Mutex::new(Record::default()));
        let clock = Clock::start();
        let outcome = rt.block_on(async {
            let (io, hold) = MeteredIo::new(
                tokio::net::TcpStream::from_std(handle).map_err(|source| VisitError::Io {
                    at: connector.addr.to_string(),
                    source,
                })?,
                tls,
                early,
                record.clone(),
            );
            held = Some(hold.clone());
            let visit = self.run(robot, connector, io, hold, initial, test, cache, &clock);
            match tokio::time::timeout(connector.timeout * 6, visit).await {
                Ok(result) => result,
                Err(_) => Err({
                    connector.visit.timed_out();
                    VisitError::TooSlow {
                        addr: connector.addr.to_string(),
                        limit: connector.timeout * 6,
                    }
                }),
            }
        });
        drop(rt);
        let (session, wire) = held.map(|h| h.finish()).unwrap_or_default();
        conn.restore_tls(session);
        let (batches, issued, pushed) = outcome?;
        let record = record.lock().map_err(|_| VisitError::Client {
            what: "meter",
            reason: "poisoned".to_string(),
        })?;
        conn.meter.requests = batches.iter().sum::<usize>() as u64;
        // On top of the TLS handshake's bytes, if any.
        conn.meter.bytes_up += wire.written;
        conn.meter.bytes_down += wire.read;
        if let Some(h) = &mut conn.meter.tls {
            h.tickets += wire.other;
        }
        conn.meter.headers = record.headers();
        conn.meter.exchange = Some(model::bursts(
            &record.out_frames.frames,
            &record.in_frames.frames,
            &batches,
        ));
        conn.meter.h2 = Some(H2Script {
            tls: None,
            up: record.out_frames.frames.clone(),
            down: record.in_frames.frames.clone(),
            batches: issued,
            pushed,
        });
        drop(record);
        let counters = conn.finish();
        Ok(Visit {
            counters,
            timing: clock.timing(connector),
            timed_out: false,
            recorded: Vec::new(),
        })
    }
}

impl H2Client {
    /// The visit on an open connection; returns the number of requests in each batch the
    /// client issued, in order, the same batches with their targets and what each waited for
    /// (for the simulator), and the targets the server pushed, in the order promised.
    #[allow(clippy::too_many_arguments)]
    async fn run(
        &self,
        robot: &Robot<'_>,
        connector: &Connector<'_>,
        io: MeteredIo,
        hold: Hold,
        initial: Vec<Fetch>,
        test: Test,
        cache: &mut Cache,
        clock: &Clock,
    ) -> Result<Issued, VisitError> {
        let fail = |e: h2::Error| VisitError::Http2 {
            at: connector.addr.to_string(),
            reason: e.to_string(),
        };
        // The preface, SETTINGS and WINDOW_UPDATE go out with the first requests.
        hold.hold();
        let (send, connection) = client::Builder::new()
            .initial_window_size(STREAM_WINDOW)
            .initial_connection_window_size(CONNECTION_WINDOW)
            .enable_push(self.push)
            .handshake::<_, Bytes>(io)
            .await
            .map_err(fail)?;
        let driver = tokio::spawn(async move {
            let _ = connection.await;
        });
        let host = connector.addr.to_string();
        let page_target = initial[0].target.clone();
        let cache = Mutex::new(cache);
        let (tx, mut rx) = mpsc::unbounded_channel();
        let mut fetches: Vec<Fetch> = Vec::new();
        let mut seen: BTreeSet<String> = initial.iter().map(|f| f.target.clone()).collect();
        let mut in_flight = 0usize;
        let mut batches = Vec::new();
        let mut issued_batches: Vec<(Vec<String>, BatchAfter)> = Vec::new();
        let mut pushed_targets: Vec<String> = Vec::new();
        let mut after = BatchAfter::Ready;
        let issue = |batch: Vec<Fetch>,
                     fetches: &mut Vec<Fetch>,
                     send: SendRequest<Bytes>|
         -> Result<(SendRequest<Bytes>, usize), VisitError> {
            let mut send = send;
            let mut issued = 0;
            for fetch in batch {
                let cached = robot.cached(&fetch, test, &cache);
                let mut request = Request::builder()
                    .uri(format!("http://{host}{}", fetch.target))
                    .body(())
                    .map_err(|e| VisitError::BadRequest {
                        target: fetch.target.clone(),
                        reason: e.to_string(),
                    })?;
                let headers = request.headers_mut();
                for (name, value) in robot.request_headers(&fetch, &host, self.accept, true) {
                    let bad = |what: &str| VisitError::BadRequest {
                        target: fetch.target.clone(),
                        reason: format!("bad {what} value"),
                    };
                    headers.append(name, value.parse().map_err(|_| bad(name))?);
                }
                if let Some(entry) = &cached {
                    if let Some(etag) = &entry.etag {
                        let bad = VisitError::BadRequest {
                            target: fetch.target.clone(),
                            reason: "bad etag".to_string(),
                        };
                        headers.insert("if-none-match", etag.parse().map_err(|_| bad)?);
                    }
                    if let Some(date) = &entry.last_modified {
                        let bad = VisitError::BadRequest {
                            target: fetch.target.clone(),
                            reason: "bad date".to_string(),
                        };
                        headers.insert("if-modified-since", date.parse().map_err(|_| bad)?);
                    }
                }
                let (mut response, _) =
                    send.send_request(request, true)
                        .map_err(|e| VisitError::Http2 {
                            at: fetch.target.clone(),
                            reason: e.to_string(),
                        })?;
                let index = fetches.len();
                let is_page = fetch.target == page_target;
                fetches.push(fetch);
                let pushes = (self.push && is_page).then(|| response.push_promises());
                tokio::spawn(receive(index, is_page, response, pushes, tx.clone()));
                issued += 1;
            }
            Ok((send, issued))
        };
        let mut send = send;
        let mut pending = initial;
        loop {
            // Each batch goes out in one write: held (from the start for the first, with the
            // preface), issued, encoded by the connection task, released.
            if !pending.is_empty() {
                send = send.ready().await.map_err(fail)?;
                hold.hold();
                let from = fetches.len();
                let (s, n) = issue(std::mem::take(&mut pending), &mut fetches, send)?;
                send = s;
                in_flight += n;
                batches.push(n);
                release(&hold).await.map_err(|source| VisitError::Io {
                    at: connector.addr.to_string(),
                    source,
                })?;
                let at = Instant::now();
                for fetch in &fetches[from..] {
                    clock.sent(&fetch.target, at);
                }
                let targets = fetches[from..].iter().map(|f| f.target.clone()).collect();
                issued_batches.push((targets, after.clone()));
            }
            if in_flight == 0 {
                break;
            }
            let Some(event) = rx.recv().await else {
                return Err(VisitError::Client {
                    what: "HTTP/2 client",
                    reason: "the response tasks ended early".to_string(),
                });
            };
            pending = match event {
                Event::Failed(reason) => {
                    return Err(VisitError::Http2 {
                        at: connector.addr.to_string(),
                        reason,
                    })
                }
                Event::PageHead { hinted, head_at } => {
                    clock.page_byte_at(head_at);
                    after = BatchAfter::Head(page_target.clone());
                    let page = fetches
                        .iter()
                        .find(|f| f.target == page_target)
                        .cloned()
                        .expect("the page was fetched first");
                    hinted
                        .into_iter()
                        .filter_map(|target| {
                            let found = robot.discover_target(&page, &target)?;
                            seen.insert(found.target.clone()).then_some(found)
                        })
                        .collect()
                }
                Event::Done {
                    index,
                    answer,
                    body,
                    head_at,
                    done_at,
                } => {
                    in_flight -= 1;
                    let fetch = fetches[index].clone();
                    after = BatchAfter::Response(fetch.target.clone());
                    clock.response_byte(&fetch.target, head_at);
                    clock.response_done_at(&fetch.target, done_at);
                    let body = robot.accept(&fetch, &answer, body, &cache)?;
                    if answer.status == 304 {
                        Vec::new()
                    } else {
                        robot.discover(&fetch, &body, &mut seen)
                    }
                }
                Event::Promised { target } => {
                    in_flight += 1;
                    pushed_targets.push(target.clone());
                    seen.insert(target);
                    Vec::new()
                }
                Event::Pushed {
                    parent,
                    target,
                    promised_at,
                    answer,
                    body,
                    head_at,
                    done_at,
                } => {
                    in_flight -= 1;
                    let Some(pushed) = robot.discover_target(&fetches[parent], &target) else {
                        return Err(VisitError::PushedNotInSite { target });
                    };
                    seen.insert(pushed.target.clone());
                    after = BatchAfter::Response(pushed.target.clone());
                    // Pushed: never requested; it was on its way from its promise.
                    clock.sent(&pushed.target, promised_at);
                    clock.response_byte(&pushed.target, head_at);
                    clock.response_done_at(&pushed.target, done_at);
                    let body = robot.accept(&pushed, &answer, body, &cache)?;
                    robot.discover(&pushed, &body, &mut seen)
                }
            };
        }
        drop(send);
        // No GOAWAY: the socket is shut down after the counters are read.
        driver.abort();
        let _ = driver.await;
        Ok((batches, issued_batches, pushed_targets))
    }
}

/// What [`H2Client::run`] returns: the requests per batch, the batches as the simulator
/// takes them, and the pushed targets.
type Issued = (Vec<usize>, Vec<(Vec<String>, BatchAfter)>, Vec<String>);

/// Lets the connection task encode the requests just issued, then sends them in one write.
async fn release(hold: &Hold) -> std::io::Result<()> {
    tokio::task::yield_now().await;
    hold.release().await
}

/// Awaits one response, and reports it to the visit; for a page with push, the promises that
/// come with it are followed as they arrive (each response on a task of its own, so that it is
/// timed as it arrives) and reported before the page's `Done`.
async fn receive(
    index: usize,
    is_page: bool,
    response: ResponseFuture,
    pushes: Option<h2::client::PushPromises>,
    tx: mpsc::UnboundedSender<Event>,
) {
    let outcome = async {
        let (page_done, followed) = match pushes {
            Some(pushes) => {
                let (done, page_done) = tokio::sync::oneshot::channel::<()>();
                let task = tokio::spawn(follow_pushes(index, pushes, page_done, tx.clone()));
                (Some(done), Some(task))
            }
            None => (None, None),
        };
        let response = response.await.map_err(|e| e.to_string())?;
        let head_at = Instant::now();
        if is_page {
            let hinted = preloads(response.headers());
            let _ = tx.send(Event::PageHead { hinted, head_at });
        }
        let (parts, body) = response.into_parts();
        let body = read_body(body).await?;
        let done_at = Instant::now();
        if let (Some(done), Some(task)) = (page_done, followed) {
            let _ = done.send(());
            task.await.map_err(|e| e.to_string())??;
        }
        Ok::<_, String>(Event::Done {
            index,
            answer: answer(parts.status, &parts.headers),
            body,
            head_at,
            done_at,
        })
    }
    .await;
    let _ = tx.send(outcome.unwrap_or_else(Event::Failed));
}

/// Follows the promises on the page's stream until it has ended (`page_done`): a server may
/// promise only on an open stream, and `h2` does not wake a waiting reader when the stream
/// closes, so the page's own task says when.
async fn follow_pushes(
    parent: usize,
    mut pushes: h2::client::PushPromises,
    page_done: tokio::sync::oneshot::Receiver<()>,
    tx: mpsc::UnboundedSender<Event>,
) -> Result<(), String> {
    let mut page_done = Some(page_done);
    loop {
        let next = {
            let mut promise = std::pin::pin!(pushes.push_promise());
            std::future::poll_fn(|cx| {
                if let Poll::Ready(p) = promise.as_mut().poll(cx) {
                    return Poll::Ready(Some(p));
                }
                let ended = page_done
                    .as_mut()
                    .is_some_and(|done| Pin::new(done).poll(cx).is_ready());
                if ended {
                    page_done = None;
                    // Look again: the stream is closed now, so the list ends.
                    return Poll::Ready(None);
                }
                Poll::Pending
            })
            .await
        };
        let promise = match next {
            Some(Some(promise)) => promise.map_err(|e| e.to_string())?,
            Some(None) => return Ok(()),
            None => continue,
        };
        let promised_at = Instant::now();
        let (request, response) = promise.into_parts();
        let target = request
            .uri()
            .path_and_query()
            .map_or("/", |p| p.as_str())
            .to_string();
        let _ = tx.send(Event::Promised {
            target: target.clone(),
        });
        tokio::spawn(receive_pushed(
            parent,
            target,
            promised_at,
            response,
            tx.clone(),
        ));
    }
}

/// Awaits one pushed response, and reports it to the visit.
async fn receive_pushed(
    parent: usize,
    target: String,
    promised_at: Instant,
    response: h2::client::PushedResponseFuture,
    tx: mpsc::UnboundedSender<Event>,
) {
    let outcome = async {
        let response = response.await.map_err(|e| e.to_string())?;
        let head_at = Instant::now();
        let (parts, body) = response.into_parts();
        let body = read_body(body).await?;
        Ok::<_, String>(Event::Pushed {
            parent,
            target,
            promised_at,
            answer: answer(parts.status, &parts.headers),
            body,
            head_at,
            done_at: Instant::now(),
        })
    }
    .await;
    let _ = tx.send(outcome.unwrap_or_else(Event::Failed));
}

/// Reads a body to its end, giving the window back as it goes.
async fn read_body(mut body: h2::RecvStream) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    while let Some(chunk) = body.data().await {
        let chunk = chunk.map_err(|e| e.to_string())?;
        let _ = body.flow_control().release_capacity(chunk.len());
        out.extend_from_slice(&chunk);
    }
    Ok(out)
}

/// What the robot checks of a response head.
fn answer(status: StatusCode, headers: &HeaderMap) -> Answer {
    let value = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    Answer {
        status: status.as_u16(),
        content_encoding: value("content-encoding").map(|c| c.to_ascii_lowercase()),
        etag: value("etag"),
        last_modified: value("last-modified"),
    }
}

/// The targets of `link: <…>; rel=preload` fields.
fn preloads(headers: &HeaderMap) -> Vec<String> {
    headers
        .get_all("link")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter(|link| link.contains("rel=preload"))
        .filter_map(|link| {
            let start = link.find('<')? + 1;
            let end = link[start..].find('>')? + start;
            Some(link[start..end].to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preload_links_are_read_from_every_link_field() {
        let mut h = HeaderMap::new();
        h.append("link", "</a.png>; rel=preload; as=image".parse().unwrap());
        h.append(
            "link",
            "</s.css>; rel=preload; as=style, </next.html>; rel=next"
                .parse()
                .unwrap(),
        );
        assert_eq!(preloads(&h), vec!["/a.png", "/s.css"]);
    }
}
