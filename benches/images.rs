//! Benchmark (not a test) of the image stage on Space Jam's GIFs, one `--effort` level and
//! `--image-format` at a time: every GIF converted by `image::convert_gif` in one thread, in
//! path order, with the CPU time (user + system) of that thread per image. Prints, for the
//! still and the animated GIFs apart, the bytes the site's images weigh after keep-smaller
//! (the PNG/APNG or WebP where it is smaller and verified, the GIF otherwise) and CPU seconds
//! per MB of GIF. Record results in docs/images.md.
//!
//!   cargo bench --bench images                      # fast, default, max; PNG
//!   EFFORTS=default cargo bench --bench images      # one level
//!   FORMATS=png,webp,best cargo bench --bench images  # also lossless WebP, and the best of both
//!   CSV=/tmp/images.csv cargo bench --bench images  # also one line per image and level
//!   CORPUS=libwww-docs cargo bench --bench images   # another corpus of ../shared/corpora
//!
//! libwebp's own tools on the same files: `benches/images.sh webp`.
//!
//! Needs ../shared/corpora/spacejam, or CORPUS's (WEBDIET_SHARED=/path/to/shared elsewhere).

use std::io::Write;
use std::path::PathBuf;

use webdiet::image::thread_cpu_time;
use webdiet::image::{convert_gif, Effort, ImageOptions, Outcome, Target};

#[derive(Default)]
struct Sum {
    files: usize,
    gif: u64,
    kept: u64,
    cpu: f64,
    converted: usize,
}

fn main() {
    let shared =
        std::env::var_os("WEBDIET_SHARED").map_or_else(|| "../shared".into(), PathBuf::from);
    let corpus = std::env::var("CORPUS").unwrap_or_else(|_| "spacejam".into());
    let site = shared.join("corpora").join(corpus);
    if !site.is_dir() {
        println!(
            "skipped: {} is missing (set WEBDIET_SHARED)",
            site.display()
        );
        return;
    }
    let mut gifs: Vec<PathBuf> = walkdir::WalkDir::new(&site)
        .into_iter()
        .filter_map(Result::ok)
        .map(|e| e.into_path())
        .filter(|p| p.to_string_lossy().to_ascii_lowercase().ends_with(".gif"))
        .collect();
    gifs.sort();
    let efforts: Vec<Effort> = std::env::var("EFFORTS")
        .unwrap_or_else(|_| "fast,default,max".into())
        .split(',')
        .map(|e| e.trim().parse().expect("EFFORTS: fast, default or max"))
        .collect();
    let targets: Vec<Target> = std::env::var("FORMATS")
        .unwrap_or_else(|_| "png".into())
        .split(',')
        .map(|e| e.trim().parse().expect("FORMATS: png, webp or best"))
        .collect();
    let mut csv = std::env::var_os("CSV").map(|p| std::fs::File::create(p).expect("CSV file"));
    if let Some(f) = csv.as_mut() {
        writeln!(
            f,
            "effort,format,path,frames,gif_bytes,png_bytes,webp_bytes,outcome,cpu_s"
        )
        .unwrap();
    }
    println!(
        "{} GIFs in {}; CPU = user + system time of the converting thread",
        gifs.len(),
        site.display()
    );
    println!(
        "{:<8} {:<6} {:<9} {:>5} {:>11} {:>11} {:>8} {:>9} {:>8} {:>10}",
        "effort",
        "format",
        "GIFs",
        "files",
        "GIF bytes",
        "kept bytes",
        "saved",
        "CPU s",
        "s/MB",
        "converted"
    );
    let runs = targets
        .iter()
        .flat_map(|t| efforts.iter().map(move |e| (*t, *e)));
    for (target, effort) in runs {
        let opts = ImageOptions {
            effort,
            target,
            ..ImageOptions::default()
        };
        let (mut still, mut animated) = (Sum::default(), Sum::default());
        for path in &gifs {
            let bytes = std::fs::read(path).expect("readable GIF");
            let start = thread_cpu_time();
            let c = convert_gif(&bytes, &opts);
            let cpu = (thread_cpu_time() - start).as_secs_f64();
            let sum = if c.frames > 1 {
                &mut animated
            } else {
                &mut still
            };
            let kept = match (&c.png, &c.webp, c.outcome) {
                (Some(file), _, Outcome::Converted) | (_, Some(file), Outcome::Converted) => {
                    file.len() as u64
                }
                _ => bytes.len() as u64,
            };
            sum.files += 1;
            sum.gif += bytes.len() as u64;
            sum.kept += kept;
            sum.cpu += cpu;
            sum.converted += usize::from(c.outcome == Outcome::Converted);
            if let Some(f) = csv.as_mut() {
                let rel = path.strip_prefix(&site).unwrap_or(path).display();
                let png = c.png_bytes.map_or(String::new(), |b| b.to_string());
                let webp = c.webp_bytes.map_or(String::new(), |b| b.to_string());
                writeln!(
                    f,
                    "{effort},{target},{rel},{},{},{png},{webp},{},{cpu:.4}",
                    c.frames,
                    bytes.len(),
                    c.outcome
                )
                .unwrap();
            }
        }
        for (label, s) in [("still", &still), ("animated", &animated)] {
            println!(
                "{:<8} {:<6} {:<9} {:>5} {:>11} {:>11} {:>7.2}% {:>9.2} {:>8.2} {:>10}",
                effort.to_string(),
                target.to_string(),
                label,
                s.files,
                s.gif,
                s.kept,
                100.0 * (s.gif as f64 - s.kept as f64) / s.gif.max(1) as f64,
                s.cpu,
                s.cpu / (s.gif as f64 / 1e6),
                s.converted
            );
        }
    }
}
