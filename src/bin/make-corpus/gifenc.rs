//! Palettes, colour reduction and the GIF container.
//!
//! The container is written by hand so that GIF87a files, files with only local colour tables
//! and files without extension blocks come out exactly as 1996 tools wrote them. The LZW coding
//! is the `gif` crate's.

use crate::draw::{add, scale, Canvas, Col};

pub enum Pal {
    /// An explicit colour table.
    List(Vec<[u8; 3]>),
    /// A uniform colour cube with this many levels of red, green and blue.
    Cube(usize, usize, usize),
}

#[derive(Clone, Copy)]
pub enum Dither {
    Nearest,
    /// 4x4 Bayer matrix with this spread in 0..255 units.
    Ordered(f32),
    FloydSteinberg,
}

fn level(i: usize, n: usize) -> u8 {
    ((i * 255 + (n - 1) / 2) / (n - 1)) as u8
}

impl Pal {
    pub fn colors(&self) -> Vec<[u8; 3]> {
        match self {
            Pal::List(v) => v.clone(),
            Pal::Cube(r, g, b) => {
                let mut v = Vec::new();
                for ri in 0..*r {
                    for gi in 0..*g {
                        for bi in 0..*b {
                            v.push([level(ri, *r), level(gi, *g), level(bi, *b)]);
                        }
                    }
                }
                v
            }
        }
    }

    /// Nearest entry, never `skip` (the transparent slot).
    pub fn nearest(&self, c: Col, skip: Option<u8>) -> (u8, Col) {
        match self {
            Pal::List(v) => {
                let mut best = (u32::MAX, 0usize);
                for (i, p) in v.iter().enumerate() {
                    if Some(i as u8) == skip {
                        continue;
                    }
                    let d: f32 = (0..3)
                        .map(|k| {
                            let e = c[k] - f32::from(p[k]);
                            e * e
                        })
                        .sum();
                    let d = d as u32;
                    if d < best.0 {
                        best = (d, i);
                    }
                }
                let p = v[best.1];
                (
                    best.1 as u8,
                    [f32::from(p[0]), f32::from(p[1]), f32::from(p[2])],
                )
            }
            Pal::Cube(r, g, b) => {
                let q = |v: f32, n: usize| {
                    ((v.clamp(0.0, 255.0) / 255.0 * (n - 1) as f32).round() as usize).min(n - 1)
                };
                let (ri, gi, bi) = (q(c[0], *r), q(c[1], *g), q(c[2], *b));
                let idx = (ri * g + gi) * b + bi;
                let col = [
                    f32::from(level(ri, *r)),
                    f32::from(level(gi, *g)),
                    f32::from(level(bi, *b)),
                ];
                (idx as u8, col)
            }
        }
    }
}

const BAYER: [[f32; 4]; 4] = [
    [0.0, 8.0, 2.0, 10.0],
    [12.0, 4.0, 14.0, 6.0],
    [3.0, 11.0, 1.0, 9.0],
    [15.0, 7.0, 13.0, 5.0],
];

/// Reduces a canvas to palette indices; transparent pixels get `trns`.
pub fn quantize(cv: &Canvas, pal: &Pal, dither: Dither, trns: Option<u8>) -> Vec<u8> {
    let (w, h) = (cv.w, cv.h);
    let mut out = vec![0u8; w * h];
    let mut work = cv.px.clone();
    for y in 0..h {
        for x in 0..w {
            let i = y * w + x;
            if !cv.on[i] {
                if let Some(t) = trns {
                    out[i] = t;
                    continue;
                }
            }
            let c = work[i];
            match dither {
                Dither::Nearest => out[i] = pal.nearest(c, trns).0,
                Dither::Ordered(spread) => {
                    let o = (BAYER[y % 4][x % 4] + 0.5) / 16.0 - 0.5;
                    out[i] = pal.nearest(add(c, [o * spread; 3]), trns).0;
                }
                Dither::FloydSteinberg => {
                    let c = [
                        c[0].clamp(0.0, 255.0),
                        c[1].clamp(0.0, 255.0),
                        c[2].clamp(0.0, 255.0),
                    ];
                    let (k, got) = pal.nearest(c, trns);
                    out[i] = k;
                    let e = [c[0] - got[0], c[1] - got[1], c[2] - got[2]];
                    let mut spread = |dx: i32, dy: usize, f: f32| {
                        let nx = x as i32 + dx;
                        let ny = y + dy;
                        if nx >= 0 && (nx as usize) < w && ny < h {
                            let j = ny * w + nx as usize;
                            work[j] = add(work[j], scale(e, f));
                        }
                    };
                    spread(1, 0, 7.0 / 16.0);
                    spread(-1, 1, 3.0 / 16.0);
                    spread(0, 1, 5.0 / 16.0);
                    spread(1, 1, 1.0 / 16.0);
                }
            }
        }
    }
    out
}

pub struct Gce {
    pub dispose: u8,
    pub delay: u16,
    pub trns: Option<u8>,
}

pub struct GFrame {
    pub left: u16,
    pub top: u16,
    pub w: u16,
    pub h: u16,
    pub idx: Vec<u8>,
    pub lct: Option<Vec<[u8; 3]>>,
    pub interlaced: bool,
    pub gce: Option<Gce>,
}

pub struct Gif {
    pub v87a: bool,
    pub w: u16,
    pub h: u16,
    pub gct: Option<Vec<[u8; 3]>>,
    pub loops: Option<u16>,
    pub frames: Vec<GFrame>,
}

pub fn table_bits(n: usize) -> u8 {
    let mut b = 1;
    while (1usize << b) < n {
        b += 1;
    }
    b
}

fn put_table(out: &mut Vec<u8>, t: &[[u8; 3]]) {
    for c in t {
        out.extend_from_slice(c);
    }
    for _ in t.len()..(1usize << table_bits(t.len())) {
        out.extend_from_slice(&[0, 0, 0]);
    }
}

fn interlace(idx: &[u8], w: usize, h: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(idx.len());
    for (start, step) in [(0, 8), (4, 8), (2, 4), (1, 2)] {
        for y in (start..h).step_by(step) {
            out.extend_from_slice(&idx[y * w..(y + 1) * w]);
        }
    }
    out
}

fn lzw(data: &[u8], w: u16, h: u16) -> Vec<u8> {
    let mut f = gif::Frame {
        width: w,
        height: h,
        buffer: std::borrow::Cow::Owned(data.to_vec()),
        ..gif::Frame::default()
    };
    f.make_lzw_pre_encoded();
    f.buffer.into_owned()
}

fn le16(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_le_bytes());
}

pub fn encode(g: &Gif) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(if g.v87a { b"GIF87a" } else { b"GIF89a" });
    le16(&mut out, g.w);
    le16(&mut out, g.h);
    match &g.gct {
        Some(t) => {
            let b = table_bits(t.len()) - 1;
            out.extend_from_slice(&[0x80 | (b << 4) | b, 0, 0]);
            put_table(&mut out, t);
        }
        None => out.extend_from_slice(&[0x70, 0, 0]),
    }
    if let Some(n) = g.loops {
        out.extend_from_slice(&[0x21, 0xFF, 0x0B]);
        out.extend_from_slice(b"NETSCAPE2.0");
        out.extend_from_slice(&[3, 1]);
        le16(&mut out, n);
        out.push(0);
    }
    for f in &g.frames {
        if let Some(c) = &f.gce {
            out.extend_from_slice(&[0x21, 0xF9, 4, (c.dispose << 2) | u8::from(c.trns.is_some())]);
            le16(&mut out, c.delay);
            out.extend_from_slice(&[c.trns.unwrap_or(0), 0]);
        }
        out.push(0x2C);
        for v in [f.left, f.top, f.w, f.h] {
            le16(&mut out, v);
        }
        let mut flags = if f.interlaced { 0x40 } else { 0 };
        if let Some(t) = &f.lct {
            flags |= 0x80 | (table_bits(t.len()) - 1);
        }
        out.push(flags);
        if let Some(t) = &f.lct {
            put_table(&mut out, t);
        }
        let data = if f.interlaced {
            interlace(&f.idx, usize::from(f.w), usize::from(f.h))
        } else {
            f.idx.clone()
        };
        let z = lzw(&data, f.w, f.h);
        out.push(z[0]);
        for chunk in z[1..].chunks(255) {
            out.push(chunk.len() as u8);
            out.extend_from_slice(chunk);
        }
        out.push(0);
    }
    out.push(0x3B);
    out
}

#[derive(Clone, Copy, Default)]
pub struct Opts {
    pub trns: Option<u8>,
    pub v87a: bool,
    pub interlaced: bool,
    pub local: bool,
}

/// A one-frame GIF from a canvas.
pub fn still(cv: &Canvas, pal: &Pal, dither: Dither, o: Opts) -> Gif {
    let table = pal.colors();
    let idx = quantize(cv, pal, dither, o.trns);
    let gce = o.trns.map(|t| Gce {
        dispose: 0,
        delay: 0,
        trns: Some(t),
    });
    assert!(!(o.v87a && gce.is_some()), "GIF87a has no transparency");
    Gif {
        v87a: o.v87a,
        w: cv.w as u16,
        h: cv.h as u16,
        gct: if o.local { None } else { Some(table.clone()) },
        loops: None,
        frames: vec![GFrame {
            left: 0,
            top: 0,
            w: cv.w as u16,
            h: cv.h as u16,
            idx,
            lct: if o.local { Some(table) } else { None },
            interlaced: o.interlaced,
            gce,
        }],
    }
}

/// Turns the grain knob (0 to 256 in quarter steps) until the encoded file is
/// as close as it gets to `target` bytes. The result is a pure function of the
/// inputs, so it is the same on every run.
pub fn tune(target: usize, build: impl Fn(f32) -> Gif) -> Gif {
    let size = |q: u32| encode(&build(q as f32 * 0.25)).len();
    if size(0) >= target {
        return build(0.0);
    }
    let (mut lo, mut hi) = (0u32, 1024u32);
    if size(hi) < target {
        return build(hi as f32 * 0.25);
    }
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if size(mid) < target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let best = if target - size(lo) <= size(hi) - target {
        lo
    } else {
        hi
    };
    build(best as f32 * 0.25)
}
