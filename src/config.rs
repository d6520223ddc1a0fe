//! Plain option structs for each command, built once from the command line (`cli.rs`) and
//! passed down. Nothing past this module knows about clap.

use std::path::PathBuf;

use crate::error::Result;
use crate::inventory::AnalyzeOptions;
use crate::output::{self, Plan};
use crate::site::CrawlOptions;
use crate::verify::VerifyOptions;

pub use crate::report::terminal::Verbosity;

pub use crate::output::OutputPaths;

/// `webdiet analyze`.
#[derive(Debug, Clone)]
pub struct AnalyzeConfig {
    pub site: PathBuf,
    /// `--with`, `--at` for an archive input.
    pub archive: crate::archive::ArchiveOptions,
    pub json: bool,
    pub crawl: CrawlOptions,
    pub analyze: AnalyzeOptions,
}

/// `webdiet rewrite`.
#[derive(Debug, Clone)]
pub struct RewriteConfig {
    pub site: PathBuf,
    /// `--with`, `--at` for an archive input.
    pub archive: crate::archive::ArchiveOptions,
    /// `--emit-wacz FILE` (checked). Default: none.
    pub emit_wacz: Option<PathBuf>,
    pub out: OutputPaths,
    pub crawl: CrawlOptions,
    pub analyze: AnalyzeOptions,
    /// What to rewrite and how (`--effort`, `--image-format`, `--no-apng`, `--min-saving`,
    /// `--interlace`, `--keep-originals`, `--precompress`).
    pub rewrite: crate::rewrite::RewriteOptions,
}

/// `webdiet verify`.
#[derive(Debug, Clone)]
pub struct VerifyConfig {
    pub original: PathBuf,
    pub rewritten: PathBuf,
    pub json: bool,
    pub verify: VerifyOptions,
}

impl VerifyConfig {
    /// Checks the output directory (default `out/<original name>/verify/`; see
    /// [`output::check`]: never inside or around either tree, empty or webdiet's unless
    /// `force`) and builds the options.
    pub fn new(
        original: PathBuf,
        rewritten: PathBuf,
        pages: Option<usize>,
        json: bool,
        out: Option<PathBuf>,
        force: bool,
    ) -> Result<Self> {
        let out_dir = match out {
            Some(dir) => dir,
            None => OutputPaths::for_site(&original, None, force)
                .dir
                .join("verify"),
        };
        let paths = OutputPaths {
            dir: out_dir.clone(),
            force,
        };
        output::check(&paths, &Plan::verify(), &[&original, &rewritten])?;
        Ok(VerifyConfig {
            original,
            rewritten,
            json,
            verify: VerifyOptions {
                pages,
                out_dir,
                ..VerifyOptions::default()
            },
        })
    }
}

/// `webdiet replay`.
#[derive(Debug, Clone)]
pub struct ReplayConfig {
    pub site: PathBuf,
    /// `--with`, `--at` for an archive input.
    pub archive: crate::archive::ArchiveOptions,
    pub json: bool,
    pub replay: crate::replay::ReplayOptions,
    /// `--document-sizes`: the 1998 HTTP/HTTPS study instead of the robot's visit. Default:
    /// none.
    pub study: Option<StudyConfig>,
}

/// `webdiet replay --document-sizes SIZES [--chart FILE]`.
#[derive(Debug, Clone)]
pub struct StudyConfig {
    /// Document sizes in bytes.
    pub sizes: Vec<u64>,
    /// Where the SVG chart goes (checked not to be inside the site). Default: none.
    pub chart: Option<PathBuf>,
}

/// `webdiet links`.
#[derive(Debug, Clone)]
pub struct LinksConfig {
    /// The links to show, parsed (and swept); `None` lists every profile.
    pub links: Option<Vec<crate::sim::link::Link>>,
    pub json: bool,
}

/// `webdiet audit`.
#[derive(Debug, Clone)]
pub struct AuditConfig {
    pub out: OutputPaths,
    pub audit: crate::audit::AuditOptions,
    /// The CI formats and GitHub Actions. Default: none.
    pub ci: CiOutputs,
}

/// Where `audit` writes the formats CI systems read, and whether it speaks to GitHub Actions.
/// Each file follows the rules of `--out`: never inside the site, never over a file webdiet
/// did not write unless `force`, built under a temporary name and renamed into place.
#[derive(Debug, Clone, Default)]
pub struct CiOutputs {
    /// `--junit FILE`: the budgets as JUnit XML. Default: none.
    pub junit: Option<PathBuf>,
    /// `--sarif FILE`: the per-file findings as SARIF 2.1.0. Default: none.
    pub sarif: Option<PathBuf>,
    /// `--gitlab-codequality FILE`: findings and failed budgets as GitLab Code Quality JSON.
    /// Default: none.
    pub gitlab: Option<PathBuf>,
    /// `--github`, or `GITHUB_ACTIONS=true` without `--no-github`: annotations on stdout and
    /// the Markdown report appended to the step summary. Default: off.
    pub github: bool,
    /// `$GITHUB_STEP_SUMMARY` when `github` is on and it is set. Default: none.
    pub step_summary: Option<PathBuf>,
    /// `--force`: replace these files even when webdiet did not write them. Default: off.
    pub force: bool,
}

/// The formats `webdiet report` can render.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportFormat {
    Text,
    Markdown,
    Html,
    Json,
    Junit,
    Sarif,
    Gitlab,
    Github,
}

/// `webdiet report`.
#[derive(Debug, Clone)]
pub struct ReportConfig {
    /// A report.json written by `webdiet audit` or `webdiet rewrite`.
    pub json: PathBuf,
    pub format: ReportFormat,
}

/// What the user asked for, validated.
#[derive(Debug, Clone)]
pub enum Command {
    Analyze(AnalyzeConfig),
    Rewrite(RewriteConfig),
    Audit(Box<AuditConfig>),
    Report(ReportConfig),
    Verify(VerifyConfig),
    Replay(Box<ReplayConfig>),
    Links(LinksConfig),
    Batch(Box<crate::batch::BatchConfig>),
    Merge(crate::merge::MergeConfig),
    /// The hidden namespace child of `replay` (`webdiet __replay-child`).
    ReplayChild,
    /// Text about the command line itself, made from its definition at the border as clap
    /// makes `--help` (`webdiet completions SHELL`, `webdiet man`): printed on stdout as it is.
    Print(String),
}

impl Config {
    /// How the text exporters should write for this run.
    pub fn text_style(&self) -> crate::report::terminal::TextStyle {
        crate::report::terminal::TextStyle {
            color: self.color,
            verbosity: self.verbosity,
        }
    }
}

/// The whole configuration of one run.
#[derive(Debug, Clone)]
pub struct Config {
    pub command: Command,
    pub verbosity: Verbosity,
    /// Use colours on the terminal. Default: only when stdout is a terminal.
    pub color: bool,
}
