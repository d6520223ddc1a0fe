//! One shard of a batch: check `--out` once, then audit each of the shard's units in turn,
//! writing each unit's record through a temporary name and a rename, skipping units already
//! done, recording a failed unit and going on.
//!
//! Shards of one batch run at the same time into the same `--out`, so nothing here is a
//! staging directory of the whole run: every file a shard writes (`batch.json`, the marker,
//! a unit's record) is complete when it appears, and two shards writing the same file write
//! the same bytes.

use std::path::Path;
use std::time::Instant;

use super::{record::UNIT_KIND, BatchConfig, Manifest, SiteRow, UnitRecord, UnitStatus};
use super::{Unit, MANIFEST, SCHEMA_VERSION, UNITS};
use crate::error::{Error, Result};
use crate::output::{Marker, Plan, MARKER};

/// What a shard did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Units of the shard.
    pub units: usize,
    /// Audited now.
    pub done: usize,
    /// Complete already (an earlier or requeued run).
    pub skipped: usize,
    /// Failed now, each with its unit and reason.
    pub failed: Vec<(String, String)>,
    /// What ran other than asked, per unit: a link that could not run and why, a replay on
    /// the host's loopback because no private namespace could be made.
    pub notes: Vec<(String, String)>,
    /// Done units with a budget of their own (the site's `webdiet.toml`) that failed: the unit
    /// and the budgets' names.
    pub over_budget: Vec<(String, String)>,
}

/// Progress of a shard, for a person.
pub trait Progress {
    /// Called after each unit, done now, done before or failed.
    fn unit(&self, tick: &Tick, unit: &str);
    fn done(&self);
}

/// Where a shard is, after a unit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tick {
    /// Units finished (done now, done before, failed), of the shard's `of`.
    pub finished: usize,
    pub of: usize,
    /// Of the finished, those audited by this run: the only ones a speed is made of (a unit
    /// done before is skipped in no time, and would make the speed and the time left a lie).
    pub audited: usize,
    /// Bytes read by the units this run audited.
    pub bytes: u64,
}

/// Runs the shard. `Err` only when `--out` cannot be used at all; a unit's failure is a record.
pub fn run(cfg: &BatchConfig, progress: &dyn Progress) -> Result<Outcome> {
    let manifest = Manifest::new(&cfg.units, &cfg.settings, cfg.sample.as_ref());
    prepare(&cfg.out, &cfg.units, &manifest)?;
    let units_dir = cfg.out.join(UNITS);
    // What units killed before they were done left (a scheduler's pre-emption): removed when
    // their process is gone, on this node or another sharing the disk (`crate::scratch`).
    let cleaned = crate::scratch::clean(&units_dir);
    let mine: Vec<(&Unit, &super::ManifestUnit)> = cfg
        .units
        .iter()
        .zip(&manifest.units)
        .filter(|(u, _)| cfg.shard.runs(u))
        .collect();
    let mut outcome = Outcome {
        units: mine.len(),
        notes: cleaned.into_iter().map(|n| ("(batch)".into(), n)).collect(),
        ..Outcome::default()
    };
    let mut tick = Tick {
        of: mine.len(),
        ..Tick::default()
    };
    for (n, (unit, entry)) in mine.iter().enumerate() {
        tick.finished = n + 1;
        let path = units_dir.join(format!("{}.json", entry.digest));
        match existing(&path, &entry.digest) {
            Existing::Done => {
                outcome.skipped += 1;
                progress.unit(&tick, &unit.spec);
                continue;
            }
            Existing::Foreign(why) => {
                outcome.failed.push((unit.spec.clone(), why));
                progress.unit(&tick, &unit.spec);
                continue;
            }
            Existing::Retry => {}
        }
        let started = Instant::now();
        tick.audited += 1;
        let record = match audit_unit(cfg, unit, entry, &units_dir, started) {
            Ok((row, report)) => {
                tick.bytes += row.bytes;
                outcome
                    .notes
                    .extend(notes(&report).into_iter().map(|n| (unit.spec.clone(), n)));
                let failed: Vec<&str> = report
                    .budgets
                    .iter()
                    .filter(|b| b.fails_run())
                    .map(|b| b.name.as_str())
                    .collect();
                if !failed.is_empty() {
                    outcome
                        .over_budget
                        .push((unit.spec.clone(), failed.join(", ")));
                }
                UnitRecord {
                    status: UnitStatus::Done,
                    row: Some(row),
                    error: None,
                    report: Some(Box::new(report)),
                    ..record(entry, &manifest.fingerprint)
                }
            }
            Err(e) => {
                outcome.failed.push((unit.spec.clone(), e.to_string()));
                UnitRecord {
                    status: UnitStatus::Failed,
                    row: None,
                    error: Some(e.to_string()),
                    report: None,
                    ..record(entry, &manifest.fingerprint)
                }
            }
        };
        let json = crate::report::json::to_string(&record);
        match write_atomic(&path, json.as_bytes()) {
            Ok(()) if record.status == UnitStatus::Done => outcome.done += 1,
            Ok(()) => {}
            Err(e) => outcome.failed.push((unit.spec.clone(), e.to_string())),
        }
        progress.unit(&tick, &unit.spec);
    }
    progress.done();
    Ok(outcome)
}

/// What a unit's replay could not do as asked.
fn notes(report: &crate::report::Report) -> Vec<String> {
    let mut notes: Vec<String> = report
        .replay_links
        .iter()
        .filter_map(|l| {
            Some(format!(
                "link {} not replayed: {}",
                l.name,
                l.unavailable.as_ref()?
            ))
        })
        .collect();
    if let Some(method) = report
        .replay_method
        .as_ref()
        .filter(|m| m.contains("namespace unavailable"))
    {
        notes.push(format!("replayed on {method}"));
    }
    notes
}

fn record(entry: &super::ManifestUnit, fingerprint: &str) -> UnitRecord {
    UnitRecord {
        schema_version: SCHEMA_VERSION,
        kind: UNIT_KIND.into(),
        digest: entry.digest.clone(),
        unit: entry.unit.clone(),
        fingerprint: fingerprint.into(),
        status: UnitStatus::Failed,
        row: None,
        error: None,
        report: None,
    }
}

/// Checks `--out` with the rules of [`crate::output::check`] (outside every unit, and
/// `batch.json` and `units/` absent or webdiet's), refuses a `batch.json` of another list,
/// other options or another build, and writes the marker and `batch.json`.
fn prepare(out: &Path, units: &[Unit], manifest: &Manifest) -> Result<()> {
    let plan = Plan {
        command: "batch",
        writes: vec![MANIFEST, UNITS],
        supersedes: Vec::new(),
    };
    // A unit that is not there fails on its own, later; it holds nothing to protect.
    let inputs: Vec<&Path> = units
        .iter()
        .flat_map(|u| u.source.inputs())
        .filter(|p| p.exists())
        .collect();
    let paths = crate::output::OutputPaths {
        dir: out.to_path_buf(),
        force: false,
    };
    crate::output::check(&paths, &plan, &inputs)?;
    if out.join(MANIFEST).exists() {
        let old = Manifest::read(out)?;
        if old.tool_version != manifest.tool_version {
            return Err(Error::Usage {
                message: format!(
                    "{} was written by webdiet {}, and this is webdiet {}: one batch's unit \
                     reports must come from one build (another may measure differently): use \
                     another --out",
                    crate::error::shown(&out.join(MANIFEST)),
                    old.tool_version,
                    manifest.tool_version
                ),
            });
        }
        if old != *manifest {
            return Err(Error::Usage {
                message: format!(
                    "{} describes another list or other options (its {} units, settings {}); \
                     a batch's shards must share LIST and options: use another --out",
                    crate::error::shown(&out.join(MANIFEST)),
                    old.units.len(),
                    &old.fingerprint[..12]
                ),
            });
        }
    }
    // The marker first, then `units/`: a shard starting beside this one must never see a
    // `units/` that no marker claims (it would refuse it as someone else's output).
    crate::output::create_dir_all(out).map_err(|e| Error::io(out, e))?;
    let mut entries: std::collections::BTreeSet<String> = match Marker::find(out) {
        crate::output::Found::Ours(m) => m.entries,
        _ => Default::default(),
    };
    entries.extend([MANIFEST.to_string(), UNITS.to_string()]);
    write_atomic(
        &out.join(MARKER),
        Marker::new("batch", entries).to_json().as_bytes(),
    )?;
    crate::output::create_dir_all(&out.join(UNITS)).map_err(|e| Error::io(out.join(UNITS), e))?;
    write_atomic(
        &out.join(MANIFEST),
        crate::report::json::to_string(manifest).as_bytes(),
    )
}

enum Existing {
    /// A complete record.
    Done,
    /// Nothing, a failed record or one of other settings: run the unit.
    Retry,
    /// Something webdiet did not write: left alone, the unit fails.
    Foreign(String),
}

fn existing(path: &Path, digest: &str) -> Existing {
    let bytes = match std::fs::read(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Existing::Retry,
        Err(e) => return Existing::Foreign(format!("{}: {e}", crate::error::shown(path))),
        Ok(bytes) => bytes,
    };
    match serde_json::from_slice::<UnitRecord>(&bytes) {
        Ok(r) if r.kind == UNIT_KIND && r.digest == digest => match (r.status, r.row) {
            (UnitStatus::Done, Some(_)) => Existing::Done,
            _ => Existing::Retry,
        },
        _ => Existing::Foreign(format!(
            "{} exists and is not a unit record webdiet wrote; left alone",
            crate::error::shown(path)
        )),
    }
}

/// Audits one unit as `audit --dry-run` would: the rewritten tree goes to a scratch directory
/// under `DIR/units/` that is removed afterwards.
fn audit_unit(
    cfg: &BatchConfig,
    unit: &Unit,
    entry: &super::ManifestUnit,
    units_dir: &Path,
    started: Instant,
) -> Result<(SiteRow, crate::report::Report)> {
    let (dir, with) = match &unit.source {
        super::Source::Site(dir) => {
            match std::fs::metadata(dir) {
                Ok(m) if m.is_dir() => {}
                Ok(m) => {
                    return Err(Error::NotADirectory {
                        path: dir.clone(),
                        what: crate::input::kind_of(&m),
                    })
                }
                Err(_) => return Err(Error::NotFound { path: dir.clone() }),
            }
            (dir, Vec::new())
        }
        // The archive is read (and any trouble with it reported) by the audit.
        super::Source::Archive(files) => (&files[0], files[1..].to_vec()),
    };
    let scratch = crate::scratch::Scratch::new(units_dir, &format!("unit-{}", entry.digest))
        .map_err(|e| Error::io(units_dir, e))?;
    let mut opts = cfg.audit.clone();
    opts.site = dir.clone();
    opts.archive.with = with;
    opts.dry_run = true;
    opts.rewrite.out_site = scratch.path().join("site");
    opts.archive.scratch = Some(scratch.path().to_path_buf());
    let (budgets, path) = crate::budget::load(dir)?;
    let source = path.map_or("webdiet.toml".to_string(), |p| p.display().to_string());
    let (limits, mode) =
        crate::budget::limits(&budgets, &source, &crate::budget::Budgets::default())?;
    opts.gates = crate::report::Gates {
        limits,
        mode,
        baseline: None,
        time_source: Some(crate::budget::time_source(
            &budgets,
            &crate::budget::Budgets::default(),
        )),
    };
    let sample_link = match (&cfg.sample_replay, &cfg.sample) {
        (Some(replay), Some(sample)) if entry.sampled => {
            opts.replay = Some(replay.clone());
            Some(sample.link.as_str())
        }
        _ => None,
    };
    let report = crate::audit::audit(&opts, &Quiet)?;
    let row = SiteRow::of(
        &unit.spec,
        &report,
        sample_link,
        started.elapsed().as_secs_f64(),
    );
    Ok((row, report))
}

struct Quiet;

impl crate::audit::Progress for Quiet {
    fn stage(&self, _: usize, _: usize, _: &str) {}
    fn done(&self) {}
}

/// Writes `path` through `.NAME.partial-PID` beside it and a rename: a reader sees the old
/// file or the new one, never half of one.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.partial-{}", std::process::id()));
    std::fs::write(&tmp, bytes)
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            Error::io(path, e)
        })
}
