//! `--effort max`'s Zopfli compression of a PNG's image data, through zenzop (a faster Zopfli,
//! with ECT's refinements in its `enhanced` mode): the one module that uses it. oxipng ranks
//! the filters and writes the PNG; this re-deflates the image data it chose.

use std::io::Read;
use std::num::NonZeroU64;

use super::chunks::{self, SIGNATURE};

/// The zlib stream of `data`, compressed by Zopfli with `iterations` and zenzop's
/// ECT-derived search (`enhanced`: a wider search for the code-length code, several ways of
/// building each Huffman tree, more varied parses), which is smaller than Zopfli's own output.
pub(crate) fn zlib(data: &[u8], iterations: u64) -> Option<Vec<u8>> {
    let mut o = zenzop::Options::default();
    o.iteration_count = NonZeroU64::new(iterations.max(1))?;
    o.enhanced = true;
    let mut out = Vec::with_capacity(data.len() / 2);
    // A boxed reader, not the slice, as oxipng gives the `zopfli` crate (whose output grew
    // when handed the slice: how the input is read decides how the encoder splits it).
    let reader: Box<dyn Read + '_> = Box::new(data);
    zenzop::compress(o, zenzop::Format::Zlib, reader, &mut out).ok()?;
    Some(out)
}

/// `png` (one oxipng wrote: its image data in IDAT chunks) with the image data inflated and
/// compressed again by [`zlib`], in one IDAT, and its colour profile (`iCCP`) too where that
/// is smaller (as oxipng compresses it with its own deflater); the other chunks as they were.
/// `None` when the PNG cannot be read.
pub(crate) fn recompress(png: &[u8], iterations: u64) -> Option<Vec<u8>> {
    let list = chunks::parse(png).ok()?;
    let ihdr = list.first().filter(|c| &c.name == b"IHDR")?.data;
    let width = u64::from(u32::from_be_bytes(ihdr.get(0..4)?.try_into().ok()?));
    let height = u64::from(u32::from_be_bytes(ihdr.get(4..8)?.try_into().ok()?));
    // At most 8 bytes a pixel and a filter byte a row, twice over for Adam7's passes.
    let limit = 2 * height.checked_mul(1 + width.checked_mul(8)?)? + 1024;
    let filtered = crate::deflate::inflate_zlib(&chunks::image_data(&list), limit).ok()?;
    let idat = zlib(&filtered, iterations)?;
    let mut out = SIGNATURE.to_vec();
    let mut written = false;
    for chunk in &list {
        match (&chunk.name == b"IDAT", written) {
            (true, true) => {}
            (true, false) => {
                chunks::write(&mut out, b"IDAT", &idat);
                written = true;
            }
            (false, _) if &chunk.name == b"iCCP" => {
                let profile = profile(chunk.data, iterations);
                chunks::write(&mut out, b"iCCP", profile.as_deref().unwrap_or(chunk.data));
            }
            (false, _) => chunks::write(&mut out, &chunk.name, chunk.data),
        }
    }
    Some(out)
}

/// An `iCCP` chunk's data (a name of 1–79 bytes, a zero, method 0, a zlib stream) with the
/// profile compressed again by [`zlib`], if that is smaller. ICC profiles are at most a few
/// hundred kilobytes; one inflating past 16 MiB is left as it is.
fn profile(data: &[u8], iterations: u64) -> Option<Vec<u8>> {
    let name_end = data.iter().take(80).position(|&b| b == 0)?;
    let (head, stream) = data.split_at_checked(name_end + 2)?;
    if head[name_end + 1] != 0 {
        return None;
    }
    let raw = crate::deflate::inflate_zlib(stream, 16 << 20).ok()?;
    let again = zlib(&raw, iterations)?;
    (again.len() < stream.len()).then(|| [head, &again].concat())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 96 × 64 RGBA image of bands and a gradient, encoded by the `png` crate with a `tEXt`
    /// chunk before the image data and its image data split over two IDAT chunks, and `iccp`
    /// (whole chunk data) after the `tEXt` chunk if given.
    fn sample_with(iccp: Option<&[u8]>) -> Vec<u8> {
        let (w, h) = (96u32, 64u32);
        let pixels: Vec<u8> = (0..w * h)
            .flat_map(|i| {
                let (x, y) = (i % w, i / w);
                [
                    (x / 8 * 20) as u8,
                    (y * 4) as u8,
                    ((x + y) % 7 * 30) as u8,
                    255,
                ]
            })
            .collect();
        let mut one = Vec::new();
        let mut encoder = png::Encoder::new(&mut one, w, h);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        encoder
            .add_text_chunk("Comment".to_string(), "kept".to_string())
            .unwrap();
        let mut writer = encoder.write_header().unwrap();
        writer.write_image_data(&pixels).unwrap();
        writer.finish().unwrap();
        let list = chunks::parse(&one).unwrap();
        let data = chunks::image_data(&list);
        let mut out = SIGNATURE.to_vec();
        for c in list
            .iter()
            .filter(|c| &c.name != b"IDAT" && &c.name != b"IEND")
        {
            chunks::write(&mut out, &c.name, c.data);
        }
        if let Some(iccp) = iccp {
            chunks::write(&mut out, b"iCCP", iccp);
        }
        let half = data.len() / 2;
        chunks::write(&mut out, b"IDAT", &data[..half]);
        chunks::write(&mut out, b"IDAT", &data[half..]);
        chunks::write(&mut out, b"IEND", &[]);
        out
    }

    fn sample() -> Vec<u8> {
        sample_with(None)
    }

    fn pixels(png: &[u8]) -> Vec<u8> {
        let mut reader = png::Decoder::new(std::io::Cursor::new(png))
            .read_info()
            .unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        buf.truncate(info.buffer_size());
        buf
    }

    #[test]
    fn recompressed_image_data_gives_the_same_pixels_in_one_idat_with_the_other_chunks_kept() {
        let input = sample();
        let out = recompress(&input, 5).expect("a PNG");
        assert_eq!(pixels(&out), pixels(&input));
        let names = |png: &[u8]| -> Vec<[u8; 4]> {
            chunks::parse(png).unwrap().iter().map(|c| c.name).collect()
        };
        assert_eq!(
            names(&input),
            [*b"IHDR", *b"tEXt", *b"IDAT", *b"IDAT", *b"IEND"]
        );
        assert_eq!(names(&out), [*b"IHDR", *b"tEXt", *b"IDAT", *b"IEND"]);
        // Smaller than the best of libdeflate, the compressor of every other level.
        let data = chunks::image_data(&chunks::parse(&input).unwrap());
        let filtered = crate::deflate::inflate_zlib(&data, 1 << 20).unwrap();
        let zopfli = zlib(&filtered, 5).unwrap();
        assert!(zopfli.len() < crate::deflate::zlib_best(&filtered).len());
        assert_eq!(
            crate::deflate::inflate_zlib(&zopfli, 1 << 20).unwrap(),
            filtered
        );
    }

    #[test]
    fn what_is_not_a_png_gives_nothing() {
        assert_eq!(recompress(b"GIF89a", 5), None);
        let mut truncated = sample();
        truncated.truncate(truncated.len() - 20);
        assert_eq!(recompress(&truncated, 5), None);
    }

    #[test]
    fn a_colour_profile_is_compressed_again_where_smaller_and_reads_back_the_same() {
        // Not a real ICC profile: the chunk's framing is what matters here.
        let icc: Vec<u8> = (0..3000u32).map(|i| (i % 97 * 3 % 256) as u8).collect();
        let weak = crate::deflate::zlib(&icc, 1);
        let head = b"sRGB IEC61966-2.1\0\0".as_slice();
        let chunk = [head, &weak].concat();
        let input = sample_with(Some(&chunk));
        let out = recompress(&input, 5).expect("a PNG");
        assert_eq!(pixels(&out), pixels(&input));
        let list = chunks::parse(&out).unwrap();
        let iccp = list.iter().find(|c| &c.name == b"iCCP").expect("kept").data;
        assert!(iccp.starts_with(head));
        assert!(iccp.len() < chunk.len());
        let stream = &iccp[head.len()..];
        assert_eq!(crate::deflate::inflate_zlib(stream, 1 << 20).unwrap(), icc);
        // A profile with another compression method than 0 is not touched, nor a chunk cut
        // short after its name.
        let other = [b"x\0\x01".as_slice(), &weak].concat();
        assert_eq!(profile(&other, 5), None);
        assert_eq!(profile(b"x\0", 5), None);
        assert_eq!(profile(b"no name end", 5), None);
    }
}
