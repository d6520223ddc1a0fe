//! GIFs written byte by byte, for what the `gif` encoder refuses to write: palette indices past
//! the colour table, frames larger than or outside their logical screen, no colour table,
//! 65535 × 65535 frames whose LZW data takes a few kilobytes.

/// One frame of a [`gif`].
#[derive(Debug, Clone)]
pub struct Frame {
    pub rect: (u16, u16, u16, u16),
    /// LZW data (minimum code size 8), from [`lzw`] or [`lzw_zeros`].
    pub data: Vec<u8>,
    pub transparent: Option<u8>,
    /// 0 unspecified, 1 keep, 2 restore to background, 3 restore to previous.
    pub dispose: u8,
    pub delay_cs: u16,
    /// A local colour table.
    pub palette: Option<Vec<[u8; 3]>>,
    pub interlaced: bool,
}

impl Frame {
    /// A frame of `pixels` (palette indices, row by row) at `rect`, shown for 1 s.
    pub fn new(rect: (u16, u16, u16, u16), pixels: &[u8]) -> Frame {
        Frame {
            rect,
            data: lzw(pixels),
            transparent: None,
            dispose: 0,
            delay_cs: 100,
            palette: None,
            interlaced: false,
        }
    }
}

/// A GIF89a of `screen` with a global colour table (none when `palette` is empty), the
/// background colour index `background`, looping forever when there are several frames.
pub fn gif(screen: (u16, u16), palette: &[[u8; 3]], background: u8, frames: &[Frame]) -> Vec<u8> {
    let mut out = b"GIF89a".to_vec();
    out.extend_from_slice(&screen.0.to_le_bytes());
    out.extend_from_slice(&screen.1.to_le_bytes());
    match table(palette) {
        Some((size, bytes)) => {
            out.extend_from_slice(&[0xF0 | size, background, 0]);
            out.extend_from_slice(&bytes);
        }
        None => out.extend_from_slice(&[0, background, 0]),
    }
    if frames.len() > 1 {
        out.extend_from_slice(b"\x21\xFF\x0BNETSCAPE2.0\x03\x01\x00\x00\x00");
    }
    for f in frames {
        let flags = (f.dispose << 2) | u8::from(f.transparent.is_some());
        out.extend_from_slice(&[0x21, 0xF9, 4, flags]);
        out.extend_from_slice(&f.delay_cs.to_le_bytes());
        out.extend_from_slice(&[f.transparent.unwrap_or(0), 0, 0x2C]);
        let (left, top, w, h) = f.rect;
        for v in [left, top, w, h] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        let local = f.palette.as_deref().and_then(table);
        let interlace = if f.interlaced { 0x40 } else { 0 };
        match local {
            Some((size, bytes)) => {
                out.push(0x80 | interlace | size);
                out.extend_from_slice(&bytes);
            }
            None => out.push(interlace),
        }
        out.push(8);
        for block in f.data.chunks(255) {
            out.push(block.len() as u8);
            out.extend_from_slice(block);
        }
        out.push(0);
    }
    out.push(0x3B);
    out
}

/// A colour table's size field and bytes (padded to a power of two, at least 2 entries).
fn table(palette: &[[u8; 3]]) -> Option<(u8, Vec<u8>)> {
    if palette.is_empty() {
        return None;
    }
    let size = (palette.len().max(2).next_power_of_two().trailing_zeros() - 1) as u8;
    let mut bytes: Vec<u8> = palette.iter().flatten().copied().collect();
    bytes.resize(3 << (size + 1), 0);
    Some((size, bytes))
}

/// LZW data (minimum code size 8, 9-bit codes, a clear code every 254 codes) for `pixels`.
pub fn lzw(pixels: &[u8]) -> Vec<u8> {
    let (mut bits, mut n, mut out) = (0u32, 0u32, Vec::new());
    let mut emit = |code: u32| {
        bits |= code << n;
        n += 9;
        while n >= 8 {
            out.push(bits as u8);
            bits >>= 8;
            n -= 8;
        }
    };
    for (i, &p) in pixels.iter().enumerate() {
        if i % 254 == 0 {
            emit(256);
        }
        emit(u32::from(p));
    }
    emit(257);
    if n > 0 {
        out.push(bits as u8);
    }
    out
}

/// LZW data (minimum code size 8) for `n` pixels of index 0, as small as LZW allows: each code
/// is the one about to be defined (one zero longer than the last), and once the table is full
/// the longest run (3839 zeros) repeats. A 4096 × 4096 frame takes about 6 KB.
pub fn lzw_zeros(n: u64) -> Vec<u8> {
    let (mut bits, mut nbits, mut out) = (0u64, 0u32, Vec::new());
    let mut width = 9;
    let mut emit = |code: u32, width: u32| {
        bits |= u64::from(code) << nbits;
        nbits += width;
        while nbits >= 8 {
            out.push(bits as u8);
            bits >>= 8;
            nbits -= 8;
        }
    };
    emit(256, width);
    let (mut next, mut left, mut first) = (258u32, n, true);
    // Code 0 is one zero; code c ≥ 258 is c − 256 zeros.
    let zeros = |code: u32| if code == 0 { 1 } else { u64::from(code) - 256 };
    while left > 0 {
        let mut code = match (first, next < 4096) {
            (true, _) => 0,
            (false, true) => next,
            (false, false) => 4095,
        };
        if zeros(code) > left {
            code = if left == 1 { 0 } else { 256 + left as u32 };
        }
        emit(code, width);
        left -= zeros(code);
        if !first && next < 4096 {
            next += 1;
            if next == 1 << width && width < 12 {
                width += 1;
            }
        }
        first = false;
    }
    emit(257, width);
    if nbits > 0 {
        out.push(bits as u8);
    }
    out
}
