//! Which files of an archive's site are its entry pages, and which one a visit starts at, chosen
//! as a replay tool chooses: `pages.jsonl`'s pages in their order (Browsertrix and pywb write
//! it; ReplayWeb.page opens its first); else every HTML 200 capture (as wabac.js lists them),
//! the site root's page first (what the root URL reaches, else a root index page by the names a
//! server tries, as for a directory), else the first HTML 200 capture in record order (the
//! seed of a crawl: a WARC holds no seed list, Heritrix writes none). The same site then starts
//! at the same page whether it is read from a directory or from an archive.

use std::collections::HashMap;

use url::Url;

use super::index::Index;
use super::summary::StartPage;
use super::{surt, tree::Tree};

/// Captured URLs by SURT key, for finding the file a page URL reaches in one lookup.
pub struct UrlPaths<'a> {
    tree: &'a Tree,
    by_key: HashMap<String, &'a str>,
}

impl<'a> UrlPaths<'a> {
    pub fn new(tree: &'a Tree) -> Self {
        let mut by_key = HashMap::new();
        // In URL order, the first URL of a key wins (http before https).
        for (url, path) in &tree.url_paths {
            by_key.entry(surt::key(url)).or_insert(path.as_str());
        }
        UrlPaths { tree, by_key }
    }

    /// The file a page URL reaches: its own, or through a redirect or a directory URL.
    pub fn page_path(&self, url: &str) -> Option<String> {
        let path = *self.by_key.get(&surt::key(url))?;
        let path = self.tree.links.get(path).map_or(path, String::as_str);
        self.tree.files.contains_key(path).then(|| path.to_string())
    }
}

/// Where the entry pages came from (`archive.pages_source`).
pub const FROM_PAGES_JSONL: &str = "pages.jsonl";
pub const FROM_HTML_200: &str = "html-200-responses";

/// The entry pages, in order, where they came from, and the page a visit starts at with the
/// rule that chose it.
pub fn entry_pages(
    index: &Index,
    tree: &Tree,
    urls: &UrlPaths<'_>,
    origin: &Url,
) -> (Vec<String>, &'static str, Option<StartPage>) {
    let mut pages: Vec<String> = Vec::new();
    for page in &index.pages {
        if let Some(path) = urls.page_path(&page.url) {
            if !pages.contains(&path) {
                pages.push(path);
            }
        }
    }
    if let Some(first) = pages.first() {
        let start = StartPage::new(first, "pages-jsonl", "the first page pages.jsonl lists");
        return (pages, FROM_PAGES_JSONL, Some(start));
    }
    // Each URL's first capture in record order (files, then offsets, as given).
    let mut first_seen: HashMap<&str, usize> = HashMap::new();
    for (i, e) in index.entries.iter().enumerate() {
        if e.is_capture() {
            first_seen.entry(e.key.as_str()).or_insert(i);
        }
    }
    let is_page = |path: &str| {
        tree.files
            .get(path)
            .is_some_and(|f| f.status == 200 && crate::site::media_type(path) == "text/html")
    };
    let mut pages: Vec<(usize, String)> = tree
        .files
        .iter()
        .filter(|(path, _)| is_page(path))
        .map(|(path, f)| {
            let at = first_seen
                .get(surt::key(&f.url).as_str())
                .copied()
                .unwrap_or(usize::MAX);
            (at, path.clone())
        })
        .collect();
    pages.sort();
    let mut pages: Vec<String> = pages.into_iter().map(|(_, path)| path).collect();
    let root = urls.page_path(origin.as_str()).filter(|p| is_page(p));
    let root_index = || {
        crate::site::resolve::INDEX_NAMES
            .iter()
            .find(|name| is_page(name))
            .map(|name| name.to_string())
    };
    let start = if let Some(path) = root {
        StartPage::new(
            &path,
            "site-root",
            &format!("the page the site's root URL {origin} reaches (no pages.jsonl)"),
        )
    } else if let Some(path) = root_index() {
        StartPage::new(
            &path,
            "root-index",
            &format!(
                "the site root's index page (no pages.jsonl, and no capture of {origin} \
                 itself makes a page)"
            ),
        )
    } else if let Some(path) = pages.first() {
        StartPage::new(
            path,
            "first-html-200",
            "the first HTML 200 capture in record order, a crawl's seed (no pages.jsonl, and \
             the site's root has no page)",
        )
    } else {
        return (pages, FROM_HTML_200, None);
    };
    if let Some(at) = pages.iter().position(|p| *p == start.path) {
        let first = pages.remove(at);
        pages.insert(0, first);
    }
    (pages, FROM_HTML_200, Some(start))
}
