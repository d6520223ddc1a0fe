//! Decompression bombs through the binary: a GIF that claims an enormous image, frames that
//! sum to gigapixels, long animations of a large canvas. Each is kept with a clear
//! `kept:too-large(…)` reason, or converted, and the peak memory of the `webdiet` process stays
//! bounded by the largest single image within the limits, whatever the frame count.
//!
//! Peak memory is read from `/usr/bin/time -v` (Debian's `time` package); without it these
//! tests skip with a note, and fail under `CI=true`.

use crate::common;

use common::rawgif::{self, lzw_zeros, Frame};

/// A GIF of `screen` with a two-colour table and `frames` (left, top, width, height), every
/// frame all index 0.
fn zero_gif(screen: (u16, u16), frames: &[(u16, u16, u16, u16)]) -> Vec<u8> {
    let mut data: Option<((u16, u16), Vec<u8>)> = None;
    let frames: Vec<Frame> = frames
        .iter()
        .map(|&(left, top, w, h)| {
            let lzw = match &data {
                Some((size, lzw)) if *size == (w, h) => lzw.clone(),
                _ => lzw_zeros(u64::from(w) * u64::from(h)),
            };
            data = Some(((w, h), lzw.clone()));
            Frame {
                data: lzw,
                delay_cs: 10,
                ..Frame::new((left, top, w, h), &[])
            }
        })
        .collect();
    rawgif::gif(screen, &[[0, 0, 0], [255, 255, 255]], 0, &frames)
}

/// What `webdiet rewrite` did with one GIF on one page: its reason code and the process's peak
/// resident memory in KiB. `None` when `/usr/bin/time` is missing (skip).
fn rewrite_one(gif: &[u8]) -> Option<(String, u64)> {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    common::write_site(&site, &[("index.html", b"<img src=a.gif>"), ("a.gif", gif)]);
    let out = tmp.path().join("out");
    let args: [&std::ffi::OsStr; 7] = [
        "rewrite".as_ref(),
        "--effort".as_ref(),
        "fast".as_ref(),
        "--no-markup".as_ref(),
        site.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
    ];
    let (rss, _) = common::peak_kib(&args)?;
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(tmp.path().join("out/report.json")).unwrap())
            .unwrap();
    let reason = report["images"][0]["reason"].as_str().unwrap().to_string();
    Some((reason, rss))
}

/// 64 MiB: far below any canvas of the claimed sizes (65535² pixels are 4 GiB at one byte
/// each), far above the process itself.
const SMALL_KIB: u64 = 64 * 1024;

#[test]
fn a_49_byte_gif_claiming_65535_square_is_too_large_and_never_allocated() {
    let gif = zero_gif((65535, 65535), &[(0, 0, 1, 1)]);
    assert!(gif.len() <= 49, "{} bytes", gif.len());
    let Some((reason, rss)) = rewrite_one(&gif) else {
        return;
    };
    assert_eq!(
        reason,
        "kept:too-large(the image is 65535×65535, over the 16777216-pixel limit)"
    );
    assert!(rss < SMALL_KIB, "peak {rss} KiB");
}

#[test]
fn a_65535_square_frame_on_a_tiny_screen_is_too_large_not_corrupt() {
    // Chromium grows a 1×1 screen to hold its first frame: this is a 65535² image.
    let first = zero_gif((1, 1), &[(0, 0, 65535, 65535)]);
    // A later frame of that size does not grow the image, and is refused by its own size.
    let later = zero_gif((16, 16), &[(0, 0, 16, 16), (0, 0, 65535, 65535)]);
    let (Some((first, first_rss)), Some((later, later_rss))) =
        (rewrite_one(&first), rewrite_one(&later))
    else {
        return;
    };
    assert_eq!(
        first,
        "kept:too-large(the image is 65535×65535, over the 16777216-pixel limit)"
    );
    assert_eq!(
        later,
        "kept:too-large(frame 1 is 65535×65535, over the 16777216-pixel limit)"
    );
    assert!(first_rss < SMALL_KIB && later_rss < SMALL_KIB);
}

#[test]
fn frames_summing_to_gigapixels_stop_at_the_work_limit() {
    // 200 frames of 4096² on a 16² screen: 3.4 gigapixels to decode. The first frame grows
    // the image to 4096² (as in Chromium); each frame then costs its area plus the canvas.
    let frames = vec![(0, 0, 4096, 4096); 200];
    let gif = zero_gif((16, 16), &frames);
    let Some((reason, rss)) = rewrite_one(&gif) else {
        return;
    };
    assert_eq!(
        reason,
        "kept:too-large(frames 0–8 of 4096×4096 decode and composite over 268435456 pixels)"
    );
    // Nothing is decoded past the frame that crosses the limit, and one frame at a time.
    assert!(rss < 4 * SMALL_KIB, "peak {rss} KiB");
}

#[test]
fn a_long_animation_takes_little_more_memory_than_one_of_its_frames() {
    // 60 frames of 1024² (a 60-megapixel animation, within the limits) against one such frame:
    // frames are decoded, written and verified one at a time, so the animation may not cost
    // more than twice the still image (holding its frames would cost 60 MiB more, indexed).
    let frame = (0, 0, 1024, 1024);
    let still = zero_gif((1024, 1024), &[frame]);
    let animation = zero_gif((1024, 1024), &[frame; 60]);
    let (Some((still_reason, still_rss)), Some((anim_reason, anim_rss))) =
        (rewrite_one(&still), rewrite_one(&animation))
    else {
        return;
    };
    assert!(still_reason.starts_with("converted("), "{still_reason}");
    assert!(anim_reason.starts_with("converted("), "{anim_reason}");
    assert!(
        anim_rss < 2 * still_rss,
        "60 frames peaked at {anim_rss} KiB, one frame at {still_rss} KiB"
    );
}

#[test]
fn an_animation_past_the_work_limit_is_too_large_with_the_frame_that_crossed_it() {
    // 500 frames of 1024² would be 1 gigapixel decoded plus 0.5 composited.
    let animation = zero_gif((1024, 1024), &[(0, 0, 1024, 1024); 500]);
    let Some((reason, rss)) = rewrite_one(&animation) else {
        return;
    };
    assert_eq!(
        reason,
        "kept:too-large(frames 0–128 of 1024×1024 decode and composite over 268435456 pixels)"
    );
    assert!(rss < SMALL_KIB, "peak {rss} KiB");
}
