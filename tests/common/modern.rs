//! A small site as today's documentation generators make it, written by our own code: a page
//! with a style sheet full of comments and fallbacks, a script, an unoptimised PNG with text
//! chunks and a gamma chunk, a camera JPEG whose EXIF says "rotate 90°" and which carries a
//! comment, and an SVG. Everything the lossless pass touches, and two things it must keep
//! (the gamma a browser applies, the orientation a browser follows).

use std::path::Path;

/// `Exif\0\0`, a big-endian TIFF header and one IFD entry: Orientation = `orientation`.
pub fn exif(orientation: u8) -> Vec<u8> {
    let mut e = b"Exif\0\0MM\0\x2a\0\0\0\x08\0\x01".to_vec();
    e.extend_from_slice(&[
        0x01,
        0x12,
        0,
        3,
        0,
        0,
        0,
        1,
        0,
        orientation,
        0,
        0,
        0,
        0,
        0,
        0,
    ]);
    e
}

/// A still PNG with no colour chunk: a noisy gradient (different for each `seed`), which
/// lossless WebP codes smaller than any PNG, whose 12 leftmost columns have the opacity
/// `edge` (255: opaque, 0: cut out, between: partly transparent).
pub fn plain_png(seed: u32, edge: u8) -> Vec<u8> {
    let (w, h) = (96u32, 64u32);
    let mut data = Vec::new();
    for y in 0..h {
        for x in 0..w {
            let noise = (x.wrapping_mul(2_654_435_761) ^ y.wrapping_mul(40_503) ^ seed) >> 29;
            let a = if x < 12 { edge } else { 255 };
            data.extend_from_slice(&[(x * 2 + noise) as u8, (y * 3) as u8, (x + y) as u8, a]);
        }
    }
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, w, h);
    encoder.set_color(png::ColorType::Rgba);
    encoder
        .write_header()
        .unwrap()
        .write_image_data(&data)
        .unwrap();
    out
}

/// A PNG or a WebP decoded as RGBA at 8 bits (a PNG by the `png` crate, a WebP by
/// `image-webp`): width, height and pixels.
pub fn rgba(bytes: &[u8]) -> (u32, u32, Vec<u8>) {
    if bytes.starts_with(b"RIFF") {
        let mut d = image_webp::WebPDecoder::new(std::io::Cursor::new(bytes)).unwrap();
        let (w, h) = d.dimensions();
        let mut buf = vec![0; d.output_buffer_size().unwrap()];
        d.read_image(&mut buf).unwrap();
        if !d.has_alpha() {
            buf = buf
                .chunks(3)
                .flat_map(|p| [p[0], p[1], p[2], 255])
                .collect();
        }
        (w, h, buf)
    } else {
        let mut d = png::Decoder::new(std::io::Cursor::new(bytes));
        d.set_transformations(png::Transformations::EXPAND);
        let mut r = d.read_info().unwrap();
        let mut buf = vec![0; r.output_buffer_size().unwrap()];
        let info = r.next_frame(&mut buf).unwrap();
        (info.width, info.height, buf)
    }
}

/// An RGBA gradient with a soft edge, written without filters at the fastest level, with a
/// `tEXt`, a `tIME` and a `gAMA` chunk.
pub fn unoptimised_png() -> Vec<u8> {
    let (w, h) = (120u32, 80u32);
    let mut data = Vec::new();
    for y in 0..h {
        for x in 0..w {
            let alpha = if x < 10 { (x * 25) as u8 } else { 255 };
            data.extend_from_slice(&[(x * 2) as u8, (y * 3) as u8, 160, alpha]);
        }
    }
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, w, h);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_compression(png::Compression::Fastest);
        encoder.set_filter(png::Filter::NoFilter);
        encoder.set_source_gamma(png::ScaledFloat::new(1.0 / 1.8));
        encoder
            .add_text_chunk("Software".into(), "a documentation generator".into())
            .unwrap();
        let mut writer = encoder.write_header().unwrap();
        writer
            .write_chunk(png::chunk::ChunkType(*b"tIME"), &[7, 234, 12, 3, 8, 0, 0])
            .unwrap();
        writer.write_image_data(&data).unwrap();
    }
    out
}

/// A 160×90 camera JPEG (plain baseline tables) rotated by its EXIF, with a comment.
pub fn camera_jpeg() -> Vec<u8> {
    let (w, h) = (160u32, 90u32);
    let mut rgb = Vec::new();
    for y in 0..h {
        for x in 0..w {
            let t = ((x * 7 + y * 13) % 23) as u8;
            rgb.extend_from_slice(&[(x + t as u32) as u8, (y * 2) as u8, 200 - t]);
        }
    }
    let exif = exif(6);
    webdiet::image::plain_jpeg(
        &rgb,
        w,
        h,
        3,
        &[(0xE1, &exif), (0xFE, b"taken with a test camera")],
    )
    .expect("the samples fill the image")
}

const STYLE: &str = "/* Theme for the documentation (made by hand, with love). */

body {
    font-family: 'DejaVu Sans', sans-serif;   /* the page font */
    margin: 0px 0px 0px 0px;
    color: #333333;
    background-color: #FFFFFF;
}

/* fallbacks an old browser needs */
div.note {
    background: #EEEEEE;
    background: rgba(0, 0, 0, 0.05);
    border: 1px solid #CCCCCC;
    -webkit-border-radius: 4px;
    border-radius: 4px;
    padding: 8px 12px 8px 12px;
}

pre {
    white-space: pre;
    font-family: 'DejaVu Sans Mono', monospace;
}
";

const SCRIPT: &str = "// Marks the page as enhanced, as documentation themes do.
(function () {
    /* the element the script writes to */
    var out = document.getElementById('out');
    out.textContent = 'script ran: ' + (6 * 7);
})();
";

const SVG: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>
<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"120\" height=\"40\" viewBox=\"0 0 120 40\">
  <!-- a diagram -->
  <rect x=\"2\" y=\"2\" width=\"116\" height=\"36\" fill=\"#ddeeff\" stroke=\"#336699\"/>
  <text x=\"60\" y=\"25\" text-anchor=\"middle\" font-size=\"14\">diagram</text>
</svg>
";

/// Writes the site under `root`.
pub fn write(root: &Path) {
    let mut page = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>Modern docs</title><link rel=\"stylesheet\" href=\"_static/style.css\">\
         <script src=\"_static/app.js\" defer></script></head><body>\n\
         <h1>Modern docs</h1><p id=\"out\">no script</p>\n\
         <p><img src=\"_images/logo.png\" alt=\"logo\"> <img src=\"_images/photo.jpg\" alt=\"photo\">\
         <img src=\"_images/diagram.svg\" alt=\"diagram\"></p>\n",
    );
    for i in 0..60 {
        page.push_str(&format!(
            "<div class=\"note\"><p>Section {i}: the lossless pass keeps every pixel.</p></div>\n"
        ));
    }
    page.push_str("<pre>  indented\n    code</pre></body></html>\n");
    let png = unoptimised_png();
    let jpeg = camera_jpeg();
    super::write_site(
        root,
        &[
            ("index.html", page.as_bytes()),
            ("_static/style.css", STYLE.as_bytes()),
            ("_static/app.js", SCRIPT.as_bytes()),
            ("_images/logo.png", &png),
            ("_images/photo.jpg", &jpeg),
            ("_images/diagram.svg", SVG.as_bytes()),
        ],
    );
}
