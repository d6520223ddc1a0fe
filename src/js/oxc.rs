//! The one module that imports oxc (`oxc_parser`, `oxc_allocator`, `oxc_span`): it parses a
//! script as a browser would, and hands back plain data (its tokens and comments as byte ranges)
//! and a comparison of two parses' syntax trees without their positions. Swapping the parser
//! is this file.

use oxc_allocator::Allocator;
use oxc_parser::config::TokensParserConfig;
use oxc_parser::{Kind, Parser, ParserReturn};
use oxc_span::{ContentEq, SourceType};

/// How a browser reads a script: a classic `<script>` reads it as a Script, `<script
/// type="module">` as a Module (strict, `await` reserved, no HTML-like comments).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Goal {
    Script,
    Module,
}

impl Goal {
    pub fn as_str(self) -> &'static str {
        match self {
            Goal::Script => "script",
            Goal::Module => "module",
        }
    }
}

/// The memory a parse lives in (oxc allocates its syntax tree in an arena).
#[derive(Default)]
pub struct Arena(Allocator);

/// One token of the source, as oxc's lexer read it in the parse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    /// Byte range in the source.
    pub start: usize,
    pub end: usize,
    /// Whether a line terminator (or a comment holding one) comes before it: automatic
    /// semicolon insertion and the restricted productions read this.
    pub line_before: bool,
    /// A regular expression literal (its flags would take in a following letter).
    pub regex: bool,
}

/// One comment's byte range, delimiters included (`//…`, `/*…*/`, or an HTML-like one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Comment {
    pub start: usize,
    pub end: usize,
}

/// A source oxc parsed without a single error, under one goal.
pub struct Parsed<'a> {
    parse: ParserReturn<'a>,
}

/// Parses `src` under `goal`; any diagnostic, even one oxc recovers from, is an error (with
/// where it is, in bytes).
pub fn parse<'a>(arena: &'a Arena, src: &'a str, goal: Goal) -> Result<Parsed<'a>, String> {
    let source_type = match goal {
        Goal::Script => SourceType::script(),
        Goal::Module => SourceType::mjs(),
    };
    let parse = Parser::new(&arena.0, src, source_type)
        .with_config(TokensParserConfig)
        .parse();
    if let Some(first) = parse.diagnostics.first() {
        let at = first
            .labels
            .first()
            .map(|label| format!(" at byte {}", label.offset()))
            .unwrap_or_default();
        return Err(format!("{first}{at}"));
    }
    if parse.panicked {
        return Err("the parser stopped early".into());
    }
    Ok(Parsed { parse })
}

impl Parsed<'_> {
    /// The tokens in source order (a hashbang line is not one: see [`Parsed::hashbang`]).
    pub fn tokens(&self) -> impl ExactSizeIterator<Item = Token> + '_ {
        self.parse.tokens.iter().map(|t| Token {
            start: t.start() as usize,
            end: t.end() as usize,
            line_before: t.is_on_new_line(),
            regex: t.kind() == Kind::RegExp,
        })
    }

    /// The comments in source order.
    pub fn comments(&self) -> impl ExactSizeIterator<Item = Comment> + '_ {
        self.parse.program.comments.iter().map(|c| Comment {
            start: c.span.start as usize,
            end: c.span.end as usize,
        })
    }

    /// The `#!` line at the very start, if any.
    pub fn hashbang(&self) -> Option<Comment> {
        self.parse.program.hashbang.as_ref().map(|h| Comment {
            start: h.span.start as usize,
            end: h.span.end as usize,
        })
    }

    /// Whether both syntax trees are equal when positions are ignored (oxc's `ContentEq`:
    /// every node, operator, name and literal value; parentheses are nodes too).
    pub fn same_tree(&self, other: &Parsed<'_>) -> bool {
        self.parse.program.content_eq(&other.parse.program)
    }
}
