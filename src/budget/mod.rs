//! Budgets for a pre-deploy audit: limits on what a first visit to the rewritten site may cost.
//! A budget of level `error` that does not hold makes `webdiet audit` exit with 1, so a CI job
//! fails; one of level `warn` is reported.
//!
//! Budgets come from a `webdiet.toml` (in the site directory, else the current directory) and
//! from flags, which win; and from a `--budgets FILE` in the field's shapes (Lighthouse's
//! `budget.json`, Lighthouse CI's assertions, sitespeed.io's budget; `field.rs`). Each becomes
//! a [`Limit`] of the report's model, which checks it against the first visit to the rewritten
//! site in the budget mode (default `pipelined`); a limit that could not be measured (for
//! example with `--no-replay`) does not hold.

pub mod field;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::{Error, Result};
use crate::replay::Mode;
use crate::report::{Limit, Measure};

/// The limits; every one is optional.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Budgets {
    /// Payload bytes (both directions) of a first visit to the rewritten site.
    pub max_first_visit_bytes: Option<u64>,
    /// Requests of a first visit to the rewritten site.
    pub max_requests: Option<u64>,
    /// Packets of a first visit to the rewritten site, per protocol mode
    /// (`http10`, `persistent`, `pipelined`, `pipelined-deflate`).
    #[serde(default)]
    pub max_packets: BTreeMap<String, u64>,
    /// The paper's time of a first visit to the rewritten site, in milliseconds (first SYN to
    /// the last counted packet, median over the runs), per link, in the budget mode
    /// (`[budgets.max-time-ms]`, `Cable = 1500`; `--max-time Cable=1500`).
    #[serde(default)]
    pub max_time_ms: BTreeMap<String, f64>,
    /// Minimum saving of first-visit bytes, rewritten against original, in percent.
    pub min_saving_percent: Option<f64>,
    /// Fail when any image conversion failed its pixel verification.
    #[serde(default)]
    pub no_verify_failures: bool,
    /// The mode whose replay the byte and request budgets read. Default: `pipelined`.
    pub budget_mode: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    #[serde(default)]
    budgets: Budgets,
}

/// The budgets of `webdiet.toml` in `site`, else in the current directory, else none; with
/// the file they came from.
pub fn load(site: &Path) -> Result<(Budgets, Option<PathBuf>)> {
    for dir in [site, Path::new(".")] {
        let path = dir.join("webdiet.toml");
        // Anything by that name is read, so that a FIFO or a device is refused, not skipped.
        if std::fs::symlink_metadata(&path).is_ok() {
            let text = crate::input::read_text(&path, crate::input::MAX_SETTINGS_BYTES)?;
            let file: ConfigFile = toml::from_str(&text).map_err(|e| Error::Invalid {
                path: path.clone(),
                message: e.to_string().trim_end().to_string(),
            })?;
            return Ok((file.budgets, Some(path)));
        }
    }
    Ok((Budgets::default(), None))
}

/// The limits of `file` (from `file_source`, e.g. its path) and of the `flags`, the flags
/// winning key by key; and the budget mode they read.
pub fn limits(
    file: &Budgets,
    file_source: &str,
    flags: &Budgets,
) -> Result<(Vec<Limit>, Option<Mode>)> {
    let pick = |flag: Option<u64>, from_file: Option<u64>| match (flag, from_file) {
        (Some(v), _) => Some((v, "flags")),
        (None, Some(v)) => Some((v, file_source)),
        (None, None) => None,
    };
    let mode_name = flags.budget_mode.as_ref().or(file.budget_mode.as_ref());
    let mode = match mode_name {
        Some(name) => Some(name.parse::<Mode>().map_err(|e| Error::Usage {
            message: format!("budget-mode {name}: {e}"),
        })?),
        None => None,
    };
    let shown = mode.unwrap_or_else(Mode::reference);
    let limit = |name: String, measure: Measure, value: f64, source: &str| {
        Limit::new(name, measure, value, source)
    };
    let mut out = Vec::new();
    if let Some((max, source)) = pick(flags.max_first_visit_bytes, file.max_first_visit_bytes) {
        out.push(limit(
            format!("max-first-visit-bytes ({shown})"),
            Measure::Bytes,
            max as f64,
            source,
        ));
    }
    if let Some((max, source)) = pick(flags.max_requests, file.max_requests) {
        out.push(limit(
            format!("max-requests ({shown})"),
            Measure::Requests,
            max as f64,
            source,
        ));
    }
    let merged = |a: &BTreeMap<String, u64>, b: &BTreeMap<String, u64>| {
        let mut all: BTreeMap<String, (u64, &str)> = a
            .iter()
            .map(|(k, v)| (k.clone(), (*v, file_source)))
            .collect();
        all.extend(b.iter().map(|(k, v)| (k.clone(), (*v, "flags"))));
        all
    };
    for (m, (max, source)) in merged(&file.max_packets, &flags.max_packets) {
        let packets_mode = m.parse::<Mode>().map_err(|e| Error::Usage {
            message: format!("max-packets {m}: {e}"),
        })?;
        out.push(limit(
            format!("max-packets ({m}, first visit)"),
            Measure::Packets(packets_mode),
            max as f64,
            source,
        ));
    }
    let mut times: BTreeMap<String, (f64, &str)> = file
        .max_time_ms
        .iter()
        .map(|(k, v)| (k.clone(), (*v, file_source)))
        .collect();
    times.extend(
        flags
            .max_time_ms
            .iter()
            .map(|(k, v)| (k.clone(), (*v, "flags"))),
    );
    for (link, (max, source)) in times {
        out.push(limit(
            format!("max-time-ms ({shown}, first visit on {link})"),
            Measure::Time(Some(link)),
            max,
            source,
        ));
    }
    let saving = match (flags.min_saving_percent, file.min_saving_percent) {
        (Some(v), _) => Some((v, "flags")),
        (None, Some(v)) => Some((v, file_source)),
        (None, None) => None,
    };
    if let Some((min, source)) = saving {
        out.push(Limit {
            at_least: true,
            ..limit(
                format!("min-saving-percent ({shown})"),
                Measure::SavingPercent,
                min,
                source,
            )
        });
    }
    if flags.no_verify_failures || file.no_verify_failures {
        let source = if flags.no_verify_failures {
            "flags"
        } else {
            file_source
        };
        out.push(limit(
            "no-verify-failures".to_string(),
            Measure::VerifyFailures,
            0.0,
            source,
        ));
    }
    Ok((out, mode))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_file_budgets_parse_and_flags_win_key_by_key() {
        let file: ConfigFile = toml::from_str(
            "[budgets]\nmax-requests = 50\nmax-first-visit-bytes = 9\nno-verify-failures = true\n\
             [budgets.max-packets]\npipelined = 200\n[budgets.max-time-ms]\nCable = 1500\n",
        )
        .unwrap();
        let flags = Budgets {
            max_requests: Some(10),
            ..Budgets::default()
        };
        let (limits, mode) = limits(&file.budgets, "webdiet.toml", &flags).unwrap();
        assert_eq!(mode, None);
        let find = |name: &str| limits.iter().find(|l| l.name.starts_with(name)).unwrap();
        assert_eq!(
            (
                find("max-requests").limit,
                find("max-requests").source.as_str()
            ),
            (10.0, "flags")
        );
        assert_eq!(find("max-first-visit-bytes").source, "webdiet.toml");
        assert_eq!(find("max-packets").limit, 200.0);
        assert_eq!(
            find("max-time-ms").measure,
            Measure::Time(Some("Cable".into()))
        );
        assert!(limits.iter().any(|l| l.measure == Measure::VerifyFailures));
        assert!(toml::from_str::<ConfigFile>("[budgets]\nmax-bytes = 1\n").is_err());
    }

    #[test]
    fn a_budget_mode_that_is_not_a_mode_is_refused() {
        let file = Budgets {
            budget_mode: Some("http2.5".into()),
            ..Budgets::default()
        };
        assert!(limits(&file, "webdiet.toml", &Budgets::default()).is_err());
    }
}
