//! The link emulator's accuracy, on real namespaces, TUN devices and kernel TCP: handshakes
//! take the RTT, bulk transfers run at the rate times the wire efficiency, random loss stays
//! within its binomial bounds and repeats with its seed, and a capture on the client's device
//! agrees with the emulator's counters and with TCP_INFO.
//!
//! They need root (or a user namespace) and /dev/net/tun: without them they skip with a note,
//! except under CI=true, where they fail. The test's own client and server threads ask for
//! real-time priority (below the forwarder's), so that a busy machine's scheduling delays do
//! not pass for the emulator's error.

use crate::common;

use std::collections::BTreeSet;
use std::io::{BufRead, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, UdpSocket};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use common::{in_ci, tcpdump_available, timing_turn};
use webdiet::replay::link::{self, Emulator, EmulatorOptions, Link, LinkSpec};

fn spec(text: &str) -> LinkSpec {
    match webdiet::sim::link::parse(text).unwrap().remove(0) {
        Link::Emulated(spec) => *spec,
        Link::Loopback => panic!("{text} is not emulated"),
    }
}

/// The emulator for `text`, or `None` (with a note) where namespaces or TUN are unavailable.
fn start(text: &str, seed: u64) -> Option<Emulator> {
    let options = EmulatorOptions {
        seed,
        ..EmulatorOptions::default()
    };
    match Emulator::start(&spec(text), &options) {
        Ok(emulator) => Some(emulator),
        Err(e) if !in_ci() => {
            eprintln!("note: skipping, no emulated link here: {e}");
            None
        }
        Err(e) => panic!("CI=true but the emulated link cannot start: {e}"),
    }
}

/// Runs `f` in the server's namespace with a listener on the server's address.
fn serve<F>(emulator: &Emulator, f: F) -> (SocketAddr, std::thread::JoinHandle<()>)
where
    F: FnOnce(TcpListener) + Send + 'static,
{
    let (tx, rx) = mpsc::channel();
    let addr = emulator.server_addr();
    let handle = emulator.server().spawn(move || {
        link::try_realtime();
        let listener = TcpListener::bind((addr, 0)).expect("bind in the server namespace");
        tx.send(listener.local_addr().unwrap()).unwrap();
        f(listener);
    });
    let addr = rx.recv().expect("the server thread starts");
    let joined = std::thread::spawn(move || handle.join().unwrap().unwrap());
    (addr, joined)
}

/// Runs `f` in the client's namespace and returns its result.
fn client<T: Send + 'static>(emulator: &Emulator, f: impl FnOnce() -> T + Send + 'static) -> T {
    emulator
        .client()
        .spawn(|| {
            link::try_realtime();
            f()
        })
        .join()
        .unwrap()
        .unwrap()
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// Median of 5 connect() times over a link with `rtt_ms`.
fn handshake_ms(link: &str) -> Option<f64> {
    let emulator = start(link, 1)?;
    let (addr, server) = serve(&emulator, |listener| {
        for _ in 0..5 {
            drop(listener.accept().unwrap());
        }
    });
    let times = client(&emulator, move || {
        (0..5)
            .map(|_| {
                let started = Instant::now();
                let stream = TcpStream::connect(addr).unwrap();
                let ms = started.elapsed().as_secs_f64() * 1000.0;
                drop(stream);
                std::thread::sleep(Duration::from_millis(5));
                ms
            })
            .collect::<Vec<f64>>()
    });
    server.join().unwrap();
    Some(median(times))
}

#[test]
fn a_tcp_handshake_takes_one_rtt() {
    let _turn = timing_turn();
    for rtt in [20.0, 75.0, 200.0] {
        let link = if rtt == 75.0 {
            // The 1997 WAN: its 1.544 Mbit/s adds 2 × 52 bytes of SYN and SYN-ACK, 0.5 ms.
            "wan-1997".to_string()
        } else {
            format!("rtt={rtt}ms")
        };
        let Some(measured) = handshake_ms(&link) else {
            return;
        };
        let expected = if rtt == 75.0 {
            rtt + 2.0 * 52.0 * 8.0 / 1_544_000.0 * 1000.0
        } else {
            rtt
        };
        // Physics, not a wall-clock window: a handshake cannot take less than the link's RTT
        // (less 0.1 ms of timer granularity), and a forwarder that delays each packet once,
        // as it must, keeps it well under two RTTs even on a loaded machine (a second RTT is
        // what a forwarder that delayed twice, or held a packet a round, would add).
        eprintln!("{link}: handshake {measured:.3} ms, expected {expected:.3} ms");
        assert!(
            measured >= expected - 0.1,
            "{link}: handshake {measured:.3} ms, faster than the link's {expected:.3} ms"
        );
        let ceiling = 1.5 * expected + 5.0;
        assert!(
            measured <= ceiling,
            "{link}: handshake {measured:.3} ms, expected {expected:.3} ms (at most {ceiling:.3})"
        );
    }
}

/// Goodput of a 1 MB server → client transfer, first to last byte read, in bit/s.
fn goodput(link: &str) -> Option<f64> {
    const SIZE: usize = 1_000_000;
    let emulator = start(link, 1)?;
    let (addr, server) = serve(&emulator, |listener| {
        let (mut stream, _) = listener.accept().unwrap();
        stream.write_all(&vec![0x5a; SIZE]).unwrap();
    });
    let bps = client(&emulator, move || {
        let mut stream = TcpStream::connect(addr).unwrap();
        let mut buf = vec![0; 1 << 16];
        let mut total = 0;
        let mut first: Option<(Instant, usize)> = None;
        let mut last = Instant::now();
        while total < SIZE {
            let n = stream.read(&mut buf).unwrap();
            assert!(n > 0, "the transfer ended early at {total} bytes");
            first.get_or_insert((Instant::now(), n));
            total += n;
            last = Instant::now();
        }
        let (t0, n0) = first.unwrap();
        (total - n0) as f64 * 8.0 / last.duration_since(t0).as_secs_f64()
    });
    server.join().unwrap();
    let report = emulator.stop().unwrap();
    assert_eq!(report.counters.down.queue_drop_packets, 0, "{report:?}");
    Some(bps)
}

#[test]
fn a_bulk_transfer_runs_at_the_rate_times_the_wire_efficiency() {
    let _turn = timing_turn();
    // Full segments: 1460 bytes of payload in 1500-byte IP packets (timestamps off).
    let efficiency = 1460.0 / 1500.0;
    for rate in [2_000_000.0, 10_000_000.0] {
        // The queue holds the whole megabyte, so no segment is lost and resent: the test is
        // about the serializer, not about loss recovery.
        let link = format!("rate={}kbit,rtt=2ms,queue=1000", rate / 1000.0);
        let Some(measured) = goodput(&link) else {
            return;
        };
        let expected = rate * efficiency;
        eprintln!("{link}: {measured:.0} bit/s, expected {expected:.0}");
        assert_goodput(&link, measured, expected);
    }
}

/// A link cannot deliver faster than its rate (2% over it for the first read's timing: the
/// measurement starts at the first byte read, not at the first byte sent), and a serializer
/// that paces at the rate keeps at least 70% of it even when the reader is descheduled on a
/// loaded machine; a pacing bug (no pacing, or twice the delay) falls outside either bound.
fn assert_goodput(link: &str, measured: f64, expected: f64) {
    assert!(
        measured <= expected * 1.02,
        "{link}: {measured:.0} bit/s, above the link's {expected:.0}"
    );
    assert!(
        measured >= expected * 0.7,
        "{link}: {measured:.0} bit/s, far below the link's {expected:.0}"
    );
}

/// Sends 20,000 numbered datagrams client → server and returns which ones were lost, as seen
/// by the receiver, after checking that the emulator's count of losses says the same.
fn lost_datagrams(link: &str, seed: u64) -> Option<BTreeSet<u32>> {
    const N: u32 = 20_000;
    let emulator = start(link, seed)?;
    let server_addr = emulator.server_addr();
    let received = Arc::new(AtomicU64::new(0));
    let (tx, rx) = mpsc::channel();
    let counted = received.clone();
    let receiver = emulator.server().spawn(move || {
        let socket = UdpSocket::bind((server_addr, 0)).unwrap();
        socket
            .set_read_timeout(Some(Duration::from_millis(500)))
            .unwrap();
        tx.send(socket.local_addr().unwrap()).unwrap();
        let mut seen = BTreeSet::new();
        let mut buf = [0u8; 64];
        while let Ok(n) = socket.recv(&mut buf) {
            assert_eq!(n, 4);
            seen.insert(u32::from_be_bytes(buf[..4].try_into().unwrap()));
            counted.fetch_add(1, Ordering::SeqCst);
        }
        seen
    });
    let to: SocketAddr = rx.recv().unwrap();
    let emulator = Arc::new(emulator);
    let watch = emulator.clone();
    client(&emulator, move || {
        let socket = UdpSocket::bind(("198.18.0.1", 0)).unwrap();
        for i in 0..N {
            socket.send_to(&i.to_be_bytes(), to).unwrap();
            // Every 100 datagrams, let the emulator and the receiver catch up, so that no
            // socket buffer overflows and every loss is the emulator's.
            if i % 100 == 99 {
                let deadline = Instant::now() + Duration::from_secs(5);
                loop {
                    let up = watch.counters().up;
                    let done = up.arrived_packets == u64::from(i + 1)
                        && up.in_flight() == 0
                        && received.load(Ordering::SeqCst) == up.forwarded_packets;
                    if done || Instant::now() > deadline {
                        break;
                    }
                    std::thread::sleep(Duration::from_micros(200));
                }
            }
        }
    });
    let seen = receiver.join().unwrap().unwrap();
    let up = emulator.counters().up;
    assert_eq!(up.arrived_packets, u64::from(N), "{up:?}");
    assert_eq!(up.forwarded_packets, seen.len() as u64, "{up:?}");
    assert_eq!(up.queue_drop_packets, 0, "{up:?}");
    let lost: BTreeSet<u32> = (0..N).filter(|i| !seen.contains(i)).collect();
    assert_eq!(up.lost_packets, lost.len() as u64, "{up:?}");
    Some(lost)
}

/// The two-sided 99% interval of a binomial(n, p) count, from its exact distribution.
fn binomial_99(n: u64, p: f64) -> (u64, u64) {
    let mut pmf = (1.0 - p).powf(n as f64);
    let mut cdf = 0.0;
    let (mut lo, mut hi) = (None, None);
    for k in 0..=n {
        if k > 0 {
            pmf *= (n - k + 1) as f64 / k as f64 * p / (1.0 - p);
        }
        cdf += pmf;
        if lo.is_none() && cdf >= 0.005 {
            lo = Some(k);
        }
        if cdf >= 0.995 {
            hi = Some(k);
            break;
        }
    }
    (lo.unwrap(), hi.unwrap())
}

#[test]
fn random_loss_stays_in_its_binomial_bounds_and_repeats_with_its_seed() {
    let _turn = timing_turn();
    let link = "loss=1%";
    let Some(first) = lost_datagrams(link, 7) else {
        return;
    };
    let (lo, hi) = binomial_99(20_000, 0.01);
    eprintln!("{} lost of 20,000, 99% bounds {lo}–{hi}", first.len());
    assert!(
        (lo..=hi).contains(&(first.len() as u64)),
        "{} lost of 20,000, 99% bounds {lo}–{hi}",
        first.len()
    );
    let again = lost_datagrams(link, 7).unwrap();
    assert_eq!(first, again, "the same seed loses the same datagrams");
    let other = lost_datagrams(link, 8).unwrap();
    assert_ne!(first, other, "another seed loses others");
}

#[test]
fn a_full_queue_drops_and_counts_separately_from_losses() {
    let _turn = timing_turn();
    let Some(emulator) = start("rate=1mbit,queue=10", 1) else {
        return;
    };
    let server_addr = emulator.server_addr();
    let (tx, rx) = mpsc::channel();
    let receiver = emulator.server().spawn(move || {
        let socket = UdpSocket::bind((server_addr, 0)).unwrap();
        socket
            .set_read_timeout(Some(Duration::from_millis(800)))
            .unwrap();
        tx.send(socket.local_addr().unwrap()).unwrap();
        let mut n = 0u64;
        let mut buf = [0u8; 2048];
        while socket.recv(&mut buf).is_ok() {
            n += 1;
        }
        n
    });
    let to: SocketAddr = rx.recv().unwrap();
    let sending = client(&emulator, move || {
        let socket = UdpSocket::bind(("198.18.0.1", 0)).unwrap();
        // 200 datagrams of 1472 bytes (1500-byte packets, 12 ms each at 1 Mbit/s) at once.
        let started = Instant::now();
        for _ in 0..200 {
            socket.send_to(&[0u8; 1472], to).unwrap();
        }
        started.elapsed()
    });
    let received = receiver.join().unwrap().unwrap();
    let up = emulator.stop().unwrap().counters.up;
    assert_eq!(up.arrived_packets, 200, "{up:?}");
    assert_eq!(up.lost_packets, 0);
    assert_eq!(up.forwarded_packets + up.queue_drop_packets, 200, "{up:?}");
    assert_eq!(up.forwarded_packets, received);
    assert_eq!(up.queue_drop_bytes, up.queue_drop_packets * 1500);
    // What got through is bounded by physics, whatever the machine's load: one on the wire
    // and ten waiting, plus one more for every 12 ms the burst took to send (what drained
    // meanwhile), plus one for where the drain stood when the burst began.
    let drained = (sending.as_secs_f64() / 0.012).ceil() as u64;
    assert!(
        up.forwarded_packets <= 11 + drained + 1,
        "{up:?}: the burst took {sending:?}, so at most {} could pass",
        11 + drained + 1
    );
    assert!(up.queue_drop_packets > 0, "{up:?}");
}

#[test]
fn nothing_is_routed_beyond_the_peer() {
    let _turn = timing_turn();
    let Some(emulator) = start("rtt=2ms", 1) else {
        return;
    };
    let (routes, outside) = client(&emulator, || {
        let routes = std::fs::read_to_string("/proc/thread-self/net/route").unwrap();
        let outside = TcpStream::connect_timeout(
            &"192.0.2.1:80".parse().unwrap(),
            Duration::from_millis(200),
        );
        (routes, outside)
    });
    let destinations: Vec<&str> = routes
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().nth(1))
        .collect();
    // 198.18.0.2 in /proc's little-endian hex.
    assert_eq!(destinations, ["020012C6"], "{routes}");
    let err = outside.expect_err("no route out of the client namespace");
    assert_eq!(
        err.raw_os_error(),
        Some(libc_enetunreach()),
        "{err}: expected 'network unreachable'"
    );
}

/// ENETUNREACH on Linux.
fn libc_enetunreach() -> i32 {
    101
}

/// tcpdump on the client's device, started from a thread inside the client's namespace.
struct Capture {
    child: std::process::Child,
    _stderr: std::io::BufReader<std::process::ChildStderr>,
}

fn start_capture(emulator: &Emulator, file: &std::path::Path) -> Capture {
    let file = file.to_path_buf();
    client(emulator, move || {
        let mut child = Command::new("tcpdump")
            .args(["-i", link::CLIENT_DEVICE, "-n", "-s", "128"])
            .args(["--immediate-mode", "-U", "-w"])
            .arg(&file)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("tcpdump starts");
        let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        while stderr.read_line(&mut line).unwrap_or(0) > 0 && !line.contains("listening on") {
            line.clear();
        }
        Capture {
            child,
            _stderr: stderr,
        }
    })
}

impl Capture {
    fn stop(mut self) {
        let _ = Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status();
        let _ = self.child.wait();
    }
}

/// (packets from the client, packets to the client, all packets) in a capture.
fn count_capture(file: &std::path::Path) -> (u64, u64, u64) {
    let out = Command::new("tcpdump")
        .args(["-n", "-r"])
        .arg(file)
        .output()
        .unwrap();
    assert!(out.status.success(), "tcpdump -r failed");
    let text = String::from_utf8_lossy(&out.stdout);
    let (mut from, mut to, mut all) = (0, 0, 0);
    for line in text.lines() {
        all += 1;
        if line.contains(" 198.18.0.1.") && line.contains("> 198.18.0.2.") {
            from += 1;
        } else if line.contains(" 198.18.0.2.") && line.contains("> 198.18.0.1.") {
            to += 1;
        }
    }
    (from, to, all)
}

#[test]
fn a_capture_on_the_client_device_matches_the_counters_and_tcp_info() {
    let _turn = timing_turn();
    if !tcpdump_available() {
        return;
    }
    let Some(emulator) = start("rate=10mbit,rtt=10ms", 1) else {
        return;
    };
    let scratch = tempfile::tempdir().unwrap();
    let pcap = scratch.path().join("link.pcap");
    let capture = start_capture(&emulator, &pcap);
    let (addr, server) = serve(&emulator, |listener| {
        let (mut stream, _) = listener.accept().unwrap();
        let mut request = vec![0; 10_000];
        stream.read_exact(&mut request).unwrap();
        stream.write_all(&vec![1; 100_000]).unwrap();
        stream.shutdown(std::net::Shutdown::Write).unwrap();
        let mut rest = Vec::new();
        stream.read_to_end(&mut rest).unwrap();
    });
    let stream = client(&emulator, move || {
        let mut stream = TcpStream::connect(addr).unwrap();
        stream.write_all(&vec![2; 10_000]).unwrap();
        let mut response = Vec::new();
        stream.read_to_end(&mut response).unwrap();
        assert_eq!(response.len(), 100_000);
        stream.shutdown(std::net::Shutdown::Write).unwrap();
        stream
    });
    server.join().unwrap();
    // Let the last ACK cross and the link go quiet.
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
        let c = emulator.counters();
        if c.up.in_flight() == 0 && c.down.in_flight() == 0 {
            break;
        }
    }
    std::thread::sleep(Duration::from_millis(100));
    let tcp = link::tcp_segments(&stream).unwrap();
    let counters = emulator.stop().unwrap().counters;
    capture.stop();
    let (from, to, all) = count_capture(&pcap);
    assert_eq!(all, from + to, "only the test connection crossed the link");
    assert_eq!(from, tcp.segs_out, "capture vs TCP_INFO, client → server");
    assert_eq!(to, tcp.segs_in, "capture vs TCP_INFO, server → client");
    assert_eq!(from, counters.up.arrived_packets, "capture vs emulator, up");
    assert_eq!(
        from, counters.up.forwarded_packets,
        "lossless: all forwarded"
    );
    assert_eq!(
        to, counters.down.forwarded_packets,
        "capture vs emulator, down"
    );
    assert_eq!(tcp.total_retrans, 0);
    assert_eq!(
        tcp.snd_mss, 1460,
        "MTU 1500, timestamps off: full segments carry 1460 bytes"
    );
}

#[test]
fn each_end_is_set_up_like_the_replay_loopback_without_touching_the_host() {
    let _turn = timing_turn();
    let host = std::fs::read_to_string("/proc/sys/net/ipv4/tcp_timestamps").unwrap();
    let Some(emulator) = start("rtt=2ms", 1) else {
        return;
    };
    let inside = client(&emulator, || {
        std::fs::read_to_string("/proc/sys/net/ipv4/tcp_timestamps").unwrap()
    });
    assert_eq!(
        inside.trim(),
        "0",
        "TCP timestamps off in the client namespace"
    );
    let after = std::fs::read_to_string("/proc/sys/net/ipv4/tcp_timestamps").unwrap();
    assert_eq!(after, host, "the host's setting is untouched");
    let (c, s) = emulator.setup();
    assert_eq!((c.mtu, s.mtu), (1500, 1500));
    assert_eq!(
        (c.tcp_timestamps, s.tcp_timestamps),
        (Some(false), Some(false))
    );
    // The kernel keeps scatter-gather on for TUN devices; TSO, GSO and GRO go off.
    for end in [c, s] {
        assert!(
            end.offloads_on.iter().all(|o| o == "sg"),
            "{}: {:?}",
            end.device,
            end.offloads_on
        );
    }
    let text = emulator.describe();
    assert!(
        text.contains("198.18.0.1") && text.contains("TCP timestamps off"),
        "{text}"
    );
}

/// Writes a Mahimahi trace: `per_burst` opportunities at the same millisecond, every `every`
/// ms, for one second.
fn bursty_trace(dir: &std::path::Path, name: &str, per_burst: usize, every: u64) -> String {
    let mut text = String::new();
    for ms in (every..=1000).step_by(every as usize) {
        for _ in 0..per_burst {
            text.push_str(&format!("{ms}\n"));
        }
    }
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[test]
fn a_trace_link_runs_at_the_trace_s_mean_rate() {
    let _turn = timing_turn();
    let dir = tempfile::tempdir().unwrap();
    // Down: 4 packets every 4 ms = 12 Mbit/s on average, in bursts. Up: 1 per ms.
    let down = bursty_trace(dir.path(), "down", 4, 4);
    let up = bursty_trace(dir.path(), "up", 1, 1);
    let link = format!("trace:{up},{down},rtt=2ms,queue=1000");
    let Some(measured) = goodput(&link) else {
        return;
    };
    let expected = 12_000_000.0 * 1460.0 / 1500.0;
    eprintln!("trace: {measured:.0} bit/s, expected {expected:.0}");
    assert_goodput("trace", measured, expected);
}
