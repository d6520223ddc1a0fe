//! Budgets checked against the report: each [`Limit`] (from `webdiet.toml` and the flags, or a
//! `--budgets` file in Lighthouse's, Lighthouse CI's or sitespeed.io's shape; `crate::budget`
//! reads them) becomes a [`BudgetResult`] for the visited page. Every limit reads the first
//! visit to the rewritten site: bytes, requests and packets from the replay (the budget mode's
//! first row, loopback's when it ran), time from [`savings::link_time`], sizes and counts by
//! resource type from `report.resources`.

use super::baseline::{self, Baseline};
use super::figures;
use super::report::{BudgetLevel, BudgetResult, Report, TimeSource};
use super::savings;
use crate::replay::{Mode, Test};

/// What a budget measures on the first visit to the rewritten site.
#[derive(Debug, Clone, PartialEq)]
pub enum Measure {
    /// Payload bytes, both ways, in the budget mode.
    Bytes,
    /// Requests, in the budget mode.
    Requests,
    /// Packets by the paper's rules, in this mode.
    Packets(Mode),
    /// The time on this link (`None`: the first named link), in the budget mode.
    Time(Option<String>),
    /// Bytes saved against the original site, in percent of the original.
    SavingPercent,
    /// Images whose conversion failed its pixel check.
    VerifyFailures,
    /// Bytes of one resource type (`total`, `document`, `script`, `stylesheet`, `image`,
    /// `media`, `font`, `other`, `third-party`).
    ResourceSize(String),
    /// Requests of one resource type.
    ResourceCount(String),
    /// A milestone of the simulated browser's first visit (HTTP/2) to the visited page, on
    /// this link (`None`: Lighthouse's mobile profile, as Lighthouse reads its budgets).
    Paint(PaintMetric, Option<String>),
}

/// A milestone of the simulated browser's load ([`crate::sim::paint::Paint`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PaintMetric {
    Fcp,
    Lcp,
    Dcl,
    Load,
}

impl PaintMetric {
    pub fn as_str(self) -> &'static str {
        match self {
            PaintMetric::Fcp => "first-contentful-paint",
            PaintMetric::Lcp => "largest-contentful-paint",
            PaintMetric::Dcl => "dom-content-loaded",
            PaintMetric::Load => "load",
        }
    }

    fn of(self, p: &crate::sim::paint::Paint) -> f64 {
        match self {
            PaintMetric::Fcp => p.fcp_ms,
            PaintMetric::Lcp => p.lcp_ms,
            PaintMetric::Dcl => p.dcl_ms,
            PaintMetric::Load => p.load_ms,
        }
    }
}

/// The link a paint budget is read on when it names none: Lighthouse's own default.
pub const PAINT_LINK: &str = "lighthouse-mobile";

impl Measure {
    /// The stable id of `BudgetResult::metric`, and its unit.
    fn metric(&self) -> (String, &'static str) {
        match self {
            Measure::Bytes => ("bytes".into(), "bytes"),
            Measure::Requests => ("requests".into(), "requests"),
            Measure::Packets(_) => ("packets".into(), "packets"),
            Measure::Time(_) => ("time".into(), "ms"),
            Measure::SavingPercent => ("saving-percent".into(), "%"),
            Measure::VerifyFailures => ("verify-failures".into(), "count"),
            Measure::ResourceSize(kind) => (format!("size:{kind}"), "bytes"),
            Measure::ResourceCount(kind) => (format!("count:{kind}"), "requests"),
            Measure::Paint(m, _) => (m.as_str().to_string(), "ms"),
        }
    }
}

/// One limit to check.
#[derive(Debug, Clone, PartialEq)]
pub struct Limit {
    /// How the result is named: `max-requests (pipelined)`, `resourceSizes image`, …
    pub name: String,
    pub measure: Measure,
    pub limit: f64,
    /// A minimum (`min-saving-percent`) rather than a maximum.
    pub at_least: bool,
    pub level: BudgetLevel,
    /// The pages it applies to, robots.txt-style (`/*`, `/blog`, `/uk/*/cart$`); `None`: all.
    pub path: Option<String>,
    /// Limits of one Lighthouse `Budget` object share a group: for a page that several groups'
    /// paths match, only the last group applies, as in Lighthouse.
    pub group: Option<usize>,
    /// Where it was set: `webdiet.toml`, `flags`, the `--budgets` file.
    pub source: String,
    /// Where in its source, when that is a budget file: `budget 2 (line 3, column 5)`.
    pub position: Option<String>,
}

impl Limit {
    /// A maximum of level `error` for every page.
    pub fn new(name: impl Into<String>, measure: Measure, limit: f64, source: &str) -> Self {
        Limit {
            name: name.into(),
            measure,
            limit,
            at_least: false,
            level: BudgetLevel::Error,
            path: None,
            group: None,
            source: source.to_string(),
            position: None,
        }
    }
}

/// Everything [`Report::finish`] checks: the limits, the mode they read, and a baseline.
#[derive(Debug, Clone, Default)]
pub struct Gates {
    pub limits: Vec<Limit>,
    /// The mode whose first visit the byte, request and time budgets read. Default: the
    /// reference mode (`pipelined`).
    pub mode: Option<Mode>,
    /// `--baseline`: an earlier report and how much worse this one may be.
    pub baseline: Option<Baseline>,
    /// Which time the time limits read (`time-source`). Default: simulated, the same verdict
    /// on any runner.
    pub time_source: Option<TimeSource>,
}

impl Gates {
    /// The budget mode.
    pub fn mode(&self) -> Mode {
        self.mode.unwrap_or_else(Mode::reference)
    }

    /// The time the time limits read.
    pub fn time_source(&self) -> TimeSource {
        self.time_source.unwrap_or(TimeSource::Simulated)
    }
}

/// Whether a robots.txt-style `pattern` matches a URL `path`: a prefix match where `*` is any
/// run of characters and a final `$` anchors the end (`/` and `/*` match everything).
pub fn path_matches(pattern: &str, path: &str) -> bool {
    let (pattern, anchored) = match pattern.strip_suffix('$') {
        Some(p) => (p, true),
        None => (pattern, false),
    };
    fn go(p: &[u8], s: &[u8], anchored: bool) -> bool {
        match p.split_first() {
            None => !anchored || s.is_empty(),
            Some((b'*', rest)) => (0..=s.len()).any(|i| go(rest, &s[i..], anchored)),
            Some((c, rest)) => s.first() == Some(c) && go(rest, &s[1..], anchored),
        }
    }
    go(pattern.as_bytes(), path.as_bytes(), anchored)
}

/// The URL paths a visited page answers to: `/index.html`, and `/` or `/dir/` for an index.
fn url_paths(page: &str) -> Vec<String> {
    let mut out = vec![format!("/{page}")];
    for index in ["index.html", "index.htm"] {
        if let Some(dir) = page.strip_suffix(index) {
            out.push(format!("/{dir}"));
        }
    }
    out
}

/// Refuses, before any work, budgets that could never be checked: a budget whose `path`
/// matches no page of the site (`pages`: the site paths of its HTML files), and a set of
/// budgets none of which applies to the page the audit visits (`visited`; `None` when it
/// visits every page). Lighthouse skips such a budget without a word; a CI job would then
/// pass with nothing checked.
pub fn check_paths(
    limits: &[Limit],
    pages: &[String],
    visited: Option<&str>,
) -> crate::error::Result<()> {
    let refused = |l: &Limit, message: String| crate::error::Error::Invalid {
        path: l.source.clone().into(),
        message: match &l.position {
            Some(at) => format!("{at}: {message}"),
            None => message,
        },
    };
    let shown = |paths: &mut dyn Iterator<Item = String>| {
        let all: Vec<String> = paths.collect();
        let mut list = all.iter().take(5).cloned().collect::<Vec<_>>().join(", ");
        if all.len() > 5 {
            list.push_str(&format!(", … ({} in all)", all.len()));
        }
        list
    };
    for l in limits {
        let Some(p) = l.path.as_deref().filter(|p| *p != "/" && *p != "/*") else {
            continue;
        };
        let matches = |page: &String| url_paths(page).iter().any(|u| path_matches(p, u));
        if !pages.iter().any(matches) {
            return Err(refused(
                l,
                format!(
                    "path {p:?} matches no page of the site (its pages: {})",
                    shown(&mut pages.iter().map(|page| format!("/{page}")))
                ),
            ));
        }
    }
    if let (Some(page), Some(first)) = (visited, limits.first()) {
        if applicable(limits, Some(page))
            .iter()
            .all(|a| *a == Applies::No)
        {
            let mut paths: Vec<String> = limits.iter().filter_map(|l| l.path.clone()).collect();
            paths.dedup();
            return Err(refused(
                first,
                format!(
                    "no budget applies to the visited page /{page} (their paths: {}); visit a \
                     page they cover with --page",
                    shown(&mut paths.into_iter())
                ),
            ));
        }
    }
    Ok(())
}

/// Every limit checked against `report`, then the baseline's.
pub fn check(gates: &Gates, report: &Report) -> Vec<BudgetResult> {
    let mode = gates.mode();
    let page = figures::row(report, "rewritten", mode, Test::First)
        .or_else(|| figures::row(report, "original", mode, Test::First))
        .map(|r| r.page.clone());
    let applies = applicable(&gates.limits, page.as_deref());
    let mut out: Vec<BudgetResult> = gates
        .limits
        .iter()
        .zip(applies)
        .filter(|(_, applies)| *applies != Applies::No)
        .map(|(limit, applies)| {
            let at = Evaluation {
                applies,
                mode,
                page: page.as_deref(),
                time_source: gates.time_source(),
            };
            evaluate(limit, &at, report)
        })
        .collect();
    if let Some(b) = &gates.baseline {
        out.extend(baseline::check(b, report, mode));
    }
    out
}

/// A paint milestone of the rewritten site's visited page (the landing page when the visit
/// covers several) on `link`, from the simulated browser's first visit in HTTP/2.
fn paint(
    report: &Report,
    metric: PaintMetric,
    link: &str,
    page: Option<&str>,
) -> Result<f64, String> {
    let v = report
        .visitor
        .as_ref()
        .ok_or("no browser was simulated (the replay was skipped: --no-replay)")?;
    let l = v
        .headline()
        .find(|l| l.link.eq_ignore_ascii_case(link))
        .ok_or_else(|| format!("the browser was not simulated on {link} (see --link)"))?;
    let page = page
        .filter(|p| l.pages.iter().any(|r| r.page == *p))
        .unwrap_or(&v.landing);
    l.pages
        .iter()
        .find(|r| r.page == page)
        .map(|r| metric.of(&r.rewritten))
        .ok_or_else(|| format!("{page} was not loaded by the simulated browser"))
}

/// Whether a limit applies to the visited page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Applies {
    Yes,
    No,
    /// The visit covers several pages at once (`--all-pages`): a path cannot be matched.
    Unknown,
}

fn applicable(limits: &[Limit], page: Option<&str>) -> Vec<Applies> {
    let matches = |limit: &Limit| -> Applies {
        match (&limit.path, page) {
            (None, _) => Applies::Yes,
            (Some(p), _) if p == "/" || p == "/*" => Applies::Yes,
            (Some(_), None) => Applies::Yes,
            (Some(_), Some(page)) if page.ends_with(" pages") => Applies::Unknown,
            (Some(p), Some(page)) => match url_paths(page).iter().any(|u| path_matches(p, u)) {
                true => Applies::Yes,
                false => Applies::No,
            },
        }
    };
    // Of the grouped limits (one Lighthouse budget object each), only the last group whose
    // path matches applies.
    let last_group = limits
        .iter()
        .filter(|l| l.group.is_some() && matches(l) != Applies::No)
        .filter_map(|l| l.group)
        .max();
    limits
        .iter()
        .map(|l| match l.group {
            Some(g) if Some(g) != last_group => Applies::No,
            _ => matches(l),
        })
        .collect()
}

/// What a limit is checked for: whether it applies, the budget mode, the page, the time source.
struct Evaluation<'a> {
    applies: Applies,
    mode: Mode,
    page: Option<&'a str>,
    time_source: TimeSource,
}

fn evaluate(limit: &Limit, at: &Evaluation, report: &Report) -> BudgetResult {
    let (applies, mode, page) = (at.applies, at.mode, at.page);
    let (metric, unit) = limit.measure.metric();
    let rewritten = figures::row(report, "rewritten", mode, Test::First);
    let original = figures::row(report, "original", mode, Test::First);
    let not_replayed = |m: Mode| {
        if report.replay.is_empty() {
            "the replay was skipped (--no-replay)".to_string()
        } else {
            format!("mode {m} was not replayed (see --modes)")
        }
    };
    let mut link = None;
    let measured: Result<f64, String> = match &limit.measure {
        _ if applies == Applies::Unknown => Err(format!(
            "the visit covers {} together (--all-pages); a budget for the pages {} needs one \
             page (--page PATH)",
            page.unwrap_or_default(),
            limit.path.as_deref().unwrap_or("/")
        )),
        Measure::Bytes => rewritten
            .map(|r| r.bytes() as f64)
            .ok_or_else(|| not_replayed(mode)),
        Measure::Requests => rewritten
            .map(|r| r.requests as f64)
            .ok_or_else(|| not_replayed(mode)),
        Measure::Packets(m) => figures::row(report, "rewritten", *m, Test::First)
            .map(|r| r.packets as f64)
            .ok_or_else(|| not_replayed(*m)),
        Measure::Time(wanted) => {
            let name = match wanted {
                Some(name) => figures::links(&report.replay)
                    .into_iter()
                    .find(|l| l.eq_ignore_ascii_case(name))
                    .map(str::to_string)
                    .ok_or_else(|| {
                        if report.replay.is_empty() {
                            not_replayed(mode)
                        } else {
                            format!("link {name} was not replayed (see --link)")
                        }
                    }),
                None => figures::emulated_links(report)
                    .first()
                    .map(|l| l.to_string())
                    .ok_or_else(|| {
                        "no named link was replayed (the time needs an emulated link, \
                         --link Cable)"
                            .to_string()
                    }),
            };
            name.and_then(|name| {
                link = Some(name.clone());
                let source = at.time_source;
                match savings::link_time_from(report, &name, mode, source) {
                    Some(t) => Ok(t.rewritten_ms.median),
                    None if figures::row_on(report, &name, "rewritten", mode, Test::First)
                        .is_none() =>
                    {
                        Err(not_replayed(mode))
                    }
                    None => Err(match source {
                        TimeSource::Measured => {
                            format!("time on {name} was not measured (add --measure {name})")
                        }
                        TimeSource::Simulated => format!("time on {name} was not simulated"),
                    }),
                }
            })
        }
        Measure::SavingPercent => match (original, rewritten) {
            (Some(o), Some(r)) if o.bytes() > 0 => {
                Ok(100.0 * (1.0 - r.bytes() as f64 / o.bytes() as f64))
            }
            _ => Err(not_replayed(mode)),
        },
        Measure::VerifyFailures => {
            Ok(report.images.iter().filter(|r| r.failed_a_check()).count() as f64)
        }
        Measure::ResourceSize(kind) | Measure::ResourceCount(kind) => {
            let size = matches!(limit.measure, Measure::ResourceSize(_));
            resource(report, page, kind, size)
        }
        Measure::Paint(metric, wanted) => {
            let name = wanted.as_deref().unwrap_or(PAINT_LINK);
            link = Some(name.to_string());
            paint(report, *metric, name, page)
        }
    };
    let (actual, unmeasured) = match measured {
        Ok(v) => (Some(v), None),
        Err(why) => (None, Some(why)),
    };
    let passed = match actual {
        Some(a) if limit.at_least => a >= limit.limit,
        Some(a) => a <= limit.limit,
        None => false,
    };
    let page_scoped = !matches!(
        limit.measure,
        Measure::VerifyFailures | Measure::SavingPercent
    );
    BudgetResult {
        name: limit.name.clone(),
        limit: limit.limit,
        actual,
        passed,
        unmeasured,
        level: limit.level,
        metric,
        operator: if limit.at_least { ">=" } else { "<=" }.to_string(),
        unit: unit.to_string(),
        page: page.filter(|_| page_scoped).map(str::to_string),
        link,
        source: limit.source.clone(),
    }
}

/// Bytes (`size`) or requests of one resource type in the first visit to the rewritten site.
fn resource(report: &Report, page: Option<&str>, kind: &str, size: bool) -> Result<f64, String> {
    let visit = report
        .resources
        .iter()
        .find(|v| v.site == "rewritten" && Some(v.page.as_str()) == page)
        .ok_or_else(|| {
            "no first visit's resources in this report (the replay was skipped, or the report \
             is older than resource budgets)"
                .to_string()
        })?;
    let pick = |t: &super::report::ResourceTotal| if size { t.bytes } else { t.requests };
    Ok(match kind {
        "total" => visit.by_type.values().map(pick).sum::<u64>() as f64,
        // The replay fetches nothing off-site: a site is served alone.
        "third-party" => 0.0,
        kind => visit.by_type.get(kind).map_or(0, pick) as f64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::row::sample_row;
    use crate::replay::ReplayRow;

    fn row(site: &str, mode: &str, bytes: u64, packets: u64) -> ReplayRow {
        ReplayRow {
            requests: 43,
            bytes_up: 0,
            bytes_down: bytes,
            ..sample_row(site, mode, "first", packets, bytes)
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

    fn limit(name: &str, measure: Measure, value: f64) -> Limit {
        Limit::new(name, measure, value, "flags")
    }

    fn gates(limits: Vec<Limit>) -> Gates {
        Gates {
            limits,
            ..Gates::default()
        }
    }

    #[test]
    fn budgets_that_hold_pass_and_others_fail() {
        let mut saving = limit("min-saving-percent", Measure::SavingPercent, 25.0);
        saving.at_least = true;
        let results = check(
            &gates(vec![
                limit("bytes", Measure::Bytes, 800.0),
                limit("requests", Measure::Requests, 42.0),
                limit("packets", Measure::Packets(Mode::reference()), 100.0),
                saving,
            ]),
            &report(),
        );
        let passed: Vec<bool> = results.iter().map(|r| r.passed).collect();
        assert_eq!(passed, [true, false, true, false]);
        assert!((results[3].actual.unwrap() - 20.0).abs() < 1e-9);
        assert_eq!(results[3].operator, ">=");
        assert_eq!(results[0].page.as_deref(), Some("index.html"));
        assert_eq!(results[3].page, None, "a saving is the site's");
    }

    #[test]
    fn an_unmeasured_budget_does_not_hold_and_says_why() {
        let mut r = report();
        let results = check(
            &gates(vec![limit(
                "packets",
                Measure::Packets(Mode::named("http10").unwrap()),
                1000.0,
            )]),
            &r,
        );
        assert!(!results[0].passed);
        assert!(results[0].unmeasured.as_ref().unwrap().contains("http10"));
        r.replay.clear();
        let results = check(&gates(vec![limit("bytes", Measure::Bytes, 1.0)]), &r);
        assert!(results[0]
            .unmeasured
            .as_ref()
            .unwrap()
            .contains("--no-replay"));
    }

    /// The report with both site versions over Cable: simulated paper's times of 1,500 ms
    /// (original) and 1,000 ms (rewritten), and, when `measured`, measured medians 200 ms
    /// later.
    fn over_cable(measured: bool) -> Report {
        let mut report = report();
        for (site, ms) in [("original", 1500.0), ("rewritten", 1000.0)] {
            let mut cable = row(site, "pipelined", 800, 80);
            cable.link = crate::replay::row::RowLink::new(
                &crate::sim::link::parse("Cable").unwrap()[0],
                vec![1],
            );
            cable.time = Default::default();
            if measured {
                cable.time.last_packet_ms =
                    crate::replay::Spread::of([ms + 100.0, ms + 200.0, ms + 300.0]);
            }
            cable.simulated_time = Some(crate::replay::row::SimulatedTime {
                last_packet_ms: crate::replay::Spread::of([ms]),
                first_byte_ms: crate::replay::Spread::of([100.0]),
                complete_ms: crate::replay::Spread::of([ms - 10.0]),
                tcp: "cubic".into(),
                seeds: vec![1],
                timed_out_seeds: 0,
                retransmits: crate::replay::Spread::of([0.0]),
            });
            report.replay.push(cable);
        }
        report
    }

    fn time_check(
        report: &Report,
        link: Option<&str>,
        ms: f64,
        source: Option<TimeSource>,
    ) -> BudgetResult {
        let measure = Measure::Time(link.map(str::to_string));
        let gates = Gates {
            time_source: source,
            ..gates(vec![limit("time", measure, ms)])
        };
        check(&gates, report).remove(0)
    }

    #[test]
    fn a_time_budget_reads_the_simulated_time_of_its_own_link_and_fails_on_a_link_not_replayed() {
        let report = over_cable(false);
        let one = |link: Option<&str>, ms: f64| time_check(&report, link, ms, None);
        // Loopback's rewritten pipelined row (13 ms) comes first; the budget reads Cable's,
        // simulated.
        assert!(one(Some("cable"), 1000.0).passed);
        let over = one(Some("Cable"), 999.0);
        assert!(!over.passed);
        assert_eq!(over.actual, Some(1000.0));
        assert!(
            one(None, 1000.0).passed,
            "no link named: the first named link"
        );
        assert_eq!(one(None, 1000.0).link.as_deref(), Some("Cable"));
        let missing = one(Some("3G"), 1e9);
        assert!(!missing.passed);
        assert!(missing.unmeasured.unwrap().contains("3G was not replayed"));
    }

    #[test]
    fn a_measured_time_budget_reads_the_measured_median_and_fails_where_none_was_measured() {
        let measured = Some(TimeSource::Measured);
        let unmeasured = time_check(&over_cable(false), Some("Cable"), 1e9, measured);
        assert!(
            !unmeasured.passed,
            "simulated only: nothing measured to read"
        );
        assert!(unmeasured.unmeasured.unwrap().contains("--measure Cable"));
        let report = over_cable(true);
        let result = time_check(&report, Some("Cable"), 1150.0, measured);
        assert_eq!(result.actual, Some(1200.0));
        assert!(!result.passed);
        assert!(
            time_check(&report, Some("Cable"), 1150.0, None).passed,
            "simulated: 1,000 ms"
        );
    }

    #[test]
    fn a_failed_warning_does_not_fail_the_run() {
        let mut l = limit("requests", Measure::Requests, 1.0);
        l.level = BudgetLevel::Warn;
        let r = check(&gates(vec![l]), &report()).remove(0);
        assert!(!r.passed && !r.fails_run());
    }

    #[test]
    fn robots_style_paths_match_prefixes_wildcards_and_ends() {
        assert!(path_matches("/", "/index.html"));
        assert!(path_matches("/*", "/a/b.html"));
        assert!(path_matches("/blog", "/blog/index.html"));
        assert!(!path_matches("/blog", "/index.html"));
        assert!(path_matches("/uk/*/cart$", "/uk/london/cart"));
        assert!(!path_matches("/uk/*/cart$", "/uk/london/cart/x"));
        assert!(path_matches("/*.html$", "/index.html"));
        assert!(!path_matches("/*.htm$", "/index.html"));
    }

    #[test]
    fn a_budget_path_that_matches_no_page_is_refused_naming_the_file_and_the_budget() {
        let budget = |path: &str| Limit {
            path: Some(path.into()),
            group: Some(1),
            source: "budget.json".into(),
            position: Some("budget 2 (line 5, column 3)".into()),
            ..limit("requests", Measure::Requests, 1.0)
        };
        let pages = ["index.html".to_string(), "blog/index.html".to_string()];
        let e = check_paths(&[budget("/shop/*")], &pages, None)
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "budget.json: budget 2 (line 5, column 3): path \"/shop/*\" matches no page of the \
             site (its pages: /index.html, /blog/index.html)"
        );
        assert!(check_paths(&[budget("/blog/")], &pages, None).is_ok());
        let e = check_paths(&[budget("/blog/")], &pages, Some("index.html"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("no budget applies to the visited page /index.html"),
            "{e}"
        );
        let everywhere = limit("requests", Measure::Requests, 1.0);
        assert!(
            check_paths(&[budget("/blog/"), everywhere], &pages, Some("index.html")).is_ok(),
            "one budget applies"
        );
    }

    #[test]
    fn of_lighthouse_budgets_matching_a_page_the_last_one_applies() {
        let grouped = |group: usize, path: &str, value: f64| Limit {
            group: Some(group),
            path: Some(path.into()),
            ..limit("requests", Measure::Requests, value)
        };
        let results = check(
            &gates(vec![
                grouped(0, "/*", 10.0),
                grouped(1, "/index.html", 50.0),
                grouped(2, "/blog", 1.0),
            ]),
            &report(),
        );
        assert_eq!(results.len(), 1, "{results:?}");
        assert_eq!(results[0].limit, 50.0);
        assert!(results[0].passed);
    }
}
