//! Lossless WebP, the second target (`--image-format webp|best`): a GIF's frames as a browser
//! shows them, encoded by libwebp (`libwebp`, the only unsafe code of the image stage), and
//! checked by [`verify`], which decodes the file again with an independent decoder
//! (`image-webp`, pure Rust) and compares every frame and every delay with the GIF.
//!
//! A one-frame GIF becomes a still WebP (one `VP8L` bitstream); an animation becomes an
//! animated WebP made by libwebp's `WebPAnimEncoder` from the GIF's composited canvases (as
//! `gif2webp` does): it cuts each frame to what changed and picks its blend and dispose
//! methods itself. Nothing is lossy: every frame is `VP8L`, and [`verify`] rejects any other.
//!
//! GIF → WebP differences handled here (see `docs/images.md`, "WebP"):
//! - GIF delays of 0 and 1 cs play at 100 ms in browsers: they are written as 100 ms;
//! - loop count: a GIF played `n` times (NETSCAPE loop `n − 1`, or once without the
//!   extension) gets WebP loop count `n` (the specification's number of loops); forever
//!   stays 0;
//! - the canvas starts transparent (the ANIM background colour is transparent too, and
//!   browsers ignore it).

mod libwebp;
pub mod verify;

use super::apng::Scan;
use super::decode::{Limits, ReadError};
use super::verify::Browser;
use super::Effort;

/// Why no WebP was made.
#[derive(Debug)]
pub(crate) enum EncodeError {
    Read(ReadError),
    Webp(String),
}

impl From<ReadError> for EncodeError {
    fn from(e: ReadError) -> Self {
        EncodeError::Read(e)
    }
}

/// What libwebp does at each `--effort` level (documented in `docs/images.md`, "WebP"):
/// the lossless preset (`cwebp -z`) and, for animations, whether `WebPAnimEncoder` tries
/// every blend/dispose choice per frame (`gif2webp -min_size`).
fn settings(effort: Effort) -> (libwebp::Settings, bool) {
    let level = match effort {
        Effort::Fast => 2,
        Effort::Default | Effort::Max => 9,
    };
    let settings = libwebp::Settings {
        level,
        exact: false,
    };
    (settings, effort != Effort::Fast)
}

/// Still images whose level-9 WebP is smaller than this are also encoded at level 8, and the
/// smaller kept (not at `fast`). On Space Jam's still GIFs, level 8 beat level 9 on a few
/// files under 16 KB (282 B in all) and on none above, where it would only cost time.
const SECOND_TRIAL_BELOW: usize = 16_000;

/// A still image: the canvas at the effort's level, and, under [`SECOND_TRIAL_BELOW`], at
/// level 8 too; the smaller (the first on a tie).
pub(crate) fn encode_still(
    rgba: &[u8],
    width: u32,
    height: u32,
    effort: Effort,
) -> Result<Vec<u8>, String> {
    let (settings, _) = settings(effort);
    let first = libwebp::encode_still(rgba, width, height, settings)?;
    if effort == Effort::Fast || first.len() >= SECOND_TRIAL_BELOW {
        return Ok(first);
    }
    let level8 = libwebp::Settings {
        level: 8,
        ..settings
    };
    match libwebp::encode_still(rgba, width, height, level8) {
        Ok(second) if second.len() < first.len() => Ok(second),
        _ => Ok(first),
    }
}

/// Encodes the GIF (already read once by `scan`) as a lossless WebP at `effort`.
pub(crate) fn encode(
    gif: &[u8],
    scan: &Scan,
    limits: &Limits,
    effort: Effort,
) -> Result<Vec<u8>, EncodeError> {
    let (settings, minimize_size) = settings(effort);
    let mut frames = Browser::open(gif, limits)?;
    let (width, height) = (frames.canvas.width(), frames.canvas.height());
    if scan.frames <= 1 {
        frames
            .next()?
            .ok_or_else(|| ReadError::Corrupt("no image data".to_string()))?;
        return encode_still(frames.canvas.as_raw(), width, height, effort)
            .map_err(EncodeError::Webp);
    }
    let plays = u16::try_from(scan.plays).map_err(|_| {
        EncodeError::Webp(format!(
            "the GIF plays {} times; a WebP loop count holds at most 65535",
            scan.plays
        ))
    })?;
    let mut animation = libwebp::Animation::new(width, height, settings, minimize_size, plays)
        .map_err(EncodeError::Webp)?;
    let mut timestamp: i32 = 0;
    while let Some(delay) = frames.next()? {
        animation
            .add(frames.canvas.as_raw(), timestamp)
            .map_err(EncodeError::Webp)?;
        let ms = i32::try_from(verify::delay_ms(delay)).unwrap_or(i32::MAX);
        timestamp = timestamp.checked_add(ms).ok_or_else(|| {
            EncodeError::Webp("the animation is longer than a WebP can time".to_string())
        })?;
    }
    animation.finish(timestamp).map_err(EncodeError::Webp)
}

#[cfg(test)]
mod tests;
