//! The compression module (flate2, plus libdeflater for the "best we can do" bound): how small
//! each text resource gets with deflate, and the bytes a server sends for
//! `Content-Encoding: deflate` / `gzip`. The estimates also measure brotli and zstd
//! ([`crate::compression`], which states their levels) beside deflate.
//!
//! Servers compress at zlib's default level 6; level 9 is what a careful admin gets; libdeflate's
//! top level (12) stands in for the limit. flate2 runs on zlib itself (built from the sources
//! `libz-sys` bundles), so levels 6 and 9 give the bytes a server's zlib sends.
//! `Content-Encoding: deflate` is the zlib format (RFC 1950 wrapper around RFC 1951 data), as
//! in the 1997 study; `gzip` adds the gzip framing.

use std::io::{Read, Write};

use flate2::write::{GzEncoder, ZlibEncoder};
use flate2::Compression;
use serde::Serialize;

use crate::compression::Coding;

/// The zlib default, what servers use.
pub const SERVER_LEVEL: u32 = 6;

/// The zlib-format stream (`Content-Encoding: deflate`) of `data` at a zlib level (0–9).
pub fn zlib(data: &[u8], level: u32) -> Vec<u8> {
    let mut enc = ZlibEncoder::new(
        Vec::with_capacity(data.len() / 3 + 64),
        Compression::new(level),
    );
    enc.write_all(data).expect("writing to a Vec cannot fail");
    enc.finish().expect("writing to a Vec cannot fail")
}

/// The gzip-format stream (`Content-Encoding: gzip`, `.gz` files) of `data` at a zlib level.
pub fn gzip(data: &[u8], level: u32) -> Vec<u8> {
    let mut enc = GzEncoder::new(
        Vec::with_capacity(data.len() / 3 + 64),
        Compression::new(level),
    );
    enc.write_all(data).expect("writing to a Vec cannot fail");
    enc.finish().expect("writing to a Vec cannot fail")
}

/// The zlib-format stream at libdeflate's highest level (12): the "best we can do" bound.
pub fn zlib_best(data: &[u8]) -> Vec<u8> {
    let level = libdeflater::CompressionLvl::best();
    let mut compressor = libdeflater::Compressor::new(level);
    let mut out = vec![0; compressor.zlib_compress_bound(data.len())];
    let n = compressor
        .zlib_compress(data, &mut out)
        .expect("the output buffer is the documented bound");
    out.truncate(n);
    out
}

/// Inflates a zlib-format stream, refusing to produce more than `limit` bytes.
pub fn inflate_zlib(data: &[u8], limit: u64) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    flate2::read::ZlibDecoder::new(data)
        .take(limit + 1)
        .read_to_end(&mut out)?;
    if out.len() as u64 > limit {
        return Err(std::io::Error::other("inflated body exceeds the limit"));
    }
    Ok(out)
}

/// Inflates a gzip-format stream, refusing to produce more than `limit` bytes.
pub fn inflate_gzip(data: &[u8], limit: u64) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(data)
        .take(limit + 1)
        .read_to_end(&mut out)?;
    if out.len() as u64 > limit {
        return Err(std::io::Error::other("inflated body exceeds the limit"));
    }
    Ok(out)
}

/// When compressing a file is worth it. Default: saves at least one 1460-byte segment and at
/// least 10% (WebPageTest's rule).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, serde::Deserialize)]
pub struct WorthRule {
    /// Minimum bytes saved. Default: 1460 (one Ethernet TCP segment).
    pub min_saved_bytes: u64,
    /// Minimum fraction saved. Default: 0.10.
    pub min_saved_fraction: f64,
}

impl Default for WorthRule {
    fn default() -> Self {
        WorthRule {
            min_saved_bytes: 1460,
            min_saved_fraction: 0.10,
        }
    }
}

impl WorthRule {
    /// Whether sending `compressed` bytes instead of `raw` meets the rule.
    pub fn worth(&self, raw: u64, compressed: u64) -> bool {
        let saved = raw.saturating_sub(compressed);
        saved >= self.min_saved_bytes && saved as f64 >= self.min_saved_fraction * raw as f64
    }

    /// The rule in words, for reports.
    pub fn describe(&self) -> String {
        format!(
            "saves at least {} bytes and at least {:.0}% at level {SERVER_LEVEL}",
            self.min_saved_bytes,
            self.min_saved_fraction * 100.0
        )
    }
}

/// The `.gz` file to write next to a text file for servers that serve pre-compressed files
/// (nginx `gzip_static`), at level 9 — only when it meets the rule; `None` when it is not worth
/// it.
pub fn gz_sidecar(data: &[u8], rule: &WorthRule) -> Option<Vec<u8>> {
    let gz = gzip(data, 9);
    rule.worth(data.len() as u64, gz.len() as u64).then_some(gz)
}

/// Compressed sizes of one resource, in bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Sizes {
    pub raw: u64,
    /// zlib format at level 6 (what `Content-Encoding: deflate` sends).
    pub deflate6: u64,
    /// zlib format at level 9.
    pub deflate9: u64,
    /// The smallest zlib stream we can make: libdeflate level 12, or zlib's 6 or 9 when one of
    /// them happens to be smaller. The practical limit.
    pub best: u64,
    /// gzip format at level 6 (what `Content-Encoding: gzip` and `.gz` files hold).
    pub gzip6: u64,
    /// brotli at the level a server uses on the fly ([`crate::compression::BROTLI_FAST`], 5).
    /// Absent (0) in reports written before brotli was estimated.
    #[serde(default, skip_serializing_if = "not_estimated")]
    pub brotli5: u64,
    /// brotli at its highest level ([`crate::compression::BROTLI_BEST`], 11), what `.br` files hold.
    #[serde(default, skip_serializing_if = "not_estimated")]
    pub brotli11: u64,
    /// zstd at its default level ([`crate::compression::ZSTD_FAST`], 3).
    #[serde(default, skip_serializing_if = "not_estimated")]
    pub zstd3: u64,
    /// zstd at level 19 ([`crate::compression::ZSTD_BEST`]), what `.zst` files hold.
    #[serde(default, skip_serializing_if = "not_estimated")]
    pub zstd19: u64,
}

/// A size of 0 is one no estimate was made for (a report written before brotli and zstd were
/// estimated): it stays absent when such a report is written again, not a claim of 0 bytes.
fn not_estimated(bytes: &u64) -> bool {
    *bytes == 0
}

/// What gzip's framing adds over zlib's around the same deflate data: a 10-byte header and an
/// 8-byte trailer (CRC-32, length) against a 2-byte header and a 4-byte Adler-32.
const GZIP_OVER_ZLIB: u64 = 12;

impl Sizes {
    /// Measures `data` at every level. The gzip size is the zlib size plus the framing: both
    /// wrap the same deflate data (checked by a test), so it is not compressed twice.
    pub fn of(data: &[u8]) -> Self {
        Self::measure(data, true)
    }

    /// As [`Sizes::of`], with libdeflate 12, brotli 11 and zstd 19 measured only when `top`
    /// (otherwise `best` is the smaller of levels 6 and 9, and the other two 0, "not
    /// estimated"): they cost most of the estimate's CPU (`docs/scale.md`).
    fn measure(data: &[u8], top: bool) -> Self {
        let deflate6 = zlib(data, SERVER_LEVEL).len() as u64;
        // Level 9 is not always smaller than 6 (zlib's lazy matching can lose).
        let deflate9 = zlib(data, 9).len() as u64;
        let zlib = deflate6.min(deflate9);
        Sizes {
            raw: data.len() as u64,
            deflate6,
            deflate9,
            best: match top {
                true => (zlib_best(data).len() as u64).min(zlib),
                false => zlib,
            },
            gzip6: deflate6 + GZIP_OVER_ZLIB,
            brotli5: Coding::Brotli.fast(data).len() as u64,
            brotli11: if top {
                Coding::Brotli.best(data).len() as u64
            } else {
                0
            },
            zstd3: Coding::Zstd.fast(data).len() as u64,
            zstd19: if top {
                Coding::Zstd.best(data).len() as u64
            } else {
                0
            },
        }
    }

    /// brotli and zstd beside deflate, in words: `brotli 5 / 11: 9,100 / 8,200 bytes; zstd
    /// 3 / 19: 9,900 / 8,900 bytes (deflate 6: 10,400)`.
    pub fn codings_line(&self) -> String {
        let n = crate::report::format::thousands;
        format!(
            "brotli 5 / 11: {} / {} bytes; zstd 3 / 19: {} / {} bytes (deflate 6: {}, of {} raw)",
            n(self.brotli5),
            n(self.brotli11),
            n(self.zstd3),
            n(self.zstd19),
            n(self.deflate6),
            n(self.raw)
        )
    }

    /// The smallest of every coding and level measured: what a server that offers all of
    /// them sends a browser that accepts all of them.
    pub fn smallest(&self) -> u64 {
        [
            self.best,
            self.brotli5,
            self.brotli11,
            self.zstd3,
            self.zstd19,
        ]
        .into_iter()
        .filter(|&b| b > 0)
        .min()
        .unwrap_or(self.best)
    }
}

impl std::ops::AddAssign for Sizes {
    fn add_assign(&mut self, o: Self) {
        self.raw += o.raw;
        self.deflate6 += o.deflate6;
        self.deflate9 += o.deflate9;
        self.best += o.best;
        self.gzip6 += o.gzip6;
        self.brotli5 += o.brotli5;
        self.brotli11 += o.brotli11;
        self.zstd3 += o.zstd3;
        self.zstd19 += o.zstd19;
    }
}

/// One text file's estimate.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct FileEstimate {
    pub path: String,
    #[serde(flatten)]
    pub sizes: Sizes,
    /// Whether level 6 meets the [`WorthRule`].
    pub worth_it: bool,
    /// Whether `best`, `brotli11` and `zstd19` are estimated from this file's zlib level 9,
    /// brotli 5 and zstd 3 by the sample's ratios ([`TopLevels::Sample`]) rather than
    /// measured.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub estimated: bool,
}

/// The `compression` section of the report.
#[derive(Debug, Clone, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct Estimate {
    /// The rule used for `worth_it`, in words.
    pub rule: String,
    pub files: Vec<FileEstimate>,
    /// Sums over every text file.
    pub totals: Sizes,
    /// Files below the rule: compressing them is not worth it.
    pub not_worth_it: Vec<String>,
    /// How `best`, `brotli11` and `zstd19` were sampled, when some files' are estimated;
    /// absent when every file was measured at every level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_levels: Option<LevelSample>,
}

/// Which files the three costliest levels, libdeflate 12, brotli 11 and zstd 19, are measured
/// on. Together they take most of the estimate's CPU: the pure-Rust brotli encoder manages
/// 0.54 to 0.61 MB/s a core at level 11, libdeflate 12 costs more than zlib's levels 6 and 9
/// together (`docs/scale.md`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TopLevels {
    /// Every file: exact figures (`audit`, `rewrite`).
    #[default]
    Every,
    /// A seeded sample (`batch`): the distinct contents in the order of the SHA-256 of the
    /// seed and the content, measured until `bytes` of them and at least
    /// [`MIN_SAMPLE_FILES`] are; every other file's libdeflate 12, brotli 11 and zstd 19 are
    /// its zlib 9, brotli 5 and zstd 3 times the sample's ratio, and the totals carry a 95 %
    /// interval. A site whose
    /// text is no larger than `bytes` is measured whole.
    Sample { bytes: u64, seed: u64 },
}

impl TopLevels {
    /// In words, for reports and `batch`'s settings.
    pub fn describe(&self) -> String {
        match self {
            TopLevels::Every => {
                "libdeflate 12, brotli 11 and zstd 19 measured on every file".into()
            }
            TopLevels::Sample { bytes, seed } => format!(
                "libdeflate 12, brotli 11 and zstd 19 measured on a sample of {} bytes of text \
                 a site (seed {seed}), the rest estimated by its ratio to zlib 9, brotli 5 and \
                 zstd 3",
                crate::report::format::thousands(*bytes)
            ),
        }
    }
}

/// The fewest contents a sample measures (when the site has more), so that the spread of the
/// ratio, and so the interval, is itself measured on enough files.
pub const MIN_SAMPLE_FILES: usize = 30;

/// How a set's `best`, `brotli11` and `zstd19` were estimated ([`TopLevels::Sample`]).
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct LevelSample {
    /// The seed that ordered the contents.
    pub seed: u64,
    /// The sample's size asked for, in bytes of text.
    pub budget_bytes: u64,
    /// This set's files measured at every level, and their raw bytes.
    pub measured_files: usize,
    pub measured_bytes: u64,
    /// The sample's ratios (over every set's measured contents): brotli 11 to brotli 5 and
    /// zstd 19 to zstd 3.
    pub brotli_ratio: f64,
    pub zstd_ratio: f64,
    /// The same for `best` (libdeflate 12, or zlib's level 6 or 9 where smaller) to zlib 9;
    /// 0 in a report from before `best` was sampled (it was measured on every file then).
    #[serde(default)]
    pub best_ratio: f64,
    /// Half the width of the 95 % interval of `totals.brotli11` and `totals.zstd19`, in bytes:
    /// the ratio's own uncertainty and each estimated file's spread about it.
    pub brotli11_margin: u64,
    pub zstd19_margin: u64,
    /// The same for `totals.best`.
    #[serde(default)]
    pub best_margin: u64,
}

impl Estimate {
    /// brotli and zstd beside deflate in words ([`Sizes::codings_line`]), saying how the
    /// highest levels were sampled when they were.
    pub fn codings_line(&self) -> String {
        let line = self.totals.codings_line();
        match &self.top_levels {
            None => line,
            Some(s) => format!(
                "{line}; brotli 11, zstd 19 and libdeflate 12 measured on {} of {} files ({} \
                 of {} bytes, seed {}), the rest estimated by the sample's ratio: ±{}, ±{} and \
                 ±{} bytes at 95 %",
                s.measured_files,
                self.files.len(),
                crate::report::format::thousands(s.measured_bytes),
                crate::report::format::thousands(self.totals.raw),
                s.seed,
                crate::report::format::thousands(s.brotli11_margin),
                crate::report::format::thousands(s.zstd19_margin),
                crate::report::format::thousands(s.best_margin)
            ),
        }
    }
}

/// Estimates every `(path, bytes)` text resource given, at every level.
pub fn estimate<'a>(
    files: impl IntoIterator<Item = (&'a str, &'a [u8])>,
    rule: &WorthRule,
) -> Estimate {
    let files: Vec<(&str, &[u8])> = files.into_iter().collect();
    estimates(&[files], rule, TopLevels::Every).remove(0)
}

/// Estimates several sets of text resources (a site before and after its rewrite), one
/// [`Estimate`] per set, in order. Each distinct content is compressed once, whichever sets
/// and paths hold it (a file the rewrite left as it was is not measured again), and the
/// contents are compressed in parallel: the estimate is the costliest step of a rewrite-only
/// `batch` on HTML-heavy sites (`docs/scale.md`). `top` says which contents brotli 11 and
/// zstd 19 are measured on.
pub fn estimates(sets: &[Vec<(&str, &[u8])>], rule: &WorthRule, top: TopLevels) -> Vec<Estimate> {
    use rayon::prelude::*;
    let mut distinct: Vec<&[u8]> = sets
        .iter()
        .flatten()
        .map(|(_, data)| *data)
        .collect::<std::collections::HashSet<&[u8]>>()
        .into_iter()
        .collect();
    let sampled = sample(&distinct, top);
    // The largest first, so that no thread is left with one big file at the end.
    distinct.sort_by_key(|data| std::cmp::Reverse(data.len()));
    let mut measured: std::collections::HashMap<&[u8], Sizes> = distinct
        .par_iter()
        .with_max_len(1)
        .map(|data| {
            let top = sampled.as_ref().is_none_or(|s| s.contains(data));
            (*data, Sizes::measure(data, top))
        })
        .collect();
    let Some(sampled) = sampled else {
        return sets
            .iter()
            .map(|files| sum(files, &measured, rule, None))
            .collect();
    };
    let fit = Fit::of(sampled.contents.iter().map(|data| measured[data]));
    for (data, sizes) in measured.iter_mut() {
        if !sampled.contains(data) {
            sizes.brotli11 = fit.brotli.predict(sizes.brotli5);
            sizes.zstd19 = fit.zstd.predict(sizes.zstd3);
            // Never above what zlib itself gave (`best` holds that until now).
            sizes.best = fit.best.predict(sizes.deflate9).min(sizes.best);
        }
    }
    sets.iter()
        .map(|files| sum(files, &measured, rule, Some((&sampled, &fit))))
        .collect()
}

/// The contents brotli 11 and zstd 19 are measured on, with the seed and budget that chose
/// them: `None` for all of them.
fn sample<'a>(distinct: &[&'a [u8]], top: TopLevels) -> Option<Sampled<'a>> {
    let TopLevels::Sample { bytes, seed } = top else {
        return None;
    };
    let total: u64 = distinct.iter().map(|d| d.len() as u64).sum();
    if total <= bytes || distinct.len() <= MIN_SAMPLE_FILES {
        return None;
    }
    let key = seed.to_le_bytes();
    let mut keyed: Vec<([u8; 32], &[u8])> = distinct
        .iter()
        .map(|data| (crate::digest::sha256(&[b"top-levels", &key, data]), *data))
        .collect();
    keyed.sort();
    let mut taken = 0u64;
    let mut contents = std::collections::HashSet::new();
    for (_, data) in keyed {
        if taken >= bytes && contents.len() >= MIN_SAMPLE_FILES {
            break;
        }
        taken += data.len() as u64;
        contents.insert(data);
    }
    Some(Sampled {
        contents,
        seed,
        budget: bytes,
    })
}

/// The contents a sample measures at every level.
struct Sampled<'a> {
    contents: std::collections::HashSet<&'a [u8]>,
    seed: u64,
    budget: u64,
}

impl Sampled<'_> {
    fn contains(&self, data: &[u8]) -> bool {
        self.contents.contains(data)
    }
}

/// The ratio of a high level's size to a fast level's over the sample, and the spread of the
/// files about it.
#[derive(Debug, Clone, Copy)]
struct Ratio {
    ratio: f64,
    /// Σ of the fast level's sizes over the sample, and the sample's size.
    fast_sum: f64,
    n: f64,
    /// The residuals' variance, s² = Σ (high − ratio × fast)² / (n − 1).
    variance: f64,
}

impl Ratio {
    fn of(pairs: &[(u64, u64)]) -> Self {
        let n = pairs.len() as f64;
        let fast_sum: f64 = pairs.iter().map(|p| p.0 as f64).sum();
        let high_sum: f64 = pairs.iter().map(|p| p.1 as f64).sum();
        let ratio = if fast_sum > 0.0 {
            high_sum / fast_sum
        } else {
            1.0
        };
        let squares: f64 = pairs
            .iter()
            .map(|&(x, y)| (y as f64 - ratio * x as f64).powi(2))
            .sum();
        Ratio {
            ratio,
            fast_sum,
            n,
            variance: if n > 1.0 { squares / (n - 1.0) } else { 0.0 },
        }
    }

    fn predict(&self, fast: u64) -> u64 {
        (fast as f64 * self.ratio).round() as u64
    }

    /// Half the 95 % interval of Σ over the estimated files whose fast sizes sum to `fast`:
    /// the ratio's error scaled to them, s² fast² / (n x̄²) = s² n (fast / Σx)², plus each
    /// content's own spread, s² per path, or s² k² for a content at k paths (its error
    /// repeats): `alike` is Σ k² over the estimated contents (the ratio estimator's
    /// prediction variance).
    fn margin(&self, alike: usize, fast: u64) -> u64 {
        if alike == 0 || self.fast_sum <= 0.0 {
            return 0;
        }
        let share = fast as f64 / self.fast_sum;
        let variance = self.variance * (self.n * share * share + alike as f64);
        (1.96 * variance.sqrt()).round() as u64
    }
}

/// The three ratios of a sample.
struct Fit {
    brotli: Ratio,
    zstd: Ratio,
    best: Ratio,
}

impl Fit {
    fn of(sample: impl Iterator<Item = Sizes>) -> Self {
        let sizes: Vec<Sizes> = sample.collect();
        let pairs = |f: fn(&Sizes) -> (u64, u64)| sizes.iter().map(f).collect::<Vec<_>>();
        Fit {
            brotli: Ratio::of(&pairs(|s| (s.brotli5, s.brotli11))),
            zstd: Ratio::of(&pairs(|s| (s.zstd3, s.zstd19))),
            best: Ratio::of(&pairs(|s| (s.deflate9, s.best))),
        }
    }
}

/// One set's estimate from the measured sizes.
fn sum(
    files: &[(&str, &[u8])],
    measured: &std::collections::HashMap<&[u8], Sizes>,
    rule: &WorthRule,
    sample: Option<(&Sampled<'_>, &Fit)>,
) -> Estimate {
    let mut out = Estimate {
        rule: rule.describe(),
        ..Estimate::default()
    };
    let (mut estimated_files, mut estimated_brotli5, mut estimated_zstd3) = (0, 0, 0);
    let mut estimated_deflate9 = 0;
    // How often each estimated content occurs: its error counts once per path, all alike.
    let mut repeats: std::collections::HashMap<&[u8], usize> = std::collections::HashMap::new();
    let (mut measured_files, mut measured_bytes) = (0, 0);
    for (path, data) in files {
        let sizes = measured[data];
        let worth_it = rule.worth(sizes.raw, sizes.deflate6);
        let estimated = sample.is_some_and(|(s, _)| !s.contains(data));
        if estimated {
            *repeats.entry(data).or_default() += 1;
            estimated_files += 1;
            estimated_brotli5 += sizes.brotli5;
            estimated_zstd3 += sizes.zstd3;
            estimated_deflate9 += sizes.deflate9;
        } else {
            measured_files += 1;
            measured_bytes += sizes.raw;
        }
        out.totals += sizes;
        if !worth_it {
            out.not_worth_it.push(path.to_string());
        }
        out.files.push(FileEstimate {
            path: path.to_string(),
            sizes,
            worth_it,
            estimated,
        });
    }
    let alike: usize = repeats.values().map(|k| k * k).sum();
    out.top_levels = sample
        .filter(|_| estimated_files > 0)
        .map(|(s, fit)| LevelSample {
            seed: s.seed,
            budget_bytes: s.budget,
            measured_files,
            measured_bytes,
            brotli_ratio: fit.brotli.ratio,
            zstd_ratio: fit.zstd.ratio,
            best_ratio: fit.best.ratio,
            brotli11_margin: fit.brotli.margin(alike, estimated_brotli5),
            zstd19_margin: fit.zstd.margin(alike, estimated_zstd3),
            best_margin: fit.best.margin(alike, estimated_deflate9),
        });
    out
}

/// Streams, for the web archive reader and writer (`crate::archive`), which read and write
/// records one gzip member at a time and bodies in every content coding: decoders over any
/// buffered reader, and a raw deflate writer for ZIP entries.
pub mod stream {
    use std::io::{self, BufRead, Read, Write};

    /// One gzip member read from `r`: it stops at the member's end having consumed exactly it,
    /// which is how a reader learns where the next record starts.
    pub fn gunzip_member<R: BufRead>(r: R) -> impl Read {
        flate2::bufread::GzDecoder::new(r)
    }

    /// Every gzip member from `r`, one after the other (a gzip `Content-Encoding`).
    pub fn gunzip<R: BufRead>(r: R) -> impl Read {
        flate2::bufread::MultiGzDecoder::new(r)
    }

    /// A zlib stream (RFC 1950), as `Content-Encoding: deflate` should be.
    pub fn inflate_zlib<R: BufRead>(r: R) -> impl Read {
        flate2::bufread::ZlibDecoder::new(r)
    }

    /// Raw deflate (RFC 1951): what some servers sent as `deflate`, and ZIP's method 8.
    pub fn inflate_raw<R: BufRead>(r: R) -> impl Read {
        flate2::bufread::DeflateDecoder::new(r)
    }

    /// Raw deflate written to `W` at `level`.
    pub struct RawDeflater<W: Write>(flate2::write::DeflateEncoder<W>);

    impl<W: Write> RawDeflater<W> {
        pub fn new(w: W, level: u32) -> Self {
            RawDeflater(flate2::write::DeflateEncoder::new(
                w,
                flate2::Compression::new(level),
            ))
        }

        /// Writes the end of the stream; returns the writer.
        pub fn finish(self) -> io::Result<W> {
            self.0.finish()
        }
    }

    impl<W: Write> Write for RawDeflater<W> {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.write(buf)
        }

        fn flush(&mut self) -> io::Result<()> {
            self.0.flush()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text() -> Vec<u8> {
        let mut page = Vec::new();
        for i in 0..400 {
            page.extend_from_slice(
                format!(
                    "<TR><TD ALIGN=LEFT><FONT FACE=\"Arial\" SIZE=2>row {i}</FONT></TD></TR>\n"
                )
                .as_bytes(),
            );
        }
        page
    }

    #[test]
    fn levels_are_ordered_and_round_trip() {
        let page = text();
        let sizes = Sizes::of(&page);
        assert!(sizes.deflate6 < sizes.raw);
        assert!(sizes.best <= sizes.deflate9 && sizes.best <= sizes.deflate6);
        assert!(
            sizes.gzip6 > sizes.deflate6,
            "gzip framing is larger than zlib's"
        );
        assert_eq!(inflate_zlib(&zlib(&page, 6), 1 << 20).unwrap(), page);
        assert_eq!(inflate_zlib(&zlib_best(&page), 1 << 20).unwrap(), page);
        assert_eq!(inflate_gzip(&gzip(&page, 6), 1 << 20).unwrap(), page);
        assert!(sizes.brotli11 > 0 && sizes.brotli11 <= sizes.brotli5);
        // zstd 19 is not always smaller than 3 on a small, regular page.
        assert!(sizes.zstd19 > 0 && sizes.zstd3 > 0);
        assert!(
            sizes.brotli11 < sizes.best,
            "brotli 11 beats deflate on markup"
        );
        assert!(sizes.smallest() <= sizes.brotli11.min(sizes.zstd19));
    }

    #[test]
    fn gzip_and_zlib_wrap_the_same_deflate_data() {
        let mut noise = Vec::new();
        let mut x: u32 = 1;
        for _ in 0..70_000 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            noise.push((x >> 16) as u8);
        }
        for data in [&b""[..], b"a", &text(), &noise] {
            assert_eq!(
                gzip(data, SERVER_LEVEL).len() as u64,
                zlib(data, SERVER_LEVEL).len() as u64 + GZIP_OVER_ZLIB
            );
            assert_eq!(Sizes::of(data).gzip6, gzip(data, SERVER_LEVEL).len() as u64);
        }
    }

    #[test]
    fn each_content_is_measured_once_and_every_set_gets_its_own_estimate() {
        let rule = WorthRule::default();
        let page = text();
        let changed = [&page[..], b"<!-- changed -->"].concat();
        let before = vec![("a.html", &page[..]), ("b.css", &b"p{color:red}"[..])];
        let after = vec![("a.html", &changed[..]), ("b.css", &b"p{color:red}"[..])];
        let both = estimates(&[before.clone(), after.clone()], &rule, TopLevels::Every);
        assert_eq!(both[0], estimate(before, &rule));
        assert_eq!(both[1], estimate(after, &rule));
        assert_ne!(both[0].totals, both[1].totals);
    }

    /// `n` distinct pages of varied sizes and vocabulary, the same on every run.
    fn pages(n: usize) -> Vec<(String, Vec<u8>)> {
        let words = [
            "font", "table", "center", "webdiet", "gif", "jam", "space", "tr", "td",
        ];
        let mut x: u32 = 17;
        (0..n)
            .map(|i| {
                let mut page = format!("<HTML><TITLE>page {i}</TITLE><BODY>").into_bytes();
                for _ in 0..(20 + i % 7 * 30) {
                    x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                    let w = words[(x >> 16) as usize % words.len()];
                    page.extend_from_slice(format!("<P><B>{w}</B> {} {w}\n", x >> 20).as_bytes());
                }
                (format!("p{i}.html"), page)
            })
            .collect()
    }

    fn as_set(pages: &[(String, Vec<u8>)]) -> Vec<(&str, &[u8])> {
        pages
            .iter()
            .map(|(p, d)| (p.as_str(), d.as_slice()))
            .collect()
    }

    #[test]
    fn a_sample_measures_the_highest_levels_on_part_of_the_text_and_the_truth_is_in_its_interval() {
        let rule = WorthRule::default();
        let pages = pages(90);
        let set = as_set(&pages);
        let raw: u64 = pages.iter().map(|(_, d)| d.len() as u64).sum();
        let exact = estimates(std::slice::from_ref(&set), &rule, TopLevels::Every).remove(0);
        let top = TopLevels::Sample {
            bytes: raw / 4,
            seed: 7,
        };
        let sampled = estimates(std::slice::from_ref(&set), &rule, top).remove(0);
        let s = sampled.top_levels.as_ref().expect("a sample was taken");
        assert!(s.measured_bytes >= raw / 4 && s.measured_bytes < raw / 2);
        assert!(s.measured_files >= MIN_SAMPLE_FILES && s.measured_files < pages.len());
        for (e, f) in exact.files.iter().zip(&sampled.files) {
            let fast = |z: &Sizes| (z.raw, z.deflate6, z.deflate9, z.brotli5, z.zstd3);
            assert_eq!(
                fast(&e.sizes),
                fast(&f.sizes),
                "{}: measured everywhere",
                f.path
            );
            if !f.estimated {
                assert_eq!(e.sizes, f.sizes, "{}: measured in the sample", f.path);
            }
            let zlib = f.sizes.deflate6.min(f.sizes.deflate9);
            assert!(f.sizes.best <= zlib, "{}: never above zlib's own", f.path);
        }
        let estimated = sampled.files.iter().filter(|f| f.estimated).count();
        assert_eq!(estimated + s.measured_files, pages.len());
        for (level, estimate, truth, margin) in [
            (
                "brotli 11",
                sampled.totals.brotli11,
                exact.totals.brotli11,
                s.brotli11_margin,
            ),
            (
                "zstd 19",
                sampled.totals.zstd19,
                exact.totals.zstd19,
                s.zstd19_margin,
            ),
            (
                "libdeflate 12",
                sampled.totals.best,
                exact.totals.best,
                s.best_margin,
            ),
        ] {
            let off = estimate.abs_diff(truth);
            assert!(
                off <= margin,
                "{level}: {estimate} ± {margin} against {truth}"
            );
        }
        assert!(s.brotli11_margin > 0 && s.brotli11_margin < exact.totals.brotli11 / 20);
        assert!(s.best_margin > 0 && s.best_margin < exact.totals.best / 20);
        assert!(sampled.codings_line().contains("measured on"));
        // The same seed takes the same sample; a text within the budget is measured whole.
        assert_eq!(
            sampled,
            estimates(std::slice::from_ref(&set), &rule, top).remove(0)
        );
        let whole = TopLevels::Sample {
            bytes: raw,
            seed: 7,
        };
        assert_eq!(
            exact,
            estimates(std::slice::from_ref(&set), &rule, whole).remove(0)
        );
    }

    #[test]
    fn a_sample_is_drawn_once_for_every_set_and_each_set_says_what_it_measured() {
        let rule = WorthRule::default();
        let pages = pages(60);
        let changed: Vec<(String, Vec<u8>)> = pages
            .iter()
            .map(|(p, d)| (p.clone(), [d.as_slice(), b"<!-- rewritten -->"].concat()))
            .collect();
        let top = TopLevels::Sample { bytes: 1, seed: 3 };
        let both = estimates(&[as_set(&pages), as_set(&changed)], &rule, top);
        let (a, b) = (
            both[0].top_levels.as_ref().unwrap(),
            both[1].top_levels.as_ref().unwrap(),
        );
        assert_eq!(a.measured_files + b.measured_files, MIN_SAMPLE_FILES);
        assert_eq!((a.brotli_ratio, a.seed), (b.brotli_ratio, b.seed));
    }

    #[test]
    fn gz_files_are_written_only_where_they_win() {
        let rule = WorthRule::default();
        let page = text();
        let gz = gz_sidecar(&page, &rule).expect("a large page wins");
        assert_eq!(inflate_gzip(&gz, 1 << 20).unwrap(), page);
        assert!(gz_sidecar(b"<p>tiny</p>", &rule).is_none());
    }

    #[test]
    fn inflate_refuses_bombs() {
        let zeros = vec![0u8; 1 << 20];
        assert!(inflate_zlib(&zlib(&zeros, 9), 1000).is_err());
    }

    #[test]
    fn tiny_files_are_not_worth_compressing() {
        let rule = WorthRule::default();
        let estimate = estimate(
            [("a.css", &b"p{color:red}"[..]), ("big.html", &text()[..])],
            &rule,
        );
        assert_eq!(estimate.not_worth_it, vec!["a.css".to_string()]);
        assert!(estimate.files[1].worth_it);
        assert!(!rule.worth(10_000, 9_500), "5% is below the fraction");
        assert!(!rule.worth(2_000, 1_000), "1000 bytes is below one segment");
        assert!(rule.worth(20_000, 5_000));
    }
}
