//! What each `--effort` level does to one image, as oxipng options chosen from the image's size.
//! Effort goes where it pays: measured on Space Jam's GIFs, the bytes are won by choosing the
//! palette order well (ranked with the right two filter strategies) and by the final
//! libdeflate 12 or Zopfli run, not by trying more filter strategies, and Zopfli pays least on
//! the smallest results. So the work per image is bounded by the level, the size of its first
//! result and its pixel count (Zopfli or not, its iterations), never by a clock: the same GIF
//! at the same effort always gives the same bytes. The measurements behind the choices are in
//! `docs/images.md`.

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
    /// Two filters at libdeflate 10, palettes sorted by luma only: for quick runs and tests.
    Fast,
    /// See `static_options`.
    #[default]
    Default,
    /// See `static_options` and `zopfli_pass`.
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

/// oxipng options for a still image (the first pass, libdeflate only):
/// - `fast`: filters None and MinSum at libdeflate 10, where oxipng sorts the palette by luma
///   (its preset 0, libdeflate 5 without palette sorting, was larger than `optipng -o2`; this
///   is smaller on Space Jam and the libwww docs for a fifth to a third of its CPU,
///   docs/images.md);
/// - `default`: oxipng's reductions at their highest effort (palette sorted by luma, by
///   Zeng's and by Battiato's method, bit depths), each candidate ranked by a quick deflate
///   (libdeflate 7) of two filter strategies, None and MinSum; the best compressed once with
///   libdeflate 12;
/// - `max`: the same with None and Entropy (better, dearer), then [`zopfli_pass`].
///
/// Why two strategies: oxipng ranks its reductions with the first two filters given when there
/// are at most two (otherwise with None and Bigrams, at libdeflate 8, and Bigrams never wins
/// on Space Jam). Ranked with None + MinSum or None + Entropy, it picks better palettes for
/// 40–48 % less CPU than preset 4's six strategies; more strategies ranked afterwards gained
/// little for their cost (measured in `docs/images.md`).
pub(crate) fn static_options(effort: Effort, interlace: bool) -> oxipng::Options {
    match effort {
        Effort::Fast => pair(oxipng::FilterStrategy::MinSum, 10, interlace),
        Effort::Default => pair(oxipng::FilterStrategy::MinSum, 12, interlace),
        Effort::Max => pair(oxipng::FilterStrategy::Entropy, 12, interlace),
    }
}

/// The levels whose first pass ([`static_options`]) runs at `effort`, the smallest result
/// kept: at `max` also `default`'s (None and MinSum), since None and Entropy rank better on
/// most images but not on all (on the Doxygen manual's PNGs under 1,200 bytes `max` alone was
/// 2.5 KB larger than `default`, over 173 images).
pub(crate) fn first_passes(effort: Effort) -> &'static [Effort] {
    match effort {
        Effort::Max => &[Effort::Max, Effort::Default],
        Effort::Default => &[Effort::Default],
        Effort::Fast => &[Effort::Fast],
    }
}

/// Filters None and `other`, libdeflate at `level`. oxipng 10.2.1 takes the effort of its
/// reductions from the level: 12 is its highest (palettes sorted by luma, by Zeng's method with
/// long swaps and by Battiato's), 10 its second lowest (the palette sorted by luma only), and
/// below 10 no palette sorting at all.
fn pair(other: oxipng::FilterStrategy, level: u8, interlace: bool) -> oxipng::Options {
    let mut o = base(2, interlace);
    o.filters = [oxipng::FilterStrategy::NONE, other].into_iter().collect();
    o.deflater = oxipng::Deflater::Libdeflater { compression: level };
    o
}

/// Results smaller than this gain least from Zopfli per CPU second (Space Jam's still images
/// under 1,200 B: 3 % of its saving for 9 % of its time): they are left as libdeflate made
/// them.
pub(crate) const ZOPFLI_FROM_BYTES: usize = 1200;

/// From this size on, Zopfli runs 15 iterations instead of 20 (measured on Space Jam's still
/// GIFs with zenzop's ECT-derived search: 20 below 7,000 B and 15 from there, 1,379,711 B at
/// 28.3 CPU s per MB of GIF; 15 everywhere 1,379,894 B at 26.7; 25 and 15 1,379,639 B at 29.7,
/// too near the 30 s budget for the 72 B; docs/images.md).
pub(crate) const ZOPFLI_FEWER_FROM_BYTES: usize = 7000;

/// Past this many pixels Zopfli runs 2 iterations whatever the size of the result, so that no
/// image costs more than about a fixed amount of work (Zopfli's time grows with the pixels it
/// compresses). No Space Jam image is that large (the largest is 600 × 368).
pub(crate) const ZOPFLI_LARGE_PIXELS: u64 = 512 * 512;

/// Which filter strategies [`zopfli_pass`] ranks before Zopfli compresses the best one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Filters {
    /// The first pass's two (None and Entropy): converted GIFs.
    Pair,
    /// All ten of oxipng's (its preset 6's: the five PNG filters, MinSum, Entropy, Bigrams,
    /// BigEnt and Brute), ranked by libdeflate 8: a site's own PNGs. On the Sphinx manual's
    /// pre-optimised screenshots the pair left `max` 0.13 % above the best of `oxipng -o max`,
    /// `optipng -o7` and `zopflipng -m` per file; all ten put it 0.09 % under, for the same
    /// CPU (the ranking is cheap beside Zopfli). On Space Jam's GIFs they saved 245 B of
    /// 1.38 MB for 10 % more CPU, which `max`'s 30 s per MB of GIF cannot spare
    /// (docs/images.md).
    All,
}

/// `--effort max`'s second pass over the PNG the first pass made (see [`zopfli_pass`]).
pub(crate) struct ZopfliPass {
    /// oxipng's options for ranking the filters: its quick deflate (libdeflate 7, or 8 with
    /// more than four filters, whatever the final level from 11 on) picks the filter, and
    /// libdeflate 11 writes the PNG whose image data Zopfli then compresses again.
    pub ranking: oxipng::Options,
    /// Zopfli's iterations.
    pub iterations: u64,
}

/// The second pass at `--effort max`, on the PNG the first pass made (already reduced, so
/// reductions are off): `filters` ranked again by a quick deflate, and the best compressed by
/// Zopfli (zenzop's ECT-derived search, `image::zopfli`), 20 iterations below
/// [`ZOPFLI_FEWER_FROM_BYTES`], 15 from there, 2 past [`ZOPFLI_LARGE_PIXELS`]. `None` at the
/// other levels, and for results under [`ZOPFLI_FROM_BYTES`]. The caller keeps the smaller
/// PNG.
pub(crate) fn zopfli_pass(
    effort: Effort,
    pixels: u64,
    bytes: usize,
    filters: Filters,
) -> Option<ZopfliPass> {
    if effort != Effort::Max || bytes < ZOPFLI_FROM_BYTES {
        return None;
    }
    let mut o = static_options(effort, false);
    if filters == Filters::All {
        o.filters = oxipng::Options::from_preset(6).filters;
    }
    o.interlace = None;
    fixed_format(&mut o);
    // The ranking's PNG is compressed again: the cheaper of the near-optimal levels that keep
    // the ranking deflater (oxipng ranks at 7 or 8 for any final level from 11 on).
    o.deflater = oxipng::Deflater::Libdeflater { compression: 11 };
    // Written even when not smaller than its input: Zopfli has not run yet.
    o.force = true;
    let iterations = if pixels > ZOPFLI_LARGE_PIXELS {
        2
    } else if bytes < ZOPFLI_FEWER_FROM_BYTES {
        20
    } else {
        15
    };
    Some(ZopfliPass {
        ranking: o,
        iterations,
    })
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
