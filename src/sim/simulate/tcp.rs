//! The TCP of the simulation: one end's sender (congestion window, loss detection, timers)
//! and receiver (acknowledgement policy), each rule taken from Linux (6.x, the version the
//! emulated replay runs on) and said where. Pure state machines: the engine (`engine.rs`)
//! feeds them packets and times, sends what they ask and runs the one timer each asks for.
//!
//! What is modelled, by its kernel name:
//! - slow start counting segments acknowledged (`tcp_slow_start`), CUBIC (`tcp_cubic.c`:
//!   `bictcp_update` with TCP friendliness and the 5%-per-RTT cap of a first epoch, HyStart's
//!   ACK-train and delay detection) or Reno (`tcp_reno_cong_avoid`), growth only while the
//!   window limits the sender (`tcp_is_cwnd_limited`), the restart after an idle RTO
//!   (`tcp_cwnd_restart`);
//! - SACK with RACK's loss detection (`tcp_recovery.c`: a segment is lost once a segment sent
//!   after it is delivered and the reordering window has passed, min RTT / 4 until three are
//!   SACKed), recovery with proportional rate reduction (`tcp_cwnd_reduction`), the tail loss
//!   probe (`tcp_schedule_loss_probe`), the RTO (`tcp_retransmit_timer`: SRTT + max(4·RTTVAR,
//!   200 ms), 1 s before a sample, doubled on each expiry, then a window of one);
//! - without SACK (a 1997 stack), NewReno: fast retransmit on the third duplicate ACK, the
//!   window inflated by each further one, a partial ACK retransmitting the next hole;
//! - delayed ACKs (`__tcp_ack_snd_check`, `tcp_delack_timer_handler`): an ACK once more than
//!   one full segment is unacknowledged, for data out of order, in quick-ACK mode (16 ACKs,
//!   again after an idle RTO) unless the socket is in "pingpong" mode (the replay sets
//!   `TCP_QUICKACK` off; a reply within 40 ms of data enters it again,
//!   `tcp_pingpong_thresh = 1`), for a short segment when not in pingpong mode, else after
//!   40 ms, whose expiry leaves pingpong mode;
//! - the receive window (`tcp_grow_window`: two segments more per segment, up to
//!   `window_clamp`) and receive-buffer autotuning, which lifts the clamp once a receive
//!   round trip is measured (`tcp_rcv_rtt_measure`, `tcp_rcv_space_adjust`).
//!
//! Not modelled: SACK compression, undo of spurious recoveries (F-RTO, DSACK), ECN, pacing
//! (neither CUBIC nor Reno paces under the default qdisc).

use std::collections::{BTreeMap, VecDeque};

use serde::{Deserialize, Serialize};

/// How the congestion window grows after slow start and shrinks on a loss.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Congestion {
    /// RFC 5681: one segment per window of ACKs; halved on a loss. The 1997 stacks' rule.
    Reno,
    /// RFC 8312 as Linux's `tcp_cubic` (C = 0.4, β = 0.7, fast convergence, TCP
    /// friendliness, HyStart): most servers' default.
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

fn yes() -> bool {
    true
}

fn default_receive_clamp() -> u64 {
    81_920
}

/// The largest receive buffer autotuning may reach (`tcp_rmem[2]`, 32 MiB), and the share
/// of a buffer the window may use on the emulated link ([`TcpModel::receive_clamp`]).
const MAX_RECEIVE_BUFFER: u64 = 33_554_432;
const SCALING_RATIO: (u64, u64) = (160, 256);

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
    /// ACKs sent at once in quick-ACK mode, at the start and after an idle RTO
    /// (`TCP_MAX_QUICKACKS`). Default: 16.
    pub quick_acks: u32,
    /// Delayed ACKs from the first segment, as the replay's sockets have them
    /// (`TCP_QUICKACK` off puts a socket in pingpong mode). Default: `false` (Linux's own
    /// default).
    #[serde(default)]
    pub delayed_from_start: bool,
    /// Selective acknowledgements (RFC 2018), and with them RACK and the tail loss probe.
    /// Default: `true`.
    #[serde(default = "yes")]
    pub sack: bool,
    /// CUBIC's HyStart (leaving slow start when ACKs come in a long train or the RTT grows).
    /// Default: `true`.
    #[serde(default = "yes")]
    pub hystart: bool,
    /// The tail loss probe (`tcp_early_retrans = 3`). Default: `true`.
    #[serde(default = "yes")]
    pub tail_loss_probe: bool,
    /// Receive window advertised in the SYN; it then grows by two segments for every segment
    /// received (`tcp_grow_window`), up to [`TcpModel::receive_clamp`]. Default: 64,240 bytes
    /// (44 segments of 1,460, what Linux advertises with `tcp_rmem`'s default of 131,072).
    pub initial_receive_window: u64,
    /// The receive window's ceiling (`window_clamp`) until receive-buffer autotuning first
    /// raises it: the buffer (`tcp_rmem[1]`, 131,072) times the share of it a segment's
    /// payload may count on (`scaling_ratio`, learnt from the first segment's length over its
    /// buffer's true size: 160/256 on the emulated link's TUN device). Default: 81,920 bytes,
    /// the ceiling a capture of the emulated Cable link shows (docs/simulation.md).
    #[serde(default = "default_receive_clamp")]
    pub receive_clamp: u64,
    /// Receive-buffer autotuning (`tcp_moderate_rcvbuf = 1`, `tcp_rcv_space_adjust`): once a
    /// receive round trip has been measured (the time one window of data takes to arrive,
    /// `tcp_rcv_rtt_measure` without timestamps), each round trip in which more arrived than
    /// in the last raises the ceiling to 2 × that + 16 segments, doubled for the sender's
    /// growth. Default: `true`.
    #[serde(default = "yes")]
    pub receive_autotuning: bool,
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
            delayed_from_start: false,
            sack: true,
            hystart: true,
            tail_loss_probe: true,
            initial_receive_window: 64_240,
            receive_clamp: default_receive_clamp(),
            receive_autotuning: true,
            syn_bytes: 52,
            header_bytes: 40,
        }
    }

    /// A 1997 stack (RFC 2001 and 2414 era): Reno, an initial window of 2 segments, a 3 s
    /// initial RTO (RFC 1122), no SACK (so no RACK and no tail loss probe: NewReno recovery),
    /// delayed ACKs from the start.
    pub fn stack_1997() -> Self {
        TcpModel {
            congestion: Congestion::Reno,
            initial_window: 2,
            initial_rto_ns: 3_000_000_000,
            quick_acks: 0,
            delayed_from_start: true,
            sack: false,
            hystart: false,
            tail_loss_probe: false,
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

/// The sender's timers, of which the earliest runs (Linux has one slot, `icsk_pending`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Timer {
    /// RACK's reordering window has passed for a segment.
    Reorder,
    /// The tail loss probe.
    Probe,
    /// The retransmission timeout.
    Retransmit,
}

/// Fast recovery in progress (proportional rate reduction, RFC 6937).
#[derive(Debug, Clone, Copy)]
struct Recovery {
    /// Recovery ends when everything below this is acknowledged.
    recover: u64,
    prior_cwnd: u64,
    prr_delivered: u64,
    prr_out: u64,
}

/// CUBIC's state between losses (`struct bictcp`).
#[derive(Debug, Clone, Copy, Default)]
struct Cubic {
    /// W_max after fast convergence (`last_max_cwnd`), and the window at the last loss.
    w_max: u64,
    last_w_max: u64,
    epoch_start_ns: Option<u64>,
    k_us: u64,
    origin: u64,
    /// The Reno-equivalent window and its ACK count (TCP friendliness).
    tcp_cwnd: u64,
    ack_cnt: u64,
}

/// HyStart's state (`struct bictcp`'s round fields).
#[derive(Debug, Clone, Copy, Default)]
struct Hystart {
    found: bool,
    started: bool,
    round_start_ns: u64,
    last_ack_ns: u64,
    end_seq: u64,
    curr_rtt_ns: u64,
    sample_cnt: u32,
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
    /// RACK: the latest transmission known delivered, when it was sent and its RTT.
    rack_order: u64,
    rack_sent_ns: u64,
    rack_rtt_ns: u64,
    recovery: Option<Recovery>,
    /// After an RTO, until everything then outstanding is acknowledged (`TCP_CA_Loss`).
    loss_recover: Option<u64>,
    /// Duplicate ACKs in a row (without SACK).
    dupacks: u32,
    srtt_ns: Option<u64>,
    rttvar_ns: u64,
    min_rtt_ns: u64,
    backoff: u32,
    /// The peer's receive window, bytes beyond `una`.
    pub peer_window: u64,
    cubic: Cubic,
    hystart: Hystart,
    /// The window's use (`tcp_cwnd_validate`): whether it limited the sender, the most
    /// segments out, and until which sequence number these hold.
    max_in_flight: u64,
    usage_seq: u64,
    cwnd_limited: bool,
    last_send_ns: Option<u64>,
    /// Timers: when each fires, if armed.
    rto_at: Option<u64>,
    probe_at: Option<u64>,
    reorder_at: Option<u64>,
    /// A tail loss probe is out and not yet acknowledged (`tlp_high_seq`).
    probe_out: Option<u64>,
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
            rack_sent_ns: 0,
            rack_rtt_ns: 0,
            cwnd: u64::from(model.initial_window.max(1)),
            cwnd_cnt: 0,
            ssthresh: u64::MAX,
            recovery: None,
            loss_recover: None,
            dupacks: 0,
            srtt_ns: None,
            rttvar_ns: 0,
            min_rtt_ns: 0,
            backoff: 0,
            peer_window: model.initial_receive_window,
            cubic: Cubic::default(),
            hystart: Hystart::default(),
            max_in_flight: 0,
            usage_seq: 0,
            cwnd_limited: false,
            last_send_ns: None,
            rto_at: None,
            probe_at: None,
            reorder_at: None,
            probe_out: None,
        }
    }

    /// Everything below this is acknowledged.
    pub fn una(&self) -> u64 {
        self.una
    }

    /// Whether data is outstanding.
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

    /// The timer to run: the earliest armed, and when.
    pub fn timer(&self) -> Option<(u64, Timer)> {
        [
            (self.reorder_at, Timer::Reorder),
            (self.probe_at, Timer::Probe),
            (self.rto_at, Timer::Retransmit),
        ]
        .into_iter()
        .filter_map(|(at, t)| at.map(|at| (at, t)))
        .min_by_key(|(at, _)| *at)
    }

    /// Segments in the network by RFC 6675's count: sent, neither SACKed nor taken as lost.
    fn pipe(&self) -> u64 {
        self.flight.iter().filter(|f| !f.sacked && !f.lost).count() as u64
    }

    fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// The segments the window allows now: those taken as lost first (lowest first), then
    /// new data.
    pub fn sendable(&mut self, now_ns: u64) -> Vec<Send> {
        self.restart_after_idle(now_ns);
        let mut out = Vec::new();
        let mut pipe = self.pipe();
        let cwnd = self.cwnd;
        for f in self.flight.iter_mut() {
            if pipe >= cwnd {
                break;
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
        let mut new_data = false;
        while self.nxt < self.written
            && pipe < self.cwnd
            && self.nxt < self.una + self.peer_window.max(self.mss)
        {
            let len = (self.written - self.nxt).min(self.mss);
            out.push(self.transmit(self.nxt, len, now_ns));
            self.nxt += len;
            pipe += 1;
            new_data = true;
        }
        if let Some(r) = &mut self.recovery {
            r.prr_out += out.len() as u64;
        }
        let limited = pipe >= self.cwnd;
        if !out.is_empty() || limited {
            self.validate_cwnd(limited);
        }
        if !out.is_empty() {
            self.last_send_ns = Some(now_ns);
            if self.rto_at.is_none() {
                self.rto_at = Some(now_ns + self.rto_ns());
            }
        }
        if new_data {
            self.schedule_probe(now_ns);
        }
        out
    }

    fn transmit(&mut self, seq: u64, len: u64, now_ns: u64) -> Send {
        let again = seq < self.resend_below;
        self.sent += 1;
        if !self.hystart.started {
            self.hystart_reset(now_ns);
            self.hystart.started = true;
        }
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

    /// `tcp_cwnd_restart`: after more than an RTO without sending, the window halves per RTO
    /// idle, down to the initial window (`tcp_slow_start_after_idle = 1`).
    fn restart_after_idle(&mut self, now_ns: u64) {
        let Some(last) = self.last_send_ns else {
            return;
        };
        if !self.flight.is_empty() {
            return;
        }
        let rto = self.rto_ns();
        let mut idle = now_ns.saturating_sub(last);
        if idle <= rto {
            return;
        }
        let restart = u64::from(self.model.initial_window.max(1)).min(self.cwnd);
        self.ssthresh = self.ssthresh.max(self.cwnd * 3 / 4);
        while idle > rto && self.cwnd > restart {
            idle -= rto;
            self.cwnd /= 2;
        }
        self.cwnd = self.cwnd.max(restart);
        self.cubic.epoch_start_ns = None;
    }

    /// Arms the tail loss probe (`tcp_schedule_loss_probe`): 2·SRTT after the last send, plus
    /// 200 ms with a single segment out (its ACK may be delayed), never after the RTO.
    fn schedule_probe(&mut self, now_ns: u64) {
        let eligible = self.model.tail_loss_probe
            && self.model.sack
            && self.recovery.is_none()
            && self.loss_recover.is_none()
            && self.probe_out.is_none()
            && !self.flight.is_empty();
        if !eligible {
            self.probe_at = None;
            return;
        }
        let pto = match self.srtt_ns {
            Some(srtt) => {
                2 * srtt
                    + if self.flight.len() == 1 {
                        self.model.min_rto_ns
                    } else {
                        2_000_000
                    }
            }
            None => self.model.initial_rto_ns,
        };
        let at = now_ns + pto;
        self.probe_at = Some(match self.rto_at {
            Some(rto) => at.min(rto),
            None => at,
        });
    }

    /// An ACK arrived: everything below `ack` is acknowledged, and the receiver holds the
    /// `sack` blocks beyond it.
    pub fn on_ack(&mut self, ack: u64, sack: &[(u64, u64)], now_ns: u64) {
        let una_before = self.una;
        let mut delivered = 0u64;
        let mut rtt_oldest = None;
        let mut rtt_newest = None;
        let mut sample = |f: &InFlight, rack: &mut (u64, u64, u64), min_rtt: u64| {
            let rtt = now_ns - f.sent_ns;
            if !f.again {
                rtt_oldest.get_or_insert(rtt);
                rtt_newest = Some(rtt);
            }
            // RACK: the most recently sent segment known delivered (a retransmission faster
            // than the minimum RTT may be the original's ACK, so it does not count).
            if (!f.again || rtt >= min_rtt) && f.order > rack.0 {
                *rack = (f.order, f.sent_ns, rtt);
            }
        };
        let mut rack = (self.rack_order, self.rack_sent_ns, self.rack_rtt_ns);
        if ack > self.una {
            while let Some(front) = self.flight.front() {
                if front.seq + front.len > ack {
                    break;
                }
                let f = *front;
                if !f.sacked {
                    delivered += 1;
                    sample(&f, &mut rack, self.min_rtt_ns);
                }
                self.flight.pop_front();
            }
            self.una = ack;
            self.backoff = 0;
            self.dupacks = 0;
        } else if !self.flight.is_empty() && sack.is_empty() && ack == self.una {
            self.dupacks += 1;
        }
        for f in self.flight.iter_mut() {
            if !f.sacked && sack.iter().any(|&(a, b)| a <= f.seq && f.seq + f.len <= b) {
                f.sacked = true;
                f.lost = false;
                delivered += 1;
                sample(f, &mut rack, self.min_rtt_ns);
            }
        }
        (self.rack_order, self.rack_sent_ns, self.rack_rtt_ns) = rack;
        if let Some(rtt) = rtt_oldest {
            self.rtt_sample(rtt);
        }
        // The minimum RTT (`tcp_update_rtt_min`) takes the newest segment's RTT
        // (`ca_rtt_us`), where the smoothed RTT takes the oldest's (`seq_rtt_us`): an ACK
        // for two segments measures the second's, one segment's serialisation less.
        if let Some(rtt) = rtt_newest {
            self.min_rtt_ns = match self.min_rtt_ns {
                0 => rtt.max(1),
                m => m.min(rtt.max(1)),
            };
        }
        let una_advanced = self.una > una_before;
        if self.probe_out.is_some_and(|high| self.una >= high) {
            self.probe_out = None;
        }
        if let Some(rtt) = rtt_newest {
            self.hystart_sample(rtt, now_ns);
        }
        let newly_lost = if self.model.sack {
            self.rack_detect(now_ns)
        } else {
            self.dupack_detect(una_advanced)
        };
        if self.loss_recover.is_some_and(|point| self.una >= point) {
            self.loss_recover = None;
        }
        match self.recovery {
            Some(r) if self.una >= r.recover => {
                // `tcp_end_cwnd_reduction`.
                self.recovery = None;
                self.cwnd = self.ssthresh;
            }
            Some(_) => self.reduce_in_recovery(delivered, newly_lost, una_advanced),
            None if newly_lost > 0 => {
                self.enter_recovery(now_ns);
                self.reduce_in_recovery(delivered.max(1), newly_lost, una_advanced);
            }
            None => self.grow(delivered, now_ns),
        }
        // Timers: the RTO restarts on every ACK of new data; the probe is rescheduled.
        if self.flight.is_empty() {
            self.rto_at = None;
            self.probe_at = None;
        } else if una_advanced {
            self.rto_at = Some(now_ns + self.rto_ns());
            self.schedule_probe(now_ns);
        }
    }

    /// After a send (`tcp_cwnd_validate`): the window's use is noted for the current window
    /// of data, replaced once that window is acknowledged, when the window limited this send,
    /// or when more is out than noted.
    fn validate_cwnd(&mut self, limited: bool) {
        let out = self.flight.len() as u64;
        if self.una >= self.usage_seq || limited || (!self.cwnd_limited && out > self.max_in_flight)
        {
            self.cwnd_limited = limited;
            self.max_in_flight = out;
            self.usage_seq = self.nxt;
        }
    }

    /// Whether the window is what limits the sender (`tcp_is_cwnd_limited`): it was full in
    /// the current window of data; or, in slow start, it is less than twice what was out.
    fn cwnd_limited(&self) -> bool {
        self.cwnd_limited || (self.in_slow_start() && self.cwnd < 2 * self.max_in_flight)
    }

    /// RACK (`tcp_rack_detect_loss`): a segment neither SACKed nor lost yet, sent before the
    /// latest one delivered, is lost once that one's RTT and the reordering window have
    /// passed since it was sent; the earliest such deadline still ahead arms the timer.
    fn rack_detect(&mut self, now_ns: u64) -> u64 {
        let sacked = self.flight.iter().filter(|f| f.sacked).count();
        let reorder_window = if self.recovery.is_some() || sacked >= 3 {
            0
        } else {
            (self.min_rtt_ns / 4).min(self.srtt_ns.unwrap_or(u64::MAX))
        };
        let mut lost = 0;
        let mut next: Option<u64> = None;
        for f in self.flight.iter_mut() {
            if f.sacked || f.lost || f.order >= self.rack_order {
                continue;
            }
            let deadline = f.sent_ns + self.rack_rtt_ns + reorder_window;
            if deadline <= now_ns {
                f.lost = true;
                lost += 1;
            } else {
                next = Some(next.map_or(deadline, |n: u64| n.min(deadline)));
            }
        }
        self.reorder_at = next;
        lost
    }

    /// Without SACK: fast retransmit of the first unacknowledged segment on the third
    /// duplicate ACK, and of the next one on each partial ACK in recovery (NewReno).
    fn dupack_detect(&mut self, una_advanced: bool) -> u64 {
        let in_recovery = self.recovery.is_some();
        let mark = (!in_recovery && self.dupacks == 3) || (in_recovery && una_advanced);
        match self.flight.front_mut() {
            Some(f) if mark && !f.lost => {
                f.lost = true;
                1
            }
            _ => 0,
        }
    }

    fn enter_recovery(&mut self, _now_ns: u64) {
        let prior_cwnd = self.cwnd;
        self.ssthresh = self.loss_threshold();
        self.recovery = Some(Recovery {
            recover: self.nxt,
            prior_cwnd,
            prr_delivered: 0,
            prr_out: 0,
        });
        self.probe_at = None;
        if !self.model.sack {
            // Classic fast recovery: the window inflated by the three duplicate ACKs.
            self.cwnd = self.ssthresh + 3;
        }
    }

    /// The window during recovery. With SACK, proportional rate reduction as Linux's
    /// `tcp_cwnd_reduction`: toward `ssthresh` in proportion to what was delivered; without,
    /// NewReno's inflation by each duplicate ACK.
    fn reduce_in_recovery(&mut self, delivered: u64, newly_lost: u64, una_advanced: bool) {
        if !self.model.sack {
            if !una_advanced {
                self.cwnd += 1;
            } else {
                self.cwnd = self.ssthresh;
            }
            return;
        }
        let pipe = self.pipe();
        let ssthresh = self.ssthresh;
        let Some(r) = self.recovery.as_mut() else {
            return;
        };
        if delivered == 0 {
            return;
        }
        r.prr_delivered += delivered;
        let mut sndcnt: i64 = if pipe > ssthresh {
            let due = (ssthresh * r.prr_delivered + r.prior_cwnd - 1) / r.prior_cwnd.max(1);
            due as i64 - r.prr_out as i64
        } else {
            let mut n = (r.prr_delivered as i64 - r.prr_out as i64).max(delivered as i64);
            if una_advanced && newly_lost == 0 {
                n += 1;
            }
            n.min((ssthresh - pipe) as i64)
        };
        // A fast retransmit goes out on entering recovery, whatever the count says.
        sndcnt = sndcnt.max(i64::from(r.prr_out == 0));
        self.cwnd = pipe + sndcnt.max(0) as u64;
    }

    /// A timer fired: what goes out.
    pub fn on_timer(&mut self, timer: Timer, now_ns: u64) -> Vec<Send> {
        match timer {
            Timer::Reorder => {
                self.reorder_at = None;
                let lost = self.rack_detect(now_ns);
                if lost > 0 && self.recovery.is_none() {
                    self.enter_recovery(now_ns);
                    self.reduce_in_recovery(1, lost, false);
                }
                self.sendable(now_ns)
            }
            Timer::Probe => {
                self.probe_at = None;
                self.probe(now_ns)
            }
            Timer::Retransmit => self.on_rto(now_ns),
        }
    }

    /// The tail loss probe (`tcp_send_loss_probe`): new data if the receiver's window allows,
    /// else the last segment sent again; either way whatever the congestion window says.
    fn probe(&mut self, now_ns: u64) -> Vec<Send> {
        if self.flight.is_empty() {
            return Vec::new();
        }
        let mut out = Vec::new();
        if self.nxt < self.written && self.nxt < self.una + self.peer_window.max(self.mss) {
            let len = (self.written - self.nxt).min(self.mss);
            out.push(self.transmit(self.nxt, len, now_ns));
            self.nxt += len;
        } else if let Some(f) = self.flight.iter_mut().rev().find(|f| !f.sacked) {
            self.sent += 1;
            f.again = true;
            f.lost = false;
            f.sent_ns = now_ns;
            f.order = self.sent;
            out.push(Send {
                seq: f.seq,
                len: f.len,
                retransmit: true,
            });
        }
        self.probe_out = Some(self.nxt);
        self.last_send_ns = Some(now_ns);
        self.rto_at = Some(now_ns + self.rto_ns());
        out
    }

    /// The RTO fired: every segment the receiver does not hold is taken as lost, and the
    /// window restarts at one segment.
    pub fn on_rto(&mut self, now_ns: u64) -> Vec<Send> {
        if self.flight.is_empty() {
            self.rto_at = None;
            return Vec::new();
        }
        if self.loss_recover.is_none() {
            self.ssthresh = self.loss_threshold();
        }
        self.cwnd = 1;
        self.cwnd_cnt = 0;
        self.recovery = None;
        self.loss_recover = Some(self.nxt);
        self.resend_below = self.nxt;
        self.backoff += 1;
        self.probe_at = None;
        self.reorder_at = None;
        self.probe_out = None;
        self.dupacks = 0;
        self.hystart = Hystart::default();
        for f in self.flight.iter_mut() {
            if !f.sacked {
                f.lost = true;
            }
        }
        self.rto_at = Some(now_ns + self.rto_ns());
        self.sendable(now_ns)
    }

    fn rtt_sample(&mut self, rtt: u64) {
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

    fn hystart_reset(&mut self, now_ns: u64) {
        let h = &mut self.hystart;
        h.round_start_ns = now_ns;
        h.last_ack_ns = now_ns;
        h.end_seq = self.nxt;
        h.curr_rtt_ns = u64::MAX;
        h.sample_cnt = 0;
    }

    /// CUBIC's HyStart (`hystart_update`), on an RTT sample from the newest segment an ACK
    /// delivered: slow start ends (`ssthresh = cwnd`) when ACKs have come in a train closely
    /// spaced for more than half the minimum RTT, or when the round's RTT has grown by an
    /// eighth of the minimum (4 to 16 ms) over it.
    fn hystart_sample(&mut self, rtt: u64, now_ns: u64) {
        let wanted = self.model.congestion == Congestion::Cubic && self.model.hystart;
        if !wanted || self.hystart.found || !self.in_slow_start() || self.loss_recover.is_some() {
            return;
        }
        let delay_min = self.min_rtt_ns.max(1);
        if self.una > self.hystart.end_seq {
            self.hystart_reset(now_ns);
        }
        if self.cwnd < 16 {
            return;
        }
        let h = &mut self.hystart;
        if now_ns.saturating_sub(h.last_ack_ns) <= 2_000_000 {
            h.last_ack_ns = now_ns;
            // `hystart_ack_delay`: up to 1 ms for TSO/GRO bunching at the pacing rate
            // (twice cwnd per SRTT in slow start).
            let srtt = self.srtt_ns.unwrap_or(delay_min).max(1);
            let rate = 2 * self.cwnd * self.mss * 1_000_000_000 / srtt;
            let ack_delay = (65_536u64 * 4 * 1_000_000_000 / rate.max(1)).min(1_000_000);
            if now_ns - h.round_start_ns > (delay_min + ack_delay) / 2 {
                h.found = true;
                self.ssthresh = self.cwnd;
                return;
            }
        }
        h.curr_rtt_ns = h.curr_rtt_ns.min(rtt);
        if h.sample_cnt < 8 {
            h.sample_cnt += 1;
        } else if h.curr_rtt_ns > delay_min + (delay_min / 8).clamp(4_000_000, 16_000_000) {
            h.found = true;
            self.ssthresh = self.cwnd;
        }
    }

    /// Slow start, then congestion avoidance, for `acked` newly delivered segments, while the
    /// window limits the sender.
    fn grow(&mut self, mut acked: u64, now_ns: u64) {
        if acked == 0 || !self.cwnd_limited() {
            return;
        }
        if self.in_slow_start() {
            let room = self.ssthresh - self.cwnd;
            let used = acked.min(room);
            self.cwnd += used;
            acked -= used;
            if acked == 0 {
                return;
            }
        }
        let per_segment = match self.model.congestion {
            Congestion::Reno => self.cwnd,
            Congestion::Cubic => self.cubic_cnt(acked, now_ns),
        }
        .max(1);
        // `tcp_cong_avoid_ai`.
        if self.cwnd_cnt >= per_segment {
            self.cwnd_cnt = 0;
            self.cwnd += 1;
        }
        self.cwnd_cnt += acked;
        if self.cwnd_cnt >= per_segment {
            let delta = self.cwnd_cnt / per_segment;
            self.cwnd_cnt -= delta * per_segment;
            self.cwnd += delta;
        }
    }

    /// ACKs per one-segment increase under CUBIC now (`bictcp_update`'s `cnt`).
    fn cubic_cnt(&mut self, acked: u64, now_ns: u64) -> u64 {
        let cwnd = self.cwnd;
        let min_rtt = self.min_rtt_ns;
        let c = &mut self.cubic;
        let epoch = match c.epoch_start_ns {
            Some(e) => {
                c.ack_cnt += acked;
                e
            }
            None => {
                c.ack_cnt = acked;
                c.tcp_cwnd = cwnd;
                if cwnd < c.w_max {
                    // K = cbrt((W_max − cwnd) / C) seconds, C = 0.4, in µs.
                    let span = u128::from(c.w_max - cwnd) * 10 / 4 * 1_000_000_000_000_000_000;
                    c.k_us = cube_root(span) as u64;
                    c.origin = c.w_max;
                } else {
                    c.k_us = 0;
                    c.origin = cwnd;
                }
                c.epoch_start_ns = Some(now_ns);
                now_ns
            }
        };
        let t_us = (now_ns - epoch + min_rtt) / 1_000;
        let d = i128::from(t_us) - i128::from(c.k_us);
        // C·(t − K)³ segments with t in µs: 0.4 · d³ / 10¹⁸.
        let delta = 4 * d * d * d / 10 / 1_000_000_000_000_000_000;
        let target = (i128::from(c.origin) + delta).max(1) as u64;
        let mut cnt = if target > cwnd {
            (cwnd / (target - cwnd)).max(1)
        } else {
            100 * cwnd
        };
        // A first epoch (no loss yet) grows at most 5% per RTT.
        if c.last_w_max == 0 && cnt > 20 {
            cnt = 20;
        }
        // TCP friendliness: never slower than Reno with CUBIC's β would be (β_scale = 15).
        let delta = (cwnd * 15) >> 3;
        while c.ack_cnt > delta && delta > 0 {
            c.ack_cnt -= delta;
            c.tcp_cwnd += 1;
        }
        if c.tcp_cwnd > cwnd {
            let max_cnt = cwnd / (c.tcp_cwnd - cwnd);
            cnt = cnt.min(max_cnt);
        }
        cnt.max(2)
    }

    /// The slow-start threshold after a loss (Reno: half; CUBIC: 0.7, with fast convergence).
    fn loss_threshold(&mut self) -> u64 {
        let base = self.cwnd;
        self.cwnd_cnt = 0;
        match self.model.congestion {
            Congestion::Reno => (base / 2).max(2),
            Congestion::Cubic => {
                let c = &mut self.cubic;
                c.w_max = if base < c.last_w_max {
                    base * (1024 + 717) / 2048
                } else {
                    base
                };
                c.last_w_max = base.max(1);
                c.epoch_start_ns = None;
                (base * 717 / 1024).max(2)
            }
        }
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
    /// Send a pure ACK now (unless data leaving at once carries it).
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
    /// Quick ACKs left (`icsk_ack.quick`), and the most it gets back.
    quick: u32,
    quick_acks: u32,
    /// Delayed ACKs even in quick-ACK mode (`icsk_ack.pingpong`).
    pingpong: bool,
    last_data_ns: Option<u64>,
    /// The window offered (`rcv_ssthresh`): two segments more for every segment received,
    /// never above `clamp`.
    offered: u64,
    /// Its ceiling (`window_clamp`).
    clamp: u64,
    /// Receive-buffer autotuning's state, `None` when it is off.
    autotune: Option<Autotune>,
    delayed_ack_ns: u64,
}

/// `tcp_rcv_space_adjust`'s state (`rcvq_space`) and the receive round trip it waits for
/// (`rcv_rtt_est`).
#[derive(Debug, Clone)]
struct Autotune {
    /// Bytes read in the last round trip that raised the buffer (`rcvq_space.space`): at
    /// first 10 segments (`tcp_init_buffer_space`).
    space: u64,
    /// Where and when the current round trip began (`rcvq_space.seq`, `.time`): at first
    /// the connection's establishment.
    since_seq: u64,
    since_ns: Option<u64>,
    /// The receive round trip measured so far (the least of the samples, as Linux keeps it
    /// without timestamps), and the sample in progress: when `delivered` reaches the
    /// sequence number, one window of data has arrived since the time.
    rtt_ns: Option<u64>,
    mark: Option<(u64, u64)>,
}

impl Receiver {
    pub fn new(model: &TcpModel, mss: u64) -> Self {
        Receiver {
            mss,
            delivered: 0,
            holes: BTreeMap::new(),
            unacked: 0,
            quick: model.quick_acks,
            quick_acks: model.quick_acks,
            pingpong: model.delayed_from_start,
            last_data_ns: None,
            offered: model.initial_receive_window,
            clamp: model.receive_clamp.max(model.initial_receive_window),
            autotune: model.receive_autotuning.then(|| Autotune {
                space: 10 * mss,
                since_seq: 0,
                since_ns: None,
                rtt_ns: None,
                mark: None,
            }),
            delayed_ack_ns: model.delayed_ack_ns,
        }
    }

    /// The window this end advertises, bytes beyond what it has acknowledged.
    pub fn window(&self) -> u64 {
        self.offered
    }

    /// The connection is established at `now_ns`: autotuning's first round trip begins.
    pub fn established(&mut self, now_ns: u64) {
        if let Some(a) = &mut self.autotune {
            a.since_ns.get_or_insert(now_ns);
        }
    }

    /// In-order data arrived and was read at `now_ns`, with `window` the window last
    /// advertised: the receive round trip is measured (`tcp_rcv_rtt_measure`, one window of
    /// data from now) and, once a round trip has passed with more read than in the last, the
    /// buffer and the window's ceiling grow (`tcp_rcv_space_adjust`).
    fn autotune(&mut self, now_ns: u64, window: u64) {
        let (delivered, mss) = (self.delivered, self.mss);
        let Some(a) = &mut self.autotune else {
            return;
        };
        match a.mark {
            Some((seq, _)) if delivered < seq => {}
            Some((_, start)) => {
                let sample = (now_ns - start).max(1);
                a.rtt_ns = Some(a.rtt_ns.map_or(sample, |r| r.min(sample)));
                a.mark = Some((delivered + window, now_ns));
            }
            None => a.mark = Some((delivered + window, now_ns)),
        }
        let (Some(rtt), Some(since)) = (a.rtt_ns, a.since_ns) else {
            return;
        };
        if now_ns - since < rtt {
            return;
        }
        let copied = delivered - a.since_seq;
        if copied > a.space {
            let mut win = 2 * copied + 16 * mss;
            win = win.saturating_add(2 * (win.saturating_mul(copied - a.space) / a.space));
            let ceiling = MAX_RECEIVE_BUFFER * SCALING_RATIO.0 / SCALING_RATIO.1;
            self.clamp = self.clamp.max(win.min(ceiling));
            a.space = copied;
        }
        a.since_seq = delivered;
        a.since_ns = Some(now_ns);
    }

    /// A data segment `[seq, seq + len)` arrived at `now_ns`; `idle_rto_ns` is this end's RTO
    /// (quick-ACK mode comes back after that long without data).
    pub fn on_data(&mut self, seq: u64, len: u64, now_ns: u64, idle_rto_ns: u64) -> AckNow {
        if self
            .last_data_ns
            .is_some_and(|last| now_ns - last > idle_rto_ns)
        {
            self.quick = self.quick_acks;
        }
        self.last_data_ns = Some(now_ns);
        let advertised = self.offered;
        self.offered = (self.offered + 2 * self.mss).min(self.clamp);
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
        self.autotune(now_ns, advertised);
        if had_holes || self.unacked > self.mss {
            return AckNow::Now;
        }
        if !self.pingpong && (self.quick > 0 || len < self.mss) {
            // Quick-ACK mode, or a short segment the application reads at once
            // (`tcp_cleanup_rbuf`'s `ICSK_ACK_PUSHED`).
            return AckNow::Now;
        }
        AckNow::Later
    }

    /// The out-of-order blocks it holds, for the SACK option. The sender learns all of them
    /// with every ACK, where a real SACK option carries at most three or four (the sender's
    /// scoreboard then fills over several ACKs): a simplification that speeds up recovery
    /// from many losses in one window, if anything.
    pub fn sack(&self) -> Vec<(u64, u64)> {
        self.holes.iter().map(|(&a, &b)| (a, b)).collect()
    }

    /// An ACK left (alone or with data): nothing is waiting for one; a quick ACK is used up
    /// (`tcp_dec_quickack_mode`).
    pub fn acked(&mut self) {
        if self.unacked > 0 {
            self.quick = self.quick.saturating_sub(1);
        }
        self.unacked = 0;
    }

    /// Whether received data waits for an ACK.
    pub fn owes_ack(&self) -> bool {
        self.unacked > 0
    }

    /// The delayed-ACK timer fired: leaving pingpong mode (`tcp_delack_timer_handler`).
    pub fn delayed_ack_fired(&mut self) {
        self.pingpong = false;
    }

    /// This end sent data: a reply within the delayed-ACK time of the last data received
    /// puts the socket in pingpong mode (`tcp_event_data_sent`, `tcp_pingpong_thresh = 1`).
    pub fn data_sent(&mut self, now_ns: u64) {
        if self
            .last_data_ns
            .is_some_and(|last| now_ns.saturating_sub(last) < self.delayed_ack_ns)
        {
            self.pingpong = true;
        }
    }
}
