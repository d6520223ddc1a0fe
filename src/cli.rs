//! The command line (clap derive types only). Converted to a [`Config`] exactly once, in
//! [`Cli::into_config`]; nothing else sees these types.

use std::io::IsTerminal;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::markup::CssMode;
use crate::rewrite::markup::CssChoice;

use crate::config::{
    AnalyzeConfig, AuditConfig, Command, Config, LinksConfig, OutputPaths, ReplayConfig,
    ReportConfig, RewriteConfig, Verbosity, VerifyConfig,
};
use crate::error::{Error, Result};
use crate::inventory::AnalyzeOptions;
use crate::output::Plan;
use crate::replay::protocol::Question;
use crate::replay::{Mode, Pages, ReplayOptions, Test};
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
    /// HTTP/1.0, persistent, pipelined and pipelined+deflate modes, in cleartext and over TLS,
    /// counting bytes and packets (or, with --document-sizes, redo the 1998 HTTP/HTTPS study).
    Replay {
        #[command(flatten)]
        site: SiteArgs,
        /// Print the replay rows as JSON on stdout.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        replay: ReplayArgs,
    },
    /// List the link profiles (rates, RTT, loss, queue, MTU) with their sources, or show what
    /// a link spec (and a sweep over it) resolves to.
    ///
    /// Exit status: 0, or 2 when the spec is not valid (the message lists the valid forms).
    Links {
        /// A link: a profile, a custom link (down=2mbit,up=375kbit,rtt=50ms,loss=1%), or
        /// trace:UP_FILE,DOWN_FILE; several separated by commas [default: every profile].
        link: Option<String>,
        /// Vary one setting over LINK: rtt=20,40,80 (ms) or loss=0,0.5,1 (percent).
        #[arg(long, value_name = "KEY=V1,V2,…", requires = "link")]
        sweep: Option<String>,
        /// Print the links as JSON on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Internal: the replay inside a private network namespace (re-executed by `replay`).
    #[command(name = "__replay-child", hide = true)]
    ReplayChild,
    /// The whole pipeline: analyze, rewrite, replay both versions, write the reports.
    ///
    /// Exit codes: 0 every budget holds, 1 some budget failed, 2 usage or fatal error.
    Audit {
        #[command(flatten)]
        site: SiteArgs,
        #[command(flatten)]
        out: OutArgs,
        #[command(flatten)]
        image: ImageArgs,
        #[command(flatten)]
        replay: ReplayArgs,
        #[command(flatten)]
        audit: AuditArgs,
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
        /// Check at most this many pages (1 or more), spread evenly over the site
        /// [default: all].
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
        pages: Option<u64>,
        /// Print the results as JSON on stdout.
        #[arg(long)]
        json: bool,
        /// Where diff images go [default: out/<original directory name>/verify/]. Must be a new
        /// or empty directory, or one an earlier `verify` wrote (it has DIR/.webdiet-output).
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// Write diff images into DIR even though webdiet did not make it; they replace files
        /// of the same name (PAGE.png), and nothing else in DIR is touched.
        #[arg(long)]
        force: bool,
    },
}

// ---- replay (begin) ----
/// `--modes`: a mode of the replay's table, or `all`.
fn parse_mode(text: &str) -> std::result::Result<ModeChoice, String> {
    if text.eq_ignore_ascii_case("all") {
        return Ok(ModeChoice::All);
    }
    text.parse::<Mode>().map(ModeChoice::One)
}

/// The help of `--modes`: the table's modes and which are the default.
fn modes_help() -> String {
    let all = Mode::all();
    let list = all
        .iter()
        .map(|m| {
            if m.spec().default {
                m.as_str().to_string()
            } else {
                format!("{} (only when named)", m.as_str())
            }
        })
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        "Modes to replay, comma-separated, or `all` [default: all but those only named]: {list}"
    )
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum HeadersArg {
    Libwww,
    Browser,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ClientArg {
    Webdiet,
    Chromium,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ModeChoice {
    All,
    One(Mode),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum TestArg {
    Both,
    First,
    Validate,
}

/// `--document-sizes`: sizes in bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Sizes(Vec<u64>);

fn parse_sizes(text: &str) -> std::result::Result<Sizes, String> {
    crate::replay::study::parse_sizes(text).map(Sizes)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum TlsArg {
    #[value(name = "1.3")]
    V13,
    #[value(name = "1.2")]
    V12,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum OnOff {
    On,
    Off,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum CipherArg {
    AesGcm,
    Chacha20,
}

impl TestArg {
    fn tests(self) -> Vec<Test> {
        match self {
            TestArg::Both => Test::ALL.to_vec(),
            TestArg::First => vec![Test::First],
            TestArg::Validate => vec![Test::Validate],
        }
    }
}

/// `audit` only: dry run and budgets.
#[derive(Debug, Args)]
struct AuditArgs {
    /// Measure and report what a rewrite would save without keeping the rewritten site.
    #[arg(long)]
    dry_run: bool,
    /// Skip the replay (no packet counts; budgets on bytes, requests and packets then fail).
    #[arg(long)]
    no_replay: bool,
    /// Budget: payload bytes of a first visit to the rewritten site (in the budget mode).
    #[arg(long, value_name = "BYTES")]
    max_first_visit_bytes: Option<u64>,
    /// Budget: requests of a first visit to the rewritten site.
    #[arg(long, value_name = "N")]
    max_requests: Option<u64>,
    /// Budget: packets of a first visit to the rewritten site in MODE (repeatable).
    #[arg(long, value_name = "MODE=N")]
    max_packets: Vec<String>,
    /// Budget: the paper's time (first SYN to the last counted packet, median) of a first
    /// visit to the rewritten site over LINK, in the budget mode, in ms (repeatable).
    #[arg(long, value_name = "LINK=MS")]
    max_time: Vec<String>,
    /// Budget: first-visit bytes must drop by at least this many percent.
    #[arg(long, value_name = "PERCENT")]
    min_saving_percent: Option<f64>,
    /// Budget: fail when any image failed its pixel verification.
    #[arg(long)]
    no_verify_failures: bool,
    /// The mode whose first visit the byte, request and time budgets read [default: pipelined].
    #[arg(long, value_parser = |s: &str| s.parse::<Mode>())]
    budget_mode: Option<Mode>,
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
        })
    }
}

#[derive(Debug, Args)]
struct ReplayArgs {
    /// The page to visit, as a site path [default: the site's index page].
    #[arg(long, value_name = "PATH", conflicts_with = "all_pages")]
    page: Option<String>,
    /// Visit every page of the site in turn.
    #[arg(long)]
    all_pages: bool,
    #[arg(long, value_delimiter = ',', value_parser = parse_mode, value_name = "MODE", help = modes_help())]
    modes: Vec<ModeChoice>,
    /// TLS version of the https modes.
    #[arg(long, value_enum, default_value_t = TlsArg::V13)]
    tls: TlsArg,
    /// In the https modes, every connection of a visit after the first resumes the session
    /// (TLS 1.3 tickets, TLS 1.2 session IDs), as a browser does.
    #[arg(long, value_enum, default_value_t = OnOff::On)]
    resumption: OnOff,
    /// Cipher suite of the https modes: AES-128-GCM or ChaCha20-Poly1305.
    #[arg(long, value_enum, default_value_t = CipherArg::AesGcm)]
    cipher: CipherArg,
    /// Also replay HTTP/2 with server push (the modes h2c-push and h2-push, in cleartext and
    /// over TLS): the page comes with everything it needs on a first visit.
    #[arg(long)]
    push: bool,
    /// Also replay HTTP/2 with preload hints (the modes h2c-hints and h2-hints, in cleartext
    /// and over TLS): the page's response names what it needs in `link: rel=preload`.
    #[arg(long)]
    hints: bool,
    /// The request headers the robot sends: the 1997 robot's few, or a current Chromium's
    /// (client hints, an Accept per type, a 300-byte cookie). Header compression depends on it.
    #[arg(long, value_enum, default_value_t = HeadersArg::Libwww)]
    headers: HeadersArg,
    /// Tests to run, comma-separated [default: both]. A validation always follows a first visit.
    #[arg(long, value_enum, value_delimiter = ',')]
    tests: Vec<TestArg>,
    /// Repetitions of each combination, 1–1000; the report gives medians.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=1000))]
    runs: u32,
    /// Parallel connections in HTTP/1.0 mode, 1–64.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=64))]
    connections: u32,
    /// TCP maximum segment size (payload bytes per segment), 88–65000.
    #[arg(long, default_value_t = 1460, value_parser = clap::value_parser!(u32).range(88..=65_000))]
    mss: u32,
    /// Leave Nagle's algorithm on (it is off by default, as in the 1997 study).
    #[arg(long)]
    nagle: bool,
    /// The client's output buffer in pipelined modes, in bytes, 64–1048576 (libwww's was
    /// 1024).
    #[arg(long, value_name = "BYTES", default_value_t = 1460, value_parser = clap::value_parser!(u32).range(64..=1 << 20))]
    client_buffer: u32,
    /// Let Linux ACK every segment at the start of a connection (quick-ACK mode) instead of
    /// delaying ACKs as 1997 stacks did.
    #[arg(long)]
    quick_acks: bool,
    /// Server port on 127.0.0.1 [default: an ephemeral port].
    #[arg(long)]
    port: Option<u16>,
    /// Run in the current network namespace (TCP_MAXSEG clamped) instead of a private one,
    /// so that an outside capture (with --port) can check the counts.
    #[arg(long)]
    no_netns: bool,
    /// Capture the replay with tcpdump into this pcap file (private namespace only; over an
    /// emulated link on the client's device wd-client, first run only).
    #[arg(long, value_name = "FILE", conflicts_with = "no_netns")]
    capture: Option<PathBuf>,
    /// Replay over these links, in order: profiles (`webdiet links`), custom links
    /// (down=2mbit,up=375kbit,rtt=50ms,loss=1%) or trace:UP,DOWN, separated by commas
    /// [replay default: loopback; audit default: loopback,Cable].
    #[arg(long, value_name = "LINK[,LINK…]")]
    link: Option<String>,
    /// Vary one setting of the --link (a single base link): rtt=20,40,80 (ms) or
    /// loss=0,0.5,1 (percent); one link per value.
    #[arg(long, value_name = "KEY=V1,V2,…", requires = "link")]
    sweep: Option<String>,
    /// Runs on one link, instead of --runs: LINK=N (repeatable). LINK also names every point
    /// of a sweep over it (--runs-on ppp-1997=1, --runs-on spdy-cable=3).
    #[arg(long = "runs-on", value_name = "LINK=N", value_parser = parse_runs_on)]
    runs_on: Vec<(String, usize)>,
    /// The loss seed of the first run on an emulated link (run i uses SEED + i).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// How long, in seconds (1–600), a connect, read or write may wait before a visit gives
    /// up; over an emulated link the time to drain its full queues and a round trip are added.
    /// On loopback a visit that gives up fails the replay; over an emulated link it is
    /// reported as timed out.
    #[arg(long, value_name = "SECONDS", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=600))]
    timeout: u64,
    /// Who visits: webdiet (the 1997 robot, in every mode), chromium (headless Chromium over
    /// each emulated link, in the modes a browser speaks: persistent, https-persistent, h2;
    /// metrics, waterfall, packets on the link), or webdiet,chromium. `audit` always runs
    /// webdiet's client as well [default: webdiet].
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        value_name = "CLIENT[,CLIENT]"
    )]
    client: Vec<ClientArg>,
    /// With --client chromium: how long one page load may take, in seconds (1–600), until
    /// `load` and its last request; the link's own buffering is added.
    #[arg(long, value_name = "SECONDS", default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=600))]
    browser_timeout: u64,
    /// `replay` only: instead of visiting the site, redo the 1998 HTTP/HTTPS study — single
    /// GETs of generated documents of these sizes over HTTP, TLS 1.2 and TLS 1.3, full and
    /// resumed (`k` = 1024; `A..B` counts from A to B in steps of A).
    #[arg(long, value_name = "SIZES", value_parser = parse_sizes)]
    document_sizes: Option<Sizes>,
    /// With --document-sizes: write the chart of duration against size to this SVG file.
    #[arg(long, value_name = "FILE", requires = "document_sizes")]
    chart: Option<PathBuf>,
}

/// `LINK=N` of `--runs-on`: the last `=` splits, since a link's name may hold others.
fn parse_runs_on(text: &str) -> std::result::Result<(String, usize), String> {
    let (link, n) = text
        .rsplit_once('=')
        .ok_or_else(|| format!("{text}: expected LINK=N, e.g. ppp-1997=1"))?;
    let n: usize = n
        .parse()
        .ok()
        .filter(|n| (1..=1000).contains(n))
        .ok_or_else(|| format!("{text}: N must be a whole number from 1 to 1000"))?;
    let parsed = crate::replay::link::parse(link).map_err(|e| e.to_string())?;
    match parsed.as_slice() {
        [one] => Ok((one.name().to_string(), n)),
        _ => Err(format!("{text}: name one link")),
    }
}

impl ReplayArgs {
    /// The options, with `default_links` when no --link is given.
    fn options(self, default_links: &str) -> Result<ReplayOptions> {
        let usage = |e: crate::replay::link::SpecError| Error::Usage {
            message: e.to_string(),
        };
        let links = match (&self.link, &self.sweep) {
            (Some(link), None) => crate::replay::link::parse(link).map_err(usage)?,
            (Some(link), Some(sweep)) => crate::replay::link::sweep(link, sweep).map_err(usage)?,
            (None, _) => crate::replay::link::parse(default_links).map_err(usage)?,
        };
        if self.capture.is_some() && links.len() > 1 {
            return Err(Error::Usage {
                message: "--capture records the replay over one link; give one --link".into(),
            });
        }
        let mut opts = ReplayOptions {
            links,
            runs_on: self.runs_on.clone(),
            seed: self.seed,
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
            HeadersArg::Libwww => crate::replay::headers::HeaderSet::Libwww,
            HeadersArg::Browser => crate::replay::headers::HeaderSet::Browser,
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
// ---- replay (end) ----

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
    /// webdiet replaces only what it wrote there itself (listed in DIR/.webdiet-output).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Replace DIR/site/ and DIR/report.{json,md,html} even when webdiet did not write them.
    /// Nothing else in DIR is touched.
    #[arg(long)]
    force: bool,
}

impl OutArgs {
    /// The output location, checked against the rules of [`crate::output::check`].
    fn paths(&self, site: &std::path::Path, plan: &Plan) -> Result<OutputPaths> {
        let paths = OutputPaths::for_site(site, self.out.as_deref(), self.force);
        crate::output::check(&paths, plan, &[site])?;
        Ok(paths)
    }
}

// --- image conversion options (rewrite stage) ---
#[derive(Debug, Args)]
struct ImageArgs {
    /// How hard to work on each image: fast, default or max (Zopfli where it pays). Output is
    /// the same for the same effort on every run; sizes and CPU per level in docs/images.md.
    #[arg(long, value_name = "LEVEL", default_value = "default")]
    effort: crate::image::Effort,
    /// What GIFs become: png (PNG/APNG, shown by every browser since the late 1990s), webp
    /// (lossless WebP, still or animated: every current browser, none from 1997) or best (both
    /// made and verified, the smallest used). See docs/images.md, "WebP".
    #[arg(long, value_name = "FORMAT", default_value = "png")]
    image_format: crate::image::Target,
    /// Keep animated GIFs as GIF instead of converting them (to APNG or animated WebP).
    #[arg(long)]
    no_apng: bool,
    /// Replace a GIF only when the new file saves at least this many bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 1)]
    min_saving: u64,
    /// Also copy converted GIFs that nothing refers to any more.
    #[arg(long)]
    keep_originals: bool,
    /// Write interlaced PNGs (default: non-interlaced, which is smaller).
    #[arg(long)]
    interlace: bool,
    /// Also write PATH.gz next to each text file where compressing saves at least a packet
    /// and 10% (for nginx gzip_static).
    #[arg(long)]
    precompress: bool,
    /// Keep presentational markup (<font>, <center>, bgcolor, align…) as it is.
    #[arg(long)]
    no_markup: bool,
    /// Where the CSS from presentational markup goes; auto picks the fewest first-visit bytes.
    /// With classes, one per element or one per declaration is chosen the same way.
    #[arg(long, value_enum, default_value_t = CssArg::Auto)]
    css: CssArg,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum CssArg {
    Auto,
    SiteSheet,
    PerPage,
    InlineStyle,
}

impl ImageArgs {
    fn rewrite_options(
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
                let out = out.paths(&site.site, &Plan::rewrite())?;
                Command::Rewrite(RewriteConfig {
                    rewrite: image.rewrite_options(&out, site.analyze_options()),
                    analyze: site.analyze_options(),
                    site: site.site,
                    crawl: CrawlOptions::default(),
                    out,
                })
            }
            Sub::Replay { site, json, replay } => {
                require_dir(&site.site)?;
                let study = match (&replay.document_sizes, &replay.chart) {
                    (Some(sizes), chart) => Some(crate::config::StudyConfig {
                        sizes: sizes.0.clone(),
                        chart: chart.clone(),
                    }),
                    (None, _) => None,
                };
                Command::Replay(Box::new(ReplayConfig {
                    site: site.site,
                    json,
                    replay: replay.options("loopback")?,
                    study,
                }))
            }
            Sub::ReplayChild => Command::ReplayChild,
            Sub::Links { link, sweep, json } => {
                let usage = |e: crate::replay::link::SpecError| Error::Usage {
                    message: e.to_string(),
                };
                let links = match (link, sweep) {
                    (None, _) => None,
                    (Some(link), None) => Some(crate::replay::link::parse(&link).map_err(usage)?),
                    (Some(link), Some(sweep)) => {
                        Some(crate::replay::link::sweep(&link, &sweep).map_err(usage)?)
                    }
                };
                Command::Links(LinksConfig { links, json })
            }
            Sub::Audit {
                site,
                out,
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
                let out = out.paths(&site.site, &Plan::audit(audit.dry_run))?;
                if replay.capture.is_some() {
                    return Err(Error::Usage {
                        message: "--capture records one replay; use it with `webdiet replay`, \
                                  not with `audit`, which replays two sites"
                            .to_string(),
                    });
                }
                let budgets = crate::budget::load(&site.site)?.overridden_by(audit.budgets()?);
                Command::Audit(Box::new(AuditConfig {
                    out: out.clone(),
                    audit: crate::audit::AuditOptions {
                        rewrite: image.rewrite_options(&out, site.analyze_options()),
                        analyze: site.analyze_options(),
                        site: site.site,
                        crawl: CrawlOptions::default(),
                        dry_run: audit.dry_run,
                        replay: match audit.no_replay {
                            true => None,
                            false => {
                                let default = replay.link.is_none() && replay.runs_on.is_empty();
                                let mut opts = replay.options(crate::audit::DEFAULT_LINKS)?;
                                // The audit's tables are the robot's: it always visits.
                                if !opts.clients.contains(&crate::replay::ClientKind::Webdiet) {
                                    opts.clients.insert(0, crate::replay::ClientKind::Webdiet);
                                }
                                if default {
                                    let (link, runs) = crate::audit::DEFAULT_LINK_RUNS;
                                    opts.runs_on.push((link.to_string(), runs));
                                }
                                Some(opts)
                            }
                        },
                        worth: crate::deflate::WorthRule::default(),
                        budgets,
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
                require_dir(&original)?;
                require_dir(&rewritten)?;
                let pages = pages.map(|n| usize::try_from(n).unwrap_or(usize::MAX));
                Command::Verify(VerifyConfig::new(
                    original, rewritten, pages, json, out, force,
                )?)
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
