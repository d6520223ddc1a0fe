//! Runs one command: wires the stages together and sends the results to the right exporter.
//! This is the only place that knows the order of the stages for each command.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::config::{
    AnalyzeConfig, AuditConfig, Command, Config, LinksConfig, ReplayConfig, ReportConfig,
    ReportFormat, RewriteConfig, Verbosity, VerifyConfig,
};
use crate::error::{shown, Error, Problem, Result};
use crate::inventory;
use crate::output::{self, Plan, Transaction};
use crate::report;

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

/// Runs the configured command, after removing the scratch trees that killed runs left in
/// the system's temporary directory (`crate::scratch`).
pub fn run(config: &Config) -> Result<Status> {
    if !matches!(config.command, Command::ReplayChild | Command::Print(_)) {
        print_notes(&crate::scratch::clean(&std::env::temp_dir()), config);
    }
    match &config.command {
        Command::Analyze(analyze) => run_analyze(analyze, config),
        Command::Rewrite(cfg) => run_rewrite(cfg, config),
        Command::Audit(cfg) => run_audit(cfg, config),
        Command::Report(cfg) => run_report(cfg, config),
        Command::Verify(verify) => run_verify(verify, config),
        Command::Replay(replay) => run_replay(replay, config),
        Command::Links(links) => run_links(links),
        Command::Batch(cfg) => crate::batch::command::run(cfg, config),
        Command::Merge(cfg) => crate::merge::command::run(cfg, config),
        Command::Print(text) => print_stdout(text).map(|()| Status::Success),
        // The child's exit code is its protocol with the parent (3 = no namespace here), so it
        // leaves directly; its output is already flushed.
        Command::ReplayChild => std::process::exit(crate::replay::place::netns::child_main()),
    }
}

fn run_analyze(cfg: &AnalyzeConfig, config: &Config) -> Result<Status> {
    let input = crate::archive::open_input(&cfg.site, &cfg.crawl, &cfg.archive)?;
    let mut inventory = inventory::analyze(&input.site, &input.analyze_options(&cfg.analyze));
    print_problems(input.archive_problems(), Path::new(""), config);
    print_problems(&inventory.problems, &cfg.site, config);
    if let Some(a) = &input.archive {
        inventory.site = cfg.site.display().to_string();
        inventory.problems.extend(a.problems.iter().cloned());
        inventory.archive = Some(a.report.clone());
    }
    let text = if cfg.json {
        report::json::to_string(&inventory)
    } else {
        let mut text = report::terminal::inventory::inventory(&inventory, &config.text_style());
        if let Some(a) = &inventory.archive {
            text.push_str(&report::terminal::audit::archive(a));
        }
        text
    };
    print_stdout(&text)?;
    Ok(Status::Success)
}

/// `webdiet rewrite`: the rewritten site and `report.json` appear in the output directory
/// together, or (on any failure or signal) nothing changes there.
fn run_rewrite(cfg: &RewriteConfig, config: &Config) -> Result<Status> {
    let out = Transaction::begin(&cfg.out, Plan::rewrite(), &[&cfg.site])?;
    print_notes(out.notes(), config);
    let archive = crate::archive::ArchiveOptions {
        scratch: Some(out.staging().to_path_buf()),
        ..cfg.archive.clone()
    };
    let input = crate::archive::open_input(&cfg.site, &cfg.crawl, &archive)?;
    let site = &input.site;
    crate::audit::require_input_page(&input, &cfg.site, None)?;
    let analyze = input.analyze_options(&cfg.analyze);
    let inventory = inventory::analyze(site, &analyze);
    let mut opts = cfg.rewrite.clone();
    opts.out_site = out.path(output::SITE);
    opts.analyze = analyze;
    let done = crate::rewrite::rewrite(site, &inventory, &opts)?;
    let mut report = report::Report::new(&cfg.site);
    report.inventory = Some((&inventory).into());
    report.add_rewrite(done, &inventory);
    report.problems.extend(crate::audit::no_pages(site));
    let read = |path: &str| site.read(path).ok();
    report.finish(&report::Gates::default(), Some(&read));
    report.site.rewritten = Some(cfg.out.site().display().to_string());
    if let Some(a) = &input.archive {
        report.problems.extend(a.problems.iter().cloned());
        report.archive = Some(a.report.clone());
    }
    if let Some(path) = &cfg.emit_wacz {
        let emitted = crate::archive::emit::emit(
            path,
            &crate::archive::emit::Source {
                input: &cfg.site,
                original: site,
                rewritten: &opts.out_site,
                archive: input.archive.as_ref(),
                site_url: opts.analyze.site_url.as_ref(),
                report: &report,
            },
        )?;
        report.archive.get_or_insert_with(Default::default).emitted = Some(emitted);
    }
    out.write(
        output::REPORT_JSON,
        report::json::to_string(&report).as_bytes(),
    )?;
    out.commit()?;
    print_problems(&report.problems, &cfg.site, config);
    print_stdout(&report::terminal::rewrite::rewrite(
        &report,
        &cfg.out.report_json(),
        &config.text_style(),
    ))?;
    Ok(broken_by_rewrite(&report))
}

/// A reference that worked in the original and not in the rewritten site fails the run (1),
/// whatever the budgets: the rewrite broke the site.
fn broken_by_rewrite(report: &report::Report) -> Status {
    let broken = report.rewrite.broken_by_rewrite.len();
    if broken == 0 {
        return Status::Success;
    }
    eprintln!(
        "webdiet: error: the rewrite broke {broken} reference{} that worked in the original \
         (listed in report.json → rewrite.broken_by_rewrite)",
        if broken == 1 { "" } else { "s" }
    );
    Status::Failed
}

/// `webdiet audit`: 0 when every budget holds, 1 when one of level `error` does not. The
/// rewritten site and the three reports appear in the output directory together, or (on any
/// failure or signal) nothing changes there; a dry run writes the reports only. Then the CI
/// formats asked for, each written whole or not at all.
fn run_audit(cfg: &AuditConfig, config: &Config) -> Result<Status> {
    let out = Transaction::begin(&cfg.out, Plan::audit(cfg.audit.dry_run), &[&cfg.audit.site])?;
    print_notes(out.notes(), config);
    let progress = StderrProgress::new(config.verbosity);
    let mut opts = cfg.audit.clone();
    opts.rewrite.out_site = out.path(output::SITE);
    opts.archive.scratch = Some(out.staging().to_path_buf());
    let mut report = crate::audit::audit(&opts, &progress)?;
    print_link_notes(&report.replay_links, config);
    if !opts.dry_run {
        report.site.rewritten = Some(cfg.out.site().display().to_string());
    }
    let markdown = report::markdown::render(&report);
    out.write(
        output::REPORT_JSON,
        report::json::to_string(&report).as_bytes(),
    )?;
    out.write(output::REPORT_MD, markdown.as_bytes())?;
    out.write(
        output::REPORT_HTML,
        report::html::render(&report).as_bytes(),
    )?;
    out.commit()?;
    let written = write_ci_files(&cfg.ci, &cfg.audit.site, &report)?;
    print_problems(&report.problems, &cfg.audit.site, config);
    let style = config.text_style();
    if config.verbosity == Verbosity::Verbose {
        print_stdout(&report::terminal::rewrite::rewrite(
            &report,
            &cfg.out.report_json(),
            &style,
        ))?;
    }
    if config.verbosity != Verbosity::Quiet {
        let (html, md, json) = (
            cfg.out.report_html(),
            cfg.out.report_md(),
            cfg.out.report_json(),
        );
        let mut reports: Vec<&Path> = vec![&html, &md, &json];
        reports.extend(written.iter().map(PathBuf::as_path));
        print_stdout(&report::terminal::audit::audit(&report, &reports, &style))?;
    } else {
        print_stdout(&report::terminal::audit::budgets(&report, &style))?;
    }
    if cfg.ci.github {
        github(&cfg.ci, &cfg.audit.site, &report, &markdown)?;
    }
    // Asked-for browser visits that could not be made: the rest was reported, but the run
    // did not do what it was asked.
    if let Some(why) = &report.browser_unavailable {
        eprintln!(
            "webdiet: error: --client chromium: {why}; the audit ran with webdiet's client only"
        );
        return Ok(Status::Fatal);
    }
    Ok(if report.budgets.iter().any(|b| b.fails_run()) {
        Status::Failed
    } else {
        broken_by_rewrite(&report)
    })
}

/// Writes the CI formats asked for (`--junit`, `--sarif`, `--gitlab-codequality`), each
/// through a temporary name and a rename; returns the files written.
fn write_ci_files(
    ci: &crate::config::CiOutputs,
    site: &Path,
    report: &report::Report,
) -> Result<Vec<PathBuf>> {
    use crate::output::{begins_with, content_is, write_named_file};
    use report::ci::{gitlab, junit, sarif};
    let mut written = Vec::new();
    if let Some(path) = &ci.junit {
        write_named_file(
            path,
            "--junit",
            site,
            &|p| begins_with(p, junit::SIGNATURE),
            ci.force,
            junit::render(report).as_bytes(),
        )?;
        written.push(path.clone());
    }
    if let Some(path) = &ci.sarif {
        write_named_file(
            path,
            "--sarif",
            site,
            &|p| content_is(p, sarif::is_ours),
            ci.force,
            sarif::render(report).as_bytes(),
        )?;
        written.push(path.clone());
    }
    if let Some(path) = &ci.gitlab {
        write_named_file(
            path,
            "--gitlab-codequality",
            site,
            &|p| content_is(p, gitlab::is_ours),
            ci.force,
            gitlab::render(report).as_bytes(),
        )?;
        written.push(path.clone());
    }
    Ok(written)
}

/// GitHub Actions: the annotations on stdout, and the Markdown report appended to
/// `$GITHUB_STEP_SUMMARY`, cut to fit the step's limit. A summary file inside the site is
/// refused (the input is never written).
fn github(
    ci: &crate::config::CiOutputs,
    site: &Path,
    report: &report::Report,
    markdown: &str,
) -> Result<()> {
    use report::ci::github;
    print_stdout(&github::annotations(report))?;
    let Some(path) = &ci.step_summary else {
        return Ok(());
    };
    let inside = |p: &Path| {
        let (Ok(site), Some(parent)) = (std::fs::canonicalize(site), p.parent()) else {
            return false;
        };
        let parent = if parent.as_os_str().is_empty() {
            Path::new(".")
        } else {
            parent
        };
        std::fs::canonicalize(parent).is_ok_and(|d| d.starts_with(&site))
    };
    if inside(path) {
        return Err(Error::NamedOutputRefused {
            path: path.clone(),
            option: "GITHUB_STEP_SUMMARY",
            reason: "it is inside the input site, which webdiet never writes into".into(),
        });
    }
    let used = std::fs::metadata(path).map_or(0, |m| m.len() as usize);
    let text = github::step_summary(markdown, used);
    if text.len() < markdown.len() {
        eprintln!(
            "webdiet: note: the job summary holds {} of the report's {} bytes (GitHub takes              1 MiB per step); report.md has it all",
            text.len(),
            markdown.len()
        );
    }
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .map_err(|e| Error::io(path, e))?;
    file.write_all(text.as_bytes())
        .and_then(|()| file.flush())
        .map_err(|e| Error::io(path, e))
}

/// `webdiet report`: re-renders a report.json in another format on stdout.
fn run_report(cfg: &ReportConfig, config: &Config) -> Result<Status> {
    let bytes = crate::input::read(&cfg.json, crate::input::MAX_REPORT_BYTES)?;
    let report = report::Report::load(&bytes, &cfg.json)?;
    let text = match cfg.format {
        ReportFormat::Text => {
            report::terminal::audit::audit(&report, &[&cfg.json], &config.text_style())
        }
        ReportFormat::Markdown => report::markdown::render(&report),
        ReportFormat::Html => report::html::render(&report),
        ReportFormat::Json => report::json::to_string(&report),
        ReportFormat::Junit => report::ci::junit::render(&report),
        ReportFormat::Sarif => report::ci::sarif::render(&report),
        ReportFormat::Gitlab => report::ci::gitlab::render(&report),
        ReportFormat::Github => report::ci::github::annotations(&report),
    };
    print_stdout(&text)?;
    Ok(Status::Success)
}

/// Progress on stderr (an audit's stages, the visits over a slow link): one updating line on a
/// terminal, plain lines otherwise (CI logs), nothing with `--quiet`.
struct StderrProgress {
    bar: Option<indicatif::ProgressBar>,
    quiet: bool,
}

impl StderrProgress {
    fn new(verbosity: Verbosity) -> Self {
        let quiet = verbosity == Verbosity::Quiet;
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let bar = indicatif::ProgressBar::new_spinner();
            bar.enable_steady_tick(std::time::Duration::from_millis(120));
            bar
        });
        StderrProgress { bar, quiet }
    }
}

impl crate::audit::Progress for StderrProgress {
    fn stage(&self, step: usize, of: usize, what: &str) {
        self.note(&format!("[{step}/{of}] {what}"));
    }

    fn done(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }

    fn note(&self, what: &str) {
        match &self.bar {
            Some(bar) => bar.set_message(what.to_string()),
            None if !self.quiet => eprintln!("webdiet: {what}"),
            None => {}
        }
    }
}

/// `webdiet verify`: [`verify_status`], or 2 (an `Err`) when Chromium is missing or a tree is
/// unusable.
fn run_verify(cfg: &VerifyConfig, config: &Config) -> Result<Status> {
    let report = crate::verify::verify(&cfg.original, &cfg.rewritten, &cfg.verify)?;
    print_problems(&report.listing_problems, Path::new(""), config);
    print_problems(&report.problems, Path::new(""), config);
    if config.verbosity != Verbosity::Quiet {
        for n in &report.not_checked {
            eprintln!(
                "webdiet: {}: not checked (timed out after {:.0} s): {}",
                shown(Path::new(&n.page)),
                n.patience_s,
                n.message
            );
        }
    }
    let text = if cfg.json {
        report::json::to_string(&report)
    } else {
        report::terminal::verify::verify(&report, &config.text_style())
    };
    print_stdout(&text)?;
    Ok(verify_status(&report))
}

/// The exit status of `webdiet verify`: 0 when no compared page differs and nothing failed
/// ([`VerifyReport::all_identical`](crate::verify::VerifyReport::all_identical)), 1 when some
/// page differs, went missing, could not be rendered or read, or there was no page to compare.
/// A page whose render timed out is "not checked" and fails nothing, so that a busy CI runner
/// gets no red build from it; the summary and the JSON (`not_checked`) say which pages, and a
/// CI job that needs every page proven can require `not_checked` to be empty.
pub fn verify_status(report: &crate::verify::VerifyReport) -> Status {
    match report.all_identical() {
        true => Status::Success,
        false => Status::Failed,
    }
}

/// Each problem on stderr as `webdiet: SITE/PATH: message [code]`, unless `--quiet`. Paths
/// are escaped ([`shown`]); a file that several stages found unreadable is printed once (the
/// first message for each path and code).
fn print_problems(problems: &[Problem], site: &Path, config: &Config) {
    if config.verbosity == Verbosity::Quiet {
        return;
    }
    let prefix = if site.as_os_str().is_empty() {
        String::new()
    } else {
        format!("{}/", shown(site))
    };
    let mut seen = std::collections::BTreeSet::new();
    let mut stderr = std::io::stderr().lock();
    for problem in problems {
        if !seen.insert((&problem.path, &problem.code)) {
            continue;
        }
        // An archive's own problems name a file and record, or a URL, not a site path.
        let archive = ["archive-", "wacz-"]
            .iter()
            .any(|c| problem.code.starts_with(c));
        let prefix = if archive { "" } else { prefix.as_str() };
        let _ = writeln!(
            stderr,
            "webdiet: {prefix}{}: {} [{}]",
            shown(Path::new(&problem.path)),
            problem.message,
            problem.code
        );
    }
}

/// What the output directory held from earlier runs (removed leftovers, or ones left alone),
/// on stderr unless `--quiet`.
fn print_notes(notes: &[String], config: &Config) {
    if config.verbosity == Verbosity::Quiet {
        return;
    }
    let mut stderr = std::io::stderr().lock();
    for note in notes {
        let _ = writeln!(stderr, "webdiet: note: {note}");
    }
}

fn print_stdout(text: &str) -> Result<()> {
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(text.as_bytes())
        .and_then(|_| stdout.flush())
        .map_err(|e| Error::io("<stdout>", e))
}

fn run_replay(cfg: &ReplayConfig, config: &Config) -> Result<Status> {
    let input = crate::archive::open_input(
        &cfg.site,
        &crate::site::CrawlOptions::default(),
        &cfg.archive,
    )?;
    let site = &input.site;
    let (mut served, problems) = crate::replay::ServedSite::from_site(site);
    print_problems(input.archive_problems(), Path::new(""), config);
    print_problems(&site.problems, &cfg.site, config);
    print_problems(&problems, &cfg.site, config);
    let mut replay_opts = cfg.replay.clone();
    if let Some(a) = &input.archive {
        a.serve_original(&mut served);
        if replay_opts.pages == crate::replay::Pages::Index {
            if let Some(page) = a.first_page() {
                replay_opts.pages = crate::replay::Pages::One(page.to_string());
            }
        }
    }
    if let Some(study) = &cfg.study {
        let result = crate::replay::study::run(&study.sizes, &cfg.replay)?;
        if let Some(chart) = &study.chart {
            crate::output::write_named_file(
                chart,
                "--chart",
                &cfg.site,
                &|p| crate::output::begins_with(p, report::html::study::CHART_SIGNATURE),
                false,
                report::html::study::chart_svg(&result).as_bytes(),
            )?;
        }
        return print_stdout(&if cfg.json {
            report::json::to_string(&result)
        } else {
            report::terminal::study::table(&result)
        })
        .map(|()| Status::Success);
    }
    let progress = StderrProgress::new(config.verbosity);
    let replay = crate::replay::replay_with(&served, &replay_opts, &|text| {
        crate::audit::Progress::note(&progress, text)
    })?;
    crate::audit::Progress::done(&progress);
    print_link_notes(&replay.links, config);
    let text = if cfg.json && replay.browser.is_empty() {
        report::json::to_string(&replay.rows)
    } else if cfg.json {
        // With Chromium's rows beside the robot's: an object holding both.
        report::json::to_string(&serde_json::json!({
            "rows": replay.rows,
            "browser": replay.browser,
        }))
    } else {
        let mut text = report::terminal::replay::table(&replay.rows);
        text.push_str(&report::terminal::replay::browser_table(&replay.browser));
        text.push('\n');
        for link in &replay.links {
            if let Some(method) = &link.method {
                text.push_str(&format!("  {}: {}\n", link.name, method.detail));
            }
        }
        let rule = crate::deflate::WorthRule::default();
        let estimate = crate::deflate::estimate(served.text_files(), &rule);
        let t = estimate.totals;
        text.push_str(&format!(
            "\n  text resources: {} files, {} bytes raw; deflate level 6 {}, level 9 {}, best {}, \
             gzip {}\n  worth compressing ({}): {} of {}\n",
            estimate.files.len(),
            report::format::thousands(t.raw),
            report::format::thousands(t.deflate6),
            report::format::thousands(t.deflate9),
            report::format::thousands(t.best),
            report::format::thousands(t.gzip6),
            estimate.rule,
            estimate.files.len() - estimate.not_worth_it.len(),
            estimate.files.len()
        ));
        text
    };
    print_stdout(&text)?;
    Ok(Status::Success)
}

/// Links that could not run, and why, on stderr (even with `--quiet`: results are missing).
fn print_link_notes(links: &[crate::replay::LinkRun], _config: &Config) {
    for link in links {
        if let Some(why) = &link.unavailable {
            eprintln!("webdiet: link {} not replayed: {why}", link.name);
        }
    }
}

/// `webdiet links`: the profiles, or the given links, as a table or JSON.
fn run_links(cfg: &LinksConfig) -> Result<Status> {
    use crate::sim::link::listing;
    let links = match &cfg.links {
        None => listing::profiles(),
        Some(links) => links.iter().map(listing::listing).collect(),
    };
    print_stdout(&if cfg.json {
        report::json::to_string(&links)
    } else {
        listing::table(&links)
    })?;
    Ok(Status::Success)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reference_broken_by_the_rewrite_fails_the_run() {
        let mut report = report::Report::default();
        assert_eq!(broken_by_rewrite(&report), Status::Success);
        report
            .rewrite
            .broken_by_rewrite
            .push(crate::inventory::BrokenReference {
                page: "index.html".to_string(),
                reference: "webdiet.css".to_string(),
                kind: crate::html::RefKind::Stylesheet,
                reason: "sub/webdiet.css does not exist".to_string(),
            });
        assert_eq!(broken_by_rewrite(&report), Status::Failed);
    }
}
