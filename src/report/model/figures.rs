//! Figures derived from a [`Report`] that several renderers show: the first visit before and
//! after, the replay rows of a site, mode, test and link, the modes and links that ran, where
//! the bytes saved come from, bytes by content type. Derived here once, so that every renderer
//! agrees.

use std::collections::BTreeMap;

use super::report::{Report, Visit};
use crate::replay::{Mode, ReplayRow, Test};

/// The two tests: an empty cache, then revalidating everything.
pub const TESTS: [Test; 2] = Test::ALL;

/// The first visit before → after, from the replay rows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Headline {
    /// The mode the figures come from (the reference mode when it was replayed).
    pub mode: Mode,
    pub before: Visit,
    pub after: Visit,
}

/// The distinct values of `key` over `items`, in the order they first appear.
pub fn first_seen<'a, T>(items: &'a [T], key: impl Fn(&'a T) -> &'a str) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    for item in items {
        let k = key(item);
        if !out.contains(&k) {
            out.push(k);
        }
    }
    out
}

/// The replay row of `site` × `mode` × `test`, if there is one: the first of them, which is
/// loopback's when it ran (the audit sorts loopback's rows first).
pub fn row<'a>(report: &'a Report, site: &str, mode: Mode, test: Test) -> Option<&'a ReplayRow> {
    report
        .replay
        .iter()
        .find(|r| r.site == site && r.mode == mode && r.test == test)
}

/// The replay row of `site` × `mode` × `test` over `link`.
pub fn row_on<'a>(
    report: &'a Report,
    link: &str,
    site: &str,
    mode: Mode,
    test: Test,
) -> Option<&'a ReplayRow> {
    report
        .replay
        .iter()
        .find(|r| r.link.name == link && r.site == site && r.mode == mode && r.test == test)
}

/// The first visit of the first mode of [`Mode::headline_order`] replayed for both site
/// versions; `None` without replay rows.
pub fn headline(report: &Report) -> Option<Headline> {
    Mode::headline_order().into_iter().find_map(|mode| {
        let before = row(report, "original", mode, Test::First)?;
        let after = row(report, "rewritten", mode, Test::First)?;
        Some(Headline {
            mode,
            before: before.into(),
            after: after.into(),
        })
    })
}

/// The modes that have at least one replay row, in the replay's table order.
pub fn modes(report: &Report) -> Vec<Mode> {
    Mode::all()
        .into_iter()
        .filter(|m| report.replay.iter().any(|r| r.mode == *m))
        .collect()
}

/// The links of `rows`, in the order they first appear.
pub fn links(rows: &[ReplayRow]) -> Vec<&str> {
    first_seen(rows, |r| &r.link.name)
}

/// The emulated links of the report, in order: the named links a visitor's time is given on.
pub fn emulated_links(report: &Report) -> Vec<&str> {
    links(&report.replay)
        .into_iter()
        .filter(|l| *l != "loopback")
        .collect()
}

/// The sites of `rows` (`original`, `rewritten`), in row order.
pub fn sites(rows: &[ReplayRow]) -> Vec<&str> {
    first_seen(rows, |r| &r.site)
}

/// The runs of the rows over `link` (0 when none ran there).
pub fn runs_on(report: &Report, link: &str) -> usize {
    report
        .replay
        .iter()
        .find(|r| r.link.name == link)
        .map_or(0, |r| r.runs)
}

/// Where the bytes saved come from. Each figure may be negative (a step that grew the site).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Savings {
    /// GIF bytes minus what pages refer to now.
    pub images: i64,
    /// HTML bytes before minus HTML bytes after and the new style sheet; `None` when the
    /// markup stage did not run.
    pub markup: Option<i64>,
    /// Raw text bytes minus their deflate level-6 size (of the rewritten site when estimated);
    /// `None` without a compression estimate.
    pub deflate: Option<i64>,
}

pub fn savings(report: &Report) -> Savings {
    let t = &report.images_total;
    let markup = report
        .markup
        .as_ref()
        .map(|m| m.html_bytes_before as i64 - m.html_bytes_after as i64 - m.css_bytes as i64);
    let deflate = report.compression.as_ref().map(|c| {
        let e = c.rewritten.as_ref().unwrap_or(&c.original);
        e.totals.raw as i64 - e.totals.deflate6 as i64
    });
    Savings {
        images: t.from_bytes as i64 - t.to_bytes as i64,
        markup,
        deflate,
    }
}

/// Bytes of one content type before and after the rewrite.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeBytes {
    /// `html`, `gif`, `gif → png`, …
    pub kind: String,
    pub before: u64,
    pub after: u64,
    /// Files before.
    pub files: usize,
}

/// Bytes per content type from the inventory, with the image and markup stages applied: the
/// GIFs that were converted form one `gif → png` row with their net effect (a GIF kept because
/// a script still names it counts after, too); the markup stage's HTML and style sheet change
/// HTML and CSS.
pub fn bytes_by_type(report: &Report) -> Vec<TypeBytes> {
    let Some(inv) = &report.inventory else {
        return Vec::new();
    };
    let converted: Vec<_> = report
        .images
        .iter()
        .filter(|i| i.to_path != i.path)
        .collect();
    let (from, to) = converted.iter().fold((0u64, 0u64), |(f, t), i| {
        let kept = if i.original_kept { i.from_bytes } else { 0 };
        (f + i.from_bytes, t + i.to_bytes + kept)
    });
    let mut delta: BTreeMap<&str, i64> = BTreeMap::new();
    if let Some(m) = &report.markup {
        *delta.entry("html").or_default() += m.html_bytes_after as i64 - m.html_bytes_before as i64;
        *delta.entry("css").or_default() += m.css_bytes as i64;
    }
    let mut out = Vec::new();
    for (t, s) in &inv.by_type {
        let (mut before, mut files) = (s.bytes, s.count);
        if t == "gif" {
            // The converted ones are in their own row.
            before = before.saturating_sub(from);
            files = files.saturating_sub(converted.len());
        }
        let after = before as i64 + delta.remove(t.as_str()).unwrap_or(0);
        out.push(TypeBytes {
            kind: t.clone(),
            before,
            after: after.max(0) as u64,
            files,
        });
    }
    if !converted.is_empty() {
        out.push(TypeBytes {
            kind: "gif → png".to_string(),
            before: from,
            after: to,
            files: converted.len(),
        });
    }
    for (t, d) in delta {
        out.push(TypeBytes {
            kind: t.to_string(),
            before: 0,
            after: d.max(0) as u64,
            files: 0,
        });
    }
    out
}

/// Files at least this large are listed as oversized. Default: 100 KB.
pub const OVERSIZED_BYTES: u64 = 100_000;

/// Files of the rewritten site of at least [`OVERSIZED_BYTES`]: images as served and text
/// files, with their sizes, largest first.
pub fn oversized(report: &Report) -> Vec<(String, u64)> {
    let mut out: Vec<(String, u64)> = report
        .images
        .iter()
        .filter(|i| i.to_bytes >= OVERSIZED_BYTES)
        .map(|i| (i.to_path.clone(), i.to_bytes))
        .collect();
    if let Some(c) = &report.compression {
        let est = c.rewritten.as_ref().unwrap_or(&c.original);
        out.extend(
            est.files
                .iter()
                .filter(|f| f.sizes.raw >= OVERSIZED_BYTES)
                .map(|f| (f.path.clone(), f.sizes.raw)),
        );
    }
    out.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    out
}

/// What the GIFs were converted to, for headlines: `PNG/APNG`, or `PNG/APNG/WebP` once a
/// WebP is served (`--image-format webp|best`).
pub fn image_targets(report: &Report) -> &'static str {
    let webp = report
        .images
        .iter()
        .any(|r| r.format == super::images::ImageFormat::Webp);
    if webp {
        "PNG/APNG/WebP"
    } else {
        "PNG/APNG"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::model::sample::sample;

    #[test]
    fn the_headline_is_the_first_visit_of_the_reference_mode() {
        let h = headline(&sample()).unwrap();
        assert_eq!(h.mode.as_str(), "pipelined");
        assert_eq!((h.before.bytes, h.after.bytes), (200_000, 150_000));
        assert!(headline(&Report::default()).is_none());
    }

    #[test]
    fn savings_name_their_sources() {
        let s = savings(&sample());
        assert_eq!(s.images, 3_000);
        assert_eq!(s.markup, Some(8_000));
        assert_eq!(s.deflate, Some(23_000));
    }

    #[test]
    fn bytes_by_type_shows_a_conversion_as_one_row_with_its_net_effect() {
        let mut r = sample();
        let mut inv = super::super::report::InventorySummary::default();
        for (t, count, bytes) in [("html", 3, 40_000), ("gif", 2, 12_300), ("css", 1, 500)] {
            inv.by_type
                .insert(t.into(), crate::inventory::TypeStats { count, bytes });
        }
        r.inventory = Some(inv);
        let types = bytes_by_type(&r);
        let find = |t: &str| types.iter().find(|x| x.kind == t).cloned().unwrap();
        let gif = find("gif");
        assert_eq!((gif.before, gif.after, gif.files), (300, 300, 1));
        let conversion = find("gif → png");
        assert_eq!(
            (conversion.before, conversion.after, conversion.files),
            (12_000, 9_000, 1)
        );
        assert!(!types.iter().any(|t| t.kind == "png"), "no PNG row");
        assert_eq!(find("html").after, 30_000);
        assert_eq!(find("css").after, 2_500);
    }
}
