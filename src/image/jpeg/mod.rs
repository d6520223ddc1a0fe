//! Lossless optimisation of the site's JPEGs (`recompress_jpeg`): the DCT coefficients are
//! written again by mozjpeg's transcoder (`mozjpeg`, what `jpegtran` does) with Huffman tables
//! made for the image, as baseline or progressive, whichever is smallest; no pixel is
//! re-encoded. Each candidate is decoded again, with the original, by an independent decoder
//! (`zune-jpeg`, pure Rust) and must give the same pixels at tolerance 0, and the same
//! metadata a browser reads (`verify`).
//!
//! Metadata policy (docs/images.md, "PNG and JPEG recompression"): kept are the EXIF block
//! (APP1 `Exif`: orientation, and the resolution Chromium sizes an image by), the ICC profile
//! (APP2 `ICC_PROFILE`, every part in order), the Adobe marker (APP14, which says how the
//! colours are coded) and the JFIF marker's presence and density; dropped are comments (COM),
//! XMP (APP1), Photoshop/IPTC (APP13), JFIF thumbnails and extensions (APP0 `JFXX`), and every
//! other APPn, none of which a browser reads. Files webdiet leaves alone: arithmetic-coded,
//! lossless and hierarchical JPEGs and 12-bit ones (browsers do not show them), and JPEGs
//! that are not grey or YCbCr (CMYK, YCCK, RGB: Adobe's inverted-CMYK convention is a
//! browser's guess webdiet does not want to move).

mod mozjpeg;
mod verify;

use super::decode::Limits;
use super::recompress::{Recompressed, Recompression};
use super::Effort;
use mozjpeg::{Marker, Script};

/// A JPEG marker segment before the first scan: its code and data (after the length).
pub(crate) struct Segment<'a> {
    pub code: u8,
    pub data: &'a [u8],
}

/// The frame header (SOFn).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Frame {
    /// The SOF marker code (`0xC0` baseline, `0xC1` extended, `0xC2` progressive…).
    pub sof: u8,
    pub precision: u8,
    pub width: u16,
    pub height: u16,
    pub components: u8,
}

/// The segments up to the first scan, and the frame header.
pub(crate) fn segments(jpeg: &[u8]) -> Result<(Vec<Segment<'_>>, Frame), String> {
    if !jpeg.starts_with(&[0xFF, 0xD8]) {
        return Err("not a JPEG".to_string());
    }
    let mut at = 2;
    let mut out = Vec::new();
    let mut frame = None;
    loop {
        if jpeg.get(at) != Some(&0xFF) {
            return Err(format!("no marker at byte {at}"));
        }
        while jpeg.get(at) == Some(&0xFF) {
            at += 1;
        }
        let code = *jpeg.get(at).ok_or("truncated before the first scan")?;
        at += 1;
        if matches!(code, 0x01 | 0xD0..=0xD7) {
            continue;
        }
        if code == 0xD9 {
            return Err("no image before the end".to_string());
        }
        let len = jpeg
            .get(at..at + 2)
            .map(|b| usize::from(u16::from_be_bytes([b[0], b[1]])))
            .filter(|&len| len >= 2)
            .ok_or("truncated marker length")?;
        let data = jpeg
            .get(at + 2..at + len)
            .ok_or("truncated before the first scan")?;
        at += len;
        if code == 0xDA {
            let frame = frame.ok_or("a scan before the frame header")?;
            return Ok((out, frame));
        }
        if matches!(code, 0xC0..=0xCF) && !matches!(code, 0xC4 | 0xC8 | 0xCC) {
            if data.len() < 6 {
                return Err("truncated frame header".to_string());
            }
            frame = Some(Frame {
                sof: code,
                precision: data[0],
                height: u16::from_be_bytes([data[1], data[2]]),
                width: u16::from_be_bytes([data[3], data[4]]),
                components: data[5],
            });
        }
        out.push(Segment { code, data });
    }
}

/// Whether a segment is metadata webdiet keeps (it changes what a browser shows).
pub(crate) fn kept(segment: &Segment<'_>) -> bool {
    match segment.code {
        0xE1 => segment.data.starts_with(b"Exif\0"),
        0xE2 => segment.data.starts_with(b"ICC_PROFILE\0"),
        0xEE => segment.data.starts_with(b"Adobe"),
        _ => false,
    }
}

/// A name for a dropped segment, for the report.
fn describe(segment: &Segment<'_>) -> String {
    let n = segment.code.wrapping_sub(0xE0);
    match segment.code {
        0xFE => "COM".to_string(),
        0xE0 if segment.data.starts_with(b"JFXX\0") => "APP0 JFXX (thumbnail)".to_string(),
        0xE0 if segment.data.starts_with(b"JFIF\0") && segment.data.len() > 14 => {
            "APP0 JFIF thumbnail".to_string()
        }
        0xE1 if segment.data.starts_with(b"http://ns.adobe.com/xap/") => "APP1 XMP".to_string(),
        0xED => "APP13 (Photoshop, IPTC)".to_string(),
        0xE0..=0xEF => {
            let tag: String = segment
                .data
                .iter()
                .take_while(|b| b.is_ascii_graphic())
                .take(12)
                .map(|&b| char::from(b))
                .collect();
            if tag.is_empty() {
                format!("APP{n}")
            } else {
                format!("APP{n} {tag}")
            }
        }
        code => format!("marker {code:#04X}"),
    }
}

/// The transcodings tried at each effort, smallest kept (ties to the first):
/// - `fast`: baseline with optimised Huffman tables;
/// - `default`: that, and mozjpeg's progressive scans (what mozjpeg's `jpegtran` writes);
/// - `max`: those and libjpeg's standard progressive script (what libjpeg-turbo's
///   `jpegtran -optimize -progressive` writes), which wins on some small images.
fn scripts(effort: Effort) -> &'static [Script] {
    match effort {
        Effort::Fast => &[Script::Baseline],
        Effort::Default => &[Script::MozjpegScans, Script::Baseline],
        Effort::Max => &[Script::MozjpegScans, Script::Progressive, Script::Baseline],
    }
}

/// A plain JPEG (baseline, quality 85, libjpeg's standard Huffman tables, as cameras and old
/// editors write them) of 8-bit grey (`components` 1) or RGB (3) samples, with `markers`
/// (code, data) after SOI and JFIF: for test fixtures made by our own code. `None` when the
/// samples do not fill `width × height`.
#[doc(hidden)]
pub fn plain_jpeg(
    samples: &[u8],
    width: u32,
    height: u32,
    components: u8,
    markers: &[(u8, &[u8])],
) -> Option<Vec<u8>> {
    let expected = (width as usize)
        .checked_mul(height as usize)?
        .checked_mul(usize::from(components))?;
    if !matches!(components, 1 | 3) || width == 0 || height == 0 || samples.len() != expected {
        return None;
    }
    let markers: Vec<Marker<'_>> = markers
        .iter()
        .map(|&(code, data)| Marker { code, data })
        .collect();
    Some(mozjpeg::encode_plain(
        samples, width, height, components, true, &markers,
    ))
}

/// Optimises a JPEG losslessly at `effort`; see the module documentation.
pub fn recompress_jpeg(
    jpeg: &[u8],
    effort: Effort,
    min_saving: u64,
    limits: &Limits,
) -> Recompressed {
    let (segments, frame) = match segments(jpeg) {
        Ok(parsed) => parsed,
        Err(why) => return Recompressed::kept(Recompression::Corrupt, why),
    };
    if !matches!(frame.sof, 0xC0..=0xC2) || frame.precision != 8 {
        return Recompressed::kept(
            Recompression::Unsupported,
            format!(
                "SOF{} with {}-bit samples: a coding browsers do not show",
                frame.sof - 0xC0,
                frame.precision
            ),
        );
    }
    // An Adobe marker's transform 0 means RGB samples for three components; a grey image
    // has no transform to mean (Photoshop writes the marker on grey JPEGs too).
    let rgb = frame.components == 3 && verify::adobe_transform(&segments) == Some(0);
    if !matches!(frame.components, 1 | 3) || rgb {
        return Recompressed::kept(
            Recompression::Unsupported,
            format!(
                "{} components{}: only grey and YCbCr JPEGs are changed",
                frame.components,
                if rgb { ", RGB" } else { "" }
            ),
        );
    }
    let pixels = u64::from(frame.width) * u64::from(frame.height);
    if pixels > limits.max_canvas_pixels {
        return Recompressed::kept(
            Recompression::TooLarge,
            format!(
                "the image is {}×{}, over the {}-pixel limit",
                frame.width, frame.height, limits.max_canvas_pixels
            ),
        );
    }
    let jfif = segments
        .iter()
        .any(|s| s.code == 0xE0 && s.data.starts_with(b"JFIF\0"));
    // libjpeg writes the Adobe marker itself only for RGB and CMYK, never here.
    let markers: Vec<Marker<'_>> = segments
        .iter()
        .filter(|s| kept(s))
        .map(|s| Marker {
            code: s.code,
            data: s.data,
        })
        .collect();
    let mut dropped: Vec<String> = Vec::new();
    for s in segments
        .iter()
        .filter(|s| matches!(s.code, 0xE0..=0xEF | 0xFE))
    {
        let plain_jfif = s.code == 0xE0 && s.data.starts_with(b"JFIF\0") && s.data.len() <= 14;
        if !kept(s) && !plain_jfif {
            let name = describe(s);
            if !dropped.contains(&name) {
                dropped.push(name);
            }
        }
    }
    let mut best: Option<Vec<u8>> = None;
    let mut failure = None;
    for &script in scripts(effort) {
        match mozjpeg::transcode(jpeg, script, jfif, &markers) {
            Ok(out) if best.as_ref().is_none_or(|b| out.len() < b.len()) => best = Some(out),
            Ok(_) => {}
            Err(why) => failure = Some(why),
        }
    }
    let Some(best) = best else {
        let why = failure.unwrap_or_else(|| "nothing written".to_string());
        return Recompressed::kept(Recompression::Corrupt, why);
    };
    if best.len() as u64 + min_saving.max(1) > jpeg.len() as u64 {
        let diff = best.len() as i64 - jpeg.len() as i64;
        return Recompressed::kept(Recompression::Larger, format!("{diff:+} B"));
    }
    let verified = verify::same_jpeg(jpeg, &best, limits);
    Recompressed::decide(jpeg, best, verified, dropped, min_saving)
}

#[cfg(test)]
mod tests;
