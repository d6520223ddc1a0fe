//! Proves a PNG/APNG shows exactly what its GIF shows: both are decoded again, independently
//! of the writer, with the `image` crate's GIF and APNG decoders (which composite frames onto
//! the canvas the way browsers do), and compared frame by frame as RGBA canvases, with the
//! time each frame stays on screen and the number of plays.
//!
//! Fully transparent pixels compare equal whatever their colour. Delays compare as a browser
//! plays them (GIF delays of 0–1 cs play at 100 ms). Frames are streamed in lockstep, so
//! memory holds two canvases at a time, not the whole animation.

use std::io::Cursor;

use image::codecs::gif::GifDecoder;
use image::codecs::png::PngDecoder;
use image::{AnimationDecoder, DynamicImage, Frame, RgbaImage};

use super::decode::Limits;

/// A composited frame and how long it stays on screen, in milliseconds as a fraction.
struct Shown {
    canvas: RgbaImage,
    delay: (u32, u32),
}

/// `Ok` when `png` decodes to the same frames, timing and plays as `gif`; otherwise why not.
pub fn same_image(gif: &[u8], png: &[u8], limits: &Limits) -> Result<(), String> {
    let image_limits = {
        let mut l = image::Limits::default();
        l.max_alloc = Some(limits.max_canvas_pixels.saturating_mul(4 * 4));
        l
    };
    let mut gif_decoder =
        GifDecoder::new(Cursor::new(gif)).map_err(|e| format!("GIF does not decode: {e}"))?;
    image::ImageDecoder::set_limits(&mut gif_decoder, image_limits.clone())
        .map_err(|e| e.to_string())?;
    let gif_plays = gif_plays(gif)?;
    let gif_frames = gif_decoder.into_frames();

    let mut png_decoder =
        PngDecoder::new(Cursor::new(png)).map_err(|e| format!("PNG does not decode: {e}"))?;
    image::ImageDecoder::set_limits(&mut png_decoder, image_limits).map_err(|e| e.to_string())?;
    let animation = png_plays(png)?;

    let mut png_frames: Box<dyn Iterator<Item = Result<Shown, String>>> = match animation {
        Some(_) => Box::new(
            png_decoder
                .apng()
                .map_err(|e| e.to_string())?
                .into_frames()
                .map(|f| f.map(shown).map_err(|e| format!("APNG frame: {e}"))),
        ),
        None => {
            let image = DynamicImage::from_decoder(png_decoder)
                .map_err(|e| format!("PNG does not decode: {e}"))?;
            Box::new(std::iter::once(Ok(Shown {
                canvas: image.into_rgba8(),
                delay: (0, 1),
            })))
        }
    };
    let mut count = 0usize;
    for gif_frame in gif_frames {
        let gif_frame = shown(gif_frame.map_err(|e| format!("GIF frame {count}: {e}"))?);
        let png_frame = png_frames
            .next()
            .ok_or_else(|| format!("the PNG has {count} frames, the GIF more"))??;
        compare(&gif_frame.canvas, &png_frame.canvas).map_err(|e| format!("frame {count}: {e}"))?;
        if animation.is_some() {
            let (gn, gd) = browser_delay(gif_frame.delay);
            let (pn, pd) = png_frame.delay;
            if u64::from(gn) * u64::from(pd) != u64::from(pn) * u64::from(gd) {
                return Err(format!(
                    "frame {count}: shown {gn}/{gd} ms in the GIF, {pn}/{pd} ms in the APNG"
                ));
            }
        }
        count += 1;
    }
    if png_frames.next().is_some() {
        return Err(format!("the PNG has more frames than the GIF's {count}"));
    }
    match animation {
        Some(plays) if count > 1 && plays != gif_plays => Err(format!(
            "the GIF plays {} times, the APNG {}",
            plays_text(gif_plays),
            plays_text(plays)
        )),
        Some(_) if count <= 1 => Err("a one-frame GIF became an APNG".to_string()),
        None if count > 1 => Err(format!("{count} GIF frames became a static PNG")),
        _ => Ok(()),
    }
}

fn plays_text(plays: u32) -> String {
    if plays == 0 {
        "forever".to_string()
    } else {
        plays.to_string()
    }
}

fn shown(frame: Frame) -> Shown {
    let delay = frame.delay().numer_denom_ms();
    Shown {
        canvas: frame.into_buffer(),
        delay,
    }
}

/// GIF delays of 10 ms or less play at 100 ms in browsers (Chromium, Firefox, WebKit).
fn browser_delay((n, d): (u32, u32)) -> (u32, u32) {
    if d == 0 || u64::from(n) <= 10 * u64::from(d) {
        (100, 1)
    } else {
        (n, d)
    }
}

/// How many times a browser plays the GIF: 0 = forever.
fn gif_plays(gif: &[u8]) -> Result<u32, String> {
    let mut options = gif::DecodeOptions::new();
    options.skip_frame_decoding(true);
    let mut decoder = options
        .read_info(gif)
        .map_err(|e| format!("GIF does not decode: {e}"))?;
    while decoder
        .next_frame_info()
        .map_err(|e| format!("GIF does not decode: {e}"))?
        .is_some()
    {
        decoder
            .read_next_frame()
            .map_err(|e| format!("GIF does not decode: {e}"))?;
    }
    Ok(match decoder.repeat() {
        gif::Repeat::Infinite => 0,
        gif::Repeat::Finite(n) => u32::from(n) + 1,
    })
}

/// `Some(num_plays)` for an APNG, `None` for a still PNG.
fn png_plays(png: &[u8]) -> Result<Option<u32>, String> {
    let decoder = png::Decoder::new(Cursor::new(png));
    let reader = decoder
        .read_info()
        .map_err(|e| format!("PNG does not decode: {e}"))?;
    Ok(reader.info().animation_control().map(|a| a.num_plays))
}

/// Compares two canvases; fully transparent pixels are equal whatever their colour.
pub fn compare(expected: &RgbaImage, actual: &RgbaImage) -> Result<(), String> {
    if expected.dimensions() != actual.dimensions() {
        return Err(format!(
            "{}×{} in the GIF, {}×{} in the PNG",
            expected.width(),
            expected.height(),
            actual.width(),
            actual.height()
        ));
    }
    let differing = expected
        .pixels()
        .zip(actual.pixels())
        .enumerate()
        .find(|(_, (a, b))| a != b && !(a.0[3] == 0 && b.0[3] == 0));
    match differing {
        Some((i, (a, b))) => {
            let (x, y) = (i as u32 % expected.width(), i as u32 / expected.width());
            Err(format!(
                "pixel ({x}, {y}) is {:?} in the GIF, {:?} in the PNG",
                a.0, b.0
            ))
        }
        None => Ok(()),
    }
}
