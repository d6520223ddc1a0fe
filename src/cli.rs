//! The command line (clap derive types only). Converted to a [`crate::config::Config`] exactly
//! once, in [`Cli::into_config`] (in `cli/convert.rs`); nothing else sees these types.
// The fields' doc comments are `--help` text, printed as written: `<font>` and
// `out/<site directory name>/` there are words for a person, not HTML for rustdoc.
#![allow(rustdoc::invalid_html_tags)]

mod batch;
mod convert;
mod generate;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::replay::Mode;

/// Makes old, heavy web sites lighter and proves by how much.
#[derive(Debug, Parser)]
#[command(name = "webdiet", version = crate::BUILD, about, max_term_width = 100)]
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

/// The headings `--help` groups options under (each option names its own, since a flattened
/// struct's `next_help_heading` would carry over to the options after it). Shown in the order
/// of their first option: for `audit`, what is read, what is written, how the site is
/// rewritten, how it is replayed, then the budgets and the CI formats that judge the result.
mod heading {
    pub(super) const INPUT: &str = "Input";
    pub(super) const ARCHIVES: &str = "Web archives";
    pub(super) const OUTPUT: &str = "Output";
    pub(super) const IMAGES: &str = "Images";
    pub(super) const MARKUP: &str = "Markup, CSS and scripts";
    pub(super) const REPLAY: &str = "Replay: pages, modes and runs";
    pub(super) const LINKS: &str = "Replay: links and clients";
    pub(super) const TLS_H2: &str = "Replay: TLS and HTTP/2";
    pub(super) const STUDY_1997: &str = "Replay: the 1997 study";
    pub(super) const MACHINE: &str = "Replay: port, namespace and capture";
    pub(super) const STUDY_1998: &str = "Replay: the 1998 HTTPS study";
    pub(super) const BUDGETS: &str = "Budgets";
    pub(super) const CI: &str = "CI formats";
    pub(super) const SHARDS: &str = "Shards";
    pub(super) const SAMPLE: &str = "Replay and the measured sample";
    pub(super) const ESTIMATES: &str = "Compression estimates";
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
        emit: EmitArgs,
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
    // Options of `replay` that `audit` refuses (it replays two sites, and the 1998 study is
    // an experiment of its own) are left out of its help.
    #[command(
        mut_arg("document_sizes", |a| a.hide(true)),
        mut_arg("chart", |a| a.hide(true)),
        mut_arg("capture", |a| a.hide(true))
    )]
    Audit {
        #[command(flatten)]
        site: SiteArgs,
        #[command(flatten)]
        out: OutArgs,
        #[command(flatten)]
        emit: EmitArgs,
        #[command(flatten)]
        image: ImageArgs,
        #[command(flatten)]
        replay: ReplayArgs,
        #[command(flatten)]
        audit: Box<AuditArgs>,
    },
    /// Re-render a report.json as text, Markdown, HTML, JSON, or a CI format: JUnit XML,
    /// SARIF, GitLab Code Quality or GitHub workflow commands.
    Report {
        /// A report.json written by `webdiet audit`.
        report: PathBuf,
        /// What to print on stdout: a report (text, md, html, json), or what a CI system
        /// reads (junit: JUnit XML; sarif: SARIF 2.1.0; gitlab: Code Quality JSON; github:
        /// workflow commands).
        #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
        format: ReportFormat,
    },
    /// Render the pages of two site trees in headless Chromium and compare them pixel by pixel.
    ///
    /// Exit status: 0 every page compared is pixel-identical; 1 some page differs, is missing
    /// from the rewritten tree or could not be rendered; 2 Chromium is missing or a directory is
    /// bad. A page whose render runs out of time (30 s, and 15 s more per MiB of the page and
    /// what it loads) is listed as "not checked (timed out)" and fails nothing.
    Verify {
        /// The original site: a directory or a web archive (.warc[.gz], .arc[.gz], .wacz).
        original: PathBuf,
        /// The rewritten site: a directory or a web archive (a WACZ from --emit-wacz).
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
    /// Audit every site of a list (or one shard of it: --shard, a Slurm array task, a
    /// Kubernetes Indexed Job), one report per site, skipping sites already done.
    ///
    /// Exit codes: 0 every unit of the shard is done, 1 some unit failed (or failed a budget of
    /// its site's webdiet.toml), 2 usage or fatal.
    Batch(batch::BatchArgs),
    /// Merge the per-site reports of `batch` into one report for the whole collection.
    ///
    /// Exit codes: 0 merged, 1 some unit has no report (without --allow-partial), 2 usage.
    Merge(batch::MergeArgs),
    /// Print the completion script for SHELL: `webdiet completions bash >
    /// ~/.local/share/bash-completion/completions/webdiet`.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page of webdiet, or of one of its commands (webdiet-COMMAND), as roff:
    /// `webdiet man audit | man -l -`.
    Man {
        /// A command [default: webdiet itself, whose page lists the commands].
        command: Option<String>,
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

/// `audit` only: dry run and budgets.
#[derive(Debug, Args)]
struct AuditArgs {
    /// Measure and report what a rewrite would save without keeping the rewritten site.
    #[arg(long)]
    #[arg(help_heading = heading::OUTPUT)]
    dry_run: bool,
    /// Skip the replay (no packet counts; budgets on bytes, requests and packets then fail).
    #[arg(long)]
    #[arg(help_heading = heading::REPLAY)]
    no_replay: bool,
    /// Budget: payload bytes of a first visit to the rewritten site (in the budget mode).
    #[arg(long, value_name = "BYTES")]
    #[arg(help_heading = heading::BUDGETS)]
    max_first_visit_bytes: Option<u64>,
    /// Budget: requests of a first visit to the rewritten site.
    #[arg(long, value_name = "N")]
    #[arg(help_heading = heading::BUDGETS)]
    max_requests: Option<u64>,
    /// Budget: packets of a first visit to the rewritten site in MODE (repeatable).
    #[arg(long, value_name = "MODE=N")]
    #[arg(help_heading = heading::BUDGETS)]
    max_packets: Vec<String>,
    /// Budget: the paper's time (first SYN to the last counted packet) of a first visit to
    /// the rewritten site over LINK, in the budget mode, in ms (repeatable): simulated, the same
    /// on any runner (see --time-source).
    #[arg(long, value_name = "LINK=MS")]
    #[arg(help_heading = heading::BUDGETS)]
    max_time: Vec<String>,
    /// Which time --max-time reads: simulated (the default: deterministic) or measured (the
    /// median over the emulated link; needs --measure on that link).
    #[arg(long, value_enum, value_name = "SOURCE")]
    #[arg(help_heading = heading::BUDGETS)]
    time_source: Option<TimeSourceArg>,
    /// Also measure time over emulated links (real packets through webdiet's link emulator,
    /// the kernel's TCP, real seconds) beside the simulation, and report the simulation's
    /// error against it: over the first --link link, or over the links named. Runs adapt:
    /// from --runs (5) until original and rewritten are told apart, or --max-runs.
    #[arg(long, value_name = "LINK[,LINK…]", num_args = 0..=1, default_missing_value = "")]
    #[arg(help_heading = heading::LINKS)]
    measure: Option<String>,
    /// With --measure: the most runs a measured link gets while original and rewritten cannot
    /// be told apart (their medians' 90% confidence intervals overlap), 1–1000.
    #[arg(long, value_name = "N", default_value_t = 11, value_parser = clap::value_parser!(u32).range(1..=1000))]
    #[arg(help_heading = heading::LINKS)]
    max_runs: u32,
    /// Budget: first-visit bytes must drop by at least this many percent.
    #[arg(long, value_name = "PERCENT")]
    #[arg(help_heading = heading::BUDGETS)]
    min_saving_percent: Option<f64>,
    /// Budget: fail when any image failed its pixel verification.
    #[arg(long)]
    #[arg(help_heading = heading::BUDGETS)]
    no_verify_failures: bool,
    /// The mode whose first visit the byte, request and time budgets read [default: pipelined].
    #[arg(long, value_parser = |s: &str| s.parse::<Mode>())]
    #[arg(help_heading = heading::BUDGETS)]
    budget_mode: Option<Mode>,
    /// Budgets in the field's shapes, beside webdiet.toml's: Lighthouse's budget.json,
    /// Lighthouse CI's assertions (warn and error levels) or sitespeed.io's budget.
    #[arg(long = "budgets", value_name = "FILE")]
    #[arg(help_heading = heading::BUDGETS)]
    budgets_file: Option<PathBuf>,
    /// Fail when the first visit to the rewritten site got heavier than in this earlier
    /// report.json, per page (see --max-regression).
    #[arg(long, value_name = "REPORT")]
    #[arg(help_heading = heading::BUDGETS)]
    baseline: Option<PathBuf>,
    /// With --baseline: how much worse each figure may get, absolute or in percent of the
    /// baseline: bytes=0.5%,requests=0,packets=0,time=10% [default: bytes=0,requests=0,packets=0].
    #[arg(long, value_name = "FIGURE=N[%],…", requires = "baseline")]
    #[arg(help_heading = heading::BUDGETS)]
    max_regression: Option<String>,
    /// Write the budgets as JUnit XML (a suite per page or link, a case per budget).
    #[arg(long, value_name = "FILE")]
    #[arg(help_heading = heading::CI)]
    junit: Option<PathBuf>,
    /// Write the per-file findings as SARIF 2.1.0 (GitHub code scanning).
    #[arg(long, value_name = "FILE")]
    #[arg(help_heading = heading::CI)]
    sarif: Option<PathBuf>,
    /// Write the findings and failed budgets as GitLab Code Quality JSON.
    #[arg(long, value_name = "FILE")]
    #[arg(help_heading = heading::CI)]
    gitlab_codequality: Option<PathBuf>,
    /// Annotate for GitHub Actions (workflow commands on stdout) and append the Markdown
    /// report to $GITHUB_STEP_SUMMARY; on by itself when GITHUB_ACTIONS=true.
    #[arg(long, conflicts_with = "no_github")]
    #[arg(help_heading = heading::CI)]
    github: bool,
    /// No GitHub annotations or job summary, even when GITHUB_ACTIONS=true.
    #[arg(long)]
    #[arg(help_heading = heading::CI)]
    no_github: bool,
}

/// `--time-source`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum TimeSourceArg {
    Simulated,
    Measured,
}

#[derive(Debug, Args)]
struct ReplayArgs {
    /// The page to visit, as a site path [default: the site's index page].
    #[arg(long, value_name = "PATH", conflicts_with = "all_pages")]
    #[arg(help_heading = heading::REPLAY)]
    page: Option<String>,
    /// Visit every page of the site in turn.
    #[arg(long)]
    #[arg(help_heading = heading::REPLAY)]
    all_pages: bool,
    #[arg(long, value_delimiter = ',', value_parser = parse_mode, value_name = "MODE", help = modes_help())]
    #[arg(help_heading = heading::REPLAY)]
    modes: Vec<ModeChoice>,
    /// Tests to run, comma-separated [default: both]. A validation always follows a first visit.
    #[arg(long, value_enum, value_delimiter = ',')]
    #[arg(help_heading = heading::REPLAY)]
    tests: Vec<TestArg>,
    /// Repetitions of each combination, 1–1000; the report gives medians.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=1000))]
    #[arg(help_heading = heading::REPLAY)]
    runs: u32,
    /// How long, in seconds (1–600), a connect, read or write may wait before a visit gives
    /// up; over an emulated link the time to drain its full queues and a round trip are added.
    /// On loopback a visit that gives up fails the replay; over an emulated link it is
    /// reported as timed out.
    #[arg(long, value_name = "SECONDS", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=600))]
    #[arg(help_heading = heading::REPLAY)]
    timeout: u64,
    /// The links time is reported on, in order: profiles (`webdiet links`), custom links
    /// (down=2mbit,up=375kbit,rtt=50ms,loss=1%) or trace:UP,DOWN, separated by commas. `replay`
    /// measures over them (and simulates them beside); `audit` simulates them, and measures
    /// with --measure; both always replay on loopback for bytes and packets [replay default:
    /// loopback; audit default: Cable,DSL,3G,4G].
    #[arg(long, value_name = "LINK[,LINK…]")]
    #[arg(help_heading = heading::LINKS)]
    link: Option<String>,
    /// Vary one setting of the --link (a single base link): rtt=20,40,80 (ms) or
    /// loss=0,0.5,1 (percent); one link per value.
    #[arg(long, value_name = "KEY=V1,V2,…", requires = "link")]
    #[arg(help_heading = heading::LINKS)]
    sweep: Option<String>,
    /// Runs on one link, instead of --runs: LINK=N (repeatable). LINK also names every point
    /// of a sweep over it (--runs-on ppp-1997=1, --runs-on spdy-cable=3).
    #[arg(long = "runs-on", value_name = "LINK=N", value_parser = parse_runs_on)]
    #[arg(help_heading = heading::LINKS)]
    runs_on: Vec<(String, usize)>,
    /// The loss seed of the first run on an emulated link (run i uses SEED + i), and of the
    /// first simulated seed.
    #[arg(long, default_value_t = 1)]
    #[arg(help_heading = heading::LINKS)]
    seed: u64,
    /// Loss seeds per simulated link that loses packets: its simulated times are quantiles
    /// over them, 1–1000.
    #[arg(long, value_name = "N", default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=1000))]
    #[arg(help_heading = heading::LINKS)]
    sim_seeds: u32,
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
    #[arg(help_heading = heading::LINKS)]
    client: Vec<ClientArg>,
    /// With --client chromium: how long one page load may take, in seconds (1–600), until
    /// `load` and its last request; the link's own buffering is added.
    #[arg(long, value_name = "SECONDS", default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=600))]
    #[arg(help_heading = heading::LINKS)]
    browser_timeout: u64,
    /// TLS version of the https modes.
    #[arg(long, value_enum, default_value_t = TlsArg::V13)]
    #[arg(help_heading = heading::TLS_H2)]
    tls: TlsArg,
    /// In the https modes, every connection of a visit after the first resumes the session
    /// (TLS 1.3 tickets, TLS 1.2 session IDs), as a browser does.
    #[arg(long, value_enum, default_value_t = OnOff::On)]
    #[arg(help_heading = heading::TLS_H2)]
    resumption: OnOff,
    /// Cipher suite of the https modes: AES-128-GCM or ChaCha20-Poly1305.
    #[arg(long, value_enum, default_value_t = CipherArg::AesGcm)]
    #[arg(help_heading = heading::TLS_H2)]
    cipher: CipherArg,
    /// Also replay HTTP/2 with server push (the modes h2c-push and h2-push, in cleartext and
    /// over TLS): the page comes with everything it needs on a first visit.
    #[arg(long)]
    #[arg(help_heading = heading::TLS_H2)]
    push: bool,
    /// Also replay HTTP/2 with preload hints (the modes h2c-hints and h2-hints, in cleartext
    /// and over TLS): the page's response names what it needs in `link: rel=preload`.
    #[arg(long)]
    #[arg(help_heading = heading::TLS_H2)]
    hints: bool,
    /// The request headers the robot sends: the 1997 robot's few, or a current Chromium's
    /// (client hints, an Accept per type, a 300-byte cookie). Header compression depends on it.
    #[arg(long, value_enum, default_value_t = HeadersArg::Libwww)]
    #[arg(help_heading = heading::STUDY_1997)]
    headers: HeadersArg,
    /// Parallel connections in HTTP/1.0 mode, 1–64.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=64))]
    #[arg(help_heading = heading::STUDY_1997)]
    connections: u32,
    /// TCP maximum segment size (payload bytes per segment), 88–65000.
    #[arg(long, default_value_t = 1460, value_parser = clap::value_parser!(u32).range(88..=65_000))]
    #[arg(help_heading = heading::STUDY_1997)]
    mss: u32,
    /// Leave Nagle's algorithm on (it is off by default, as in the 1997 study).
    #[arg(long)]
    #[arg(help_heading = heading::STUDY_1997)]
    nagle: bool,
    /// The client's output buffer in pipelined modes, in bytes, 64–1048576 (libwww's was
    /// 1024).
    #[arg(long, value_name = "BYTES", default_value_t = 1460, value_parser = clap::value_parser!(u32).range(64..=1 << 20))]
    #[arg(help_heading = heading::STUDY_1997)]
    client_buffer: u32,
    /// Let Linux ACK every segment at the start of a connection (quick-ACK mode) instead of
    /// delaying ACKs as 1997 stacks did.
    #[arg(long)]
    #[arg(help_heading = heading::STUDY_1997)]
    quick_acks: bool,
    /// Simulate the 1997 links (lan-1997, wan-1997, ppp-1997) with a 1997 TCP stack (Reno, an
    /// initial window of 2 segments, a 3 s initial RTO, no SACK) instead of today's Linux
    /// with Reno; simulated time only (docs/simulation.md).
    #[arg(long)]
    #[arg(help_heading = heading::STUDY_1997)]
    tcp_1997: bool,
    /// Server port on 127.0.0.1 [default: an ephemeral port].
    #[arg(long)]
    #[arg(help_heading = heading::MACHINE)]
    port: Option<u16>,
    /// Run in the current network namespace (TCP_MAXSEG clamped) instead of a private one,
    /// so that an outside capture (with --port) can check the counts.
    #[arg(long)]
    #[arg(help_heading = heading::MACHINE)]
    no_netns: bool,
    /// Capture the replay with tcpdump into this pcap file (private namespace only; over an
    /// emulated link on the client's device wd-client, first run only).
    #[arg(long, value_name = "FILE", conflicts_with = "no_netns")]
    #[arg(help_heading = heading::MACHINE)]
    capture: Option<PathBuf>,
    /// `replay` only: instead of visiting the site, redo the 1998 HTTP/HTTPS study — single
    /// GETs of generated documents of these sizes over HTTP, TLS 1.2 and TLS 1.3, full and
    /// resumed (`k` = 1024; `A..B` counts from A to B in steps of A).
    #[arg(long, value_name = "SIZES", value_parser = parse_sizes)]
    #[arg(help_heading = heading::STUDY_1998)]
    document_sizes: Option<Sizes>,
    /// With --document-sizes: write the chart of duration against size to this SVG file.
    #[arg(long, value_name = "FILE", requires = "document_sizes")]
    #[arg(help_heading = heading::STUDY_1998)]
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
    let parsed = crate::sim::link::parse(link).map_err(|e| e.to_string())?;
    match parsed.as_slice() {
        [one] => Ok((one.name().to_string(), n)),
        _ => Err(format!("{text}: name one link")),
    }
}

// ---- replay (end) ----

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ReportFormat {
    Text,
    Md,
    Html,
    Json,
    Junit,
    Sarif,
    Gitlab,
    Github,
}

#[derive(Debug, Args)]
struct SiteArgs {
    /// The site: a directory, or a web archive (.warc, .warc.gz, .arc, .arc.gz, .wacz) read as
    /// the site it captured (read only; never modified).
    site: PathBuf,
    /// The URL the site was published at: absolute links under it count as local.
    #[arg(long, value_name = "URL")]
    #[arg(help_heading = heading::INPUT)]
    site_url: Option<url::Url>,
    /// Pages, style sheets and scripts larger than this many bytes are listed but not parsed
    /// (nor minified).
    #[arg(long, value_name = "BYTES", default_value_t = 16 << 20)]
    #[arg(help_heading = heading::INPUT)]
    max_parse_bytes: u64,
    /// More archive files of the same site (revisits often point into another file).
    #[arg(long, value_name = "ARCHIVE", num_args = 1.., action = clap::ArgAction::Append)]
    #[arg(help_heading = heading::ARCHIVES)]
    with: Vec<PathBuf>,
    /// With an archive: take each URL's capture closest to this time (YYYYMMDDhhmmss, or a
    /// prefix: 1997, 199703) [default: the latest capture].
    #[arg(long, value_name = "TIMESTAMP", value_parser = parse_stamp)]
    #[arg(help_heading = heading::ARCHIVES)]
    at: Option<crate::archive::Stamp>,
    /// With an archive: how many times its own size (plus 64 MiB) its decoded bodies may take
    /// on disk, and a WACZ's page list and datapackage.json in memory; a capture past it is
    /// left out and reported (archive-over-budget). One body may never decode past 1,032 times
    /// its record (docs/archives.md, "Budgets").
    #[arg(long, value_name = "TIMES", default_value_t = crate::archive::Budget::DEFAULT_EXPANSION)]
    #[arg(help_heading = heading::ARCHIVES)]
    archive_budget: u64,
}

/// `--at`: a 14-digit timestamp or a prefix of one.
fn parse_stamp(text: &str) -> std::result::Result<crate::archive::Stamp, String> {
    crate::archive::Stamp::parse14(text).ok_or_else(|| {
        format!("{text}: expected YYYYMMDDhhmmss or a prefix of it (1997, 19970315)")
    })
}

/// Writing the rewritten site back as a web archive.
#[derive(Debug, Args)]
struct EmitArgs {
    /// Also write the rewritten site as a new WACZ (response records with the headers
    /// webdiet's server sends, a provenance record beside each, CDXJ, pages.jsonl). Never the
    /// input; an existing file only when webdiet wrote it (or --force).
    #[arg(long, value_name = "FILE")]
    #[arg(help_heading = heading::ARCHIVES)]
    emit_wacz: Option<PathBuf>,
}

#[derive(Debug, Args)]
struct OutArgs {
    /// Output directory [default: out/<site directory name>/]. Must not be inside the site.
    /// webdiet replaces only what it wrote there itself (listed in DIR/.webdiet-output).
    #[arg(long, value_name = "DIR")]
    #[arg(help_heading = heading::OUTPUT)]
    out: Option<PathBuf>,
    /// Replace DIR/site/ and DIR/report.{json,md,html} (and the --junit, --sarif and
    /// --gitlab-codequality files) even when webdiet did not write them. Nothing else in DIR
    /// is touched.
    #[arg(long)]
    #[arg(help_heading = heading::OUTPUT)]
    force: bool,
}

// --- image conversion options (rewrite stage) ---
#[derive(Debug, Args)]
struct ImageArgs {
    /// How hard to work on each image: fast, default or max (Zopfli where it pays). Output is
    /// the same for the same effort on every run; sizes and CPU per level in docs/images.md.
    #[arg(long, value_name = "LEVEL", default_value = "default")]
    #[arg(help_heading = heading::IMAGES)]
    effort: crate::image::Effort,
    /// What GIFs become: png (PNG/APNG, shown by every browser since the late 1990s), webp
    /// (lossless WebP, still or animated: every current browser, none from 1997) or best (both
    /// made and verified, the smallest used). With webp or best, the site's own still PNGs
    /// also become lossless WebPs where smaller than their recompressed PNG. See
    /// docs/images.md, "WebP" and "PNG to WebP".
    #[arg(long, value_name = "FORMAT", default_value = "png")]
    #[arg(help_heading = heading::IMAGES)]
    image_format: crate::image::Target,
    /// Keep animated GIFs as GIF instead of converting them (to APNG or animated WebP).
    #[arg(long)]
    #[arg(help_heading = heading::IMAGES)]
    no_apng: bool,
    /// Replace a GIF only when the new file saves at least this many bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 1)]
    #[arg(help_heading = heading::IMAGES)]
    min_saving: u64,
    /// Also copy converted GIFs that nothing refers to any more.
    #[arg(long)]
    #[arg(help_heading = heading::IMAGES)]
    keep_originals: bool,
    /// Write interlaced PNGs (default: non-interlaced, which is smaller).
    #[arg(long)]
    #[arg(help_heading = heading::IMAGES)]
    interlace: bool,
    /// Also write PATH.gz, PATH.br and PATH.zst next to each text file where each saves at
    /// least a packet and 10% (for nginx gzip_static, brotli_static, zstd_static).
    #[arg(long)]
    #[arg(help_heading = heading::MARKUP)]
    precompress: bool,
    /// Keep presentational markup (<font>, <center>, bgcolor, align…) as it is.
    #[arg(long)]
    #[arg(help_heading = heading::MARKUP)]
    no_markup: bool,
    /// Keep the site's own PNGs and JPEGs as they are (default: recompressed losslessly,
    /// verified, kept only where smaller).
    #[arg(long)]
    #[arg(help_heading = heading::IMAGES)]
    no_recompress: bool,
    /// Keep the site's style sheets and scripts as they are (default: both without comments and
    /// white space, where that cannot change what a browser reads, each style sheet proved
    /// token for token and each script proved the same program by a JavaScript parser, kept
    /// only where smaller).
    #[arg(long)]
    #[arg(help_heading = heading::MARKUP)]
    no_minify: bool,
    /// Also remove pages' comments (not conditional ones; none on a page with scripts) and the
    /// white space their rendering ignores (none inside pre, textarea, scripts, SVG, nor on a
    /// page whose CSS may keep white space), each page proved to parse to the same tree; check
    /// the result in a browser with `webdiet verify` (docs/modern-sites.md, "Choices"). Off by default.
    #[arg(long)]
    #[arg(help_heading = heading::MARKUP)]
    minify_html: bool,
    /// Where the CSS from presentational markup goes; auto picks the fewest first-visit bytes.
    /// With classes, one per element or one per declaration is chosen the same way.
    #[arg(long, value_enum, default_value_t = CssArg::Auto)]
    #[arg(help_heading = heading::MARKUP)]
    css: CssArg,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum CssArg {
    Auto,
    SiteSheet,
    PerPage,
    InlineStyle,
}

// --- end image conversion options ---
