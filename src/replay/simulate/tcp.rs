//! The TCP of the simulation: one end's sender (congestion window, retransmission) and
//! receiver (acknowledgement policy), each rule taken from Linux's defaults and said where.
//! Pure state machines: the engine (`engine.rs`) feeds them packets and times and sends
//! what they ask.

use std::collections::{BTreeMap, VecDeque};

use serde::{Deserialize, Serialize};

/// How the congestion window grows after slow start and shrinks on a loss.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Congestion {
    /// RFC 5681: one segment per window of ACKs; halved on a loss. The 1997 stacks' rule.
    Reno,
    /// RFC 8312 as Linux's `tcp_cubic` (C = 0.4, β = 0.7, fast convergence), without HyStart
    /// and without the TCP-friendly region: most servers' default.
    Cubic,
}

impl Congestion {
    /// Its name in Linux (`TCP_CONGESTION`) and in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Congestion::Reno => "reno",
            Congestion::Cubic => "cubic",
        }
    }
}

/// The TCP an end runs. Every time in ns, every size in bytes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TcpModel {
    pub congestion: Congestion,
    /// Initial congestion window in segments. Default: 10 (RFC 6928, Linux's
    /// `TCP_INIT_CWND`).
    pub initial_window: u32,
    /// Retransmission timeout before any RTT sample, also the SYN's. Default: 1 s (RFC 6298,
    /// `TCP_TIMEOUT_INIT`).
    pub initial_rto_ns: u64,
    /// Floor of the RTO's variance term: Linux's RTO is SRTT + max(4·RTTVAR, 200 ms)
    /// (`TCP_RTO_MIN`). Default: 200 ms.
    pub min_rto_ns: u64,
    /// Delayed-ACK timer. Default: 40 ms (`TCP_DELACK_MIN`).
    pub delayed_ack_ns: u64,
    /// Segments ACKed one by one at the start of a connection and after an idle RTO
    /// (quick-ACK mode). Default: 16 (`TCP_MAX_QUICKACKS`).
    pub quick_acks: u32,
    /// Receive window advertised in the SYN; it then grows by two segments for every segment
    /// received (`tcp_grow_window`). Default: 64,240 bytes (44 segments of 1,460, what Linux
    /// advertises with `tcp_rmem`'s default of 131,072).
    pub initial_receive_window: u64,
    /// Bytes of a SYN or SYN-ACK on the wire: IP and TCP headers with the MSS, SACK-permitted
    /// and window-scale options. Default: 52.
    pub syn_bytes: u32,
    /// IP and TCP header bytes of every other segment (no timestamps). Default: 40.
    pub header_bytes: u32,
}

impl TcpModel {
    /// Linux's defaults, with `congestion`.
    pub fn linux(congestion: Congestion) -> Self {
        TcpModel {
            congestion,
            initial_window: 10,
            initial_rto_ns: 1_000_000_000,
            min_rto_ns: 200_000_000,
            delayed_ack_ns: 40_000_000,
            quick_acks: 16,
            initial_receive_window: 64_240,
            syn_bytes: 52,
            header_bytes: 40,
        }
    }

    /// A 1997 stack (RFC 2001 and 2414 era): Reno, an initial window of 2 segments, a 3 s
    /// initial RTO (RFC 1122), no quick ACKs.
    pub fn stack_1997() -> Self {
        TcpModel {
            congestion: Congestion::Reno,
            initial_window: 2,
            initial_rto_ns: 3_000_000_000,
            quick_acks: 0,
            ..TcpModel::linux(Congestion::Reno)
        }
    }
}

/// A segment sent and not yet acknowledged.
#[derive(Debug, Clone, Copy)]
struct InFlight {
    seq: u64,
    len: u64,
    sent_ns: u64,
    /// Sent more than once: no RTT sample from its ACK (Karn's rule).
    again: bool,
    /// The receiver holds it (a SACK block covers it).
    sacked: bool,
    /// Taken as lost and waiting to be sent again.
    lost: bool,
    /// When it was (last) sent, in the order of this sender's transmissions.
    order: u64,
}

/// What the sender wants sent now: a segment of `len` bytes from `seq`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Send {
    pub seq: u64,
    pub len: u64,
    pub retransmit: bool,
}

/// One direction's sender.
#[derive(Debug, Clone)]
pub struct Sender {
    model: TcpModel,
    mss: u64,
    /// Bytes the application has written.
    pub written: u64,
    una: u64,
    nxt: u64,
    /// Everything below this was sent before an RTO sent it again.
    resend_below: u64,
    flight: VecDeque<InFlight>,
    cwnd: u64,
    cwnd_cnt: u64,
    ssthresh: u64,
    /// Transmissions so far (each segment's [`InFlight::order`]).
    sent: u64,
    /// The latest transmission the receiver is known to hold (RACK's `xmit_ts`, by order).
    rack_order: u64,
    /// In recovery until this sequence number is acknowledged.
    recover: Option<u64>,
    srtt_ns: Option<u64>,
    rttvar_ns: u64,
    backoff: u32,
    /// The peer's receive window, bytes beyond `una`.
    pub peer_window: u64,
    cubic: Cubic,
}

/// CUBIC's state between losses.
#[derive(Debug, Clone, Copy, Default)]
struct Cubic {
    w_max: u64,
    last_w_max: u64,
    epoch_start_ns: Option<u64>,
    k_us: u64,
    origin: u64,
    min_rtt_ns: u64,
}

impl Sender {
    pub fn new(model: &TcpModel, mss: u64) -> Self {
        Sender {
            model: model.clone(),
            mss,
            written: 0,
            una: 0,
            nxt: 0,
            resend_below: 0,
            flight: VecDeque::new(),
            sent: 0,
            rack_order: 0,
            cwnd: u64::from(model.initial_window.max(1)),
            cwnd_cnt: 0,
            ssthresh: u64::MAX,
            recover: None,
            srtt_ns: None,
            rttvar_ns: 0,
            backoff: 0,
            peer_window: model.initial_receive_window,
            cubic: Cubic::default(),
        }
    }

    /// Everything below this is acknowledged.
    pub fn una(&self) -> u64 {
        self.una
    }

    /// Whether data is outstanding (the RTO timer must run).
    pub fn outstanding(&self) -> bool {
        !self.flight.is_empty()
    }

    /// The retransmission timeout now, backoff included.
    pub fn rto_ns(&self) -> u64 {
        let base = match self.srtt_ns {
            None => self.model.initial_rto_ns,
            Some(srtt) => srtt + (4 * self.rttvar_ns).max(self.model.min_rto_ns),
        };
        base.saturating_mul(1 << self.backoff.min(16))
            .min(120_000_000_000)
    }

    /// Segments in the network by RFC 6675's count: sent, neither SACKed nor taken as lost.
    fn pipe(&self) -> u64 {
        self.flight.iter().filter(|f| !f.sacked && !f.lost).count() as u64
    }

    /// The segments the window allows now: those taken as lost first (lowest first), then
    /// new data.
    pub fn sendable(&mut self, now_ns: u64) -> Vec<Send> {
        let mut out = Vec::new();
        let mut pipe = self.pipe();
        for f in self.flight.iter_mut() {
            if pipe >= self.cwnd {
                return out;
            }
            if f.lost {
                self.sent += 1;
                f.lost = false;
                f.again = true;
                f.sent_ns = now_ns;
                f.order = self.sent;
                pipe += 1;
                out.push(Send {
                    seq: f.seq,
                    len: f.len,
                    retransmit: true,
                });
            }
        }
        while self.nxt < self.written
            && pipe < self.cwnd
            && self.nxt < self.una + self.peer_window.max(self.mss)
        {
            let len = (self.written - self.nxt).min(self.mss);
            out.push(self.transmit(self.nxt, len, now_ns));
            self.nxt += len;
            pipe += 1;
        }
        out
    }

    fn transmit(&mut self, seq: u64, len: u64, now_ns: u64) -> Send {
        let again = seq < self.resend_below;
        self.sent += 1;
        self.flight.push_back(InFlight {
            seq,
            len,
            sent_ns: now_ns,
            again,
            sacked: false,
            lost: false,
            order: self.sent,
        });
        Send {
            seq,
            len,
            retransmit: again,
        }
    }

    /// An ACK arrived: everything below `ack` is acknowledged, and the receiver holds the
    /// `sack` blocks beyond it. Loss detection is RACK's (RFC 8985) on a link that never
    /// reorders: a segment not yet delivered, sent before one the receiver now holds, is
    /// lost. That starts recovery: the window falls once per episode, and lost segments go
    /// first in [`Sender::sendable`].
    pub fn on_ack(&mut self, ack: u64, sack: &[(u64, u64)], now_ns: u64) {
        let mut acked = 0;
        let mut sample = None;
        if ack > self.una {
            while let Some(front) = self.flight.front() {
                if front.seq + front.len > ack {
                    break;
                }
                if !front.sacked {
                    acked += 1;
                    self.rack_order = self.rack_order.max(front.order);
                    if !front.again {
                        sample = Some(now_ns - front.sent_ns);
                    }
                }
                self.flight.pop_front();
            }
            self.una = ack;
            self.backoff = 0;
        }
        for f in self.flight.iter_mut() {
            if !f.sacked && sack.iter().any(|&(a, b)| a <= f.seq && f.seq + f.len <= b) {
                f.sacked = true;
                f.lost = false;
                acked += 1;
                self.rack_order = self.rack_order.max(f.order);
                if !f.again {
                    sample = Some(now_ns - f.sent_ns);
                }
            }
        }
        if let Some(rtt) = sample {
            self.rtt_sample(rtt);
        }
        let mut newly_lost = false;
        for f in self.flight.iter_mut() {
            if !f.sacked && !f.lost && f.order < self.rack_order {
                f.lost = true;
                newly_lost = true;
            }
        }
        match self.recover {
            Some(point) if self.una >= point => self.recover = None,
            Some(_) => return,
            None => {}
        }
        if newly_lost {
            self.reduce(now_ns);
            self.cwnd = self.ssthresh;
            self.recover = Some(self.nxt);
            return;
        }
        self.grow(acked, now_ns);
    }

    /// The RTO fired: every segment the receiver does not hold is taken as lost, and the
    /// window restarts at one segment.
    pub fn on_rto(&mut self, now_ns: u64) -> Vec<Send> {
        if self.flight.is_empty() {
            return Vec::new();
        }
        self.reduce(now_ns);
        self.cwnd = 1;
        self.cwnd_cnt = 0;
        self.recover = Some(self.nxt);
        self.backoff += 1;
        for f in self.flight.iter_mut() {
            if !f.sacked {
                f.lost = true;
            }
        }
        self.sendable(now_ns)
    }

    fn rtt_sample(&mut self, rtt: u64) {
        self.cubic.min_rtt_ns = match self.cubic.min_rtt_ns {
            0 => rtt,
            m => m.min(rtt),
        };
        match self.srtt_ns {
            None => {
                self.srtt_ns = Some(rtt);
                self.rttvar_ns = rtt / 2;
            }
            Some(srtt) => {
                self.rttvar_ns = (3 * self.rttvar_ns + srtt.abs_diff(rtt)) / 4;
                self.srtt_ns = Some((7 * srtt + rtt) / 8);
            }
        }
    }

    /// Slow start, then congestion avoidance, for `acked` newly acknowledged segments.
    fn grow(&mut self, mut acked: u64, now_ns: u64) {
        if self.cwnd < self.ssthresh {
            let room = self.ssthresh - self.cwnd;
            let used = acked.min(room);
            self.cwnd += used;
            acked -= used;
        }
        if acked == 0 {
            return;
        }
        let per_segment = match self.model.congestion {
            Congestion::Reno => self.cwnd,
            Congestion::Cubic => self.cubic_cnt(now_ns),
        };
        self.cwnd_cnt += acked;
        while self.cwnd_cnt >= per_segment.max(1) {
            self.cwnd_cnt -= per_segment.max(1);
            self.cwnd += 1;
        }
    }

    /// ACKs per one-segment increase under CUBIC now (Linux's `bictcp_update`'s `cnt`).
    fn cubic_cnt(&mut self, now_ns: u64) -> u64 {
        let c = &mut self.cubic;
        let epoch = *c.epoch_start_ns.get_or_insert_with(|| {
            if self.cwnd < c.w_max {
                // K = cbrt((W_max − cwnd) / C) seconds, C = 0.4, in µs.
                let span = u128::from(c.w_max - self.cwnd) * 10 / 4 * 1_000_000_000_000_000_000;
                c.k_us = cube_root(span) as u64;
                c.origin = c.w_max;
            } else {
                c.k_us = 0;
                c.origin = self.cwnd;
            }
            now_ns
        });
        let t_us = (now_ns - epoch + c.min_rtt_ns) / 1_000;
        let d = i128::from(t_us) - i128::from(c.k_us);
        // C·(t − K)³ segments with t in µs: 0.4 · d³ / 10¹⁸.
        let delta = 4 * d * d * d / 10 / 1_000_000_000_000_000_000;
        let target = (i128::from(c.origin) + delta).max(1) as u64;
        if target > self.cwnd {
            (self.cwnd / (target - self.cwnd)).max(1)
        } else {
            100 * self.cwnd
        }
    }

    /// A loss: the slow-start threshold falls (Reno: half; CUBIC: 0.7, with fast convergence).
    fn reduce(&mut self, _now_ns: u64) {
        let base = self.cwnd;
        self.ssthresh = match self.model.congestion {
            Congestion::Reno => (base / 2).max(2),
            Congestion::Cubic => {
                let c = &mut self.cubic;
                c.w_max = if base < c.last_w_max {
                    base * (1024 + 717) / 2048
                } else {
                    base
                };
                c.last_w_max = base;
                c.epoch_start_ns = None;
                (base * 717 / 1024).max(2)
            }
        };
        self.cwnd_cnt = 0;
    }
}

/// ⌊∛n⌋, by bisection: exact and the same on every machine.
pub fn cube_root(n: u128) -> u128 {
    let (mut lo, mut hi) = (0u128, 1u128 << 43);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if mid
            .checked_mul(mid)
            .and_then(|m| m.checked_mul(mid))
            .is_some_and(|c| c <= n)
        {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

/// What the receiver does about a segment that arrived.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AckNow {
    /// Send a pure ACK now.
    Now,
    /// Start the delayed-ACK timer unless it runs.
    Later,
    /// Nothing to acknowledge.
    No,
}

/// One direction's receiver.
#[derive(Debug, Clone)]
pub struct Receiver {
    mss: u64,
    /// Bytes arrived in order.
    pub delivered: u64,
    /// Out-of-order data: start → end.
    holes: BTreeMap<u64, u64>,
    /// In-order bytes arrived since the last ACK sent.
    unacked: u64,
    quick_left: u32,
    quick_acks: u32,
    last_data_ns: Option<u64>,
    segments: u64,
    initial_window: u64,
}

impl Receiver {
    pub fn new(model: &TcpModel, mss: u64) -> Self {
        Receiver {
            mss,
            delivered: 0,
            holes: BTreeMap::new(),
            unacked: 0,
            quick_left: model.quick_acks,
            quick_acks: model.quick_acks,
            last_data_ns: None,
            segments: 0,
            initial_window: model.initial_receive_window,
        }
    }

    /// The window this end advertises, bytes beyond what it has acknowledged.
    pub fn window(&self) -> u64 {
        self.initial_window + 2 * self.mss * self.segments
    }

    /// A data segment `[seq, seq + len)` arrived at `now_ns`; `idle_rto_ns` is this end's RTO
    /// (quick-ACK mode comes back after that long without data).
    pub fn on_data(&mut self, seq: u64, len: u64, now_ns: u64, idle_rto_ns: u64) -> AckNow {
        if self
            .last_data_ns
            .is_some_and(|last| now_ns - last > idle_rto_ns)
        {
            self.quick_left = self.quick_acks;
        }
        self.last_data_ns = Some(now_ns);
        self.segments += 1;
        let end = seq + len;
        if end <= self.delivered {
            return AckNow::Now;
        }
        if seq > self.delivered {
            let e = self.holes.entry(seq).or_insert(end);
            *e = (*e).max(end);
            return AckNow::Now;
        }
        let had_holes = !self.holes.is_empty();
        let before = self.delivered;
        self.delivered = end;
        while let Some((&s, &e)) = self.holes.first_key_value() {
            if s > self.delivered {
                break;
            }
            self.holes.pop_first();
            self.delivered = self.delivered.max(e);
        }
        self.unacked += self.delivered - before;
        if had_holes {
            return AckNow::Now;
        }
        if self.quick_left > 0 {
            self.quick_left -= 1;
            return AckNow::Now;
        }
        if self.unacked > self.mss {
            AckNow::Now
        } else {
            AckNow::Later
        }
    }

    /// The out-of-order blocks it holds, for the SACK option. The sender learns all of them
    /// with every ACK, where a real SACK option carries at most three or four (the sender's
    /// scoreboard then fills over several ACKs): a simplification that speeds up recovery
    /// from many losses in one window, if anything.
    pub fn sack(&self) -> Vec<(u64, u64)> {
        self.holes.iter().map(|(&a, &b)| (a, b)).collect()
    }

    /// An ACK left (alone or with data): nothing is waiting for one.
    pub fn acked(&mut self) {
        self.unacked = 0;
    }

    /// Whether received data waits for an ACK.
    pub fn owes_ack(&self) -> bool {
        self.unacked > 0
    }
}
