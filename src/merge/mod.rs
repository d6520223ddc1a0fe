//! `webdiet merge`: the per-site records of `batch` (or earlier merges) into one
//! [`Collection`]. The merge is associative and commutative: a collection keeps every site's
//! raw row (by digest), and its [`Summary`] is a sum of per-site summaries (sums, counts,
//! minima, maxima, fixed-bin histograms), so merging in any grouping gives the same result
//! and no figure is a median of medians.

pub mod command;
mod estimate;
pub mod html;
pub mod markdown;
pub mod terminal;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};
use std::ops::AddAssign;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::batch::{Manifest, SampleSpec, Settings, SiteRow, UnitRecord, UnitStatus};
use crate::error::{Error, Result};
pub use estimate::{estimate, SampleEstimate};

/// `REPORT/collection.json`, `.md`, `.html`.
pub const COLLECTION_JSON: &str = "collection.json";
pub const COLLECTION_MD: &str = "collection.md";
pub const COLLECTION_HTML: &str = "collection.html";
pub const KIND: &str = "webdiet-collection";
pub const SCHEMA_VERSION: u32 = 1;

/// `webdiet merge`, validated.
#[derive(Debug, Clone)]
pub struct MergeConfig {
    pub dirs: Vec<PathBuf>,
    pub out: crate::output::OutputPaths,
    pub allow_partial: bool,
}

/// A failed unit: its line and why.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Failure {
    pub unit: String,
    pub reason: String,
}

/// Many sites' results. [`Collection::merge`] is associative and commutative, with
/// [`Collection::default`] as its identity.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Collection {
    /// Always [`KIND`] (empty only in the identity).
    pub kind: String,
    pub schema_version: u32,
    /// The batch's settings fingerprint: only collections of equal settings merge.
    pub fingerprint: String,
    pub settings: Settings,
    /// The seeded sample, with its seed.
    pub sample: Option<SampleSpec>,
    /// Every unit of the batch's list, by digest: its line.
    pub units: BTreeMap<String, String>,
    /// Digests of the sampled units.
    pub sampled: Vec<String>,
    /// Every done unit's raw row, by digest.
    pub rows: BTreeMap<String, SiteRow>,
    /// Failed units without a done row, by digest.
    pub failures: BTreeMap<String, Failure>,
    /// Units that ran more than once (a batch run twice, a shard rerun) with results that
    /// differ only in their timing fields: one row is kept ([`Collection::merge`]), and the
    /// reports say so.
    #[serde(default)]
    pub reruns: BTreeSet<String>,
    /// Derived from `rows` (recomputed by every merge).
    pub summary: Summary,
    /// The sample's estimate of the whole; derived from `rows`, `null` without a sample.
    pub sample_estimate: Option<SampleEstimate>,
}

impl Collection {
    /// Units of the list without a done row: `(digest, line, why)`, the reason when it failed.
    pub fn missing(&self) -> Vec<(&str, &str, Option<&str>)> {
        self.units
            .iter()
            .filter(|(d, _)| !self.rows.contains_key(*d))
            .map(|(d, unit)| {
                (
                    d.as_str(),
                    unit.as_str(),
                    self.failures.get(d).map(|f| f.reason.as_str()),
                )
            })
            .collect()
    }

    /// Both collections as one. Fails when their settings differ or one site has two
    /// different rows. Two rows of one unit (same digest: the same input and settings) that
    /// differ only in timing fields are two runs of it: the one that took less wall-clock
    /// time is kept (any fixed rule keeps the merge associative and commutative), and the unit
    /// is listed in [`Collection::reruns`].
    pub fn merge(mut self, other: Collection) -> Result<Collection> {
        if self.kind.is_empty() {
            return Ok(other.finished());
        }
        if other.kind.is_empty() {
            return Ok(self.finished());
        }
        if self.fingerprint != other.fingerprint || self.sample != other.sample {
            return Err(Error::Usage {
                message: format!(
                    "these results were made with other options (settings {} against {}); \
                     only the shards of one batch merge",
                    short(&self.fingerprint),
                    short(&other.fingerprint)
                ),
            });
        }
        self.units.extend(other.units);
        self.sampled.extend(other.sampled);
        self.sampled.sort();
        self.sampled.dedup();
        self.reruns.extend(other.reruns);
        for (digest, row) in other.rows {
            match self.rows.get(&digest) {
                Some(mine) if *mine != row && mine.without_timings() == row.without_timings() => {
                    let keep = match timing_order(mine, &row) {
                        std::cmp::Ordering::Greater => row,
                        _ => mine.clone(),
                    };
                    self.reruns.insert(digest.clone());
                    self.rows.insert(digest, keep);
                }
                Some(mine) if *mine != row => {
                    return Err(Error::Usage {
                        message: format!(
                            "unit {} has two different results, which differ in more than \
                             their timings; merge one",
                            row.unit
                        ),
                    })
                }
                _ => {
                    self.rows.insert(digest, row);
                }
            }
        }
        for (digest, failure) in other.failures {
            let keep = match self.failures.get(&digest) {
                Some(mine) => mine.clone().min(failure),
                None => failure,
            };
            self.failures.insert(digest, keep);
        }
        Ok(self.finished())
    }

    /// Recomputes the derived parts from the rows.
    fn finished(mut self) -> Collection {
        self.failures.retain(|d, _| !self.rows.contains_key(d));
        self.summary = Summary::default();
        for row in self.rows.values() {
            self.summary += &Summary::of(row);
        }
        self.sample_estimate = self.sample.as_ref().map(|_| estimate(&self));
        self
    }

    /// The collection without its timing fields: what two runs of the same batch agree on.
    pub fn without_timings(&self) -> Collection {
        let mut c = self.clone();
        for row in c.rows.values_mut() {
            *row = row.without_timings();
        }
        c.finished()
    }

    /// One batch output directory, as a collection.
    pub fn of_batch(dir: &Path) -> Result<Collection> {
        let manifest = Manifest::read(dir)?;
        let mut c = Collection {
            kind: KIND.into(),
            schema_version: SCHEMA_VERSION,
            fingerprint: manifest.fingerprint.clone(),
            settings: manifest.settings.clone(),
            sample: manifest.sample.clone(),
            ..Collection::default()
        };
        let units = dir.join(crate::batch::UNITS);
        for unit in &manifest.units {
            c.units.insert(unit.digest.clone(), unit.unit.clone());
            if unit.sampled {
                c.sampled.push(unit.digest.clone());
            }
            let path = units.join(format!("{}.json", unit.digest));
            let bytes = match std::fs::read(&path) {
                Ok(bytes) => bytes,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(Error::io(&path, e)),
            };
            let record: UnitRecord =
                serde_json::from_slice(&bytes).map_err(|e| Error::Invalid {
                    path: path.clone(),
                    message: format!("not a webdiet unit record: {e}"),
                })?;
            match (record.status, record.row) {
                (UnitStatus::Done, Some(row)) if record.digest == unit.digest => {
                    c.rows.insert(unit.digest.clone(), row);
                }
                _ => {
                    c.failures.insert(
                        unit.digest.clone(),
                        Failure {
                            unit: unit.unit.clone(),
                            reason: record.error.unwrap_or_else(|| "no result".into()),
                        },
                    );
                }
            }
        }
        c.sampled.sort();
        Ok(c.finished())
    }

    /// A directory `merge` reads: a batch's output, or an earlier merge's.
    pub fn read(dir: &Path) -> Result<Collection> {
        let json = dir.join(COLLECTION_JSON);
        if !json.exists() {
            return Collection::of_batch(dir);
        }
        let bytes = std::fs::read(&json).map_err(|e| Error::io(&json, e))?;
        let c: Collection = serde_json::from_slice(&bytes).map_err(|e| Error::Invalid {
            path: json.clone(),
            message: format!("not a webdiet collection.json: {e}"),
        })?;
        if c.kind != KIND || c.schema_version != SCHEMA_VERSION {
            return Err(Error::Invalid {
                path: json,
                message: format!("this webdiet reads {KIND} schema {SCHEMA_VERSION}"),
            });
        }
        Ok(c.finished())
    }
}

/// What the reports say of [`Collection::reruns`]: how many units ran more than once, and
/// which; `None` when none did.
pub fn reruns_note(c: &Collection) -> Option<String> {
    if c.reruns.is_empty() {
        return None;
    }
    let units: Vec<&str> = c
        .reruns
        .iter()
        .map(|d| c.units.get(d).map_or(d.as_str(), String::as_str))
        .collect();
    Some(format!(
        "{} {} ran more than once, with results that differ only in their timings: one run \
         of each is kept (the one that took less wall-clock time): {}",
        units.len(),
        if units.len() == 1 { "unit" } else { "units" },
        units.join(", ")
    ))
}

/// Orders two runs of one unit by their timing fields: wall-clock seconds, then the sample
/// link's times. Two rows equal but for their timings are equal when this says so.
fn timing_order(a: &SiteRow, b: &SiteRow) -> std::cmp::Ordering {
    let times = |r: &SiteRow| {
        let link = r.link_time.as_ref();
        [
            r.seconds,
            link.map_or(0.0, |t| t.before_ms),
            link.map_or(0.0, |t| t.after_ms),
        ]
    };
    let (a, b) = (times(a), times(b));
    a.iter()
        .zip(&b)
        .map(|(x, y)| x.total_cmp(y))
        .find(|o| o.is_ne())
        .unwrap_or(std::cmp::Ordering::Equal)
}

fn short(fingerprint: &str) -> &str {
    &fingerprint[..fingerprint.len().min(12)]
}

/// Per-site savings in percent of the original, in fixed bins: below 0 (the site grew),
/// then ten bins of 10 points, the last one closed (90 to 100).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Histogram {
    pub counts: Vec<u64>,
}

impl Histogram {
    pub const BINS: usize = 11;

    pub fn labels() -> Vec<String> {
        let mut labels = vec!["< 0%".to_string()];
        labels.extend((0..10).map(|i| format!("{}–{}%", i * 10, i * 10 + 10)));
        labels
    }

    /// The bin of a saving of `saved` out of `before`.
    pub fn bin(before: u64, saved: i64) -> usize {
        if before == 0 || saved < 0 {
            return 0;
        }
        let pct = saved as f64 * 100.0 / before as f64;
        1 + ((pct / 10.0).floor() as usize).min(9)
    }
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram {
            counts: vec![0; Histogram::BINS],
        }
    }
}

/// One kind of saving (bytes, requests or packets) over many sites.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Metric {
    /// Sites measured.
    pub sites: u64,
    /// Sums over them, before and after the rewrite.
    pub before: u64,
    pub after: u64,
    /// The smallest and largest per-site saving (`before − after`).
    pub min_saved: Option<i64>,
    pub max_saved: Option<i64>,
    pub histogram: Histogram,
}

impl Metric {
    fn one(before: u64, after: u64) -> Metric {
        let saved = before as i64 - after as i64;
        let mut histogram = Histogram::default();
        histogram.counts[Histogram::bin(before, saved)] = 1;
        Metric {
            sites: 1,
            before,
            after,
            min_saved: Some(saved),
            max_saved: Some(saved),
            histogram,
        }
    }

    pub fn saved(&self) -> i64 {
        self.before as i64 - self.after as i64
    }
}

impl AddAssign<&Metric> for Metric {
    fn add_assign(&mut self, o: &Metric) {
        self.sites += o.sites;
        self.before += o.before;
        self.after += o.after;
        self.min_saved = [self.min_saved, o.min_saved].into_iter().flatten().min();
        self.max_saved = [self.max_saved, o.max_saved].into_iter().flatten().max();
        for (mine, theirs) in self.histogram.counts.iter_mut().zip(&o.histogram.counts) {
            *mine += theirs;
        }
    }
}

/// What the collection's totals are: a sum of one summary per site.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    pub sites: u64,
    pub pages: u64,
    pub files: u64,
    pub problems: u64,
    /// The sites' bytes on disk, and what the rewrite saved of them.
    pub site_bytes: Metric,
    /// Deflate level 6 on the rewritten text: bytes it would save on top.
    pub deflate_saved_bytes: i64,
    /// The loopback first visit (the replay's figures), before and after.
    pub visit_bytes: Metric,
    pub requests: Metric,
    pub packets: Metric,
}

impl Summary {
    pub fn of(row: &SiteRow) -> Summary {
        let mut s = Summary {
            sites: 1,
            pages: row.pages,
            files: row.files,
            problems: row.problems,
            site_bytes: Metric::one(
                row.bytes,
                (row.bytes as i64 - row.saved_bytes).max(0) as u64,
            ),
            deflate_saved_bytes: row.deflate_saved_bytes.unwrap_or(0),
            ..Summary::default()
        };
        if let Some(v) = &row.visit {
            s.visit_bytes = Metric::one(v.before.bytes, v.after.bytes);
            s.requests = Metric::one(v.before.requests, v.after.requests);
            s.packets = Metric::one(v.before.packets, v.after.packets);
        }
        s
    }
}

impl AddAssign<&Summary> for Summary {
    fn add_assign(&mut self, o: &Summary) {
        self.sites += o.sites;
        self.pages += o.pages;
        self.files += o.files;
        self.problems += o.problems;
        self.site_bytes += &o.site_bytes;
        self.deflate_saved_bytes += o.deflate_saved_bytes;
        self.visit_bytes += &o.visit_bytes;
        self.requests += &o.requests;
        self.packets += &o.packets;
    }
}

/// The sites with the largest savings in bytes, largest first (ties by unit).
pub fn largest_savings(c: &Collection, n: usize) -> Vec<&SiteRow> {
    let mut rows: Vec<&SiteRow> = c.rows.values().collect();
    rows.sort_by(|a, b| b.saved_bytes.cmp(&a.saved_bytes).then(a.unit.cmp(&b.unit)));
    rows.truncate(n);
    rows
}

/// `part` of `whole` in percent, one decimal; `—` when there is no whole.
pub fn pct(part: i64, whole: u64) -> String {
    if whole == 0 {
        "—".into()
    } else {
        format!("{:.1}%", part as f64 * 100.0 / whole as f64)
    }
}
