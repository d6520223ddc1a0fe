//! The rewrite's lossless pass over the files a site already ships in today's formats: each
//! PNG and APNG recompressed by oxipng, each JPEG transcoded by mozjpeg (`crate::image`), each
//! style sheet stripped of its comments and white space under a token proof
//! (`crate::css::minify`), each script stripped of its
//! comments and white space (`crate::js`), with `--minify-html` each page stripped of the
//! comments and white space its rendering ignores (`crate::html::minify`), each verified, and
//! each kept only when smaller. Names never change here, so no reference needs an edit (a PNG
//! that becomes a WebP is renamed before the references are edited: `png_to_webp`). SVGs are
//! counted (the compression estimates cover them) and left as they are. The pass works on the
//! staged copy, after the GIF conversion, the reference edits and the markup pass, so a style
//! sheet is minified with its references already edited; the `.gz`/`.br`/`.zst` files come
//! after it.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use crate::html::minify;

use serde::{Deserialize, Serialize};

use super::links;
use super::memo::{self, Memo, Work};
use super::output::Staging;
use super::pages::Rename;
use crate::css::minify::Kept;
use crate::error::Problem;
use crate::image::{self, Effort, Limits, Recompressed, Recompression};
use crate::site::{FileKind, Site, SiteFile};

/// Options for the lossless pass.
#[derive(Debug, Clone)]
pub struct LosslessOptions {
    /// Recompress PNG, APNG and JPEG files. Default: `true` (`--no-recompress` turns it off).
    pub images: bool,
    /// Minify style sheets and scripts. Default: `true` (`--no-minify` turns it off).
    pub text: bool,
    /// Remove pages' comments and the white space their rendering ignores
    /// (`crate::html::minify`). Default: `false` (`--minify-html` turns it on).
    pub html: bool,
}

impl Default for LosslessOptions {
    fn default() -> Self {
        LosslessOptions {
            images: true,
            text: true,
            html: false,
        }
    }
}

impl LosslessOptions {
    /// Whether the pass works on files of this kind (an SVG is always counted).
    fn wants(&self, kind: Kind) -> bool {
        match kind {
            Kind::Png | Kind::Jpeg => self.images,
            Kind::Css | Kind::Js => self.text,
            Kind::Svg => true,
            Kind::Html => self.html,
        }
    }
}

/// What kind of file a row is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    Png,
    Jpeg,
    Css,
    Js,
    Svg,
    Html,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Png => "PNG",
            Kind::Jpeg => "JPEG",
            Kind::Css => "CSS",
            Kind::Js => "JS",
            Kind::Svg => "SVG",
            Kind::Html => "HTML",
        }
    }

    fn of(file: &SiteFile) -> Option<Kind> {
        match file.kind {
            FileKind::Png => Some(Kind::Png),
            FileKind::Jpeg => Some(Kind::Jpeg),
            FileKind::Css => Some(Kind::Css),
            FileKind::Js => Some(Kind::Js),
            FileKind::Html => Some(Kind::Html),
            _ if file.path.to_ascii_lowercase().ends_with(".svg") => Some(Kind::Svg),
            _ => None,
        }
    }
}

/// One file of the pass.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LosslessRow {
    pub path: String,
    pub kind: Kind,
    pub from_bytes: u64,
    /// The bytes served after the pass (`from_bytes` when kept).
    pub to_bytes: u64,
    pub outcome: Recompression,
    /// The outcome with its detail: `optimized(-1234 B)`, `kept:larger(+3 B)`, …
    pub reason: String,
    /// Metadata dropped (PNG chunks, JPEG markers), when optimized.
    #[serde(default)]
    pub dropped: Vec<String>,
    /// CPU time of the optimisation and its check (the working thread's).
    pub cpu_millis: f64,
    /// The file served in its place under a new name: a PNG made a lossless WebP
    /// (`--image-format webp|best`), its references rewritten. `None`: same name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to_path: Option<String>,
    /// A renamed file also kept under its old name, because something the rewrite could not
    /// edit (a script, a link) still names it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub original_kept: bool,
}

/// Sums per kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct KindTotal {
    pub files: usize,
    pub optimized: usize,
    pub from_bytes: u64,
    pub to_bytes: u64,
    pub cpu_millis: f64,
}

/// The `lossless` section of the report.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LosslessReport {
    /// The `--effort` level images were recompressed at.
    pub effort: Effort,
    /// One row per PNG, JPEG, style sheet and SVG of the site, by path.
    pub rows: Vec<LosslessRow>,
    pub totals: BTreeMap<Kind, KindTotal>,
}

impl LosslessReport {
    /// Bytes saved over every kind.
    pub fn saved(&self) -> u64 {
        self.totals
            .values()
            .map(|t| t.from_bytes.saturating_sub(t.to_bytes))
            .sum()
    }
}

/// The site's PNGs that were offered a WebP before the references were edited (`early`):
/// those that became one, and the others as recompressed on the way.
pub(super) struct EarlyPngs {
    /// One row per PNG offered, for [`run`] to report as it is.
    pub rows: Vec<(LosslessRow, Option<Problem>)>,
    /// The PNGs now served as WebP, and how their names changed.
    pub renamed: BTreeMap<String, Rename>,
    /// PNGs whose recompressed bytes are already staged under their own name: not to be
    /// copied over.
    pub written: BTreeSet<String>,
}

/// Offers each PNG of `plan` a lossless WebP under its planned name: the PNG is recompressed
/// first (as [`run`] would), and the WebP used only when smaller than that. Runs before the
/// references are edited, so that they can point at the WebPs.
pub(super) fn png_to_webp(
    site: &Site,
    pngs: &[&SiteFile],
    plan: &BTreeMap<String, Rename>,
    image: &image::ImageOptions,
    memo: Option<&Memo>,
    staging: &Staging,
) -> EarlyPngs {
    let pngs: Vec<&SiteFile> = pngs
        .iter()
        .copied()
        .filter(|f| plan.contains_key(&f.path))
        .collect();
    let results: Vec<(LosslessRow, Option<Problem>, Option<Rename>)> = super::once_per_content(
        &pngs,
        |f| site.read(&f.path).ok(),
        |group| png_or_webp(site, group, plan, image, memo, staging),
    );
    let mut early = EarlyPngs {
        rows: Vec::new(),
        renamed: BTreeMap::new(),
        written: BTreeSet::new(),
    };
    for (row, problem, rename) in results {
        match rename {
            Some(rename) => {
                early.renamed.insert(row.path.clone(), rename);
            }
            None if row.outcome == Recompression::Optimized => {
                early.written.insert(row.path.clone());
            }
            None => {}
        }
        early.rows.push((row, problem));
    }
    early
}

/// The PNG every one of `group` is (the same bytes) as [`png_to_webp`] serves it, made once:
/// for each file its row (the first with the CPU time, the others none), a problem when a
/// file could not be written, and its rename when it became a WebP.
fn png_or_webp(
    site: &Site,
    group: &[&SiteFile],
    plan: &BTreeMap<String, Rename>,
    image: &image::ImageOptions,
    memo: Option<&Memo>,
    staging: &Staging,
) -> Vec<(LosslessRow, Option<Problem>, Option<Rename>)> {
    let cpu = image::thread_cpu_time();
    let path = &group[0].path;
    let mut row = LosslessRow {
        path: path.to_string(),
        kind: Kind::Png,
        from_bytes: 0,
        to_bytes: 0,
        outcome: Recompression::Corrupt,
        reason: String::new(),
        dropped: Vec::new(),
        cpu_millis: 0.0,
        to_path: None,
        original_kept: false,
    };
    let bytes = match site.read(path) {
        Ok(bytes) => bytes,
        Err(_) if group.len() > 1 => {
            // Read when grouped, not now: each file on its own says why.
            let one = |f: &&SiteFile| png_or_webp(site, &[*f], plan, image, memo, staging);
            return group.iter().flat_map(one).collect();
        }
        Err(err) => {
            row.reason = format!("kept:corrupt(unreadable: {})", err.reason());
            let problem = Problem::new(path, "unreadable", err.reason());
            return vec![(row, Some(problem), None)];
        }
    };
    row.from_bytes = bytes.len() as u64;
    let (made, kept) = memo::through(memo, Work::PngOrWebp, image, &bytes, || {
        let png = image::recompress_png(&bytes, image.effort, image.min_saving, &image.limits);
        let served = png.bytes.as_ref().map_or(bytes.len(), Vec::len) as u64;
        let webp = image::png_to_webp(
            &bytes,
            served,
            image.effort,
            image.min_saving,
            &image.limits,
        );
        (png, webp)
    });
    let (png, webp) = &*made;
    drop(bytes);
    if !kept {
        row.cpu_millis = image::thread_cpu_time().saturating_sub(cpu).as_secs_f64() * 1000.0;
    }
    let mut rows = Vec::with_capacity(group.len());
    for (at, file) in group.iter().enumerate() {
        let row = LosslessRow {
            path: file.path.clone(),
            cpu_millis: if at == 0 { row.cpu_millis } else { 0.0 },
            ..row.clone()
        };
        rows.push(place_png_or_webp(
            row,
            png,
            webp,
            &plan[&file.path],
            staging,
        ));
    }
    rows
}

/// `row` (one file of [`png_or_webp`]'s group) completed with the PNG and WebP made, and the
/// one served written under the file's name (the WebP under its planned one).
fn place_png_or_webp(
    mut row: LosslessRow,
    png: &image::Recompressed,
    webp: &image::Recompressed,
    rename: &Rename,
    staging: &Staging,
) -> (LosslessRow, Option<Problem>, Option<Rename>) {
    let path = row.path.clone();
    let (new_path, new, rename) = match (&webp.bytes, &png.bytes) {
        (Some(new), _) => {
            row.outcome = webp.outcome;
            row.reason = webp.reason.clone();
            row.dropped = webp.dropped.clone();
            (links::renamed(&path, rename), new, Some(rename.clone()))
        }
        (None, Some(new)) => {
            row.outcome = png.outcome;
            row.reason = format!("{}; no WebP: {}", png.reason, webp.reason);
            row.dropped = png.dropped.clone();
            (Some(path.clone()), new, None)
        }
        (None, None) => {
            row.outcome = png.outcome;
            row.reason = format!("{}; no WebP: {}", png.reason, webp.reason);
            row.to_bytes = row.from_bytes;
            return (row, None, None);
        }
    };
    let Some(new_path) = new_path else {
        // The plan gave every file a name its tail can take; a name that cannot is kept.
        row.outcome = Recompression::VerifyFailed;
        row.reason = format!("kept:verify-failed(no new name for {path})");
        row.to_bytes = row.from_bytes;
        return (row, None, None);
    };
    if let Err(e) = staging.write(&new_path, new) {
        row.outcome = Recompression::VerifyFailed;
        row.reason = format!("kept:verify-failed(not written: {e})");
        row.to_bytes = row.from_bytes;
        row.dropped.clear();
        let problem = Problem::new(&new_path, "unwritable", e.to_string());
        return (row, Some(problem), None);
    }
    row.to_bytes = new.len() as u64;
    if rename.is_some() {
        row.to_path = Some(new_path);
    }
    (row, None, rename)
}

/// Runs the pass over the staged tree; `early`: rows of PNGs already dealt with by
/// [`png_to_webp`], taken as they are.
pub(super) fn run(
    site: &Site,
    staging: &Staging,
    rewrite: &super::RewriteOptions,
    early: Vec<(LosslessRow, Option<Problem>)>,
    problems: &mut Vec<Problem>,
) -> LosslessReport {
    let (opts, image, memo) = (&rewrite.lossless, &rewrite.image, rewrite.memo.as_deref());
    let done: BTreeSet<&str> = early.iter().map(|(row, _)| row.path.as_str()).collect();
    let pages = Pages {
        sheets_keep_white_space: opts.html && sheets_keep_white_space(site, staging),
        max_parse_bytes: rewrite.analyze.max_parse_bytes,
    };
    let files: Vec<&SiteFile> = site
        .files
        .iter()
        .filter(|f| !done.contains(f.path.as_str()) && Kind::of(f).is_some())
        .collect();
    // The staged copy: a style sheet with its references edited. Not there: not served.
    let staged = |f: &SiteFile| staging.read(&f.path).ok();
    let mut results: Vec<(LosslessRow, Option<Problem>)> = super::once_per_content(
        &files,
        |f| {
            Kind::of(f)
                .filter(|k| opts.wants(*k))
                .and_then(|_| staged(f))
        },
        |group| match Kind::of(group[0]).filter(|k| opts.wants(*k)) {
            Some(kind) => same(group, kind, staging, image, memo, &pages),
            None => vec![None; group.len()],
        },
    )
    .into_iter()
    .flatten()
    .collect();
    results.extend(early);
    let mut report = LosslessReport {
        effort: image.effort,
        ..LosslessReport::default()
    };
    for (row, problem) in results {
        let t = report.totals.entry(row.kind).or_default();
        t.files += 1;
        t.optimized += usize::from(row.outcome == Recompression::Optimized);
        t.from_bytes += row.from_bytes;
        t.to_bytes += row.to_bytes;
        t.cpu_millis += row.cpu_millis;
        report.rows.push(row);
        problems.extend(problem);
    }
    report.rows.sort_by(|a, b| a.path.cmp(&b.path));
    report
}

/// Whether any style sheet of the site may make white space significant (`white-space: pre`,
/// `pre-wrap`, `break-spaces`; `white-space-collapse: preserve`): then no page that links or
/// imports a sheet gets its white space reduced by `--minify-html`.
fn sheets_keep_white_space(site: &Site, staging: &Staging) -> bool {
    site.files
        .iter()
        .filter(|f| f.kind == FileKind::Css)
        .any(|f| {
            staging
                .read(&f.path)
                .or_else(|_| site.read(&f.path).map_err(|_| ()))
                .is_ok_and(|css| minify::keeps_white_space(&css))
        })
}

/// What `--minify-html` needs to know beyond the page.
struct Pages {
    /// See [`sheets_keep_white_space`].
    sheets_keep_white_space: bool,
    /// Pages larger than this are not parsed (`--max-parse-bytes`), so not minified either.
    max_parse_bytes: u64,
}

/// Optimises the file every one of `group` is (the same staged bytes, of one kind) once, and
/// writes the result under each file's name. The first file's row carries the CPU time, the
/// others' none; a problem with a row when its new bytes could not be written. `None` for a
/// file that is not staged (not served).
fn same(
    group: &[&SiteFile],
    kind: Kind,
    staging: &Staging,
    image: &image::ImageOptions,
    memo: Option<&Memo>,
    pages: &Pages,
) -> Vec<Option<(LosslessRow, Option<Problem>)>> {
    let Ok(bytes) = staging.read(&group[0].path) else {
        return match group.len() {
            1 => vec![None],
            // Read when grouped, not now: each file on its own.
            _ => group
                .iter()
                .flat_map(|f| same(&[*f], kind, staging, image, memo, pages))
                .collect(),
        };
    };
    let cpu = image::thread_cpu_time();
    // Images only: a page's or a sheet's result depends on more than its bytes (`pages`).
    let work = match kind {
        Kind::Png => Some(Work::Png),
        Kind::Jpeg => Some(Work::Jpeg),
        _ => None,
    };
    let (result, kept) = match work {
        Some(work) => memo::through(memo, work, image, &bytes, || {
            optimize(&bytes, kind, image, pages)
        }),
        None => (Arc::new(optimize(&bytes, kind, image, pages)), false),
    };
    let cpu_millis = match kept {
        true => 0.0,
        false => image::thread_cpu_time().saturating_sub(cpu).as_secs_f64() * 1000.0,
    };
    let from_bytes = bytes.len() as u64;
    drop(bytes);
    let row = |file: &SiteFile, cpu_millis| {
        let mut row = LosslessRow {
            path: file.path.clone(),
            kind,
            from_bytes,
            to_bytes: from_bytes,
            outcome: result.outcome,
            reason: result.reason.clone(),
            dropped: Vec::new(),
            cpu_millis,
            to_path: None,
            original_kept: false,
        };
        let Some(new) = &result.bytes else {
            return Some((row, None));
        };
        if let Err(e) = staging.write(&file.path, new) {
            row.outcome = Recompression::VerifyFailed;
            row.reason = format!("kept:verify-failed(not written: {e})");
            let problem = Problem::new(&file.path, "unwritable", e.to_string());
            return Some((row, Some(problem)));
        }
        row.to_bytes = new.len() as u64;
        row.dropped = result.dropped.clone();
        Some((row, None))
    };
    let mut rows = vec![row(group[0], cpu_millis)];
    rows.extend(group[1..].iter().map(|f| row(f, 0.0)));
    rows
}

fn optimize(bytes: &[u8], kind: Kind, image: &image::ImageOptions, pages: &Pages) -> Recompressed {
    let limits: &Limits = &image.limits;
    match kind {
        // Parsed whole, and twice for the proof: a script holds about 60 bytes of memory per byte.
        Kind::Html | Kind::Css | Kind::Js if bytes.len() as u64 > pages.max_parse_bytes => {
            Recompressed::kept(
                Recompression::Unsupported,
                format!(
                    "{} bytes, over the parse limit of {} (--max-parse-bytes)",
                    bytes.len(),
                    pages.max_parse_bytes
                ),
            )
        }
        Kind::Html => minify_html(
            bytes,
            minify::Options::for_page(bytes, pages.sheets_keep_white_space),
        ),
        Kind::Png => image::recompress_png(bytes, image.effort, image.min_saving, limits),
        Kind::Jpeg => image::recompress_jpeg(bytes, image.effort, image.min_saving, limits),
        Kind::Css => match crate::css::minify::minify_sheet(bytes) {
            Ok(out) => Recompressed::decide(bytes, out, Ok(()), Vec::new(), 1),
            Err(why @ Kept::Unparsed(_)) => Recompressed::kept(Recompression::Unparsed, why),
            Err(why @ Kept::Charset(_)) => Recompressed::kept(Recompression::Unsupported, why),
            Err(why @ Kept::NotProven(_)) => Recompressed::kept(Recompression::VerifyFailed, why),
        },
        Kind::Js => match crate::js::minify_script(bytes) {
            Ok(out) => Recompressed::decide(bytes, out, Ok(()), Vec::new(), 1),
            Err(why @ crate::js::Kept::Changed(_)) => {
                Recompressed::kept(Recompression::VerifyFailed, why)
            }
            Err(why @ crate::js::Kept::Unparsed { .. }) => {
                Recompressed::kept(Recompression::Unparsed, why)
            }
            Err(why) => Recompressed::kept(Recompression::Unsupported, why),
        },
        Kind::Svg => Recompressed::kept(
            Recompression::Unsupported,
            "SVG: counted and compressed, not rewritten",
        ),
    }
}

fn minify_html(page: &[u8], options: minify::Options) -> Recompressed {
    use minify::{minify_page, Kept};
    if !options.comments && !options.whitespace {
        return Recompressed::kept(
            Recompression::Unsupported,
            "it has scripts, which may read its comments, and CSS that may keep white space",
        );
    }
    match minify_page(page, options) {
        Ok(out) => Recompressed::decide(page, out, Ok(()), Vec::new(), 1),
        Err(Kept::Unchanged) => {
            Recompressed::kept(Recompression::Larger, "+0 B: nothing to remove")
        }
        Err(why @ Kept::Unsupported(_)) => Recompressed::kept(Recompression::Unsupported, why),
        Err(why @ Kept::NotSame(_)) => Recompressed::kept(Recompression::VerifyFailed, why),
    }
}

impl LosslessReport {
    /// One line per kind for the terminal summary and the Markdown report:
    /// `PNG (oxipng, lossless): 12 of 40 optimized, 400,000 → 350,000 bytes (-12.5%)`.
    pub fn lines(&self) -> Vec<String> {
        self.totals
            .iter()
            .map(|(kind, t)| {
                let webps = self.rows.iter().filter(|r| r.to_path.is_some()).count();
                let png = match webps {
                    0 => "oxipng, lossless, pixel-verified".to_string(),
                    n => format!("oxipng, or lossless WebP for {n} of them, pixel-verified"),
                };
                let how = match kind {
                    Kind::Png => png.as_str(),
                    Kind::Jpeg => "mozjpeg transcoding, lossless, pixel-verified",
                    Kind::Css => "comments and white space, every token kept, proved",
                    Kind::Js => "comments and white space, notices kept, proved by oxc",
                    Kind::Svg => "counted and compressed, not rewritten",
                    Kind::Html => {
                        "comments and white space the rendering ignores, proved by parsing"
                    }
                };
                let change = if t.from_bytes == 0 {
                    "±0.0%".to_string()
                } else {
                    let pct = (t.to_bytes as f64 - t.from_bytes as f64) / t.from_bytes as f64;
                    format!("{:+.1}%", pct * 100.0)
                };
                format!(
                    "{} ({how}): {} of {} optimized, {} → {} bytes ({change})",
                    kind.as_str(),
                    t.optimized,
                    t.files,
                    crate::report::format::thousands(t.from_bytes),
                    crate::report::format::thousands(t.to_bytes),
                )
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_sheet_or_script_over_the_parse_limit_is_not_minified() {
        let pages = |max_parse_bytes| Pages {
            sheets_keep_white_space: false,
            max_parse_bytes,
        };
        let image = image::ImageOptions::default();
        for (text, kind) in [
            (&b"<p>a    b</p><!-- c -->"[..], Kind::Html),
            (&b"a  {  color : red ; }  /* c */"[..], Kind::Css),
            (&b"var a  =  1 ;  // c\n"[..], Kind::Js),
        ] {
            let small = optimize(text, kind, &image, &pages(1 << 20));
            assert_eq!(small.outcome, Recompression::Optimized, "{}", small.reason);
            let large = optimize(text, kind, &image, &pages(10));
            assert_eq!(
                large.outcome,
                Recompression::Unsupported,
                "{}",
                large.reason
            );
            assert!(large.reason.contains("parse limit"), "{}", large.reason);
        }
    }

    #[test]
    fn a_script_is_minified_or_kept_with_its_reason_code() {
        let pages = Pages {
            sheets_keep_white_space: false,
            max_parse_bytes: 1 << 20,
        };
        let image = image::ImageOptions::default();
        let js = |src: &str| optimize(src.as_bytes(), Kind::Js, &image, &pages);
        let minified = js("var a = 1;   // one\n");
        assert_eq!(
            minified.outcome,
            Recompression::Optimized,
            "{}",
            minified.reason
        );
        assert_eq!(minified.bytes.as_deref(), Some(&b"var a=1;"[..]));
        for (src, outcome, code) in [
            (
                "var s = 'open",
                Recompression::Unparsed,
                "kept:unparsed(oxc cannot",
            ),
            (
                "/*@cc_on @*/ a()",
                Recompression::Unsupported,
                "kept:unsupported(",
            ),
            ("var a=1;", Recompression::Larger, "kept:larger("),
        ] {
            let kept = js(src);
            assert_eq!(kept.outcome, outcome, "{src}: {}", kept.reason);
            assert!(kept.reason.starts_with(code), "{src}: {}", kept.reason);
        }
    }

    #[test]
    fn totals_and_lines_add_up_per_kind() {
        let row = |path: &str, kind, from, to| LosslessRow {
            path: path.into(),
            kind,
            from_bytes: from,
            to_bytes: to,
            outcome: if to < from {
                Recompression::Optimized
            } else {
                Recompression::Larger
            },
            reason: String::new(),
            dropped: Vec::new(),
            cpu_millis: 1.0,
            to_path: None,
            original_kept: false,
        };
        let mut report = LosslessReport::default();
        for r in [
            row("a.png", Kind::Png, 1000, 800),
            row("b.png", Kind::Png, 500, 500),
            row("s.css", Kind::Css, 300, 200),
        ] {
            let t = report.totals.entry(r.kind).or_default();
            t.files += 1;
            t.optimized += usize::from(r.outcome == Recompression::Optimized);
            t.from_bytes += r.from_bytes;
            t.to_bytes += r.to_bytes;
            report.rows.push(r);
        }
        assert_eq!(report.saved(), 300);
        let lines = report.lines();
        assert!(
            lines[0].starts_with("PNG (")
                && lines[0].contains("1 of 2 optimized, 1,500 → 1,300 bytes (-13.3%)"),
            "{lines:?}"
        );
        assert!(lines[1].starts_with("CSS ("), "{lines:?}");
    }
}
