//! A palette PNG whose palette is the grey ramp of its bit depth, written as grey: the same
//! image data, no `PLTE` chunk (12 + 3 bytes per entry saved, no compression run). oxipng
//! turns a palette into grey only from 8 bits (`indexed_to_channels`), so the 1-, 2- and
//! 4-bit black-and-white and grey palettes webdiet writes from GIFs (`image::apng`) stayed
//! palettes, 18 bytes larger for a black-and-white image (docs/images.md, "The last
//! percent").
//!
//! Grey sample `i` at bit depth `d` is the value `i × 255 / (2^d − 1)`, and both colour types
//! store one sample of `d` bits per pixel, filtered byte by byte the same way, so when entry
//! `i` of the palette is that grey for every `i`, the `IDAT` data means the same pixels under
//! either colour type. The caller verifies the result pixel for pixel like any conversion.

use super::chunks::{self, Chunk};

/// Ancillary chunks that mean the same for a grey image as for a palette one. Any other
/// (transparency, `bKGD` and `sBIT` whose layout depends on the colour type, colour profiles,
/// `hIST`, animation) leaves the image as it is.
const SAME_FOR_GREY: [&[u8; 4]; 7] = [
    b"gAMA", b"sRGB", b"pHYs", b"tEXt", b"zTXt", b"iTXt", b"tIME",
];

/// The grey PNG with the same pixels as `png`, when `png` is a palette image whose palette is
/// its bit depth's grey ramp (entry `i` = grey `i`) and it has no chunk whose meaning depends
/// on the colour type; `None` otherwise.
pub(super) fn from_grey_palette(png: &[u8]) -> Option<Vec<u8>> {
    let parsed = chunks::parse(png).ok()?;
    let ihdr = parsed
        .first()
        .filter(|c| &c.name == b"IHDR" && c.data.len() == 13)?;
    let (depth, colour_type) = (ihdr.data[8], ihdr.data[9]);
    if colour_type != 3 || !matches!(depth, 1 | 2 | 4 | 8) {
        return None;
    }
    let step = 255 / ((1u16 << depth) - 1) as u8;
    let mut seen_palette = false;
    for c in &parsed[1..] {
        match &c.name {
            b"PLTE" => {
                seen_palette = true;
                if !is_grey_ramp(c, step) {
                    return None;
                }
            }
            b"IDAT" | b"IEND" => {}
            name if SAME_FOR_GREY.contains(&name) => {}
            _ => return None,
        }
    }
    if !seen_palette {
        return None;
    }
    let mut out = chunks::SIGNATURE.to_vec();
    let mut grey_ihdr = ihdr.data.to_vec();
    grey_ihdr[9] = 0;
    chunks::write(&mut out, b"IHDR", &grey_ihdr);
    for c in parsed[1..].iter().filter(|c| &c.name != b"PLTE") {
        chunks::write(&mut out, &c.name, c.data);
    }
    Some(out)
}

/// Whether every palette entry `i` is the grey `i × step`.
fn is_grey_ramp(plte: &Chunk<'_>, step: u8) -> bool {
    !plte.data.is_empty()
        && plte.data.len().is_multiple_of(3)
        && plte.data.chunks(3).enumerate().all(|(i, rgb)| {
            u8::try_from(i * usize::from(step)).is_ok_and(|grey| rgb == [grey, grey, grey])
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A palette PNG of `width` × 1 pixels with `palette` and these index bytes as its one row
    /// (filter byte 0 first), plus `extra` chunks before IDAT.
    fn palette_png(depth: u8, palette: &[u8], row: &[u8], extra: &[(&[u8; 4], &[u8])]) -> Vec<u8> {
        let width = (row.len() * 8 / depth as usize) as u32;
        let mut ihdr = width.to_be_bytes().to_vec();
        ihdr.extend_from_slice(&1u32.to_be_bytes());
        ihdr.extend_from_slice(&[depth, 3, 0, 0, 0]);
        let mut out = chunks::SIGNATURE.to_vec();
        chunks::write(&mut out, b"IHDR", &ihdr);
        chunks::write(&mut out, b"PLTE", palette);
        for (name, data) in extra {
            chunks::write(&mut out, name, data);
        }
        let raw = [&[0u8][..], row].concat();
        chunks::write(&mut out, b"IDAT", &crate::deflate::zlib(&raw, 9));
        chunks::write(&mut out, b"IEND", &[]);
        out
    }

    fn pixels(png: &[u8]) -> Vec<u8> {
        image::load_from_memory(png).unwrap().to_rgba8().into_raw()
    }

    #[test]
    fn a_black_and_white_palette_becomes_1_bit_grey_with_the_same_pixels_and_18_bytes_less() {
        let png = palette_png(1, &[0, 0, 0, 255, 255, 255], &[0b1011_0010], &[]);
        let grey = from_grey_palette(&png).expect("black then white is the 1-bit grey ramp");
        assert_eq!(png.len() - grey.len(), 18);
        assert_eq!(pixels(&png), pixels(&grey));
        assert_eq!(grey[8 + 8 + 9], 0, "colour type 0, grey");
    }

    #[test]
    fn four_and_sixteen_grey_levels_become_2_and_4_bit_grey() {
        let ramp =
            |n: u32, step: u32| -> Vec<u8> { (0..n).flat_map(|i| [(i * step) as u8; 3]).collect() };
        for (depth, palette, row) in [
            (2, ramp(4, 85), vec![0b0001_1011, 0b1110_0100]),
            (4, ramp(16, 17), vec![0x0f, 0x93, 0x7a]),
            // A palette may stop before the depth's last entry.
            (4, ramp(5, 17), vec![0x01, 0x23, 0x40]),
        ] {
            let png = palette_png(depth, &palette, &row, &[(b"gAMA", &45455u32.to_be_bytes())]);
            let grey = from_grey_palette(&png).expect("a grey ramp");
            assert_eq!(pixels(&png), pixels(&grey), "{depth} bits");
        }
    }

    #[test]
    fn palettes_that_are_not_the_ramp_or_carry_colour_type_chunks_are_left_alone() {
        let white_first = palette_png(1, &[255, 255, 255, 0, 0, 0], &[0b1000_0000], &[]);
        assert!(
            from_grey_palette(&white_first).is_none(),
            "indices would invert"
        );
        let red = palette_png(1, &[0, 0, 0, 255, 0, 0], &[0b1000_0000], &[]);
        assert!(from_grey_palette(&red).is_none());
        let bw = [0, 0, 0, 255, 255, 255];
        for chunk in [&b"tRNS", &b"bKGD", &b"sBIT", &b"iCCP", &b"cHRM", &b"acTL"] {
            let png = palette_png(1, &bw, &[0b1000_0000], &[(chunk, &[0u8][..])]);
            assert!(from_grey_palette(&png).is_none(), "{:?}", chunk);
        }
        assert!(from_grey_palette(b"not a png").is_none());
    }
}
