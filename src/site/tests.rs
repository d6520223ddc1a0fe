//! The crawl as a specification: names as bytes, links kept as links, bad links reported.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::symlink;

use super::*;

fn codes(site: &Site) -> Vec<(&str, &str)> {
    site.problems
        .iter()
        .map(|p| (p.path.as_str(), p.code.as_str()))
        .collect()
}

#[test]
fn a_link_target_written_relative_and_inside_the_site_is_kept() {
    assert!(stays_inside("latest.html", "pages/v2.html"));
    assert!(stays_inside("a/b/l", "../../c/x.gif"));
    assert!(stays_inside("a/l", "./x/../y"));
    assert!(!stays_inside("a/l", "../../x"), "climbs above the root");
    assert!(!stays_inside("l", "../site/x"), "leaves and comes back in");
    assert!(!stays_inside("l", "/srv/site/x"), "absolute");
}

#[test]
fn a_relative_path_leads_from_the_link_directory_to_its_target() {
    assert_eq!(relative_to("a/b/l", "c/x.gif"), "../../c/x.gif");
    assert_eq!(relative_to("a/l", "a/sub/x.gif"), "sub/x.gif");
    assert_eq!(relative_to("l", "img"), "img");
    assert_eq!(relative_to("a/b/l", "a"), "..");
    let link = SiteLink {
        path: "d/abs.html".to_string(),
        target: "/srv/site/pages/p.html".to_string(),
        leads_to: "pages/p.html".to_string(),
        dir: false,
    };
    assert_eq!(link.portable_target(), "../pages/p.html");
}

#[test]
fn names_that_are_not_utf8_are_listed_once_each_under_their_escaped_form() {
    let dir = tempfile::tempdir().unwrap();
    for name in [
        b"caf\xe9.gif".as_slice(),
        b"caf\xe8.gif",
        "caf\u{fffd}.gif".as_bytes(),
        br"caf\xe9.gif",
    ] {
        std::fs::write(dir.path().join(OsStr::from_bytes(name)), b"GIF89a").unwrap();
    }
    std::fs::create_dir(dir.path().join(OsStr::from_bytes(b"r\xe9p"))).unwrap();
    std::fs::write(dir.path().join(OsStr::from_bytes(b"r\xe9p/x.html")), b"<p>").unwrap();
    let site = crawl(dir.path(), &CrawlOptions::default()).unwrap();
    let paths: Vec<&str> = site.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            r"caf\\xe9.gif",
            r"caf\xe8.gif",
            r"caf\xe9.gif",
            "caf\u{fffd}.gif",
            r"r\xe9p/x.html"
        ]
    );
    for file in &site.files {
        assert!(!site.read(&file.path).unwrap().is_empty(), "{}", file.path);
    }
    assert!(site.problems.is_empty(), "{:?}", site.problems);
}

#[test]
fn links_inside_the_site_are_listed_not_walked() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir(root.join("img")).unwrap();
    std::fs::write(root.join("img/x.gif"), b"GIF89a").unwrap();
    symlink("img", root.join("images")).unwrap();
    symlink("img/x.gif", root.join("x.gif")).unwrap();
    let site = crawl(root, &CrawlOptions::default()).unwrap();
    assert_eq!(site.files.len(), 1, "{:?}", site.files);
    assert_eq!(
        site.links,
        [
            SiteLink {
                path: "images".into(),
                target: "img".into(),
                leads_to: "img".into(),
                dir: true
            },
            SiteLink {
                path: "x.gif".into(),
                target: "img/x.gif".into(),
                leads_to: "img/x.gif".into(),
                dir: false
            },
        ]
    );
    let without = crawl(
        root,
        &CrawlOptions {
            follow_links: false,
        },
    )
    .unwrap();
    assert!(without.links.is_empty() && without.problems.is_empty());
}

#[test]
fn links_that_point_at_each_other_or_at_their_own_directory_are_loops() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir(root.join("sub")).unwrap();
    symlink("b", root.join("a")).unwrap();
    symlink("a", root.join("b")).unwrap();
    symlink("..", root.join("sub/up")).unwrap();
    symlink(".", root.join("sub/here")).unwrap();
    let site = crawl(root, &CrawlOptions::default()).unwrap();
    assert_eq!(
        codes(&site),
        [
            ("a", "symlink-loop"),
            ("b", "symlink-loop"),
            ("sub/here", "symlink-loop"),
            ("sub/up", "symlink-loop"),
        ]
    );
    assert!(site.links.is_empty());
}

#[test]
fn a_link_leading_out_of_the_site_or_nowhere_is_reported_with_its_target() {
    let dir = tempfile::tempdir().unwrap();
    let site_dir = dir.path().join("site");
    std::fs::create_dir(&site_dir).unwrap();
    std::fs::write(dir.path().join("secret.txt"), b"x").unwrap();
    symlink("../secret.txt", site_dir.join("out.txt")).unwrap();
    symlink(
        "missing.gif",
        site_dir.join(OsStr::from_bytes(b"caf\xe9.gif")),
    )
    .unwrap();
    let site = crawl(&site_dir, &CrawlOptions::default()).unwrap();
    assert_eq!(
        codes(&site),
        [
            (r"caf\xe9.gif", "symlink-dangling"),
            ("out.txt", "symlink-outside-site")
        ]
    );
    assert!(site.problems[0].message.contains("missing.gif"));
    assert!(site.problems[1].message.contains("secret.txt"));
    assert!(site.files.is_empty() && site.links.is_empty());
}
