//! The report: what a run did and measured, as plain serde data. `report.json` is this struct;
//! every stage adds its own part.

use std::collections::BTreeMap;
use std::ops::AddAssign;

use serde::{Deserialize, Serialize};

use crate::deflate::Estimate;
use crate::error::Problem;
use crate::image::{Effort, Outcome};
use crate::inventory::{BrokenReference, Inventory, TypeStats};
use crate::replay::ReplayRow;

/// The version of the `report.json` layout; bumped whenever a key changes meaning or goes away.
pub const SCHEMA_VERSION: u32 = 2;

/// Everything `report.json` holds (documented field by field in `docs/report-schema.md`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Report {
    /// [`SCHEMA_VERSION`] of the writer.
    pub schema_version: u32,
    pub tool: Tool,
    pub site: SiteInfo,
    /// What the original site is made of (`analyze`).
    pub inventory: Option<InventorySummary>,
    /// One row per GIF of the site, by path.
    pub images: Vec<ImageRow>,
    pub images_total: ImagesTotal,
    /// What the rewrite wrote.
    pub rewrite: RewriteSummary,
    /// Presentational markup → CSS; `null` when that stage did not run.
    pub markup: Option<crate::rewrite::markup::MarkupReport>,
    /// The site's own PNGs, JPEGs and style sheets optimised losslessly, SVGs counted; `null`
    /// when the rewrite did not run (or in reports written before it existed).
    #[serde(default)]
    pub lossless: Option<crate::rewrite::lossless::LosslessReport>,
    /// Deflate estimates of the text resources, original and rewritten.
    pub compression: Option<CompressionReport>,
    /// Replay rows: site × mode × test, medians over the runs.
    pub replay: Vec<ReplayRow>,
    /// How the replay segmented traffic (private namespace, or MSS clamping on the host).
    pub replay_method: Option<String>,
    /// Every link the replay was asked for: how it ran, or exactly what was missing.
    #[serde(default)]
    pub replay_links: Vec<crate::replay::LinkRun>,
    /// Chromium's visits over the emulated links (`--client chromium`): per site, link, mode
    /// and test, the browser's metrics, packets and bytes on the link, and its waterfall.
    #[serde(default)]
    pub browser: Vec<crate::replay::BrowserRow>,
    /// Why Chromium's visits were not made although asked for (the install hint); the
    /// command then exits with code 2 after writing its reports.
    #[serde(default)]
    pub browser_unavailable: Option<String>,
    /// What TLS cost: each mode over TLS against the same mode in cleartext (`report::tls`).
    #[serde(default)]
    pub tls_cost: Vec<super::tls::TlsCost>,
    /// Header bytes of HTTP/1.1 against HTTP/2 with HPACK, per header set
    /// (`report::headers`).
    #[serde(default)]
    pub header_cost: Vec<super::headers::HeaderCost>,
    /// Budgets checked and whether each held.
    pub budgets: Vec<BudgetResult>,
    /// What the rewrite saved and what it only reports, ranked (`report::opportunities`).
    #[serde(default)]
    pub opportunities: Vec<super::opportunities::Opportunity>,
    /// Trouble met on the way (one bad file never stops the run).
    pub problems: Vec<Problem>,
    /// Wall-clock milliseconds per stage. Timings (here, in `images` and in `replay`) and the
    /// ACK-dependent packet counts are what may differ between two runs on the same input.
    pub timings_ms: BTreeMap<String, f64>,
}

impl Report {
    /// An empty report about the site at `path`.
    pub fn new(path: &std::path::Path) -> Self {
        Report {
            schema_version: SCHEMA_VERSION,
            site: SiteInfo {
                path: path.display().to_string(),
                name: crate::site::site_name(path),
                rewritten: None,
            },
            ..Report::default()
        }
    }

    /// Takes in what the rewrite stage did, with the problems met before it.
    pub fn add_rewrite(&mut self, done: crate::rewrite::Rewrite, inventory: &Inventory) {
        self.site.rewritten = Some(done.out_site.display().to_string());
        self.images = done.images;
        self.images_total = done.images_total;
        self.rewrite = RewriteSummary {
            dry_run: false,
            documents_changed: done.documents_changed,
            documents_copied: done.documents_copied,
            broken_by_rewrite: done.broken_by_rewrite,
            precompressed: done.precompressed,
        };
        self.markup = done.markup;
        self.lossless = Some(done.lossless);
        self.problems.extend(inventory.problems.iter().cloned());
        self.problems.extend(done.problems);
        self.problems.sort();
        self.problems.dedup();
    }
}

/// Which program wrote the report.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Tool {
    pub name: String,
    pub version: String,
}

impl Default for Tool {
    fn default() -> Self {
        Tool {
            name: env!("CARGO_PKG_NAME").to_string(),
            version: env!("CARGO_PKG_VERSION").to_string(),
        }
    }
}

/// The site the report is about.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct SiteInfo {
    /// The input directory as given.
    pub path: String,
    /// Its directory name (`out/<name>/` is the default output).
    pub name: String,
    /// The rewritten copy (`DIR/site`), when one was written.
    pub rewritten: Option<String>,
}

/// The inventory without the per-document reference lists (`analyze --json` has those).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct InventorySummary {
    pub pages: usize,
    pub resources: usize,
    pub bytes: u64,
    pub by_type: BTreeMap<String, TypeStats>,
    pub references: usize,
    pub broken_references: Vec<BrokenReference>,
    pub orphans: Vec<String>,
    pub external_links: usize,
}

impl From<&Inventory> for InventorySummary {
    fn from(inv: &Inventory) -> Self {
        InventorySummary {
            pages: inv.pages,
            resources: inv.resources,
            bytes: inv.bytes,
            by_type: inv
                .by_type
                .iter()
                .map(|(k, v)| (k.to_string(), *v))
                .collect(),
            references: inv.references,
            broken_references: inv.broken_references.clone(),
            orphans: inv.orphans.clone(),
            external_links: inv.external_links.len(),
        }
    }
}

/// What the rewrite stage wrote.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct RewriteSummary {
    /// `--dry-run`: everything was measured in a scratch directory and nothing was kept.
    pub dry_run: bool,
    /// Pages and style sheets edited / copied byte for byte.
    pub documents_changed: usize,
    pub documents_copied: usize,
    /// References that resolved in the original and do not in the result (should be empty).
    pub broken_by_rewrite: Vec<BrokenReference>,
    /// `.gz`, `.br` and `.zst` files written next to text files (`--precompress`), by site
    /// path.
    pub precompressed: Vec<String>,
}

/// Deflate estimates for the original and the rewritten site.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct CompressionReport {
    /// The "worth compressing" rule, in words.
    pub rule: String,
    pub original: Estimate,
    pub rewritten: Option<Estimate>,
}

/// One budget: what was allowed, what was measured, whether it held.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BudgetResult {
    /// `max-first-visit-bytes`, `max-packets(pipelined, first)`, …
    pub name: String,
    pub limit: f64,
    /// What was measured; `null` when it could not be (e.g. the replay was skipped).
    pub actual: Option<f64>,
    pub passed: bool,
    /// Why `actual` is `null`: what was skipped or missing.
    #[serde(default)]
    pub unmeasured: Option<String>,
}

/// What happened to one GIF.
#[derive(Debug, Clone, Serialize, Deserialize)]
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
    /// Size of the verified WebP that was made, when one was (`--image-format webp|best`),
    /// also when it was not used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webp_bytes: Option<u64>,
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
    /// CPU time of the same work (its thread's user + system time), in milliseconds.
    #[serde(default)]
    pub cpu_millis: f64,
    /// The `--effort` level the image was converted at.
    #[serde(default)]
    pub effort: Effort,
    /// The format pages now get: `png`, `apng`, `webp` (still or animated), or `gif` when the
    /// GIF was kept.
    #[serde(default)]
    pub format: ImageFormat,
}

impl ImageRow {
    /// Whether a conversion of this GIF failed its pixel check: the one made
    /// (`kept:verify-failed`), or, with `--image-format best`, either candidate, also when
    /// the other one won (`converted(png -1234 B; webp not verified: …)`).
    pub fn failed_a_check(&self) -> bool {
        self.outcome == crate::image::Outcome::VerifyFailed
            || self.reason.contains(" not verified: ")
    }
}

/// The format an image is served in after the rewrite.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ImageFormat {
    #[default]
    Gif,
    Png,
    Apng,
    Webp,
}

impl ImageFormat {
    /// The file name extension of the format.
    pub fn extension(self) -> &'static str {
        match self {
            ImageFormat::Gif => "gif",
            ImageFormat::Png | ImageFormat::Apng => "png",
            ImageFormat::Webp => "webp",
        }
    }
}

impl std::fmt::Display for ImageFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ImageFormat::Gif => "gif",
            ImageFormat::Png => "png",
            ImageFormat::Apng => "apng",
            ImageFormat::Webp => "webp",
        })
    }
}

/// Totals over [`ImageRow`]s.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
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
    /// Sum of per-image CPU times, milliseconds: what the bytes saved cost.
    #[serde(default)]
    pub cpu_millis: f64,
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
        self.cpu_millis += row.cpu_millis;
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
