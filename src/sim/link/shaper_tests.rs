//! The per-direction model on a virtual clock: rate, queue, delay, traces and loss, checked
//! against times worked out by hand.

use std::time::Duration;

use super::*;
use crate::sim::link::loss::Loss;

const MS: u64 = 1_000_000;

fn direction(rate: Rate, delay_ms: u64, queue: QueueLimit, loss: Loss) -> Direction {
    Direction {
        rate,
        delay: Duration::from_millis(delay_ms),
        queue,
        loss,
    }
}

/// 12 Mbit/s: a 1500-byte packet takes exactly 1 ms.
fn twelve_mbit(delay_ms: u64, queue: QueueLimit) -> Shaper {
    Shaper::new(
        &direction(Rate::BitsPerSecond(12_000_000), delay_ms, queue, Loss::None),
        1,
    )
}

fn at(v: Verdict) -> u64 {
    match v {
        Verdict::Deliver { at_ns } => at_ns,
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_burst_leaves_one_serialization_time_apart_after_the_delay() {
    let mut link = twelve_mbit(10, QueueLimit::Packets(100));
    let times: Vec<u64> = (0..5).map(|_| at(link.offer(0, 1500)) / MS).collect();
    assert_eq!(times, [11, 12, 13, 14, 15]);
}

#[test]
fn an_idle_link_sends_at_once() {
    let mut link = twelve_mbit(10, QueueLimit::Packets(100));
    at(link.offer(0, 1500));
    // The link went idle at 1 ms; a packet at 50 ms waits for nobody.
    assert_eq!(at(link.offer(50 * MS, 1500)), 61 * MS);
    // 40 bytes take 40 × 8 / 12e6 s = 26,667 ns (rounded up).
    assert_eq!(at(link.offer(100 * MS, 40)), 110 * MS + 26_667);
}

#[test]
fn a_full_queue_drops_the_tail() {
    let mut link = twelve_mbit(0, QueueLimit::Packets(3));
    let verdicts: Vec<Verdict> = (0..10).map(|_| link.offer(0, 1500)).collect();
    // One goes straight onto the wire, three wait, six are dropped.
    let delivered = verdicts
        .iter()
        .filter(|v| matches!(v, Verdict::Deliver { .. }))
        .count();
    assert_eq!(delivered, 4);
    assert!(verdicts[4..].iter().all(|v| *v == Verdict::QueueFull));
    assert_eq!(link.queued(), 3);
}

#[test]
fn the_queue_drains_as_the_link_sends() {
    let mut link = twelve_mbit(0, QueueLimit::Packets(2));
    for _ in 0..3 {
        at(link.offer(0, 1500));
    }
    assert_eq!(link.offer(0, 1500), Verdict::QueueFull);
    // At 1 ms the second packet is on the wire and one slot is free again.
    assert_eq!(at(link.offer(MS, 1500)), 4 * MS);
    assert_eq!(link.offer(MS, 1500), Verdict::QueueFull);
}

#[test]
fn a_byte_queue_counts_bytes() {
    let mut link = twelve_mbit(0, QueueLimit::Bytes(3000));
    at(link.offer(0, 1500)); // on the wire
    at(link.offer(0, 1500));
    at(link.offer(0, 1460));
    assert_eq!(link.offer(0, 100), Verdict::QueueFull);
    at(link.offer(0, 40));
}

#[test]
fn a_delay_only_link_only_delays() {
    let mut link = Shaper::new(
        &direction(Rate::Unlimited, 37, QueueLimit::Packets(1), Loss::None),
        1,
    );
    for i in 0..100 {
        assert_eq!(at(link.offer(i * 1000, 1500)), i * 1000 + 37 * MS);
    }
}

#[test]
fn throughput_over_a_long_run_is_the_rate() {
    let mut link = Shaper::new(
        &direction(
            Rate::BitsPerSecond(2_000_000),
            0,
            QueueLimit::Packets(1_000_000),
            Loss::None,
        ),
        1,
    );
    let last = (0..1000).map(|_| at(link.offer(0, 1500))).last().unwrap();
    // 1000 × 1500 × 8 bits at 2 Mbit/s = 6 s.
    assert_eq!(last, 6_000 * MS);
}

fn traced(text: &str, queue: QueueLimit) -> Shaper {
    let trace = Trace::parse("t", text).unwrap();
    Shaper::new(&direction(Rate::Trace(trace), 0, queue, Loss::None), 1)
}

#[test]
fn a_trace_sends_one_packet_per_line_and_repeats() {
    let mut link = traced("1\n1\n3\n", QueueLimit::Packets(100));
    let times: Vec<u64> = (0..6).map(|_| at(link.offer(0, 1500)) / MS).collect();
    assert_eq!(times, [1, 1, 3, 4, 4, 6]);
}

#[test]
fn small_packets_share_an_opportunity() {
    let mut link = traced("1\n2\n", QueueLimit::Packets(100));
    let times: Vec<u64> = (0..4).map(|_| at(link.offer(0, 500)) / MS).collect();
    // Three 500-byte packets fill the 1500 bytes of the opportunity at 1 ms.
    assert_eq!(times, [1, 1, 1, 2]);
}

#[test]
fn a_packet_larger_than_an_opportunity_spans_several() {
    let mut link = traced("1\n2\n3\n4\n", QueueLimit::Packets(100));
    assert_eq!(at(link.offer(0, 4000)) / MS, 3);
    // What the 4000-byte packet left of the third opportunity (500 bytes) serves the next.
    assert_eq!(at(link.offer(0, 400)) / MS, 3);
    assert_eq!(at(link.offer(0, 400)) / MS, 4);
}

#[test]
fn an_opportunity_in_the_past_is_lost() {
    let mut link = traced("1\n2\n3\n4\n", QueueLimit::Packets(100));
    assert_eq!(at(link.offer(0, 100)) / MS, 1);
    // The rest of the 1 ms opportunity is gone by 1.5 ms.
    assert_eq!(at(link.offer(MS + MS / 2, 100)) / MS, 2);
    // After a long idle time the next opportunity comes from the right repetition.
    assert_eq!(at(link.offer(4001 * MS + 1, 100)) / MS, 4002);
}

#[test]
fn a_trace_queue_drops_the_tail_too() {
    let mut link = traced("10\n20\n", QueueLimit::Packets(2));
    let delivered = (0..5)
        .filter(|_| matches!(link.offer(0, 1500), Verdict::Deliver { .. }))
        .count();
    // Every packet waits for an opportunity: only the queue's two are kept.
    assert_eq!(delivered, 2);
}

#[test]
fn lost_packets_take_no_link_time() {
    let loss = Loss::Bernoulli { rate: 0.3 };
    let mut lossy = Shaper::new(
        &direction(
            Rate::BitsPerSecond(12_000_000),
            0,
            QueueLimit::Packets(10_000),
            loss,
        ),
        42,
    );
    let verdicts: Vec<Verdict> = (0..1000).map(|_| lossy.offer(0, 1500)).collect();
    let delivered: Vec<u64> = verdicts
        .iter()
        .filter_map(|v| match v {
            Verdict::Deliver { at_ns } => Some(*at_ns),
            _ => None,
        })
        .collect();
    // The survivors go back to back: the n-th leaves at n ms.
    for (i, t) in delivered.iter().enumerate() {
        assert_eq!(*t, (i as u64 + 1) * MS);
    }
    assert_eq!(
        verdicts.iter().filter(|v| **v == Verdict::Lost).count(),
        1000 - delivered.len()
    );
}

#[test]
fn the_same_seed_loses_the_same_packets() {
    let pattern = |seed| {
        let mut link = Shaper::new(
            &direction(
                Rate::Unlimited,
                0,
                QueueLimit::Packets(1),
                Loss::Bernoulli { rate: 0.1 },
            ),
            seed,
        );
        (0..2000)
            .map(|i| link.offer(i, 100) == Verdict::Lost)
            .collect::<Vec<bool>>()
    };
    assert_eq!(pattern(5), pattern(5));
    assert_ne!(pattern(5), pattern(6));
}

#[test]
fn bursty_loss_loses_consecutive_packets() {
    let mut link = Shaper::new(
        &direction(
            Rate::Unlimited,
            0,
            QueueLimit::Packets(1),
            Loss::Bursts {
                rate: 0.05,
                burst: 5.0,
            },
        ),
        9,
    );
    let lost: Vec<bool> = (0..100_000)
        .map(|i| link.offer(i, 100) == Verdict::Lost)
        .collect();
    let losses = lost.iter().filter(|&&l| l).count() as f64;
    let runs = lost.windows(2).filter(|w| !w[0] && w[1]).count() as f64;
    assert!((4.0..6.0).contains(&(losses / runs)), "{}", losses / runs);
}
