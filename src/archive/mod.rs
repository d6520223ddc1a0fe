//! Web archives as sites: a WARC (1.0, 1.1), an ARC (v1) or a WACZ read as the site it
//! captured, and the rewritten site written back as a WACZ (docs/archives.md).
//!
//! Reading is one indexing pass over every record of every input ([`index`]), then one
//! capture per URL ([`choose`]), then the chosen captures of the site's host written as a
//! private directory ([`tree`]) that every later stage reads as it reads a site on disk: the
//! crawl, the rewrite, the images, the markup pass, the render check and every report do not
//! fork on archive input. What a directory cannot say (status, `Content-Type` and charset,
//! dates, redirects, records) stays in the [`ArchiveSite`] beside it, for the replay of the
//! original (served as captured) and for the reports.

pub mod body;
pub mod budget;
pub mod cdxj;
pub mod choose;
pub mod emit;
pub mod http;
pub mod index;
pub mod names;
pub mod package;
pub mod pages;
pub mod record;
pub mod stamp;
mod summary;
pub mod surt;
pub mod tree;
pub mod wacz;
pub mod warc;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use url::Url;

use crate::error::{Error, Problem, Result};
use crate::site::{self, CrawlOptions, Site};
pub use budget::Budget;
pub use record::Syntax;
pub use stamp::Stamp;
pub use summary::*;

/// Options for reading an archive input.
#[derive(Debug, Clone, Default)]
pub struct ArchiveOptions {
    /// More archive files of the same site (`--with`): revisits often point into another file.
    /// Default: none.
    pub with: Vec<PathBuf>,
    /// Choose each URL's capture closest to this time (`--at`), else the latest. Default: none.
    pub at: Option<Stamp>,
    /// What reading the inputs may cost (`--archive-budget`). Default: [`Budget::default`].
    pub budget: Budget,
    /// The directory the captures are materialised in (a scratch tree is made there): the
    /// run's own output directory when it has one. Default: none, the system's temporary
    /// directory (`$TMPDIR`, else `/tmp`).
    pub scratch: Option<PathBuf>,
}

/// `.warc`, `.warc.gz`, `.arc`, `.arc.gz` (any letter case): the record syntax and whether
/// each record is a gzip member.
pub fn record_format(path: &Path) -> Option<(Syntax, bool)> {
    let name = path.file_name()?.to_string_lossy().to_ascii_lowercase();
    let (stem, gzip) = match name.strip_suffix(".gz") {
        Some(stem) => (stem.to_string(), true),
        None => (name, false),
    };
    if stem.ends_with(".warc") {
        Some((Syntax::Warc, gzip))
    } else if stem.ends_with(".arc") {
        Some((Syntax::Arc, gzip))
    } else {
        None
    }
}

pub fn is_wacz(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("wacz"))
}

/// Whether a path names an archive file (by its extension).
pub fn is_archive(path: &Path) -> bool {
    is_wacz(path) || record_format(path).is_some()
}

/// A name for an archive's site: the file name without its archive extensions
/// (`microscape.warc.gz` → `microscape`).
pub fn site_name(path: &Path) -> Option<String> {
    if !is_archive(path) {
        return None;
    }
    let name = path.file_name()?.to_string_lossy().into_owned();
    let lower = name.to_ascii_lowercase();
    let cut = [".warc.gz", ".arc.gz", ".warc", ".arc", ".wacz"]
        .iter()
        .find(|ext| lower.ends_with(*ext))
        .map_or(name.len(), |ext| name.len() - ext.len());
    Some(name[..cut].to_string()).filter(|n| !n.is_empty())
}

/// An archive read as a site.
#[derive(Debug)]
pub struct ArchiveSite {
    /// The input, then `--with`.
    pub inputs: Vec<PathBuf>,
    /// The materialised site (a directory that lives as long as this value).
    pub dir: PathBuf,
    /// The site's origin (`http://host/`): absolute URLs under it are the site's own.
    pub origin: Url,
    pub index: index::Index,
    pub chosen: BTreeMap<String, choose::Chosen>,
    pub tree: tree::Tree,
    /// Entry pages, as site paths, in order: the page a visit starts at first
    /// ([`pages::entry_pages`]).
    pub pages: Vec<String>,
    pub report: ArchiveReport,
    pub problems: Vec<Problem>,
    _scratch: crate::scratch::Scratch,
}

/// Reads an archive (and the `--with` files) into a site.
pub fn open(input: &Path, opts: &ArchiveOptions) -> Result<ArchiveSite> {
    let mut inputs = vec![input.to_path_buf()];
    inputs.extend(opts.with.iter().cloned());
    let index = index::build(&inputs, opts.budget)?;
    let chosen = choose::choose(&index, opts.at);
    let Some(origin) = site_origin(&index, &chosen) else {
        let why = index
            .problems
            .iter()
            .take(3)
            .map(|p| match p.path.is_empty() {
                true => p.message.clone(),
                false => format!("{}: {}", p.path, p.message),
            })
            .collect::<Vec<_>>()
            .join("; ");
        return Err(Error::Invalid {
            path: input.to_path_buf(),
            message: format!(
                "holds no capture of a web page (no response, resource or revisit record of \
                 an http(s) URL){}",
                if why.is_empty() {
                    String::new()
                } else {
                    format!(": {why}")
                }
            ),
        });
    };
    let host = surt::host_key(origin.as_str());
    let on_site = |u: &Url| surt::host_key(u.as_str()) == host;
    let base = opts.scratch.clone().unwrap_or_else(std::env::temp_dir);
    let scratch =
        crate::scratch::Scratch::new(&base, "archive").map_err(|e| Error::io(&base, e))?;
    let dir = scratch.path().join("site");
    std::fs::create_dir(&dir).map_err(|e| Error::io(&dir, e))?;
    let input_bytes = inputs
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum();
    let tree = tree::materialise(
        &index,
        &chosen,
        &on_site,
        &dir,
        opts.budget.disk(input_bytes),
    );
    let urls = pages::UrlPaths::new(&tree);
    let (pages, pages_source, start_page) = pages::entry_pages(&index, &tree, &urls, &origin);
    let mut problems = index.problems.clone();
    problems.extend(tree.problems.iter().cloned());
    for page in &index.pages {
        if !tree.url_paths.contains_key(page.url.as_str()) && urls.page_path(&page.url).is_none() {
            problems.push(Problem::new(
                &page.url,
                "archive-page-not-captured",
                "pages.jsonl lists it, and no capture of it made a file",
            ));
        }
    }
    drop(urls);
    let mut site = ArchiveSite {
        inputs,
        dir,
        origin,
        index,
        chosen,
        tree,
        pages,
        report: ArchiveReport::default(),
        problems,
        _scratch: scratch,
    };
    site.report = report_of(&site, opts, &on_site, pages_source);
    site.report.start_page = start_page;
    Ok(site)
}

/// The origin of the site's own host: the first page `pages.jsonl` lists, else the host with
/// the most HTML 200 captures that make a file (a revisit whose original is in no input makes
/// none), the host captured first in record order on a tie; the origin as that host was first
/// captured (its scheme and spelling).
fn site_origin(index: &index::Index, chosen: &BTreeMap<String, choose::Chosen>) -> Option<Url> {
    let origin_of = |u: &str| {
        let url = Url::parse(u).ok()?;
        url.host_str()?;
        let mut o = url.clone();
        o.set_path("/");
        o.set_query(None);
        o.set_fragment(None);
        // `http://test@example.com/` (pywb's URL-agnostic sample) is example.com's site.
        let _ = o.set_username("");
        let _ = o.set_password(None);
        Some(o)
    };
    if let Some(url) = index.pages.iter().find_map(|p| origin_of(&p.url)) {
        return Some(url);
    }
    let mut first: BTreeMap<String, (usize, Url)> = BTreeMap::new();
    for (i, e) in index.entries.iter().enumerate() {
        if let (true, Some(host), Some(origin)) =
            (e.is_capture(), surt::host_key(&e.uri), origin_of(&e.uri))
        {
            first.entry(host).or_insert((i, origin));
        }
    }
    let mut pages: BTreeMap<String, usize> = BTreeMap::new();
    for c in chosen.values() {
        let e = &index.entries[c.entry];
        let html = e.mime == "text/html" || e.mime == "application/xhtml+xml";
        if html && e.status.is_none_or(|s| s == 200) && c.payload.is_ok() {
            if let Some(host) = surt::host_key(&e.uri) {
                *pages.entry(host).or_default() += 1;
            }
        }
    }
    first
        .into_iter()
        .max_by_key(|(host, (at, _))| {
            (
                pages.get(host).copied().unwrap_or(0),
                std::cmp::Reverse(*at),
            )
        })
        .map(|(_, (_, origin))| origin)
}

fn report_of(
    site: &ArchiveSite,
    opts: &ArchiveOptions,
    on_site: &dyn Fn(&Url) -> bool,
    pages_source: &str,
) -> ArchiveReport {
    let index = &site.index;
    let mut r = ArchiveReport {
        inputs: site
            .inputs
            .iter()
            .map(|p| p.display().to_string())
            .collect(),
        at: opts.at.map(Stamp::to14),
        site_url: site.origin.to_string(),
        records: index.types.clone(),
        urls: site.chosen.len(),
        captures: site.chosen.values().map(|c| c.captures).sum(),
        files: site.tree.files.len(),
        pages_source: pages_source.to_string(),
        pages: site.pages.clone(),
        wacz_hashes_verified: index.wacz_verified,
        ..ArchiveReport::default()
    };
    let mut several: Vec<UrlCaptures> = site
        .chosen
        .values()
        .filter(|c| c.captures > 1)
        .map(|c| UrlCaptures {
            url: index.entries[c.entry].uri.clone(),
            captures: c.captures,
        })
        .collect();
    several.sort_by(|a, b| b.captures.cmp(&a.captures).then(a.url.cmp(&b.url)));
    several.truncate(50);
    r.several_captures = several;
    let mut dates = Vec::new();
    let mut third: BTreeMap<String, (usize, u64)> = BTreeMap::new();
    for c in site.chosen.values() {
        let e = &index.entries[c.entry];
        match Url::parse(&e.uri) {
            Ok(u) if on_site(&u) => dates.push(e.date),
            Ok(u) => {
                let slot = third
                    .entry(u.host_str().unwrap_or("").to_string())
                    .or_default();
                slot.0 += c.captures;
                slot.1 += e.block_len;
            }
            Err(_) => {}
        }
        if let Some(res) = c.resolution {
            let name = serde_json::to_value(res)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            *r.revisits_resolved.entry(name).or_default() += 1;
        }
    }
    if let (Some(min), Some(max)) = (dates.iter().min(), dates.iter().max()) {
        r.chosen_earliest = Some(min.to_iso());
        r.chosen_latest = Some(max.to_iso());
        r.chosen_spread_days = (max.0 - min.0) as f64 / 86_400.0;
    }
    r.third_party = third
        .into_iter()
        .map(|(host, (captures, stored_bytes))| ThirdParty {
            host,
            captures,
            stored_bytes,
        })
        .collect();
    for (path, f) in &site.tree.files {
        r.wire_bytes += f.wire_bytes;
        r.payload_bytes += f.payload_bytes;
        r.chunked += usize::from(f.chunked);
        r.chunked_as_stored += usize::from(f.chunked_as_stored);
        r.content_encoded += usize::from(f.sent_encoding.is_some());
        if let Some(cs) = &f.charset {
            if crate::site::media_type(path) == "text/html" {
                r.http_charsets.insert(path.clone(), cs.clone());
            }
        }
    }
    r.missing = site
        .tree
        .unresolved
        .iter()
        .map(|(url, reason)| Missing {
            url: url.clone(),
            reason: reason.clone(),
        })
        .chain(
            site.tree
                .problems
                .iter()
                .filter(|p| {
                    matches!(
                        p.code.as_str(),
                        "archive-body-unreadable" | "archive-over-budget"
                    )
                })
                .map(|p| Missing {
                    url: p.path.clone(),
                    reason: p.message.clone(),
                }),
        )
        .collect();
    for resp in site.tree.responses.values() {
        let row = Alias {
            url: resp.url.clone(),
            status: resp.status,
            location: resp.location.clone(),
        };
        if resp.status < 400 {
            r.aliases.push(row);
        } else {
            r.errors.push(row);
        }
    }
    r.renamed = site
        .tree
        .renamed
        .iter()
        .map(|(url, path)| Renamed {
            url: url.clone(),
            path: path.clone(),
        })
        .collect();
    r
}

/// The charset a page's capture gave in its HTTP `Content-Type`, which the page's bytes are
/// still in after the rewrite: the rewritten page is served with it too (a browser puts HTTP's
/// charset before the page's own `<meta>`), unless a byte order mark decides.
pub fn charset_kept(a: &ArchiveSite, path: &str, body: &[u8]) -> Option<String> {
    let charset = a.tree.files.get(path)?.charset.as_ref()?;
    let page = matches!(
        crate::site::media_type(path),
        "text/html" | "application/xhtml+xml"
    );
    let bom = crate::site::charset::detect(body).source == crate::site::charset::CharsetSource::Bom;
    (page && !bom).then(|| charset.clone())
}

/// Headers compared between a capture and the rewritten site's server.
pub(crate) const COMPARED: [&str; 9] = [
    "content-type",
    "content-encoding",
    "transfer-encoding",
    "last-modified",
    "etag",
    "server",
    "cache-control",
    "expires",
    "vary",
];

impl ArchiveSite {
    /// The original, served as captured: each file with its captured `Content-Type`, and the
    /// captured redirects and errors of the site's host at their own URLs.
    pub fn serve_original(&self, served: &mut crate::replay::ServedSite) {
        use crate::replay::served::{CapturedHead, CapturedResponse};
        let types: BTreeMap<String, String> = self
            .tree
            .files
            .iter()
            .filter_map(|(p, f)| f.content_type.clone().map(|t| (p.clone(), t)))
            .collect();
        let host = surt::host_key(self.origin.as_str());
        let responses = self
            .tree
            .responses
            .iter()
            .map(|(target, r)| {
                let follow = r
                    .location
                    .as_deref()
                    .and_then(|l| Url::parse(l).ok())
                    .filter(|l| surt::host_key(l.as_str()) == host)
                    .map(|l| match l.query() {
                        Some(q) => format!("{}?{q}", l.path()),
                        None => l.path().to_string(),
                    })
                    .filter(|_| (300..400).contains(&r.status));
                CapturedResponse {
                    target: target.clone(),
                    head: CapturedHead {
                        status: r.status,
                        reason: if r.reason.is_empty() {
                            "Captured".into()
                        } else {
                            r.reason.clone()
                        },
                        location: r.location.clone(),
                        follow,
                    },
                    content_type: r.content_type.clone(),
                    body: r.body.clone(),
                }
            })
            .collect();
        served.serve_captured(&types, responses);
    }

    /// The rewritten site, served with webdiet's headers, except that a page keeps the charset
    /// its capture's HTTP header gave ([`charset_kept`]).
    pub fn serve_rewritten(&self, served: &mut crate::replay::ServedSite) {
        let types: BTreeMap<String, String> = served
            .files()
            .filter_map(|(path, res)| {
                charset_kept(self, path, &res.body).map(|cs| {
                    (
                        path.to_string(),
                        format!("{}; charset={cs}", res.content_type),
                    )
                })
            })
            .collect();
        served.serve_captured(&types, Vec::new());
    }

    /// The headers a file of the rewritten site is served with that differ from its capture's,
    /// per header: how many files, and one example.
    pub fn header_changes(&self, rewritten: &crate::replay::ServedSite) -> Vec<HeaderChange> {
        let mut changes: BTreeMap<&str, HeaderChange> = BTreeMap::new();
        for (path, res) in rewritten.files() {
            let Some(f) = self.tree.files.get(path) else {
                continue;
            };
            let captured = |name: &str| {
                f.fields
                    .iter()
                    .find(|(n, _)| n.eq_ignore_ascii_case(name))
                    .map(|(_, v)| v.trim().to_string())
                    .unwrap_or_default()
            };
            for name in COMPARED {
                let served = match name {
                    "content-type" => res.content_type.to_string(),
                    "last-modified" => res.last_modified.clone(),
                    "etag" => res.etag.clone(),
                    "server" => "webdiet".to_string(),
                    _ => String::new(),
                };
                let was = captured(name);
                if was != served {
                    let slot = changes.entry(name).or_insert_with(|| HeaderChange {
                        header: name.to_string(),
                        files: 0,
                        example_path: path.to_string(),
                        captured: was.clone(),
                        served: served.clone(),
                    });
                    slot.files += 1;
                }
            }
        }
        changes.into_values().collect()
    }

    /// The page a visit starts at when none is named (`pages.jsonl`'s first, else the site
    /// root's page, else the first HTML 200 capture in record order).
    pub fn first_page(&self) -> Option<&str> {
        self.pages.first().map(String::as_str)
    }
}

/// A site to work on: a directory as it is, or an archive read into one.
#[derive(Debug)]
pub struct Input {
    pub site: Site,
    pub archive: Option<ArchiveSite>,
}

impl Input {
    /// The analysis options for this input: an archive's own origin is the site's URL unless
    /// `--site-url` names one (absolute links to the captured host are the site's own).
    pub fn analyze_options(
        &self,
        opts: &crate::inventory::AnalyzeOptions,
    ) -> crate::inventory::AnalyzeOptions {
        let mut opts = opts.clone();
        if let Some(a) = &self.archive {
            opts.site_url.get_or_insert_with(|| a.origin.clone());
        }
        opts
    }

    /// Problems of the archive itself (bad records, packages, unresolved captures), whose paths
    /// name files and URLs rather than site paths.
    pub fn archive_problems(&self) -> &[Problem] {
        self.archive.as_ref().map_or(&[], |a| a.problems.as_slice())
    }
}

/// Opens the input of `analyze`, `rewrite`, `audit`, `replay` or `verify`: a site directory,
/// or an archive file (with `--with` files).
pub fn open_input(path: &Path, crawl: &CrawlOptions, opts: &ArchiveOptions) -> Result<Input> {
    if !is_archive(path) {
        if !opts.with.is_empty() {
            return Err(Error::Usage {
                message: format!(
                    "--with adds archive files to an archive input, and {} is not one \
                     (.warc, .warc.gz, .arc, .arc.gz, .wacz)",
                    crate::error::shown(path)
                ),
            });
        }
        return Ok(Input {
            site: site::crawl(path, crawl)?,
            archive: None,
        });
    }
    let archive = open(path, opts)?;
    let site = site::crawl(&archive.dir, crawl)?;
    Ok(Input {
        site,
        archive: Some(archive),
    })
}
