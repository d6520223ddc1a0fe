//! The forwarder: moves every IP packet from one TUN device to the other, asking the
//! direction's [`Shaper`] what becomes of it and holding it until its release time.
//!
//! A *lane* is one direction. A thread runs one lane or both in a `poll` loop over the input
//! TUN device, one timerfd per lane (armed at the next release, absolute `CLOCK_MONOTONIC`,
//! so there is no 1 ms tick and no timer slack), and an eventfd that stops it. Optionally the
//! thread spins for the last stretch before a release instead of trusting the wake-up
//! latency. Whether one thread per lane or one for both is better was measured
//! (`benches/link.rs`, `docs/links.md`).

use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::AsFd;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::timing::Lateness;
use crate::sim::link::shaper::{Shaper, Verdict};
use crate::sys;

/// What one direction did, in packets and IP bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DirectionCounters {
    /// Read from the sending side's TUN device.
    pub arrived_packets: u64,
    pub arrived_bytes: u64,
    /// Written to the receiving side's TUN device.
    pub forwarded_packets: u64,
    pub forwarded_bytes: u64,
    /// Dropped because the queue was full.
    pub queue_drop_packets: u64,
    pub queue_drop_bytes: u64,
    /// Lost at random.
    pub lost_packets: u64,
    pub lost_bytes: u64,
    /// Writes the kernel refused (none expected; counted so nothing vanishes unseen).
    pub write_failures: u64,
    /// Of the arrivals, TCP segments that carry payload, and their TCP payload bytes (IP and
    /// TCP headers, options included, left out): what a browser's visit is counted by, since
    /// its sockets' `TCP_INFO` is not ours to read.
    #[serde(default)]
    pub arrived_data_packets: u64,
    #[serde(default)]
    pub arrived_payload_bytes: u64,
}

impl DirectionCounters {
    /// Packets accepted but not yet released (held for their release time).
    pub fn in_flight(&self) -> u64 {
        self.arrived_packets.saturating_sub(
            self.forwarded_packets
                + self.queue_drop_packets
                + self.lost_packets
                + self.write_failures,
        )
    }
}

impl std::ops::AddAssign for DirectionCounters {
    fn add_assign(&mut self, o: Self) {
        self.arrived_packets += o.arrived_packets;
        self.arrived_bytes += o.arrived_bytes;
        self.forwarded_packets += o.forwarded_packets;
        self.forwarded_bytes += o.forwarded_bytes;
        self.queue_drop_packets += o.queue_drop_packets;
        self.queue_drop_bytes += o.queue_drop_bytes;
        self.lost_packets += o.lost_packets;
        self.lost_bytes += o.lost_bytes;
        self.write_failures += o.write_failures;
        self.arrived_data_packets += o.arrived_data_packets;
        self.arrived_payload_bytes += o.arrived_payload_bytes;
    }
}

impl std::ops::Sub for DirectionCounters {
    type Output = DirectionCounters;

    /// What happened between two snapshots (`later - earlier`).
    fn sub(self, o: Self) -> Self {
        DirectionCounters {
            arrived_packets: self.arrived_packets.saturating_sub(o.arrived_packets),
            arrived_bytes: self.arrived_bytes.saturating_sub(o.arrived_bytes),
            forwarded_packets: self.forwarded_packets.saturating_sub(o.forwarded_packets),
            forwarded_bytes: self.forwarded_bytes.saturating_sub(o.forwarded_bytes),
            queue_drop_packets: self.queue_drop_packets.saturating_sub(o.queue_drop_packets),
            queue_drop_bytes: self.queue_drop_bytes.saturating_sub(o.queue_drop_bytes),
            lost_packets: self.lost_packets.saturating_sub(o.lost_packets),
            lost_bytes: self.lost_bytes.saturating_sub(o.lost_bytes),
            write_failures: self.write_failures.saturating_sub(o.write_failures),
            arrived_data_packets: self
                .arrived_data_packets
                .saturating_sub(o.arrived_data_packets),
            arrived_payload_bytes: self
                .arrived_payload_bytes
                .saturating_sub(o.arrived_payload_bytes),
        }
    }
}

/// The TCP payload length of an IPv4 packet (`None` when it is not a whole TCP segment):
/// total length − IP header − TCP header with its options.
pub fn tcp_payload(packet: &[u8]) -> Option<u64> {
    let (&first, rest) = packet.split_first()?;
    if first >> 4 != 4 || rest.len() < 19 || packet[9] != 6 {
        return None;
    }
    let ip_header = usize::from(first & 0x0f) * 4;
    let total = usize::from(u16::from_be_bytes([packet[2], packet[3]]));
    let tcp_header = usize::from(*packet.get(ip_header + 12)? >> 4) * 4;
    if ip_header < 20 || tcp_header < 20 || total > packet.len() {
        return None;
    }
    total.checked_sub(ip_header + tcp_header).map(|n| n as u64)
}

/// Both directions' counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkCounters {
    /// Client → server.
    pub up: DirectionCounters,
    /// Server → client.
    pub down: DirectionCounters,
}

/// The live counters of one lane, read by other threads while it runs.
#[derive(Debug, Default)]
pub struct SharedCounters {
    arrived_packets: AtomicU64,
    arrived_bytes: AtomicU64,
    forwarded_packets: AtomicU64,
    forwarded_bytes: AtomicU64,
    queue_drop_packets: AtomicU64,
    queue_drop_bytes: AtomicU64,
    lost_packets: AtomicU64,
    lost_bytes: AtomicU64,
    write_failures: AtomicU64,
    arrived_data_packets: AtomicU64,
    arrived_payload_bytes: AtomicU64,
}

impl SharedCounters {
    pub fn snapshot(&self) -> DirectionCounters {
        let get = |a: &AtomicU64| a.load(Ordering::Acquire);
        // Outcomes first, arrivals last (the lane counts an arrival before its outcome): a
        // snapshot never shows more outcomes than arrivals.
        let forwarded_packets = get(&self.forwarded_packets);
        let forwarded_bytes = get(&self.forwarded_bytes);
        let queue_drop_packets = get(&self.queue_drop_packets);
        let queue_drop_bytes = get(&self.queue_drop_bytes);
        let lost_packets = get(&self.lost_packets);
        let lost_bytes = get(&self.lost_bytes);
        let write_failures = get(&self.write_failures);
        DirectionCounters {
            arrived_packets: get(&self.arrived_packets),
            arrived_bytes: get(&self.arrived_bytes),
            forwarded_packets,
            forwarded_bytes,
            queue_drop_packets,
            queue_drop_bytes,
            lost_packets,
            lost_bytes,
            write_failures,
            arrived_data_packets: get(&self.arrived_data_packets),
            arrived_payload_bytes: get(&self.arrived_payload_bytes),
        }
    }

    fn add(counter: &AtomicU64, n: u64) {
        counter.fetch_add(n, Ordering::Release);
    }
}

/// One direction: read from `input`, shape, write to `output` when due.
pub struct Lane {
    input: Arc<File>,
    output: Arc<File>,
    shaper: Shaper,
    /// Packets accepted, with their absolute release time (ns, `CLOCK_MONOTONIC`).
    pending: VecDeque<(u64, Vec<u8>)>,
    timer: File,
    armed_for: Option<u64>,
    /// `CLOCK_MONOTONIC` at the link's time 0.
    epoch_ns: u64,
    spin_ns: u64,
    counters: Arc<SharedCounters>,
    pub lateness: Lateness,
    buf: Vec<u8>,
}

impl Lane {
    pub fn new(
        input: Arc<File>,
        output: Arc<File>,
        shaper: Shaper,
        epoch_ns: u64,
        spin_ns: u64,
        counters: Arc<SharedCounters>,
    ) -> io::Result<Self> {
        Ok(Lane {
            input,
            output,
            shaper,
            pending: VecDeque::new(),
            timer: sys::timerfd()?,
            armed_for: None,
            epoch_ns,
            spin_ns,
            counters,
            lateness: Lateness::default(),
            buf: vec![0; 65_536],
        })
    }

    /// Arms the timer for the next release (less the spin margin), if that changed.
    fn arm(&mut self) -> io::Result<()> {
        let Some(&(due, _)) = self.pending.front() else {
            return Ok(());
        };
        let wake = due.saturating_sub(self.spin_ns).max(1);
        if self.armed_for != Some(wake) {
            sys::timer_set(&self.timer, wake)?;
            self.armed_for = Some(wake);
        }
        Ok(())
    }

    /// Clears a fired timer so that `poll` stops reporting it.
    fn clear_timer(&mut self) {
        let mut expirations = [0u8; 8];
        if (&self.timer).read(&mut expirations).is_ok() {
            self.armed_for = None;
        }
    }

    /// Reads every packet waiting on the input device and offers each to the shaper.
    fn read_all(&mut self) -> io::Result<()> {
        loop {
            let len = match (&*self.input).read(&mut self.buf) {
                Ok(len) => len,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(()),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            let now = sys::monotonic_ns();
            let bytes = len as u64;
            let c = &self.counters;
            // Arrivals before outcomes, so a snapshot (outcomes read first) never shows more
            // outcomes than arrivals.
            if let Some(payload) = tcp_payload(&self.buf[..len]).filter(|&n| n > 0) {
                SharedCounters::add(&c.arrived_data_packets, 1);
                SharedCounters::add(&c.arrived_payload_bytes, payload);
            }
            SharedCounters::add(&c.arrived_packets, 1);
            SharedCounters::add(&c.arrived_bytes, bytes);
            match self
                .shaper
                .offer(now.saturating_sub(self.epoch_ns), len as u32)
            {
                Verdict::Deliver { at_ns } => {
                    self.pending
                        .push_back((self.epoch_ns + at_ns, self.buf[..len].to_vec()));
                }
                Verdict::Lost => {
                    SharedCounters::add(&c.lost_packets, 1);
                    SharedCounters::add(&c.lost_bytes, bytes);
                }
                Verdict::QueueFull => {
                    SharedCounters::add(&c.queue_drop_packets, 1);
                    SharedCounters::add(&c.queue_drop_bytes, bytes);
                }
            }
        }
    }

    /// Writes every packet that is due, spinning for one due within the spin margin.
    fn release(&mut self) {
        let mut now = sys::monotonic_ns();
        while let Some(&(due, _)) = self.pending.front() {
            if due > now {
                if due - now > self.spin_ns {
                    return;
                }
                while now < due {
                    std::hint::spin_loop();
                    now = sys::monotonic_ns();
                }
            }
            let (due, packet) = self.pending.pop_front().expect("front exists");
            self.lateness.record(now - due);
            let c = &self.counters;
            match (&*self.output).write(&packet) {
                Ok(_) => {
                    SharedCounters::add(&c.forwarded_bytes, packet.len() as u64);
                    SharedCounters::add(&c.forwarded_packets, 1);
                }
                Err(_) => SharedCounters::add(&c.write_failures, 1),
            }
            now = sys::monotonic_ns();
        }
    }
}

/// Runs `lanes` until `stop` becomes readable. Returns the lanes (with their lateness).
pub fn run(mut lanes: Vec<Lane>, stop: &File) -> io::Result<Vec<Lane>> {
    let mut ready = Vec::new();
    loop {
        for lane in &mut lanes {
            lane.arm()?;
        }
        {
            let mut fds = vec![stop.as_fd()];
            for lane in &lanes {
                fds.push(lane.input.as_fd());
                fds.push(lane.timer.as_fd());
            }
            sys::poll_readable(&fds, &mut ready)?;
        }
        if ready[0] {
            return Ok(lanes);
        }
        for (i, lane) in lanes.iter_mut().enumerate() {
            if ready[2 * i + 2] {
                lane.clear_timer();
            }
            if ready[2 * i + 1] {
                lane.read_all()?;
            }
        }
        for lane in &mut lanes {
            lane.release();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::tcp_payload;

    /// An IPv4 packet of `ip_options` and a TCP header of `tcp_options` bytes with `payload`.
    fn segment(ip_options: usize, tcp_options: usize, payload: usize, protocol: u8) -> Vec<u8> {
        let ip = 20 + ip_options;
        let tcp = 20 + tcp_options;
        let total = ip + tcp + payload;
        let mut p = vec![0u8; total];
        p[0] = 0x40 | (ip / 4) as u8;
        p[2..4].copy_from_slice(&(total as u16).to_be_bytes());
        p[9] = protocol;
        p[ip + 12] = ((tcp / 4) as u8) << 4;
        p
    }

    #[test]
    fn tcp_payload_leaves_out_both_headers_and_their_options() {
        assert_eq!(tcp_payload(&segment(0, 0, 1460, 6)), Some(1460));
        assert_eq!(tcp_payload(&segment(4, 12, 100, 6)), Some(100));
        assert_eq!(
            tcp_payload(&segment(0, 20, 0, 6)),
            Some(0),
            "a SYN with options"
        );
    }

    #[test]
    fn tcp_payload_is_none_for_what_is_not_a_whole_tcp_segment() {
        assert_eq!(tcp_payload(&segment(0, 0, 10, 17)), None, "UDP");
        let mut v6 = segment(0, 0, 10, 6);
        v6[0] = 0x60;
        assert_eq!(tcp_payload(&v6), None, "IPv6");
        let cut = segment(0, 0, 10, 6);
        assert_eq!(
            tcp_payload(&cut[..30]),
            None,
            "shorter than its total length"
        );
        assert_eq!(tcp_payload(&[0x45, 0, 0]), None);
    }
}
