//! Audit only: images that look like text rendered as a picture (buttons, headings), which CSS
//! text could replace and save a request each. The 1997 study found 23 of its 40 images were
//! such. This module does the markup half of the test: a small, wide image inside a link, with
//! alt text. The pixel half (few colours, `max_colors`) is applied by the rewrite, which reads
//! the files (`image::facts`).

use serde::Serialize;

use crate::html::{self, edit};

/// One image that looks like text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TextImage {
    /// `src` as written.
    pub src: String,
    /// The alt text, which is what the picture most likely says.
    pub alt: String,
    pub width: u32,
    pub height: u32,
}

/// What the markup audit counts as an image of text (not [`crate::audit::AuditOptions`], the
/// whole pipeline's options).
#[derive(Debug, Clone)]
pub struct TextImageOptions {
    /// Tallest image counted as a line of text, in CSS pixels. Default: 48.
    pub max_height: u32,
    /// Smallest width / height ratio. Default: 2.0.
    pub min_aspect: f32,
    /// Most distinct colours an image of text shows: text and its ground in a few flat colours
    /// with anti-aliasing between them. Photos and drawings show hundreds. Default: 64.
    pub max_colors: usize,
}

impl Default for TextImageOptions {
    fn default() -> Self {
        TextImageOptions {
            max_height: 48,
            min_aspect: 2.0,
            max_colors: 64,
        }
    }
}

/// Images in a page that look like text: inside a link, with alt text of at least two
/// letters, declared `width`/`height`, no taller than `max_height` and at least `min_aspect`
/// times as wide as tall.
pub fn text_images(text: &str, opts: &TextImageOptions) -> Vec<TextImage> {
    // No `<img` (nor `<image`, which the parser makes an `img`): nothing to parse for.
    if !html::lex::may_have_tag(text.as_bytes(), b"im") {
        return Vec::new();
    }
    // A page too deep to parse is not audited.
    let Ok(dom) = html::parse(text) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for el in edit::elements(&dom) {
        if !edit::is(&el, "img") || !in_link(&el) {
            continue;
        }
        let num = |a: &str| edit::attr(&el, a).and_then(|v| v.trim().parse::<u32>().ok());
        let (Some(src), Some(alt), Some(width), Some(height)) = (
            edit::attr(&el, "src"),
            edit::attr(&el, "alt"),
            num("width"),
            num("height"),
        ) else {
            continue;
        };
        let letters = alt.chars().filter(|c| c.is_alphabetic()).count();
        if letters >= 2
            && height > 0
            && height <= opts.max_height
            && width as f32 >= opts.min_aspect * height as f32
        {
            found.push(TextImage {
                src,
                alt: alt.trim().to_string(),
                width,
                height,
            });
        }
    }
    found
}

fn in_link(el: &html::Node) -> bool {
    let mut cur = edit::parent(el);
    while let Some(node) = cur {
        if edit::is(&node, "a") && edit::attr(&node, "href").is_some() {
            return true;
        }
        cur = edit::parent(&node);
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wide_linked_button_with_alt_text_is_a_text_image_and_a_photo_is_not() {
        let page = r#"<a href="n.html"><img src="b/news.gif" width=128 height=20 alt="News"></a>
            <a href="p.html"><img src="photo.jpg" width=200 height=150 alt="Jordan"></a>
            <img src="h.gif" width=300 height=30 alt="Heading not linked">
            <a href="x"><img src="s.gif" width=100 height=10 alt=""></a>"#;
        let found = text_images(page, &TextImageOptions::default());
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].alt, "News");
    }

    #[test]
    fn an_image_tag_is_an_img_and_a_page_without_either_has_none() {
        let page =
            r#"<A HREF="n.html"><IMAGE SRC="b/news.gif" WIDTH=128 HEIGHT=20 ALT="News"></A>"#;
        let found = text_images(page, &TextImageOptions::default());
        assert_eq!(found.len(), 1, "the parser makes <image> an img");
        assert!(text_images("<a href=x>News</a>", &TextImageOptions::default()).is_empty());
    }
}
