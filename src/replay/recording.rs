//! What a visit's client and server wrote on loopback, recorded for the simulator
//! ([`crate::sim::simulate`]): per connection, the client's writes (the pipelined client's buffer
//! flushes one by one), where each request ends in them, the responses, the TLS flights,
//! HTTP/2's frames and batches, and what each of them waited for — the response whose
//! arrival let the robot send more, or open a connection (HTTP/1.0's N parallel connections
//! take turns in a pool). [`build`] turns that into the simulator's
//! [`Exchange`](crate::sim::simulate::Exchange), with the server's own buffering rule
//! ([`Responder`]) and TLS's record overhead, so that the same writes can be replayed over any
//! link in simulated time.
//!
//! What is recorded is what the client *did*, not when: the triggers are logical ("after the
//! page's last byte"), never loopback's times, and the connections are ordered by the robot's
//! queue, so the recording does not depend on how the loopback run was scheduled.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::meter::{Flight, Framing, Handshake};
use super::protocol::mode::Mode;
use super::robot::Test;
pub use super::script::{
    BatchAfter, ConnScript, H2Script, MessageRef, Opened, RecordedRequest, RecordedVisit, Recorder,
    Script, ScriptWrite,
};
use super::script::{ACK, PREFACE_LEN, SETTINGS};
use super::transport::tls::TLS13_TICKETS;
use crate::sim::simulate::{Connection, Message, Responder, Side, Trigger};

/// One row's recording: the visits of a site, page group, mode and test, one per page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Recorded {
    pub site: String,
    pub page: String,
    pub mode: Mode,
    pub test: Test,
    pub pages: Vec<RecordedVisit>,
}

/// How the server answers, for [`build`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServerRule {
    /// The response buffer (HTTP/1: flushed when it holds this many bytes).
    pub buffer_bytes: u64,
    /// How long a partly received request may hold the buffer.
    pub wait_ns: u64,
    /// The record layer of the connection (over TLS).
    pub framing: Framing,
    /// Slots of HTTP/1.0's pool of parallel connections.
    pub connections: usize,
}

/// Builds the simulator's exchange from a visit's recorded connections.
pub fn build(scripts: Vec<Script>, rule: &ServerRule) -> RecordedVisit {
    let mut http1: Vec<ConnScript> = Vec::new();
    let mut h2: Vec<H2Script> = Vec::new();
    for s in scripts {
        match s {
            Script::Http1(c) => http1.push(c),
            Script::H2(c) => h2.push(c),
        }
    }
    http1.sort_by_key(|c| c.seq);
    let mut b = Builder {
        out: RecordedVisit::default(),
        responses: BTreeMap::new(),
        pending_opens: Vec::new(),
        sessions: Vec::new(),
    };
    if http1.iter().any(|c| c.pooled) {
        b.out.exchange.pools.push(rule.connections.max(1));
    }
    for c in &http1 {
        b.http1(c, rule);
    }
    for c in &h2 {
        b.h2(c, rule);
    }
    // Opens that wait for a response: resolved now that every response has its message.
    for (conn, target) in std::mem::take(&mut b.pending_opens) {
        b.out.exchange.connections[conn].open = b.after(&target).unwrap_or(Trigger::Start);
    }
    b.out
}

/// Where a resumed connection's session came from: when it is there, and how many more
/// connections it can resume.
struct SessionSource {
    ready: Trigger,
    left: usize,
}

struct Builder {
    out: RecordedVisit,
    /// Sessions to resume, in the order they arrived in the recording (TLS 1.3: each
    /// connection's tickets; TLS 1.2: the full handshake's session, any number of times).
    sessions: Vec<SessionSource>,
    /// The last server message of each response, by target.
    responses: BTreeMap<String, (MessageRef, u64)>,
    /// Connections whose opening waits for a response: (connection, target).
    pending_opens: Vec<(usize, String)>,
}

impl Builder {
    /// The trigger "the whole response to `target` has arrived".
    fn after(&self, target: &str) -> Option<Trigger> {
        self.responses
            .get(target)
            .map(|(m, bytes)| Trigger::Received {
                conn: m.conn,
                message: m.message,
                bytes: *bytes,
            })
    }

    /// A new connection; returns its index.
    fn connection(&mut self) -> usize {
        self.out
            .exchange
            .connections
            .push(Connection::new(Trigger::Start, Vec::new()));
        self.out.exchange.connections.len() - 1
    }

    fn push(&mut self, conn: usize, from: Side, bytes: u64, trigger: Trigger) -> usize {
        let messages = &mut self.out.exchange.connections[conn].messages;
        messages.push(Message {
            from,
            bytes: bytes.max(1),
            trigger,
            after_ns: 0,
            also: None,
        });
        messages.len() - 1
    }

    fn received(&self, conn: usize, message: usize) -> Trigger {
        Trigger::Received {
            conn,
            message,
            bytes: self.out.exchange.connections[conn].messages[message].bytes,
        }
    }

    /// The TLS handshake's flights (and tickets) on `conn`, the ClientHello once the
    /// connection is established and `hello_after` (a session to resume) has fired; returns
    /// when the client and the server may send application data ("ready"), each as a trigger.
    fn tls(
        &mut self,
        conn: usize,
        tls: Option<&Handshake>,
        hello_after: Option<Trigger>,
    ) -> (Trigger, Trigger) {
        let established = Trigger::Established { conn };
        let Some(h) = tls else {
            return (established, established);
        };
        let (mut last_up, mut last_down) = (None, None);
        for flight in &h.flights {
            match *flight {
                Flight::Up(bytes) => {
                    let first = hello_after.unwrap_or(established);
                    let trigger = last_down.map_or(first, |m| self.received(conn, m));
                    last_up = Some(self.push(conn, Side::Client, bytes, trigger));
                }
                Flight::Down(bytes) => {
                    let trigger = last_up.map_or(established, |m| self.received(conn, m));
                    last_down = Some(self.push(conn, Side::Server, bytes, trigger));
                }
            }
        }
        let client_ready = last_down.map_or(established, |m| self.received(conn, m));
        let server_ready = last_up.map_or(established, |m| self.received(conn, m));
        if h.tickets > 0 {
            let m = self.push(conn, Side::Server, h.tickets, server_ready);
            self.count(conn, m);
            self.sessions.push(SessionSource {
                ready: self.received(conn, m),
                left: TLS13_TICKETS,
            });
        } else if !h.resumed {
            // TLS 1.2: the session is the client's once the handshake is done, for any number
            // of connections.
            self.sessions.push(SessionSource {
                ready: client_ready,
                left: usize::MAX,
            });
        }
        if let Some(m) = last_down {
            self.count(conn, m);
        }
        (client_ready, server_ready)
    }

    fn count(&mut self, conn: usize, message: usize) {
        self.out.counted.push(MessageRef { conn, message });
    }

    /// An HTTP/1 connection: the client's writes, each after the response it waited for, and
    /// the responses, each answering the write its request ended in, through the server's
    /// buffer.
    fn http1(&mut self, c: &ConnScript, rule: &ServerRule) {
        let conn = self.connection();
        if c.pooled {
            self.out.exchange.connections[conn].pool = Some(0);
        }
        if let Opened::AfterResponse(target) = &c.opened {
            self.pending_opens.push((conn, target.clone()));
        }
        // A connection that will resume connects at once, but the client holds its
        // ClientHello back until it has a session to resume (`TlsClient::session`): the first
        // source with a ticket left, in the robot's queue order. The engine keeps what is
        // written before the connection is established until it is.
        let mut session = None;
        if c.tls.as_ref().is_some_and(|h| h.resumed) {
            if let Some(source) = self.sessions.iter_mut().find(|s| s.left > 0) {
                source.left -= 1;
                session = Some(source.ready);
            }
        }
        let (ready, _) = self.tls(conn, c.tls.as_ref(), session);
        // The writes first (a write that waits for a response gets its trigger once the
        // responses have messages), noting where each request ends.
        let mut writes = Vec::new();
        let mut boundaries = Vec::new();
        let mut request_end: BTreeMap<&str, (usize, u64)> = BTreeMap::new();
        for w in &c.writes {
            let m = self.push(conn, Side::Client, w.wire, ready);
            writes.push(m);
            if w.ends.last().is_some_and(|(_, end)| *end == w.plain) {
                boundaries.push(m);
            }
            for (target, end) in &w.ends {
                // In cleartext the server parses a request once its last byte is there; over
                // TLS, once the record that carries it is whole.
                let at = if rule.framing.overhead == 0 {
                    *end
                } else {
                    w.wire
                };
                request_end.insert(target, (m, at.max(1)));
            }
        }
        let mut answers = Vec::new();
        for (target, bytes) in &c.responses {
            let Some(&(m, at)) = request_end.get(target.as_str()) else {
                continue;
            };
            let trigger = Trigger::Received {
                conn,
                message: m,
                bytes: at,
            };
            let r = self.push(conn, Side::Server, rule.framing.wire(*bytes), trigger);
            answers.push(r);
            self.count(conn, r);
            let response = MessageRef { conn, message: r };
            self.note_response(target, &[response]);
            self.out.requests.push(RecordedRequest {
                target: target.clone(),
                request: MessageRef { conn, message: m },
                response: vec![response],
            });
        }
        for (w, &m) in c.writes.iter().zip(&writes) {
            if let Some(&r) = w
                .after_responses
                .checked_sub(1)
                .and_then(|i| answers.get(i))
            {
                let t = self.received(conn, r);
                self.out.exchange.connections[conn].messages[m].trigger = t;
            }
        }
        self.out.exchange.connections[conn].responder = Some(Responder {
            buffer_bytes: rule.buffer_bytes,
            wait_ns: rule.wait_ns,
            answers,
            boundaries,
        });
    }

    /// An HTTP/2 connection: the preface and SETTINGS both ways, each batch of requests after
    /// what it waited for, and each stream's frames from the server, in the order they came,
    /// through the server's buffer (it answers every request that has arrived at once).
    fn h2(&mut self, c: &H2Script, rule: &ServerRule) {
        let conn = self.connection();
        let (client_ready, server_ready) = self.tls(conn, c.tls.as_ref(), None);
        let framed = |plain: u64| rule.framing.wire(plain);
        let n = c.batches.len().max(1);
        // The batch a client stream was opened in (pushed, even streams: the first).
        let stream_batch = |stream: u32| -> usize {
            if stream.is_multiple_of(2) {
                return 0;
            }
            let mut opened = 0u32;
            for (k, (targets, _)) in c.batches.iter().enumerate() {
                opened += targets.len() as u32;
                if stream < 2 * opened {
                    return k;
                }
            }
            n - 1
        };
        // The client's preface and connection frames before its first request go with the
        // first batch; its SETTINGS ACK on its own; each stream's frames with its batch.
        let mut batch_bytes = vec![0u64; n];
        batch_bytes[0] = PREFACE_LEN as u64;
        let mut ack_bytes = 0;
        let mut requested = false;
        for f in &c.up {
            match (f.stream, f.kind) {
                (0, SETTINGS) if f.flags & ACK != 0 => ack_bytes += f.bytes,
                (0, _) if !requested => batch_bytes[0] += f.bytes,
                (0, _) => {}
                (s, _) => {
                    requested = true;
                    batch_bytes[stream_batch(s)] += f.bytes;
                }
            }
        }
        // The server's: its preface as the connection opens, its SETTINGS ACK, then runs of
        // one stream's frames in the order they came.
        let (mut preface, mut server_ack) = (0, 0);
        let mut runs: Vec<(u32, u64)> = Vec::new();
        for f in &c.down {
            match (f.stream, f.kind) {
                (0, SETTINGS) if f.flags & ACK != 0 => server_ack += f.bytes,
                (0, _) if runs.is_empty() => preface += f.bytes,
                (0, _) => {}
                (s, _) => match runs.last_mut() {
                    Some((stream, bytes)) if *stream == s => *bytes += f.bytes,
                    _ => runs.push((s, f.bytes)),
                },
            }
        }
        let server_preface = self.push(conn, Side::Server, framed(preface), server_ready);
        let mut batches = Vec::new();
        // Every client write ends at a frame's end: all are boundaries for the server.
        let mut boundaries = Vec::new();
        for (k, bytes) in batch_bytes.iter().enumerate() {
            batches.push(self.push(conn, Side::Client, framed(*bytes), client_ready));
            if k == 0 && ack_bytes > 0 {
                let t = self.received(conn, server_preface);
                boundaries.push(self.push(conn, Side::Client, framed(ack_bytes), t));
            }
        }
        boundaries.extend(&batches);
        if server_ack > 0 {
            let t = self.received(conn, batches[0]);
            self.push(conn, Side::Server, framed(server_ack), t);
        }
        let mut answers = Vec::new();
        let mut by_stream: BTreeMap<u32, Vec<MessageRef>> = BTreeMap::new();
        for (stream, bytes) in runs {
            let t = self.received(conn, batches[stream_batch(stream)]);
            let r = self.push(conn, Side::Server, framed(bytes), t);
            answers.push(r);
            self.count(conn, r);
            by_stream
                .entry(stream)
                .or_default()
                .push(MessageRef { conn, message: r });
        }
        let mut stream = 1u32;
        for (k, (targets, _)) in c.batches.iter().enumerate() {
            for target in targets {
                let response = by_stream.remove(&stream).unwrap_or_default();
                self.note_response(target, &response);
                self.out.requests.push(RecordedRequest {
                    target: target.clone(),
                    request: MessageRef {
                        conn,
                        message: batches[k],
                    },
                    response,
                });
                stream += 2;
            }
        }
        for (i, target) in c.pushed.iter().enumerate() {
            let response = by_stream.remove(&(2 * i as u32 + 2)).unwrap_or_default();
            self.note_response(target, &response);
            self.out.requests.push(RecordedRequest {
                target: target.clone(),
                request: MessageRef {
                    conn,
                    message: batches[0],
                },
                response,
            });
        }
        // Now that the responses have messages: what each later batch waited for.
        for (k, (_, after)) in c.batches.iter().enumerate() {
            let trigger = match after {
                BatchAfter::Ready => None,
                BatchAfter::Response(t) => self.after(t),
                BatchAfter::Head(t) => self.head(t),
            };
            if let Some(t) = trigger {
                self.out.exchange.connections[conn].messages[batches[k]].trigger = t;
            }
        }
        self.out.exchange.connections[conn].responder = Some(Responder {
            buffer_bytes: u64::MAX,
            wait_ns: rule.wait_ns,
            answers,
            boundaries,
        });
    }

    fn note_response(&mut self, target: &str, response: &[MessageRef]) {
        if let Some(&last) = response.last() {
            let bytes = self.out.exchange.connections[last.conn].messages[last.message].bytes;
            self.responses.insert(target.to_string(), (last, bytes));
        }
    }

    /// The trigger "the first message of the response to `target` has arrived" (its head).
    fn head(&self, target: &str) -> Option<Trigger> {
        let r = self.out.requests.iter().find(|r| r.target == target)?;
        let first = r.response.first()?;
        Some(self.received(first.conn, first.message))
    }
}
