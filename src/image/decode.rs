//! Reads a GIF one frame at a time (the `gif` crate in indexed mode), as Chromium shows it, with
//! the decompression-bomb limits checked on each frame's declared size before its pixels are
//! decoded. Indexed frames, not composited RGBA canvases, are what keeps the APNG small; one
//! frame at a time is what keeps memory bounded by the largest image, whatever the frame count.
//!
//! What Chromium shows, measured on Chromium 156 (see `docs/images.md`, "What Chromium shows"):
//! - the canvas is the logical screen grown to the first frame's bottom-right corner (a first
//!   frame larger than the screen, or placed partly or wholly outside it, widens the image);
//!   later frames are clipped to that canvas;
//! - a palette index past the end of the frame's colour table is opaque black, unless it is the
//!   transparent index (which is transparent even when it lies past the table);
//! - the background colour index is ignored (the canvas starts transparent).

use gif::{ColorOutput, DecodeOptions, DisposalMethod, MemoryLimit};

/// Decompression-bomb limits. They bound memory by the largest single image, whatever the
/// number of frames (frames are decoded one at a time), and bound the work per GIF.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest canvas (the logical screen, grown to the first frame as browsers do) and largest
    /// single frame, in pixels (width × height). Default: 16,777,216 (4096 × 4096).
    pub max_canvas_pixels: u64,
    /// Most pixels decoded and composited in one GIF: the sum over its frames of the frame's
    /// declared area plus the canvas area. Default: 268,435,456 (e.g. 128 frames of
    /// 1024 × 1024 covering the canvas, or 500 frames of 512 × 512).
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

/// One frame, clipped to the canvas. `width == 0 || height == 0` for a frame with no visible
/// pixels (zero-size, or entirely outside the canvas): it still takes its time on screen.
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
    /// global), its transparent index as `[0, 0, 0, 0]`, 256 entries; indices past the
    /// palette's end are opaque black, as Chromium shows them.
    pub colors: Box<[[u8; 4]; 256]>,
    /// Palette indices, `width × height`, row by row.
    pub pixels: Vec<u8>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ReadError {
    Corrupt(String),
    TooLarge(String),
}

fn decoding(e: gif::DecodingError) -> ReadError {
    match e {
        gif::DecodingError::MemoryLimit | gif::DecodingError::OutOfMemory => {
            ReadError::TooLarge(format!("a frame is over the memory limit ({e})"))
        }
        e => ReadError::Corrupt(e.to_string()),
    }
}

/// A GIF being read frame by frame.
pub(crate) struct Reader<'a> {
    decoder: gif::Decoder<&'a [u8]>,
    /// The canvas as browsers show it (logical screen grown to the first frame).
    pub width: u32,
    pub height: u32,
    limits: Limits,
    /// Frames returned so far.
    frames: usize,
    /// Pixels decoded and composited so far (see [`Limits::max_total_pixels`]).
    work: u64,
    /// The first frame's header has been read by [`Reader::open`] and not returned yet.
    first_pending: bool,
}

impl<'a> Reader<'a> {
    /// Reads the header and the first frame's descriptor, and checks the canvas size.
    pub fn open(bytes: &'a [u8], limits: &Limits) -> Result<Reader<'a>, ReadError> {
        let mut options = DecodeOptions::new();
        options.set_color_output(ColorOutput::Indexed);
        // A safety net only: every frame's size is checked against the limits before its
        // pixels are decoded.
        options.set_memory_limit(MemoryLimit::Bytes(
            std::num::NonZeroU64::new(limits.max_canvas_pixels.max(1)).expect("non-zero"),
        ));
        let mut decoder = options.read_info(bytes).map_err(decoding)?;
        let (screen_w, screen_h) = (u32::from(decoder.width()), u32::from(decoder.height()));
        let first = decoder
            .next_frame_info()
            .map_err(decoding)?
            .ok_or_else(|| ReadError::Corrupt("no image data".to_string()))?;
        let width = screen_w.max(u32::from(first.left) + u32::from(first.width));
        let height = screen_h.max(u32::from(first.top) + u32::from(first.height));
        let canvas = u64::from(width) * u64::from(height);
        if canvas == 0 {
            return Err(ReadError::Corrupt(format!(
                "nothing to show: logical screen {screen_w}×{screen_h}, first frame {}×{}",
                first.width, first.height
            )));
        }
        if canvas > limits.max_canvas_pixels {
            return Err(ReadError::TooLarge(format!(
                "the image is {width}×{height}, over the {}-pixel limit",
                limits.max_canvas_pixels
            )));
        }
        Ok(Reader {
            decoder,
            width,
            height,
            limits: *limits,
            frames: 0,
            work: 0,
            first_pending: true,
        })
    }

    /// The next frame, clipped to the canvas; `None` after the last one.
    pub fn next_frame(&mut self) -> Result<Option<Frame>, ReadError> {
        if !self.first_pending && self.decoder.next_frame_info().map_err(decoding)?.is_none() {
            return Ok(None);
        }
        self.first_pending = false;
        let n = self.frames;
        let info = self
            .decoder
            .current_frame_info()
            .ok_or_else(|| ReadError::Corrupt(format!("frame {n} has no descriptor")))?;
        let (left, top) = (u32::from(info.left), u32::from(info.top));
        let (fw, fh) = (u32::from(info.width), u32::from(info.height));
        let (delay_cs, dispose, transparent) = (info.delay, info.dispose, info.transparent);
        let area = u64::from(fw) * u64::from(fh);
        if n >= self.limits.max_frames {
            return Err(ReadError::TooLarge(format!(
                "more than {} frames",
                self.limits.max_frames
            )));
        }
        if area > self.limits.max_canvas_pixels {
            return Err(ReadError::TooLarge(format!(
                "frame {n} is {fw}×{fh}, over the {}-pixel limit",
                self.limits.max_canvas_pixels
            )));
        }
        self.work += area + u64::from(self.width) * u64::from(self.height);
        if self.work > self.limits.max_total_pixels {
            return Err(ReadError::TooLarge(format!(
                "frames 0–{n} of {}×{} decode and composite over {} pixels",
                self.width, self.height, self.limits.max_total_pixels
            )));
        }
        let palette = info
            .palette
            .as_deref()
            .or(self.decoder.global_palette())
            .ok_or_else(|| ReadError::Corrupt(format!("frame {n} has no colour table")))?;
        let mut colors = Box::new([[0, 0, 0, 255]; 256]);
        for (i, rgb) in palette.chunks_exact(3).take(256).enumerate() {
            colors[i] = [rgb[0], rgb[1], rgb[2], 255];
        }
        if let Some(t) = transparent {
            colors[usize::from(t)] = [0, 0, 0, 0];
        }
        let interlaced = info.interlaced;
        let mut buffer = vec![0u8; area as usize];
        if area > 0 {
            // The whole frame in one call, rows in the order stored: the `gif` crate's own
            // row-by-row deinterlacing reports valid interlaced frames of some odd widths as
            // truncated (gif 0.14.2), so rows are put in place here.
            let filled = self
                .decoder
                .fill_buffer(&mut buffer)
                .map_err(|e| match decoding(e) {
                    ReadError::Corrupt(why) => ReadError::Corrupt(format!("frame {n}: {why}")),
                    too_large => too_large,
                })?;
            if !filled {
                return Err(ReadError::Corrupt(format!("frame {n}: image truncated")));
            }
            if interlaced {
                buffer = deinterlace(&buffer, fw as usize);
            }
        }
        self.frames += 1;
        Ok(Some(clip(
            &buffer,
            (left, top, fw, fh),
            (self.width, self.height),
            delay_cs,
            dispose,
            colors,
        )))
    }

    /// How many times a browser plays the GIF: 0 = forever, otherwise the NETSCAPE loop
    /// count + 1 (1 when there is no loop extension). Final once every frame has been read.
    pub fn plays(&self) -> u32 {
        match self.decoder.repeat() {
            gif::Repeat::Infinite => 0,
            gif::Repeat::Finite(n) => u32::from(n) + 1,
        }
    }
}

/// Rows stored in GIF interlace order (0, 8, 16, … / 4, 12, … / 2, 6, … / 1, 3, …) put back
/// top to bottom.
fn deinterlace(stored: &[u8], width: usize) -> Vec<u8> {
    let height = stored.len() / width;
    let mut rows = vec![0u8; stored.len()];
    let order = [(0, 8), (4, 8), (2, 4), (1, 2)]
        .into_iter()
        .flat_map(|(start, step)| (start..height).step_by(step));
    for (stored_row, row) in stored.chunks_exact(width).zip(order) {
        rows[row * width..(row + 1) * width].copy_from_slice(stored_row);
    }
    rows
}

/// Cuts a decoded frame down to the part inside the canvas.
fn clip(
    buffer: &[u8],
    (left, top, fw, fh): (u32, u32, u32, u32),
    (canvas_w, canvas_h): (u32, u32),
    delay_cs: u16,
    dispose: DisposalMethod,
    colors: Box<[[u8; 4]; 256]>,
) -> Frame {
    let right = (left + fw).min(canvas_w);
    let bottom = (top + fh).min(canvas_h);
    let (w, h) = (right.saturating_sub(left), bottom.saturating_sub(top));
    let mut pixels = Vec::with_capacity(w as usize * h as usize);
    if w > 0 && h > 0 {
        for row in 0..h as usize {
            let start = row * fw as usize;
            pixels.extend_from_slice(&buffer[start..start + w as usize]);
        }
    }
    let visible = !pixels.is_empty();
    Frame {
        left: if visible { left } else { 0 },
        top: if visible { top } else { 0 },
        width: if visible { w } else { 0 },
        height: if visible { h } else { 0 },
        delay_cs,
        dispose,
        colors,
        pixels,
    }
}
