//! What a browser fetches to show one page, and what each fetch holds up: the page's requests
//! as Chromium's preload scanner finds them, in the page's byte order (`html::lex`, the
//! tokenizer's view, as the scanner's), each with the byte of the page that reveals it, and
//! which of them the first paint waits for.
//!
//! Chromium's rules, as the simulation takes them (docs/simulation.md, "The visitor"):
//! - a style sheet (`<link rel=stylesheet>` whose `media` applies to a screen) blocks the
//!   rendering of everything after it: the first paint waits for every sheet before the first
//!   content, and for what those sheets `@import`;
//! - a script without `async` or `defer` blocks the parser: the first paint waits for every
//!   such script before the first content (and the script for the sheets before it);
//! - the preload scanner reads ahead of a blocked parser, so every request is made once the
//!   bytes that name it have arrived; a `url()` of a sheet once the sheet has, and a
//!   `background` image once the sheets before it have (style is computed then);
//! - the first contentful paint needs the page's bytes up to its first content (text, an
//!   image, an input): a frameset's, its first frame's.

use crate::html::lex;
use crate::site::resolve::{Resolver, Target};

use super::files::Files;

/// What a fetch is, for the browser's rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FetchKind {
    Stylesheet,
    /// A script without `async` or `defer`.
    Script,
    /// A script with `async` or `defer`: it holds up `DOMContentLoaded` (defer) or nothing.
    LateScript,
    Image,
    /// A frame's or iframe's page (its own fetches are not followed).
    Frame,
    Other,
}

/// What reveals a fetch to the browser.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    /// The page's first `offset` bytes (the end of the tag that names it).
    Page { offset: u64 },
    /// The whole of an earlier fetch (a sheet's `url()` or `@import`, a background image).
    After { fetch: usize },
}

/// One fetch of the page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetch {
    /// The site path it reaches.
    pub path: String,
    pub kind: FetchKind,
    pub found: Found,
    /// The first paint waits for it.
    pub blocks_paint: bool,
    /// Pixels, for an image whose size its file gives: the largest is the page's largest
    /// contentful paint candidate.
    pub pixels: u64,
}

/// A page and its fetches, in the order a browser asks for them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageGraph {
    pub page: String,
    /// The page's bytes (as the site holds them, before any content coding).
    pub bytes: u64,
    /// How many of the page's bytes the first paint needs: up to its first content. `None`:
    /// no content of its own (a frameset: its first frame's then).
    pub first_content: Option<u64>,
    pub fetches: Vec<Fetch>,
    /// The fetches' paths, to ask once for each.
    asked: std::collections::HashSet<String>,
}

impl PageGraph {
    /// The graph of `page` of `site`; `None` when the site has no such page.
    pub fn of(site: &dyn Files, page: &str) -> Option<PageGraph> {
        let body = site.bytes(page)?;
        let resolver = Resolver::new(site.site(), None);
        let text: &[u8] = &body;
        let mut graph = PageGraph {
            page: page.to_string(),
            bytes: text.len() as u64,
            first_content: None,
            fetches: Vec::new(),
            asked: Default::default(),
        };
        let base_href = lex::start_tags(text)
            .find(|f| f.tag.name == "base")
            .and_then(|f| attr(text, &f.tag, "href"));
        let base = resolver.base_url(page, base_href.as_deref());
        let resolve = |value: &str| match resolver.resolve(&base, value) {
            Target::Local { path, .. } => Some(path),
            _ => None,
        };
        // Text outside the head's elements starts the body, with or without a `<body>` tag
        // (the parser's rule); a frameset has no content of its own.
        let mut in_body = true;
        let mut last_end = 0usize;
        for found in lex::start_tags(text) {
            let tag = &found.tag;
            if graph.first_content.is_none() && in_body {
                if let Some(at) = first_text(text, last_end, tag.span.start) {
                    graph.first_content = Some(at as u64 + 1);
                }
            }
            last_end = found.raw_text.as_ref().map_or(tag.span.end, |r| r.end);
            let offset = tag.span.end as u64;
            let get = |name: &str| attr(text, tag, name);
            let before_content = graph.first_content.is_none();
            match tag.name.as_str() {
                "frameset" => in_body = false,
                "link" => {
                    let rel = get("rel").unwrap_or_default().to_ascii_lowercase();
                    let screen = get("media").is_none_or(|m| media_is_screen(&m));
                    if rel.split_ascii_whitespace().any(|r| r == "stylesheet")
                        && !rel.split_ascii_whitespace().any(|r| r == "alternate")
                        && screen
                    {
                        if let Some(path) = get("href").and_then(|h| resolve(&h)) {
                            if let Some(f) =
                                graph.push(path, FetchKind::Stylesheet, Found::Page { offset })
                            {
                                f.blocks_paint = before_content;
                            }
                        }
                    }
                }
                "script" => {
                    if let Some(path) = get("src").and_then(|s| resolve(&s)) {
                        let late = get("async").is_some() || get("defer").is_some();
                        let kind = if late {
                            FetchKind::LateScript
                        } else {
                            FetchKind::Script
                        };
                        if let Some(f) = graph.push(path, kind, Found::Page { offset }) {
                            f.blocks_paint = before_content && !late;
                        }
                    }
                }
                "img" | "input" | "embed" | "object" => {
                    let src = match tag.name.as_str() {
                        "object" => get("data"),
                        "input"
                            if !get("type").is_some_and(|t| t.eq_ignore_ascii_case("image")) =>
                        {
                            None
                        }
                        _ => get("src"),
                    };
                    if in_body && graph.first_content.is_none() && tag.name != "object" {
                        graph.first_content = Some(offset);
                    }
                    if let Some(path) = src.and_then(|s| resolve(&s)) {
                        let pixels = site.pixels(&path);
                        if let Some(f) = graph.push(path, FetchKind::Image, Found::Page { offset })
                        {
                            f.pixels = pixels;
                        }
                    }
                }
                "frame" | "iframe" => {
                    if let Some(path) = get("src").and_then(|s| resolve(&s)) {
                        graph.push(path, FetchKind::Frame, Found::Page { offset });
                    }
                }
                _ => {}
            }
            if let Some(bg) = get("background") {
                if let Some(path) = resolve(&bg) {
                    // Style is computed once the sheets before it are in.
                    let found = graph
                        .fetches
                        .iter()
                        .rposition(|f| f.kind == FetchKind::Stylesheet)
                        .map_or(Found::Page { offset }, |fetch| Found::After { fetch });
                    let pixels = site.pixels(&path);
                    if let Some(f) = graph.push(path, FetchKind::Image, found) {
                        f.pixels = pixels;
                    }
                }
            }
        }
        if graph.first_content.is_none() && in_body {
            if let Some(at) = first_text(text, last_end, text.len()) {
                graph.first_content = Some(at as u64 + 1);
            }
        }
        graph.add_sheet_fetches(site);
        Some(graph)
    }

    /// Adds a fetch, unless the page or an earlier fetch is the same URL (a browser asks once:
    /// its memory cache); the fetch added, to set more of it.
    fn push(&mut self, path: String, kind: FetchKind, found: Found) -> Option<&mut Fetch> {
        if path == self.page || !self.asked.insert(path.clone()) {
            return None;
        }
        self.fetches.push(Fetch {
            path,
            kind,
            found,
            blocks_paint: false,
            pixels: 0,
        });
        self.fetches.last_mut()
    }

    /// The `url()`s and `@import`s of each sheet fetched: found when the sheet has arrived;
    /// an imported sheet holds up the paint as its importer does.
    fn add_sheet_fetches(&mut self, site: &dyn Files) {
        let resolver = Resolver::new(site.site(), None);
        let mut i = 0;
        while i < self.fetches.len() {
            if self.fetches[i].kind == FetchKind::Stylesheet {
                let sheet = self.fetches[i].path.clone();
                let blocks = self.fetches[i].blocks_paint;
                if let Some(body) = site.bytes(&sheet) {
                    let css = String::from_utf8_lossy(&body);
                    let base = resolver.page_url(&sheet);
                    for r in crate::css::references(&css) {
                        let Target::Local { path, .. } = resolver.resolve(&base, &r.value) else {
                            continue;
                        };
                        let import = r.kind == crate::css::CssRefKind::Import;
                        let kind = if import {
                            FetchKind::Stylesheet
                        } else {
                            FetchKind::Image
                        };
                        let pixels = if import { 0 } else { site.pixels(&path) };
                        if let Some(f) = self.push(path, kind, Found::After { fetch: i }) {
                            f.blocks_paint = import && blocks;
                            f.pixels = pixels;
                        }
                    }
                }
            }
            i += 1;
        }
    }

    /// The candidate of the largest contentful paint among the images: the one with the most
    /// pixels, if any image's size is known.
    pub fn largest_image(&self) -> Option<usize> {
        self.fetches
            .iter()
            .enumerate()
            .filter(|(_, f)| f.kind == FetchKind::Image && f.pixels > 0)
            .max_by_key(|(i, f)| (f.pixels, std::cmp::Reverse(*i)))
            .map(|(i, _)| i)
    }
}

/// An attribute's value, decoded; the first of duplicates (as the parser keeps).
fn attr(text: &[u8], tag: &lex::LexedTag, name: &str) -> Option<String> {
    let a = tag.attrs.iter().find(|a| a.name == name)?;
    let raw = a.value.clone().map_or(&b""[..], |v| &text[v]);
    Some(lex::decode_attribute(&String::from_utf8_lossy(raw)).into_owned())
}

/// Whether a `media` list applies to a screen (`all`, `screen`, or a query; not `print`).
fn media_is_screen(media: &str) -> bool {
    media.split(',').any(|m| {
        let m = m.trim().to_ascii_lowercase();
        m.is_empty() || m.starts_with("all") || m.starts_with("screen") || m.starts_with('(')
    })
}

/// The offset of the first character of text that is not white space between `from` and `to`,
/// outside end tags, comments and declarations (which fill the gaps between start tags): the
/// content a first paint can show.
fn first_text(text: &[u8], from: usize, to: usize) -> Option<usize> {
    let to = to.min(text.len());
    let mut i = from;
    while i < to {
        match text[i] {
            b'<' if text[i..].starts_with(b"<!--") => {
                i = lex::find_seq_ignore_case(text, b"-->", i + 4).map_or(to, |e| e + 3);
            }
            b'<' if matches!(text.get(i + 1), Some(b'/' | b'!' | b'?')) => {
                i = lex::memchr(b'>', text, i).map_or(to, |e| e + 1);
            }
            b if lex::is_space(b) => i += 1,
            _ => return Some(i),
        }
    }
    None
}
