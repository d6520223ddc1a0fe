//! Benchmark (not a test) of the style-sheet minifier on real sheets: every `.css` of the
//! package corpus (`.ci/package-corpus.sh`: Debian's `libjs-*` and icon-font packages)
//! through `css::minify::minify_sheet` (the token pass and its proof), in one thread, in path
//! order. Prints what the tests print (sheets minified and kept, bytes saved), the CPU time
//! (user + system of the thread) per MB, and, for comparison, what lightningcss's print for
//! the oldest browsers (what webdiet shipped before issue 41) saves and how many of its outputs
//! pass the proof. Record results in docs/css.md.
//!
//!   bash .ci/package-corpus.sh && cargo bench --bench package-sheets
//!   WEBDIET_PACKAGE_CORPUS=/elsewhere cargo bench --bench package-sheets

#[path = "../tests/common/sheets.rs"]
mod sheets;

use std::time::Duration;

use webdiet::css::{minify, proof};
use webdiet::image::thread_cpu_time;

fn main() {
    let root = sheets::package_root();
    let paths = sheets::style_sheets(&root);
    if paths.is_empty() {
        println!(
            "skipped: no .css under {} (bash .ci/package-corpus.sh)",
            root.display()
        );
        return;
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "webdiet {}, {} sheets under {}",
        webdiet::BUILD,
        paths.len(),
        root.display()
    );
    println!("load average at the start: {}", load.trim());
    let mut tally = sheets::Tally::default();
    let (mut ours, mut theirs) = (Duration::ZERO, Duration::ZERO);
    let (mut read, mut read_from, mut read_to) = (0, 0, 0);
    let (mut passing, mut passing_smaller) = (0, 0);
    for path in &paths {
        let bytes = std::fs::read(path).unwrap();
        let name = path.strip_prefix(&root).unwrap().display().to_string();
        let cpu = thread_cpu_time();
        let result = minify::minify_sheet(&bytes);
        ours += thread_cpu_time().saturating_sub(cpu);
        tally.add(&name, bytes.len(), &result);
        let Ok(text) = std::str::from_utf8(&bytes) else {
            continue;
        };
        let cpu = thread_cpu_time();
        let printed = minify::printed_by_lightningcss(text);
        theirs += thread_cpu_time().saturating_sub(cpu);
        if let Ok(printed) = printed {
            read += 1;
            read_from += text.len();
            read_to += printed.len().min(text.len());
            if proof::check(text, &printed).is_ok() {
                passing += 1;
                let ours = result.as_ref().map_or(bytes.len(), Vec::len);
                passing_smaller += usize::from(printed.len() < ours);
            }
        }
    }
    let mb = tally.bytes as f64 / 1e6;
    println!("token pass: {}", tally.summary());
    println!(
        "token pass and proof: {:.2} CPU s, {:.3} CPU s/MB",
        ours.as_secs_f64(),
        ours.as_secs_f64() / mb
    );
    println!(
        "lightningcss (before issue 41): reads {read} sheets, {read_from} → {read_to} bytes \
         (−{:.1} %), {:.2} CPU s; its output passes the proof for {passing} of them, \
         {passing_smaller} of those smaller than the token pass's",
        100.0 * (read_from - read_to) as f64 / read_from.max(1) as f64,
        theirs.as_secs_f64()
    );
    for (path, why) in tally.unparsed.iter().chain(&tally.not_proven) {
        println!("  kept: {path}: {why}");
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!("load average at the end: {}", load.trim());
}
