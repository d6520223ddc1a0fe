//! The HTTP/2 server's batches as specifications: a batch of requests is answered once all of
//! it has arrived, even when the client's write crossed the link in several segments and the
//! last request frame came in a later one (as the HTTP/1 server waits for a split request).

use std::io::Read;
use std::io::Write;
use std::net::TcpStream;
use std::time::{Duration, Instant};

use super::hostile_tests::{frame, get_page, open, END_HEADERS, END_STREAM, HEADERS};
use crate::replay::server::ServerOptions;
use crate::replay::tests::{mode, site, with_mode_server};

/// The streams the server sent response headers on within `within`.
fn answered(stream: &mut TcpStream, within: Duration) -> Vec<u32> {
    let deadline = Instant::now() + within;
    let (mut buf, mut chunk, mut streams) = (Vec::new(), [0u8; 16 << 10], Vec::new());
    loop {
        while buf.len() >= 9 {
            let len =
                (usize::from(buf[0]) << 16) | (usize::from(buf[1]) << 8) | usize::from(buf[2]);
            if buf.len() < 9 + len {
                break;
            }
            if buf[3] == HEADERS {
                streams.push(u32::from_be_bytes([buf[5], buf[6], buf[7], buf[8]]) & 0x7fff_ffff);
            }
            buf.drain(..9 + len);
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return streams;
        }
        stream.set_read_timeout(Some(left)).unwrap();
        match stream.read(&mut chunk) {
            Ok(0) => return streams,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(_) => {}
        }
    }
}

#[test]
fn a_batch_is_answered_only_once_its_last_request_frame_has_arrived() {
    let opts = ServerOptions {
        // Long enough that waiting for the rest cannot pass for having answered early.
        partial_wait: Duration::from_secs(5),
        ..ServerOptions::default()
    };
    with_mode_server(&site(), opts, mode("h2c"), |server| {
        let mut client = open(server.addr, &[]);
        client.set_nodelay(true).unwrap();
        let page = get_page();
        let mut batch = frame(HEADERS, END_STREAM | END_HEADERS, 1, &page);
        batch.extend(frame(HEADERS, END_STREAM | END_HEADERS, 3, &page));
        // The client's one write, split by the link: the second request's last bytes come in
        // a later segment.
        let cut = batch.len() - 3;
        client.write_all(&batch[..cut]).unwrap();
        let early = answered(&mut client, Duration::from_millis(500));
        client.write_all(&batch[cut..]).unwrap();
        let later = answered(&mut client, Duration::from_secs(3));
        assert!(
            early.is_empty(),
            "answered before the batch was whole: {early:?}"
        );
        assert_eq!(later, [1, 3], "the whole batch, at once");
    });
}

#[test]
fn a_frame_that_never_completes_keeps_the_batch_waiting_no_longer_than_partial_wait() {
    let opts = ServerOptions {
        partial_wait: Duration::from_millis(50),
        ..ServerOptions::default()
    };
    with_mode_server(&site(), opts, mode("h2c"), |server| {
        let mut client = open(server.addr, &[]);
        let page = get_page();
        let mut batch = frame(HEADERS, END_STREAM | END_HEADERS, 1, &page);
        let second = frame(HEADERS, END_STREAM | END_HEADERS, 3, &page);
        batch.extend(&second[..second.len() - 3]);
        client.write_all(&batch).unwrap();
        assert_eq!(answered(&mut client, Duration::from_secs(3)), [1]);
    });
}
