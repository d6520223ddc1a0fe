//! `DIR/units/DIGEST.json`: one unit's outcome. A done unit carries its whole audit report and
//! the row `merge` adds up; a failed one its reason. Only a done record counts as complete.

use serde::{Deserialize, Serialize};

use crate::report::Report;

/// Done or failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UnitStatus {
    Done,
    Failed,
}

/// One unit's file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct UnitRecord {
    pub schema_version: u32,
    /// Always `webdiet-unit`.
    pub kind: String,
    pub digest: String,
    /// The list's line.
    pub unit: String,
    /// Settings fingerprint of the batch.
    pub fingerprint: String,
    pub status: UnitStatus,
    /// A done unit's figures.
    pub row: Option<SiteRow>,
    /// Why a failed unit failed.
    pub error: Option<String>,
    /// A done unit's whole audit report (as `audit --dry-run` writes it).
    pub report: Option<Box<Report>>,
}

pub const UNIT_KIND: &str = "webdiet-unit";

/// Bytes, requests and packets of one first visit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct VisitFigures {
    pub bytes: u64,
    pub requests: u64,
    pub packets: u64,
}

/// The first visit before and after the rewrite, on loopback.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VisitPair {
    pub mode: crate::replay::Mode,
    pub before: VisitFigures,
    pub after: VisitFigures,
}

/// The paper's time of the first visit (median over the runs) over the sample's link.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinkTime {
    pub link: String,
    pub before_ms: f64,
    pub after_ms: f64,
}

/// What `merge` needs of one site: plain figures, kept raw in the collection for any later
/// quantile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SiteRow {
    pub unit: String,
    pub name: String,
    pub pages: u64,
    /// Pages and resources.
    pub files: u64,
    /// Bytes of the site's files.
    pub bytes: u64,
    /// What the rewrite saved: GIF bytes → what pages refer to now, plus markup → CSS.
    pub saved_bytes: i64,
    /// Raw text bytes minus their deflate level-6 size, after the rewrite.
    pub deflate_saved_bytes: Option<i64>,
    /// The loopback replay's first visit; `null` with `--no-replay`.
    pub visit: Option<VisitPair>,
    /// Only for a unit of the seeded sample: its time over the sample's link. A timing field.
    pub link_time: Option<LinkTime>,
    pub problems: u64,
    /// Wall-clock seconds the unit took. A timing field.
    pub seconds: f64,
}

impl SiteRow {
    /// The row of a unit's report. `sample_link` names the link whose time the row keeps.
    pub fn of(unit: &str, report: &Report, sample_link: Option<&str>, seconds: f64) -> Self {
        let savings = crate::report::model::figures::savings(report);
        let inventory = report.inventory.as_ref();
        let visit = crate::report::model::figures::headline(report).map(|h| VisitPair {
            mode: h.mode,
            before: figures(h.before),
            after: figures(h.after),
        });
        // The one place that knows a link's time (measured today, simulated once it runs).
        let link_time = sample_link.and_then(|link| {
            let t = crate::report::model::savings::link_time(report, link, visit.as_ref()?.mode)?;
            Some(LinkTime {
                link: link.to_string(),
                before_ms: t.original_ms.median,
                after_ms: t.rewritten_ms.median,
            })
        });
        SiteRow {
            unit: unit.to_string(),
            name: report.site.name.clone(),
            pages: inventory.map_or(0, |i| i.pages as u64),
            files: inventory.map_or(0, |i| (i.pages + i.resources) as u64),
            bytes: inventory.map_or(0, |i| i.bytes),
            saved_bytes: savings.images + savings.markup.unwrap_or(0),
            deflate_saved_bytes: savings.deflate,
            visit,
            link_time,
            problems: report.problems.len() as u64,
            seconds,
        }
    }

    /// The row without its timing fields (what two runs of the same unit agree on).
    pub fn without_timings(&self) -> SiteRow {
        SiteRow {
            seconds: 0.0,
            link_time: self.link_time.as_ref().map(|t| LinkTime {
                link: t.link.clone(),
                before_ms: 0.0,
                after_ms: 0.0,
            }),
            ..self.clone()
        }
    }
}

fn figures(v: crate::report::model::Visit) -> VisitFigures {
    VisitFigures {
        bytes: v.bytes,
        requests: v.requests,
        packets: v.packets,
    }
}
