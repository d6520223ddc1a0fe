//! Minifies a site's own style sheets so that no browser that can read them reads them
//! differently: `minify_sheet` takes a sheet's bytes and returns the smaller text, or why the
//! sheet is left as it is.
//!
//! What makes it safe:
//! - **A token pass, not a printer.** The sheet is tokenized (cssparser) and written back with
//!   only three things taken out: white space where no grammar reads it, comments that carry
//!   nothing, and the `;` before a declaration block's `}` (`super::canon` has the exact rule).
//!   Every token is written with its own bytes: an escape stays an escape (`"\f000"`, so an
//!   ASCII sheet stays ASCII, read right on a windows-1252 page), a number keeps its digits,
//!   hacks, vendor syntax and fallbacks are tokens like any other, unknown at-rules, custom
//!   properties and `expression()` keep every byte.
//! - **Notices stay.** A comment that carries a notice (`crate::notice`) or leads the file is
//!   written as it was.
//! - **The proof.** The output is tokenized again and must have the input's canonical form,
//!   token for token and byte for byte (`super::proof`); otherwise the sheet keeps its bytes.
//! - **Charsets.** A sheet in ASCII stays ASCII. A sheet with other characters is changed only
//!   when it says it is UTF-8 (a byte order mark or `@charset "utf-8"`), and its byte order
//!   mark and `@charset` rule stay first, as they were; otherwise its bytes could be read in
//!   the page's charset, which webdiet does not know here.
//! - **Refused.** A sheet with something browsers recover from in different ways (a string
//!   broken by a line break, a stray `}`, a block never closed) is left as it is.
//!
//! lightningcss is not used for site sheets: its printer normalises values (numbers, colours,
//! escapes, gradients, selectors), so its output cannot pass the proof, and where it would, it
//! is the token pass's output at best (docs/css.md). [`printed_by_lightningcss`] keeps its
//! print only so that tests and the bench can show that.

use lightningcss::stylesheet::{ParserOptions, PrinterOptions, StyleSheet};
use lightningcss::targets::{Browsers, Features, Targets};

use super::canon::{self, Piece, What};
use super::tokens::{self, Kind};

/// Why a sheet is left as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kept {
    /// Something browsers recover from in different ways (the message says what and where).
    Unparsed(String),
    /// Not ASCII, and not declared UTF-8.
    Charset(String),
    /// The output failed the proof (the message says where): a bug, caught.
    NotProven(String),
}

impl std::fmt::Display for Kept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Kept::Unparsed(why) => f.write_str(why),
            Kept::Charset(why) => f.write_str(why),
            Kept::NotProven(why) => write!(f, "the token proof failed: {why}"),
        }
    }
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
    let declared_utf8 =
        bom || charset_rule(text).is_some_and(|c| c.to_ascii_lowercase().contains("utf-8"));
    if !text.is_ascii() && !declared_utf8 {
        return Err(Kept::Charset(
            "not ASCII, and not declared UTF-8 (no byte order mark, no @charset)".into(),
        ));
    }
    let minified = minify_text(text)?;
    let mut out = Vec::with_capacity(minified.len() + BOM.len());
    if bom {
        out.extend_from_slice(BOM);
    }
    out.extend_from_slice(minified.as_bytes());
    Ok(out)
}

/// `css` minified and proved.
pub fn minify_text(css: &str) -> Result<String, Kept> {
    let before = canon::of(css).map_err(Kept::Unparsed)?;
    let minified = write(&before, css.len());
    super::proof::same(&before, &minified).map_err(Kept::NotProven)?;
    Ok(minified)
}

/// Writes a canonical form out: each piece's bytes, a space for white space that is read, and
/// a space where two tokens that were apart would otherwise run into one (`/` and `*` would
/// open a comment).
fn write(pieces: &[Piece<'_>], capacity: usize) -> String {
    let mut out = String::with_capacity(capacity);
    let mut last: Option<(Kind, &str, usize)> = None;
    for piece in pieces {
        match piece.what {
            What::Token(kind, text) => {
                if let Some((was, before, end)) = last {
                    if end != piece.at && !apart(was, before, text) {
                        out.push(' ');
                    }
                }
                out.push_str(text);
                last = Some((kind, text, piece.at + text.len()));
            }
            What::Space => {
                out.push(' ');
                last = None;
            }
            What::Comment(text) | What::Raw(text) => {
                out.push_str(text);
                last = None;
            }
        }
    }
    out
}

/// Whether `a` written right before `b` still reads as token `a`, ending where it ended (`b`
/// then starts a token of its own, the same as before: a token boundary carries no state).
fn apart(a_kind: Kind, a: &str, b: &str) -> bool {
    let joined = format!("{a}{b}");
    let flat = tokens::tokenize(&joined);
    flat.toks
        .first()
        .is_some_and(|t| t.kind == a_kind && t.end == a.len())
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

/// `css` as lightningcss prints it minified for the oldest browsers it knows, vendor prefixes
/// left as written: what webdiet shipped before the token pass. Not used to minify; kept so
/// that the tests and `benches/package-sheets.sh` can show that its output fails the proof.
pub fn printed_by_lightningcss(css: &str) -> Result<String, String> {
    let sheet = StyleSheet::parse(css, ParserOptions::default()).map_err(|e| e.to_string())?;
    let printed = sheet
        .to_css(PrinterOptions {
            minify: true,
            targets: oldest_browsers(),
            ..PrinterOptions::default()
        })
        .map_err(|e| e.to_string())?;
    Ok(printed.code)
}

#[cfg(test)]
mod tests;
