//! What a visit's client wrote and read on loopback, per connection, as the meter and the
//! transport record it for the simulator: the scripts ([`Script`]), what each connection
//! waited for ([`Opened`]), HTTP/2's frames ([`Frame`]), and the visit they become
//! ([`RecordedVisit`]). The vocabulary only: [`super::recording`] builds the simulator's
//! exchange from them, above the transport and the protocols that write them.

use std::collections::VecDeque;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::sim::simulate::Exchange;

/// The client connection preface (RFC 9113 §3.4), which precedes the first frame.
pub const PREFACE_LEN: usize = 24;

pub const DATA: u8 = 0x0;
pub const HEADERS: u8 = 0x1;
pub const SETTINGS: u8 = 0x4;
pub const PUSH_PROMISE: u8 = 0x5;
pub const CONTINUATION: u8 = 0x9;
/// The ACK flag of SETTINGS and PING.
pub const ACK: u8 = 0x1;

/// One frame as it went past: its stream, type, flags and size on the wire (with its 9-byte
/// header).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame {
    pub stream: u32,
    pub kind: u8,
    pub flags: u8,
    pub bytes: u64,
}

/// What a connection waited for before the client opened it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Opened {
    /// Nothing: the visit's start.
    #[default]
    Start,
    /// The whole response to this request target.
    AfterResponse(String),
}

/// One write of the client on an HTTP/1 connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptWrite {
    /// TCP payload bytes (over TLS, the sealed record).
    pub wire: u64,
    /// Plaintext bytes.
    pub plain: u64,
    /// Whole responses on this connection before the write: it waited for the last of them.
    pub after_responses: usize,
    /// Requests whose last byte is in this write, with the plaintext offset of that byte's
    /// end within the write.
    pub ends: Vec<(String, u64)>,
}

/// What the client of one HTTP/1 connection did, as its meter saw it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConnScript {
    /// Where the robot's queue had what this connection was opened for: connections are
    /// simulated in this order.
    pub seq: u64,
    pub opened: Opened,
    /// One of HTTP/1.0's parallel connections (they take turns in a pool).
    pub pooled: bool,
    /// Requests added to the output and not all written yet: target, plaintext bytes left.
    pending: VecDeque<(String, u64)>,
    pub writes: Vec<ScriptWrite>,
    /// Each whole response in order: its request target and plaintext bytes (head and body).
    pub responses: Vec<(String, u64)>,
    /// The TLS session's flights and tickets, over TLS.
    pub tls: Option<Handshake>,
}

impl ConnScript {
    /// A request of `bytes` plaintext bytes for `target` was added to the output.
    pub fn request(&mut self, target: &str, bytes: u64) {
        self.pending.push_back((target.to_string(), bytes));
    }

    /// The client wrote `plain` plaintext bytes in one call, `wire` on the socket, after
    /// `after_responses` whole responses.
    pub fn wrote(&mut self, plain: u64, wire: u64, after_responses: usize) {
        let mut ends = Vec::new();
        let mut used = 0;
        while let Some((target, left)) = self.pending.front_mut() {
            let take = (*left).min(plain - used);
            used += take;
            *left -= take;
            if *left > 0 {
                break;
            }
            ends.push((std::mem::take(target), used));
            self.pending.pop_front();
            if used == plain {
                break;
            }
        }
        self.writes.push(ScriptWrite {
            wire,
            plain,
            after_responses,
            ends,
        });
    }

    /// A whole response of `bytes` plaintext bytes arrived: it answers the oldest request
    /// not yet answered.
    pub fn response(&mut self, bytes: u64) {
        let answered = self.responses.len();
        let target = self
            .writes
            .iter()
            .flat_map(|w| &w.ends)
            .nth(answered)
            .map(|(t, _)| t.clone())
            .unwrap_or_default();
        self.responses.push((target, bytes));
    }
}

/// What the client of an HTTP/2 connection recorded: the frames each way, and its batches.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct H2Script {
    pub tls: Option<Handshake>,
    /// Frames as the client wrote them and read them, in order.
    pub up: Vec<Frame>,
    pub down: Vec<Frame>,
    /// Each batch of requests the client issued together: its requests' targets (streams 1,
    /// 3, 5 … in order) and what it waited for.
    pub batches: Vec<(Vec<String>, BatchAfter)>,
    /// The targets the server promised (pushed streams 2, 4, 6 … in order).
    pub pushed: Vec<String>,
}

/// What an HTTP/2 batch waited for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BatchAfter {
    /// The connection (the first batch).
    Ready,
    /// The whole response to this target (what it named).
    Response(String),
    /// The response head of this target (its preload hints).
    Head(String),
}

/// One connection's recording.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Script {
    Http1(ConnScript),
    H2(H2Script),
}

/// Collects a visit's connections as they finish (from the client's threads).
#[derive(Debug, Default)]
pub struct Recorder(Mutex<Vec<Script>>);

impl Recorder {
    pub fn add(&self, script: Script) {
        if let Ok(mut scripts) = self.0.lock() {
            scripts.push(script);
        }
    }

    /// Everything recorded since the last call.
    pub fn take(&self) -> Vec<Script> {
        self.0
            .lock()
            .map(|mut s| std::mem::take(&mut *s))
            .unwrap_or_default()
    }
}

/// A message of an [`Exchange`]: connection and index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessageRef {
    pub conn: usize,
    pub message: usize,
}

/// One request of a recorded visit: the client message its last byte went out in, and the
/// server messages its response came in (in order).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedRequest {
    pub target: String,
    pub request: MessageRef,
    pub response: Vec<MessageRef>,
}

/// A visit as the simulator replays it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedVisit {
    pub exchange: Exchange,
    /// In the order the robot first issued them; the page first.
    pub requests: Vec<RecordedRequest>,
    /// The server's messages the client waits for before it closes (the paper's last
    /// packet): every server message but HTTP/2's connection-level tail.
    pub counted: Vec<MessageRef>,
}

/// One burst of the TLS handshake, in TCP payload bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flight {
    /// Client → server.
    Up(u64),
    /// Server → client.
    Down(u64),
}

/// What the client recorded of one TLS session.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Handshake {
    /// The handshake's flights in order, up to the client's last one.
    pub flights: Vec<Flight>,
    /// Records that arrived after the handshake and carried no data and no close: TLS 1.3
    /// session tickets (one write of the server's), in TCP payload bytes.
    pub tickets: u64,
    pub resumed: bool,
    /// The client sent its close_notify before its FIN.
    pub close_notify: bool,
    /// Data segments the kernel had counted both ways when the handshake completed.
    pub kernel_data_segments: u64,
}
