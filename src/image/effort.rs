//! What each `--effort` level does to one image, as oxipng options chosen from the image's size.
//! Effort goes where it pays: on Space Jam's GIFs the bytes Zopfli and the slower filter
//! strategies win over libdeflate are in the small and mid-sized images, where they also cost
//! the least, so the work per image is bounded by its pixel count (filters tried, Zopfli
//! iterations), never by a clock — the same GIF at the same effort always gives the same bytes.
//! The measurements behind the thresholds are in `docs/images.md`.

use std::num::NonZeroU64;

use serde::Serialize;

/// How hard the image stage works (`--effort`), like oxipng's presets. The output is the same
/// for the same GIF and effort on every run and machine: the work is bounded by choices made
/// from the image's size (filters tried, Zopfli iterations), never by a clock. What each level
/// does, and what it costs on Space Jam, is in `docs/images.md`.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Effort {
    /// oxipng preset 0 (libdeflate level 5, two filters): for quick runs and tests.
    Fast,
    /// See [`static_options`].
    #[default]
    Default,
    /// See [`static_options`] and [`zopfli_pass`].
    Max,
}

impl std::fmt::Display for Effort {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Effort::Fast => "fast",
            Effort::Default => "default",
            Effort::Max => "max",
        })
    }
}

impl std::str::FromStr for Effort {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "fast" => Ok(Effort::Fast),
            "default" => Ok(Effort::Default),
            "max" => Ok(Effort::Max),
            _ => Err(format!(
                "`{s}` is not an effort level: use fast, default or max"
            )),
        }
    }
}

/// Options shared by every level: non-interlaced unless asked, fully transparent pixels may
/// change colour (they compare equal in verification and are invisible in every browser),
/// safe chunks stripped, no clock.
fn base(preset: u8, interlace: bool) -> oxipng::Options {
    let mut o = oxipng::Options::from_preset(preset);
    o.interlace = Some(interlace);
    o.optimize_alpha = true;
    o.strip = oxipng::StripChunks::Safe;
    o.timeout = None;
    o
}

fn zopfli(iterations: u64) -> oxipng::Deflater {
    oxipng::Deflater::Zopfli(oxipng::ZopfliOptions {
        iteration_count: NonZeroU64::new(iterations.max(1)).expect("at least one"),
        ..Default::default()
    })
}

/// oxipng options for a still image (the first pass, libdeflate only):
/// - `fast`: preset 0 (libdeflate level 5; filters None and MinSum);
/// - `default`: preset 4 (libdeflate level 12; six filter strategies, brute force over 4
///   rows among them, ranked by a quick deflate, the best one compressed once);
/// - `max`: preset 6's ten filter strategies ranked the same way, then [`zopfli_pass`].
pub(crate) fn static_options(effort: Effort, interlace: bool) -> oxipng::Options {
    match effort {
        Effort::Fast => base(0, interlace),
        Effort::Default => base(4, interlace),
        Effort::Max => {
            let mut o = base(6, interlace);
            o.fast_evaluation = true;
            o
        }
    }
}

/// Results smaller than this gain next to nothing from Zopfli (113 bytes over Space Jam's 65
/// still images under 1,000 B, for 8 % of Zopfli's time): they are left as libdeflate made them.
pub(crate) const ZOPFLI_FROM_BYTES: usize = 1000;

/// The second pass at `--effort max`, on the PNG the first pass made (already reduced, so
/// reductions are off): the filter strategies ranked again by a quick deflate, and the best
/// one compressed by Zopfli, with fewer iterations as the image grows. `None` at the other
/// levels, and for results under [`ZOPFLI_FROM_BYTES`]. The caller keeps the smaller PNG.
pub(crate) fn zopfli_pass(effort: Effort, pixels: u64, bytes: usize) -> Option<oxipng::Options> {
    if effort != Effort::Max || bytes < ZOPFLI_FROM_BYTES {
        return None;
    }
    let mut o = static_options(effort, false);
    o.interlace = None;
    fixed_format(&mut o);
    o.deflater = zopfli(zopfli_iterations(pixels));
    Some(o)
}

/// oxipng options for one APNG frame: filters and deflater only, since every frame shares
/// the APNG's colour type, bit depth and palette.
pub(crate) fn frame_options(effort: Effort) -> oxipng::Options {
    let mut o = static_options(effort, false);
    fixed_format(&mut o);
    o.force = true;
    o
}

fn fixed_format(o: &mut oxipng::Options) {
    o.bit_depth_reduction = false;
    o.color_type_reduction = false;
    o.palette_reduction = false;
    o.grayscale_reduction = false;
}

/// Zopfli iterations: 15 (Zopfli's default) up to 256 × 256 pixels, 5 up to 512 × 512, then 2,
/// so that no image costs more than about a fixed amount of work.
fn zopfli_iterations(pixels: u64) -> u64 {
    match pixels {
        0..=65_536 => 15,
        65_537..=262_144 => 5,
        _ => 2,
    }
}
