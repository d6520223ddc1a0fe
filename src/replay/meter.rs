//! Counting bytes and TCP segments the way the 1997 study did, from the kernel's own counters
//! (`TCP_INFO`) on the client's sockets instead of a packet capture.
//!
//! The study's rule: every segment in both directions counts (SYN, FIN, pure ACKs), except that
//! once the client has sent its FIN, that FIN and everything later on the connection does not.
//! So each connection is read just before the client shuts it down; the FIN and what follows
//! are left out, as in the paper (docs/packets.md). Counters are plain values with `AddAssign`:
//! a run's totals are sums.

use std::net::TcpStream;

use serde::{Deserialize, Serialize};

use super::sys;

/// What one connection, or a sum of them, cost on the wire.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counters {
    pub requests: u64,
    pub connections: u64,
    /// TCP payload bytes, client → server.
    pub bytes_up: u64,
    /// TCP payload bytes, server → client.
    pub bytes_down: u64,
    /// Segments client → server under the paper's rule (everything before the client's FIN).
    pub packets_up: u64,
    /// Segments server → client received before the client's FIN.
    pub packets_down: u64,
    /// Of those, segments carrying payload.
    pub data_segments_up: u64,
    pub data_segments_down: u64,
    /// The physical minimum for the same connections and bytes (see [`minimum`]).
    pub min_packets: u64,
    /// Retransmitted segments (should be 0 on loopback).
    pub retransmits: u64,
}

impl std::ops::AddAssign for Counters {
    fn add_assign(&mut self, o: Self) {
        self.requests += o.requests;
        self.connections += o.connections;
        self.bytes_up += o.bytes_up;
        self.bytes_down += o.bytes_down;
        self.packets_up += o.packets_up;
        self.packets_down += o.packets_down;
        self.data_segments_up += o.data_segments_up;
        self.data_segments_down += o.data_segments_down;
        self.min_packets += o.min_packets;
        self.retransmits += o.retransmits;
    }
}

impl Counters {
    /// Packets under the paper's rule, both directions.
    pub fn packets(&self) -> u64 {
        self.packets_up + self.packets_down
    }

    /// 100 × (1 − bytes / (bytes + 40 × packets)): the share of 40-byte TCP/IP headers.
    pub fn overhead_pct(&self) -> f64 {
        let bytes = (self.bytes_up + self.bytes_down) as f64;
        let headers = 40.0 * self.packets() as f64;
        if bytes + headers == 0.0 {
            0.0
        } else {
            100.0 * (1.0 - bytes / (bytes + headers))
        }
    }
}

/// The fewest segments that can carry one connection's exchange: the handshake (SYN, SYN-ACK,
/// ACK), ceil(bytes / MSS) data segments each way, one ACK per two data segments received in
/// each direction (the delayed-ACK rule of RFC 1122), and the teardown segments the paper's rule
/// counts: the server's FIN when the server closed first (the client's FIN never counts).
pub fn minimum(bytes_up: u64, bytes_down: u64, mss: u64, server_closed_first: bool) -> u64 {
    let up = bytes_up.div_ceil(mss);
    let down = bytes_down.div_ceil(mss);
    3 + up + down + up / 2 + down / 2 + u64::from(server_closed_first)
}

/// Meters one client connection: bytes are counted by the caller as they pass, segments are
/// read from the kernel at [`Meter::finish`].
#[derive(Debug, Default)]
pub struct Meter {
    pub bytes_up: u64,
    pub bytes_down: u64,
    pub requests: u64,
}

impl Meter {
    /// Reads the kernel's counters for `stream`, just before the client sends its FIN, and
    /// returns this connection's counters. `server_closed_first` when the client saw the
    /// server's FIN (end of stream) before closing.
    pub fn finish(&self, stream: &TcpStream, mss: u64, server_closed_first: bool) -> Counters {
        let info = sys::tcp_info(stream).unwrap_or_default();
        Counters {
            requests: self.requests,
            connections: 1,
            bytes_up: self.bytes_up,
            bytes_down: self.bytes_down,
            packets_up: info.segs_out,
            packets_down: info.segs_in,
            data_segments_up: info.data_segs_out,
            data_segments_down: info.data_segs_in,
            min_packets: minimum(self.bytes_up, self.bytes_down, mss, server_closed_first),
            retransmits: u64::from(info.total_retrans),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimum_of_a_tiny_exchange_is_handshake_data_and_fin() {
        // SYN, SYN-ACK, ACK, one request, one response; the client's FIN does not count.
        assert_eq!(minimum(100, 200, 1460, false), 5);
        // The server's FIN counts when it comes first (HTTP/1.0).
        assert_eq!(minimum(100, 200, 1460, true), 6);
        // 4 full segments down need 2 ACKs; 3 up need 1.
        assert_eq!(minimum(100, 4 * 1460, 1460, false), 3 + 1 + 4 + 2);
        assert_eq!(minimum(3 * 1460, 100, 1460, false), 3 + 3 + 1 + 1);
    }

    #[test]
    fn overhead_follows_the_papers_formula() {
        let c = Counters {
            bytes_up: 600,
            bytes_down: 1000,
            packets_up: 5,
            packets_down: 5,
            ..Counters::default()
        };
        assert!((c.overhead_pct() - 20.0).abs() < 1e-9);
        let mut sum = c;
        sum += c;
        assert_eq!(sum.packets(), 20);
    }
}
