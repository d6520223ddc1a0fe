//! The markup half of the rewrite: presentational HTML → CSS on every page already staged by
//! the image half, one site-wide sheet (or per-page `<style>`, or `style=""`). A converted
//! page is its staged bytes with the edited tags changed in place (every other byte, and so
//! the page's encoding, stays as staged); pages with nothing to convert keep their bytes.
//!
//! Each page is converted once with classes (site-sheet form; combined or atomic classes and a
//! per-page `<style>` are derived from it) and, when `inline-style` is a candidate, once with
//! `style=""`. Every candidate is then priced: a page that its candidate makes larger, raw or
//! deflated, keeps its bytes (`kept:page-larger`); in site-sheet mode each page also carries a
//! share of the sheet (and of its request, [`REQUEST_COST`]) by the rules it uses, and a page
//! that does not pay for its share keeps its bytes too (`kept:sheet-share`), so no candidate
//! makes the site heavier. "Leave the markup alone" is always a candidate; the candidate with
//! the fewest bytes for a first visit to the whole site wins.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Mutex;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use url::Url;

use super::output::Staging;
use super::paint_check::{PaintCheck, PaintsLater};
use crate::deflate;
use crate::error::Problem;
use crate::html::{self, RefKind};
use crate::image::{self, ImageFacts};
use crate::markup::{self, CssMode, MarkupOptions, PageMarkup};
use crate::sim::paint::files::OnDisk;
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
    /// Pages with something to convert that keep their bytes, by reason: `page-larger` (the
    /// page with its own CSS would be larger, raw or deflated), `sheet-share` (it would not
    /// pay for its share of the shared sheet), `paints-later` (a browser would paint it later:
    /// `rewrite::paint_check`), `no-saving` (no candidate saved bytes, so the markup of the
    /// whole site was left alone).
    pub pages_kept: BTreeMap<String, usize>,
    /// One row per page.
    pub pages: Vec<MarkupPage>,
    /// Images that look like text rendered as pictures (audit only; not rewritten).
    pub text_images: Vec<TextImageRow>,
    pub text_images_total: TextImagesTotal,
    /// Candidates with fewer bytes than the one chosen, set aside because a page would paint
    /// later with them (`rewrite::paint_check`): the page, link, protocol, visit and paint
    /// where it is latest.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paints_later: Vec<PaintsLater>,
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
    /// Why a page with something to convert keeps its bytes: `kept:page-larger`,
    /// `kept:sheet-share` or `kept:no-saving` (see [`MarkupReport::pages_kept`]).
    pub kept: Option<String>,
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

/// One candidate priced: first-visit bytes, the pages as converted, their bytes, the sheet.
struct Candidate {
    total: u64,
    /// `None`: leave the markup alone.
    mode: Option<CssMode>,
    atomic: bool,
    pages: Vec<PageMarkup>,
    /// Each page's bytes; `None` where it keeps its staged bytes (not copied: a site's pages
    /// would be held twice).
    outputs: Vec<Option<Vec<u8>>>,
    /// Why a page with a conversion keeps its bytes (`page-larger`, `sheet-share`, `no-saving`).
    kept: Vec<Option<&'static str>>,
    css: String,
}

struct Staged {
    path: String,
    encoding: &'static encoding_rs::Encoding,
    /// The encoding is a guess (`site::charset::Charset::guessed`).
    encoding_guessed: bool,
    /// The page as the image half left it: what the markup pass edits.
    before: Vec<u8>,
    /// Its zlib level-6 size.
    before_deflated: u64,
    /// The original page's size, raw and deflated (the report's "before").
    original: (u64, u64),
    /// The images its `<img src>` values name, keyed by `src` as written.
    images: BTreeMap<String, FoundImage>,
    /// The text of the site's scripts it loads (`<script src>`), for the script check.
    scripts: String,
    /// Its images that look like text (`markup::audit`), found while the page was decoded.
    text_images: Vec<TextImageRow>,
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

    /// The text of the site's own scripts a page loads with `<script src>`, one after the
    /// other (a script elsewhere, or one that cannot be read, adds nothing).
    fn scripts(&self, page: &str, refs: &html::PageRefs) -> String {
        let base = self.resolver.base_url(page, refs.base_href.as_deref());
        let mut out = String::new();
        for r in refs.refs.iter().filter(|r| r.kind == RefKind::Script) {
            if let Target::Local { path, .. } = self.resolver.resolve(&base, &r.value) {
                if let Ok(bytes) = self.site.read(&path) {
                    out.push_str(&String::from_utf8_lossy(&bytes));
                    out.push('\n');
                }
            }
        }
        out
    }

    /// Every `<img>` of a page whose file is a GIF or PNG small enough to read, by `src`.
    fn page(&self, page: &str, refs: &html::PageRefs) -> BTreeMap<String, FoundImage> {
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
pub(super) fn rewrite_pages(
    site: &Site,
    staging: &Staging,
    choice: CssChoice,
    max_parse_bytes: u64,
    site_url: Option<Url>,
    problems: &mut Vec<Problem>,
) -> MarkupReport {
    let staged_site = staged_site(staging, problems);
    let lookup = ImageLookup::new(&staged_site, site_url);
    let staged = read_staged(site, staging, max_parse_bytes, &lookup);
    let converter = Converter {
        sheet_name: free_name(site, "webdiet.css"),
        minified: Default::default(),
    };
    let modes: Vec<CssMode> = match choice {
        CssChoice::Auto => vec![CssMode::SiteSheet, CssMode::PerPage, CssMode::InlineStyle],
        CssChoice::Fixed(mode) => vec![mode],
    };
    // The landing page a visitor comes in by: the staged site's index page.
    let files = OnDisk::new(&staged_site);
    let check = PaintCheck::new(
        &files,
        Resolver::new(&staged_site, None)
            .entry_page()
            .or_else(|| staged.first().map(|s| s.path.clone()))
            .unwrap_or_default(),
        crate::sim::paint::site::links_for(
            &crate::sim::link::parse(crate::sim::link::profiles::AUDIT_LINKS).unwrap_or_default(),
        ),
    );
    let Chosen {
        best,
        totals,
        unconverted,
        paints_later,
    } = choose(
        &staged,
        &converter,
        modes,
        // A mode the user named (--css) is theirs, paint and all; the visitor's report says
        // what it costs.
        (choice == CssChoice::Auto).then_some(&check),
        problems,
    );
    let Some(Candidate {
        mode,
        atomic,
        pages,
        outputs,
        kept,
        css,
        ..
    }) = best
    else {
        return MarkupReport::default();
    };
    let (pages, kept) = shown_pages(mode, pages, kept, unconverted);
    let mut report = report_head(mode, atomic, choice, totals);
    // Per candidate, the pages it kept (or would have had to keep) for their paint.
    let mut by_candidate: BTreeMap<&str, Vec<&PaintsLater>> = BTreeMap::new();
    for p in &paints_later {
        by_candidate
            .entry(p.candidate.as_str())
            .or_default()
            .push(p);
    }
    for (candidate, pages) in by_candidate {
        let worst = pages
            .iter()
            .max_by(|a, b| (a.after_ms - a.before_ms).total_cmp(&(b.after_ms - b.before_ms)))
            .expect("a candidate listed has a page");
        report.css_mode_reason.push_str(&format!(
            "; {candidate} would make {} page{} paint later in a browser, which keep their \
             markup (paints-later), most {} ({} on {}, {} visit, {} {:.0} → {:.0} ms)",
            pages.len(),
            if pages.len() == 1 { "" } else { "s" },
            worst.page,
            worst.speaks,
            worst.link,
            worst.visit,
            worst.metric,
            worst.before_ms,
            worst.after_ms
        ));
    }
    report.paints_later = paints_later;
    for (((page, s), out), kept) in pages.iter().zip(&staged).zip(&outputs).zip(&kept) {
        add_page(
            &mut report,
            page,
            s,
            out.as_deref(),
            *kept,
            staging,
            problems,
        );
        report.text_images.extend(s.text_images.iter().cloned());
    }
    total_text_images(&mut report);
    write_sheet(&mut report, &css, converter.sheet_name, staging, problems);
    report
}

/// The staged tree as a site, to resolve `<img src>` against what will be served.
fn staged_site(staging: &Staging, problems: &mut Vec<Problem>) -> Site {
    match crate::site::crawl(&staging.dir, &Default::default()) {
        Ok(site) => site,
        Err(err) => {
            let dir = staging.dir.display().to_string();
            problems.push(Problem::new(dir, "unreadable", err.to_string()));
            Site::from_files(staging.dir.clone(), Vec::new(), Vec::new())
        }
    }
}

/// Every HTML page small enough to parse, as the image half staged it.
fn read_staged(
    site: &Site,
    staging: &Staging,
    max_parse_bytes: u64,
    lookup: &ImageLookup<'_>,
) -> Vec<Staged> {
    site.files
        .par_iter()
        .filter(|f| f.kind == FileKind::Html && f.bytes <= max_parse_bytes)
        .filter_map(|f| {
            let before = staging.read(&f.path).ok()?;
            let decoded = charset::decode(&before);
            // One parse for both lookups, which read only `<img>`, `<script>` and `<base>`:
            // none of them is made but from such a start tag (`<image>` makes an `img`), so a
            // page without one is not parsed.
            let text = decoded.text.as_bytes();
            let refs = match html::lex::may_have_any_tag(text, &[b"im", b"script", b"base"]) {
                true => html::references(&decoded.text),
                false => html::PageRefs::default(),
            };
            let images = lookup.page(&f.path, &refs);
            let text_images = text_images(&f.path, &decoded.text, &images);
            let before_deflated = deflated(&before);
            let original = match site.read(&f.path) {
                Ok(bytes) if bytes != before => (bytes.len() as u64, deflated(&bytes)),
                _ => (before.len() as u64, before_deflated),
            };
            Some(Staged {
                path: f.path.clone(),
                encoding: decoded.charset.encoding,
                encoding_guessed: decoded.charset.guessed,
                before_deflated,
                original,
                before,
                images,
                scripts: lookup.scripts(&f.path, &refs),
                text_images,
            })
        })
        .collect()
}

/// Converts pages with the site's sheet name.
struct Converter {
    sheet_name: String,
    /// The sheets minified for one candidate, for the next.
    minified: crate::css::sheet::MinifyMemo,
}

impl Converter {
    fn convert(&self, p: &Staged, mode: CssMode, atomic_classes: bool) -> PageMarkup {
        markup::convert_page(
            &p.before,
            &MarkupOptions {
                css: mode,
                sheet_name: self.sheet_name.clone(),
                page_path: p.path.clone(),
                images: p.images.iter().map(|(k, v)| (k.clone(), v.facts)).collect(),
                atomic_classes,
                // Renamed with a class, `<center>`, `<tt>`… only ever grow the page.
                phrase_elements: false,
                encoding: p.encoding,
                encoding_guessed: p.encoding_guessed,
                scripts: p.scripts.clone(),
            },
        )
    }

    /// Every page converted in `mode` (with combined classes).
    fn convert_all(&self, staged: &[Staged], mode: CssMode) -> Vec<PageMarkup> {
        staged
            .par_iter()
            .map(|p| self.convert(p, mode, false))
            .collect()
    }

    /// The pages of one candidate, derived from the conversion of its family ([`family`]).
    fn pages(
        &self,
        staged: &[Staged],
        converted: &[PageMarkup],
        mode: CssMode,
        atomic: bool,
    ) -> Vec<PageMarkup> {
        match mode {
            CssMode::InlineStyle => converted.to_vec(),
            CssMode::SiteSheet => converted.iter().map(|p| p.with_classes(atomic)).collect(),
            CssMode::PerPage => converted
                .par_iter()
                .zip(staged)
                .map(|(p, s)| {
                    p.with_classes(atomic)
                        .per_page(&s.path, &self.sheet_name, &self.minified)
                        .unwrap_or_else(|| self.convert(s, CssMode::PerPage, atomic))
                })
                .collect(),
        }
    }
}

/// The conversion a candidate's pages are derived from: the site-sheet one (with classes) for
/// the site-sheet and per-page candidates, the `style=""` one for inline styles.
fn family(mode: CssMode) -> CssMode {
    match mode {
        CssMode::InlineStyle => CssMode::InlineStyle,
        CssMode::SiteSheet | CssMode::PerPage => CssMode::SiteSheet,
    }
}

/// What [`choose`] found.
struct Chosen {
    /// The candidate with the fewest first-visit bytes (leaving the markup alone wins a tie).
    best: Option<Candidate>,
    /// Each candidate's first-visit bytes, by [`candidate_name`].
    totals: BTreeMap<String, u64>,
    /// The pages of the first conversion, without their edits: what the report shows when no
    /// candidate saves bytes.
    unconverted: Vec<PageMarkup>,
    /// The candidates set aside, cheaper than the one chosen but making a page paint later.
    paints_later: Vec<PaintsLater>,
}

/// Prices every candidate and keeps the one with the fewest first-visit bytes. Each page is
/// converted once per family of candidates ([`family`]); a family's candidates are priced, and
/// its edits freed, before the next family is converted (a page's edits can take more memory
/// than its bytes: the priced candidate keeps only its bytes).
fn choose(
    staged: &[Staged],
    converter: &Converter,
    modes: Vec<CssMode>,
    check: Option<&PaintCheck<'_>>,
    problems: &mut Vec<Problem>,
) -> Chosen {
    // Leave the markup alone: always a candidate, tried first so that it wins a tie (a
    // conversion must save a byte).
    let mut best = Candidate {
        total: staged.iter().map(|s| s.before.len() as u64).sum(),
        mode: None,
        atomic: false,
        pages: Vec::new(),
        outputs: vec![None; staged.len()],
        kept: Vec::new(),
        css: String::new(),
    };
    let mut totals = BTreeMap::from([(candidate_name(None, false), best.total)]);
    // Each candidate's byte price and the pages it had to keep for their paint.
    let mut held: Vec<(u64, Vec<PaintsLater>)> = Vec::new();
    let mut unconverted = Vec::new();
    for converted_as in [CssMode::SiteSheet, CssMode::InlineStyle] {
        let wanted: Vec<CssMode> = modes
            .iter()
            .copied()
            .filter(|&m| family(m) == converted_as)
            .collect();
        if wanted.is_empty() {
            continue;
        }
        let converted = converter.convert_all(staged, converted_as);
        let candidates = wanted.into_iter().flat_map(|mode| match mode {
            CssMode::InlineStyle => vec![(mode, false)],
            _ => vec![(mode, false), (mode, true)],
        });
        for (mode, atomic) in candidates {
            let pages = converter.pages(staged, &converted, mode, atomic);
            let settled = settle(
                staged, converter, pages, mode, atomic, check, best.total, problems,
            );
            let Some((mut candidate, later, priced)) = settled else {
                continue;
            };
            // The report's totals are the byte prices, before any page was kept for its paint.
            totals.insert(candidate_name(Some(mode), atomic), priced);
            held.push((priced, later));
            if candidate.total < best.total {
                // Priced: its bytes are made, its edits and rules no longer needed (a page with a
                // colour of its own on every row holds as much in rules as in edits).
                for page in &mut candidate.pages {
                    *page = shown_only(std::mem::take(page));
                }
                best = candidate;
            }
        }
        if unconverted.is_empty() {
            unconverted = converted.into_iter().map(shown_only).collect();
        }
    }
    // What the paint rule cost: the pages that candidates cheaper in bytes than the chosen one
    // (or the chosen one itself) keep for their paint.
    let paints_later = held
        .into_iter()
        .filter(|(priced, _)| *priced <= best.total)
        .flat_map(|(_, later)| later)
        .collect();
    Chosen {
        best: Some(best),
        totals,
        unconverted,
        paints_later,
    }
}

/// Prices one candidate; then, when it has fewer bytes than `to_beat`, loads every page it
/// changes in the simulated browser (`paint_check`), keeps as they were the pages that would
/// paint later (`paints-later`), and prices it again without them, until none would. Returns
/// the candidate, the pages it keeps for their paint, and its first price.
#[allow(clippy::too_many_arguments)]
fn settle(
    staged: &[Staged],
    converter: &Converter,
    mut pages: Vec<PageMarkup>,
    mode: CssMode,
    atomic: bool,
    check: Option<&PaintCheck<'_>>,
    to_beat: u64,
    problems: &mut Vec<Problem>,
) -> Option<(Candidate, Vec<PaintsLater>, u64)> {
    let name = candidate_name(Some(mode), atomic);
    let mut held: Vec<Option<&'static str>> = vec![None; staged.len()];
    let mut later_pages = Vec::new();
    let mut priced = None;
    loop {
        let candidate = match mode {
            CssMode::SiteSheet => {
                price_with_sheet(staged, pages, atomic, converter, &held, problems)?
            }
            _ => price_alone(staged, pages, mode, atomic, &held),
        };
        let priced = *priced.get_or_insert(candidate.total);
        let Some(check) = check.filter(|_| candidate.total < to_beat) else {
            return Some((candidate, later_pages, priced));
        };
        let changed: Vec<(usize, (&str, &[u8]))> = staged
            .iter()
            .zip(&candidate.outputs)
            .enumerate()
            .filter_map(|(i, (s, out))| out.as_deref().map(|o| (i, (s.path.as_str(), o))))
            .collect();
        let pairs: Vec<(&str, &[u8])> = changed.iter().map(|(_, p)| *p).collect();
        let sheet = (mode == CssMode::SiteSheet && !candidate.css.is_empty())
            .then_some((converter.sheet_name.as_str(), candidate.css.as_bytes()));
        let later = check.later(&name, &pairs, sheet);
        if later.is_empty() {
            return Some((candidate, later_pages, priced));
        }
        for (k, p) in later {
            held[changed[k].0] = Some("paints-later");
            later_pages.push(p);
        }
        pages = candidate.pages;
    }
}

/// A page once its candidate is priced: what the report says of it, without its edits and
/// rules.
fn shown_only(page: PageMarkup) -> PageMarkup {
    PageMarkup {
        edits: Default::default(),
        rules: Default::default(),
        classes: Default::default(),
        ..page
    }
}

/// The pages as the report shows them: a page that keeps its bytes keeps its constructs.
fn shown_pages(
    mode: Option<CssMode>,
    pages: Vec<PageMarkup>,
    kept: Vec<Option<&'static str>>,
    unconverted: Vec<PageMarkup>,
) -> (Vec<PageMarkup>, Vec<Option<&'static str>>) {
    match mode {
        Some(_) => pages
            .into_iter()
            .zip(kept)
            .map(|(p, k)| match k {
                Some(reason) => (left_alone(p, reason), k),
                None => (p, None),
            })
            .unzip(),
        None => unconverted
            .into_iter()
            .map(|p| match p.changed {
                true => (left_alone(p, "no-saving"), Some("no-saving")),
                false => (p, None),
            })
            .unzip(),
    }
}

/// The report without its pages: the mode chosen, and why.
fn report_head(
    mode: Option<CssMode>,
    atomic: bool,
    choice: CssChoice,
    totals: BTreeMap<String, u64>,
) -> MarkupReport {
    MarkupReport {
        css_mode: mode.map_or("unchanged", mode_name).to_string(),
        css_classes: match (mode, atomic) {
            (None | Some(CssMode::InlineStyle), _) => "none",
            (_, true) => "atomic",
            (_, false) => "combined",
        }
        .to_string(),
        css_mode_reason: match choice {
            CssChoice::Auto => format!(
                "fewest bytes for a first visit to the whole site (pages + CSS, a shared sheet \
                 counted with {REQUEST_COST} bytes for its extra request; no page larger, raw \
                 or deflated, than before): {}",
                totals
                    .iter()
                    .map(|(m, t)| format!("{m} {t}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            CssChoice::Fixed(_) if mode.is_none() => {
                "chosen with --css, but no page got smaller: markup left alone".to_string()
            }
            CssChoice::Fixed(_) => "chosen with --css".to_string(),
        },
        mode_totals: totals,
        ..MarkupReport::default()
    }
}

/// Adds one page to the report's totals and rows, and writes it when it changed.
fn add_page(
    report: &mut MarkupReport,
    page: &PageMarkup,
    s: &Staged,
    out: Option<&[u8]>,
    kept: Option<&'static str>,
    staging: &Staging,
    problems: &mut Vec<Problem>,
) {
    for (k, n) in &page.constructs_before {
        *report.constructs_before.entry(k.clone()).or_default() += n;
    }
    for (k, n) in &page.constructs_after {
        *report.constructs_after.entry(k.clone()).or_default() += n;
    }
    let mut left: BTreeMap<String, usize> = BTreeMap::new();
    for (_, reason, n) in page.left_as_is.counts() {
        *left.entry(reason.to_string()).or_default() += n;
        *report.left_as_is.entry(reason.to_string()).or_default() += n;
    }
    let (bytes_before, deflated_before) = s.original;
    // A conversion can give back the staged bytes.
    let out = out.filter(|out| *out != s.before);
    let deflated_after = out.map_or(s.before_deflated, deflated);
    let out_len = out.map_or(s.before.len(), <[u8]>::len) as u64;
    report.html_bytes_before += bytes_before;
    report.html_bytes_after += out_len;
    report.html_deflated_before += deflated_before;
    report.html_deflated_after += deflated_after;
    if let Some(reason) = kept {
        *report.pages_kept.entry(reason.to_string()).or_default() += 1;
    }
    // A page with an output of its own changed: those that keep their bytes have none.
    let changed = out.is_some();
    if let Some(out) = out {
        report.pages_changed += 1;
        if let Err(err) = staging.write(&s.path, out) {
            problems.push(Problem::new(&s.path, "unwritable", err.to_string()));
        }
    }
    report.pages.push(MarkupPage {
        path: s.path.clone(),
        bytes_before,
        bytes_after: out_len,
        deflated_before,
        deflated_after,
        constructs_before: page.constructs_before.values().sum(),
        constructs_after: page.constructs_after.values().sum(),
        by_construct: by_construct(page),
        left_as_is: left,
        changed,
        kept: kept.map(|r| format!("kept:{r}")),
    });
}

/// Construct name → occurrences before and after, for one page.
fn by_construct(page: &PageMarkup) -> BTreeMap<String, ConstructCount> {
    page.constructs_before
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
        .collect()
}

/// The images of one page (its decoded `text`, what its `<img src>` name) that look like text.
fn text_images(page: &str, text: &str, images: &BTreeMap<String, FoundImage>) -> Vec<TextImageRow> {
    let audit = markup::audit::TextImageOptions::default();
    markup::audit::text_images(text, &audit)
        .into_iter()
        .filter_map(|image| {
            // The pixel half of the test: few colours (flat text on a flat ground).
            let found = images.get(&image.src)?;
            (found.facts.colors <= audit.max_colors).then(|| TextImageRow {
                page: page.to_string(),
                src: image.src,
                file: found.file.clone(),
                alt: image.alt,
                width: image.width,
                height: image.height,
                colors: found.facts.colors,
                bytes: found.bytes,
            })
        })
        .collect()
}

/// Totals the text images, each file once.
fn total_text_images(report: &mut MarkupReport) {
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
}

/// Writes the shared sheet when a changed page links it.
fn write_sheet(
    report: &mut MarkupReport,
    css: &str,
    sheet_name: String,
    staging: &Staging,
    problems: &mut Vec<Problem>,
) {
    if !css.is_empty() && report.pages_changed > 0 {
        match staging.write(&sheet_name, css.as_bytes()) {
            Ok(()) => {
                report.css_bytes = css.len() as u64;
                report.css_deflated = deflated(css.as_bytes());
                report.css_path = Some(sheet_name);
            }
            Err(err) => problems.push(Problem::new(&sheet_name, "unwritable", err.to_string())),
        }
    }
}

/// `site-sheet`, `site-sheet atomic`, …, `unchanged`: a key of `mode_totals`.
fn candidate_name(mode: Option<CssMode>, atomic: bool) -> String {
    match (mode, atomic) {
        (None, _) => "unchanged".to_string(),
        (Some(mode), true) => format!("{} atomic", mode_name(mode)),
        (Some(mode), false) => mode_name(mode).to_string(),
    }
}

/// The zlib level-6 size of `bytes`, as a server sending `deflate` would make it.
fn deflated(bytes: &[u8]) -> u64 {
    deflate::zlib(bytes, deflate::SERVER_LEVEL).len() as u64
}

/// A converted page that keeps its bytes: its constructs stay, those the conversion would
/// have converted with `reason`.
fn left_alone(page: PageMarkup, reason: &str) -> PageMarkup {
    let mut left_as_is = page.left_as_is.clone();
    for (construct, before) in &page.constructs_before {
        let after = page.constructs_after.get(construct).copied().unwrap_or(0);
        let converted = before.saturating_sub(after);
        left_as_is.add(construct, reason, converted);
    }
    PageMarkup {
        edits: Default::default(),
        changed: false,
        rules: Default::default(),
        classes: Default::default(),
        constructs_after: page.constructs_before.clone(),
        left_as_is,
        ..page
    }
}

/// Prices a candidate whose CSS is inside the pages: a page larger than before, raw or
/// deflated, keeps its bytes.
fn price_alone(
    staged: &[Staged],
    pages: Vec<PageMarkup>,
    mode: CssMode,
    atomic: bool,
    held: &[Option<&'static str>],
) -> Candidate {
    let (outputs, kept): (Vec<Option<Vec<u8>>>, Vec<Option<&'static str>>) = pages
        .par_iter()
        .zip(staged)
        .zip(held)
        .map(|((page, s), held)| {
            if !page.changed {
                return (None, None);
            }
            if held.is_some() {
                return (None, *held);
            }
            let out = page.bytes(&s.before, None);
            let larger = out.len() > s.before.len() || deflated(&out) > s.before_deflated;
            match larger {
                true => (None, Some("page-larger")),
                false => (Some(out), None),
            }
        })
        .unzip();
    Candidate {
        total: total_bytes(staged, &outputs),
        mode: Some(mode),
        atomic,
        pages,
        outputs,
        kept,
        css: String::new(),
    }
}

/// Prices the shared sheet: every page that links it carries a share of its bytes and of its
/// request, in proportion to the rules it uses (a rule shared by n pages counts 1/n to each);
/// a page larger than before with its share, raw or deflated, keeps its bytes, and the sheet
/// is built again without its rules, until every page that links the sheet pays for its
/// share. The shares add up to the sheet, so the site as a whole is not heavier either.
fn price_with_sheet(
    staged: &[Staged],
    pages: Vec<PageMarkup>,
    atomic: bool,
    converter: &Converter,
    held: &[Option<&'static str>],
    problems: &mut Vec<Problem>,
) -> Option<Candidate> {
    let sheet_name = converter.sheet_name.as_str();
    let mut kept: Vec<Option<&'static str>> = held.to_vec();
    loop {
        let linking = |i: usize| pages[i].changed && kept[i].is_none();
        let named = markup::name_sheet((0..pages.len()).filter(|&i| linking(i)).map(|i| &pages[i]));
        let outputs: Vec<Option<Vec<u8>>> = (0..pages.len())
            .into_par_iter()
            .map(|i| linking(i).then(|| pages[i].bytes(&staged[i].before, Some(&named.names))))
            .collect();
        // Each page on its own: larger than before, raw or deflated, it is larger with any
        // share of the sheet (`Err`); else its deflated bytes.
        let alone: Vec<Option<Result<u64, &'static str>>> = (0..pages.len())
            .into_par_iter()
            .map(|i| {
                let (s, out) = (&staged[i], outputs[i].as_ref()?);
                let out_deflated = deflated(out);
                Some(
                    match out.len() > s.before.len() || out_deflated > s.before_deflated {
                        true => Err("page-larger"),
                        false => Ok(out_deflated),
                    },
                )
            })
            .collect();
        // Minifying is most of a large sheet's cost: paid only when a page may carry a share.
        let sheet = match alone.iter().flatten().any(Result::is_ok) {
            true => match named.minified_with(&converter.minified) {
                Ok(sheet) => sheet,
                Err(err) => {
                    problems.push(Problem::new(sheet_name, "css-error", err));
                    return None;
                }
            },
            false => markup::SiteSheet {
                css: String::new(),
                names: named.names,
            },
        };
        // Each rule's pages and bytes (its CSS under its name).
        let mut users: HashMap<&str, (f64, f64)> = HashMap::new();
        for i in (0..pages.len()).filter(|&i| linking(i)) {
            for rule in pages[i].rules.iter() {
                users
                    .entry(rule.as_str())
                    .or_insert_with(|| {
                        let name = sheet.names.get(rule).map_or("", String::as_str);
                        (0.0, markup::rule_css_len(rule, name) as f64)
                    })
                    .0 += 1.0;
            }
        }
        let all: f64 = users.values().map(|&(_, weight)| weight).sum();
        let sheet_raw = match sheet.css.is_empty() {
            true => 0.0,
            false => (sheet.css.len() as u64 + REQUEST_COST) as f64,
        };
        // Deflated only when a page gets as far as its share (a page with a colour of its
        // own on every row has a sheet of 7 MB, and is larger than before without it).
        let sheet_deflated = std::sync::OnceLock::new();
        let sheet_deflated = || -> f64 {
            *sheet_deflated.get_or_init(|| match sheet.css.is_empty() {
                true => 0.0,
                false => (deflated(sheet.css.as_bytes()) + REQUEST_COST) as f64,
            })
        };
        let verdicts: Vec<Option<&'static str>> = (0..pages.len())
            .into_par_iter()
            .map(|i| {
                let (s, out, out_deflated) = match (&outputs[i], alone[i]?) {
                    (Some(out), Ok(out_deflated)) => (&staged[i], out, out_deflated),
                    (_, Err(why)) => return Some(why),
                    (None, Ok(_)) => return None,
                };
                let share = match all > 0.0 {
                    true => {
                        (pages[i].rules.iter())
                            .map(|r| {
                                let (users, weight) = users[r.as_str()];
                                weight / users
                            })
                            .sum::<f64>()
                            / all
                    }
                    false => 0.0,
                };
                let raw = out.len() as f64 + share * sheet_raw;
                let packed = || out_deflated as f64 + share * sheet_deflated();
                (raw > s.before.len() as f64 || packed() > s.before_deflated as f64)
                    .then_some("sheet-share")
            })
            .collect();
        let dropped = verdicts.iter().filter(|v| v.is_some()).count();
        for (k, v) in kept.iter_mut().zip(verdicts) {
            *k = k.or(v);
        }
        if dropped > 0 {
            continue;
        }
        let css = sheet.css;
        let total = total_bytes(staged, &outputs)
            + if css.is_empty() {
                0
            } else {
                css.len() as u64 + REQUEST_COST
            };
        return Some(Candidate {
            total,
            mode: Some(CssMode::SiteSheet),
            atomic,
            pages,
            outputs,
            kept,
            css,
        });
    }
}

/// The bytes of every page: its output, or its staged bytes.
fn total_bytes(staged: &[Staged], outputs: &[Option<Vec<u8>>]) -> u64 {
    let bytes = |(s, out): (&Staged, &Option<Vec<u8>>)| out.as_ref().unwrap_or(&s.before).len();
    staged.iter().zip(outputs).map(|p| bytes(p) as u64).sum()
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
