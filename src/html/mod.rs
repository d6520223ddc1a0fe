//! The html5ever module: parses a decoded page into a DOM and finds every reference a browser
//! would fetch or follow.
//!
//! Parsing goes through html5ever's tree builder (not a tokenizer), so `<style>` and `<script>`
//! contents, implied elements and misnested markup are seen exactly as a browser sees them.

use std::default::Default;

use html5ever::tendril::TendrilSink;
use html5ever::{parse_document, ParseOpts};
use markup5ever_rcdom::NodeData;
use serde::Serialize;

use crate::css::{self, CssRefKind};

pub mod edit;
pub mod serialize;

pub use markup5ever_rcdom::{Handle, RcDom};

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
}

/// Parses a page.
pub fn parse(text: &str) -> RcDom {
    parse_document(RcDom::default(), ParseOpts::default()).one(text)
}

/// Whether the parsed page renders in (full) quirks mode.
pub fn is_quirks(dom: &RcDom) -> bool {
    dom.quirks_mode.get() == html5ever::tree_builder::QuirksMode::Quirks
}

/// Parses a page and lists its references.
pub fn references(text: &str) -> PageRefs {
    let dom = parse(text);
    let mut out = PageRefs {
        quirks: dom.quirks_mode.get() != html5ever::tree_builder::QuirksMode::NoQuirks,
        ..PageRefs::default()
    };
    walk(&dom.document, &mut out);
    out
}

fn walk(node: &Handle, out: &mut PageRefs) {
    if let NodeData::Element { name, attrs, .. } = &node.data {
        let tag: &str = &name.local;
        let attrs = attrs.borrow();
        let get = |attr: &str| {
            attrs
                .iter()
                .find(|a| &*a.name.local == attr)
                .map(|a| a.value.to_string())
        };
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
            "base" if out.base_href.is_none() => out.base_href = get("href"),
            "meta"
                if get("http-equiv").is_some_and(|v| v.trim().eq_ignore_ascii_case("refresh")) =>
            {
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
        if tag == "style" {
            let text = text_content(node);
            for r in css::references(&text) {
                push(RefKind::from_css(r.kind), Some(r.value));
            }
        }
    }
    if let NodeData::Element {
        template_contents, ..
    } = &node.data
    {
        if let Some(contents) = template_contents.borrow().as_ref() {
            walk(contents, out);
        }
    }
    for child in node.children.borrow().iter() {
        walk(child, out);
    }
}

fn text_content(node: &Handle) -> String {
    let mut text = String::new();
    for child in node.children.borrow().iter() {
        if let NodeData::Text { contents } = &child.data {
            text.push_str(&contents.borrow());
        }
    }
    text
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
