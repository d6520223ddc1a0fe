//! The report: what a run did and measured, as plain serde data. `report.json` is this struct;
//! every stage adds its own part (images now; markup, replay later).

use std::collections::BTreeMap;
use std::ops::AddAssign;

use serde::Serialize;

use crate::error::Problem;
use crate::image::Outcome;
use crate::inventory::BrokenReference;

/// Everything `report.json` holds.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Report {
    /// The input site directory.
    pub site: String,
    /// The rewritten copy (`DIR/site`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rewritten_site: Option<String>,
    /// One row per GIF of the site, by path.
    pub images: Vec<ImageRow>,
    pub images_total: ImagesTotal,
    /// Pages and style sheets: how many were edited, how many copied unchanged.
    pub documents_changed: usize,
    pub documents_copied: usize,
    /// References that resolved in the original and do not in the result (should be empty).
    pub broken_by_rewrite: Vec<BrokenReference>,
    /// Trouble met on the way (one bad file never stops the run).
    pub problems: Vec<Problem>,
}

/// What happened to one GIF.
#[derive(Debug, Clone, Serialize)]
pub struct ImageRow {
    /// Site-relative path of the GIF.
    pub path: String,
    pub from_bytes: u64,
    /// What pages now refer to: the PNG when converted, else the GIF itself.
    pub to_path: String,
    /// Size of `to_path`.
    pub to_bytes: u64,
    /// Size of the verified PNG that was made, when one was (also for `kept:png-larger`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub png_bytes: Option<u64>,
    /// GIF frames (0 when it could not be decoded or was not looked at).
    pub frames: usize,
    pub outcome: Outcome,
    /// The reason code with its detail: `converted(-1234 B)`, `kept:png-larger(+37 B)`.
    pub reason: String,
    /// Whether the GIF itself is also in the output: converted, but still named by something
    /// the rewrite did not change (a script string, an unparsed page), or `--keep-originals`.
    pub original_kept: bool,
    /// Time spent decoding, encoding, optimising and verifying, in milliseconds.
    pub millis: f64,
}

/// Totals over [`ImageRow`]s.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ImagesTotal {
    pub count: usize,
    /// Sum of `from_bytes`.
    pub from_bytes: u64,
    /// Sum of `to_bytes`.
    pub to_bytes: u64,
    /// Number of GIFs per outcome code.
    pub by_outcome: BTreeMap<Outcome, usize>,
    /// Sum of per-image times (CPU-ish), milliseconds.
    pub millis: f64,
    /// Wall-clock time of the whole image stage (images run in parallel), milliseconds.
    pub wall_millis: f64,
}

impl AddAssign<&ImageRow> for ImagesTotal {
    fn add_assign(&mut self, row: &ImageRow) {
        self.count += 1;
        self.from_bytes += row.from_bytes;
        self.to_bytes += row.to_bytes;
        *self.by_outcome.entry(row.outcome).or_default() += 1;
        self.millis += row.millis;
    }
}

impl ImagesTotal {
    pub fn of(rows: &[ImageRow]) -> Self {
        let mut total = ImagesTotal::default();
        for row in rows {
            total += row;
        }
        total
    }
}
