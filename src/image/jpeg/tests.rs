use super::*;

/// A photo-like picture: smooth gradients with some texture, in RGB or grey.
fn picture(width: u32, height: u32, components: u8) -> Vec<u8> {
    let mut out = Vec::new();
    for y in 0..height {
        for x in 0..width {
            let t = ((x * 7 + y * 13) % 17) as u8;
            let rgb = [
                (x * 255 / width) as u8 ^ t,
                (y * 255 / height) as u8,
                ((x + y) * 2) as u8 / 3 + t,
            ];
            if components == 1 {
                out.push(rgb[0] / 2 + rgb[1] / 2);
            } else {
                out.extend_from_slice(&rgb);
            }
        }
    }
    out
}

fn exif() -> Vec<u8> {
    // "Exif\0\0", a big-endian TIFF header, one IFD entry: Orientation (0x0112) = 6.
    let mut e = b"Exif\0\0MM\0\x2a\0\0\0\x08\0\x01".to_vec();
    e.extend_from_slice(&[0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0]);
    e
}

fn icc() -> Vec<u8> {
    let mut p = b"ICC_PROFILE\0\x01\x01".to_vec();
    p.extend((0..300u32).map(|i| (i * 7 % 256) as u8));
    p
}

/// A plain 96 × 64 JPEG of the picture with `markers` after SOI and JFIF.
fn jpeg_with(components: u8, markers: &[Marker<'_>]) -> Vec<u8> {
    mozjpeg::encode_plain(
        &picture(96, 64, components),
        96,
        64,
        components,
        true,
        markers,
    )
}

fn camera_jpeg(components: u8) -> Vec<u8> {
    let (exif, icc) = (exif(), icc());
    let comment = b"made by a camera".to_vec();
    jpeg_with(
        components,
        &[
            Marker {
                code: 0xE1,
                data: &exif,
            },
            Marker {
                code: 0xE2,
                data: &icc,
            },
            Marker {
                code: 0xFE,
                data: &comment,
            },
        ],
    )
}

fn limits() -> Limits {
    Limits::default()
}

#[test]
fn a_camera_jpeg_gets_smaller_keeps_exif_and_icc_and_drops_the_comment() {
    for components in [3, 1] {
        let original = camera_jpeg(components);
        for effort in [Effort::Fast, Effort::Default, Effort::Max] {
            let r = recompress_jpeg(&original, effort, 1, &limits());
            assert_eq!(
                r.outcome,
                Recompression::Optimized,
                "{effort}: {}",
                r.reason
            );
            let out = r.bytes.unwrap();
            assert!(out.len() < original.len());
            assert_eq!(r.dropped, vec!["COM".to_string()]);
            assert_eq!(verify::same_jpeg(&original, &out, &limits()), Ok(()));
            let (segments, _) = segments(&out).unwrap();
            assert!(segments.iter().any(|s| s.code == 0xE1 && s.data == exif()));
            assert!(segments.iter().any(|s| s.code == 0xE2 && s.data == icc()));
            assert!(!segments.iter().any(|s| s.code == 0xFE));
        }
    }
}

#[test]
fn more_effort_is_never_larger_and_the_same_file_gives_the_same_bytes() {
    let original = camera_jpeg(3);
    let size = |effort| {
        recompress_jpeg(&original, effort, 1, &limits())
            .bytes
            .unwrap()
    };
    let (fast, default, max) = (size(Effort::Fast), size(Effort::Default), size(Effort::Max));
    assert!(default.len() <= fast.len() && max.len() <= default.len());
    assert_eq!(size(Effort::Max), max);
}

#[test]
fn a_changed_coefficient_or_lost_exif_fails_the_check() {
    let original = camera_jpeg(3);
    let no_exif = mozjpeg::encode_plain(&picture(96, 64, 3), 96, 64, 3, true, &[]);
    let why = verify::same_jpeg(&original, &no_exif, &limits()).unwrap_err();
    assert!(why.contains("EXIF"), "{why}");
    let mut other = picture(96, 64, 3);
    other[3 * (10 * 96 + 20)] ^= 0x80;
    let (exif, icc) = (exif(), icc());
    let changed = mozjpeg::encode_plain(
        &other,
        96,
        64,
        3,
        true,
        &[
            Marker {
                code: 0xE1,
                data: &exif,
            },
            Marker {
                code: 0xE2,
                data: &icc,
            },
        ],
    );
    let why = verify::same_jpeg(&original, &changed, &limits()).unwrap_err();
    assert!(why.contains("pixel"), "{why}");
}

#[test]
fn a_file_without_jfif_gets_none_and_an_optimised_file_is_kept() {
    let plain = mozjpeg::encode_plain(&picture(64, 64, 3), 64, 64, 3, false, &[]);
    let r = recompress_jpeg(&plain, Effort::Default, 1, &limits());
    let out = r.bytes.expect("optimised");
    let (segments_out, _) = segments(&out).unwrap();
    assert!(!segments_out.iter().any(|s| s.code == 0xE0));
    let again = recompress_jpeg(&out, Effort::Default, 1, &limits());
    assert_eq!(again.outcome, Recompression::Larger, "{}", again.reason);
}

#[test]
fn bad_and_unsupported_jpegs_are_kept_with_their_reason() {
    let original = camera_jpeg(3);
    let truncated = &original[..original.len() / 2];
    let r = recompress_jpeg(truncated, Effort::Fast, 1, &limits());
    assert_eq!(r.outcome, Recompression::Corrupt, "{}", r.reason);
    assert_eq!(
        recompress_jpeg(b"\xff\xd8\xff", Effort::Fast, 1, &limits()).outcome,
        Recompression::Corrupt
    );
    // The same file marked arithmetic-coded (SOF9): browsers do not show those.
    let mut arithmetic = original.clone();
    let sof = arithmetic
        .windows(2)
        .position(|w| w == [0xFF, 0xC0])
        .expect("a baseline frame header");
    arithmetic[sof + 1] = 0xC9;
    let r = recompress_jpeg(&arithmetic, Effort::Fast, 1, &limits());
    assert_eq!(r.outcome, Recompression::Unsupported, "{}", r.reason);
    let small = Limits {
        max_canvas_pixels: 100,
        ..Limits::default()
    };
    let r = recompress_jpeg(&original, Effort::Fast, 1, &small);
    assert_eq!(r.outcome, Recompression::TooLarge, "{}", r.reason);
}

/// A plain JPEG of `components` with Photoshop's Adobe marker, colour transform `transform`.
fn with_adobe_marker(components: u8, transform: u8) -> Vec<u8> {
    let adobe = [b'A', b'd', b'o', b'b', b'e', 0, 100, 0, 0, 0, 0, transform];
    jpeg_with(
        components,
        &[Marker {
            code: 0xEE,
            data: &adobe,
        }],
    )
}

#[test]
fn a_grey_jpeg_with_an_adobe_marker_is_optimised_and_keeps_it_but_an_rgb_coded_one_is_not() {
    // Photoshop writes the marker with transform 0 on grey JPEGs too (Space Jam's
    // `bg_stars.jpg`): with one component there is no transform for it to mean.
    let grey = with_adobe_marker(1, 0);
    let r = recompress_jpeg(&grey, Effort::Default, 1, &limits());
    assert_eq!(r.outcome, Recompression::Optimized, "{}", r.reason);
    let (segments, _) = segments(r.bytes.as_deref().unwrap()).unwrap();
    assert_eq!(verify::adobe_transform(&segments), Some(0));
    // Three components with transform 0 are RGB samples, which webdiet leaves alone.
    let r = recompress_jpeg(&with_adobe_marker(3, 0), Effort::Default, 1, &limits());
    assert_eq!(r.outcome, Recompression::Unsupported, "{}", r.reason);
    assert!(r.reason.contains("RGB"), "{}", r.reason);
}
