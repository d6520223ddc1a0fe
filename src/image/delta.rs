//! Animated GIF → APNG with each frame re-cut for size, the way apngopt does it: every frame is
//! the difference between what the browser shows and what the previous frame left, cropped to
//! the rectangle that changed, and the previous frame's dispose op and this frame's blend op
//! are chosen by trial (the smallest estimate wins). The GIF's own rectangles and disposal are
//! only one of the possibilities: an optimised GIF redraws pixels that did not change, and its
//! transparent index can mean two things that APNG splits into two blend ops.
//!
//! The pictures to reproduce are the GIF's frames as a browser composites them
//! ([`super::verify::Browser`]); the result is checked afterwards like any PNG
//! ([`super::verify::same_image`], which composites the APNG by the specification, not with
//! this module's arithmetic).
//! Frames stay one for one with the GIF's (same count, same delays): an unchanged frame
//! becomes a 1×1 frame that changes nothing.
//!
//! Each chosen frame is then compressed on its own (the caller's `compress`: oxipng's filter
//! trials and deflaters at the chosen effort), and the APNG is written chunk by chunk here, so
//! that every frame gets its own filter choice (oxipng, given an APNG, uses the first frame's
//! filter for all of them and does not re-cut frames).

use image::RgbaImage;

use super::apng::{browser_delay_cs, EncodeError, Scan, TRANSPARENT};
use super::decode::{Limits, ReadError};
use super::verify::Browser;

/// One frame ready to compress: a rectangle of samples in the APNG's colour type.
pub(crate) struct FrameImage {
    pub width: u32,
    pub height: u32,
    /// One byte per pixel (palette index, not yet packed to the bit depth) or four (RGBA).
    pub samples: Vec<u8>,
}

/// The APNG's colour type: one palette for every frame, or RGBA.
pub(crate) struct Format {
    /// Palette entries (RGBA; transparent entries first), `None` for RGBA frames.
    pub palette: Option<Vec<[u8; 4]>>,
    /// Bits per palette index (1, 2, 4, 8); 8 for RGBA.
    pub depth: u8,
}

impl Format {
    fn bytes_per_pixel(&self) -> usize {
        if self.palette.is_some() {
            1
        } else {
            4
        }
    }

    /// Bytes in one packed row of `width` pixels.
    pub fn row_bytes(&self, width: u32) -> usize {
        (width as usize * self.bytes_per_pixel() * usize::from(self.depth)).div_ceil(8)
    }

    /// Rows of `image` as PNG stores them unfiltered: a filter byte, then packed samples.
    pub fn raw_rows(&self, image: &FrameImage) -> Vec<u8> {
        let width = image.width as usize;
        let per_pixel = self.bytes_per_pixel();
        let mut out = Vec::new();
        for row in image.samples.chunks(width.max(1) * per_pixel) {
            out.push(0);
            if self.depth < 8 {
                out.extend(super::apng::pack(row, image.width, self.depth));
            } else {
                out.extend_from_slice(row);
            }
        }
        out
    }
}

/// Compresses one frame: its zlib stream (filtered rows, deflated), or why not.
pub(crate) type Compress<'a> = dyn Fn(&Format, &FrameImage) -> Result<Vec<u8>, String> + 'a;

/// `gif`'s frames as a size-optimised APNG. `compress` turns one frame into its zlib stream
/// (filtered rows, deflated); `Ok(None)` when the frames cannot be expressed in the scanned
/// palette (full, without a transparent entry) — the caller then writes the GIF's own frames.
pub(crate) fn encode(
    gif: &[u8],
    scan: &Scan,
    limits: &Limits,
    compress: &Compress<'_>,
) -> Result<Option<Vec<u8>>, EncodeError> {
    let palette = match &scan.palette {
        Some(p) if p.contains(&TRANSPARENT) => Some(p.clone()),
        Some(p) if p.len() < 256 => {
            let mut p = p.clone();
            p.insert(0, TRANSPARENT);
            Some(p)
        }
        Some(_) => return Ok(None),
        None => None,
    };
    let depth = match palette.as_ref().map(Vec::len) {
        Some(0..=2) => 1,
        Some(3..=4) => 2,
        Some(5..=16) => 4,
        _ => 8,
    };
    let format = Format { palette, depth };
    let index: std::collections::HashMap<[u8; 4], u8> = format
        .palette
        .iter()
        .flatten()
        .enumerate()
        .map(|(i, c)| (*c, i as u8))
        .collect();
    let to_samples = |pixels: &[[u8; 4]]| -> Vec<u8> {
        match &format.palette {
            Some(_) => pixels
                .iter()
                .map(|c| index.get(c).copied().unwrap_or(0))
                .collect(),
            None => pixels.iter().flatten().copied().collect(),
        }
    };
    let read = |e: ReadError| EncodeError::Read(e);

    let mut browser = Browser::open(gif, limits).map_err(read)?;
    let (width, height) = (browser.canvas.width(), browser.canvas.height());
    let mut frames: Vec<Planned> = Vec::with_capacity(scan.frames);
    // The canvas before the previous frame was drawn, and after.
    let mut before_prev = RgbaImage::new(width, height);
    let mut prev: Option<RgbaImage> = None;
    while let Some((delay_ms, _)) = browser.next().map_err(read)? {
        let delay_cs = browser_delay_cs((delay_ms / 10) as u16);
        let target = browser.canvas.clone();
        let Some(shown) = prev.take() else {
            let whole = (0, 0, width, height);
            let samples = to_samples(&crop(&target, whole));
            let image = FrameImage {
                width,
                height,
                samples,
            };
            frames.push(Planned {
                rect: whole,
                blend: png::BlendOp::Source,
                dispose: png::DisposeOp::None,
                delay_cs,
                data: compress(&format, &image).map_err(EncodeError::Png)?,
            });
            prev = Some(target);
            continue;
        };
        let last = frames.last_mut().expect("a first frame");
        // What the previous frame's dispose op leaves for this one to draw on.
        let mut cleared = shown.clone();
        clear(&mut cleared, last.rect);
        let mut bases = vec![
            (png::DisposeOp::None, &shown),
            (png::DisposeOp::Background, &cleared),
        ];
        if frames.len() > 1 {
            bases.push((png::DisposeOp::Previous, &before_prev));
        }
        let mut best: Option<(usize, png::DisposeOp, Cut)> = None;
        for (op, base) in bases {
            for (blend, pixels, rect) in candidates(base, &target) {
                if format.palette.is_some() && pixels.iter().any(|c| !index.contains_key(c)) {
                    continue;
                }
                let image = FrameImage {
                    width: rect.2,
                    height: rect.3,
                    samples: to_samples(&pixels),
                };
                let size = estimate(&format, &image);
                if best.as_ref().is_none_or(|(s, _, _)| size < *s) {
                    best = Some((size, op, (rect, blend, image)));
                }
            }
        }
        let Some((_, op, (rect, blend, image))) = best else {
            // Nothing fits the palette (cannot happen with a transparent entry).
            return Ok(None);
        };
        let last = frames.last_mut().expect("a first frame");
        last.dispose = op;
        before_prev = match op {
            png::DisposeOp::None => shown,
            png::DisposeOp::Background => cleared,
            png::DisposeOp::Previous => before_prev,
        };
        // Compressed at once: memory holds the compressed frames and a few canvases, never
        // the animation's pixels.
        frames.push(Planned {
            rect,
            blend,
            dispose: png::DisposeOp::None,
            delay_cs,
            data: compress(&format, &image).map_err(EncodeError::Png)?,
        });
        prev = Some(target);
    }
    if frames.len() != scan.frames {
        return Err(EncodeError::Read(ReadError::Corrupt(format!(
            "{} frames read, {} scanned",
            frames.len(),
            scan.frames
        ))));
    }
    Ok(Some(write((width, height), scan.plays, &format, &frames)))
}

/// A frame as it will be written.
struct Planned {
    /// x, y, width, height on the canvas.
    rect: (u32, u32, u32, u32),
    blend: png::BlendOp,
    /// Decided when the next frame is planned.
    dispose: png::DisposeOp,
    delay_cs: u16,
    /// The frame's zlib stream, from `compress`.
    data: Vec<u8>,
}

/// A frame chosen but not compressed yet: rectangle, blend op, samples.
type Cut = ((u32, u32, u32, u32), png::BlendOp, FrameImage);

/// The ways to draw `target` on `base`: the changed rectangle copied (`SOURCE`), and, when no
/// pixel there turns transparent, the changed pixels alone over transparent ones (`OVER`).
/// An unchanged canvas gives a 1×1 frame at the origin.
type Candidate = (png::BlendOp, Vec<[u8; 4]>, (u32, u32, u32, u32));

fn candidates(base: &RgbaImage, target: &RgbaImage) -> Vec<Candidate> {
    let rect = changed(base, target).unwrap_or((0, 0, 1, 1));
    let source = crop(target, rect);
    let (x0, y0, w, h) = rect;
    let mut over = Vec::with_capacity(source.len());
    let mut over_ok = true;
    for y in y0..y0 + h {
        for x in x0..x0 + w {
            let (b, t) = (base.get_pixel(x, y).0, target.get_pixel(x, y).0);
            if same(b, t) {
                over.push(TRANSPARENT);
            } else if t[3] == 0 {
                over_ok = false;
                break;
            } else {
                over.push(t);
            }
        }
        if !over_ok {
            break;
        }
    }
    let mut out = vec![(png::BlendOp::Source, source, rect)];
    if over_ok {
        out.push((png::BlendOp::Over, over, rect));
    }
    out
}

/// Two pixels look the same: equal, or both fully transparent.
fn same(a: [u8; 4], b: [u8; 4]) -> bool {
    a == b || (a[3] == 0 && b[3] == 0)
}

/// The smallest rectangle holding every pixel that differs; `None` when none does.
fn changed(a: &RgbaImage, b: &RgbaImage) -> Option<(u32, u32, u32, u32)> {
    let (w, h) = a.dimensions();
    let (mut x0, mut y0, mut x1, mut y1) = (w, h, 0, 0);
    for y in 0..h {
        for x in 0..w {
            if !same(a.get_pixel(x, y).0, b.get_pixel(x, y).0) {
                x0 = x0.min(x);
                y0 = y0.min(y);
                x1 = x1.max(x + 1);
                y1 = y1.max(y + 1);
            }
        }
    }
    (x1 > x0).then(|| (x0, y0, x1 - x0, y1 - y0))
}

fn crop(image: &RgbaImage, (x0, y0, w, h): (u32, u32, u32, u32)) -> Vec<[u8; 4]> {
    let mut out = Vec::with_capacity(w as usize * h as usize);
    for y in y0..y0 + h {
        for x in x0..x0 + w {
            out.push(image.get_pixel(x, y).0);
        }
    }
    out
}

fn clear(image: &mut RgbaImage, (x0, y0, w, h): (u32, u32, u32, u32)) {
    for y in y0..y0 + h {
        for x in x0..x0 + w {
            image.put_pixel(x, y, image::Rgba(TRANSPARENT));
        }
    }
}

/// A quick size estimate to rank candidates: unfiltered rows, deflated at zlib level 6.
fn estimate(format: &Format, image: &FrameImage) -> usize {
    crate::deflate::zlib(&format.raw_rows(image), 6).len()
}

/// The APNG, chunk by chunk.
fn write((width, height): (u32, u32), plays: u32, format: &Format, frames: &[Planned]) -> Vec<u8> {
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = Vec::with_capacity(13);
    ihdr.extend_from_slice(&width.to_be_bytes());
    ihdr.extend_from_slice(&height.to_be_bytes());
    let color_type = if format.palette.is_some() { 3 } else { 6 };
    ihdr.extend_from_slice(&[format.depth, color_type, 0, 0, 0]);
    super::chunks::write(&mut out, b"IHDR", &ihdr);
    let mut actl = (frames.len() as u32).to_be_bytes().to_vec();
    actl.extend_from_slice(&plays.to_be_bytes());
    super::chunks::write(&mut out, b"acTL", &actl);
    if let Some(palette) = &format.palette {
        let plte: Vec<u8> = palette.iter().flat_map(|c| [c[0], c[1], c[2]]).collect();
        super::chunks::write(&mut out, b"PLTE", &plte);
        let trns: Vec<u8> = palette
            .iter()
            .map(|c| c[3])
            .take_while(|a| *a < 255)
            .collect();
        if !trns.is_empty() {
            super::chunks::write(&mut out, b"tRNS", &trns);
        }
    }
    let mut sequence = 0u32;
    for (n, frame) in frames.iter().enumerate() {
        let data = &frame.data;
        let (x, y, w, h) = frame.rect;
        let mut fctl = sequence.to_be_bytes().to_vec();
        sequence += 1;
        for v in [w, h, x, y] {
            fctl.extend_from_slice(&v.to_be_bytes());
        }
        fctl.extend_from_slice(&frame.delay_cs.to_be_bytes());
        fctl.extend_from_slice(&100u16.to_be_bytes());
        fctl.push(frame.dispose as u8);
        fctl.push(frame.blend as u8);
        super::chunks::write(&mut out, b"fcTL", &fctl);
        if n == 0 {
            super::chunks::write(&mut out, b"IDAT", data);
        } else {
            let mut fdat = sequence.to_be_bytes().to_vec();
            sequence += 1;
            fdat.extend_from_slice(data);
            super::chunks::write(&mut out, b"fdAT", &fdat);
        }
    }
    super::chunks::write(&mut out, b"IEND", &[]);
    out
}
