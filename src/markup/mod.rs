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
pub mod scripts;
mod spacer;
mod style;

use std::collections::BTreeMap;
use std::sync::Arc;

use encoding_rs::Encoding;
use serde::Serialize;

pub use color::parse_legacy_color;
pub use constructs::count;
pub use convert::convert_page;

use crate::css::{self, sheet};
use crate::html::{self, Edits};
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
    /// Turn `center` into a classed `div` and `u`, `s`, `strike`, `tt`, `big` and `nobr` into
    /// classed spans, although each one grows the page (by 3 to 15 bytes); when false they
    /// are left with the reason `css-longer`. The rewrite sets it false: these renames never
    /// save a byte. Default: true.
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
    /// The encoding is a detector's guess (no declaration, bytes that are not ASCII;
    /// `site::charset::Charset::guessed`): a presentational attribute whose value is not
    /// ASCII is then left in the page (`encoding-guessed`), where the browser reads it in
    /// whatever encoding it guesses, instead of being moved into CSS as webdiet read it.
    /// Default: false.
    pub encoding_guessed: bool,
    /// The text of the external scripts the page loads (`<script src>`): with the page's own
    /// scripts, what the script check reads ([`scripts`]). Default: empty.
    pub scripts: String,
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
            scripts: String::new(),
            encoding: encoding_rs::UTF_8,
            encoding_guessed: false,
        }
    }
}

/// Marks where an element's class names go in [`PageMarkup::edits`] in site-sheet mode: the
/// slot holds the element's index in [`PageMarkup::classes`].
pub(crate) const SLOT_OPEN: char = '\u{E000}';
pub(crate) const SLOT_CLOSE: char = '\u{E001}';
/// Stands for the class selector inside a rule key.
pub(crate) const SELF: char = '\u{1}';

/// The result of converting one page.
#[derive(Debug, Clone)]
pub struct PageMarkup {
    /// The edits of the page's bytes, proven to give the converted tree. In site-sheet mode
    /// class names are still slots that [`PageMarkup::bytes`] fills in. Empty when nothing was
    /// converted. Shared: the candidates made from one conversion differ in their rules only.
    pub edits: Arc<Edits>,
    /// The page's encoding (the edits' text is written in it).
    pub encoding: &'static Encoding,
    /// Whether anything was converted.
    pub changed: bool,
    /// The rule blocks this page uses, as keys (`\u{1}` stands for the class selector), sorted:
    /// those of [`PageMarkup::classes`] with combined or atomic classes, as `atomic` says.
    pub rules: Arc<[String]>,
    /// The rule keys of each classed element, by slot index, both ways (shared like `edits`).
    pub classes: Arc<[ElementClasses]>,
    /// Whether the slots are filled with one class per declaration.
    pub atomic: bool,
    /// Presentational constructs in the input, by name (`font`, `center`, `bgcolor`…).
    pub constructs_before: BTreeMap<String, usize>,
    /// The same count on the output.
    pub constructs_after: BTreeMap<String, usize>,
    /// Constructs left as they were, with the reason (`font-face-unsafe`, `author-css`…).
    pub left_as_is: LeftAsIs,
}

/// Constructs left as they were: how many of each construct for each reason. (A list of
/// pairs held two strings per construct: on a 3 MB page of 18,000 `<center>`, 3 MB.)
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LeftAsIs(BTreeMap<(String, String), usize>);

impl LeftAsIs {
    /// Counts `n` more of `construct` left for `reason`.
    pub fn add(&mut self, construct: &str, reason: &str, n: usize) {
        if n > 0 {
            *self
                .0
                .entry((construct.to_string(), reason.to_string()))
                .or_default() += n;
        }
    }

    /// How many constructs were left, for every reason.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.0.values().sum()
    }

    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Each (construct, reason) with how many.
    pub fn counts(&self) -> impl Iterator<Item = (&str, &str, usize)> + '_ {
        self.0
            .iter()
            .map(|((c, r), n)| (c.as_str(), r.as_str(), *n))
    }

    /// One (construct, reason) per construct left, sorted.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &String)> + '_ {
        (self.0.iter()).flat_map(|((c, r), n)| std::iter::repeat_n((c, r), *n))
    }

    /// [`LeftAsIs::iter`], owned.
    #[cfg(test)]
    pub fn to_vec(&self) -> Vec<(String, String)> {
        self.iter().map(|(c, r)| (c.clone(), r.clone())).collect()
    }
}

impl Default for PageMarkup {
    fn default() -> Self {
        PageMarkup {
            edits: Arc::default(),
            encoding: encoding_rs::UTF_8,
            changed: false,
            rules: Arc::new([]),
            classes: Arc::new([]),
            atomic: false,
            constructs_before: BTreeMap::new(),
            constructs_after: BTreeMap::new(),
            left_as_is: LeftAsIs::default(),
        }
    }
}

impl PageMarkup {
    /// The final page: `source`, the bytes it was converted from, with the edits applied;
    /// in site-sheet mode the class names come from `names` (the site sheet's). Every byte
    /// outside the edits is the source's.
    pub fn bytes(&self, source: &[u8], names: Option<&ClassNames>) -> Vec<u8> {
        if !self.changed {
            return source.to_vec();
        }
        let fill = |text: &str, out: &mut String| match names {
            Some(names) => fill_slots(text, &self.classes, self.atomic, names, out),
            None => out.push_str(text),
        };
        let mut bytes = html::page::render(source, self.encoding, &self.edits, &fill);
        // Kept as a candidate's page while others are priced: without the slack.
        bytes.shrink_to_fit();
        bytes
    }

    /// The same conversion with combined or atomic classes: only the class names in the slots
    /// and the rules differ, so nothing is converted again.
    pub fn with_classes(&self, atomic: bool) -> PageMarkup {
        let rules = match atomic == self.atomic {
            true => self.rules.clone(),
            false => convert::rule_keys(&self.classes, atomic).into(),
        };
        PageMarkup {
            rules,
            atomic,
            ..self.clone()
        }
    }

    /// A site-sheet conversion as a per-page one: the page's rules named for the page alone,
    /// and the `<link>` to the sheet replaced by a `<style>` holding them, at the same place.
    /// Both are start tags the parser handles in the same way wherever the proof put the
    /// link, and the style's text cannot end it early (checked). `None` when the rules
    /// name a URL (rebased to the sheet's directory, not the page's) or when this is not a
    /// site-sheet conversion of `page_path` linking `sheet_name`.
    pub fn per_page(
        &self,
        page_path: &str,
        sheet_name: &str,
        memo: &sheet::MinifyMemo,
    ) -> Option<PageMarkup> {
        if !self.changed || self.rules.is_empty() {
            return Some(self.clone());
        }
        if self.rules.iter().any(|r| r.contains("url(")) {
            return None;
        }
        let names = css::sheet::class_names(self.rules.to_vec());
        let style_css = convert::page_css(&self.rules, &names, memo);

        if style_css.to_ascii_lowercase().contains("</style") {
            return None;
        }
        let mut link = String::new();
        html::write::element(&convert::sheet_link(page_path, sheet_name), &mut link);
        let mut style = html::NewElement::new("style", &[]);
        style.text = style_css;
        let mut style_tag = String::new();
        html::write::element(&style, &mut style_tag);
        let mut swapped = 0;
        let edits = self
            .edits
            .map_text(|text, out| match text.contains(&link) {
                true => {
                    swapped += 1;
                    let text = text.replacen(&link, &style_tag, 1);
                    fill_slots(&text, &self.classes, self.atomic, &names, out);
                }
                false => fill_slots(text, &self.classes, self.atomic, &names, out),
            })
            .ok()?;
        (swapped == 1).then(|| PageMarkup {
            edits: edits.into(),
            // Named already: nothing for a shared sheet to fill in or hold.
            rules: Arc::new([]),
            classes: Arc::new([]),
            ..self.clone()
        })
    }
}

/// The rule keys of one classed element.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ElementClasses {
    /// One rule with all its declarations.
    pub combined: String,
    /// One rule per declaration (and one for the rules under it).
    pub atomic: Vec<String>,
}

impl ElementClasses {
    fn keys(&self, atomic: bool) -> &[String] {
        match atomic {
            true => &self.atomic,
            false => std::slice::from_ref(&self.combined),
        }
    }
}

/// Rule key → class name.
pub type ClassNames = crate::hash::Map<String, String>;

/// The site-wide sheet and its class names.
#[derive(Debug, Clone, Default)]
pub struct SiteSheet {
    /// Minified CSS of the whole sheet.
    pub css: String,
    /// Rule key → class name.
    pub names: ClassNames,
}

/// A site sheet named but not yet minified ([`name_sheet`]): its names are all the pages
/// need, and minifying is most of a large sheet's cost, so a candidate whose pages are all
/// larger on their own need not pay it.
#[derive(Debug, Default)]
pub struct NamedSheet {
    /// Rule key → class name.
    pub names: ClassNames,
    rules: sheet::Rules,
    /// A page in UTF-16 links the sheet: it starts with a byte order mark.
    utf16: bool,
}

/// CSS text of one rule key under a class name.
pub fn rule_css(key: &str, name: &str) -> String {
    key.replace(SELF, &format!(".{name}"))
}

/// The length of [`rule_css`], without writing it.
pub fn rule_css_len(key: &str, name: &str) -> usize {
    // `SELF` is one byte, and becomes `.` and the name.
    key.len() + key.matches(SELF).count() * name.len()
}

/// Names every rule used by `pages` and builds the minified sheet (ASCII; see
/// [`NamedSheet::minified`] for the byte order mark). Names depend only on the set of rules,
/// never on page order.
pub fn build_sheet<'a>(
    pages: impl IntoIterator<Item = &'a PageMarkup>,
) -> Result<SiteSheet, String> {
    name_sheet(pages).minified()
}

/// Names every rule used by `pages`, in sheet order, without minifying the sheet.
pub fn name_sheet<'a>(pages: impl IntoIterator<Item = &'a PageMarkup>) -> NamedSheet {
    let mut utf16 = false;
    let keys: Vec<String> = pages
        .into_iter()
        .inspect(|p| utf16 |= p.changed && !p.encoding.is_ascii_compatible())
        .flat_map(|p| p.rules.iter().cloned())
        .collect();
    let names = sheet::class_names(keys);
    let mut rules = sheet::Rules::default();
    // Names are unique: sorted by name alone.
    let mut ordered: Vec<(&String, &String)> = names.iter().map(|(k, n)| (n, k)).collect();
    ordered.sort_unstable_by_key(|(name, _)| *name);
    for (name, key) in ordered {
        rules.push_rule(key, SELF, &format!(".{name}"));
    }
    NamedSheet {
        names,
        rules,
        utf16,
    }
}

impl NamedSheet {
    /// The sheet minified (ASCII); the error names what could not be parsed.
    pub fn minified(self) -> Result<SiteSheet, String> {
        self.minified_with(&Default::default())
    }

    /// [`NamedSheet::minified`], or what `memo` holds for the same rules.
    pub fn minified_with(self, memo: &sheet::MinifyMemo) -> Result<SiteSheet, String> {
        let css = if self.rules.is_empty() {
            String::new()
        } else {
            css::ascii(&self.rules.minify_with(memo)?)
        };
        // A style sheet without a byte order mark or `@charset` is decoded in the encoding of
        // the page that links it: ASCII reads the same in every ASCII-compatible one, and a BOM
        // makes UTF-16 pages read it as UTF-8 too.
        let css = match self.utf16 && !css.is_empty() {
            true => format!("\u{feff}{css}"),
            false => css,
        };
        Ok(SiteSheet {
            css,
            names: self.names,
        })
    }
}

/// Writes `html` to `out` with each `\u{E000}N\u{E001}` (index into `classes`) replaced by
/// the element's class names. A slot written as a whole unquoted value
/// (`class=\u{E000}0\u{E001}`) is quoted when it holds two names or more.
pub(crate) fn fill_slots(
    html: &str,
    classes: &[ElementClasses],
    atomic: bool,
    names: &ClassNames,
    out: &mut String,
) {
    let mut rest = html;
    while let Some(start) = rest.find(SLOT_OPEN) {
        out.push_str(&rest[..start]);
        let after = &rest[start + SLOT_OPEN.len_utf8()..];
        let Some(end) = after.find(SLOT_CLOSE) else {
            out.push_str(&rest[start..]);
            return;
        };
        let keys = match after[..end]
            .parse::<usize>()
            .ok()
            .and_then(|i| classes.get(i))
        {
            Some(c) => c.keys(atomic),
            None => &[],
        };
        let filled = || keys.iter().filter_map(|k| names.get(k));
        // Names hold no space: two or more are quoted.
        let quoted = out.ends_with('=') && filled().nth(1).is_some();
        if quoted {
            out.push('"');
        }
        for (i, name) in filled().enumerate() {
            if i > 0 {
                out.push(' ');
            }
            out.push_str(name);
        }
        if quoted {
            out.push('"');
        }
        rest = &after[end + SLOT_CLOSE.len_utf8()..];
    }
    out.push_str(rest);
}

/// `a/b/c.html` → `../../` (the way from a page back to the site root).
pub fn to_root(page_path: &str) -> String {
    "../".repeat(page_path.matches('/').count())
}

#[cfg(test)]
mod tests;
