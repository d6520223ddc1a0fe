//! Minifies a site's own style sheets with lightningcss, so that no browser renders them
//! differently: `minify_sheet` takes a sheet's bytes and returns the smaller text, or why the
//! sheet is left as it is.
//!
//! What makes it safe:
//! - **Targets.** lightningcss removes a fallback or a vendor prefix when its targets do not
//!   need it, and prints modern syntax (`#rrggbbaa`, range media queries) when they all read
//!   it. The targets here are the oldest version of every engine lightningcss knows (IE 6,
//!   Firefox 2, Chrome 4, Safari 3.1, Opera 9…): every fallback is needed by one of them, so
//!   none is dropped, and nothing is printed that one of them cannot read. Vendor prefixes are
//!   left as written (`exclude`: none added, none removed).
//! - **No error recovery.** A sheet lightningcss cannot parse whole (a `*zoom` hack, a
//!   property value it does not know) is left as it is, instead of losing the part it could
//!   not read.
//! - **Charsets.** A sheet in ASCII stays ASCII. A sheet with other characters is changed only
//!   when it says it is UTF-8 (a byte order mark or `@charset "utf-8"`), and is written in
//!   UTF-8 with its byte order mark or `@charset` rule first, as it was; otherwise its bytes
//!   could be read in the page's charset, which webdiet does not know here.
//! - **A fixed point.** The minified text, parsed and minified again, must give itself: the
//!   printer's output means to lightningcss what the input meant.
//!
//! The render check (`webdiet verify`) is the proof that a page looks the same; the tests and
//! `benches/modern-sites.sh` run it on sites whose sheets were minified.

use lightningcss::stylesheet::{ParserOptions, PrinterOptions, StyleSheet};
use lightningcss::targets::{Browsers, Features, Targets};

/// Why a sheet is left as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kept {
    /// lightningcss cannot parse it whole (the message says where).
    Unparsed(String),
    /// Not ASCII, and not declared UTF-8.
    Charset(String),
    /// Minified again, the text changed: the printer's output is not a fixed point.
    NotStable,
}

impl std::fmt::Display for Kept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Kept::Unparsed(why) => write!(f, "lightningcss cannot parse it whole: {why}"),
            Kept::Charset(why) => f.write_str(why),
            Kept::NotStable => f.write_str("minifying the minified sheet changed it again"),
        }
    }
}

/// The oldest version of every engine lightningcss knows (versions are `major << 16`).
fn oldest_browsers() -> Targets {
    let v = |major: u32, minor: u32| Some(major << 16 | minor << 8);
    Targets {
        browsers: Some(Browsers {
            android: v(2, 1),
            chrome: v(4, 0),
            edge: v(12, 0),
            firefox: v(2, 0),
            ie: v(6, 0),
            ios_saf: v(3, 2),
            opera: v(9, 0),
            safari: v(3, 1),
            samsung: v(4, 0),
        }),
        include: Features::empty(),
        exclude: Features::VendorPrefixes,
    }
}

/// Parses `css` and prints it without whitespace or comments, each value in its shortest form
/// for [`oldest_browsers`]. lightningcss's `minify` step (which merges rules and removes
/// declarations a later one overrides) is not run: it drops fallbacks whatever the targets
/// (`color: red; color: rgba(…)` lost its `red`, which IE 8 needs).
fn minify_text(css: &str) -> Result<String, String> {
    let targets = oldest_browsers();
    let sheet = StyleSheet::parse(css, ParserOptions::default()).map_err(|e| e.to_string())?;
    let out = sheet
        .to_css(PrinterOptions {
            minify: true,
            targets,
            ..PrinterOptions::default()
        })
        .map_err(|e| e.to_string())?;
    Ok(out.code)
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The `@charset` rule a sheet starts with, exactly as written, if any.
fn charset_rule(text: &str) -> Option<&str> {
    let rest = text.strip_prefix("@charset \"")?;
    let end = rest.find("\";")?;
    Some(&text[.."@charset \"".len() + end + 2])
}

/// The minified sheet, or why it is left as it is. The caller keeps it only when smaller.
pub fn minify_sheet(bytes: &[u8]) -> Result<Vec<u8>, Kept> {
    let (bom, body) = match bytes.strip_prefix(BOM) {
        Some(rest) => (true, rest),
        None => (false, bytes),
    };
    let text = std::str::from_utf8(body)
        .map_err(|_| Kept::Charset("not UTF-8: its charset is the page's, unknown here".into()))?;
    let charset = charset_rule(text);
    let declared_utf8 = bom || charset.is_some_and(|c| c.to_ascii_lowercase().contains("utf-8"));
    if !text.is_ascii() && !declared_utf8 {
        return Err(Kept::Charset(
            "not ASCII, and not declared UTF-8 (no byte order mark, no @charset)".into(),
        ));
    }
    let minified = minify_text(text).map_err(Kept::Unparsed)?;
    if minify_text(&minified).map_err(Kept::Unparsed)? != minified {
        return Err(Kept::NotStable);
    }
    let mut out = Vec::with_capacity(minified.len() + 32);
    if bom {
        out.extend_from_slice(BOM);
    }
    if let Some(rule) = charset {
        // lightningcss drops `@charset`; the browser reads it only as the first bytes.
        out.extend_from_slice(rule.as_bytes());
    }
    out.extend_from_slice(minified.as_bytes());
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn min(css: &str) -> String {
        String::from_utf8(minify_sheet(css.as_bytes()).unwrap()).unwrap()
    }

    #[test]
    fn whitespace_and_comments_go_and_the_rules_stay() {
        let css = "/* site */\nbody {\n  color: #FF0000;\n  margin: 0px 0px 0px 0px;\n}\n\n\
                   a:hover { text-decoration: underline }\n";
        let out = min(css);
        assert!(out.len() * 3 < css.len() * 2, "{out}");
        assert!(out.contains("body{") && out.contains("a:hover{"), "{out}");
        assert!(!out.contains("site"), "{out}");
    }

    #[test]
    fn no_fallback_and_no_vendor_prefix_is_dropped() {
        for (css, needles) in [
            (
                "a { color: red; color: rgba(0, 0, 0, 0.5) }",
                &["red", "rgba("][..],
            ),
            (
                ".b { display: -webkit-box; display: -ms-flexbox; display: flex }",
                &["-webkit-box", "-ms-flexbox", "flex"][..],
            ),
            (
                ".c { -webkit-border-radius: 3px; -moz-border-radius: 3px; border-radius: 3px }",
                &[
                    "-webkit-border-radius",
                    "-moz-border-radius",
                    ";border-radius",
                ][..],
            ),
            (
                ".d { background: #fff; background: linear-gradient(#fff, #000) }",
                &["#fff;", "linear-gradient"][..],
            ),
            (
                ".e { width: 90%; width: calc(100% - 10px) }",
                &["90%", "calc("][..],
            ),
        ] {
            let out = min(css);
            for needle in needles {
                assert!(out.contains(needle), "{css} → {out}: lost {needle}");
            }
        }
    }

    #[test]
    fn nothing_old_browsers_cannot_read_is_printed() {
        let out = min(
            "a { color: rgba(255, 0, 0, 0.5) } @media (max-width: 600px) { a { color: blue } }",
        );
        assert!(!out.contains("#ff000080"), "{out}");
        assert!(out.contains("max-width"), "{out}");
    }

    #[test]
    fn hacks_and_broken_sheets_are_left_as_they_are() {
        for css in ["a { *zoom: 1 }", "a { color: ; }}} {"] {
            assert!(
                matches!(minify_sheet(css.as_bytes()), Err(Kept::Unparsed(_))),
                "{css}"
            );
        }
    }

    #[test]
    fn a_utf8_sheet_keeps_its_declaration_and_an_undeclared_one_is_left_alone() {
        let declared = "@charset \"UTF-8\";\na::before { content: \"→ \" }\n";
        let out = min(declared);
        assert!(out.starts_with("@charset \"UTF-8\";"), "{out}");
        assert!(out.contains('→'), "{out}");
        let bom = [BOM, "a::before { content: \"é\" }".as_bytes()].concat();
        assert!(minify_sheet(&bom).unwrap().starts_with(BOM));
        assert!(matches!(
            minify_sheet("a::before { content: \"é\" }".as_bytes()),
            Err(Kept::Charset(_))
        ));
        assert!(matches!(
            minify_sheet(b"a::before { content: \"\xe9\" }"),
            Err(Kept::Charset(_))
        ));
    }
}
