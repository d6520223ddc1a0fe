//! The command line (clap derive types only). Converted to a [`Config`] exactly once, in
//! [`Cli::into_config`]; nothing else sees these types.

use std::io::IsTerminal;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::config::{
    AnalyzeConfig, Command, Config, OutputPaths, RewriteConfig, Verbosity, VerifyConfig,
};
use crate::error::{Error, Result};
use crate::inventory::AnalyzeOptions;
use crate::site::CrawlOptions;

/// Makes old, heavy web sites lighter and proves by how much.
#[derive(Debug, Parser)]
#[command(name = "webdiet", version, about, max_term_width = 100)]
pub struct Cli {
    #[command(subcommand)]
    command: Sub,
    /// Print only errors and the final verdict.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    quiet: bool,
    /// Print per-file details.
    #[arg(short, long, global = true)]
    verbose: bool,
    /// When to use colours on the terminal.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Subcommand)]
enum Sub {
    /// Crawl a site directory and list what it is made of: pages, resources, bytes by type,
    /// every reference, broken references, orphans, external links.
    Analyze {
        #[command(flatten)]
        site: SiteArgs,
        /// Print the inventory as JSON on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Write a lighter copy of the site (GIF → PNG/APNG, presentational markup → CSS) to
    /// OUT/site/.
    Rewrite {
        #[command(flatten)]
        site: SiteArgs,
        #[command(flatten)]
        out: OutArgs,
        #[command(flatten)]
        image: ImageArgs,
    },
    /// Serve the site on loopback and replay a first visit and a cache validation in
    /// HTTP/1.0, persistent, pipelined and pipelined+deflate modes, counting bytes and packets.
    Replay {
        #[command(flatten)]
        site: SiteArgs,
        /// Print the replay rows as JSON on stdout.
        #[arg(long)]
        json: bool,
    },
    /// The whole pipeline: analyze, rewrite, replay both versions, write the reports.
    Audit {
        #[command(flatten)]
        site: SiteArgs,
        #[command(flatten)]
        out: OutArgs,
    },
    /// Re-render a report.json as text, Markdown, HTML or JSON.
    Report {
        /// A report.json written by `webdiet audit`.
        report: PathBuf,
        #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
        format: ReportFormat,
    },
    /// Render the pages of two site trees in headless Chromium and compare them pixel by pixel.
    ///
    /// Exit status: 0 every page is pixel-identical; 1 some page differs, is missing from the
    /// rewritten tree or could not be rendered; 2 Chromium is missing or a directory is bad.
    Verify {
        /// The original site directory.
        original: PathBuf,
        /// The rewritten site directory.
        rewritten: PathBuf,
        /// Check at most this many pages, spread evenly over the site [default: all].
        #[arg(long, value_name = "N")]
        pages: Option<usize>,
        /// Print the results as JSON on stdout.
        #[arg(long)]
        json: bool,
        /// Where diff images go [default: out/<original directory name>/verify/].
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ReportFormat {
    Text,
    Md,
    Html,
    Json,
}

#[derive(Debug, Args)]
struct SiteArgs {
    /// The site directory (read only; never modified).
    site: PathBuf,
    /// The URL the site was published at: absolute links under it count as local.
    #[arg(long, value_name = "URL")]
    site_url: Option<url::Url>,
    /// Pages and style sheets larger than this many bytes are listed but not parsed.
    #[arg(long, value_name = "BYTES", default_value_t = 16 << 20)]
    max_parse_bytes: u64,
}

#[derive(Debug, Args)]
struct OutArgs {
    /// Output directory [default: out/<site directory name>/]. Must not be inside the site.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

// --- image conversion options (rewrite stage) ---
#[derive(Debug, Args)]
struct ImageArgs {
    /// oxipng effort: 0–6 or max (Zopfli). Default 2, chosen by measurement (docs/images.md).
    #[arg(long, value_name = "LEVEL", default_value = "2")]
    png_level: crate::image::PngLevel,
    /// Keep animated GIFs as GIF instead of converting them to APNG.
    #[arg(long)]
    no_apng: bool,
    /// Replace a GIF only when the PNG saves at least this many bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 1)]
    min_saving: u64,
    /// Also copy converted GIFs that nothing refers to any more.
    #[arg(long)]
    keep_originals: bool,
    /// Write interlaced PNGs (default: non-interlaced, which is smaller).
    #[arg(long)]
    interlace: bool,
}

impl ImageArgs {
    fn image_options(&self) -> crate::image::ImageOptions {
        crate::image::ImageOptions {
            png_level: self.png_level,
            apng: !self.no_apng,
            min_saving: self.min_saving,
            interlace: self.interlace,
            ..Default::default()
        }
    }
}
// --- end image conversion options ---

impl SiteArgs {
    fn analyze_options(&self) -> AnalyzeOptions {
        AnalyzeOptions {
            site_url: self.site_url.clone(),
            max_parse_bytes: self.max_parse_bytes,
        }
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
                analyze: site.analyze_options(),
                site: site.site,
                json,
                crawl: CrawlOptions::default(),
            }),
            Sub::Rewrite { site, out, image } => {
                let out = OutputPaths::for_site(&site.site, out.out.as_deref())?;
                Command::Rewrite(RewriteConfig {
                    analyze: site.analyze_options(),
                    site: site.site,
                    crawl: CrawlOptions::default(),
                    image: image.image_options(),
                    keep_originals: image.keep_originals,
                    out,
                })
            }
            Sub::Replay { site, .. } => {
                require_dir(&site.site)?;
                Command::Pending { command: "replay" }
            }
            Sub::Audit { site, out } => {
                OutputPaths::for_site(&site.site, out.out.as_deref())?;
                Command::Pending { command: "audit" }
            }
            Sub::Report { report, .. } => {
                if !report.is_file() {
                    return Err(Error::NotFound { path: report });
                }
                Command::Pending { command: "report" }
            }
            Sub::Verify {
                original,
                rewritten,
                pages,
                json,
                out,
            } => {
                require_dir(&original)?;
                require_dir(&rewritten)?;
                Command::Verify(VerifyConfig::new(original, rewritten, pages, json, out)?)
            }
        };
        Ok(Config {
            command,
            verbosity,
            color,
        })
    }
}

fn require_dir(path: &std::path::Path) -> Result<()> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(_) => Err(Error::NotADirectory {
            path: path.to_path_buf(),
        }),
        Err(_) => Err(Error::NotFound {
            path: path.to_path_buf(),
        }),
    }
}
