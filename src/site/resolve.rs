//! Turns a reference as written in a page (`../img\Logo.GIF?v=2#x`) into a file of the site,
//! the way a browser and a plain static server together would.
//!
//! The URL part is the `url` crate (the WHATWG URL parser browsers implement: `..`, `\` as `/`,
//! percent-encoding, tabs and newlines stripped). The file part is ours, because it models the
//! server: exact match, directory index, a case-insensitive match for captures made on Windows,
//! and extensionless names that a server would content-negotiate (`w3c_home` → `w3c_home.gif`).
//!
//! Names are bytes, as on an Apache server: the URL path is percent-decoded to bytes and those
//! bytes are the file name ([`super::name::from_url_path`], where a decoded `/`, `.` or `..`
//! stays a name and never becomes path structure), so `caf%E9.gif` reaches the Latin-1 file
//! `caf\xe9.gif`. A browser writes a URL path in UTF-8 whatever the page's encoding, so a raw
//! Latin-1 `é` in a windows-1252 page asks for `caf%C3%A9.gif`, which does not reach it.
//! Symbolic links inside the site are followed as a server following links would: a URL through
//! a link reaches the file under its own path.

use std::borrow::Cow;
use std::collections::BTreeMap;

use percent_encoding::{percent_encode, AsciiSet, CONTROLS};
use serde::Serialize;
use url::Url;

use super::{name, Site};

/// The host that stands for "this site" while resolving.
const SITE_ORIGIN: &str = "http://webdiet.invalid/";

/// Characters escaped when a file path is turned into a URL path segment (also by
/// `archive::names::url_of`, which names a rewritten file in an emitted WACZ).
pub(crate) const SEGMENT: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'`')
    .add(b'{')
    .add(b'}')
    .add(b'\\');

/// Directory index names a server tries, in order: Apache's and IIS's defaults, then
/// `Overview.html` (W3C's servers; the libwww docs link to directories that hold one) and
/// `Welcome.html` (CERN httpd's default).
pub(crate) const INDEX_NAMES: [&str; 8] = [
    "index.html",
    "index.htm",
    "index.shtml",
    "default.htm",
    "default.html",
    "Overview.html",
    "Welcome.html",
    "welcome.html",
];

/// The most links one URL path may pass through (Linux's limit for one path lookup).
const MAX_LINK_HOPS: usize = 40;

/// Extension preference when an extensionless name matches several files.
const NEGOTIATION_ORDER: [&str; 8] = ["html", "htm", "gif", "png", "jpg", "jpeg", "css", "js"];

/// How a local reference found its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Match {
    /// The path names the file exactly.
    Exact,
    /// The path names a directory; its index page was used.
    DirectoryIndex,
    /// Only a case-insensitive comparison finds the file (a capture made on Windows).
    CaseInsensitive,
    /// The path has no extension; a server would negotiate it to this file.
    Extensionless,
}

/// Where a reference leads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Target {
    /// A file of the site.
    Local { path: String, how: Match },
    /// Another site or scheme (`http:`, `mailto:`, `javascript:`, …): listed, not followed.
    External { url: String },
    /// Inline content that needs no request (`data:`, `about:blank`).
    Inline,
    /// Should be a file of the site but is not.
    Broken { path: String, reason: String },
}

/// Resolves references against the files of one site.
pub struct Resolver<'a> {
    site: &'a Site,
    origin: Url,
    /// Also treat absolute URLs under this prefix as local (`--site-url`).
    site_url: Option<Url>,
    /// Lower-cased site path → files.
    lower: BTreeMap<String, Vec<usize>>,
    /// Lower-cased path without extension → (name it has there, file it leads to), for files
    /// and for links to files.
    stems: BTreeMap<String, Vec<(String, usize)>>,
    /// Lower-cased link path → link.
    links_lower: BTreeMap<String, usize>,
    /// Some file or link keeps a query string in its name (a web archive's capture of
    /// `page?q=1`, [`crate::archive::names`]): a reference with a query looks for it first.
    query_names: bool,
}

impl<'a> Resolver<'a> {
    pub fn new(site: &'a Site, site_url: Option<Url>) -> Self {
        let mut lower: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        let mut stems: BTreeMap<String, Vec<(String, usize)>> = BTreeMap::new();
        let mut add_stem = |path: &str, i: usize| {
            let (dir, name) = split_dir(path);
            if let Some((stem, ext)) = name.rsplit_once('.') {
                if !stem.is_empty() && !ext.is_empty() {
                    stems
                        .entry(format!("{dir}{stem}").to_lowercase())
                        .or_default()
                        .push((path.to_string(), i));
                }
            }
        };
        for (i, file) in site.files.iter().enumerate() {
            lower.entry(file.path.to_lowercase()).or_default().push(i);
            add_stem(&file.path, i);
        }
        let mut links_lower = BTreeMap::new();
        for (i, link) in site.links.iter().enumerate() {
            links_lower.entry(link.path.to_lowercase()).or_insert(i);
            match site.index.get(&link.leads_to) {
                Some(&file) if !link.dir => add_stem(&link.path, file),
                _ => {}
            }
        }
        let query_names = site
            .files
            .iter()
            .map(|f| &f.path)
            .chain(site.links.iter().map(|l| &l.path))
            .any(|p| p.contains('?'));
        Resolver {
            site,
            origin: Url::parse(SITE_ORIGIN).expect("constant URL parses"),
            site_url,
            lower,
            stems,
            links_lower,
            query_names,
        }
    }

    /// The site's entry page: the index page of the root directory, if it has one.
    pub fn entry_page(&self) -> Option<String> {
        match self.find("") {
            Target::Local { path, .. } => Some(path),
            _ => None,
        }
    }

    /// The URL a page of the site has while its references are resolved.
    pub fn page_url(&self, page: &str) -> Url {
        let encoded: Vec<String> = page
            .split('/')
            .map(|s| percent_encode(&name::to_bytes(s), SEGMENT).to_string())
            .collect();
        self.origin
            .join(&encoded.join("/"))
            .unwrap_or_else(|_| self.origin.clone())
    }

    /// The base URL for a page: its own URL, or its `<base href>` resolved against it.
    pub fn base_url(&self, page: &str, base_href: Option<&str>) -> Url {
        let page_url = self.page_url(page);
        match base_href.map(|h| page_url.join(h)) {
            Some(Ok(base)) => base,
            _ => page_url,
        }
    }

    /// Resolves one reference as written, against a base URL from [`Self::base_url`].
    pub fn resolve(&self, base: &Url, raw: &str) -> Target {
        let url = match base.join(raw) {
            Ok(url) => url,
            Err(err) => {
                return Target::Broken {
                    path: raw.to_string(),
                    reason: format!("malformed URL: {err}"),
                }
            }
        };
        match self.local_path(&url) {
            Some(path) => match url.query().filter(|q| self.query_names && !q.is_empty()) {
                Some(query) => match self.exact(&name::query_name(&path, query)) {
                    Some(i) => Target::Local {
                        path: self.site.files[i].path.clone(),
                        how: Match::Exact,
                    },
                    None => self.find(&path),
                },
                None => self.find(&path),
            },
            None => match url.scheme() {
                "data" | "about" | "blob" => Target::Inline,
                _ => Target::External {
                    url: url.to_string(),
                },
            },
        }
    }

    /// The decoded site path of a URL that belongs to the site, without query and fragment.
    fn local_path(&self, url: &Url) -> Option<String> {
        let encoded = if url.origin() == self.origin.origin() {
            url.path().to_string()
        } else {
            let prefix = self.site_url.as_ref()?;
            let same_origin = url.scheme().eq_ignore_ascii_case(prefix.scheme())
                && url.host_str().map(str::to_ascii_lowercase)
                    == prefix.host_str().map(str::to_ascii_lowercase)
                && url.port_or_known_default() == prefix.port_or_known_default();
            if !same_origin {
                return None;
            }
            format!("/{}", url.path().strip_prefix(prefix.path())?)
        };
        Some(name::from_url_path(&encoded))
    }

    /// Finds the file for a decoded site path.
    fn find(&self, path: &str) -> Target {
        let local = |i: usize, how| Target::Local {
            path: self.site.files[i].path.clone(),
            how,
        };
        if let Some(i) = self.exact(path) {
            return local(i, Match::Exact);
        }
        // A directory (with or without the trailing slash): its index page.
        let dir = if path.is_empty() || path.ends_with('/') {
            path.to_string()
        } else {
            format!("{path}/")
        };
        for name in INDEX_NAMES {
            if let Some(i) = self.exact(&format!("{dir}{name}")) {
                return local(i, Match::DirectoryIndex);
            }
        }
        if let Some(i) = self.folded(path) {
            return local(i, Match::CaseInsensitive);
        }
        for name in INDEX_NAMES {
            if let Some(i) = self.folded(&format!("{dir}{name}")) {
                return local(i, Match::DirectoryIndex);
            }
        }
        let (_, name) = split_dir(path);
        if !name.is_empty() && !name.contains('.') {
            if let Some(i) = self.negotiate(&self.through_links(path, false)) {
                return local(i, Match::Extensionless);
            }
        }
        let reason = if path.is_empty() || path.ends_with('/') {
            "directory has no index page".to_string()
        } else {
            "no such file in the site".to_string()
        };
        Target::Broken {
            path: path.to_string(),
            reason,
        }
    }

    /// The file a path names exactly, links followed.
    fn exact(&self, path: &str) -> Option<usize> {
        self.site
            .index
            .get(self.through_links(path, false).as_ref())
            .copied()
    }

    /// The file a path names when letter case is ignored, links followed.
    fn folded(&self, path: &str) -> Option<usize> {
        let path = self.through_links(path, true).to_lowercase();
        self.lower.get(&path).and_then(|v| v.first()).copied()
    }

    /// The path with each symbolic link on it replaced by where the link leads, from the left,
    /// as a server resolves a path one directory at a time. `fold_case` also matches link
    /// names in any letter case.
    fn through_links<'p>(&self, path: &'p str, fold_case: bool) -> Cow<'p, str> {
        if self.site.links.is_empty() {
            return Cow::Borrowed(path);
        }
        let mut path = Cow::Borrowed(path);
        for _ in 0..MAX_LINK_HOPS {
            let ends = path
                .match_indices('/')
                .map(|(i, _)| i)
                .chain(std::iter::once(path.len()));
            let found = ends.filter(|&end| end > 0).find_map(|end| {
                let prefix = &path[..end];
                let link = match self.site.link(prefix) {
                    Some(link) => Some(link),
                    None if fold_case => self
                        .links_lower
                        .get(&prefix.to_lowercase())
                        .map(|&i| &self.site.links[i]),
                    None => None,
                };
                link.map(|link| (end, link))
            });
            let Some((end, link)) = found else {
                return path;
            };
            path = Cow::Owned(format!("{}{}", link.leads_to, &path[end..]));
        }
        path
    }

    /// Picks the file a server would serve for an extensionless name: same-case stems first,
    /// then by [`NEGOTIATION_ORDER`], then alphabetically.
    fn negotiate(&self, path: &str) -> Option<usize> {
        let candidates = self.stems.get(&path.to_lowercase())?;
        candidates
            .iter()
            .min_by_key(|(name, _)| {
                let (stem, ext) = name.rsplit_once('.').unwrap_or((name, ""));
                let ext = ext.to_ascii_lowercase();
                let rank = NEGOTIATION_ORDER
                    .iter()
                    .position(|e| *e == ext)
                    .unwrap_or(NEGOTIATION_ORDER.len());
                (stem != path, rank, name.clone())
            })
            .map(|&(_, i)| i)
    }
}

/// `a/b/c.gif` → (`a/b/`, `c.gif`).
fn split_dir(path: &str) -> (&str, &str) {
    match path.rfind('/') {
        Some(i) => (&path[..=i], &path[i + 1..]),
        None => ("", path),
    }
}

#[cfg(test)]
mod tests;
