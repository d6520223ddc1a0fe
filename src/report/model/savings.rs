//! What the rewrite saves a visitor: the first visit's bytes, requests and packets before and
//! after, and its time on every named link. [`link_time`] is the one place that knows where a
//! link's time comes from (the simulator's figure where the link was simulated, the median
//! measured over the emulated link otherwise): the headline, the budgets and the opportunities
//! all read it.

use super::figures::{self, row_on, time_links};
use super::report::{LinkTime, Report, TimeSource, VisitorSavings};
use crate::replay::protocol::Role;
use crate::replay::{Mode, ReplayRow, Test};

/// The first visit's time of `mode` on `link`, original → rewritten: simulated where both site
/// versions were simulated there (the same on any machine), else measured; `None` unless both
/// were visited in that mode over that link with a time.
pub fn link_time(report: &Report, link: &str, mode: Mode) -> Option<LinkTime> {
    link_time_from(report, link, mode, TimeSource::Simulated)
        .or_else(|| link_time_from(report, link, mode, TimeSource::Measured))
}

/// The first visit's time of `mode` on `link` from one `source` only (a budget with
/// `time-source = "measured"`); `None` when that source has no time for both site versions.
pub fn link_time_from(
    report: &Report,
    link: &str,
    mode: Mode,
    source: TimeSource,
) -> Option<LinkTime> {
    let o = row_on(report, link, "original", mode, Test::First)?;
    let r = row_on(report, link, "rewritten", mode, Test::First)?;
    let (original_ms, rewritten_ms, timed_out_runs) = match source {
        TimeSource::Simulated => {
            let (a, b) = (o.simulated_time.as_ref()?, r.simulated_time.as_ref()?);
            (
                a.last_packet_ms,
                b.last_packet_ms,
                a.timed_out_seeds + b.timed_out_seeds,
            )
        }
        TimeSource::Measured => {
            if !(o.measured() && r.measured()) {
                return None;
            }
            (
                o.time.last_packet_ms,
                r.time.last_packet_ms,
                o.timed_out_runs + r.timed_out_runs,
            )
        }
    };
    Some(LinkTime {
        link: link.to_string(),
        mode,
        source,
        original_ms,
        rewritten_ms,
        timed_out_runs,
    })
}

/// The mode a link's time is given in: [`Role::TimeHeadline`] (h2) when both site versions
/// were visited in it over `link`, else the reference mode, else the first mode that was.
pub fn time_mode(report: &Report, link: &str) -> Option<Mode> {
    let has = |m: Mode| {
        ["original", "rewritten"]
            .iter()
            .all(|site| row_on(report, link, site, m, Test::First).is_some())
    };
    Mode::with_role(Role::TimeHeadline)
        .into_iter()
        .chain([Mode::reference()])
        .chain(figures::modes(report))
        .find(|m| has(*m))
}

/// What a visitor saves: the headline's first visit and its time on every named link with a
/// time (simulated or measured, in the order they ran), each in its [`time_mode`]; `None`
/// without a replay of both site versions.
pub fn visitor_savings(report: &Report) -> Option<VisitorSavings> {
    let h = figures::headline(report)?;
    let page = figures::row(report, "rewritten", h.mode, Test::First)?
        .page
        .clone();
    let links = time_links(report)
        .into_iter()
        .filter_map(|link| link_time(report, link, time_mode(report, link)?))
        .collect();
    Some(VisitorSavings {
        mode: h.mode,
        page,
        original: h.before,
        rewritten: h.after,
        links,
    })
}

/// The first named link with a time, where opportunities give theirs.
pub fn first_link(report: &Report) -> Option<&LinkTime> {
    report.visitor_savings.as_ref()?.links.first()
}

/// Milliseconds that `bytes`, `packets` and `requests` fewer would save a first visit on
/// `link` in `mode`, from the link's rates and round-trip time: the bytes and the TCP/IP
/// headers of the packets (40 bytes each) at the downstream rate, the requests' own bytes (the
/// mode's mean request) at the upstream rate, and for each request the round trips its share
/// of the visit's connections costs. `None` when the link has no fixed rate (loopback, an
/// unshaped direction) or the mode did not run there.
pub fn estimate_ms(
    report: &Report,
    link: &str,
    mode: Mode,
    bytes: i64,
    packets: i64,
    requests: i64,
) -> Option<f64> {
    let row: &ReplayRow = row_on(report, link, "rewritten", mode, Test::First)
        .or_else(|| row_on(report, link, "original", mode, Test::First))?;
    let spec = &row.link.spec;
    let down = spec.down.as_ref()?.rate_bps? as f64;
    let up = spec.up.as_ref()?.rate_bps? as f64;
    let rtt = spec.rtt_ms.unwrap_or(0.0);
    let per_request = row.bytes_up as f64 / row.requests.max(1) as f64;
    let connections_per_request = row.connections as f64 / row.requests.max(1) as f64;
    let down_ms = (bytes as f64 + 40.0 * packets as f64) * 8.0 / down * 1000.0;
    let up_ms = requests as f64 * per_request * 8.0 / up * 1000.0;
    let rtt_ms = requests as f64 * connections_per_request * rtt;
    Some(down_ms + up_ms + rtt_ms)
}

/// The link and source in words: `measured over Cable, median of 2 runs`, `simulated on 3G`.
pub fn source_text(t: &LinkTime, runs: usize) -> String {
    match t.source {
        TimeSource::Measured => format!(
            "measured over {}, median of {runs} run{}",
            t.link,
            if runs == 1 { "" } else { "s" }
        ),
        TimeSource::Simulated => format!("simulated on {}", t.link),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::row::{sample_row, RowLink};
    use crate::replay::Spread;

    fn on_cable(site: &str, mode: &str, ms: [f64; 3]) -> ReplayRow {
        let mut r = sample_row(site, mode, "first", 100, 10_000);
        r.link = RowLink::new(&crate::sim::link::parse("Cable").unwrap()[0], vec![1]);
        r.time.last_packet_ms = Spread::of(ms);
        r
    }

    #[test]
    fn a_named_link_gets_the_time_of_the_headline_mode_and_loopback_gets_none() {
        let mut report = crate::report::model::sample::sample();
        report
            .replay
            .push(on_cable("original", "pipelined", [400.0, 410.0, 420.0]));
        report
            .replay
            .push(on_cable("rewritten", "pipelined", [350.0, 360.0, 370.0]));
        let s = visitor_savings(&report).unwrap();
        assert_eq!(s.mode.as_str(), "pipelined");
        assert_eq!(s.links.len(), 1, "Cable only: loopback is not a named link");
        let t = &s.links[0];
        assert_eq!((t.link.as_str(), t.source), ("Cable", TimeSource::Measured));
        assert_eq!(t.saved_ms(), 50.0);
        assert!(t.resolved());
    }

    #[test]
    fn a_simulated_link_gives_its_simulated_time_in_h2_where_h2_ran() {
        let mut report = crate::report::model::sample::sample();
        for (site, mode, ms) in [
            ("original", "pipelined", 400.0),
            ("rewritten", "pipelined", 350.0),
            ("original", "h2", 300.0),
            ("rewritten", "h2", 240.0),
        ] {
            let mut r = on_cable(site, mode, [ms + 50.0; 3]);
            r.simulated_time = Some(crate::replay::row::SimulatedTime {
                last_packet_ms: Spread::of([ms]),
                first_byte_ms: Spread::of([50.0]),
                complete_ms: Spread::of([ms]),
                tcp: "cubic".into(),
                seeds: vec![1],
                timed_out_seeds: 0,
                retransmits: Spread::of([0.0]),
            });
            report.replay.push(r);
        }
        let s = visitor_savings(&report).unwrap();
        let t = &s.links[0];
        assert_eq!(
            (t.mode.as_str(), t.source),
            ("h2", TimeSource::Simulated),
            "the simulated time, in h2"
        );
        assert_eq!(
            (t.original_ms.median, t.rewritten_ms.median),
            (300.0, 240.0)
        );
        let measured =
            link_time_from(&report, "Cable", Mode::reference(), TimeSource::Measured).unwrap();
        assert_eq!(measured.rewritten_ms.median, 400.0, "the measured median");
    }

    #[test]
    fn overlapping_measured_times_are_not_resolved() {
        let t = LinkTime {
            link: "Cable".into(),
            mode: Mode::reference(),
            source: TimeSource::Measured,
            original_ms: Spread::of([400.0, 420.0, 440.0]),
            rewritten_ms: Spread::of([410.0, 415.0, 430.0]),
            timed_out_runs: 0,
        };
        assert!(!t.resolved());
        let simulated = LinkTime {
            source: TimeSource::Simulated,
            ..t
        };
        assert!(simulated.resolved(), "a simulated time has no noise");
    }

    #[test]
    fn the_estimate_prices_bytes_at_the_link_rate() {
        let mut report = crate::report::model::sample::sample();
        report
            .replay
            .push(on_cable("rewritten", "pipelined", [350.0; 3]));
        // Cable: 5 Mbit/s down. 10,000 bytes and no packets: 16 ms.
        let ms = estimate_ms(&report, "Cable", Mode::reference(), 10_000, 0, 0).unwrap();
        assert!((ms - 16.0).abs() < 1e-9, "{ms}");
        // The packets' headers add: 25 packets × 40 bytes = 1,000 bytes, 1.6 ms more.
        let ms = estimate_ms(&report, "Cable", Mode::reference(), 10_000, 25, 0).unwrap();
        assert!((ms - 17.6).abs() < 1e-9, "{ms}");
        assert!(estimate_ms(&report, "loopback", Mode::reference(), 10_000, 0, 0).is_none());
    }
}
