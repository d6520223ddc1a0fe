//! A palette PNG offered to oxipng once more as grey or RGB samples, with alpha where a pixel
//! is not opaque. oxipng 10.2.1 keeps a palette whenever its image data is much smaller than
//! the channels' (it does not weigh the `PLTE` and `tRNS` chunks against that), and turns a
//! palette back into channels only from 8 bits: so a small image with a large palette (text
//! anti-aliased in greys on transparency, an icon of many colours) stayed larger than the same
//! pixels without it, and a grey palette in another order than the grey ramp never became grey
//! below 8 bits (docs/images.md, "The last percent").
//!
//! Only where the palette's chunks are at least a quarter of the file is the second run made:
//! elsewhere the channels' image data, two to four times the palette's, cannot win.

use std::io::Cursor;

use super::chunks;

/// The palette chunks must be at least 1/`WORTH` of the file for the second run.
const WORTH: usize = 4;

/// Ancillary chunks whose meaning does not depend on the colour type, carried over as they
/// are. Any other (`bKGD`, `sBIT`, `hIST`, animation) leaves the image a palette one.
const CARRIED: [&[u8; 4]; 9] = [
    b"gAMA", b"cHRM", b"sRGB", b"iCCP", b"cICP", b"mDCV", b"cLLI", b"pHYs", b"eXIf",
];

/// `png` (a palette PNG oxipng just wrote with `opts`) as grey or RGB samples, bit depths
/// reduced where the values allow, with the same filters and deflater; `None` unless that is
/// smaller. The caller verifies the pixels like any other result.
pub(super) fn without_palette(png: &[u8], opts: &oxipng::Options) -> Option<Vec<u8>> {
    let parsed = chunks::parse(png).ok()?;
    let ihdr = parsed
        .first()
        .filter(|c| &c.name == b"IHDR" && c.data.len() == 13)?;
    if ihdr.data[9] != 3 {
        return None;
    }
    let mut palette_bytes = 0;
    let mut carried = Vec::new();
    for c in &parsed[1..] {
        match &c.name {
            b"PLTE" | b"tRNS" => palette_bytes += 12 + c.data.len(),
            b"IDAT" | b"IEND" => {}
            name if CARRIED.contains(&name) => carried.push((c.name, c.data.to_vec())),
            // Text and time chunks are oxipng's to strip; anything else stays a palette.
            b"tEXt" | b"zTXt" | b"iTXt" | b"tIME" => {}
            _ => return None,
        }
    }
    if palette_bytes * WORTH < png.len() {
        return None;
    }
    // Grey samples mean another colour than the same grey in a palette under a colour
    // profile or chromaticities (`has_chrm` turns oxipng's grey reduction off for that).
    let grey_allowed = opts.grayscale_reduction
        && !carried
            .iter()
            .any(|(name, _)| name == b"iCCP" || name == b"cHRM");
    let (width, height, colour_type, samples) = channels(png, grey_allowed, opts.optimize_alpha)?;
    let mut raw =
        oxipng::RawImage::new(width, height, colour_type, oxipng::BitDepth::Eight, samples).ok()?;
    for (name, data) in carried {
        raw.add_png_chunk(name, data);
    }
    let mut o = opts.clone();
    // Grey and RGB stay what they are (back to a palette is what the first run chose);
    // only their bit depth may fall.
    o.color_type_reduction = false;
    o.palette_reduction = false;
    o.bit_depth_reduction = true;
    o.interlace = Some(ihdr.data[12] == 1);
    raw.create_optimized_png(&o)
        .ok()
        .filter(|out| out.len() < png.len())
}

/// The pixels as 8-bit grey (where every pixel is grey and `grey_allowed`) or RGB samples,
/// with alpha only when a pixel is not opaque. With `clear_transparent` (oxipng's
/// `optimize_alpha`), a fully transparent pixel may take any colour: it is then black, and
/// does not keep an image from being grey.
fn channels(
    png: &[u8],
    grey_allowed: bool,
    clear_transparent: bool,
) -> Option<(u32, u32, oxipng::ColorType, Vec<u8>)> {
    let mut decoder = png::Decoder::new(Cursor::new(png));
    decoder.set_transformations(png::Transformations::EXPAND);
    let mut reader = decoder.read_info().ok()?;
    let mut buf = vec![0; reader.output_buffer_size()?];
    let frame = reader.next_frame(&mut buf).ok()?;
    let rgba: Vec<[u8; 4]> = match frame.color_type {
        png::ColorType::Rgb => buf[..frame.buffer_size()]
            .chunks_exact(3)
            .map(|p| [p[0], p[1], p[2], 255])
            .collect(),
        png::ColorType::Rgba => buf[..frame.buffer_size()]
            .chunks_exact(4)
            .map(|p| [p[0], p[1], p[2], p[3]])
            .collect(),
        _ => return None,
    };
    let mut rgba = rgba;
    if clear_transparent {
        rgba.iter_mut()
            .filter(|p| p[3] == 0)
            .for_each(|p| *p = [0; 4]);
    }
    let alpha = rgba.iter().any(|p| p[3] != 255);
    let grey = grey_allowed && rgba.iter().all(|p| p[0] == p[1] && p[1] == p[2]);
    let (colour_type, samples): (_, Vec<u8>) = match (grey, alpha) {
        (true, true) => (
            oxipng::ColorType::GrayscaleAlpha,
            rgba.iter().flat_map(|p| [p[0], p[3]]).collect(),
        ),
        (true, false) => (
            oxipng::ColorType::Grayscale {
                transparent_shade: None,
            },
            rgba.iter().map(|p| p[0]).collect(),
        ),
        (false, true) => (
            oxipng::ColorType::RGBA,
            rgba.iter().flatten().copied().collect(),
        ),
        (false, false) => (
            oxipng::ColorType::RGB {
                transparent_color: None,
            },
            rgba.iter().flat_map(|p| [p[0], p[1], p[2]]).collect(),
        ),
    };
    Some((frame.width, frame.height, colour_type, samples))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::image::effort::{static_options, Effort};

    /// A palette PNG of `entries` colours, pixel (x, y) the entry (x + y) mod `entries`, as
    /// oxipng's first run leaves an image it kept as a palette.
    fn palette_png(entries: u32, colour: impl Fn(u32) -> [u8; 4]) -> Vec<u8> {
        let (width, height) = (256, 64);
        let mut plte = Vec::new();
        let mut trns = Vec::new();
        for i in 0..entries {
            let [r, g, b, a] = colour(i);
            plte.extend([r, g, b]);
            trns.push(a);
        }
        let data: Vec<u8> = (0..height)
            .flat_map(|y| (0..width).map(move |x| ((x + y) % entries) as u8))
            .collect();
        let mut out = Vec::new();
        {
            let mut encoder = png::Encoder::new(&mut out, width, height);
            encoder.set_color(png::ColorType::Indexed);
            encoder.set_depth(png::BitDepth::Eight);
            encoder.set_palette(plte);
            if trns.iter().any(|&a| a != 255) {
                encoder.set_trns(trns);
            }
            let mut writer = encoder.write_header().unwrap();
            writer.write_image_data(&data).unwrap();
        }
        out
    }

    fn rgba(png: &[u8]) -> Vec<[u8; 4]> {
        let mut decoder = png::Decoder::new(Cursor::new(png));
        decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::ALPHA);
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let frame = reader.next_frame(&mut buf).unwrap();
        let channels = frame.color_type.samples();
        buf[..frame.buffer_size()]
            .chunks_exact(channels)
            .map(|p| match channels {
                2 => [p[0], p[0], p[0], p[1]],
                4 => [p[0], p[1], p[2], p[3]],
                _ => unreachable!("EXPAND | ALPHA gives grey + alpha or RGBA"),
            })
            .collect()
    }

    fn colour_type(png: &[u8]) -> u8 {
        png[25]
    }

    #[test]
    fn greys_with_alpha_lose_their_palette_and_keep_their_pixels() {
        let png = palette_png(254, |i| [i as u8, i as u8, i as u8, (i + 1) as u8]);
        let opts = static_options(Effort::Default, false);
        let out = without_palette(&png, &opts).expect("smaller without the palette");
        assert_eq!(colour_type(&out), 4, "grey + alpha");
        assert!(out.len() < png.len());
        assert_eq!(rgba(&out), rgba(&png));
    }

    #[test]
    fn colours_become_rgb_and_a_profile_keeps_greys_as_colours() {
        let png = palette_png(254, |i| [i as u8, (i * 7) as u8, (i * 13) as u8, 255]);
        let opts = static_options(Effort::Default, false);
        let out = without_palette(&png, &opts).expect("smaller without the palette");
        assert_eq!(colour_type(&out), 2, "RGB");
        assert_eq!(rgba(&out), rgba(&png));

        let greys = palette_png(254, |i| [i as u8, i as u8, i as u8, 255]);
        let mut no_grey = opts.clone();
        no_grey.grayscale_reduction = false;
        let out = without_palette(&greys, &no_grey).expect("smaller without the palette");
        assert_eq!(colour_type(&out), 2, "RGB, not grey");
        assert_eq!(
            colour_type(&without_palette(&greys, &opts).unwrap()),
            0,
            "grey"
        );
    }

    #[test]
    fn a_small_palette_stays_a_palette() {
        let few = palette_png(4, |i| [(i * 60) as u8, 0, 0, 255]);
        let opts = static_options(Effort::Default, false);
        assert!(without_palette(&few, &opts).is_none());
    }
}
