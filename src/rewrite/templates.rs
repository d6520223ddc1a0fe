//! Server-side templates the rewrite may edit like pages: JSP and PHP files are HTML with code
//! blocks (`<% … %>`, `<?php … ?>`) the server runs before the browser sees anything. Their
//! references to converted GIFs are edited in the HTML between the blocks; the blocks
//! themselves keep every byte, and a GIF a block still names is kept (`leftovers`). SSI pages
//! (`.shtml`) are pages already: their directives are HTML comments, which no edit touches.

use std::ops::Range;

use super::pages::RefEdit;

/// Whether a file is a template whose HTML is edited: `.jsp`, `.jspf`, `.php`, `.php3`,
/// `.php4`, `.php5`, `.phtml`. Other templates (ASP, ERB, …) are only scanned for the names
/// of converted GIFs, which are then kept.
pub(super) fn editable(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let Some((stem, ext)) = name.rsplit_once('.') else {
        return false;
    };
    !stem.is_empty()
        && matches!(
            ext.to_ascii_lowercase().as_str(),
            "jsp" | "jspf" | "php" | "php3" | "php4" | "php5" | "phtml"
        )
}

/// The byte ranges of the code blocks: from `<%` to the next `%>`, from `<?` to the next
/// `?>`, each to the end of the file when it is not closed.
pub(super) fn code_blocks(bytes: &[u8]) -> Vec<Range<usize>> {
    let mut blocks = Vec::new();
    let mut i = 0;
    while i + 1 < bytes.len() {
        let close: &[u8] = match &bytes[i..i + 2] {
            b"<%" => b"%>",
            b"<?" => b"?>",
            _ => {
                i += 1;
                continue;
            }
        };
        let end = bytes[i + 2..]
            .windows(2)
            .position(|w| w == close)
            .map_or(bytes.len(), |p| i + 2 + p + 2);
        blocks.push(i..end);
        i = end;
    }
    blocks
}

/// The edits that change nothing inside a code block.
pub(super) fn outside_code(edits: Vec<RefEdit>, blocks: &[Range<usize>]) -> Vec<RefEdit> {
    edits
        .into_iter()
        .filter(|e| {
            !blocks
                .iter()
                .any(|b| e.span.start < b.end && b.start < e.span.end.max(e.span.start + 1))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jsp_and_php_are_editable_templates_and_asp_is_not() {
        assert!(editable("a/hello.jsp"));
        assert!(editable("INDEX.PHP"));
        assert!(!editable("a/page.asp"));
        assert!(!editable("a/page.html"));
        assert!(!editable(".php"));
    }

    #[test]
    fn code_blocks_run_to_their_close_or_to_the_end() {
        let text = b"<%@ page %><p><? echo '<img src=a.gif>'; ?><img src=b.gif><% open";
        let blocks = code_blocks(text);
        let shown: Vec<&[u8]> = blocks.iter().map(|r| &text[r.clone()]).collect();
        assert_eq!(
            shown,
            [
                &b"<%@ page %>"[..],
                b"<? echo '<img src=a.gif>'; ?>",
                b"<% open"
            ]
        );
        let edit = |span: Range<usize>| RefEdit {
            span,
            replacement: b"x".to_vec(),
        };
        let inside = 30..33;
        let outside = 52..55;
        let kept = outside_code(vec![edit(inside), edit(outside.clone())], &blocks);
        assert_eq!(kept, [edit(outside)]);
    }
}
