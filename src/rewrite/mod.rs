//! The rewrite stage: `Site + Inventory → Rewrite`. Converts the site's GIFs (in parallel),
//! points every reference at the new files, and writes a complete copy of the site.
//!
//! Order: plan the new names (no clash with any file, in any letter case) → convert each
//! referenced GIF (once for all the names it has in the site, or not at all when `batch`'s
//! memo has it from an earlier site) and write its PNG as soon as it is verified (memory is
//! bounded by the largest image), and, with `--image-format webp|best`, offer each referenced
//! PNG a WebP (`lossless::png_to_webp`) → edit pages and style sheets (`pages`) → find
//! references the edits did not reach (`leftovers`), whose GIFs are then copied too → copy
//! everything else byte for byte →
//! analyze the result and list any reference it broke → move the finished tree into place.
//! The tree is built in a temporary sibling directory and renamed, so `DIR/site` is either the
//! old complete copy or the new one. The input is never written.

mod leftovers;
mod links;
pub mod lossless;
pub mod markup;
pub mod memo;
mod output;
pub mod pages;
pub mod paint_check;
mod precompress;
pub mod spans;
mod templates;
mod written;

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;

use crate::deflate::WorthRule;
use crate::error::{Error, Problem, Result};
use crate::image::{self, ImageOptions, Outcome, Recompression};
use crate::inventory::{self, AnalyzeOptions, BrokenReference, Inventory};
use crate::report::{ImageFormat, ImageRow, ImagesTotal};
use crate::site::resolve::{Resolver, Target};
use crate::site::{charset, name};
use crate::site::{FileKind, Site, SiteFile, SiteLink};
use pages::{Context, Rename};

/// Options for [`rewrite`].
#[derive(Debug, Clone)]
pub struct RewriteOptions {
    /// Where the rewritten site goes (`DIR/site`). Must not be inside the site, nor contain it.
    pub out_site: PathBuf,
    /// GIF conversion. Default: [`ImageOptions::default`].
    pub image: ImageOptions,
    /// Also copy GIFs that were converted and are no longer referenced (`--keep-originals`).
    /// Default: `false`.
    pub keep_originals: bool,
    /// The analyze options the inventory was made with (site URL, parse limit).
    pub analyze: AnalyzeOptions,
    /// Also write `.gz`, `.br` and `.zst` files next to text files where each is worth it
    /// (`--precompress`). Default: `false`.
    pub precompress: bool,
    /// Presentational markup → CSS, and where the CSS goes; `None` keeps the markup
    /// (`--no-markup`). Default: `Some(CssChoice::Auto)`.
    pub markup: Option<markup::CssChoice>,
    /// The site's own PNGs, JPEGs and style sheets, optimised losslessly. Default: all on.
    pub lossless: lossless::LosslessOptions,
    /// The tree is measured and thrown away (`audit --dry-run`, every unit of `batch`): each
    /// file is still written completely (a short or failed write is an error), but not synced
    /// to disk, since nothing of it is kept and a sync per file makes a thread wait on the
    /// disk (`docs/scale.md`). Default: `false`.
    pub scratch: bool,
    /// Image results kept across the sites of one process (`batch`): an image met in an
    /// earlier site with the same options is not worked on again ([`memo`]). Default: `None`.
    pub memo: Option<std::sync::Arc<memo::Memo>>,
}

/// What the rewrite did.
#[derive(Debug, Clone)]
pub struct Rewrite {
    pub out_site: PathBuf,
    pub images: Vec<ImageRow>,
    pub images_total: ImagesTotal,
    pub documents_changed: usize,
    pub documents_copied: usize,
    /// References that resolved in the original and do not in the result.
    pub broken_by_rewrite: Vec<BrokenReference>,
    /// `.gz`, `.br` and `.zst` files written by `--precompress`, by site path.
    pub precompressed: Vec<String>,
    /// What the markup pass did, when it ran.
    pub markup: Option<markup::MarkupReport>,
    /// What the lossless pass did to the site's PNGs, JPEGs and style sheets.
    pub lossless: lossless::LosslessReport,
    pub problems: Vec<Problem>,
}

/// Rewrites the site into `opts.out_site`.
pub fn rewrite(site: &Site, inv: &Inventory, opts: &RewriteOptions) -> Result<Rewrite> {
    let staging = output::Staging::create(&site.root, &opts.out_site, !opts.scratch)?;
    let resolver = Resolver::new(site, opts.analyze.site_url.clone());

    // Plan: which GIFs are referenced, and what each would be called.
    let referenced: BTreeSet<&str> = inv
        .documents
        .iter()
        .flat_map(|d| d.references.iter().map(move |r| (d, r)))
        .filter_map(|(d, r)| match &r.target {
            Target::Local { path, .. } if *path != d.path => Some(path.as_str()),
            _ => None,
        })
        .collect();
    let gifs: Vec<&SiteFile> = site.files.iter().filter(|f| is_gif(f)).collect();
    // The site's own still PNGs may become WebPs too (`--image-format webp|best`, unless
    // `--no-recompress`); they share the WebP names' plan with the GIFs.
    let pngs: Vec<&SiteFile> = match opts.image.target {
        image::Target::Webp | image::Target::Best if opts.lossless.images => site
            .files
            .iter()
            .filter(|f| f.kind == FileKind::Png && referenced.contains(f.path.as_str()))
            .collect(),
        _ => Vec::new(),
    };
    let file_links = links::file_links(site);
    // A name per format the GIF may become (`best`: both, the one used decided later).
    let renames: Renames = extensions(opts.image.target)
        .iter()
        .map(|ext| {
            let gifs = gifs
                .iter()
                .copied()
                .filter(|f| referenced.contains(f.path.as_str()))
                .map(|f| (f, "gif"));
            let pngs = pngs.iter().copied().filter(|_| *ext == "webp");
            let files = gifs.chain(pngs.map(|f| (f, "png")));
            (*ext, plan_names(site, files, &file_links, ext))
        })
        .collect();

    // Convert, in parallel, largest first, each content once; each PNG is written as soon as
    // it is verified.
    let started = Instant::now();
    let results: Vec<(ImageRow, Option<Problem>)> = once_per_content(
        &gifs,
        |file| match is_renamed(&renames, file) {
            true => site.read(&file.path).ok(),
            false => None,
        },
        |group| convert_group(site, group, &renames, opts, &staging),
    );
    let wall = started.elapsed();
    let mut problems = Vec::new();
    let mut images = Vec::with_capacity(results.len());
    for (row, problem) in results {
        problems.extend(problem);
        images.push(row);
    }
    let mut converted: BTreeMap<String, Rename> = images
        .iter()
        .filter(|r| r.outcome == Outcome::Converted)
        .map(|r| {
            (
                r.path.clone(),
                renames[r.format.extension()][&r.path].clone(),
            )
        })
        .collect();
    let png_plan: BTreeMap<String, Rename> = pngs
        .iter()
        .filter_map(|f| Some((f.path.clone(), renames.get("webp")?.get(&f.path)?.clone())))
        .collect();
    let memo = opts.memo.as_deref();
    let mut early = lossless::png_to_webp(site, &pngs, &png_plan, &opts.image, memo, &staging);
    converted.extend(std::mem::take(&mut early.renamed));

    // Pages and style sheets.
    let docs: Vec<DocResult> = site
        .files
        .par_iter()
        .filter(|f| is_document(f))
        .map(|file| rewrite_document(site, file, &resolver, &converted, opts, &staging))
        .collect();
    let mut still_named: BTreeSet<String> = BTreeSet::new();
    // Documents whose bytes differ from the original's, by either half of the rewrite.
    let mut changed: BTreeSet<String> = BTreeSet::new();
    let documents = docs.len();
    for doc in docs {
        if doc.changed {
            changed.insert(doc.path.to_string());
        }
        still_named.extend(doc.still_named);
        problems.extend(doc.problem);
    }
    still_named.extend(leftovers::named_in_text(
        site,
        &converted,
        &staging,
        opts.analyze.max_parse_bytes,
    ));
    still_named.extend(links::needing_original(site, &converted));

    // Everything else, byte for byte; but not webdiet's own settings (`webdiet.toml` at the
    // root), which are the audit's, not the site's: DIR/site/ is the tree to deploy.
    let copy_results: Vec<Option<Problem>> = site
        .files
        .par_iter()
        .filter(|f| f.path != crate::budget::SETTINGS_FILE)
        .filter(|f| !is_document(f) && !early.written.contains(&f.path))
        .filter(|f| {
            !converted.contains_key(&f.path) || opts.keep_originals || still_named.contains(&f.path)
        })
        .map(|f| {
            staging
                .copy(site, &f.path)
                .err()
                .map(|e| e.problem(&f.path))
        })
        .collect();
    problems.extend(copy_results.into_iter().flatten());
    let kept: BTreeSet<String> = converted
        .keys()
        .filter(|p| opts.keep_originals || still_named.contains(*p))
        .cloned()
        .collect();
    problems.extend(links::write(site, &converted, &kept, &staging));
    for row in &mut images {
        if row.outcome == Outcome::Converted {
            row.original_kept = opts.keep_originals || still_named.contains(&row.path);
        }
    }
    for (row, _) in &mut early.rows {
        if row.to_path.is_some() {
            row.original_kept = opts.keep_originals || still_named.contains(&row.path);
        }
    }

    let markup = opts.markup.map(|choice| {
        markup::rewrite_pages(
            site,
            &staging,
            choice,
            opts.analyze.max_parse_bytes,
            opts.analyze.site_url.clone(),
            &mut problems,
        )
    });

    if let Some(m) = &markup {
        changed.extend(m.pages.iter().filter(|p| p.changed).map(|p| p.path.clone()));
    }

    let lossless = lossless::run(site, &staging, opts, early.rows, &mut problems);
    changed.extend(
        lossless
            .rows
            .iter()
            .filter(|r| {
                matches!(r.kind, lossless::Kind::Css | lossless::Kind::Html)
                    && r.outcome == Recompression::Optimized
            })
            .map(|r| r.path.clone()),
    );

    let precompressed = if opts.precompress {
        precompress::precompress(site, &staging, &WorthRule::default(), &mut problems)
    } else {
        Vec::new()
    };

    // A file of the copy that could not be written (a full disk, a file size limit) leaves
    // the copy incomplete, and no figure about it would be true: the run stops here.
    let unwritable: Vec<&Problem> = problems.iter().filter(|p| p.code == "unwritable").collect();
    if let Some(first) = unwritable.first() {
        let others = match unwritable.len() {
            1 => String::new(),
            n => format!(" ({} more files could not be written either)", n - 1),
        };
        return Err(Error::Invalid {
            path: opts.out_site.join(name::to_path(&first.path)),
            message: format!(
                "cannot be written: {}{others}; the run stops, and the output is left as it was",
                first.message
            ),
        });
    }

    // Check the result like any other site, then move it into place.
    let broken_by_rewrite = broken_by_rewrite(inv, &staging.dir, &opts.analyze)?;
    staging.finish(&opts.out_site)?;

    let mut images_total = ImagesTotal::of(&images);
    images_total.wall_millis = wall.as_secs_f64() * 1000.0;
    problems.sort();
    Ok(Rewrite {
        out_site: opts.out_site.clone(),
        images,
        images_total,
        documents_changed: changed.len(),
        documents_copied: documents - changed.len(),
        broken_by_rewrite,
        precompressed,
        markup,
        lossless,
        problems,
    })
}

/// A file whose references are edited: a page, a style sheet, or a template whose HTML is
/// edited like a page's ([`templates`]).
fn is_document(file: &SiteFile) -> bool {
    matches!(file.kind, FileKind::Html | FileKind::Css) || templates::editable(&file.path)
}

/// A GIF by content, or a file named `.gif` (which is then checked by decoding).
fn is_gif(file: &SiteFile) -> bool {
    file.kind == FileKind::Gif || file.path.to_ascii_lowercase().ends_with(".gif")
}

/// The planned new names of the referenced GIFs, by the extension of the format.
type Renames = BTreeMap<&'static str, BTreeMap<String, Rename>>;

/// The extensions a GIF may get with the chosen target format.
fn extensions(target: image::Target) -> &'static [&'static str] {
    match target {
        image::Target::Png => &["png"],
        image::Target::Webp => &["webp"],
        image::Target::Best => &["png", "webp"],
    }
}

/// New names for GIFs (and, for `ext` "webp", PNGs), each given with the extension of its
/// format: `a.gif` → `a.png` (or `a.webp`), or, when a file or link of that name (in any case)
/// exists or is already planned, `a.gif.png`, `a-2.png`, `a-3.png` … The new name must be
/// free for every name of the file: its own, and those of the links to it (which follow it,
/// see `links`).
fn plan_names<'a>(
    site: &Site,
    files: impl Iterator<Item = (&'a SiteFile, &'static str)>,
    links_to: &BTreeMap<&str, Vec<&SiteLink>>,
    ext: &str,
) -> BTreeMap<String, Rename> {
    let mut taken: BTreeSet<String> = site
        .files
        .iter()
        .map(|f| f.path.to_lowercase())
        .chain(site.links.iter().map(|l| l.path.to_lowercase()))
        .collect();
    let mut renames = BTreeMap::new();
    for (file, from) in files {
        let lower = file.path.to_ascii_lowercase();
        let old_tail = if lower.ends_with(&format!(".{from}")) {
            file.path[file.path.len() - 1 - from.len()..].to_string()
        } else {
            String::new()
        };
        let tails = [
            format!(".{ext}"),
            format!("{}.{ext}", old_tail.to_ascii_lowercase()),
        ]
        .into_iter()
        .chain((2..).map(|n| format!("-{n}.{ext}")));
        let names: Vec<&str> = std::iter::once(file.path.as_str())
            .chain(
                links_to
                    .get(file.path.as_str())
                    .into_iter()
                    .flatten()
                    .map(|l| l.path.as_str()),
            )
            .collect();
        for new_tail in tails {
            let rename = Rename {
                old_tail: old_tail.clone(),
                new_tail,
            };
            // Names of one file that differ only in case may share a new name: same content.
            let new_names: BTreeSet<String> = names
                .iter()
                .filter_map(|n| links::renamed(n, &rename))
                .map(|n| n.to_lowercase())
                .collect();
            if new_names.iter().all(|n| !taken.contains(n)) {
                taken.extend(new_names);
                renames.insert(file.path.clone(), rename);
                break;
            }
        }
    }
    renames
}

fn problem(path: &str, code: &'static str, err: impl std::fmt::Display) -> Problem {
    Problem::new(path, code, err.to_string())
}

/// `work` on every group of files with the same bytes, once a group, in parallel, the
/// largest started first (a large file started last would leave the other core idle at the
/// end); the results (one per file of the group, `work`'s order) in the files' order. Old
/// sites copy their icons and buttons into every directory (15 % of the libwww docs' GIF
/// bytes): each is converted once. Files are compared only with files of the same kind and
/// size, read by `read` (`None`: not compared).
pub(crate) fn once_per_content<R: Send>(
    files: &[&SiteFile],
    read: impl Fn(&SiteFile) -> Option<Vec<u8>> + Sync,
    work: impl Fn(&[&SiteFile]) -> Vec<R> + Sync,
) -> Vec<R> {
    let groups = same_bytes(files, read);
    let mut order: Vec<usize> = (0..groups.len()).collect();
    order.sort_by_key(|&g| (std::cmp::Reverse(files[groups[g][0]].bytes), g));
    let mut done: Vec<(usize, R)> = order
        .into_par_iter()
        .with_max_len(1)
        .flat_map_iter(|g| {
            let members: Vec<&SiteFile> = groups[g].iter().map(|&at| files[at]).collect();
            let results = work(&members);
            debug_assert_eq!(results.len(), members.len());
            groups[g].clone().into_iter().zip(results)
        })
        .collect();
    done.sort_by_key(|(at, _)| *at);
    done.into_iter().map(|(_, r)| r).collect()
}

/// The files (by index) in groups of identical bytes, each group in the files' order. Only
/// files of the same kind and size are read and compared (by SHA-256); a file `read` gives
/// nothing for is a group of its own.
fn same_bytes(
    files: &[&SiteFile],
    read: impl Fn(&SiteFile) -> Option<Vec<u8>> + Sync,
) -> Vec<Vec<usize>> {
    let mut sizes: HashMap<(FileKind, u64), usize> = Default::default();
    for f in files {
        *sizes.entry((f.kind, f.bytes)).or_default() += 1;
    }
    let keys: Vec<Option<(FileKind, u64, [u8; 32])>> = files
        .par_iter()
        .map(|f| match sizes[&(f.kind, f.bytes)] > 1 {
            true => read(f).map(|bytes| (f.kind, f.bytes, crate::digest::sha256(&[&bytes]))),
            false => None,
        })
        .collect();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut group_of: HashMap<(FileKind, u64, [u8; 32]), usize> = HashMap::new();
    for (at, key) in keys.into_iter().enumerate() {
        let Some(key) = key else {
            groups.push(vec![at]);
            continue;
        };
        match group_of.entry(key) {
            Entry::Occupied(g) => groups[*g.get()].push(at),
            Entry::Vacant(g) => {
                g.insert(groups.len());
                groups.push(vec![at]);
            }
        }
    }
    groups
}

/// Converts the GIF that every file of `group` holds (the same bytes) once (or takes the
/// conversion from `opts.memo`) and writes the result under each file's new name. The first
/// file's row carries the time the conversion took, the others' none (none was spent on them).
fn convert_group(
    site: &Site,
    group: &[&SiteFile],
    renames: &Renames,
    rewrite: &RewriteOptions,
    staging: &output::Staging,
) -> Vec<(ImageRow, Option<Problem>)> {
    let opts = &rewrite.image;
    let first = group[0];
    let mut row = ImageRow {
        path: first.path.clone(),
        from_bytes: first.bytes,
        to_path: first.path.clone(),
        to_bytes: first.bytes,
        png_bytes: None,
        webp_bytes: None,
        frames: 0,
        outcome: Outcome::Unreferenced,
        reason: "kept:unreferenced(nothing in the site refers to it)".to_string(),
        original_kept: true,
        millis: 0.0,
        cpu_millis: 0.0,
        effort: opts.effort,
        format: ImageFormat::Gif,
    };
    if !is_renamed(renames, first) {
        // Only renamed GIFs are grouped: this one is alone.
        return vec![(row, None)];
    }
    let bytes = match site.read(&first.path) {
        Ok(bytes) => bytes,
        Err(_) if group.len() > 1 => {
            // Read when grouped, not now: each file on its own says why.
            let one = |f: &&SiteFile| convert_group(site, &[*f], renames, rewrite, staging);
            return group.iter().flat_map(one).collect();
        }
        Err(err) => {
            row.outcome = Outcome::Corrupt;
            row.reason = format!("kept:corrupt(unreadable: {})", err.reason());
            return vec![(row, Some(problem(&first.path, "unreadable", err.reason())))];
        }
    };
    let memo = rewrite.memo.as_deref();
    let (c, kept) = memo::through(memo, memo::Work::Gif, opts, &bytes, || {
        image::convert_gif(&bytes, opts)
    });
    drop(bytes);
    if !kept {
        row.millis = c.elapsed.as_secs_f64() * 1000.0;
        row.cpu_millis = c.cpu.as_secs_f64() * 1000.0;
    }
    let mut rows = vec![place(row, &c, renames, staging)];
    for file in &group[1..] {
        let copy = ImageRow {
            path: file.path.clone(),
            to_path: file.path.clone(),
            millis: 0.0,
            cpu_millis: 0.0,
            ..rows[0].0.clone()
        };
        rows.push(place(copy, &c, renames, staging));
    }
    rows
}

/// Whether the GIF has a planned new name (whatever it may become): a GIF nothing refers to
/// has none and is not converted.
fn is_renamed(renames: &Renames, file: &SiteFile) -> bool {
    renames.values().any(|r| r.contains_key(&file.path))
}

/// `row` (for one file) completed with the conversion `c`, and its result written under the
/// file's new name.
fn place(
    mut row: ImageRow,
    c: &image::Conversion,
    renames: &Renames,
    staging: &output::Staging,
) -> (ImageRow, Option<Problem>) {
    row.frames = c.frames;
    row.outcome = c.outcome;
    row.reason = c.reason.clone();
    row.to_path = row.path.clone();
    row.to_bytes = row.from_bytes;
    row.original_kept = true;
    row.format = ImageFormat::Gif;
    if row.outcome == Outcome::Corrupt {
        let detail = row.reason.strip_prefix("kept:corrupt(");
        let detail = detail
            .and_then(|d| d.strip_suffix(')'))
            .unwrap_or(&row.reason);
        let message = format!("corrupt GIF ({detail}); kept as it is");
        let problem = problem(&row.path, "corrupt-image", message);
        return (row, Some(problem));
    }
    row.png_bytes = c.png_bytes;
    row.webp_bytes = c.webp_bytes;
    let output = match (&c.png, &c.webp) {
        (Some(png), _) if c.frames > 1 => Some((png, ImageFormat::Apng)),
        (Some(png), _) => Some((png, ImageFormat::Png)),
        (None, Some(webp)) => Some((webp, ImageFormat::Webp)),
        (None, None) => None,
    };
    if let Some((bytes, format)) = output {
        let rename = &renames[format.extension()][&row.path];
        let new_path = format!(
            "{}{}",
            &row.path[..row.path.len() - rename.old_tail.len()],
            rename.new_tail
        );
        if let Err(err) = staging.write(&new_path, bytes) {
            row.outcome = Outcome::VerifyFailed;
            let noun = if format == ImageFormat::Webp {
                "WebP"
            } else {
                "PNG"
            };
            row.reason = format!("kept:verify-failed({noun} not written: {err})");
            return (row, Some(problem(&new_path, "unwritable", err)));
        }
        row.to_path = new_path;
        row.to_bytes = bytes.len() as u64;
        row.original_kept = false;
        row.format = format;
    }
    (row, None)
}

struct DocResult<'a> {
    path: &'a str,
    changed: bool,
    /// Converted GIFs this document still refers to after its edits.
    still_named: Vec<String>,
    problem: Option<Problem>,
}

fn rewrite_document<'f>(
    site: &Site,
    file: &'f SiteFile,
    resolver: &Resolver<'_>,
    converted: &BTreeMap<String, Rename>,
    opts: &RewriteOptions,
    staging: &output::Staging,
) -> DocResult<'f> {
    let fail = |code, err: &dyn std::fmt::Display| DocResult {
        path: &file.path,
        changed: false,
        still_named: Vec::new(),
        problem: Some(problem(&file.path, code, err)),
    };
    let copy = |still_named: Vec<String>| DocResult {
        path: &file.path,
        problem: staging
            .copy(site, &file.path)
            .err()
            .map(|e| e.problem(&file.path)),
        changed: false,
        still_named,
    };
    if file.bytes > opts.analyze.max_parse_bytes || converted.is_empty() {
        // Not parsed: the textual scan in `leftovers` keeps the GIFs it may name.
        return copy(Vec::new());
    }
    let bytes = match site.read(&file.path) {
        Ok(bytes) => bytes,
        Err(err) => return fail("unreadable", &err.reason()),
    };
    // A template is edited as the page it becomes, its code blocks left as written.
    let template = templates::editable(&file.path);
    let kind = match template {
        true => FileKind::Html,
        false => file.kind,
    };
    let encoding = match kind {
        FileKind::Html => charset::detect(&bytes).encoding,
        _ => encoding_rs::UTF_8,
    };
    let text = spans::byte_preserving(&bytes, encoding);
    let (occurrences, base, encoding) = match kind {
        FileKind::Html => {
            if !encoding.is_ascii_compatible() {
                // UTF-16: not edited in place here; whatever GIF it names stays.
                let text = charset::decode(&bytes).text;
                let base_href = crate::html::base_href(&text);
                let base = resolver.base_url(&file.path, base_href.as_deref());
                return copy(leftovers::still_referenced(
                    &bytes, kind, resolver, &base, converted,
                ));
            }
            let base_href = crate::html::base_href(&text);
            (
                spans::find(&text),
                resolver.base_url(&file.path, base_href.as_deref()),
                encoding,
            )
        }
        _ => (
            pages::css_occurrences(&text),
            resolver.base_url(&file.path, None),
            encoding_rs::UTF_8,
        ),
    };
    let cx = Context {
        resolver,
        base: base.clone(),
        encoding,
        renames: converted,
    };
    let mut edits = pages::reference_edits(&bytes, &occurrences, &cx);
    if template {
        edits = templates::outside_code(edits, &templates::code_blocks(&bytes));
    }
    let new_bytes = pages::apply(&bytes, &edits);
    let still_named = leftovers::still_referenced(&new_bytes, kind, resolver, &base, converted);
    if edits.is_empty() {
        return copy(still_named);
    }
    match staging.write(&file.path, &new_bytes) {
        Ok(()) => DocResult {
            path: &file.path,
            changed: true,
            still_named,
            problem: None,
        },
        Err(err) => fail("unwritable", &err),
    }
}

/// References that resolve in the original but not in the rewritten tree.
fn broken_by_rewrite(
    before: &Inventory,
    out: &Path,
    analyze: &AnalyzeOptions,
) -> Result<Vec<BrokenReference>> {
    let site = crate::site::crawl(out, &Default::default())?;
    let after = inventory::analyze(&site, analyze);
    let was_broken: BTreeSet<(&str, &str)> = before
        .broken_references
        .iter()
        .map(|b| (b.page.as_str(), b.reference.as_str()))
        .collect();
    // Missing files the original already named: a reference to one that moved (a `background`
    // attribute now in the shared sheet) was broken before the rewrite, not by it.
    let missing_before: BTreeSet<&str> = before
        .documents
        .iter()
        .flat_map(|d| &d.references)
        .filter_map(|r| match &r.target {
            Target::Broken { path, .. } => Some(path.as_str()),
            _ => None,
        })
        .collect();
    let moved: BTreeSet<(&str, &str)> = after
        .documents
        .iter()
        .flat_map(|d| d.references.iter().map(move |r| (d, r)))
        .filter(|(_, r)| {
            matches!(&r.target, Target::Broken { path, .. } if missing_before.contains(path.as_str()))
        })
        .map(|(d, r)| (d.path.as_str(), r.value.as_str()))
        .collect();
    let newly_broken = after
        .broken_references
        .iter()
        .filter(|b| {
            let key = (b.page.as_str(), b.reference.as_str());
            !was_broken.contains(&key) && !moved.contains(&key)
        })
        .cloned()
        .collect();
    Ok(newly_broken)
}

#[cfg(test)]
mod tests;
