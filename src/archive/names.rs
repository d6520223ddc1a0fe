//! Where a captured URL lives in the materialised tree: its path, percent-decoded to the bytes
//! a server would have on disk ([`crate::site::name`]); a directory URL's index page; and a
//! query string kept in the name (`search.php?q=1` → `search.php?q=1`, with `/` in the query
//! as `%2F`), so that every URL has its own name and the name gives the URL back. When the
//! captured media type is not what the name's extension would be served as (`page.php`
//! served as HTML, a query URL, `logo` with no extension), the file takes the extension of its
//! type (`page.php.html`), as `wget --adjust-extension` does, and the URL's own name becomes a
//! symbolic link to it: every later stage classifies and serves the file by its name, as it
//! does for a directory, and references to the URL still resolve.

use percent_encoding::percent_encode;
use url::Url;

use crate::site::name;

/// The extension webdiet's server and crawl give a media type, if it knows one.
pub fn extension_for(mime: &str) -> Option<&'static str> {
    Some(match mime {
        "text/html" => "html",
        "application/xhtml+xml" => "xhtml",
        "text/css" => "css",
        "application/javascript" | "text/javascript" | "application/x-javascript" => "js",
        "application/json" => "json",
        "application/xml" | "text/xml" => "xml",
        "image/svg+xml" => "svg",
        "text/plain" => "txt",
        "image/gif" => "gif",
        "image/png" => "png",
        "image/jpeg" | "image/jpg" | "image/pjpeg" => "jpg",
        "image/x-icon" | "image/vnd.microsoft.icon" => "ico",
        "image/webp" => "webp",
        _ => return None,
    })
}

/// Whether a file named `path` would be served (and classified) as `mime`.
pub fn name_fits(path: &str, mime: &str) -> bool {
    match extension_for(mime) {
        None => true,
        Some(ext) => {
            let by_name = crate::site::media_type(path);
            let wanted = crate::site::media_type(&format!("x.{ext}"));
            by_name == wanted
        }
    }
}

/// The site path a URL's capture takes (before any adjustment): its path decoded by the one
/// rule every reader of a site uses ([`name::from_url_path`]: a decoded `/`, `.`, `..` or NUL
/// is never path structure), `index.html` for a directory, the query kept in the name
/// ([`name::query_name`]).
pub fn site_path(url: &Url) -> String {
    let mut path = name::from_url_path(url.path());
    if path.is_empty() || path.ends_with('/') {
        path.push_str("index.html");
    }
    match url.query() {
        Some(query) => name::query_name(&path, query),
        None => path,
    }
}

/// The URL a site path has under `origin` (a file the rewrite made, which no capture names).
pub fn url_of(origin: &Url, path: &str) -> Url {
    let encoded: Vec<String> = path
        .split('/')
        .map(|s| percent_encode(&name::to_bytes(s), crate::site::resolve::SEGMENT).to_string())
        .collect();
    origin
        .join(&encoded.join("/"))
        .unwrap_or_else(|_| origin.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(u: &str) -> String {
        site_path(&Url::parse(u).unwrap())
    }

    #[test]
    fn urls_map_to_names_that_give_them_back() {
        assert_eq!(path("http://h/"), "index.html");
        assert_eq!(path("http://h/docs/"), "docs/index.html");
        assert_eq!(path("http://h/caf%E9.gif"), "caf\\xe9.gif");
        assert_eq!(path("http://h/a%20b.html"), "a b.html");
        assert_eq!(path("http://h/s.php?q=1&r=a/b"), "s.php?q=1&r=a%2Fb");
        assert_eq!(path("http://h/a%2F%2Fb.html"), "a%2F%2Fb.html");
        assert_eq!(path("http://h/%2E%2E%2Fx/"), "%2E%2E%2Fx/index.html");
    }

    #[test]
    fn a_name_fits_when_its_extension_gives_the_captured_type() {
        assert!(name_fits("a/b.htm", "text/html"));
        assert!(!name_fits("a/b.php", "text/html"));
        assert!(!name_fits("logo", "image/gif"));
        assert!(name_fits("logo.jpeg", "image/jpeg"));
        assert!(name_fits("x.pdf", "application/pdf"));
        assert!(!name_fits("s.php?q=1", "text/html"));
    }
}
