//! Writes decoded GIF frames as a PNG (one frame) or an APNG (several), with the `png` crate.
//!
//! Frames stay sub-rectangles with palette indices (a full-canvas RGBA APNG of a 544 KB GIF
//! was 42 MB). The colours of all frames are merged into one palette (GIF frames may each have
//! their own colour table and transparent index; an APNG has one PLTE/tRNS); past 256
//! distinct colours the frames are written as RGBA sub-rectangles instead. The GIF is read
//! twice, one frame at a time ([`scan`] for the palette and counts, then [`encode`]), so memory
//! holds one frame and the canvas-sized first frame, never the whole animation.
//!
//! GIF → APNG differences handled here (see `docs/images.md`):
//! - the first APNG frame must cover the canvas: it is padded with transparent pixels, which
//!   is what the GIF shows there (browsers start from a transparent canvas);
//! - GIF delays of 0 and 1 cs play at 100 ms in browsers but mean "as fast as possible" in
//!   APNG: they are written as 10 cs;
//! - a frame with no visible pixels (zero-size, or outside the canvas; already clipped by
//!   `decode`) becomes a 1×1 fully transparent frame blended OVER and not disposed, which
//!   changes nothing on screen and keeps its delay;
//! - disposal: keep/unspecified → NONE, restore to background → BACKGROUND (browsers clear to
//!   transparent, as APNG does), restore to previous → PREVIOUS;
//! - blend: OVER when the frame has transparent pixels, SOURCE otherwise (identical then);
//! - loop count: NETSCAPE `n` → `num_plays = n + 1`, 0 → forever, none → played once.

use std::collections::{HashMap, HashSet};

use gif::DisposalMethod;
use png::{BitDepth, BlendOp, ColorType, Compression, DisposeOp};

use super::decode::{Frame, Limits, ReadError, Reader};

pub(crate) const TRANSPARENT: [u8; 4] = [0, 0, 0, 0];

/// The delay a browser plays a GIF frame for, in hundredths of a second.
pub(crate) fn browser_delay_cs(delay_cs: u16) -> u16 {
    if delay_cs <= 1 {
        10
    } else {
        delay_cs
    }
}

/// What a first pass over the GIF learns before anything is written: the APNG's header needs
/// the frame count and play count, and its one palette needs every frame's colours. Frames are
/// decoded and dropped one by one, so memory holds one frame, never the animation.
#[derive(Debug)]
pub(crate) struct Scan {
    pub width: u32,
    pub height: u32,
    pub frames: usize,
    pub plays: u32,
    /// The merged palette, transparent entries first; `None` past 256 colours (RGBA frames).
    pub palette: Option<Vec<[u8; 4]>>,
}

/// Reads every frame once (the first only, when `animated` is false) and merges their colours.
pub(crate) fn scan(gif: &[u8], limits: &Limits, animated: bool) -> Result<Scan, ReadError> {
    let mut reader = Reader::open(gif, limits)?;
    let mut colors: Vec<[u8; 4]> = Vec::new();
    let mut seen: HashSet<[u8; 4]> = HashSet::new();
    let mut overflow = false;
    let mut frames = 0;
    while let Some(frame) = reader.next_frame()? {
        // The padding around the first frame, and the 1×1 stand-in for a frame with no visible
        // pixels, are transparent.
        let padded = frames == 0 && !covers(&frame, reader.width, reader.height);
        if (padded || (frames > 0 && is_empty(&frame))) && seen.insert(TRANSPARENT) {
            colors.push(TRANSPARENT);
        }
        if !overflow {
            let mut used = [false; 256];
            for &p in &frame.pixels {
                used[usize::from(p)] = true;
            }
            for (i, _) in used.iter().enumerate().filter(|(_, u)| **u) {
                let c = frame.colors[i];
                if seen.insert(c) {
                    colors.push(c);
                }
            }
            overflow = colors.len() > 256;
        }
        frames += 1;
        if !animated {
            break;
        }
    }
    // Transparent entries first keeps tRNS short.
    let palette = (!overflow).then(|| {
        colors.sort_by_key(|c| c[3] == 255);
        colors
    });
    Ok(Scan {
        width: reader.width,
        height: reader.height,
        frames,
        plays: reader.plays(),
        palette,
    })
}

/// Why [`encode`] failed.
#[derive(Debug)]
pub(crate) enum EncodeError {
    /// The GIF read differently the second time (it cannot, short of a bug).
    Read(ReadError),
    Png(String),
}

/// Encodes the GIF as PNG (one frame) or APNG (several), from its [`Scan`], reading the frames
/// a second time, one at a time (unoptimised; oxipng runs afterwards, and interlacing, when
/// asked for, is applied by oxipng).
pub(crate) fn encode(gif: &[u8], scan: &Scan, limits: &Limits) -> Result<Vec<u8>, EncodeError> {
    let animated = scan.frames > 1;
    let index: HashMap<[u8; 4], u8> = scan
        .palette
        .iter()
        .flatten()
        .enumerate()
        .map(|(i, c)| (*c, i as u8))
        .collect();
    let err = |e: png::EncodingError| EncodeError::Png(e.to_string());

    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, scan.width, scan.height);
    encoder.set_compression(Compression::Fast);
    let depth = match &scan.palette {
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
    if animated {
        encoder
            .set_animated(scan.frames as u32, scan.plays)
            .map_err(err)?;
    }
    let mut writer = encoder.write_header().map_err(err)?;
    let mut reader = Reader::open(gif, limits).map_err(EncodeError::Read)?;
    let mut n = 0;
    while n < scan.frames {
        let frame = reader
            .next_frame()
            .map_err(EncodeError::Read)?
            .ok_or_else(|| EncodeError::Read(ReadError::Corrupt(format!("frame {n} vanished"))))?;
        // Samples for each of the frame's 256 indices: one palette index, or RGBA.
        let sample: Vec<[u8; 4]> = frame
            .colors
            .iter()
            .map(|c| match &scan.palette {
                Some(_) => [index.get(c).copied().unwrap_or(0), 0, 0, 0],
                None => *c,
            })
            .collect();
        let bytes_per = if scan.palette.is_some() { 1 } else { 4 };
        let transparent = match &scan.palette {
            Some(_) => vec![index.get(&TRANSPARENT).copied().unwrap_or(0)],
            None => TRANSPARENT.to_vec(),
        };
        let rect = |data: &mut Vec<u8>, stride: usize, x0: usize, y0: usize| {
            // Draws the frame into a `stride`-pixel-wide buffer whose origin is (x0, y0).
            let w = frame.width as usize;
            for (row, indices) in frame.pixels.chunks(w.max(1)).enumerate() {
                let y = frame.top as usize - y0 + row;
                let start = (y * stride + frame.left as usize - x0) * bytes_per;
                for (i, &p) in indices.iter().enumerate() {
                    let at = start + i * bytes_per;
                    data[at..at + bytes_per].copy_from_slice(&sample[usize::from(p)][..bytes_per]);
                }
            }
        };
        let (x, y, w, h, data, blend, dispose) = if n == 0 {
            // The first APNG frame covers the canvas: transparent around the GIF's first frame.
            let stride = scan.width as usize;
            let mut data = transparent.repeat(stride * scan.height as usize);
            rect(&mut data, stride, 0, 0);
            let (w, h) = (scan.width, scan.height);
            (0, 0, w, h, data, BlendOp::Source, dispose_op(frame.dispose))
        } else if is_empty(&frame) {
            (0, 0, 1, 1, transparent, BlendOp::Over, DisposeOp::None)
        } else {
            let mut data = vec![0u8; frame.pixels.len() * bytes_per];
            rect(
                &mut data,
                frame.width as usize,
                frame.left as usize,
                frame.top as usize,
            );
            let has_transparent = frame
                .pixels
                .iter()
                .any(|&p| frame.colors[usize::from(p)][3] == 0);
            let blend = if has_transparent {
                BlendOp::Over
            } else {
                BlendOp::Source
            };
            let (l, t, w, h) = (frame.left, frame.top, frame.width, frame.height);
            (l, t, w, h, data, blend, dispose_op(frame.dispose))
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
        n += 1;
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

fn covers(frame: &Frame, width: u32, height: u32) -> bool {
    frame.left == 0 && frame.top == 0 && frame.width == width && frame.height == height
}

/// Packs 8-bit indices into 1-, 2- or 4-bit samples, each row starting on a byte.
pub(crate) fn pack(indices: &[u8], width: u32, depth: u8) -> Vec<u8> {
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
