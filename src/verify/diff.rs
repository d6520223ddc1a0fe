//! Pixel comparison of two screenshots, and the diff image that shows where they differ.
//!
//! Uses the `png` crate directly: screenshots arrive as PNG and diff images leave as PNG, and
//! nothing here needs the `image` crate's format zoo.

use std::io::Cursor;

/// An 8-bit image with 1 (grey), 2 (grey + alpha), 3 (RGB) or 4 (RGBA) channels.
///
/// Pixels stay in the layout the PNG had: converting every screenshot to RGBA would cost
/// more than the comparison, which is a memcmp when the pages are identical.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    pub width: u32,
    pub height: u32,
    pub channels: usize,
    /// `width * height * channels` bytes, row by row.
    pub pixels: Vec<u8>,
}

impl Image {
    /// A white, opaque RGB image.
    pub fn white(width: u32, height: u32) -> Image {
        Image {
            width,
            height,
            channels: 3,
            pixels: vec![255; width as usize * height as usize * 3],
        }
    }

    /// The pixel at (x, y) as RGBA, or `None` outside the image.
    pub fn get(&self, x: u32, y: u32) -> Option<[u8; 4]> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let i = (y as usize * self.width as usize + x as usize) * self.channels;
        let p = &self.pixels[i..i + self.channels];
        Some(match self.channels {
            4 => [p[0], p[1], p[2], p[3]],
            3 => [p[0], p[1], p[2], 255],
            2 => [p[0], p[0], p[0], p[1]],
            _ => [p[0], p[0], p[0], 255],
        })
    }

    /// Whether every pixel has the same value: a blank page, or a chart that did not draw.
    pub fn is_uniform(&self) -> bool {
        let n = self.channels;
        match self.pixels.get(..n) {
            Some(first) => self.pixels.chunks_exact(n).all(|p| p == first),
            None => true,
        }
    }

    /// Sets the pixel at (x, y) from RGBA (alpha is dropped below 4 channels).
    pub fn put(&mut self, x: u32, y: u32, [r, g, b, a]: [u8; 4]) {
        let n = self.channels;
        let i = (y as usize * self.width as usize + x as usize) * n;
        let grey = ((u32::from(r) + u32::from(g) + u32::from(b)) / 3) as u8;
        let value: &[u8] = match n {
            4 => &[r, g, b, a],
            3 => &[r, g, b],
            2 => &[grey, a],
            _ => &[grey],
        };
        self.pixels[i..i + n].copy_from_slice(value);
    }
}

/// Decodes a PNG (any colour type and depth) to an 8-bit [`Image`].
pub fn decode_png(bytes: &[u8]) -> Result<Image, String> {
    let limits = png::Limits { bytes: 1 << 30 };
    let mut decoder = png::Decoder::new_with_limits(Cursor::new(bytes), limits);
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder.read_info().map_err(|e| e.to_string())?;
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| "image too large".to_string())?;
    let mut buf = vec![0; size];
    let info = reader.next_frame(&mut buf).map_err(|e| e.to_string())?;
    let (width, height) = (info.width, info.height);
    let count = width as usize * height as usize;
    let channels = match info.color_type {
        png::ColorType::Rgba => 4,
        png::ColorType::Rgb => 3,
        png::ColorType::GrayscaleAlpha => 2,
        png::ColorType::Grayscale => 1,
        png::ColorType::Indexed => return Err("palette was not expanded".to_string()),
    };
    buf.truncate(count * channels);
    Ok(Image {
        width,
        height,
        channels,
        pixels: buf,
    })
}

/// Encodes an image as PNG.
pub fn encode_png(image: &Image) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, image.width, image.height);
    encoder.set_color(match image.channels {
        4 => png::ColorType::Rgba,
        3 => png::ColorType::Rgb,
        2 => png::ColorType::GrayscaleAlpha,
        _ => png::ColorType::Grayscale,
    });
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(|e| e.to_string())?;
    writer
        .write_image_data(&image.pixels)
        .map_err(|e| e.to_string())?;
    writer.finish().map_err(|e| e.to_string())?;
    Ok(out)
}

/// How two screenshots differ.
#[derive(Debug, Clone)]
pub struct Comparison {
    /// The compared area: the larger width and the larger height of the two.
    pub width: u32,
    pub height: u32,
    /// Pixels whose colour differs, counting the area only one image covers.
    pub differing_pixels: u64,
    /// The original greyed, differing pixels red; `None` when nothing differs.
    pub diff_image: Option<Image>,
}

impl Comparison {
    /// `differing_pixels` over the compared area, in 0..=1.
    pub fn share(&self) -> f64 {
        let area = u64::from(self.width) * u64::from(self.height);
        if area == 0 {
            0.0
        } else {
            self.differing_pixels as f64 / area as f64
        }
    }
}

const RED: [u8; 4] = [255, 0, 0, 255];

/// Compares two images pixel by pixel over the union of their areas.
pub fn compare(original: &Image, rewritten: &Image) -> Comparison {
    let width = original.width.max(rewritten.width);
    let height = original.height.max(rewritten.height);
    let same_size = original.width == rewritten.width
        && original.height == rewritten.height
        && original.channels == rewritten.channels;
    // Whole-buffer equality is a memcmp: the common case costs nothing pixel by pixel.
    if same_size && original.pixels == rewritten.pixels {
        return Comparison {
            width,
            height,
            differing_pixels: 0,
            diff_image: None,
        };
    }
    let mut image = Image::white(width, height);
    let mut differing = 0;
    for y in 0..height {
        for x in 0..width {
            match (original.get(x, y), rewritten.get(x, y)) {
                (Some(a), Some(b)) if a == b => image.put(x, y, grey(a)),
                _ => {
                    differing += 1;
                    image.put(x, y, RED);
                }
            }
        }
    }
    Comparison {
        width,
        height,
        differing_pixels: differing,
        diff_image: Some(image),
    }
}

/// A pale grey of the pixel's luminance, so red marks stand out.
fn grey([r, g, b, _]: [u8; 4]) -> [u8; 4] {
    let luma = (299 * u32::from(r) + 587 * u32::from(g) + 114 * u32::from(b)) / 1000;
    let pale = ((luma + 2 * 255) / 3) as u8;
    [pale, pale, pale, 255]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filled(width: u32, height: u32, rgba: [u8; 4]) -> Image {
        let mut image = Image::white(width, height);
        image.channels = 4;
        image.pixels = vec![0; width as usize * height as usize * 4];
        for y in 0..height {
            for x in 0..width {
                image.put(x, y, rgba);
            }
        }
        image
    }

    #[test]
    fn identical_images_have_no_differing_pixels_and_no_diff_image() {
        let a = filled(4, 3, [10, 20, 30, 255]);
        let c = compare(&a, &a.clone());
        assert_eq!(c.differing_pixels, 0);
        assert_eq!(c.share(), 0.0);
        assert!(c.diff_image.is_none());
    }

    #[test]
    fn one_changed_pixel_is_counted_and_painted_red() {
        let a = filled(4, 3, [10, 20, 30, 255]);
        let mut b = a.clone();
        b.put(2, 1, [11, 20, 30, 255]);
        let c = compare(&a, &b);
        assert_eq!(c.differing_pixels, 1);
        assert!((c.share() - 1.0 / 12.0).abs() < 1e-12);
        let image = c.diff_image.unwrap();
        assert_eq!(image.get(2, 1), Some(RED));
        assert_ne!(image.get(0, 0), Some(RED));
    }

    #[test]
    fn the_area_only_one_image_covers_counts_as_differing() {
        let short = filled(4, 3, [0, 0, 0, 255]);
        let tall = filled(4, 5, [0, 0, 0, 255]);
        let c = compare(&short, &tall);
        assert_eq!((c.width, c.height), (4, 5));
        assert_eq!(c.differing_pixels, 8);
        assert_eq!(compare(&tall, &short).differing_pixels, 8);
    }

    #[test]
    fn png_encoding_round_trips() {
        let mut a = filled(5, 2, [1, 2, 3, 255]);
        a.put(4, 1, [200, 100, 50, 128]);
        let back = decode_png(&encode_png(&a).unwrap()).unwrap();
        assert_eq!(back, a);
    }

    #[test]
    fn rgb_and_rgba_images_of_the_same_colours_are_identical() {
        let rgba = filled(3, 2, [9, 8, 7, 255]);
        let mut rgb = Image::white(3, 2);
        for y in 0..2 {
            for x in 0..3 {
                rgb.put(x, y, [9, 8, 7, 255]);
            }
        }
        assert_eq!(compare(&rgba, &rgb).differing_pixels, 0);
    }

    #[test]
    fn a_single_coloured_image_is_uniform_and_one_mark_breaks_it() {
        let mut image = Image::white(6, 4);
        assert!(image.is_uniform());
        image.put(5, 3, [0, 0, 0, 255]);
        assert!(!image.is_uniform());
    }

    #[test]
    fn a_broken_png_is_an_error_not_a_panic() {
        assert!(decode_png(b"not a png").is_err());
    }
}
