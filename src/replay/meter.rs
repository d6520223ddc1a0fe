//! The one meter every replay mode shares: what a connection cost, counted twice.
//!
//! - **Model** (deterministic): the segments the exchange needs under the paper's rules, from
//!   what the client itself did and saw — the size of each write, the size of each response,
//!   who closed first. Data segments are `ceil(bytes / MSS)` per write; the server is modelled
//!   as the 1997 study's buffering server (it answers a batch of pipelined requests into one
//!   buffer and flushes it when full or when the batch is answered); pure ACKs follow the
//!   delayed-ACK rule of 1997 stacks (RFC 1122): one ACK per two segments received, and one at
//!   the end of an odd burst unless the receiver sends data at once, which carries it (the
//!   last burst's is carried by the client's FIN, which does not count); a FIN is ACKed at
//!   once (BSD's `TF_ACKNOW`). Same site, same options → same figure, on every run. The
//!   headline and budgets use it.
//! - **Kernel** (measured): the kernel's own `TCP_INFO` counters, read just before the client
//!   sends its FIN (the paper's rule: nothing from the client's FIN on counts). Data segments
//!   agree with the model; pure ACKs depend on when the receiving process was scheduled, so
//!   they vary between runs, and the report shows their range.
//!
//! Over TLS ([`Framing`], [`Handshake`]) the same rules apply to TLS records, which are TCP
//! payload: each write of `p` plaintext bytes leaves as `p + ceil(p / 16384) × overhead` bytes
//! (the AEAD's record overhead), the server's flushes likewise. The handshake is counted from
//! the flights the client recorded (bytes per flight, each way): each flight is one burst,
//! `ceil(bytes / MSS)` segments, answered at once by the other side (so `floor(n/2)` pure
//! ACKs, the odd tail carried by the answer). TLS 1.3 session tickets, which the server sends
//! after the client's Finished, are one more burst of the server's. The client's close_notify
//! is one data segment sent before its FIN, so it counts; the server's answer comes after the
//! FIN and does not. When the server closes first (HTTP/1.0) its close_notify leaves in the
//! same write as its last response, and the client's close_notify carries the ACK of the
//! server's FIN. docs/tls.md has the figures.
//!
//! A protocol whose writes a codec decides (HTTP/2, through the `h2` crate) gives the meter
//! its exchange as the protocol's own model of bursts ([`Meter::exchange`]: for HTTP/2, the
//! frames each batch of requests and its answers consist of); the same data-segment and ACK
//! rules then apply.
//!
//! Counters are plain values with `AddAssign`: a run's totals are sums.

use std::ops::AddAssign;

use serde::{Deserialize, Serialize};

pub use super::script::{Flight, Handshake};

/// Segments one way on one or more connections.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Segments {
    /// SYN, the handshake's final ACK, SYN-ACK, and the server's FIN when it closed first.
    pub control: u64,
    /// Segments carrying payload.
    pub data: u64,
    /// Pure acknowledgements.
    pub acks: u64,
}

impl Segments {
    pub fn total(&self) -> u64 {
        self.control + self.data + self.acks
    }
}

impl AddAssign for Segments {
    fn add_assign(&mut self, o: Self) {
        self.control += o.control;
        self.data += o.data;
        self.acks += o.acks;
    }
}

/// Segments both ways: up is client → server, down is server → client.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Packets {
    pub up: Segments,
    pub down: Segments,
}

impl Packets {
    /// Every segment that counts, both ways.
    pub fn total(&self) -> u64 {
        self.up.total() + self.down.total()
    }

    /// The fewest segments that can carry the exchange: handshake, data and teardown, no pure
    /// ACK. A true lower bound: `lower_bound() <= total()` always.
    pub fn lower_bound(&self) -> u64 {
        self.up.control + self.up.data + self.down.control + self.down.data
    }
}

impl AddAssign for Packets {
    fn add_assign(&mut self, o: Self) {
        self.up += o.up;
        self.down += o.down;
    }
}

/// What the kernel counted on the client's sockets (`TCP_INFO`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Kernel {
    /// Every segment sent (`tcpi_segs_out`), before the client's FIN.
    pub packets_up: u64,
    /// Every segment received (`tcpi_segs_in`), before the client's FIN.
    pub packets_down: u64,
    /// Of those, segments with payload (`tcpi_data_segs_out` / `_in`).
    pub data_up: u64,
    pub data_down: u64,
    /// Retransmitted segments (0 on a lossless link).
    pub retransmits: u64,
}

impl Kernel {
    pub fn packets(&self) -> u64 {
        self.packets_up + self.packets_down
    }
    pub fn data(&self) -> u64 {
        self.data_up + self.data_down
    }
}

impl AddAssign for Kernel {
    fn add_assign(&mut self, o: Self) {
        self.packets_up += o.packets_up;
        self.packets_down += o.packets_down;
        self.data_up += o.data_up;
        self.data_down += o.data_down;
        self.retransmits += o.retransmits;
    }
}

/// The TLS part of what one connection, or a sum of them, cost.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TlsCounters {
    /// Connections that made a full handshake / resumed a session.
    pub full: u64,
    pub resumed: u64,
    /// Handshake flights and session tickets, by the model (TCP's SYN and SYN-ACK are not
    /// here: they are the `control` segments of [`Counters::model`]).
    pub handshake: Packets,
    /// TCP payload bytes of the handshake flights and tickets, each way.
    pub handshake_bytes_up: u64,
    pub handshake_bytes_down: u64,
    /// Round trips the TLS handshake added before the first request could be sent (TCP's own
    /// is not counted): 1 for TLS 1.3 and resumed TLS 1.2, 2 for a full TLS 1.2 handshake.
    pub round_trips: u64,
    /// Of the handshake's data segments, those of the session tickets.
    pub ticket_segments: u64,
    /// Data segments the kernel had sent and received when the client's handshake completed
    /// (`TCP_INFO`), so tickets excluded: equal to the model's handshake data segments less
    /// `ticket_segments`.
    pub kernel_data_segments: u64,
    /// Bytes the record layer added to the HTTP exchange (headers, tags, close_notify).
    pub record_overhead: u64,
}

impl AddAssign for TlsCounters {
    fn add_assign(&mut self, o: Self) {
        self.full += o.full;
        self.resumed += o.resumed;
        self.handshake += o.handshake;
        self.handshake_bytes_up += o.handshake_bytes_up;
        self.handshake_bytes_down += o.handshake_bytes_down;
        self.round_trips += o.round_trips;
        self.ticket_segments += o.ticket_segments;
        self.kernel_data_segments += o.kernel_data_segments;
        self.record_overhead += o.record_overhead;
    }
}

/// What one connection, or a sum of them, cost on the wire.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counters {
    pub requests: u64,
    pub connections: u64,
    /// TCP payload bytes, client → server.
    pub bytes_up: u64,
    /// TCP payload bytes, server → client.
    pub bytes_down: u64,
    /// The deterministic figure (see the module notes).
    pub model: Packets,
    /// The kernel's figure for the same connections.
    pub kernel: Kernel,
    pub headers: HeaderBytes,
    /// The TLS part (zero over cleartext TCP).
    pub tls: TlsCounters,
    /// From each connection's SYN until it was ready for the protocol (TCP's handshake, and
    /// TLS's over TLS), summed over the connections. Measured.
    #[serde(skip)]
    pub connect: std::time::Duration,
}

impl AddAssign for Counters {
    fn add_assign(&mut self, o: Self) {
        self.requests += o.requests;
        self.connections += o.connections;
        self.bytes_up += o.bytes_up;
        self.bytes_down += o.bytes_down;
        self.model += o.model;
        self.kernel += o.kernel;
        self.headers += o.headers;
        self.tls += o.tls;
        self.connect += o.connect;
    }
}

impl Counters {
    /// Payload bytes both ways.
    pub fn bytes(&self) -> u64 {
        self.bytes_up + self.bytes_down
    }
}

/// 100 × (1 − bytes / (bytes + 40 × packets)): the share of 40-byte TCP/IP headers.
pub fn overhead_pct(bytes: u64, packets: u64) -> f64 {
    let bytes = bytes as f64;
    let headers = 40.0 * packets as f64;
    if bytes + headers == 0.0 {
        0.0
    } else {
        100.0 * (1.0 - bytes / (bytes + headers))
    }
}

/// The model's assumptions, stated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Model {
    /// Payload bytes per segment.
    pub mss: u64,
    /// The server's response buffer: a batch's answers are flushed when it holds this much.
    pub server_buffer: u64,
    /// How the transport frames each write: none over TCP, TLS records over TLS.
    pub framing: Framing,
}

/// How a transport turns a write of plaintext into TCP payload: records of at most
/// `max_record` plaintext bytes, each `overhead` bytes longer than what it carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Framing {
    pub overhead: u64,
    pub max_record: u64,
    /// A close_notify alert on the wire (a record of 2 plaintext bytes); 0 over TCP.
    pub alert: u64,
}

impl Framing {
    /// Cleartext TCP: the bytes as they are.
    pub const NONE: Framing = Framing {
        overhead: 0,
        max_record: u64::MAX,
        alert: 0,
    };

    /// A TLS record layer with `overhead` bytes per record of at most 16 KiB.
    pub const fn tls(overhead: u64) -> Framing {
        Framing {
            overhead,
            max_record: 16 << 10,
            alert: 2 + overhead,
        }
    }

    /// The bytes one write of `plain` bytes puts on the wire.
    pub fn wire(&self, plain: u64) -> u64 {
        plain + plain.div_ceil(self.max_record.max(1)) * self.overhead
    }

    /// The most plaintext one write may carry to fill `wire` bytes (at least 1).
    pub fn fitting(&self, wire: u64) -> u64 {
        if self.overhead == 0 {
            return wire.max(1);
        }
        let records = wire.div_ceil(self.max_record + self.overhead).max(1);
        wire.saturating_sub(records * self.overhead).max(1)
    }
}

/// Header bytes: request heads up, response heads down, and how many of each. HTTP/1.x: the
/// request line or status line and header fields as text; HTTP/2: the HEADERS (and
/// CONTINUATION) frames, HPACK block and 9-byte frame header.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeaderBytes {
    pub up: u64,
    pub requests: u64,
    pub down: u64,
    pub responses: u64,
}

impl AddAssign for HeaderBytes {
    fn add_assign(&mut self, o: Self) {
        self.up += o.up;
        self.requests += o.requests;
        self.down += o.down;
        self.responses += o.responses;
    }
}

/// Which way a burst goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// Client → server.
    Up,
    /// Server → client.
    Down,
}

/// One burst of an exchange: bytes one side sends at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Burst {
    pub side: Side,
    pub bytes: u64,
}

/// One write the client made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Write {
    bytes: u64,
    /// Requests whose last byte went out in this write.
    requests: u64,
    /// Whole responses the client had received when it wrote.
    after_responses: usize,
}

/// Meters one connection: the client records what it writes and receives as it goes; the
/// kernel's counters are read at [`Meter::finish`], just before the client's FIN.
#[derive(Debug, Default)]
pub struct Meter {
    writes: Vec<Write>,
    /// Wire size of each whole response, in order.
    responses: Vec<u64>,
    pub bytes_up: u64,
    pub bytes_down: u64,
    pub requests: u64,
    /// Requests written whose last byte has not gone out yet.
    pending_requests: u64,
    /// Plaintext bytes the client wrote (equal to `bytes_up` over TCP).
    plain_up: u64,
    /// The TLS session, when the connection has one.
    pub tls: Option<Handshake>,
    /// From the SYN until the connection was ready for the protocol.
    pub connect: std::time::Duration,
    /// Header bytes seen so far.
    pub headers: HeaderBytes,
    /// The exchange as bursts, in order, for a protocol that models its own (see the module
    /// notes). When set, the model is computed from these.
    pub exchange: Option<Vec<Burst>>,
    /// What the client wrote and read, for the simulator (HTTP/1; [`super::script`]).
    pub script: super::script::ConnScript,
    /// The same for an HTTP/2 connection, set by its client when the visit ends.
    pub h2: Option<super::script::H2Script>,
}

impl Meter {
    /// A request was added to the output (it goes out with the next [`Meter::wrote`]).
    pub fn request(&mut self) {
        self.requests += 1;
        self.pending_requests += 1;
    }

    /// The client wrote `bytes` of its protocol's data in one call, which put `wire` bytes
    /// on the TCP connection; every pending request is then complete when `all_sent` (the
    /// last chunk of the output buffer).
    pub fn wrote(&mut self, bytes: u64, wire: u64, all_sent: bool) {
        self.bytes_up += wire;
        self.plain_up += bytes;
        let requests = if all_sent {
            std::mem::take(&mut self.pending_requests)
        } else {
            0
        };
        self.writes.push(Write {
            bytes,
            requests,
            after_responses: self.responses.len(),
        });
        self.script.wrote(bytes, wire, self.responses.len());
    }

    /// The client read `bytes` more from the TCP connection.
    pub fn read(&mut self, bytes: u64) {
        self.bytes_down += bytes;
    }

    /// A whole response of `bytes` (head and body, as the protocol sent them) arrived.
    pub fn response(&mut self, bytes: u64) {
        self.responses.push(bytes);
        self.script.response(bytes);
    }

    /// This connection's counters: the model, and the kernel's view from `info` (read just
    /// before the client's FIN). `server_closed_first` when the server's FIN arrived first.
    pub fn finish(
        &self,
        info: crate::sys::TcpInfo,
        model: Model,
        server_closed_first: bool,
    ) -> Counters {
        let http = match &self.exchange {
            Some(bursts) => {
                let mut p = counted(bursts, model, server_closed_first);
                // Over TLS, the client's close_notify: one segment before its FIN, which
                // carries the ACK of a server's FIN that came first.
                if self.tls.as_ref().is_some_and(|h| h.close_notify) {
                    p.up.data += 1;
                    p.up.acks -= u64::from(server_closed_first);
                }
                p
            }
            None => self.model(model, server_closed_first),
        };
        let (handshake, tls) = match &self.tls {
            Some(h) => self.tls_model(h, model),
            None => (Packets::default(), TlsCounters::default()),
        };
        let mut packets = http;
        packets += handshake;
        Counters {
            requests: self.requests,
            connections: 1,
            bytes_up: self.bytes_up,
            bytes_down: self.bytes_down,
            model: packets,
            tls,
            connect: self.connect,
            headers: self.headers,
            kernel: Kernel {
                packets_up: info.segs_out,
                packets_down: info.segs_in,
                data_up: info.data_segs_out,
                data_down: info.data_segs_in,
                retransmits: u64::from(info.total_retrans),
            },
        }
    }

    /// The TLS handshake's segments (flights and tickets, with their ACKs) and the TLS
    /// counters of this connection (see the module notes).
    fn tls_model(&self, h: &Handshake, m: Model) -> (Packets, TlsCounters) {
        let segs = |bytes: u64| bytes.div_ceil(m.mss.max(1));
        let mut p = Packets::default();
        let mut t = TlsCounters {
            full: u64::from(!h.resumed),
            resumed: u64::from(h.resumed),
            kernel_data_segments: h.kernel_data_segments,
            ..TlsCounters::default()
        };
        for flight in &h.flights {
            match *flight {
                Flight::Up(bytes) => {
                    p.up.data += segs(bytes);
                    p.down.acks += segs(bytes) / 2;
                    t.handshake_bytes_up += bytes;
                }
                Flight::Down(bytes) => {
                    p.down.data += segs(bytes);
                    p.up.acks += segs(bytes) / 2;
                    t.handshake_bytes_down += bytes;
                    t.round_trips += 1;
                }
            }
        }
        if h.tickets > 0 {
            t.ticket_segments = segs(h.tickets);
            p.down.data += segs(h.tickets);
            p.up.acks += segs(h.tickets) / 2;
            t.handshake_bytes_down += h.tickets;
        }
        t.handshake = p;
        // The record layer's share of the HTTP exchange: what the client wrote and read
        // beyond its plaintext, the handshake's bytes and the close_notify alerts aside.
        let plain_down: u64 = self.responses.iter().sum();
        t.record_overhead = self
            .bytes_up
            .saturating_sub(t.handshake_bytes_up + self.plain_up)
            + self
                .bytes_down
                .saturating_sub(t.handshake_bytes_down + plain_down);
        (p, t)
    }

    /// The deterministic segment count of the HTTP exchange of this connection, with the TCP
    /// handshake and teardown (see the module notes).
    fn model(&self, m: Model, server_closed_first: bool) -> Packets {
        let segs = |bytes: u64| bytes.div_ceil(m.mss.max(1));
        let wire = |plain: u64| m.framing.wire(plain);
        let tls = self.tls.as_ref();
        let mut p = Packets::default();
        // Handshake: SYN and the final ACK up, SYN-ACK down. Teardown: only the server's FIN
        // counts, when it comes before the client's, and the client ACKs it at once (over
        // TLS its close_notify, sent at once, carries that ACK).
        p.up.control = 2;
        p.down.control = 1 + u64::from(server_closed_first);
        p.up.acks = u64::from(server_closed_first && !tls.is_some_and(|h| h.close_notify));
        // The client's close_notify: one segment before its FIN.
        if tls.is_some_and(|h| h.close_notify) {
            p.up.data += 1;
        }

        // Client bursts: the writes made between two reads. The server answers each at once,
        // so its ACK of an odd burst's tail rides on the answer: floor(n/2) pure ACKs.
        let mut batches: Vec<(u64, u64)> = Vec::new(); // (segments, requests) per burst
        let mut last_mark = None;
        for w in &self.writes {
            if last_mark != Some(w.after_responses) {
                batches.push((0, 0));
                last_mark = Some(w.after_responses);
            }
            let b = batches.last_mut().expect("just pushed");
            b.0 += segs(wire(w.bytes));
            b.1 += w.requests;
        }
        for (segments, _) in &batches {
            p.up.data += segments;
            p.down.acks += segments / 2;
        }

        // Server flushes: each batch's answers into one buffer, flushed when it holds
        // `server_buffer` bytes and when the batch is answered. A flush whose last response is
        // followed at once by a client write has its odd tail ACKed by that write; the last
        // flush's tail is ACKed by the client's FIN, which does not count.
        let wrote_after: std::collections::BTreeSet<usize> =
            self.writes.iter().map(|w| w.after_responses).collect();
        let mut next = 0;
        let mut flushes: Vec<(u64, usize)> = Vec::new(); // (bytes, responses received after it)
        for (_, requests) in &batches {
            let mut buffered = 0;
            for _ in 0..*requests {
                let Some(&size) = self.responses.get(next) else {
                    break;
                };
                next += 1;
                buffered += size;
                if buffered >= m.server_buffer {
                    flushes.push((buffered, next));
                    buffered = 0;
                }
            }
            if buffered > 0 {
                flushes.push((buffered, next));
            }
        }
        // Responses the client saw beyond the requests it counted (none in a correct run).
        let rest: u64 = self.responses.iter().skip(next).sum();
        if rest > 0 {
            flushes.push((rest, self.responses.len()));
        }
        let last = flushes.len();
        for (i, (bytes, received)) in flushes.into_iter().enumerate() {
            // A server that closes first sends its close_notify with its last write.
            let alert = if i + 1 == last && server_closed_first {
                m.framing.alert
            } else {
                0
            };
            let n = segs(wire(bytes) + alert);
            p.down.data += n;
            p.up.acks += n / 2;
            let answered = wrote_after.contains(&received);
            if n % 2 == 1 && !answered && i + 1 < last {
                p.up.acks += 1;
            }
        }
        p
    }
}

/// The model from a protocol's own bursts: `ceil(bytes / MSS)` data segments per burst;
/// consecutive bursts of one side are acknowledged together, one ACK per two segments, an odd
/// run's last segment by the other side's next burst (or, after the last, by the client's FIN).
fn counted(exchange: &[Burst], model: Model, server_closed_first: bool) -> Packets {
    let mss = model.mss;
    let mut p = Packets::default();
    p.up.control = 2;
    p.down.control = 1 + u64::from(server_closed_first);
    p.up.acks = u64::from(server_closed_first);
    let mut bursts: Vec<(Side, u64)> = Vec::new();
    for b in exchange.iter().filter(|b| b.bytes > 0) {
        // Over TLS each burst is sealed as one write: its records' overhead comes with it.
        let n = model.framing.wire(b.bytes).div_ceil(mss.max(1));
        match bursts.last_mut() {
            Some((side, segs)) if *side == b.side => *segs += n,
            _ => bursts.push((b.side, n)),
        }
    }
    for (side, n) in bursts {
        let (data, acks) = match side {
            Side::Up => (&mut p.up.data, &mut p.down.acks),
            Side::Down => (&mut p.down.data, &mut p.up.acks),
        };
        *data += n;
        *acks += n / 2;
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: Model = Model {
        mss: 1460,
        server_buffer: 64 << 10,
        framing: Framing::NONE,
    };

    fn info() -> crate::sys::TcpInfo {
        Default::default()
    }

    #[test]
    fn a_tiny_http10_exchange_is_handshake_data_and_the_servers_acked_fin() {
        let mut m = Meter::default();
        m.request();
        m.wrote(100, 100, true);
        m.read(200);
        m.response(200);
        let c = m.finish(info(), M, true);
        // SYN, ACK, request, the ACK of the server's FIN up; SYN-ACK, response, FIN down.
        assert_eq!(
            c.model.up,
            Segments {
                control: 2,
                data: 1,
                acks: 1
            }
        );
        assert_eq!(
            c.model.down,
            Segments {
                control: 2,
                data: 1,
                acks: 0
            }
        );
        assert_eq!(c.model.total(), 7);
        assert_eq!(c.model.lower_bound(), 6);
    }

    #[test]
    fn a_long_response_is_acked_every_second_segment() {
        let mut m = Meter::default();
        m.request();
        m.wrote(100, 100, true);
        m.response(5 * 1460);
        let c = m.finish(info(), M, false);
        assert_eq!(c.model.down.data, 5);
        // Two ACKs for four segments; the fifth's ACK rides on the client's FIN.
        assert_eq!(c.model.up.acks, 2);
    }

    #[test]
    fn persistent_requests_carry_the_ack_of_the_previous_odd_response() {
        let mut m = Meter::default();
        for i in 0..3 {
            m.request();
            m.wrote(100, 100, true);
            assert_eq!(m.writes[i].after_responses, i);
            m.response(3 * 1460);
        }
        let c = m.finish(info(), M, false);
        assert_eq!(c.model.up.data, 3);
        assert_eq!(c.model.down.data, 9);
        // One ACK per two segments of each response; each odd tail is carried by the next
        // request, the last by the FIN.
        assert_eq!(c.model.up.acks, 3);
    }

    #[test]
    fn a_pipelined_batch_is_answered_in_one_buffered_flush() {
        let mut m = Meter::default();
        // The page, then 40 small requests in one burst of three writes.
        m.request();
        m.wrote(60, 60, true);
        m.response(3000);
        for _ in 0..40 {
            m.request();
        }
        m.wrote(1460, 1460, false);
        m.wrote(1460, 1460, false);
        m.wrote(600, 600, true);
        for _ in 0..40 {
            m.response(300);
        }
        let c = m.finish(info(), M, false);
        // 12,000 bytes of 304-sized answers leave in ceil(12000/1460) = 9 segments, not 40.
        assert_eq!(c.model.down.data, 3 + 9);
        assert_eq!(c.model.up.data, 1 + 3);
        // The server ACKs one of the three request segments; the client ACKs 1 of the page's
        // 3 segments (the tail rides on the next burst) and 4 of the batch's 9.
        assert_eq!(c.model.down.acks, 1);
        assert_eq!(c.model.up.acks, 1 + 4);
    }

    #[test]
    fn a_full_server_buffer_is_flushed_within_a_batch() {
        let mut m = Meter::default();
        for _ in 0..3 {
            m.request();
        }
        m.wrote(300, 300, true);
        for _ in 0..3 {
            m.response(40_000);
        }
        let small = Model {
            mss: 1460,
            server_buffer: 50_000,
            framing: Framing::NONE,
        };
        let c = m.finish(info(), small, false);
        // Flushes of 80,000 and 40,000 bytes: 55 + 28 segments.
        assert_eq!(c.model.down.data, 55 + 28);
        // The first flush's odd tail is ACKed on its own; the second's by the FIN.
        assert_eq!(c.model.up.acks, 27 + 1 + 14);
    }

    #[test]
    fn the_lower_bound_never_exceeds_the_model() {
        let mut m = Meter::default();
        m.request();
        m.wrote(5000, 5000, true);
        m.response(100_000);
        let c = m.finish(info(), M, true);
        assert!(c.model.lower_bound() <= c.model.total());
        assert!(c.model.lower_bound() < c.model.total(), "there are ACKs");
    }

    #[test]
    fn tls_records_add_their_overhead_per_16_kib_and_fitting_fills_a_segment() {
        let tls13 = Framing::tls(22);
        assert_eq!(tls13.wire(1438), 1460);
        assert_eq!(tls13.wire(16 << 10), (16 << 10) + 22);
        assert_eq!(tls13.wire((16 << 10) + 1), (16 << 10) + 1 + 2 * 22);
        assert_eq!(tls13.wire(0), 0);
        assert_eq!(tls13.fitting(1460), 1438);
        assert_eq!(tls13.wire(tls13.fitting(40_000)), 40_000);
        assert_eq!(tls13.alert, 24);
        assert_eq!(Framing::NONE.wire(1460), 1460);
        assert_eq!(Framing::NONE.fitting(1460), 1460);
    }

    /// A TLS 1.3 connection as the client records it: ClientHello, the server's flight, the
    /// client's Finished, then one request and its 5,000-byte answer, tickets, close_notify.
    fn tls_exchange(server_closes: bool) -> Counters {
        tls_exchange_closing(server_closes, true)
    }

    fn tls_exchange_closing(server_closes: bool, close_notify: bool) -> Counters {
        let mut m = Meter {
            tls: Some(Handshake {
                flights: vec![Flight::Up(222), Flight::Down(1600), Flight::Up(64)],
                tickets: 184,
                close_notify,
                ..Handshake::default()
            }),
            ..Meter::default()
        };
        m.request();
        m.wrote(100, 122, true);
        m.response(5000);
        let tls = Model {
            framing: Framing::tls(22),
            ..M
        };
        m.finish(info(), tls, server_closes)
    }

    #[test]
    fn a_tls_handshake_is_counted_from_its_flights_and_tickets() {
        let c = tls_exchange(false);
        let h = c.tls.handshake;
        // ClientHello and Finished up; the 1,600-byte flight (2 segments) and tickets down.
        assert_eq!((h.up.data, h.down.data), (2, 3));
        assert_eq!((h.up.acks, h.down.acks), (1, 0));
        assert_eq!(c.tls.ticket_segments, 1);
        assert_eq!(c.tls.round_trips, 1);
        assert_eq!(c.tls.handshake_bytes_down, 1600 + 184);
        // The exchange: the request, the close_notify before the FIN; 5,022 bytes down.
        assert_eq!(c.model.up.data, 2 + 1 + 1);
        assert_eq!(c.model.down.data, 3 + 4);
    }

    #[test]
    fn a_server_that_closes_first_sends_its_close_notify_with_its_last_write() {
        let open = tls_exchange(false);
        let closed = tls_exchange(true);
        // 5,000 + 22 + 24 bytes are still 4 segments; the server's FIN is one more, and the
        // client's close_notify carries the ACK of it.
        assert_eq!(closed.model.down.data, open.model.down.data);
        assert_eq!(closed.model.down.control, open.model.down.control + 1);
        assert_eq!(closed.model.up.acks, open.model.up.acks);
        // Without its close_notify (the write failed) the client ACKs the FIN on its own.
        let silent = tls_exchange_closing(true, false);
        assert_eq!(silent.model.up.acks, closed.model.up.acks + 1);
        assert_eq!(silent.model.up.data, closed.model.up.data - 1);
    }

    #[test]
    fn a_protocols_own_bursts_are_segmented_and_acked_by_the_same_rules() {
        let b = |side, bytes| Burst { side, bytes };
        let m = Meter {
            exchange: Some(vec![
                b(Side::Up, 100),
                b(Side::Up, 2000),
                b(Side::Down, 9),
                b(Side::Down, 5000),
                b(Side::Up, 0),
                b(Side::Up, 50),
            ]),
            ..Meter::default()
        };
        let c = m.finish(info(), M, false);
        // Runs: up 1+2 = 3 segments, down 1+4 = 5, up 1.
        assert_eq!((c.model.up.data, c.model.down.data), (4, 5));
        assert_eq!(c.model.down.acks, 1);
        assert_eq!(c.model.up.acks, 2);
        assert!(c.model.lower_bound() <= c.model.total());
    }

    #[test]
    fn overhead_follows_the_papers_formula() {
        assert!((overhead_pct(1600, 10) - 20.0).abs() < 1e-9);
        assert_eq!(overhead_pct(0, 0), 0.0);
    }
}
