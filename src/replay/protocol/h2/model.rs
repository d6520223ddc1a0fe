//! The deterministic model of an HTTP/2 exchange, for the meter: the frames each side sent,
//! grouped into the bursts an ideal endpoint would send them in. The `h2` codec decides how
//! frames are split into writes, and that depends on scheduling (a SETTINGS ACK written on its
//! own or with the next requests, say), so the writes themselves are not a reproducible
//! figure; the frames are.
//!
//! The bursts, in order:
//! 1. the server's connection preface (its SETTINGS, a WINDOW_UPDATE), sent as the connection
//!    opens;
//! 2. the client's preface, SETTINGS and WINDOW_UPDATE with the first batch of requests;
//! 3. the client's SETTINGS ACK, on its own (it answers the server's preface at once);
//! 4. the server's SETTINGS ACK, on its own (it answers the client's preface at once);
//! 5. the answers to the first batch (and what the server pushes with them);
//! 6. each later batch of requests, then its answers;
//! 7. any other connection-level frame (PING, WINDOW_UPDATE, GOAWAY), each side's last.
//!
//! A batch is the requests the client issued together: those the first visit knows of at
//! once, those a response made it discover. Streams the server opens (pushes) belong to the
//! first batch.

use super::io::{Frame, ACK, PREFACE_LEN, PUSH_PROMISE, SETTINGS};
use crate::replay::meter::{Burst, Side};

/// The exchange's bursts. `batches[k]` is the number of requests in the k-th batch (the
/// client opens streams 1, 3, 5… in that order).
pub fn bursts(up: &[Frame], down: &[Frame], batches: &[usize]) -> Vec<Burst> {
    let n = batches.len().max(1);
    // The batch a stream belongs to.
    let last_ids: Vec<u32> = batches
        .iter()
        .scan(0u32, |opened, &k| {
            *opened += k as u32;
            Some(2 * *opened - 1)
        })
        .collect();
    let batch_of = |stream: u32| -> usize {
        if stream.is_multiple_of(2) {
            return 0;
        }
        last_ids
            .iter()
            .position(|&last| stream <= last)
            .unwrap_or(n - 1)
    };
    let mut client = vec![0u64; n];
    let (mut client_ack, mut client_tail) = (0u64, 0u64);
    client[0] += PREFACE_LEN as u64;
    let mut requested = false;
    for f in up {
        match (f.stream, f.kind) {
            (0, SETTINGS) if f.flags & ACK != 0 => client_ack += f.bytes,
            (0, _) if !requested => client[0] += f.bytes,
            (0, _) => client_tail += f.bytes,
            (s, _) => {
                requested = true;
                client[batch_of(s)] += f.bytes;
            }
        }
    }
    let mut server = vec![0u64; n];
    let (mut server_preface, mut server_ack, mut server_tail) = (0u64, 0u64, 0u64);
    let mut answered = false;
    let mut pushed = 0u64;
    for f in down {
        match (f.stream, f.kind) {
            (0, SETTINGS) if f.flags & ACK != 0 => server_ack += f.bytes,
            (0, _) if !answered => server_preface += f.bytes,
            (0, _) => server_tail += f.bytes,
            (s, PUSH_PROMISE) => {
                answered = true;
                server[batch_of(s)] += f.bytes;
            }
            // A pushed response (a stream the server opened) goes in a write of its own, once
            // the page it came with is written.
            (s, _) if s % 2 == 0 => pushed += f.bytes,
            (s, _) => {
                answered = true;
                server[batch_of(s)] += f.bytes;
            }
        }
    }
    let mut out = vec![
        Burst {
            side: Side::Down,
            bytes: server_preface,
        },
        Burst {
            side: Side::Up,
            bytes: client[0],
        },
        Burst {
            side: Side::Up,
            bytes: client_ack,
        },
        Burst {
            side: Side::Down,
            bytes: server_ack,
        },
        Burst {
            side: Side::Down,
            bytes: server[0],
        },
        Burst {
            side: Side::Down,
            bytes: pushed,
        },
    ];
    for k in 1..n {
        out.push(Burst {
            side: Side::Up,
            bytes: client[k],
        });
        out.push(Burst {
            side: Side::Down,
            bytes: server[k],
        });
    }
    out.push(Burst {
        side: Side::Up,
        bytes: client_tail,
    });
    out.push(Burst {
        side: Side::Down,
        bytes: server_tail,
    });
    out
}

#[cfg(test)]
mod tests {
    use super::super::io::{DATA, HEADERS};
    use super::*;

    fn f(stream: u32, kind: u8, flags: u8, bytes: u64) -> Frame {
        Frame {
            stream,
            kind,
            flags,
            bytes,
        }
    }

    #[test]
    fn frames_go_to_the_burst_of_their_batch_whatever_order_they_came_in() {
        // The page (stream 1), then two images (3, 5) in a second batch.
        let up = [
            f(0, SETTINGS, 0, 27),
            f(0, 0x8, 0, 13),
            f(1, HEADERS, 0, 40),
            f(0, SETTINGS, ACK, 9),
            f(3, HEADERS, 0, 20),
            f(5, HEADERS, 0, 12),
        ];
        let down = [
            f(0, SETTINGS, 0, 21),
            f(0, SETTINGS, ACK, 9),
            f(1, HEADERS, 0, 60),
            f(1, DATA, 0, 3000),
            // Interleaved as the codec pleased: the model does not care.
            f(5, HEADERS, 0, 30),
            f(3, HEADERS, 0, 30),
            f(3, DATA, 0, 500),
            f(5, DATA, 0, 700),
        ];
        let b = bursts(&up, &down, &[1, 2]);
        let bytes: Vec<(Side, u64)> = b.iter().map(|b| (b.side, b.bytes)).collect();
        assert_eq!(
            bytes,
            vec![
                (Side::Down, 21),
                (Side::Up, 24 + 27 + 13 + 40),
                (Side::Up, 9),
                (Side::Down, 9),
                (Side::Down, 60 + 3000),
                // Nothing pushed.
                (Side::Down, 0),
                (Side::Up, 32),
                (Side::Down, 1260),
                (Side::Up, 0),
                (Side::Down, 0),
            ]
        );
    }

    #[test]
    fn pushed_responses_follow_the_page_in_a_burst_of_their_own() {
        let down = [
            f(1, PUSH_PROMISE, 0, 30),
            f(1, HEADERS, 0, 50),
            f(2, HEADERS, 0, 40),
            f(2, DATA, 0, 900),
        ];
        let b = bursts(&[f(1, HEADERS, 0, 40)], &down, &[1]);
        assert_eq!(b[4].bytes, 30 + 50, "the promise and the page");
        assert_eq!((b[5].side, b[5].bytes), (Side::Down, 40 + 900));
    }
}
