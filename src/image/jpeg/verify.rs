//! Proves a transcoded JPEG shows what the original shows: both decoded by `zune-jpeg` (pure
//! Rust, independent of the libjpeg that wrote the new file) must give the same samples at
//! tolerance 0, with the same size and colour space; and the metadata a browser reads must be
//! the same (EXIF, the ICC profile's parts in order, the Adobe marker, the JFIF marker's
//! presence and density). The only module that imports `zune-jpeg`.

use zune_jpeg::zune_core::options::DecoderOptions;
use zune_jpeg::JpegDecoder;

use super::super::decode::Limits;
use super::{kept, segments, Segment};

/// The Adobe marker's colour transform (0: none, so RGB or CMYK; 1: YCbCr; 2: YCCK).
pub(super) fn adobe_transform(segments: &[Segment<'_>]) -> Option<u8> {
    segments
        .iter()
        .find(|s| s.code == 0xEE && s.data.starts_with(b"Adobe"))
        .and_then(|s| s.data.get(11).copied())
}

/// What a browser reads besides the coefficients: the kept markers in order, and the JFIF
/// marker's presence and density (its version and thumbnail are not read).
#[derive(Debug, PartialEq, Eq)]
struct Metadata<'a> {
    markers: Vec<(u8, &'a [u8])>,
    jfif_density: Option<&'a [u8]>,
}

fn metadata<'a>(segments: &'a [Segment<'a>]) -> Metadata<'a> {
    Metadata {
        markers: segments
            .iter()
            .filter(|s| kept(s))
            .map(|s| (s.code, s.data))
            .collect(),
        jfif_density: segments
            .iter()
            .find(|s| s.code == 0xE0 && s.data.starts_with(b"JFIF\0"))
            .map(|s| s.data.get(7..12).unwrap_or(&[])),
    }
}

/// A decoded image: its samples, colour space and size.
struct Decoded {
    samples: Vec<u8>,
    colour: String,
    width: usize,
    height: usize,
}

fn decode(jpeg: &[u8], limits: &Limits) -> Result<Decoded, String> {
    let side = usize::try_from(limits.max_canvas_pixels).unwrap_or(usize::MAX);
    let options = DecoderOptions::default()
        .set_max_width(side.min(u16::MAX as usize))
        .set_max_height(side.min(u16::MAX as usize))
        .set_strict_mode(true);
    let mut decoder = JpegDecoder::new_with_options(jpeg, options);
    let samples = decoder
        .decode()
        .map_err(|e| format!("does not decode: {e:?}"))?;
    let info = decoder.info().ok_or("no image information")?;
    Ok(Decoded {
        samples,
        colour: format!("{:?}", decoder.get_output_colorspace()),
        width: usize::from(info.width),
        height: usize::from(info.height),
    })
}

/// `Ok` when `after` decodes to the same samples as `before` and keeps what a browser reads.
pub(super) fn same_jpeg(before: &[u8], after: &[u8], limits: &Limits) -> Result<(), String> {
    let (a_segments, a_frame) = segments(before).map_err(|e| format!("the original: {e}"))?;
    let (b_segments, b_frame) = segments(after).map_err(|e| format!("the new JPEG: {e}"))?;
    let size = |f: super::Frame| (f.width, f.height, f.components, f.precision);
    if size(a_frame) != size(b_frame) {
        return Err(format!(
            "frame {:?} before, {:?} after",
            size(a_frame),
            size(b_frame)
        ));
    }
    let (a_meta, b_meta) = (metadata(&a_segments), metadata(&b_segments));
    if a_meta.markers != b_meta.markers {
        return Err("the EXIF, ICC or Adobe markers differ".to_string());
    }
    if a_meta.jfif_density != b_meta.jfif_density {
        return Err(format!(
            "JFIF density {:?} before, {:?} after",
            a_meta.jfif_density, b_meta.jfif_density
        ));
    }
    let a = decode(before, limits).map_err(|e| format!("the original {e}"))?;
    let b = decode(after, limits).map_err(|e| format!("the new JPEG {e}"))?;
    if a.colour != b.colour || a.samples.len() != b.samples.len() {
        return Err(format!(
            "decoded as {} ({} B) before, {} ({} B) after",
            a.colour,
            a.samples.len(),
            b.colour,
            b.samples.len()
        ));
    }
    let w = a.width.max(1);
    match a.samples.iter().zip(&b.samples).position(|(x, y)| x != y) {
        Some(i) => {
            let channels = (a.samples.len() / (w * a.height.max(1))).max(1);
            let pixel = i / channels;
            Err(format!(
                "pixel ({}, {}) differs: sample {} before, {} after",
                pixel % w,
                pixel / w,
                a.samples[i],
                b.samples[i]
            ))
        }
        None => Ok(()),
    }
}
