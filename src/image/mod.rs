//! The image module: GIF → PNG (static) or APNG (animated), lossless, verified, kept only
//! when smaller. The only module that imports the `image`, `gif`, `png` and `oxipng` crates.
//!
//! [`convert_gif`] is a pure function from GIF bytes to a [`Conversion`]: the candidate PNG (if
//! any), the [`Outcome`] with its reason, and the frame count. It never panics on bad input and
//! never returns an unverified result: every PNG it offers was decoded again and compared pixel
//! by pixel (and frame by frame, timing included) with the decoded GIF (see [`verify`]).

mod apng;
mod decode;
pub mod facts;
pub mod verify;

use std::time::{Duration, Instant};

use serde::Serialize;

pub use decode::Limits;
pub use facts::{facts, Fill, ImageFacts};

/// How hard oxipng works (`--png-level`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PngLevel {
    /// oxipng's preset 0–6 (libdeflate; 5–6 try more filters).
    Preset(u8),
    /// Preset 6 filters with the Zopfli deflater: smallest, slowest.
    Max,
}

impl std::fmt::Display for PngLevel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PngLevel::Preset(n) => write!(f, "{n}"),
            PngLevel::Max => f.write_str("max"),
        }
    }
}

impl std::str::FromStr for PngLevel {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "max" => Ok(PngLevel::Max),
            _ => match s.parse::<u8>() {
                Ok(n) if n <= 6 => Ok(PngLevel::Preset(n)),
                _ => Err(format!("`{s}` is not a PNG level: use 0 to 6 or max")),
            },
        }
    }
}

/// Options for [`convert_gif`].
#[derive(Debug, Clone)]
pub struct ImageOptions {
    /// oxipng effort. Default: preset 2 — chosen by measurement on Space Jam's 459 GIFs (see
    /// `docs/images.md`): presets 3–6 saved at most 0.5 % more bytes for 1.4–6× the time,
    /// Zopfli (`max`) 1.7 % more for over 100× the time; preset 1 was 1.8 % larger.
    pub png_level: PngLevel,
    /// Convert animated GIFs to APNG. Default: `true` (`--no-apng` keeps them as GIF).
    pub apng: bool,
    /// The PNG replaces the GIF only when it saves at least this many bytes. Default: 1.
    pub min_saving: u64,
    /// Write Adam7-interlaced PNGs (only static images). Default: `false` — non-interlaced
    /// PNGs are smaller, and progressive display matters little at these sizes.
    pub interlace: bool,
    /// Decompression-bomb limits. Default: see [`Limits`].
    pub limits: Limits,
    /// Stop optimising one image after this long and keep the best found so far.
    /// Default: 30 s.
    pub timeout: Option<Duration>,
}

impl Default for ImageOptions {
    fn default() -> Self {
        ImageOptions {
            png_level: PngLevel::Preset(2),
            apng: true,
            min_saving: 1,
            interlace: false,
            limits: Limits::default(),
            timeout: Some(Duration::from_secs(30)),
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
}

impl Outcome {
    pub const ALL: [Outcome; 7] = [
        Outcome::Converted,
        Outcome::PngLarger,
        Outcome::Animated,
        Outcome::VerifyFailed,
        Outcome::Corrupt,
        Outcome::TooLarge,
        Outcome::Unreferenced,
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
    /// Number of frames in the GIF (0 when it could not be read).
    pub frames: usize,
    pub elapsed: Duration,
}

/// Converts one GIF. Never panics on bad input; see the module docs.
pub fn convert_gif(gif: &[u8], opts: &ImageOptions) -> Conversion {
    let start = Instant::now();
    let mut conversion = convert_inner(gif, opts);
    conversion.elapsed = start.elapsed();
    conversion
}

fn kept(outcome: Outcome, detail: impl std::fmt::Display, frames: usize) -> Conversion {
    Conversion {
        outcome,
        reason: format!("{}({detail})", outcome.code()),
        png: None,
        png_bytes: None,
        frames,
        elapsed: Duration::ZERO,
    }
}

fn convert_inner(gif: &[u8], opts: &ImageOptions) -> Conversion {
    let read_error = |e: decode::ReadError, frames| match e {
        decode::ReadError::TooLarge(why) => kept(Outcome::TooLarge, why, frames),
        decode::ReadError::Corrupt(why) => kept(Outcome::Corrupt, why, frames),
    };
    let scan = match apng::scan(gif, &opts.limits, opts.apng) {
        Ok(scan) => scan,
        Err(e) => return read_error(e, 0),
    };
    if !opts.apng {
        // Only the first frame was read: count the rest without keeping them.
        let frames = match frame_count(gif, &opts.limits) {
            Ok(n) => n,
            Err(e) => return read_error(e, 0),
        };
        if frames > 1 {
            return kept(
                Outcome::Animated,
                format!("{frames} frames; --no-apng"),
                frames,
            );
        }
    }
    let frames = scan.frames;
    let raw = match apng::encode(gif, &scan, &opts.limits) {
        Ok(png) => png,
        Err(apng::EncodeError::Read(e)) => return read_error(e, frames),
        Err(apng::EncodeError::Png(why)) => {
            return kept(Outcome::VerifyFailed, format!("PNG encoder: {why}"), frames)
        }
    };
    let png = optimize(&raw, opts).unwrap_or(raw);
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
        frames,
        elapsed: Duration::ZERO,
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

/// Runs oxipng on an encoded PNG. `None` when oxipng fails (the unoptimised PNG is then used).
fn optimize(png: &[u8], opts: &ImageOptions) -> Option<Vec<u8>> {
    let mut o = match opts.png_level {
        PngLevel::Preset(n) => oxipng::Options::from_preset(n),
        PngLevel::Max => {
            let mut o = oxipng::Options::from_preset(6);
            o.deflater = oxipng::Deflater::Zopfli(Default::default());
            o
        }
    };
    o.interlace = Some(opts.interlace);
    // Fully transparent pixels may change colour: they compare equal in verification and are
    // invisible in every browser.
    o.optimize_alpha = true;
    o.strip = oxipng::StripChunks::Safe;
    o.timeout = opts.timeout;
    let out = oxipng::optimize_from_memory(png, &o).ok()?;
    (out.len() < png.len()).then_some(out)
}

#[cfg(test)]
mod tests;
