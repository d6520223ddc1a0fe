//! What counts as a presentational construct: the elements and attributes the markup stage
//! converts, and spacer images. Counted on the parsed page, or, for a page too deep to
//! parse, on its start tags as written.

use std::collections::BTreeMap;

use crate::html::{edit, lex, Node};
use crate::image::ImageFacts;

/// Elements that are presentational constructs in themselves.
const ELEMENTS: &[&str] = &[
    "font", "basefont", "center", "u", "s", "strike", "big", "tt", "nobr",
];

/// Whether `attr` on `tag` is a presentational attribute (one with a CSS equivalent).
pub(super) fn is_presentational(tag: &str, attr: &str) -> bool {
    let cell = matches!(tag, "td" | "th");
    let part = matches!(tag, "tr" | "thead" | "tbody" | "tfoot");
    let heading = matches!(tag, "h1" | "h2" | "h3" | "h4" | "h5" | "h6");
    match attr {
        "bgcolor" => tag != "font" && tag != "basefont",
        "background" => tag == "body" || tag == "table" || cell || part,
        "text" | "link" | "vlink" | "alink" | "marginwidth" | "marginheight" | "leftmargin"
        | "topmargin" => tag == "body",
        "align" => {
            heading
                || cell
                || part
                || matches!(
                    tag,
                    "p" | "div"
                        | "table"
                        | "caption"
                        | "img"
                        | "hr"
                        | "input"
                        | "object"
                        | "legend"
                        | "col"
                        | "colgroup"
                        | "iframe"
                        | "applet"
                        | "embed"
                )
        }
        "valign" => cell || part || matches!(tag, "col" | "colgroup"),
        "width" => cell || matches!(tag, "table" | "col" | "colgroup" | "hr" | "pre"),
        "height" => cell || matches!(tag, "table" | "tr"),
        "border" => matches!(tag, "img" | "table" | "object"),
        "hspace" | "vspace" => matches!(tag, "img" | "object" | "applet" | "embed" | "iframe"),
        "nowrap" => cell,
        "clear" => tag == "br",
        "cellpadding" | "cellspacing" => tag == "table",
        "size" | "noshade" | "color" => tag == "hr",
        "bordercolor" => tag == "table" || cell || tag == "tr",
        _ => false,
    }
}

/// Whether an `<img>` is a spacer: an image of one flat fill (transparent or one opaque colour)
/// by its decoded pixels when the caller knows the file (`MarkupOptions::images`), otherwise by
/// the usual names (`spacer.gif`, `blank.gif`, `1x1.gif`…) with a declared size.
pub(super) fn is_spacer(el: &Node, images: &BTreeMap<String, ImageFacts>) -> bool {
    spacer_by(&|a| edit::attr(el, a), images)
}

fn spacer_by(attr: &dyn Fn(&str) -> Option<String>, images: &BTreeMap<String, ImageFacts>) -> bool {
    let Some(src) = attr("src") else {
        return false;
    };
    if let Some(facts) = images.get(&src) {
        return facts.fill.is_some();
    }
    let file = src.rsplit('/').next().unwrap_or("").to_ascii_lowercase();
    let stem = file.split('.').next().unwrap_or("");
    (attr("width").is_some() || attr("height").is_some())
        && [
            "spacer", "space", "blank", "pixel", "clear", "1x1", "trans", "shim",
        ]
        .iter()
        .any(|s| stem.contains(s))
}

/// Counts one element's constructs.
fn count_element(
    tag: &str,
    names: &[&str],
    attr: &dyn Fn(&str) -> Option<String>,
    images: &BTreeMap<String, ImageFacts>,
    counts: &mut BTreeMap<String, usize>,
) {
    let mut add = |construct: &str| match counts.get_mut(construct) {
        Some(n) => *n += 1,
        None => {
            counts.insert(construct.to_string(), 1);
        }
    };
    if ELEMENTS.contains(&tag) {
        // A `<font>` without `face`, `size` or `color` (a `<font class=…>`, what a misnested
        // font becomes, or one whose attributes did nothing) has no effect in Chromium.
        let bare_font = tag == "font"
            && !names
                .iter()
                .any(|n| matches!(*n, "face" | "size" | "color"));
        if !bare_font {
            add(tag);
        }
        return;
    }
    for a in names {
        if is_presentational(tag, a) {
            add(a);
        }
    }
    if tag == "img" && spacer_by(attr, images) {
        add("spacer-gif");
    }
}

/// Presentational constructs in a parsed page, by name.
pub fn count(document: &Node, images: &BTreeMap<String, ImageFacts>) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for el in edit::descendants(document) {
        if let (true, Some(name)) = (edit::is_html(&el), edit::tag(&el)) {
            let attrs = edit::attrs(&el);
            let attr = |a: &str| {
                let found = attrs.iter().find(|(n, _)| n == a)?;
                Some(found.1.clone())
            };
            let names: Vec<&str> = attrs.iter().map(|(n, _)| n.as_str()).collect();
            count_element(&name, &names, &attr, images, &mut counts);
        }
    }
    counts
}

/// Presentational constructs in a page's start tags as written (for a page too deep to
/// parse), by name: read by `html::lex` from text in which every delimiter of markup is where
/// the page has it (an `html::source` shadow, or decoded text), in linear time.
pub fn count_tags(text: &[u8], images: &BTreeMap<String, ImageFacts>) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for found in lex::start_tags(text) {
        let tag = &found.tag;
        let names: Vec<&str> = tag.attrs.iter().map(|a| a.name.as_str()).collect();
        let attr = |name: &str| {
            let a = tag.attrs.iter().find(|a| a.name == name)?;
            let value = a.value.clone().map_or(&[][..], |v| &text[v]);
            Some(String::from_utf8_lossy(value).into_owned())
        };
        count_element(&tag.name, &names, &attr, images, &mut counts);
    }
    counts
}
