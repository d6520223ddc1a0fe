//! The presentational attributes of one element (`bgcolor`, `align`, `width`, `border`,
//! `hspace`…) as CSS declarations, and spacer images as sized spans: the attribute half of
//! [`super::convert`]'s walk. Every mapping is in the table of `docs/markup.md`.

use crate::html::{edit, Node};

use super::constructs::{is_presentational, is_spacer};
use super::convert::Converter;
use super::rules::{self, Decl};
use super::spacer::spacer_box;
use super::CssMode;

/// What an element's attributes say before the walk removes converted ones, and what kind of
/// element it is.
struct ElementFacts {
    hspace: Option<String>,
    width: Option<String>,
    has_color: bool,
    /// A table with `frame` or `rules`.
    frame_rules: bool,
    /// A table's `border`.
    table_border: Option<String>,
    /// A table `border` of at least 1px…
    bordered: bool,
    /// …and with it a non-empty `bordercolor`, turning the outset/inset borders solid.
    solid: bool,
    /// `td` or `th`.
    cell: bool,
    /// `tr`, `thead`, `tbody` or `tfoot`.
    part: bool,
    /// A table, a cell or a part.
    table_like: bool,
}

impl ElementFacts {
    fn read(el: &Node, tag: &str) -> Self {
        let table_border = edit::attr(el, "border").filter(|_| tag == "table");
        let bordered = table_border
            .as_deref()
            .and_then(|b| rules::px("border-width", b))
            .is_some_and(|(_, v)| v != "0");
        let cell = matches!(tag, "td" | "th");
        let part = matches!(tag, "tr" | "thead" | "tbody" | "tfoot");
        ElementFacts {
            hspace: edit::attr(el, "hspace"),
            width: edit::attr(el, "width"),
            has_color: edit::attr(el, "color").is_some(),
            frame_rules: tag == "table"
                && (edit::attr(el, "frame").is_some() || edit::attr(el, "rules").is_some()),
            solid: bordered && edit::attr(el, "bordercolor").is_some_and(|v| !v.is_empty()),
            table_border,
            bordered,
            cell,
            part,
            table_like: tag == "table" || cell || part,
        }
    }
}

/// Ok(decls) → converted, attribute removed; Err(reason) → left as is.
type Mapped = Result<Vec<Decl>, &'static str>;

/// One declaration, or `unparsed-value`.
fn one(decl: Option<Decl>) -> Mapped {
    decl.map(|d| vec![d]).ok_or("unparsed-value")
}

/// A length on both sides: `margin-left` and `margin-right`, `margin-top` and `margin-bottom`.
fn both_sides(first: &str, second: &str, value: &str) -> Mapped {
    rules::px(first, value)
        .map(|d| vec![d.clone(), (second.to_string(), d.1)])
        .ok_or("unparsed-value")
}

impl Converter<'_> {
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
    pub(super) fn attributes(&mut self, el: &Node, tag: &str) -> Option<String> {
        let mut decls: Vec<Decl> = Vec::new();
        let mut nested: Vec<(String, Vec<Decl>)> = Vec::new();
        let mut text_color = None;
        // Read before the loop removes converted attributes.
        let facts = ElementFacts::read(el, tag);
        for attr in edit::attr_names(el) {
            // `cellpadding` is applied to the cells in a second pass.
            if !is_presentational(tag, &attr) || attr == "cellpadding" {
                continue;
            }
            let value = edit::attr(el, &attr).unwrap_or_default();
            if self.opts.encoding_guessed && !value.is_ascii() {
                self.leave(&attr, "encoding-guessed");
                continue;
            }
            let result: Mapped = match attr.as_str() {
                "bgcolor" if tag == "body" || facts.table_like => {
                    Ok(rules::color("background-color", &value)
                        .into_iter()
                        .collect())
                }
                "background" => self.background(&value).map(|v| {
                    v.map(|u| ("background-image".to_string(), u))
                        .into_iter()
                        .collect()
                }),
                "text" => {
                    let d: Vec<Decl> = rules::color("color", &value).into_iter().collect();
                    text_color = d.first().map(|(_, v)| v.clone());
                    Ok(d)
                }
                "link" | "vlink" | "alink" => self.link_color(&attr, &value, &mut nested),
                "marginwidth" | "leftmargin" => both_sides("margin-left", "margin-right", &value),
                "marginheight" | "topmargin" => both_sides("margin-top", "margin-bottom", &value),
                "align" => self.align(el, tag, &facts, &value),
                "valign" => valign(tag, &facts, &value),
                "width" | "height" => size(&attr, tag, &facts, &value),
                "size" => one(rules::hr_size(&value)),
                "color" => Ok(rules::hr_color(&value)),
                "noshade" if !facts.has_color => Ok(vec![
                    ("border-style".to_string(), "solid".to_string()),
                    ("border-color".to_string(), "gray".to_string()),
                    ("background-color".to_string(), "gray".to_string()),
                ]),
                // Chromium: `noshade` adds nothing when the rule has a `color`.
                "noshade" => Ok(Vec::new()),
                "hspace" | "vspace" => space(&attr, tag, &value),
                "border" | "bordercolor" => self.border(el, &attr, tag, &facts, &value),
                "nowrap" => self.nowrap(&facts),
                "clear" => one(rules::clear(&value)),
                "cellspacing" => one(rules::px("border-spacing", &value)),
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
            self.style_of(el).nested.extend(nested);
        }
        text_color
    }

    /// `link`, `vlink` and `alink` as rules nested under the element's selector.
    fn link_color(&self, attr: &str, value: &str, nested: &mut Vec<(String, Vec<Decl>)>) -> Mapped {
        if self.opts.css == CssMode::InlineStyle {
            return Err("needs-selector");
        }
        let suffix = match attr {
            "link" => " :link",
            "vlink" => " :visited",
            _ => " :link:active",
        };
        if let Some(d) = rules::color("color", value) {
            nested.push((suffix.to_string(), vec![d]));
        }
        Ok(Vec::new())
    }

    /// `align`, by element.
    fn align(&self, el: &Node, tag: &str, facts: &ElementFacts, value: &str) -> Mapped {
        match tag {
            "table" => rules::table_align(value).ok_or("unparsed-value"),
            "img" => self.image_align(facts.hspace.as_deref(), value),
            _ if tag.starts_with('h') && tag.len() == 2 && tag != "hr" => {
                one(rules::heading_align(value))
            }
            "hr" => rules::hr_align(value).ok_or("unparsed-value"),
            "caption" => match rules::caption_align(value) {
                Some(d) => Ok(d.into_iter().collect()),
                None => Err("unparsed-value"),
            },
            "legend" => rules::legend_align(value).ok_or("unparsed-value"),
            // `applet` is an unknown element in Chromium: only `HTMLElement`'s `text-align`.
            "applet" => one(rules::text_align(value)),
            "object" | "embed" | "iframe" => rules::image_align(value).ok_or("unparsed-value"),
            // Chromium respects `align` only on image buttons (no quirks-mode 3px gap: that
            // UA rule matches `img` only).
            "input" => {
                let image = edit::attr(el, "type").is_some_and(|t| t.eq_ignore_ascii_case("image"));
                if image {
                    rules::image_align(value).ok_or("unparsed-value")
                } else {
                    Ok(Vec::new())
                }
            }
            // Columns take `text-align`/`vertical-align` from these, but cells do not
            // inherit from columns: no effect in Chromium.
            "col" | "colgroup" => Ok(Vec::new()),
            _ if facts.cell || facts.part || matches!(tag, "p" | "div") => {
                one(rules::block_align(value))
            }
            _ => Err("no-verified-mapping"),
        }
    }

    /// `border` and `bordercolor` of images, objects and tables.
    fn border(
        &mut self,
        el: &Node,
        attr: &str,
        tag: &str,
        facts: &ElementFacts,
        value: &str,
    ) -> Mapped {
        match attr {
            "border" if tag == "img" || tag == "object" => match rules::px("border-width", value) {
                Some((_, v)) if v == "0" => Ok(Vec::new()),
                Some((_, v)) => Ok(vec![("border".to_string(), format!("{v} solid"))]),
                None => Err("unparsed-value"),
            },
            _ if tag == "table" && facts.frame_rules => Err("table-frame-rules"),
            // Chromium: outset border on the table, 1px inset on each of its cells; with a
            // non-empty `bordercolor`, solid and 1px solid.
            "border" if tag == "table" => match rules::px("border-width", value) {
                Some((_, v)) if v == "0" => Ok(Vec::new()),
                Some((_, v)) => {
                    let style = if facts.solid { "solid" } else { "outset" };
                    let cells = if facts.solid { "solid" } else { "inset" };
                    self.bordered.push((el.clone(), cells));
                    Ok(vec![
                        ("border-width".to_string(), v),
                        ("border-style".to_string(), style.to_string()),
                    ])
                }
                None => Err("unparsed-value"),
            },
            "bordercolor" if tag == "table" => match facts.table_border.as_deref() {
                Some(b) if rules::px("border-width", b).is_none() => Err("table-border-unparsed"),
                _ => Ok(rules::table_bordercolor(value, facts.bordered)),
            },
            // Chromium maps `bordercolor` on tables only (checked against no attribute).
            "bordercolor" => Ok(Vec::new()),
            _ => Err("no-verified-mapping"),
        }
    }

    /// `nowrap` on a cell.
    fn nowrap(&self, facts: &ElementFacts) -> Mapped {
        let mut d = vec![("white-space".to_string(), "nowrap".to_string())];
        // Quirks mode: a `nowrap` cell with a fixed width has that width as its
        // minimum (Chromium's table-cell-nowrap-minimum-width quirk, keyed on the
        // attribute). A percentage width does not trigger it.
        match facts.width.as_deref().filter(|_| self.quirks) {
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

    /// A spacer image becomes an empty `inline-block` span of the same size (painted with the
    /// image's colour when it is opaque): both are atomic inlines whose baseline is the bottom
    /// margin edge, so lines, cells, floats and alignment lay out the same. `decls` already
    /// hold what `align`, `hspace`, `vspace` and `border` became. Returns the element that
    /// now carries the style.
    fn spacer(&mut self, el: &Node, decls: &mut Vec<Decl>) -> Node {
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
}

/// `valign` of cells and table parts.
fn valign(tag: &str, facts: &ElementFacts, value: &str) -> Mapped {
    let cell_or_part = facts.cell || facts.part;
    match tag {
        // Columns take `vertical-align` from it, but cells do not inherit from columns: no
        // effect in Chromium.
        "col" | "colgroup" => Ok(Vec::new()),
        // Not a CSS value: Chromium ignores it (checked against no attribute and
        // against `middle`), so it goes without a declaration.
        _ if cell_or_part && value.trim().eq_ignore_ascii_case("center") => Ok(Vec::new()),
        _ if cell_or_part => one(rules::valign(value)),
        _ => Err("no-verified-mapping"),
    }
}

/// `width` and `height`, by element.
fn size(attr: &str, tag: &str, facts: &ElementFacts, value: &str) -> Mapped {
    match attr {
        "width" if tag == "hr" => one(rules::length("width", value)),
        "width" if matches!(tag, "col" | "colgroup") => one(rules::length("width", value)),
        "width" if tag == "table" || facts.cell => one(rules::length("width", value)),
        "height" if tag == "table" || facts.cell || tag == "tr" => {
            one(rules::length("height", value))
        }
        _ => Err("no-verified-mapping"),
    }
}

/// `hspace` and `vspace`, by element.
fn space(attr: &str, tag: &str, value: &str) -> Mapped {
    match attr {
        _ if tag == "applet" || tag == "iframe" => Ok(Vec::new()),
        "hspace" if matches!(tag, "img" | "object" | "embed") => {
            both_sides("margin-left", "margin-right", value)
        }
        "vspace" if matches!(tag, "img" | "object" | "embed") => {
            both_sides("margin-top", "margin-bottom", value)
        }
        _ => Err("no-verified-mapping"),
    }
}
