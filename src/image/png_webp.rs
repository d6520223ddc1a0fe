//! The site's own still PNGs as lossless WebP (`--image-format webp|best`): the pixels a
//! browser shows, encoded by libwebp as for GIFs, decoded again by the independent decoder and
//! compared pixel for pixel, and used only when smaller than the PNG would be served
//! otherwise (after its own recompression). The caller renames the file and its references.
//!
//! A WebP carries no PNG chunk, so a PNG is left as a PNG when one of them changes what a
//! browser shows (docs/images.md, "PNG to WebP"):
//! - colour: `gAMA`, `cHRM`, `iCCP`, `cICP`, `mDCV`, `cLLI` (an untagged WebP is shown as
//!   sRGB, so `sRGB` alone is no obstacle);
//! - `eXIf`, whose orientation browsers apply;
//! - `pHYs` of 144 dpi or more on both axes (Safari shows such a PNG at a fraction of its pixel
//!   size, as a high-density image);
//! - animation (`acTL`): an APNG stays an APNG;
//! - samples a WebP cannot hold: 16 bits per channel that are not 8-bit values widened;
//! - partly transparent pixels (alpha strictly between 0 and 255): Chromium composites them
//!   differently from a WebP than from a PNG (its WebP decoder premultiplies alpha with its
//!   own rounding), so the page would not render pixel-identical. Fully transparent and
//!   opaque pixels are drawn alike.

use image::RgbaImage;

use super::chunks;
use super::decode::Limits;
use super::effort::Effort;
use super::recompress::{rgba16, Against, Recompressed, Recompression};

/// Chunks that change what a browser shows and that a WebP cannot carry.
const BLOCKING: [&[u8; 4]; 8] = [
    b"gAMA", b"cHRM", b"iCCP", b"cICP", b"mDCV", b"cLLI", b"eXIf", b"acTL",
];

/// From this density on (pixels per metre, 144 dpi), Safari sizes a PNG by its `pHYs`.
const HIGH_DENSITY_PER_METRE: u32 = 5669;

/// A lossless WebP of `png`, kept only when it is at least `min_saving` bytes smaller than
/// `served`, the size of the PNG that would be served instead (the saving in the reason is
/// against that size). `Optimized` carries the WebP; every other outcome says why the PNG
/// stays.
pub fn png_to_webp(
    png: &[u8],
    served: u64,
    effort: Effort,
    min_saving: u64,
    limits: &Limits,
) -> Recompressed {
    let rgba = match browser_pixels(png, limits) {
        Ok(rgba) => rgba,
        Err((outcome, why)) => return Recompressed::kept(outcome, why),
    };
    let webp = match super::webp::encode_still(rgba.as_raw(), rgba.width(), rgba.height(), effort) {
        Ok(webp) => webp,
        Err(why) => return Recompressed::kept(Recompression::VerifyFailed, why),
    };
    let verified = super::webp::verify::same_still(&rgba, &webp, limits);
    let against = Against {
        bytes: served,
        what: "WebP, ",
    };
    Recompressed::decide_against(against, webp, verified, ancillary(png), min_saving)
}

/// The PNG's pixels at 8 bits per channel, or why a WebP could not show them as a browser
/// shows the PNG.
fn browser_pixels(png: &[u8], limits: &Limits) -> Result<RgbaImage, (Recompression, String)> {
    let unsupported = |why: String| (Recompression::Unsupported, why);
    let parsed = chunks::parse(png).map_err(|why| (Recompression::Corrupt, why))?;
    if let Some(c) = parsed.iter().find(|c| BLOCKING.contains(&&c.name)) {
        let name = String::from_utf8_lossy(&c.name);
        return Err(unsupported(if &c.name == b"acTL" {
            "an APNG: animations stay APNG".to_string()
        } else {
            format!("its {name} chunk changes what a browser shows, and a WebP cannot carry it")
        }));
    }
    if let Some(phys) = parsed.iter().find(|c| &c.name == b"pHYs") {
        let d = phys.data;
        if d.len() == 9 && d[8] == 1 {
            let x = u32::from_be_bytes([d[0], d[1], d[2], d[3]]);
            let y = u32::from_be_bytes([d[4], d[5], d[6], d[7]]);
            if x.min(y) >= HIGH_DENSITY_PER_METRE {
                return Err(unsupported(format!(
                    "its pHYs says {} dpi, which Safari shows at a fraction of the pixel size",
                    (f64::from(x.min(y)) * 0.0254).round()
                )));
            }
        }
    }
    let (width, height, samples) = rgba16(png, limits).map_err(|why| {
        let outcome = if why.contains("limit") {
            Recompression::TooLarge
        } else {
            Recompression::Corrupt
        };
        (outcome, format!("the PNG {why}"))
    })?;
    if u64::from(width) * u64::from(height) > limits.max_canvas_pixels {
        return Err((
            Recompression::TooLarge,
            format!("the image is {width}×{height}, over the limit"),
        ));
    }
    let mut raw = Vec::with_capacity(samples.len() * 4);
    for pixel in &samples {
        for &s in pixel {
            if s % 257 != 0 {
                return Err(unsupported(
                    "16 bits per channel that 8 bits cannot hold".to_string(),
                ));
            }
            raw.push((s / 257) as u8);
        }
    }
    if raw.chunks_exact(4).any(|p| p[3] != 0 && p[3] != 255) {
        return Err(unsupported(
            "partly transparent pixels, which Chromium draws differently from a WebP's".to_string(),
        ));
    }
    RgbaImage::from_raw(width, height, raw)
        .ok_or_else(|| (Recompression::Corrupt, "a short pixel buffer".to_string()))
}

/// The names of the PNG's ancillary chunks, each once: none of them is in the WebP.
fn ancillary(png: &[u8]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for c in chunks::parse(png).unwrap_or_default() {
        let name = String::from_utf8_lossy(&c.name).into_owned();
        if c.name[0].is_ascii_lowercase() && !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> Limits {
        Limits::default()
    }

    /// A `w`×`h` RGBA PNG of a gradient with a transparent corner, and `extra` chunks before
    /// IDAT.
    fn png(w: u32, h: u32, extra: &[(&[u8; 4], Vec<u8>)]) -> Vec<u8> {
        let mut raw = Vec::new();
        for y in 0..h {
            for x in 0..w {
                let alpha = if x < 3 && y < 3 { 0 } else { 255 };
                raw.extend_from_slice(&[
                    (x * 7) as u8,
                    (y * 5) as u8,
                    ((x + y) % 3 * 80) as u8,
                    alpha,
                ]);
            }
        }
        let mut plain = Vec::new();
        let mut encoder = png::Encoder::new(&mut plain, w, h);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        encoder
            .write_header()
            .unwrap()
            .write_image_data(&raw)
            .unwrap();
        // Put the extra chunks right after IHDR.
        let parsed = chunks::parse(&plain).unwrap();
        let mut out = chunks::SIGNATURE.to_vec();
        for (i, c) in parsed.iter().enumerate() {
            chunks::write(&mut out, &c.name, c.data);
            if i == 0 {
                for (name, data) in extra {
                    chunks::write(&mut out, name, data);
                }
            }
        }
        out
    }

    #[test]
    fn a_plain_png_becomes_a_smaller_lossless_webp_showing_the_same_pixels() {
        let png = png(64, 48, &[(b"tEXt", b"Comment\0made here".to_vec())]);
        let out = png_to_webp(&png, png.len() as u64, Effort::Fast, 1, &limits());
        assert_eq!(out.outcome, Recompression::Optimized, "{}", out.reason);
        let webp = out.bytes.unwrap();
        assert!(webp.starts_with(b"RIFF") && &webp[8..12] == b"WEBP");
        let pixels = browser_pixels(&png, &limits()).unwrap();
        super::super::webp::verify::same_still(&pixels, &webp, &limits()).unwrap();
        assert_eq!(out.dropped, vec!["tEXt"]);
    }

    #[test]
    fn the_webp_must_beat_the_png_as_it_would_be_served() {
        let png = png(64, 48, &[]);
        let out = png_to_webp(&png, 10, Effort::Fast, 1, &limits());
        assert_eq!(out.outcome, Recompression::Larger, "{}", out.reason);
        assert!(
            out.reason.starts_with("kept:larger(WebP, +"),
            "{}",
            out.reason
        );
        assert!(out.bytes.is_none());
    }

    #[test]
    fn chunks_a_webp_cannot_carry_keep_the_png() {
        for (name, data) in [
            (b"gAMA", 45455u32.to_be_bytes().to_vec()),
            (b"iCCP", b"p\0\0x".to_vec()),
            (b"eXIf", b"MM\0*".to_vec()),
            (b"acTL", [0, 0, 0, 1, 0, 0, 0, 0].to_vec()),
        ] {
            let png = png(16, 16, &[(name, data)]);
            let out = png_to_webp(&png, png.len() as u64, Effort::Fast, 1, &limits());
            assert_eq!(
                out.outcome,
                Recompression::Unsupported,
                "{}: {}",
                String::from_utf8_lossy(name),
                out.reason
            );
        }
        // sRGB is what an untagged WebP means.
        let png = png(64, 48, &[(b"sRGB", vec![0])]);
        let out = png_to_webp(&png, png.len() as u64, Effort::Fast, 1, &limits());
        assert_eq!(out.outcome, Recompression::Optimized, "{}", out.reason);
    }

    #[test]
    fn a_high_density_phys_keeps_the_png_and_an_ordinary_one_does_not() {
        let phys = |per_metre: u32| {
            let mut d = per_metre.to_be_bytes().to_vec();
            d.extend_from_slice(&per_metre.to_be_bytes());
            d.push(1);
            d
        };
        let retina = png(64, 48, &[(b"pHYs", phys(5669))]);
        let out = png_to_webp(&retina, retina.len() as u64, Effort::Fast, 1, &limits());
        assert_eq!(out.outcome, Recompression::Unsupported, "{}", out.reason);
        assert!(out.reason.contains("144 dpi"), "{}", out.reason);
        let screen = png(64, 48, &[(b"pHYs", phys(3780))]);
        let out = png_to_webp(&screen, screen.len() as u64, Effort::Fast, 1, &limits());
        assert_eq!(out.outcome, Recompression::Optimized, "{}", out.reason);
    }

    #[test]
    fn sixteen_bit_samples_convert_only_when_eight_bits_hold_them() {
        let encode = |samples: &[u16]| {
            let mut plain = Vec::new();
            let mut encoder = png::Encoder::new(&mut plain, 2, 1);
            encoder.set_color(png::ColorType::Grayscale);
            encoder.set_depth(png::BitDepth::Sixteen);
            let data: Vec<u8> = samples.iter().flat_map(|s| s.to_be_bytes()).collect();
            encoder
                .write_header()
                .unwrap()
                .write_image_data(&data)
                .unwrap();
            plain
        };
        let widened = encode(&[0x1212, 0xfefe]);
        assert!(browser_pixels(&widened, &limits()).is_ok());
        let deep = encode(&[0x1234, 0xfefe]);
        let (outcome, why) = browser_pixels(&deep, &limits()).unwrap_err();
        assert_eq!(outcome, Recompression::Unsupported, "{why}");
    }

    #[test]
    fn partly_transparent_pixels_keep_the_png() {
        let mut plain = Vec::new();
        let mut encoder = png::Encoder::new(&mut plain, 2, 1);
        encoder.set_color(png::ColorType::Rgba);
        encoder
            .write_header()
            .unwrap()
            .write_image_data(&[10, 20, 30, 255, 10, 20, 30, 128])
            .unwrap();
        let (outcome, why) = browser_pixels(&plain, &limits()).unwrap_err();
        assert_eq!(outcome, Recompression::Unsupported, "{why}");
        assert!(why.contains("partly transparent"), "{why}");
    }

    #[test]
    fn a_corrupt_png_is_named_corrupt() {
        let mut png = png(16, 16, &[]);
        png.truncate(png.len() - 20);
        let out = png_to_webp(&png, png.len() as u64, Effort::Fast, 1, &limits());
        assert_eq!(out.outcome, Recompression::Corrupt, "{}", out.reason);
    }
}
