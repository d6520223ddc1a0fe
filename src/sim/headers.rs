//! The request headers the robot sends, whatever the protocol: the 1997 robot's few (`libwww`)
//! or a current Chromium's (`browser`). Header compression's effect depends entirely on which
//! set is sent, so both exist, and every protocol sends the same set in its own framing
//! (HTTP/1.x as text, HTTP/2 through HPACK).
//!
//! The `browser` set is modelled on what Chromium 156 sends for a same-origin page load: the
//! client hints, `sec-fetch-*` per destination, an `Accept` per resource type, a referer for
//! sub-resources, and a cookie of about 300 bytes (a session id and two analytics cookies, as a
//! typical site sets them). It is a fixed, stated set, not a capture.

use serde::{Deserialize, Serialize};

/// What a request is for: decides `Accept`, `sec-fetch-dest` and the priority.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Dest {
    Document,
    Style,
    Script,
    Image,
    Frame,
    Other,
}

impl Dest {
    /// RFC 9218 urgency (0 = most urgent): the page, then style sheets, then scripts, then
    /// images in document order (non-incremental).
    pub fn urgency(self) -> u8 {
        match self {
            Dest::Document | Dest::Frame => 0,
            Dest::Style => 1,
            Dest::Script => 2,
            Dest::Image => 3,
            Dest::Other => 4,
        }
    }

    /// The RFC 9218 `priority` field value.
    pub fn priority(self) -> String {
        match self {
            Dest::Document | Dest::Frame => "u=0, i".to_string(),
            other => format!("u={}", other.urgency()),
        }
    }
}

/// Which request headers the robot sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HeaderSet {
    /// The 1997 robot's: `User-Agent`, `Accept: */*`. The default (the study's).
    #[default]
    Libwww,
    /// A current Chromium's, as described in the module notes.
    Browser,
}

impl HeaderSet {
    pub fn as_str(self) -> &'static str {
        match self {
            HeaderSet::Libwww => "libwww",
            HeaderSet::Browser => "browser",
        }
    }
}

/// One request's headers beyond the method, target and host (HTTP/1: the request line and
/// `Host`; HTTP/2: `:method`, `:scheme`, `:authority`, `:path`), in the order they are sent,
/// names in lower case (HTTP/1 writes them as they are: header names are case-insensitive).
pub struct RequestHeaders {
    pub set: HeaderSet,
    pub dest: Dest,
    /// Send `Accept-Encoding` for compressed bodies (the deflate and brotli modes): the coding
    /// the robot names (`deflate`, `br`); a browser names every coding it accepts.
    pub compressed: Option<&'static str>,
    /// The page that referred to this resource, as an absolute URL (browser set only).
    pub referer: Option<String>,
    /// Send the RFC 9218 `priority` field (HTTP/2).
    pub priority: bool,
}

/// Chromium's user agent string for version 156 on Linux.
const BROWSER_UA: &str = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) \
                          Chrome/156.0.0.0 Safari/537.36";

/// A cookie of 300 bytes a typical site sets: a session and two analytics cookies.
const BROWSER_COOKIE: &str = "session=8f14e45fceea167a5a36dedd4bea2543a7c1d2e4f5b6c7d8e9f0a1b2c3d4e5f6; \
     _ga=GA1.1.1843726105.1764547200; _ga_7Q2ZK5W8XM=GS2.1.s1764547200$o3$g1$t1764547812$j60$l0$h0; \
     prefs=lang%3Den%26theme%3Dlight%26fontsize%3Dmedium%26consent%3D1; \
     _gid=GA1.2.1120458813.1764547200";

impl RequestHeaders {
    /// The header fields, name and value.
    pub fn fields(&self) -> Vec<(&'static str, String)> {
        let mut out: Vec<(&'static str, String)> = Vec::new();
        let encoding = |compressed: Option<&'static str>, browser: bool| match (compressed, browser)
        {
            (Some(_), true) => Some("gzip, deflate, br, zstd"),
            (Some(coding), false) => Some(coding),
            // A browser always says what it accepts; in a mode without compression the robot
            // says it wants the bytes as they are.
            (None, true) => Some("identity"),
            (None, false) => None,
        };
        match self.set {
            HeaderSet::Libwww => {
                out.push(("user-agent", "webdiet-robot/0.1".into()));
                out.push(("accept", "*/*".into()));
                if let Some(e) = encoding(self.compressed, false) {
                    out.push(("accept-encoding", e.into()));
                }
            }
            HeaderSet::Browser => {
                let document = matches!(self.dest, Dest::Document | Dest::Frame);
                if document {
                    out.push(("upgrade-insecure-requests", "1".into()));
                }
                out.push(("user-agent", BROWSER_UA.into()));
                out.push((
                    "sec-ch-ua",
                    "\"Chromium\";v=\"156\", \"Not.A/Brand\";v=\"99\"".into(),
                ));
                out.push(("sec-ch-ua-mobile", "?0".into()));
                out.push(("sec-ch-ua-platform", "\"Linux\"".into()));
                out.push(("accept", accept(self.dest).into()));
                let (site, mode, dest) = match self.dest {
                    Dest::Document => ("none", "navigate", "document"),
                    Dest::Frame => ("same-origin", "navigate", "iframe"),
                    Dest::Style => ("same-origin", "no-cors", "style"),
                    Dest::Script => ("same-origin", "no-cors", "script"),
                    Dest::Image => ("same-origin", "no-cors", "image"),
                    Dest::Other => ("same-origin", "no-cors", "empty"),
                };
                out.push(("sec-fetch-site", site.into()));
                out.push(("sec-fetch-mode", mode.into()));
                if document {
                    out.push(("sec-fetch-user", "?1".into()));
                }
                out.push(("sec-fetch-dest", dest.into()));
                if let Some(referer) = &self.referer {
                    out.push(("referer", referer.clone()));
                }
                if let Some(e) = encoding(self.compressed, true) {
                    out.push(("accept-encoding", e.into()));
                }
                out.push(("accept-language", "en-US,en;q=0.9".into()));
                out.push(("cookie", BROWSER_COOKIE.into()));
            }
        }
        if self.priority {
            out.push(("priority", self.dest.priority()));
        }
        out
    }
}

/// Chromium's `Accept` per destination.
fn accept(dest: Dest) -> &'static str {
    match dest {
        Dest::Document | Dest::Frame => {
            "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,\
             image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7"
        }
        Dest::Style => "text/css,*/*;q=0.1",
        Dest::Image => "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8",
        Dest::Script | Dest::Other => "*/*",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn size(h: &RequestHeaders) -> usize {
        h.fields().iter().map(|(n, v)| n.len() + v.len() + 4).sum()
    }

    #[test]
    fn the_browser_set_is_several_times_the_robots() {
        let robot = RequestHeaders {
            set: HeaderSet::Libwww,
            dest: Dest::Image,
            compressed: None,
            referer: None,
            priority: false,
        };
        let browser = RequestHeaders {
            set: HeaderSet::Browser,
            referer: Some("http://198.18.0.2/index.html".into()),
            ..robot
        };
        // SPDY: typical request headers are 700–800 bytes.
        assert!(
            size(&browser) > 700 && size(&browser) < 1100,
            "{}",
            size(&browser)
        );
        assert!(size(&robot) < 60, "{}", size(&robot));
    }

    #[test]
    fn compression_is_asked_for_only_in_the_deflate_modes() {
        let fields = |set, compressed| {
            RequestHeaders {
                set,
                dest: Dest::Style,
                compressed,
                referer: None,
                priority: true,
            }
            .fields()
        };
        let value = |f: Vec<(&str, String)>, name: &str| {
            f.into_iter().find(|(n, _)| *n == name).map(|(_, v)| v)
        };
        assert_eq!(
            value(fields(HeaderSet::Libwww, None), "accept-encoding"),
            None
        );
        for coding in ["deflate", "br"] {
            assert_eq!(
                value(fields(HeaderSet::Libwww, Some(coding)), "accept-encoding").as_deref(),
                Some(coding)
            );
        }
        assert_eq!(
            value(fields(HeaderSet::Browser, None), "accept-encoding").as_deref(),
            Some("identity")
        );
        assert_eq!(
            value(fields(HeaderSet::Browser, Some("br")), "accept-encoding").as_deref(),
            Some("gzip, deflate, br, zstd")
        );
        assert_eq!(
            value(fields(HeaderSet::Browser, Some("deflate")), "priority").as_deref(),
            Some("u=1")
        );
    }

    #[test]
    fn the_page_is_more_urgent_than_style_sheets_and_style_sheets_than_images() {
        assert!(Dest::Document.urgency() < Dest::Style.urgency());
        assert!(Dest::Style.urgency() < Dest::Image.urgency());
    }
}
