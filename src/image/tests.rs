//! Specifications of GIF → PNG/APNG conversion, on GIFs made here with the `gif` encoder and
//! on `../shared/corpora/gif-suite` (expected frames included).

use std::io::Cursor;
use std::path::PathBuf;

use gif::{DisposalMethod, Repeat};
use image::AnimationDecoder;

use super::effort::Filters;
use super::*;

/// One frame of a fixture GIF.
struct F {
    rect: (u16, u16, u16, u16),
    delay: u16,
    dispose: DisposalMethod,
    transparent: Option<u8>,
    palette: Option<Vec<u8>>,
    pixels: Vec<u8>,
    interlaced: bool,
}

impl F {
    fn new(rect: (u16, u16, u16, u16), pixels: Vec<u8>) -> Self {
        F {
            rect,
            delay: 10,
            dispose: DisposalMethod::Keep,
            transparent: None,
            palette: None,
            pixels,
            interlaced: false,
        }
    }
    fn dispose(mut self, d: DisposalMethod) -> Self {
        self.dispose = d;
        self
    }
    fn transparent(mut self, t: u8) -> Self {
        self.transparent = Some(t);
        self
    }
    fn palette(mut self, p: Vec<u8>) -> Self {
        self.palette = Some(p);
        self
    }
    fn delay(mut self, d: u16) -> Self {
        self.delay = d;
        self
    }
}

fn encode(size: (u16, u16), global: &[u8], repeat: Option<Repeat>, frames: Vec<F>) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut enc = gif::Encoder::new(&mut out, size.0, size.1, global).unwrap();
        if let Some(r) = repeat {
            enc.set_repeat(r).unwrap();
        }
        for f in frames {
            let (left, top, width, height) = f.rect;
            let mut pixels = f.pixels;
            if f.interlaced {
                pixels = interlace_rows(&pixels, width as usize, height as usize);
            }
            let frame = gif::Frame {
                left,
                top,
                width,
                height,
                delay: f.delay,
                dispose: f.dispose,
                transparent: f.transparent,
                palette: f.palette,
                interlaced: f.interlaced,
                buffer: pixels.into(),
                ..gif::Frame::default()
            };
            enc.write_frame(&frame).unwrap();
        }
    }
    out
}

/// Rows in GIF interlace order (0, 8, … / 4, 12, … / 2, 6, … / 1, 3, …).
fn interlace_rows(pixels: &[u8], w: usize, h: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(pixels.len());
    for (start, step) in [(0, 8), (4, 8), (2, 4), (1, 2)] {
        for row in (start..h).step_by(step) {
            out.extend_from_slice(&pixels[row * w..(row + 1) * w]);
        }
    }
    out
}

/// A palette of `n` distinct colours.
fn palette(n: usize) -> Vec<u8> {
    (0..n)
        .flat_map(|i| [(i * 37 % 256) as u8, (i * 91 % 256) as u8, (255 - i) as u8])
        .collect()
}

/// A `w × h` pattern over `colors` indices that compresses like a real drawing.
fn pattern(w: usize, h: usize, colors: usize, seed: usize) -> Vec<u8> {
    (0..w * h)
        .map(|i| (((i % w) / 4 + (i / w) / 3 + seed) % colors) as u8)
        .collect()
}

fn opts() -> ImageOptions {
    ImageOptions::default()
}

fn converted(gif: &[u8]) -> Vec<u8> {
    let c = convert_gif(gif, &opts());
    assert_eq!(c.outcome, Outcome::Converted, "{}", c.reason);
    let png = c.png.expect("a converted GIF has its PNG");
    verify::same_image(gif, &png, &Limits::default()).expect("the PNG shows what the GIF shows");
    png
}

fn png_info(png: &[u8]) -> png::Info<'static> {
    let reader = png::Decoder::new(Cursor::new(png.to_vec()))
        .read_info()
        .unwrap();
    reader.info().clone()
}

fn big_static(interlaced: bool, transparent: Option<u8>) -> Vec<u8> {
    let mut f = F::new((0, 0, 64, 48), pattern(64, 48, 16, 0));
    f.interlaced = interlaced;
    f.transparent = transparent;
    encode((64, 48), &palette(16), None, vec![f])
}

#[test]
fn palette_gif_becomes_a_smaller_png_with_identical_pixels() {
    let gif = big_static(false, None);
    let png = converted(&gif);
    assert!(png.len() < gif.len());
    let info = png_info(&png);
    assert!(
        info.animation_control.is_none(),
        "a still GIF stays a still PNG"
    );
    // Indexed at the fast level; oxipng may find another colour type smaller at the others
    // (this regular 16-colour pattern compresses better as RGB with filters).
    let fast = convert_gif(
        &gif,
        &ImageOptions {
            effort: Effort::Fast,
            ..opts()
        },
    );
    let fast = png_info(&fast.png.expect("converted at the fast level"));
    assert_eq!(fast.color_type, png::ColorType::Indexed);
}

#[test]
fn transparent_gif_keeps_its_transparent_pixels() {
    let gif = big_static(false, Some(3));
    let png = converted(&gif);
    let image = image::load_from_memory(&png).unwrap().into_rgba8();
    let source = pattern(64, 48, 16, 0);
    for (p, &index) in image.pixels().zip(&source) {
        assert_eq!(p.0[3] == 0, index == 3);
    }
}

#[test]
fn interlaced_transparent_gif_stays_pixel_identical_and_becomes_non_interlaced() {
    let gif = big_static(true, Some(5));
    let png = converted(&gif);
    assert!(!png_info(&png).interlaced);
}

#[test]
fn interlace_is_kept_when_asked() {
    let gif = big_static(true, None);
    let opts = ImageOptions {
        interlace: true,
        min_saving: 0,
        ..opts()
    };
    let c = convert_gif(&gif, &opts);
    assert!(
        matches!(c.outcome, Outcome::Converted | Outcome::PngLarger),
        "{}",
        c.reason
    );
    if let Some(png) = c.png {
        assert!(png_info(&png).interlaced);
    }
}

#[test]
fn gif87a_without_extensions_converts() {
    let mut gif = big_static(false, None);
    // Drop the graphic control extension (21 F9 04 …… 00) and claim GIF87a.
    let at = gif
        .windows(3)
        .position(|w| w == [0x21, 0xF9, 0x04])
        .unwrap();
    gif.drain(at..at + 8);
    gif[..6].copy_from_slice(b"GIF87a");
    converted(&gif);
}

#[test]
fn local_colour_tables_are_merged_into_one_palette() {
    let frames = vec![
        F::new((0, 0, 40, 40), pattern(40, 40, 8, 0)).palette(palette(8)),
        F::new((0, 0, 40, 40), pattern(40, 40, 8, 1)).palette(palette(16)[24..].to_vec()),
    ];
    let gif = encode((40, 40), &[], Some(Repeat::Infinite), frames);
    let png = converted(&gif);
    assert_eq!(png_info(&png).animation_control.unwrap().num_frames, 2);
}

#[test]
fn every_disposal_method_animates_identically() {
    for dispose in [
        DisposalMethod::Any,
        DisposalMethod::Keep,
        DisposalMethod::Background,
        DisposalMethod::Previous,
    ] {
        let frames = vec![
            F::new((4, 4, 30, 30), pattern(30, 30, 8, 0)).transparent(0),
            F::new((10, 10, 20, 12), pattern(20, 12, 8, 3))
                .transparent(1)
                .dispose(dispose),
            F::new((0, 20, 40, 10), pattern(40, 10, 8, 5))
                .transparent(2)
                .dispose(dispose),
            F::new((15, 0, 10, 40), pattern(10, 40, 8, 2)).dispose(dispose),
        ];
        let gif = encode((40, 40), &palette(8), Some(Repeat::Infinite), frames);
        let c = converted_or_larger(&gif, &format!("{dispose:?}"));
        assert_eq!(c.frames, 4);
    }
}

#[test]
fn loop_count_and_browser_delays_are_preserved() {
    let frame = |seed, delay| F::new((0, 0, 32, 32), pattern(32, 32, 4, seed)).delay(delay);
    for (repeat, plays) in [
        (None, 1),
        (Some(Repeat::Infinite), 0),
        (Some(Repeat::Finite(2)), 3),
    ] {
        let gif = encode(
            (32, 32),
            &palette(4),
            repeat,
            vec![frame(0, 0), frame(1, 1), frame(2, 25)],
        );
        let c = convert_gif(
            &gif,
            &ImageOptions {
                min_saving: 0,
                ..opts()
            },
        );
        let png = c.png.unwrap_or_else(|| panic!("{}", c.reason));
        let actl = png_info(&png).animation_control.unwrap();
        assert_eq!(actl.num_plays, plays);
        let decoder = image::codecs::png::PngDecoder::new(Cursor::new(&png)).unwrap();
        let delays: Vec<(u32, u32)> = decoder
            .apng()
            .unwrap()
            .into_frames()
            .map(|f| f.unwrap().delay().numer_denom_ms())
            .collect();
        assert_eq!(
            delays,
            vec![(100, 1), (100, 1), (250, 1)],
            "0–1 cs play as 100 ms"
        );
    }
}

#[test]
fn frames_outside_the_screen_are_clipped() {
    let frames = vec![
        F::new((0, 0, 40, 40), pattern(40, 40, 8, 0)),
        F::new((30, 30, 20, 20), pattern(20, 20, 8, 1)),
        F::new((60, 60, 10, 10), pattern(10, 10, 8, 2)),
    ];
    let gif = encode((40, 40), &palette(8), Some(Repeat::Infinite), frames);
    let c = converted_or_larger(&gif, "frames out of bounds");
    assert_eq!(c.frames, 3);
}

#[test]
fn zero_size_frame_never_crashes() {
    let frames = vec![
        F::new((0, 0, 40, 40), pattern(40, 40, 8, 0)),
        F::new((5, 5, 0, 0), Vec::new()),
        F::new((0, 0, 40, 40), pattern(40, 40, 8, 1)),
    ];
    let gif = encode((40, 40), &palette(8), Some(Repeat::Infinite), frames);
    let c = convert_gif(
        &gif,
        &ImageOptions {
            min_saving: 0,
            ..opts()
        },
    );
    assert_ne!(c.outcome, Outcome::VerifyFailed, "{}", c.reason);
}

#[test]
fn truncated_gif_is_kept_as_corrupt() {
    let gif = big_static(false, None);
    for cut in [5, 13, gif.len() / 2, gif.len() - 2] {
        let c = convert_gif(&gif[..cut], &opts());
        assert!(c.png.is_none());
        assert!(
            matches!(c.outcome, Outcome::Corrupt | Outcome::VerifyFailed),
            "cut at {cut}: {}",
            c.reason
        );
    }
    assert_eq!(convert_gif(b"not a gif", &opts()).outcome, Outcome::Corrupt);
}

#[test]
fn gif_without_any_palette_is_kept_as_corrupt() {
    let mut gif = big_static(false, None);
    // Remove the 16-entry global colour table and its flag.
    gif[10] &= 0x7F;
    gif.drain(13..13 + 48);
    let c = convert_gif(&gif, &opts());
    assert_eq!(c.outcome, Outcome::Corrupt, "{}", c.reason);
}

#[test]
fn decompression_bomb_is_kept_as_too_large() {
    let gif = encode(
        (5000, 5000),
        &palette(2),
        None,
        vec![F::new((0, 0, 1, 1), vec![0])],
    );
    let c = convert_gif(&gif, &opts());
    assert_eq!(c.outcome, Outcome::TooLarge, "{}", c.reason);
    assert!(c.reason.contains("limit"));
}

#[test]
fn tiny_gif_stays_gif_with_the_size_difference() {
    let gif = encode(
        (1, 1),
        &palette(2),
        None,
        vec![F::new((0, 0, 1, 1), vec![0]).transparent(0)],
    );
    let c = convert_gif(&gif, &opts());
    assert_eq!(c.outcome, Outcome::PngLarger);
    let grew = c.png_bytes.unwrap() as i64 - gif.len() as i64;
    assert_eq!(c.reason, format!("kept:png-larger(+{grew} B)"));
}

#[test]
fn no_apng_keeps_animations() {
    let frames = vec![
        F::new((0, 0, 8, 8), pattern(8, 8, 2, 0)),
        F::new((0, 0, 8, 8), pattern(8, 8, 2, 1)),
    ];
    let gif = encode((8, 8), &palette(2), None, frames);
    let c = convert_gif(
        &gif,
        &ImageOptions {
            apng: false,
            ..opts()
        },
    );
    assert_eq!(c.outcome, Outcome::Animated);
}

#[test]
fn verification_rejects_a_different_image() {
    let a = big_static(false, None);
    let b = encode(
        (64, 48),
        &palette(16),
        None,
        vec![F::new((0, 0, 64, 48), pattern(64, 48, 16, 1))],
    );
    let png_of_b = converted(&b);
    assert!(verify::same_image(&a, &png_of_b, &Limits::default()).is_err());
}

#[test]
fn effort_parses_its_three_levels_and_refuses_others() {
    assert_eq!("max".parse::<Effort>(), Ok(Effort::Max));
    assert_eq!("default".parse::<Effort>(), Ok(Effort::Default));
    assert_eq!("fast".parse::<Effort>(), Ok(Effort::Fast));
    assert!("4".parse::<Effort>().is_err());
}

fn shared(corpus: &str) -> Option<PathBuf> {
    let dir = crate::testing::shared_dir()?.join("corpora").join(corpus);
    dir.is_dir().then_some(dir)
}

#[test]
fn gif_suite_converts_to_the_expected_frames() {
    let Some(dir) = shared("gif-suite") else {
        return crate::testing::skip("gif-suite");
    };
    let mut checked = 0;
    for entry in std::fs::read_dir(dir.join("gifs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "gif") {
            continue;
        }
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let gif = std::fs::read(&path).unwrap();
        converted_or_larger(&gif, &name);
        // Re-encode to compare the actual output, even when it was not smaller.
        let scan = apng::scan(&gif, &Limits::default(), true).unwrap();
        let png = apng::encode(&gif, &scan, &Limits::default()).unwrap();
        let frames: Vec<image::RgbaImage> = if scan.frames > 1 {
            image::codecs::png::PngDecoder::new(Cursor::new(&png))
                .unwrap()
                .apng()
                .unwrap()
                .into_frames()
                .map(|f| f.unwrap().into_buffer())
                .collect()
        } else {
            vec![image::load_from_memory(&png).unwrap().into_rgba8()]
        };
        for (n, frame) in frames.iter().enumerate() {
            let expected = dir.join("gifs/frames").join(format!("{name}-{n}.png"));
            if !expected.exists() {
                continue;
            }
            let expected = image::open(&expected).unwrap().into_rgba8();
            // The suite's frames come from a decoder that clips the first frame to the logical
            // screen; Chromium grows the image to hold it (`first_frame_past_the_screen_…`).
            // What lies inside the logical screen must still be the same.
            let (w, h) = expected.dimensions();
            let shown = if frame.dimensions() != (w, h) && name.ends_with("out_of_bounds") {
                assert!(frame.width() >= w && frame.height() >= h, "{name} shrank");
                image::imageops::crop_imm(frame, 0, 0, w, h).to_image()
            } else {
                frame.clone()
            };
            verify::compare(&expected, &shown).unwrap_or_else(|e| panic!("{name} frame {n}: {e}"));
            checked += 1;
        }
    }
    assert!(checked > 0, "the suite's expected frames were found");
}

/// Converts with no minimum saving and checks the result was verified (converted, or kept only
/// because it was larger).
fn converted_or_larger(gif: &[u8], what: &str) -> Conversion {
    let c = convert_gif(
        gif,
        &ImageOptions {
            min_saving: 0,
            ..opts()
        },
    );
    assert!(
        matches!(c.outcome, Outcome::Converted | Outcome::PngLarger),
        "{what}: {}",
        c.reason
    );
    c
}

/// GIFs written byte by byte, for what the `gif` encoder refuses to write: palette indices past
/// the colour table, screens smaller than their frames, frames of 65535 × 65535.
mod raw {
    /// LZW data (minimum code size 8, 9-bit codes, a clear code every 254 codes) for `pixels`.
    pub fn lzw(pixels: &[u8]) -> Vec<u8> {
        let (mut bits, mut n, mut out) = (0u32, 0u32, Vec::new());
        let mut emit = |code: u32| {
            bits |= code << n;
            n += 9;
            while n >= 8 {
                out.push(bits as u8);
                bits >>= 8;
                n -= 8;
            }
        };
        for (i, &p) in pixels.iter().enumerate() {
            if i % 254 == 0 {
                emit(256);
            }
            emit(u32::from(p));
        }
        emit(257);
        if n > 0 {
            out.push(bits as u8);
        }
        out
    }

    /// One frame: left, top, width, height, transparent index, LZW data.
    pub type Frame = (u16, u16, u16, u16, Option<u8>, Vec<u8>);

    /// A GIF89a: `screen`, a global palette of RGB triples (none when empty), then frames as
    /// `(left, top, width, height, transparent, LZW data)`.
    pub fn gif(screen: (u16, u16), palette: &[[u8; 3]], frames: &[Frame]) -> Vec<u8> {
        let mut out = b"GIF89a".to_vec();
        out.extend_from_slice(&screen.0.to_le_bytes());
        out.extend_from_slice(&screen.1.to_le_bytes());
        let size = (palette.len().max(2).next_power_of_two().trailing_zeros() - 1) as u8;
        out.push(if palette.is_empty() { 0 } else { 0xF0 | size });
        out.extend_from_slice(&[0, 0]);
        if !palette.is_empty() {
            let mut table: Vec<u8> = palette.iter().flatten().copied().collect();
            table.resize(3 << (size + 1), 0);
            out.extend_from_slice(&table);
        }
        for (left, top, w, h, transparent, data) in frames {
            out.extend_from_slice(&[0x21, 0xF9, 4, u8::from(transparent.is_some()), 10, 0]);
            out.extend_from_slice(&[transparent.unwrap_or(0), 0]);
            out.push(0x2C);
            for v in [left, top, w, h] {
                out.extend_from_slice(&v.to_le_bytes());
            }
            out.extend_from_slice(&[0, 8]);
            for block in data.chunks(255) {
                out.push(block.len() as u8);
                out.extend_from_slice(block);
            }
            out.push(0);
        }
        out.push(0x3B);
        out
    }

    /// A `w × h` frame of index stripes 8 pixels wide, cycling through `indices`.
    pub fn stripes(w: u16, h: u16, indices: &[u8]) -> Vec<u8> {
        let pixels: Vec<u8> = (0..usize::from(w) * usize::from(h))
            .map(|i| indices[(i % usize::from(w)) / 8 % indices.len()])
            .collect();
        lzw(&pixels)
    }
}

const RED: [u8; 3] = [255, 0, 0];
const GREEN: [u8; 3] = [0, 255, 0];
const BLUE: [u8; 3] = [0, 0, 255];

/// The converted PNG as RGBA, converted with no minimum saving.
fn shown_png(gif: &[u8]) -> image::RgbaImage {
    let c = converted_or_larger(gif, "fixture");
    let scan = apng::scan(gif, &Limits::default(), true).unwrap();
    let png = apng::encode(gif, &scan, &Limits::default()).unwrap();
    verify::same_image(gif, &png, &Limits::default()).unwrap();
    assert!(c.png_bytes.is_some());
    image::load_from_memory(&png).unwrap().into_rgba8()
}

#[test]
fn first_frame_past_the_screen_grows_the_image_as_chromium_shows_it() {
    // Chromium 156: the image is the logical screen grown to the first frame's bottom-right
    // corner, whether the frame is larger than the screen, offset past it, or wholly outside.
    for (rect, size) in [
        ((0, 0, 48, 48), (48, 48)),
        ((16, 16, 32, 32), (48, 48)),
        ((48, 40, 16, 16), (64, 56)),
        ((8, 0, 48, 24), (56, 32)),
    ] {
        let (l, t, w, h) = rect;
        let gif = raw::gif(
            (32, 32),
            &[RED, GREEN],
            &[(l, t, w, h, None, raw::stripes(w, h, &[0, 1]))],
        );
        let png = shown_png(&gif);
        assert_eq!(png.dimensions(), size, "first frame at {rect:?}");
        assert_eq!(
            png.get_pixel(u32::from(l), u32::from(t)).0,
            [255, 0, 0, 255]
        );
        if l > 0 {
            assert_eq!(
                png.get_pixel(0, u32::from(t)).0[3],
                0,
                "left of the frame is empty"
            );
        }
    }
}

#[test]
fn a_logical_screen_of_zero_takes_the_first_frames_size() {
    let gif = raw::gif(
        (0, 0),
        &[RED, GREEN],
        &[(0, 0, 32, 16, None, raw::stripes(32, 16, &[0, 1]))],
    );
    assert_eq!(shown_png(&gif).dimensions(), (32, 16));
    let nothing = raw::gif((0, 0), &[RED, GREEN], &[(0, 0, 0, 0, None, raw::lzw(&[]))]);
    let c = convert_gif(&nothing, &opts());
    assert_eq!(c.outcome, Outcome::Corrupt, "{}", c.reason);
    assert!(c.reason.contains("nothing to show"), "{}", c.reason);
}

#[test]
fn palette_indices_past_the_colour_table_are_opaque_black_and_the_transparent_one_is_clear() {
    // A two-colour table; indices 2 and 3 lie past it, 7 is the transparent index.
    let gif = raw::gif(
        (32, 8),
        &[RED, GREEN],
        &[(0, 0, 32, 8, Some(7), raw::stripes(32, 8, &[0, 1, 3, 7]))],
    );
    let png = shown_png(&gif);
    let row: Vec<[u8; 4]> = (0..4).map(|i| png.get_pixel(i * 8, 0).0).collect();
    assert_eq!(
        row,
        [
            [255, 0, 0, 255],
            [0, 255, 0, 255],
            [0, 0, 0, 255],
            png.get_pixel(24, 0).0
        ]
    );
    assert_eq!(
        row[3][3], 0,
        "the transparent index past the table is transparent"
    );
}

#[test]
fn a_local_table_shorter_than_the_indices_shows_black_past_its_end() {
    let mut frame = F::new(
        (0, 0, 32, 8),
        (0..256).map(|i| ((i % 32) / 8) as u8).collect(),
    );
    frame = frame.palette([BLUE, GREEN].concat());
    // The `gif` encoder writes the 2-entry local table; indices 2 and 3 lie past it.
    let gif = encode((32, 8), &palette(4), None, vec![frame]);
    let png = shown_png(&gif);
    assert_eq!(png.get_pixel(0, 0).0, [0, 0, 255, 255]);
    assert_eq!(png.get_pixel(16, 0).0, [0, 0, 0, 255]);
}

#[test]
fn a_frame_of_65535_square_is_too_large_before_it_is_decoded() {
    // The LZW data holds one pixel: nothing is decoded, the descriptor alone is refused.
    let gif = raw::gif(
        (1, 1),
        &[RED, GREEN],
        &[(0, 0, 65535, 65535, None, raw::lzw(&[0]))],
    );
    let c = convert_gif(&gif, &opts());
    assert_eq!(c.outcome, Outcome::TooLarge, "{}", c.reason);
    assert_eq!(
        c.reason,
        "kept:too-large(the image is 65535×65535, over the 16777216-pixel limit)"
    );
    let later = raw::gif(
        (8, 8),
        &[RED, GREEN],
        &[
            (0, 0, 8, 8, None, raw::lzw(&[0; 64])),
            (0, 0, 65535, 65535, None, raw::lzw(&[0])),
        ],
    );
    let c = convert_gif(&later, &opts());
    assert_eq!(
        c.reason,
        "kept:too-large(frame 1 is 65535×65535, over the 16777216-pixel limit)"
    );
}

#[test]
fn a_49_byte_gif_claiming_65535_square_is_too_large() {
    let gif = raw::gif(
        (65535, 65535),
        &[RED, GREEN],
        &[(0, 0, 1, 1, Some(0), raw::lzw(&[0]))],
    );
    assert!(gif.len() < 50, "{} bytes", gif.len());
    let c = convert_gif(&gif, &opts());
    assert_eq!(
        c.reason,
        "kept:too-large(the image is 65535×65535, over the 16777216-pixel limit)"
    );
}

#[test]
fn frames_summing_past_the_total_limit_stop_before_the_one_that_crosses_it() {
    let limits = Limits {
        max_canvas_pixels: 64 * 64,
        max_total_pixels: 10 * 2 * 64 * 64,
        max_frames: 100,
    };
    let frame = || (0, 0, 64, 64, None, raw::lzw(&[0; 64 * 64]));
    // Ten full-canvas frames cost 10 × (frame + canvas): exactly the limit.
    let ten = raw::gif((64, 64), &[RED, GREEN], &vec![frame(); 10]);
    let c = convert_gif(
        &ten,
        &ImageOptions {
            limits,
            min_saving: 0,
            ..opts()
        },
    );
    assert_ne!(c.outcome, Outcome::TooLarge, "{}", c.reason);
    let eleven = raw::gif((64, 64), &[RED, GREEN], &vec![frame(); 11]);
    let c = convert_gif(&eleven, &ImageOptions { limits, ..opts() });
    assert_eq!(
        c.reason,
        "kept:too-large(frames 0–10 of 64×64 decode and composite over 81920 pixels)"
    );
    // Frames larger than a tiny screen count their own area: a 1×1 screen does not make
    // large frames free.
    let small_screen = raw::gif(
        (1, 1),
        &[RED, GREEN],
        &[(0, 0, 1, 1, None, raw::lzw(&[0]))]
            .into_iter()
            .chain(vec![frame(); 20])
            .collect::<Vec<_>>(),
    );
    let c = convert_gif(&small_screen, &ImageOptions { limits, ..opts() });
    assert_eq!(c.outcome, Outcome::TooLarge, "{}", c.reason);
    let many = raw::gif(
        (1, 1),
        &[RED, GREEN],
        &vec![(0, 0, 1, 1, None, raw::lzw(&[0])); 101],
    );
    let c = convert_gif(&many, &ImageOptions { limits, ..opts() });
    assert_eq!(c.reason, "kept:too-large(more than 100 frames)");
}

#[test]
fn an_interlaced_frame_of_odd_width_is_read_not_called_truncated() {
    // Found by the GIF property test: the `gif` crate's row-by-row deinterlacing called this
    // valid frame (browsers and Pillow show it) "image truncated".
    let global: Vec<u8> = (0..16 * 3).map(|i| (i * 17 % 256) as u8).collect();
    let pixels = vec![
        6u8, 6, 6, 6, 6, 11, 11, 11, 11, 11, 15, 15, 15, 15, 15, 12, 12, 12, 12, 12, 1, 1, 1, 1,
    ];
    let mut gif = Vec::new();
    {
        let mut enc = gif::Encoder::new(&mut gif, 3, 8, &global).unwrap();
        let frame = gif::Frame {
            width: 3,
            height: 8,
            interlaced: true,
            buffer: pixels.clone().into(),
            ..gif::Frame::default()
        };
        enc.write_frame(&frame).unwrap();
    }
    let png = shown_png(&gif);
    // Stored rows 0..8 are shown at rows 0, 4, 2, 6, 1, 3, 5, 7.
    for (stored, shown) in [0u32, 4, 2, 6, 1, 3, 5, 7].into_iter().enumerate() {
        for x in 0..3 {
            let i = usize::from(pixels[stored * 3 + x as usize]);
            let rgb = &global[i * 3..i * 3 + 3];
            assert_eq!(&png.get_pixel(x, shown).0[..3], rgb, "row {shown}");
        }
    }
}

#[test]
fn restore_to_previous_after_restore_to_background_verifies() {
    // Found by the GIF property test: the `image` crate's APNG decoder restored "previous" to
    // the canvas from before the background disposal, and so rejected this correct APNG.
    let frames = vec![
        F::new((0, 0, 16, 8), pattern(16, 8, 4, 0)).dispose(DisposalMethod::Background),
        F::new((0, 0, 4, 4), pattern(4, 4, 4, 1)).dispose(DisposalMethod::Previous),
        F::new((8, 4, 4, 4), pattern(4, 4, 4, 2)),
    ];
    let gif = encode((16, 8), &palette(4), Some(Repeat::Infinite), frames);
    let c = converted_or_larger(&gif, "background then previous");
    assert_eq!(c.frames, 3);
}

/// One frame control: x, y, width, height, dispose, blend, delay numerator and denominator.
type Control = (u32, u32, u32, u32, u8, u8, u16, u16);

/// The frame controls of an APNG, read by the `png` crate.
fn frame_controls(png: &[u8]) -> Vec<Control> {
    let mut reader = png::Decoder::new(Cursor::new(png)).read_info().unwrap();
    let mut buffer = vec![0; reader.output_buffer_size().unwrap()];
    let mut out = Vec::new();
    while reader.next_frame(&mut buffer).is_ok() {
        let fc = reader.info().frame_control().copied().unwrap();
        out.push((
            fc.x_offset,
            fc.y_offset,
            fc.width,
            fc.height,
            fc.dispose_op as u8,
            fc.blend_op as u8,
            fc.delay_num,
            fc.delay_den,
        ));
        if out.len() == reader.info().animation_control().unwrap().num_frames as usize {
            break;
        }
    }
    out
}

#[test]
fn an_apng_frame_is_cut_to_the_pixels_that_changed() {
    // The GIF redraws the whole 40×40 frame; only a 3×2 block at (10, 12) differs.
    let first = pattern(40, 40, 8, 0);
    let mut second = first.clone();
    for (x, y) in [(10, 12), (12, 12), (11, 13)] {
        second[y * 40 + x] = (second[y * 40 + x] + 1) % 8;
    }
    let frames = vec![
        F::new((0, 0, 40, 40), first),
        F::new((0, 0, 40, 40), second),
    ];
    let gif = encode((40, 40), &palette(8), Some(Repeat::Infinite), frames);
    let controls = frame_controls(&converted(&gif));
    assert_eq!(controls.len(), 2);
    let (x, y, w, h, ..) = controls[0];
    assert_eq!(
        (x, y, w, h),
        (0, 0, 40, 40),
        "the first frame covers the canvas"
    );
    let (x, y, w, h, ..) = controls[1];
    assert_eq!((x, y, w, h), (10, 12, 3, 2));
}

#[test]
fn an_unchanged_frame_becomes_one_pixel_that_keeps_its_delay() {
    let frames = vec![
        F::new((0, 0, 40, 40), pattern(40, 40, 8, 0)),
        F::new((0, 0, 40, 40), pattern(40, 40, 8, 0)).delay(37),
        F::new((0, 0, 40, 40), pattern(40, 40, 8, 1)).delay(1),
    ];
    let gif = encode((40, 40), &palette(8), Some(Repeat::Infinite), frames);
    let controls = frame_controls(&converted(&gif));
    assert_eq!(controls.len(), 3, "one APNG frame per GIF frame");
    assert_eq!((controls[1].2, controls[1].3), (1, 1));
    let delays: Vec<(u16, u16)> = controls.iter().map(|c| (c.6, c.7)).collect();
    assert_eq!(delays, vec![(10, 100), (37, 100), (10, 100)]);
}

#[test]
fn pixels_cleared_by_disposal_verify_even_when_no_palette_has_a_transparent_entry() {
    // No transparent index anywhere: the transparency comes only from restore-to-background.
    for colors in [8, 256] {
        let frames = vec![
            F::new((0, 0, 40, 40), pattern(40, 40, colors, 0)).dispose(DisposalMethod::Background),
            F::new((8, 8, 20, 20), pattern(20, 20, colors, 3)).dispose(DisposalMethod::Background),
            F::new((0, 30, 40, 10), pattern(40, 10, colors, 5)),
        ];
        let gif = encode((40, 40), &palette(colors), Some(Repeat::Infinite), frames);
        let c = converted_or_larger(&gif, &format!("{colors} colours"));
        assert_eq!(c.frames, 3);
    }
}

#[test]
fn the_same_gif_gives_the_same_bytes_at_each_effort() {
    let still = big_static(false, Some(0));
    let animated = encode(
        (40, 40),
        &palette(8),
        Some(Repeat::Infinite),
        vec![
            F::new((0, 0, 40, 40), pattern(40, 40, 8, 0)),
            F::new((4, 4, 20, 20), pattern(20, 20, 8, 1)).dispose(DisposalMethod::Previous),
            F::new((0, 0, 40, 40), pattern(40, 40, 8, 2)).transparent(3),
        ],
    );
    for effort in [Effort::Fast, Effort::Default, Effort::Max] {
        let o = ImageOptions {
            effort,
            min_saving: 0,
            ..opts()
        };
        for gif in [&still, &animated] {
            let (a, b) = (convert_gif(gif, &o), convert_gif(gif, &o));
            assert_eq!(a.outcome, Outcome::Converted, "{effort}: {}", a.reason);
            assert_eq!(a.png, b.png, "{effort}: two runs differ");
        }
    }
}

#[test]
fn default_and_max_rank_reductions_with_two_filters_and_compress_with_libdeflate_12() {
    use oxipng::FilterStrategy as S;
    // With at most two filter strategies, oxipng ranks its palette and bit-depth candidates
    // with them (more would rank them with None and Bigrams instead, which chose worse
    // palettes on Space Jam); libdeflate 12 gives its highest reduction effort.
    for (level, other) in [(Effort::Default, S::MinSum), (Effort::Max, S::Entropy)] {
        let o = effort::static_options(level, false);
        let filters: Vec<S> = o.filters.iter().cloned().collect();
        assert_eq!(filters, vec![S::NONE, other], "{level}");
        assert_eq!(
            o.deflater,
            oxipng::Deflater::Libdeflater { compression: 12 },
            "{level}"
        );
        assert!(
            o.optimize_alpha && o.palette_reduction && o.bit_depth_reduction,
            "{level}"
        );
    }
}

#[test]
fn zopfli_runs_only_at_max_on_results_past_its_threshold_with_fewer_iterations_when_large() {
    let iterations = |o: Option<effort::ZopfliPass>| o.map(|o| o.iterations);
    let (from, fewer) = (effort::ZOPFLI_FROM_BYTES, effort::ZOPFLI_FEWER_FROM_BYTES);
    let (small, large) = (64 * 64, effort::ZOPFLI_LARGE_PIXELS + 1);
    assert!(from < fewer);
    for level in [Effort::Fast, Effort::Default] {
        let pass = effort::zopfli_pass(level, small, fewer * 10, Filters::All);
        assert_eq!(iterations(pass), None, "{level}");
    }
    let max = |pixels, bytes| {
        iterations(effort::zopfli_pass(
            Effort::Max,
            pixels,
            bytes,
            Filters::Pair,
        ))
    };
    assert_eq!(max(small, from - 1), None);
    assert_eq!(max(small, from), Some(20));
    assert_eq!(max(small, fewer - 1), Some(20));
    assert_eq!(max(small, fewer), Some(15));
    assert_eq!(max(large, from), Some(2));
    assert_eq!(max(large, from - 1), None);
    // The second pass works on an image already reduced: colour type, depth and palette stay.
    // Its ranking writes a PNG even when it is not smaller (Zopfli compresses it afterwards),
    // at a level whose ranking deflater is the one oxipng uses before any final level from 11.
    let o = effort::zopfli_pass(Effort::Max, small, from, Filters::Pair)
        .expect("a pass")
        .ranking;
    assert!(!o.palette_reduction && !o.bit_depth_reduction && !o.color_type_reduction);
    assert!(o.force);
    assert_eq!(
        o.deflater,
        oxipng::Deflater::Libdeflater { compression: 11 }
    );
}

#[test]
fn a_sites_own_pngs_get_zopfli_on_the_best_of_all_ten_filter_strategies_and_gifs_on_the_pair() {
    use oxipng::FilterStrategy as S;
    let filters = |which| {
        let o = effort::zopfli_pass(Effort::Max, 64 * 64, 5000, which)
            .expect("a pass")
            .ranking;
        // Ranked by a quick deflate, one Zopfli run on the winner.
        assert!(o.fast_evaluation);
        o.filters.into_iter().collect::<Vec<S>>()
    };
    assert_eq!(filters(Filters::Pair), vec![S::NONE, S::Entropy]);
    let all = filters(Filters::All);
    assert_eq!(all.len(), 10);
    for s in [
        S::NONE,
        S::SUB,
        S::UP,
        S::AVERAGE,
        S::PAETH,
        S::MinSum,
        S::Entropy,
    ] {
        assert!(all.contains(&s), "{s:?}");
    }
    assert!(all.iter().any(|s| matches!(s, S::Brute { .. })));
}
