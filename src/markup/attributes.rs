//! The presentational attributes of one element (`bgcolor`, `align`, `width`, `border`,
//! `hspace`…) as CSS declarations, and spacer images as sized spans: the attribute half of
//! [`super::convert`]'s walk. Every mapping is in the table of `docs/markup.md`.

use crate::html::{edit, Handle};

use super::constructs::{is_presentational, is_spacer};
use super::convert::Converter;
use super::rules::{self, Decl};
use super::spacer::spacer_box;
use super::CssMode;

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
    pub(super) fn attributes(&mut self, el: &Handle, tag: &str) -> Option<String> {
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
            self.style_of(el).nested.extend(nested);
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
}
