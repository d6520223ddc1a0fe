//! `webdiet batch`: many sites, one report each, sharded by an outside engine (a Slurm job
//! array, a Kubernetes Indexed Job) without a scheduler of our own. This file is the contract
//! between the shards and `webdiet merge`: what a unit is, which shard runs it, which units
//! the seeded sample replays over an emulated link, and the files a shard leaves in `--out`.
//!
//! The contract does not depend on what a unit holds. A unit is one line of the list, named by
//! the line's text; [`Source`] says how its files are read: a site directory, or web archives of
//! one site (a WARC, ARC or WACZ, with more files joined by ` + `), which change nothing of the
//! digests, the shard assignment, the sample or the files below.

pub mod command;
mod record;
mod run;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::digest;
use crate::error::{Error, Result};
pub use record::{LinkTime, SiteRow, UnitRecord, UnitStatus, VisitFigures, VisitPair};
pub use run::{run, Outcome, Progress};

/// `DIR/batch.json`: the list, the options and the sample, the same from every shard.
pub const MANIFEST: &str = "batch.json";
/// `DIR/units/`: one `DIGEST.json` per unit.
pub const UNITS: &str = "units";
/// What `kind` says in `batch.json`.
pub const MANIFEST_KIND: &str = "webdiet-batch";

/// One line of the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    /// Its place among the list's units (blank and `#` lines do not count), from 0.
    pub index: usize,
    /// The line as written: the unit's name in every report, and part of its digest.
    pub spec: String,
    pub source: Source,
}

/// How a unit's files are read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A site directory (a relative path is relative to the list's directory).
    Site(PathBuf),
    /// Web archives of one site: the first is the input, the others what `--with` adds
    /// (`a.wacz + b.wacz`; relative paths as for a directory).
    Archive(Vec<PathBuf>),
}

impl Source {
    /// The paths the unit reads, which `--out` must stay out of.
    pub fn inputs(&self) -> Vec<&Path> {
        match self {
            Source::Site(dir) => vec![dir.as_path()],
            Source::Archive(files) => files.iter().map(PathBuf::as_path).collect(),
        }
    }

    /// A line's source: archives when every ` + `-separated part names one
    /// ([`crate::archive::is_archive`]), else a site directory.
    fn of(base: &Path, spec: &str) -> Source {
        let parts: Vec<&str> = spec.split(" + ").map(str::trim).collect();
        if parts
            .iter()
            .all(|p| !p.is_empty() && crate::archive::is_archive(Path::new(p)))
        {
            Source::Archive(parts.iter().map(|p| base.join(p)).collect())
        } else {
            Source::Site(base.join(spec))
        }
    }
}

/// Reads LIST: one unit per line; blank lines and lines starting with `#` are skipped.
pub fn read_list(list: &Path) -> Result<Vec<Unit>> {
    let text = std::fs::read_to_string(list).map_err(|e| Error::io(list, e))?;
    let base = list.parent().unwrap_or(Path::new(""));
    let mut units = Vec::new();
    let mut seen = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        let spec = line.trim();
        if spec.is_empty() || spec.starts_with('#') {
            continue;
        }
        if let Some(first) = seen.insert(spec.to_string(), n + 1) {
            return Err(Error::Invalid {
                path: list.to_path_buf(),
                message: format!("line {}: {spec} is already the unit of line {first}", n + 1),
            });
        }
        units.push(Unit {
            index: units.len(),
            spec: spec.to_string(),
            source: Source::of(base, spec),
        });
    }
    if units.is_empty() {
        return Err(Error::Invalid {
            path: list.to_path_buf(),
            message: "lists no unit (one site directory or web archive per line)".into(),
        });
    }
    Ok(units)
}

/// Shard `index` of `count`: it runs the units whose index is `index` modulo `count`
/// (round-robin, so that neighbouring lines, often of similar size, spread over the shards).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    pub fn runs(&self, unit: &Unit) -> bool {
        unit.index % self.count == self.index
    }

    /// `I/N`, with `I` below `N`.
    pub fn parse(text: &str) -> std::result::Result<Shard, String> {
        let (i, n) = text
            .split_once('/')
            .ok_or_else(|| format!("{text}: expected I/N, e.g. 0/4"))?;
        let index: usize = i
            .trim()
            .parse()
            .map_err(|_| format!("{text}: I must be a whole number"))?;
        let count: usize = n
            .trim()
            .parse()
            .ok()
            .filter(|n| *n > 0)
            .ok_or_else(|| format!("{text}: N must be a whole number of 1 or more"))?;
        if index >= count {
            return Err(format!("{text}: I counts from 0 and must be below N"));
        }
        Ok(Shard { index, count })
    }

    /// The shard: `--shard I/N`; else the index from `SLURM_ARRAY_TASK_ID` or
    /// `JOB_COMPLETION_INDEX`, with the count from `--shards` or `SLURM_ARRAY_TASK_COUNT`;
    /// else the whole list. `env` looks a variable up (the process environment in the CLI).
    pub fn from_env(
        explicit: Option<Shard>,
        shards: Option<usize>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Shard> {
        if let Some(shard) = explicit {
            return Ok(shard);
        }
        let usage = |message: String| Error::Usage { message };
        let number = |name: &str| -> Result<Option<usize>> {
            match env(name) {
                None => Ok(None),
                Some(v) => v.trim().parse().map(Some).map_err(|_| {
                    usage(format!(
                        "{name}={v}: expected a whole number (a shard index)"
                    ))
                }),
            }
        };
        let (name, index) = match (
            number("SLURM_ARRAY_TASK_ID")?,
            number("JOB_COMPLETION_INDEX")?,
        ) {
            (Some(i), _) => ("SLURM_ARRAY_TASK_ID", i),
            (None, Some(i)) => ("JOB_COMPLETION_INDEX", i),
            (None, None) => return Ok(Shard::WHOLE),
        };
        let count = match (shards, number("SLURM_ARRAY_TASK_COUNT")?) {
            (Some(n), _) => n,
            (None, Some(n)) if name == "SLURM_ARRAY_TASK_ID" => n,
            _ => {
                return Err(usage(format!(
                    "{name} is set but the number of shards is not: give --shards N"
                )))
            }
        };
        if count == 0 || index >= count {
            return Err(usage(format!(
                "{name}={index} is not a shard of {count} (indices count from 0); \
                 give --shards N with N the array's size"
            )));
        }
        Ok(Shard { index, count })
    }
}

/// `--measure-sample N --seed S`: the units that are also replayed over an emulated link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SampleSpec {
    /// How many units (all of them when the list is shorter).
    pub size: usize,
    pub seed: u64,
    /// The emulated link the sample is replayed over.
    pub link: String,
}

impl SampleSpec {
    /// The sampled units' indices: the `size` units with the smallest SHA-256 of the seed and
    /// their line. A uniform random sample without replacement, the same on every shard and
    /// for every order of the list.
    pub fn pick(&self, units: &[Unit]) -> std::collections::BTreeSet<usize> {
        let seed = self.seed.to_string();
        let mut keyed: Vec<(String, usize)> = units
            .iter()
            .map(|u| (digest::hex(&["sample", &seed, &u.spec]), u.index))
            .collect();
        keyed.sort();
        keyed.into_iter().take(self.size).map(|(_, i)| i).collect()
    }
}

/// What makes two runs of a unit comparable: the options that change its results, by name.
/// Part of every unit's digest, with the build ([`crate::BUILD`]: the version and git
/// revision), so a unit measured with other options or by another build is measured again,
/// never mixed with this one's.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings(pub BTreeMap<String, String>);

impl Settings {
    pub fn fingerprint(&self) -> String {
        let text = serde_json::to_string(&self.0).expect("a map of strings serializes");
        digest::hex(&["settings", crate::BUILD, &text])
    }
}

/// The name of a unit's report: a digest of its line and the settings.
pub fn unit_digest(unit: &Unit, fingerprint: &str) -> String {
    digest::hex(&["unit", &unit.spec, fingerprint])[..32].to_string()
}

/// `DIR/batch.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// Always [`MANIFEST_KIND`].
    pub kind: String,
    pub schema_version: u32,
    pub tool_version: String,
    /// [`Settings::fingerprint`].
    pub fingerprint: String,
    pub settings: Settings,
    /// The seeded sample; `null` without `--measure-sample`.
    pub sample: Option<SampleSpec>,
    /// Every unit of the list: its digest and line.
    pub units: Vec<ManifestUnit>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestUnit {
    pub digest: String,
    pub unit: String,
    /// In the seeded sample.
    pub sampled: bool,
}

/// The version of `batch.json` and `units/*.json`.
pub const SCHEMA_VERSION: u32 = 1;

impl Manifest {
    pub fn new(units: &[Unit], settings: &Settings, sample: Option<&SampleSpec>) -> Self {
        let fingerprint = settings.fingerprint();
        let picked = sample.map(|s| s.pick(units)).unwrap_or_default();
        Manifest {
            kind: MANIFEST_KIND.into(),
            schema_version: SCHEMA_VERSION,
            tool_version: crate::BUILD.into(),
            units: units
                .iter()
                .map(|u| ManifestUnit {
                    digest: unit_digest(u, &fingerprint),
                    unit: u.spec.clone(),
                    sampled: picked.contains(&u.index),
                })
                .collect(),
            fingerprint,
            settings: settings.clone(),
            sample: sample.cloned(),
        }
    }

    /// Reads `DIR/batch.json`.
    pub fn read(dir: &Path) -> Result<Manifest> {
        let path = dir.join(MANIFEST);
        let bytes = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
        let manifest: Manifest = serde_json::from_slice(&bytes).map_err(|e| Error::Invalid {
            path: path.clone(),
            message: format!("not a webdiet batch.json: {e}"),
        })?;
        if manifest.kind != MANIFEST_KIND || manifest.schema_version != SCHEMA_VERSION {
            return Err(Error::Invalid {
                path,
                message: format!(
                    "kind {:?}, schema_version {}: this webdiet reads {MANIFEST_KIND} {SCHEMA_VERSION}",
                    manifest.kind, manifest.schema_version
                ),
            });
        }
        Ok(manifest)
    }
}

/// `webdiet batch`, validated.
#[derive(Debug, Clone)]
pub struct BatchConfig {
    pub list: PathBuf,
    pub units: Vec<Unit>,
    pub out: PathBuf,
    pub shard: Shard,
    pub settings: Settings,
    pub sample: Option<SampleSpec>,
    /// The audit of a unit outside the sample; `dry_run` is set and `rewrite.out_site` is
    /// replaced per unit by a scratch directory under `DIR/units/`.
    pub audit: crate::audit::AuditOptions,
    /// The replay of a sampled unit (loopback and the sample's link); `None` without a sample.
    pub sample_replay: Option<crate::replay::ReplayOptions>,
}
