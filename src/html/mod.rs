//! The html5ever module: parses a decoded page into a DOM and finds every reference a browser
//! would fetch or follow; parses a page's own bytes with a source map so that edits of the DOM
//! can be written back as edits of those bytes ([`page`]).
//!
//! Parsing goes through html5ever's tree builder (not a tokenizer), so `<style>` and `<script>`
//! contents, implied elements and misnested markup are seen exactly as a browser sees them.
//! The tree is never built deeper than [`MAX_DEPTH`]; the references of a page that nests
//! deeper are read from its start tags as written ([`PageRefs::too_deep`]).

use serde::Serialize;

use crate::css::{self, CssRefKind};

pub mod arena;
pub(crate) mod by_node;
pub(crate) mod chunked;
mod compare;
pub mod edit;
pub mod edits;
pub mod lex;
pub mod meta_scan;
pub mod minify;
mod nesting;
pub mod page;
mod parse;
pub mod source;
pub(crate) mod write;

pub use edit::{NewElement, Node};
pub use edits::Edits;
pub use page::{Page, Unparsed};
pub use parse::MAX_DEPTH;

/// What kind of reference it is, named after where it was written.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum RefKind {
    /// `<img src>`
    Img,
    /// A candidate of `<img srcset>` / `<source srcset>`.
    Srcset,
    /// `<input type=image src>`
    InputImage,
    /// `background` attribute on body, table, tr, td, th…
    Background,
    /// `<link rel=stylesheet href>`
    Stylesheet,
    /// `<link rel=icon href>` / `shortcut icon`
    Icon,
    /// Any other `<link href>` (alternate, next, …): followed, not fetched.
    Link,
    /// `<script src>`
    Script,
    /// `<a href>`
    Anchor,
    /// `<area href>` of an image map.
    Area,
    /// `<frame src>`
    Frame,
    /// `<iframe src>`
    Iframe,
    /// `<object data>`
    Object,
    /// `<embed src>`
    Embed,
    /// `<img lowsrc>` (Netscape 2–4 only; no browser fetches it today).
    Lowsrc,
    /// `<video poster>`, `<source src>`, `<audio src>`, `<video src>`.
    Media,
    /// `<meta http-equiv=refresh content="N; url=...">`
    Refresh,
    /// `url()` in a `style` attribute or `<style>` block or style sheet.
    CssUrl,
    /// `@import` in a `<style>` block or style sheet.
    CssImport,
}

impl RefKind {
    /// Whether a browser fetches the target to show the page (as opposed to following it).
    pub fn is_fetched(self) -> bool {
        use RefKind::*;
        matches!(
            self,
            Img | Srcset
                | InputImage
                | Background
                | Stylesheet
                | Icon
                | Script
                | Frame
                | Iframe
                | Object
                | Embed
                | Media
                | CssUrl
                | CssImport
        )
    }

    pub fn from_css(kind: CssRefKind) -> Self {
        match kind {
            CssRefKind::Url => RefKind::CssUrl,
            CssRefKind::Import => RefKind::CssImport,
        }
    }
}

/// One reference as written in the page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawRef {
    pub kind: RefKind,
    /// The attribute value or CSS URL, unresolved.
    pub value: String,
    /// The element it was found on (`img`, `td`, `style`…).
    pub element: String,
}

/// What the reference extractor learned from one page.
#[derive(Debug, Clone, Default)]
pub struct PageRefs {
    /// The first `<base href>`, if any.
    pub base_href: Option<String>,
    /// Every reference in document order.
    pub refs: Vec<RawRef>,
    /// Whether the page renders in quirks mode (no or an old doctype).
    pub quirks: bool,
    /// The page nests deeper than [`MAX_DEPTH`]: its references were read from its start
    /// tags as written, not from the tree a browser builds.
    pub too_deep: bool,
}

/// A page nests deeper than [`MAX_DEPTH`] elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooDeep;

/// Parses a decoded page; returns its document node.
pub fn parse(text: &str) -> Result<Node, TooDeep> {
    let tree = parse_tree(text, arena::KeepText::All)?;
    let document = tree.document();
    Ok(Node::new(
        std::rc::Rc::new(std::cell::RefCell::new(tree)),
        document,
    ))
}

/// The page's first `<base href>`, as [`references`] finds it, without parsing a page that
/// has no `<base` anywhere: a `base` element is only ever made from such a start tag.
pub fn base_href(text: &str) -> Option<String> {
    if !lex::may_have_tag(text.as_bytes(), b"base") {
        return None;
    }
    references(text).base_href
}

/// Parses a decoded page into a compact, read-only [`arena::Tree`].
pub fn parse_tree(text: &str, keep: arena::KeepText) -> Result<arena::Tree, TooDeep> {
    let source = source::Source::new(text.as_bytes(), encoding_rs::UTF_8)
        .expect("UTF-8 is not a stateful encoding");
    arena::parse(&source, keep).map_err(|arena::TooDeep| TooDeep)
}

/// Parses a page and lists its references.
pub fn references(text: &str) -> PageRefs {
    let Ok(tree) = parse_tree(text, arena::KeepText::StyleOnly) else {
        return token_references(text);
    };
    let mut out = PageRefs {
        quirks: tree.quirks_mode() != html5ever::tree_builder::QuirksMode::NoQuirks,
        ..PageRefs::default()
    };
    let mut stack = vec![tree.document()];
    while let Some(node) = stack.pop() {
        if let arena::Kind::Element(name, attrs) = tree.kind(node) {
            let style = (&*name.local == "style").then(|| {
                let mut text = String::new();
                for child in tree.children(node) {
                    if let arena::Kind::Text(contents) = tree.kind(child) {
                        text.push_str(contents);
                    }
                }
                text
            });
            parsed_element_references(&name.local, attrs, style.as_deref(), &mut out);
            if let Some(contents) = tree.template_contents(node) {
                stack.extend(tree.children_rev(contents));
            }
        }
        stack.extend(tree.children_rev(node));
    }
    out
}

/// The references of one element as the parser made it, with its attributes.
fn parsed_element_references(
    tag: &str,
    attrs: &[html5ever::Attribute],
    style: Option<&str>,
    out: &mut PageRefs,
) {
    let get = |attr: &str| {
        attrs
            .iter()
            .find(|a| &*a.name.local == attr)
            .map(|a| a.value.to_string())
    };
    element_references(tag, &get, style, out);
}

/// The references of one element, whose attributes `get` gives (`style` is the text of a
/// `<style>` element).
fn element_references(
    tag: &str,
    get: &dyn Fn(&str) -> Option<String>,
    style: Option<&str>,
    out: &mut PageRefs,
) {
    let mut push = |kind: RefKind, value: Option<String>| {
        if let Some(value) = value {
            if !value.trim().is_empty() || !kind.is_fetched() {
                out.refs.push(RawRef {
                    kind,
                    value,
                    element: tag.to_string(),
                });
            }
        }
    };
    match tag {
        "img" => {
            push(RefKind::Img, get("src"));
            push(RefKind::Lowsrc, get("lowsrc"));
            for candidate in srcset_urls(get("srcset").as_deref().unwrap_or("")) {
                push(RefKind::Srcset, Some(candidate));
            }
        }
        "input" if get("type").is_some_and(|t| t.trim().eq_ignore_ascii_case("image")) => {
            push(RefKind::InputImage, get("src"))
        }
        "link" => {
            let rel = get("rel").unwrap_or_default().to_ascii_lowercase();
            let rels: Vec<&str> = rel.split_ascii_whitespace().collect();
            let kind = if rels.contains(&"stylesheet") {
                RefKind::Stylesheet
            } else if rels.contains(&"icon") {
                RefKind::Icon
            } else {
                RefKind::Link
            };
            push(kind, get("href"));
        }
        "script" => push(RefKind::Script, get("src")),
        "a" => push(RefKind::Anchor, get("href")),
        "area" => push(RefKind::Area, get("href")),
        "frame" => push(RefKind::Frame, get("src")),
        "iframe" => push(RefKind::Iframe, get("src")),
        "object" => push(RefKind::Object, get("data")),
        "embed" => push(RefKind::Embed, get("src")),
        "video" => {
            push(RefKind::Media, get("poster"));
            push(RefKind::Media, get("src"));
        }
        "audio" => push(RefKind::Media, get("src")),
        "source" => {
            push(RefKind::Media, get("src"));
            for candidate in srcset_urls(get("srcset").as_deref().unwrap_or("")) {
                push(RefKind::Srcset, Some(candidate));
            }
        }
        "base" => {
            if let (None, Some(href)) = (&out.base_href, get("href")) {
                out.base_href = Some(href);
            }
        }
        "meta" if get("http-equiv").is_some_and(|v| v.trim().eq_ignore_ascii_case("refresh")) => {
            push(
                RefKind::Refresh,
                get("content").and_then(|c| refresh_url(&c)),
            )
        }
        _ => {}
    }
    if matches!(
        tag,
        "body" | "table" | "thead" | "tbody" | "tfoot" | "tr" | "td" | "th"
    ) {
        push(RefKind::Background, get("background"));
    }
    if let Some(style) = get("style") {
        for r in css::references(&style) {
            push(RefKind::from_css(r.kind), Some(r.value));
        }
    }
    if let Some(text) = style {
        for r in css::references(text) {
            push(RefKind::from_css(r.kind), Some(r.value));
        }
    }
}

/// The references of a page too deep to build, from its start tags as written (`html::lex`,
/// linear in the page; attribute values decoded as the tokenizer decodes them). Quirks mode is
/// not known then.
fn token_references(text: &str) -> PageRefs {
    let mut out = PageRefs {
        too_deep: true,
        ..PageRefs::default()
    };
    for lex::Found { tag, raw_text } in lex::start_tags(text.as_bytes()) {
        let get = |name: &str| {
            // The first of duplicate attributes wins, as in the parser.
            let attr = tag.attrs.iter().find(|a| a.name == name)?;
            let raw = attr.value.clone().map_or("", |v| &text[v]);
            Some(lex::decode_attribute(raw).into_owned())
        };
        let style = raw_text.filter(|_| tag.name == "style").map(|r| &text[r]);
        element_references(&tag.name, &get, style, &mut out);
    }
    out
}

/// The URLs of a `srcset` attribute (the HTML standard's candidate parsing, without
/// validating descriptors).
pub fn srcset_urls(srcset: &str) -> Vec<String> {
    let mut urls = Vec::new();
    let mut rest = srcset;
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_ascii_whitespace() || c == ',');
        if rest.is_empty() {
            return urls;
        }
        let end = rest
            .find(|c: char| c.is_ascii_whitespace())
            .unwrap_or(rest.len());
        let mut url = &rest[..end];
        rest = &rest[end..];
        let had_commas = url.ends_with(',');
        url = url.trim_end_matches(',');
        if !url.is_empty() {
            urls.push(url.to_string());
        }
        if !had_commas {
            // Skip the descriptors up to the next comma outside parentheses.
            let mut depth = 0usize;
            let mut cut = rest.len();
            for (i, c) in rest.char_indices() {
                match c {
                    '(' => depth += 1,
                    ')' => depth = depth.saturating_sub(1),
                    ',' if depth == 0 => {
                        cut = i + 1;
                        break;
                    }
                    _ => {}
                }
            }
            rest = &rest[cut..];
        }
    }
}

/// `5; URL='next.html'` → `next.html`.
fn refresh_url(content: &str) -> Option<String> {
    let (_, after) = content.split_once([';', ','])?;
    let after = after.trim_start();
    let value = if after.len() >= 3 && after[..3].eq_ignore_ascii_case("url") {
        after[3..].trim_start().strip_prefix('=')?.trim_start()
    } else {
        after
    };
    let value = value.trim_matches(|c| c == '"' || c == '\'').trim();
    (!value.is_empty()).then(|| value.to_string())
}

#[cfg(test)]
mod tests;
