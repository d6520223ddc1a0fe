//! What each presentational element and attribute means in CSS, following Chromium's
//! `CollectStyleForPresentationAttribute` code and the HTML standard's Rendering section.
//!
//! Every function returns `None` when the value is one Chromium would read differently from
//! what we are sure of; the caller then leaves the markup alone and counts it with a reason.

use super::color::parse_legacy_color;

/// One CSS declaration, `(property, value)`.
pub type Decl = (String, String);

fn decl(p: &str, v: impl Into<String>) -> Decl {
    (p.to_string(), v.into())
}

/// `<font size>` per the standard's "rules for parsing a legacy font size" (also Chromium's
/// `HTMLFontElement::ParseFontSize`): `+N`/`-N` are relative to 3 (Chromium ignores
/// `<basefont>`), clamped to 1–7, then mapped to the keyword table.
pub fn font_size(value: &str) -> Option<Option<Decl>> {
    let s = value.trim_start_matches(|c: char| c.is_ascii_whitespace());
    let (mode, digits) = match s.as_bytes().first() {
        Some(b'+') => (1, &s[1..]),
        Some(b'-') => (-1, &s[1..]),
        _ => (0, s),
    };
    let end = digits
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(digits.len());
    if end == 0 {
        // No digits: the attribute sets nothing.
        return Some(None);
    }
    let n: i64 = digits[..end].parse().unwrap_or(i64::MAX / 2);
    let n = match mode {
        1 => n.saturating_add(3),
        -1 => 3 - n,
        _ => n,
    }
    .clamp(1, 7);
    let keyword = [
        "x-small",
        "small",
        "medium",
        "large",
        "x-large",
        "xx-large",
        "xxx-large",
    ][(n - 1) as usize];
    Some(Some(decl("font-size", keyword)))
}

/// `<font face>` as a `font-family` list, only when every family is a plain identifier
/// sequence that Chromium's font-family parser reads the same way.
pub fn font_face(value: &str) -> Option<Decl> {
    let mut families = Vec::new();
    for family in value.split(',') {
        let words: Vec<&str> = family.split_ascii_whitespace().collect();
        let ok = !words.is_empty()
            && words.iter().all(|w| {
                let mut chars = w.chars();
                let first = chars.next().unwrap_or('0');
                (first.is_ascii_alphabetic() || first == '_')
                    && chars.all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            })
            && !(words.len() == 1
                && matches!(
                    words[0].to_ascii_lowercase().as_str(),
                    "inherit" | "initial" | "unset" | "default" | "revert" | "revert-layer"
                ));
        if !ok {
            return None;
        }
        families.push(words.join(" "));
    }
    Some(decl("font-family", families.join(",")))
}

/// A legacy colour attribute: `Some(None)` when it sets no colour (empty, `transparent`).
pub fn color(property: &str, value: &str) -> Option<Decl> {
    parse_legacy_color(value).map(|c| decl(property, c))
}

/// A non-negative pixel count written as plain digits.
fn pixels(value: &str) -> Option<u32> {
    let v = value.trim();
    if v.is_empty() || v.len() > 6 || !v.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    v.parse().ok()
}

/// `width`/`height` on tables and cells: a positive integer (pixels) or a positive
/// integer percentage. Anything else (decimals, trailing junk, zero) is left alone.
pub fn length(property: &str, value: &str) -> Option<Decl> {
    let v = value.trim();
    if let Some(pct) = v.strip_suffix('%') {
        let n = pixels(pct)?;
        return (n > 0).then(|| decl(property, format!("{n}%")));
    }
    let n = pixels(v)?;
    (n > 0).then(|| decl(property, format!("{n}px")))
}

/// A plain pixel value, zero allowed (margins, spacing, padding).
pub fn px(property: &str, value: &str) -> Option<Decl> {
    let n = pixels(value)?;
    Some(decl(
        property,
        if n == 0 { "0".into() } else { format!("{n}px") },
    ))
}

/// `align` on p, div, td, th, tr, tbody…: Chromium uses the `-webkit-` values, which also
/// align block children (tables) the way `<center>` does.
pub fn block_align(value: &str) -> Option<Decl> {
    let v = value.trim().to_ascii_lowercase();
    let keyword = match v.as_str() {
        "center" | "middle" => "-webkit-center",
        "left" => "-webkit-left",
        "right" => "-webkit-right",
        "justify" => "justify",
        _ => return None,
    };
    Some(decl("text-align", keyword))
}

/// `align` on h1–h6: plain `text-align` (no special alignment of block children, checked
/// in Chromium against `-webkit-center`).
pub fn heading_align(value: &str) -> Option<Decl> {
    let v = value.trim().to_ascii_lowercase();
    matches!(v.as_str(), "left" | "right" | "center" | "justify").then(|| decl("text-align", v))
}

/// `align` on hr: the rule's horizontal margins.
pub fn hr_align(value: &str) -> Option<Vec<Decl>> {
    let (left, right) = match value.trim().to_ascii_lowercase().as_str() {
        "left" => ("0", "auto"),
        "right" => ("auto", "0"),
        "center" => ("auto", "auto"),
        _ => return None,
    };
    Some(vec![decl("margin-left", left), decl("margin-right", right)])
}

/// `n` pixels as CSS text.
pub fn px_text(n: u32) -> String {
    if n == 0 {
        "0".into()
    } else {
        format!("{n}px")
    }
}

/// `align` on a table: centre with auto margins, left/right float.
pub fn table_align(value: &str) -> Option<Vec<Decl>> {
    match value.trim().to_ascii_lowercase().as_str() {
        "center" => Some(vec![
            decl("margin-left", "auto"),
            decl("margin-right", "auto"),
        ]),
        "left" => Some(vec![decl("float", "left")]),
        "right" => Some(vec![decl("float", "right")]),
        _ => None,
    }
}

/// `valign` on table parts.
pub fn valign(value: &str) -> Option<Decl> {
    let v = value.trim().to_ascii_lowercase();
    matches!(v.as_str(), "top" | "middle" | "bottom" | "baseline")
        .then(|| decl("vertical-align", v))
}

/// `align` on img (Chromium's `ApplyAlignmentAttributeToStyle`).
pub fn image_align(value: &str) -> Option<Vec<Decl>> {
    let v = value.trim().to_ascii_lowercase();
    Some(match v.as_str() {
        // Chromium also sets `vertical-align: top`, which a float ignores.
        "left" | "right" => vec![decl("float", v.clone())],
        "absmiddle" | "center" => vec![decl("vertical-align", "middle")],
        "absbottom" => vec![decl("vertical-align", "bottom")],
        "top" => vec![decl("vertical-align", "top")],
        "middle" => vec![decl("vertical-align", "-webkit-baseline-middle")],
        "bottom" | "baseline" => vec![decl("vertical-align", "baseline")],
        "texttop" => vec![decl("vertical-align", "text-top")],
        _ => return None,
    })
}

/// hr `color` (Chromium `HTMLHRElement`): solid borders, and the colour (when it parses) on the
/// borders and the background. A colour that does not parse still makes the borders solid.
pub fn hr_color(value: &str) -> Vec<Decl> {
    let mut decls = vec![decl("border-style", "solid")];
    if let Some((_, c)) = color("border-color", value) {
        decls.push(decl("border-color", c.clone()));
        decls.push(decl("background-color", c));
    }
    decls
}

/// hr `size` (Chromium parses it with `StringToIntLoose`; we take plain digits only): 0 or 1
/// removes the bottom border, N ≥ 2 is a `height` of N − 2 pixels.
pub fn hr_size(value: &str) -> Option<Decl> {
    let n = pixels(value)?;
    Some(if n <= 1 {
        decl("border-bottom-width", "0")
    } else {
        decl("height", px_text(n - 2))
    })
}

/// `bordercolor` on a table (Chromium `HTMLTableElement`): the colour (when it parses) of the
/// table's border; with a `border` of at least 1px (`bordered`) a non-empty value also makes the
/// table's border solid instead of outset (the cells' border is the caller's). Without `border`
/// Chromium 156 draws no border (checked by rendering, though the source suggests a solid one).
pub fn table_bordercolor(value: &str, bordered: bool) -> Vec<Decl> {
    let mut decls = Vec::new();
    if bordered && !value.is_empty() {
        decls.push(decl("border-style", "solid"));
    }
    decls.extend(color("border-color", value));
    decls
}

/// `align` on caption (Chromium `HTMLTableCaptionElement`): the value is parsed as
/// `caption-side`, which only knows `top` and `bottom`. `Some(None)` for the values that are not
/// a `caption-side` and so have no effect at all (`left`, `right`, `center`); `None` for anything
/// else (left as is).
pub fn caption_align(value: &str) -> Option<Option<Decl>> {
    match value.to_ascii_lowercase().as_str() {
        "top" | "bottom" => Some(Some(decl("caption-side", value.to_ascii_lowercase()))),
        "left" | "right" | "center" => Some(None),
        _ => None,
    }
}

/// `align` on an element without its own mapping (`HTMLElement`'s default, used for `legend`
/// and for `applet`, which is an unknown element now): `text-align` with `middle` read as
/// `center`. Only the plain keywords, written without spaces.
pub fn text_align(value: &str) -> Option<Decl> {
    let v = value.to_ascii_lowercase();
    match v.as_str() {
        "middle" => Some(decl("text-align", "center")),
        "left" | "right" | "center" | "justify" => Some(decl("text-align", v)),
        _ => None,
    }
}

/// `align` on legend: `HTMLElement`'s `text-align`, plus the UA rules
/// `legend[align=left i] { justify-self: left }` (and `center`, `right`) that position the legend
/// on the fieldset's border and stop matching once the attribute is gone.
pub fn legend_align(value: &str) -> Option<Vec<Decl>> {
    let mut decls = vec![text_align(value)?];
    let v = value.to_ascii_lowercase();
    if matches!(v.as_str(), "left" | "center" | "right") {
        decls.push(decl("justify-self", v));
    }
    Some(decls)
}

/// `<br clear>`.
pub fn clear(value: &str) -> Option<Decl> {
    let v = value.trim().to_ascii_lowercase();
    match v.as_str() {
        "all" | "both" => Some(decl("clear", "both")),
        "left" | "right" | "none" => Some(decl("clear", v)),
        _ => None,
    }
}

/// A CSS `url("…")` for an attribute URL.
pub fn url(value: &str) -> String {
    let v = value.trim().replace(['\n', '\r', '\t'], "");
    format!("url(\"{}\")", v.replace('\\', "\\\\").replace('"', "\\\""))
}

/// Declarations for the elements that become a `<span>` or `<div>`.
pub fn element_style(tag: &str) -> Option<(&'static str, Vec<Decl>)> {
    Some(match tag {
        "center" => ("div", vec![decl("text-align", "-webkit-center")]),
        "u" => ("span", vec![decl("text-decoration", "underline")]),
        "s" | "strike" => ("span", vec![decl("text-decoration", "line-through")]),
        "tt" => ("span", vec![decl("font-family", "monospace")]),
        "big" => ("span", vec![decl("font-size", "larger")]),
        "nobr" => ("span", vec![decl("white-space", "nowrap")]),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn font_sizes_follow_the_standard_keyword_table() {
        let kw = |v: &str| font_size(v).unwrap().map(|d| d.1);
        assert_eq!(kw("1").as_deref(), Some("x-small"));
        assert_eq!(kw("+2").as_deref(), Some("x-large"));
        assert_eq!(kw("-1").as_deref(), Some("small"));
        assert_eq!(kw("+9").as_deref(), Some("xxx-large"));
        assert_eq!(kw(" 4px").as_deref(), Some("large"));
        assert_eq!(kw("big"), None);
    }

    #[test]
    fn only_plain_font_faces_are_converted() {
        assert_eq!(
            font_face("Arial, Helvetica,sans-serif").unwrap().1,
            "Arial,Helvetica,sans-serif"
        );
        assert!(font_face("3D Font").is_none());
        assert!(font_face("\"Comic Sans\"").is_none());
        assert!(font_face("Arial,").is_none());
    }

    #[test]
    fn lengths_accept_only_clean_positive_values() {
        assert_eq!(length("width", "50").unwrap().1, "50px");
        assert_eq!(length("width", " 50% ").unwrap().1, "50%");
        assert!(length("width", "0").is_none());
        assert!(length("width", "50.5").is_none());
        assert!(length("width", "50px").is_none());
    }

    #[test]
    fn hr_size_takes_plain_digits_and_drops_the_bottom_border_up_to_1() {
        let v = |s: &str| hr_size(s);
        assert_eq!(v("0"), Some(decl("border-bottom-width", "0")));
        assert_eq!(v(" 1 "), Some(decl("border-bottom-width", "0")));
        assert_eq!(v("2"), Some(decl("height", "0")));
        assert_eq!(v("7"), Some(decl("height", "5px")));
        assert_eq!(v("-1"), None);
        assert_eq!(v("1px"), None);
        assert_eq!(v(""), None);
    }

    #[test]
    fn hr_color_is_solid_even_when_the_colour_does_not_parse() {
        assert_eq!(
            hr_color("chucknorris"),
            vec![
                decl("border-style", "solid"),
                decl("border-color", "#c00000"),
                decl("background-color", "#c00000"),
            ]
        );
        assert_eq!(hr_color(""), vec![decl("border-style", "solid")]);
        assert_eq!(hr_color("transparent"), vec![decl("border-style", "solid")]);
    }

    #[test]
    fn table_bordercolor_is_solid_only_with_a_border_and_a_value() {
        assert_eq!(
            table_bordercolor("red", true),
            vec![decl("border-style", "solid"), decl("border-color", "red")]
        );
        assert_eq!(
            table_bordercolor("red", false),
            vec![decl("border-color", "red")]
        );
        assert_eq!(table_bordercolor("", true), Vec::<Decl>::new());
        assert_eq!(
            table_bordercolor("transparent", true),
            vec![decl("border-style", "solid")]
        );
    }

    #[test]
    fn caption_align_knows_only_top_and_bottom_and_ignores_the_horizontal_values() {
        assert_eq!(
            caption_align("BOTTOM"),
            Some(Some(decl("caption-side", "bottom")))
        );
        assert_eq!(caption_align("left"), Some(None));
        assert_eq!(caption_align("center"), Some(None));
        assert_eq!(caption_align("middle"), None);
        assert_eq!(caption_align(" top"), None);
    }

    #[test]
    fn legend_align_adds_justify_self_only_for_the_ua_keywords() {
        assert_eq!(
            legend_align("Right"),
            Some(vec![
                decl("text-align", "right"),
                decl("justify-self", "right")
            ])
        );
        assert_eq!(
            legend_align("middle"),
            Some(vec![decl("text-align", "center")])
        );
        assert_eq!(
            legend_align("justify"),
            Some(vec![decl("text-align", "justify")])
        );
        assert_eq!(legend_align("bottom"), None);
        assert_eq!(legend_align("left "), None);
    }
}
