//! What the markup stage and the audit need to know about a small image without converting it:
//! its size, frame count, how many colours it shows, and whether it is one flat fill (a spacer
//! GIF: fully transparent, or one opaque colour that CSS can paint exactly).

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::decode::{self, Limits};

/// Largest file [`facts`] looks at. Spacers and text buttons are a few hundred bytes; a larger
/// file is neither a spacer nor worth decoding for the audit. 64 KiB.
pub const MAX_BYTES: usize = 64 * 1024;

/// Colours are counted up to this many; anything above is reported as this + 1.
pub const MAX_COUNTED_COLORS: usize = 256;

/// One flat fill covering the whole image.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "type", content = "rgb")]
pub enum Fill {
    /// Every pixel fully transparent.
    Transparent,
    /// Every pixel this opaque colour.
    Solid([u8; 3]),
}

/// Facts about one image file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageFacts {
    /// Intrinsic size in pixels.
    pub width: u32,
    pub height: u32,
    /// Frames (1 for a still image).
    pub frames: usize,
    /// Distinct RGBA colours of the first frame as shown (all transparent pixels count as one),
    /// capped at [`MAX_COUNTED_COLORS`] + 1.
    pub colors: usize,
    /// Set when the image is a still, uncolour-managed image of one flat fill.
    pub fill: Option<Fill>,
}

/// Reads a GIF or PNG of at most [`MAX_BYTES`]; `None` for anything else, larger, or corrupt.
pub fn facts(bytes: &[u8]) -> Option<ImageFacts> {
    if bytes.len() > MAX_BYTES {
        return None;
    }
    if bytes.starts_with(b"GIF8") {
        gif_facts(bytes)
    } else if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        png_facts(bytes)
    } else {
        None
    }
}

fn gif_facts(bytes: &[u8]) -> Option<ImageFacts> {
    let limits = Limits {
        max_canvas_pixels: 1 << 22,
        max_total_pixels: 1 << 24,
        max_frames: 1000,
    };
    let mut reader = decode::Reader::open(bytes, &limits).ok()?;
    let first = reader.next_frame().ok()??;
    let mut frames = 1;
    while reader.next_frame().ok()?.is_some() {
        frames += 1;
    }
    // The first frame as a browser shows it: its pixels where it covers the canvas,
    // transparent elsewhere.
    let covered = u64::from(first.width) * u64::from(first.height);
    let screen = u64::from(reader.width) * u64::from(reader.height);
    let mut colors: BTreeSet<[u8; 4]> = BTreeSet::new();
    if covered < screen {
        colors.insert([0, 0, 0, 0]);
    }
    for &index in &first.pixels {
        colors.insert(first.colors[usize::from(index)]);
        if colors.len() > MAX_COUNTED_COLORS {
            break;
        }
    }
    Some(summarize(
        reader.width,
        reader.height,
        frames,
        &colors,
        true,
    ))
}

fn png_facts(bytes: &[u8]) -> Option<ImageFacts> {
    // Colour-managed PNGs (gamma, chromaticities, ICC profile) are not painted with their
    // stored values, so a CSS colour could not match them; APNGs are not still images.
    let chunks = chunk_names(bytes);
    let managed = chunks
        .iter()
        .any(|c| matches!(c, b"gAMA" | b"cHRM" | b"iCCP"));
    let frames = if chunks.iter().any(|c| c == b"acTL") {
        2
    } else {
        1
    };
    let image = image::load_from_memory_with_format(bytes, image::ImageFormat::Png).ok()?;
    let rgba = image.to_rgba8();
    let mut colors: BTreeSet<[u8; 4]> = BTreeSet::new();
    for p in rgba.pixels() {
        colors.insert(if p.0[3] == 0 { [0, 0, 0, 0] } else { p.0 });
        if colors.len() > MAX_COUNTED_COLORS {
            break;
        }
    }
    Some(summarize(
        rgba.width(),
        rgba.height(),
        frames,
        &colors,
        !managed,
    ))
}

fn summarize(
    width: u32,
    height: u32,
    frames: usize,
    colors: &BTreeSet<[u8; 4]>,
    flat_allowed: bool,
) -> ImageFacts {
    let fill = match colors.iter().next() {
        Some(&[_, _, _, 0]) if colors.len() == 1 => Some(Fill::Transparent),
        Some(&[r, g, b, 255]) if colors.len() == 1 => Some(Fill::Solid([r, g, b])),
        _ => None,
    };
    ImageFacts {
        width,
        height,
        frames,
        colors: colors.len(),
        fill: fill.filter(|_| flat_allowed && frames == 1 && width > 0 && height > 0),
    }
}

/// Names of a PNG's chunks, in order (stops at the first malformed length).
fn chunk_names(bytes: &[u8]) -> Vec<[u8; 4]> {
    let mut names = Vec::new();
    let mut at = 8;
    while at + 8 <= bytes.len() {
        let len = u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
        names.push([bytes[at + 4], bytes[at + 5], bytes[at + 6], bytes[at + 7]]);
        at = match at.checked_add(12 + len as usize) {
            Some(next) => next,
            None => break,
        };
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A GIF of `frames` frames, each `w × h` pixels of palette indices `pixels`.
    fn gif(
        w: u16,
        h: u16,
        palette: &[u8],
        transparent: Option<u8>,
        pixels: &[u8],
        frames: usize,
    ) -> Vec<u8> {
        let mut out = Vec::new();
        {
            let mut enc = ::gif::Encoder::new(&mut out, w, h, palette).unwrap();
            for _ in 0..frames {
                let frame = ::gif::Frame {
                    width: w,
                    height: h,
                    transparent,
                    delay: 10,
                    buffer: pixels.to_vec().into(),
                    ..::gif::Frame::default()
                };
                enc.write_frame(&frame).unwrap();
            }
        }
        out
    }

    #[test]
    fn a_transparent_pixel_is_a_transparent_fill() {
        let f = facts(&gif(1, 1, &[0, 0, 0, 9, 9, 9], Some(0), &[0], 1)).unwrap();
        assert_eq!(f.fill, Some(Fill::Transparent));
        assert_eq!((f.width, f.height, f.frames, f.colors), (1, 1, 1, 1));
    }

    #[test]
    fn one_opaque_colour_is_a_solid_fill() {
        let f = facts(&gif(2, 2, &[0, 0, 128, 1, 1, 1], None, &[0; 4], 1)).unwrap();
        assert_eq!(f.fill, Some(Fill::Solid([0, 0, 128])));
    }

    #[test]
    fn two_colours_or_two_frames_are_not_a_fill() {
        let two = facts(&gif(2, 1, &[0, 0, 0, 255, 255, 255], None, &[0, 1], 1)).unwrap();
        assert_eq!((two.fill, two.colors), (None, 2));
        let anim = facts(&gif(1, 1, &[0, 0, 0, 9, 9, 9], None, &[0], 2)).unwrap();
        assert_eq!((anim.fill, anim.frames), (None, 2));
    }

    #[test]
    fn a_png_counts_its_colours_and_a_gamma_chunk_forbids_a_flat_fill() {
        let mut png = Vec::new();
        image::RgbaImage::from_pixel(3, 1, image::Rgba([10, 20, 30, 255]))
            .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
            .unwrap();
        let f = facts(&png).unwrap();
        assert_eq!((f.fill, f.colors), (Some(Fill::Solid([10, 20, 30])), 1));
        // Insert a gAMA chunk right after IHDR (8 + 25 bytes).
        let gama = [
            0, 0, 0, 4, b'g', b'A', b'M', b'A', 0, 0, 0xb1, 0x8f, 0x0b, 0xfc, 0x61, 0x05,
        ];
        let mut managed = png[..33].to_vec();
        managed.extend_from_slice(&gama);
        managed.extend_from_slice(&png[33..]);
        let f = facts(&managed).unwrap();
        assert_eq!((f.fill, f.colors), (None, 1));
    }

    #[test]
    fn other_formats_large_files_and_garbage_have_no_facts() {
        assert_eq!(facts(b"\xff\xd8\xff\xe0 a JPEG"), None);
        assert_eq!(facts(b"GIF89a broken"), None);
        let mut big = b"GIF89a".to_vec();
        big.resize(MAX_BYTES + 1, 0);
        assert_eq!(facts(&big), None);
    }
}
