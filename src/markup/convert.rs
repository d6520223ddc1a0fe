//! Converts one page: walks the DOM once, turns every construct it is sure of into CSS
//! declarations attached to an element, and records what it left and why. The changed DOM is
//! written back as edits of the page's own bytes ([`html::Page::edits`]), used only when
//! re-parsing the edited bytes gives the same tree ([`html::Page::proves`]).

use std::collections::BTreeMap;

use crate::css::sheet;
use crate::html::by_node::ByNode;
use crate::html::chunked::Chunked;
use crate::html::{self, edit, NewElement, Node, Page};

use super::constructs;
use super::rules::{self, Decl};
use super::style::{Decls, Slots, Style, CELLS};
use super::{
    fill_slots, to_root, CssMode, ElementClasses, LeftAsIs, MarkupOptions, PageMarkup, SELF,
    SLOT_CLOSE, SLOT_OPEN,
};

pub(super) struct Converter<'a> {
    pub(super) opts: &'a MarkupOptions,
    pub(super) page: &'a Page<'a>,
    pub(super) quirks: bool,
    pub(super) has_base: bool,
    /// The site directory (`a/sub/`, or `` for the root) that relative URLs of the page
    /// resolve against: the page's own, or its `<base href>`'s.
    pub(super) base_dir: String,
    /// In chunks: a doubling list of the styled elements of a 15 MB page held 34 MB.
    pub(super) styles: Chunked<(Node, Style)>,
    /// The declarations `styles` hold, each once.
    pub(super) decls: Decls,
    /// Tables whose `border` became CSS, with the style of the 1px border their cells need
    /// (`inset`, or `solid` with `bordercolor`).
    pub(super) bordered: Vec<(Node, &'static str)>,
    pub(super) left: LeftAsIs,
    pub(super) changed: bool,
    /// By node number: the place of the element's entry in `styles` (a hash map took 9 MB of
    /// a 15 MB page).
    pub(super) style_at: ByNode,
}

/// Rewrites one page (its bytes, in `opts.encoding`). Never fails: a page it cannot handle
/// comes back unchanged, with every construct counted in `left_as_is`.
pub fn convert_page(bytes: &[u8], opts: &MarkupOptions) -> PageMarkup {
    let unchanged = |counts: &std::collections::BTreeMap<String, usize>, reason: &str| PageMarkup {
        encoding: opts.encoding,
        constructs_before: counts.clone(),
        constructs_after: counts.clone(),
        left_as_is: {
            let mut left = LeftAsIs::default();
            for (construct, n) in counts {
                left.add(construct, reason, *n);
            }
            left
        },
        ..PageMarkup::default()
    };
    // A page with no construct in its start tags has none in its tree: the tree's elements
    // come from those tags (the parser's copies too), and the lexer skips no tag the parser
    // reads, except in foreign content (`<svg>`, `<math>`), where a `<title>` is not raw
    // text. Such a page is not parsed with its source map at all: on a large page that is
    // most of the memory (a 2 MB page of `<b>x</b>` took 175 MB).
    if let Ok(source) = html::source::Source::new(bytes, opts.encoding) {
        let shadow = source.shadow();
        let foreign = html::lex::may_have_any_tag(shadow, &[b"svg", b"math"]);
        if !foreign && constructs::count_tags(shadow, &opts.images).is_empty() {
            return unchanged(&BTreeMap::new(), "none");
        }
    }
    let page = match Page::parse(bytes, opts.encoding) {
        Ok(page) => page,
        Err(why) => {
            let counts = match html::source::Source::new(bytes, opts.encoding) {
                Ok(source) => constructs::count_tags(source.shadow(), &opts.images),
                Err(_) => {
                    let (text, _) = opts.encoding.decode_with_bom_removal(bytes);
                    constructs::count_tags(text.as_bytes(), &opts.images)
                }
            };
            return unchanged(&counts, why.reason());
        }
    };
    let root = page.document();
    let document = &root;
    let constructs_before = constructs::count(document, &opts.images);
    let unchanged = |reason: &str| unchanged(&constructs_before, reason);
    if constructs_before.is_empty() {
        return unchanged("none");
    }
    if uses_private_characters(document) {
        return unchanged("private-use-characters");
    }
    let media_type = crate::site::media_type(&opts.page_path);
    if media_type.ends_with("+xml") || media_type.ends_with("/xml") {
        // Served as XML (`application/xhtml+xml`, …), the page is parsed as XML: HTML
        // serialisation (unquoted attributes, an unclosed `<link>`) would be a
        // well-formedness error.
        return unchanged("xhtml-syntax");
    }
    let spacers = constructs_before.contains_key("spacer-gif");
    let phrase = opts.phrase_elements;
    if super::scripts::touching_word(document, &opts.scripts, spacers, phrase).is_some() {
        // A script may read or write what the conversion changes (`markup::scripts`).
        return unchanged("script-touches-markup");
    }
    if has_author_css(document) {
        // Author rules beat presentational hints whatever their specificity; classes would
        // change that order.
        return unchanged("author-css");
    }
    // The shared sheet's `<link>` is resolved by the browser against the page's base.
    let base_href = edit::descendants(document)
        .filter(|e| edit::is(e, "base") && edit::is_html(e))
        .find_map(|e| edit::attr(&e, "href"));
    let base_dir = match base_dir(&opts.page_path, base_href.as_deref()) {
        Some(dir) => dir,
        None if opts.css == CssMode::SiteSheet => return unchanged("base-href"),
        // Per-page and inline styles insert no URL.
        None => String::new(),
    };
    let mut c = Converter {
        opts,
        page: &page,
        base_dir,
        quirks: page.is_quirks(),
        has_base: edit::find(document, "base").is_some(),
        styles: Chunked::default(),
        decls: Decls::default(),
        bordered: Vec::new(),
        left: LeftAsIs::default(),
        changed: false,
        style_at: ByNode::default(),
    };
    let mut body_text_color = None;
    for el in edit::elements(document) {
        if !edit::is_html(&el) {
            continue;
        }
        let tag = edit::tag(&el).as_deref().unwrap_or("").to_string();
        match tag.as_str() {
            "font" => c.font(&el),
            "basefont" if edit::between_text(&el) => {
                // Removed, it would join the text around it into one text node, which
                // Chromium shapes differently from two (1,000 words with a `<basefont>` after
                // each moved 70,563 px).
                c.leave("basefont", "joins-text");
            }
            "basefont" => {
                // Chromium (like the standard) gives <basefont> no rendering at all.
                page.remove(&el);
                c.changed = true;
            }
            "center" | "u" | "s" | "strike" | "tt" | "big" | "nobr" => c.phrase(&el, &tag),
            _ => {
                let color = c.attributes(&el, &tag);
                if tag == "body" && body_text_color.is_none() {
                    body_text_color = color;
                }
            }
        }
    }
    // Quirks mode: tables take their colour from the body `text` attribute, not from their
    // parent (Chromium's `color: -internal-quirk-inherit`); once `text` is CSS, say it outright.
    if let (true, Some(color)) = (c.quirks, body_text_color) {
        for table in edit::elements(document) {
            if edit::is(&table, "table") && edit::is_html(&table) {
                c.add(&table, vec![("color".to_string(), color.clone())]);
            }
        }
    }
    c.cellpadding(document);
    if !c.changed && c.styles.iter().all(|(_, s)| s.is_empty()) {
        let mut unconverted = unchanged("not-converted");
        unconverted.left_as_is = c.left;
        return unconverted;
    }
    let styles = c.attach(document);
    let decls = std::mem::take(&mut c.decls);
    let constructs_after = constructs::count(document, &opts.images);
    let left_as_is = std::mem::take(&mut c.left);
    // The converter holds nodes; the proof frees the tree before it parses the edited bytes.
    drop(c);
    drop(root);
    let mut edits = match page.edits() {
        Ok(edits) if page.proves(&edits) => edits,
        Ok(_) => return unchanged("reparse-differs"),
        Err(reason) => return unchanged(reason),
    };
    // Written once the tree is freed: on a page of many distinct styles the rule keys take
    // more memory than the styles they are written from.
    let classes = element_classes(styles.styles(), &decls);
    drop(styles);
    drop(decls);
    let rules = rule_keys(&classes, opts.atomic_classes);
    if opts.css == CssMode::PerPage {
        let names = sheet::class_names(rules.clone());
        let atomic = opts.atomic_classes;
        match edits.map_text(|text, out| fill_slots(text, &classes, atomic, &names, out)) {
            Ok(filled) => edits = filled,
            Err(_) => return unchanged("too-large-to-edit"),
        }
    }
    PageMarkup {
        edits: edits.into(),
        encoding: opts.encoding,
        changed: true,
        rules: rules.into(),
        classes: classes.into(),
        atomic: opts.atomic_classes,
        constructs_before,
        constructs_after,
        left_as_is,
    }
}

/// Whether an attribute value holds a character the stage uses as a slot or selector mark.
fn uses_private_characters(document: &Node) -> bool {
    edit::descendants(document).any(|el| {
        edit::attrs(&el)
            .iter()
            .any(|(_, value)| value.contains([SLOT_OPEN, SLOT_CLOSE, SELF]))
    })
}

fn has_author_css(document: &Node) -> bool {
    edit::descendants(document).any(|el| match edit::tag(&el).as_deref() {
        Some("style") => true,
        Some("link") => edit::attr(&el, "rel").is_some_and(|r| {
            r.to_ascii_lowercase()
                .split_ascii_whitespace()
                .any(|w| w == "stylesheet")
        }),
        _ => false,
    })
}

impl Converter<'_> {
    pub(super) fn add(&mut self, el: &Node, decls: Vec<Decl>) {
        let at = self.style_place(el);
        for d in decls {
            self.styles[at].1.set(d, &mut self.decls);
        }
        self.changed = true;
    }

    /// The CSS collected for `el`, made empty on first use.
    pub(super) fn style_of(&mut self, el: &Node) -> &mut Style {
        let at = self.style_place(el);
        &mut self.styles[at].1
    }

    /// The place of `el`'s entry in `styles`, made on first use.
    fn style_place(&mut self, el: &Node) -> usize {
        let node = el.id().index();
        if let Some(at) = self.style_at.get(node) {
            return at as usize;
        }
        let at = self.styles.len();
        self.style_at.set(node, at as u32, el.nodes_made());
        self.styles.push((el.clone(), Style::default()));
        at
    }

    pub(super) fn leave(&mut self, construct: &str, reason: &str) {
        self.left.add(construct, reason, 1);
    }

    fn font(&mut self, el: &Node) {
        let guessed = |a: &str| edit::attr(el, a).is_some_and(|v| !v.is_ascii());
        if self.opts.encoding_guessed && ["face", "size", "color"].into_iter().any(guessed) {
            return self.leave("font", "encoding-guessed");
        }
        let mut decls = Vec::new();
        if let Some(face) = edit::attr(el, "face").filter(|f| !f.is_empty()) {
            match rules::font_face(&face) {
                Some(d) => decls.push(d),
                None => return self.leave("font", "font-face-unsafe"),
            }
        }
        if let Some(size) = edit::attr(el, "size") {
            if let Some(Some(d)) = rules::font_size(&size) {
                decls.push(d);
            }
        }
        if let Some(color) = edit::attr(el, "color") {
            if let Some(d) = rules::color("color", &color) {
                decls.push(d);
            }
        }
        // Misnested markup makes the parser copy a `<font>` into the blocks that follow;
        // a `<span>` would not be copied. Such a font keeps its name and takes the class: with
        // no presentational attribute left it is a plain inline element, as the span is.
        let copied = self.page.is_misnested(el);
        if copied && decls.is_empty() {
            return self.leave("font", "misnested");
        }
        let ineffective = ["face", "size", "color"].map(|a| edit::attr(el, a).is_some());
        for a in ["face", "size", "color"] {
            edit::remove_attr(el, a);
        }
        if decls.is_empty() {
            // Nothing to say in CSS: the element stays, without the attributes that did
            // nothing. Unwrapping it would not render the same: Chromium shapes the text of
            // each inline box on its own (1,000 words in `<font>` tags, unwrapped, moved
            // 70,563 px), and a `<span>` would only be longer.
            self.changed |= ineffective.contains(&true);
            return;
        }
        self.changed = true;
        if copied {
            return self.add(el, decls);
        }
        let span = self.page.rename(el, "span");
        if !decls.is_empty() {
            self.add(&span, decls);
        }
    }

    fn phrase(&mut self, el: &Node, tag: &str) {
        if !self.opts.phrase_elements {
            // `<center>` → `<div class=…>` is 3 bytes longer, `<tt>` → `<span class=…>` 13:
            // renamed with a class, these elements only ever grow the page.
            return self.leave(tag, "css-longer");
        }
        if self.page.is_misnested(el) {
            // Renamed, the parser would no longer copy it into the blocks that follow.
            return self.leave(tag, "misnested");
        }
        if let Some((new_tag, decls)) = rules::element_style(tag) {
            let new = self.page.rename(el, new_tag);
            self.add(&new, decls);
        }
    }

    /// `cellpadding` becomes `padding` on each cell whose nearest table is this one.
    fn cellpadding(&mut self, document: &Node) {
        let mut padded: Vec<(Node, Decl)> = Vec::new();
        for el in edit::descendants(document) {
            if !edit::is(&el, "table") || !edit::is_html(&el) {
                continue;
            }
            let Some(value) = edit::attr(&el, "cellpadding") else {
                continue;
            };
            match rules::px("padding", &value) {
                Some(d) => padded.push((el, d)),
                None => self.leave("cellpadding", "unparsed-value"),
            }
        }
        for (table, decl) in padded {
            self.style_cells(&table, vec![decl]);
            edit::remove_attr(&table, "cellpadding");
            self.changed = true;
        }
        for (table, style) in std::mem::take(&mut self.bordered) {
            let cell_border = vec![
                ("border-width".to_string(), "1px".to_string()),
                ("border-style".to_string(), style.to_string()),
                ("border-color".to_string(), "inherit".to_string()),
            ];
            self.style_cells(&table, cell_border);
        }
    }

    /// Styles the cells whose nearest table is `table`: one rule under the table's class
    /// (`.t>*>tr>*`: the parser always puts rows in a section, and rows hold only cells), or
    /// each cell's own style when there are no selectors (`inline-style`). Nothing else webdiet
    /// writes sets padding or borders on cells, and pages with author CSS are never converted,
    /// so the higher specificity of the table rule decides nothing.
    fn style_cells(&mut self, table: &Node, decls: Vec<Decl>) {
        if self.opts.css == CssMode::InlineStyle {
            return self.add_to_cells(table, decls);
        }
        self.add(table, Vec::new());
        self.style_of(table).set_nested(CELLS, decls);
    }

    fn add_to_cells(&mut self, table: &Node, decls: Vec<Decl>) {
        for cell in edit::elements(table) {
            if matches!(edit::tag(&cell).as_deref(), Some("td" | "th"))
                && nearest_table(&cell).is_some_and(|t| t.id() == table.id())
            {
                self.add(&cell, decls.clone());
            }
        }
    }

    /// Puts the CSS where the options say; returns the style of each slot, numbered as the
    /// slots are (none in `inline-style` mode).
    fn attach(&mut self, document: &Node) -> Slots {
        let mut slots = Slots::default();
        let head = edit::find(document, "head");
        for (el, style) in &self.styles {
            if style.is_empty() {
                continue;
            }
            match self.opts.css {
                CssMode::InlineStyle => {
                    let mut text = Style::block(&style.own(&self.decls));
                    if let Some(old) = edit::attr(el, "style") {
                        text = format!("{text};{old}");
                    }
                    edit::set_attr(el, "style", &text);
                }
                CssMode::SiteSheet | CssMode::PerPage => {
                    // One slot per distinct style (the parser's copies of a misnested
                    // `<font>` carry the slot of the tag they copy): whether it holds one
                    // combined class or one class per declaration is decided when the names
                    // are filled in.
                    let index = slots.number(style);
                    let slot = format!("{SLOT_OPEN}{index}{SLOT_CLOSE}");
                    let class = match edit::attr(el, "class") {
                        Some(old) if !old.trim().is_empty() => format!("{old} {slot}"),
                        _ => slot,
                    };
                    edit::set_attr(el, "class", &class);
                }
            }
        }
        // A style is never empty here, nor are its rule keys.
        if let (Some(head), false) = (head, slots.is_empty()) {
            match self.opts.css {
                CssMode::SiteSheet => {
                    self.page
                        .append(&head, sheet_link(&self.base_dir, &self.opts.sheet_name));
                }
                CssMode::PerPage => {
                    let classes = element_classes(slots.styles(), &self.decls);
                    let rules = rule_keys(&classes, self.opts.atomic_classes);
                    let names = sheet::class_names(rules.clone());
                    let mut style = NewElement::new("style", &[]);
                    style.text = page_css(&rules, &names, &Default::default());
                    self.page.append(&head, style);
                }
                CssMode::InlineStyle => {}
            }
        }
        slots
    }
}

/// The rule keys of each slot's style: one combined rule, and one rule per declaration.
fn element_classes(styles: impl Iterator<Item = Style>, decls: &Decls) -> Vec<ElementClasses> {
    styles
        .map(|style| ElementClasses {
            combined: style.key(decls),
            atomic: style.keys(true, decls),
        })
        .collect()
}

/// The directory, as a site path ending in `/` (`` for the root), that a page's relative URLs
/// resolve against: the page's own directory, or the one its `<base href>` names. `None` when
/// the base leads where the site's layout cannot say: an absolute URL, a path from the server
/// root, or a path that climbs above the site root.
pub(super) fn base_dir(page_path: &str, base_href: Option<&str>) -> Option<String> {
    let mut dir: Vec<&str> = page_path.split('/').collect();
    dir.pop();
    let href = base_href
        .map(|h| h.trim_matches(|c: char| c.is_ascii_whitespace()))
        .unwrap_or("");
    let path = &href[..href.find(['?', '#']).unwrap_or(href.len())];
    let scheme = path.find(':').is_some_and(|i| !path[..i].contains('/'));
    if scheme || path.starts_with('/') || path.contains('\\') {
        return None;
    }
    let Some((base, _file)) = path.rsplit_once('/') else {
        return Some(dir.iter().map(|d| format!("{d}/")).collect());
    };
    for segment in base.split('/') {
        match segment {
            "." => {}
            // `sub//`: a server may fold it, a browser does not.
            "" => return None,
            ".." => {
                dir.pop()?;
            }
            name => dir.push(name),
        }
    }
    Some(dir.iter().map(|d| format!("{d}/")).collect())
}

/// The `<link>` to the shared sheet that a page in site-sheet mode gets; `base_dir` is where
/// the page's relative URLs resolve ([`base_dir`]).
pub(super) fn sheet_link(base_dir: &str, sheet_name: &str) -> NewElement {
    let href = format!("{}{sheet_name}", to_root(base_dir));
    NewElement::new("link", &[("rel", "stylesheet"), ("href", &href)])
}

/// The minified CSS of a page's own `<style>`.
pub(super) fn page_css(
    rules: &[String],
    names: &super::ClassNames,
    memo: &sheet::MinifyMemo,
) -> String {
    // In the site sheet's order (by class name): a page's rules, when they are the whole
    // site's, are then the site sheet's text, minified once for both candidates.
    let mut ordered: Vec<(&str, &String)> = rules.iter().map(|k| (names[k].as_str(), k)).collect();
    ordered.sort_unstable_by_key(|(name, _)| *name);
    let mut css = sheet::Rules::default();
    for (name, key) in ordered {
        css.push_rule(key, SELF, &format!(".{name}"));
    }
    css.minify_with(memo).unwrap_or_else(|_| css.into_text())
}

/// The sorted, distinct rule keys of the classed elements.
pub(super) fn rule_keys(classes: &[ElementClasses], atomic: bool) -> Vec<String> {
    let mut keys: Vec<&String> = classes.iter().flat_map(|c| c.keys(atomic)).collect();
    keys.sort_unstable();
    keys.dedup();
    keys.into_iter().cloned().collect()
}

fn nearest_table(el: &Node) -> Option<Node> {
    let mut cur = edit::parent(el);
    while let Some(node) = cur {
        if edit::is(&node, "table") {
            return Some(node);
        }
        cur = edit::parent(&node);
    }
    None
}
