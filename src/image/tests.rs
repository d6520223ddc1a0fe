//! Specifications of GIF → PNG/APNG conversion, on GIFs made here with the `gif` encoder and
//! on `../shared/corpora/gif-suite` (expected frames included).

use std::io::Cursor;
use std::path::PathBuf;

use gif::{DisposalMethod, Repeat};
use image::AnimationDecoder;

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
fn palette_gif_becomes_a_smaller_indexed_png_with_identical_pixels() {
    let gif = big_static(false, None);
    let png = converted(&gif);
    assert!(png.len() < gif.len());
    let info = png_info(&png);
    assert!(
        info.animation_control.is_none(),
        "a still GIF stays a still PNG"
    );
    assert_eq!(info.color_type, png::ColorType::Indexed);
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
fn png_level_parses_presets_and_max() {
    assert_eq!("max".parse::<PngLevel>(), Ok(PngLevel::Max));
    assert_eq!("4".parse::<PngLevel>(), Ok(PngLevel::Preset(4)));
    assert!("7".parse::<PngLevel>().is_err());
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
        let decoded = decode::read(&gif, &Limits::default()).unwrap();
        let png = apng::encode(&decoded).unwrap();
        let frames: Vec<image::RgbaImage> = if decoded.frames.len() > 1 {
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
            verify::compare(&expected, frame).unwrap_or_else(|e| panic!("{name} frame {n}: {e}"));
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
