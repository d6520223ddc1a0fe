//! The link emulator's own cost: how precisely it releases packets, and the highest rate at
//! which it adds less than 1 ms of delay. Not a test: it prints figures for docs/links.md.
//! Run as root with `cargo bench --bench link` (it skips with a note without namespaces).
//!
//! 1. Idle link: 2,000 UDP probes, 1 ms apart, over an unshaped 20 ms-RTT link; each carries
//!    its send time, so the receiver sees the one-way delay that the emulator and the kernel
//!    around it add to the 10 ms asked for.
//! 2. Saturated link: a bulk TCP transfer server → client for up to 3 s over rates from
//!    10 Mbit/s up, 1 ms RTT, a queue of one BDP or 100 packets: the goodput against the rate ×
//!    1460/1500, and the release error (actual − scheduled) of every packet. The forwarder
//!    "adds less than 1 ms" at a rate when the 99th percentile of its release error stays
//!    under 1 ms and the goodput stays within 5% of the rate (medians of 3 runs: the machine is
//!    shared, and its kernel is not preemptible, so one run can catch another job's long
//!    system call).
//!
//! Each for one forwarder thread per direction and one thread for both, and with and without a
//! 50 µs spin before each release: the choice of defaults rests on these figures.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream, UdpSocket};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use webdiet::replay::link::{
    self, Emulator, EmulatorOptions, Link, LinkReport, LinkSpec, Threading,
};

fn spec(text: &str) -> LinkSpec {
    match webdiet::sim::link::parse(text)
        .expect("bench specs parse")
        .remove(0)
    {
        Link::Emulated(spec) => *spec,
        Link::Loopback => unreachable!(),
    }
}

fn options(threading: Threading, spin_us: u64) -> EmulatorOptions {
    EmulatorOptions {
        threading,
        spin: Duration::from_micros(spin_us),
        ..EmulatorOptions::default()
    }
}

/// One-way delays added to the 10 ms of an idle 20 ms-RTT link, in µs, sorted.
fn idle_probes(opts: &EmulatorOptions) -> (Vec<f64>, LinkReport) {
    let emulator = Emulator::start(&spec("rtt=20ms"), opts).expect("emulator starts");
    let base = Instant::now();
    let server_addr = emulator.server_addr();
    let (tx, rx) = mpsc::channel();
    let receiver = emulator.server().spawn(move || {
        link::try_realtime();
        let socket = UdpSocket::bind((server_addr, 0)).unwrap();
        socket
            .set_read_timeout(Some(Duration::from_millis(300)))
            .unwrap();
        tx.send(socket.local_addr().unwrap()).unwrap();
        let mut added = Vec::new();
        let mut buf = [0u8; 16];
        while socket.recv(&mut buf).is_ok() {
            let sent = u64::from_be_bytes(buf[..8].try_into().unwrap());
            let now = base.elapsed().as_nanos() as u64;
            added.push((now - sent) as f64 / 1000.0 - 10_000.0);
        }
        added
    });
    let to = rx.recv().unwrap();
    emulator
        .client()
        .spawn(move || {
            link::try_realtime();
            let socket = UdpSocket::bind(("198.18.0.1", 0)).unwrap();
            for _ in 0..2000 {
                let sent = base.elapsed().as_nanos() as u64;
                socket.send_to(&sent.to_be_bytes(), to).unwrap();
                std::thread::sleep(Duration::from_millis(1));
            }
        })
        .join()
        .unwrap()
        .unwrap();
    let mut added = receiver.join().unwrap().unwrap();
    added.sort_by(f64::total_cmp);
    (added, emulator.stop().unwrap())
}

/// A bulk transfer over `rate_mbit`: (goodput / (rate × 1460/1500), the link's report).
fn saturate(rate_mbit: u64, opts: &EmulatorOptions) -> (f64, LinkReport) {
    let bdp_packets = (rate_mbit * 1_000_000 / 1000 / 8 / 1500).max(100);
    let text = format!("rate={rate_mbit}mbit,rtt=1ms,queue={bdp_packets}");
    let emulator = Emulator::start(&spec(&text), opts).expect("emulator starts");
    let server_addr = emulator.server_addr();
    let (tx, rx) = mpsc::channel();
    let server = emulator.server().spawn(move || {
        link::try_realtime();
        let listener = TcpListener::bind((server_addr, 0)).unwrap();
        tx.send(listener.local_addr().unwrap()).unwrap();
        let (mut stream, _) = listener.accept().unwrap();
        let chunk = vec![0u8; 1 << 16];
        let until = Instant::now() + Duration::from_secs(3);
        while Instant::now() < until && stream.write_all(&chunk).is_ok() {}
    });
    let to = rx.recv().unwrap();
    let bps = emulator
        .client()
        .spawn(move || {
            link::try_realtime();
            let mut stream = TcpStream::connect(to).unwrap();
            let mut buf = vec![0u8; 1 << 16];
            let mut total = 0usize;
            let mut started: Option<Instant> = None;
            let mut last = Instant::now();
            // Skip the first 200 ms (slow start), then count.
            let warm = Instant::now() + Duration::from_millis(200);
            loop {
                let n = stream.read(&mut buf).unwrap_or(0);
                if n == 0 {
                    break;
                }
                let now = Instant::now();
                if now >= warm {
                    started.get_or_insert(now);
                    total += n;
                    last = now;
                }
            }
            let secs = started.map_or(0.0, |s| last.duration_since(s).as_secs_f64());
            total as f64 * 8.0 / secs
        })
        .join()
        .unwrap()
        .unwrap();
    server.join().unwrap().unwrap();
    let expected = rate_mbit as f64 * 1e6 * 1460.0 / 1500.0;
    (bps / expected, emulator.stop().unwrap())
}

fn quantile(sorted: &[f64], q: f64) -> f64 {
    sorted[((q * sorted.len() as f64) as usize).min(sorted.len() - 1)]
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// Runs per point: the machine is shared, so each figure is the median of this many runs.
const RUNS: usize = 3;

fn main() {
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "link emulator benchmark; load average {}; medians of {RUNS} runs",
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    if let Err(e) = Emulator::start(&spec("rtt=1ms"), &EmulatorOptions::default()) {
        eprintln!("note: no emulated link here ({e}); benchmark skipped");
        return;
    }
    let configs = [
        ("per-direction", Threading::PerDirection, 0),
        ("single", Threading::Single, 0),
        ("per-direction, spin 50 µs", Threading::PerDirection, 50),
    ];
    println!(
        "\n1. idle 20 ms-RTT link, {RUNS} × 2000 probes 1 ms apart: one-way delay added to \
         10 ms (µs, all probes pooled)"
    );
    println!(
        "{:<28} {:>7} {:>7} {:>7} {:>7}   release error p50/p99/p99.9 (µs, median run)",
        "forwarder", "p50", "p99", "p99.9", "max"
    );
    for (name, threading, spin) in configs {
        let mut added = Vec::new();
        let mut timing = Vec::new();
        for _ in 0..RUNS {
            let (probes, report) = idle_probes(&options(threading, spin));
            added.extend(probes);
            timing.push(report.timing);
        }
        added.sort_by(f64::total_cmp);
        println!(
            "{name:<28} {:>7.0} {:>7.0} {:>7.0} {:>7.0}   {:.0} / {:.0} / {:.0}",
            quantile(&added, 0.5),
            quantile(&added, 0.99),
            quantile(&added, 0.999),
            added.last().copied().unwrap_or(0.0),
            median(timing.iter().map(|t| t.p50_us).collect()),
            median(timing.iter().map(|t| t.p99_us).collect()),
            median(timing.iter().map(|t| t.p999_us).collect()),
        );
    }
    println!("\n2. saturated link, bulk TCP for 3 s, 1 ms RTT (release error in µs)");
    println!(
        "{:<28} {:>6} {:>9} {:>8} {:>8} {:>9} {:>9}  verdict",
        "forwarder", "Mbit/s", "goodput", "p50", "p99", "p99.9", "packets"
    );
    for (name, threading, spin) in configs {
        let mut highest = None;
        for rate in [10, 50, 100, 200, 400, 800, 1600, 3200] {
            let runs: Vec<(f64, LinkReport)> = (0..RUNS)
                .map(|_| saturate(rate, &options(threading, spin)))
                .collect();
            let share = median(runs.iter().map(|r| r.0).collect());
            let m = |f: fn(&LinkReport) -> f64| median(runs.iter().map(|r| f(&r.1)).collect());
            let (p50, p99, p999) = (
                m(|r| r.timing.p50_us),
                m(|r| r.timing.p99_us),
                m(|r| r.timing.p999_us),
            );
            let packets = m(|r| r.timing.packets as f64);
            let ok = p99 < 1000.0 && share >= 0.95;
            if ok {
                highest = Some(rate);
            }
            println!(
                "{name:<28} {rate:>6} {:>8.1}% {p50:>8.0} {p99:>8.0} {p999:>9.0} {packets:>9.0}  {}",
                share * 100.0,
                if ok { "adds < 1 ms" } else { "no" }
            );
            if !ok {
                break;
            }
        }
        match highest {
            Some(rate) => println!("{name}: highest rate adding < 1 ms: {rate} Mbit/s\n"),
            None => println!("{name}: adds 1 ms or more even at 10 Mbit/s\n"),
        }
    }
}
