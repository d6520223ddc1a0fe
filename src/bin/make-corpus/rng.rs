//! Deterministic numbers: a seeded splitmix64, position hashing and value noise.
//!
//! Only +, -, *, /, sqrt, floor and round are used on floats (all exactly specified by
//! IEEE 754), so every machine computes the same pixels.

pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix64(self.0)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A number in [0, 1) that depends only on (x, y, seed).
pub fn hashf(x: i64, y: i64, seed: u64) -> f32 {
    let z = (x as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ (y as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
        ^ seed.wrapping_mul(0x1656_67B1_9E37_79F9);
    (mix64(z) >> 40) as f32 / 16_777_216.0
}

fn vnoise(x: f32, y: f32, seed: u64) -> f32 {
    let (xf, yf) = (x.floor(), y.floor());
    let (xi, yi) = (xf as i64, yf as i64);
    let (tx, ty) = (x - xf, y - yf);
    let sx = tx * tx * (3.0 - 2.0 * tx);
    let sy = ty * ty * (3.0 - 2.0 * ty);
    let a = hashf(xi, yi, seed);
    let b = hashf(xi + 1, yi, seed);
    let c = hashf(xi, yi + 1, seed);
    let d = hashf(xi + 1, yi + 1, seed);
    let top = a + (b - a) * sx;
    let bottom = c + (d - c) * sx;
    top + (bottom - top) * sy
}

/// Fractal value noise in [0, 1).
pub fn fbm(x: f32, y: f32, seed: u64, octaves: u32) -> f32 {
    let (mut sum, mut amp, mut freq, mut norm) = (0.0, 0.5, 1.0, 0.0);
    for i in 0..octaves {
        sum += amp * vnoise(x * freq, y * freq, seed.wrapping_add(u64::from(i) * 7919));
        norm += amp;
        amp *= 0.5;
        freq *= 2.0;
    }
    sum / norm
}

/// Sine from a polynomial, so that no platform maths library is involved.
pub fn sin(x: f32) -> f32 {
    use std::f32::consts::{FRAC_PI_2, PI, TAU};
    let mut t = x - (x / TAU).floor() * TAU;
    if t > PI {
        t -= TAU;
    }
    if t > FRAC_PI_2 {
        t = PI - t;
    } else if t < -FRAC_PI_2 {
        t = -PI - t;
    }
    let t2 = t * t;
    t * (1.0 - t2 / 6.0 * (1.0 - t2 / 20.0 * (1.0 - t2 / 42.0 * (1.0 - t2 / 72.0))))
}

pub fn cos(x: f32) -> f32 {
    sin(x + std::f32::consts::FRAC_PI_2)
}

pub fn clamp01(t: f32) -> f32 {
    t.clamp(0.0, 1.0)
}

pub fn smooth(e0: f32, e1: f32, x: f32) -> f32 {
    let t = clamp01((x - e0) / (e1 - e0));
    t * t * (3.0 - 2.0 * t)
}
