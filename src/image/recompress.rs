//! Lossless recompression of the site's own PNGs and APNGs (`recompress_png`): oxipng at the
//! `--effort` level, after the chunks no browser draws with are dropped, verified by decoding
//! both files again with the `png` crate (not oxipng's decoder), and kept only when smaller.
//!
//! Chunk policy (docs/images.md, "PNG and JPEG recompression"):
//! - **kept**, because a browser draws with them: `gAMA`, `cHRM`, `sRGB`, `iCCP`, `cICP`,
//!   `mDCV`, `cLLI` (colour), `pHYs` (Safari sizes by it), `eXIf` (orientation and density),
//!   `tRNS` (transparency, rewritten by oxipng with the pixels), `acTL`/`fcTL`/`fdAT`
//!   (animation);
//! - **dropped**, because no browser draws with them: text (`tEXt`, `zTXt`, `iTXt`), `tIME`,
//!   `bKGD` (browsers show transparency, not the suggested background), `sBIT`, `hIST`,
//!   `sPLT`, and every other ancillary chunk (the PNG specification tells decoders to ignore
//!   the unknown ones); each dropped chunk is named in the result;
//! - a PNG with an unknown *critical* chunk (Apple's `CgBI`) is not a PNG a browser shows:
//!   it is left alone.
//!
//! What is verified: the colour, size and orientation facts the browser reads (gamma,
//! chromaticities, sRGB intent, ICC profile after decompression, cICP, HDR metadata, pixel
//! dimensions, EXIF) are equal; a still image's samples are equal at 16 bits per channel (a
//! depth oxipng reduced only when no bit is lost); an APNG's frames, composited as the APNG
//! specification says, are equal with every delay and the play count. Fully transparent pixels
//! are equal whatever their colour (oxipng's `optimize_alpha`; no browser shows it).

use std::io::Cursor;

use super::chunks::Chunk;
use super::decode::Limits;
use super::effort::{self, Effort, Filters};

/// Ancillary chunks kept because a browser draws with them.
const KEPT: [&[u8; 4]; 11] = [
    b"gAMA", b"cHRM", b"sRGB", b"iCCP", b"cICP", b"mDCV", b"cLLI", b"pHYs", b"eXIf", b"acTL",
    b"fcTL",
];

/// Chunks oxipng rewrites itself, with the pixels.
const IMAGE_DATA: [&[u8; 4]; 6] = [b"IHDR", b"PLTE", b"IDAT", b"IEND", b"tRNS", b"fdAT"];

/// What happened to one PNG or JPEG of the site.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum Recompression {
    /// Replaced by a smaller file, verified lossless.
    #[serde(rename = "optimized")]
    Optimized,
    /// The verified result was not smaller.
    #[serde(rename = "kept:larger")]
    Larger,
    /// The result did not verify (never used).
    #[serde(rename = "kept:verify-failed")]
    VerifyFailed,
    /// The file does not decode.
    #[serde(rename = "kept:corrupt")]
    Corrupt,
    /// Over the decompression-bomb limits.
    #[serde(rename = "kept:too-large")]
    TooLarge,
    /// A file webdiet does not change (a coding browsers do not show, CMYK, 16-bit APNG…).
    #[serde(rename = "kept:unsupported")]
    Unsupported,
    /// A text file its parser cannot read whole (a style sheet with a hack or an error).
    #[serde(rename = "kept:unparsed")]
    Unparsed,
}

impl Recompression {
    /// The reason code, as in the report.
    pub fn code(self) -> &'static str {
        match self {
            Recompression::Optimized => "optimized",
            Recompression::Larger => "kept:larger",
            Recompression::VerifyFailed => "kept:verify-failed",
            Recompression::Corrupt => "kept:corrupt",
            Recompression::TooLarge => "kept:too-large",
            Recompression::Unsupported => "kept:unsupported",
            Recompression::Unparsed => "kept:unparsed",
        }
    }
}

/// The result of recompressing one file.
#[derive(Debug, Clone)]
pub struct Recompressed {
    pub outcome: Recompression,
    /// The code with its detail: `optimized(-1234 B)`, `kept:larger(+0 B)`,
    /// `kept:verify-failed(pixel (3, 4) …)`.
    pub reason: String,
    /// The verified smaller file, present only when `outcome` is `Optimized`.
    pub bytes: Option<Vec<u8>>,
    /// Metadata dropped (chunk or marker names, in file order, each once), when optimized.
    pub dropped: Vec<String>,
}

impl Recompressed {
    pub(crate) fn kept(outcome: Recompression, detail: impl std::fmt::Display) -> Recompressed {
        Recompressed {
            outcome,
            reason: format!("{}({detail})", outcome.code()),
            bytes: None,
            dropped: Vec::new(),
        }
    }

    /// Keeps `candidate` when it is verified and at least `min_saving` bytes smaller than
    /// `original`.
    pub(crate) fn decide(
        original: &[u8],
        candidate: Vec<u8>,
        verified: Result<(), String>,
        dropped: Vec<String>,
        min_saving: u64,
    ) -> Recompressed {
        let against = Against {
            bytes: original.len() as u64,
            what: "",
        };
        Recompressed::decide_against(against, candidate, verified, dropped, min_saving)
    }

    /// [`Recompressed::decide`] against a file of `against.bytes` that is not the input (the
    /// PNG a WebP replaces is the PNG as it would be served, recompressed), its detail led by
    /// `against.what` (`optimized(WebP, -12 B)`).
    pub(crate) fn decide_against(
        against: Against,
        candidate: Vec<u8>,
        verified: Result<(), String>,
        dropped: Vec<String>,
        min_saving: u64,
    ) -> Recompressed {
        if let Err(why) = verified {
            return Recompressed::kept(Recompression::VerifyFailed, why);
        }
        let (from, to, what) = (against.bytes, candidate.len() as u64, against.what);
        if to >= from || from - to < min_saving.max(1) {
            return Recompressed::kept(
                Recompression::Larger,
                format!("{what}{:+} B", to as i64 - from as i64),
            );
        }
        Recompressed {
            outcome: Recompression::Optimized,
            reason: format!("optimized({what}-{} B)", from - to),
            bytes: Some(candidate),
            dropped,
        }
    }
}

/// What a candidate is weighed against: its size, and the words that name the comparison in
/// the reason (empty for the input itself).
pub(crate) struct Against {
    pub bytes: u64,
    pub what: &'static str,
}

/// The PNG with only the chunks browsers use, and the names of those dropped (each once).
fn strip(png: &[u8], chunks: &[Chunk<'_>]) -> (Vec<u8>, Vec<String>) {
    let mut out = png[..8].to_vec();
    let mut dropped: Vec<String> = Vec::new();
    for c in chunks {
        if IMAGE_DATA.contains(&&c.name) || KEPT.contains(&&c.name) {
            super::chunks::write(&mut out, &c.name, c.data);
        } else {
            let name = String::from_utf8_lossy(&c.name).into_owned();
            if !dropped.contains(&name) {
                dropped.push(name);
            }
        }
    }
    (out, dropped)
}

/// oxipng's options for an existing PNG at `effort`: the first pass of `effort::static_options`,
/// with the interlacing left as it is, no chunk stripped (done before, by [`strip`]) and no
/// grey reduction where chromaticities are given (a grey image's `cHRM` is not read the same).
fn options(effort: Effort, has_chrm: bool, limits: &Limits) -> oxipng::Options {
    let mut o = effort::static_options(effort, false);
    o.interlace = None;
    o.strip = oxipng::StripChunks::None;
    if has_chrm {
        o.grayscale_reduction = false;
    }
    o.max_decompressed_size = usize::try_from(limits.max_canvas_pixels.saturating_mul(8)).ok();
    o
}

/// Recompresses a PNG or APNG losslessly at `effort`; see the module documentation.
pub fn recompress_png(
    png: &[u8],
    effort: Effort,
    min_saving: u64,
    limits: &Limits,
) -> Recompressed {
    let parsed = match super::chunks::parse(png) {
        Ok(parsed) => parsed,
        Err(why) => return Recompressed::kept(Recompression::Corrupt, why),
    };
    let Some(ihdr) = parsed
        .first()
        .filter(|c| &c.name == b"IHDR" && c.data.len() == 13)
    else {
        return Recompressed::kept(Recompression::Corrupt, "no IHDR chunk first");
    };
    if let Some(c) = parsed
        .iter()
        .find(|c| c.name[0].is_ascii_uppercase() && !IMAGE_DATA.contains(&&c.name))
    {
        let name = String::from_utf8_lossy(&c.name);
        return Recompressed::kept(
            Recompression::Unsupported,
            format!("unknown critical chunk {name}: not a PNG browsers show"),
        );
    }
    let width = u32::from_be_bytes([ihdr.data[0], ihdr.data[1], ihdr.data[2], ihdr.data[3]]);
    let height = u32::from_be_bytes([ihdr.data[4], ihdr.data[5], ihdr.data[6], ihdr.data[7]]);
    let pixels = u64::from(width) * u64::from(height);
    if pixels > limits.max_canvas_pixels {
        return Recompressed::kept(
            Recompression::TooLarge,
            format!(
                "the image is {width}×{height}, over the {}-pixel limit",
                limits.max_canvas_pixels
            ),
        );
    }
    let animated = parsed.iter().any(|c| &c.name == b"acTL");
    if animated && ihdr.data[8] == 16 {
        return Recompressed::kept(
            Recompression::Unsupported,
            "a 16-bit APNG (its frames are checked at 8 bits only)",
        );
    }
    if let Err(why) = facts(png, limits) {
        return Recompressed::kept(Recompression::Corrupt, why);
    }
    let has_chrm = parsed.iter().any(|c| &c.name == b"cHRM");
    let (stripped, dropped) = strip(png, &parsed);
    let pass = |level| options(level, has_chrm, limits);
    let best = super::passes(&stripped, effort, !animated, pixels, Filters::All, pass);
    let verified = same_png(png, &best, animated, limits);
    Recompressed::decide(png, best, verified, dropped, min_saving)
}

/// `Ok` when `after` shows exactly what `before` shows in a browser; otherwise why not.
fn same_png(before: &[u8], after: &[u8], animated: bool, limits: &Limits) -> Result<(), String> {
    let (a, b) = (facts(before, limits)?, facts(after, limits)?);
    if a != b {
        return Err(format!(
            "what a browser reads differs: {a} before, {b} after"
        ));
    }
    if animated {
        super::verify::same_animation(before, after, limits)
    } else {
        same_samples(before, after, limits)
    }
}

/// Everything outside the pixels that a browser reads, as text for comparing and messages.
fn facts(png: &[u8], limits: &Limits) -> Result<String, String> {
    let reader = decoder(png, limits, png::Transformations::IDENTITY)?
        .read_info()
        .map_err(|e| format!("does not decode: {e}"))?;
    let i = reader.info();
    Ok(format!(
        "size {}×{}, interlaced {}, gamma {:?}, chromaticities {:?}, sRGB {:?}, ICC {:?}, \
         cICP {:?}, mDCV {:?}, cLLI {:?}, pHYs {:?}, EXIF {:?}, animation {:?}",
        i.width,
        i.height,
        i.interlaced,
        i.gama_chunk,
        i.chrm_chunk,
        i.srgb,
        i.icc_profile.as_deref().map(fnv),
        i.coding_independent_code_points,
        i.mastering_display_color_volume,
        i.content_light_level,
        i.pixel_dims,
        i.exif_metadata.as_deref().map(fnv),
        i.animation_control,
    ))
}

/// A short fingerprint of a byte string (the ICC profile, the EXIF block) for [`facts`].
fn fnv(bytes: &[u8]) -> String {
    let hash = bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("{} B {hash:016x}", bytes.len())
}

fn decoder<'a>(
    png: &'a [u8],
    limits: &Limits,
    transformations: png::Transformations,
) -> Result<png::Decoder<Cursor<&'a [u8]>>, String> {
    let bytes = usize::try_from(limits.max_canvas_pixels.saturating_mul(8)).unwrap_or(usize::MAX);
    let mut decoder = png::Decoder::new_with_limits(Cursor::new(png), png::Limits { bytes });
    decoder.set_transformations(transformations);
    Ok(decoder)
}

/// A still image's samples as RGBA at 16 bits per channel.
pub(super) fn rgba16(png: &[u8], limits: &Limits) -> Result<(u32, u32, Vec<[u16; 4]>), String> {
    let mut reader = decoder(png, limits, png::Transformations::EXPAND)?
        .read_info()
        .map_err(|e| format!("does not decode: {e}"))?;
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| "the image size overflows".to_string())?;
    let mut buffer = vec![0; size];
    let frame = reader
        .next_frame(&mut buffer)
        .map_err(|e| format!("does not decode: {e}"))?;
    let wide = frame.bit_depth == png::BitDepth::Sixteen;
    let channels = frame.color_type.samples();
    let sample = |s: &[u8], k: usize| -> u16 {
        if wide {
            u16::from_be_bytes([s[2 * k], s[2 * k + 1]])
        } else {
            u16::from(s[k]) * 257
        }
    };
    let mut out = Vec::with_capacity(frame.width as usize * frame.height as usize);
    for y in 0..frame.height as usize {
        let row = &buffer[y * frame.line_size..]
            [..frame.width as usize * channels * (1 + usize::from(wide))];
        for s in row.chunks_exact(channels * (1 + usize::from(wide))) {
            let max = u16::MAX;
            out.push(match channels {
                1 => [sample(s, 0), sample(s, 0), sample(s, 0), max],
                2 => [sample(s, 0), sample(s, 0), sample(s, 0), sample(s, 1)],
                3 => [sample(s, 0), sample(s, 1), sample(s, 2), max],
                _ => [sample(s, 0), sample(s, 1), sample(s, 2), sample(s, 3)],
            });
        }
    }
    Ok((frame.width, frame.height, out))
}

/// Compares two still images sample by sample at 16 bits.
fn same_samples(before: &[u8], after: &[u8], limits: &Limits) -> Result<(), String> {
    let (w, h, a) = rgba16(before, limits).map_err(|e| format!("the original {e}"))?;
    let (w2, h2, b) = rgba16(after, limits).map_err(|e| format!("the new PNG {e}"))?;
    if (w, h) != (w2, h2) {
        return Err(format!("{w}×{h} before, {w2}×{h2} after"));
    }
    match a
        .iter()
        .zip(&b)
        .position(|(p, q)| p != q && !(p[3] == 0 && q[3] == 0))
    {
        Some(i) => Err(format!(
            "pixel ({}, {}) is {:?} before, {:?} after (16 bits per channel)",
            i as u32 % w,
            i as u32 / w,
            a[i],
            b[i]
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
#[path = "recompress_tests.rs"]
mod tests;
