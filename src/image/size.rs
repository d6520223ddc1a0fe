//! An image's width and height from its header alone, without decoding its pixels: what the
//! browser simulation needs to tell the page's largest image (its largest contentful paint
//! candidate) from the others. GIF and PNG through `image`, JPEG through zune-jpeg's header
//! reader, WebP through image-webp: the decoders webdiet already has.

use std::io::Cursor;

/// `(width, height)` of a GIF, PNG, JPEG or WebP file; `None` for anything else, or a header
/// that does not parse.
pub fn dimensions(bytes: &[u8]) -> Option<(u32, u32)> {
    match bytes {
        [0xFF, 0xD8, ..] => {
            let mut decoder = zune_jpeg::JpegDecoder::new(bytes);
            decoder.decode_headers().ok()?;
            decoder.dimensions().map(|(w, h)| (w as u32, h as u32))
        }
        [b'R', b'I', b'F', b'F', _, _, _, _, b'W', b'E', b'B', b'P', ..] => {
            image_webp::WebPDecoder::new(Cursor::new(bytes))
                .ok()
                .map(|d| d.dimensions())
        }
        _ => image::ImageReader::new(Cursor::new(bytes))
            .with_guessed_format()
            .ok()?
            .into_dimensions()
            .ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_gives_the_size_of_every_kind_webdiet_serves() {
        let mut gif = Vec::new();
        {
            let mut e = gif::Encoder::new(&mut gif, 7, 3, &[0, 0, 0, 255, 255, 255]).unwrap();
            e.write_frame(&gif::Frame::from_indexed_pixels(7, 3, vec![1; 21], None))
                .unwrap();
        }
        assert_eq!(dimensions(&gif), Some((7, 3)));
        let mut png = Vec::new();
        {
            let mut e = png::Encoder::new(&mut png, 5, 9);
            e.set_color(png::ColorType::Grayscale);
            e.write_header()
                .unwrap()
                .write_image_data(&[0; 45])
                .unwrap();
        }
        assert_eq!(dimensions(&png), Some((5, 9)));
        assert_eq!(dimensions(b"not an image"), None);
        assert_eq!(dimensions(&gif[..8]), None);
    }
}
