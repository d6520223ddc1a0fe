//! CSS text as a flat list of tokens with their byte spans, for the minifier and its proof
//! (`super::canon`). The tokens are cssparser's: the tokenizer of Firefox's style engine,
//! written to CSS Syntax Level 3, the one lightningcss parses with but not its printer.
//!
//! Blocks (`{…}`, `(…)`, `[…]`, functions) are flattened: the opening token, the block's tokens,
//! then the closing token, the opening one knowing where its block closes. What browsers
//! recover from in different ways is noted as trouble rather than listed: a bad string or URL,
//! a closing bracket nothing opened, a block the text never closes, nesting deeper than
//! [`super::MAX_BLOCK_DEPTH`].

use cssparser::{ParseError, Parser, ParserInput, Token};

/// What a token is; two tokens are the same when their kinds and source texts are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Space,
    Comment,
    Ident,
    AtKeyword,
    Hash,
    String,
    Url,
    Number,
    Percentage,
    Dimension,
    Delim(char),
    Colon,
    Semicolon,
    Comma,
    /// `~=`, `|=`, `^=`, `$=`, `*=`.
    Match,
    Cdo,
    Cdc,
    /// `name(`, which opens a block that `)` closes.
    Function,
    Open(Bracket),
    Close(Bracket),
    BadString,
    BadUrl,
}

/// The three kinds of bracket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bracket {
    Paren,
    Square,
    Curly,
}

impl Kind {
    fn of(token: &Token<'_>) -> Kind {
        match token {
            Token::WhiteSpace(_) => Kind::Space,
            Token::Comment(_) => Kind::Comment,
            Token::Ident(_) => Kind::Ident,
            Token::AtKeyword(_) => Kind::AtKeyword,
            Token::Hash(_) | Token::IDHash(_) => Kind::Hash,
            Token::QuotedString(_) => Kind::String,
            Token::UnquotedUrl(_) => Kind::Url,
            Token::Number { .. } => Kind::Number,
            Token::Percentage { .. } => Kind::Percentage,
            Token::Dimension { .. } => Kind::Dimension,
            Token::Delim(c) => Kind::Delim(*c),
            Token::Colon => Kind::Colon,
            Token::Semicolon => Kind::Semicolon,
            Token::Comma => Kind::Comma,
            Token::IncludeMatch
            | Token::DashMatch
            | Token::PrefixMatch
            | Token::SuffixMatch
            | Token::SubstringMatch => Kind::Match,
            Token::CDO => Kind::Cdo,
            Token::CDC => Kind::Cdc,
            Token::Function(_) => Kind::Function,
            Token::ParenthesisBlock => Kind::Open(Bracket::Paren),
            Token::SquareBracketBlock => Kind::Open(Bracket::Square),
            Token::CurlyBracketBlock => Kind::Open(Bracket::Curly),
            Token::CloseParenthesis => Kind::Close(Bracket::Paren),
            Token::CloseSquareBracket => Kind::Close(Bracket::Square),
            Token::CloseCurlyBracket => Kind::Close(Bracket::Curly),
            Token::BadString(_) => Kind::BadString,
            Token::BadUrl(_) => Kind::BadUrl,
        }
    }

    /// Whether the token opens a block.
    pub fn opens(self) -> bool {
        matches!(self, Kind::Function | Kind::Open(_))
    }

    /// Whether the token is white space or a comment: what lies between tokens.
    pub fn is_gap(self) -> bool {
        matches!(self, Kind::Space | Kind::Comment)
    }
}

/// One token and where it is in the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tok {
    pub kind: Kind,
    pub start: usize,
    pub end: usize,
}

/// A text's tokens, flattened.
#[derive(Debug, Default)]
pub struct Flat {
    pub toks: Vec<Tok>,
    /// For a token that opens a block, the index of the token that closes it (itself when the
    /// text never closes it); for the others, their own index.
    pub close: Vec<usize>,
    /// The first thing browsers recover from differently, and the byte it starts at.
    pub trouble: Option<(usize, &'static str)>,
}

impl Flat {
    fn push(&mut self, kind: Kind, start: usize, end: usize) -> usize {
        self.toks.push(Tok { kind, start, end });
        self.close.push(self.toks.len() - 1);
        self.toks.len() - 1
    }

    fn trouble(&mut self, at: usize, what: &'static str) {
        self.trouble.get_or_insert((at, what));
    }
}

/// Every token of `css`, in order.
pub fn tokenize(css: &str) -> Flat {
    let mut input = ParserInput::new(css);
    let mut parser = Parser::new(&mut input);
    let mut flat = Flat::default();
    walk(&mut parser, &mut flat, 0);
    flat
}

fn walk(parser: &mut Parser<'_, '_>, flat: &mut Flat, depth: usize) {
    loop {
        let start = parser.position().byte_index();
        let kind = match parser.next_including_whitespace_and_comments() {
            Ok(token) => Kind::of(token),
            Err(_) => return,
        };
        let at = flat.push(kind, start, parser.position().byte_index());
        match kind {
            Kind::BadString => flat.trouble(start, "a string broken by a line break"),
            Kind::BadUrl => flat.trouble(start, "a url( that is not a valid URL token"),
            Kind::Close(_) => flat.trouble(start, "a closing bracket that nothing opened"),
            _ if kind.opens() && depth >= super::MAX_BLOCK_DEPTH => {
                flat.trouble(start, "blocks nested too deep");
            }
            _ if kind.opens() => block(parser, flat, at, depth),
            _ => {}
        }
    }
}

/// Lists the block token `at` opened, and the token that closes it.
fn block(parser: &mut Parser<'_, '_>, flat: &mut Flat, at: usize, depth: usize) {
    let _ = parser.parse_nested_block(|inner| -> Result<(), ParseError<'_, ()>> {
        walk(inner, flat, depth + 1);
        Ok(())
    });
    let inner_end = flat.toks.last().map_or(0, |t| t.end);
    let after = parser.position().byte_index();
    if after > inner_end {
        let bracket = match flat.toks[at].kind {
            Kind::Open(b) => b,
            _ => Bracket::Paren,
        };
        let end = flat.push(Kind::Close(bracket), after - 1, after);
        flat.close[at] = end;
    } else {
        flat.trouble(flat.toks[at].start, "a block the sheet never closes");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(css: &str) -> Vec<Kind> {
        tokenize(css).toks.iter().map(|t| t.kind).collect()
    }

    #[test]
    fn blocks_are_flattened_and_know_where_they_close() {
        let css = "a{b:c(d)}";
        let flat = tokenize(css);
        assert_eq!(
            kinds(css),
            [
                Kind::Ident,
                Kind::Open(Bracket::Curly),
                Kind::Ident,
                Kind::Colon,
                Kind::Function,
                Kind::Ident,
                Kind::Close(Bracket::Paren),
                Kind::Close(Bracket::Curly),
            ]
        );
        assert_eq!(flat.close[1], 7);
        assert_eq!(flat.close[4], 6);
        assert_eq!(&css[flat.toks[4].start..flat.toks[4].end], "c(");
        assert!(flat.trouble.is_none());
    }

    #[test]
    fn white_space_and_comments_are_tokens_too() {
        assert_eq!(
            kinds("a /* x */b"),
            [Kind::Ident, Kind::Space, Kind::Comment, Kind::Ident]
        );
    }

    #[test]
    fn what_browsers_recover_from_differently_is_trouble() {
        for (css, what) in [
            ("a{content:\"x\n\"}", "broken"),
            ("a{}}", "nothing opened"),
            ("a{color:red", "never closes"),
            ("a{b:url(x y)}", "url("),
            (&"(".repeat(100), "too deep"),
        ] {
            let trouble = tokenize(css).trouble;
            assert!(trouble.is_some_and(|(_, t)| t.contains(what)), "{css}");
        }
    }
}
