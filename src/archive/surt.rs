//! SURT keys ("Sort-friendly URI Reordering Transform"): how archives canonicalise a URL so
//! that captures of one resource group together and a CDXJ index sorts by site. The rules are
//! those of the `surt` Python library's default IA canonicaliser, which pywb, cdxj-indexer
//! and ReplayWeb.page's indexes follow: scheme dropped, host lower-cased without `www.`
//! (or `www2.`, …) and reversed into `com,example)`, default port dropped, fragment dropped,
//! path and query lower-cased, query arguments sorted, an empty query dropped. An IP address
//! is a host like any other there (`surt`'s `reverse_ipaddr` defaults to true, and
//! cdxj-indexer keeps the default): `127.0.0.1` is `1,0,0,127)`, and an IPv6 address loses its
//! brackets (`[::1]:8080` is `::1:8080)`).

use url::Url;

/// The SURT key of an absolute URL; a URL that does not parse keys as itself, lower-cased (a
/// `dns:` or `metadata://` target is still grouped and sorted).
pub fn key(raw: &str) -> String {
    let Ok(url) = Url::parse(raw.trim()) else {
        return raw.trim().to_ascii_lowercase();
    };
    let Some(host) = url.host_str() else {
        return url.as_str().to_ascii_lowercase();
    };
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    let host = strip_www(&host);
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let mut key: String = host.split('.').rev().collect::<Vec<_>>().join(",");
    if let Some(port) = url.port() {
        key.push_str(&format!(":{port}"));
    }
    key.push(')');
    // Runs of slashes collapse to one (the canonicaliser normalises the path so).
    let mut path = String::with_capacity(url.path().len());
    for c in url.path().to_ascii_lowercase().chars() {
        if !(c == '/' && path.ends_with('/')) {
            path.push(c);
        }
    }
    // The canonicaliser strips a trailing slash, except from the root.
    key.push_str(match path.strip_suffix('/') {
        Some(stripped) if !stripped.is_empty() => stripped,
        _ => &path,
    });
    if let Some(query) = url.query().filter(|q| !q.is_empty()) {
        let mut args: Vec<String> = query
            .split('&')
            .filter(|a| !a.is_empty())
            .map(str::to_ascii_lowercase)
            .collect();
        args.sort();
        if !args.is_empty() {
            key.push('?');
            key.push_str(&args.join("&"));
        }
    }
    key
}

/// The SURT host of a URL (`com,example)`), which decides what is on the site and what is a
/// third party.
pub fn host_key(raw: &str) -> Option<String> {
    let url = Url::parse(raw.trim()).ok()?;
    let host = url.host_str()?.trim_end_matches('.').to_ascii_lowercase();
    Some(strip_www(&host).to_string())
}

/// `www.example.com` → `example.com`, `www2.example.com` → `example.com`; a bare `www.com`
/// stays.
fn strip_www(host: &str) -> &str {
    let Some(rest) = host.strip_prefix("www") else {
        return host;
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    match rest[digits..].strip_prefix('.') {
        Some(tail) if tail.contains('.') => tail,
        _ => host,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_follow_the_ia_canonicaliser() {
        assert_eq!(key("http://www.Example.com/"), "com,example)/");
        assert_eq!(key("http://example.com"), "com,example)/");
        assert_eq!(
            key("https://www2.example.com:443/A/B.html#x"),
            "com,example)/a/b.html"
        );
        assert_eq!(key("http://example.com:8080/x"), "com,example:8080)/x");
        assert_eq!(key("http://example.com/docs/"), "com,example)/docs");
        assert_eq!(
            key("metadata://webdiet/http://www.example.com/"),
            "webdiet)/http:/www.example.com"
        );
        assert_eq!(
            key("http://example.com/s?b=2&A=1"),
            "com,example)/s?a=1&b=2"
        );
        assert_eq!(key("http://example.com/s?"), "com,example)/s");
        assert_eq!(key("http://www.com/"), "com,www)/");
    }

    #[test]
    fn ip_hosts_key_as_cdxj_indexer_keys_them() {
        // `surt.surt(url)` of the surt library cdxj-indexer 1.5.0 calls, for each.
        assert_eq!(key("http://127.0.0.1:9/"), "1,0,0,127:9)/");
        assert_eq!(key("http://192.168.0.1/?b=1&a=2"), "1,0,168,192)/?a=2&b=1");
        assert_eq!(key("https://10.1.2.3:443/x"), "3,2,1,10)/x");
        assert_eq!(key("http://[::1]:8080/x"), "::1:8080)/x");
        assert_eq!(key("http://[2001:DB8::A]/"), "2001:db8::a)/");
        assert_eq!(key("http://[::1]:80/"), "::1)/");
    }

    #[test]
    fn www_and_bare_host_are_one_site_and_others_are_not() {
        assert_eq!(host_key("http://www.w3.org/x"), host_key("http://W3.org/"));
        assert_ne!(host_key("http://cdn.w3.org/x"), host_key("http://w3.org/"));
    }
}
