//! One direction of an emulated link as a pure function of time: given when a packet arrives
//! and how long it is, say whether it is lost, dropped by the full queue, or when it reaches
//! the far end. No clock and no I/O here, so the model is tested with a virtual clock; the
//! forwarder asks it and holds the packet until then.
//!
//! Order of events, per packet: random loss on arrival (as dummynet and netem apply their loss
//! rates, and so the loss pattern depends only on the arrival order); then the drop-tail queue,
//! which holds packets waiting for the link (the one being serialized has left it, as in
//! Mahimahi); then serialization, at a constant rate or in a trace's delivery opportunities;
//! then the propagation delay. FIFO throughout, so release times never decrease.

use std::collections::VecDeque;

use super::loss::LossProcess;
use super::spec::{Direction, QueueLimit, Rate};
use super::trace::{Trace, OPPORTUNITY_BYTES};

/// What becomes of one packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// It reaches the far end at this time (ns on the caller's clock).
    Deliver { at_ns: u64 },
    /// Lost at random.
    Lost,
    /// The queue was full (drop-tail).
    QueueFull,
}

/// How the link serializes: fixed for the life of the shaper.
#[derive(Debug, Clone)]
enum Serializer {
    Unlimited,
    Constant { bits_per_second: u64 },
    Trace(Trace),
}

/// Where the serializer stands after the packets admitted so far.
#[derive(Debug, Clone, Copy, Default)]
struct Position {
    /// Constant rate: when the last admitted packet's final bit leaves.
    free_at_ns: u64,
    /// Trace: the delivery opportunity last used (counted across repetitions of the trace)
    /// and its bytes still unused; `None` before the first packet.
    opportunity: Option<(u64, u32)>,
}

/// One direction's model. Times are ns since the link's epoch (the trace's time 0).
#[derive(Debug, Clone)]
pub struct Shaper {
    serializer: Serializer,
    position: Position,
    delay_ns: u64,
    limit: QueueLimit,
    /// Packets waiting for the link: (time their serialization starts, bytes).
    waiting: VecDeque<(u64, u32)>,
    waiting_bytes: u64,
    loss: LossProcess,
}

impl Shaper {
    pub fn new(direction: &Direction, seed: u64) -> Self {
        let serializer = match &direction.rate {
            Rate::Unlimited => Serializer::Unlimited,
            Rate::BitsPerSecond(bps) => Serializer::Constant {
                bits_per_second: *bps,
            },
            Rate::Trace(trace) => Serializer::Trace(trace.clone()),
        };
        Shaper {
            serializer,
            position: Position::default(),
            delay_ns: direction.delay.as_nanos() as u64,
            limit: direction.queue,
            waiting: VecDeque::new(),
            waiting_bytes: 0,
            loss: LossProcess::new(direction.loss, seed),
        }
    }

    /// Offers a packet of `len` bytes arriving at `now_ns` (never earlier than the previous).
    pub fn offer(&mut self, now_ns: u64, len: u32) -> Verdict {
        if self.loss.lose_next() {
            return Verdict::Lost;
        }
        while let Some(&(start, bytes)) = self.waiting.front() {
            if start > now_ns {
                break;
            }
            self.waiting.pop_front();
            self.waiting_bytes -= u64::from(bytes);
        }
        let (start, finish, next) = self.plan(now_ns, len);
        if start > now_ns {
            let bytes = self.waiting_bytes + u64::from(len);
            if !self.limit.holds(self.waiting.len() + 1, bytes) {
                return Verdict::QueueFull;
            }
            self.waiting.push_back((start, len));
            self.waiting_bytes = bytes;
        }
        self.position = next;
        Verdict::Deliver {
            at_ns: finish + self.delay_ns,
        }
    }

    /// Packets waiting for the link after the last offer.
    pub fn queued(&self) -> usize {
        self.waiting.len()
    }

    /// When the packet would start and finish serializing, and the position after it.
    fn plan(&self, now_ns: u64, len: u32) -> (u64, u64, Position) {
        let mut next = self.position;
        match &self.serializer {
            Serializer::Unlimited => (now_ns, now_ns, next),
            &Serializer::Constant { bits_per_second } => {
                let start = self.position.free_at_ns.max(now_ns);
                let bits = u128::from(len) * 8 * 1_000_000_000;
                let time = bits.div_ceil(u128::from(bits_per_second)) as u64;
                next.free_at_ns = start + time;
                (start, start + time, next)
            }
            Serializer::Trace(trace) => {
                // The opportunity last used still serves this packet if it has bytes left and
                // is not in the past; otherwise the packet takes the first one from now on
                // (and never one already used up).
                let first = trace.first_at_or_after(now_ns);
                let (mut k, mut left) = match self.position.opportunity {
                    Some((k, left)) if left > 0 && trace.time_ns(k) >= now_ns => (k, left),
                    Some((k, _)) => (first.max(k + 1), OPPORTUNITY_BYTES),
                    None => (first, OPPORTUNITY_BYTES),
                };
                let start = trace.time_ns(k);
                let mut remaining = len;
                loop {
                    let used = remaining.min(left);
                    remaining -= used;
                    left -= used;
                    if remaining == 0 {
                        break;
                    }
                    k += 1;
                    left = OPPORTUNITY_BYTES;
                }
                next.opportunity = Some((k, left));
                (start, trace.time_ns(k), next)
            }
        }
    }
}

#[cfg(test)]
#[path = "shaper_tests.rs"]
mod tests;
