//! The row of a browser's visits: one site version × mode × test over one link, aggregated
//! over the runs. Everything a browser does is measured, not modelled, so every figure is a
//! spread (median and range), and the waterfall is the median run's, as the browser saw it;
//! the runs are aggregated as the robot's are ([`Runs`]).

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::chromium::page_load::{BrowserRequest, PageLoad};
use crate::replay::link::LinkCounters;
use crate::replay::protocol::Mode;
use crate::replay::robot::Test;
use crate::replay::row::{RowLink, RunOutcome, Runs, Spread};

/// The page's metrics over the runs, ms from the navigation's start; `None` when no run got
/// there.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BrowserMetrics {
    /// Time to first byte of the page's response.
    pub ttfb_ms: Option<Spread>,
    /// First contentful paint.
    pub fcp_ms: Option<Spread>,
    /// Largest contentful paint.
    pub lcp_ms: Option<Spread>,
    /// `DOMContentLoaded`.
    pub dom_content_loaded_ms: Option<Spread>,
    /// `load`.
    pub load_ms: Option<Spread>,
    /// The last byte of the last request: the page is complete (the figure set beside the
    /// robot's `time.complete_ms`).
    pub complete_ms: Option<Spread>,
    /// From the first SYN (the first connection's start) to the last byte of the last
    /// request: the robot's clock, for a comparison on the same origin.
    pub complete_from_first_syn_ms: Option<Spread>,
}

/// One browser mode × test of one site version over one link.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BrowserRow {
    /// `chromium`.
    pub client: String,
    /// `original` or `rewritten`.
    pub site: String,
    pub page: String,
    /// The mode whose server half and transport answered (`persistent`: HTTP/1.1 in
    /// cleartext; `https-persistent`; `h2`).
    pub mode: Mode,
    /// `first` (fresh profile) or `validate` (the same profile, a new browser process).
    pub test: Test,
    pub link: RowLink,
    pub runs: usize,
    /// Runs that did not complete within `timeout_ms` (left out of every figure but the
    /// metrics they reached).
    pub timed_out_runs: usize,
    /// Runs whose browser failed twice (nothing measured).
    pub failed_runs: usize,
    /// How long a page load could take.
    pub timeout_ms: f64,
    /// The protocol the responses came in (`http/1.1`, `h2`), from the median run.
    pub protocol: String,
    /// Requests the page made on the network, and of those answered 304 (median run).
    pub requests: u64,
    pub not_modified: u64,
    /// Connections the server accepted during a visit (preconnects included).
    pub connections: Spread,
    /// Packets on the link both ways and each way, SYNs, FINs and pure ACKs included,
    /// retransmissions included, from the navigation to the visit's last ACK.
    pub packets: Spread,
    pub packets_up: Spread,
    pub packets_down: Spread,
    /// Of those, segments with payload.
    pub data_segments: Spread,
    /// TCP payload bytes each way.
    pub bytes_up: Spread,
    pub bytes_down: Spread,
    pub metrics: BrowserMetrics,
    /// Crashes retried, timeouts: what happened, run by run.
    pub notes: Vec<String>,
    /// Every request of the median run (by `complete_ms`), as the browser made it.
    pub waterfall: Vec<BrowserRequest>,
}

impl RunOutcome for BrowserVisit {
    fn timed_out(&self) -> bool {
        self.timed_out
    }

    fn failed(&self) -> bool {
        self.failed
    }
}

impl BrowserRow {
    /// Aggregates the runs of one mode and test.
    #[allow(clippy::too_many_arguments)]
    pub fn from_runs(
        site: &str,
        page: &str,
        mode: Mode,
        test: Test,
        visits: &[BrowserVisit],
        link: &RowLink,
        timeout: std::time::Duration,
        notes: Vec<String>,
    ) -> BrowserRow {
        let runs = Runs::new(visits);
        fn load(v: &BrowserVisit) -> Option<&PageLoad> {
            v.load.as_ref()
        }
        let metric =
            |f: &dyn Fn(&PageLoad) -> Option<f64>| runs.reached(|v| f(load(v)?)).reached_by_any();
        let complete_ms = runs.spread_some(|v| load(v)?.complete_ms);
        let waterfall = runs
            .median_run(complete_ms.median, |v| load(v)?.complete_ms)
            .and_then(load)
            .map(|l| l.requests.clone())
            .unwrap_or_default();
        let network: Vec<&BrowserRequest> = waterfall
            .iter()
            .filter(|r| !r.from_cache && r.failed.is_none() && r.url.starts_with("http"))
            .collect();
        let mut protocols: BTreeMap<&str, usize> = BTreeMap::new();
        for r in &network {
            if let Some(p) = &r.protocol {
                *protocols.entry(p.as_str()).or_default() += 1;
            }
        }
        let protocol = protocols
            .iter()
            .max_by_key(|(_, n)| **n)
            .map(|(p, _)| p.to_string())
            .unwrap_or_default();
        let first_syn = |l: &PageLoad| {
            let syn = l
                .requests
                .iter()
                .filter_map(|r| r.connect_start_ms)
                .min_by(f64::total_cmp)?;
            Some(l.complete_ms? - syn)
        };
        let spread = |f: &dyn Fn(&BrowserVisit) -> f64| runs.spread(f);
        BrowserRow {
            client: "chromium".into(),
            site: site.into(),
            page: page.into(),
            mode,
            test,
            link: link.clone(),
            runs: runs.len(),
            timed_out_runs: runs.timed_out(),
            failed_runs: runs.failed(),
            timeout_ms: timeout.as_secs_f64() * 1000.0,
            protocol,
            requests: network.len() as u64,
            not_modified: network.iter().filter(|r| r.status == Some(304)).count() as u64,
            connections: spread(&|v| v.connections as f64),
            packets: spread(&|v| (v.link.up.arrived_packets + v.link.down.arrived_packets) as f64),
            packets_up: spread(&|v| v.link.up.arrived_packets as f64),
            packets_down: spread(&|v| v.link.down.arrived_packets as f64),
            data_segments: spread(&|v| {
                (v.link.up.arrived_data_packets + v.link.down.arrived_data_packets) as f64
            }),
            bytes_up: spread(&|v| v.link.up.arrived_payload_bytes as f64),
            bytes_down: spread(&|v| v.link.down.arrived_payload_bytes as f64),
            metrics: BrowserMetrics {
                ttfb_ms: metric(&|l| l.metrics.ttfb_ms),
                fcp_ms: metric(&|l| l.metrics.fcp_ms),
                lcp_ms: metric(&|l| l.metrics.lcp_ms),
                dom_content_loaded_ms: metric(&|l| l.metrics.dom_content_loaded_ms),
                load_ms: metric(&|l| l.metrics.load_ms),
                complete_ms: complete_ms.reached_by_any(),
                complete_from_first_syn_ms: runs
                    .spread_some(|v| first_syn(load(v)?))
                    .reached_by_any(),
            },
            notes,
            waterfall,
        }
    }

    /// The distinct connections the median run's requests came on.
    pub fn connections_used(&self) -> usize {
        self.waterfall
            .iter()
            .filter_map(|r| r.connection)
            .collect::<BTreeSet<_>>()
            .len()
    }
}

/// One visit's outcome, for the row.
#[derive(Debug, Clone, Default)]
pub struct BrowserVisit {
    pub load: Option<PageLoad>,
    /// What crossed the link during the visit.
    pub link: LinkCounters,
    /// Connections the server accepted during the visit.
    pub connections: u64,
    /// The page did not complete within the timeout.
    pub timed_out: bool,
    /// The browser failed in both attempts: nothing was measured.
    pub failed: bool,
}
