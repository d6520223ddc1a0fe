//! Proves a PNG/APNG shows exactly what its GIF shows in a browser. The PNG side is decoded
//! again by the `png` crate (frames expanded to 8-bit samples) and composited here as the APNG
//! specification says, independently of our writer. (Not by the `image` crate's APNG decoder:
//! after a frame disposed to background, it restores "previous" to the canvas from before that
//! disposal, and so rejected correct APNGs; found by the GIF property test.) The GIF
//! side is the browser's picture: frames read by `decode::Reader` (Chromium's canvas, clipping
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
use image::{Rgba, RgbaImage};

use super::decode::{self, Limits, ReadError, Reader};

/// The GIF's frames as a browser composites them. Also what the APNG writer (`delta`) takes
/// as the pictures to reproduce; the check of its output ([`same_image`]) composites the APNG
/// independently.
pub(crate) struct Browser<'a> {
    reader: Reader<'a>,
    /// What the browser shows after the last frame returned by [`Browser::next`].
    pub canvas: RgbaImage,
    /// What to do to the canvas before the next frame is drawn.
    dispose: Option<(DisposalMethod, decode::Frame, Option<RgbaImage>)>,
}

impl<'a> Browser<'a> {
    pub fn open(gif: &'a [u8], limits: &Limits) -> Result<Browser<'a>, ReadError> {
        let reader = Reader::open(gif, limits)?;
        let canvas = RgbaImage::new(reader.width, reader.height);
        Ok(Browser {
            reader,
            canvas,
            dispose: None,
        })
    }

    /// Composites the next frame; returns how long it is shown (ms as a fraction), the canvas
    /// then being what the browser shows.
    pub fn next(&mut self) -> Result<Option<(u32, u32)>, ReadError> {
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

    /// How many times a browser plays the GIF (0: forever); final after the last frame.
    pub fn plays(&self) -> u32 {
        self.reader.plays()
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

/// The PNG's frames as a browser composites them (APNG specification, section 4.3 and 4.4).
struct Apng<'a> {
    reader: png::Reader<Cursor<&'a [u8]>>,
    canvas: RgbaImage,
    buffer: Vec<u8>,
    animated: bool,
    /// Frames left to read.
    left: u32,
    /// Frames composited so far.
    shown: usize,
    /// What to do to the canvas before the next frame.
    dispose: Option<Disposal>,
}

/// A frame's region of the canvas, its dispose op, and what the region held before the frame
/// was drawn (for `PREVIOUS`).
struct Disposal {
    region: (u32, u32, u32, u32),
    op: png::DisposeOp,
    saved: Option<RgbaImage>,
}

impl<'a> Apng<'a> {
    fn open(png_bytes: &'a [u8], limits: &Limits) -> Result<Apng<'a>, String> {
        let bytes =
            usize::try_from(limits.max_canvas_pixels.saturating_mul(4 * 4)).unwrap_or(usize::MAX);
        let mut decoder =
            png::Decoder::new_with_limits(Cursor::new(png_bytes), png::Limits { bytes });
        decoder.set_transformations(png::Transformations::normalize_to_color8());
        let reader = decoder
            .read_info()
            .map_err(|e| format!("PNG does not decode: {e}"))?;
        let (width, height) = reader.info().size();
        if u64::from(width) * u64::from(height) > limits.max_canvas_pixels {
            return Err(format!("the PNG is {width}×{height}, over the limit"));
        }
        let (animated, left) = match reader.info().animation_control() {
            Some(a) => (true, a.num_frames),
            None => (false, 1),
        };
        let size = reader
            .output_buffer_size()
            .ok_or_else(|| "the PNG's frame size overflows".to_string())?;
        Ok(Apng {
            canvas: RgbaImage::new(width, height),
            buffer: vec![0; size],
            reader,
            animated,
            left,
            shown: 0,
            dispose: None,
        })
    }

    /// Composites the next frame; returns how long it is shown (ms as a fraction).
    fn next(&mut self) -> Result<Option<(u32, u32)>, String> {
        if let Some(Disposal {
            region: (x0, y0, w, h),
            op,
            saved,
        }) = self.dispose.take()
        {
            for y in y0..y0 + h {
                for x in x0..x0 + w {
                    let p = match (&op, &saved) {
                        (png::DisposeOp::Previous, Some(saved)) => *saved.get_pixel(x - x0, y - y0),
                        (png::DisposeOp::None, _) => continue,
                        _ => Rgba([0, 0, 0, 0]),
                    };
                    self.canvas.put_pixel(x, y, p);
                }
            }
        }
        loop {
            if self.left == 0 {
                return Ok(None);
            }
            let info = self
                .reader
                .next_frame(&mut self.buffer)
                .map_err(|e| format!("PNG does not decode: {e}"))?;
            let control = self.reader.info().frame_control().copied();
            if self.animated && control.is_none() {
                // A default image that is not part of the animation.
                continue;
            }
            self.left -= 1;
            let (x0, y0, blend, op, delay) = match control {
                Some(fc) => {
                    let den = if fc.delay_den == 0 {
                        100
                    } else {
                        u32::from(fc.delay_den)
                    };
                    (
                        fc.x_offset,
                        fc.y_offset,
                        fc.blend_op,
                        fc.dispose_op,
                        (u32::from(fc.delay_num) * 1000, den),
                    )
                }
                None => (0, 0, png::BlendOp::Source, png::DisposeOp::None, (0, 1)),
            };
            let (w, h) = (info.width, info.height);
            if x0.checked_add(w).is_none_or(|r| r > self.canvas.width())
                || y0.checked_add(h).is_none_or(|b| b > self.canvas.height())
            {
                return Err("an APNG frame lies outside the canvas".to_string());
            }
            let saved = (op == png::DisposeOp::Previous)
                .then(|| image::imageops::crop_imm(&self.canvas, x0, y0, w, h).to_image());
            let channels = info.color_type.samples();
            for y in 0..h {
                let row = &self.buffer[y as usize * info.line_size..][..w as usize * channels];
                for (x, s) in row.chunks_exact(channels).enumerate() {
                    let src = match s {
                        [v] => [*v, *v, *v, 255],
                        [v, a] => [*v, *v, *v, *a],
                        [r, g, b] => [*r, *g, *b, 255],
                        [r, g, b, a] => [*r, *g, *b, *a],
                        _ => return Err("unexpected PNG samples".to_string()),
                    };
                    let at = (x0 + x as u32, y0 + y);
                    let out = match blend {
                        png::BlendOp::Source => src,
                        png::BlendOp::Over => over(src, self.canvas.get_pixel(at.0, at.1).0),
                    };
                    self.canvas.put_pixel(at.0, at.1, Rgba(out));
                }
            }
            // The first frame's PREVIOUS acts as BACKGROUND.
            let first = self.shown == 0;
            self.shown += 1;
            let op = if first && op == png::DisposeOp::Previous {
                png::DisposeOp::Background
            } else {
                op
            };
            self.dispose = Some(Disposal {
                region: (x0, y0, w, h),
                op,
                saved,
            });
            return Ok(Some(delay));
        }
    }
}

/// `src` drawn over `dst` (straight alpha, 8 bits). Also the WebP check's blend.
pub(crate) fn over(src: [u8; 4], dst: [u8; 4]) -> [u8; 4] {
    match (src[3], dst[3]) {
        (255, _) | (_, 0) => src,
        (0, _) => dst,
        (sa, da) => {
            let (sa, da) = (u32::from(sa), u32::from(da));
            let a = sa * 255 + da * (255 - sa);
            let mix = |s: u8, d: u8| {
                ((u32::from(s) * sa * 255 + u32::from(d) * da * (255 - sa) + a / 2) / a) as u8
            };
            [
                mix(src[0], dst[0]),
                mix(src[1], dst[1]),
                mix(src[2], dst[2]),
                ((a + 127) / 255) as u8,
            ]
        }
    }
}

/// `Ok` when `png` decodes to the same frames, timing and plays as `gif` shows in a browser;
/// otherwise why not.
pub fn same_image(gif: &[u8], png: &[u8], limits: &Limits) -> Result<(), String> {
    let gif_error = |e: ReadError| match e {
        ReadError::Corrupt(why) | ReadError::TooLarge(why) => format!("GIF does not decode: {why}"),
    };
    let mut gif_frames = Browser::open(gif, limits).map_err(gif_error)?;
    let mut png_frames = Apng::open(png, limits)?;
    let animation = png_frames
        .reader
        .info()
        .animation_control()
        .map(|a| a.num_plays);
    let mut count = 0usize;
    while let Some(gif_delay) = gif_frames
        .next()
        .map_err(|e| format!("GIF frame {count}: {}", gif_error(e)))?
    {
        let png_delay = png_frames
            .next()?
            .ok_or_else(|| format!("the PNG has {count} frames, the GIF more"))?;
        compare(&gif_frames.canvas, &png_frames.canvas)
            .map_err(|e| format!("frame {count}: {e}"))?;
        if animation.is_some() {
            let (gn, gd) = browser_delay(gif_delay);
            let (pn, pd) = png_delay;
            if u64::from(gn) * u64::from(pd) != u64::from(pn) * u64::from(gd) {
                return Err(format!(
                    "frame {count}: shown {gn}/{gd} ms in the GIF, {pn}/{pd} ms in the APNG"
                ));
            }
        }
        count += 1;
    }
    if png_frames.next()?.is_some() {
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

/// `Ok` when the APNG `after` shows the same frames for the same time, as often, as the APNG
/// `before` (both composited as the APNG specification says, at 8 bits per channel); otherwise
/// why not. For recompressed APNGs (`recompress.rs`).
pub(crate) fn same_animation(before: &[u8], after: &[u8], limits: &Limits) -> Result<(), String> {
    let mut a = Apng::open(before, limits).map_err(|e| format!("the original: {e}"))?;
    let mut b = Apng::open(after, limits).map_err(|e| format!("the new APNG: {e}"))?;
    let plays = |f: &Apng<'_>| f.reader.info().animation_control().map(|a| a.num_plays);
    if plays(&a) != plays(&b) {
        return Err(format!(
            "plays {:?} before, {:?} after",
            plays(&a),
            plays(&b)
        ));
    }
    let mut count = 0usize;
    loop {
        match (a.next()?, b.next()?) {
            (None, None) => return Ok(()),
            (Some(da), Some(db)) => {
                if u64::from(da.0) * u64::from(db.1) != u64::from(db.0) * u64::from(da.1) {
                    return Err(format!("frame {count}: shown {da:?} before, {db:?} after"));
                }
                compare(&a.canvas, &b.canvas).map_err(|e| format!("frame {count}: {e}"))?;
            }
            _ => return Err(format!("the frame counts differ after frame {count}")),
        }
        count += 1;
    }
}

fn plays_text(plays: u32) -> String {
    if plays == 0 {
        "forever".to_string()
    } else {
        plays.to_string()
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
