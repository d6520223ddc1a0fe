//! The server and client as specifications: HTTP semantics, hardening, recovery, verification.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use super::meter::{Counters, Framing, Model};
use super::protocol::Mode;
use super::robot::{Cache, ClientOptions, Robot, Test, VisitError};
use super::server::{Control, ServeContext, Server, ServerOptions};
use super::transport::tls::TlsSetup;
use super::transport::{Connector, ServerTls, TlsOptions};
use super::{run_here, Method, Pages, ReplayOptions, ServedSite};
use crate::site::resolve::Resolver;

/// A small site: a page that references three images and a style sheet that imports another
/// image.
pub(super) fn site() -> ServedSite {
    let mut files = BTreeMap::new();
    let mut page = String::from(
        "<html><head><link rel=stylesheet href=style.css></head><body>\n<img src=a.gif>\
         <img src='img/b.gif'><img src=a.gif><img src=\"http://elsewhere.example/x.gif\">\n",
    );
    for i in 0..300 {
        page.push_str(&format!(
            "<p><font face=arial>paragraph {i} of the page</font></p>\n"
        ));
    }
    page.push_str("</body></html>\n");
    files.insert("index.html".to_string(), page.into_bytes());
    files.insert(
        "style.css".to_string(),
        b"body { background: url(img/bg.gif) }".to_vec(),
    );
    files.insert("a.gif".to_string(), gif(70));
    files.insert("img/b.gif".to_string(), gif(5000));
    files.insert("img/bg.gif".to_string(), gif(1500));
    ServedSite::from_memory("test-site", files)
}

fn gif(len: usize) -> Vec<u8> {
    let mut bytes = b"GIF89a".to_vec();
    let mut x: u32 = len as u32;
    while bytes.len() < len {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        bytes.push((x >> 16) as u8);
    }
    bytes
}

/// Running servers for a test: a cleartext one and one over TLS, serving the same site with
/// the same options, and the admission state the replay's own client uses.
pub(super) struct Running<'a> {
    /// The cleartext server.
    pub addr: SocketAddr,
    /// The TLS server.
    pub tls_addr: SocketAddr,
    pub control: &'a Control,
    pub tls_control: &'a Control,
    pub tls: &'a TlsSetup,
}

impl Running<'_> {
    /// One visit of `page` by the robot in `mode` (over TLS for the https modes), checked
    /// against `expected`.
    pub fn visit(
        &self,
        expected: &ServedSite,
        mode: Mode,
        test: Test,
        cache: &mut Cache,
    ) -> Result<Counters, VisitError> {
        let resolver = Resolver::new(&expected.site, None);
        let opts = ClientOptions::default();
        let robot = Robot::new(expected, &resolver, &opts);
        let client = self.tls.client.with_alpn(mode.spec().client.alpn());
        let (addr, own, tls) = if mode.is_tls() {
            (self.tls_addr, &self.tls_control.own, Some(&client))
        } else {
            (self.addr, &self.control.own, None)
        };
        let connector = Connector {
            addr,
            tcp: opts.tcp,
            timeout: opts.timeout,
            model: Model {
                mss: 1460,
                server_buffer: 64 << 10,
                framing: tls.map_or(Framing::NONE, |t| t.framing),
            },
            own,
            tls,
            visit: Default::default(),
            recorder: Default::default(),
        };
        connector.new_visit().map_err(|source| VisitError::Io {
            at: addr.to_string(),
            source,
        })?;
        mode.spec()
            .client
            .visit(&robot, &connector, "index.html", test, cache)
            .map(|v| v.counters)
    }
}

pub(super) fn mode(name: &str) -> Mode {
    Mode::named(name).unwrap()
}

/// Runs `f` against HTTP/1 servers for `site`, in cleartext and over TLS (default options).
pub(super) fn with_server<T>(
    site: &ServedSite,
    opts: ServerOptions,
    f: impl FnOnce(&Running) -> T,
) -> T {
    with_servers(site, opts, &TlsOptions::default(), f)
}

/// Runs `f` against HTTP/1 servers for `site`, in cleartext and over TLS with `tls`.
pub(super) fn with_servers<T>(
    site: &ServedSite,
    opts: ServerOptions,
    tls: &TlsOptions,
    f: impl FnOnce(&Running) -> T,
) -> T {
    with_mode_servers(site, opts, mode("persistent"), tls, f)
}

/// Runs `f` against the server half of `mode` for `site`.
pub(super) fn with_mode_server<T>(
    site: &ServedSite,
    opts: ServerOptions,
    mode: Mode,
    f: impl FnOnce(&Running) -> T,
) -> T {
    with_mode_servers(site, opts, mode, &TlsOptions::default(), f)
}

/// Runs `f` against the server half of `mode` for `site`, in cleartext and over TLS with `tls`.
pub(super) fn with_mode_servers<T>(
    site: &ServedSite,
    opts: ServerOptions,
    mode: Mode,
    tls: &TlsOptions,
    f: impl FnOnce(&Running) -> T,
) -> T {
    let resolver = Resolver::new(&site.site, None);
    let control = Control::default();
    let tls_control = Control::default();
    let setup = TlsSetup::new(tls).unwrap();
    let server_tls = ServerTls {
        config: setup.server.clone(),
        handshake_timeout: tls.handshake_timeout,
    };
    let cx = ServeContext::new(site, &resolver, &opts);
    std::thread::scope(|scope| {
        let half = mode.spec().server;
        let server = Server::start(scope, &cx, &control, half, None).unwrap();
        let tls_server = Server::start(scope, &cx, &tls_control, half, Some(&server_tls)).unwrap();
        let out = f(&Running {
            addr: server.addr,
            tls_addr: tls_server.addr,
            control: &control,
            tls_control: &tls_control,
            tls: &setup,
        });
        server.stop();
        tls_server.stop();
        out
    })
}

/// Sends raw bytes and reads until the server closes (or 2 s of silence).
pub(super) fn exchange(addr: SocketAddr, request: &[u8]) -> String {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(2)))
        .unwrap();
    stream.write_all(request).unwrap();
    let mut out = Vec::new();
    let _ = stream.read_to_end(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

#[test]
fn text_is_compressed_once_when_a_server_starts_and_never_for_a_site_only_estimated() {
    let site = site();
    let page = site.resource("index.html").unwrap();
    let image = site.resource("a.gif").unwrap();
    // Read for the estimate only (`--no-replay`): nothing is compressed yet.
    assert!(page.deflated.get().is_none() && page.brotli.get().is_none());
    let resolver = Resolver::new(&site.site, None);
    let opts = ServerOptions::default();
    let _cx = ServeContext::new(&site, &resolver, &opts);
    // A server about to serve: every variant is made before the first request is timed.
    for cell in [&page.deflated, &page.gzipped, &page.brotli] {
        let body = cell.get().expect("made when the server starts");
        assert!(body.as_ref().is_some_and(|b| b.len() < page.body.len()));
    }
    assert_eq!(
        image.deflated.get(),
        Some(&None),
        "images are sent as they are"
    );
}

#[test]
fn http10_request_gets_the_file_and_a_close() {
    let site = site();
    with_server(&site, ServerOptions::default(), |server| {
        let addr = server.addr;
        let text = exchange(addr, b"GET /a.gif HTTP/1.0\r\n\r\n");
        assert!(text.starts_with("HTTP/1.0 200 OK\r\n"), "{text}");
        assert!(text.contains("Content-Length: 70\r\n"));
        assert!(text.contains("Connection: close\r\n"));
        assert!(text.contains("ETag: \"") && text.contains("Last-Modified: "));
    });
}

#[test]
fn head_has_headers_but_no_body() {
    let site = site();
    with_server(&site, ServerOptions::default(), |server| {
        let addr = server.addr;
        let text = exchange(
            addr,
            b"HEAD /img/b.gif HTTP/1.1\r\nConnection: close\r\n\r\n",
        );
        assert!(text.contains("Content-Length: 5000\r\n"));
        assert!(text.ends_with("\r\n\r\n"), "no body after the head");
    });
}

#[test]
fn pipelined_requests_are_answered_in_order_and_validators_give_304() {
    let site = site();
    let etag = site.resource("a.gif").unwrap().etag.clone();
    with_server(&site, ServerOptions::default(), |server| {
        let addr = server.addr;
        let request = format!(
            "GET /a.gif HTTP/1.1\r\n\r\nGET /img/b.gif HTTP/1.1\r\n\r\n\
             GET /a.gif HTTP/1.1\r\nIf-None-Match: {etag}\r\nConnection: close\r\n\r\n"
        );
        let text = exchange(addr, request.as_bytes());
        let statuses: Vec<&str> = text.matches("HTTP/1.1 ").collect();
        assert_eq!(statuses.len(), 3);
        let first = text.find("200 OK").unwrap();
        let last = text.find("304 Not Modified").unwrap();
        assert!(first < last);
        assert!(text.ends_with("\r\n\r\n"), "a 304 has no body");
    });
}

#[test]
fn deflate_is_sent_only_to_clients_that_accept_it() {
    let site = site();
    with_server(&site, ServerOptions::default(), |server| {
        let addr = server.addr;
        let plain = exchange(addr, b"GET / HTTP/1.0\r\n\r\n");
        assert!(!plain.contains("Content-Encoding"));
        let mut stream = TcpStream::connect(addr).unwrap();
        stream
            .write_all(b"GET / HTTP/1.0\r\nAccept-Encoding: deflate\r\n\r\n")
            .unwrap();
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).unwrap();
        let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
        let head = String::from_utf8_lossy(&raw[..split]);
        assert!(head.contains("Content-Encoding: deflate\r\n"));
        let body = crate::deflate::inflate_zlib(&raw[split..], 1 << 20).unwrap();
        assert_eq!(body, site.resource("index.html").unwrap().body);
    });
}

#[test]
fn traversal_and_unknown_paths_are_404_and_garbage_is_400() {
    let site = site();
    with_server(&site, ServerOptions::default(), |server| {
        let addr = server.addr;
        for target in [
            "/../../etc/passwd",
            "/%2e%2e/%2e%2e/etc/passwd",
            "/nope.gif",
            "//evil/x",
        ] {
            let text = exchange(addr, format!("GET {target} HTTP/1.0\r\n\r\n").as_bytes());
            assert!(text.starts_with("HTTP/1.1 404"), "{target}: {text}");
        }
        let text = exchange(addr, b"\x16\x03\x01\x02\x00 not http\r\n\r\n");
        assert!(text.starts_with("HTTP/1.1 400"), "{text}");
        let text = exchange(addr, b"POST / HTTP/1.1\r\n\r\n");
        assert!(text.starts_with("HTTP/1.1 501"), "{text}");
    });
}

#[test]
fn oversized_request_heads_are_refused() {
    let site = site();
    with_server(&site, ServerOptions::default(), |server| {
        let addr = server.addr;
        let mut request = b"GET / HTTP/1.1\r\nX-Long: ".to_vec();
        request.extend(std::iter::repeat_n(b'a', 20_000));
        let text = exchange(addr, &request);
        assert!(text.starts_with("HTTP/1.1 431"), "{text}");
    });
}

#[test]
fn a_request_head_that_trickles_in_is_cut_off() {
    let site = site();
    let opts = ServerOptions {
        request_timeout: Duration::from_millis(300),
        ..ServerOptions::default()
    };
    with_server(&site, opts, |server| {
        let addr = server.addr;
        let mut stream = TcpStream::connect(addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(3)))
            .unwrap();
        for byte in b"GET /a.gif HTTP/1.1\r\nX: ".iter().cycle().take(12) {
            if stream.write_all(&[*byte]).is_err() {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let mut out = Vec::new();
        let _ = stream.read_to_end(&mut out);
        assert!(String::from_utf8_lossy(&out).starts_with("HTTP/1.1 408"));
    });
}

#[test]
fn a_silent_client_does_not_stall_the_others() {
    let site = site();
    with_server(&site, ServerOptions::default(), |server| {
        let mut idle = TcpStream::connect(server.addr).unwrap();
        idle.write_all(b"GET /a.gif HTTP/1.1\r\nHo").unwrap();
        let started = std::time::Instant::now();
        let counters = server
            .visit(&site, mode("pipelined"), Test::First, &mut Cache::default())
            .unwrap();
        assert!(started.elapsed() < Duration::from_secs(5));
        assert_eq!(counters.requests, 5);
        drop(idle);
    });
}

#[test]
fn connections_held_by_others_never_refuse_the_replays_own_client() {
    let site = site();
    let opts = ServerOptions {
        max_connections: 4,
        ..ServerOptions::default()
    };
    for m in Mode::all() {
        with_mode_server(&site, opts.clone(), m, |server| {
            // Others fill every slot and sit there.
            let held: Vec<TcpStream> = (0..4)
                .map(|_| TcpStream::connect(server.addr).unwrap())
                .collect();
            admitted(server.control, 4);
            // One more from elsewhere is refused…
            let mut refused = TcpStream::connect(server.addr).unwrap();
            refused
                .set_read_timeout(Some(Duration::from_secs(2)))
                .unwrap();
            let mut answer = Vec::new();
            let _ = refused.read_to_end(&mut answer);
            assert!(!answer.is_empty(), "{m}: a refusal, then the close");
            // …but the replay's own client still gets through.
            let mut cache = Cache::default();
            server
                .visit(&site, m, Test::First, &mut cache)
                .unwrap_or_else(|e| panic!("{m}: {e}"));
            assert_eq!(cache.len(), 5, "{m}: every resource arrived");
            drop(held);
        });
    }
}

#[test]
fn the_robot_fetches_what_a_browser_would_once_each() {
    let site = site();
    for m in Mode::all() {
        with_mode_server(&site, ServerOptions::default(), m, |server| {
            let mut cache = Cache::default();
            let first = server.visit(&site, m, Test::First, &mut cache).unwrap();
            // Page, style sheet, a.gif (once), img/b.gif, and the sheet's background: asked
            // for, or pushed.
            // With push, the page brings its sheet and images; the sheet's background is
            // still asked for.
            let pushed = m == mode("h2c-push") || m == mode("h2-push");
            assert_eq!(first.requests, if pushed { 2 } else { 5 }, "{m}");
            assert_eq!(cache.len(), 5, "{m}");
            let validate = server.visit(&site, m, Test::Validate, &mut cache).unwrap();
            assert_eq!(validate.requests, 5, "{m}");
            assert!(validate.bytes_down < first.bytes_down);
            let expected_connections = if m == mode("http10") || m == mode("https10") {
                5
            } else {
                1
            };
            assert_eq!(first.connections, expected_connections, "{m}");
        });
    }
}

#[test]
fn requests_outstanding_when_the_server_closes_are_reissued() {
    let site = site();
    let server_opts = ServerOptions {
        close_after: Some(2),
        ..ServerOptions::default()
    };
    with_server(&site, server_opts, |server| {
        let mut cache = Cache::default();
        let counters = server
            .visit(&site, mode("pipelined"), Test::First, &mut cache)
            .unwrap();
        assert_eq!(cache.len(), 5, "every resource arrived and verified");
        assert!(counters.connections >= 3, "{counters:?}");
        assert!(counters.requests > 5, "some requests were sent twice");
    });
}

#[test]
fn a_body_that_differs_from_the_site_is_an_error() {
    let served = site();
    let mut files: BTreeMap<String, Vec<u8>> = served
        .files()
        .map(|(p, r)| (p.to_string(), r.body.clone()))
        .collect();
    files.insert("img/b.gif".into(), gif(4999));
    let expected = ServedSite::from_memory("expected", files);
    with_server(&served, ServerOptions::default(), |server| {
        let err = server
            .visit(
                &expected,
                mode("persistent"),
                Test::First,
                &mut Cache::default(),
            )
            .unwrap_err();
        assert!(
            matches!(&err, VisitError::BodyDiffers { target, path, received, expected }
                if target.ends_with("img/b.gif") && path == "img/b.gif" && received != expected),
            "{err:?}"
        );
        // The message names the request, the file and both sizes.
        let message = err.to_string();
        assert!(
            message.contains("img/b.gif") && message.contains("differs"),
            "{message}"
        );
    });
}

#[test]
fn rows_hold_deterministic_figures_and_the_kernels_spread() {
    let site = site();
    let opts = ReplayOptions {
        runs: 3,
        pages: Pages::Index,
        netns: false,
        ..ReplayOptions::default()
    };
    let method = Method {
        name: "tcp-maxseg".into(),
        detail: String::new(),
        tcp_maxseg: Some(1460 + 12),
    };
    let replay = run_here(&site, &opts, method, &super::Link::Loopback, &|_| {}).unwrap();
    assert_eq!(replay.rows.len(), 2 * Mode::defaults().len());
    for row in &replay.rows {
        assert_eq!(row.runs, 3);
        let k = &row.kernel.packets;
        assert!(k.min <= k.median && k.median <= k.max, "{row:?}");
        assert!(row.lower_bound <= row.packets, "{row:?}");
        assert!(row.efficiency <= 1.0, "{row:?}");
        assert!(row.data_segments_up + row.data_segments_down <= row.packets);
        assert!(row.overhead_pct > 0.0 && row.overhead_pct < 100.0);
        let t = &row.time;
        assert!(t.first_byte_ms.median <= t.complete_ms.median, "{row:?}");
    }
}

/// Another program on the machine, trying all along to listen on `addr` with SO_REUSEADDR
/// once the replay has it (until then it only binds, which with SO_REUSEADDR on both sides
/// does not stand in the replay's way), until `stop`; counts the times it got the port
/// before `stop` was set.
pub(super) fn squat(addr: SocketAddr, stop: &std::sync::atomic::AtomicBool) -> usize {
    use std::sync::atomic::Ordering;
    let mut replay_listens = false;
    let mut taken = 0;
    while !stop.load(Ordering::SeqCst) {
        let squatter =
            socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
        squatter.set_reuse_address(true).unwrap();
        let bound = squatter.bind(&addr.into()).is_ok();
        replay_listens |= !bound;
        if bound && replay_listens && squatter.listen(8).is_ok() && !stop.load(Ordering::SeqCst) {
            taken += 1;
            // Holds it a while, as a server would.
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    taken
}

/// Waits until the server of `control` has admitted `n` connections: the order a test needs
/// (these before the next), not a time. Panics after 10 s.
pub(super) fn admitted(control: &Control, n: u64) {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while control.accepted_connections() < n {
        assert!(
            std::time::Instant::now() < deadline,
            "the server admitted {} of {n} connections",
            control.accepted_connections()
        );
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// A port nobody listens on now.
pub(super) fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port()
}

#[test]
fn a_port_squatter_does_not_stop_a_replay_of_several_modes_and_runs() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let site = site();
    let port = free_port();
    let opts = ReplayOptions {
        runs: 3,
        modes: vec![
            mode("http10"),
            mode("persistent"),
            mode("pipelined"),
            mode("h2c"),
        ],
        netns: false,
        server: ServerOptions {
            port,
            ..ServerOptions::default()
        },
        ..ReplayOptions::default()
    };
    let method = Method {
        name: "tcp-maxseg".into(),
        detail: String::new(),
        tcp_maxseg: Some(1460 + 12),
    };
    let stop = AtomicBool::new(false);
    let outcome = std::thread::scope(|s| {
        s.spawn(|| squat(([127, 0, 0, 1], port).into(), &stop));
        let outcome = run_here(&site, &opts, method, &super::Link::Loopback, &|_| {});
        stop.store(true, Ordering::SeqCst);
        outcome
    });
    let replay = outcome.expect("the replay completes");
    assert_eq!(replay.rows.len(), 2 * 4);
}

#[test]
fn h2c_br_sends_brotli_that_the_robot_decodes_and_it_is_smaller_than_deflate() {
    let site = site();
    let opts = ReplayOptions {
        runs: 1,
        modes: vec![mode("h2c"), mode("h2c-deflate"), mode("h2c-br")],
        netns: false,
        ..ReplayOptions::default()
    };
    let method = Method {
        name: "tcp-maxseg".into(),
        detail: String::new(),
        tcp_maxseg: Some(1460 + 12),
    };
    // The robot checks every decoded body against the site: a wrong coding fails the visit.
    let replay = run_here(&site, &opts, method, &super::Link::Loopback, &|_| {})
        .expect("every mode's visits succeed");
    let down = |name: &str| {
        replay
            .rows
            .iter()
            .find(|r| r.mode.as_str() == name && r.test == Test::First)
            .map(|r| r.bytes_down)
            .unwrap()
    };
    assert!(down("h2c-br") < down("h2c-deflate"), "{replay:?}");
    assert!(down("h2c-deflate") < down("h2c"));
    let page = site.resource("index.html").unwrap();
    let (body, coding, _) = page.coded(crate::compression::Coding::Brotli).unwrap();
    assert_eq!(coding, Some("br"));
    let decoded = crate::compression::Coding::Brotli
        .decode(body, 1 << 20)
        .unwrap();
    assert_eq!(decoded, page.body);
}
