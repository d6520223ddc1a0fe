//! A hidden debugging path for the markup stage until `webdiet rewrite` wires it: converts a
//! whole directory into another one and writes a JSON summary, so pages can be rendered and
//! compared in Chromium (`benches/markup-render-check.sh`).
//!
//! Run with `WEBDIET_MARKUP_IN=site WEBDIET_MARKUP_OUT=/tmp/out cargo test --test markup_site
//! -- --ignored` (optionally `WEBDIET_MARKUP_CSS=per-page|inline-style`). With
//! `WEBDIET_MARKUP_ORIG_OUT=dir`, the original pages are copied there too, and in both copies every
//! animated GIF is frozen on its first frame, so screenshots of the two copies do not differ by
//! the moment an animation was caught in.

use std::fs;
use std::io::Write;
use std::path::Path;

use flate2::write::DeflateEncoder;
use flate2::Compression;
use webdiet::markup::{build_sheet, convert_page, CssMode, MarkupOptions, PageMarkup};
use webdiet::site::charset;

fn deflated(bytes: &[u8]) -> usize {
    let mut e = DeflateEncoder::new(Vec::new(), Compression::new(9));
    e.write_all(bytes).unwrap();
    e.finish().unwrap().len()
}

/// The first frame of an animated GIF as a PNG (Chromium sniffs the type), or `None` for a
/// still image.
fn frozen(gif: &[u8]) -> Option<Vec<u8>> {
    use image::AnimationDecoder;
    let decoder = image::codecs::gif::GifDecoder::new(std::io::Cursor::new(gif)).ok()?;
    let frames: Vec<_> = decoder
        .into_frames()
        .take(2)
        .collect::<Result<_, _>>()
        .ok()?;
    if frames.len() < 2 {
        return None;
    }
    let mut png = Vec::new();
    image::DynamicImage::ImageRgba8(frames[0].buffer().clone())
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .ok()?;
    Some(png)
}

#[test]
#[ignore = "debugging path: needs WEBDIET_MARKUP_IN and WEBDIET_MARKUP_OUT"]
fn convert_directory_for_inspection() {
    let (Ok(input), Ok(output)) = (
        std::env::var("WEBDIET_MARKUP_IN"),
        std::env::var("WEBDIET_MARKUP_OUT"),
    ) else {
        eprintln!("set WEBDIET_MARKUP_IN and WEBDIET_MARKUP_OUT");
        return;
    };
    let css = match std::env::var("WEBDIET_MARKUP_CSS").as_deref() {
        Ok("per-page") => CssMode::PerPage,
        Ok("inline-style") => CssMode::InlineStyle,
        _ => CssMode::SiteSheet,
    };
    let (input, output) = (Path::new(&input), Path::new(&output));
    let orig_out = std::env::var("WEBDIET_MARKUP_ORIG_OUT").ok();
    let orig_out = orig_out.as_deref().map(Path::new);
    let mut pages: Vec<(String, Vec<u8>, PageMarkup)> = Vec::new();
    for entry in walkdir::WalkDir::new(input).sort_by_file_name() {
        let entry = entry.unwrap();
        let rel = entry.path().strip_prefix(input).unwrap();
        let dest = output.join(rel);
        if entry.file_type().is_dir() {
            fs::create_dir_all(&dest).unwrap();
            if let Some(o) = orig_out {
                fs::create_dir_all(o.join(rel)).unwrap();
            }
            continue;
        }
        let bytes = fs::read(entry.path()).unwrap();
        let rel = rel.to_string_lossy().replace('\\', "/");
        if let Some(o) = orig_out {
            let copy = if rel.ends_with(".gif") && o.exists() {
                frozen(&bytes).unwrap_or_else(|| bytes.clone())
            } else {
                bytes.clone()
            };
            fs::write(o.join(&rel), &copy).unwrap();
            if rel.ends_with(".gif") {
                fs::write(&dest, &copy).unwrap();
                continue;
            }
        }
        if rel.ends_with(".html") || rel.ends_with(".htm") {
            let opts = MarkupOptions {
                css,
                page_path: rel.clone(),
                encoding: charset::detect(&bytes).encoding,
                ..MarkupOptions::default()
            };
            let page = convert_page(&bytes, &opts);
            pages.push((rel, bytes, page));
        } else {
            fs::write(&dest, &bytes).unwrap();
        }
    }
    let sheet = build_sheet(pages.iter().map(|p| &p.2)).unwrap();
    if css == CssMode::SiteSheet {
        fs::write(output.join("webdiet.css"), &sheet.css).unwrap();
    }
    let mut summary = serde_json::Map::new();
    let mut per_page = Vec::new();
    let (mut before_total, mut after_total) = (
        std::collections::BTreeMap::<String, usize>::new(),
        std::collections::BTreeMap::<String, usize>::new(),
    );
    let (mut hb, mut ha, mut db, mut da) = (0, 0, 0, 0);
    let mut left = std::collections::BTreeMap::<String, usize>::new();
    let mut text_images = Vec::new();
    for (rel, original, page) in &pages {
        let html = page.bytes(
            original,
            (css == CssMode::SiteSheet).then_some(&sheet.names),
        );
        fs::write(output.join(rel), &html).unwrap();
        for (k, v) in &page.constructs_before {
            *before_total.entry(k.clone()).or_default() += v;
        }
        for (k, v) in &page.constructs_after {
            *after_total.entry(k.clone()).or_default() += v;
        }
        for (c, r) in page.left_as_is.iter() {
            *left.entry(format!("{c}:{r}")).or_default() += 1;
        }
        let decoded = charset::decode(original);
        let audit = webdiet::markup::audit::text_images(&decoded.text, &Default::default());
        let dir = Path::new(rel).parent().unwrap_or(Path::new(""));
        for image in audit {
            let bytes = fs::metadata(input.join(dir).join(&image.src))
                .map(|m| m.len())
                .ok();
            text_images.push(serde_json::json!({
                "page": rel, "src": image.src, "alt": image.alt,
                "width": image.width, "height": image.height, "bytes": bytes,
            }));
        }
        hb += original.len();
        ha += html.len();
        db += deflated(original);
        da += deflated(&html);
        per_page.push(serde_json::json!({
            "path": rel, "changed": page.changed,
            "html_bytes_before": original.len(), "html_bytes_after": html.len(),
            "constructs_before": page.constructs_before, "constructs_after": page.constructs_after,
        }));
    }
    summary.insert("constructs_before".into(), serde_json::json!(before_total));
    summary.insert("constructs_after".into(), serde_json::json!(after_total));
    summary.insert("left_as_is".into(), serde_json::json!(left));
    summary.insert("html_bytes_before".into(), hb.into());
    summary.insert("html_bytes_after".into(), ha.into());
    summary.insert("html_deflated_before".into(), db.into());
    summary.insert("html_deflated_after".into(), da.into());
    summary.insert("css_bytes".into(), sheet.css.len().into());
    summary.insert("css_deflated".into(), deflated(sheet.css.as_bytes()).into());
    summary.insert("text_images".into(), text_images.into());
    summary.insert("pages".into(), per_page.into());
    fs::write(
        output.join("markup-summary.json"),
        serde_json::to_string_pretty(&summary).unwrap(),
    )
    .unwrap();
}
