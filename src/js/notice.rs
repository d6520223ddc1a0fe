//! Which comments a minified script keeps, byte for byte: those that carry a notice (licences
//! such as the GPL, MIT and Apache ones require their copyright and permission notice to ship
//! with the code), the file's leading comments (where a project puts its header), and those
//! that are code to some reader (Internet Explorer's JScript conditional compilation, source-map
//! directives for developer tools). The rules read only the comment's text, so the proof and the
//! tests can ask them of any comment.

/// Why a comment is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// A notice: see [`is_notice`].
    Notice,
    /// Before the file's first token: its header.
    Leading,
    /// `/*@…` or `//@…`: once any script on the page ran `@cc_on`, Internet Explorer (10 and
    /// older) reads such comments as code (`/*@cc_on @if (@_jscript) … @end @*/`).
    Conditional,
    /// `//#…` or `/*#…`: `//# sourceMappingURL=…`, `//# sourceURL=…`, read by developer tools.
    Directive,
}

/// Whether, and why, the comment `text` (delimiters included) stays. `leading`: no token comes
/// before it.
pub fn keep(text: &str, leading: bool) -> Option<Keep> {
    let body = text
        .strip_prefix("//")
        .or_else(|| text.strip_prefix("/*"))
        .unwrap_or(text);
    if body.starts_with('@') {
        Some(Keep::Conditional)
    } else if body.starts_with('#') {
        Some(Keep::Directive)
    } else if is_notice(text) {
        Some(Keep::Notice)
    } else if leading {
        Some(Keep::Leading)
    } else {
        None
    }
}

/// Phrases that mark a notice wherever they appear, compared in lower case: copyright marks,
/// licence words (`licen` covers license, licence, licensed, licensing, sublicense, and
/// `SPDX-License-Identifier`), and the standard phrases of the MIT, BSD, Apache and GPL texts.
const NOTICE_PHRASES: [&str; 14] = [
    "@license",
    "@preserve",
    "copyright",
    "copyleft",
    "©",
    "&copy;",
    "licen",
    "spdx",
    "all rights reserved",
    "public domain",
    "warranty",
    "permission is hereby granted",
    "redistribut",
    "creative commons",
];

/// Licence names that mark a notice as whole words only (`mit`, not `submit`), in lower case.
const NOTICE_WORDS: [&str; 13] = [
    "gpl",
    "gplv2",
    "gplv3",
    "lgpl",
    "agpl",
    "mit",
    "bsd",
    "apache",
    "mpl",
    "isc",
    "cc0",
    "wtfpl",
    "unlicense",
];

/// Whether the comment `text` carries a notice: `/*!` or `//!` (the mark minifiers keep), a
/// phrase of `NOTICE_PHRASES`, a word of `NOTICE_WORDS`, or `(c)` not preceded by a name's
/// character (`Copyright (c)`, not `f(c)`). All case-insensitive. A false alarm only keeps a
/// comment; a miss would drop a notice, so the lists lean wide.
pub fn is_notice(text: &str) -> bool {
    if text.starts_with("/*!") || text.starts_with("//!") {
        return true;
    }
    let lower = text.to_lowercase();
    NOTICE_PHRASES.iter().any(|p| lower.contains(p))
        || lower
            .split(|c: char| !c.is_ascii_alphanumeric())
            .any(|word| NOTICE_WORDS.contains(&word))
        || lower.match_indices("(c)").any(|(at, _)| {
            !lower[..at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || matches!(c, '_' | '$'))
        })
}
