//! Colours, a small RGB canvas with a transparency mask, and a 5x7 bitmap font so that
//! "text as images" carries real letters.

use crate::rng::{clamp01, hashf};

pub type Col = [f32; 3];

pub const WHITE: Col = [255.0, 255.0, 255.0];
pub const BLACK: Col = [0.0, 0.0, 0.0];

pub fn hex(c: u32) -> Col {
    [
        ((c >> 16) & 255) as f32,
        ((c >> 8) & 255) as f32,
        (c & 255) as f32,
    ]
}

pub fn mix(a: Col, b: Col, t: f32) -> Col {
    [
        a[0] + (b[0] - a[0]) * t,
        a[1] + (b[1] - a[1]) * t,
        a[2] + (b[2] - a[2]) * t,
    ]
}

pub fn scale(a: Col, k: f32) -> Col {
    [a[0] * k, a[1] * k, a[2] * k]
}

pub fn add(a: Col, b: Col) -> Col {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

pub fn to_u8(c: Col) -> [u8; 3] {
    [
        c[0].clamp(0.0, 255.0).round() as u8,
        c[1].clamp(0.0, 255.0).round() as u8,
        c[2].clamp(0.0, 255.0).round() as u8,
    ]
}

/// `n` colours evenly spaced from `a` to `b`.
pub fn ramp(a: u32, b: u32, n: usize) -> Vec<[u8; 3]> {
    (0..n)
        .map(|i| to_u8(mix(hex(a), hex(b), i as f32 / (n - 1).max(1) as f32)))
        .collect()
}

pub fn cols(list: &[u32]) -> Vec<[u8; 3]> {
    list.iter().map(|&c| to_u8(hex(c))).collect()
}

#[derive(Clone)]
pub struct Canvas {
    pub w: usize,
    pub h: usize,
    pub px: Vec<Col>,
    pub on: Vec<bool>,
}

impl Canvas {
    pub fn new(w: usize, h: usize, c: Col) -> Self {
        Canvas {
            w,
            h,
            px: vec![c; w * h],
            on: vec![true; w * h],
        }
    }

    /// A fully transparent canvas; anti-aliased edges are blended towards white,
    /// the page colour, as GIF tools of the day did ("matte").
    pub fn clear(w: usize, h: usize) -> Self {
        Canvas {
            w,
            h,
            px: vec![WHITE; w * h],
            on: vec![false; w * h],
        }
    }

    pub fn at(&self, x: i32, y: i32) -> Option<usize> {
        if x < 0 || y < 0 || x as usize >= self.w || y as usize >= self.h {
            None
        } else {
            Some(y as usize * self.w + x as usize)
        }
    }

    pub fn put(&mut self, x: i32, y: i32, c: Col) {
        if let Some(i) = self.at(x, y) {
            self.px[i] = c;
            self.on[i] = true;
        }
    }

    pub fn blend(&mut self, x: i32, y: i32, c: Col, a: f32) {
        if let Some(i) = self.at(x, y) {
            if !self.on[i] {
                if a < 0.3 {
                    return;
                }
                self.on[i] = true;
                self.px[i] = WHITE;
            }
            self.px[i] = mix(self.px[i], c, clamp01(a));
        }
    }

    pub fn rect(&mut self, x: i32, y: i32, w: i32, h: i32, c: Col) {
        for yy in y..y + h {
            for xx in x..x + w {
                self.put(xx, yy, c);
            }
        }
    }

    /// Paints every pixel with `f(x, y)` (pixel centres).
    pub fn shade(&mut self, f: impl Fn(f32, f32) -> Col) {
        for y in 0..self.h {
            for x in 0..self.w {
                let i = y * self.w + x;
                self.px[i] = f(x as f32 + 0.5, y as f32 + 0.5);
                self.on[i] = true;
            }
        }
    }

    /// Film grain: the knob that the size tuner turns.
    pub fn grain(&mut self, amount: f32, seed: u64) {
        if amount <= 0.0 {
            return;
        }
        for y in 0..self.h {
            for x in 0..self.w {
                let i = y * self.w + x;
                if self.on[i] {
                    let n = (hashf(x as i64, y as i64, seed) - 0.5) * amount;
                    self.px[i] = add(self.px[i], [n, n, n]);
                }
            }
        }
    }

    pub fn hline(&mut self, x: i32, y: i32, w: i32, c: Col) {
        self.rect(x, y, w, 1, c);
    }

    pub fn vline(&mut self, x: i32, y: i32, h: i32, c: Col) {
        self.rect(x, y, 1, h, c);
    }

    /// A raised 3-D frame, Windows 95 style.
    pub fn bevel(&mut self, x: i32, y: i32, w: i32, h: i32, light: Col, dark: Col) {
        self.hline(x, y, w, light);
        self.vline(x, y, h, light);
        self.hline(x, y + h - 1, w, dark);
        self.vline(x + w - 1, y, h, dark);
    }

    pub fn text(&mut self, x: i32, y: i32, s: &str, k: i32, c: Col) {
        let mut cx = x;
        for ch in s.chars() {
            if let Some(rows) = glyph(ch) {
                for (ry, row) in rows.iter().enumerate() {
                    for (rx, b) in row.bytes().enumerate() {
                        if b == b'#' {
                            self.rect(cx + rx as i32 * k, y + ry as i32 * k, k, k, c);
                        }
                    }
                }
            }
            cx += advance(ch) * k;
        }
    }

    pub fn text_shadow(&mut self, x: i32, y: i32, s: &str, k: i32, c: Col, shadow: Col) {
        self.text(x + 1, y + 1, s, k, shadow);
        self.text(x, y, s, k, c);
    }

    /// A lit sphere (bullets, logos, the globe), anti-aliased at the rim.
    pub fn ball(&mut self, cx: f32, cy: f32, r: f32, base: Col) {
        let (x0, x1) = ((cx - r - 1.0).floor() as i32, (cx + r + 1.0).ceil() as i32);
        let (y0, y1) = ((cy - r - 1.0).floor() as i32, (cy + r + 1.0).ceil() as i32);
        for y in y0..=y1 {
            for x in x0..=x1 {
                let (dx, dy) = (x as f32 + 0.5 - cx, y as f32 + 0.5 - cy);
                let d = (dx * dx + dy * dy).sqrt();
                let cov = clamp01(r - d + 0.5);
                if cov <= 0.0 {
                    continue;
                }
                let (lam, spec) = sphere_light(dx / r, dy / r);
                let c = add(scale(base, 0.3 + 0.7 * lam), scale(WHITE, 0.85 * spec));
                self.blend(x, y, c, cov);
            }
        }
    }
}

/// Lambert and specular terms for a unit sphere lit from the upper left.
pub fn sphere_light(nx: f32, ny: f32) -> (f32, f32) {
    let q = nx * nx + ny * ny;
    let (nx, ny, q) = if q > 1.0 {
        let s = 1.0 / q.sqrt();
        (nx * s, ny * s, 1.0)
    } else {
        (nx, ny, q)
    };
    let nz = (1.0 - q).max(0.0).sqrt();
    let lam = (-0.45 * nx - 0.55 * ny + 0.703 * nz).max(0.0);
    let mut spec = lam;
    for _ in 0..4 {
        spec *= spec;
    }
    (lam, spec)
}

#[rustfmt::skip]
const FONT: &[(char, [&str; 7])] = &[
    ('A', [".###.", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"]),
    ('B', ["####.", "#...#", "#...#", "####.", "#...#", "#...#", "####."]),
    ('C', [".###.", "#...#", "#....", "#....", "#....", "#...#", ".###."]),
    ('D', ["###..", "#..#.", "#...#", "#...#", "#...#", "#..#.", "###.."]),
    ('E', ["#####", "#....", "#....", "####.", "#....", "#....", "#####"]),
    ('F', ["#####", "#....", "#....", "####.", "#....", "#....", "#...."]),
    ('G', [".###.", "#...#", "#....", "#.###", "#...#", "#...#", ".####"]),
    ('H', ["#...#", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"]),
    ('I', [".###.", "..#..", "..#..", "..#..", "..#..", "..#..", ".###."]),
    ('J', ["..###", "...#.", "...#.", "...#.", "...#.", "#..#.", ".##.."]),
    ('K', ["#...#", "#..#.", "#.#..", "##...", "#.#..", "#..#.", "#...#"]),
    ('L', ["#....", "#....", "#....", "#....", "#....", "#....", "#####"]),
    ('M', ["#...#", "##.##", "#.#.#", "#.#.#", "#...#", "#...#", "#...#"]),
    ('N', ["#...#", "#...#", "##..#", "#.#.#", "#..##", "#...#", "#...#"]),
    ('O', [".###.", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."]),
    ('P', ["####.", "#...#", "#...#", "####.", "#....", "#....", "#...."]),
    ('Q', [".###.", "#...#", "#...#", "#...#", "#.#.#", "#..#.", ".##.#"]),
    ('R', ["####.", "#...#", "#...#", "####.", "#.#..", "#..#.", "#...#"]),
    ('S', [".####", "#....", "#....", ".###.", "....#", "....#", "####."]),
    ('T', ["#####", "..#..", "..#..", "..#..", "..#..", "..#..", "..#.."]),
    ('U', ["#...#", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."]),
    ('V', ["#...#", "#...#", "#...#", "#...#", "#...#", ".#.#.", "..#.."]),
    ('W', ["#...#", "#...#", "#...#", "#.#.#", "#.#.#", "#.#.#", ".#.#."]),
    ('X', ["#...#", "#...#", ".#.#.", "..#..", ".#.#.", "#...#", "#...#"]),
    ('Y', ["#...#", "#...#", ".#.#.", "..#..", "..#..", "..#..", "..#.."]),
    ('Z', ["#####", "....#", "...#.", "..#..", ".#...", "#....", "#####"]),
    ('0', [".###.", "#...#", "#..##", "#.#.#", "##..#", "#...#", ".###."]),
    ('1', ["..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###."]),
    ('2', [".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####"]),
    ('3', ["#####", "...#.", "..#..", "...#.", "....#", "#...#", ".###."]),
    ('4', ["...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#."]),
    ('5', ["#####", "#....", "####.", "....#", "....#", "#...#", ".###."]),
    ('6', ["..##.", ".#...", "#....", "####.", "#...#", "#...#", ".###."]),
    ('7', ["#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#..."]),
    ('8', [".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###."]),
    ('9', [".###.", "#...#", "#...#", ".####", "....#", "...#.", ".##.."]),
    ('!', ["..#..", "..#..", "..#..", "..#..", "..#..", ".....", "..#.."]),
    ('.', [".....", ".....", ".....", ".....", ".....", ".##..", ".##.."]),
    (',', [".....", ".....", ".....", ".....", ".##..", "..#..", ".#..."]),
    ('\'', ["..#..", "..#..", ".#...", ".....", ".....", ".....", "....."]),
    ('-', [".....", ".....", ".....", "#####", ".....", ".....", "....."]),
    ('>', [".#...", "..#..", "...#.", "....#", "...#.", "..#..", ".#..."]),
    ('?', [".###.", "#...#", "....#", "...#.", "..#..", ".....", "..#.."]),
    ('&', [".##..", "#..#.", "#.#..", ".#...", "#.#.#", "#..#.", ".##.#"]),
    ('/', [".....", "....#", "...#.", "..#..", ".#...", "#....", "....."]),
    (':', [".....", ".##..", ".##..", ".....", ".##..", ".##..", "....."]),
];

fn glyph(c: char) -> Option<&'static [&'static str; 7]> {
    let c = c.to_ascii_uppercase();
    FONT.iter().find(|(g, _)| *g == c).map(|(_, rows)| rows)
}

fn advance(c: char) -> i32 {
    if c == ' ' {
        4
    } else {
        6
    }
}

pub fn text_width(s: &str, k: i32) -> i32 {
    s.chars().map(advance).sum::<i32>() * k - k
}
