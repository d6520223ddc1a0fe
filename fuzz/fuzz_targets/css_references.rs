//! Any style sheet text: the URL occurrences found in it are in bounds and on character
//! boundaries, retargeting any of them to a PNG and splicing the edits back keeps every byte
//! outside the edited spans.
#![no_main]

use libfuzzer_sys::fuzz_target;
use webdiet::rewrite::pages::{apply, css_occurrences, retarget, RefEdit, Rename};

fuzz_target!(|text: &str| {
    let occurrences = css_occurrences(text);
    let rename = Rename {
        old_tail: ".gif".to_string(),
        new_tail: ".png".to_string(),
    };
    let mut edits = Vec::new();
    let mut last_end = 0;
    for occ in &occurrences {
        let span = occ.span.clone();
        assert!(span.start <= span.end && span.end <= text.len());
        assert!(text.is_char_boundary(span.start) && text.is_char_boundary(span.end));
        assert!(
            span.start >= last_end,
            "occurrences overlap or are out of order"
        );
        last_end = span.end;
        if let Some(replacement) = retarget(&text.as_bytes()[span.clone()], &rename) {
            edits.push(RefEdit { span, replacement });
        }
    }
    let out = apply(text.as_bytes(), &edits);
    // Every byte outside the edits is kept, in order.
    let mut at = 0;
    let mut pos = 0;
    for edit in &edits {
        let kept = &text.as_bytes()[at..edit.span.start];
        assert_eq!(&out[pos..pos + kept.len()], kept);
        pos += kept.len() + edit.replacement.len();
        at = edit.span.end;
    }
    assert_eq!(&out[pos..], &text.as_bytes()[at..]);
});
