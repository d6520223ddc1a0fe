//! How the tests check that a chart's labels can be read: the extent of every `<text>` of an
//! SVG webdiet drew, from its position, anchor, font size and a conservative width per
//! character ([`super::charts::text_width`]), and the pairs that overlap. The browser tests measure
//! the same in Chromium; this one runs without a browser, on every chart the renderers draw.

use super::charts::text_width;

/// The box a text takes, in the SVG's own units.
#[derive(Debug, Clone, PartialEq)]
pub struct TextBox {
    pub text: String,
    pub x0: f64,
    pub x1: f64,
    pub y0: f64,
    pub y1: f64,
}

/// Every `<svg>…</svg>` of an HTML page (or a lone SVG document).
pub fn svgs(html: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(start) = rest.find("<svg") {
        let Some(len) = rest[start..].find("</svg>") else {
            break;
        };
        out.push(&rest[start..start + len + 6]);
        rest = &rest[start + len + 6..];
    }
    out
}

/// The value of attribute `name` in a start tag.
fn attribute<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let at = tag.find(&key)? + key.len();
    let end = tag[at..].find('"')?;
    Some(&tag[at..at + end])
}

/// The text of an element's content: tags dropped, the entities the renderers write decoded.
fn content(inner: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in inner.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// The box of every `<text>` of one SVG. A text without a `font-size` of its own is taken at
/// 12 units (the report's style sheet); one turned by `rotate(-90)` runs upwards.
pub fn text_boxes(svg: &str) -> Vec<TextBox> {
    let mut out = Vec::new();
    let mut rest = svg;
    while let Some(start) = rest.find("<text") {
        let tag_end = rest[start..].find('>').map_or(rest.len(), |i| start + i);
        let tag = &rest[start..tag_end];
        let close = rest[tag_end..]
            .find("</text>")
            .map_or(rest.len(), |i| tag_end + i);
        let text = content(&rest[tag_end + 1..close]);
        rest = &rest[close..];
        let num = |name: &str, default: f64| {
            attribute(tag, name)
                .and_then(|v| v.parse::<f64>().ok())
                .unwrap_or(default)
        };
        let font = num("font-size", 12.0);
        let (mut x, mut y) = (num("x", 0.0), num("y", 0.0));
        let width = text_width(&text, font);
        let anchor = attribute(tag, "text-anchor").unwrap_or("start");
        let along = |at: f64| match anchor {
            "middle" => (at - width / 2.0, at + width / 2.0),
            "end" => (at - width, at),
            _ => (at, at + width),
        };
        let transform = attribute(tag, "transform").unwrap_or("");
        if let Some(t) = transform.strip_prefix("translate(") {
            let nums: Vec<f64> = t
                .split([' ', ',', ')'])
                .filter_map(|n| n.parse().ok())
                .collect();
            if let [tx, ty, ..] = nums[..] {
                x += tx;
                y += ty;
            }
        }
        let b = if transform.contains("rotate(-90)") {
            let (a, b) = along(0.0);
            TextBox {
                text,
                x0: x - 0.8 * font,
                x1: x + 0.2 * font,
                y0: y - b,
                y1: y - a,
            }
        } else {
            let (x0, x1) = along(x);
            TextBox {
                text,
                x0,
                x1,
                y0: y - 0.8 * font,
                y1: y + 0.2 * font,
            }
        };
        out.push(b);
    }
    out
}

/// The pairs of texts whose boxes overlap (by more than half a unit each way).
pub fn overlaps(boxes: &[TextBox]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (i, a) in boxes.iter().enumerate() {
        for b in &boxes[i + 1..] {
            let w = a.x1.min(b.x1) - a.x0.max(b.x0);
            let h = a.y1.min(b.y1) - a.y0.max(b.y0);
            if w > 0.5 && h > 0.5 && !a.text.trim().is_empty() && !b.text.trim().is_empty() {
                out.push((a.text.clone(), b.text.clone()));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_labels_are_found_and_separate_ones_are_not() {
        let svg = "<svg><text x=\"10\" y=\"20\" font-size=\"12\">https-pipelined</text>\
                   <text x=\"40\" y=\"22\" font-size=\"12\">h2c</text>\
                   <text x=\"10\" y=\"60\" font-size=\"12\">apart</text></svg>";
        let boxes = text_boxes(svg);
        assert_eq!(boxes.len(), 3);
        assert_eq!(
            overlaps(&boxes),
            vec![("https-pipelined".to_string(), "h2c".to_string())]
        );
    }

    #[test]
    fn anchors_and_rotation_move_the_box() {
        let svg = "<svg><text x=\"100\" y=\"10\" text-anchor=\"end\">abc</text>\
                   <text transform=\"translate(16 200) rotate(-90)\" text-anchor=\"middle\">\
                   milliseconds</text></svg>";
        let b = text_boxes(svg);
        assert!(b[0].x1 == 100.0 && b[0].x0 < 100.0);
        assert!(
            b[1].y1 - b[1].y0 > b[1].x1 - b[1].x0,
            "a turned text is tall"
        );
        assert_eq!(svgs(&format!("<p>{svg}</p>{svg}")).len(), 2);
    }
}
