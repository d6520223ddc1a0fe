//! Writes the little new markup the rewrite adds to a page: attributes of an edited start tag,
//! and the `<link>` or `<style>` it puts in the head. Values go without quotes where HTML
//! allows (two bytes saved per attribute), characters outside ASCII are left for
//! [`super::page::render`], which writes them as numeric character references, and the text of
//! a `<style>` is made ASCII with CSS escapes (a reference means nothing in raw text).

use super::edit::NewElement;

/// Elements without an end tag (the parser's list, `image` included).
const VOID: &[&str] = &[
    "area", "base", "basefont", "bgsound", "br", "col", "embed", "frame", "hr", "image", "img",
    "input", "keygen", "link", "meta", "param", "source", "track", "wbr",
];

/// Whether an element has no end tag.
pub fn is_void(tag: &str) -> bool {
    VOID.contains(&tag)
}

/// Whether an attribute value may go without quotes (HTML's unquoted attribute value syntax;
/// non-ASCII characters become references, which are safe unquoted).
fn unquotable(value: &str) -> bool {
    !value.is_empty()
        && !value.ends_with('/')
        && value.chars().all(|c| {
            c.is_ascii_alphanumeric() || "-._:/#%+,;?!@~()*$[]{}|^".contains(c) || !c.is_ascii()
        })
}

/// Appends `name=value` (or the bare name for an empty value).
pub fn attribute(name: &str, value: &str, out: &mut String) {
    out.push_str(name);
    if value.is_empty() {
        return;
    }
    out.push('=');
    if unquotable(value) {
        out.push_str(value);
        return;
    }
    out.push('"');
    for c in value.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Appends a new element whose children are text only (`<link …>`, `<style>…</style>`).
pub fn element(el: &NewElement, out: &mut String) {
    out.push('<');
    out.push_str(&el.tag);
    for (name, value) in &el.attrs {
        out.push(' ');
        attribute(name, value, out);
    }
    out.push('>');
    if is_void(&el.tag) {
        return;
    }
    out.push_str(&crate::css::ascii(&el.text));
    out.push_str("</");
    out.push_str(&el.tag);
    out.push('>');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_quoted_only_when_html_needs_it() {
        let mut out = String::new();
        for (n, v) in [
            ("class", "ab"),
            ("style", "a b"),
            ("alt", "x\"&y"),
            ("nowrap", ""),
        ] {
            out.push(' ');
            attribute(n, v, &mut out);
        }
        assert_eq!(out, r#" class=ab style="a b" alt="x&quot;&amp;y" nowrap"#);
    }

    #[test]
    fn style_text_is_written_in_ascii_with_css_escapes() {
        let mut style = NewElement::new("style", &[]);
        style.text = ".a{background:url(café.gif)}".to_string();
        let mut out = String::new();
        element(&style, &mut out);
        assert_eq!(out, "<style>.a{background:url(caf\\e9 .gif)}</style>");
    }
}
