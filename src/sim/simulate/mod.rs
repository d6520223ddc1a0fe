//! Simulated time: a visit's exchanges replayed through a model of the link and of Linux's
//! TCP, deterministically, instead of through the emulator and a real kernel.
//!
//! Why: time measured over the emulated link on a busy machine scatters (a 15%-lighter site
//! can "cost 10%"), and each emulated visit takes real seconds. The replay on loopback already
//! knows every write its client and server make; given those, this module says when each byte
//! would arrive over any link, in microseconds of CPU, with the same answer on every machine
//! at any load. The emulator and Chromium stay as its measured checks (issue 22).
//!
//! The input is an [`Exchange`]: connections, each a script of [`Message`]s (a write of some
//! bytes by one side) with the [`Trigger`] that makes the writer write it: the start, a
//! connection being established, or some bytes of an earlier message having arrived. TLS
//! flights and HTTP/2 frames are messages like any other, so the engine knows nothing of
//! HTTP. The output is a [`Timeline`]: when each connection opened and each message was
//! written, first arrived and last arrived, and what crossed the link.
//!
//! The link is the emulator's own model, [`crate::sim::link::shaper::Shaper`], one per
//! direction: loss, drop-tail queue, rate or trace, delay, exactly as the emulator applies
//! them. TCP is modelled on Linux's defaults, each choice stated in [`tcp`]: the 3-way
//! handshake with 52-byte SYNs, an initial window of 10 segments, slow start counting
//! segments acknowledged, Reno or CUBIC congestion avoidance, quick ACKs at the start and then
//! an ACK for every second full segment or after 40 ms, the 1 s initial RTO with exponential
//! backoff, fast retransmit on the third duplicate ACK with NewReno recovery. No Nagle (the
//! replay's sockets set `TCP_NODELAY`), no TCP timestamps (the replay's namespaces turn them
//! off), no pacing (CUBIC and Reno under the default qdisc do not pace).
//!
//! Every time is an integer of nanoseconds and every rule integer arithmetic, so the same
//! exchange, link and options give bit-identical timelines on any machine.

mod engine;
pub mod tcp;

#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

use super::link::LinkSpec;
pub use tcp::{Congestion, TcpModel};

/// Which end of a connection writes a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Side {
    Client,
    Server,
}

impl Side {
    pub fn other(self) -> Side {
        match self {
            Side::Client => Side::Server,
            Side::Server => Side::Client,
        }
    }
}

/// What makes a connection open or a message be written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "on")]
pub enum Trigger {
    /// The start of the visit.
    Start,
    /// Connection `conn` is established at the writer's end (the client: the SYN-ACK arrived;
    /// the server: the handshake's final ACK arrived).
    Established { conn: usize },
    /// The first `bytes` bytes of message `message` of connection `conn` have arrived, in
    /// order, at its receiver (who may be on another connection than the writer).
    Received {
        conn: usize,
        message: usize,
        bytes: u64,
    },
}

/// One write: `bytes` bytes by `from`, `after_ns` after its trigger fires (the writer's
/// think time; 0 for webdiet's robot and server, whose CPU time the model leaves out).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    pub from: Side,
    pub bytes: u64,
    pub trigger: Trigger,
    pub after_ns: u64,
    /// A second condition: the message waits for both triggers (a browser's request that
    /// must be found, and have a connection free for it). Default: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub also: Option<Trigger>,
}

/// One TCP connection: when the client opens it, and what both sides write on it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Connection {
    pub open: Trigger,
    pub messages: Vec<Message>,
    /// The client's pool of connections this one belongs to ([`Exchange::pools`]): it opens
    /// once its trigger has fired *and* the pool has a free slot, and holds the slot until
    /// every message on it has arrived. `None`: it opens as soon as its trigger fires.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pool: Option<usize>,
    /// How the server writes its answers, when it buffers them; `None`: each server message
    /// is written as soon as its trigger fires.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub responder: Option<Responder>,
}

impl Connection {
    /// A connection opened on `open` that writes `messages` as their triggers fire: no pool,
    /// no buffering responder.
    pub fn new(open: Trigger, messages: Vec<Message>) -> Self {
        Connection {
            open,
            messages,
            pool: None,
            responder: None,
        }
    }
}

/// A server that answers into a buffer (the replay's HTTP/1 and HTTP/2 servers, docs/packets.md):
/// the server messages listed in `answers` are not written when their trigger fires but added
/// to the buffer, and the buffer goes out in one write when it holds `buffer_bytes` or more,
/// when the client's bytes that have arrived end where nothing is left half-received (the end
/// of one of the `boundaries`, the client messages that end a request or frame), or
/// `wait_ns` after the last client bytes arrived with nothing since (the rest of a request
/// split by the link took too long).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Responder {
    pub buffer_bytes: u64,
    pub wait_ns: u64,
    /// Server messages of this connection that go through the buffer.
    pub answers: Vec<usize>,
    /// Client messages of this connection after whose last byte nothing is left partial.
    pub boundaries: Vec<usize>,
}

/// A visit's connections.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Exchange {
    pub connections: Vec<Connection>,
    /// Each pool's number of slots: connections of a pool open at most that many at a time,
    /// in the order their triggers fired (HTTP/1.0's parallel connections, a browser's six per
    /// host).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pools: Vec<usize>,
}

/// Options for [`simulate`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SimOptions {
    /// Default: [`TcpModel::linux`] with CUBIC.
    pub tcp: TcpModel,
    /// Seeds the link's loss processes (up, down), as the emulator's `--seed` does.
    /// Default: 1.
    pub seed: u64,
    /// Simulated time after which the visit is abandoned and reported as timed out.
    /// Default: 120 s, the replay's own default timeout.
    pub timeout_ns: u64,
    /// Keep every packet offered to the link in [`Timeline::packets`] (to compare with a
    /// capture of the emulated link). Default: `false`.
    #[serde(default)]
    pub trace: bool,
}

impl Default for SimOptions {
    fn default() -> Self {
        SimOptions {
            tcp: TcpModel::linux(Congestion::Cubic),
            seed: 1,
            timeout_ns: 120_000_000_000,
            trace: false,
        }
    }
}

/// When one message was written and arrived.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessageTime {
    /// Written into the writer's socket; `None` if its trigger never fired.
    pub written_ns: Option<u64>,
    /// Its first byte arrived, in order, at the receiver.
    pub first_byte_ns: Option<u64>,
    /// Its last byte arrived, in order, at the receiver.
    pub last_byte_ns: Option<u64>,
}

/// What happened on one connection.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConnectionTime {
    /// The client's first SYN left.
    pub syn_ns: Option<u64>,
    /// The SYN-ACK arrived at the client.
    pub established_ns: Option<u64>,
    pub messages: Vec<MessageTime>,
    /// Segments the client sent (SYNs, data, pure ACKs, retransmissions included).
    pub segments_up: u64,
    /// Segments the server sent.
    pub segments_down: u64,
    /// Retransmitted segments, both ways (SYNs included).
    pub retransmits: u64,
}

/// One packet offered to the link ([`SimOptions::trace`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TracedPacket {
    /// When it was sent.
    pub sent_ns: u64,
    pub conn: usize,
    pub from: Side,
    /// `syn`, `syn-ack`, or a segment of `len` payload bytes from `seq` (a pure ACK when 0).
    pub syn: bool,
    pub seq: u64,
    pub len: u64,
    /// The cumulative ACK it carries, if any.
    pub ack: Option<u64>,
    /// When it arrived; `None`: lost, or dropped at a full queue.
    pub arrived_ns: Option<u64>,
}

impl std::fmt::Display for TracedPacket {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ms = |ns: u64| ns as f64 / 1e6;
        let way = match self.from {
            Side::Client => "UP  ",
            Side::Server => "DOWN",
        };
        write!(f, "{:9.3} c{} {way} ", ms(self.sent_ns), self.conn)?;
        if self.syn {
            write!(f, "SYN")?;
        } else {
            write!(
                f,
                "seq={}:{} len={}",
                self.seq,
                self.seq + self.len,
                self.len
            )?;
        }
        if let Some(ack) = self.ack {
            write!(f, " ack={ack}")?;
        }
        match self.arrived_ns {
            Some(at) => write!(f, " → {:.3}", ms(at)),
            None => write!(f, " DROPPED"),
        }
    }
}

/// A simulated visit.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Timeline {
    pub connections: Vec<ConnectionTime>,
    /// Packets the link lost at random or dropped at a full queue, both ways.
    pub lost: u64,
    pub queue_drops: u64,
    /// The last message's last byte arrived (or the timeout, if `timed_out`).
    pub complete_ns: u64,
    /// Some message never arrived within [`SimOptions::timeout_ns`].
    pub timed_out: bool,
    /// Every packet, with [`SimOptions::trace`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub packets: Vec<TracedPacket>,
}

/// Why an exchange cannot be simulated: it names what is wrong and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SimError {
    #[error("connection {conn}: {what}")]
    BadTrigger { conn: usize, what: String },
}

/// Replays `exchange` over `link` in simulated time.
pub fn simulate(
    exchange: &Exchange,
    link: &LinkSpec,
    options: &SimOptions,
) -> Result<Timeline, SimError> {
    check(exchange)?;
    Ok(engine::run(exchange, link, options))
}

/// Every trigger names a connection and message that exist, and waits on something its
/// writer can see: a message waited on is one the writer receives (the other side's), and a
/// connection opens (by the client) on the start, another connection, or what the client
/// received. A cycle of waits is not an error: its messages are never written, and the
/// timeline says so.
fn check(exchange: &Exchange) -> Result<(), SimError> {
    let n = exchange.connections.len();
    let valid = |writer: Side, trigger: &Trigger| -> Result<(), String> {
        match *trigger {
            Trigger::Start => Ok(()),
            Trigger::Established { conn } if conn < n => Ok(()),
            Trigger::Established { conn } => Err(format!("waits on connection {conn} of {n}")),
            Trigger::Received {
                conn,
                message,
                bytes,
            } => {
                let Some(target) = exchange.connections.get(conn) else {
                    return Err(format!("waits on connection {conn} of {n}"));
                };
                let Some(m) = target.messages.get(message) else {
                    return Err(format!("waits on message {message} of connection {conn}"));
                };
                if bytes == 0 || bytes > m.bytes {
                    return Err(format!(
                        "waits on {bytes} bytes of connection {conn}'s message {message}, \
                         which has {}",
                        m.bytes
                    ));
                }
                if m.from == writer {
                    return Err(format!(
                        "waits on connection {conn}'s message {message}, which its own side \
                         writes and so cannot see arrive"
                    ));
                }
                Ok(())
            }
        }
    };
    for (i, c) in exchange.connections.iter().enumerate() {
        let bad = |what: String| SimError::BadTrigger { conn: i, what };
        if c.open == (Trigger::Established { conn: i }) {
            return Err(bad("opens when it is itself established".into()));
        }
        match c.pool {
            Some(p) if exchange.pools.get(p).is_none_or(|&n| n == 0) => {
                return Err(bad(format!(
                    "is in pool {p}, which does not exist or has no slot"
                )))
            }
            _ => {}
        }
        if let Some(r) = &c.responder {
            let side_of = |m: usize| c.messages.get(m).map(|m| m.from);
            if let Some(&m) = r
                .answers
                .iter()
                .find(|&&m| side_of(m) != Some(Side::Server))
            {
                return Err(bad(format!("answer {m} is not a server message of it")));
            }
            if let Some(&m) = r
                .boundaries
                .iter()
                .find(|&&m| side_of(m) != Some(Side::Client))
            {
                return Err(bad(format!("boundary {m} is not a client message of it")));
            }
        }
        valid(Side::Client, &c.open).map_err(|what| bad(format!("its opening {what}")))?;
        for (j, m) in c.messages.iter().enumerate() {
            valid(m.from, &m.trigger).map_err(|what| bad(format!("message {j} {what}")))?;
            if let Some(also) = &m.also {
                valid(m.from, also).map_err(|what| bad(format!("message {j} also {what}")))?;
            }
            if m.bytes == 0 {
                return Err(bad(format!("message {j} is empty")));
            }
        }
    }
    Ok(())
}
