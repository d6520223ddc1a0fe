//! Plain option structs for each command, built once from the command line (`cli.rs`) and
//! passed down. Nothing past this module knows about clap.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::inventory::AnalyzeOptions;
use crate::site::{self, CrawlOptions};
use crate::verify::VerifyOptions;

/// How much the terminal output says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Verbosity {
    Quiet,
    #[default]
    Normal,
    Verbose,
}

/// Where a command that writes puts its results.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputPaths {
    /// `--out DIR`. Default: `out/<site directory name>/`.
    pub dir: PathBuf,
}

impl OutputPaths {
    /// Picks the output directory for a site and refuses one inside the site.
    pub fn for_site(site: &Path, out: Option<&Path>) -> Result<Self> {
        let dir = match out {
            Some(dir) => dir.to_path_buf(),
            None => Path::new("out").join(site::site_name(site)),
        };
        refuse_inside(site, &dir)?;
        Ok(OutputPaths { dir })
    }

    /// The rewritten copy of the site.
    pub fn site(&self) -> PathBuf {
        self.dir.join("site")
    }
    pub fn report_json(&self) -> PathBuf {
        self.dir.join("report.json")
    }
    pub fn report_html(&self) -> PathBuf {
        self.dir.join("report.html")
    }
    pub fn report_md(&self) -> PathBuf {
        self.dir.join("report.md")
    }
}

/// Fails when `out` is the site directory or lies inside it (the input is read-only to us).
fn refuse_inside(site: &Path, out: &Path) -> Result<()> {
    let site_abs = std::fs::canonicalize(site).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => Error::NotFound {
            path: site.to_path_buf(),
        },
        _ => Error::io(site, e),
    })?;
    let out_abs = absolute_lexical(out)?;
    if out_abs.starts_with(&site_abs) {
        return Err(Error::OutputInsideSite {
            out: out.to_path_buf(),
            site: site.to_path_buf(),
        });
    }
    Ok(())
}

/// An absolute form of a path that may not exist yet: the deepest existing ancestor is
/// canonicalized (resolving symlinks), the rest appended as written.
fn absolute_lexical(path: &Path) -> Result<PathBuf> {
    let cwd = std::env::current_dir().map_err(|e| Error::io(".", e))?;
    let joined = cwd.join(path);
    let mut existing = joined.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(canonical) = std::fs::canonicalize(existing) {
            let mut out = canonical;
            for part in rest.iter().rev() {
                match part {
                    std::path::Component::ParentDir => {
                        out.pop();
                    }
                    std::path::Component::CurDir => {}
                    other => out.push(other),
                }
            }
            return Ok(out);
        }
        match (existing.parent(), existing.components().next_back()) {
            (Some(parent), Some(last)) => {
                rest.push(last);
                existing = parent;
            }
            _ => return Ok(joined),
        }
    }
}

/// `webdiet analyze`.
#[derive(Debug, Clone)]
pub struct AnalyzeConfig {
    pub site: PathBuf,
    pub json: bool,
    pub crawl: CrawlOptions,
    pub analyze: AnalyzeOptions,
}

/// `webdiet rewrite`.
#[derive(Debug, Clone)]
pub struct RewriteConfig {
    pub site: PathBuf,
    pub out: OutputPaths,
    pub crawl: CrawlOptions,
    pub analyze: AnalyzeOptions,
    /// What to rewrite and how (`--png-level`, `--no-apng`, `--min-saving`, `--interlace`,
    /// `--keep-originals`, `--precompress`).
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
    /// Checks the output directory (default `out/<original name>/verify/`, never inside
    /// either tree) and builds the options.
    pub fn new(
        original: PathBuf,
        rewritten: PathBuf,
        pages: Option<usize>,
        json: bool,
        out: Option<PathBuf>,
    ) -> Result<Self> {
        let out_dir = match out {
            Some(dir) => dir,
            None => OutputPaths::for_site(&original, None)?.dir.join("verify"),
        };
        refuse_inside(&original, &out_dir)?;
        refuse_inside(&rewritten, &out_dir)?;
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
    pub json: bool,
    pub replay: crate::replay::ReplayOptions,
}

/// `webdiet links`.
#[derive(Debug, Clone)]
pub struct LinksConfig {
    /// The links to show, parsed (and swept); `None` lists every profile.
    pub links: Option<Vec<crate::replay::link::Link>>,
    pub json: bool,
}

/// `webdiet audit`.
#[derive(Debug, Clone)]
pub struct AuditConfig {
    pub out: OutputPaths,
    pub audit: crate::audit::AuditOptions,
}

/// The formats `webdiet report` can render.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportFormat {
    Text,
    Markdown,
    Html,
    Json,
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
    /// The hidden namespace child of `replay` (`webdiet __replay-child`).
    ReplayChild,
    /// A command whose stage has not landed yet; its arguments were checked.
    Pending {
        command: &'static str,
    },
}

/// The whole configuration of one run.
#[derive(Debug, Clone)]
pub struct Config {
    pub command: Command,
    pub verbosity: Verbosity,
    /// Use colours on the terminal. Default: only when stdout is a terminal.
    pub color: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_inside_the_site_is_refused() {
        let site = tempfile::tempdir().unwrap();
        let inside = site.path().join("out");
        assert!(matches!(
            OutputPaths::for_site(site.path(), Some(&inside)),
            Err(Error::OutputInsideSite { .. })
        ));
        assert!(OutputPaths::for_site(site.path(), Some(site.path())).is_err());
        let dotted = site.path().join("a/../b");
        assert!(OutputPaths::for_site(site.path(), Some(&dotted)).is_err());
    }

    #[test]
    fn output_beside_the_site_is_fine() {
        let parent = tempfile::tempdir().unwrap();
        let site = parent.path().join("mysite");
        std::fs::create_dir(&site).unwrap();
        let out = parent.path().join("out/mysite");
        let paths = OutputPaths::for_site(&site, Some(&out)).unwrap();
        assert_eq!(paths.site(), out.join("site"));
        assert_eq!(paths.report_json(), out.join("report.json"));
    }

    #[test]
    fn default_output_is_named_after_the_site() {
        let parent = tempfile::tempdir().unwrap();
        let site = parent.path().join("microscape");
        std::fs::create_dir(&site).unwrap();
        let paths = OutputPaths::for_site(&site, None).unwrap();
        assert_eq!(paths.dir, Path::new("out/microscape"));
    }
}
