//! Runs one command: wires the stages together and sends the results to the right exporter.
//! This is the only place that knows the order of the stages for each command.

use std::io::Write;
use std::process::ExitCode;

use crate::config::{AnalyzeConfig, Command, Config, ReplayConfig, Verbosity};
use crate::error::{Error, Result};
use crate::inventory;
use crate::report;
use crate::site;

/// How a run ended; the exit code is part of the interface (see the README).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// 0: the run finished and nothing the user asked to fail on happened.
    Success,
    /// 1: the run finished but found problems the user asked to fail on (budgets).
    Failed,
    /// 2: usage error or fatal error.
    Fatal,
}

impl From<Status> for ExitCode {
    fn from(status: Status) -> Self {
        ExitCode::from(match status {
            Status::Success => 0,
            Status::Failed => 1,
            Status::Fatal => 2,
        })
    }
}

/// Runs the configured command.
pub fn run(config: &Config) -> Result<Status> {
    match &config.command {
        Command::Analyze(analyze) => run_analyze(analyze, config),
        Command::Replay(replay) => run_replay(replay, config),
        // The child's exit code is its protocol with the parent (3 = no namespace here), so it
        // leaves directly; its output is already flushed.
        Command::ReplayChild => std::process::exit(crate::replay::netns::child_main()),
        Command::Pending { command } => Err(Error::NotImplemented { command }),
    }
}

fn run_analyze(cfg: &AnalyzeConfig, config: &Config) -> Result<Status> {
    let site = site::crawl(&cfg.site, &cfg.crawl)?;
    let inventory = inventory::analyze(&site, &cfg.analyze);
    if config.verbosity != Verbosity::Quiet {
        let mut stderr = std::io::stderr().lock();
        for problem in &inventory.problems {
            let _ = writeln!(stderr, "webdiet: {}/{problem}", cfg.site.display());
        }
    }
    let text = if cfg.json {
        report::json::to_string(&inventory)
    } else {
        report::terminal::inventory(&inventory, config)
    };
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(text.as_bytes())
        .and_then(|_| stdout.flush())
        .map_err(|e| Error::io("<stdout>", e))?;
    Ok(Status::Success)
}

fn run_replay(cfg: &ReplayConfig, config: &Config) -> Result<Status> {
    let site = site::crawl(&cfg.site, &crate::site::CrawlOptions::default())?;
    let (served, problems) = crate::replay::ServedSite::from_site(&site);
    if config.verbosity != Verbosity::Quiet {
        let mut stderr = std::io::stderr().lock();
        for problem in site.problems.iter().chain(&problems) {
            let _ = writeln!(stderr, "webdiet: {}/{problem}", cfg.site.display());
        }
    }
    let replay = crate::replay::replay(&served, &cfg.replay)?;
    let text = if cfg.json {
        report::json::to_string(&replay.rows)
    } else {
        let mut text = report::replay::table(&replay.rows);
        text.push_str(&format!("\n  {}\n", replay.method.detail));
        let rule = crate::deflate::WorthRule::default();
        let estimate = crate::replay::compression(&served, &rule);
        let t = estimate.totals;
        text.push_str(&format!(
            "\n  text resources: {} files, {} bytes raw; deflate level 6 {}, level 9 {}, best {}, \
             gzip {}\n  worth compressing ({}): {} of {}\n",
            estimate.files.len(),
            report::thousands(t.raw),
            report::thousands(t.deflate6),
            report::thousands(t.deflate9),
            report::thousands(t.best),
            report::thousands(t.gzip6),
            estimate.rule,
            estimate.files.len() - estimate.not_worth_it.len(),
            estimate.files.len()
        ));
        text
    };
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(text.as_bytes())
        .and_then(|_| stdout.flush())
        .map_err(|e| Error::io("<stdout>", e))?;
    Ok(Status::Success)
}
