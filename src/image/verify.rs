//! Proves a PNG/APNG shows exactly what its GIF shows in a browser. The PNG side is decoded
//! again by the `image` crate's PNG and APNG decoders, independently of our writer. The GIF
//! side is the browser's picture: frames read by [`decode::Reader`] (Chromium's canvas, clipping
//! and palette rules, checked against Chromium by the render-check tests) and composited here
//! the way browsers do, independently of the APNG writer's sub-rectangles, palette, blend and
//! dispose operations. Both are compared frame by frame as RGBA canvases, with the time each
//! frame stays on screen and the number of plays.
//!
//! Compositing as browsers do it: the canvas starts transparent (the background colour is
//! ignored); a frame's transparent pixels leave the canvas as it was; after a frame is shown,
//! "restore to background" clears its rectangle to transparent and "restore to previous" puts
//! back what its rectangle held before it was drawn (on the first frame: transparent).
//!
//! Fully transparent pixels compare equal whatever their colour. Delays compare as a browser
//! plays them (GIF delays of 0–1 cs play at 100 ms). Frames are streamed in lockstep, so
//! memory holds a few canvases at a time, not the whole animation.

use std::io::Cursor;

use gif::DisposalMethod;
use image::codecs::png::PngDecoder;
use image::{AnimationDecoder, DynamicImage, Frame, Rgba, RgbaImage};

use super::decode::{self, Limits, ReadError, Reader};

/// A composited frame of the PNG and how long it stays on screen, in milliseconds as a
/// fraction.
struct Shown {
    canvas: RgbaImage,
    delay: (u32, u32),
}

/// The GIF's frames as a browser composites them.
struct Browser<'a> {
    reader: Reader<'a>,
    canvas: RgbaImage,
    /// What to do to the canvas before the next frame is drawn.
    dispose: Option<(DisposalMethod, decode::Frame, Option<RgbaImage>)>,
}

impl Browser<'_> {
    /// Composites the next frame; returns how long it is shown (ms as a fraction), the canvas
    /// then being what the browser shows.
    fn next(&mut self) -> Result<Option<(u32, u32)>, ReadError> {
        if let Some((method, frame, saved)) = self.dispose.take() {
            match (method, saved) {
                (DisposalMethod::Background, _) => fill(&mut self.canvas, &frame, None),
                (DisposalMethod::Previous, Some(saved)) => {
                    fill(&mut self.canvas, &frame, Some(&saved))
                }
                _ => {}
            }
        }
        let Some(frame) = self.reader.next_frame()? else {
            return Ok(None);
        };
        let saved = (frame.dispose == DisposalMethod::Previous).then(|| self.canvas.clone());
        let (x0, y0, w) = (frame.left, frame.top, frame.width.max(1));
        for (i, &p) in frame.pixels.iter().enumerate() {
            let color = frame.colors[usize::from(p)];
            if color[3] != 0 {
                let (x, y) = (x0 + i as u32 % w, y0 + i as u32 / w);
                self.canvas.put_pixel(x, y, Rgba(color));
            }
        }
        let delay = (u32::from(frame.delay_cs) * 10, 1);
        self.dispose = Some((frame.dispose, frame, saved));
        Ok(Some(delay))
    }
}

/// Sets the frame's rectangle of `canvas` to transparent, or to what `saved` holds there.
fn fill(canvas: &mut RgbaImage, frame: &decode::Frame, saved: Option<&RgbaImage>) {
    for y in frame.top..frame.top + frame.height {
        for x in frame.left..frame.left + frame.width {
            let p = saved.map_or(Rgba([0, 0, 0, 0]), |s| *s.get_pixel(x, y));
            canvas.put_pixel(x, y, p);
        }
    }
}

/// `Ok` when `png` decodes to the same frames, timing and plays as `gif` shows in a browser;
/// otherwise why not.
pub fn same_image(gif: &[u8], png: &[u8], limits: &Limits) -> Result<(), String> {
    let image_limits = {
        let mut l = image::Limits::default();
        l.max_alloc = Some(limits.max_canvas_pixels.saturating_mul(4 * 4));
        l
    };
    let gif_error = |e: ReadError| match e {
        ReadError::Corrupt(why) | ReadError::TooLarge(why) => format!("GIF does not decode: {why}"),
    };
    let reader = Reader::open(gif, limits).map_err(gif_error)?;
    let canvas = RgbaImage::new(reader.width, reader.height);
    let mut gif_frames = Browser {
        reader,
        canvas,
        dispose: None,
    };

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
    while let Some(gif_delay) = gif_frames
        .next()
        .map_err(|e| format!("GIF frame {count}: {}", gif_error(e)))?
    {
        let png_frame = png_frames
            .next()
            .ok_or_else(|| format!("the PNG has {count} frames, the GIF more"))??;
        compare(&gif_frames.canvas, &png_frame.canvas)
            .map_err(|e| format!("frame {count}: {e}"))?;
        if animation.is_some() {
            let (gn, gd) = browser_delay(gif_delay);
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
    let gif_plays = gif_frames.reader.plays();
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
