//! The script check: a page whose scripts may read or write what the conversion changes keeps
//! its markup as written (`script-touches-markup`).
//!
//! Why not convert and let the script win: a presentational attribute is a hint of
//! specificity zero that comes before every author rule, so no CSS the pass could emit
//! (`:where()` included) loses to an attribute a script sets later (`document.bgColor =
//! "red"` would leave the rewritten page white). And a script that looks for a `<font>`, sets
//! `className` (dropping the class the pass added) or counts `document.images` (a spacer became
//! a span) would see another page. So the check is by name, and errs on the safe side: a
//! script that so much as mentions, as a word in any case, a converted element or attribute
//! (or its DOM property: `bgColor`, `fgColor`, `vAlign`, `cellPadding`…), `class` or
//! `className`, or, on a page with spacer images, `img` or `images`, keeps the page. A page
//! without scripts, or whose scripts name none of these, is converted as before.

use std::collections::BTreeSet;

use crate::html::{edit, Node};

/// Words (lower case) that name what the pass converts: its elements, its attributes and
/// their DOM properties, and the class it adds.
const TOUCHING: &[&str] = &[
    // Elements (the phrase elements are in `PHRASE`).
    "font",
    "basefont",
    // Attributes, and DOM properties where the name differs.
    "bgcolor",
    "background",
    "text",
    "link",
    "vlink",
    "alink",
    "fgcolor",
    "linkcolor",
    "vlinkcolor",
    "alinkcolor",
    "marginwidth",
    "marginheight",
    "leftmargin",
    "topmargin",
    "align",
    "valign",
    "width",
    "height",
    "border",
    "hspace",
    "vspace",
    "nowrap",
    "clear",
    "cellpadding",
    "cellspacing",
    "size",
    "noshade",
    "color",
    "face",
    "bordercolor",
    // The class the pass adds.
    "class",
    "classname",
];

/// The phrase elements, named only when the pass renames them (never in the rewrite: each
/// rename grows the page). `s` and `u` count only as a whole string (`'s'`), not as the
/// variable names they so often are.
const PHRASE: &[&str] = &["center", "strike", "big", "tt", "nobr"];
const PHRASE_LETTERS: &[&str] = &["'s'", "\"s\"", "'u'", "\"u\""];

/// Words that reach the images, where a spacer may become a span.
const IMAGES: &[&str] = &["img", "images"];

/// The first word of the page's scripts (its `<script>` elements, `on…` attributes and
/// `javascript:` URLs, and `external`, the scripts it loads) that names what the pass
/// converts; `None` when there is none.
pub fn touching_word(
    document: &Node,
    external: &str,
    spacers: bool,
    phrase_elements: bool,
) -> Option<String> {
    let mut words: BTreeSet<&str> = TOUCHING.iter().copied().collect();
    if spacers {
        words.extend(IMAGES);
    }
    if phrase_elements {
        words.extend(PHRASE);
    }
    let mut texts = vec![external.to_string()];
    for el in edit::descendants(document) {
        if edit::is(&el, "script") {
            texts.push(edit::text_of(&el));
        }
        for name in edit::attr_names(&el) {
            let value = edit::attr(&el, &name).unwrap_or_default();
            let script_url = value
                .trim_start()
                .get(..11)
                .is_some_and(|s| s.eq_ignore_ascii_case("javascript:"));
            if name.starts_with("on") || script_url {
                texts.push(value);
            }
        }
    }
    texts.iter().find_map(|text| {
        first_word_of(text, &words).or_else(|| {
            PHRASE_LETTERS
                .iter()
                .filter(|_| phrase_elements)
                .find(|quoted| text.to_ascii_lowercase().contains(*quoted))
                .map(|quoted| quoted.to_string())
        })
    })
}

/// The first identifier-like word of `text` that is one of `words`, in any case.
fn first_word_of(text: &str, words: &BTreeSet<&str>) -> Option<String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
        .map(str::to_ascii_lowercase)
        .find(|w| words.contains(w.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(spacers: bool) -> BTreeSet<&'static str> {
        let mut w: BTreeSet<&str> = TOUCHING.iter().copied().collect();
        if spacers {
            w.extend(IMAGES);
        }
        w
    }

    #[test]
    fn scripts_that_set_presentational_attributes_are_caught_by_name() {
        for script in [
            "document.bgColor = '#ff0000'",
            "el.setAttribute('bgcolor', 'red')",
            "cell.align = 'right'",
            "$('td').attr('BGCOLOR', 'red')",
            "document.getElementsByTagName('font')[0].color = 'red'",
            "el.className = 'x'",
        ] {
            assert!(first_word_of(script, &words(false)).is_some(), "{script}");
        }
    }

    #[test]
    fn scripts_that_name_nothing_converted_are_not() {
        let script = "var n = 0; function go() { window.location = 'next.html'; n++; }";
        assert_eq!(first_word_of(script, &words(false)), None);
        // `innerWidth` is not `width`; `document.images` matters only with spacers.
        assert_eq!(
            first_word_of("x = innerWidth; document.images[0]", &words(false)),
            None
        );
        assert_eq!(
            first_word_of("document.images[0].src = 'on.gif'", &words(true)).as_deref(),
            Some("images")
        );
    }
}
