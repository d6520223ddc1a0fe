//! The command line's clap types turned into the run's [`Config`] and the stages' options
//! structs: the only code that reads the parsed arguments (STYLE.md: clap types stop at the
//! border).

use std::io::IsTerminal;

use super::*;
use crate::config::{
    AnalyzeConfig, AuditConfig, CiOutputs, Command, Config, LinksConfig, OutputPaths, ReplayConfig,
    ReportConfig, RewriteConfig, Verbosity, VerifyConfig,
};
use crate::error::{Error, Result};
use crate::inventory::AnalyzeOptions;
use crate::markup::CssMode;
use crate::output::Plan;
use crate::replay::protocol::Question;
use crate::replay::{Mode, Pages, ReplayOptions, Test};
use crate::rewrite::markup::CssChoice;
use crate::site::CrawlOptions;

impl TestArg {
    fn tests(self) -> Vec<Test> {
        match self {
            TestArg::Both => Test::ALL.to_vec(),
            TestArg::First => vec![Test::First],
            TestArg::Validate => vec![Test::Validate],
        }
    }
}

impl AuditArgs {
    fn budgets(&self) -> Result<crate::budget::Budgets> {
        let mut max_packets = std::collections::BTreeMap::new();
        for spec in &self.max_packets {
            let parsed = spec.split_once('=').and_then(|(mode, n)| {
                let mode = mode.trim().parse::<Mode>().ok()?;
                Some((mode, n.trim().parse::<u64>().ok()?))
            });
            let Some((mode, n)) = parsed else {
                return Err(Error::Usage {
                    message: format!(
                        "--max-packets {spec}: expected MODE=N with MODE one of {}",
                        Mode::names().join(", ")
                    ),
                });
            };
            max_packets.insert(mode.as_str().to_string(), n);
        }
        let mut max_time_ms = std::collections::BTreeMap::new();
        for spec in &self.max_time {
            let parsed = spec.rsplit_once('=').and_then(|(link, ms)| {
                let ms = ms.trim().parse::<f64>().ok().filter(|ms| *ms > 0.0)?;
                Some((link.trim().to_string(), ms))
            });
            let Some((link, ms)) = parsed.filter(|(link, _)| !link.is_empty()) else {
                return Err(Error::Usage {
                    message: format!(
                        "--max-time {spec}: expected LINK=MILLISECONDS, e.g. Cable=1500"
                    ),
                });
            };
            max_time_ms.insert(link, ms);
        }
        Ok(crate::budget::Budgets {
            max_time_ms,
            max_first_visit_bytes: self.max_first_visit_bytes,
            max_requests: self.max_requests,
            max_packets,
            min_saving_percent: self.min_saving_percent,
            no_verify_failures: self.no_verify_failures,
            budget_mode: self.budget_mode.map(|m| m.as_str().to_string()),
            time_source: self.time_source.map(|s| match s {
                TimeSourceArg::Simulated => crate::report::model::TimeSource::Simulated,
                TimeSourceArg::Measured => crate::report::model::TimeSource::Measured,
            }),
        })
    }
}

impl AuditArgs {
    /// The audit's links: every emulated link of `--link` is simulated; loopback is replayed
    /// for bytes and packets; `--measure` (and `--client chromium`, which can only measure)
    /// adds emulated runs over the first of them, or over the links it names.
    fn measured_links(&self, opts: &mut ReplayOptions) -> Result<()> {
        use crate::replay::Link;
        let named: Vec<Link> = opts
            .links
            .iter()
            .filter(|l| matches!(l, Link::Emulated(_)))
            .cloned()
            .collect();
        let chromium = opts.clients.contains(&crate::replay::ClientKind::Chromium);
        let measured = match self.measure.as_deref() {
            None if !chromium => Vec::new(),
            None | Some("") => named.first().cloned().into_iter().collect(),
            Some(list) => {
                let links = crate::sim::link::parse(list).map_err(|e| Error::Usage {
                    message: format!("--measure: {e}"),
                })?;
                if let Some(l) = links.iter().find(|l| !matches!(l, Link::Emulated(_))) {
                    return Err(Error::Usage {
                        message: format!(
                            "--measure {}: loopback is always replayed; name emulated links",
                            l.name()
                        ),
                    });
                }
                links
            }
        };
        if (self.measure.is_some() || chromium) && measured.is_empty() {
            return Err(Error::Usage {
                message: "--measure measures over an emulated link; name one with --link or \
                          --measure (e.g. --measure Cable)"
                    .into(),
            });
        }
        let mut simulate = named;
        for l in &measured {
            if !simulate.iter().any(|s| s.name() == l.name()) {
                simulate.push(l.clone());
            }
        }
        opts.simulate = simulate;
        opts.links = std::iter::once(Link::Loopback).chain(measured).collect();
        Ok(())
    }

    /// Everything the audit checks: `webdiet.toml` (in `site`, else the current directory)
    /// with the flags winning key by key, the `--budgets` file, and the `--baseline` report.
    fn gates(&self, site: &std::path::Path) -> Result<crate::report::Gates> {
        let (file, path) = crate::budget::load(site)?;
        let source = path.map_or("webdiet.toml".to_string(), |p| p.display().to_string());
        let flags = self.budgets()?;
        let (mut limits, mode) = crate::budget::limits(&file, &source, &flags)?;
        if let Some(path) = &self.budgets_file {
            limits.extend(crate::budget::field::load(path)?);
        }
        let baseline = match &self.baseline {
            None => None,
            Some(path) => {
                let bytes = crate::input::read(path, crate::input::MAX_REPORT_BYTES)?;
                let report = crate::report::Report::load(&bytes, path)?;
                let allowance = match &self.max_regression {
                    Some(spec) => spec.parse().map_err(|message| Error::Usage {
                        message: format!("--max-regression {spec}: {message}"),
                    })?,
                    None => Default::default(),
                };
                Some(crate::report::model::baseline::Baseline {
                    report,
                    source: path.display().to_string(),
                    allowance,
                })
            }
        };
        Ok(crate::report::Gates {
            limits,
            mode,
            baseline,
            time_source: Some(crate::budget::time_source(&file, &flags)),
        })
    }

    /// The CI outputs, each file checked now (before anything runs) against the output
    /// rules.
    fn ci(&self, site: &std::path::Path, force: bool) -> Result<CiOutputs> {
        use crate::output::{begins_with, check_named_output, content_is};
        use crate::report::ci;
        type Ours<'a> = &'a dyn Fn(&std::path::Path) -> bool;
        let files: [(&Option<PathBuf>, &'static str, Ours); 3] = [
            (&self.junit, "--junit", &|p| {
                begins_with(p, ci::junit::SIGNATURE)
            }),
            (&self.sarif, "--sarif", &|p| {
                content_is(p, ci::sarif::is_ours)
            }),
            (&self.gitlab_codequality, "--gitlab-codequality", &|p| {
                content_is(p, ci::gitlab::is_ours)
            }),
        ];
        for (file, option, ours) in files {
            if let Some(file) = file {
                check_named_output(file, option, site, ours, force)?;
            }
        }
        let github = self.github
            || (!self.no_github
                && std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v.eq_ignore_ascii_case("true")));
        Ok(CiOutputs {
            junit: self.junit.clone(),
            sarif: self.sarif.clone(),
            gitlab: self.gitlab_codequality.clone(),
            github,
            step_summary: github
                .then(|| std::env::var_os("GITHUB_STEP_SUMMARY"))
                .flatten()
                .filter(|p| !p.is_empty())
                .map(PathBuf::from),
            force,
        })
    }
}

impl ReplayArgs {
    /// The options, with `default_links` when no --link is given.
    fn options(self, default_links: &str) -> Result<ReplayOptions> {
        let usage = |e: crate::sim::link::SpecError| Error::Usage {
            message: e.to_string(),
        };
        let links = match (&self.link, &self.sweep) {
            (Some(link), None) => crate::sim::link::parse(link).map_err(usage)?,
            (Some(link), Some(sweep)) => crate::sim::link::sweep(link, sweep).map_err(usage)?,
            (None, _) => crate::sim::link::parse(default_links).map_err(usage)?,
        };
        if self.capture.is_some() && links.len() > 1 {
            return Err(Error::Usage {
                message: "--capture records the replay over one link; give one --link".into(),
            });
        }
        let simulate = links
            .iter()
            .filter(|l| matches!(l, crate::replay::Link::Emulated(_)))
            .cloned()
            .collect();
        let mut opts = ReplayOptions {
            simulate,
            links,
            runs_on: self.runs_on.clone(),
            seed: self.seed,
            sim_seeds: self.sim_seeds as usize,
            tcp_1997: self.tcp_1997,
            pages: match (self.page, self.all_pages) {
                (Some(page), _) => Pages::One(page),
                (None, true) => Pages::All,
                (None, false) => Pages::Index,
            },
            runs: self.runs as usize,
            mss: self.mss,
            netns: !self.no_netns,
            capture: self.capture,
            ..ReplayOptions::default()
        };
        if self.modes.contains(&ModeChoice::All) {
            opts.modes = Mode::all();
        } else if !self.modes.is_empty() {
            opts.modes = Mode::all()
                .into_iter()
                .filter(|m| self.modes.contains(&ModeChoice::One(*m)))
                .collect();
        }
        for (asked, question) in [(self.push, Question::Push), (self.hints, Question::Hints)] {
            for mode in Mode::answering(question) {
                if asked && !opts.modes.contains(&mode) {
                    opts.modes.push(mode);
                    opts.modes.sort();
                }
            }
        }
        opts.client.headers = match self.headers {
            HeadersArg::Libwww => crate::sim::headers::HeaderSet::Libwww,
            HeadersArg::Browser => crate::sim::headers::HeaderSet::Browser,
        };
        if !self.tests.is_empty() {
            let asked: Vec<Test> = self.tests.iter().flat_map(|t| t.tests()).collect();
            opts.tests = Test::ALL
                .into_iter()
                .filter(|t| asked.contains(t))
                .collect();
        }
        if !self.client.is_empty() {
            let mut clients: Vec<crate::replay::ClientKind> = self
                .client
                .iter()
                .map(|c| match c {
                    ClientArg::Webdiet => crate::replay::ClientKind::Webdiet,
                    ClientArg::Chromium => crate::replay::ClientKind::Chromium,
                })
                .collect();
            clients.sort();
            clients.dedup();
            opts.clients = clients;
        }
        // The simulator replays what webdiet's client recorded on loopback; Chromium's visits
        // are measured only (docs/simulation.md), so without webdiet's client nothing is
        // simulated.
        if !opts.clients.contains(&crate::replay::ClientKind::Webdiet) {
            opts.simulate.clear();
        }
        if opts.clients.contains(&crate::replay::ClientKind::Chromium) {
            if !opts
                .links
                .iter()
                .any(|l| matches!(l, crate::replay::Link::Emulated(_)))
            {
                return Err(Error::Usage {
                    message: "--client chromium loads the site over an emulated link; name one \
                              with --link (e.g. --link Cable or --link 3G)"
                        .into(),
                });
            }
            if crate::replay::chromium::browser_modes(&opts.modes).is_empty() {
                return Err(Error::Usage {
                    message: "--client chromium runs in the modes a browser speaks (persistent, \
                              https-persistent, h2); --modes names none of them"
                        .into(),
                });
            }
        }
        opts.chromium.timeout = std::time::Duration::from_secs(self.browser_timeout);
        opts.client.connections = self.connections as usize;
        opts.client.timeout = std::time::Duration::from_secs(self.timeout);
        opts.client.buffer = self.client_buffer as usize;
        let tcp = crate::replay::transport::TcpOptions {
            nagle: self.nagle,
            delayed_acks: !self.quick_acks,
            tcp_maxseg: None,
            congestion: None,
        };
        opts.client.tcp = tcp;
        opts.server.tcp = tcp;
        opts.server.port = self.port.unwrap_or(0);
        opts.tls = crate::replay::TlsOptions {
            version: match self.tls {
                TlsArg::V13 => crate::replay::TlsVersion::V13,
                TlsArg::V12 => crate::replay::TlsVersion::V12,
            },
            resumption: self.resumption == OnOff::On,
            cipher: match self.cipher {
                CipherArg::AesGcm => crate::replay::Cipher::AesGcm,
                CipherArg::Chacha20 => crate::replay::Cipher::Chacha20,
            },
            ..opts.tls
        };
        Ok(opts)
    }
}

impl OutArgs {
    /// The output location, checked against the rules of [`crate::output::check`].
    fn paths(&self, site: &std::path::Path, plan: &Plan) -> Result<OutputPaths> {
        let paths = OutputPaths::for_site(site, self.out.as_deref(), self.force);
        crate::output::check(&paths, plan, &[site])?;
        Ok(paths)
    }
}

impl ImageArgs {
    pub(super) fn rewrite_options(
        &self,
        out: &OutputPaths,
        analyze: AnalyzeOptions,
    ) -> crate::rewrite::RewriteOptions {
        crate::rewrite::RewriteOptions {
            out_site: out.site(),
            image: self.image_options(),
            keep_originals: self.keep_originals,
            analyze,
            precompress: self.precompress,
            markup: (!self.no_markup).then_some(match self.css {
                CssArg::Auto => CssChoice::Auto,
                CssArg::SiteSheet => CssChoice::Fixed(CssMode::SiteSheet),
                CssArg::PerPage => CssChoice::Fixed(CssMode::PerPage),
                CssArg::InlineStyle => CssChoice::Fixed(CssMode::InlineStyle),
            }),
            lossless: crate::rewrite::lossless::LosslessOptions {
                images: !self.no_recompress,
                text: !self.no_minify,
                html: self.minify_html,
            },
            scratch: false,
            memo: None,
        }
    }

    fn image_options(&self) -> crate::image::ImageOptions {
        crate::image::ImageOptions {
            effort: self.effort,
            apng: !self.no_apng,
            min_saving: self.min_saving,
            interlace: self.interlace,
            target: self.image_format,
            ..Default::default()
        }
    }
}

impl SiteArgs {
    fn analyze_options(&self) -> AnalyzeOptions {
        AnalyzeOptions {
            site_url: self.site_url.clone(),
            max_parse_bytes: self.max_parse_bytes,
        }
    }

    /// `--with` and `--at`, which only an archive input takes.
    fn archive_options(&self) -> Result<crate::archive::ArchiveOptions> {
        if !crate::archive::is_archive(&self.site) && (!self.with.is_empty() || self.at.is_some()) {
            return Err(Error::Usage {
                message: format!(
                    "--with and --at choose captures of a web archive, and {} is not one \
                     (.warc, .warc.gz, .arc, .arc.gz, .wacz)",
                    crate::error::shown(&self.site)
                ),
            });
        }
        for file in &self.with {
            if !crate::archive::is_archive(file) {
                return Err(Error::Usage {
                    message: format!(
                        "--with {}: not a web archive (.warc, .warc.gz, .arc, .arc.gz, .wacz)",
                        crate::error::shown(file)
                    ),
                });
            }
        }
        Ok(crate::archive::ArchiveOptions {
            with: self.with.clone(),
            at: self.at,
            budget: crate::archive::Budget {
                expansion: self.archive_budget,
            },
            scratch: None,
        })
    }

    /// Every file the run reads: the site, and the `--with` archives.
    fn inputs(&self) -> Vec<&std::path::Path> {
        std::iter::once(self.site.as_path())
            .chain(self.with.iter().map(PathBuf::as_path))
            .collect()
    }
}

impl EmitArgs {
    /// `--emit-wacz FILE`, checked: never an input, never inside one, an existing file only
    /// when webdiet wrote it or with `--force`.
    fn checked(&self, site: &SiteArgs, force: bool) -> Result<Option<PathBuf>> {
        let Some(path) = &self.emit_wacz else {
            return Ok(None);
        };
        crate::archive::emit::check_target(path, &site.inputs(), force)?;
        Ok(Some(path.clone()))
    }
}

impl Cli {
    /// Validates the arguments and builds the run's configuration.
    pub fn into_config(self) -> Result<Config> {
        let verbosity = if self.quiet {
            Verbosity::Quiet
        } else if self.verbose {
            Verbosity::Verbose
        } else {
            Verbosity::Normal
        };
        let color = match self.color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
            }
        };
        let command = match self.command {
            Sub::Analyze { site, json } => Command::Analyze(AnalyzeConfig {
                archive: site.archive_options()?,
                analyze: site.analyze_options(),
                site: site.site,
                json,
                crawl: CrawlOptions::default(),
            }),
            Sub::Rewrite {
                site,
                out,
                emit,
                image,
            } => {
                let emit_wacz = emit.checked(&site, out.force)?;
                let out = out.paths(&site.site, &Plan::rewrite())?;
                Command::Rewrite(RewriteConfig {
                    archive: site.archive_options()?,
                    emit_wacz,
                    rewrite: image.rewrite_options(&out, site.analyze_options()),
                    analyze: site.analyze_options(),
                    site: site.site,
                    crawl: CrawlOptions::default(),
                    out,
                })
            }
            Sub::Replay { site, json, replay } => {
                require_site(&site.site)?;
                let study = match (&replay.document_sizes, &replay.chart) {
                    (Some(sizes), chart) => Some(crate::config::StudyConfig {
                        sizes: sizes.0.clone(),
                        chart: chart.clone(),
                    }),
                    (None, _) => None,
                };
                Command::Replay(Box::new(ReplayConfig {
                    archive: site.archive_options()?,
                    site: site.site,
                    json,
                    replay: replay.options("loopback")?,
                    study,
                }))
            }
            Sub::ReplayChild => Command::ReplayChild,
            Sub::Links { link, sweep, json } => {
                let usage = |e: crate::sim::link::SpecError| Error::Usage {
                    message: e.to_string(),
                };
                let links = match (link, sweep) {
                    (None, _) => None,
                    (Some(link), None) => Some(crate::sim::link::parse(&link).map_err(usage)?),
                    (Some(link), Some(sweep)) => {
                        Some(crate::sim::link::sweep(&link, &sweep).map_err(usage)?)
                    }
                };
                Command::Links(LinksConfig { links, json })
            }
            Sub::Audit {
                site,
                out,
                emit,
                image,
                replay,
                audit,
            } => {
                if replay.document_sizes.is_some() {
                    return Err(Error::Usage {
                        message: "--document-sizes is an experiment of its own; use it with \
                                  `webdiet replay`, not with `audit`"
                            .to_string(),
                    });
                }
                let emit_wacz = emit.checked(&site, out.force)?;
                let out = out.paths(&site.site, &Plan::audit(audit.dry_run))?;
                if replay.capture.is_some() {
                    return Err(Error::Usage {
                        message: "--capture records one replay; use it with `webdiet replay`, \
                                  not with `audit`, which replays two sites"
                            .to_string(),
                    });
                }
                let gates = audit.gates(&site.site)?;
                let ci = audit.ci(&site.site, out.force)?;
                let replay = match audit.no_replay {
                    true => None,
                    false => {
                        let mut opts = replay.options(crate::audit::DEFAULT_LINKS)?;
                        // The audit's tables are the robot's: it always visits.
                        if !opts.clients.contains(&crate::replay::ClientKind::Webdiet) {
                            opts.clients.insert(0, crate::replay::ClientKind::Webdiet);
                        }
                        audit.measured_links(&mut opts)?;
                        Some(opts)
                    }
                };
                let timed: Option<Vec<String>> = replay.as_ref().map(|r| {
                    let emulated = r
                        .links
                        .iter()
                        .filter(|l| matches!(l, crate::replay::Link::Emulated(_)));
                    let mut names: Vec<String> = r
                        .simulate
                        .iter()
                        .chain(emulated)
                        .map(|l| l.name().to_string())
                        .collect();
                    names.dedup();
                    names
                });
                crate::budget::check_time_links(&gates.limits, timed.as_deref())?;
                Command::Audit(Box::new(AuditConfig {
                    ci,
                    out: out.clone(),
                    audit: crate::audit::AuditOptions {
                        archive: site.archive_options()?,
                        emit_wacz,
                        rewrite: image.rewrite_options(&out, site.analyze_options()),
                        analyze: site.analyze_options(),
                        site: site.site,
                        crawl: CrawlOptions::default(),
                        dry_run: audit.dry_run,
                        replay,
                        max_runs: audit.max_runs as usize,
                        worth: crate::deflate::WorthRule::default(),
                        top_levels: crate::deflate::TopLevels::Every,
                        gates,
                    },
                }))
            }
            Sub::Report { report, format } => {
                match std::fs::metadata(&report) {
                    Ok(meta) if meta.is_dir() => {
                        return Err(Error::ReportIsADirectory { path: report })
                    }
                    Ok(_) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                        return Err(Error::NotFound { path: report })
                    }
                    Err(e) => return Err(Error::io(report, e)),
                }
                Command::Report(ReportConfig {
                    json: report,
                    format: match format {
                        ReportFormat::Text => crate::config::ReportFormat::Text,
                        ReportFormat::Md => crate::config::ReportFormat::Markdown,
                        ReportFormat::Html => crate::config::ReportFormat::Html,
                        ReportFormat::Json => crate::config::ReportFormat::Json,
                        ReportFormat::Junit => crate::config::ReportFormat::Junit,
                        ReportFormat::Sarif => crate::config::ReportFormat::Sarif,
                        ReportFormat::Gitlab => crate::config::ReportFormat::Gitlab,
                        ReportFormat::Github => crate::config::ReportFormat::Github,
                    },
                })
            }
            Sub::Verify {
                original,
                rewritten,
                pages,
                json,
                out,
                force,
            } => {
                require_site(&original)?;
                require_site(&rewritten)?;
                let pages = pages.map(|n| usize::try_from(n).unwrap_or(usize::MAX));
                Command::Verify(VerifyConfig::new(
                    original, rewritten, pages, json, out, force,
                )?)
            }
            Sub::Batch(args) => args.into_command()?,
            Sub::Merge(args) => args.into_command()?,
            Sub::Completions { shell } => Command::Print(generate::completions(shell)),
            Sub::Man { command } => Command::Print(generate::man(command.as_deref())?),
        };
        Ok(Config {
            command,
            verbosity,
            color,
        })
    }
}

/// A site directory, or an archive file (which is read later, with its own errors).
fn require_site(path: &std::path::Path) -> Result<()> {
    if crate::archive::is_archive(path) && path.is_file() {
        return Ok(());
    }
    require_dir(path)
}

pub(super) fn require_dir(path: &std::path::Path) -> Result<()> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(meta) => Err(Error::NotADirectory {
            path: path.to_path_buf(),
            what: crate::input::kind_of(&meta),
        }),
        Err(_) => Err(Error::NotFound {
            path: path.to_path_buf(),
        }),
    }
}
