//! Replay throughput: pages per second when every page of `../shared/corpora/spacejam` is
//! replayed (`--all-pages`), each page a first visit plus a validation, in each mode.
//! Not a test: it prints figures. Run with `cargo bench --bench replay`.
//!
//! The benchmark process is not the `webdiet` binary, so it cannot re-execute itself into a
//! private namespace unless `WEBDIET_BIN` names the binary; otherwise it runs on the host
//! loopback (`tcp-maxseg`), which does the same work with slightly different ACK counts.

use std::path::Path;
use std::time::Instant;

use webdiet::replay::{self, Mode, Pages, ReplayOptions, ServedSite};
use webdiet::site::{self, CrawlOptions};

fn main() {
    // `WEBDIET_SPACEJAM` overrides the location (for checkouts not beside `shared/`).
    let corpus = std::env::var_os("WEBDIET_SPACEJAM")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpora/spacejam")
        });
    if !corpus.is_dir() {
        eprintln!("note: {} is missing; benchmark skipped", corpus.display());
        return;
    }
    let crawled = site::crawl(&corpus, &CrawlOptions::default()).expect("spacejam crawls");
    let started = Instant::now();
    let (served, _) = ServedSite::from_site(&crawled);
    println!(
        "load + pre-compress {} files: {:.2} s",
        crawled.files.len(),
        started.elapsed().as_secs_f64()
    );
    let mut modes: Vec<Vec<Mode>> = Mode::all().into_iter().map(|m| vec![m]).collect();
    modes.push(Mode::all());
    for modes in modes {
        let opts = ReplayOptions {
            pages: Pages::All,
            modes: modes.clone(),
            runs: 1,
            ..ReplayOptions::default()
        };
        let started = Instant::now();
        let result = replay::replay(&served, &opts).expect("spacejam replays");
        let secs = started.elapsed().as_secs_f64();
        let pages: u64 = result.rows[0]
            .page
            .split_whitespace()
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or(1);
        let requests: u64 = result.rows.iter().map(|r| r.requests).sum();
        let names: Vec<&str> = modes.iter().map(|m| m.as_str()).collect();
        let visits = pages * modes.len() as u64;
        println!(
            "{:<45} {pages} pages, {requests} requests, {secs:.2} s: {:.1} pages/s \
             (first visit + validation each), {:.0} requests/s [{}]",
            names.join(","),
            visits as f64 / secs,
            requests as f64 / secs,
            result.method.name
        );
    }
}
