//! `webdiet audit`: the whole experiment in one call — crawl and analyze, rewrite, estimate
//! deflate, replay the original and the rewritten site, check budgets — returning one
//! [`Report`]. Each step is the stage function of its own module; this file only orders them.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use crate::deflate::WorthRule;
use crate::error::{Error, Problem, Result};
use crate::inventory::{self, AnalyzeOptions};
use crate::replay::load::Load;
use crate::replay::Test;
use crate::replay::{self, ReplayOptions, ServedSite};
use crate::report::model::headers::{self, HeaderCost};
use crate::report::model::{ResourceTotal, VisitResources};
use crate::report::{CompressionReport, Gates, Report};
use crate::rewrite::{self, RewriteOptions};
use crate::site::resolve::{Resolver, Target};
use crate::site::{self, CrawlOptions, FileKind, Site};

/// The links an audit reports time on when no `--link` is given: today's access links, each
/// simulated (docs/simulation.md); the private loopback is always replayed besides, for bytes
/// and packets as in the 1997 study, and for the recording the simulation replays.
pub const DEFAULT_LINKS: &str = crate::sim::link::profiles::AUDIT_LINKS;

/// Findings look for their line in site files up to this size (larger ones get none).
const FINDING_READ_LIMIT: u64 = 16 << 20;

/// Options for [`audit`].
#[derive(Debug, Clone)]
pub struct AuditOptions {
    /// The input site: a directory or an archive file.
    pub site: PathBuf,
    /// `--with` and `--at`, for an archive input. Default: none.
    pub archive: crate::archive::ArchiveOptions,
    /// Write the rewritten site as a new WACZ here (`--emit-wacz`, checked). Default: none.
    pub emit_wacz: Option<PathBuf>,
    pub crawl: CrawlOptions,
    pub analyze: AnalyzeOptions,
    /// Where the rewritten site is written (`rewrite.out_site`) and how images are converted.
    pub rewrite: RewriteOptions,
    /// Measure and report, but keep no rewritten site (`--dry-run`): the report names none,
    /// and the caller discards the tree at `rewrite.out_site` (the command line builds it in
    /// the output's staging directory and never moves it into place). Default: `false`.
    pub dry_run: bool,
    /// The replay, or `None` to skip it (`--no-replay`). Default: all modes and tests, 5 runs.
    pub replay: Option<ReplayOptions>,
    /// The "worth compressing" rule. Default: [`WorthRule::default`].
    pub worth: WorthRule,
    /// Which files brotli 11 and zstd 19 are measured on. Default: every file; `batch`
    /// samples (`--estimate-sample`).
    pub top_levels: crate::deflate::TopLevels,
    /// Budgets and a baseline that make the run fail (exit code 1): `webdiet.toml`, the
    /// flags, `--budgets FILE`, `--baseline`. Default: none.
    pub gates: Gates,
    /// The most runs a measured emulated link gets while original and rewritten cannot be
    /// told apart (`--max-runs`): runs are added two at a time from the replay's `runs`.
    /// Default: 11.
    pub max_runs: usize,
}

/// Progress notes for a person: one call per stage.
pub trait Progress {
    fn stage(&self, step: usize, of: usize, what: &str);
    fn done(&self);
    /// Within a stage: what runs now and how long is left (slow links).
    fn note(&self, _what: &str) {}
}

/// Runs the whole pipeline.
pub fn audit(opts: &AuditOptions, progress: &dyn Progress) -> Result<Report> {
    let mut steps = if opts.replay.is_some() { 5 } else { 3 };
    let mut report = Report::new(&opts.site);
    let mut timed = Timer::default();

    progress.stage(1, steps, "crawling and analyzing");
    let input = crate::archive::open_input(&opts.site, &opts.crawl, &opts.archive)?;
    let archive = input.archive.as_ref();
    let original = &input.site;
    let analyze = input.analyze_options(&opts.analyze);
    let mut replay = opts.replay.clone();
    // An archive's visit starts at its start page (pages.jsonl's first, else the site root's
    // page, else the first HTML 200 capture in record order), as a directory's at its index.
    if let (Some(r), Some(first)) = (replay.as_mut(), archive.and_then(|a| a.first_page())) {
        if r.pages == replay::Pages::Index {
            r.pages = replay::Pages::One(first.to_string());
        }
    }
    let page = replay.as_ref().and_then(|r| match &r.pages {
        replay::Pages::One(page) => Some(page.as_str()),
        _ => None,
    });
    require_input_page(&input, &opts.site, page)?;
    // Budgets that could never be checked are refused now, before any work.
    let pages: Vec<String> = original
        .files
        .iter()
        .filter(|f| f.kind == FileKind::Html)
        .map(|f| f.path.clone())
        .collect();
    let visited = match replay.as_ref().map(|r| &r.pages) {
        Some(replay::Pages::One(page)) => Some(page.clone()),
        Some(replay::Pages::Index) => site::resolve::Resolver::new(original, None)
            .entry_page()
            .or_else(|| pages.first().cloned()),
        _ => None,
    };
    crate::report::model::budgets::check_paths(&opts.gates.limits, &pages, visited.as_deref())?;
    if let Some(problem) = no_pages(original) {
        // Nothing to visit: the audit is the rewrite and the estimate, as with --no-replay.
        replay = None;
        report.problems.push(problem);
    }
    if replay.is_none() {
        steps = 3;
    }
    let inventory = inventory::analyze(original, &analyze);
    report.inventory = Some((&inventory).into());
    if let Some(a) = archive {
        report.archive = Some(a.report.clone());
        report.problems.extend(a.problems.iter().cloned());
    }
    timed.lap(&mut report, "analyze");

    progress.stage(2, steps, "rewriting (GIF → PNG/APNG, markup → CSS)");
    let mut rewrite_opts = opts.rewrite.clone();
    rewrite_opts.analyze = analyze;
    // A dry run's tree is measured and discarded: not synced.
    rewrite_opts.scratch |= opts.dry_run;
    let done = rewrite::rewrite(original, &inventory, &rewrite_opts)?;
    report.add_rewrite(done, &inventory);
    report.rewrite.dry_run = opts.dry_run;
    if opts.dry_run {
        report.site.rewritten = None;
    }
    let rewritten = site::crawl(&opts.rewrite.out_site, &opts.crawl)?;
    timed.lap(&mut report, "rewrite");

    progress.stage(3, steps, "estimating deflate savings");
    // With no replay and no archive's captured types, only the estimate reads the sites: their
    // text files are all it needs (Space Jam's images held 40 MB more at the peak of a unit).
    let estimate_only = replay.is_none() && archive.is_none();
    let served = |site: &Site| match estimate_only {
        true => ServedSite::text_of(site),
        false => ServedSite::from_site(site),
    };
    let (mut served_original, problems) = served(original);
    report.problems.extend(problems);
    let (mut served_rewritten, problems) = served(&without_sidecars(&rewritten));
    served_rewritten.dated_like(&served_original);
    report.problems.extend(problems);
    if let Some(a) = archive {
        // The original as captured; the rewritten with webdiet's headers (charsets kept).
        a.serve_original(&mut served_original);
        a.serve_rewritten(&mut served_rewritten);
        if let Some(r) = report.archive.as_mut() {
            r.header_changes = a.header_changes(&served_rewritten);
        }
    }
    let sets = [
        served_original.text_files().collect(),
        served_rewritten.text_files().collect(),
    ];
    let mut estimates = crate::deflate::estimates(&sets, &opts.worth, opts.top_levels).into_iter();
    report.compression = Some(CompressionReport {
        rule: opts.worth.describe(),
        original: estimates.next().unwrap_or_default(),
        rewritten: estimates.next(),
    });
    timed.lap(&mut report, "compression");

    // Chromium asked for and missing: the audit goes on with webdiet's client, says why,
    // and the command exits 2 once the reports are written.
    if let Some(r) = replay.as_mut() {
        if r.clients.contains(&replay::ClientKind::Chromium) {
            if let Err(e) = replay::chromium::check(&r.chromium) {
                report.browser_unavailable = Some(e.to_string());
                r.clients.retain(|c| *c != replay::ClientKind::Chromium);
            }
        }
    }
    let mut load = Load::watch();
    if let Some(replay_opts) = &replay {
        for (step, label, served) in [
            (4, "original", &served_original),
            (5, "rewritten", &served_rewritten),
        ] {
            progress.stage(step, steps, &format!("replaying the {label} site"));
            let mut o = replay_opts.clone();
            o.label = label.to_string();
            let replayed = replay::replay_with(served, &o, &|what| progress.note(what))?;
            load.sample();
            report.replay_method = Some(replayed.method.detail.clone());
            report.replay.extend(replayed.rows);
            report.browser.extend(replayed.browser);
            if report.replay_links.is_empty() {
                report.replay_links = replayed.links;
            }
            timed.lap(&mut report, &format!("replay-{label}"));
        }
        let sites = [
            ("original", &served_original),
            ("rewritten", &served_rewritten),
        ];
        more_runs(
            &mut report,
            &sites,
            replay_opts,
            opts.max_runs,
            &mut || load.sample(),
            progress,
            &|served, o, note| replay::replay_with(served, o, note),
        )?;
        timed.lap(&mut report, "replay-more-runs");
        report.visitor = Some(visitor(
            &served_original,
            &served_rewritten,
            replay_opts,
            archive.and_then(|a| a.first_page()),
        ));
        report.visitor_error =
            replay::chromium::validate::against(&report.browser, report.visitor.as_ref());
        timed.lap(&mut report, "visitor");
    }
    progress.done();
    let measured = replay.as_ref().is_some_and(|r| {
        r.links
            .iter()
            .any(|l| matches!(l, replay::Link::Emulated(_)))
    });
    if measured {
        report.measured_load = Some(load.finish());
    }
    report.simulation_error = replay::simulated::validation(&report.replay);
    // The packet tables read the first row of a site, mode and test: loopback's, when it ran
    // (the 1997 study's figures); the times are read per link.
    report.replay.sort_by_key(|r| r.link.name != "loopback");

    if let Some(replay_opts) = &replay {
        report.header_cost = header_cost(&served_original, replay_opts)?;
        timed.lap(&mut report, "header-cost");
    }
    report.resources = first_visit_resources(&report, &served_original, &served_rewritten);
    // Everything derived (TLS's cost, what a visitor saves, opportunities, findings with the
    // lines of the original site's files), then the budgets and the baseline.
    let read = |path: &str| {
        let file = original.file(path)?;
        (file.bytes <= FINDING_READ_LIMIT)
            .then(|| original.read(path).ok())
            .flatten()
    };
    report.finish(&opts.gates, Some(&read));
    if let Some(path) = &opts.emit_wacz {
        let emitted = crate::archive::emit::emit(
            path,
            &crate::archive::emit::Source {
                input: &opts.site,
                original,
                rewritten: &opts.rewrite.out_site,
                archive,
                site_url: rewrite_opts.analyze.site_url.as_ref(),
                report: &report,
            },
        )?;
        report.archive.get_or_insert_with(Default::default).emitted = Some(emitted);
    }
    Ok(report)
}

/// Every page of both versions, loaded by the simulated browser over every simulated link and
/// Lighthouse's mobile profile (`sim::paint`): what a visitor sees. The visits after the
/// landing page start from the replay's page (an archive's first entry page, else the site's
/// index page).
fn visitor(
    original: &ServedSite,
    rewritten: &ServedSite,
    replay_opts: &ReplayOptions,
    entry: Option<&str>,
) -> crate::sim::paint::site::SitePaint {
    let pages: Vec<String> = original
        .site
        .files
        .iter()
        .filter(|f| f.kind == FileKind::Html && rewritten.resource(&f.path).is_some())
        .map(|f| f.path.clone())
        .collect();
    let landing = match &replay_opts.pages {
        replay::Pages::One(page) => Some(page.clone()),
        _ => None,
    }
    .or_else(|| entry.map(str::to_string))
    .or_else(|| crate::site::resolve::Resolver::new(&original.site, None).entry_page())
    .or_else(|| pages.first().cloned())
    .unwrap_or_default();
    let links = crate::sim::paint::site::links_for(&replay_opts.simulate);
    crate::sim::paint::site::site_paint(
        original,
        rewritten,
        &pages,
        &landing,
        &links,
        crate::sim::paint::Cpu::CHROMIUM,
    )
}

/// One round of more runs: the replay of a site with the given options (a test puts in one
/// that fails at once).
type Visit<'a> = dyn Fn(&ServedSite, &ReplayOptions, &dyn Fn(&str)) -> Result<replay::Replay> + 'a;

/// Adds runs over each measured emulated link, two at a time, in the modes where the original
/// and the rewritten site cannot be told apart yet (the 90% confidence intervals of their
/// medians overlap, or there are too few runs for one), until they can or a row has
/// `max_runs`. A link whose runs `--runs-on` fixes is left as it is.
///
/// Bounded whatever the visits return: a round that brings a row fewer runs than it asked
/// for (its visits failed, or returned at once with nothing measured) leaves that row out of
/// later rounds, with a note, so every round either adds runs towards `max_runs` or takes a
/// row out, and the loop ends.
fn more_runs(
    report: &mut Report,
    sites: &[(&str, &ServedSite)],
    replay_opts: &ReplayOptions,
    max_runs: usize,
    sample_load: &mut dyn FnMut(),
    progress: &dyn Progress,
    visit: &Visit<'_>,
) -> Result<()> {
    const STEP: usize = 2;
    let key = |r: &replay::ReplayRow| {
        (
            r.site.clone(),
            r.link.name.clone(),
            r.mode,
            r.test,
            r.page.clone(),
        )
    };
    for link in &replay_opts.links {
        let fixed = replay_opts
            .runs_on
            .iter()
            .any(|(name, _)| name.eq_ignore_ascii_case(link.name()));
        if !matches!(link, replay::Link::Emulated(_)) || fixed {
            continue;
        }
        // Rows whose runs stopped coming: no more rounds for them.
        let mut stalled = std::collections::BTreeSet::new();
        // No visit over the link can end within one of its round trips: one that does was
        // not a visit.
        let at_least_ms = match link {
            replay::Link::Emulated(spec) => (spec.up.delay + spec.down.delay).as_secs_f64() * 1e3,
            replay::Link::Loopback => 0.0,
        };
        loop {
            let mut modes = Vec::new();
            let mut fewest = usize::MAX;
            let mut asked = Vec::new();
            for row in report.replay.iter().filter(|r| {
                r.site == "original"
                    && r.link.name == link.name()
                    && r.measured()
                    && !stalled.contains(&key(r))
            }) {
                let Some(other) = report.replay.iter().find(|r| {
                    r.site == "rewritten"
                        && r.link.name == row.link.name
                        && r.mode == row.mode
                        && r.test == row.test
                        && r.page == row.page
                }) else {
                    continue;
                };
                let runs = row.runs.min(other.runs);
                if runs < max_runs && !replay::simulated::told_apart(row, other) {
                    if !modes.contains(&row.mode) {
                        modes.push(row.mode);
                    }
                    fewest = fewest.min(runs);
                    for r in [row, other] {
                        asked.push((key(r), r.time.last_packet_ms.runs));
                    }
                }
            }
            if modes.is_empty() {
                break;
            }
            let mut o = replay_opts.clone();
            o.links = vec![link.clone()];
            o.simulate.clear();
            o.runs_on.clear();
            o.modes = modes;
            o.runs = STEP.min(max_runs - fewest);
            o.seed = replay_opts.seed.wrapping_add(fewest as u64);
            o.clients = vec![replay::ClientKind::Webdiet];
            o.capture = None;
            for (label, served) in sites {
                progress.note(&format!(
                    "{} ({label}): {} more runs in {} mode(s) whose times overlap",
                    link.name(),
                    o.runs,
                    o.modes.len()
                ));
                o.label = label.to_string();
                let replayed = visit(served, &o, &|what| progress.note(what))?;
                sample_load();
                for more in replayed.rows {
                    let at_once = more
                        .last_packet_runs_ms()
                        .iter()
                        .any(|&ms| ms < at_least_ms);
                    if at_once {
                        continue;
                    }
                    if let Some(row) = report.replay.iter_mut().find(|r| key(r) == key(&more)) {
                        row.absorb(more);
                    }
                }
            }
            for (k, measured_before) in asked {
                let measured = report
                    .replay
                    .iter()
                    .find(|r| key(r) == k)
                    .map_or(0, |r| r.time.last_packet_ms.runs);
                if measured < measured_before + o.runs {
                    if stalled.insert(k.clone()) {
                        progress.note(&format!(
                            "{} ({}): the runs asked for in {} {} did not come (their visits \
                             failed or measured nothing); no more rounds for it",
                            k.1,
                            k.0,
                            k.2.as_str(),
                            k.3.as_str()
                        ));
                    }
                    // Its partner cannot be told apart without it either.
                    for r in report.replay.iter().filter(|r| {
                        r.link.name == k.1 && r.mode == k.2 && r.test == k.3 && r.page == k.4
                    }) {
                        stalled.insert(key(r));
                    }
                }
            }
        }
    }
    Ok(())
}

/// Refuses, right after the crawl and before anything is rewritten, a site the audit could
/// not work on: one without any file, or without the page `--page` names. A site with files
/// but no page (an archive of images or of JSON) is read, rewritten and estimated; nothing is
/// visited ([`no_pages`]).
pub fn require_page(site: &Site, page: Option<&str>) -> Result<()> {
    if site.files.is_empty() {
        return Err(Error::EmptySite {
            path: site.root.clone(),
        });
    }
    let unreadable = |page: &str| {
        site.problems
            .iter()
            .find(|p| p.code == "unreadable" && p.path == page)
    };
    match page {
        Some(page) if site.file(page).is_none() => match unreadable(page) {
            // There, but not readable: say why, not "no such page".
            Some(problem) => Err(Error::Invalid {
                path: site.root.join(page),
                message: problem.message.clone(),
            }),
            None => Err(Error::NoSuchPage {
                path: site.root.join(page),
            }),
        },
        _ => Ok(()),
    }
}

/// [`require_page`] for an input as given: an archive's site is named by the archive file, not
/// by the private directory its captures were written to. An archive whose captures make no
/// file (a lone redirect) is not refused: its report says what it holds.
pub fn require_input_page(
    input: &crate::archive::Input,
    given: &std::path::Path,
    page: Option<&str>,
) -> Result<()> {
    match (require_page(&input.site, page), &input.archive) {
        (Err(Error::EmptySite { .. }), Some(_)) => Ok(()),
        (Err(Error::NoSuchPage { .. }), Some(_)) => Err(Error::NoSuchPage {
            path: given.join(page.unwrap_or_default()),
        }),
        (done, _) => done,
    }
}

/// The problem that says a site has no page to visit (no HTML file: an archive of images, of
/// JSON, or of one redirect), so that its report is read as what it is; `None` when it has one.
/// When its pages are there but could not be read (permission denied), it says so, with the
/// reason: "no HTML file" would send the owner looking for a file that is there.
pub fn no_pages(site: &Site) -> Option<Problem> {
    if site.files.iter().any(|f| f.kind == FileKind::Html) {
        return None;
    }
    let unread: Vec<&Problem> = site
        .problems
        .iter()
        .filter(|p| p.code == "unreadable" && looks_like_a_page(&p.path))
        .collect();
    let message =
        match unread.first() {
            None => "the site has no page (no HTML file): its files are rewritten and estimated, \
                 nothing is visited, so nothing is replayed"
                .to_string(),
            Some(first) => {
                format!(
            "no page of the site could be read ({} {}: {}{}): its other files are rewritten \
             and estimated, nothing is visited, so nothing is replayed",
            if unread.len() == 1 { "the page" } else { "the pages" },
            first.path,
            first.message,
            match unread.len() {
                1 => String::new(),
                n => format!(", and {} more", n - 1),
            }
        )
            }
        };
    Some(Problem::new("", "no-pages", message))
}

/// Whether a site path is named like a page (`.html`, `.htm`, `.xhtml`, `.shtml`).
fn looks_like_a_page(path: &str) -> bool {
    let ext = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    matches!(ext.as_deref(), Some("html" | "htm" | "xhtml" | "shtml"))
}

/// The rewritten site as a client sees it: `.gz`, `.br` and `.zst` sidecars are an alternative
/// representation of another file, not resources of their own.
fn without_sidecars(site: &Site) -> Site {
    let files = site
        .files
        .iter()
        .filter(|f| {
            !["gz", "br", "zst"].iter().any(|ext| {
                f.path
                    .strip_suffix(ext)
                    .and_then(|p| p.strip_suffix('.'))
                    .is_some_and(|source| site.file(source).is_some())
            })
        })
        .cloned()
        .collect();
    site.with_files(files)
}

/// What a first visit to each site version fetched, by Lighthouse's resource types: the
/// requests of the reference mode's first row (loopback's when it ran), each with the body the
/// server sends for it and an even share of the visit's response header bytes.
fn first_visit_resources(
    report: &Report,
    original: &ServedSite,
    rewritten: &ServedSite,
) -> Vec<VisitResources> {
    let origin = url::Url::parse("http://webdiet.invalid/").expect("constant URL parses");
    let mut out = Vec::new();
    for (label, served) in [("original", original), ("rewritten", rewritten)] {
        let Some(row) = report.replay.iter().find(|r| {
            r.site == label && r.mode == replay::Mode::reference() && r.test == Test::First
        }) else {
            continue;
        };
        if row.waterfall.is_empty() {
            continue;
        }
        let resolver = Resolver::new(&served.site, None);
        let n = (row.waterfall.len() as u64).max(1);
        let (share, rest) = (row.headers.down / n, row.headers.down % n);
        let mut by_type: BTreeMap<String, ResourceTotal> = BTreeMap::new();
        for (i, request) in row.waterfall.iter().enumerate() {
            let resource = match resolver.resolve(&origin, &request.target) {
                Target::Local { path, .. } => served.resource(&path),
                _ => None,
            };
            let (kind, bytes) = resource.map_or(("other", 0), |r| {
                (
                    resource_type(&crate::archive::http::essence(&r.content_type)),
                    r.body.len() as u64,
                )
            });
            let total = by_type.entry(kind.to_string()).or_default();
            total.requests += 1;
            total.bytes += bytes + share + u64::from((i as u64) < rest);
        }
        out.push(VisitResources {
            site: label.to_string(),
            page: row.page.clone(),
            by_type,
        });
    }
    out
}

/// Lighthouse's resource type of a content type: `document`, `stylesheet`, `script`,
/// `image`, `media`, `font` or `other`.
fn resource_type(content_type: &str) -> &'static str {
    let essence = content_type.split(';').next().unwrap_or("").trim();
    match essence {
        "text/html" | "application/xhtml+xml" => "document",
        "text/css" => "stylesheet",
        t if t.contains("javascript") || t.contains("ecmascript") => "script",
        t if t.starts_with("image/") => "image",
        t if t.starts_with("audio/") || t.starts_with("video/") => "media",
        t if t.starts_with("font/") || t.contains("font") => "font",
        _ => "other",
    }
}

/// Wall-clock time per stage, into `report.timings_ms`.
struct Timer(Instant);

impl Default for Timer {
    fn default() -> Self {
        Timer(Instant::now())
    }
}

impl Timer {
    fn lap(&mut self, report: &mut Report, stage: &str) {
        let now = Instant::now();
        report
            .timings_ms
            .insert(stage.to_string(), (now - self.0).as_secs_f64() * 1000.0);
        self.0 = now;
    }
}

/// Header bytes of HTTP/1.1 against HTTP/2 for both request header sets, on the original
/// site: a replay of its own, on loopback, one run (header bytes do not vary between runs or
/// links), since the other figures use one set.
fn header_cost(
    served: &ServedSite,
    replay_opts: &replay::ReplayOptions,
) -> Result<Vec<HeaderCost>> {
    let Some(modes) = headers::modes() else {
        return Ok(Vec::new());
    };
    let mut rows = Vec::new();
    for set in [replay::HeaderSet::Libwww, replay::HeaderSet::Browser] {
        let mut o = replay_opts.clone();
        o.label = "original".to_string();
        o.modes = modes.to_vec();
        o.runs = 1;
        o.runs_on.clear();
        // Header bytes are the same on any link.
        o.links = vec![replay::Link::Loopback];
        o.simulate.clear();
        o.clients = vec![replay::ClientKind::Webdiet];
        o.capture = None;
        o.client.headers = set;
        rows.extend(replay::replay(served, &o)?.rows);
    }
    Ok(headers::costs(&rows, replay_opts.client.headers.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::row::{sample_row, RunFigures};
    use crate::replay::{Method, Replay, ReplayRow};
    use std::cell::Cell;

    /// A 3G row of `site` whose runs took `times` ms: the original and the rewritten site
    /// cannot be told apart with these.
    fn row(site: &str, times: &[f64]) -> ReplayRow {
        let mut row = sample_row(site, "pipelined", "first", 40, 40_000);
        row.link.name = "3G".into();
        row.runs = times.len();
        row.measured_runs = times
            .iter()
            .map(|&t| RunFigures {
                last_packet_ms: Some(t),
                complete_ms: Some(t),
                first_byte_ms: Some(t / 4.0),
                ..RunFigures::default()
            })
            .collect();
        row.time.last_packet_ms = crate::replay::row::Spread::of(times.iter().copied());
        row
    }

    fn replayed(rows: Vec<ReplayRow>) -> Replay {
        Replay {
            method: Method {
                name: "link".into(),
                detail: String::new(),
                tcp_maxseg: None,
            },
            mss: 1460,
            rows,
            links: Vec::new(),
            browser: Vec::new(),
            recorded: Vec::new(),
        }
    }

    struct Notes(std::cell::RefCell<Vec<String>>);

    impl Progress for Notes {
        fn stage(&self, _: usize, _: usize, _: &str) {}
        fn done(&self) {}
        fn note(&self, what: &str) {
            self.0.borrow_mut().push(what.to_string());
        }
    }

    /// Runs `more_runs` over 3G on two rows that overlap, with `visit` standing for the
    /// replay; returns how many rounds it asked for and the notes.
    fn adaptive(visit: &Visit<'_>) -> (Report, usize, Vec<String>) {
        let mut report = Report::new(std::path::Path::new("site"));
        report.replay = vec![
            row("original", &[1000.0, 1010.0]),
            row("rewritten", &[1005.0, 1015.0]),
        ];
        let opts = ReplayOptions {
            links: crate::sim::link::parse("3G").unwrap(),
            ..ReplayOptions::default()
        };
        let site = ServedSite::from_memory("site", Default::default());
        let sites = [("original", &site), ("rewritten", &site)];
        let notes = Notes(Default::default());
        let rounds = Cell::new(0);
        let counted = |s: &ServedSite, o: &ReplayOptions, n: &dyn Fn(&str)| {
            rounds.set(rounds.get() + 1);
            assert!(rounds.get() < 1000, "the adaptive loop does not end");
            visit(s, o, n)
        };
        more_runs(&mut report, &sites, &opts, 11, &mut || {}, &notes, &counted).unwrap();
        (report, rounds.get(), notes.0.into_inner())
    }

    #[test]
    fn visits_that_fail_at_once_end_the_adaptive_runs_in_one_round() {
        let (report, rounds, notes) = adaptive(&|_, _, _| Ok(replayed(Vec::new())));
        assert_eq!(rounds, 2, "one round, both sites");
        assert!(
            notes.iter().any(|n| n.contains("did not come")),
            "{notes:?}"
        );
        assert!(report.replay.iter().all(|r| r.runs == 2));
    }

    #[test]
    fn visits_that_return_within_a_round_trip_are_not_runs() {
        // 3G's round trip is 300 ms: a "visit" of 2 ms measured nothing.
        let (report, rounds, _) =
            adaptive(&|_, o, _| Ok(replayed(vec![row(&o.label, &[2.0, 2.0])])));
        assert_eq!(rounds, 2);
        assert!(report.replay.iter().all(|r| r.runs == 2));
    }

    #[test]
    fn visits_that_keep_overlapping_stop_at_the_most_runs() {
        let (report, rounds, _) = adaptive(&|_, o, _| {
            let mut r = row(&o.label, &vec![1007.0; o.runs]);
            r.runs = o.runs;
            Ok(replayed(vec![r]))
        });
        assert!(
            report.replay.iter().all(|r| r.runs == 11),
            "{rounds} rounds"
        );
        assert!(rounds <= 2 * 11_usize.div_ceil(2));
    }
}
