//! Which comments carry a notice that a minifier must ship unchanged: licences require their
//! notice to travel with the code ("do not alter or remove"), and README promises that a
//! licence comment is never removed. One rule for style sheets and scripts alike (issue 41).
//!
//! A comment carries a notice when its text (what lies between `/*` and `*/`, or after `//`),
//! compared in lower case:
//! - starts with `!` (`/*! … */`, the convention minifiers keep);
//! - holds a phrase of [`NOTICE_PHRASES`] anywhere: `@license`, `@preserve`, a copyright mark
//!   (`copyright`, `©`, `&copy;`), `licen` (license, licence, licensed, sublicense, and
//!   `SPDX-License-Identifier`), `spdx`, or a standard phrase of the MIT, BSD, Apache and GPL
//!   texts;
//! - holds a licence name of [`NOTICE_WORDS`] as a whole word (`MIT`, not `submit`);
//! - holds `(c)` not right after a name's character (`Copyright (c)`, not `f(c)`).
//!
//! The rule errs on the side of keeping: a comment that merely mentions a licence stays too,
//! which costs its bytes and nothing else; a miss would drop a notice. Where a comment stands is
//! not this module's concern: a file's leading comments (every comment before its first token)
//! are kept too, by the minifiers themselves.

/// Phrases that mark a notice wherever they appear, compared in lower case: copyright marks,
/// licence words (`licen` covers license, licence, licensed, licensing, sublicense, and
/// `SPDX-License-Identifier`), and the standard phrases of the MIT, BSD, Apache and GPL texts.
pub const NOTICE_PHRASES: [&str; 14] = [
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
pub const NOTICE_WORDS: [&str; 13] = [
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

/// Whether a comment whose text, without its delimiters, is `comment_text` carries a notice:
/// it starts with `!` (the mark minifiers keep), or holds a
/// phrase of `NOTICE_PHRASES`, a word of `NOTICE_WORDS`, or `(c)` not preceded by a name's
/// character (`Copyright (c)`, not `f(c)`). All case-insensitive. A false alarm only keeps a
/// comment; a miss would drop a notice, so the lists lean wide.
pub fn is_notice(comment_text: &str) -> bool {
    if comment_text.starts_with('!') {
        return true;
    }
    let lower = comment_text.to_lowercase();
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

#[cfg(test)]
mod tests {
    use super::is_notice;

    #[test]
    fn bang_tagged_copyright_licence_and_spdx_comments_are_notices_in_any_case() {
        for text in [
            "! Bootstrap v3.4.1 ",
            "*\n * @license MIT\n ",
            " @preserve keep me ",
            " Copyright 2013 Twitter, Inc. ",
            " (C) 2006 Someone ",
            " © Acme ",
            " All Rights Reserved. ",
            " Licensed under the Apache License, Version 2.0 ",
            " Released under the MIT licence ",
            " SPDX-License-Identifier: GPL-2.0-or-later ",
            " spdx-filecopyrighttext: 2020 X ",
        ] {
            assert!(is_notice(text), "{text:?}");
        }
    }

    #[test]
    fn ordinary_comments_are_not_notices() {
        for text in [
            " the page font ",
            " ==== Buttons ==== ",
            "",
            " cc: a comment about colours (c = 3) ",
        ] {
            assert!(!is_notice(text), "{text:?}");
        }
    }
}
