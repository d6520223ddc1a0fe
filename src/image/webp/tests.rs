//! Specifications of the WebP target: GIFs made here with the `gif` encoder become lossless
//! WebPs (still or animated) that an independent decoder shows as the browser shows the GIF,
//! frame by frame and delay by delay; the check rejects what differs; `best` keeps a WebP only
//! when it is smaller than both the GIF and the PNG.

use gif::{DisposalMethod, Repeat};

use super::super::{convert_gif, Conversion, Effort, ImageOptions, Limits, Outcome, Target};
use super::verify::same_image;

/// One fixture frame: rectangle, delay (cs), disposal, transparent index, indices.
struct F {
    rect: (u16, u16, u16, u16),
    delay: u16,
    dispose: DisposalMethod,
    transparent: Option<u8>,
    pixels: Vec<u8>,
}

fn f(rect: (u16, u16, u16, u16), seed: usize) -> F {
    let (w, h) = (usize::from(rect.2), usize::from(rect.3));
    F {
        rect,
        delay: 10,
        dispose: DisposalMethod::Keep,
        transparent: None,
        pixels: (0..w * h)
            .map(|i| (((i % w) / 4 + (i / w) / 3 + seed) % 8) as u8)
            .collect(),
    }
}

/// Eight colours; index 0 is the one fixtures make transparent.
fn palette() -> Vec<u8> {
    (0..8usize)
        .flat_map(|i| [i * 30, 255 - i * 25, i * 77 % 255].map(|c| c as u8))
        .collect()
}

fn gif(size: (u16, u16), repeat: Option<Repeat>, frames: Vec<F>) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut enc = gif::Encoder::new(&mut out, size.0, size.1, &palette()).unwrap();
        if let Some(r) = repeat {
            enc.set_repeat(r).unwrap();
        }
        for fr in frames {
            let (left, top, width, height) = fr.rect;
            let frame = gif::Frame {
                left,
                top,
                width,
                height,
                delay: fr.delay,
                dispose: fr.dispose,
                transparent: fr.transparent,
                buffer: fr.pixels.into(),
                ..gif::Frame::default()
            };
            enc.write_frame(&frame).unwrap();
        }
    }
    out
}

fn opts(target: Target) -> ImageOptions {
    ImageOptions {
        target,
        ..ImageOptions::default()
    }
}

fn webp_of(gif: &[u8]) -> Vec<u8> {
    let c = convert_gif(gif, &opts(Target::Webp));
    assert_eq!(c.outcome, Outcome::Converted, "{}", c.reason);
    assert!(c.png.is_none(), "a WebP conversion offers no PNG");
    let webp = c.webp.expect("a converted GIF has its WebP");
    assert_eq!(c.webp_bytes, Some(webp.len() as u64));
    webp
}

/// The top-level RIFF chunks of a WebP: four-character code and data.
fn chunks(webp: &[u8]) -> Vec<([u8; 4], Vec<u8>)> {
    let mut out = Vec::new();
    let mut at = 12;
    while at + 8 <= webp.len() {
        let size = u32::from_le_bytes(webp[at + 4..at + 8].try_into().unwrap()) as usize;
        out.push((
            webp[at..at + 4].try_into().unwrap(),
            webp[at + 8..at + 8 + size].to_vec(),
        ));
        at += 8 + size + size % 2;
    }
    out
}

/// Offset of the first top-level chunk called `fourcc`.
fn chunk_at(webp: &[u8], fourcc: &[u8; 4]) -> usize {
    let mut at = 12;
    while &webp[at..at + 4] != fourcc {
        let size = u32::from_le_bytes(webp[at + 4..at + 8].try_into().unwrap()) as usize;
        at += 8 + size + size % 2;
    }
    at
}

fn big_still(transparent: Option<u8>) -> Vec<u8> {
    let mut frame = f((0, 0, 96, 64), 0);
    frame.transparent = transparent;
    gif((96, 64), None, vec![frame])
}

#[test]
fn still_gif_becomes_a_smaller_lossless_webp_that_decodes_to_the_same_pixels() {
    let g = big_still(None);
    let webp = webp_of(&g);
    assert!(webp.len() < g.len());
    assert_eq!(&webp[..4], b"RIFF");
    assert_eq!(&webp[8..12], b"WEBP");
    assert_eq!(&chunks(&webp)[0].0, b"VP8L", "a still lossless bitstream");
    // Independently of our check: the pure-Rust decoder shows the GIF's first-frame pixels.
    let mut decoder = image_webp::WebPDecoder::new(std::io::Cursor::new(&webp)).unwrap();
    let mut buf = vec![0; decoder.output_buffer_size().unwrap()];
    decoder.read_image(&mut buf).unwrap();
    let shown = image::load_from_memory(&g).unwrap().to_rgba8();
    let rgba: Vec<u8> = if decoder.has_alpha() {
        buf
    } else {
        buf.chunks(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect()
    };
    assert_eq!(rgba, shown.into_raw());
}

#[test]
fn transparent_pixels_stay_transparent_in_the_webp() {
    let g = big_still(Some(0));
    let webp = webp_of(&g);
    same_image(&g, &webp, &Limits::default()).unwrap();
    let mut decoder = image_webp::WebPDecoder::new(std::io::Cursor::new(&webp)).unwrap();
    assert!(decoder.has_alpha());
    let mut buf = vec![0; decoder.output_buffer_size().unwrap()];
    decoder.read_image(&mut buf).unwrap();
    let clear = buf.chunks(4).filter(|p| p[3] == 0).count();
    let expected = f((0, 0, 96, 64), 0)
        .pixels
        .iter()
        .filter(|&&i| i == 0)
        .count();
    assert_eq!(clear, expected);
}

fn animation(repeat: Option<Repeat>) -> Vec<u8> {
    let mut frames = vec![f((0, 0, 64, 48), 0)];
    for (i, dispose) in [
        DisposalMethod::Keep,
        DisposalMethod::Background,
        DisposalMethod::Previous,
        DisposalMethod::Any,
    ]
    .into_iter()
    .enumerate()
    {
        let mut fr = f((8 + 4 * i as u16, 6, 24, 20), i + 1);
        fr.dispose = dispose;
        fr.transparent = Some(0);
        fr.delay = [0, 1, 7, 25][i];
        frames.push(fr);
    }
    gif((64, 48), repeat, frames)
}

#[test]
fn every_disposal_and_delay_of_an_animation_verifies_as_an_animated_webp() {
    let g = animation(Some(Repeat::Infinite));
    let webp = webp_of(&g);
    let names: Vec<[u8; 4]> = chunks(&webp).into_iter().map(|c| c.0).collect();
    assert!(names.contains(b"ANIM"), "{names:?}");
    assert!(names.iter().filter(|n| *n == b"ANMF").count() >= 2);
    same_image(&g, &webp, &Limits::default()).unwrap();
}

#[test]
fn gif_delays_of_0_and_1_play_at_100_ms_in_the_webp_as_in_browsers() {
    let g = animation(Some(Repeat::Infinite));
    let webp = webp_of(&g);
    let durations: Vec<u32> = chunks(&webp)
        .into_iter()
        .filter(|c| &c.0 == b"ANMF")
        .map(|c| u32::from_le_bytes([c.1[12], c.1[13], c.1[14], 0]))
        .collect();
    assert!(durations.iter().all(|&d| d > 10), "{durations:?}");
    // The whole animation lasts as browsers play the GIF: 100 + 100 + 100 + 70 + 250 ms.
    assert_eq!(durations.iter().sum::<u32>(), 620, "{durations:?}");
}

#[test]
fn loop_counts_become_the_number_of_plays_browsers_show() {
    for (repeat, plays) in [
        (Some(Repeat::Infinite), 0u16),
        (None, 1),
        (Some(Repeat::Finite(1)), 2),
        (Some(Repeat::Finite(4)), 5),
    ] {
        let webp = webp_of(&animation(repeat));
        let anim = chunks(&webp).into_iter().find(|c| &c.0 == b"ANIM").unwrap();
        assert_eq!(
            u16::from_le_bytes([anim.1[4], anim.1[5]]),
            plays,
            "{repeat:?}"
        );
    }
}

#[test]
fn the_check_rejects_a_changed_delay_loop_count_or_picture() {
    let g = animation(Some(Repeat::Infinite));
    let webp = webp_of(&g);
    let limits = Limits::default();
    same_image(&g, &webp, &limits).unwrap();

    let mut slower = webp.clone();
    let frame = chunk_at(&slower, b"ANMF");
    slower[frame + 8 + 12] = slower[frame + 8 + 12].wrapping_add(20);
    let why = same_image(&g, &slower, &limits).unwrap_err();
    assert!(why.contains("WebP"), "{why}");

    let mut once = webp.clone();
    let anim = chunk_at(&once, b"ANIM");
    once[anim + 8 + 4] = 1;
    let why = same_image(&g, &once, &limits).unwrap_err();
    assert!(why.contains("plays forever times, the WebP 1"), "{why}");

    // The same GIF with its second frame one pixel to the right.
    let mut frames = vec![f((0, 0, 64, 48), 0)];
    let mut moved = f((9, 6, 24, 20), 1);
    moved.transparent = Some(0);
    moved.delay = 0;
    frames.push(moved);
    let other = gif((64, 48), Some(Repeat::Infinite), frames);
    let why = same_image(&other, &webp, &limits).unwrap_err();
    assert!(why.contains("frame 1"), "{why}");
}

#[test]
fn the_check_rejects_a_lossy_bitstream() {
    let g = big_still(None);
    let mut fake = b"RIFF\x0c\x00\x00\x00WEBPVP8 \x00\x00\x00\x00".to_vec();
    fake[4] = (fake.len() - 8) as u8;
    let why = same_image(&g, &fake, &Limits::default()).unwrap_err();
    assert!(why.contains("lossy"), "{why}");
}

#[test]
fn the_check_rejects_a_still_webp_of_an_animation() {
    let g = animation(None);
    // A still WebP of the animation's first frame: right for frame 0 only.
    let still = webp_of(&gif((64, 48), None, vec![f((0, 0, 64, 48), 0)]));
    let why = same_image(&g, &still, &Limits::default()).unwrap_err();
    assert!(
        why.starts_with("frame 1 (the WebP is a still image)"),
        "{why}"
    );
}

#[test]
fn an_animation_that_never_changes_may_become_a_still_webp() {
    // Later frames wholly outside the canvas draw nothing: the GIF always shows frame 0.
    let mut outside = f((70, 50, 8, 8), 3);
    outside.delay = 50;
    let g = gif(
        (64, 48),
        Some(Repeat::Infinite),
        vec![f((0, 0, 64, 48), 0), outside],
    );
    let c = convert_gif(&g, &opts(Target::Webp));
    assert_eq!(c.outcome, Outcome::Converted, "{}", c.reason);
    assert_eq!(c.frames, 2);
    let webp = c.webp.unwrap();
    assert_eq!(&chunks(&webp)[0].0, b"VP8L", "libwebp wrote a still image");
    same_image(&g, &webp, &Limits::default()).unwrap();
}

#[test]
fn a_webp_not_smaller_than_the_gif_is_kept_with_its_reason() {
    let g = big_still(None);
    let c = convert_gif(
        &g,
        &ImageOptions {
            min_saving: g.len() as u64,
            ..opts(Target::Webp)
        },
    );
    assert_eq!(c.outcome, Outcome::WebpLarger);
    assert!(c.reason.starts_with("kept:webp-larger(-"), "{}", c.reason);
    assert!(c.webp.is_none() && c.png.is_none());
    assert!(
        c.webp_bytes.is_some(),
        "the verified size is still reported"
    );
}

fn best(gif: &[u8]) -> Conversion {
    convert_gif(gif, &opts(Target::Best))
}

#[test]
fn best_serves_the_smallest_verified_file_and_names_both_candidates() {
    for g in [big_still(None), big_still(Some(0)), animation(None)] {
        let c = best(&g);
        let (png, webp) = (c.png_bytes.unwrap(), c.webp_bytes.unwrap());
        let gif = g.len() as u64;
        assert!(
            c.reason.contains("png ") && c.reason.contains("webp "),
            "{}",
            c.reason
        );
        match (&c.png, &c.webp) {
            (None, Some(file)) => {
                assert!(webp < png && webp < gif, "{}", c.reason);
                assert_eq!(file.len() as u64, webp);
                assert!(c.reason.starts_with("converted(webp -"), "{}", c.reason);
            }
            (Some(file), None) => {
                assert!(png <= webp && png < gif, "{}", c.reason);
                assert_eq!(file.len() as u64, png);
                assert!(c.reason.starts_with("converted(png -"), "{}", c.reason);
            }
            _ => panic!("one file, not {}", c.reason),
        }
        assert_eq!(c.outcome, Outcome::Converted);
    }
}

#[test]
fn best_keeps_the_gif_when_neither_candidate_saves_enough() {
    let g = big_still(None);
    let c = convert_gif(
        &g,
        &ImageOptions {
            min_saving: g.len() as u64,
            ..opts(Target::Best)
        },
    );
    assert!(
        matches!(c.outcome, Outcome::PngLarger | Outcome::WebpLarger),
        "{}",
        c.reason
    );
    assert!(c.png.is_none() && c.webp.is_none());
    // The code names the candidate that came closer, and the detail lists it first.
    let closer = if c.webp_bytes < c.png_bytes {
        "kept:webp-larger(webp "
    } else {
        "kept:png-larger(png "
    };
    assert!(c.reason.starts_with(closer), "{}", c.reason);
}

#[test]
fn corrupt_gifs_are_kept_as_corrupt_in_every_format() {
    let mut g = big_still(None);
    g.truncate(g.len() / 2);
    for target in [Target::Webp, Target::Best] {
        let c = convert_gif(&g, &opts(target));
        assert_eq!(c.outcome, Outcome::Corrupt, "{target}: {}", c.reason);
    }
}

#[test]
fn the_same_gif_gives_the_same_webp_at_each_effort() {
    for effort in [Effort::Fast, Effort::Default, Effort::Max] {
        let o = ImageOptions {
            effort,
            ..opts(Target::Webp)
        };
        for g in [big_still(Some(0)), animation(None)] {
            let (a, b) = (convert_gif(&g, &o), convert_gif(&g, &o));
            assert_eq!(a.outcome, Outcome::Converted, "{effort}: {}", a.reason);
            assert_eq!(a.webp, b.webp, "{effort}: two runs differ");
        }
    }
}

#[test]
fn image_formats_parse_and_refuse_others() {
    for (s, t) in [
        ("png", Target::Png),
        ("webp", Target::Webp),
        ("best", Target::Best),
    ] {
        assert_eq!(s.parse::<Target>().unwrap(), t);
        assert_eq!(t.to_string(), s);
    }
    assert!("avif"
        .parse::<Target>()
        .unwrap_err()
        .contains("png, webp or best"));
}
