//! What TLS costs: each mode over TLS against the same mode in cleartext, for the same site,
//! test and link — packets, bytes and time more, and how much of that is handshakes. Derived
//! here once; `report.json` keeps it as `tls_cost`.

use serde::{Deserialize, Serialize};

use crate::replay::{Mode, ReplayRow, Test};

/// One mode over TLS against its cleartext twin.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TlsCost {
    /// `original` or `rewritten`.
    pub site: String,
    /// The mode over TLS (`https10`…) and its cleartext twin (`http10`…).
    pub mode: Mode,
    pub cleartext: Mode,
    /// `first` or `validate`.
    pub test: Test,
    /// The link both rows were measured over.
    #[serde(default)]
    pub link: String,
    /// `TLS 1.3, TLS13_AES_128_GCM_SHA256, resumption on`.
    pub tls: String,
    pub connections: u64,
    pub full_handshakes: u64,
    pub resumed_handshakes: u64,
    /// Packets by the model over TLS less in cleartext, and as a percentage of cleartext.
    pub packets: i64,
    pub packets_pct: f64,
    /// TCP payload bytes over TLS less in cleartext, and as a percentage of cleartext.
    pub bytes: i64,
    pub bytes_pct: f64,
    /// Of the extra packets and bytes, the handshakes' (flights, tickets, their ACKs).
    pub handshake_packets: u64,
    pub handshake_bytes: u64,
    /// Round trips the handshakes added, summed over the connections.
    pub handshake_round_trips: u64,
    /// Bytes the record layer added to the HTTP exchange.
    pub record_overhead_bytes: u64,
    /// Page complete (the last byte of the last object), median over the runs, over TLS less
    /// in cleartext, in milliseconds, and as a percentage of cleartext: what TLS costs in time
    /// on this link. Measured, so it carries the runs' noise (compare the time tables' ranges).
    #[serde(default)]
    pub complete_ms: f64,
    #[serde(default)]
    pub complete_pct: f64,
}

/// Every TLS row that has its cleartext twin for the same site, test and link.
pub fn costs(rows: &[ReplayRow]) -> Vec<TlsCost> {
    let mut out = Vec::new();
    for r in rows {
        let (Some(tls), Some(twin)) = (r.tls.as_ref(), r.mode.cleartext()) else {
            continue;
        };
        let Some(plain) = rows.iter().find(|p| {
            p.site == r.site && p.test == r.test && p.link.name == r.link.name && p.mode == twin
        }) else {
            continue;
        };
        let pct = |extra: f64, base: f64| {
            if base == 0.0 {
                0.0
            } else {
                100.0 * extra / base
            }
        };
        let packets = r.packets as i64 - plain.packets as i64;
        let bytes = r.bytes() as i64 - plain.bytes() as i64;
        let complete_ms = r.time.complete_ms.median - plain.time.complete_ms.median;
        out.push(TlsCost {
            site: r.site.clone(),
            mode: r.mode,
            cleartext: twin,
            test: r.test,
            link: r.link.name.clone(),
            tls: format!(
                "TLS {}, {}, resumption {}",
                tls.version,
                tls.suite,
                if tls.resumption { "on" } else { "off" }
            ),
            connections: r.connections,
            full_handshakes: tls.full_handshakes,
            resumed_handshakes: tls.resumed_handshakes,
            packets,
            packets_pct: pct(packets as f64, plain.packets as f64),
            bytes,
            bytes_pct: pct(bytes as f64, plain.bytes() as f64),
            handshake_packets: tls.handshake_packets,
            handshake_bytes: tls.handshake_bytes_up + tls.handshake_bytes_down,
            handshake_round_trips: tls.handshake_round_trips,
            record_overhead_bytes: tls.record_overhead_bytes,
            complete_ms,
            complete_pct: pct(complete_ms, plain.time.complete_ms.median),
        });
    }
    out
}

/// The links of `costs`, in order.
pub fn links(costs: &[TlsCost]) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for c in costs {
        if !out.contains(&c.link.as_str()) {
            out.push(&c.link);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::row::{sample_row, TlsRow};

    fn tls_row(mode: &str, packets: u64, bytes: u64) -> ReplayRow {
        let mut r = sample_row("original", mode, "first", packets, bytes);
        r.tls = Some(TlsRow {
            version: "1.3".into(),
            suite: "TLS13_AES_128_GCM_SHA256".into(),
            resumption: true,
            chain_bytes: vec![300, 280],
            full_handshakes: 1,
            resumed_handshakes: 0,
            handshake_packets: 5,
            handshake_packets_up: 3,
            handshake_packets_down: 2,
            handshake_data_segments: 4,
            ticket_segments: 1,
            handshake_bytes_up: 300,
            handshake_bytes_down: 1200,
            handshake_round_trips: 1,
            exchange_packets: packets - 5,
            exchange_bytes: bytes - 1500,
            record_overhead_bytes: 220,
        });
        r
    }

    #[test]
    fn the_cost_of_tls_is_the_difference_from_the_same_mode_in_cleartext() {
        let mut plain = sample_row("original", "pipelined", "first", 100, 10_000);
        plain.time.complete_ms.median = 400.0;
        let mut over_tls = tls_row("https-pipelined", 110, 12_000);
        over_tls.time.complete_ms.median = 500.0;
        let rows = vec![
            plain,
            over_tls,
            // No cleartext twin for this one: left out.
            tls_row("https10", 300, 30_000),
        ];
        let c = costs(&rows);
        assert_eq!(c.len(), 1);
        assert_eq!((c[0].packets, c[0].bytes), (10, 2_000));
        assert!((c[0].packets_pct - 10.0).abs() < 1e-9);
        assert_eq!(c[0].link, "loopback");
        assert!((c[0].complete_ms - 100.0).abs() < 1e-9);
        assert!((c[0].complete_pct - 25.0).abs() < 1e-9);
        assert_eq!(c[0].cleartext.as_str(), "pipelined");
        assert_eq!(c[0].handshake_bytes, 1500);
    }

    #[test]
    fn a_mode_over_tls_is_compared_with_its_twin_on_the_same_link_only() {
        let mut plain = sample_row("original", "pipelined", "first", 100, 10_000);
        plain.link.name = "Cable".into();
        let rows = vec![plain, tls_row("https-pipelined", 110, 12_000)];
        assert!(
            costs(&rows).is_empty(),
            "loopback's TLS row has no loopback twin"
        );
    }
}
