//! The TLS transport as specifications: the HTTPS modes reproduce the site, resumption and
//! versions cost what they should, the model's handshake equals the kernel's, and hostile or
//! broken clients get a clean refusal without stalling the replay's own client.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use super::tls::{self, TlsSetup};
use super::{Cipher, TlsOptions, TlsVersion};
use crate::replay::meter::{Counters, Handshake};
use crate::replay::robot::{Cache, Test};
use crate::replay::server::ServerOptions;
use crate::replay::tests::{
    admitted, mode, site, with_mode_server, with_mode_servers, with_server, with_servers, Running,
};
use crate::replay::Mode;

fn https_modes() -> Vec<Mode> {
    Mode::all().into_iter().filter(|m| m.is_tls()).collect()
}

/// The requests a first visit of the test site makes: 5, or 2 when the server pushes the rest
/// with the page (the sheet's background is still asked for).
fn first_visit_requests(m: Mode) -> u64 {
    if m.as_str().ends_with("-push") {
        2
    } else {
        5
    }
}

/// A first visit, then a validation, in `name`.
fn both(server: &Running, name: &str) -> (Counters, Counters) {
    let site = site();
    let mut cache = Cache::default();
    let first = server
        .visit(&site, mode(name), Test::First, &mut cache)
        .unwrap();
    let validate = server
        .visit(&site, mode(name), Test::Validate, &mut cache)
        .unwrap();
    (first, validate)
}

/// Writes `bytes` to the TLS server and reads what comes back until it closes (at most
/// `wait`): what it said, and how long it took to close.
fn raw_reply(addr: SocketAddr, bytes: &[u8], wait: Duration) -> (Vec<u8>, Duration) {
    let started = Instant::now();
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(wait)).unwrap();
    let _ = stream.write_all(bytes);
    let mut out = Vec::new();
    let _ = stream.read_to_end(&mut out);
    (out, started.elapsed())
}

/// A refusal is a TLS alert record (content type 21) or nothing at all before the close.
fn is_refusal(reply: &[u8]) -> bool {
    reply.is_empty() || reply[0] == 21
}

/// The first flight of a real client with `opts`, for tests that send it (or part of it).
fn client_hello(opts: &TlsOptions) -> Vec<u8> {
    let setup = TlsSetup::new(opts).unwrap();
    let mut session = setup.client.session(Duration::ZERO, None).unwrap();
    session.pending().unwrap()
}

/// The replay's own client still gets a whole visit over TLS, quickly.
fn robot_is_served(server: &Running) {
    let started = Instant::now();
    let site = site();
    let counters = server
        .visit(
            &site,
            mode("https-pipelined"),
            Test::First,
            &mut Cache::default(),
        )
        .unwrap();
    assert_eq!(counters.requests, 5);
    assert!(started.elapsed() < Duration::from_secs(5));
}

/// Waits (a bounded time) until the TLS server holds no connection any more.
fn all_connections_end(server: &Running, within: Duration) {
    let deadline = Instant::now() + within;
    while server.tls_control.open_connections() > 0 {
        assert!(
            Instant::now() < deadline,
            "{} connection(s) still held",
            server.tls_control.open_connections()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn every_https_mode_reproduces_the_site_over_tls() {
    for m in https_modes() {
        with_mode_server(&site(), ServerOptions::default(), m, |server| {
            let (first, validate) = both(server, m.as_str());
            assert_eq!(first.requests, first_visit_requests(m), "{m}");
            assert_eq!(validate.requests, 5, "{m}");
            assert!(validate.bytes_down < first.bytes_down, "{m}");
            assert_eq!(
                first.tls.full, 1,
                "{m}: the first connection of a visit is full"
            );
            assert!(first.tls.handshake_bytes_down > 0, "{m}");
        });
    }
}

#[test]
fn with_resumption_every_connection_after_the_first_resumes() {
    let on = TlsOptions::default();
    let off = TlsOptions {
        resumption: false,
        ..TlsOptions::default()
    };
    let (resumed, _) = with_servers(&site(), ServerOptions::default(), &on, |s| {
        both(s, "https10")
    });
    let (full, _) = with_servers(&site(), ServerOptions::default(), &off, |s| {
        both(s, "https10")
    });
    assert_eq!(resumed.connections, 5);
    assert_eq!((resumed.tls.full, resumed.tls.resumed), (1, 4));
    assert_eq!((full.tls.full, full.tls.resumed), (5, 0));
    // A resumed handshake sends no certificate: less down, and TLS 1.3 keeps one round trip.
    assert!(resumed.tls.handshake_bytes_down < full.tls.handshake_bytes_down);
    assert_eq!((resumed.tls.round_trips, full.tls.round_trips), (5, 5));
    assert!(resumed.bytes() < full.bytes());
}

#[test]
fn tls12_full_handshakes_take_two_round_trips_and_resumed_ones_one() {
    let opts = TlsOptions {
        version: TlsVersion::V12,
        ..TlsOptions::default()
    };
    let (first, _) = with_servers(&site(), ServerOptions::default(), &opts, |s| {
        both(s, "https10")
    });
    assert_eq!((first.tls.full, first.tls.resumed), (1, 4));
    assert_eq!(first.tls.round_trips, 2 + 4);
    // TLS 1.2 has no post-handshake tickets.
    assert_eq!(first.tls.ticket_segments, 0);
}

#[test]
fn the_chosen_cipher_suite_is_the_one_negotiated() {
    for (cipher, name) in [
        (Cipher::Chacha20, "CHACHA20"),
        (Cipher::AesGcm, "AES_128_GCM"),
    ] {
        for version in [TlsVersion::V13, TlsVersion::V12] {
            let opts = TlsOptions {
                cipher,
                version,
                ..TlsOptions::default()
            };
            with_servers(&site(), ServerOptions::default(), &opts, |server| {
                let mut stream = TcpStream::connect(server.tls_addr).unwrap();
                let mut session = server.tls.client.session(Duration::ZERO, None).unwrap();
                let mut record = Handshake::default();
                tls::client_handshake(&mut stream, &mut session, &mut record, &mut 0).unwrap();
                let suite = session.suite().unwrap();
                assert!(suite.contains(name), "{suite}");
            });
        }
    }
}

#[test]
fn the_models_handshake_segments_equal_the_kernels() {
    for version in [TlsVersion::V13, TlsVersion::V12] {
        let opts = TlsOptions {
            version,
            ..TlsOptions::default()
        };
        for m in ["https10", "https-persistent", "https-pipelined", "h2"] {
            with_mode_servers(
                &site(),
                ServerOptions::default(),
                mode(m),
                &opts,
                |server| {
                    let (first, validate) = both(server, m);
                    for c in [first, validate] {
                        let t = c.tls;
                        let model = t.handshake.up.data + t.handshake.down.data - t.ticket_segments;
                        // Over TLS 1.2 the server's handshake ends with its Finished, and HTTP/2's
                        // server preface follows at once: the kernel's count at the end of the
                        // client's handshake may already hold its one segment.
                        let slack = u64::from(m == "h2" && version == TlsVersion::V12);
                        let kernel = t.kernel_data_segments;
                        assert!(
                            (model..=model + slack).contains(&kernel),
                            "{m} {version:?}: model {model}, kernel {kernel}: {t:?}"
                        );
                    }
                },
            );
        }
    }
}

#[test]
fn the_record_layer_adds_its_overhead_per_write_and_a_close_notify() {
    // A validation of the small site: every request is one write and every 304 one flush
    // (the server answers one request at a time), each one record of 22 bytes' overhead in
    // TLS 1.3 with AES-GCM; the client's close_notify is 24 bytes.
    with_server(&site(), ServerOptions::default(), |server| {
        let (_, validate) = both(server, "https-persistent");
        assert_eq!(validate.tls.record_overhead, 5 * 22 + 5 * 22 + 24);
        let (_, plain) = both(server, "persistent");
        assert_eq!(
            validate.bytes(),
            plain.bytes()
                + validate.tls.handshake_bytes_up
                + validate.tls.handshake_bytes_down
                + validate.tls.record_overhead
        );
    });
}

#[test]
fn garbage_instead_of_a_client_hello_gets_an_alert_or_a_close_at_once() {
    with_server(&site(), ServerOptions::default(), |server| {
        let mut junk = b"\x16\x03\x01\x00\x10".to_vec();
        junk.extend_from_slice(b"not a client hello at all");
        for bytes in [
            junk.as_slice(),
            b"\x00\x01\x02\x03 garbage \xff\xfe\r\n\r\n",
        ] {
            let (reply, took) = raw_reply(server.tls_addr, bytes, Duration::from_secs(5));
            assert!(is_refusal(&reply), "{reply:?}");
            assert!(took < Duration::from_secs(2), "refused after {took:?}");
        }
        robot_is_served(server);
        all_connections_end(server, Duration::from_secs(3));
    });
}

#[test]
fn plaintext_http_to_the_tls_port_is_refused_without_waiting() {
    with_server(&site(), ServerOptions::default(), |server| {
        let (reply, took) = raw_reply(
            server.tls_addr,
            b"GET /a.gif HTTP/1.1\r\nHost: x\r\n\r\n",
            Duration::from_secs(5),
        );
        assert!(is_refusal(&reply), "{:?}", String::from_utf8_lossy(&reply));
        assert!(took < Duration::from_secs(2), "refused after {took:?}");
        all_connections_end(server, Duration::from_secs(3));
    });
}

#[test]
fn a_client_that_stops_mid_handshake_is_dropped_at_the_handshake_bound() {
    let opts = TlsOptions {
        handshake_timeout: Duration::from_millis(400),
        ..TlsOptions::default()
    };
    with_servers(&site(), ServerOptions::default(), &opts, |server| {
        let hello = client_hello(&TlsOptions::default());
        let mut stalled: Vec<TcpStream> = (0..8)
            .map(|_| {
                let mut s = TcpStream::connect(server.tls_addr).unwrap();
                s.write_all(&hello[..hello.len() / 2]).unwrap();
                s
            })
            .collect();
        // The others are served meanwhile…
        robot_is_served(server);
        // …and the stalled ones are closed once the bound has passed.
        for s in &mut stalled {
            s.set_read_timeout(Some(Duration::from_secs(3))).unwrap();
            let started = Instant::now();
            let mut out = Vec::new();
            let _ = s.read_to_end(&mut out);
            assert!(started.elapsed() < Duration::from_secs(2));
            assert!(is_refusal(&out), "{out:?}");
        }
        all_connections_end(server, Duration::from_secs(3));
    });
}

#[test]
fn versions_and_suites_the_server_refuses_get_an_alert() {
    with_server(&site(), ServerOptions::default(), |server| {
        for offer in [
            TlsOptions {
                version: TlsVersion::V12,
                ..TlsOptions::default()
            },
            TlsOptions {
                cipher: Cipher::Chacha20,
                ..TlsOptions::default()
            },
        ] {
            let (reply, took) = raw_reply(
                server.tls_addr,
                &client_hello(&offer),
                Duration::from_secs(5),
            );
            assert!(!reply.is_empty() && reply[0] == 21, "an alert: {reply:?}");
            assert!(took < Duration::from_secs(2));
        }
        robot_is_served(server);
        all_connections_end(server, Duration::from_secs(3));
    });
}

#[test]
fn a_silent_tls_client_does_not_stall_the_others() {
    with_server(&site(), ServerOptions::default(), |server| {
        // One connects and says nothing; one completes the handshake and sends half a request.
        let _idle = TcpStream::connect(server.tls_addr).unwrap();
        let mut half = TcpStream::connect(server.tls_addr).unwrap();
        let mut session = server.tls.client.session(Duration::ZERO, None).unwrap();
        tls::client_handshake(&mut half, &mut session, &mut Handshake::default(), &mut 0).unwrap();
        half.write_all(&session.seal(b"GET /a.gif HTTP/1.1\r\nHo", false).unwrap())
            .unwrap();
        robot_is_served(server);
    });
}

#[test]
fn connections_held_by_others_never_refuse_the_replays_own_tls_client() {
    let opts = ServerOptions {
        max_connections: 4,
        ..ServerOptions::default()
    };
    for m in https_modes() {
        with_mode_server(&site(), opts.clone(), m, |server| {
            let held: Vec<TcpStream> = (0..4)
                .map(|_| TcpStream::connect(server.tls_addr).unwrap())
                .collect();
            admitted(server.tls_control, 4);
            // One more from elsewhere is closed without a handshake…
            let (reply, took) = raw_reply(
                server.tls_addr,
                &client_hello(&TlsOptions::default()),
                Duration::from_secs(5),
            );
            assert!(reply.is_empty(), "{reply:?}");
            assert!(took < Duration::from_secs(2));
            // …but the replay's own client still gets through, in every mode over TLS.
            let (first, _) = both(server, m.as_str());
            assert_eq!(first.requests, first_visit_requests(m), "{m}");
            drop(held);
        });
    }
}

#[test]
fn http2_over_tls_is_agreed_by_alpn_and_the_http1_modes_agree_nothing() {
    let setup = TlsSetup::new(&TlsOptions::default()).unwrap();
    for (alpn, expected) in [(&[tls::ALPN_H2][..], Some(tls::ALPN_H2)), (&[][..], None)] {
        let client = setup.client.with_alpn(alpn);
        let mut session = client.session(Duration::ZERO, None).unwrap();
        let mut server = tls::server_session(&setup.server).unwrap();
        // Both ends in memory: each flight handed to the other until neither has more.
        let mut plain = Vec::new();
        for _ in 0..4 {
            let up = session.pending().unwrap();
            server.open(&up, &mut plain).unwrap();
            let down = server.pending().unwrap();
            session.open(&down, &mut plain).unwrap();
        }
        assert!(!session.is_handshaking());
        assert_eq!(session.alpn(), expected);
        assert_eq!(server.alpn(), expected);
    }
}

#[test]
fn http2_over_tls_costs_a_handshake_and_record_overhead_over_h2c() {
    with_mode_server(&site(), ServerOptions::default(), mode("h2"), |server| {
        let (tls_first, tls_validate) = both(server, "h2");
        let (first, validate) = both(server, "h2c");
        for (over_tls, clear) in [(tls_first, first), (tls_validate, validate)] {
            assert_eq!(over_tls.requests, clear.requests);
            assert_eq!(over_tls.tls.full, 1);
            assert_eq!(clear.tls.full, 0);
            assert!(over_tls.bytes_down > clear.bytes_down + over_tls.tls.handshake_bytes_down);
            assert!(over_tls.model.total() > clear.model.total());
            // The same frames: HPACK's header bytes do not depend on the transport.
            assert_eq!(over_tls.headers.requests, clear.headers.requests);
        }
    });
}
