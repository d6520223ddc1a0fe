//! Converts one page: walks the DOM once, turns every construct it is sure of into CSS
//! declarations attached to an element, and records what it left and why. The changed DOM is
//! written back as edits of the page's own bytes ([`html::Page::edits`]), used only when
//! re-parsing the edited bytes gives the same tree ([`html::Page::proves`]).

use std::collections::BTreeSet;
use std::rc::Rc;

use crate::css::sheet;
use crate::html::{self, edit, Handle, Page, Piece, SpanEdit};

use super::constructs::{self, is_presentational, is_spacer};
use super::rules::{self, Decl};
use super::spacer::spacer_box;
use super::{
    fill_slots, rule_css, to_root, CssMode, MarkupOptions, PageMarkup, SELF, SLOT_CLOSE, SLOT_OPEN,
};

/// Selector suffix for the cells of a table (after the table's class).
const CELLS: &str = ">*>tr>*";

/// CSS attached to one element: its own declarations and rules under it (`:link`…).
#[derive(Default, Clone)]
struct Style {
    own: Vec<Decl>,
    nested: Vec<(String, Vec<Decl>)>,
}

impl Style {
    fn set(&mut self, (p, v): Decl) {
        self.own.retain(|(q, _)| *q != p);
        self.own.push((p, v));
    }

    /// Adds declarations to the rule under `suffix`, creating it when needed.
    fn set_nested(&mut self, suffix: &str, decls: Vec<Decl>) {
        let at = match self.nested.iter().position(|(s, _)| s == suffix) {
            Some(i) => i,
            None => {
                self.nested.push((suffix.to_string(), Vec::new()));
                self.nested.len() - 1
            }
        };
        for (p, v) in decls {
            let rule = &mut self.nested[at].1;
            rule.retain(|(q, _)| *q != p);
            rule.push((p, v));
        }
    }

    fn is_empty(&self) -> bool {
        self.own.is_empty() && self.nested.is_empty()
    }

    fn block(decls: &[Decl]) -> String {
        let mut sorted = decls.to_vec();
        sorted.sort();
        sorted
            .iter()
            .map(|(p, v)| format!("{p}:{v}"))
            .collect::<Vec<_>>()
            .join(";")
    }

    /// The rule keys of this element's classes: one combined rule, or with `atomic` one rule
    /// per declaration (plus one for the nested rules), which more elements share.
    fn keys(&self, atomic: bool) -> Vec<String> {
        if !atomic {
            return vec![self.key()];
        }
        let mut keys: Vec<String> = self
            .own
            .iter()
            .map(|(p, v)| format!("{SELF}{{{p}:{v}}}"))
            .collect();
        if !self.nested.is_empty() {
            let nested = Style {
                own: Vec::new(),
                nested: self.nested.clone(),
            };
            keys.push(nested.key());
        }
        keys.sort();
        keys
    }

    /// The rule key: CSS with `\u{1}` for the class selector.
    fn key(&self) -> String {
        let mut key = String::new();
        if !self.own.is_empty() {
            key.push_str(&format!("{SELF}{{{}}}", Self::block(&self.own)));
        }
        for (suffix, decls) in &self.nested {
            key.push_str(&format!("{SELF}{suffix}{{{}}}", Self::block(decls)));
        }
        key
    }
}

struct Converter<'a> {
    opts: &'a MarkupOptions,
    page: &'a Page<'a>,
    quirks: bool,
    has_base: bool,
    styles: Vec<(Handle, Style)>,
    /// Tables whose `border` became CSS, with the style of the 1px border their cells need
    /// (`inset`, or `solid` with `bordercolor`).
    bordered: Vec<(Handle, &'static str)>,
    left: Vec<(String, String)>,
    changed: bool,
}

/// Rewrites one page (its bytes, in `opts.encoding`). Never fails: a page it cannot handle
/// comes back unchanged, with every construct listed in `left_as_is`.
pub fn convert_page(bytes: &[u8], opts: &MarkupOptions) -> PageMarkup {
    let unchanged = |counts: &std::collections::BTreeMap<String, usize>, reason: &str| PageMarkup {
        encoding: opts.encoding,
        constructs_before: counts.clone(),
        constructs_after: counts.clone(),
        left_as_is: counts
            .iter()
            .flat_map(|(c, n)| std::iter::repeat_n((c.clone(), reason.to_string()), *n))
            .collect(),
        ..PageMarkup::default()
    };
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
    let document = page.document();
    let constructs_before = constructs::count(document, &opts.images);
    let unchanged = |reason: &str| unchanged(&constructs_before, reason);
    if constructs_before.is_empty() {
        return unchanged("none");
    }
    if uses_private_characters(document) {
        return unchanged("private-use-characters");
    }
    if crate::site::media_type(&opts.page_path) == "application/xhtml+xml" {
        // Served as application/xhtml+xml, the page is parsed as XML: unquoted attributes
        // would be a well-formedness error.
        return unchanged("xhtml-syntax");
    }
    if has_author_css(document) {
        // Author rules beat presentational hints whatever their specificity; classes would
        // change that order.
        return unchanged("author-css");
    }
    let mut c = Converter {
        opts,
        page: &page,
        quirks: page.is_quirks(),
        has_base: edit::find(document, "base").is_some(),
        styles: Vec::new(),
        bordered: Vec::new(),
        left: Vec::new(),
        changed: false,
    };
    let mut body_text_color = None;
    for el in edit::elements(document) {
        if !edit::is_html(&el) {
            continue;
        }
        let tag = edit::tag(&el).unwrap_or("").to_string();
        match tag.as_str() {
            "font" => c.font(&el),
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
            if edit::tag(&table) == Some("table") && edit::is_html(&table) {
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
    let rules = c.attach(document);
    let constructs_after = constructs::count(document, &opts.images);
    let left_as_is = std::mem::take(&mut c.left);
    // The converter holds nodes; the proof frees the tree before it parses the edited bytes.
    drop(c);
    let mut edits = match page.edits() {
        Ok(edits) if page.proves(&edits) => edits,
        Ok(_) => return unchanged("reparse-differs"),
        Err(reason) => return unchanged(reason),
    };
    if opts.css == CssMode::PerPage {
        let names = sheet::class_names(&rules.iter().cloned().collect());
        fill_pieces(&mut edits, |text| fill_slots(text, &rules, &names));
    }
    PageMarkup {
        edits,
        encoding: opts.encoding,
        changed: true,
        rules,
        constructs_before,
        constructs_after,
        left_as_is,
    }
}

/// Applies `fill` to the text of every edit.
pub(crate) fn fill_pieces(edits: &mut [SpanEdit], fill: impl Fn(&str) -> String) {
    for piece in edits.iter_mut().flat_map(|e| e.pieces.iter_mut()) {
        if let Piece::Text(text) = piece {
            *text = fill(text);
        }
    }
}

/// Whether an attribute value holds a character the stage uses as a slot or selector mark.
fn uses_private_characters(document: &Handle) -> bool {
    edit::elements(document).iter().any(|el| {
        edit::attr_names(el)
            .iter()
            .any(|a| edit::attr(el, a).is_some_and(|v| v.contains([SLOT_OPEN, SLOT_CLOSE, SELF])))
    })
}

fn has_author_css(document: &Handle) -> bool {
    edit::elements(document)
        .iter()
        .any(|el| match edit::tag(el) {
            Some("style") => true,
            Some("link") => edit::attr(el, "rel").is_some_and(|r| {
                r.to_ascii_lowercase()
                    .split_ascii_whitespace()
                    .any(|w| w == "stylesheet")
            }),
            _ => false,
        })
}

impl Converter<'_> {
    fn add(&mut self, el: &Handle, decls: Vec<Decl>) {
        if let Some((_, s)) = self.styles.iter_mut().find(|(e, _)| Rc::ptr_eq(e, el)) {
            for d in decls {
                s.set(d);
            }
        } else {
            let mut s = Style::default();
            for d in decls {
                s.set(d);
            }
            self.styles.push((el.clone(), s));
        }
        self.changed = true;
    }

    fn leave(&mut self, construct: &str, reason: &str) {
        self.left.push((construct.to_string(), reason.to_string()));
    }

    fn font(&mut self, el: &Handle) {
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
        for a in ["face", "size", "color"] {
            edit::remove_attr(el, a);
        }
        self.changed = true;
        if copied {
            return self.add(el, decls);
        }
        if edit::attr_names(el).is_empty() && decls.is_empty() {
            self.page.unwrap(el);
            return;
        }
        let span = self.page.rename(el, "span");
        if !decls.is_empty() {
            self.add(&span, decls);
        }
    }

    fn phrase(&mut self, el: &Handle, tag: &str) {
        if tag != "center" && !self.opts.phrase_elements {
            return self.leave(tag, "phrase-elements-off");
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

    /// A `background` attribute as a `background-image` value for where the CSS goes.
    fn background(&self, value: &str) -> Result<Option<String>, &'static str> {
        let v = value.trim();
        if v.is_empty() {
            return Ok(None);
        }
        if self.opts.css != CssMode::SiteSheet {
            return Ok(Some(rules::url(v)));
        }
        if self.has_base {
            return Err("base-href");
        }
        let scheme = v.find(':').is_some_and(|i| {
            v[..i]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
        });
        if scheme || v.starts_with('/') {
            return Ok(Some(rules::url(v)));
        }
        // Rebase from the page's directory to the site root, where the sheet lives.
        let mut parts: Vec<&str> = self.opts.page_path.split('/').collect();
        parts.pop();
        for seg in v.split('/') {
            match seg {
                "." => {}
                ".." => {
                    if parts.pop().is_none() {
                        return Err("url-outside-site");
                    }
                }
                s => parts.push(s),
            }
        }
        Ok(Some(rules::url(&parts.join("/"))))
    }

    /// Presentational attributes of any other element. Returns the body `text` colour.
    fn attributes(&mut self, el: &Handle, tag: &str) -> Option<String> {
        let mut decls: Vec<Decl> = Vec::new();
        let mut nested: Vec<(String, Vec<Decl>)> = Vec::new();
        let mut text_color = None;
        // Read before the loop removes converted attributes.
        let hspace = edit::attr(el, "hspace");
        let width = edit::attr(el, "width");
        let has_color = edit::attr(el, "color").is_some();
        let frame_rules = tag == "table"
            && (edit::attr(el, "frame").is_some() || edit::attr(el, "rules").is_some());
        // A table `border` of at least 1px, and with it a non-empty `bordercolor` turning the
        // outset/inset borders solid.
        let table_border = edit::attr(el, "border").filter(|_| tag == "table");
        let bordered = table_border
            .as_deref()
            .and_then(|b| rules::px("border-width", b))
            .is_some_and(|(_, v)| v != "0");
        let solid = bordered && edit::attr(el, "bordercolor").is_some_and(|v| !v.is_empty());
        for attr in edit::attr_names(el) {
            if !is_presentational(tag, &attr) {
                continue;
            }
            let value = edit::attr(el, &attr).unwrap_or_default();
            let cell = matches!(tag, "td" | "th");
            let part = matches!(tag, "tr" | "thead" | "tbody" | "tfoot");
            let table_like = tag == "table" || cell || part;
            // Ok(decls) → converted, attribute removed; Err(reason) → left as is.
            let result: Result<Vec<Decl>, &str> = match attr.as_str() {
                "bgcolor" if tag == "body" || table_like => {
                    Ok(rules::color("background-color", &value)
                        .into_iter()
                        .collect())
                }
                "background" => match self.background(&value) {
                    Ok(v) => Ok(v
                        .map(|u| ("background-image".to_string(), u))
                        .into_iter()
                        .collect()),
                    Err(r) => Err(r),
                },
                "text" => {
                    let d: Vec<Decl> = rules::color("color", &value).into_iter().collect();
                    text_color = d.first().map(|(_, v)| v.clone());
                    Ok(d)
                }
                "link" | "vlink" | "alink" => {
                    if self.opts.css == CssMode::InlineStyle {
                        Err("needs-selector")
                    } else {
                        let suffix = match attr.as_str() {
                            "link" => " :link",
                            "vlink" => " :visited",
                            _ => " :link:active",
                        };
                        if let Some(d) = rules::color("color", &value) {
                            nested.push((suffix.to_string(), vec![d]));
                        }
                        Ok(Vec::new())
                    }
                }
                "marginwidth" | "leftmargin" => rules::px("margin-left", &value)
                    .map(|d| vec![d.clone(), ("margin-right".to_string(), d.1)])
                    .ok_or("unparsed-value"),
                "marginheight" | "topmargin" => rules::px("margin-top", &value)
                    .map(|d| vec![d.clone(), ("margin-bottom".to_string(), d.1)])
                    .ok_or("unparsed-value"),
                "align" if tag == "table" => rules::table_align(&value).ok_or("unparsed-value"),
                "align" if tag == "img" => self.image_align(hspace.as_deref(), &value),
                "align" if tag.starts_with('h') && tag.len() == 2 && tag != "hr" => {
                    rules::heading_align(&value)
                        .map(|d| vec![d])
                        .ok_or("unparsed-value")
                }
                "align" if tag == "hr" => rules::hr_align(&value).ok_or("unparsed-value"),
                "width" if tag == "hr" => rules::length("width", &value)
                    .map(|d| vec![d])
                    .ok_or("unparsed-value"),
                "size" => rules::hr_size(&value)
                    .map(|d| vec![d])
                    .ok_or("unparsed-value"),
                "color" => Ok(rules::hr_color(&value)),
                "noshade" if !has_color => Ok(vec![
                    ("border-style".to_string(), "solid".to_string()),
                    ("border-color".to_string(), "gray".to_string()),
                    ("background-color".to_string(), "gray".to_string()),
                ]),
                // Chromium: `noshade` adds nothing when the rule has a `color`.
                "noshade" => Ok(Vec::new()),
                "align" if tag == "caption" => match rules::caption_align(&value) {
                    Some(d) => Ok(d.into_iter().collect()),
                    None => Err("unparsed-value"),
                },
                "align" if tag == "legend" => rules::legend_align(&value).ok_or("unparsed-value"),
                // `applet` is an unknown element in Chromium: only `HTMLElement`'s `text-align`.
                "align" if tag == "applet" => rules::text_align(&value)
                    .map(|d| vec![d])
                    .ok_or("unparsed-value"),
                "hspace" | "vspace" if tag == "applet" || tag == "iframe" => Ok(Vec::new()),
                "align" if matches!(tag, "object" | "embed" | "iframe") => {
                    rules::image_align(&value).ok_or("unparsed-value")
                }
                // Chromium respects `align` only on image buttons (no quirks-mode 3px gap: that
                // UA rule matches `img` only).
                "align" if tag == "input" => {
                    let image =
                        edit::attr(el, "type").is_some_and(|t| t.eq_ignore_ascii_case("image"));
                    if image {
                        rules::image_align(&value).ok_or("unparsed-value")
                    } else {
                        Ok(Vec::new())
                    }
                }
                // Columns take `text-align`/`vertical-align` from these, but cells do not
                // inherit from columns: no effect in Chromium.
                "align" | "valign" if matches!(tag, "col" | "colgroup") => Ok(Vec::new()),
                "width" if matches!(tag, "col" | "colgroup") => rules::length("width", &value)
                    .map(|d| vec![d])
                    .ok_or("unparsed-value"),
                "align" if cell || part || matches!(tag, "p" | "div") => rules::block_align(&value)
                    .map(|d| vec![d])
                    .ok_or("unparsed-value"),
                // Not a CSS value: Chromium ignores it (checked against no attribute and
                // against `middle`), so it goes without a declaration.
                "valign" if (cell || part) && value.trim().eq_ignore_ascii_case("center") => {
                    Ok(Vec::new())
                }
                "valign" if cell || part => rules::valign(&value)
                    .map(|d| vec![d])
                    .ok_or("unparsed-value"),
                "width" if tag == "table" || cell => rules::length("width", &value)
                    .map(|d| vec![d])
                    .ok_or("unparsed-value"),
                "height" if tag == "table" || cell || tag == "tr" => {
                    rules::length("height", &value)
                        .map(|d| vec![d])
                        .ok_or("unparsed-value")
                }
                "border" if tag == "img" || tag == "object" => {
                    match rules::px("border-width", &value) {
                        Some((_, v)) if v == "0" => Ok(Vec::new()),
                        Some((_, v)) => Ok(vec![("border".to_string(), format!("{v} solid"))]),
                        None => Err("unparsed-value"),
                    }
                }
                "border" | "bordercolor" if tag == "table" && frame_rules => {
                    Err("table-frame-rules")
                }
                // Chromium: outset border on the table, 1px inset on each of its cells; with a
                // non-empty `bordercolor`, solid and 1px solid.
                "border" if tag == "table" => match rules::px("border-width", &value) {
                    Some((_, v)) if v == "0" => Ok(Vec::new()),
                    Some((_, v)) => {
                        let style = if solid { "solid" } else { "outset" };
                        let cells = if solid { "solid" } else { "inset" };
                        self.bordered.push((el.clone(), cells));
                        Ok(vec![
                            ("border-width".to_string(), v),
                            ("border-style".to_string(), style.to_string()),
                        ])
                    }
                    None => Err("unparsed-value"),
                },
                "bordercolor" if tag == "table" => match table_border.as_deref() {
                    Some(b) if rules::px("border-width", b).is_none() => {
                        Err("table-border-unparsed")
                    }
                    _ => Ok(rules::table_bordercolor(&value, bordered)),
                },
                // Chromium maps `bordercolor` on tables only (checked against no attribute).
                "bordercolor" => Ok(Vec::new()),
                "hspace" if matches!(tag, "img" | "object" | "embed") => {
                    rules::px("margin-left", &value)
                        .map(|d| vec![d.clone(), ("margin-right".to_string(), d.1)])
                        .ok_or("unparsed-value")
                }
                "vspace" if matches!(tag, "img" | "object" | "embed") => {
                    rules::px("margin-top", &value)
                        .map(|d| vec![d.clone(), ("margin-bottom".to_string(), d.1)])
                        .ok_or("unparsed-value")
                }
                "nowrap" => {
                    let mut d = vec![("white-space".to_string(), "nowrap".to_string())];
                    // Quirks mode: a `nowrap` cell with a fixed width has that width as its
                    // minimum (Chromium's table-cell-nowrap-minimum-width quirk, keyed on the
                    // attribute). A percentage width does not trigger it.
                    match width.as_deref().filter(|_| self.quirks) {
                        None => Ok(d),
                        Some(w) => match rules::length("min-width", w) {
                            Some((p, v)) if v.ends_with("px") => {
                                d.push((p, v));
                                Ok(d)
                            }
                            Some(_) => Ok(d),
                            None => Err("nowrap-with-width-quirk"),
                        },
                    }
                }
                "clear" => rules::clear(&value)
                    .map(|d| vec![d])
                    .ok_or("unparsed-value"),
                "cellspacing" => rules::px("border-spacing", &value)
                    .map(|d| vec![d])
                    .ok_or("unparsed-value"),
                // Applied to the cells in a second pass.
                "cellpadding" => continue,
                _ => Err("no-verified-mapping"),
            };
            match result {
                Ok(d) => {
                    edit::remove_attr(el, &attr);
                    self.changed = true;
                    decls.extend(d);
                }
                Err(reason) => self.leave(&attr, reason),
            }
        }
        let el = &match tag {
            "img" => self.spacer(el, &mut decls),
            _ => el.clone(),
        };
        if !decls.is_empty() {
            self.add(el, decls);
        }
        if !nested.is_empty() {
            self.add(el, Vec::new());
            if let Some((_, s)) = self.styles.iter_mut().find(|(e, _)| Rc::ptr_eq(e, el)) {
                s.nested.extend(nested);
            }
        }
        text_color
    }

    /// A spacer image becomes an empty `inline-block` span of the same size (painted with the
    /// image's colour when it is opaque): both are atomic inlines whose baseline is the bottom
    /// margin edge, so lines, cells, floats and alignment lay out the same. `decls` already
    /// hold what `align`, `hspace`, `vspace` and `border` became. Returns the element that
    /// now carries the style.
    fn spacer(&mut self, el: &Handle, decls: &mut Vec<Decl>) -> Handle {
        if !is_spacer(el, &self.opts.images) {
            return el.clone();
        }
        let src = edit::attr(el, "src").unwrap_or_default();
        let Some(facts) = self.opts.images.get(&src).copied() else {
            self.leave("spacer-gif", "spacer-image-unknown");
            return el.clone();
        };
        match spacer_box(el, &facts, decls) {
            Ok(spacer_decls) => {
                for a in ["src", "alt", "width", "height"] {
                    edit::remove_attr(el, a);
                }
                decls.extend(spacer_decls);
                self.changed = true;
                self.page.rename(el, "span")
            }
            Err(reason) => {
                self.leave("spacer-gif", reason);
                el.clone()
            }
        }
    }

    /// `align` on an image. Quirks mode adds a 3px gap beside left/right floats through a UA rule
    /// keyed on the attribute (`img[align=left i] { margin-right: 3px }`), which `hspace`
    /// overrides; removing the attribute must keep that gap.
    fn image_align(&self, hspace: Option<&str>, value: &str) -> Result<Vec<Decl>, &'static str> {
        let mut decls = rules::image_align(value).ok_or("unparsed-value")?;
        let side = match value.trim().to_ascii_lowercase().as_str() {
            "left" => "margin-right",
            "right" => "margin-left",
            _ => return Ok(decls),
        };
        match hspace {
            Some(h) if rules::px("margin-left", h).is_none() => Err("hspace-unparsed"),
            Some(_) => Ok(decls),
            None if self.quirks => {
                decls.insert(0, (side.to_string(), "3px".to_string()));
                Ok(decls)
            }
            None => Ok(decls),
        }
    }

    /// `cellpadding` becomes `padding` on each cell whose nearest table is this one.
    fn cellpadding(&mut self, document: &Handle) {
        let mut padded: Vec<(Handle, Decl)> = Vec::new();
        for el in edit::elements(document) {
            if edit::tag(&el) != Some("table") || !edit::is_html(&el) {
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
    fn style_cells(&mut self, table: &Handle, decls: Vec<Decl>) {
        if self.opts.css == CssMode::InlineStyle {
            return self.add_to_cells(table, decls);
        }
        self.add(table, Vec::new());
        if let Some((_, s)) = self.styles.iter_mut().find(|(e, _)| Rc::ptr_eq(e, table)) {
            s.set_nested(CELLS, decls);
        }
    }

    fn add_to_cells(&mut self, table: &Handle, decls: Vec<Decl>) {
        for cell in edit::elements(table) {
            if matches!(edit::tag(&cell), Some("td" | "th"))
                && nearest_table(&cell).is_some_and(|t| Rc::ptr_eq(&t, table))
            {
                self.add(&cell, decls.clone());
            }
        }
    }

    /// Puts the CSS where the options say; returns the page's sorted rule keys.
    fn attach(&mut self, document: &Handle) -> Vec<String> {
        let keys: BTreeSet<String> = self
            .styles
            .iter()
            .filter(|(_, s)| !s.is_empty())
            .flat_map(|(_, s)| s.keys(self.opts.atomic_classes))
            .collect();
        let rules: Vec<String> = keys.into_iter().collect();
        let head = edit::find(document, "head");
        for (el, style) in &self.styles {
            if style.is_empty() {
                continue;
            }
            match self.opts.css {
                CssMode::InlineStyle => {
                    let mut text = Style::block(&style.own);
                    if let Some(old) = edit::attr(el, "style") {
                        text = format!("{text};{old}");
                    }
                    edit::set_attr(el, "style", &text);
                }
                CssMode::SiteSheet | CssMode::PerPage => {
                    let slot = style
                        .keys(self.opts.atomic_classes)
                        .iter()
                        .map(|k| {
                            let i = rules.binary_search(k).unwrap_or(0);
                            format!("{SLOT_OPEN}{i}{SLOT_CLOSE}")
                        })
                        .collect::<Vec<_>>()
                        .join(" ");
                    let class = match edit::attr(el, "class") {
                        Some(old) if !old.trim().is_empty() => format!("{old} {slot}"),
                        _ => slot,
                    };
                    edit::set_attr(el, "class", &class);
                }
            }
        }
        if let Some(head) = head {
            match self.opts.css {
                CssMode::SiteSheet if !rules.is_empty() => {
                    let href = format!("{}{}", to_root(&self.opts.page_path), self.opts.sheet_name);
                    self.page.append(
                        &head,
                        edit::new_element("link", &[("rel", "stylesheet"), ("href", &href)]),
                    );
                }
                CssMode::PerPage if !rules.is_empty() => {
                    let names = sheet::class_names(&rules.iter().cloned().collect());
                    let css: String = rules
                        .iter()
                        .map(|k| rule_css(k, &names[k]))
                        .collect::<Vec<_>>()
                        .join("\n");
                    let css = sheet::minify(&css).unwrap_or(css);
                    let style = edit::new_element("style", &[]);
                    edit::append_text(&style, &css);
                    self.page.append(&head, style);
                }
                _ => {}
            }
        }
        if self.opts.css == CssMode::InlineStyle {
            Vec::new()
        } else {
            rules
        }
    }
}

fn nearest_table(el: &Handle) -> Option<Handle> {
    let mut cur = edit::parent(el);
    while let Some(node) = cur {
        if edit::tag(&node) == Some("table") {
            return Some(node);
        }
        cur = edit::parent(&node);
    }
    None
}
