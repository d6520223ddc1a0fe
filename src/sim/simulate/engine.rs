//! The discrete-event loop of the simulation: events in time order (ties in the order they
//! were scheduled), packets through the link's two [`Shaper`]s, each connection's two ends
//! through [`super::tcp`], and every message written when its trigger fires — through the
//! server's buffer where the connection has a [`super::Responder`], once a slot of its pool is
//! free where it has a pool.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};

use super::tcp::{AckNow, Receiver, Send, Sender, Timer};
use super::{ConnectionTime, Exchange, MessageTime, Side, SimOptions, Timeline, Trigger};
use crate::sim::link::shaper::{Shaper, Verdict};
use crate::sim::link::LinkSpec;

/// What a packet is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Syn,
    SynAck,
    /// Data `[seq, seq + len)` (a pure ACK when `len` is 0).
    Segment {
        seq: u64,
        len: u64,
    },
}

#[derive(Debug, Clone)]
struct Packet {
    conn: usize,
    from: Side,
    kind: Kind,
    /// Cumulative ACK of the other direction (after the handshake), with its SACK blocks.
    ack: Option<(u64, Vec<(u64, u64)>)>,
}

#[derive(Debug, Clone)]
enum Event {
    Open {
        conn: usize,
    },
    Write {
        conn: usize,
        message: usize,
    },
    Arrive(Packet),
    /// The sender's timer of one end (retransmission, tail loss probe or reordering).
    Rto {
        conn: usize,
        side: Side,
        generation: u64,
    },
    SynRto {
        conn: usize,
        generation: u64,
    },
    DelayedAck {
        conn: usize,
        side: Side,
        generation: u64,
    },
    /// The responder of `conn` decides whether its buffer goes out now (after every answer
    /// of the same instant has been added to it).
    Settle {
        conn: usize,
    },
    /// The responder of `conn` has waited long enough for the rest of a partial request.
    Waited {
        conn: usize,
        generation: u64,
    },
}

struct Scheduled {
    at_ns: u64,
    order: u64,
    event: Event,
}

impl PartialEq for Scheduled {
    fn eq(&self, other: &Self) -> bool {
        (self.at_ns, self.order) == (other.at_ns, other.order)
    }
}
impl Eq for Scheduled {}
impl PartialOrd for Scheduled {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Scheduled {
    /// Reversed: the heap's top is the earliest event.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.at_ns, other.order).cmp(&(self.at_ns, self.order))
    }
}

/// One end of a connection.
struct End {
    sender: Sender,
    receiver: Receiver,
    established: bool,
    rto_generation: u64,
    /// The timer armed, and when it fires.
    timer: Option<(u64, Timer)>,
    delack_generation: u64,
    delack_armed: bool,
    /// Messages this end has written: (message, first stream byte, end).
    stream: Vec<(usize, u64, u64)>,
}

struct Conn {
    client: End,
    server: End,
    opened: bool,
    syn_generation: u64,
    syn_backoff: u32,
    /// Its pool slot was given back (every message arrived).
    released: bool,
    /// The responder's buffered answers, in the order they were added, and their bytes.
    buffered: Vec<usize>,
    buffered_bytes: u64,
    /// Counts client arrivals at the responder: a wait armed before the latest is stale.
    arrivals: u64,
}

/// A pool's free slots and the connections waiting for one, in the order their triggers
/// fired.
struct Pool {
    free: usize,
    waiting: VecDeque<usize>,
}

impl Conn {
    fn end(&mut self, side: Side) -> &mut End {
        match side {
            Side::Client => &mut self.client,
            Side::Server => &mut self.server,
        }
    }
}

/// A waiter: something written or opened when its trigger fires.
#[derive(Debug, Clone, Copy)]
enum Waiter {
    Open { conn: usize },
    Write { conn: usize, message: usize },
}

struct Sim<'a> {
    exchange: &'a Exchange,
    options: &'a SimOptions,
    up: Shaper,
    down: Shaper,
    queue: BinaryHeap<Scheduled>,
    order: u64,
    conns: Vec<Conn>,
    pools: Vec<Pool>,
    waiting: Vec<(Trigger, Waiter)>,
    /// Per connection and message, the triggers still to fire before it is written (1, or 2
    /// with [`super::Message::also`]).
    unfired: Vec<Vec<u8>>,
    timeline: Timeline,
}

pub fn run(exchange: &Exchange, link: &LinkSpec, options: &SimOptions) -> Timeline {
    let mss = u64::from(link.mtu.saturating_sub(40).max(88));
    let model = &options.tcp;
    let end = || End {
        sender: Sender::new(model, mss),
        receiver: Receiver::new(model, mss),
        established: false,
        rto_generation: 0,
        timer: None,
        delack_generation: 0,
        delack_armed: false,
        stream: Vec::new(),
    };
    let mut sim = Sim {
        exchange,
        options,
        up: Shaper::new(&link.up, options.seed),
        down: Shaper::new(&link.down, options.seed.wrapping_add(1)),
        queue: BinaryHeap::new(),
        order: 0,
        conns: (0..exchange.connections.len())
            .map(|_| Conn {
                client: end(),
                server: end(),
                opened: false,
                syn_generation: 0,
                syn_backoff: 0,
                released: false,
                buffered: Vec::new(),
                buffered_bytes: 0,
                arrivals: 0,
            })
            .collect(),
        pools: exchange
            .pools
            .iter()
            .map(|&free| Pool {
                free,
                waiting: VecDeque::new(),
            })
            .collect(),
        waiting: Vec::new(),
        unfired: exchange
            .connections
            .iter()
            .map(|c| {
                c.messages
                    .iter()
                    .map(|m| 1 + u8::from(m.also.is_some()))
                    .collect()
            })
            .collect(),
        timeline: Timeline {
            connections: exchange
                .connections
                .iter()
                .map(|c| ConnectionTime {
                    messages: vec![MessageTime::default(); c.messages.len()],
                    ..ConnectionTime::default()
                })
                .collect(),
            ..Timeline::default()
        },
    };
    for (i, c) in exchange.connections.iter().enumerate() {
        sim.waiting.push((c.open, Waiter::Open { conn: i }));
        for (j, m) in c.messages.iter().enumerate() {
            for trigger in std::iter::once(m.trigger).chain(m.also) {
                sim.waiting.push((
                    trigger,
                    Waiter::Write {
                        conn: i,
                        message: j,
                    },
                ));
            }
        }
    }
    sim.fire(0, |t| matches!(t, Trigger::Start));
    let mut now = 0;
    while let Some(next) = sim.queue.pop() {
        if next.at_ns > options.timeout_ns {
            break;
        }
        now = next.at_ns;
        sim.handle(now, next.event);
    }
    sim.finish(now)
}

impl Sim<'_> {
    fn schedule(&mut self, at_ns: u64, event: Event) {
        self.order += 1;
        self.queue.push(Scheduled {
            at_ns,
            order: self.order,
            event,
        });
    }

    /// Starts every waiter whose trigger `pred` says has fired.
    fn fire(&mut self, now: u64, pred: impl Fn(&Trigger) -> bool) {
        let mut i = 0;
        while i < self.waiting.len() {
            if pred(&self.waiting[i].0) {
                let (_, waiter) = self.waiting.remove(i);
                match waiter {
                    Waiter::Open { conn } => match self.exchange.connections[conn].pool {
                        Some(pool) => {
                            self.pools[pool].waiting.push_back(conn);
                            self.open_from_pool(now, pool);
                        }
                        None => self.schedule(now, Event::Open { conn }),
                    },
                    Waiter::Write { conn, message } => {
                        let unfired = &mut self.unfired[conn][message];
                        *unfired -= 1;
                        if *unfired == 0 {
                            let after = self.exchange.connections[conn].messages[message].after_ns;
                            self.schedule(now + after, Event::Write { conn, message });
                        }
                    }
                }
            } else {
                i += 1;
            }
        }
    }

    fn handle(&mut self, now: u64, event: Event) {
        match event {
            Event::Open { conn } => {
                let c = &mut self.conns[conn];
                if !c.opened {
                    c.opened = true;
                    self.timeline.connections[conn].syn_ns = Some(now);
                    self.send_syn(now, conn, false);
                }
            }
            Event::Write { conn, message } => self.write(now, conn, message),
            Event::Arrive(packet) => self.arrive(now, packet),
            Event::SynRto { conn, generation } => {
                let c = &mut self.conns[conn];
                if generation == c.syn_generation && !c.client.established {
                    c.syn_backoff += 1;
                    self.send_syn(now, conn, true);
                }
            }
            Event::Rto {
                conn,
                side,
                generation,
            } => {
                let end = self.conns[conn].end(side);
                if generation != end.rto_generation {
                    return;
                }
                let Some((_, timer)) = end.timer.take() else {
                    return;
                };
                let sends = end.sender.on_timer(timer, now);
                self.send_data(now, conn, side, sends);
            }
            Event::Settle { conn } => self.settle(now, conn),
            Event::Waited { conn, generation } => {
                if generation == self.conns[conn].arrivals {
                    self.flush(now, conn);
                }
            }
            Event::DelayedAck {
                conn,
                side,
                generation,
            } => {
                let end = self.conns[conn].end(side);
                if generation == end.delack_generation && end.delack_armed {
                    end.delack_armed = false;
                    end.receiver.delayed_ack_fired();
                    if end.receiver.owes_ack() {
                        self.send_packet(now, conn, side, Kind::Segment { seq: 0, len: 0 });
                    }
                }
            }
        }
    }

    fn send_syn(&mut self, now: u64, conn: usize, again: bool) {
        if again {
            self.timeline.connections[conn].retransmits += 1;
        }
        let c = &mut self.conns[conn];
        c.syn_generation += 1;
        let generation = c.syn_generation;
        let rto = self
            .options
            .tcp
            .initial_rto_ns
            .saturating_mul(1 << c.syn_backoff.min(16));
        self.send_packet(now, conn, Side::Client, Kind::Syn);
        self.schedule(now + rto, Event::SynRto { conn, generation });
    }

    /// Opens as many of `pool`'s waiting connections as it has free slots.
    fn open_from_pool(&mut self, now: u64, pool: usize) {
        while self.pools[pool].free > 0 {
            let Some(conn) = self.pools[pool].waiting.pop_front() else {
                break;
            };
            self.pools[pool].free -= 1;
            self.schedule(now, Event::Open { conn });
        }
    }

    /// A message's trigger fired: it is written, or added to the responder's buffer.
    fn write(&mut self, now: u64, conn: usize, message: usize) {
        let spec = &self.exchange.connections[conn];
        if let Some(r) = spec
            .responder
            .as_ref()
            .filter(|r| r.answers.contains(&message))
        {
            let c = &mut self.conns[conn];
            c.buffered.push(message);
            c.buffered_bytes += spec.messages[message].bytes;
            if c.buffered_bytes >= r.buffer_bytes {
                self.flush(now, conn);
            } else {
                self.schedule(now, Event::Settle { conn });
            }
            return;
        }
        self.put(now, conn, message);
        self.pump(now, conn, spec.messages[message].from);
    }

    /// Puts a message's bytes into its writer's socket.
    fn put(&mut self, now: u64, conn: usize, message: usize) {
        let m = &self.exchange.connections[conn].messages[message];
        let end = self.conns[conn].end(m.from);
        let start = end.sender.written;
        end.sender.written += m.bytes;
        end.stream.push((message, start, start + m.bytes));
        self.timeline.connections[conn].messages[message].written_ns = Some(now);
    }

    /// The responder's buffer goes out in one write.
    fn flush(&mut self, now: u64, conn: usize) {
        let c = &mut self.conns[conn];
        let buffered = std::mem::take(&mut c.buffered);
        c.buffered_bytes = 0;
        if buffered.is_empty() {
            return;
        }
        for message in buffered {
            self.put(now, conn, message);
        }
        self.pump(now, conn, Side::Server);
    }

    /// After every answer of this instant is buffered: out now if the client's bytes that
    /// arrived end at a boundary, else once the responder has waited for the rest.
    fn settle(&mut self, now: u64, conn: usize) {
        let Some(r) = &self.exchange.connections[conn].responder else {
            return;
        };
        let c = &self.conns[conn];
        if c.buffered.is_empty() {
            return;
        }
        let delivered = c.server.receiver.delivered;
        let at_boundary = delivered == 0
            || c.client
                .stream
                .iter()
                .any(|&(m, _, end)| end == delivered && r.boundaries.contains(&m));
        if at_boundary {
            self.flush(now, conn);
        } else {
            let (generation, wait) = (c.arrivals, r.wait_ns);
            self.schedule(now + wait, Event::Waited { conn, generation });
        }
    }

    /// Sends what `side`'s window allows on `conn`.
    fn pump(&mut self, now: u64, conn: usize, side: Side) {
        let end = self.conns[conn].end(side);
        if !end.established {
            return;
        }
        let sends = end.sender.sendable(now);
        self.send_data(now, conn, side, sends);
    }

    fn send_data(&mut self, now: u64, conn: usize, side: Side, sends: Vec<Send>) {
        for s in &sends {
            if s.retransmit {
                self.timeline.connections[conn].retransmits += 1;
            }
            self.conns[conn].end(side).receiver.data_sent(now);
            self.send_packet(
                now,
                conn,
                side,
                Kind::Segment {
                    seq: s.seq,
                    len: s.len,
                },
            );
        }
        self.rearm(now, conn, side);
    }

    /// Runs the timer `side`'s sender asks for now, if it is not the one already running.
    fn rearm(&mut self, now: u64, conn: usize, side: Side) {
        let end = self.conns[conn].end(side);
        let want = end.sender.timer();
        if want == end.timer {
            return;
        }
        end.timer = want;
        end.rto_generation += 1;
        let generation = end.rto_generation;
        if let Some((at, _)) = want {
            self.schedule(
                at.max(now),
                Event::Rto {
                    conn,
                    side,
                    generation,
                },
            );
        }
    }

    /// Puts a packet on the link; every packet after the handshake carries an ACK.
    fn send_packet(&mut self, now: u64, conn: usize, from: Side, kind: Kind) {
        let tcp = &self.options.tcp;
        let end = self.conns[conn].end(from);
        let ack = match kind {
            Kind::Syn | Kind::SynAck => None,
            Kind::Segment { .. } => {
                end.receiver.acked();
                end.delack_armed = false;
                let blocks = if tcp.sack {
                    end.receiver.sack()
                } else {
                    Vec::new()
                };
                Some((end.receiver.delivered, blocks))
            }
        };
        let bytes = match kind {
            Kind::Syn | Kind::SynAck => tcp.syn_bytes,
            Kind::Segment { len, .. } => tcp.header_bytes + len as u32,
        };
        let record = &mut self.timeline.connections[conn];
        let shaper = match from {
            Side::Client => {
                record.segments_up += 1;
                &mut self.up
            }
            Side::Server => {
                record.segments_down += 1;
                &mut self.down
            }
        };
        let verdict = shaper.offer(now, bytes);
        if self.options.trace {
            let (seq, len) = match kind {
                Kind::Segment { seq, len } => (seq, len),
                _ => (0, 0),
            };
            self.timeline.packets.push(super::TracedPacket {
                sent_ns: now,
                conn,
                from,
                syn: !matches!(kind, Kind::Segment { .. }),
                seq,
                len,
                ack: ack.as_ref().map(|(a, _)| *a),
                arrived_ns: match verdict {
                    Verdict::Deliver { at_ns } => Some(at_ns),
                    _ => None,
                },
            });
        }
        match verdict {
            Verdict::Deliver { at_ns } => self.schedule(
                at_ns,
                Event::Arrive(Packet {
                    conn,
                    from,
                    kind,
                    ack,
                }),
            ),
            Verdict::Lost => self.timeline.lost += 1,
            Verdict::QueueFull => self.timeline.queue_drops += 1,
        }
    }

    fn arrive(&mut self, now: u64, packet: Packet) {
        let packet = &packet;
        let conn = packet.conn;
        let to = packet.from.other();
        match packet.kind {
            Kind::Syn => {
                // A repeated SYN gets the SYN-ACK again (the first may have been lost).
                self.send_packet(now, conn, Side::Server, Kind::SynAck);
                return;
            }
            Kind::SynAck => {
                let c = &mut self.conns[conn];
                if c.client.established {
                    return;
                }
                c.client.established = true;
                c.client.receiver.established(now);
                self.timeline.connections[conn].established_ns = Some(now);
                self.release_if_done(now, conn);
                self.send_packet(now, conn, Side::Client, Kind::Segment { seq: 0, len: 0 });
                self.fire(now, |t| *t == Trigger::Established { conn });
                self.pump(now, conn, Side::Client);
                return;
            }
            Kind::Segment { .. } => {}
        }
        let Kind::Segment { seq, len } = packet.kind else {
            return;
        };
        if to == Side::Server && !self.conns[conn].server.established {
            self.conns[conn].server.established = true;
            self.conns[conn].server.receiver.established(now);
            self.fire(now, |t| *t == Trigger::Established { conn });
            self.pump(now, conn, Side::Server);
        }
        // The ACK it carries, for the receiving end's sender.
        if let Some((ack, sack)) = &packet.ack {
            let window = {
                let peer = self.conns[conn].end(packet.from);
                peer.receiver.window()
            };
            let end = self.conns[conn].end(to);
            end.sender.peer_window = window;
            end.sender.on_ack(*ack, sack, now);
            self.pump(now, conn, to);
            self.rearm(now, conn, to);
        }
        if len == 0 {
            return;
        }
        let end = self.conns[conn].end(to);
        let rto = end.sender.rto_ns();
        let before = end.receiver.delivered;
        let decision = end.receiver.on_data(seq, len, now, rto);
        let delivered = end.receiver.delivered;
        match decision {
            AckNow::Now => self.send_packet(now, conn, to, Kind::Segment { seq: 0, len: 0 }),
            AckNow::Later if !end.delack_armed => {
                end.delack_armed = true;
                end.delack_generation += 1;
                let generation = end.delack_generation;
                let delay = self.options.tcp.delayed_ack_ns;
                self.schedule(
                    now + delay,
                    Event::DelayedAck {
                        conn,
                        side: to,
                        generation,
                    },
                );
            }
            AckNow::Later | AckNow::No => {}
        }
        if delivered > before {
            self.delivered(now, conn, packet.from, delivered);
            if to == Side::Server && self.exchange.connections[conn].responder.is_some() {
                self.conns[conn].arrivals += 1;
                self.schedule(now, Event::Settle { conn });
            }
        }
    }

    /// `writer`'s stream on `conn` has arrived up to byte `delivered`: stamp its messages and
    /// fire what waits on them.
    fn delivered(&mut self, now: u64, conn: usize, writer: Side, delivered: u64) {
        let stream = self.conns[conn].end(writer).stream.clone();
        for (message, start, end) in stream {
            if start >= delivered {
                break;
            }
            let t = &mut self.timeline.connections[conn].messages[message];
            t.first_byte_ns.get_or_insert(now);
            if end <= delivered && t.last_byte_ns.is_none() {
                t.last_byte_ns = Some(now);
            }
            let have = delivered.min(end) - start;
            self.fire(now, |trigger| {
                matches!(*trigger, Trigger::Received { conn: c, message: m, bytes }
                    if c == conn && m == message && bytes <= have)
            });
        }
        self.release_if_done(now, conn);
    }

    /// Gives a pooled connection's slot back once every one of its messages has arrived.
    fn release_if_done(&mut self, now: u64, conn: usize) {
        let Some(pool) = self.exchange.connections[conn].pool else {
            return;
        };
        let done = self.timeline.connections[conn]
            .messages
            .iter()
            .all(|m| m.last_byte_ns.is_some());
        if done && !self.conns[conn].released {
            self.conns[conn].released = true;
            self.pools[pool].free += 1;
            self.open_from_pool(now, pool);
        }
    }

    fn finish(mut self, now: u64) -> Timeline {
        let mut complete = 0;
        let mut missing = !self.waiting.is_empty();
        for c in &self.timeline.connections {
            for m in &c.messages {
                match m.last_byte_ns {
                    Some(t) => complete = complete.max(t),
                    None => missing = true,
                }
            }
        }
        self.timeline.timed_out = missing;
        self.timeline.complete_ns = if missing {
            self.options.timeout_ns.max(now)
        } else {
            complete
        };
        self.timeline
    }
}
