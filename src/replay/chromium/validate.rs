//! The simulated browser against the real one: where Chromium loaded a page over an emulated
//! link (`--client chromium`), its median first contentful paint, largest contentful paint
//! and `load` are set beside the simulated load of the same page, site version, link,
//! protocol and visit, and the error is reported per link and metric (mean absolute
//! percentage error, the worst row, and whether each saving has the sign Chromium measured).
//! Every report that measures shows it beside the simulated figures.

use serde::{Deserialize, Serialize};

use super::row::BrowserRow;
use crate::replay::protocol::Mode;
use crate::replay::robot::Test;
use crate::sim::paint::site::SitePaint;
use crate::sim::paint::{Paint, Speaks, Visit};

/// How far the simulated browser is from Chromium on one link, for one metric.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaintError {
    pub link: String,
    /// `fcp`, `lcp` or `load`.
    pub metric: String,
    /// Rows with both figures (site version × page × protocol × visit).
    pub rows: usize,
    /// Mean of |simulated − measured| / measured, in percent.
    pub mape_pct: f64,
    /// The row farthest off, and by how much (signed: simulated − measured, in percent).
    pub worst_pct: f64,
    pub worst_row: String,
    /// Savings (rewritten against original, same page, protocol and visit) whose sign the
    /// simulation gets right, of those Chromium measured beyond its runs' spread.
    pub signs_right: usize,
    pub signs: usize,
}

/// The speech and visit a Chromium row is simulated in; `None` for one the simulation does not
/// model (HTTP/1.1 over TLS).
fn simulated_as(mode: Mode, test: Test) -> Option<(Speaks, Visit)> {
    let speaks = match mode.as_str() {
        "persistent" => Speaks::Http1,
        "h2" => Speaks::H2,
        "h2-br" => Speaks::H2Brotli,
        _ => return None,
    };
    let visit = match test {
        Test::First => Visit::First,
        Test::Validate => Visit::Repeat,
    };
    Some((speaks, visit))
}

/// The simulated load of a Chromium row's page, if the visitor has it.
fn simulated<'a>(visitor: &'a SitePaint, row: &BrowserRow) -> Option<&'a Paint> {
    let (speaks, visit) = simulated_as(row.mode, row.test)?;
    let l = visitor.links.iter().find(|l| {
        l.link.eq_ignore_ascii_case(&row.link.name) && l.speaks == speaks && l.visit == visit
    })?;
    let p = l.pages.iter().find(|p| p.page == row.page)?;
    Some(match row.site.as_str() {
        "rewritten" => &p.rewritten,
        _ => &p.original,
    })
}

/// The error of every link and metric that has Chromium rows and simulated loads.
pub fn against(browser: &[BrowserRow], visitor: Option<&SitePaint>) -> Vec<PaintError> {
    let Some(visitor) = visitor else {
        return Vec::new();
    };
    type Metric = (
        &'static str,
        fn(&Paint) -> f64,
        fn(&BrowserRow) -> Option<f64>,
    );
    let metrics: [Metric; 3] = [
        ("fcp", |p| p.fcp_ms, |r| r.metrics.fcp_ms.map(|s| s.median)),
        ("lcp", |p| p.lcp_ms, |r| r.metrics.lcp_ms.map(|s| s.median)),
        (
            "load",
            |p| p.load_ms,
            |r| r.metrics.load_ms.map(|s| s.median),
        ),
    ];
    let mut links: Vec<&str> = browser.iter().map(|r| r.link.name.as_str()).collect();
    links.dedup();
    let mut out = Vec::new();
    for link in links {
        for (metric, sim, measured) in metrics {
            let pairs: Vec<(String, f64, f64)> = browser
                .iter()
                .filter(|r| r.link.name == link)
                .filter_map(|r| {
                    let m = measured(r).filter(|m| *m > 0.0)?;
                    let s = sim(simulated(visitor, r)?);
                    let name = format!(
                        "{} {} {} {}",
                        r.site,
                        r.page,
                        r.mode.as_str(),
                        r.test.as_str()
                    );
                    Some((name, s, m))
                })
                .collect();
            if pairs.is_empty() {
                continue;
            }
            let errs: Vec<f64> = pairs.iter().map(|(_, s, m)| 100.0 * (s - m) / m).collect();
            let mape = errs.iter().map(|e| e.abs()).sum::<f64>() / errs.len() as f64;
            let (worst_i, worst) = errs
                .iter()
                .enumerate()
                .max_by(|a, b| a.1.abs().total_cmp(&b.1.abs()))
                .map(|(i, e)| (i, *e))
                .unwrap_or_default();
            let (signs_right, signs) = signs(browser, visitor, link, measured, sim);
            out.push(PaintError {
                link: link.to_string(),
                metric: metric.to_string(),
                rows: pairs.len(),
                mape_pct: mape,
                worst_pct: worst,
                worst_row: pairs[worst_i].0.clone(),
                signs_right,
                signs,
            });
        }
    }
    out
}

/// Of the savings Chromium measured beyond its spread (the original's and the rewritten
/// site's runs do not overlap), how many the simulation gives the same sign.
fn signs(
    browser: &[BrowserRow],
    visitor: &SitePaint,
    link: &str,
    measured: fn(&BrowserRow) -> Option<f64>,
    sim: fn(&Paint) -> f64,
) -> (usize, usize) {
    let (mut right, mut all) = (0, 0);
    for o in browser
        .iter()
        .filter(|r| r.link.name == link && r.site == "original")
    {
        let Some(r) = browser.iter().find(|r| {
            r.link.name == link
                && r.site == "rewritten"
                && r.page == o.page
                && r.mode == o.mode
                && r.test == o.test
        }) else {
            continue;
        };
        let (Some(mo), Some(mr)) = (measured(o), measured(r)) else {
            continue;
        };
        let spread = |row: &BrowserRow| {
            [
                &row.metrics.fcp_ms,
                &row.metrics.lcp_ms,
                &row.metrics.load_ms,
            ]
            .into_iter()
            .flatten()
            .find(|s| measured(row) == Some(s.median))
            .copied()
        };
        let (Some(so), Some(sr)) = (spread(o), spread(r)) else {
            continue;
        };
        if so.overlaps(&sr) {
            continue;
        }
        let (Some(po), Some(pr)) = (simulated(visitor, o), simulated(visitor, r)) else {
            continue;
        };
        all += 1;
        if (mr - mo).signum() == (sim(pr) - sim(po)).signum() {
            right += 1;
        }
    }
    (right, all)
}
