//! The proof that a minified style sheet means what the original meant: both are tokenized
//! (cssparser, not the code that wrote the output) and must have the same canonical form
//! (`super::canon`): the same tokens, each with its exact source text (so escapes, digits and
//! letter case are compared), the same white space where a grammar reads it, the same kept
//! comments byte for byte (notices among them), and nothing else but the three removals that
//! module lists.
//!
//! What the proof takes on trust is the table of where white space is read (`super::canon`'s
//! documentation): it checks that the output is the input under that table, and the table is
//! held to its cases by the tests.

use super::canon::{self, Piece, What};

/// `Ok` when `output` is `input` minified under the rules of `super::canon`; otherwise the
/// first difference, with its line and column in the output.
pub fn check(input: &str, output: &str) -> Result<(), String> {
    let before = canon::of(input).map_err(|why| format!("the input has {why}"))?;
    same(&before, output)
}

/// [`check`] for an input whose canonical form is known already.
pub fn same(before: &[Piece<'_>], output: &str) -> Result<(), String> {
    let after = canon::of(output).map_err(|why| format!("the output has {why}"))?;
    let at = |piece: Option<&Piece<'_>>| {
        let (line, col) = canon::line_col(output, piece.map_or(output.len(), |p| p.at));
        format!("{line}:{col}")
    };
    for (i, was) in before.iter().enumerate() {
        match after.get(i) {
            Some(now) if now.what == was.what => {}
            now => {
                return Err(format!(
                    "the output has {} at {} where the input has {}",
                    describe(now.map(|p| p.what)),
                    at(now),
                    describe(Some(was.what)),
                ))
            }
        }
    }
    match after.get(before.len()) {
        None => Ok(()),
        Some(extra) => Err(format!(
            "the output has {} more at {}",
            describe(Some(extra.what)),
            at(Some(extra)),
        )),
    }
}

/// A piece of the canonical form in words, its text shortened.
fn describe(what: Option<What<'_>>) -> String {
    let short = |text: &str| {
        let cut: String = text.chars().take(40).collect();
        match cut.len() < text.len() {
            true => format!("{cut:?}…"),
            false => format!("{cut:?}"),
        }
    };
    match what {
        None => "nothing".to_string(),
        Some(What::Token(kind, text)) => format!("{kind:?} {}", short(text)),
        Some(What::Space) => "a space".to_string(),
        Some(What::Comment(text)) => format!("the comment {}", short(text)),
        Some(What::Raw(text)) => format!("kept bytes {}", short(text)),
    }
}
