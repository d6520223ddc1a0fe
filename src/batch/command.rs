//! `webdiet batch` on the command line: the shard's progress on stderr (units done and left,
//! MB/s, ETA) and its exit code.

use std::io::IsTerminal;
use std::time::Instant;

use crate::app::Status;
use crate::config::{Config, Verbosity};
use crate::error::Result;

use super::run::Tick;

/// Runs the shard: 0 when every unit of it is done, 1 when some unit failed or failed a
/// budget of its own (each named on stderr with its reason).
pub fn run(cfg: &super::BatchConfig, config: &Config) -> Result<Status> {
    let progress = Bar::new(config.verbosity);
    let outcome = super::run(cfg, &progress)?;
    if config.verbosity != Verbosity::Quiet {
        eprintln!(
            "webdiet: batch shard {}/{}: {} units, {} done now, {} done before, {} failed; \
             reports in {}",
            cfg.shard.index,
            cfg.shard.count,
            outcome.units,
            outcome.done,
            outcome.skipped,
            outcome.failed.len(),
            crate::error::shown(&cfg.out.join(super::UNITS))
        );
    }
    if config.verbosity != Verbosity::Quiet {
        for (unit, note) in &outcome.notes {
            eprintln!("webdiet: note: unit {unit}: {note}");
        }
    }
    for (unit, why) in &outcome.failed {
        eprintln!("webdiet: error: unit {unit}: {why}");
    }
    for (unit, budgets) in &outcome.over_budget {
        eprintln!("webdiet: unit {unit}: budget failed: {budgets}");
    }
    Ok(
        if outcome.failed.is_empty() && outcome.over_budget.is_empty() {
            Status::Success
        } else {
            Status::Failed
        },
    )
}

/// Units done and left, MB/s and ETA: an indicatif bar on a terminal, a line per unit
/// otherwise (a Slurm or Kubernetes log), nothing with `--quiet`.
struct Bar {
    bar: Option<indicatif::ProgressBar>,
    quiet: bool,
    started: Instant,
}

impl Bar {
    fn new(verbosity: Verbosity) -> Self {
        let quiet = verbosity == Verbosity::Quiet;
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let bar = indicatif::ProgressBar::new(0);
            bar.set_style(
                indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} units, {msg}")
                    .expect("a valid template"),
            );
            bar
        });
        Bar {
            bar,
            quiet,
            started: Instant::now(),
        }
    }
}

/// The speed of a shard and its time left, `secs` after it started: from the units this run
/// audited only, so that units done before (skipped in no time) count for neither; "—" until
/// one has been audited.
pub(super) fn speed(tick: &Tick, secs: f64) -> String {
    if tick.audited == 0 {
        return format!(
            "{} done before, speed and time left after the first unit audited now",
            tick.finished
        );
    }
    let secs = secs.max(1e-3);
    let rate = tick.bytes as f64 / 1e6 / secs;
    let eta = secs / tick.audited as f64 * (tick.of - tick.finished) as f64;
    format!("{rate:.2} MB/s, ETA {eta:.0} s")
}

impl super::run::Progress for Bar {
    fn unit(&self, tick: &Tick, unit: &str) {
        let speed = speed(tick, self.started.elapsed().as_secs_f64());
        let Tick { finished, of, .. } = *tick;
        match &self.bar {
            Some(bar) => {
                bar.set_length(of as u64);
                bar.set_position(finished as u64);
                bar.set_message(speed);
            }
            None if !self.quiet => eprintln!(
                "webdiet: batch: {finished}/{of} units ({} left), {speed}: {unit}",
                of - finished
            ),
            None => {}
        }
    }

    fn done(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
