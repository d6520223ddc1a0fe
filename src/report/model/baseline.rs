//! The gate for "this change made the site heavier": the first visit to the rewritten site
//! against the same visit in an earlier report (`--baseline OLD/report.json`), per page, with
//! an allowance per figure (`--max-regression bytes=0.5%,requests=0,packets=0,time=10%`).
//! Bytes, requests and packets by the paper's rules are the same on every run, so a zero
//! allowance is not flaky for them; a measured time varies between runs and needs one.

use std::collections::BTreeMap;

use super::figures;
use super::report::{BudgetLevel, BudgetResult, Report};
use super::savings;
use crate::replay::{Mode, Test};

/// How much worse a figure may get: an absolute amount, or a percentage of the baseline.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Allow {
    Absolute(f64),
    Percent(f64),
}

impl Allow {
    /// The most a figure may be, given its baseline.
    fn ceiling(self, base: f64) -> f64 {
        match self {
            Allow::Absolute(a) => base + a,
            Allow::Percent(p) => base * (1.0 + p / 100.0),
        }
    }

    fn text(self) -> String {
        match self {
            Allow::Absolute(a) => format!("+{a}"),
            Allow::Percent(p) => format!("+{p}%"),
        }
    }
}

/// The figures a baseline gates, and what each may lose. A figure not named is not gated;
/// with no `--max-regression` at all, bytes, requests and packets are gated at 0.
#[derive(Debug, Clone, PartialEq)]
pub struct Allowance(pub BTreeMap<Figure, Allow>);

/// A figure the baseline gate compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Figure {
    Bytes,
    Requests,
    Packets,
    /// The first visit's time on the first named link that both reports have.
    Time,
}

impl Figure {
    pub const ALL: [Figure; 4] = [
        Figure::Bytes,
        Figure::Requests,
        Figure::Packets,
        Figure::Time,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Figure::Bytes => "bytes",
            Figure::Requests => "requests",
            Figure::Packets => "packets",
            Figure::Time => "time",
        }
    }

    fn unit(self) -> &'static str {
        match self {
            Figure::Time => "ms",
            other => other.as_str(),
        }
    }
}

impl Default for Allowance {
    fn default() -> Self {
        Allowance(
            [Figure::Bytes, Figure::Requests, Figure::Packets]
                .into_iter()
                .map(|f| (f, Allow::Absolute(0.0)))
                .collect(),
        )
    }
}

impl std::str::FromStr for Allowance {
    type Err = String;

    /// `bytes=0.5%,requests=0,packets=2,time=10%`.
    fn from_str(spec: &str) -> Result<Self, String> {
        let mut out = BTreeMap::new();
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let bad = || {
                format!(
                    "{part}: expected FIGURE=N or FIGURE=N% with FIGURE one of bytes, \
                     requests, packets, time (e.g. bytes=0.5%,packets=0)"
                )
            };
            let (key, value) = part.split_once('=').ok_or_else(bad)?;
            let figure = Figure::ALL
                .into_iter()
                .find(|f| f.as_str() == key.trim())
                .ok_or_else(bad)?;
            let value = value.trim();
            let allow = match value.strip_suffix('%') {
                Some(p) => Allow::Percent(p.trim().parse().map_err(|_| bad())?),
                None => Allow::Absolute(value.parse().map_err(|_| bad())?),
            };
            if matches!(allow, Allow::Absolute(v) | Allow::Percent(v) if !(v >= 0.0 && v.is_finite()))
            {
                return Err(bad());
            }
            out.insert(figure, allow);
        }
        if out.is_empty() {
            return Err("--max-regression: name at least one figure (bytes=0.5%,packets=0)".into());
        }
        Ok(Allowance(out))
    }
}

/// An earlier report to compare with.
#[derive(Debug, Clone)]
pub struct Baseline {
    pub report: Report,
    /// Where it was read from, for the results' `source`.
    pub source: String,
    pub allowance: Allowance,
}

/// One result per gated figure and page of this report's first visit in `mode`.
pub fn check(baseline: &Baseline, report: &Report, mode: Mode) -> Vec<BudgetResult> {
    let now = first_visits(report, mode);
    let before = first_visits(&baseline.report, mode);
    let mut out = Vec::new();
    for (page, row) in &now {
        for (&figure, &allow) in &baseline.allowance.0 {
            let base_row = before.get(page);
            let (base, actual, link) = match figure {
                Figure::Time => {
                    let link = figures::emulated_links(report)
                        .into_iter()
                        .find(|l| figures::emulated_links(&baseline.report).contains(l));
                    let time = |r: &Report| {
                        link.and_then(|l| savings::link_time(r, l, mode))
                            .map(|t| t.rewritten_ms.median)
                    };
                    (
                        time(&baseline.report),
                        time(report),
                        link.map(str::to_string),
                    )
                }
                _ => (
                    base_row.map(|r| value(figure, r)),
                    Some(value(figure, row)),
                    None,
                ),
            };
            let unmeasured = match (base, actual) {
                (Some(_), Some(_)) => None,
                (None, _) if base_row.is_none() => Some(format!(
                    "the baseline has no first visit of {page} in {mode}"
                )),
                _ => Some(
                    "no named link with a time in both reports (the time needs the same \
                     emulated link in both)"
                        .to_string(),
                ),
            };
            let limit = base.map_or(0.0, |b| allow.ceiling(b));
            let actual = actual.filter(|_| unmeasured.is_none());
            out.push(BudgetResult {
                name: format!(
                    "no regression: {} ({mode}, {page}{}) against the baseline, {} allowed",
                    figure.as_str(),
                    link.as_ref()
                        .map(|l| format!(", on {l}"))
                        .unwrap_or_default(),
                    allow.text()
                ),
                limit,
                actual,
                passed: actual.is_some_and(|a| a <= limit),
                unmeasured,
                level: BudgetLevel::Error,
                metric: format!("regression:{}", figure.as_str()),
                operator: "<=".into(),
                unit: figure.unit().into(),
                page: Some(page.clone()),
                link,
                source: baseline.source.clone(),
            });
        }
    }
    out
}

/// The rewritten site's first visit per page in `mode` (loopback's row when it ran).
fn first_visits(report: &Report, mode: Mode) -> BTreeMap<String, &crate::replay::ReplayRow> {
    let mut out = BTreeMap::new();
    for r in &report.replay {
        if r.site == "rewritten" && r.mode == mode && r.test == Test::First {
            out.entry(r.page.clone()).or_insert(r);
        }
    }
    out
}

fn value(figure: Figure, r: &crate::replay::ReplayRow) -> f64 {
    match figure {
        Figure::Bytes => r.bytes() as f64,
        Figure::Requests => r.requests as f64,
        Figure::Packets => r.packets as f64,
        Figure::Time => r.time.last_packet_ms.median,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::row::sample_row;

    fn report(bytes: u64, packets: u64) -> Report {
        Report {
            replay: vec![sample_row(
                "rewritten",
                "pipelined",
                "first",
                packets,
                bytes,
            )],
            ..Report::default()
        }
    }

    fn baseline(spec: &str) -> Baseline {
        Baseline {
            report: report(10_000, 100),
            source: "old/report.json".into(),
            allowance: spec.parse().unwrap(),
        }
    }

    #[test]
    fn the_same_site_passes_and_a_heavier_one_fails_per_figure() {
        let b = baseline("bytes=1%,packets=0");
        let same = check(&b, &report(10_000, 100), Mode::reference());
        assert_eq!(same.len(), 2);
        assert!(same.iter().all(|r| r.passed), "{same:?}");
        let heavier = check(&b, &report(10_101, 101), Mode::reference());
        let failed: Vec<&str> = heavier
            .iter()
            .filter(|r| !r.passed)
            .map(|r| r.metric.as_str())
            .collect();
        assert_eq!(failed, ["regression:bytes", "regression:packets"]);
        let within = check(&b, &report(10_100, 100), Mode::reference());
        assert!(within.iter().all(|r| r.passed), "1% of 10,000 is 100 bytes");
        assert_eq!(within[0].limit, 10_100.0);
        assert_eq!(within[0].page.as_deref(), Some("index.html"));
    }

    #[test]
    fn a_page_the_baseline_lacks_is_not_measured_and_fails() {
        let b = baseline("bytes=0");
        let mut now = report(10_000, 100);
        now.replay[0].page = "other.html".into();
        let r = check(&b, &now, Mode::reference()).remove(0);
        assert!(!r.passed);
        assert!(r
            .unmeasured
            .unwrap()
            .contains("no first visit of other.html"));
    }

    #[test]
    fn allowances_parse_absolute_and_relative_and_refuse_the_rest() {
        let a: Allowance = "bytes=0.5%, packets=0 ,time=50".parse().unwrap();
        assert_eq!(a.0[&Figure::Bytes], Allow::Percent(0.5));
        assert_eq!(a.0[&Figure::Packets], Allow::Absolute(0.0));
        assert_eq!(a.0[&Figure::Time], Allow::Absolute(50.0));
        for bad in ["weight=1", "bytes", "bytes=-1", "bytes=x%", ""] {
            assert!(bad.parse::<Allowance>().is_err(), "{bad}");
        }
        assert_eq!(
            Allowance::default().0.len(),
            3,
            "time is not gated by default"
        );
    }
}
