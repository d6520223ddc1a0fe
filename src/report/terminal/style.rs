//! How the terminal renderers write: colours, and how much they say.

/// How much the terminal output says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Verbosity {
    Quiet,
    #[default]
    Normal,
    Verbose,
}

/// How the text renderers write: colours, and how much detail.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TextStyle {
    /// ANSI colours. Default: off.
    pub color: bool,
    pub verbosity: Verbosity,
}

/// `text` in the ANSI colour `code` (`1` bold, `31` red, `32` green) when colours are on.
pub fn paint(text: &str, code: &str, style: &TextStyle) -> String {
    if style.color {
        format!("\x1b[{code}m{text}\x1b[0m")
    } else {
        text.to_string()
    }
}

/// `text` in bold when colours are on.
pub fn bold(text: &str, style: &TextStyle) -> String {
    paint(text, "1", style)
}
