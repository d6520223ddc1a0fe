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

#[test]
fn percent_escaped_bytes_reach_the_file_with_those_bytes_in_its_name() {
    let s = site(&[
        r"caf\xe9.gif",
        r"caf\xe8.gif",
        "caf\u{fffd}.gif",
        r"r\xe9p/x.gif",
    ]);
    for (raw, path) in [
        ("caf%E9.gif", r"caf\xe9.gif"),
        ("caf%e8.gif", r"caf\xe8.gif"),
        ("caf%EF%BF%BD.gif", "caf\u{fffd}.gif"),
        ("r%E9p/x.gif", r"r\xe9p/x.gif"),
    ] {
        assert_eq!(
            resolve_from(&s, "index.html", raw),
            local(path, Match::Exact)
        );
    }
}

#[test]
fn a_raw_non_ascii_character_is_asked_for_in_utf8_whatever_the_page_encoding() {
    // `café.gif` written in a windows-1252 page is the text "café.gif" once decoded; the
    // browser sends `caf%C3%A9.gif`, which is not the Latin-1 name.
    let s = site(&[r"caf\xe9.gif"]);
    assert!(matches!(
        resolve_from(&s, "index.html", "caf\u{e9}.gif"),
        Target::Broken { .. }
    ));
}

#[test]
fn the_url_of_a_page_with_a_latin1_name_leads_back_to_it() {
    let s = site(&[r"r\xe9p/p\xe1gina.html", r"a\\b.html"]);
    let resolver = Resolver::new(&s, None);
    for page in [r"r\xe9p/p\xe1gina.html", r"a\\b.html"] {
        let url = resolver.page_url(page);
        assert!(url.path().is_ascii());
        assert_eq!(
            resolver.resolve(&url, url.path()),
            local(page, Match::Exact),
            "{url}"
        );
    }
    assert_eq!(
        resolver.page_url(r"r\xe9p/p\xe1gina.html").path(),
        "/r%E9p/p%E1gina.html"
    );
}

fn link(path: &str, leads_to: &str, dir: bool) -> crate::site::SiteLink {
    crate::site::SiteLink {
        path: path.to_string(),
        target: leads_to.to_string(),
        leads_to: leads_to.to_string(),
        dir,
    }
}

#[test]
fn a_reference_through_a_directory_link_reaches_the_file_under_its_own_path() {
    let s = site(&["img/x.gif", "img/index.html", "img/sub/y.gif"]).with_links(vec![
        link("images", "img", true),
        link("img/up", "img/sub", true),
    ]);
    assert_eq!(
        resolve_from(&s, "index.html", "images/x.gif"),
        local("img/x.gif", Match::Exact)
    );
    assert_eq!(
        resolve_from(&s, "index.html", "images/up/y.gif"),
        local("img/sub/y.gif", Match::Exact),
        "a link inside a linked directory is followed too"
    );
    assert_eq!(
        resolve_from(&s, "index.html", "images/"),
        local("img/index.html", Match::DirectoryIndex)
    );
    assert_eq!(
        resolve_from(&s, "index.html", "IMAGES/X.GIF"),
        local("img/x.gif", Match::CaseInsensitive)
    );
}

#[test]
fn a_reference_to_a_file_link_resolves_to_the_file_it_leads_to() {
    let s = site(&["img/logo.gif", "pages/v2.html"]).with_links(vec![
        link("logo.gif", "img/logo.gif", false),
        link("index.html", "pages/v2.html", false),
    ]);
    assert_eq!(
        resolve_from(&s, "pages/v2.html", "../logo.gif"),
        local("img/logo.gif", Match::Exact)
    );
    assert_eq!(
        resolve_from(&s, "pages/v2.html", "../logo"),
        local("img/logo.gif", Match::Extensionless)
    );
    assert_eq!(
        Resolver::new(&s, None).entry_page().as_deref(),
        Some("pages/v2.html"),
        "an index page that is a link"
    );
}

#[test]
fn directory_links_that_lead_into_each_other_end_after_a_bounded_walk() {
    let s = site(&["a/x.gif"]).with_links(vec![link("a/l", "b", true), link("b/m", "a", true)]);
    let deep = "a/l/m/".repeat(30) + "x.gif";
    // 60 links on the way: more than a server follows.
    assert!(matches!(
        resolve_from(&s, "index.html", &deep),
        Target::Broken { .. }
    ));
    assert_eq!(
        resolve_from(&s, "index.html", "a/l/m/l/m/x.gif"),
        local("a/x.gif", Match::Exact)
    );
}
