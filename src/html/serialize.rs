//! Serializes an edited DOM back to HTML without the html5ever serializer's two rendering
//! traps: the page's own doctype is written back (html5ever always writes `<!DOCTYPE html>`,
//! which would switch a quirks-mode page to standards mode), and a leading newline in
//! `<pre>`, `<listing>` and `<textarea>` survives (the parser drops the first one).

use html5ever::serialize::{serialize as html5ever_serialize, SerializeOpts};
use markup5ever_rcdom::{NodeData, RcDom, SerializableHandle};

use super::edit;

/// The doctype as written at the top of `source` (`<!DOCTYPE HTML PUBLIC "…">`), if any.
pub fn original_doctype(source: &str) -> Option<&str> {
    let mut rest = source.trim_start_matches('\u{feff}');
    loop {
        rest = rest.trim_start();
        if let Some(after) = rest.strip_prefix("<!--") {
            rest = &after[after.find("-->")? + 3..];
            continue;
        }
        if rest.len() >= 9 && rest[..9].eq_ignore_ascii_case("<!doctype") {
            let end = rest.find('>')?;
            return Some(&rest[..=end]);
        }
        return None;
    }
}

/// Serializes `dom`, writing `source`'s doctype back in place of html5ever's.
pub fn serialize(dom: &RcDom, source: &str) -> String {
    for el in edit::elements(&dom.document) {
        if matches!(edit::tag(&el), Some("pre" | "listing" | "textarea")) {
            let first = el.children.borrow().first().cloned();
            if let Some(first) = first {
                if let NodeData::Text { contents } = &first.data {
                    let mut text = contents.borrow_mut();
                    if text.starts_with('\n') {
                        let doubled = format!("\n{}", &**text);
                        *text = doubled.into();
                    }
                }
            }
        }
    }
    let mut out = Vec::new();
    let handle: SerializableHandle = dom.document.clone().into();
    // Writing to a Vec cannot fail.
    let _ = html5ever_serialize(&mut out, &handle, SerializeOpts::default());
    let text = String::from_utf8_lossy(&out).into_owned();
    let has_doctype = dom
        .document
        .children
        .borrow()
        .iter()
        .any(|c| matches!(c.data, NodeData::Doctype { .. }));
    match (has_doctype, original_doctype(source)) {
        (true, Some(doctype)) => text.replacen("<!DOCTYPE html>", doctype, 1),
        _ => text,
    }
}
