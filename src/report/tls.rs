//! What TLS costs: each mode over TLS against the same mode in cleartext, for the same site and
//! test — packets and bytes more, and how much of that is handshakes. One place, so that the
//! terminal, Markdown and HTML reports agree; `report.json` keeps it as `tls_cost`.

use serde::{Deserialize, Serialize};

use super::thousands;
use crate::replay::{Mode, ReplayRow};

/// One mode over TLS against its cleartext twin.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TlsCost {
    /// `original` or `rewritten`.
    pub site: String,
    /// The mode over TLS (`https10`…) and its cleartext twin (`http10`…).
    pub mode: String,
    pub cleartext: String,
    /// `first` or `validate`.
    pub test: String,
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
}

/// Every TLS row that has its cleartext twin for the same site and test.
pub fn costs(rows: &[ReplayRow]) -> Vec<TlsCost> {
    let mut out = Vec::new();
    for r in rows {
        let (Some(tls), Some(twin)) = (
            r.tls.as_ref(),
            Mode::named(&r.mode).and_then(|m| m.spec().cleartext),
        ) else {
            continue;
        };
        let Some(plain) = rows
            .iter()
            .find(|p| p.site == r.site && p.test == r.test && p.mode == twin)
        else {
            continue;
        };
        let pct = |extra: i64, base: u64| {
            if base == 0 {
                0.0
            } else {
                100.0 * extra as f64 / base as f64
            }
        };
        let packets = r.packets as i64 - plain.packets as i64;
        let bytes = r.bytes() as i64 - plain.bytes() as i64;
        out.push(TlsCost {
            site: r.site.clone(),
            mode: r.mode.clone(),
            cleartext: twin.to_string(),
            test: r.test.clone(),
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
            packets_pct: pct(packets, plain.packets),
            bytes,
            bytes_pct: pct(bytes, plain.bytes()),
            handshake_packets: tls.handshake_packets,
            handshake_bytes: tls.handshake_bytes_up + tls.handshake_bytes_down,
            handshake_round_trips: tls.handshake_round_trips,
            record_overhead_bytes: tls.record_overhead_bytes,
        });
    }
    out
}

/// `+1,234`, `-5`, `0`: a difference with its sign.
pub fn plus(n: i64) -> String {
    if n > 0 {
        format!("+{}", super::figures::signed(n))
    } else {
        super::figures::signed(n)
    }
}

/// `+172 packets (+37.0%), +37,781 bytes (+20.8%)`.
pub fn extra_text(c: &TlsCost) -> String {
    format!(
        "{} packets ({:+.1}%), {} bytes ({:+.1}%)",
        plus(c.packets),
        c.packets_pct,
        plus(c.bytes),
        c.bytes_pct
    )
}

/// `43 connections: 1 full + 42 resumed handshakes, 43 round trips`.
pub fn handshakes_text(c: &TlsCost) -> String {
    format!(
        "{} connection{}: {} full + {} resumed handshake{}, {} round trip{}, {} handshake packets, {} bytes",
        c.connections,
        if c.connections == 1 { "" } else { "s" },
        c.full_handshakes,
        c.resumed_handshakes,
        if c.full_handshakes + c.resumed_handshakes == 1 { "" } else { "s" },
        c.handshake_round_trips,
        if c.handshake_round_trips == 1 { "" } else { "s" },
        c.handshake_packets,
        thousands(c.handshake_bytes)
    )
}

/// The headline of TLS's cost: the first visit of `https10` (a handshake per connection)
/// against `https-pipelined` (one), for the site that has both; `None` otherwise.
pub fn headline(costs: &[TlsCost], site: &str) -> Option<String> {
    let find = |mode: &str| {
        costs
            .iter()
            .find(|c| c.site == site && c.mode == mode && c.test == "first")
    };
    let (many, one) = (find("https10")?, find("https-pipelined")?);
    Some(format!(
        "TLS on a first visit ({}): https10 {} packets over http10 ({} connections), \
         https-pipelined {} over pipelined (1 connection)",
        many.tls,
        plus(many.packets),
        many.connections,
        plus(one.packets),
    ))
}

/// The compact terminal block: per site, each mode over TLS with its extra packets and bytes
/// on a first visit and a validation, then the headline. Empty without TLS rows.
pub fn terminal_block(costs: &[TlsCost]) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let Some(first) = costs.first() else {
        return s;
    };
    let _ = writeln!(
        s,
        "\n  what TLS costs over the same mode in cleartext ({}); packets by the paper's rules",
        first.tls
    );
    let mut sites: Vec<&str> = costs.iter().map(|c| c.site.as_str()).collect();
    sites.dedup();
    for site in &sites {
        let _ = writeln!(
            s,
            "  {:<24} {:>34}   {:>34}",
            format!("{site} site"),
            "first visit",
            "validation"
        );
        let mut modes: Vec<&str> = costs
            .iter()
            .filter(|c| c.site == *site)
            .map(|c| c.mode.as_str())
            .collect();
        modes.dedup();
        for mode in modes {
            let cell = |test: &str| {
                costs
                    .iter()
                    .find(|c| c.site == *site && c.mode == mode && c.test == test)
                    .map_or("-".to_string(), |c| {
                        format!(
                            "{:>5} pkts ({:+6.1}%) {:>8} B",
                            plus(c.packets),
                            c.packets_pct,
                            plus(c.bytes)
                        )
                    })
            };
            let _ = writeln!(
                s,
                "  {mode:<24} {:>34}   {:>34}",
                cell("first"),
                cell("validate")
            );
        }
    }
    if let Some(line) = sites.first().and_then(|site| headline(costs, site)) {
        let _ = writeln!(s, "  {line}");
    }
    s
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
        let rows = vec![
            sample_row("original", "pipelined", "first", 100, 10_000),
            tls_row("https-pipelined", 110, 12_000),
            // No cleartext twin for this one: left out.
            tls_row("https10", 300, 30_000),
        ];
        let c = costs(&rows);
        assert_eq!(c.len(), 1);
        assert_eq!((c[0].packets, c[0].bytes), (10, 2_000));
        assert!((c[0].packets_pct - 10.0).abs() < 1e-9);
        assert_eq!(c[0].cleartext, "pipelined");
        assert_eq!(c[0].handshake_bytes, 1500);
        assert!(extra_text(&c[0]).starts_with("+10 packets (+10.0%), +2,000 bytes (+20.0%)"));
        assert!(
            headline(&c, "original").is_none(),
            "https10 has no twin here"
        );
    }
}
