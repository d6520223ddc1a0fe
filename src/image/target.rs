//! The format a GIF is converted to (`--image-format png|webp|best`) and, for `best`, the
//! choice between the verified PNG/APNG and the verified WebP. PNG is the default: every
//! browser since the late 1990s shows it, while WebP needs a current one (README, "Images").
//! A WebP is used only when it is verified and smaller than the GIF and, with `best`, than the
//! PNG too (a tie goes to PNG).

use std::time::Duration;

use serde::Serialize;

use super::{kept, read, read_error, webp, Conversion, ImageOptions, Outcome};

/// The format GIFs are converted to.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Target {
    /// PNG, or APNG for animations.
    #[default]
    Png,
    /// Lossless WebP, still or animated.
    Webp,
    /// Both made and verified; the smallest of GIF, PNG/APNG and WebP is used.
    Best,
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Target::Png => "png",
            Target::Webp => "webp",
            Target::Best => "best",
        })
    }
}

impl std::str::FromStr for Target {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "png" => Ok(Target::Png),
            "webp" => Ok(Target::Webp),
            "best" => Ok(Target::Best),
            _ => Err(format!(
                "`{s}` is not an image format: use png, webp or best"
            )),
        }
    }
}

/// A GIF that could be read, and the WebP made of it.
struct Made {
    frames: usize,
    /// The verified WebP, or why there is none.
    webp: Result<Vec<u8>, String>,
}

/// Reads the GIF and makes a verified WebP of it; `Err`, what to report, when the GIF cannot
/// be read.
fn make_webp(gif: &[u8], opts: &ImageOptions) -> Result<Made, Box<Conversion>> {
    let scan = read(gif, opts)?;
    let frames = scan.frames;
    let file = match webp::encode(gif, &scan, &opts.limits, opts.effort) {
        Ok(file) => file,
        Err(webp::EncodeError::Read(e)) => return Err(read_error(e, frames)),
        Err(webp::EncodeError::Webp(why)) => {
            let webp = Err(format!("WebP encoder: {why}"));
            return Ok(Made { frames, webp });
        }
    };
    let webp = webp::verify::same_image(gif, &file, &opts.limits).map(|()| file);
    Ok(Made { frames, webp })
}

/// `--image-format webp`: the verified WebP where it is smaller than the GIF.
pub(super) fn convert_webp(gif: &[u8], opts: &ImageOptions) -> Conversion {
    let (frames, file) = match make_webp(gif, opts) {
        Ok(Made {
            frames,
            webp: Ok(file),
        }) => (frames, file),
        Ok(Made {
            frames,
            webp: Err(why),
        }) => return kept(Outcome::VerifyFailed, why, frames),
        Err(c) => return *c,
    };
    let (from, to) = (gif.len() as u64, file.len() as u64);
    let diff = to as i64 - from as i64;
    if to >= from || from - to < opts.min_saving.max(1) {
        let mut c = kept(Outcome::WebpLarger, format!("{diff:+} B"), frames);
        c.webp_bytes = Some(to);
        return c;
    }
    Conversion {
        outcome: Outcome::Converted,
        reason: format!("converted({diff:+} B)"),
        png: None,
        png_bytes: None,
        webp_bytes: Some(to),
        webp: Some(file),
        frames,
        elapsed: Duration::ZERO,
        cpu: Duration::ZERO,
    }
}

/// `--image-format best`: `png` is what `--image-format png` made of the GIF; a WebP is made
/// too, and the smallest verified file that saves at least `min_saving` bytes is used. The
/// reason names both candidates, the used (or closest) one first: `converted(webp -1300 B;
/// png -1234 B)`, `kept:png-larger(png +5 B; webp +12 B)`,
/// `converted(png -1234 B; webp not verified: frame 3: …)`.
pub(super) fn best(gif: &[u8], opts: &ImageOptions, png: Conversion) -> Conversion {
    if matches!(
        png.outcome,
        Outcome::Corrupt | Outcome::TooLarge | Outcome::Animated
    ) {
        // Nothing the WebP side could read differently.
        return png;
    }
    let webp = match make_webp(gif, opts) {
        Ok(made) => made.webp,
        Err(c) => return *c,
    };
    let from = gif.len() as i64;
    let png_result = match png.png_bytes {
        Some(bytes) => Ok(bytes),
        None => Err(detail(&png.reason).to_string()),
    };
    let webp_result = webp.as_ref().map(|f| f.len() as u64).map_err(Clone::clone);
    let describe = |name: &str, r: &Result<u64, String>| match r {
        Ok(bytes) => format!("{name} {:+} B", *bytes as i64 - from),
        Err(why) => format!("{name} not verified: {why}"),
    };
    let webp_wins = match (&png_result, &webp_result) {
        (_, Err(_)) => false,
        (Err(_), Ok(_)) => true,
        (Ok(p), Ok(w)) => w < p,
    };
    let (first, second) = if webp_wins {
        (describe("webp", &webp_result), describe("png", &png_result))
    } else {
        (describe("png", &png_result), describe("webp", &webp_result))
    };
    let reason_detail = format!("{first}; {second}");
    let mut c = png;
    c.webp_bytes = webp_result.as_ref().ok().copied();
    let winner = if webp_wins { &webp_result } else { &png_result };
    let Ok(to) = *winner else {
        return kept(Outcome::VerifyFailed, reason_detail, c.frames).with_sizes(&c);
    };
    let to = to as i64;
    if to >= from || ((from - to) as u64) < opts.min_saving.max(1) {
        let outcome = if webp_wins {
            Outcome::WebpLarger
        } else {
            Outcome::PngLarger
        };
        return kept(outcome, reason_detail, c.frames).with_sizes(&c);
    }
    c.outcome = Outcome::Converted;
    c.reason = format!("converted({reason_detail})");
    if webp_wins {
        c.png = None;
        c.webp = webp.ok();
    }
    c
}

/// The detail of a reason: `frame 3: …` of `kept:verify-failed(frame 3: …)`.
fn detail(reason: &str) -> &str {
    reason
        .split_once('(')
        .and_then(|(_, rest)| rest.strip_suffix(')'))
        .unwrap_or(reason)
}

impl Conversion {
    fn with_sizes(mut self, from: &Conversion) -> Conversion {
        self.png_bytes = from.png_bytes;
        self.webp_bytes = from.webp_bytes;
        self
    }
}
