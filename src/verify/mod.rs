//! The render check: a rewritten site must look exactly like the original.
//!
//! Every page present in both trees is rendered in headless Chromium ([`crate::chromium`]) and the two
//! full-page screenshots are compared pixel by pixel ([`diff`]). A page that differs gets a
//! diff image (original greyed, differing pixels red) in the output directory.
//!
//! A page gets time to render in proportion to its size, and one that runs out of it is
//! reported as not checked, never as different ([`patience`]).
//!
//! Both trees are served by webdiet's own HTTP server on loopback (the one the replay uses),
//! not opened as `file:` URLs: a site is written for a server, which finds `w3c_home` as
//! `w3c_home.gif`, a directory's index page and a name in the wrong case, and sends `.xhtml`
//! as XML. Rendered from disk, the original would show broken images the rewrite has fixed.

pub mod diff;
pub mod patience;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use serde::Serialize;

use crate::chromium;
pub use crate::chromium::{render_file, Browser, RenderOptions, Screenshot};
use crate::error::{Error, Problem, Result};
use crate::replay::protocol::http1;
use crate::replay::server::{Control, ServeContext, Server};
use crate::replay::transport::TcpOptions;
use crate::replay::{ServedSite, ServerOptions};
use crate::site::resolve::Resolver;
use crate::site::{self, CrawlOptions, FileKind};
pub use patience::{NotChecked, NotCheckedReason, Patience};

/// Options for [`verify`].
#[derive(Debug, Clone)]
pub struct VerifyOptions {
    /// How pages are rendered (window 1024×768, …). Default: [`RenderOptions::default`].
    pub render: RenderOptions,
    /// How long each render of a page may take: 30 s, and 15 s more per MiB of the page and
    /// what it loads. Default: [`Patience::default`].
    pub patience: Patience,
    /// Check at most this many pages, spread evenly over the sorted list. Default: all.
    pub pages: Option<usize>,
    /// Where diff images go. Default: `out/<original site name>/verify/`.
    pub out_dir: PathBuf,
    /// Browsers rendering at the same time (each renders one page at a time). Default: 2.
    pub workers: usize,
}

impl Default for VerifyOptions {
    fn default() -> Self {
        VerifyOptions {
            render: RenderOptions::default(),
            patience: Patience::default(),
            pages: None,
            out_dir: PathBuf::from("out/site/verify"),
            workers: 2,
        }
    }
}

/// The result for one page.
#[derive(Debug, Clone, Serialize)]
pub struct PageResult {
    /// Site-relative path, `/`-separated.
    pub page: String,
    /// The compared area in pixels: the larger of the two screenshots in each direction.
    pub width: u32,
    pub height: u32,
    /// Pixels that differ, counting area only one screenshot covers.
    pub differing_pixels: u64,
    /// `differing_pixels` over `width × height`, in 0..=1.
    pub share: f64,
    /// The diff image, when the page differs.
    pub diff_image: Option<PathBuf>,
    /// A screenshot was cut at the size limit, so part of the page was not compared.
    pub truncated: bool,
    /// The first comparison differed, so both pages were rendered again (up to twice more);
    /// the result is the pair of renders with the fewest differing pixels.
    pub retried: bool,
}

/// The outcome of a render check.
#[derive(Debug, Clone, Serialize)]
pub struct VerifyReport {
    pub original: PathBuf,
    pub rewritten: PathBuf,
    /// HTML pages present in both trees.
    pub pages_in_both: usize,
    /// The pages compared, sorted by path.
    pub pages: Vec<PageResult>,
    /// Pages only the original has (the rewrite lost them).
    pub missing_in_rewritten: Vec<String>,
    /// Pages that could not be rendered or compared.
    pub problems: Vec<Problem>,
    /// Pages not checked, and why: a render ran out of the page's patience. Not a
    /// difference, and no failure of the check; sorted by path.
    pub not_checked: Vec<NotChecked>,
    /// What listing the two trees found (unreadable files, binary files named `.html`…),
    /// each path prefixed with its tree: reported, and not a rendering difference.
    pub listing_problems: Vec<Problem>,
    /// Why the check proves less than it claims to: no page was compared, or pages could not
    /// be read and were left out. Any of these fails the check (exit 1).
    pub incomplete: Vec<String>,
}

impl VerifyReport {
    /// Compared pages with no differing pixel.
    pub fn identical(&self) -> usize {
        self.pages
            .iter()
            .filter(|p| p.differing_pixels == 0)
            .count()
    }

    /// The page with the largest share of differing pixels, if any differs.
    pub fn worst(&self) -> Option<&PageResult> {
        self.pages
            .iter()
            .filter(|p| p.differing_pixels > 0)
            .max_by(|a, b| a.share.total_cmp(&b.share))
    }

    /// Every compared page is identical, nothing failed, no page went missing and none was
    /// left out: the check passes (exit 0). Pages [`not checked`](Self::not_checked) because
    /// they timed out do not count either way: when every page timed out, nothing differs
    /// and nothing is proven, which [`Self::nothing_checked`] tells apart.
    pub fn all_identical(&self) -> bool {
        self.identical() == self.pages.len()
            && self.problems.is_empty()
            && self.missing_in_rewritten.is_empty()
            && self.incomplete.is_empty()
    }

    /// Pages were chosen, and every one ran out of time: the check proved nothing.
    pub fn nothing_checked(&self) -> bool {
        self.pages.is_empty() && !self.not_checked.is_empty()
    }

    /// Some page was not checked because its render timed out.
    pub fn timed_out(&self) -> usize {
        self.not_checked
            .iter()
            .filter(|n| n.reason == NotCheckedReason::TimedOut)
            .count()
    }
}

/// Renders the pages of both trees and compares them.
///
/// Fails when a directory is unusable or Chromium is missing or cannot start; a page that
/// cannot be rendered becomes a [`Problem`] and the check goes on. With no page to compare
/// it returns at once (without a browser), with the reason in `incomplete`.
pub fn verify(original: &Path, rewritten: &Path, opts: &VerifyOptions) -> Result<VerifyReport> {
    let crawl = CrawlOptions::default();
    // Either tree may be a web archive (an original capture, a WACZ from --emit-wacz): it is
    // then read into a site and served as captured.
    let none = crate::archive::ArchiveOptions::default();
    let before_input = crate::archive::open_input(original, &crawl, &none)?;
    let after_input = crate::archive::open_input(rewritten, &crawl, &none)?;
    let (before, after) = (&before_input.site, &after_input.site);

    let mut in_both = Vec::new();
    let mut missing = Vec::new();
    for file in before.files.iter().filter(|f| f.kind == FileKind::Html) {
        if after.file(&file.path).is_some() {
            in_both.push(file.path.clone());
        } else {
            missing.push(file.path.clone());
        }
    }
    let chosen = sample(&in_both, opts.pages);

    let (mut served_before, unread_before) = ServedSite::from_site(before);
    let (mut served_after, unread_after) = ServedSite::from_site(after);
    for (input, served) in [
        (&before_input, &mut served_before),
        (&after_input, &mut served_after),
    ] {
        if let Some(a) = &input.archive {
            a.serve_original(served);
        }
    }
    let mut listing_problems: Vec<Problem> = [
        (original, before.problems.iter().chain(&unread_before)),
        (rewritten, after.problems.iter().chain(&unread_after)),
    ]
    .into_iter()
    .flat_map(|(root, found)| found.map(move |p| in_tree(root, p)))
    .collect();
    listing_problems.sort();
    listing_problems.dedup();
    let incomplete = shortfalls(original, rewritten, &chosen, &in_both, &listing_problems);
    let report = |pages, problems, not_checked| VerifyReport {
        original: original.to_path_buf(),
        rewritten: rewritten.to_path_buf(),
        pages_in_both: in_both.len(),
        pages,
        missing_in_rewritten: missing.clone(),
        problems,
        not_checked,
        listing_problems: listing_problems.clone(),
        incomplete: incomplete.clone(),
    };
    if chosen.is_empty() {
        return Ok(report(Vec::new(), Vec::new(), Vec::new()));
    }
    chromium::find_chromium(&opts.render)?;

    let (resolve_before, resolve_after) = (
        Resolver::new(&served_before.site, None),
        Resolver::new(&served_after.site, None),
    );
    // What each page weighs, the heavier of its two versions, and so the time it gets.
    let weights: Vec<u64> = chosen
        .iter()
        .map(|page| {
            patience::weight(&served_before.site, &resolve_before, page).max(patience::weight(
                &served_after.site,
                &resolve_after,
                page,
            ))
        })
        .collect();
    // Chromium keeps connections open between pages; a short idle timeout lets the server's
    // threads end soon after the last page.
    let server_opts = ServerOptions {
        idle_timeout: std::time::Duration::from_secs(2),
        tcp: TcpOptions {
            delayed_acks: false,
            ..TcpOptions::default()
        },
        ..ServerOptions::default()
    };
    let (control_before, control_after) = (Control::default(), Control::default());
    let cx_before = ServeContext::new(&served_before, &resolve_before, &server_opts);
    let cx_after = ServeContext::new(&served_after, &resolve_after, &server_opts);
    let results = std::thread::scope(|scope| {
        let start = |cx, control| {
            Server::start(scope, cx, control, &http1::SERVER, None)
                .map_err(|e| Error::io("a loopback port for the render check", e))
        };
        let server_before = start(&cx_before, &control_before)?;
        let server_after = match start(&cx_after, &control_after) {
            Ok(server) => server,
            Err(e) => {
                server_before.stop();
                return Err(e);
            }
        };
        let urls = |page: &str| {
            // The same encoding the resolver reads back.
            let path = resolve_before.page_url(page).path().to_string();
            (
                format!("http://{}{path}", server_before.addr),
                format!("http://{}{path}", server_after.addr),
            )
        };
        let results = render_all(&chosen, &weights, &urls, opts);
        server_before.stop();
        server_after.stop();
        results
    })?;
    let (mut pages, mut problems, mut not_checked) = (Vec::new(), Vec::new(), Vec::new());
    for (page, result) in chosen.iter().zip(results) {
        match result {
            Outcome::Compared(page_result) => pages.push(page_result),
            Outcome::NotChecked(n) => not_checked.push(n),
            Outcome::Failed(code, message) => {
                problems.push(Problem::new(page.clone(), code, message))
            }
        }
    }
    problems.sort();
    not_checked.sort_by(|a, b| a.page.cmp(&b.page));
    Ok(report(pages, problems, not_checked))
}

/// A listing problem with its tree's path in front, so that it says which tree it is about.
fn in_tree(root: &Path, problem: &Problem) -> Problem {
    Problem {
        path: format!("{}/{}", crate::error::shown(root), problem.path),
        ..problem.clone()
    }
}

/// What keeps the check from covering every page: nothing to compare, or pages that could
/// not be read (a page is known by its name here, as it could not be opened).
fn shortfalls(
    original: &Path,
    rewritten: &Path,
    chosen: &[String],
    in_both: &[String],
    listing_problems: &[Problem],
) -> Vec<String> {
    let mut out = Vec::new();
    if chosen.is_empty() {
        out.push(if in_both.is_empty() {
            format!(
                "no page to compare: no HTML page of {} is in {}",
                crate::error::shown(original),
                crate::error::shown(rewritten)
            )
        } else {
            "no page to compare".to_string()
        });
    }
    let unread: Vec<&str> = listing_problems
        .iter()
        // A page name that could not be opened: an unreadable file, a link to nothing, a FIFO.
        .filter(|p| {
            matches!(
                p.code.as_str(),
                "unreadable" | "symlink-dangling" | "not-a-file"
            )
        })
        .filter(|p| {
            matches!(
                site::media_type(&p.path),
                "text/html" | "application/xhtml+xml"
            )
        })
        .map(|p| p.path.as_str())
        .collect();
    if !unread.is_empty() {
        out.push(format!(
            "{} page{} could not be read and {} not compared: {}",
            unread.len(),
            if unread.len() == 1 { "" } else { "s" },
            if unread.len() == 1 { "was" } else { "were" },
            unread.join(", ")
        ));
    }
    out
}

/// At most `limit` items spread evenly over the list (always including the first), in order.
pub fn sample(items: &[String], limit: Option<usize>) -> Vec<String> {
    let n = items.len();
    match limit {
        Some(k) if k < n => (0..k).map(|i| items[i * n / k].clone()).collect(),
        _ => items.to_vec(),
    }
}

/// What became of one page.
enum Outcome {
    Compared(PageResult),
    /// A render ran out of the page's patience.
    NotChecked(NotChecked),
    /// Not rendered or not compared for another reason: a code and a message.
    Failed(&'static str, String),
}

/// Renders the chosen pages (each of `weights[i]` bytes) with a few browsers at once; results
/// come back in page order.
fn render_all(
    chosen: &[String],
    weights: &[u64],
    urls: &(dyn Fn(&str) -> (String, String) + Sync),
    opts: &VerifyOptions,
) -> Result<Vec<Outcome>> {
    let slots: Vec<Mutex<Option<Outcome>>> = chosen.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let workers = opts.workers.clamp(1, chosen.len().max(1));
    let fatal: Mutex<Option<Error>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                let mut browser = match Browser::launch(&opts.render) {
                    Ok(b) => b,
                    Err(e) => {
                        fatal.lock().expect("not poisoned").get_or_insert(e);
                        return;
                    }
                };
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(page) = chosen.get(i) else { return };
                    if !browser.is_alive() {
                        match Browser::launch(&opts.render) {
                            Ok(b) => browser = b,
                            Err(e) => {
                                fatal.lock().expect("not poisoned").get_or_insert(e);
                                return;
                            }
                        }
                    }
                    let weight = weights[i];
                    let outcome = match check_page(&mut browser, page, weight, urls(page), opts) {
                        Ok(result) => Outcome::Compared(result),
                        Err(("timeout", message)) => Outcome::NotChecked(NotChecked {
                            page: page.clone(),
                            reason: NotCheckedReason::TimedOut,
                            weight_bytes: weight,
                            patience_s: opts.patience.for_bytes(weight).as_secs_f64(),
                            message,
                        }),
                        Err((code, message)) => Outcome::Failed(code, message),
                    };
                    *slots[i].lock().expect("not poisoned") = Some(outcome);
                }
            });
        }
    });
    if let Some(e) = fatal.into_inner().expect("not poisoned") {
        return Err(e);
    }
    Ok(slots
        .into_iter()
        .map(|slot| {
            slot.into_inner()
                .expect("not poisoned")
                .unwrap_or(Outcome::Failed(
                    "not-rendered",
                    "no browser rendered it".to_string(),
                ))
        })
        .collect())
}

/// Extra rounds of rendering both sides when a page differs (see [`check_page`]).
const MAX_EXTRA_ROUNDS: usize = 2;

type PageOutcome = std::result::Result<PageResult, (&'static str, String)>;

/// Renders one page (weighing `weight` bytes) from both trees, compares, and writes the diff
/// image if they differ. A render that times out, in any round, fails it with the code
/// `timeout`: even after a first comparison differed, since under load a difference that
/// cannot be rendered again is as likely the load's as the rewrite's.
fn check_page(
    browser: &mut Browser,
    page: &str,
    weight: u64,
    (before, after): (String, String),
    opts: &VerifyOptions,
) -> PageOutcome {
    let patience = opts.patience.for_bytes(weight);
    let shoot = |browser: &mut Browser, url: &str, side: &str| {
        let shot = browser
            .render_url_within(url, patience)
            .map_err(|e| (e.code, format!("{side}: {}", e.message)))?;
        let image =
            diff::decode_png(&shot.png).map_err(|e| ("bad-screenshot", format!("{side}: {e}")))?;
        Ok::<_, (&'static str, String)>((image, shot.truncated))
    };
    let (a, a_cut) = shoot(browser, &before, "original")?;
    let (b, b_cut) = shoot(browser, &after, "rewritten")?;
    let mut comparison = diff::compare(&a, &b);
    // A browser under load now and then paints a page differently: a glyph run (seen once in
    // 380 Space Jam pages while two compilers ran beside it), or a timer-driven page whose
    // virtual clock slipped by a millisecond (about one render in 30 at load 10). A real
    // difference comes back the same every time. So a difference is rendered again, each
    // render of one side is compared with each of the other, and the smallest count stands;
    // a third round is taken only when the second did not repeat the first exactly.
    let retried = comparison.differing_pixels > 0;
    if retried {
        let (mut originals, mut rewrittens) = (vec![a], vec![b]);
        for round in 0..MAX_EXTRA_ROUNDS {
            let before_round = comparison.differing_pixels;
            let unconfirmed = |(code, message): (&'static str, String)| {
                let why = format!("rendered again as {before_round} px differed");
                (code, format!("{message} ({why})"))
            };
            originals.push(shoot(browser, &before, "original").map_err(unconfirmed)?.0);
            rewrittens.push(shoot(browser, &after, "rewritten").map_err(unconfirmed)?.0);
            let (new_a, new_b) = (originals.len() - 1, rewrittens.len() - 1);
            let pairs = (0..originals.len())
                .map(|i| (i, new_b))
                .chain((0..new_b).map(|j| (new_a, j)));
            let mut stable = true;
            for (i, j) in pairs {
                let again = diff::compare(&originals[i], &rewrittens[j]);
                stable &= again.differing_pixels == before_round;
                if again.differing_pixels < comparison.differing_pixels {
                    comparison = again;
                }
            }
            if comparison.differing_pixels == 0 || (round == 0 && stable) {
                break;
            }
        }
    }
    let diff_image = match &comparison.diff_image {
        Some(image) => Some(write_diff(&opts.out_dir, page, image)?),
        None => {
            // A diff image from an earlier run would now be a lie.
            if let Ok(old) = diff_path(&opts.out_dir, page) {
                let _ = std::fs::remove_file(old);
            }
            None
        }
    };
    Ok(PageResult {
        page: page.to_string(),
        width: comparison.width,
        height: comparison.height,
        differing_pixels: comparison.differing_pixels,
        share: comparison.share(),
        diff_image,
        truncated: a_cut || b_cut,
        retried,
    })
}

/// Where a page's diff image goes: `<out>/<page path>.png`, named by the page's site path as
/// printed (`p\xe1gina.html.png` for a Latin-1 name), not by its bytes: the image is ours, not
/// a file of the site, and its name must be a string in the JSON report. A name that would
/// leave `out_dir` ([`crate::site::name::check_relative`]) is an error.
pub fn diff_path(out_dir: &Path, page: &str) -> std::result::Result<PathBuf, String> {
    let name = PathBuf::from(format!("{page}.png"));
    crate::site::name::check_relative(&name)
        .map(|()| out_dir.join(name))
        .map_err(|why| format!("{page}: not a name below {} ({why})", out_dir.display()))
}

/// Writes the diff image through a temporary name.
fn write_diff(
    out_dir: &Path,
    page: &str,
    image: &diff::Image,
) -> std::result::Result<PathBuf, (&'static str, String)> {
    let path = diff_path(out_dir, page).map_err(|why| ("write-failed", why))?;
    let write_failed = |e: String| ("write-failed", format!("{}: {e}", path.display()));
    let bytes = diff::encode_png(image).map_err(write_failed)?;
    crate::output::prepare_verify_dir(out_dir).map_err(|e| write_failed(e.to_string()))?;
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| write_failed(e.to_string()))?;
    }
    let temp = path.with_extension(format!("png.tmp{}", std::process::id()));
    let written = crate::output::write_whole(&temp, &bytes)
        .and_then(|()| std::fs::rename(&temp, &path))
        .map_err(|e| write_failed(e.to_string()));
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written.map(|()| path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("p{i:02}.html")).collect()
    }

    #[test]
    fn a_sample_is_spread_over_the_whole_list() {
        let all = names(10);
        let picked = sample(&all, Some(3));
        assert_eq!(picked, ["p00.html", "p03.html", "p06.html"]);
        let picked = sample(&all, Some(5));
        assert_eq!(picked.len(), 5);
        assert!(picked.last().unwrap().as_str() >= "p08.html");
    }

    #[test]
    fn a_sample_larger_than_the_list_is_the_list() {
        assert_eq!(sample(&names(4), Some(9)), names(4));
        assert_eq!(sample(&names(4), None), names(4));
        assert!(sample(&names(4), Some(0)).is_empty());
    }

    #[test]
    fn a_sample_keeps_the_order_and_has_no_repeats() {
        let all = names(37);
        let picked = sample(&all, Some(12));
        let mut sorted = picked.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted, picked);
    }
}
