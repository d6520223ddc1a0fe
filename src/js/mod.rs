//! Whitespace and comment removal for the site's own scripts, proven by a real JavaScript
//! parser (oxc, in `oxc.rs`): a script ships minified only where the parser reads the copy as
//! the same program, token for token, and otherwise keeps its bytes. Renaming or rewriting code
//! is out of scope.
//!
//! How: oxc parses the script, and its own lexer's tokens say where every token is, so a `/`
//! is a division or a regular expression as the parser decided it in context (after `yield`,
//! `await`, `of`, `let` or `async` used as names, after `t.for(…)`, after a template's `${`,
//! after `default`, `extends`, `for await (…)` or `}`), never by guessing from the token before.
//! The output is those tokens, each copied byte for byte (strings, templates, regular
//! expressions, numbers as written), with what lay between two of them reduced to nothing, to
//! one space where they would otherwise merge (`a + +b`, `1 .x`, `/re/ in o`), or to one line
//! break where the original had one (automatic semicolon insertion and the `return`/`++`/`=>`
//! rules read them). Comments go, except those `notice.rs` keeps byte for byte: notices (`/*!`,
//! `@license`, `@preserve`, a copyright, a licence, an SPDX line), the file's leading comments,
//! JScript's `/*@…@*/` and `//@…`, and `//#` source-map lines.
//!
//! A script is parsed as a classic script (Script goal) and as a module: a page may load it
//! either way. It is minified if either parse succeeds; where both do, their tokens must be the
//! same, and the copy must prove itself under both. The proof, per goal: the copy parses without
//! a single diagnostic, its syntax tree equals the original's with positions ignored (oxc's
//! `ContentEq`), its tokens are the original's, text and line break before each, and its
//! comments are exactly the kept ones. Anything else keeps the script's bytes ([`Kept`]).
//!
//! Also kept as they are: a script that is not UTF-8 (its charset is the page's), one whose
//! comments name `@cc_on` (JScript's conditional compilation, whose comments are code to Internet
//! Explorer), and one with an HTML-like comment (`<!--`, `-->`: comments in a script, operators in
//! a module). Non-ASCII white space between tokens (U+00A0, U+FEFF, U+2028…) stays where it is,
//! as does a comment holding a line separator: read in the page's legacy charset those bytes
//! are other characters. The render check runs the scripts (`webdiet verify`, on virtual time).
//! Not preserved: the text `Function.prototype.toString` returns (a function's source, now
//! without its comments), which scripts almost never read.

mod notice;
mod oxc;

pub use notice::{is_notice, keep, Keep};

use oxc::{Arena, Comment, Goal, Parsed, Token};

/// Why a script is left as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kept {
    /// Not UTF-8: its charset is the page's, unknown here.
    NotUtf8,
    /// oxc cannot parse it as a script nor as a module: why, for each.
    Unparsed { script: String, module: String },
    /// A comment of it names `@cc_on`: Internet Explorer then reads `/*@…@*/` comments as
    /// code, which no parser of today's JavaScript sees.
    ConditionalCompilation,
    /// An HTML-like comment (`<!--` or `-->`) at this byte.
    HtmlComment(usize),
    /// oxc reads it as a script and as a module, in different tokens (`await / 2 /` divides in
    /// a script and is a regular expression in a module): no one copy is proven both ways.
    Goals,
    /// The copy did not prove itself (never expected): what differed.
    Changed(String),
}

impl std::fmt::Display for Kept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Kept::NotUtf8 => f.write_str("not UTF-8: its charset is the page's"),
            Kept::Unparsed { script, module } => write!(
                f,
                "oxc cannot parse it: as a script, {script}; as a module, {module}"
            ),
            Kept::ConditionalCompilation => f.write_str(
                "a comment names @cc_on: Internet Explorer reads its /*@ comments as code",
            ),
            Kept::HtmlComment(at) => write!(
                f,
                "an HTML-like comment at byte {at} (a comment in a script, operators in a module)"
            ),
            Kept::Goals => f.write_str(
                "its tokens differ when read as a script and as a module (`await` used as a name)",
            ),
            Kept::Changed(what) => write!(f, "the minified script is not the same: {what}"),
        }
    }
}

/// The script's bytes without what it does not need, or why it is left as it is. A byte order
/// mark stays.
pub fn minify_script(bytes: &[u8]) -> Result<Vec<u8>, Kept> {
    let (bom, body) = match bytes.strip_prefix(b"\xEF\xBB\xBF") {
        Some(rest) => (&b"\xEF\xBB\xBF"[..], rest),
        None => (&b""[..], bytes),
    };
    let text = std::str::from_utf8(body).map_err(|_| Kept::NotUtf8)?;
    Ok([bom, minify(text)?.as_bytes()].concat())
}

/// The script without what it does not need, proven by oxc, or why it is left as it is. One
/// goal at a time, so that no more than two syntax trees (the original's and the copy's) are
/// in memory at once.
pub fn minify(src: &str) -> Result<String, Kept> {
    let mut copy: Option<Minified<'_>> = None;
    let mut unparsed = Vec::new();
    for goal in [Goal::Script, Goal::Module] {
        let arena = Arena::default();
        let before = match oxc::parse(&arena, src, goal) {
            Ok(parsed) => parsed,
            Err(why) => {
                unparsed.push(why);
                continue;
            }
        };
        let made = match copy.take() {
            None => Minified::of(src, &before)?,
            Some(made) if made.read_alike(&before) => made,
            Some(_) => return Err(Kept::Goals),
        };
        prove(src, &before, &made.out, goal, &made.kept)?;
        copy = Some(made);
    }
    match copy {
        Some(made) => Ok(made.out),
        None => Err(Kept::Unparsed {
            script: unparsed.first().cloned().unwrap_or_default(),
            module: unparsed.last().cloned().unwrap_or_default(),
        }),
    }
}

/// The minified copy, as written from the first goal's parse.
struct Minified<'src> {
    out: String,
    /// The kept comments, in order.
    kept: Vec<&'src str>,
    /// The tokens it was written from: another goal must read the same ones.
    spans: Vec<(usize, usize)>,
}

impl<'src> Minified<'src> {
    fn of(src: &'src str, parsed: &Parsed<'_>) -> Result<Minified<'src>, Kept> {
        let pieces = pieces(src, parsed)?;
        Ok(Minified {
            out: write(src, &pieces),
            kept: pieces
                .iter()
                .filter(|p| p.kind == PieceKind::Comment)
                .map(|p| &src[p.start..p.end])
                .collect(),
            spans: parsed.tokens().map(|t| (t.start, t.end)).collect(),
        })
    }

    /// Whether another goal's parse has the tokens this copy was written from.
    fn read_alike(&self, parsed: &Parsed<'_>) -> bool {
        let spans = parsed.tokens().map(|t| (t.start, t.end));
        spans.eq(self.spans.iter().copied())
    }
}

/// What the output is made of: tokens, kept comments, the hashbang line and non-ASCII white
/// space, each a byte range of the source copied as it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Piece {
    start: usize,
    end: usize,
    kind: PieceKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PieceKind {
    Token {
        regex: bool,
    },
    Comment,
    Hashbang,
    /// Non-ASCII white space or a line separator between tokens (U+00A0, U+FEFF, U+2028…):
    /// read in a legacy charset these bytes are other characters, so they stay.
    Space,
}

/// The pieces of `src` in order, after checking that everything between them is ASCII white
/// space and dropped comments. A comment holding a line separator (U+2028, U+2029) is kept: in
/// a legacy charset it holds no line break.
fn pieces(src: &str, parsed: &Parsed<'_>) -> Result<Vec<Piece>, Kept> {
    let first_token = parsed.tokens().next().map_or(src.len(), |t| t.start);
    let piece = |start, end, kind| Piece { start, end, kind };
    let mut pieces: Vec<Piece> = parsed
        .tokens()
        .map(|t| piece(t.start, t.end, PieceKind::Token { regex: t.regex }))
        .collect();
    pieces.extend(
        parsed
            .hashbang()
            .map(|h| piece(h.start, h.end, PieceKind::Hashbang)),
    );
    let mut dropped = Vec::new();
    for c in parsed.comments() {
        let text = &src[c.start..c.end];
        if !(text.starts_with("//") || text.starts_with("/*")) {
            return Err(Kept::HtmlComment(c.start));
        }
        if text.contains("@cc_on") {
            return Err(Kept::ConditionalCompilation);
        }
        let separator = text.contains(['\u{2028}', '\u{2029}']);
        match keep(text, c.end <= first_token).is_some() || separator {
            true => pieces.push(piece(c.start, c.end, PieceKind::Comment)),
            false => dropped.push(c),
        }
    }
    pieces.sort_by_key(|p| p.start);
    let spaces = odd_white_space(src, &pieces, &dropped)?;
    pieces.extend(
        spaces
            .into_iter()
            .map(|(start, end)| piece(start, end, PieceKind::Space)),
    );
    pieces.sort_by_key(|p| p.start);
    Ok(pieces)
}

/// The non-ASCII white space between the pieces, after checking that the rest of what lies
/// between them is ASCII white space and the `dropped` comments (in order): then the output
/// differs from the source by these alone.
fn odd_white_space(
    src: &str,
    pieces: &[Piece],
    dropped: &[Comment],
) -> Result<Vec<(usize, usize)>, Kept> {
    let mut odd = Vec::new();
    let mut dropped = dropped.iter().peekable();
    let mut at = 0;
    let ends = pieces.iter().map(|p| (p.start, p.end));
    for (start, end) in ends.chain([(src.len(), src.len())]) {
        while at < start {
            if let Some(c) = dropped.next_if(|c| c.start == at) {
                at = c.end;
                continue;
            }
            let ch = src[at..].chars().next().unwrap_or(' ');
            let next = at + ch.len_utf8();
            if !ch.is_ascii() && (ch.is_whitespace() || ch == '\u{FEFF}') {
                odd.push((at, next));
            } else if !matches!(ch, ' ' | '\t' | '\n' | '\r' | '\u{0B}' | '\u{0C}') {
                return Err(Kept::Changed(format!(
                    "byte {at} ({ch:?}) is in no token and no comment of oxc's"
                )));
            }
            at = next;
        }
        at = at.max(end);
    }
    Ok(odd)
}

/// The pieces joined: a line break where the original had one between them (in white space or
/// inside a dropped comment), a space where the original had some and one side is a kept
/// comment or two tokens would merge, else nothing.
fn write(src: &str, pieces: &[Piece]) -> String {
    let mut out = String::with_capacity(src.len());
    for (i, piece) in pieces.iter().enumerate() {
        if let Some(prev) = i.checked_sub(1).map(|j| pieces[j]) {
            let gap = &src[prev.end..piece.start];
            if gap.contains(['\n', '\r']) {
                out.push('\n');
            } else if !gap.is_empty() && joined_would_differ(src, prev, *piece) {
                out.push(' ');
            }
        }
        out.push_str(&src[piece.start..piece.end]);
    }
    out
}

/// Whether writing `b` right after `a` could read differently: two name characters (`typeof
/// x`), a regular expression's flags taking in a name (`/re/ in o`), a number taking in a dot
/// (`1 .x`), punctuators that would join or start a comment (`a + +b`, `a / /re/`, `x < !--y`,
/// `a-- > b`, `a ? .5 : b`). A kept comment keeps its space (JScript reads `/*@` ones as code),
/// and so does a non-ASCII character (the page's charset may read it as other characters).
fn joined_would_differ(src: &str, a: Piece, b: Piece) -> bool {
    let (a_text, b_text) = (&src[a.start..a.end], &src[b.start..b.end]);
    let (Some(x), Some(y)) = (a_text.chars().next_back(), b_text.chars().next()) else {
        return true;
    };
    let name = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '\\');
    let number = a_text.starts_with(|c: char| c.is_ascii_digit())
        || (a_text.starts_with('.') && a_text[1..].starts_with(|c: char| c.is_ascii_digit()));
    !matches!(a.kind, PieceKind::Token { .. })
        || !matches!(b.kind, PieceKind::Token { .. })
        || !x.is_ascii()
        || !y.is_ascii()
        || (name(x) && name(y))
        || (a.kind == (PieceKind::Token { regex: true }) && name(y))
        || (number && y == '.')
        || matches!(
            (x, y),
            ('+', '+')
                | ('-', '-')
                | ('/', '/')
                | ('/', '*')
                | ('<', '!')
                | ('-', '>')
                | ('?', '.')
        )
}

/// The copy proves itself under `goal`: it parses, to the same tree, the same tokens (text and
/// line break before each) and exactly the kept comments.
fn prove(src: &str, before: &Parsed<'_>, out: &str, goal: Goal, kept: &[&str]) -> Result<(), Kept> {
    let arena = Arena::default();
    let goal_name = goal.as_str();
    let after = oxc::parse(&arena, out, goal)
        .map_err(|e| Kept::Changed(format!("it does not parse as a {goal_name}: {e}")))?;
    if !before.same_tree(&after) {
        return Err(Kept::Changed(format!(
            "as a {goal_name}, its syntax tree differs"
        )));
    }
    let (old, new) = (before.tokens(), after.tokens());
    if old.len() != new.len() {
        return Err(Kept::Changed(format!(
            "as a {goal_name}, {} tokens became {}",
            old.len(),
            new.len()
        )));
    }
    let differs = |o: &Token, n: &Token| {
        src[o.start..o.end] != out[n.start..n.end] || o.line_before != n.line_before
    };
    if let Some((o, _)) = old.zip(new).find(|(o, n)| differs(o, n)) {
        return Err(Kept::Changed(format!(
            "as a {goal_name}, the token at byte {} differs",
            o.start
        )));
    }
    if !after
        .comments()
        .map(|c| &out[c.start..c.end])
        .eq(kept.iter().copied())
    {
        return Err(Kept::Changed(format!(
            "as a {goal_name}, its comments are not the kept ones"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
