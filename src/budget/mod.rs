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
mod shape;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::{Error, Result};
use crate::replay::Mode;
use crate::report::model::TimeSource;
use crate::report::{Limit, Measure};

/// The settings file's name, read in the site directory (else the current directory); the
/// rewrite does not copy it into the site it writes.
pub const SETTINGS_FILE: &str = "webdiet.toml";

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
    /// the last counted packet), per link, in the budget mode (`[budgets.max-time-ms]`,
    /// `Cable = 1500`; `--max-time Cable=1500`): simulated, or the measured median, as
    /// `time_source` says.
    #[serde(default)]
    pub max_time_ms: BTreeMap<String, f64>,
    /// Which time the time budgets read (`time-source = "measured"`, `--time-source`).
    /// Default: simulated, the same on any runner.
    pub time_source: Option<TimeSource>,
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
        let path = dir.join(SETTINGS_FILE);
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

/// Refuses, before any work, a time budget (`max-time-ms`, `--max-time`) on a link the audit
/// does not time: a name that is no link, or, when the audit replays (`links`: the names of
/// the emulated links it simulates or measures), a link it was not given. Without this, the
/// budget would be reported unmeasured only after the whole audit had run.
pub fn check_time_links(limits: &[Limit], links: Option<&[String]>) -> Result<()> {
    for l in limits {
        let Measure::Time(Some(name)) = &l.measure else {
            continue;
        };
        let is_link = crate::sim::link::parse(name).is_ok();
        let timed = links.is_none_or(|ls| ls.iter().any(|x| x.eq_ignore_ascii_case(name)));
        if is_link && timed {
            continue;
        }
        let why = match (is_link, links) {
            (false, _) => format!(
                "unknown link {name:?} (the named links: {})",
                crate::sim::link::profiles::names().join(", ")
            ),
            (true, Some([])) => {
                format!("the audit times no emulated link, so not {name} (add --link {name})")
            }
            (true, Some(links)) => format!(
                "the audit does not time {name}: its links are {} (add --link {name})",
                links.join(", ")
            ),
            (true, None) => unreachable!("every name is timed without a replay"),
        };
        return Err(if l.source == "flags" {
            Error::Usage {
                message: format!("--max-time {name}: {why}"),
            }
        } else {
            let path = PathBuf::from(&l.source);
            let at = key_line(&path, name).map_or(String::new(), |n| format!("line {n}: "));
            Error::Invalid {
                message: format!("{at}[budgets.max-time-ms] {name}: {why}"),
                path,
            }
        });
    }
    Ok(())
}

/// The line (from 1) of `webdiet.toml` (`path`) that sets `key`, for messages.
fn key_line(path: &Path, key: &str) -> Option<usize> {
    let text = std::fs::read_to_string(path).ok()?;
    let quoted = format!("\"{key}\"");
    text.lines()
        .position(|line| {
            let line = line.trim_start();
            line.strip_prefix(key)
                .or_else(|| line.strip_prefix(quoted.as_str()))
                .is_some_and(|rest| rest.trim_start().starts_with('='))
        })
        .map(|i| i + 1)
}

/// Which time the time budgets read: the flag's, else the file's, else the simulated time
/// (the same verdict for the same site on any runner, at any load).
pub fn time_source(file: &Budgets, flags: &Budgets) -> TimeSource {
    flags
        .time_source
        .or(file.time_source)
        .unwrap_or(TimeSource::Simulated)
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
            format!(
                "max-time-ms ({shown}, first visit on {link}, {})",
                time_source(file, flags).as_str()
            ),
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
    fn time_budgets_read_simulated_time_unless_measured_is_asked_for() {
        let none = Budgets::default();
        assert_eq!(time_source(&none, &none), TimeSource::Simulated);
        let measured: ConfigFile =
            toml::from_str("[budgets]\ntime-source = \"measured\"\n").unwrap();
        assert_eq!(time_source(&measured.budgets, &none), TimeSource::Measured);
        let flags = Budgets {
            time_source: Some(TimeSource::Simulated),
            ..Budgets::default()
        };
        assert_eq!(
            time_source(&measured.budgets, &flags),
            TimeSource::Simulated,
            "the flag wins"
        );
        assert!(toml::from_str::<ConfigFile>("[budgets]\ntime-source = \"guessed\"\n").is_err());
    }

    #[test]
    fn a_time_budget_on_a_link_the_audit_does_not_time_is_refused_before_it_runs() {
        let dir = tempfile::tempdir().unwrap();
        let toml = dir.path().join("webdiet.toml");
        std::fs::write(
            &toml,
            "[budgets]\nmax-requests = 9\n\n[budgets.max-time-ms]\nCabel = 1500\n",
        )
        .unwrap();
        let (file, _) = load(dir.path()).unwrap();
        let source = toml.display().to_string();
        let (limits, _) = limits(&file, &source, &Budgets::default()).unwrap();
        let links = ["Cable".to_string()];
        let e = check_time_links(&limits, Some(&links))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with(&format!(
                "{source}: line 5: [budgets.max-time-ms] Cabel: unknown link \"Cabel\""
            )),
            "{e}"
        );
        let e = check_time_links(&limits, None).unwrap_err().to_string();
        assert!(e.contains("unknown link"), "{e}");

        let flags = Budgets {
            max_time_ms: [("3G".to_string(), 900.0)].into(),
            ..Budgets::default()
        };
        let (limits, _) = super::limits(&Budgets::default(), "webdiet.toml", &flags).unwrap();
        let e = check_time_links(&limits, Some(&links))
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "--max-time 3G: the audit does not time 3G: its links are Cable (add --link 3G)"
        );
        assert!(check_time_links(&limits, Some(&["3g".to_string()])).is_ok());
        assert!(
            check_time_links(&limits, None).is_ok(),
            "no replay: a real link name is enough"
        );
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
