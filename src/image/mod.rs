//! The image module: GIF → PNG (static) or APNG (animated), or lossless WebP (`webp/`, still
//! or animated; `--image-format`, see `target.rs`), lossless, verified, kept only when smaller.
//! The only module that imports the `image`, `gif`, `png`, `oxipng`, `libwebp-sys` and
//! `image-webp` crates.
//!
//! [`convert_gif`] is a pure function from GIF bytes to a [`Conversion`]: the candidate PNG (if
//! any), the [`Outcome`] with its reason, and the frame count. It never panics on bad input and
//! never returns an unverified result: every PNG it offers was decoded again and compared pixel
//! by pixel (and frame by frame, timing included) with the decoded GIF (see [`verify`]).

mod apng;
mod chunks;
mod decode;
mod delta;
mod depalette;
mod effort;
pub mod facts;
mod grey;
mod jpeg;
mod png_webp;
mod recompress;
mod size;
mod target;
pub mod verify;
pub mod webp;
mod zopfli;

use std::time::{Duration, Instant};

/// The CPU clock the stage reports per image (the calling thread's), for benchmarks too.
pub use crate::sys::thread_cpu_time;
pub use effort::Effort;
pub use jpeg::{plain_jpeg, recompress_jpeg};
pub use png_webp::png_to_webp;
pub use recompress::{recompress_png, Recompressed, Recompression};
pub use size::dimensions;
pub use target::Target;

use serde::Serialize;

pub use decode::Limits;
pub use facts::{facts, Fill, ImageFacts};

/// Options for [`convert_gif`].
#[derive(Debug, Clone)]
pub struct ImageOptions {
    /// How hard to work on each image. Default: [`Effort::Default`] (measured against the
    /// others in `docs/images.md`).
    pub effort: Effort,
    /// Convert animated GIFs to APNG. Default: `true` (`--no-apng` keeps them as GIF).
    pub apng: bool,
    /// The PNG replaces the GIF only when it saves at least this many bytes. Default: 1.
    pub min_saving: u64,
    /// Write Adam7-interlaced PNGs (only static images). Default: `false` — non-interlaced
    /// PNGs are smaller, and progressive display matters little at these sizes.
    pub interlace: bool,
    /// Decompression-bomb limits. Default: see [`Limits`].
    pub limits: Limits,
    /// The format to convert to (`--image-format`). Default: [`Target::Png`].
    pub target: Target,
}

impl Default for ImageOptions {
    fn default() -> Self {
        ImageOptions {
            effort: Effort::Default,
            apng: true,
            min_saving: 1,
            interlace: false,
            limits: Limits::default(),
            target: Target::Png,
        }
    }
}

/// What happened to one GIF. Serialized as the reason code (`converted`, `kept:png-larger`, …).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize,
)]
pub enum Outcome {
    /// Replaced by a smaller, verified PNG or APNG.
    #[serde(rename = "converted")]
    Converted,
    /// The verified PNG was not smaller (by `min_saving`) than the GIF.
    #[serde(rename = "kept:png-larger")]
    PngLarger,
    /// Animated and `--no-apng` was given.
    #[serde(rename = "kept:animated")]
    Animated,
    /// The PNG did not decode to the same pixels or timing as the GIF.
    #[serde(rename = "kept:verify-failed")]
    VerifyFailed,
    /// The GIF could not be decoded (truncated, no palette, bad LZW data, not a GIF).
    #[serde(rename = "kept:corrupt")]
    Corrupt,
    /// Over the decompression-bomb limits.
    #[serde(rename = "kept:too-large")]
    TooLarge,
    /// Nothing in the site refers to it: copied as it is, not converted.
    #[serde(rename = "kept:unreferenced")]
    Unreferenced,
    /// The verified WebP was not smaller than the GIF (`--image-format webp`), or, with
    /// `best`, neither it nor the PNG was, and it came closer.
    #[serde(rename = "kept:webp-larger")]
    WebpLarger,
}

impl Outcome {
    pub const ALL: [Outcome; 8] = [
        Outcome::Converted,
        Outcome::PngLarger,
        Outcome::Animated,
        Outcome::VerifyFailed,
        Outcome::Corrupt,
        Outcome::TooLarge,
        Outcome::Unreferenced,
        Outcome::WebpLarger,
    ];

    /// The reason code, as in the report.
    pub fn code(self) -> &'static str {
        match self {
            Outcome::Converted => "converted",
            Outcome::PngLarger => "kept:png-larger",
            Outcome::Animated => "kept:animated",
            Outcome::VerifyFailed => "kept:verify-failed",
            Outcome::Corrupt => "kept:corrupt",
            Outcome::TooLarge => "kept:too-large",
            Outcome::Unreferenced => "kept:unreferenced",
            Outcome::WebpLarger => "kept:webp-larger",
        }
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.code())
    }
}

/// The result of converting one GIF.
#[derive(Debug, Clone)]
pub struct Conversion {
    pub outcome: Outcome,
    /// The reason code with its detail: `converted(-1234 B)`, `kept:png-larger(+37 B)`,
    /// `kept:corrupt(unexpected end of file)`.
    pub reason: String,
    /// The verified PNG/APNG, present only when `outcome` is [`Outcome::Converted`].
    pub png: Option<Vec<u8>>,
    /// Size of the best verified PNG that was made, even when it was not used.
    pub png_bytes: Option<u64>,
    /// The verified WebP, present only when it is what replaces the GIF (then `png` is
    /// `None`).
    pub webp: Option<Vec<u8>>,
    /// Size of the verified WebP that was made, even when it was not used.
    pub webp_bytes: Option<u64>,
    /// Number of frames in the GIF (0 when it could not be read).
    pub frames: usize,
    pub elapsed: Duration,
    /// CPU time of the conversion (it runs on the calling thread).
    pub cpu: Duration,
}

/// Converts one GIF. Never panics on bad input; see the module docs.
pub fn convert_gif(gif: &[u8], opts: &ImageOptions) -> Conversion {
    let start = Instant::now();
    let cpu = crate::sys::thread_cpu_time();
    let mut conversion = convert_inner(gif, opts);
    conversion.elapsed = start.elapsed();
    conversion.cpu = crate::sys::thread_cpu_time().saturating_sub(cpu);
    conversion
}

fn kept(outcome: Outcome, detail: impl std::fmt::Display, frames: usize) -> Conversion {
    Conversion {
        outcome,
        reason: format!("{}({detail})", outcome.code()),
        png: None,
        png_bytes: None,
        webp: None,
        webp_bytes: None,
        frames,
        elapsed: Duration::ZERO,
        cpu: Duration::ZERO,
    }
}

fn convert_inner(gif: &[u8], opts: &ImageOptions) -> Conversion {
    match opts.target {
        Target::Png => convert_png(gif, opts),
        Target::Webp => target::convert_webp(gif, opts),
        Target::Best => target::best(gif, opts, convert_png(gif, opts)),
    }
}

fn read_error(e: decode::ReadError, frames: usize) -> Box<Conversion> {
    Box::new(match e {
        decode::ReadError::TooLarge(why) => kept(Outcome::TooLarge, why, frames),
        decode::ReadError::Corrupt(why) => kept(Outcome::Corrupt, why, frames),
    })
}

/// The first read of the GIF (frame and play counts, palette), or why it is kept as it is.
fn read(gif: &[u8], opts: &ImageOptions) -> Result<apng::Scan, Box<Conversion>> {
    let scan = apng::scan(gif, &opts.limits, opts.apng).map_err(|e| read_error(e, 0))?;
    if !opts.apng {
        // Only the first frame was read: count the rest without keeping them.
        let frames = frame_count(gif, &opts.limits).map_err(|e| read_error(e, 0))?;
        if frames > 1 {
            return Err(Box::new(kept(
                Outcome::Animated,
                format!("{frames} frames; --no-apng"),
                frames,
            )));
        }
    }
    Ok(scan)
}

fn convert_png(gif: &[u8], opts: &ImageOptions) -> Conversion {
    let scan = match read(gif, opts) {
        Ok(scan) => scan,
        Err(why) => return *why,
    };
    let frames = scan.frames;
    let encoded = if frames > 1 {
        let compress = |format: &delta::Format, image: &delta::FrameImage| {
            compress_frame(format, image, opts.effort)
        };
        match delta::encode(gif, &scan, &opts.limits, &compress) {
            Ok(Some(apng)) => Ok(apng),
            // A full palette without a transparent entry: the GIF's own frames.
            Ok(None) => apng::encode(gif, &scan, &opts.limits)
                .map(|raw| optimize(&raw, &scan, opts).unwrap_or(raw)),
            Err(e) => Err(e),
        }
    } else {
        apng::encode(gif, &scan, &opts.limits).map(|raw| optimize(&raw, &scan, opts).unwrap_or(raw))
    };
    let png = match encoded {
        Ok(png) => png,
        Err(apng::EncodeError::Read(e)) => return *read_error(e, frames),
        Err(apng::EncodeError::Png(why)) => {
            return kept(Outcome::VerifyFailed, format!("PNG encoder: {why}"), frames)
        }
    };
    if let Err(why) = verify::same_image(gif, &png, &opts.limits) {
        return kept(Outcome::VerifyFailed, why, frames);
    }
    let (from, to) = (gif.len() as u64, png.len() as u64);
    let saving = from.saturating_sub(to);
    if to >= from || saving < opts.min_saving.max(1) {
        let diff = to as i64 - from as i64;
        let mut c = kept(Outcome::PngLarger, format!("{diff:+} B"), frames);
        c.png_bytes = Some(to);
        return c;
    }
    Conversion {
        outcome: Outcome::Converted,
        reason: format!("converted(-{saving} B)"),
        png_bytes: Some(to),
        png: Some(png),
        webp: None,
        webp_bytes: None,
        frames,
        elapsed: Duration::ZERO,
        cpu: Duration::ZERO,
    }
}

/// Frames in the GIF, each decoded and dropped in turn (within the limits).
fn frame_count(gif: &[u8], limits: &Limits) -> Result<usize, decode::ReadError> {
    let mut reader = decode::Reader::open(gif, limits)?;
    let mut n = 0;
    while reader.next_frame()?.is_some() {
        n += 1;
    }
    Ok(n)
}

/// Runs oxipng on an encoded PNG at the chosen effort (a Zopfli pass after the first at
/// `max`), keeping the smallest. `None` when nothing beat the input.
fn optimize(png: &[u8], scan: &apng::Scan, opts: &ImageOptions) -> Option<Vec<u8>> {
    let pixels = u64::from(scan.width) * u64::from(scan.height);
    let pass = |level| effort::static_options(level, opts.interlace);
    let best = passes(
        png,
        opts.effort,
        scan.frames == 1,
        pixels,
        effort::Filters::Pair,
        pass,
    );
    (best.len() < png.len()).then_some(best)
}

/// The oxipng passes of `effort` over an encoded PNG, the smallest result kept (`input` itself
/// when nothing beat it), for converted GIFs and a site's own PNGs alike: the first passes
/// ([`effort::first_passes`], each with `pass(level)`); for a still image its palette offered
/// as samples ([`depalette`]); `max`'s Zopfli pass over `filters` (with the first pass's
/// chunk and size rules); for a still image a grey palette written as grey ([`grey`]).
pub(crate) fn passes(
    input: &[u8],
    effort: Effort,
    still: bool,
    pixels: u64,
    filters: effort::Filters,
    pass: impl Fn(Effort) -> oxipng::Options,
) -> Vec<u8> {
    let smaller = |best: &mut Vec<u8>, out: Option<Vec<u8>>| {
        if let Some(out) = out.filter(|out| out.len() < best.len()) {
            *best = out;
        }
    };
    let mut best = input.to_vec();
    for &level in effort::first_passes(effort) {
        smaller(
            &mut best,
            oxipng::optimize_from_memory(input, &pass(level)).ok(),
        );
    }
    let first = pass(effort);
    if still {
        let out = depalette::without_palette(&best, &first);
        smaller(&mut best, out);
    }
    if let Some(mut second) = effort::zopfli_pass(effort, pixels, best.len(), filters) {
        second.ranking.strip = first.strip.clone();
        second.ranking.max_decompressed_size = first.max_decompressed_size;
        let out = zopfli_pass(&best, &second);
        smaller(&mut best, out);
    }
    if still {
        let out = grey::from_grey_palette(&best);
        smaller(&mut best, out);
    }
    best
}

/// Runs `max`'s Zopfli pass over `png`: oxipng ranks the pass's filters and writes the best,
/// whose image data Zopfli compresses again. `None` when oxipng fails on it.
fn zopfli_pass(png: &[u8], pass: &effort::ZopfliPass) -> Option<Vec<u8>> {
    let ranked = oxipng::optimize_from_memory(png, &pass.ranking).ok()?;
    zopfli::recompress(&ranked, pass.iterations)
}

/// One APNG frame's zlib stream: oxipng's filter trials and deflater at `effort`, with the
/// colour type, bit depth and palette left as they are (all frames share them).
fn compress_frame(
    format: &delta::Format,
    image: &delta::FrameImage,
    effort: Effort,
) -> Result<Vec<u8>, String> {
    let (color_type, depth) = match &format.palette {
        Some(palette) => (
            oxipng::ColorType::Indexed {
                palette: palette
                    .iter()
                    .map(|c| oxipng::RGBA8::new(c[0], c[1], c[2], c[3]))
                    .collect(),
            },
            match format.depth {
                1 => oxipng::BitDepth::One,
                2 => oxipng::BitDepth::Two,
                4 => oxipng::BitDepth::Four,
                _ => oxipng::BitDepth::Eight,
            },
        ),
        None => (oxipng::ColorType::RGBA, oxipng::BitDepth::Eight),
    };
    // oxipng wants packed rows without filter bytes.
    let rows: Vec<u8> = format
        .raw_rows(image)
        .chunks(1 + format.row_bytes(image.width))
        .flat_map(|row| row[1..].iter().copied())
        .collect();
    let raw = oxipng::RawImage::new(image.width, image.height, color_type, depth, rows)
        .map_err(|e| e.to_string())?;
    let pixels = u64::from(image.width) * u64::from(image.height);
    let mut png = raw
        .create_optimized_png(&effort::frame_options(effort))
        .map_err(|e| e.to_string())?;
    if let Some(second) = effort::zopfli_pass(effort, pixels, png.len(), effort::Filters::Pair) {
        if let Some(out) = zopfli_pass(&png, &second) {
            if out.len() < png.len() {
                png = out;
            }
        }
    }
    Ok(idat(&png))
}

/// The image data of a PNG oxipng just wrote (empty if it were not one: the APNG made of it
/// would then fail verification).
fn idat(png: &[u8]) -> Vec<u8> {
    chunks::parse(png).map_or_else(|_| Vec::new(), |list| chunks::image_data(&list))
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod zopfli_yield;
