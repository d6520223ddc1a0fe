//! Whitespace and comment removal for the site's own scripts, where it cannot change what a
//! script does. Hand-rolled, and deliberately small: a maintained minifier that parses
//! JavaScript (oxc) needs the newest Rust compiler (its crates declare `rust-version` 1.95, webdiet
//! 1.85) and a large build (docs/modern-sites.md, "Scripts"), while removing whitespace and
//! comments needs only a tokenizer, and renaming or rewriting code is out of scope.
//!
//! What is removed: comments (but `/*!…*/` and comments naming `@license` or `@preserve`,
//! which carry licences, and `//# sourceMappingURL` lines), and whitespace between tokens
//! where no token would merge with its neighbour. What is kept: every line break between two
//! tokens (one per run of whitespace and comments that held one), since automatic semicolon
//! insertion and `return`/`++`/`=>` rules read line breaks; every byte of strings, template
//! literals and regular expressions.
//!
//! The one hard question of a JavaScript tokenizer, whether `/` starts a regular expression
//! or divides, is answered from the token before it (after a value it divides; after an
//! operator, a keyword such as `return`, or the `)` of `if (…)`, `while (…)`, `for (…)`, it
//! starts a regular expression). Where that token cannot decide (after `}`, which ends either
//! a block or an object), the script is left as it is. So is any script the tokenizer cannot
//! read to its end (an unterminated string, comment, template or regular expression).
//!
//! The check: the result is tokenized again and must give the same tokens, with a line break
//! before the same ones. The render check runs the scripts (`webdiet verify`, on virtual
//! time). Not preserved: the text `Function.prototype.toString` returns (the function's
//! source, now without its comments), which scripts almost never read.

/// Why a script is left as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kept {
    /// A `/` whose meaning the token before it does not decide.
    Ambiguous(usize),
    /// Something the tokenizer cannot read to its end.
    Unreadable(String),
    /// The result did not tokenize to the same tokens (never expected).
    Changed,
}

impl std::fmt::Display for Kept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Kept::Ambiguous(at) => write!(
                f,
                "a `/` after `}}` at byte {at}: a regular expression or a division, the tokens \
                 before it cannot tell"
            ),
            Kept::Unreadable(why) => write!(f, "the tokenizer cannot read it: {why}"),
            Kept::Changed => f.write_str("the minified script tokenizes differently"),
        }
    }
}

/// One token: its bytes, whether a line break came before it, and what it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Token<'a> {
    text: &'a str,
    line_before: bool,
    kind: Kind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Identifiers, keywords and numbers.
    Word,
    Punct,
    /// Strings, template literals (whole, or a piece between substitutions), regular
    /// expressions: copied byte for byte.
    Literal,
    /// A comment that is kept (licence, source map).
    Comment,
}

/// Keywords after which `/` starts a regular expression.
const BEFORE_REGEX: [&str; 14] = [
    "return",
    "typeof",
    "instanceof",
    "in",
    "of",
    "new",
    "delete",
    "void",
    "throw",
    "case",
    "do",
    "else",
    "yield",
    "await",
];

fn is_line_break(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
}

fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\u{0B}' | '\u{0C}' | '\u{A0}' | '\u{FEFF}')
        || (!c.is_ascii() && c.is_whitespace() && !is_line_break(c))
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '$' | '\\') || (!c.is_ascii() && !c.is_whitespace())
}

/// Punctuators, longest first.
const PUNCTS: [&str; 52] = [
    ">>>=", "...", "===", "!==", "**=", "<<=", ">>=", ">>>", "&&=", "||=", "??=", "=>", "==", "!=",
    "<=", ">=", "&&", "||", "??", "?.", "++", "--", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=",
    "**", "<<", ">>", "{", "}", "(", ")", "[", "]", ";", ",", "<", ">", "+", "-", "*", "%", "&",
    "|", "^", "!", "~",
];

struct Lexer<'a> {
    src: &'a str,
    at: usize,
    tokens: Vec<Token<'a>>,
    line_before: bool,
    /// For each open `(`: whether it follows `if`, `while`, `for` or `with` (then a `/` after
    /// its `)` starts a regular expression).
    parens: Vec<bool>,
    /// For each open `{`: whether it opened a `${` substitution of a template literal.
    braces: Vec<bool>,
    /// Whether the last `)` closed the condition of `if`, `while`, `for` or `with`.
    closed_condition: bool,
}

impl<'a> Lexer<'a> {
    fn rest(&self) -> &'a str {
        &self.src[self.at..]
    }

    fn push(&mut self, len: usize, kind: Kind) {
        let text = &self.src[self.at..self.at + len];
        // A line break before the first token means nothing.
        let line_before = self.line_before && !self.tokens.is_empty();
        self.tokens.push(Token {
            text,
            line_before,
            kind,
        });
        self.line_before = false;
        self.at += len;
    }

    /// Whether a `/` here starts a regular expression, from the token before it.
    fn regex_allowed(&self) -> Result<bool, Kept> {
        let mut significant = self.tokens.iter().rev().filter(|t| t.kind != Kind::Comment);
        let Some(last) = significant.next() else {
            return Ok(true);
        };
        // `a.return / 2`: a keyword after `.` is a property name, a value.
        let property = significant
            .next()
            .is_some_and(|t| matches!(t.text, "." | "?."));
        Ok(match (last.kind, last.text) {
            (Kind::Word, word) => !property && BEFORE_REGEX.contains(&word),
            (Kind::Literal, _) => false,
            (Kind::Punct, ")") => self.closed_condition,
            (Kind::Punct, "]") => false,
            (Kind::Punct, "}") => return Err(Kept::Ambiguous(self.at)),
            // After `x++` a `/` divides; `++/re/` is not JavaScript.
            (Kind::Punct, "++" | "--") => false,
            _ => true,
        })
    }

    /// The length of a quoted string starting here.
    fn string_len(&self, quote: char) -> Result<usize, Kept> {
        let mut chars = self.rest().char_indices().skip(1);
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => {
                    chars.next();
                }
                c if c == quote => return Ok(i + 1),
                '\n' | '\r' => break,
                _ => {}
            }
        }
        Err(Kept::Unreadable(format!(
            "a string at byte {} does not end",
            self.at
        )))
    }

    /// The length of a template piece starting here (at `` ` `` or at the `}` that ends a
    /// substitution), up to and including the `` ` `` or `${` that ends it; and whether it
    /// ends with `${`.
    fn template_len(&self) -> Result<(usize, bool), Kept> {
        let rest = self.rest();
        let bytes = rest.as_bytes();
        let mut i = 1;
        while i < bytes.len() {
            match bytes[i] {
                b'\\' => i += 2,
                b'`' => return Ok((i + 1, false)),
                b'$' if bytes.get(i + 1) == Some(&b'{') => return Ok((i + 2, true)),
                _ => i += 1,
            }
        }
        Err(Kept::Unreadable(format!(
            "a template at byte {} does not end",
            self.at
        )))
    }

    /// The length of a regular expression literal starting here, flags included.
    fn regex_len(&self) -> Result<usize, Kept> {
        let mut class = false;
        let mut chars = self.rest().char_indices().skip(1);
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => {
                    chars.next();
                }
                '[' => class = true,
                ']' => class = false,
                '/' if !class => {
                    let flags = self.rest()[i + 1..]
                        .chars()
                        .take_while(|c| is_word(*c))
                        .map(char::len_utf8)
                        .sum::<usize>();
                    return Ok(i + 1 + flags);
                }
                c if is_line_break(c) => break,
                _ => {}
            }
        }
        Err(Kept::Unreadable(format!(
            "a regular expression at byte {} does not end",
            self.at
        )))
    }

    fn template(&mut self) -> Result<(), Kept> {
        let (len, open) = self.template_len()?;
        self.push(len, Kind::Literal);
        if open {
            self.braces.push(true);
        }
        Ok(())
    }

    fn run(mut self) -> Result<Vec<Token<'a>>, Kept> {
        if self.rest().starts_with("#!") {
            let len = self.rest().find(is_line_break).unwrap_or(self.rest().len());
            self.push(len, Kind::Comment);
        }
        while let Some(c) = self.rest().chars().next() {
            let rest = self.rest();
            if is_line_break(c) {
                self.line_before = true;
                self.at += c.len_utf8();
            } else if is_space(c) && c.is_ascii() {
                self.at += c.len_utf8();
            } else if is_space(c) {
                // Another charset's reading of these bytes may be letters: not touched.
                return Err(Kept::Unreadable(format!(
                    "non-ASCII white space at byte {}",
                    self.at
                )));
            } else if rest.starts_with("//") {
                let len = rest.find(is_line_break).unwrap_or(rest.len());
                if rest[..len].starts_with("//# sourceMappingURL=") {
                    self.push(len, Kind::Comment);
                } else {
                    self.at += len;
                }
            } else if let Some(inner) = rest.strip_prefix("/*") {
                let end = inner.find("*/").ok_or_else(|| {
                    Kept::Unreadable(format!("a comment at byte {} does not end", self.at))
                })? + 4;
                let body = &rest[..end];
                if body.starts_with("/*!")
                    || body.contains("@license")
                    || body.contains("@preserve")
                {
                    self.push(end, Kind::Comment);
                } else {
                    if body.contains(is_line_break) {
                        self.line_before = true;
                    }
                    self.at += end;
                }
            } else if rest.starts_with("<!--") || rest.starts_with("-->") {
                // HTML-like comments (Annex B): rare, and their rules are subtle.
                return Err(Kept::Unreadable(format!(
                    "an HTML-like comment at byte {}",
                    self.at
                )));
            } else if c == '"' || c == '\'' {
                let len = self.string_len(c)?;
                self.push(len, Kind::Literal);
            } else if c == '`' {
                self.template()?;
            } else if c == '}' && self.braces.last() == Some(&true) {
                self.braces.pop();
                self.template()?;
            } else if c == '/' {
                if self.regex_allowed()? {
                    let len = self.regex_len()?;
                    self.push(len, Kind::Literal);
                } else {
                    let len = if rest.starts_with("/=") { 2 } else { 1 };
                    self.push(len, Kind::Punct);
                }
            } else if c == '.' && rest[1..].starts_with(|d: char| d.is_ascii_digit()) {
                let len = 1 + rest[1..]
                    .chars()
                    .take_while(|c| is_word(*c) || *c == '.')
                    .count();
                self.push(len, Kind::Word);
            } else if is_word(c) {
                // Identifiers, keywords and numbers (with their `.`, exponent signs too).
                let mut len = 0;
                let numeric = c.is_ascii_digit();
                let mut prev = ' ';
                for ch in rest.chars() {
                    let part = is_word(ch)
                        || (numeric && ch == '.')
                        || (numeric && matches!(ch, '+' | '-') && matches!(prev, 'e' | 'E'));
                    if !part {
                        break;
                    }
                    len += ch.len_utf8();
                    prev = ch;
                }
                if numeric && rest[..len].starts_with("0") && rest[..len].contains(['x', 'X']) {
                    // hex: an `e` is a digit, not an exponent, so `0x1e+1` is `0x1e + 1`.
                    len = rest
                        .chars()
                        .take_while(|c| is_word(*c))
                        .map(char::len_utf8)
                        .sum();
                }
                self.push(len, Kind::Word);
            } else if rest.starts_with("?.") && rest[2..].starts_with(|d: char| d.is_ascii_digit())
            {
                // `a?.5:1` is a conditional, not optional chaining.
                self.push(1, Kind::Punct);
            } else if let Some(p) = PUNCTS.iter().find(|p| rest.starts_with(**p)) {
                match *p {
                    "(" => {
                        let after_condition = self
                            .tokens
                            .last()
                            .is_some_and(|t| matches!(t.text, "if" | "while" | "for" | "with"));
                        self.parens.push(after_condition);
                    }
                    ")" => self.closed_condition = self.parens.pop().unwrap_or(false),
                    "{" => self.braces.push(false),
                    "}" => {
                        self.braces.pop();
                    }
                    _ => {}
                }
                self.push(p.len(), Kind::Punct);
            } else if matches!(c, '.' | '?' | ':' | '=' | '@' | '#') {
                self.push(c.len_utf8(), Kind::Punct);
            } else {
                return Err(Kept::Unreadable(format!(
                    "an unexpected {c:?} at byte {}",
                    self.at
                )));
            }
        }
        if self.braces.contains(&true) {
            return Err(Kept::Unreadable(
                "a template substitution does not end".into(),
            ));
        }
        Ok(self.tokens)
    }
}

fn tokens(src: &str) -> Result<Vec<Token<'_>>, Kept> {
    Lexer {
        src,
        at: 0,
        tokens: Vec::new(),
        line_before: false,
        parens: Vec::new(),
        braces: Vec::new(),
        closed_condition: false,
    }
    .run()
}

/// Whether writing `b` right after `a` could read as other tokens.
fn needs_space(a: &Token<'_>, b: &Token<'_>) -> bool {
    let (last, first) = (
        a.text.chars().next_back().unwrap_or(' '),
        b.text.chars().next().unwrap_or(' '),
    );
    if a.kind == Kind::Comment || b.kind == Kind::Comment {
        return true;
    }
    let number = a.kind == Kind::Word && a.text.starts_with(|c: char| c.is_ascii_digit());
    if is_word(last) && (is_word(first) || first == '.' && number) {
        return true;
    }
    // A regular expression's flags would take a following word in.
    if a.kind == Kind::Literal && is_word(first) {
        return true;
    }
    // `a + +b`, `a - -b`, `a / /re/`, `x < !--y`, `a-- > b`…: any two punctuators or a
    // punctuator and a literal that could join are kept apart.
    let joined: String = [last, first].iter().collect();
    matches!(
        joined.as_str(),
        "++" | "--" | "+-" | "-+" | "//" | "/*" | "*/" | "<!" | "->" | "=>" | ".."
    ) || (a.kind == Kind::Literal && b.kind == Kind::Literal)
}

/// The script's bytes without what it does not need, or why it is left as it is. A script
/// that is not UTF-8 is left as it is (its charset is the page's, unknown here).
pub fn minify_script(bytes: &[u8]) -> Result<Vec<u8>, Kept> {
    let (bom, body) = match bytes.strip_prefix(b"\xEF\xBB\xBF") {
        Some(rest) => (true, rest),
        None => (false, bytes),
    };
    let text = std::str::from_utf8(body)
        .map_err(|_| Kept::Unreadable("not UTF-8: its charset is the page's".into()))?;
    let mut out = Vec::with_capacity(bytes.len());
    if bom {
        out.extend_from_slice(b"\xEF\xBB\xBF");
    }
    out.extend_from_slice(minify(text)?.as_bytes());
    Ok(out)
}

/// The script without what it does not need, or why it is left as it is.
pub fn minify(src: &str) -> Result<String, Kept> {
    let before = tokens(src)?;
    let mut out = String::with_capacity(src.len());
    let mut previous: Option<&Token<'_>> = None;
    for token in &before {
        if let Some(prev) = previous {
            if token.line_before {
                out.push('\n');
            } else if needs_space(prev, token) {
                out.push(' ');
            }
        }
        out.push_str(token.text);
        previous = Some(token);
    }
    let after = tokens(&out).map_err(|_| Kept::Changed)?;
    let same = before.len() == after.len()
        && before
            .iter()
            .zip(&after)
            .all(|(a, b)| a.text == b.text && a.kind == b.kind && a.line_before == b.line_before);
    if !same {
        return Err(Kept::Changed);
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
