//! Proves a WebP shows exactly what its GIF shows in a browser, and that it is lossless. The
//! WebP side is read here, independently of libwebp that wrote it: the RIFF container (still
//! image, or ANIM/ANMF frames with their offsets, durations, blend and dispose bits) is parsed
//! by this module, each frame's `VP8L` bitstream is decoded by `image-webp` (a pure-Rust
//! decoder), and the frames are composited here as the WebP container specification says. Any
//! lossy bitstream (`VP8 `, `ALPH`) is an error. The GIF side is `Browser`, the same picture
//! the PNG/APNG verification compares with.
//!
//! Timing is compared as a timeline, not frame by frame: libwebp merges a frame identical to
//! the one before it into that one's duration, and writes an animation whose frames all show
//! the same picture as a still image. So every GIF frame must be on screen for its
//! whole delay (as browsers play it), and every WebP frame shown during that time must equal it,
//! pixel for pixel; both must end together, and play the same number of times. A WebP frame
//! shorter than 11 ms is an error: browsers would play it at 100 ms.

use std::io::Cursor;

use image::{Rgba, RgbaImage};

use super::super::decode::{Limits, ReadError};
use super::super::verify::{compare, over, Browser};

/// How long a browser shows a GIF frame whose delay `Browser::next` returned, in ms
/// (delays of 10 ms or less play at 100 ms).
pub(crate) fn delay_ms((n, d): (u32, u32)) -> u32 {
    let ms = n / d.max(1);
    if ms <= 10 {
        100
    } else {
        ms
    }
}

/// One RIFF chunk: its four-character code and data.
struct Chunk<'a> {
    fourcc: [u8; 4],
    data: &'a [u8],
}

/// The chunks of `bytes`, which must be exactly a sequence of chunks (each padded to even).
fn chunks(mut bytes: &[u8]) -> Result<Vec<Chunk<'_>>, String> {
    let mut out = Vec::new();
    while !bytes.is_empty() {
        if bytes.len() < 8 {
            return Err("a WebP chunk header is cut off".to_string());
        }
        let fourcc = [bytes[0], bytes[1], bytes[2], bytes[3]];
        let size = u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]) as usize;
        let end = 8usize.saturating_add(size);
        if end > bytes.len() {
            return Err(format!(
                "the WebP chunk {} runs past the end",
                String::from_utf8_lossy(&fourcc)
            ));
        }
        out.push(Chunk {
            fourcc,
            data: &bytes[8..end],
        });
        bytes = &bytes[(end + size % 2).min(bytes.len())..];
    }
    Ok(out)
}

fn u24(b: &[u8]) -> u32 {
    u32::from(b[0]) | u32::from(b[1]) << 8 | u32::from(b[2]) << 16
}

/// One frame of an animated WebP (an ANMF chunk).
struct AnimFrame<'a> {
    x: u32,
    y: u32,
    width: u32,
    height: u32,
    duration_ms: u32,
    blend: bool,
    dispose: bool,
    vp8l: &'a [u8],
}

/// What the container holds.
enum Container<'a> {
    Still,
    Animated {
        width: u32,
        height: u32,
        plays: u16,
        frames: Vec<AnimFrame<'a>>,
    },
}

/// The one `VP8L` bitstream among `chunks`; a lossy one is an error.
fn lossless<'a>(chunks: &[Chunk<'a>], what: &str) -> Result<&'a [u8], String> {
    let mut found = None;
    for c in chunks {
        match &c.fourcc {
            b"VP8 " | b"ALPH" => return Err(format!("{what} is lossy (a VP8 bitstream)")),
            b"VP8L" if found.is_none() => found = Some(c.data),
            b"VP8L" => return Err(format!("{what} has two bitstreams")),
            _ => {}
        }
    }
    found.ok_or_else(|| format!("{what} has no image data"))
}

fn parse(webp: &[u8]) -> Result<Container<'_>, String> {
    if webp.len() < 12 || &webp[..4] != b"RIFF" || &webp[8..12] != b"WEBP" {
        return Err("not a WebP file".to_string());
    }
    let size = u32::from_le_bytes([webp[4], webp[5], webp[6], webp[7]]) as usize;
    if size.checked_add(8) != Some(webp.len()) {
        return Err(format!(
            "the RIFF header says {size} bytes, the file has {}",
            webp.len() - 8
        ));
    }
    let top = chunks(&webp[12..])?;
    let animated = match top.first() {
        Some(c) if &c.fourcc == b"VP8X" && c.data.len() >= 10 => c.data[0] & 0x02 != 0,
        Some(c) if &c.fourcc == b"VP8X" => return Err("a short VP8X chunk".to_string()),
        _ => false,
    };
    if !animated {
        lossless(&top, "the image")?;
        return Ok(Container::Still);
    }
    let header = top[0].data;
    let (width, height) = (1 + u24(&header[4..7]), 1 + u24(&header[7..10]));
    let anim = top
        .iter()
        .find(|c| &c.fourcc == b"ANIM" && c.data.len() >= 6)
        .ok_or("an animated WebP without an ANIM chunk")?;
    let plays = u16::from_le_bytes([anim.data[4], anim.data[5]]);
    let mut frames = Vec::new();
    for c in top.iter().filter(|c| &c.fourcc == b"ANMF") {
        let n = frames.len();
        if c.data.len() < 16 {
            return Err(format!("frame {n}: a short ANMF chunk"));
        }
        let d = c.data;
        frames.push(AnimFrame {
            x: 2 * u24(&d[0..3]),
            y: 2 * u24(&d[3..6]),
            width: 1 + u24(&d[6..9]),
            height: 1 + u24(&d[9..12]),
            duration_ms: u24(&d[12..15]),
            blend: d[15] & 0x02 == 0,
            dispose: d[15] & 0x01 != 0,
            vp8l: lossless(&chunks(&d[16..])?, &format!("WebP frame {n}"))?,
        });
    }
    Ok(Container::Animated {
        width,
        height,
        plays,
        frames,
    })
}

/// Decodes a whole WebP file (a still image) with `image-webp`, as RGBA.
fn decode(file: &[u8], limits: &Limits) -> Result<RgbaImage, String> {
    let mut decoder = image_webp::WebPDecoder::new(Cursor::new(file))
        .map_err(|e| format!("the WebP does not decode: {e}"))?;
    let (width, height) = decoder.dimensions();
    if u64::from(width) * u64::from(height) > limits.max_canvas_pixels {
        return Err(format!("the WebP is {width}×{height}, over the limit"));
    }
    let size = decoder
        .output_buffer_size()
        .ok_or("the WebP's size overflows")?;
    let mut buffer = vec![0; size];
    decoder
        .read_image(&mut buffer)
        .map_err(|e| format!("the WebP does not decode: {e}"))?;
    let rgba = if decoder.has_alpha() {
        buffer
    } else {
        buffer
            .chunks_exact(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect()
    };
    RgbaImage::from_raw(width, height, rgba).ok_or_else(|| "a short WebP buffer".to_string())
}

/// Decodes one frame's `VP8L` bitstream, wrapped as a file of its own.
fn decode_vp8l(vp8l: &[u8], limits: &Limits) -> Result<RgbaImage, String> {
    let padded = vp8l.len() + vp8l.len() % 2;
    let riff_size = u32::try_from(4 + 8 + padded).map_err(|_| "a WebP frame over 4 GB")?;
    let mut file = Vec::with_capacity(20 + padded);
    file.extend_from_slice(b"RIFF");
    file.extend_from_slice(&riff_size.to_le_bytes());
    file.extend_from_slice(b"WEBPVP8L");
    file.extend_from_slice(&(vp8l.len() as u32).to_le_bytes());
    file.extend_from_slice(vp8l);
    file.resize(20 + padded, 0);
    decode(&file, limits)
}

/// The animated WebP's frames as a browser composites them.
struct Animation<'a> {
    frames: std::vec::IntoIter<AnimFrame<'a>>,
    canvas: RgbaImage,
    /// The rectangle to clear before the next frame (the last frame's, if it disposes).
    dispose: Option<(u32, u32, u32, u32)>,
    limits: Limits,
    shown: usize,
}

impl Animation<'_> {
    /// Composites the next frame; returns how long it stays on screen, in ms.
    fn next(&mut self) -> Result<Option<u32>, String> {
        if let Some((x0, y0, w, h)) = self.dispose.take() {
            for y in y0..y0 + h {
                for x in x0..x0 + w {
                    self.canvas.put_pixel(x, y, Rgba([0, 0, 0, 0]));
                }
            }
        }
        let Some(f) = self.frames.next() else {
            return Ok(None);
        };
        let n = self.shown;
        if f.x + f.width > self.canvas.width() || f.y + f.height > self.canvas.height() {
            return Err(format!("WebP frame {n} lies outside the canvas"));
        }
        let image = decode_vp8l(f.vp8l, &self.limits).map_err(|e| format!("frame {n}: {e}"))?;
        if image.dimensions() != (f.width, f.height) {
            return Err(format!(
                "WebP frame {n} is {}×{} in its ANMF chunk, {}×{} in its bitstream",
                f.width,
                f.height,
                image.width(),
                image.height()
            ));
        }
        for (x, y, p) in image.enumerate_pixels() {
            let (cx, cy) = (f.x + x, f.y + y);
            let out = if f.blend {
                over(p.0, self.canvas.get_pixel(cx, cy).0)
            } else {
                p.0
            };
            self.canvas.put_pixel(cx, cy, Rgba(out));
        }
        if f.dispose {
            self.dispose = Some((f.x, f.y, f.width, f.height));
        }
        self.shown += 1;
        Ok(Some(f.duration_ms))
    }
}

/// `Ok` when `webp` is lossless and shows the same frames, for the same time, as many times as
/// `gif` does in a browser; otherwise why not.
pub fn same_image(gif: &[u8], webp: &[u8], limits: &Limits) -> Result<(), String> {
    let gif_error = |e: ReadError| match e {
        ReadError::Corrupt(why) | ReadError::TooLarge(why) => format!("GIF does not decode: {why}"),
    };
    let mut gif_frames = Browser::open(gif, limits).map_err(gif_error)?;
    match parse(webp)? {
        Container::Still => {
            // Also for an animation whose every frame shows the same picture (libwebp writes
            // those as a still image): every frame must equal it.
            let still = decode(webp, limits)?;
            let mut count = 0usize;
            while gif_frames
                .next()
                .map_err(|e| format!("GIF frame {count}: {}", gif_error(e)))?
                .is_some()
            {
                compare(&gif_frames.canvas, &still).map_err(|e| {
                    let what = if count == 0 {
                        ""
                    } else {
                        " (the WebP is a still image)"
                    };
                    format!("frame {count}{what}: {}", in_webp(e))
                })?;
                count += 1;
            }
            if count == 0 {
                return Err("the GIF has no frame".to_string());
            }
            Ok(())
        }
        Container::Animated {
            width,
            height,
            plays,
            frames,
        } => {
            if u64::from(width) * u64::from(height) > limits.max_canvas_pixels {
                return Err(format!("the WebP is {width}×{height}, over the limit"));
            }
            let mut webp_frames = Animation {
                frames: frames.into_iter(),
                canvas: RgbaImage::new(width, height),
                dispose: None,
                limits: *limits,
                shown: 0,
            };
            let count = same_timeline(&mut gif_frames, &mut webp_frames, gif_error)?;
            if count <= 1 {
                return Err("a one-frame GIF became an animated WebP".to_string());
            }
            let gif_plays = gif_frames.plays();
            if u32::from(plays) != gif_plays {
                return Err(format!(
                    "the GIF plays {} times, the WebP {}",
                    plays_text(gif_plays),
                    plays_text(u32::from(plays))
                ));
            }
            Ok(())
        }
    }
}

/// `Ok` when `webp` is one lossless still image showing exactly `expected` (fully transparent
/// pixels equal whatever their colour); otherwise why not.
pub(crate) fn same_still(expected: &RgbaImage, webp: &[u8], limits: &Limits) -> Result<(), String> {
    match parse(webp)? {
        Container::Still => compare(expected, &decode(webp, limits)?)
            .map_err(|e| in_webp(e).replace("the GIF", "the PNG before")),
        Container::Animated { .. } => Err("a still image became an animated WebP".to_string()),
    }
}

/// Walks both animations in time: every GIF frame must be matched, for its whole delay, by
/// WebP frames that equal it. Returns the number of GIF frames.
fn same_timeline(
    gif_frames: &mut Browser<'_>,
    webp_frames: &mut Animation<'_>,
    gif_error: impl Fn(ReadError) -> String,
) -> Result<usize, String> {
    let mut count = 0usize;
    // What is left of the WebP frame on screen, in ms.
    let mut webp_left = 0u32;
    while let Some(delay) = gif_frames
        .next()
        .map_err(|e| format!("GIF frame {count}: {}", gif_error(e)))?
    {
        let mut needed = delay_ms(delay);
        while needed > 0 {
            if webp_left == 0 {
                let n = webp_frames.shown;
                webp_left = webp_frames
                    .next()?
                    .ok_or_else(|| format!("the WebP ends before GIF frame {count}"))?;
                if webp_left <= 10 {
                    return Err(format!(
                        "WebP frame {n} lasts {webp_left} ms, which browsers play at 100 ms"
                    ));
                }
            }
            compare(&gif_frames.canvas, &webp_frames.canvas).map_err(|e| {
                format!(
                    "frame {count} (WebP frame {}): {}",
                    webp_frames.shown.saturating_sub(1),
                    in_webp(e)
                )
            })?;
            let step = needed.min(webp_left);
            needed -= step;
            webp_left -= step;
        }
        count += 1;
    }
    if webp_left > 0 || webp_frames.next()?.is_some() {
        return Err(format!(
            "the WebP runs longer than the GIF's {count} frames"
        ));
    }
    Ok(count)
}

/// `compare` names the converted side "the PNG".
fn in_webp(message: String) -> String {
    message.replace("the PNG", "the WebP")
}

fn plays_text(plays: u32) -> String {
    if plays == 0 {
        "forever".to_string()
    } else {
        plays.to_string()
    }
}
