//! Hostile HTTP/2 clients against the replay's server, as specifications: each one ends in a
//! GOAWAY or a stream reset within a bound, and none of them keeps the replay's own client
//! from a whole visit meanwhile.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use crate::replay::robot::{Cache, Test};
use crate::replay::server::ServerOptions;
use crate::replay::tests::{mode, site, with_mode_server, Running};

pub(super) const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
pub(super) const HEADERS: u8 = 0x1;
const RST_STREAM: u8 = 0x3;
const SETTINGS: u8 = 0x4;
const GOAWAY: u8 = 0x7;
pub(super) const END_STREAM: u8 = 0x1;
pub(super) const END_HEADERS: u8 = 0x4;

pub(super) fn frame(kind: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
    let len = payload.len();
    let mut f = vec![(len >> 16) as u8, (len >> 8) as u8, len as u8, kind, flags];
    f.extend(stream.to_be_bytes());
    f.extend(payload);
    f
}

/// `GET /` as an HPACK block: `:method GET`, `:scheme http`, `:path /` from the static
/// table, `:authority a` as a literal.
const GET_SLASH: &[u8] = &[0x82, 0x86, 0x84, 0x01, 0x01, b'a'];

/// `GET /index.html`, the test site's page (a body of a few hundred bytes).
pub(super) fn get_page() -> Vec<u8> {
    let mut block = vec![0x82, 0x86, 0x04, 11];
    block.extend(b"/index.html");
    block.extend([0x01, 0x01, b'a']);
    block
}

/// A connection that has sent the preface and `settings` (id, value pairs).
pub(super) fn open(addr: SocketAddr, settings: &[(u16, u32)]) -> TcpStream {
    let mut stream = TcpStream::connect(addr).unwrap();
    let mut payload = Vec::new();
    for (id, value) in settings {
        payload.extend(id.to_be_bytes());
        payload.extend(value.to_be_bytes());
    }
    let mut hello = PREFACE.to_vec();
    hello.extend(frame(SETTINGS, 0, 0, &payload));
    stream.write_all(&hello).unwrap();
    stream
}

/// How a hostile connection ended, as the server said it.
#[derive(Debug, Default)]
struct Ending {
    goaway: Option<u32>,
    resets: Vec<(u32, u32)>,
    closed: bool,
}

/// Reads frames until a GOAWAY, `resets` stream resets, the server's close, or `within`.
fn ending(stream: &mut TcpStream, within: Duration, resets: usize) -> Ending {
    let deadline = Instant::now() + within;
    let mut buf = Vec::new();
    let mut out = Ending::default();
    let mut chunk = [0u8; 16 << 10];
    loop {
        while buf.len() >= 9 {
            let len =
                (usize::from(buf[0]) << 16) | (usize::from(buf[1]) << 8) | usize::from(buf[2]);
            if buf.len() < 9 + len {
                break;
            }
            let kind = buf[3];
            let id = u32::from_be_bytes([buf[5], buf[6], buf[7], buf[8]]) & 0x7fff_ffff;
            let payload = &buf[9..9 + len];
            let code = |at: usize| {
                payload
                    .get(at..at + 4)
                    .map_or(0, |b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
            };
            match kind {
                GOAWAY => out.goaway = Some(code(4)),
                RST_STREAM => out.resets.push((id, code(0))),
                _ => {}
            }
            buf.drain(..9 + len);
        }
        if out.goaway.is_some() || out.resets.len() >= resets {
            return out;
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return out;
        }
        stream.set_read_timeout(Some(left)).unwrap();
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => {
                out.closed = true;
                return out;
            }
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

/// The replay's own client gets a whole first visit, quickly.
fn robot_is_served(server: &Running) {
    let started = Instant::now();
    let counters = server
        .visit(&site(), mode("h2c"), Test::First, &mut Cache::default())
        .unwrap();
    assert_eq!(counters.requests, 5);
    assert!(started.elapsed() < Duration::from_secs(5));
}

fn short_timeouts() -> ServerOptions {
    ServerOptions {
        idle_timeout: Duration::from_secs(1),
        request_timeout: Duration::from_secs(1),
        write_timeout: Duration::from_secs(1),
        ..ServerOptions::default()
    }
}

#[test]
fn a_client_that_opens_too_many_streams_has_the_excess_refused() {
    with_mode_server(&site(), ServerOptions::default(), mode("h2c"), |server| {
        let mut hostile = open(server.addr, &[]);
        let too_many = super::server::MAX_STREAMS + 40;
        let mut frames = Vec::new();
        for i in 0..too_many {
            // Open streams (no END_STREAM): each stays open on the client's side.
            frames.extend(frame(HEADERS, END_HEADERS, 2 * i + 1, GET_SLASH));
        }
        hostile.write_all(&frames).unwrap();
        robot_is_served(server);
        let end = ending(&mut hostile, Duration::from_secs(5), 1);
        const REFUSED_STREAM: u32 = 0x7;
        assert!(
            end.goaway.is_some() || end.resets.iter().any(|&(_, c)| c == REFUSED_STREAM),
            "{end:?}"
        );
        if let Some(&(id, _)) = end.resets.first() {
            assert!(
                id > 2 * super::server::MAX_STREAMS - 1,
                "stream {id} was within the limit"
            );
        }
    });
}

#[test]
fn an_invalid_hpack_block_ends_the_connection_with_an_error_goaway() {
    with_mode_server(&site(), ServerOptions::default(), mode("h2c"), |server| {
        let mut hostile = open(server.addr, &[]);
        // An indexed field far past the static and dynamic tables.
        let block = [0xff, 0xff, 0xff, 0xff, 0x0f];
        hostile
            .write_all(&frame(HEADERS, END_HEADERS | END_STREAM, 1, &block))
            .unwrap();
        let end = ending(&mut hostile, Duration::from_secs(5), 1);
        const PROTOCOL_ERROR: u32 = 0x1;
        const COMPRESSION_ERROR: u32 = 0x9;
        assert!(
            matches!(end.goaway, Some(PROTOCOL_ERROR | COMPRESSION_ERROR)),
            "{end:?}"
        );
        robot_is_served(server);
    });
}

#[test]
fn an_oversized_header_block_is_refused_without_taking_the_server_down() {
    with_mode_server(&site(), ServerOptions::default(), mode("h2c"), |server| {
        let mut hostile = open(server.addr, &[]);
        // A literal field (not indexed, new name) of 64 KiB, over the 16 KiB header list
        // limit, in HEADERS and CONTINUATION frames of 16 KiB.
        let mut block = GET_SLASH.to_vec();
        block.extend([0x00, 0x01, b'x', 0x7f]);
        let mut value_len = (64usize << 10) - 127;
        while value_len >= 128 {
            block.push((value_len % 128) as u8 | 0x80);
            value_len /= 128;
        }
        block.push(value_len as u8);
        block.extend(std::iter::repeat_n(b'v', 64 << 10));
        let pieces: Vec<&[u8]> = block.chunks(16 << 10).collect();
        let mut frames = Vec::new();
        for (i, piece) in pieces.iter().enumerate() {
            let last = if i + 1 == pieces.len() {
                END_HEADERS
            } else {
                0
            };
            let (kind, flags) = if i == 0 {
                (HEADERS, last | END_STREAM)
            } else {
                (0x9, last)
            };
            frames.extend(frame(kind, flags, 1, piece));
        }
        let _ = hostile.write_all(&frames);
        let end = ending(&mut hostile, Duration::from_secs(5), 1);
        assert!(
            end.goaway.is_some() || !end.resets.is_empty() || end.closed,
            "{end:?}"
        );
        robot_is_served(server);
    });
}

#[test]
fn a_client_that_grants_no_flow_control_window_is_sent_a_goaway() {
    with_mode_server(&site(), short_timeouts(), mode("h2c"), |server| {
        // SETTINGS_INITIAL_WINDOW_SIZE 0: no stream may carry a byte of DATA, and the client
        // never sends a WINDOW_UPDATE.
        let mut hostile = open(server.addr, &[(0x4, 0)]);
        hostile
            .write_all(&frame(HEADERS, END_HEADERS | END_STREAM, 1, &get_page()))
            .unwrap();
        robot_is_served(server);
        let end = ending(&mut hostile, Duration::from_secs(6), 1);
        assert!(end.goaway.is_some() || end.closed, "{end:?}");
        robot_is_served(server);
    });
}

#[test]
fn a_rst_stream_flood_ends_in_a_goaway() {
    with_mode_server(&site(), ServerOptions::default(), mode("h2c"), |server| {
        let mut hostile = open(server.addr, &[]);
        let mut frames = Vec::new();
        for i in 0..5_000u32 {
            let id = 2 * i + 1;
            frames.extend(frame(HEADERS, END_HEADERS, id, GET_SLASH));
            frames.extend(frame(RST_STREAM, 0, id, &8u32.to_be_bytes()));
        }
        let _ = hostile.write_all(&frames);
        let end = ending(&mut hostile, Duration::from_secs(5), usize::MAX);
        assert!(end.goaway.is_some() || end.closed, "{end:?}");
        robot_is_served(server);
    });
}

#[test]
fn a_client_that_sends_settings_and_then_nothing_is_sent_a_goaway() {
    with_mode_server(&site(), short_timeouts(), mode("h2c"), |server| {
        let started = Instant::now();
        let mut hostile = open(server.addr, &[]);
        robot_is_served(server);
        let end = ending(&mut hostile, Duration::from_secs(6), usize::MAX);
        assert_eq!(
            end.goaway,
            Some(0),
            "NO_ERROR, after the idle timeout: {end:?}"
        );
        assert!(started.elapsed() < Duration::from_secs(4));
    });
}
