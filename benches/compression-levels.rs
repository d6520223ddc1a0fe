//! Benchmark (not a test) of the compression estimate's levels, one at a time: every HTML, CSS
//! and JS file of each corpus compressed in one thread, with the bytes and the seconds each
//! level takes. What it showed (brotli 11 and zstd 19 cost most of the estimate) is why
//! `batch` measures those two on a sample (`deflate::TopLevels`, docs/scale.md).
//!
//!   cargo bench --bench compression-levels
//!
//! Needs ../shared/corpora (or WEBDIET_SHARED=/path/to/shared).

use std::path::PathBuf;
use std::time::Instant;

use webdiet::compression::Coding;

fn main() {
    let shared = PathBuf::from(std::env::var("WEBDIET_SHARED").unwrap_or("../shared".into()));
    for corpus in ["spacejam", "libwww-docs"] {
        let dir = shared.join("corpora").join(corpus);
        if !dir.is_dir() {
            println!("skipped: {} is missing", dir.display());
            continue;
        }
        let files: Vec<Vec<u8>> = walkdir::WalkDir::new(&dir)
            .into_iter()
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_file())
            .filter(|e| {
                let ext = e.path().extension().and_then(|s| s.to_str());
                matches!(ext, Some("html" | "htm" | "css" | "js"))
            })
            .filter_map(|e| std::fs::read(e.path()).ok())
            .collect();
        let raw: usize = files.iter().map(Vec::len).sum();
        println!("{corpus}: {} files, {raw} bytes of text", files.len());
        type Level = (&'static str, fn(&[u8]) -> usize);
        let levels: [Level; 7] = [
            ("deflate 6", |d| webdiet::deflate::zlib(d, 6).len()),
            ("deflate 9", |d| webdiet::deflate::zlib(d, 9).len()),
            ("libdeflate 12", |d| webdiet::deflate::zlib_best(d).len()),
            ("brotli 5", |d| Coding::Brotli.fast(d).len()),
            ("brotli 11", |d| Coding::Brotli.best(d).len()),
            ("zstd 3", |d| Coding::Zstd.fast(d).len()),
            ("zstd 19", |d| Coding::Zstd.best(d).len()),
        ];
        for (name, level) in levels {
            let start = Instant::now();
            let bytes: usize = files.iter().map(|d| level(d)).sum();
            let s = start.elapsed().as_secs_f64();
            println!(
                "  {name:<14} {bytes:>10} B {s:>7.3} s {:>7.2} MB/s",
                raw as f64 / 1e6 / s
            );
        }
    }
}
