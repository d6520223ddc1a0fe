//! What happened to each GIF of the site, and the totals over them: the image stage's part of
//! the report.

use std::collections::BTreeMap;
use std::ops::AddAssign;

use serde::{Deserialize, Serialize};

use crate::image::{Effort, Outcome};

/// What happened to one GIF.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ImageRow {
    /// Site-relative path of the GIF.
    pub path: String,
    pub from_bytes: u64,
    /// What pages now refer to: the PNG when converted, else the GIF itself.
    pub to_path: String,
    /// Size of `to_path`.
    pub to_bytes: u64,
    /// Size of the verified PNG that was made, when one was (also for `kept:png-larger`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub png_bytes: Option<u64>,
    /// Size of the verified WebP that was made, when one was (`--image-format webp|best`),
    /// also when it was not used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webp_bytes: Option<u64>,
    /// GIF frames (0 when it could not be decoded or was not looked at).
    pub frames: usize,
    pub outcome: Outcome,
    /// The reason code with its detail: `converted(-1234 B)`, `kept:png-larger(+37 B)`.
    pub reason: String,
    /// Whether the GIF itself is also in the output: converted, but still named by something
    /// the rewrite did not change (a script string, an unparsed page), or `--keep-originals`.
    pub original_kept: bool,
    /// Time spent decoding, encoding, optimising and verifying, in milliseconds.
    pub millis: f64,
    /// CPU time of the same work (its thread's user + system time), in milliseconds.
    #[serde(default)]
    pub cpu_millis: f64,
    /// The `--effort` level the image was converted at.
    #[serde(default)]
    pub effort: Effort,
    /// The format pages now get: `png`, `apng`, `webp` (still or animated), or `gif` when the
    /// GIF was kept.
    #[serde(default)]
    pub format: ImageFormat,
}

impl ImageRow {
    /// Whether a conversion of this GIF failed its pixel check: the one made
    /// (`kept:verify-failed`), or, with `--image-format best`, either candidate, also when
    /// the other one won (`converted(png -1234 B; webp not verified: …)`).
    pub fn failed_a_check(&self) -> bool {
        self.outcome == crate::image::Outcome::VerifyFailed
            || self.reason.contains(" not verified: ")
    }
}

/// The format an image is served in after the rewrite.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ImageFormat {
    #[default]
    Gif,
    Png,
    Apng,
    Webp,
}

impl ImageFormat {
    /// The file name extension of the format.
    pub fn extension(self) -> &'static str {
        match self {
            ImageFormat::Gif => "gif",
            ImageFormat::Png | ImageFormat::Apng => "png",
            ImageFormat::Webp => "webp",
        }
    }
}

impl std::fmt::Display for ImageFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ImageFormat::Gif => "gif",
            ImageFormat::Png => "png",
            ImageFormat::Apng => "apng",
            ImageFormat::Webp => "webp",
        })
    }
}

/// Totals over [`ImageRow`]s.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ImagesTotal {
    pub count: usize,
    /// Sum of `from_bytes`.
    pub from_bytes: u64,
    /// Sum of `to_bytes`.
    pub to_bytes: u64,
    /// Number of GIFs per outcome code.
    pub by_outcome: BTreeMap<Outcome, usize>,
    /// Sum of per-image times (CPU-ish), milliseconds.
    pub millis: f64,
    /// Sum of per-image CPU times, milliseconds: what the bytes saved cost.
    #[serde(default)]
    pub cpu_millis: f64,
    /// Wall-clock time of the whole image stage (images run in parallel), milliseconds.
    pub wall_millis: f64,
}

impl AddAssign<&ImageRow> for ImagesTotal {
    fn add_assign(&mut self, row: &ImageRow) {
        self.count += 1;
        self.from_bytes += row.from_bytes;
        self.to_bytes += row.to_bytes;
        *self.by_outcome.entry(row.outcome).or_default() += 1;
        self.millis += row.millis;
        self.cpu_millis += row.cpu_millis;
    }
}

impl ImagesTotal {
    pub fn of(rows: &[ImageRow]) -> Self {
        let mut total = ImagesTotal::default();
        for row in rows {
            total += row;
        }
        total
    }
}
