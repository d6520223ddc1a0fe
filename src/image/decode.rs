//! Reads a GIF into indexed frames (the `gif` crate in indexed mode), clipped to the logical
//! screen the way browsers show them, with decompression-bomb limits checked before any large
//! allocation. Indexed frames, not composited RGBA canvases, are what keeps the APNG small.

use gif::{ColorOutput, DecodeOptions, DisposalMethod, MemoryLimit};

/// Decompression-bomb limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest logical screen (width × height). Default: 16,777,216 (4096 × 4096).
    pub max_canvas_pixels: u64,
    /// Largest canvas × frame count, which bounds decoding and verification work.
    /// Default: 268,435,456 (e.g. 256 frames of 1024 × 1024).
    pub max_total_pixels: u64,
    /// Most frames in one GIF. Default: 10,000.
    pub max_frames: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_canvas_pixels: 1 << 24,
            max_total_pixels: 1 << 28,
            max_frames: 10_000,
        }
    }
}

/// One frame, clipped to the screen. `width == 0 || height == 0` for a frame with no visible
/// pixels (zero-size, or entirely outside the screen): it still takes its time on screen.
#[derive(Debug, Clone)]
pub(crate) struct Frame {
    pub left: u32,
    pub top: u32,
    pub width: u32,
    pub height: u32,
    /// Hundredths of a second, as written in the GIF.
    pub delay_cs: u16,
    pub dispose: DisposalMethod,
    /// The colours of this frame as RGBA, indexed like `pixels`: the frame's palette (local or
    /// global), its transparent index as `[0, 0, 0, 0]`, 256 entries (indices past the
    /// palette's end are transparent, as the `image` crate decodes them).
    pub colors: Box<[[u8; 4]; 256]>,
    /// Palette indices, `width × height`, row by row.
    pub pixels: Vec<u8>,
}

/// A decoded GIF.
#[derive(Debug, Clone)]
pub(crate) struct Gif {
    pub width: u32,
    pub height: u32,
    pub frames: Vec<Frame>,
    /// How many times a browser plays it: 0 = forever, otherwise the NETSCAPE loop count + 1
    /// (1 when there is no loop extension).
    pub plays: u32,
}

#[derive(Debug)]
pub(crate) enum ReadError {
    Corrupt(String),
    TooLarge(String),
}

/// Decodes every frame of a GIF.
pub(crate) fn read(bytes: &[u8], limits: &Limits) -> Result<Gif, ReadError> {
    let corrupt = |e: gif::DecodingError| {
        let text = e.to_string();
        if text.contains("limit") {
            ReadError::TooLarge(format!("a frame is over the memory limit ({text})"))
        } else {
            ReadError::Corrupt(text)
        }
    };
    let mut options = DecodeOptions::new();
    options.set_color_output(ColorOutput::Indexed);
    options.set_memory_limit(MemoryLimit::Bytes(
        std::num::NonZeroU64::new(limits.max_canvas_pixels.max(1)).expect("non-zero"),
    ));
    let mut decoder = options.read_info(bytes).map_err(corrupt)?;
    let (width, height) = (u32::from(decoder.width()), u32::from(decoder.height()));
    let canvas = u64::from(width) * u64::from(height);
    if canvas == 0 {
        return Err(ReadError::Corrupt(format!(
            "logical screen is {width}×{height}"
        )));
    }
    if canvas > limits.max_canvas_pixels {
        return Err(ReadError::TooLarge(format!(
            "{width}×{height} is over the {}-pixel limit",
            limits.max_canvas_pixels
        )));
    }
    let global: Option<Vec<u8>> = decoder.global_palette().map(<[u8]>::to_vec);
    let mut frames = Vec::new();
    while let Some(frame) = decoder.read_next_frame().map_err(corrupt)? {
        if frames.len() >= limits.max_frames
            || canvas * (frames.len() as u64 + 1) > limits.max_total_pixels
        {
            return Err(ReadError::TooLarge(format!(
                "{width}×{height} × {}+ frames is over the {}-pixel limit",
                frames.len() + 1,
                limits.max_total_pixels
            )));
        }
        let palette = frame.palette.as_deref().or(global.as_deref());
        let Some(palette) = palette else {
            return Err(ReadError::Corrupt(format!(
                "frame {} has no colour table",
                frames.len()
            )));
        };
        let mut colors = Box::new([[0u8; 4]; 256]);
        for (i, rgb) in palette.chunks_exact(3).take(256).enumerate() {
            colors[i] = [rgb[0], rgb[1], rgb[2], 255];
        }
        if let Some(t) = frame.transparent {
            colors[usize::from(t)] = [0, 0, 0, 0];
        }
        frames.push(clip(frame, width, height, colors));
    }
    if frames.is_empty() {
        return Err(ReadError::Corrupt("no image data".to_string()));
    }
    let plays = match decoder.repeat() {
        gif::Repeat::Infinite => 0,
        gif::Repeat::Finite(n) => u32::from(n) + 1,
    };
    Ok(Gif {
        width,
        height,
        frames,
        plays,
    })
}

/// Cuts a frame down to the part inside the logical screen.
fn clip(
    frame: &gif::Frame<'_>,
    screen_w: u32,
    screen_h: u32,
    colors: Box<[[u8; 4]; 256]>,
) -> Frame {
    let (left, top) = (u32::from(frame.left), u32::from(frame.top));
    let (fw, fh) = (u32::from(frame.width), u32::from(frame.height));
    let right = (left + fw).min(screen_w);
    let bottom = (top + fh).min(screen_h);
    let (w, h) = (right.saturating_sub(left), bottom.saturating_sub(top));
    let mut pixels = Vec::with_capacity((w * h) as usize);
    if w > 0 && h > 0 && frame.buffer.len() >= (fw * fh) as usize {
        for row in 0..h {
            let start = (row * fw) as usize;
            pixels.extend_from_slice(&frame.buffer[start..start + w as usize]);
        }
    }
    let visible = !pixels.is_empty();
    Frame {
        left: if visible { left } else { 0 },
        top: if visible { top } else { 0 },
        width: if visible { w } else { 0 },
        height: if visible { h } else { 0 },
        delay_cs: frame.delay,
        dispose: frame.dispose,
        colors,
        pixels,
    }
}
