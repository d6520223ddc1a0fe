//! The command line of `batch` and `merge` (clap types, converted to their configurations
//! here and nowhere else). A child of `cli` so that `batch` takes the same image options as
//! `rewrite` and `audit`.

use std::path::PathBuf;

use clap::Args;

use super::ImageArgs;
use crate::batch::{BatchConfig, SampleSpec, Settings, Shard};
use crate::config::Command;
use crate::error::{Error, Result};
use crate::inventory::AnalyzeOptions;
use crate::output::OutputPaths;
use crate::replay::{Link, Mode, ReplayOptions, Test};

/// `webdiet batch`.
#[derive(Debug, Args)]
pub(super) struct BatchArgs {
    /// A text file with one unit per line: a site directory, relative to the file's own
    /// directory unless absolute. Blank lines and lines starting with `#` are skipped.
    list: PathBuf,
    /// Where the reports go: DIR/batch.json and one DIR/units/DIGEST.json per unit. Every
    /// shard of a batch writes into the same DIR. Must not be inside a site.
    #[arg(long, value_name = "DIR")]
    #[arg(help_heading = super::heading::OUTPUT)]
    out: PathBuf,
    /// Run shard I of N: the units whose place in the list (from 0) is I modulo N
    /// [default: I from SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX, else the whole list].
    #[arg(long, value_name = "I/N", value_parser = Shard::parse)]
    #[arg(help_heading = super::heading::SHARDS)]
    shard: Option<Shard>,
    /// The number of shards, with the index from SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX
    /// [default: SLURM_ARRAY_TASK_COUNT]. Give it when rerunning one index of an array.
    #[arg(long, value_name = "N", conflicts_with = "shard",
          value_parser = clap::value_parser!(u64).range(1..))]
    #[arg(help_heading = super::heading::SHARDS)]
    shards: Option<u64>,
    /// Skip the loopback replay: rewrite and deflate estimates only (the sample is still
    /// replayed).
    #[arg(long)]
    #[arg(help_heading = super::heading::SAMPLE)]
    no_replay: bool,
    /// Also replay N units, picked at random with --seed, over --sample-link; the merged
    /// report estimates the whole collection's time saved from them, with a 95% interval.
    #[arg(long, value_name = "N", requires = "seed",
          value_parser = clap::value_parser!(u64).range(1..))]
    #[arg(help_heading = super::heading::SAMPLE)]
    measure_sample: Option<u64>,
    /// The seed of the sample (recorded in batch.json and the merged report), and of
    /// --estimate-sample's (recorded in each unit's report) [default for the latter: 0].
    #[arg(long, value_name = "S")]
    #[arg(help_heading = super::heading::SAMPLE)]
    seed: Option<u64>,
    /// The emulated link the sample is replayed over (a profile of `webdiet links`, or a
    /// custom link).
    #[arg(
        long,
        value_name = "LINK",
        default_value = "Cable",
        requires = "measure_sample"
    )]
    #[arg(help_heading = super::heading::SAMPLE)]
    sample_link: String,
    /// Runs of each sampled unit over --sample-link, 1–1000; the time is their median.
    #[arg(long, value_name = "N", default_value_t = 1, requires = "measure_sample",
          value_parser = clap::value_parser!(u32).range(1..=1000))]
    #[arg(help_heading = super::heading::SAMPLE)]
    sample_runs: u32,
    /// Measure libdeflate 12, brotli 11 and zstd 19 on a sample of BYTES of each unit's text
    /// (the rest from zlib 9, brotli 5 and zstd 3 by the sample's ratio, with a 95% interval
    /// in the report; seeded with --seed, else 0); 0 measures every file. At level 11 the
    /// brotli encoder manages 0.54 to 0.61 MB/s a core, the costliest step of a text-heavy
    /// unit.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_ESTIMATE_SAMPLE)]
    #[arg(help_heading = super::heading::ESTIMATES)]
    estimate_sample: u64,
    /// For a unit that is a web archive: how many times its own size (plus 64 MiB) its decoded
    /// bodies may take on disk; a capture past it is left out and reported
    /// (docs/archives.md, "Budgets").
    #[arg(long, value_name = "TIMES", default_value_t = crate::archive::Budget::DEFAULT_EXPANSION)]
    #[arg(help_heading = super::heading::ARCHIVES)]
    archive_budget: u64,
    /// Work on every unit's images itself. By default an image (GIF, PNG, JPEG) that an
    /// earlier unit of this process already converted or recompressed, with the same options,
    /// is taken from that unit's verified result: the same files, no CPU spent (the unit's
    /// report shows 0 for it). Up to 64 MiB of results are kept.
    #[arg(long)]
    #[arg(help_heading = super::heading::IMAGES)]
    no_image_memo: bool,
    #[command(flatten)]
    image: ImageArgs,
}

/// The image results a `batch` process keeps for the units after the one they were made in
/// (`rewrite::memo`): 64 MiB of outputs, about 20,000 PNGs the size of Space Jam's converted
/// GIFs (3.4 KB on average).
const MEMO_BYTES: usize = 64 << 20;

/// `batch --estimate-sample`'s default: 256 KiB of text a unit (`docs/scale.md` measures the
/// error it leaves).
const DEFAULT_ESTIMATE_SAMPLE: u64 = 256 << 10;

/// `webdiet merge`.
#[derive(Debug, Args)]
pub(super) struct MergeArgs {
    /// Output directories of `webdiet batch` (or of an earlier `merge`).
    #[arg(required = true, value_name = "DIR")]
    dirs: Vec<PathBuf>,
    /// Where the collection's report goes: REPORT/collection.{json,md,html}. webdiet replaces
    /// only what it wrote there itself.
    #[arg(long, value_name = "REPORT")]
    out: PathBuf,
    /// Merge even though some units have no complete report; the report names them.
    #[arg(long)]
    allow_partial: bool,
}

impl BatchArgs {
    pub(super) fn into_command(self) -> Result<Command> {
        let units = crate::batch::read_list(&self.list)?;
        let shards = self
            .shards
            .map(|n| usize::try_from(n).unwrap_or(usize::MAX));
        let shard = Shard::from_env(self.shard, shards, &|name| std::env::var(name).ok())?;
        let usage = |e: crate::sim::link::SpecError| Error::Usage {
            message: format!("--sample-link: {e}"),
        };
        let loopback = ReplayOptions {
            links: vec![Link::Loopback],
            modes: vec![Mode::reference()],
            tests: vec![Test::First],
            runs: 1,
            ..ReplayOptions::default()
        };
        let sample = match (self.measure_sample, self.seed) {
            (Some(size), Some(seed)) => Some(SampleSpec {
                size: usize::try_from(size).unwrap_or(usize::MAX),
                seed,
                link: self.sample_link.clone(),
            }),
            _ => None,
        };
        let sample_replay = match &sample {
            None => None,
            Some(s) => {
                let links = crate::sim::link::parse(&s.link).map_err(usage)?;
                let [link @ Link::Emulated(_)] = links.as_slice() else {
                    return Err(Error::Usage {
                        message: format!(
                            "--sample-link {}: name one emulated link (a profile such as \
                             Cable, or down=…,up=…,rtt=…)",
                            s.link
                        ),
                    });
                };
                Some(ReplayOptions {
                    links: vec![Link::Loopback, link.clone()],
                    runs_on: vec![(link.name().to_string(), self.sample_runs as usize)],
                    ..loopback.clone()
                })
            }
        };
        let mut settings = Settings::default();
        let mut set = |k: &str, v: String| settings.0.insert(k.to_string(), v);
        set("image", format!("{:?}", self.image));
        set(
            "replay",
            if self.no_replay {
                "none".into()
            } else {
                "loopback pipelined first ×1".into()
            },
        );
        // In the fingerprint only when not the default, so that batches run before the flag
        // existed keep their units.
        if self.archive_budget != crate::archive::Budget::DEFAULT_EXPANSION {
            set("archive-budget", self.archive_budget.to_string());
        }
        if let Some(s) = &sample {
            set(
                "sample",
                format!(
                    "{} units, seed {}, over {} ×{}",
                    s.size, s.seed, s.link, self.sample_runs
                ),
            );
        }
        let top_levels = match self.estimate_sample {
            0 => crate::deflate::TopLevels::Every,
            bytes => crate::deflate::TopLevels::Sample {
                bytes,
                seed: self.seed.unwrap_or(0),
            },
        };
        set("estimate", top_levels.describe());
        let analyze = AnalyzeOptions {
            site_url: None,
            max_parse_bytes: 16 << 20,
        };
        let scratch = OutputPaths {
            dir: self.out.join(crate::batch::UNITS),
            force: false,
        };
        let audit = crate::audit::AuditOptions {
            site: PathBuf::new(),
            archive: crate::archive::ArchiveOptions {
                budget: crate::archive::Budget {
                    expansion: self.archive_budget,
                },
                ..crate::archive::ArchiveOptions::default()
            },
            emit_wacz: None,
            crawl: crate::site::CrawlOptions::default(),
            analyze: analyze.clone(),
            rewrite: crate::rewrite::RewriteOptions {
                // Units run one after the other in this process: an image met again is not
                // worked on again.
                memo: (!self.no_image_memo)
                    .then(|| std::sync::Arc::new(crate::rewrite::memo::Memo::new(MEMO_BYTES))),
                ..self.image.rewrite_options(&scratch, analyze)
            },
            dry_run: true,
            replay: (!self.no_replay).then_some(loopback),
            worth: crate::deflate::WorthRule::default(),
            top_levels,
            gates: crate::report::Gates::default(),
            max_runs: 1,
        };
        Ok(Command::Batch(Box::new(BatchConfig {
            list: self.list,
            units,
            out: self.out,
            shard,
            settings,
            sample,
            audit,
            sample_replay,
        })))
    }
}

impl MergeArgs {
    pub(super) fn into_command(self) -> Result<Command> {
        for dir in &self.dirs {
            super::convert::require_dir(dir)?;
        }
        Ok(Command::Merge(crate::merge::MergeConfig {
            dirs: self.dirs,
            out: OutputPaths {
                dir: self.out,
                force: false,
            },
            allow_partial: self.allow_partial,
        }))
    }
}
