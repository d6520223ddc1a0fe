//! Naming and reference-edit specifications of the rewrite stage (the whole stage is tested
//! end to end in `tests/pipeline/rewrite.rs`).

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::pages::{self, Context, Rename};
use super::{is_gif, links, plan_names, spans};
use crate::site::resolve::Resolver;
use crate::site::{FileKind, Site, SiteFile, SiteLink};

fn site(files: &[(&str, FileKind)]) -> Site {
    let files = files
        .iter()
        .map(|(path, kind)| SiteFile {
            path: path.to_string(),
            kind: *kind,
            bytes: 100,
        })
        .collect();
    Site::from_files(PathBuf::from("/nonexistent"), files, Vec::new())
}

/// The name `path` gets under `renames`.
fn new_name(renames: &BTreeMap<String, Rename>, path: &str) -> String {
    let r = &renames[path];
    format!("{}{}", &path[..path.len() - r.old_tail.len()], r.new_tail)
}

#[test]
fn gif_becomes_png_unless_that_name_is_taken_in_any_case() {
    let s = site(&[
        ("a.gif", FileKind::Gif),
        ("b.GIF", FileKind::Gif),
        ("B.png", FileKind::Png),
        ("c.gif", FileKind::Gif),
        ("c.png", FileKind::Png),
        ("c.gif.png", FileKind::Png),
        ("spacer", FileKind::Gif),
    ]);
    let renames = plan_names(
        &s,
        s.files.iter().filter(|f| is_gif(f)).map(|f| (f, "gif")),
        &BTreeMap::new(),
        "png",
    );
    let new_name = |p: &str| new_name(&renames, p);
    assert_eq!(new_name("a.gif"), "a.png");
    assert_eq!(new_name("b.GIF"), "b.gif.png");
    assert_eq!(new_name("c.gif"), "c-2.png");
    assert_eq!(new_name("spacer"), "spacer.png");
}

#[test]
fn gif_becomes_webp_unless_that_name_is_taken_in_any_case() {
    let s = site(&[
        ("a.gif", FileKind::Gif),
        ("a.png", FileKind::Png),
        ("c.gif", FileKind::Gif),
        ("C.WEBP", FileKind::Other),
    ]);
    let renames = plan_names(
        &s,
        s.files.iter().filter(|f| is_gif(f)).map(|f| (f, "gif")),
        &BTreeMap::new(),
        "webp",
    );
    let new_name = |p: &str| new_name(&renames, p);
    assert_eq!(
        new_name("a.gif"),
        "a.webp",
        "a PNG of the same stem is no clash"
    );
    assert_eq!(new_name("c.gif"), "c.gif.webp");
}

#[test]
fn a_gif_and_a_png_of_one_stem_never_get_the_same_webp_name() {
    let s = site(&[
        ("a.gif", FileKind::Gif),
        ("a.png", FileKind::Png),
        ("b.PNG", FileKind::Png),
    ]);
    let files = s.files.iter().map(|f| {
        (
            f,
            if f.kind == FileKind::Gif {
                "gif"
            } else {
                "png"
            },
        )
    });
    let renames = plan_names(&s, files, &BTreeMap::new(), "webp");
    let new_name = |p: &str| new_name(&renames, p);
    assert_eq!(new_name("a.gif"), "a.webp");
    assert_eq!(new_name("a.png"), "a.png.webp", "a.webp went to the GIF");
    assert_eq!(new_name("b.PNG"), "b.webp");
}

#[test]
fn two_gifs_never_get_the_same_name() {
    let s = site(&[("x.gif", FileKind::Gif), ("X.GIF", FileKind::Gif)]);
    let renames = plan_names(
        &s,
        s.files.iter().map(|f| (f, "gif")),
        &BTreeMap::new(),
        "png",
    );
    let names: std::collections::BTreeSet<String> = renames
        .keys()
        .map(|p| new_name(&renames, p).to_lowercase())
        .collect();
    assert_eq!(names.len(), 2);
}

#[test]
fn a_gif_and_the_links_to_it_get_a_new_name_free_for_all_of_them() {
    let link = |path: &str| SiteLink {
        path: path.to_string(),
        target: "a.gif".to_string(),
        leads_to: "a.gif".to_string(),
        dir: false,
    };
    let s = site(&[("a.gif", FileKind::Gif), ("b.png", FileKind::Png)]).with_links(vec![
        link("b.gif"),
        link("logo"),
        link("B.GIF"),
    ]);
    let renames = plan_names(
        &s,
        s.files.iter().filter(|f| is_gif(f)).map(|f| (f, "gif")),
        &links::file_links(&s),
        "png",
    );
    let r = &renames["a.gif"];
    assert_eq!(
        r.new_tail, ".gif.png",
        "b.png is taken, so a.png cannot be used"
    );
    assert_eq!(links::renamed("b.gif", r).as_deref(), Some("b.gif.png"));
    assert_eq!(links::renamed("logo", r).as_deref(), Some("logo.gif.png"));
}

#[test]
fn reference_edits_follow_resolution_not_spelling() {
    let s = site(&[
        ("img/a.gif", FileKind::Gif),
        ("img/b.gif", FileKind::Gif),
        ("pages/p.html", FileKind::Html),
    ]);
    let resolver = Resolver::new(&s, None);
    let renames: BTreeMap<String, Rename> = [(
        "img/a.gif".to_string(),
        Rename {
            old_tail: ".gif".to_string(),
            new_tail: ".png".to_string(),
        },
    )]
    .into();
    let page = br#"<img src="../img/a.gif"><img src="../img/b.gif"><img src="a.gif">
<img src="../IMG/A.GIF?x=1&amp;y=2"><base href="/"><img src="/img/a.gif">"#;
    let cx = Context {
        resolver: &resolver,
        base: resolver.base_url("pages/p.html", None),
        encoding: encoding_rs::WINDOWS_1252,
        renames: &renames,
    };
    let text = spans::byte_preserving(page, encoding_rs::WINDOWS_1252);
    let edits = pages::reference_edits(page, &spans::find(&text), &cx);
    let out = String::from_utf8(pages::apply(page, &edits)).unwrap();
    assert_eq!(
        out,
        r#"<img src="../img/a.png"><img src="../img/b.gif"><img src="a.gif">
<img src="../IMG/A.png?x=1&amp;y=2"><base href="/"><img src="/img/a.png">"#,
        "b.gif is not converted and pages/a.gif does not exist"
    );
}
