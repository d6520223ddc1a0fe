//! The CSS module: finds `url()` and `@import` references in style sheets, `<style>` blocks and
//! `style=""` attributes, with their byte spans so a later stage can rewrite them in place.
//!
//! References are found with the CSS tokenizer that lightningcss itself is built on (cssparser),
//! not with regexes: comments, strings that merely contain `url(`, escapes and nested blocks are
//! handled the way a browser's tokenizer handles them.

use cssparser::{Parser, ParserInput, Token};
use serde::Serialize;

pub mod canon;
pub mod minify;
pub mod proof;
pub mod sheet;
pub mod tokens;

/// What kind of CSS reference it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CssRefKind {
    /// `url(...)` anywhere in a value (backgrounds, list images, fonts, cursors).
    Url,
    /// `@import "..."` or `@import url(...)`.
    Import,
}

/// One reference inside CSS text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CssRef {
    pub kind: CssRefKind,
    /// The URL as written, after CSS unescaping.
    pub value: String,
    /// Byte range of the token that holds the URL (`url(a.gif)` or `"a.gif"`) in the input.
    pub span: std::ops::Range<usize>,
}

/// CSS text in ASCII: every other character as an escape (`é` → `\e9 `), which means the
/// same in any context (identifiers, strings, URLs) and in whatever ASCII-compatible encoding
/// a browser decodes the text.
pub fn ascii(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            out.push_str(&format!("\\{:x} ", u32::from(c)));
        }
    }
    out
}

/// Every reference in a piece of CSS, in source order.
pub fn references(css: &str) -> Vec<CssRef> {
    let mut input = ParserInput::new(css);
    let mut parser = Parser::new(&mut input);
    let mut found = Vec::new();
    collect(&mut parser, &mut found, 0);
    found
}

/// Deepest nesting of blocks (`{`, `(`, `[`, functions) searched for references. Real style
/// sheets nest a few levels; the limit keeps a hostile sheet from exhausting the stack.
pub const MAX_BLOCK_DEPTH: usize = 64;

fn collect(parser: &mut Parser<'_, '_>, found: &mut Vec<CssRef>, depth: usize) {
    let mut import_pending = false;
    loop {
        let start = parser.position().byte_index();
        let token = match parser.next_including_whitespace() {
            Ok(token) => token.clone(),
            Err(_) => return,
        };
        match token {
            Token::WhiteSpace(_) => continue,
            Token::AtKeyword(ref name) => {
                import_pending = name.eq_ignore_ascii_case("import");
                continue;
            }
            Token::UnquotedUrl(ref value) => {
                let kind = if import_pending {
                    CssRefKind::Import
                } else {
                    CssRefKind::Url
                };
                found.push(CssRef {
                    kind,
                    value: value.to_string(),
                    span: start..parser.position().byte_index(),
                });
            }
            Token::QuotedString(ref value) if import_pending => found.push(CssRef {
                kind: CssRefKind::Import,
                value: value.to_string(),
                span: start..parser.position().byte_index(),
            }),
            Token::Function(ref name) if name.eq_ignore_ascii_case("url") => {
                let value = parser
                    .parse_nested_block(|inner| -> Result<String, cssparser::ParseError<'_, ()>> {
                        Ok(inner.expect_string()?.to_string())
                    })
                    .ok();
                let kind = if import_pending {
                    CssRefKind::Import
                } else {
                    CssRefKind::Url
                };
                if let Some(value) = value {
                    found.push(CssRef {
                        kind,
                        value,
                        span: start..parser.position().byte_index(),
                    });
                }
            }
            Token::Function(_)
            | Token::ParenthesisBlock
            | Token::SquareBracketBlock
            | Token::CurlyBracketBlock
                if depth < MAX_BLOCK_DEPTH =>
            {
                let _ = parser.parse_nested_block(
                    |inner| -> Result<(), cssparser::ParseError<'_, ()>> {
                        collect(inner, found, depth + 1);
                        Ok(())
                    },
                );
            }
            _ => {}
        }
        import_pending = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(css: &str) -> Vec<(CssRefKind, String)> {
        references(css)
            .into_iter()
            .map(|r| (r.kind, r.value))
            .collect()
    }

    #[test]
    fn finds_quoted_unquoted_and_import_references() {
        let css = r#"@import "base.css"; @import url(print.css) print;
            body { background: url(img/bg.gif) } td { background-image: URL( 'a b.gif' ) }"#;
        assert_eq!(
            values(css),
            vec![
                (CssRefKind::Import, "base.css".to_string()),
                (CssRefKind::Import, "print.css".to_string()),
                (CssRefKind::Url, "img/bg.gif".to_string()),
                (CssRefKind::Url, "a b.gif".to_string()),
            ]
        );
    }

    #[test]
    fn ignores_comments_and_strings_that_only_look_like_urls() {
        let css = r#"/* url(commented.gif) */ p:before { content: "url(fake.gif)" }"#;
        assert!(values(css).is_empty());
    }

    #[test]
    fn finds_references_in_nested_at_rules_and_style_attributes() {
        let css = "@media screen { .x { list-style: url(dot.gif) } }";
        assert_eq!(values(css), vec![(CssRefKind::Url, "dot.gif".to_string())]);
        assert_eq!(
            values("background:url(\"sp\\61 cer.gif\") no-repeat"),
            vec![(CssRefKind::Url, "spacer.gif".to_string())]
        );
    }

    #[test]
    fn spans_cover_the_url_token() {
        let css = "a{background:url(x.gif)}";
        let r = &references(css)[0];
        assert_eq!(&css[r.span.clone()], "url(x.gif)");
    }

    #[test]
    fn ascii_css_escapes_mean_the_same_characters() {
        let css = ascii(".a{background:url(\"caf\u{e9}.gif\");font-family:\u{5b8b}\u{4f53}}");
        assert!(css.is_ascii());
        assert_eq!(
            values(&css),
            [(CssRefKind::Url, "caf\u{e9}.gif".to_string())]
        );
    }

    #[test]
    fn a_million_nested_blocks_do_not_exhaust_the_stack() {
        for open in ["{", "(", "[", "a("] {
            let css = format!("url(top.gif){}url(deep.gif)", open.repeat(1_000_000));
            // References deeper than MAX_BLOCK_DEPTH are not searched; the scan still ends.
            assert_eq!(values(&css), [(CssRefKind::Url, "top.gif".to_string())]);
        }
    }

    #[test]
    fn broken_css_does_not_stop_the_scan() {
        let css = "a { color: ; background: url(ok.gif) } }} { b { background: url(two.gif)";
        assert_eq!(values(css).len(), 2);
    }
}
