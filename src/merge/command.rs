//! `webdiet merge` on the command line: read, merge, refuse missing units unless
//! `--allow-partial`, write the three reports together (the output-safety rules of
//! `crate::output`), print the terminal summary.

use std::io::Write;

use super::{Collection, MergeConfig, COLLECTION_HTML, COLLECTION_JSON, COLLECTION_MD};
use crate::app::Status;
use crate::config::{Config, Verbosity};
use crate::error::{Error, Result};
use crate::output::{Plan, Transaction};

/// Merges the directories. 0 when written; 1 when units are missing and `--allow-partial`
/// was not given (nothing is written then); 2 (an `Err`) for unreadable input.
pub fn run(cfg: &MergeConfig, config: &Config) -> Result<Status> {
    let collection = merge_dirs(&cfg.dirs)?;
    if let Some(note) = super::reruns_note(&collection) {
        let _ = writeln!(std::io::stderr().lock(), "webdiet: note: {note}");
    }
    let missing = collection.missing();
    if !missing.is_empty() {
        let mut stderr = std::io::stderr().lock();
        for (_, unit, why) in &missing {
            let _ = writeln!(
                stderr,
                "webdiet: {}: unit {unit}: {}",
                if cfg.allow_partial { "note" } else { "error" },
                why.unwrap_or("no report (its shard has not run)")
            );
        }
        if !cfg.allow_partial {
            let _ = writeln!(
                stderr,
                "webdiet: error: {} of {} units have no report; rerun their shards, or pass \
                 --allow-partial to merge without them",
                missing.len(),
                collection.units.len()
            );
            return Ok(Status::Failed);
        }
    }
    let plan = Plan {
        command: "merge",
        writes: vec![COLLECTION_JSON, COLLECTION_MD, COLLECTION_HTML],
        supersedes: Vec::new(),
    };
    let inputs: Vec<&std::path::Path> = cfg.dirs.iter().map(|d| d.as_path()).collect();
    crate::output::check(&cfg.out, &plan, &inputs)?;
    let out = Transaction::begin(&cfg.out, plan, &inputs)?;
    out.write(
        COLLECTION_JSON,
        crate::report::json::to_string(&collection).as_bytes(),
    )?;
    out.write(
        COLLECTION_MD,
        super::markdown::render(&collection).as_bytes(),
    )?;
    out.write(COLLECTION_HTML, super::html::render(&collection).as_bytes())?;
    out.commit()?;
    if config.verbosity != Verbosity::Quiet {
        let text = super::terminal::render(&collection, &cfg.out.dir.join(COLLECTION_JSON));
        let mut stdout = std::io::stdout().lock();
        stdout
            .write_all(text.as_bytes())
            .and_then(|()| stdout.flush())
            .map_err(|e| Error::io("<stdout>", e))?;
    }
    Ok(Status::Success)
}

/// The directories' collections, merged in the order given.
pub fn merge_dirs(dirs: &[std::path::PathBuf]) -> Result<Collection> {
    let mut all = Collection::default();
    for dir in dirs {
        all = all.merge(Collection::read(dir)?).map_err(|e| match e {
            Error::Usage { message } => Error::Invalid {
                path: dir.clone(),
                message,
            },
            e => e,
        })?;
    }
    Ok(all)
}
