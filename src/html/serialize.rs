//! Serializes an edited DOM back to HTML without the html5ever serializer's two rendering
//! traps: the page's own doctype is written back (html5ever always writes `<!DOCTYPE html>`,
//! which would switch a quirks-mode page to standards mode), and a leading newline in
//! `<pre>`, `<listing>` and `<textarea>` survives (the parser drops the first one). A page that
//! was pure ASCII stays pure ASCII: characters its entities stood for are written as numeric
//! references, so the page reads the same whatever charset a browser guesses for it.

use html5ever::serialize::{serialize as html5ever_serialize, SerializeOpts};
use markup5ever_rcdom::{NodeData, RcDom, SerializableHandle};

use super::edit;

/// Elements without an end tag.
const VOID: &[&str] = &[
    "area", "base", "basefont", "bgsound", "br", "col", "embed", "frame", "hr", "img", "input",
    "keygen", "link", "meta", "param", "source", "track", "wbr",
];

/// Elements whose text is written as is (the parser does not decode it).
const RAW_TEXT: &[&str] = &[
    "style",
    "script",
    "xmp",
    "iframe",
    "noembed",
    "noframes",
    "plaintext",
    "noscript",
];

/// An attribute value that may go without quotes (HTML's unquoted attribute value syntax).
fn unquotable(value: &str) -> bool {
    !value.is_empty()
        && !value.ends_with('/')
        && value.chars().all(|c| {
            c.is_ascii_alphanumeric()
                || "-._:/#%+,;?!@~()*$[]{}|^".contains(c)
                || (!c.is_ascii() && !c.is_whitespace() && c != '\u{a0}')
        })
}

/// The HTML standard's serialization algorithm, except that attribute values that need no
/// quotes get none (html5ever always quotes them, which costs two bytes per attribute).
fn write_node(node: &markup5ever_rcdom::Handle, out: &mut String, raw: bool) {
    match &node.data {
        NodeData::Doctype { name, .. } => {
            out.push_str("<!DOCTYPE ");
            out.push_str(name);
            out.push('>');
        }
        NodeData::Comment { contents } => {
            out.push_str("<!--");
            out.push_str(contents);
            out.push_str("-->");
        }
        NodeData::Text { contents } => {
            let text = contents.borrow();
            if raw {
                out.push_str(&text);
            } else {
                for c in text.chars() {
                    match c {
                        '&' => out.push_str("&amp;"),
                        '\u{a0}' => out.push_str("&nbsp;"),
                        '<' => out.push_str("&lt;"),
                        '>' => out.push_str("&gt;"),
                        c => out.push(c),
                    }
                }
            }
        }
        NodeData::Element {
            name,
            attrs,
            template_contents,
            ..
        } => {
            let tag: &str = &name.local;
            out.push('<');
            out.push_str(tag);
            for a in attrs.borrow().iter() {
                out.push(' ');
                out.push_str(&a.name.local);
                if a.value.is_empty() {
                    continue;
                }
                out.push('=');
                if unquotable(&a.value) {
                    out.push_str(&a.value);
                } else {
                    out.push('"');
                    for c in a.value.chars() {
                        match c {
                            '&' => out.push_str("&amp;"),
                            '\u{a0}' => out.push_str("&nbsp;"),
                            '"' => out.push_str("&quot;"),
                            c => out.push(c),
                        }
                    }
                    out.push('"');
                }
            }
            out.push('>');
            if VOID.contains(&tag) {
                return;
            }
            let raw = RAW_TEXT.contains(&tag);
            let children = match template_contents.borrow().as_ref() {
                Some(contents) => contents.children.borrow().clone(),
                None => node.children.borrow().clone(),
            };
            for child in &children {
                write_node(child, out, raw);
            }
            out.push_str("</");
            out.push_str(tag);
            out.push('>');
        }
        NodeData::Document | NodeData::ProcessingInstruction { .. } => {}
    }
}

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

/// Serializes `dom`, writing `source`'s doctype back in place of html5ever's; an ASCII `source`
/// gives ASCII output.
pub fn serialize(dom: &RcDom, source: &str) -> String {
    let out = serialize_text(dom, source);
    if source.is_ascii() {
        ascii_only(out)
    } else {
        out
    }
}

/// Writes every non-ASCII character as a numeric character reference. Safe on the whole output
/// of an ASCII source: its comments and raw text (`<script>`, `<style>`) were ASCII, so
/// non-ASCII characters can only be decoded entities in text and attribute values, where a
/// reference means the same. The private-use characters the markup stage uses as slots
/// (U+E000, U+E001) are left for it to replace.
fn ascii_only(text: String) -> String {
    if text.is_ascii() {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if c.is_ascii() || matches!(c, '\u{e000}' | '\u{e001}') {
            out.push(c);
        } else if c == '\u{a0}' {
            out.push_str("&nbsp;");
        } else {
            out.push_str(&format!("&#{};", u32::from(c)));
        }
    }
    out
}

fn serialize_text(dom: &RcDom, source: &str) -> String {
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
    if edit::elements(&dom.document).iter().all(edit::is_html) {
        let mut out = String::with_capacity(source.len());
        for child in dom.document.children.borrow().iter() {
            match (&child.data, original_doctype(source)) {
                (NodeData::Doctype { .. }, Some(doctype)) => out.push_str(doctype),
                _ => write_node(child, &mut out, false),
            }
        }
        return out;
    }
    // SVG/MathML need namespace prefixes on attributes: leave those pages to html5ever.
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
