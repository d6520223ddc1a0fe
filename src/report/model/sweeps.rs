//! The sweeps of a replay (`--sweep rtt=…` or `loss=…`), found again in its rows: consecutive
//! links that differ only in their round-trip time, or only in their loss rate. Found here
//! once, so that every renderer draws the same curves from `report.json` alone.

use crate::replay::{Mode, ReplayRow, Test};
use crate::sim::link::listing::LinkListing;

/// What a sweep varies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SweepKey {
    Rtt,
    Loss,
}

impl SweepKey {
    /// The axis label: `RTT (ms)`, `loss (%)`.
    pub fn axis(self) -> &'static str {
        match self {
            SweepKey::Rtt => "RTT (ms)",
            SweepKey::Loss => "loss (%)",
        }
    }

    /// The value of this key on `link`; `None` for loopback.
    fn value(self, link: &LinkListing) -> Option<f64> {
        match self {
            SweepKey::Rtt => link.rtt_ms,
            SweepKey::Loss => link.down.as_ref().map(|d| d.loss_percent),
        }
    }

    /// `link` with this key (and everything that follows from it) cleared, so that two points
    /// of one sweep compare equal.
    fn cleared(self, link: &LinkListing) -> LinkListing {
        let mut l = link.clone();
        l.name.clear();
        l.source = None;
        match self {
            SweepKey::Rtt => {
                l.rtt_ms = None;
                for d in [&mut l.down, &mut l.up].into_iter().flatten() {
                    d.delay_ms = 0.0;
                    // The default queue is sized from the RTT (`spec::default_queue`).
                    d.queue = crate::sim::link::QueueLimit::Packets(0);
                }
            }
            SweepKey::Loss => {
                for d in [&mut l.down, &mut l.up].into_iter().flatten() {
                    d.loss_percent = 0.0;
                }
            }
        }
        l
    }
}

/// One sweep: its key and its points in the order they ran, each the value and the link's
/// name in the rows.
#[derive(Debug, Clone, PartialEq)]
pub struct Sweep {
    pub key: SweepKey,
    pub points: Vec<(f64, String)>,
}

impl Sweep {
    /// `spdy-cable, RTT 20–200 ms`.
    pub fn title(&self) -> String {
        let base = self.points[0]
            .1
            .split(',')
            .next()
            .unwrap_or_default()
            .to_string();
        let (lo, hi) = self
            .points
            .iter()
            .fold((f64::MAX, f64::MIN), |(lo, hi), (v, _)| {
                (lo.min(*v), hi.max(*v))
            });
        match self.key {
            SweepKey::Rtt => format!("{base}, RTT {lo}–{hi} ms"),
            SweepKey::Loss => format!("{base}, loss {lo}–{hi}%"),
        }
    }
}

/// The sweeps in `rows`: runs of at least three consecutive emulated links that are the same
/// link but for the RTT, or but for the loss rate, each point a different value.
pub fn sweeps(rows: &[ReplayRow]) -> Vec<Sweep> {
    let mut links: Vec<&LinkListing> = Vec::new();
    for r in rows {
        if r.link.spec.emulated && !links.iter().any(|l| l.name == r.link.name) {
            links.push(&r.link.spec);
        }
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < links.len() {
        let mut best: Option<Sweep> = None;
        for key in [SweepKey::Rtt, SweepKey::Loss] {
            let base = key.cleared(links[i]);
            let mut points: Vec<(f64, String)> = Vec::new();
            for link in &links[i..] {
                let Some(v) = key.value(link) else { break };
                if key.cleared(link) != base || points.iter().any(|(p, _)| *p == v) {
                    break;
                }
                points.push((v, link.name.clone()));
            }
            if points.len() >= 3 && best.as_ref().is_none_or(|b| points.len() > b.points.len()) {
                best = Some(Sweep { key, points });
            }
        }
        match best {
            Some(sweep) => {
                i += sweep.points.len();
                out.push(sweep);
            }
            None => i += 1,
        }
    }
    out
}

/// The first-visit rows of `site` on each point of `sweep`, for `mode`: the page-complete
/// median per point, `None` where the mode did not run there.
pub fn curve(rows: &[ReplayRow], sweep: &Sweep, site: &str, mode: Mode) -> Vec<Option<f64>> {
    sweep
        .points
        .iter()
        .map(|(_, link)| {
            rows.iter()
                .find(|r| {
                    r.link.name == *link
                        && r.site == site
                        && r.mode == mode
                        && r.test == Test::First
                })
                .map(ReplayRow::shown_complete_ms)
        })
        .collect()
}

/// The modes of `rows` on the points of `sweep`, in row order.
pub fn modes(rows: &[ReplayRow], sweep: &Sweep) -> Vec<Mode> {
    let mut out: Vec<Mode> = Vec::new();
    for r in rows {
        if sweep.points.iter().any(|(_, l)| *l == r.link.name) && !out.contains(&r.mode) {
            out.push(r.mode);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::row::{sample_row, RowLink};
    use crate::sim::link::spec;

    fn rows_over(links: &[crate::sim::link::Link]) -> Vec<ReplayRow> {
        let mut rows = Vec::new();
        for (i, link) in links.iter().enumerate() {
            for mode in ["http10", "pipelined"] {
                let mut r = sample_row("original", mode, "first", 100, 1000);
                r.link = RowLink::new(link, vec![1]);
                r.time.complete_ms = crate::replay::Spread::of([100.0 * (i + 1) as f64]);
                rows.push(r);
            }
        }
        rows
    }

    #[test]
    fn an_rtt_sweep_and_a_loss_sweep_are_found_again_from_the_rows() {
        // Over 20–200 ms the default queue grows with the RTT: still one sweep.
        let mut links = spec::sweep("spdy-cable", "rtt=20,80,200").unwrap();
        links.extend(spec::sweep("spdy-cable", "loss=0,1,2.5").unwrap());
        let rows = rows_over(&links);
        let found = sweeps(&rows);
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0].key, SweepKey::Rtt);
        let values: Vec<f64> = found[0].points.iter().map(|p| p.0).collect();
        assert_eq!(values, [20.0, 80.0, 200.0]);
        assert_eq!(found[1].key, SweepKey::Loss);
        let values: Vec<f64> = found[1].points.iter().map(|p| p.0).collect();
        assert_eq!(values, [0.0, 1.0, 2.5]);
        assert_eq!(found[1].title(), "spdy-cable, loss 0–2.5%");
        assert_eq!(
            curve(
                &rows,
                &found[0],
                "original",
                Mode::named("pipelined").unwrap()
            ),
            [Some(100.0), Some(200.0), Some(300.0)]
        );
    }

    #[test]
    fn different_links_side_by_side_are_not_a_sweep() {
        let links = spec::parse("lan-1997,wan-1997,ppp-1997").unwrap();
        assert!(sweeps(&rows_over(&links)).is_empty());
        // Two points are a comparison, not a curve.
        let two = spec::sweep("Cable", "rtt=20,40").unwrap();
        assert!(sweeps(&rows_over(&two)).is_empty());
    }
}
