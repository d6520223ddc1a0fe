//! The tree keeps its shape: a symbolic link inside the site that leads inside it is a link in
//! the rewritten tree too (to a directory, to a page, to a GIF that became a PNG, through
//! another link), the file it reaches is counted and written once, and links that leave the
//! site, dangle or loop are reported and left out.

use crate::common;

use std::collections::BTreeSet;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use common::{analyze_json, webdiet, write_site};

use common::seeded_gif as gif;

const INDEX: &str = "<html><head><title>links</title></head><body>\n\
    <a href=\"latest.html\">latest</a> <a href=\"abs.html\">abs</a>\n\
    <img src=\"images/photo.gif\" alt=a><img src=\"img/photo.gif\" alt=b>\n\
    <img src=\"logo.gif\" alt=c><img src=\"chain.gif\" alt=d><img src=\"keep.jpg\" alt=e>\n\
    </body></html>\n";

/// The site: real files, links of every kind inside it, and three bad links.
fn linked_site(root: &Path) {
    let (photo, logo, keep) = (gif(1), gif(2), gif(3));
    write_site(
        root,
        &[
            ("index.html", INDEX.as_bytes()),
            (
                "pages/real.html",
                b"<html><head><title>real</title></head><body><p>real</p></body></html>\n",
            ),
            ("img/photo.gif", &photo),
            ("img/logo-real.gif", &logo),
            ("img/keep.gif", &keep),
        ],
    );
    let link = |target: &str, name: &str| symlink(target, root.join(name)).unwrap();
    link("pages/real.html", "latest.html");
    link("img", "images");
    link("img/logo-real.gif", "logo.gif");
    link("logo.gif", "chain.gif");
    link("img/keep.gif", "keep.jpg");
    let absolute = root.canonicalize().unwrap().join("pages/real.html");
    link(absolute.to_str().unwrap(), "abs.html");
    link("/etc", "outside");
    link("nowhere.gif", "dangling.gif");
    link(".", "loop");
}

fn rewrite(site: &Path, out: &Path) -> PathBuf {
    let run = webdiet()
        .arg("rewrite")
        .arg(site)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "rewrite failed: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    out.join("site")
}

fn link_target(path: &Path) -> Option<String> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    meta.file_type()
        .is_symlink()
        .then(|| std::fs::read_link(path).unwrap().display().to_string())
}

fn is_plain_file(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_file())
}

fn codes(inv: &serde_json::Value) -> BTreeSet<(String, String)> {
    inv["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["path"].as_str().unwrap().to_string(),
                p["code"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn links_inside_the_site_stay_links_with_their_target_as_written() {
    let site = tempfile::tempdir().unwrap();
    linked_site(site.path());
    let out = tempfile::tempdir().unwrap();
    let written = rewrite(site.path(), out.path());

    assert_eq!(
        link_target(&written.join("latest.html")).as_deref(),
        Some("pages/real.html")
    );
    assert_eq!(link_target(&written.join("images")).as_deref(), Some("img"));
    assert!(is_plain_file(&written.join("pages/real.html")));
    assert!(is_plain_file(&written.join("img/photo.png")));
    assert!(!written.join("img/photo.gif").exists());
    let page = std::fs::read_to_string(written.join("index.html")).unwrap();
    assert!(page.contains("\"images/photo.png\""), "{page}");
    assert!(page.contains("\"img/photo.png\""), "{page}");
}

#[test]
fn an_absolute_link_into_the_site_becomes_relative_so_the_output_never_leads_back_into_the_input() {
    let site = tempfile::tempdir().unwrap();
    linked_site(site.path());
    let out = tempfile::tempdir().unwrap();
    let written = rewrite(site.path(), out.path());
    assert_eq!(
        link_target(&written.join("abs.html")).as_deref(),
        Some("pages/real.html")
    );
}

#[test]
fn a_link_to_a_converted_gif_follows_it_to_the_png() {
    let site = tempfile::tempdir().unwrap();
    linked_site(site.path());
    let out = tempfile::tempdir().unwrap();
    let written = rewrite(site.path(), out.path());

    assert_eq!(
        link_target(&written.join("logo.png")).as_deref(),
        Some("img/logo-real.png")
    );
    assert_eq!(
        link_target(&written.join("chain.png")).as_deref(),
        Some("logo.png"),
        "a link to a link follows it too"
    );
    assert!(is_plain_file(&written.join("img/logo-real.png")));
    for gone in ["logo.gif", "chain.gif", "img/logo-real.gif"] {
        assert!(
            std::fs::symlink_metadata(written.join(gone)).is_err(),
            "{gone} should be gone"
        );
    }
    let page = std::fs::read_to_string(written.join("index.html")).unwrap();
    assert!(page.contains("\"logo.png\""), "{page}");
    assert!(page.contains("\"chain.png\""), "{page}");
    // The PNG reached through the links is the logo's.
    let through_link = std::fs::read(written.join("chain.png")).unwrap();
    let logo = image::load_from_memory(&gif(2)).unwrap().into_rgba8();
    assert_eq!(
        image::load_from_memory(&through_link)
            .unwrap()
            .into_rgba8()
            .into_raw(),
        logo.into_raw()
    );
}

#[test]
fn a_link_whose_name_cannot_become_png_keeps_its_name_and_its_gif() {
    let site = tempfile::tempdir().unwrap();
    linked_site(site.path());
    let out = tempfile::tempdir().unwrap();
    let written = rewrite(site.path(), out.path());
    assert_eq!(
        link_target(&written.join("keep.jpg")).as_deref(),
        Some("img/keep.gif")
    );
    assert!(is_plain_file(&written.join("img/keep.gif")));
    let page = std::fs::read_to_string(written.join("index.html")).unwrap();
    assert!(page.contains("\"keep.jpg\""), "{page}");
}

#[test]
fn every_reference_through_a_link_still_resolves_in_the_rewritten_site() {
    let site = tempfile::tempdir().unwrap();
    linked_site(site.path());
    let out = tempfile::tempdir().unwrap();
    let written = rewrite(site.path(), out.path());
    let after = analyze_json(&written);
    assert_eq!(after["broken_references"], serde_json::json!([]));
    assert_eq!(
        after["problems"],
        serde_json::json!([]),
        "no bad link was copied"
    );
}

#[test]
fn links_that_leave_the_site_dangle_or_loop_are_reported_and_left_out() {
    let site = tempfile::tempdir().unwrap();
    linked_site(site.path());
    let inv = analyze_json(site.path());
    let codes = codes(&inv);
    for (path, code) in [
        ("outside", "symlink-outside-site"),
        ("dangling.gif", "symlink-dangling"),
        ("loop", "symlink-loop"),
    ] {
        assert!(
            codes.contains(&(path.to_string(), code.to_string())),
            "expected {code} for {path} in {codes:?}"
        );
    }
    assert_eq!(codes.len(), 3, "{codes:?}");

    let out = tempfile::tempdir().unwrap();
    let written = rewrite(site.path(), out.path());
    for left_out in ["outside", "dangling.gif", "loop"] {
        assert!(
            std::fs::symlink_metadata(written.join(left_out)).is_err(),
            "{left_out} is in the output"
        );
    }
}

#[test]
fn a_file_that_a_link_also_reaches_is_counted_once() {
    let site = tempfile::tempdir().unwrap();
    linked_site(site.path());
    let inv = analyze_json(site.path());
    let real_bytes: u64 = ["index.html", "pages/real.html"]
        .iter()
        .chain(&["img/photo.gif", "img/logo-real.gif", "img/keep.gif"])
        .map(|p| std::fs::metadata(site.path().join(p)).unwrap().len())
        .sum();
    assert_eq!(inv["pages"], 2, "latest.html and abs.html are links");
    assert_eq!(inv["resources"], 3, "images/ and logo.gif are links");
    assert_eq!(inv["bytes"], real_bytes);
    assert_eq!(
        inv["orphans"],
        serde_json::json!([]),
        "links count as references"
    );
    let links: BTreeSet<&str> = inv["symlinks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        links,
        [
            "abs.html",
            "chain.gif",
            "images",
            "keep.jpg",
            "latest.html",
            "logo.gif"
        ]
        .into()
    );
    let text = webdiet().arg("analyze").arg(site.path()).output().unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains(": 2 pages, 3 other files, "), "{text}");
    assert!(
        text.contains("and 6 symbolic links inside the site"),
        "{text}"
    );
}

#[test]
fn the_replay_serves_files_through_links() {
    let site = tempfile::tempdir().unwrap();
    linked_site(site.path());
    let run = webdiet()
        .arg("replay")
        .arg(site.path())
        .args([
            "--json",
            "--runs",
            "1",
            "--modes",
            "pipelined",
            "--tests",
            "first",
        ])
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "replay failed: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&run.stdout).unwrap();
    // The page and five image URLs (two of them reach the same file).
    assert_eq!(rows[0]["requests"], 6, "{}", rows[0]);
}

#[test]
fn a_link_named_like_the_new_style_sheet_is_never_written_through() {
    let site = tempfile::tempdir().unwrap();
    let sheet = b"p { margin: 0 }\n";
    // Lines after `<basefont>` tags, which go (Chromium gives them no effect), so that the
    // conversion pays for its sheet: the rewrite never makes a page heavier.
    let items: String = (0..1000)
        .map(|i| {
            format!(
                "<basefont size={}><p><font face=\"Arial, Helvetica\" color=\"#ff0000\">item \
                 {i}</font>\n",
                i % 7 + 1
            )
        })
        .collect();
    let page = format!("<html><head><title>a</title></head><body>{items}</body></html>\n");
    write_site(
        site.path(),
        &[("index.html", page.as_bytes()), ("style.css", sheet)],
    );
    symlink("style.css", site.path().join("webdiet.css")).unwrap();
    let out = tempfile::tempdir().unwrap();
    let run = webdiet()
        .arg("rewrite")
        .arg(site.path())
        .arg("--out")
        .arg(out.path())
        .args(["--css", "site-sheet", "--no-minify"])
        .output()
        .unwrap();
    assert!(run.status.success());
    assert_eq!(std::fs::read(site.path().join("style.css")).unwrap(), sheet);
    let written = out.path().join("site");
    assert_eq!(std::fs::read(written.join("style.css")).unwrap(), sheet);
    assert_eq!(
        link_target(&written.join("webdiet.css")).as_deref(),
        Some("style.css")
    );
    let page = std::fs::read_to_string(written.join("index.html")).unwrap();
    assert!(page.contains("webdiet-2.css"), "{page}");
}
