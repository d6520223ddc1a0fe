//! The simulator against closed forms (slow start's rounds over a fast link, serialization on a
//! slow one), against traces worked by hand, against its own invariants (more bytes, less
//! rate or more delay never finish earlier), and for determinism.

use std::time::Duration;

use super::*;
use crate::sim::link::{self, Link};

const MS: u64 = 1_000_000;

fn spec(text: &str) -> LinkSpec {
    match link::parse(text).unwrap().remove(0) {
        Link::Emulated(spec) => *spec,
        Link::Loopback => panic!("{text} is not emulated"),
    }
}

/// One connection: a request of `request` bytes once it is established, a response of
/// `response` bytes once the request has arrived.
fn one_fetch(request: u64, response: u64) -> Exchange {
    Exchange {
        connections: vec![Connection::new(
            Trigger::Start,
            vec![
                Message {
                    from: Side::Client,
                    bytes: request,
                    trigger: Trigger::Established { conn: 0 },
                    after_ns: 0,
                    also: None,
                },
                Message {
                    from: Side::Server,
                    bytes: response,
                    trigger: Trigger::Received {
                        conn: 0,
                        message: 0,
                        bytes: request,
                    },
                    after_ns: 0,
                    also: None,
                },
            ],
        )],
        pools: Vec::new(),
    }
}

fn run(exchange: &Exchange, link: &str) -> Timeline {
    simulate(exchange, &spec(link), &SimOptions::default()).unwrap()
}

/// Slow start's closed form over a link with no rate limit: the handshake takes one RTT, the
/// request half of one, and the response then leaves in rounds of 10, 20, 40 … segments (the
/// window grows by one segment per segment acknowledged, quick ACKs or not), one RTT apart;
/// its last byte arrives half an RTT after its round left. So `r` rounds finish at (r + 1) RTT.
#[test]
fn slow_start_sends_rounds_of_10_20_40_segments_one_rtt_apart() {
    let rtt = 100 * MS;
    for (segments, rounds) in [(1, 1), (10, 1), (11, 2), (30, 2), (31, 3), (70, 3), (71, 4)] {
        let timeline = run(&one_fetch(100, segments * 1460), "rtt=100ms");
        assert!(!timeline.timed_out);
        assert_eq!(
            timeline.complete_ns,
            (rounds + 1) * rtt,
            "{segments} segments should take {rounds} rounds"
        );
        assert_eq!(timeline.lost + timeline.queue_drops, 0);
        assert_eq!(timeline.connections[0].retransmits, 0);
    }
}

/// On a slow link the response is bound by serialization: a lower bound from physics (the
/// handshake, the request, every response packet serialized back to back, the delays) and an
/// upper bound of that plus the idle round trips slow start can add (one per doubling).
#[test]
fn a_slow_link_is_bound_by_serialization() {
    let segments = 200u64;
    let timeline = run(
        &one_fetch(100, segments * 1460),
        "rate=1mbit,rtt=40ms,queue=1000",
    );
    let ser = |bytes: u64| bytes * 8 * 1_000; // ns at 1 Mbit/s
    let floor = 40 * MS // SYN, SYN-ACK
        + ser(52) * 2
        + ser(140) // the request
        + 20 * MS // its delay
        + segments * ser(1500)
        + 20 * MS; // the last packet's delay
    assert!(
        timeline.complete_ns >= floor,
        "{} < floor {floor}",
        timeline.complete_ns
    );
    let doublings = 5; // 10 → 20 → 40 → 80 → 160 covers 200 segments
    assert!(
        timeline.complete_ns <= floor + doublings * 40 * MS,
        "{} > {}",
        timeline.complete_ns,
        floor + doublings * 40 * MS
    );
}

/// Worked by hand on a 10 ms RTT link with no rate limit: SYN at 0, SYN-ACK back at 10 ms, the
/// client's ACK and its 200-byte request arrive at 15 ms, the 1-segment answer at 20 ms; the
/// client's second request, written 5 ms after the answer's last byte, arrives at 30 ms and its
/// answer at 35 ms.
#[test]
fn a_hand_worked_trace_of_two_requests_on_one_connection() {
    let exchange = Exchange {
        connections: vec![Connection::new(
            Trigger::Start,
            vec![
                Message {
                    from: Side::Client,
                    bytes: 200,
                    trigger: Trigger::Established { conn: 0 },
                    after_ns: 0,
                    also: None,
                },
                Message {
                    from: Side::Server,
                    bytes: 1000,
                    trigger: Trigger::Received {
                        conn: 0,
                        message: 0,
                        bytes: 200,
                    },
                    after_ns: 0,
                    also: None,
                },
                Message {
                    from: Side::Client,
                    bytes: 200,
                    trigger: Trigger::Received {
                        conn: 0,
                        message: 1,
                        bytes: 1000,
                    },
                    after_ns: 5 * MS,
                    also: None,
                },
                Message {
                    from: Side::Server,
                    bytes: 1000,
                    trigger: Trigger::Received {
                        conn: 0,
                        message: 2,
                        bytes: 200,
                    },
                    after_ns: 0,
                    also: None,
                },
            ],
        )],
        pools: Vec::new(),
    };
    let t = run(&exchange, "rtt=10ms");
    let c = &t.connections[0];
    assert_eq!(c.syn_ns, Some(0));
    assert_eq!(c.established_ns, Some(10 * MS));
    let arrived: Vec<Option<u64>> = c.messages.iter().map(|m| m.last_byte_ns).collect();
    assert_eq!(
        arrived,
        [Some(15 * MS), Some(20 * MS), Some(30 * MS), Some(35 * MS)]
    );
    assert_eq!(c.messages[2].written_ns, Some(25 * MS));
    assert_eq!(t.complete_ns, 35 * MS);
    // The client: SYN, the handshake's ACK, two requests, and the quick ACKs of two answers
    // (short segments, read at once); the server: SYN-ACK, the quick ACK of the first request,
    // and two answers — its first answer, sent within 40 ms of the request, put it in
    // pingpong mode (`tcp_pingpong_thresh = 1`), so the second answer carries the ACK.
    assert_eq!((c.segments_up, c.segments_down), (6, 4));
}

/// A page and, once its first 1,000 bytes have arrived, a second connection for an image:
/// a trigger may cross connections, and the image's connection opens only then.
#[test]
fn a_reference_opens_a_second_connection_when_its_bytes_arrive() {
    let mut exchange = one_fetch(100, 20 * 1460);
    let mut image = one_fetch(100, 2000).connections.remove(0);
    image.open = Trigger::Received {
        conn: 0,
        message: 1,
        bytes: 1000,
    };
    for m in &mut image.messages {
        if let Trigger::Established { conn } | Trigger::Received { conn, .. } = &mut m.trigger {
            *conn = 1;
        }
    }
    exchange.connections.push(image);
    let t = run(&exchange, "rtt=10ms");
    // The page's first segment arrives at 2 RTT; the image's connection opens then.
    assert_eq!(t.connections[1].syn_ns, Some(20 * MS));
    assert_eq!(t.connections[1].messages[1].last_byte_ns, Some(40 * MS));
    assert!(!t.timed_out);
}

/// More to send, less rate, more delay: never earlier.
#[test]
fn more_bytes_less_rate_or_more_delay_never_finish_earlier() {
    let base = run(&one_fetch(300, 50_000), "rate=5mbit,rtt=50ms");
    let more = run(&one_fetch(300, 80_000), "rate=5mbit,rtt=50ms");
    let slower = run(&one_fetch(300, 50_000), "rate=2mbit,rtt=50ms");
    let farther = run(&one_fetch(300, 50_000), "rate=5mbit,rtt=80ms");
    for (what, t) in [("bytes", &more), ("rate", &slower), ("delay", &farther)] {
        assert!(
            t.complete_ns > base.complete_ns,
            "{what}: {t:?} vs {base:?}"
        );
    }
}

/// A queue too small for slow start's burst drops packets; the sender recovers them and the
/// visit still completes, later than without drops.
#[test]
fn drops_at_a_full_queue_are_recovered() {
    let fetch = one_fetch(100, 300 * 1460);
    let roomy = run(&fetch, "rate=2mbit,rtt=60ms,queue=1000");
    let tight = run(&fetch, "rate=2mbit,rtt=60ms,queue=8");
    assert_eq!(roomy.queue_drops, 0);
    assert!(tight.queue_drops > 0, "{tight:?}");
    assert!(!tight.timed_out, "{tight:?}");
    assert!(tight.connections[0].retransmits >= tight.queue_drops);
    assert!(tight.complete_ns > roomy.complete_ns);
}

/// Random loss is seeded: the same seed loses the same packets and gives the same time.
#[test]
fn random_loss_repeats_with_its_seed_and_is_recovered() {
    let fetch = one_fetch(100, 200 * 1460);
    let link = spec("rate=10mbit,rtt=40ms,loss=3%");
    let with_seed = |seed| {
        let options = SimOptions {
            seed,
            ..SimOptions::default()
        };
        simulate(&fetch, &link, &options).unwrap()
    };
    let (a, b, other) = (with_seed(7), with_seed(7), with_seed(8));
    assert_eq!(a, b);
    assert!(a.lost > 0 && !a.timed_out, "{a:?}");
    assert_ne!(a.lost + a.complete_ns, other.lost + other.complete_ns);
}

/// The same input gives the bit-identical timeline while another thread keeps a core busy:
/// simulated time does not read the clock.
#[test]
fn the_same_exchange_gives_the_same_timeline_under_a_cpu_hog() {
    let fetch = one_fetch(500, 120_000);
    let quiet = run(&fetch, "3G");
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let hogs: Vec<_> = (0..2)
        .map(|_| {
            let stop = stop.clone();
            std::thread::spawn(move || {
                let mut x = 0u64;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                }
                x
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(20));
    let busy: Vec<Timeline> = (0..5).map(|_| run(&fetch, "3G")).collect();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    for h in hogs {
        h.join().unwrap();
    }
    for t in busy {
        assert_eq!(t, quiet);
    }
}

/// A 1997 stack starts with two segments: a 10-segment answer takes rounds of 2, 4 (with
/// Reno's ACK per two segments and a 40 ms delayed ACK on the odd one), so it is slower than
/// Linux's initial window of 10, which sends it in one round.
#[test]
fn a_1997_stack_is_slower_to_start_than_linux() {
    let fetch = one_fetch(100, 10 * 1460);
    let link = spec("rtt=100ms");
    let linux = simulate(&fetch, &link, &SimOptions::default()).unwrap();
    let old = simulate(
        &fetch,
        &link,
        &SimOptions {
            tcp: TcpModel::stack_1997(),
            ..SimOptions::default()
        },
    )
    .unwrap();
    assert_eq!(linux.complete_ns, 200 * MS);
    assert!(old.complete_ns >= 400 * MS, "{old:?}");
}

#[test]
fn triggers_that_name_nothing_or_what_the_writer_cannot_see_are_refused() {
    let mut bad = one_fetch(100, 100);
    bad.connections[0].messages[1].trigger = Trigger::Received {
        conn: 3,
        message: 0,
        bytes: 1,
    };
    let e = simulate(&bad, &spec("rtt=10ms"), &SimOptions::default()).unwrap_err();
    assert!(e.to_string().contains("connection 3"), "{e}");
    let mut own = one_fetch(100, 100);
    own.connections[0].messages[0].trigger = Trigger::Received {
        conn: 0,
        message: 0,
        bytes: 1,
    };
    let e = simulate(&own, &spec("rtt=10ms"), &SimOptions::default()).unwrap_err();
    assert!(e.to_string().contains("own side"), "{e}");
}

#[test]
fn a_cycle_of_waits_times_out_instead_of_hanging() {
    let mut cycle = one_fetch(100, 100);
    cycle.connections[0].messages[0].trigger = Trigger::Received {
        conn: 0,
        message: 1,
        bytes: 1,
    };
    let t = run(&cycle, "rtt=10ms");
    assert!(t.timed_out);
    assert_eq!(t.connections[0].messages[0].written_ns, None);
}

#[test]
fn the_cube_root_is_exact() {
    for n in [
        0u128,
        1,
        7,
        8,
        26,
        27,
        1_000_000,
        999_999,
        u128::from(u64::MAX),
    ] {
        let r = tcp::cube_root(n);
        assert!(
            r * r * r <= n && (r + 1) * (r + 1) * (r + 1) > n,
            "{n}: {r}"
        );
    }
}

fn message(from: Side, bytes: u64, trigger: Trigger) -> Message {
    Message {
        from,
        bytes,
        trigger,
        after_ns: 0,
        also: None,
    }
}

/// Three fetches known at the start, each on a connection of its own in a pool of two slots
/// (HTTP/1.0's parallel connections): the third opens when the first is done. Over 10 ms of
/// RTT and no rate limit each fetch takes 20 ms (SYN-ACK at 10, request at 15, answer at 20).
#[test]
fn a_pool_opens_a_connection_only_when_a_slot_is_free() {
    let fetch = |conn: usize| {
        let mut c = Connection::new(
            Trigger::Start,
            vec![
                message(Side::Client, 100, Trigger::Established { conn }),
                message(
                    Side::Server,
                    1000,
                    Trigger::Received {
                        conn,
                        message: 0,
                        bytes: 100,
                    },
                ),
            ],
        );
        c.pool = Some(0);
        c
    };
    let exchange = Exchange {
        connections: (0..3).map(fetch).collect(),
        pools: vec![2],
    };
    let t = run(&exchange, "rtt=10ms");
    let syns: Vec<Option<u64>> = t.connections.iter().map(|c| c.syn_ns).collect();
    assert_eq!(syns, [Some(0), Some(0), Some(20 * MS)]);
    assert_eq!(t.complete_ns, 40 * MS);
}

/// Two 100-byte requests written on one connection, answered by `first_answer` and 500 bytes
/// through a responder (64 KiB buffer) that waits up to `wait_ns` for the rest of a batch.
fn two_requests_through_a_responder(first_answer: u64, wait_ns: u64) -> Exchange {
    let received = |message| Trigger::Received {
        conn: 0,
        message,
        bytes: 100,
    };
    let mut c = Connection::new(
        Trigger::Start,
        vec![
            message(Side::Client, 100, Trigger::Established { conn: 0 }),
            message(Side::Client, 100, Trigger::Established { conn: 0 }),
            message(Side::Server, first_answer, received(0)),
            message(Side::Server, 500, received(1)),
        ],
    );
    c.responder = Some(Responder {
        buffer_bytes: 64 << 10,
        wait_ns,
        answers: vec![2, 3],
        boundaries: vec![1],
    });
    Exchange {
        connections: vec![c],
        pools: Vec::new(),
    }
}

/// A request split over two client writes (the second 14 ms behind the first on an 80 kbit/s
/// uplink): the server answers nothing until the split request is whole, then both answers
/// in one write; with a wait shorter than the gap, the first answer goes out on its own when
/// the wait ends.
#[test]
fn a_responder_waits_for_a_split_request_as_long_as_its_wait_allows() {
    let link = "up=80kbit,down=100mbit,rtt=10ms";
    let patient = run(&two_requests_through_a_responder(500, 50 * MS), link);
    let m = &patient.connections[0].messages;
    let (first, second) = (m[0].last_byte_ns.unwrap(), m[1].last_byte_ns.unwrap());
    assert!(second >= first + 14 * MS, "{first} {second}");
    assert_eq!(
        m[2].written_ns,
        Some(second),
        "held until the request was whole"
    );
    assert_eq!(m[3].written_ns, Some(second));
    let hasty = run(&two_requests_through_a_responder(500, 5 * MS), link);
    let m = &hasty.connections[0].messages;
    assert_eq!(
        m[2].written_ns,
        Some(first + 5 * MS),
        "out when the wait ended"
    );
    assert_eq!(m[3].written_ns, m[1].last_byte_ns);
}

/// Answers that fill the buffer go out at once, before the request that ends the batch.
#[test]
fn a_full_responder_buffer_goes_out_at_once() {
    let t = run(
        &two_requests_through_a_responder(70_000, 50 * MS),
        "up=80kbit,down=100mbit,rtt=10ms",
    );
    let m = &t.connections[0].messages;
    assert_eq!(m[2].written_ns, m[0].last_byte_ns);
    assert_eq!(m[3].written_ns, m[1].last_byte_ns);
}

/// The receive window as a capture of the emulated Cable link shows Linux's (6.18, timestamps
/// off): 64,240 bytes in the SYN, two segments more per segment received, held at 81,920 until
/// one window of data has arrived and a receive round trip has passed since the connection
/// was established; then autotuning lifts the ceiling and it grows on.
#[test]
fn the_receive_window_stops_at_its_ceiling_until_autotuning_lifts_it() {
    use super::tcp::{Receiver, TcpModel};
    let model = TcpModel::linux(Congestion::Cubic);
    let mss = 1460;
    let mut r = Receiver::new(&model, mss);
    r.established(0);
    assert_eq!(r.window(), 64_240);
    // A segment every 2.4 ms from 30 ms on, as 5 Mbit/s delivers them.
    let mut seq = 0;
    let mut windows = Vec::new();
    for i in 0..120u64 {
        r.on_data(seq, mss, 30 * MS + i * 2_400_000, 1_000 * MS);
        r.acked();
        seq += mss;
        windows.push(r.window());
    }
    assert_eq!(windows[0], 64_240 + 2 * mss);
    // One window (64,240 bytes) beyond the first segment has arrived with segment 45, at
    // 135.6 ms, 105.6 ms after the first and so more than that since the connection began:
    // held at the ceiling until then (the capture: 81,920 from 73 ms, lifted at 234 ms).
    assert!(windows[6..45].iter().all(|&w| w == 81_920), "{windows:?}");
    assert_eq!(windows[45], 81_920 + 2 * mss);
    // Then lifted: two segments more per segment again.
    assert!(windows[60] > 81_920 + 10 * mss, "{windows:?}");
    assert_eq!(windows[61] - windows[60], 2 * mss);
    // Without autotuning it stays at the ceiling.
    let mut fixed = Receiver::new(
        &TcpModel {
            receive_autotuning: false,
            ..model
        },
        mss,
    );
    fixed.established(0);
    for i in 0..120u64 {
        fixed.on_data(i * mss, mss, 30 * MS + i * 2_400_000, 1_000 * MS);
        fixed.acked();
    }
    assert_eq!(fixed.window(), 81_920);
}
