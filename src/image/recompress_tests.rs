use super::*;
use crate::image::chunks::parse as chunks;

/// A gradient that compresses much better with filters than without.
fn pixels(width: u32, height: u32, channels: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for y in 0..height {
        for x in 0..width {
            let v = [(x * 3) as u8, (y * 5) as u8, ((x + y) * 2) as u8, 255];
            out.extend_from_slice(&v[..channels]);
        }
    }
    out
}

/// An unoptimised PNG (no filter, fastest deflate) with extra chunks written after IHDR.
fn png_with(
    width: u32,
    height: u32,
    color: png::ColorType,
    depth: png::BitDepth,
    data: &[u8],
    extra: &[(&[u8; 4], Vec<u8>)],
    setup: impl FnOnce(&mut png::Encoder<'_, &mut Vec<u8>>),
) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, width, height);
        encoder.set_color(color);
        encoder.set_depth(depth);
        encoder.set_compression(png::Compression::Fastest);
        encoder.set_filter(png::Filter::NoFilter);
        setup(&mut encoder);
        let mut writer = encoder.write_header().unwrap();
        for (name, body) in extra {
            writer
                .write_chunk(png::chunk::ChunkType(**name), body)
                .unwrap();
        }
        writer.write_image_data(data).unwrap();
    }
    out
}

fn rgb(extra: &[(&[u8; 4], Vec<u8>)]) -> Vec<u8> {
    png_with(
        64,
        48,
        png::ColorType::Rgb,
        png::BitDepth::Eight,
        &pixels(64, 48, 3),
        extra,
        |_| {},
    )
}

fn limits() -> Limits {
    Limits::default()
}

fn names(png: &[u8]) -> Vec<String> {
    chunks(png)
        .unwrap()
        .iter()
        .map(|c| String::from_utf8_lossy(&c.name).into_owned())
        .collect()
}

fn icc_chunk(profile: &[u8]) -> Vec<u8> {
    let mut body = b"test profile\0\0".to_vec();
    body.extend(crate::deflate::zlib(profile, 9));
    body
}

#[test]
fn an_unoptimised_png_gets_smaller_keeps_its_pixels_and_drops_only_text_and_time() {
    let original = rgb(&[
        (b"tIME", vec![7, 234, 1, 2, 3, 4, 5]),
        (b"tEXt", b"Software\0a drawing program".to_vec()),
    ]);
    let r = recompress_png(&original, Effort::Fast, 1, &limits());
    assert_eq!(r.outcome, Recompression::Optimized, "{}", r.reason);
    let out = r.bytes.unwrap();
    assert!(out.len() < original.len());
    assert_eq!(r.dropped, vec!["tIME".to_string(), "tEXt".to_string()]);
    assert_eq!(same_samples(&original, &out, &limits()), Ok(()));
    assert!(!names(&out).iter().any(|n| n == "tEXt" || n == "tIME"));
}

#[test]
fn colour_and_size_chunks_survive_recompression() {
    let profile: Vec<u8> = (0..600u32).map(|i| (i % 251) as u8).collect();
    let original = png_with(
        64,
        48,
        png::ColorType::Rgb,
        png::BitDepth::Eight,
        &pixels(64, 48, 3),
        &[
            (b"iCCP", icc_chunk(&profile)),
            (b"pHYs", vec![0, 0, 11, 19, 0, 0, 11, 19, 1]),
        ],
        |e| {
            e.set_source_gamma(png::ScaledFloat::new(1.0 / 2.2));
        },
    );
    let r = recompress_png(&original, Effort::Default, 1, &limits());
    assert_eq!(r.outcome, Recompression::Optimized, "{}", r.reason);
    let out = r.bytes.unwrap();
    let kept = names(&out);
    for chunk in ["gAMA", "iCCP", "pHYs"] {
        assert!(kept.iter().any(|n| n == chunk), "{chunk} dropped: {kept:?}");
    }
    assert_eq!(facts(&original, &limits()), facts(&out, &limits()));
    assert!(r.dropped.is_empty(), "{:?}", r.dropped);
}

#[test]
fn a_grey_image_with_chromaticities_is_not_turned_grey_and_sixteen_bits_reduce_only_without_loss() {
    // 16-bit RGB whose samples all have equal bytes, and grey (r = g = b): oxipng may drop the
    // low bytes, but not the colour channels while cHRM is there.
    let mut data = Vec::new();
    for i in 0..32 * 32 {
        let v = (i % 256) as u8;
        data.extend_from_slice(&[v, v, v, v, v, v]);
    }
    let chrm: Vec<u8> = [31270u32, 32900, 64000, 33000, 30000, 60000, 15000, 6000]
        .iter()
        .flat_map(|v| v.to_be_bytes())
        .collect();
    let original = png_with(
        32,
        32,
        png::ColorType::Rgb,
        png::BitDepth::Sixteen,
        &data,
        &[(b"cHRM", chrm)],
        |_| {},
    );
    let r = recompress_png(&original, Effort::Default, 1, &limits());
    assert_eq!(r.outcome, Recompression::Optimized, "{}", r.reason);
    let out = r.bytes.unwrap();
    let colour_type = chunks(&out).unwrap()[0].data[9];
    assert!(
        colour_type == 2 || colour_type == 3,
        "colour type {colour_type}"
    );
    assert_eq!(same_samples(&original, &out, &limits()), Ok(()));
}

#[test]
fn a_changed_sample_or_a_lost_colour_chunk_fails_the_check() {
    let original = rgb(&[]);
    let mut data = pixels(64, 48, 3);
    data[3 * (5 * 64 + 7) + 1] ^= 1;
    let changed = png_with(
        64,
        48,
        png::ColorType::Rgb,
        png::BitDepth::Eight,
        &data,
        &[],
        |_| {},
    );
    let why = same_png(&original, &changed, false, &limits()).unwrap_err();
    assert!(why.contains("pixel (7, 5)"), "{why}");
    let gamma = png_with(
        64,
        48,
        png::ColorType::Rgb,
        png::BitDepth::Eight,
        &pixels(64, 48, 3),
        &[],
        |e| e.set_source_gamma(png::ScaledFloat::new(0.5)),
    );
    let why = same_png(&gamma, &original, false, &limits()).unwrap_err();
    assert!(why.contains("gamma"), "{why}");
}

/// An unoptimised APNG (no filter, fastest deflate) of three frames of 1/5 s, played `plays`
/// times (0: for ever): [`pixels`] with `tweak(frame, pixel index, pixel)` applied.
fn apng(width: u32, height: u32, plays: u32, tweak: impl Fn(u8, usize, &mut [u8])) -> Vec<u8> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_compression(png::Compression::Fastest);
    encoder.set_filter(png::Filter::NoFilter);
    encoder.set_animated(3, plays).unwrap();
    encoder.set_frame_delay(1, 5).unwrap();
    let mut writer = encoder.write_header().unwrap();
    for frame in 0..3u8 {
        let mut data = pixels(width, height, 4);
        for (i, p) in data.chunks_exact_mut(4).enumerate() {
            tweak(frame, i, p);
        }
        writer.write_image_data(&data).unwrap();
    }
    writer.finish().unwrap();
    out
}

#[test]
fn an_apng_is_recompressed_frame_by_frame_and_checked_with_its_timing() {
    let out = apng(40, 30, 2, |frame, _, p| {
        p[2] = p[2].wrapping_add(frame * 40)
    });
    let r = recompress_png(&out, Effort::Fast, 1, &limits());
    assert_eq!(r.outcome, Recompression::Optimized, "{}", r.reason);
    let new = r.bytes.unwrap();
    assert_eq!(
        super::super::verify::same_animation(&out, &new, &limits()),
        Ok(())
    );
    assert!(names(&new).iter().filter(|n| *n == "fcTL").count() == 3);
}

#[test]
fn an_apng_at_max_gets_its_first_frame_compressed_again_by_zopfli_and_keeps_every_frame() {
    // Large enough that the first pass leaves more than Zopfli's threshold (1,200 B).
    let out = apng(160, 120, 0, |frame, i, p| {
        p[2] = p[2].wrapping_add(frame * 40) ^ (i as u8 % 13)
    });
    let default = recompress_png(&out, Effort::Default, 1, &limits());
    let max = recompress_png(&out, Effort::Max, 1, &limits());
    assert_eq!(max.outcome, Recompression::Optimized, "{}", max.reason);
    let (default, new) = (default.bytes.unwrap(), max.bytes.unwrap());
    assert!(
        new.len() < default.len(),
        "{} ≥ {}",
        new.len(),
        default.len()
    );
    assert_eq!(
        super::super::verify::same_animation(&out, &new, &limits()),
        Ok(())
    );
    let names = names(&new);
    assert_eq!(names.iter().filter(|n| *n == "fcTL").count(), 3);
    assert_eq!(names.iter().filter(|n| *n == "IDAT").count(), 1);
}

#[test]
fn the_same_png_at_the_same_effort_gives_the_same_bytes() {
    let original = rgb(&[]);
    for effort in [Effort::Fast, Effort::Default] {
        let a = recompress_png(&original, effort, 1, &limits()).bytes;
        let b = recompress_png(&original, effort, 1, &limits()).bytes;
        assert!(a.is_some());
        assert_eq!(a, b, "{effort}");
    }
}

#[test]
fn bad_pngs_are_kept_with_their_reason() {
    let mut bad_crc = rgb(&[]);
    let at = bad_crc.len() - 20;
    bad_crc[at] ^= 0xff;
    assert_eq!(
        recompress_png(&bad_crc, Effort::Fast, 1, &limits()).outcome,
        Recompression::Corrupt
    );
    assert_eq!(
        recompress_png(b"\x89PNG\r\n\x1a\n", Effort::Fast, 1, &limits()).outcome,
        Recompression::Corrupt
    );
    let apple = rgb(&[(b"CgBI", vec![0, 0, 0, 0])]);
    let r = recompress_png(&apple, Effort::Fast, 1, &limits());
    assert_eq!(r.outcome, Recompression::Unsupported, "{}", r.reason);
    // A 65535×65535 IHDR: refused before anything is decoded.
    let mut huge = rgb(&[]);
    huge[16..24].copy_from_slice(&[0, 0, 255, 255, 0, 0, 255, 255]);
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(&huge[12..29]);
    huge[29..33].copy_from_slice(&hasher.finalize().to_be_bytes());
    let r = recompress_png(&huge, Effort::Fast, 1, &limits());
    assert_eq!(r.outcome, Recompression::TooLarge, "{}", r.reason);
}

#[test]
fn an_already_optimal_png_is_kept_as_larger() {
    let original = rgb(&[]);
    let best = recompress_png(&original, Effort::Default, 1, &limits())
        .bytes
        .unwrap();
    let again = recompress_png(&best, Effort::Default, 1, &limits());
    assert_eq!(again.outcome, Recompression::Larger, "{}", again.reason);
    assert!(again.bytes.is_none());
}
