//! The analyze stage: `Site → Inventory`. Parses every page and style sheet, resolves every
//! reference, and sums up what the site is made of: bytes by type, broken references, orphans
//! and external links.

use std::collections::{BTreeMap, BTreeSet};

use rayon::prelude::*;
use serde::Serialize;
use url::Url;

use crate::css;
use crate::error::Problem;
use crate::html::{self, RefKind};
use crate::site::charset::{self, CharsetSource};
use crate::site::resolve::{Resolver, Target};
use crate::site::{FileKind, Site, SiteFile, SiteLink};

/// Options for [`analyze`].
#[derive(Debug, Clone)]
pub struct AnalyzeOptions {
    /// Absolute URLs under this prefix count as links into the site (`--site-url`).
    /// Default: none.
    pub site_url: Option<Url>,
    /// Pages and style sheets larger than this are listed but not parsed.
    /// Default: 16 MiB.
    pub max_parse_bytes: u64,
}

impl Default for AnalyzeOptions {
    fn default() -> Self {
        AnalyzeOptions {
            site_url: None,
            max_parse_bytes: 16 << 20,
        }
    }
}

/// Count and bytes of one file type.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct TypeStats {
    pub count: usize,
    pub bytes: u64,
}

impl std::ops::AddAssign<&SiteFile> for TypeStats {
    fn add_assign(&mut self, file: &SiteFile) {
        self.count += 1;
        self.bytes += file.bytes;
    }
}

/// One resolved reference.
#[derive(Debug, Clone, Serialize)]
pub struct Reference {
    pub kind: RefKind,
    /// As written in the source.
    pub value: String,
    /// Whether a browser fetches it to show the page.
    pub fetched: bool,
    pub target: Target,
}

/// What one page or style sheet refers to.
#[derive(Debug, Clone, Serialize)]
pub struct Document {
    pub path: String,
    pub kind: FileKind,
    pub bytes: u64,
    /// The character encoding used to read it (pages only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub charset: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub charset_source: Option<CharsetSource>,
    /// Whether the page renders in quirks mode.
    pub quirks: bool,
    pub references: Vec<Reference>,
}

/// A reference whose target should be in the site but is not.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, serde::Deserialize)]
pub struct BrokenReference {
    pub page: String,
    pub reference: String,
    pub kind: RefKind,
    pub reason: String,
}

/// A reference to another site or scheme.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, serde::Deserialize)]
pub struct ExternalLink {
    pub page: String,
    pub url: String,
    pub kind: RefKind,
}

/// Everything the analyze stage found.
#[derive(Debug, Clone, Serialize)]
pub struct Inventory {
    /// The site directory as given.
    pub site: String,
    /// Number of HTML pages.
    pub pages: usize,
    /// Number of other files.
    pub resources: usize,
    /// Total bytes of all files.
    pub bytes: u64,
    /// Count and bytes per file type (`html`, `css`, `gif`, `png`, `jpeg`, `js`, `other`).
    pub by_type: BTreeMap<&'static str, TypeStats>,
    /// Number of references found in pages and style sheets.
    pub references: usize,
    pub broken_references: Vec<BrokenReference>,
    /// Files nothing refers to (the site's root index page excepted).
    pub orphans: Vec<String>,
    pub external_links: Vec<ExternalLink>,
    /// Symbolic links inside the site that lead inside it. The files they lead to are counted
    /// once, under their own path; a reference through a link resolves to that path.
    pub symlinks: Vec<SiteLink>,
    /// Files that could not be read or parsed, and other trouble, with the reason.
    pub problems: Vec<Problem>,
    /// Every page and style sheet with its resolved references.
    pub documents: Vec<Document>,
    /// What the web archive the site was read from held, when it was one (`analyze` of a WARC,
    /// an ARC or a WACZ; see docs/archives.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub archive: Option<crate::archive::ArchiveReport>,
}

/// Parses and resolves everything in the site.
pub fn analyze(site: &Site, opts: &AnalyzeOptions) -> Inventory {
    let resolver = Resolver::new(site, opts.site_url.clone());
    let parsed: Vec<(Option<Document>, Vec<Problem>)> = site
        .files
        .par_iter()
        .filter(|f| matches!(f.kind, FileKind::Html | FileKind::Css))
        .map(|file| read_document(site, &resolver, file, opts))
        .collect();

    let mut by_type: BTreeMap<&'static str, TypeStats> = BTreeMap::new();
    for file in &site.files {
        *by_type.entry(file.kind.as_str()).or_default() += file;
    }
    let mut problems = site.problems.clone();
    let mut documents = Vec::new();
    for (doc, doc_problems) in parsed {
        problems.extend(doc_problems);
        documents.extend(doc);
    }

    let mut referenced = BTreeSet::new();
    let mut broken = Vec::new();
    let mut external = Vec::new();
    let mut references = 0;
    for doc in &documents {
        references += doc.references.len();
        for r in &doc.references {
            match &r.target {
                Target::Local { path, .. } if *path != doc.path => {
                    referenced.insert(path.as_str());
                }
                Target::Broken { reason, .. } => broken.push(BrokenReference {
                    page: doc.path.clone(),
                    reference: r.value.clone(),
                    kind: r.kind,
                    reason: reason.clone(),
                }),
                Target::External { url } => external.push(ExternalLink {
                    page: doc.path.clone(),
                    url: url.clone(),
                    kind: r.kind,
                }),
                _ => {}
            }
        }
    }
    let entry = resolver.entry_page();
    let orphans = site
        .files
        .iter()
        .map(|f| f.path.as_str())
        .filter(|p| !referenced.contains(p) && Some(*p) != entry.as_deref())
        .map(str::to_string)
        .collect();
    problems.sort();
    broken.sort();
    external.sort();
    external.dedup();

    let pages = site
        .files
        .iter()
        .filter(|f| f.kind == FileKind::Html)
        .count();
    Inventory {
        site: site.root.display().to_string(),
        pages,
        resources: site.files.len() - pages,
        bytes: site.files.iter().map(|f| f.bytes).sum(),
        by_type,
        references,
        broken_references: broken,
        orphans,
        external_links: external,
        symlinks: site.links.clone(),
        problems,
        documents,
        archive: None,
    }
}

/// Reads one page or style sheet and resolves its references.
/// One page or style sheet read and resolved on its own, as [`analyze`] reads every one
/// (`None` when it cannot be read or is over the parse limit): what `verify` weighs a page by.
pub fn document(
    site: &Site,
    resolver: &Resolver<'_>,
    file: &SiteFile,
    opts: &AnalyzeOptions,
) -> Option<Document> {
    read_document(site, resolver, file, opts).0
}

fn read_document(
    site: &Site,
    resolver: &Resolver<'_>,
    file: &SiteFile,
    opts: &AnalyzeOptions,
) -> (Option<Document>, Vec<Problem>) {
    let mut problems = Vec::new();
    if file.bytes > opts.max_parse_bytes {
        problems.push(Problem::new(
            &file.path,
            "too-large",
            format!(
                "{} bytes is over the {}-byte parse limit (--max-parse-bytes); its references were not read",
                file.bytes, opts.max_parse_bytes
            ),
        ));
        return (None, problems);
    }
    let bytes = match site.read(&file.path) {
        Ok(bytes) => bytes,
        Err(err) => {
            problems.push(Problem::new(&file.path, "unreadable", err.reason()));
            return (None, problems);
        }
    };
    if bytes.is_empty() {
        problems.push(Problem::new(
            &file.path,
            "empty",
            "the file is empty (0 bytes)",
        ));
    }
    let mut doc = Document {
        path: file.path.clone(),
        kind: file.kind,
        bytes: file.bytes,
        charset: None,
        charset_source: None,
        quirks: false,
        references: Vec::new(),
    };
    let page_base = resolver.base_url(&file.path, None);
    match file.kind {
        FileKind::Html => {
            let decoded = charset::decode(&bytes);
            if decoded.malformed {
                problems.push(Problem::new(
                    &file.path,
                    "malformed-text",
                    format!(
                        "bytes that are not valid {} were read as U+FFFD, as a browser would",
                        decoded.charset.name()
                    ),
                ));
            } else if decoded.charset.guessed {
                let why = match std::str::from_utf8(&bytes) {
                    // Chromium does not detect UTF-8 in a page served over HTTP.
                    Ok(_) => {
                        "valid UTF-8, but Chromium reads an undeclared page served over \
                              HTTP as windows-1252; declare <meta charset=utf-8>"
                    }
                    Err(_) => {
                        "guessed from its bytes; non-ASCII presentational attributes \
                               are left in place (encoding-guessed)"
                    }
                };
                problems.push(Problem::new(
                    &file.path,
                    "charset-guessed",
                    format!(
                        "no charset declared: read as {} ({why})",
                        decoded.charset.name()
                    ),
                ));
            }
            let found = html::references(&decoded.text);
            if found.too_deep {
                problems.push(Problem::new(
                    &file.path,
                    "too-deep",
                    format!(
                        "elements nest deeper than {} (where Chromium stops nesting); references \
                         were read from the start tags as written",
                        html::MAX_DEPTH
                    ),
                ));
            }
            let base = resolver.base_url(&file.path, found.base_href.as_deref());
            doc.charset = Some(decoded.charset.name());
            doc.charset_source = Some(decoded.charset.source);
            doc.quirks = found.quirks;
            doc.references = found
                .refs
                .into_iter()
                .map(|r| Reference {
                    target: resolver.resolve(&base, &r.value),
                    fetched: r.kind.is_fetched(),
                    kind: r.kind,
                    value: r.value,
                })
                .collect();
        }
        FileKind::Css => {
            let text = String::from_utf8_lossy(&bytes);
            doc.references = css::references(&text)
                .into_iter()
                .map(|r| Reference {
                    kind: RefKind::from_css(r.kind),
                    fetched: true,
                    target: resolver.resolve(&page_base, &r.value),
                    value: r.value,
                })
                .collect();
        }
        _ => return (None, problems),
    }
    (Some(doc), problems)
}
