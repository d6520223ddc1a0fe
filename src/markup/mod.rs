//! Presentational HTML 3.2/4 markup → CSS: `<font>`, `<center>`, `bgcolor`, `align` and friends
//! become classes in one site-wide style sheet (or a per-page `<style>`, or `style` attributes),
//! converted only where Chromium renders the result identically, quirks mode included.
//!
//! [`convert_page`] rewrites one page and says what it converted and what it left; [`build_sheet`]
//! names the classes for the whole site and produces the minified sheet; [`PageMarkup::bytes`]
//! then gives each page's final bytes: the original page with only the edited tags changed.
//! See `docs/markup.md` for the mapping table.

mod attributes;
pub mod audit;
mod color;
mod constructs;
mod convert;
pub mod rules;
mod spacer;
mod style;

use std::collections::{BTreeMap, BTreeSet};

use encoding_rs::Encoding;
use serde::Serialize;

pub use color::parse_legacy_color;
pub use constructs::count;
pub use convert::convert_page;

use crate::css::{self, sheet};
use crate::html::{self, SpanEdit};
use crate::image::ImageFacts;

/// Where the generated CSS goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CssMode {
    /// One shared sheet at the site root, linked from every changed page.
    SiteSheet,
    /// A `<style>` block in each changed page.
    PerPage,
    /// `style=""` attributes (rules that need a selector, such as body `link` colours, are then
    /// left as attributes).
    InlineStyle,
}

/// Options of the markup stage.
#[derive(Debug, Clone)]
pub struct MarkupOptions {
    /// Where the CSS goes. Default: [`CssMode::SiteSheet`].
    pub css: CssMode,
    /// File name of the shared sheet at the site root. Default: `webdiet.css`.
    pub sheet_name: String,
    /// The page's path relative to the site root, `/`-separated (used for the sheet link and to
    /// rebase `background` URLs into the shared sheet). Default: `index.html`.
    pub page_path: String,
    /// Turn `u`, `s`, `strike`, `tt`, `big` and `nobr` into classed spans, although each one
    /// grows by a few bytes. Default: true.
    pub phrase_elements: bool,
    /// What the page's images are, keyed by `src` as written (entities decoded): an `<img>`
    /// whose image is one flat fill is a spacer and becomes a sized span. The rewrite fills
    /// this from the files; without it spacers are only counted (by name). Default: empty.
    pub images: BTreeMap<String, ImageFacts>,
    /// One class per declaration instead of one combined class per element: more classes in
    /// the HTML, fewer and more shared rules. Default: false.
    pub atomic_classes: bool,
    /// The page's encoding, as `site::charset::detect` decides it (the edits are written in
    /// it, and everything else stays as it was). Default: UTF-8.
    pub encoding: &'static Encoding,
}

impl Default for MarkupOptions {
    fn default() -> Self {
        MarkupOptions {
            css: CssMode::SiteSheet,
            sheet_name: "webdiet.css".to_string(),
            page_path: "index.html".to_string(),
            phrase_elements: true,
            images: BTreeMap::new(),
            atomic_classes: false,
            encoding: encoding_rs::UTF_8,
        }
    }
}

/// Marks where a class name goes in [`PageMarkup::html`] in site-sheet mode.
pub(crate) const SLOT_OPEN: char = '\u{E000}';
pub(crate) const SLOT_CLOSE: char = '\u{E001}';
/// Stands for the class selector inside a rule key.
pub(crate) const SELF: char = '\u{1}';

/// The result of converting one page.
#[derive(Debug, Clone)]
pub struct PageMarkup {
    /// The edits of the page's bytes, proven to give the converted tree. In site-sheet mode
    /// class names are still slots that [`PageMarkup::bytes`] fills in. Empty when nothing was
    /// converted.
    pub edits: Vec<SpanEdit>,
    /// The page's encoding (the edits' text is written in it).
    pub encoding: &'static Encoding,
    /// Whether anything was converted.
    pub changed: bool,
    /// The rule blocks this page uses, as keys (`\u{1}` stands for the class selector), sorted.
    pub rules: Vec<String>,
    /// Presentational constructs in the input, by name (`font`, `center`, `bgcolor`…).
    pub constructs_before: BTreeMap<String, usize>,
    /// The same count on the output.
    pub constructs_after: BTreeMap<String, usize>,
    /// Constructs left as they were, with the reason (`font-face-unsafe`, `author-css`…).
    pub left_as_is: Vec<(String, String)>,
}

impl Default for PageMarkup {
    fn default() -> Self {
        PageMarkup {
            edits: Vec::new(),
            encoding: encoding_rs::UTF_8,
            changed: false,
            rules: Vec::new(),
            constructs_before: BTreeMap::new(),
            constructs_after: BTreeMap::new(),
            left_as_is: Vec::new(),
        }
    }
}

impl PageMarkup {
    /// The final page: `source`, the bytes it was converted from, with the edits applied;
    /// in site-sheet mode the class names come from `sheet`. Every byte outside the edits is
    /// the source's.
    pub fn bytes(&self, source: &[u8], sheet: Option<&SiteSheet>) -> Vec<u8> {
        if !self.changed {
            return source.to_vec();
        }
        let fill = |text: &str| -> String {
            match sheet {
                Some(sheet) => fill_slots(text, &self.rules, &sheet.names),
                None => text.to_string(),
            }
        };
        html::page::render(source, self.encoding, &self.edits, &fill)
    }
}

/// The site-wide sheet and its class names.
#[derive(Debug, Clone, Default)]
pub struct SiteSheet {
    /// Minified CSS of the whole sheet.
    pub css: String,
    /// Rule key → class name.
    pub names: BTreeMap<String, String>,
}

/// CSS text of one rule key under a class name.
pub(crate) fn rule_css(key: &str, name: &str) -> String {
    key.replace(SELF, &format!(".{name}"))
}

/// Names every rule used by `pages` and builds the minified sheet (ASCII; see the body for the
/// byte order mark). Names depend only on the set of rules, never on page order.
pub fn build_sheet<'a>(
    pages: impl IntoIterator<Item = &'a PageMarkup>,
) -> Result<SiteSheet, String> {
    let mut utf16 = false;
    let keys: BTreeSet<String> = pages
        .into_iter()
        .inspect(|p| utf16 |= p.changed && !p.encoding.is_ascii_compatible())
        .flat_map(|p| p.rules.iter().cloned())
        .collect();
    let names = sheet::class_names(&keys);
    let mut text = String::new();
    let mut ordered: Vec<(&String, &String)> = names.iter().map(|(k, n)| (n, k)).collect();
    ordered.sort();
    for (name, key) in ordered {
        text.push_str(&rule_css(key, name));
        text.push('\n');
    }
    let css = if text.is_empty() {
        String::new()
    } else {
        css::ascii(&sheet::minify(&text)?)
    };
    // A style sheet without a byte order mark or `@charset` is decoded in the encoding of the
    // page that links it: ASCII reads the same in every ASCII-compatible one, and a BOM makes
    // UTF-16 pages read it as UTF-8 too.
    let css = match utf16 && !css.is_empty() {
        true => format!("\u{feff}{css}"),
        false => css,
    };
    Ok(SiteSheet { css, names })
}

/// Replaces `\u{E000}N\u{E001}` (index into `rules`) with the rule's class name.
pub(crate) fn fill_slots(html: &str, rules: &[String], names: &BTreeMap<String, String>) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(start) = rest.find(SLOT_OPEN) {
        out.push_str(&rest[..start]);
        let after = &rest[start + SLOT_OPEN.len_utf8()..];
        let Some(end) = after.find(SLOT_CLOSE) else {
            out.push_str(&rest[start..]);
            return out;
        };
        let name = after[..end]
            .parse::<usize>()
            .ok()
            .and_then(|i| rules.get(i))
            .and_then(|k| names.get(k))
            .map(String::as_str)
            .unwrap_or("");
        out.push_str(name);
        rest = &after[end + SLOT_CLOSE.len_utf8()..];
    }
    out.push_str(rest);
    out
}

/// `a/b/c.html` → `../../` (the way from a page back to the site root).
pub fn to_root(page_path: &str) -> String {
    "../".repeat(page_path.matches('/').count())
}

#[cfg(test)]
mod tests;
