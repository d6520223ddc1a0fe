//! Budgets for a pre-deploy audit: limits on what a first visit to the rewritten site may cost.
//! A budget that does not hold makes `webdiet audit` exit with 1, so a CI job fails.
//!
//! Budgets come from a `webdiet.toml` (in the site directory, else the current directory) and
//! from flags, which win. Every limit is checked against the replay of the rewritten site, first
//! visit, in the `budget_mode` (default `pipelined`); a limit that could not be measured (for
//! example with `--no-replay`) does not hold.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use crate::error::{Error, Result};
use crate::replay::{Mode, ReplayRow, Test};
use crate::report::{BudgetResult, Report};

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
    /// Which time `max_time_ms` reads (`time-source = "measured"`, `--time-source`).
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

/// Where a time budget's figure comes from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TimeSource {
    /// The simulated time (docs/simulation.md): the same verdict for the same site on any
    /// runner, at any load.
    #[default]
    Simulated,
    /// The median measured over the emulated link (`audit --measure`).
    Measured,
}

impl TimeSource {
    pub fn as_str(self) -> &'static str {
        match self {
            TimeSource::Simulated => "simulated",
            TimeSource::Measured => "measured",
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    #[serde(default)]
    budgets: Budgets,
}

/// The budgets of `webdiet.toml` in `site`, else in the current directory, else none.
pub fn load(site: &Path) -> Result<Budgets> {
    for dir in [site, Path::new(".")] {
        let path = dir.join("webdiet.toml");
        // Anything by that name is read, so that a FIFO or a device is refused, not skipped.
        if std::fs::symlink_metadata(&path).is_ok() {
            let text = crate::input::read_text(&path, crate::input::MAX_SETTINGS_BYTES)?;
            let file: ConfigFile = toml::from_str(&text).map_err(|e| Error::Invalid {
                path: path.clone(),
                message: e.to_string().trim_end().to_string(),
            })?;
            return Ok(file.budgets);
        }
    }
    Ok(Budgets::default())
}

impl Budgets {
    /// `other`'s limits override these.
    pub fn overridden_by(mut self, other: Budgets) -> Budgets {
        self.max_first_visit_bytes = other.max_first_visit_bytes.or(self.max_first_visit_bytes);
        self.max_requests = other.max_requests.or(self.max_requests);
        self.max_packets.extend(other.max_packets);
        self.max_time_ms.extend(other.max_time_ms);
        self.min_saving_percent = other.min_saving_percent.or(self.min_saving_percent);
        self.no_verify_failures |= other.no_verify_failures;
        self.budget_mode = other.budget_mode.or(self.budget_mode);
        self.time_source = other.time_source.or(self.time_source);
        self
    }
}

/// Checks every budget against the report.
pub fn check(budgets: &Budgets, report: &Report) -> Vec<BudgetResult> {
    let mode = budgets
        .budget_mode
        .as_deref()
        .unwrap_or(Mode::reference().as_str());
    let first = |site: &str, mode: &str| -> Option<&ReplayRow> {
        report
            .replay
            .iter()
            .find(|r| r.site == site && r.test == Test::First && r.mode.as_str() == mode)
    };
    let bytes = |row: &ReplayRow| (row.bytes_up + row.bytes_down) as f64;
    // Why a replay figure is missing, said once for every budget that needed it.
    let unmeasured = |mode: &str| {
        if report.replay.is_empty() {
            "the replay was skipped (--no-replay)".to_string()
        } else {
            format!("mode {mode} was not replayed (see --modes)")
        }
    };
    let mut results = Vec::new();
    let mut limit =
        |name: String, limit: f64, actual: Option<f64>, at_most: bool, why: &dyn Fn() -> String| {
            let passed = match actual {
                Some(a) if at_most => a <= limit,
                Some(a) => a >= limit,
                None => false,
            };
            results.push(BudgetResult {
                name,
                limit,
                actual,
                passed,
                unmeasured: actual.is_none().then(why),
            });
        };
    if let Some(max) = budgets.max_first_visit_bytes {
        let actual = first("rewritten", mode).map(bytes);
        limit(
            format!("max-first-visit-bytes ({mode})"),
            max as f64,
            actual,
            true,
            &|| unmeasured(mode),
        );
    }
    if let Some(max) = budgets.max_requests {
        let actual = first("rewritten", mode).map(|r| r.requests as f64);
        limit(
            format!("max-requests ({mode})"),
            max as f64,
            actual,
            true,
            &|| unmeasured(mode),
        );
    }
    for (m, max) in &budgets.max_packets {
        let actual = first("rewritten", m).map(|r| r.packets as f64);
        limit(
            format!("max-packets ({m}, first visit)"),
            *max as f64,
            actual,
            true,
            &|| unmeasured(m),
        );
    }
    let source = budgets.time_source.unwrap_or_default();
    for (link, max) in &budgets.max_time_ms {
        let row = report.replay.iter().find(|r| {
            r.site == "rewritten"
                && r.test == Test::First
                && r.mode.as_str() == mode
                && r.link.name.eq_ignore_ascii_case(link)
        });
        let replayed = report
            .replay
            .iter()
            .any(|r| r.link.name.eq_ignore_ascii_case(link));
        let actual = row.and_then(|r| match source {
            TimeSource::Simulated => r.simulated_time.as_ref().map(|s| s.last_packet_ms.median),
            TimeSource::Measured => r.measured().then_some(r.time.last_packet_ms.median),
        });
        limit(
            format!(
                "max-time-ms ({mode}, first visit on {link}, {})",
                source.as_str()
            ),
            *max,
            actual,
            true,
            &|| match (row, source) {
                (Some(_), TimeSource::Measured) => {
                    format!("time on {link} was not measured (add --measure {link})")
                }
                (Some(_), TimeSource::Simulated) => format!("time on {link} was not simulated"),
                (None, _) if replayed || report.replay.is_empty() => unmeasured(mode),
                (None, _) => format!("link {link} was not replayed (see --link)"),
            },
        );
    }
    if let Some(min) = budgets.min_saving_percent {
        let actual = match (first("original", mode), first("rewritten", mode)) {
            (Some(o), Some(r)) if bytes(o) > 0.0 => Some(100.0 * (1.0 - bytes(r) / bytes(o))),
            _ => None,
        };
        limit(
            format!("min-saving-percent ({mode})"),
            min,
            actual,
            false,
            &|| unmeasured(mode),
        );
    }
    if budgets.no_verify_failures {
        let failed = report.images.iter().filter(|r| r.failed_a_check()).count();
        limit(
            "no-verify-failures".to_string(),
            0.0,
            Some(failed as f64),
            true,
            &String::new,
        );
    }
    results
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(site: &str, mode: &str, bytes: u64, packets: u64) -> ReplayRow {
        ReplayRow {
            requests: 43,
            bytes_up: 0,
            bytes_down: bytes,
            ..crate::replay::row::sample_row(site, mode, "first", packets, bytes)
        }
    }

    fn report() -> Report {
        Report {
            replay: vec![
                row("original", "pipelined", 1000, 100),
                row("rewritten", "pipelined", 800, 80),
            ],
            ..Report::default()
        }
    }

    #[test]
    fn a_webp_that_failed_its_check_counts_against_no_verify_failures_even_when_the_png_won() {
        let image = |reason: &str| crate::report::ImageRow {
            path: "a.gif".into(),
            from_bytes: 2000,
            to_path: "a.png".into(),
            to_bytes: 1000,
            png_bytes: Some(1000),
            webp_bytes: None,
            frames: 1,
            outcome: crate::image::Outcome::Converted,
            reason: reason.into(),
            original_kept: false,
            millis: 1.0,
            cpu_millis: 1.0,
            effort: Default::default(),
            format: crate::report::ImageFormat::Png,
        };
        let budgets = Budgets {
            no_verify_failures: true,
            ..Budgets::default()
        };
        let with = |reason: &str| Report {
            images: vec![image(reason)],
            ..report()
        };
        let clean = with("converted(png -1000 B; webp -900 B)");
        assert!(check(&budgets, &clean)[0].passed);
        let webp_failed =
            with("converted(png -1000 B; webp not verified: frame 1: pixel 3 differs)");
        let result = check(&budgets, &webp_failed).remove(0);
        assert!(!result.passed);
        assert_eq!(result.actual, Some(1.0));
    }

    #[test]
    fn budgets_that_hold_pass_and_others_fail() {
        let budgets = Budgets {
            max_first_visit_bytes: Some(800),
            max_requests: Some(42),
            max_packets: [("pipelined".to_string(), 100)].into(),
            min_saving_percent: Some(25.0),
            ..Budgets::default()
        };
        let results = check(&budgets, &report());
        let passed: Vec<(&str, bool)> = results
            .iter()
            .map(|r| (r.name.split(' ').next().unwrap(), r.passed))
            .collect();
        assert_eq!(
            passed,
            vec![
                ("max-first-visit-bytes", true),
                ("max-requests", false),
                ("max-packets", true),
                ("min-saving-percent", false),
            ]
        );
        assert!((results[3].actual.unwrap() - 20.0).abs() < 1e-9);
    }

    #[test]
    fn an_unmeasured_budget_does_not_hold() {
        let budgets = Budgets {
            max_packets: [("http10".to_string(), 1000)].into(),
            ..Budgets::default()
        };
        assert!(!check(&budgets, &report())[0].passed);
    }

    /// A row over Cable with a simulated paper's time of 1,000 ms, and, when `measured`, a
    /// measured median of 1,200 ms.
    fn cable(measured: bool) -> ReplayRow {
        let mut cable = row("rewritten", "pipelined", 800, 80);
        cable.link.name = "Cable".into();
        cable.time = Default::default();
        if measured {
            cable.time.last_packet_ms = crate::replay::Spread::of([1100.0, 1200.0, 1300.0]);
        }
        cable.simulated_time = Some(crate::replay::row::SimulatedTime {
            last_packet_ms: crate::replay::Spread::of([1000.0]),
            first_byte_ms: crate::replay::Spread::of([100.0]),
            complete_ms: crate::replay::Spread::of([990.0]),
            tcp: "cubic".into(),
            seeds: vec![1],
            timed_out_seeds: 0,
            retransmits: crate::replay::Spread::of([0.0]),
        });
        cable
    }

    fn check_time(
        report: &Report,
        link: &str,
        ms: f64,
        source: Option<TimeSource>,
    ) -> BudgetResult {
        let budgets = Budgets {
            max_time_ms: [(link.to_string(), ms)].into(),
            time_source: source,
            ..Budgets::default()
        };
        check(&budgets, report).remove(0)
    }

    #[test]
    fn a_time_budget_reads_the_simulated_time_of_its_own_link_and_fails_on_a_link_not_replayed() {
        let mut report = report();
        report.replay.push(cable(false));
        // Loopback's rewritten pipelined row comes first; the budget reads Cable's, simulated.
        assert!(check_time(&report, "cable", 1000.0, None).passed);
        let over = check_time(&report, "Cable", 999.0, None);
        assert!(!over.passed);
        assert_eq!(over.actual, Some(1000.0));
        assert!(over.name.contains("simulated"), "{}", over.name);
        let missing = check_time(&report, "3G", 1e9, None);
        assert!(!missing.passed);
        assert!(missing.unmeasured.unwrap().contains("3G was not replayed"));
    }

    #[test]
    fn a_measured_time_budget_reads_the_measured_median_and_fails_where_none_was_measured() {
        let mut report = report();
        report.replay.push(cable(false));
        let unmeasured = check_time(&report, "Cable", 1e9, Some(TimeSource::Measured));
        assert!(
            !unmeasured.passed,
            "simulated only: nothing measured to read"
        );
        assert!(unmeasured.unmeasured.unwrap().contains("--measure Cable"));
        report.replay.pop();
        report.replay.push(cable(true));
        let measured = check_time(&report, "Cable", 1150.0, Some(TimeSource::Measured));
        assert_eq!(measured.actual, Some(1200.0));
        assert!(!measured.passed);
        assert!(
            check_time(&report, "Cable", 1150.0, None).passed,
            "simulated: 1,000 ms"
        );
    }

    #[test]
    fn config_file_budgets_parse_and_flags_win() {
        let file: ConfigFile = toml::from_str(
            "[budgets]\nmax-requests = 50\nno-verify-failures = true\n[budgets.max-packets]\npipelined = 200\n[budgets.max-time-ms]\nCable = 1500\n",
        )
        .unwrap();
        let merged = file.budgets.overridden_by(Budgets {
            max_requests: Some(10),
            ..Budgets::default()
        });
        assert_eq!(merged.max_requests, Some(10));
        assert_eq!(merged.max_packets["pipelined"], 200);
        assert_eq!(merged.max_time_ms["Cable"], 1500.0);
        assert!(merged.no_verify_failures);
        let measured: ConfigFile =
            toml::from_str("[budgets]\ntime-source = \"measured\"\n").unwrap();
        assert_eq!(measured.budgets.time_source, Some(TimeSource::Measured));
        assert!(toml::from_str::<ConfigFile>("[budgets]\ntime-source = \"guessed\"\n").is_err());
        assert!(toml::from_str::<ConfigFile>("[budgets]\nmax-bytes = 1\n").is_err());
    }
}
