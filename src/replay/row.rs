//! The one row type every replay mode produces: one site version × mode × test, aggregated
//! over the runs. Deterministic figures (bytes, requests, connections, the model's packets)
//! are the same on every run; measured ones (the kernel's packet counts, times) carry their
//! spread, so a reader can tell a change from noise.

use serde::{Deserialize, Serialize};

use super::meter::{overhead_pct, Counters, HeaderBytes};
use super::protocol::Mode;
use super::robot::{RequestTiming, Test, Visit};
use crate::sim::headers::HeaderSet;
use crate::sim::link::listing::{self, LinkListing};
use crate::sim::link::Link;

/// The link a row was measured over: its name and what it is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RowLink {
    /// `loopback`, a profile (`3G`), or a normalised custom link (`spdy-cable,rtt=40ms`).
    pub name: String,
    /// Its rates, delay, loss, queue and MTU, as `webdiet links --json` lists them.
    pub spec: LinkListing,
    /// The loss seed of each run, in run order (empty on loopback).
    pub seeds: Vec<u64>,
}

impl RowLink {
    pub fn new(link: &Link, seeds: Vec<u64>) -> Self {
        RowLink {
            name: link.name().to_string(),
            spec: listing::listing(link),
            seeds,
        }
    }
}

impl Default for RowLink {
    fn default() -> Self {
        RowLink::new(&Link::Loopback, Vec::new())
    }
}

/// A measured figure over the runs: the median and the spread.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    /// The lower middle for an even number of runs, so it is always a measured value.
    pub median: f64,
    pub min: f64,
    pub max: f64,
    /// First and third quartile (nearest rank).
    pub q1: f64,
    pub q3: f64,
    pub runs: usize,
}

impl Spread {
    /// The spread of `values` (any order).
    pub fn of(values: impl IntoIterator<Item = f64>) -> Spread {
        let mut v: Vec<f64> = values.into_iter().collect();
        v.sort_by(f64::total_cmp);
        if v.is_empty() {
            return Spread::default();
        }
        let n = v.len();
        let rank = |p: f64| v[((p * n as f64).ceil() as usize).clamp(1, n) - 1];
        Spread {
            median: v[(n - 1) / 2],
            min: v[0],
            max: v[n - 1],
            q1: rank(0.25),
            q3: rank(0.75),
            runs: n,
        }
    }

    /// `Some` when at least one run had the figure.
    pub fn reached_by_any(self) -> Option<Spread> {
        (self.runs > 0).then_some(self)
    }

    /// The range the report shows: the interquartile range with 5 runs or more, else min–max.
    pub fn range(&self) -> (f64, f64) {
        if self.runs >= 5 {
            (self.q1, self.q3)
        } else {
            (self.min, self.max)
        }
    }

    /// Whether two measured figures cannot be told apart: their ranges overlap.
    pub fn overlaps(&self, other: &Spread) -> bool {
        let (a0, a1) = self.range();
        let (b0, b1) = other.range();
        a0 <= b1 && b0 <= a1
    }
}

/// One run's outcome, as the aggregation over runs ([`Runs`]) sees it.
pub trait RunOutcome {
    /// The run gave up waiting (a slow or lossy link): in the figures it reached only.
    fn timed_out(&self) -> bool;
    /// Nothing was measured (the client failed): in no figure.
    fn failed(&self) -> bool {
        false
    }
}

/// The runs of one mode × test, for a row — whoever the client — and the one way their
/// figures are aggregated: counts from the completed runs, medians as the lower middle (so
/// always a measured value), spreads over the runs that have the figure.
pub struct Runs<'a, V> {
    all: &'a [V],
    completed: Vec<&'a V>,
}

impl<'a, V: RunOutcome> Runs<'a, V> {
    pub fn new(all: &'a [V]) -> Self {
        Runs {
            all,
            completed: all
                .iter()
                .filter(|v| !v.timed_out() && !v.failed())
                .collect(),
        }
    }

    /// Every run, completed or not.
    pub fn len(&self) -> usize {
        self.all.len()
    }

    pub fn is_empty(&self) -> bool {
        self.all.is_empty()
    }

    pub fn timed_out(&self) -> usize {
        self.all.iter().filter(|v| v.timed_out()).count()
    }

    pub fn failed(&self) -> usize {
        self.all.iter().filter(|v| v.failed()).count()
    }

    /// The runs that completed.
    pub fn completed(&self) -> &[&'a V] {
        &self.completed
    }

    /// A deterministic count's median over the completed runs (0 without any).
    pub fn median(&self, f: impl Fn(&V) -> u64) -> u64 {
        let mut v: Vec<u64> = self.completed.iter().map(|r| f(r)).collect();
        v.sort_unstable();
        v.get((v.len().max(1) - 1) / 2).copied().unwrap_or(0)
    }

    /// A measured figure's spread over the completed runs.
    pub fn spread(&self, f: impl Fn(&V) -> f64) -> Spread {
        Spread::of(self.completed.iter().map(|r| f(r)))
    }

    /// A figure's spread over the completed runs that have it.
    pub fn spread_some(&self, f: impl Fn(&V) -> Option<f64>) -> Spread {
        Spread::of(self.completed.iter().filter_map(|r| f(r)))
    }

    /// A figure's spread over every run that reached it, completed or not.
    pub fn reached(&self, f: impl Fn(&V) -> Option<f64>) -> Spread {
        Spread::of(self.all.iter().filter_map(f))
    }

    /// The completed run whose figure `f` is `median` (the run a waterfall shows), else the
    /// first completed run.
    pub fn median_run(&self, median: f64, f: impl Fn(&V) -> Option<f64>) -> Option<&'a V> {
        self.completed
            .iter()
            .find(|r| f(r) == Some(median))
            .or(self.completed.first())
            .copied()
    }
}

impl RunOutcome for Visit {
    fn timed_out(&self) -> bool {
        self.timed_out
    }
}

/// The kernel's packet counts over the runs (measured; ACKs vary with scheduling).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct KernelSpread {
    /// Every segment under the paper's rule, both ways.
    pub packets: Spread,
    /// Of those, client → server (`tcpi_segs_out`).
    pub packets_up: Spread,
    /// Of those, server → client (`tcpi_segs_in`).
    pub packets_down: Spread,
    /// Segments with payload, both ways.
    pub data_segments: Spread,
    /// Of those, the first transmissions (retransmissions aside): what the model's data
    /// segments equal. A lossless link has no loss, but a server slower than TCP's tail-loss
    /// probe (10 ms) makes the client send its last segment again.
    #[serde(default)]
    pub new_data_segments: Spread,
    /// The rest: SYNs, FINs and pure ACKs.
    pub other: Spread,
    pub retransmits: Spread,
    /// Over TLS: data segments when each client handshake completed (`TCP_INFO`, so before
    /// the session tickets), summed over the connections; `null` in cleartext.
    #[serde(default)]
    pub tls_handshake_data_segments: Option<Spread>,
}

/// Times over the runs, in milliseconds from the visit's first SYN (the client's first
/// `connect`), measured the same way in every mode and over every link. A run that timed out
/// enters each spread at the time it was abandoned (a lower bound; `timed_out_runs` counts it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct TimeSpread {
    /// The paper's time: to the last packet that counts under its rule, as the client sees it
    /// (the moment the client sends its last FIN).
    #[serde(default)]
    pub last_packet_ms: Spread,
    /// The first byte of the page's response.
    pub first_byte_ms: Spread,
    /// The last byte of the last object: the page is complete.
    pub complete_ms: Spread,
    /// From a connection's SYN until it was ready for the first request (TCP's handshake,
    /// and TLS's over TLS), the mean over the visit's connections.
    #[serde(default)]
    pub connect_ms: Spread,
    /// For a visit on one connection: from the end of the connection's set-up (the request's
    /// write) to the last byte, the 1998 HTTP/HTTPS study's timer; `null` for visits on
    /// several connections.
    #[serde(default)]
    pub after_connect_ms: Option<Spread>,
}

/// One measured run's figures, kept in the row so that runs added later (the audit's
/// adaptive runs) are aggregated with it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct RunFigures {
    /// The run gave up waiting: in the time figures it reached only.
    pub timed_out: bool,
    /// The paper's time, first byte, page complete; `null` for a validation not made (its
    /// run's first visit timed out).
    pub last_packet_ms: Option<f64>,
    pub first_byte_ms: Option<f64>,
    pub complete_ms: Option<f64>,
    /// The mean set-up time of the run's connections, and how many there were.
    pub connect_ms: f64,
    pub connections: u64,
    /// From the end of the (only) connection's set-up to the last byte.
    pub after_connect_ms: f64,
    pub kernel: super::meter::Kernel,
    /// Over TLS: the kernel's data segments when each handshake completed, summed.
    pub tls_kernel_data_segments: u64,
}

impl RunFigures {
    fn of(v: &Visit) -> RunFigures {
        let ms = |d: std::time::Duration| d.as_secs_f64() * 1000.0;
        // A validation not made because its run's first visit timed out has no time at all.
        let made = !(v.timed_out && v.timing.last_packet.is_zero());
        let c = &v.counters;
        RunFigures {
            timed_out: v.timed_out,
            last_packet_ms: made.then(|| ms(v.timing.last_packet)),
            first_byte_ms: made.then(|| ms(v.timing.first_byte)),
            complete_ms: made.then(|| ms(v.timing.complete)),
            connect_ms: ms(c.connect) / c.connections.max(1) as f64,
            connections: c.connections,
            after_connect_ms: ms(v.timing.complete.saturating_sub(c.connect)),
            kernel: c.kernel,
            tls_kernel_data_segments: c.tls.kernel_data_segments,
        }
    }
}

impl RunOutcome for RunFigures {
    fn timed_out(&self) -> bool {
        self.timed_out
    }
}

/// The kernel's and the time spreads over `runs` (see [`Runs`]).
fn aggregate(runs: &[RunFigures], tls: bool) -> (KernelSpread, TimeSpread) {
    let runs = Runs::new(runs);
    let spread = |f: &dyn Fn(&RunFigures) -> f64| runs.spread(f);
    let kernel = KernelSpread {
        packets: spread(&|r| r.kernel.packets() as f64),
        packets_up: spread(&|r| r.kernel.packets_up as f64),
        packets_down: spread(&|r| r.kernel.packets_down as f64),
        data_segments: spread(&|r| r.kernel.data() as f64),
        new_data_segments: spread(&|r| r.kernel.data().saturating_sub(r.kernel.retransmits) as f64),
        other: spread(&|r| r.kernel.packets().saturating_sub(r.kernel.data()) as f64),
        retransmits: spread(&|r| r.kernel.retransmits as f64),
        tls_handshake_data_segments: tls.then(|| spread(&|r| r.tls_kernel_data_segments as f64)),
    };
    let time = TimeSpread {
        last_packet_ms: runs.reached(|r| r.last_packet_ms),
        first_byte_ms: runs.reached(|r| r.first_byte_ms),
        complete_ms: runs.reached(|r| r.complete_ms),
        connect_ms: spread(&|r| r.connect_ms),
        after_connect_ms: runs
            .completed()
            .iter()
            .all(|r| r.connections == 1)
            .then(|| spread(&|r| r.after_connect_ms)),
    };
    (kernel, time)
}

/// The distribution-free confidence interval of the median of `values` with at least
/// `coverage` (0.9 for 90%): the order statistics x₍ₖ₎ and x₍ₙ₊₁₋ₖ₎ for the largest k
/// whose interval still covers the median with that probability (binomial, p = ½). `None`
/// with too few values for that coverage (fewer than 5 for 90%).
pub fn median_interval(values: &[f64], coverage: f64) -> Option<(f64, f64)> {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    // P(Bin(n, ½) < k), for k = 1, 2, …: the interval misses with twice that.
    let mut below = 0.0;
    let mut best = None;
    let mut choose = 1.0f64; // C(n, j)
    let half_n = 0.5f64.powi(n as i32);
    for k in 1..=n.div_ceil(2) {
        let j = k - 1;
        if j > 0 {
            choose = choose * (n - j + 1) as f64 / j as f64;
        }
        below += choose * half_n;
        if 1.0 - 2.0 * below >= coverage {
            best = Some(k);
        } else {
            break;
        }
    }
    best.map(|k| (v[k - 1], v[n - k]))
}

/// Simulated time of one mode × test over the row's link (docs/simulation.md): the loopback
/// replay's recorded exchange replayed through a model of the link and of the TCP the replay
/// pins, in simulated time, so the same on every machine at any load. Over a lossless link one
/// value; over a lossy one, one value per loss seed, and the spreads are over the seeds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SimulatedTime {
    /// The paper's time: from the first SYN to the last server byte the client reads.
    pub last_packet_ms: Spread,
    /// The first byte of the page's response.
    pub first_byte_ms: Spread,
    /// The last byte of the last object: the page is complete.
    pub complete_ms: Spread,
    /// The TCP modelled: `cubic`, `reno` (Linux's, as the replay pins it), or `1997` (a 1997
    /// stack: Reno, an initial window of 2, a 3 s initial RTO, no SACK).
    pub tcp: String,
    /// The loss seeds simulated, in order (one: the link loses nothing).
    pub seeds: Vec<u64>,
    /// Of those, seeds whose visit did not finish within the timeout (their times are the
    /// timeout's, lower bounds).
    pub timed_out_seeds: usize,
    /// Segments sent again, over the seeds.
    pub retransmits: Spread,
}

/// The TLS part of a row of a mode over TLS: the handshake counted apart from the HTTP
/// exchange (deterministic, from the median run).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TlsRow {
    /// `1.2` or `1.3`.
    pub version: String,
    /// The negotiated cipher suite (IANA name).
    pub suite: String,
    /// Whether connections after the first of a visit resumed the session (`--resumption`).
    pub resumption: bool,
    /// The certificate chain the server sent: bytes of DER per certificate, leaf first.
    pub chain_bytes: Vec<usize>,
    /// Connections with a full / a resumed handshake.
    pub full_handshakes: u64,
    pub resumed_handshakes: u64,
    /// Segments of the TLS handshakes (flights, session tickets and their ACKs; TCP's SYN and
    /// SYN-ACK stay in `packets`' control segments), by the model, both ways and each way.
    pub handshake_packets: u64,
    pub handshake_packets_up: u64,
    pub handshake_packets_down: u64,
    /// Of those, data segments; of these, the session tickets' (the kernel's count of the
    /// rest is `kernel.tls_handshake_data_segments`).
    pub handshake_data_segments: u64,
    pub ticket_segments: u64,
    /// TCP payload bytes of the handshakes, each way.
    pub handshake_bytes_up: u64,
    pub handshake_bytes_down: u64,
    /// Round trips the TLS handshakes added before a request could go, summed over the
    /// connections (TCP's own round trip not included).
    pub handshake_round_trips: u64,
    /// The HTTP exchange alone: `packets − handshake_packets` and `bytes − handshake bytes`.
    pub exchange_packets: u64,
    pub exchange_bytes: u64,
    /// Bytes the record layer added to the HTTP exchange: record headers, AEAD tags, the
    /// close_notify alerts.
    pub record_overhead_bytes: u64,
}

/// What a row of a mode over TLS is labelled with (the run's TLS options and chain).
#[derive(Debug, Clone, PartialEq)]
pub struct TlsLabel {
    pub version: String,
    pub suite: String,
    pub resumption: bool,
    pub chain_bytes: Vec<usize>,
}

/// One mode × test of one site version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReplayRow {
    /// `original` or `rewritten`.
    pub site: String,
    /// The page visited, or `N pages` with `--all-pages`.
    pub page: String,
    /// The mode, written as its name (see `webdiet replay --help`).
    pub mode: Mode,
    /// `first` or `validate`.
    pub test: Test,
    /// The link the row was measured over.
    #[serde(default)]
    pub link: RowLink,
    pub runs: usize,
    /// Of `runs`, those that gave up waiting (a lossy or slow link). They are in the time
    /// spreads at the time they were abandoned, not in the counts.
    #[serde(default)]
    pub timed_out_runs: usize,
    pub requests: u64,
    pub connections: u64,
    /// TCP payload bytes client → server.
    pub bytes_up: u64,
    /// TCP payload bytes server → client.
    pub bytes_down: u64,
    /// Packets under the paper's rules, both ways: the deterministic figure the headline and
    /// budgets use (handshake, data segments, teardown, and pure ACKs by the delayed-ACK rule).
    pub packets: u64,
    pub packets_up: u64,
    pub packets_down: u64,
    pub data_segments_up: u64,
    pub data_segments_down: u64,
    /// Pure ACKs by the delayed-ACK rule, each way.
    pub acks_up: u64,
    pub acks_down: u64,
    /// Handshake + data segments + teardown, no pure ACK: no exchange of these bytes on these
    /// connections can use fewer segments.
    pub lower_bound: u64,
    /// `lower_bound / packets`: never above 1.
    pub efficiency: f64,
    /// 100 × (1 − bytes / (bytes + 40 × packets)), from `packets`.
    pub overhead_pct: f64,
    /// Header bytes and blocks of the visit (deterministic). HTTP/1.x: request and status
    /// lines and header fields as text; HTTP/2: HEADERS and CONTINUATION frames (HPACK blocks
    /// with their 9-byte frame headers).
    pub headers: HeaderBytes,
    /// The request header set sent: `libwww` or `browser`.
    pub header_set: String,
    /// What the kernel counted, over the runs.
    pub kernel: KernelSpread,
    pub time: TimeSpread,
    /// How Ethernet-like segmentation was obtained: `netns`, `userns+netns` or `tcp-maxseg`.
    pub method: String,
    pub mss: u32,
    /// The TLS handshakes and record layer, for a mode over TLS; `null` in cleartext.
    #[serde(default)]
    pub tls: Option<TlsRow>,
    /// Each request of the run whose `time.last_packet_ms` is the median: sent, first and
    /// last byte (a waterfall); empty when a row sums several pages.
    #[serde(default)]
    pub waterfall: Vec<RequestTiming>,
    /// The congestion control both ends ran (`cubic`, `reno`), pinned per socket; `null` for
    /// a row not measured on a link (simulated only) or from an older report.
    #[serde(default)]
    pub congestion_control: Option<String>,
    /// Simulated time over `link`; `null` when the link was not simulated (loopback).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub simulated_time: Option<SimulatedTime>,
    /// Each request of the simulated visit (the median seed's): when it was issued, its first
    /// and last byte, in simulated milliseconds; empty when a row sums several pages.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub simulated_waterfall: Vec<RequestTiming>,
    /// Each measured run's figures, in run order (what `kernel` and `time` aggregate).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub measured_runs: Vec<RunFigures>,
}

impl ReplayRow {
    /// Aggregates the runs of one mode and test. Deterministic figures are taken from the
    /// median run (they are equal on every run of a correct replay).
    #[allow(clippy::too_many_arguments)]
    pub fn from_runs(
        site: &str,
        page: &str,
        mode: Mode,
        test: Test,
        runs: &[Visit],
        header_set: HeaderSet,
        method: &str,
        mss: u32,
        tls: Option<&TlsLabel>,
        link: &RowLink,
    ) -> ReplayRow {
        let measured_runs: Vec<RunFigures> = runs.iter().map(RunFigures::of).collect();
        let (kernel, time) = aggregate(&measured_runs, tls.is_some());
        let runs = Runs::new(runs);
        let median_of = |f: &dyn Fn(&Counters) -> u64| runs.median(|r| f(&r.counters));
        let waterfall = runs
            .median_run(time.last_packet_ms.median, |r| {
                Some(r.timing.last_packet.as_secs_f64() * 1000.0)
            })
            .map(|r| r.timing.requests.clone())
            .unwrap_or_default();
        let packets = median_of(&|c| c.model.total());
        let lower_bound = median_of(&|c| c.model.lower_bound());
        let bytes_up = median_of(&|c| c.bytes_up);
        let bytes_down = median_of(&|c| c.bytes_down);
        ReplayRow {
            site: site.to_string(),
            page: page.to_string(),
            mode,
            test,
            link: link.clone(),
            runs: runs.len(),
            timed_out_runs: runs.timed_out(),
            requests: median_of(&|c| c.requests),
            connections: median_of(&|c| c.connections),
            bytes_up,
            bytes_down,
            packets,
            packets_up: median_of(&|c| c.model.up.total()),
            packets_down: median_of(&|c| c.model.down.total()),
            data_segments_up: median_of(&|c| c.model.up.data),
            data_segments_down: median_of(&|c| c.model.down.data),
            acks_up: median_of(&|c| c.model.up.acks),
            acks_down: median_of(&|c| c.model.down.acks),
            lower_bound,
            efficiency: if packets == 0 {
                0.0
            } else {
                lower_bound as f64 / packets as f64
            },
            overhead_pct: overhead_pct(bytes_up + bytes_down, packets),
            headers: HeaderBytes {
                up: median_of(&|c| c.headers.up),
                requests: median_of(&|c| c.headers.requests),
                down: median_of(&|c| c.headers.down),
                responses: median_of(&|c| c.headers.responses),
            },
            header_set: header_set.as_str().to_string(),
            kernel,
            time,
            method: method.to_string(),
            mss,
            tls: tls.map(|label| {
                let t = |f: &dyn Fn(&super::meter::TlsCounters) -> u64| median_of(&|c| f(&c.tls));
                let handshake_packets = t(&|t| t.handshake.total());
                let handshake_bytes_up = t(&|t| t.handshake_bytes_up);
                let handshake_bytes_down = t(&|t| t.handshake_bytes_down);
                TlsRow {
                    version: label.version.clone(),
                    suite: label.suite.clone(),
                    resumption: label.resumption,
                    chain_bytes: label.chain_bytes.clone(),
                    full_handshakes: t(&|t| t.full),
                    resumed_handshakes: t(&|t| t.resumed),
                    handshake_packets,
                    handshake_packets_up: t(&|t| t.handshake.up.total()),
                    handshake_packets_down: t(&|t| t.handshake.down.total()),
                    handshake_data_segments: t(&|t| t.handshake.up.data + t.handshake.down.data),
                    ticket_segments: t(&|t| t.ticket_segments),
                    handshake_bytes_up,
                    handshake_bytes_down,
                    handshake_round_trips: t(&|t| t.round_trips),
                    exchange_packets: packets.saturating_sub(handshake_packets),
                    exchange_bytes: (bytes_up + bytes_down)
                        .saturating_sub(handshake_bytes_up + handshake_bytes_down),
                    record_overhead_bytes: t(&|t| t.record_overhead),
                }
            }),
            waterfall,
            congestion_control: None,
            simulated_time: None,
            simulated_waterfall: Vec::new(),
            measured_runs,
        }
    }

    /// Takes in more runs of the same site, page, mode, test and link (the audit's adaptive
    /// runs): the measured spreads are recomputed over every run; the waterfall is the one of
    /// whichever batch holds the new median run.
    pub fn absorb(&mut self, more: ReplayRow) {
        let before = self.time.last_packet_ms.median;
        self.measured_runs.extend(more.measured_runs);
        self.runs += more.runs;
        self.timed_out_runs += more.timed_out_runs;
        self.link.seeds.extend(more.link.seeds);
        let (kernel, time) = aggregate(&self.measured_runs, self.tls.is_some());
        self.kernel = kernel;
        self.time = time;
        let median = self.time.last_packet_ms.median;
        if median != before && median == more.time.last_packet_ms.median {
            self.waterfall = more.waterfall;
        }
    }

    /// The paper's time of each measured run that reached it, in run order.
    pub fn last_packet_runs_ms(&self) -> Vec<f64> {
        self.measured_runs
            .iter()
            .filter_map(|r| r.last_packet_ms)
            .collect()
    }

    /// Whether the row's time was measured (over the row's link); `false` for a row that has
    /// simulated time only.
    pub fn measured(&self) -> bool {
        self.time.last_packet_ms.runs > 0
    }

    /// The page-complete time a report sets beside other figures (what TLS costs, sweeps):
    /// the simulated one where the row has it (the same on any machine), else the measured
    /// median.
    pub fn shown_complete_ms(&self) -> f64 {
        self.simulated_time
            .as_ref()
            .map_or(self.time.complete_ms.median, |s| s.complete_ms.median)
    }

    /// Payload bytes both ways.
    pub fn bytes(&self) -> u64 {
        self.bytes_up + self.bytes_down
    }
}

/// A made-up row for the exporters' and budgets' unit tests: `packets` by the model, the
/// kernel's count `packets..=packets + 2` over three runs.
#[cfg(test)]
pub fn sample_row(site: &str, mode: &str, test: &str, packets: u64, bytes: u64) -> ReplayRow {
    let three = |a: f64| Spread::of([a, a + 1.0, a + 2.0]);
    ReplayRow {
        site: site.into(),
        page: "index.html".into(),
        mode: mode.parse().expect("a mode of the table"),
        test: test.parse().expect("first or validate"),
        link: RowLink::default(),
        runs: 3,
        timed_out_runs: 0,
        requests: 10,
        connections: 1,
        bytes_up: bytes / 10,
        bytes_down: bytes - bytes / 10,
        packets,
        packets_up: packets / 2,
        packets_down: packets - packets / 2,
        data_segments_up: 10,
        data_segments_down: packets / 2,
        acks_up: packets / 8,
        acks_down: packets / 8,
        lower_bound: packets * 3 / 4,
        efficiency: 0.75,
        overhead_pct: 3.5,
        headers: HeaderBytes {
            up: 10 * 150,
            requests: 10,
            down: 10 * 250,
            responses: 10,
        },
        header_set: "libwww".into(),
        kernel: KernelSpread {
            packets: three(packets as f64),
            packets_up: three((packets / 2) as f64),
            packets_down: three((packets / 2) as f64),
            data_segments: Spread::of([20.0; 3]),
            new_data_segments: Spread::of([20.0; 3]),
            other: three(5.0),
            retransmits: Spread::of([0.0; 3]),
            tls_handshake_data_segments: None,
        },
        time: TimeSpread {
            last_packet_ms: Spread::of([12.0, 13.0, 14.5]),
            first_byte_ms: Spread::of([1.0, 1.5, 2.0]),
            complete_ms: Spread::of([11.0, 12.5, 14.0]),
            connect_ms: Spread::of([0.1, 0.1, 0.2]),
            after_connect_ms: None,
        },
        method: "netns".into(),
        mss: 1460,
        tls: None,
        waterfall: Vec::new(),
        congestion_control: None,
        simulated_time: None,
        simulated_waterfall: Vec::new(),
        measured_runs: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_of_five_runs_has_median_quartiles_and_extremes() {
        let s = Spread::of([5.0, 1.0, 4.0, 2.0, 3.0]);
        assert_eq!((s.median, s.min, s.max), (3.0, 1.0, 5.0));
        assert_eq!((s.q1, s.q3), (2.0, 4.0));
        assert_eq!(s.range(), (2.0, 4.0), "five runs: the interquartile range");
        let even = Spread::of([4.0, 1.0, 3.0, 2.0]);
        assert_eq!(even.median, 2.0, "the lower middle is a measured value");
        assert_eq!(even.range(), (1.0, 4.0), "fewer than five runs: min–max");
    }

    #[test]
    fn the_median_interval_covers_at_least_what_is_asked_and_needs_five_values_for_90_percent() {
        assert_eq!(
            median_interval(&[1.0, 2.0, 3.0, 4.0], 0.9),
            None,
            "87.5% at best"
        );
        // Five values: min–max covers 93.75%.
        assert_eq!(
            median_interval(&[5.0, 1.0, 4.0, 2.0, 3.0], 0.9),
            Some((1.0, 5.0))
        );
        // Eleven: x(3)–x(9) covers 93.5%, x(4)–x(8) only 77%.
        let eleven: Vec<f64> = (1..=11).map(f64::from).collect();
        assert_eq!(median_interval(&eleven, 0.9), Some((3.0, 9.0)));
        assert_eq!(median_interval(&eleven, 0.99), Some((1.0, 11.0)));
    }

    #[test]
    fn overlapping_ranges_are_no_measurable_change() {
        let a = Spread::of([10.0, 11.0, 12.0]);
        let b = Spread::of([12.0, 13.0, 14.0]);
        let c = Spread::of([20.0, 21.0, 22.0]);
        assert!(a.overlaps(&b) && b.overlaps(&a));
        assert!(!a.overlaps(&c));
    }
}
