//! The markup half of the rewrite: presentational HTML → CSS on every page already staged by
//! the image half, one site-wide sheet (or per-page `<style>`, or `style=""`). A converted
//! page is its staged bytes with the edited tags changed in place (every other byte, and so
//! the page's encoding, stays as staged); pages with nothing to convert keep their bytes.
//!
//! With `CssMode` chosen automatically, every page is converted in all three modes and the mode
//! with the fewest bytes for a first visit to the whole site wins, the shared sheet counted
//! with the cost of its extra request ([`REQUEST_COST`]).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Mutex;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use url::Url;

use super::output::Staging;
use crate::deflate;
use crate::error::Problem;
use crate::html::{self, RefKind};
use crate::image::{self, ImageFacts};
use crate::markup::{self, CssMode, MarkupOptions, PageMarkup};
use crate::site::resolve::{Resolver, Target};
use crate::site::{charset, FileKind, Site};

/// Bytes an extra request costs beyond its body: request line and headers plus response
/// status line and headers as webdiet's replay client and server exchange them for a small
/// style sheet (about 120 + 200 bytes), rounded up. Used only to choose the CSS mode.
pub const REQUEST_COST: u64 = 400;

/// Which CSS mode to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CssChoice {
    /// The mode with the fewest first-visit bytes for the whole site. The default.
    Auto,
    Fixed(CssMode),
}

/// What the markup pass did (`report.json` → `markup`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct MarkupReport {
    /// `site-sheet`, `per-page` or `inline-style`.
    pub css_mode: String,
    /// `combined` (one class per element), `atomic` (one class per declaration) or `none`
    /// (inline styles): whichever gave fewer bytes.
    pub css_classes: String,
    /// Why that mode: the first-visit totals of each mode, or "chosen with --css".
    pub css_mode_reason: String,
    /// Total bytes of all pages plus CSS (plus one request for the shared sheet) per mode,
    /// when the mode was chosen automatically.
    pub mode_totals: BTreeMap<String, u64>,
    /// Presentational constructs over all pages, by name.
    pub constructs_before: BTreeMap<String, usize>,
    pub constructs_after: BTreeMap<String, usize>,
    /// Constructs left as they were, by reason.
    pub left_as_is: BTreeMap<String, usize>,
    pub html_bytes_before: u64,
    pub html_bytes_after: u64,
    /// Bytes of the shared sheet (0 in the other modes).
    pub css_bytes: u64,
    /// The shared sheet's site path, when one was written.
    pub css_path: Option<String>,
    /// Deflated (level 6) sizes: what travels when the server compresses.
    pub html_deflated_before: u64,
    pub html_deflated_after: u64,
    pub css_deflated: u64,
    pub pages_changed: usize,
    /// One row per page.
    pub pages: Vec<MarkupPage>,
    /// Images that look like text rendered as pictures (audit only; not rewritten).
    pub text_images: Vec<TextImageRow>,
    pub text_images_total: TextImagesTotal,
}

/// One page of the markup pass.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct MarkupPage {
    pub path: String,
    pub bytes_before: u64,
    pub bytes_after: u64,
    /// The same at zlib level 6.
    pub deflated_before: u64,
    pub deflated_after: u64,
    pub constructs_before: usize,
    pub constructs_after: usize,
    /// Construct name → occurrences before and after.
    pub by_construct: BTreeMap<String, ConstructCount>,
    /// Reason → constructs of this page left as they were.
    pub left_as_is: BTreeMap<String, usize>,
    pub changed: bool,
}

/// Occurrences of one construct in one page.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConstructCount {
    pub before: usize,
    pub after: usize,
}

/// An image that looks like text, with the request it would save.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct TextImageRow {
    pub page: String,
    pub src: String,
    /// The image's file in the rewritten site.
    pub file: String,
    pub alt: String,
    pub width: u32,
    pub height: u32,
    /// Distinct colours the image shows.
    pub colors: usize,
    /// Size of the file in the rewritten site.
    pub bytes: u64,
}

/// Totals of [`TextImageRow`]s, each image file counted once: the requests and bytes a first
/// visit would save if every one were CSS-styled text.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct TextImagesTotal {
    /// Images shown (one per page and `<img>`).
    pub shown: usize,
    /// Distinct files = requests a first visit would save.
    pub files: usize,
    /// Bytes of those files.
    pub bytes: u64,
}

/// One CSS mode's result: first-visit bytes, converted pages, their bytes, the sheet.
struct Candidate {
    total: u64,
    mode: CssMode,
    atomic: bool,
    pages: Vec<PageMarkup>,
    outputs: Vec<Vec<u8>>,
    css: String,
}

struct Staged {
    path: String,
    encoding: &'static encoding_rs::Encoding,
    before: Vec<u8>,
    /// The page decoded, as a browser reads it.
    text: String,
    /// The images its `<img src>` values name, keyed by `src` as written.
    images: BTreeMap<String, FoundImage>,
}

/// An image a page shows, as the rewritten site serves it.
struct FoundImage {
    facts: ImageFacts,
    /// Site path.
    file: String,
    bytes: u64,
}

/// Reads the images pages show from the staged tree, after the image half (a converted GIF is
/// read as the PNG it became), each file once.
struct ImageLookup<'a> {
    site: &'a Site,
    resolver: Resolver<'a>,
    cache: Mutex<HashMap<String, Option<ImageFacts>>>,
}

impl<'a> ImageLookup<'a> {
    fn new(staged_site: &'a Site, site_url: Option<Url>) -> Self {
        ImageLookup {
            site: staged_site,
            resolver: Resolver::new(staged_site, site_url),
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// Every `<img>` of a page whose file is a GIF or PNG small enough to read, by `src`.
    fn page(&self, page: &str, text: &str) -> BTreeMap<String, FoundImage> {
        let refs = html::references(text);
        let base = self.resolver.base_url(page, refs.base_href.as_deref());
        let srcs: BTreeSet<&str> = refs
            .refs
            .iter()
            .filter(|r| r.kind == RefKind::Img)
            .map(|r| r.value.as_str())
            .collect();
        let mut out = BTreeMap::new();
        for src in srcs {
            let Target::Local { path, .. } = self.resolver.resolve(&base, src) else {
                continue;
            };
            let Some(file) = self.site.file(&path) else {
                continue;
            };
            if file.bytes > image::facts::MAX_BYTES as u64 {
                continue;
            }
            let cached = self.cache.lock().ok().and_then(|c| c.get(&path).copied());
            let facts = match cached {
                Some(facts) => facts,
                None => {
                    let facts = self.site.read(&path).ok().and_then(|b| image::facts(&b));
                    if let Ok(mut c) = self.cache.lock() {
                        c.insert(path.clone(), facts);
                    }
                    facts
                }
            };
            if let Some(facts) = facts {
                let bytes = file.bytes;
                out.insert(
                    src.to_string(),
                    FoundImage {
                        facts,
                        file: path,
                        bytes,
                    },
                );
            }
        }
        out
    }
}

/// Converts every staged page; writes changed pages and the sheet into `staging`.
pub(super) fn run(
    site: &Site,
    staging: &Staging,
    choice: CssChoice,
    max_parse_bytes: u64,
    site_url: Option<Url>,
    problems: &mut Vec<Problem>,
) -> MarkupReport {
    // The staged tree as a site, to resolve `<img src>` against what will be served.
    let staged_site = match crate::site::crawl(&staging.dir, &Default::default()) {
        Ok(site) => site,
        Err(err) => {
            let dir = staging.dir.display().to_string();
            problems.push(Problem::new(dir, "unreadable", err.to_string()));
            Site::from_files(staging.dir.clone(), Vec::new(), Vec::new())
        }
    };
    let lookup = ImageLookup::new(&staged_site, site_url);
    let staged: Vec<Staged> = site
        .files
        .par_iter()
        .filter(|f| f.kind == FileKind::Html && f.bytes <= max_parse_bytes)
        .filter_map(|f| {
            let before = std::fs::read(staging.path(&f.path)).ok()?;
            let decoded = charset::decode(&before);
            Some(Staged {
                path: f.path.clone(),
                encoding: decoded.charset.encoding,
                before,
                images: lookup.page(&f.path, &decoded.text),
                text: decoded.text,
            })
        })
        .collect();
    let sheet_name = free_name(site, "webdiet.css");
    let convert = |mode: CssMode, atomic_classes: bool| -> Vec<PageMarkup> {
        staged
            .par_iter()
            .map(|p| {
                markup::convert_page(
                    &p.before,
                    &MarkupOptions {
                        css: mode,
                        sheet_name: sheet_name.clone(),
                        page_path: p.path.clone(),
                        images: p.images.iter().map(|(k, v)| (k.clone(), v.facts)).collect(),
                        atomic_classes,
                        encoding: p.encoding,
                        ..MarkupOptions::default()
                    },
                )
            })
            .collect()
    };
    // Each mode with classes combined per element or one per declaration (`inline-style` has
    // no classes).
    let modes: Vec<CssMode> = match choice {
        CssChoice::Auto => vec![CssMode::SiteSheet, CssMode::PerPage, CssMode::InlineStyle],
        CssChoice::Fixed(mode) => vec![mode],
    };
    let candidates = modes.into_iter().flat_map(|mode| match mode {
        CssMode::InlineStyle => vec![(mode, false)],
        _ => vec![(mode, false), (mode, true)],
    });
    let mut best: Option<Candidate> = None;
    let mut totals = BTreeMap::new();
    for (mode, atomic) in candidates {
        let pages = convert(mode, atomic);
        let (css, names) = if mode == CssMode::SiteSheet {
            match markup::build_sheet(&pages) {
                Ok(sheet) => (sheet.css.clone(), Some(sheet)),
                Err(err) => {
                    problems.push(Problem::new(&sheet_name, "css-error", err));
                    continue;
                }
            }
        } else {
            (String::new(), None)
        };
        let outputs: Vec<Vec<u8>> = pages
            .iter()
            .zip(&staged)
            .map(|(page, s)| page.bytes(&s.before, names.as_ref()))
            .collect();
        let sheet_cost = if css.is_empty() {
            0
        } else {
            css.len() as u64 + REQUEST_COST
        };
        let total = outputs.iter().map(|o| o.len() as u64).sum::<u64>() + sheet_cost;
        totals.insert(candidate_name(mode, atomic), total);
        if best.as_ref().is_none_or(|b| total < b.total) {
            best = Some(Candidate {
                total,
                mode,
                atomic,
                pages,
                outputs,
                css,
            });
        }
    }
    let Some(Candidate {
        mode,
        atomic,
        pages,
        outputs,
        css,
        ..
    }) = best
    else {
        return MarkupReport::default();
    };
    let mut report = MarkupReport {
        css_mode: mode_name(mode).to_string(),
        css_classes: match (mode, atomic) {
            (CssMode::InlineStyle, _) => "none",
            (_, true) => "atomic",
            (_, false) => "combined",
        }
        .to_string(),
        css_mode_reason: match choice {
            CssChoice::Auto => format!(
                "fewest bytes for a first visit to the whole site (pages + CSS, a shared sheet \
                 counted with {REQUEST_COST} bytes for its extra request): {}",
                totals
                    .iter()
                    .map(|(m, t)| format!("{m} {t}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            CssChoice::Fixed(_) => "chosen with --css".to_string(),
        },
        mode_totals: totals,
        ..MarkupReport::default()
    };
    for ((page, s), out) in pages.iter().zip(&staged).zip(&outputs) {
        for (k, n) in &page.constructs_before {
            *report.constructs_before.entry(k.clone()).or_default() += n;
        }
        for (k, n) in &page.constructs_after {
            *report.constructs_after.entry(k.clone()).or_default() += n;
        }
        let mut left: BTreeMap<String, usize> = BTreeMap::new();
        for (_, reason) in &page.left_as_is {
            *left.entry(reason.clone()).or_default() += 1;
            *report.left_as_is.entry(reason.clone()).or_default() += 1;
        }
        let deflated_before = deflate::zlib(&s.before, 6).len() as u64;
        let deflated_after = deflate::zlib(out, 6).len() as u64;
        report.html_bytes_before += s.before.len() as u64;
        report.html_bytes_after += out.len() as u64;
        report.html_deflated_before += deflated_before;
        report.html_deflated_after += deflated_after;
        let changed = page.changed && *out != s.before;
        if changed {
            report.pages_changed += 1;
            if let Err(err) = staging.write(&s.path, out) {
                problems.push(Problem::new(&s.path, "unwritable", err.to_string()));
            }
        }
        report.pages.push(MarkupPage {
            path: s.path.clone(),
            bytes_before: s.before.len() as u64,
            bytes_after: out.len() as u64,
            deflated_before,
            deflated_after,
            constructs_before: page.constructs_before.values().sum(),
            constructs_after: page.constructs_after.values().sum(),
            by_construct: page
                .constructs_before
                .keys()
                .chain(page.constructs_after.keys())
                .map(|k| {
                    let count = |m: &BTreeMap<String, usize>| m.get(k).copied().unwrap_or(0);
                    let counts = ConstructCount {
                        before: count(&page.constructs_before),
                        after: count(&page.constructs_after),
                    };
                    (k.clone(), counts)
                })
                .collect(),
            left_as_is: left,
            changed,
        });
        let audit = markup::audit::AuditOptions::default();
        for image in markup::audit::text_images(&s.text, &audit) {
            // The pixel half of the test: few colours (flat text on a flat ground).
            let Some(found) = s.images.get(&image.src) else {
                continue;
            };
            if found.facts.colors > audit.max_colors {
                continue;
            }
            report.text_images.push(TextImageRow {
                page: s.path.clone(),
                src: image.src,
                file: found.file.clone(),
                alt: image.alt,
                width: image.width,
                height: image.height,
                colors: found.facts.colors,
                bytes: found.bytes,
            });
        }
    }
    let files: BTreeMap<&str, u64> = report
        .text_images
        .iter()
        .map(|r| (r.file.as_str(), r.bytes))
        .collect();
    report.text_images_total = TextImagesTotal {
        shown: report.text_images.len(),
        files: files.len(),
        bytes: files.values().sum(),
    };
    if !css.is_empty() && report.pages_changed > 0 {
        match staging.write(&sheet_name, css.as_bytes()) {
            Ok(()) => {
                report.css_bytes = css.len() as u64;
                report.css_deflated = deflate::zlib(css.as_bytes(), 6).len() as u64;
                report.css_path = Some(sheet_name);
            }
            Err(err) => problems.push(Problem::new(&sheet_name, "unwritable", err.to_string())),
        }
    }
    report
}

/// `site-sheet`, `site-sheet atomic`, …: a key of `mode_totals`.
fn candidate_name(mode: CssMode, atomic: bool) -> String {
    match atomic {
        true => format!("{} atomic", mode_name(mode)),
        false => mode_name(mode).to_string(),
    }
}

fn mode_name(mode: CssMode) -> &'static str {
    match mode {
        CssMode::SiteSheet => "site-sheet",
        CssMode::PerPage => "per-page",
        CssMode::InlineStyle => "inline-style",
    }
}

/// `webdiet.css`, or `webdiet-2.css`… when the site already has a file of that name.
fn free_name(site: &Site, wanted: &str) -> String {
    let taken = |name: &str| {
        let paths = site.files.iter().map(|f| &f.path);
        let mut paths = paths.chain(site.links.iter().map(|l| &l.path));
        paths.any(|p| p.eq_ignore_ascii_case(name))
    };
    if !taken(wanted) {
        return wanted.to_string();
    }
    let (stem, ext) = wanted.rsplit_once('.').unwrap_or((wanted, "css"));
    (2..)
        .map(|n| format!("{stem}-{n}.{ext}"))
        .find(|name| !taken(name))
        .expect("some numbered name is free")
}
