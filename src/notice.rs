//! Which comments carry a notice that a minifier must ship unchanged: licences require their
//! notice to travel with the code ("do not alter or remove"), and README promises that a
//! licence comment is never removed. One rule for style sheets and scripts alike (issue 41).
//!
//! A comment carries a notice when its text (what lies between `/*` and `*/`, or after `//`):
//! - starts with `!` (`/*! … */`, the convention minifiers keep);
//! - names `@license` or `@preserve` (the JSDoc and Closure tags for it);
//! - names a copyright: `copyright`, `(c)` or `©`, or says `all rights reserved`;
//! - names a licence: any word starting with `licen` (`license`, `licence`, `licensed`,
//!   `licensing`, `@license` too);
//! - holds an SPDX tag (`spdx`, as in `SPDX-License-Identifier:`).
//!
//! Letters are compared without regard to ASCII case. The rule errs on the side of keeping: a
//! comment that merely mentions a licence stays too, which costs its bytes and nothing else.
//! Where a comment stands is not this module's concern: a file's leading comments (every comment
//! before its first token) are kept too, by the minifiers themselves.

/// Whether a comment whose text (without its delimiters) is `comment_text` carries a notice
/// (see the module's documentation for the rule).
pub fn is_notice(comment_text: &str) -> bool {
    if comment_text.starts_with('!') || comment_text.contains('©') {
        return true;
    }
    let lower = comment_text.to_ascii_lowercase();
    [
        "@preserve",
        "copyright",
        "(c)",
        "all rights reserved",
        "licen",
        "spdx",
    ]
    .iter()
    .any(|word| lower.contains(word))
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
