//! Escaping text for GitHub Markdown: table cells and lines.

/// Escapes text for a table cell or a line: Markdown punctuation, HTML, pipes and newlines.
pub fn cell(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\n' | '\r' => out.push(' '),
            '\\' | '|' | '*' | '_' | '`' | '[' | ']' | '#' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// `text` with its first letter in upper case.
pub fn upper_first(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_cannot_break_tables_or_inject_html() {
        assert_eq!(cell("a|b\nc_d"), "a\\|b c\\_d");
        assert_eq!(cell("<b>&"), "&lt;b&gt;&amp;");
        assert_eq!(upper_first("text drawn"), "Text drawn");
    }
}
