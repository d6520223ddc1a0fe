//! Every resolution case a browser plus a static server handles, on a small in-memory site.

use std::path::PathBuf;

use super::*;
use crate::site::{FileKind, SiteFile};

fn site(paths: &[&str]) -> Site {
    let files = paths
        .iter()
        .map(|p| SiteFile {
            path: p.to_string(),
            kind: FileKind::Other,
            bytes: 1,
        })
        .collect();
    Site::from_files(PathBuf::from("/nowhere"), files, Vec::new())
}

fn resolve_from(site: &Site, page: &str, raw: &str) -> Target {
    let resolver = Resolver::new(site, None);
    resolver.resolve(&resolver.base_url(page, None), raw)
}

fn local(path: &str, how: Match) -> Target {
    Target::Local {
        path: path.to_string(),
        how,
    }
}

#[test]
fn relative_paths_resolve_against_the_page_directory() {
    let s = site(&["docs/a.html", "docs/img/x.gif"]);
    assert_eq!(
        resolve_from(&s, "docs/a.html", "img/x.gif"),
        local("docs/img/x.gif", Match::Exact)
    );
}

#[test]
fn dot_dot_climbs_and_stops_at_the_root() {
    let s = site(&["a/b/page.html", "img/x.gif"]);
    assert_eq!(
        resolve_from(&s, "a/b/page.html", "../../img/x.gif"),
        local("img/x.gif", Match::Exact)
    );
    assert_eq!(
        resolve_from(&s, "a/b/page.html", "../../../../img/x.gif"),
        local("img/x.gif", Match::Exact)
    );
}

#[test]
fn root_relative_paths_start_at_the_site_root() {
    let s = site(&["a/page.html", "img/x.gif"]);
    assert_eq!(
        resolve_from(&s, "a/page.html", "/img/x.gif"),
        local("img/x.gif", Match::Exact)
    );
}

#[test]
fn percent_encoding_is_decoded() {
    let s = site(&["my pics/caf\u{e9}.gif", "index.html"]);
    assert_eq!(
        resolve_from(&s, "index.html", "my%20pics/caf%C3%A9.gif"),
        local("my pics/caf\u{e9}.gif", Match::Exact)
    );
    assert_eq!(
        resolve_from(&s, "index.html", "my pics/caf\u{e9}.gif"),
        local("my pics/caf\u{e9}.gif", Match::Exact)
    );
}

#[test]
fn query_and_fragment_do_not_change_the_file() {
    let s = site(&["index.html", "style.css"]);
    assert_eq!(
        resolve_from(&s, "index.html", "style.css?v=3#top"),
        local("style.css", Match::Exact)
    );
}

#[test]
fn fragment_only_reference_is_the_page_itself() {
    let s = site(&["dir/page.html"]);
    assert_eq!(
        resolve_from(&s, "dir/page.html", "#news"),
        local("dir/page.html", Match::Exact)
    );
}

#[test]
fn case_differences_from_windows_captures_resolve() {
    let s = site(&["index.html", "Images/Logo.GIF"]);
    assert_eq!(
        resolve_from(&s, "index.html", "images/logo.gif"),
        local("Images/Logo.GIF", Match::CaseInsensitive)
    );
}

#[test]
fn backslashes_are_path_separators() {
    let s = site(&["index.html", "img/x.gif"]);
    assert_eq!(
        resolve_from(&s, "index.html", "img\\x.gif"),
        local("img/x.gif", Match::Exact)
    );
}

#[test]
fn extensionless_references_are_negotiated_like_a_server() {
    let s = site(&["Library/User/A.html", "Icons/WWW/w3c_home.gif"]);
    assert_eq!(
        resolve_from(&s, "Library/User/A.html", "../../Icons/WWW/w3c_home"),
        local("Icons/WWW/w3c_home.gif", Match::Extensionless)
    );
}

#[test]
fn extensionless_negotiation_prefers_html_then_gif() {
    let s = site(&["index.html", "x.png", "x.gif", "x.html"]);
    assert_eq!(
        resolve_from(&s, "index.html", "x"),
        local("x.html", Match::Extensionless)
    );
    let s = site(&["index.html", "x.png", "x.gif"]);
    assert_eq!(
        resolve_from(&s, "index.html", "x"),
        local("x.gif", Match::Extensionless)
    );
}

#[test]
fn directories_resolve_to_their_index_page() {
    let s = site(&["index.html", "news/index.htm"]);
    assert_eq!(
        resolve_from(&s, "index.html", "news/"),
        local("news/index.htm", Match::DirectoryIndex)
    );
    assert_eq!(
        resolve_from(&s, "index.html", "news"),
        local("news/index.htm", Match::DirectoryIndex)
    );
    assert_eq!(
        resolve_from(&s, "news/index.htm", "../"),
        local("index.html", Match::DirectoryIndex)
    );
}

#[test]
fn missing_files_are_broken_with_a_reason() {
    let s = site(&["index.html"]);
    match resolve_from(&s, "index.html", "img/gone.gif") {
        Target::Broken { path, reason } => {
            assert_eq!(path, "img/gone.gif");
            assert!(reason.contains("no such file"));
        }
        other => panic!("expected broken, got {other:?}"),
    }
}

#[test]
fn external_schemes_are_listed_not_followed() {
    let s = site(&["index.html"]);
    for raw in [
        "http://www.example.com/",
        "https://example.org/x.gif",
        "mailto:someone@example.com",
        "javascript:void(0)",
        "ftp://ftp.example.com/pub",
    ] {
        assert!(
            matches!(resolve_from(&s, "index.html", raw), Target::External { .. }),
            "{raw}"
        );
    }
    assert_eq!(
        resolve_from(&s, "index.html", "data:image/gif;base64,R0lGOD"),
        Target::Inline
    );
}

#[test]
fn base_href_changes_the_base() {
    let s = site(&["a/page.html", "b/x.gif"]);
    let resolver = Resolver::new(&s, None);
    let base = resolver.base_url("a/page.html", Some("/b/"));
    assert_eq!(
        resolver.resolve(&base, "x.gif"),
        local("b/x.gif", Match::Exact)
    );
}

#[test]
fn absolute_urls_under_the_site_url_are_local() {
    let s = site(&["index.html", "img/x.gif"]);
    let site_url = Url::parse("http://www.example.com/1996/").unwrap();
    let resolver = Resolver::new(&s, Some(site_url));
    let base = resolver.base_url("index.html", None);
    assert_eq!(
        resolver.resolve(&base, "http://WWW.example.com/1996/img/x.gif"),
        local("img/x.gif", Match::Exact)
    );
    assert!(matches!(
        resolver.resolve(&base, "http://www.example.com/other/x.gif"),
        Target::External { .. }
    ));
}

#[test]
fn whitespace_and_newlines_inside_attribute_values_are_ignored() {
    let s = site(&["index.html", "img/x.gif"]);
    assert_eq!(
        resolve_from(&s, "index.html", "  img/\nx.gif "),
        local("img/x.gif", Match::Exact)
    );
}
