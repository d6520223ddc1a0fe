//! The canonical form of a style sheet: its tokens, with the white space and comments no
//! browser reads taken out. The minifier writes a sheet's canonical form out
//! (`super::minify`); the proof (`super::proof`) tokenizes what was written again and requires
//! the same canonical form. Everything here is decided from the tokens alone, so a sheet and
//! its minified text, which have the same tokens, are read the same way.
//!
//! # What goes
//!
//! Only three things, each meaning nothing to any browser since CSS1:
//! 1. **White space where no grammar reads it** (the table below). Where it may be read, a run
//!    of white space stays as one space: a space, tab or line break are the same token.
//! 2. **Comments**, except: every comment that carries a notice (`crate::notice`); the file's
//!    leading comments (all before its first token); a comment with no white space on either
//!    side, which may be a hack's marker (`html>/**/body`, `width/**/:`) and whose removal
//!    could join two tokens; and every comment of a sheet holding a comment hack that old
//!    browsers read as a different comment boundary (text ending in `\`, IE 5 for Mac's
//!    `/*\*/`, or starting with `/`, Netscape 4's `/*/*/`).
//! 3. **The `;`s that end a declaration block** (`a{color:red;}` → `a{color:red}`): CSS1's
//!    grammar already allows an empty declaration. Not after an escape (`a{color:red\9;}`),
//!    whose gap stays as it is, nor after a custom property, whose text runs to its `;`.
//!
//! Every other token stays, byte for byte: escapes, digits, letter case, hacks, vendor syntax.
//!
//! # Where white space is read
//!
//! Dropped (before/after):
//! - between rules and declarations, at the start and end of a block, of a selector, of a
//!   declaration's value, around a declaration's `:` and before its `!important`;
//! - in a selector (outside its brackets and functions): around `,` and the combinators `>`,
//!   `+`, `~` (a space anywhere else is the descendant combinator, and stays);
//! - in a value: around `,` and `/`, after `(` and before `)` (a space between two values
//!   separates them: `0 auto`);
//! - in the prelude of `@media`, `@supports`, `@font-face`, `@page` and `@keyframes`: before
//!   its block, around `,`, and inside its parentheses after `(`, before `)` and around `:`
//!   (`and (` keeps its space: `and(` would be a function).
//!
//! Kept as one space: every other place. And kept even where dropped above: after
//! `:first-letter` and `:first-line` (Internet Explorer 6 ignores the rule without it), and
//! after `<!--`/`-->`.
//!
//! Kept byte for byte, white space and comments too: the gap after a token other than a
//! string that holds a backslash escape (`\9`, `\0screen`: old IE's escapes; and a space
//! written after `\9` would be read as part of the escape); at-rules other than the five above
//! (unknown ones, `@import`, `@charset`, `@namespace`, `@-ms-viewport`, `@-moz-document`…),
//! custom properties (`--name: …`, whose value is its text), and `expression(…)` (JavaScript,
//! where a line break can matter). A gap before a first `@charset` stays too: taking it away
//! would make the rule declare the sheet's encoding.

use super::tokens::{self, Bracket, Flat, Kind, Tok};
use crate::notice::is_notice;

/// One piece of the canonical form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum What<'a> {
    /// A token, by its kind and exact source text.
    Token(Kind, &'a str),
    /// White space that is read, whatever it was.
    Space,
    /// A comment that stays, `/*` and `*/` included.
    Comment(&'a str),
    /// White space or a comment inside a region kept byte for byte.
    Raw(&'a str),
}

/// A piece and the byte of the text it starts at.
#[derive(Debug, Clone, Copy)]
pub struct Piece<'a> {
    pub what: What<'a>,
    pub at: usize,
}

/// How a gap (a run of white space and comments) between two tokens is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Gap {
    /// Its white space is not read: only the comments that stay.
    Drop,
    /// The file's leading gap: every comment stays.
    Lead,
    /// Its white space is read: one space if it has any, and the comments that stay.
    Keep,
    /// Byte for byte.
    Raw,
}

/// The canonical form of `css`, or why it has none: something browsers recover from
/// differently, at line:column.
pub fn of(css: &str) -> Result<Vec<Piece<'_>>, String> {
    let flat = tokens::tokenize(css);
    if let Some((at, what)) = flat.trouble {
        let (line, col) = line_col(css, at);
        return Err(format!("{what}, at {line}:{col}"));
    }
    let keep_comments = flat.toks.iter().any(|t| {
        t.kind == Kind::Comment && {
            let inner = comment_text(&css[t.start..t.end]);
            inner.ends_with('\\') || inner.starts_with('/')
        }
    });
    let mut walk = Walk {
        css,
        flat: &flat,
        keep_comments,
        out: Vec::with_capacity(flat.toks.len()),
    };
    walk.sheet();
    Ok(walk.out)
}

/// Line and column (1-based, columns in characters) of byte `at` in `text`.
pub fn line_col(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

/// A comment's text without its delimiters (an unterminated one has no `*/`).
fn comment_text(comment: &str) -> &str {
    let body = comment.strip_prefix("/*").unwrap_or(comment);
    body.strip_suffix("*/").unwrap_or(body)
}

/// Decides, for one gap, how it is written: from the token before it and the token after it
/// (`None` at the start or end of the run being walked).
type Rule = fn(&Walk<'_, '_>, Option<usize>, Option<usize>) -> Gap;

/// Walks a block's contents: writes its opening token, what is inside, its closing token.
type Inner = fn(&mut Walk<'_, '_>, usize);

struct Walk<'a, 'f> {
    css: &'a str,
    flat: &'f Flat,
    keep_comments: bool,
    out: Vec<Piece<'a>>,
}

/// How an at-rule is read.
enum AtRule {
    /// A block of rules: `@media`, `@supports`, `@keyframes` (whose rules are keyframes).
    Rules,
    /// A block of declarations: `@font-face`, `@page`.
    Declarations,
    /// Byte for byte: every other at-rule.
    Verbatim,
}

impl<'a> Walk<'a, '_> {
    fn tok(&self, i: usize) -> Tok {
        self.flat.toks[i]
    }

    fn kind(&self, i: usize) -> Kind {
        self.flat.toks[i].kind
    }

    fn text(&self, i: usize) -> &'a str {
        let t = self.flat.toks[i];
        &self.css[t.start..t.end]
    }

    fn close(&self, i: usize) -> usize {
        self.flat.close[i]
    }

    /// Writes token `i` as it is.
    fn token(&mut self, i: usize) {
        let what = What::Token(self.kind(i), self.text(i));
        self.out.push(Piece {
            what,
            at: self.tok(i).start,
        });
    }

    /// Writes tokens `from..to` byte for byte, gaps included.
    fn raw(&mut self, from: usize, to: usize) {
        for i in from..to {
            match self.kind(i) {
                k if k.is_gap() => self.out.push(Piece {
                    what: What::Raw(self.text(i)),
                    at: self.tok(i).start,
                }),
                _ => self.token(i),
            }
        }
    }

    /// The first token at or after `i` (before `to`) that is not white space or a comment.
    fn skip_gap(&self, mut i: usize, to: usize) -> usize {
        while i < to && self.kind(i).is_gap() {
            i += 1;
        }
        i
    }

    /// The first token of `from..to` at this block level for which `hit` holds, or `to`.
    fn find(&self, from: usize, to: usize, hit: impl Fn(Kind) -> bool) -> usize {
        let mut i = from;
        while i < to {
            if hit(self.kind(i)) {
                return i;
            }
            i = self.close(i) + 1;
        }
        to
    }

    /// Writes the gap starting at `i` as `how` says; returns the index after it.
    fn gap(&mut self, from: usize, to: usize, how: Gap) -> usize {
        let end = self.skip_gap(from, to);
        if end == from {
            return end;
        }
        if how == Gap::Raw {
            self.raw(from, end);
            return end;
        }
        let spaced = (from..end).any(|i| self.kind(i) == Kind::Space);
        if how == Gap::Keep && spaced {
            let at = self.tok(from).start;
            self.out.push(Piece {
                what: What::Space,
                at,
            });
        }
        let every_comment = !spaced || self.keep_comments || how == Gap::Lead;
        for i in from..end {
            let text = self.text(i);
            if self.kind(i) == Kind::Comment && (every_comment || is_notice(comment_text(text))) {
                self.out.push(Piece {
                    what: What::Comment(text),
                    at: self.tok(i).start,
                });
            }
        }
        end
    }

    /// Walks `from..to` at one block level: each token, each nested block through `inner`,
    /// each gap as `rule` says.
    fn run(&mut self, from: usize, to: usize, rule: Rule, inner: Inner) {
        let mut prev = None;
        let mut i = from;
        loop {
            let next = self.skip_gap(i, to);
            let how = match prev.is_some_and(|p| self.escaped(p)) {
                true => Gap::Raw,
                false => rule(self, prev, (next < to).then_some(next)),
            };
            self.gap(i, to, how);
            if next >= to {
                return;
            }
            if self.kind(next).opens() {
                inner(self, next);
            } else {
                self.token(next);
            }
            prev = Some(self.close(next));
            i = self.close(next) + 1;
        }
    }

    /// Whether token `i` holds a backslash escape outside a string: the gap after it stays
    /// byte for byte (old IE's escapes; and a space written after `\9` would be the escape's).
    fn escaped(&self, i: usize) -> bool {
        !matches!(self.kind(i), Kind::String | Kind::Url) && self.text(i).contains('\\')
    }

    fn is(&self, i: Option<usize>, kind: Kind) -> bool {
        i.is_some_and(|i| self.kind(i) == kind)
    }

    /// Whether token `i` is an ident named `name` (ASCII case-insensitive, no escapes).
    fn named(&self, i: usize, name: &str) -> bool {
        self.kind(i) == Kind::Ident && self.text(i).eq_ignore_ascii_case(name)
    }

    fn sheet(&mut self) {
        let n = self.flat.toks.len();
        let first = self.skip_gap(0, n);
        let charset = first < n && self.text(first).eq_ignore_ascii_case("@charset");
        let lead = if charset { Gap::Raw } else { Gap::Lead };
        let i = self.gap(0, n, lead);
        self.rule_list(i, n);
    }

    /// A list of rules: the sheet, or the block of `@media`, `@supports`, `@keyframes`.
    fn rule_list(&mut self, mut i: usize, to: usize) {
        let mut after_cdx = false;
        loop {
            let how = if after_cdx { Gap::Keep } else { Gap::Drop };
            i = self.gap(i, to, how);
            if i >= to {
                return;
            }
            after_cdx = matches!(self.kind(i), Kind::Cdo | Kind::Cdc);
            i = match self.kind(i) {
                Kind::AtKeyword => self.at_rule(i, to),
                Kind::Cdo | Kind::Cdc => {
                    self.token(i);
                    i + 1
                }
                _ => self.qualified_rule(i, to),
            };
        }
    }

    /// A rule with a selector (a style rule, a keyframe, a nested rule): its prelude up to
    /// `{`, then its block of declarations. Returns the index after it.
    fn qualified_rule(&mut self, i: usize, to: usize) -> usize {
        let brace = self.find(i, to, |k| k == Kind::Open(Bracket::Curly));
        self.run(i, brace, selector_gap, selector_block);
        if brace == to {
            return to;
        }
        let end = self.close(brace);
        self.token(brace);
        self.declaration_list(brace + 1, end);
        self.token(end);
        end + 1
    }

    /// An at-rule starting at token `i`. Returns the index after it.
    fn at_rule(&mut self, i: usize, to: usize) -> usize {
        let stop = self.find(i + 1, to, |k| {
            k == Kind::Semicolon || k == Kind::Open(Bracket::Curly)
        });
        let end = match stop {
            s if s == to => to,
            s if self.kind(s) == Kind::Semicolon => s + 1,
            s => self.close(s) + 1,
        };
        let body = at_rule_kind(&self.text(i)[1..]);
        if matches!(body, AtRule::Verbatim) {
            self.raw(i, end);
            return end;
        }
        self.token(i);
        self.run(i + 1, stop, prelude_gap, prelude_block);
        if stop == to {
            return to;
        }
        self.token(stop);
        if self.kind(stop) == Kind::Semicolon {
            return end;
        }
        let close = self.close(stop);
        match body {
            AtRule::Rules => self.rule_list(stop + 1, close),
            _ => self.declaration_list(stop + 1, close),
        }
        self.token(close);
        end
    }

    /// A block of declarations (which may hold at-rules and nested rules too).
    fn declaration_list(&mut self, mut i: usize, to: usize) {
        // A custom property's text runs to its `;`: without the `;`, it would take in the gap
        // after it.
        let mut custom = false;
        loop {
            i = self.gap(i, to, Gap::Drop);
            if i >= to {
                return;
            }
            let after_custom = std::mem::take(&mut custom);
            match self.kind(i) {
                Kind::Semicolon
                    if !after_custom && !self.after_escape(i) && self.only_semicolons(i, to) =>
                {
                    while i < to {
                        i = match self.kind(i) {
                            Kind::Semicolon => i + 1,
                            _ => self.gap(i, to, Gap::Drop),
                        };
                    }
                    return;
                }
                Kind::Semicolon => {
                    self.token(i);
                    i += 1;
                }
                Kind::AtKeyword => i = self.at_rule(i, to),
                Kind::Ident if self.text(i).starts_with("--") => {
                    let stop = self.find(i, to, |k| k == Kind::Semicolon);
                    self.raw(i, stop);
                    i = stop;
                    custom = true;
                }
                _ => {
                    let stop = self.find(i, to, |k| {
                        k == Kind::Semicolon || k == Kind::Open(Bracket::Curly)
                    });
                    i = match stop < to && self.kind(stop) != Kind::Semicolon {
                        true => self.qualified_rule(i, to),
                        false => {
                            self.declaration(i, stop);
                            stop
                        }
                    };
                }
            }
        }
    }

    /// Whether the token before `i` (white space and comments passed over) holds an escape:
    /// a `;` after it stays, or the gap after the escape would change.
    fn after_escape(&self, i: usize) -> bool {
        (0..i)
            .rev()
            .find(|&j| !self.kind(j).is_gap())
            .is_some_and(|j| self.escaped(j))
    }

    /// Whether only `;`s, white space and comments are left in `i..to`.
    fn only_semicolons(&self, i: usize, to: usize) -> bool {
        (i..to).all(|j| matches!(self.kind(j), Kind::Semicolon | Kind::Space | Kind::Comment))
    }

    /// One declaration, `from..to` (its `;` not included): name, `:`, value, `!important`.
    fn declaration(&mut self, from: usize, to: usize) {
        let colon = self.find(from, to, |k| k == Kind::Colon);
        if colon == to {
            self.run(from, to, name_gap, selector_block);
            return;
        }
        self.run(from, colon, name_gap, selector_block);
        self.token(colon);
        let Some((bang, important)) = self.important(colon + 1, to) else {
            self.run(colon + 1, to, value_gap, value_block);
            return;
        };
        self.run(colon + 1, bang, value_gap, value_block);
        self.token(bang);
        self.gap(bang + 1, important, Gap::Keep);
        self.token(important);
        self.gap(important + 1, to, Gap::Drop);
    }

    /// The `!` and `important` that end the value in `from..to`, if they do.
    fn important(&self, from: usize, to: usize) -> Option<(usize, usize)> {
        let mut last = (from..to).rev().filter(|&i| !self.kind(i).is_gap());
        let important = last.next()?;
        let bang = last.next()?;
        let closes_nothing = self.close(important) == important;
        (closes_nothing
            && self.named(important, "important")
            && self.kind(bang) == Kind::Delim('!'))
        .then_some((bang, important))
    }
}

/// How an at-rule named `name` (without its `@`) is read.
fn at_rule_kind(name: &str) -> AtRule {
    match name.to_ascii_lowercase().as_str() {
        "media" | "supports" => AtRule::Rules,
        "keyframes" | "-webkit-keyframes" | "-moz-keyframes" | "-o-keyframes" | "-ms-keyframes" => {
            AtRule::Rules
        }
        "font-face" | "page" => AtRule::Declarations,
        _ => AtRule::Verbatim,
    }
}

/// In a selector: dropped at its ends and around `,`, `>`, `+`, `~`, but kept after
/// `:first-letter` and `:first-line`.
fn selector_gap(w: &Walk<'_, '_>, prev: Option<usize>, next: Option<usize>) -> Gap {
    let Some(p) = prev else {
        return Gap::Drop;
    };
    let first_letter = p > 0
        && w.kind(p - 1) == Kind::Colon
        && (w.named(p, "first-letter") || w.named(p, "first-line"));
    if first_letter && (next.is_none() || w.is(next, Kind::Comma)) {
        return Gap::Keep;
    }
    let joint = |i: Option<usize>| {
        w.is(i, Kind::Comma)
            || w.is(i, Kind::Delim('>'))
            || w.is(i, Kind::Delim('+'))
            || w.is(i, Kind::Delim('~'))
    };
    match next.is_none() || joint(prev) || joint(next) {
        true => Gap::Drop,
        false => Gap::Keep,
    }
}

/// Inside a selector's brackets and functions (`[a = b]`, `:not(a b)`, `:nth-child(2n + 1)`):
/// every gap is kept.
fn selector_block(w: &mut Walk<'_, '_>, open: usize) {
    let close = w.close(open);
    w.token(open);
    w.run(open + 1, close, |_, _, _| Gap::Keep, selector_block);
    w.token(close);
}

/// In a declaration's name (or in what is not a declaration): dropped at its ends only.
fn name_gap(_: &Walk<'_, '_>, prev: Option<usize>, next: Option<usize>) -> Gap {
    match prev.is_none() || next.is_none() {
        true => Gap::Drop,
        false => Gap::Keep,
    }
}

/// In a value: dropped at its ends, at a block's ends, around `,` and `/`.
fn value_gap(w: &Walk<'_, '_>, prev: Option<usize>, next: Option<usize>) -> Gap {
    let joint = |i| w.is(i, Kind::Comma) || w.is(i, Kind::Delim('/'));
    match prev.is_none() || next.is_none() || joint(prev) || joint(next) {
        true => Gap::Drop,
        false => Gap::Keep,
    }
}

/// A block inside a value: the same rules, but `expression(…)` is JavaScript, kept byte for byte.
fn value_block(w: &mut Walk<'_, '_>, open: usize) {
    let close = w.close(open);
    if w.kind(open) == Kind::Function && w.text(open).eq_ignore_ascii_case("expression(") {
        w.raw(open, close + 1);
        return;
    }
    w.token(open);
    w.run(open + 1, close, value_gap, value_block);
    w.token(close);
}

/// In an at-rule's prelude: kept after the at-keyword, dropped before the block and around
/// `,`.
fn prelude_gap(w: &Walk<'_, '_>, prev: Option<usize>, next: Option<usize>) -> Gap {
    match (prev, next) {
        (None, Some(_)) => Gap::Keep,
        (_, None) => Gap::Drop,
        _ if w.is(prev, Kind::Comma) || w.is(next, Kind::Comma) => Gap::Drop,
        _ => Gap::Keep,
    }
}

/// Inside a prelude's parentheses: dropped at their ends and around `:` and `,`.
fn prelude_block(w: &mut Walk<'_, '_>, open: usize) {
    let close = w.close(open);
    w.token(open);
    w.run(open + 1, close, paren_gap, prelude_block);
    w.token(close);
}

fn paren_gap(w: &Walk<'_, '_>, prev: Option<usize>, next: Option<usize>) -> Gap {
    let joint = |i| w.is(i, Kind::Colon) || w.is(i, Kind::Comma);
    match prev.is_none() || next.is_none() || joint(prev) || joint(next) {
        true => Gap::Drop,
        false => Gap::Keep,
    }
}
