//! Writes decoded GIF frames as a PNG (one frame) or an APNG (several), with the `png` crate.
//!
//! Frames stay sub-rectangles with palette indices (a full-canvas RGBA APNG of a 544 KB GIF
//! was 42 MB). The colours of all frames are merged into one palette (GIF frames may each have
//! their own colour table and transparent index; an APNG has one PLTE/tRNS); past 256
//! distinct colours the frames are written as RGBA sub-rectangles instead.
//!
//! GIF → APNG differences handled here (see `docs/images.md`):
//! - the first APNG frame must cover the canvas: it is padded with transparent pixels, which
//!   is what the GIF shows there (browsers start from a transparent canvas);
//! - GIF delays of 0 and 1 cs play at 100 ms in browsers but mean "as fast as possible" in
//!   APNG: they are written as 10 cs;
//! - a frame with no visible pixels (zero-size, or outside the screen; already clipped by
//!   `decode`) becomes a 1×1 fully transparent frame blended OVER and not disposed, which
//!   changes nothing on screen and keeps its delay;
//! - disposal: keep/unspecified → NONE, restore to background → BACKGROUND (browsers clear to
//!   transparent, as APNG does), restore to previous → PREVIOUS;
//! - blend: OVER when the frame has transparent pixels, SOURCE otherwise (identical then);
//! - loop count: NETSCAPE `n` → `num_plays = n + 1`, 0 → forever, none → played once.

use std::collections::{HashMap, HashSet};

use gif::DisposalMethod;
use png::{BitDepth, BlendOp, ColorType, Compression, DisposeOp};

use super::decode::{Frame, Gif};

const TRANSPARENT: [u8; 4] = [0, 0, 0, 0];

/// The delay a browser plays a GIF frame for, in hundredths of a second.
pub(crate) fn browser_delay_cs(delay_cs: u16) -> u16 {
    if delay_cs <= 1 {
        10
    } else {
        delay_cs
    }
}

/// Encodes a decoded GIF as PNG or APNG (unoptimised; oxipng runs afterwards).
/// Interlacing, when asked for, is applied by oxipng afterwards.
pub(crate) fn encode(gif: &Gif) -> Result<Vec<u8>, String> {
    let animated = gif.frames.len() > 1;
    let mut colors: Vec<[u8; 4]> = Vec::new();
    let mut seen: HashSet<[u8; 4]> = HashSet::new();
    let first = &gif.frames[0];
    let needs_transparent = !covers(first, gif) || (animated && gif.frames.iter().any(is_empty));
    if needs_transparent {
        seen.insert(TRANSPARENT);
        colors.push(TRANSPARENT);
    }
    let frames: &[Frame] = if animated {
        &gif.frames
    } else {
        &gif.frames[..1]
    };
    let mut overflow = false;
    'frames: for frame in frames {
        let mut used = [false; 256];
        for &p in &frame.pixels {
            used[usize::from(p)] = true;
        }
        for (i, _) in used.iter().enumerate().filter(|(_, u)| **u) {
            let c = frame.colors[i];
            if seen.insert(c) {
                if colors.len() == 256 {
                    overflow = true;
                    break 'frames;
                }
                colors.push(c);
            }
        }
    }
    // Transparent entries first keeps tRNS short.
    let palette = if overflow {
        None
    } else {
        let mut order: Vec<[u8; 4]> = colors.clone();
        order.sort_by_key(|c| c[3] == 255);
        Some(order)
    };
    let index: HashMap<[u8; 4], u8> = palette
        .iter()
        .flatten()
        .enumerate()
        .map(|(i, c)| (*c, i as u8))
        .collect();

    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, gif.width, gif.height);
    encoder.set_compression(Compression::Fast);
    let depth = match &palette {
        Some(p) => {
            let mut plte = Vec::with_capacity(p.len() * 3);
            for c in p {
                plte.extend_from_slice(&c[..3]);
            }
            let trns: Vec<u8> = p.iter().map(|c| c[3]).take_while(|a| *a < 255).collect();
            encoder.set_color(ColorType::Indexed);
            let depth = match p.len() {
                0..=2 => 1,
                3..=4 => 2,
                5..=16 => 4,
                _ => 8,
            };
            encoder.set_depth(match depth {
                1 => BitDepth::One,
                2 => BitDepth::Two,
                4 => BitDepth::Four,
                _ => BitDepth::Eight,
            });
            encoder.set_palette(plte);
            if !trns.is_empty() {
                encoder.set_trns(trns);
            }
            depth
        }
        None => {
            encoder.set_color(ColorType::Rgba);
            encoder.set_depth(BitDepth::Eight);
            8
        }
    };
    let err = |e: png::EncodingError| e.to_string();
    if animated {
        encoder
            .set_animated(frames.len() as u32, gif.plays)
            .map_err(err)?;
    }
    let mut writer = encoder.write_header().map_err(err)?;
    let pixels = |frame: &Frame, w: u32, h: u32, x0: u32, y0: u32| -> Vec<u8> {
        // Row-major samples of a w×h window at (x0, y0) of the canvas, the frame drawn in it.
        let mut samples =
            Vec::with_capacity((w * h) as usize * if palette.is_some() { 1 } else { 4 });
        for y in y0..y0 + h {
            for x in x0..x0 + w {
                let inside = x >= frame.left
                    && y >= frame.top
                    && x < frame.left + frame.width
                    && y < frame.top + frame.height;
                let color = if inside {
                    let i = ((y - frame.top) * frame.width + (x - frame.left)) as usize;
                    frame.colors[usize::from(frame.pixels[i])]
                } else {
                    TRANSPARENT
                };
                match &palette {
                    Some(_) => samples.push(index[&color]),
                    None => samples.extend_from_slice(&color),
                }
            }
        }
        samples
    };
    for (n, frame) in frames.iter().enumerate() {
        let (x, y, w, h, data, blend, dispose) = if n == 0 {
            let data = pixels(frame, gif.width, gif.height, 0, 0);
            (
                0,
                0,
                gif.width,
                gif.height,
                data,
                BlendOp::Source,
                dispose_op(frame.dispose),
            )
        } else if is_empty(frame) {
            let data = match &palette {
                Some(_) => vec![index[&TRANSPARENT]],
                None => TRANSPARENT.to_vec(),
            };
            (0, 0, 1, 1, data, BlendOp::Over, DisposeOp::None)
        } else {
            let data = pixels(frame, frame.width, frame.height, frame.left, frame.top);
            let has_transparent = frame
                .pixels
                .iter()
                .any(|&p| frame.colors[usize::from(p)][3] == 0);
            let blend = if has_transparent {
                BlendOp::Over
            } else {
                BlendOp::Source
            };
            (
                frame.left,
                frame.top,
                frame.width,
                frame.height,
                data,
                blend,
                dispose_op(frame.dispose),
            )
        };
        if animated {
            writer.reset_frame_position().map_err(err)?;
            writer.set_frame_dimension(w, h).map_err(err)?;
            writer.set_frame_position(x, y).map_err(err)?;
            writer
                .set_frame_delay(browser_delay_cs(frame.delay_cs), 100)
                .map_err(err)?;
            writer.set_blend_op(blend).map_err(err)?;
            writer.set_dispose_op(dispose).map_err(err)?;
        }
        let data = if depth < 8 {
            pack(&data, w, depth)
        } else {
            data
        };
        writer.write_image_data(&data).map_err(err)?;
    }
    writer.finish().map_err(err)?;
    Ok(out)
}

fn dispose_op(d: DisposalMethod) -> DisposeOp {
    match d {
        DisposalMethod::Any | DisposalMethod::Keep => DisposeOp::None,
        DisposalMethod::Background => DisposeOp::Background,
        DisposalMethod::Previous => DisposeOp::Previous,
    }
}

fn is_empty(frame: &Frame) -> bool {
    frame.width == 0 || frame.height == 0
}

fn covers(frame: &Frame, gif: &Gif) -> bool {
    frame.left == 0 && frame.top == 0 && frame.width == gif.width && frame.height == gif.height
}

/// Packs 8-bit indices into 1-, 2- or 4-bit samples, each row starting on a byte.
fn pack(indices: &[u8], width: u32, depth: u8) -> Vec<u8> {
    let per_byte = (8 / depth) as usize;
    let width = width as usize;
    let row_bytes = width.div_ceil(per_byte);
    let mut out = Vec::with_capacity(row_bytes * indices.len() / width.max(1));
    for row in indices.chunks(width) {
        for chunk in row.chunks(per_byte) {
            let mut byte = 0u8;
            for (i, &v) in chunk.iter().enumerate() {
                byte |= v << (8 - depth as usize * (i + 1));
            }
            out.push(byte);
        }
    }
    out
}
