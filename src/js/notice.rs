//! Which comments a minified script keeps, byte for byte: those that carry a notice (licences
//! such as the GPL, MIT and Apache ones require their copyright and permission notice to ship
//! with the code), the file's leading comments (where a project puts its header), and those
//! that are code to some reader (Internet Explorer's JScript conditional compilation, source-map
//! directives for developer tools). The rules read only the comment's text, so the proof and the
//! tests can ask them of any comment.

/// Why a comment is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// A notice: see [`is_notice`].
    Notice,
    /// Before the file's first token: its header.
    Leading,
    /// `/*@…` or `//@…`: once any script on the page ran `@cc_on`, Internet Explorer (10 and
    /// older) reads such comments as code (`/*@cc_on @if (@_jscript) … @end @*/`).
    Conditional,
    /// `//#…` or `/*#…`: `//# sourceMappingURL=…`, `//# sourceURL=…`, read by developer tools.
    Directive,
}

/// Whether, and why, the comment `text` (delimiters included) stays. `leading`: no token comes
/// before it.
pub fn keep(text: &str, leading: bool) -> Option<Keep> {
    let body = text
        .strip_prefix("//")
        .or_else(|| text.strip_prefix("/*"))
        .unwrap_or(text);
    if body.starts_with('@') {
        Some(Keep::Conditional)
    } else if body.starts_with('#') {
        Some(Keep::Directive)
    } else if is_notice(text) {
        Some(Keep::Notice)
    } else if leading {
        Some(Keep::Leading)
    } else {
        None
    }
}

/// Whether the comment `text` (delimiters included) carries a notice: [`crate::notice`]'s
/// rule, one for style sheets and scripts alike, asked of what lies between the delimiters.
pub fn is_notice(text: &str) -> bool {
    let body = match text.strip_prefix("/*") {
        Some(body) => body.strip_suffix("*/").unwrap_or(body),
        None => text.strip_prefix("//").unwrap_or(text),
    };
    crate::notice::is_notice(body)
}
