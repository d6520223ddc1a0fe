//! The report: what a run did and measured, as plain serde data. `report.json` is this struct;
//! every stage adds its own part, and [`Report::finish`] (in `finish.rs`) derives the rest
//! once. The types of the derived parts are here too, so that this file is the whole schema
//! (`docs/report-schema.md` documents it field by field); the code that derives them is in the
//! sibling files.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::headers::HeaderCost;
use super::images::{ImageRow, ImagesTotal};
use super::tls::TlsCost;
use crate::deflate::Estimate;
use crate::error::Problem;
use crate::inventory::{BrokenReference, Inventory, TypeStats};
use crate::replay::{Mode, ReplayRow, Spread};

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
    /// The site's own PNGs, JPEGs, style sheets and scripts optimised losslessly, SVGs
    /// counted; `null` when the rewrite did not run (or in reports written before it existed).
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
    pub tls_cost: Vec<TlsCost>,
    /// Header bytes of HTTP/1.1 against HTTP/2 with HPACK, per header set
    /// (`report::headers`).
    #[serde(default)]
    pub header_cost: Vec<HeaderCost>,
    /// Budgets checked and whether each held: `webdiet.toml` and the flags, a `--budgets`
    /// file, a `--baseline` report.
    pub budgets: Vec<BudgetResult>,
    /// What the rewrite saves a visitor: the first visit's bytes, requests and packets, and
    /// its time on every named link (`model::savings`). `null` without a replay.
    #[serde(default)]
    pub visitor_savings: Option<VisitorSavings>,
    /// What a visitor sees: every page of both versions loaded by the simulated browser over
    /// every named link and Lighthouse's mobile profile, to its first and largest contentful
    /// paint (`sim::paint`, docs/simulation.md "The visitor"). The headline. `null`
    /// without a replay.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visitor: Option<crate::sim::paint::site::SitePaint>,
    /// How far the simulated browser is from Chromium's loads over the link, per link and
    /// metric, where Chromium measured (`--client chromium`; `replay::chromium::validate`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub visitor_error: Vec<crate::replay::chromium::validate::PaintError>,
    /// What the rewrite saved and what it only reports, ranked (`model::opportunities`).
    #[serde(default)]
    pub opportunities: Vec<Opportunity>,
    /// What a first visit to each site version fetched, by resource type (the requests of the
    /// reference mode's replay, with the bodies the server sent): what `resourceSizes` and
    /// `resourceCounts` budgets read.
    #[serde(default)]
    pub resources: Vec<VisitResources>,
    /// Per-file findings, each with a stable rule and a location (`model::findings`): what
    /// SARIF, GitLab Code Quality and GitHub annotations carry.
    #[serde(default)]
    pub findings: Vec<Finding>,
    /// What the web archive the site was read from held, when it was one (docs/archives.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub archive: Option<crate::archive::ArchiveReport>,
    /// Trouble met on the way (one bad file never stops the run).
    pub problems: Vec<Problem>,
    /// The machine's load while time was measured over emulated links (`audit --measure`),
    /// and whether it was too busy for those times to mean much; `null` when nothing was
    /// measured over an emulated link.
    #[serde(default)]
    pub measured_load: Option<crate::replay::load::Load>,
    /// How far the simulated times are from the measured ones, per link measured
    /// (`audit --measure`): docs/simulation.md.
    #[serde(default)]
    pub simulation_error: Vec<crate::replay::simulated::Validation>,
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

/// How much a budget that does not hold matters, as in Lighthouse CI's assertions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BudgetLevel {
    /// Fails the run (exit code 1).
    #[default]
    Error,
    /// Reported, and the run still succeeds.
    Warn,
}

impl BudgetLevel {
    pub fn as_str(self) -> &'static str {
        match self {
            BudgetLevel::Error => "error",
            BudgetLevel::Warn => "warn",
        }
    }
}

/// One budget: what was allowed, what was measured, whether it held.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BudgetResult {
    /// `max-first-visit-bytes (pipelined)`, `resource-summary:image:size (/index.html)`, …
    pub name: String,
    pub limit: f64,
    /// What was measured; `null` when it could not be (e.g. the replay was skipped).
    pub actual: Option<f64>,
    pub passed: bool,
    /// Why `actual` is `null`: what was skipped or missing.
    #[serde(default)]
    pub unmeasured: Option<String>,
    /// `error` fails the run, `warn` only reports.
    #[serde(default)]
    pub level: BudgetLevel,
    /// What is measured, as a stable id: `bytes`, `requests`, `packets`, `time`,
    /// `saving-percent`, `verify-failures`, `size:TYPE`, `count:TYPE`, `regression:bytes`, …
    #[serde(default)]
    pub metric: String,
    /// `<=` (a limit) or `>=` (a minimum).
    #[serde(default)]
    pub operator: String,
    /// `bytes`, `requests`, `packets`, `ms`, `%`, `count`.
    #[serde(default)]
    pub unit: String,
    /// The page whose visit it reads, as a site path; `null` for the site as a whole.
    #[serde(default)]
    pub page: Option<String>,
    /// The named link whose time it reads; `null` for bytes, requests and packets.
    #[serde(default)]
    pub link: Option<String>,
    /// Where it was set: `webdiet.toml`, `flags`, the `--budgets` file, or the `--baseline`
    /// report.
    #[serde(default)]
    pub source: String,
}

impl BudgetResult {
    /// Whether this result fails the run: it did not hold and its level is `error`.
    pub fn fails_run(&self) -> bool {
        !self.passed && self.level == BudgetLevel::Error
    }
}

/// Bytes, requests and packets of one visit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Visit {
    /// Payload bytes both ways.
    pub bytes: u64,
    pub requests: u64,
    /// Packets by the paper's rules (deterministic).
    pub packets: u64,
}

impl From<&ReplayRow> for Visit {
    fn from(r: &ReplayRow) -> Self {
        Visit {
            bytes: r.bytes(),
            requests: r.requests,
            packets: r.packets,
        }
    }
}

/// Where a time figure comes from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TimeSource {
    /// Replayed over the emulated link, a median over the runs (it varies between runs).
    #[default]
    Measured,
    /// Computed by the simulator from the loopback replay (the same on every run).
    Simulated,
}

impl TimeSource {
    pub fn as_str(self) -> &'static str {
        match self {
            TimeSource::Measured => "measured",
            TimeSource::Simulated => "simulated",
        }
    }
}

/// A first visit's time on one named link, original → rewritten: the one figure of time per
/// link that every renderer, budget and opportunity reads (`model::savings::link_time`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinkTime {
    /// The link's name (`Cable`, `3G`, a custom link).
    pub link: String,
    /// The mode the visit was made in.
    pub mode: Mode,
    pub source: TimeSource,
    /// The paper's time (first SYN to the last counted packet), over the runs.
    pub original_ms: Spread,
    pub rewritten_ms: Spread,
    /// Runs that gave up waiting, over both site versions (they count at the time they were
    /// abandoned).
    #[serde(default)]
    pub timed_out_runs: usize,
}

impl LinkTime {
    /// Milliseconds the rewrite saves (negative: costs), median against median.
    pub fn saved_ms(&self) -> f64 {
        self.original_ms.median - self.rewritten_ms.median
    }

    /// Whether the difference is a result rather than noise: always for a simulated time,
    /// for a measured one when the ranges over the runs do not overlap.
    pub fn resolved(&self) -> bool {
        match self.source {
            TimeSource::Simulated => true,
            TimeSource::Measured => !self.original_ms.overlaps(&self.rewritten_ms),
        }
    }
}

/// What the rewrite saves a visitor: the first visit before and after, and its time on each
/// named link.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VisitorSavings {
    /// The mode of the figures (the first replayed mode of the headline order).
    pub mode: Mode,
    /// The page visited.
    pub page: String,
    pub original: Visit,
    pub rewritten: Visit,
    /// The first visit's time on every named (emulated) link, in the order they ran.
    pub links: Vec<LinkTime>,
}

/// One opportunity: something the rewrite did, or something a person should do, with what it
/// saves a first visit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Opportunity {
    /// Stable name: `gif-to-png`, `markup-to-css`, `enable-deflate`, `images-of-text`,
    /// `markup-left`, `oversized`, `recompress-png`, `recompress-jpeg`, `minify-css`,
    /// `minify-js`, `minify-html`, `serve-brotli`.
    pub id: String,
    /// What it is, for a person.
    pub title: String,
    /// `done` (the rewrite did it) or `reported` (a person must do it).
    pub status: String,
    /// What was done, or what to do.
    #[serde(default)]
    pub action: String,
    /// Bytes a first visit saves (negative: costs); `null` when not estimated.
    pub bytes: Option<i64>,
    /// Requests a first visit saves; `null` when not estimated.
    pub requests: Option<i64>,
    /// Packets a first visit saves, by the replay's model; `null` when not estimated.
    pub packets: Option<i64>,
    /// Milliseconds a first visit saves on `time_link`; `null` when not estimated.
    #[serde(default)]
    pub time_ms: Option<f64>,
    /// The first named link, where the time is given.
    #[serde(default)]
    pub time_link: Option<String>,
    /// How the time was found: measured by the replay, or estimated from the link's rates.
    #[serde(default)]
    pub time_basis: Option<String>,
    /// Where the figures come from.
    pub basis: String,
    /// The files concerned (site paths of the rewritten site, or of the original for GIFs).
    pub files: Vec<String>,
    /// The report section that holds the evidence: an anchor in `report.html` and
    /// `report.md` (`images`, `presentational-markup`, `compression`, …).
    #[serde(default)]
    pub evidence: String,
}

/// Requests and bytes of one resource type in a visit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceTotal {
    pub requests: u64,
    /// The bodies as sent, and the visit's response header bytes shared out evenly over its
    /// responses.
    pub bytes: u64,
}

/// What one first visit fetched, by resource type.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct VisitResources {
    /// `original` or `rewritten`.
    pub site: String,
    /// The page visited.
    pub page: String,
    /// Lighthouse's resource types (`document`, `script`, `stylesheet`, `image`, `media`,
    /// `font`, `other`) → requests and bytes.
    pub by_type: BTreeMap<String, ResourceTotal>,
}

/// How much a finding matters, in SARIF's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FindingLevel {
    /// Something is broken.
    Error,
    /// Something costs a visitor bytes or requests, and a person should act.
    Warning,
    /// Done by the rewrite, or worth knowing.
    Note,
}

impl FindingLevel {
    pub fn as_str(self) -> &'static str {
        match self {
            FindingLevel::Error => "error",
            FindingLevel::Warning => "warning",
            FindingLevel::Note => "note",
        }
    }
}

/// One per-file finding.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// A stable rule id (`webdiet/broken-reference`, …; `model::findings::RULES`).
    pub rule: String,
    pub level: FindingLevel,
    /// The file, as a path of the original site.
    pub path: String,
    /// The line in that file, where known (1 is the first).
    pub line: Option<u32>,
    /// What it is and what to do, for a person.
    pub message: String,
    /// Bytes a first visit saves once it is dealt with, where known.
    pub bytes: Option<i64>,
    /// Stable across runs for the same rule, file and subject: lets code scanning and GitLab
    /// tell a new finding from an old one.
    pub fingerprint: String,
}
