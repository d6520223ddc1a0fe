//! A spacer image becomes an empty `inline-block` span of the same size: the declarations
//! that make the span take the image's box, or the reason it cannot.

use crate::html::{edit, Node};
use crate::image::{Fill, ImageFacts};

use super::rules::{self, Decl};

/// Attributes a spacer may still carry when it becomes a span: `title` and `class` keep their
/// meaning on a span; anything else (`usemap`, `name`, `id`, event handlers, attributes left
/// unconverted) could be read by a script or change behaviour.
const SPACER_KEEPS: &[&str] = &["src", "alt", "width", "height", "title", "class"];

/// The declarations that make a span take a spacer's box, or why it cannot.
pub(super) fn spacer_box(
    el: &Node,
    facts: &ImageFacts,
    decls: &[Decl],
) -> Result<Vec<Decl>, &'static str> {
    if edit::attr_names(el)
        .iter()
        .any(|a| !SPACER_KEEPS.contains(&a.as_str()))
    {
        return Err("spacer-attributes");
    }
    // A `<picture>` chooses among its sources for the `<img>`: it may show something else.
    if edit::parent(el).is_some_and(|p| edit::is(&p, "picture")) {
        return Err("spacer-in-picture");
    }
    // The alt text is not shown while the image loads, but it is what a screen reader or a
    // text browser says: keep a spacer whose alt says something.
    if edit::attr(el, "alt").is_some_and(|a| !a.trim().is_empty()) {
        return Err("spacer-alt-text");
    }
    let fill = facts.fill.ok_or("spacer-not-flat")?;
    // A solid span paints its background under the border too; the image did not.
    if matches!(fill, Fill::Solid(_)) && decls.iter().any(|(p, _)| p.starts_with("border")) {
        return Err("spacer-border");
    }
    let dimension = |name: &str| -> Result<Option<u64>, &'static str> {
        match edit::attr(el, name) {
            None => Ok(None),
            Some(v) if v.trim().ends_with('%') => Err("spacer-percent-size"),
            Some(v) => rules::px("width", &v)
                .map(|_| v.trim().parse().ok())
                .ok_or("spacer-size-unparsed"),
        }
    };
    let (nat_w, nat_h) = (u64::from(facts.width), u64::from(facts.height));
    // With one dimension given the other keeps the image's aspect ratio; only whole pixels
    // are converted.
    let (w, h) = match (dimension("width")?, dimension("height")?) {
        (Some(w), Some(h)) => (w, h),
        (Some(w), None) if (w * nat_h) % nat_w == 0 => (w, w * nat_h / nat_w),
        (None, Some(h)) if (h * nat_w) % nat_h == 0 => (h * nat_w / nat_h, h),
        (None, None) => (nat_w, nat_h),
        _ => return Err("spacer-fractional-size"),
    };
    let px = |n: u64| rules::px_text(u32::try_from(n).unwrap_or(u32::MAX));
    let mut out = vec![
        ("display".to_string(), "inline-block".to_string()),
        ("width".to_string(), px(w)),
        ("height".to_string(), px(h)),
    ];
    if let Fill::Solid([r, g, b]) = fill {
        out.push((
            "background-color".to_string(),
            format!("#{r:02x}{g:02x}{b:02x}"),
        ));
    }
    Ok(out)
}
