//! Photo-like scenes (smooth gradients plus noise) and their reduction to 64 or 256 dithered
//! colours: the large files that make up most of the study's image bytes.

use crate::draw::{add, hex, mix, scale, sphere_light, to_u8, Canvas, BLACK, WHITE};
use crate::gifenc::{still, tune, Dither, Gif, Opts, Pal};
use crate::rng::{clamp01, fbm, hashf, sin, smooth};

use super::GOLD;

pub fn landscape(w: usize, h: usize, seed: u64, dusk: bool) -> Canvas {
    let (sky_top, sky_low, sun_c) = if dusk {
        (hex(0x1A1040), hex(0xFF8040), hex(0xFFE080))
    } else {
        (hex(0x2A5CAA), hex(0xBFDDF5), hex(0xFFFFE0))
    };
    let mut cv = Canvas::new(w, h, BLACK);
    cv.shade(|x, y| {
        let (u, v) = (x / w as f32, y / h as f32);
        let mut c = mix(sky_top, sky_low, clamp01(v / 0.62));
        let (dx, dy) = ((u - 0.72) * w as f32 / h as f32, v - 0.22);
        let d = (dx * dx + dy * dy).sqrt();
        let glow = clamp01(1.0 - d / 0.35);
        c = mix(c, sun_c, glow * glow * 0.8);
        if d < 0.06 {
            c = sun_c;
        }
        let cloud = smooth(0.5, 0.8, fbm(u * 6.0, v * 16.0, seed, 6));
        c = mix(c, mix(WHITE, sun_c, 0.3), cloud * clamp01(1.0 - v * 1.6));
        let far = 0.42 + 0.14 * fbm(u * 3.0, 0.5, seed + 1, 5);
        if v > far {
            let rock = fbm(u * 60.0, v * 40.0, seed + 2, 4);
            c = mix(
                mix(hex(0x4A5A7A), hex(0xA0AAC0), rock),
                sky_low,
                clamp01(0.35 - (v - far) * 2.0),
            );
            if dusk {
                c = scale(c, 0.6);
            }
        }
        let near = 0.56 + 0.12 * fbm(u * 4.0, 2.5, seed + 3, 5);
        if v > near {
            let leaf = fbm(u * w as f32 / 2.5, v * h as f32 / 2.5, seed + 4, 3);
            let shade = 1.0 - (v - near) * 2.0;
            c = mix(
                hex(0x0E300E),
                hex(0x6A9A3A),
                clamp01(leaf * 1.6 - 0.3) * shade,
            );
            if dusk {
                c = scale(c, 0.5);
            }
        }
        if v > 0.78 {
            let ripple =
                0.5 + 0.5 * sin(v * h as f32 * 1.3 + fbm(u * 30.0, v * 60.0, seed + 5, 3) * 9.0);
            let refl = mix(sky_low, sky_top, (v - 0.78) * 3.0);
            c = mix(scale(refl, 0.75), WHITE, ripple * 0.3);
            if (u - 0.72).abs() < 0.05 + (v - 0.78) * 0.3 {
                c = mix(c, sun_c, 0.5 * ripple);
            }
        }
        if v > 0.93 {
            let g = fbm(u * w as f32 / 2.0, v * h as f32 / 2.0, seed + 6, 3);
            c = mix(hex(0x2A1A0A), hex(0x8A7040), clamp01(g * 1.5 - 0.25));
        }
        c
    });
    cv
}

pub fn earth(w: usize, h: usize, seed: u64) -> Canvas {
    let mut cv = Canvas::new(w, h, BLACK);
    cv.shade(|x, y| {
        let (cx, cy, r) = (w as f32 * 0.55, h as f32 * 0.52, w as f32 * 0.4);
        let (dx, dy) = ((x - cx) / r, (y - cy) / r);
        let d = (dx * dx + dy * dy).sqrt();
        let star = hashf(x as i64, y as i64, seed);
        let mut c = if star > 0.992 {
            scale(WHITE, (star - 0.992) * 125.0)
        } else {
            hex(0x000008)
        };
        if d < 1.0 {
            let (lam, spec) = sphere_light(dx, dy);
            let n = fbm(dx * 3.0 + 5.0, dy * 3.0 + 2.0, seed + 1, 5);
            let mut s = if n > 0.53 {
                mix(hex(0x2E6B2A), hex(0x8A7A4A), smooth(0.53, 0.7, n))
            } else {
                mix(hex(0x0A2A7A), hex(0x1A5AB0), n)
            };
            let cloud = smooth(0.55, 0.8, fbm(dx * 9.0, dy * 9.0, seed + 2, 5));
            s = mix(s, WHITE, cloud * 0.8);
            c = add(scale(s, 0.08 + 0.92 * lam), scale(WHITE, 0.3 * spec));
        }
        let rim = clamp01(1.0 - (d - 1.0).abs() * 12.0);
        mix(c, hex(0x88BBFF), rim * 0.6)
    });
    cv
}

pub fn office(w: usize, h: usize, seed: u64, night: bool) -> Canvas {
    let mut cv = Canvas::new(w, h, BLACK);
    cv.shade(|x, y| {
        let (u, v) = (x / w as f32, y / h as f32);
        let mut c = if night {
            mix(hex(0x05051A), hex(0x203050), v)
        } else {
            mix(hex(0x4A80C8), hex(0xD8E8F8), v)
        };
        if (0.18..0.82).contains(&u) && v > 0.12 {
            let stone = fbm(u * w as f32 / 2.0, v * h as f32 / 2.0, seed + 3, 3);
            let facade = mix(
                mix(hex(0x8A8A90), hex(0x5A5A66), u),
                hex(0xB0A890),
                stone * 0.5,
            );
            c = if night { scale(facade, 0.35) } else { facade };
            let (gx, gy) = ((u - 0.18) / 0.64 * 9.0, (v - 0.12) / 0.78 * 11.0);
            let (fx, fy) = (gx - gx.floor(), gy - gy.floor());
            if fx > 0.18 && fx < 0.82 && fy > 0.2 && fy < 0.8 && v < 0.9 {
                let lit = hashf(gx.floor() as i64, gy.floor() as i64, seed) > 0.55;
                c = if night && lit {
                    mix(hex(0xFFE8A0), hex(0xC09040), fy)
                } else {
                    let sky = fbm(u * 12.0, v * 6.0, seed + 4, 3);
                    mix(hex(0x203048), hex(0x90A8C8), (1.0 - fy) * 0.5 + sky * 0.5)
                };
            }
        }
        if v > 0.9 {
            let g = fbm(u * w as f32 / 2.0, v * h as f32 / 2.0, seed + 1, 3);
            c = mix(hex(0x303030), hex(0x909090), g);
        }
        if v > 0.8 && !(0.16..=0.86).contains(&u) {
            let t = fbm(u * w as f32 / 3.0, v * h as f32 / 3.0, seed + 2, 4);
            if t > 0.45 {
                c = mix(hex(0x1A3A12), hex(0x4A8A32), t);
            }
        }
        c
    });
    cv
}

pub fn product_box(w: usize, h: usize) -> Canvas {
    let mut cv = Canvas::new(w, h, BLACK);
    let (wf, hf) = (w as f32, h as f32);
    cv.shade(|x, y| {
        let (u, v) = (x / wf, y / hf);
        let (dx, dy) = (u - 0.45, v - 0.4);
        let cloth = fbm(u * wf / 2.0, v * hf / 6.0, 77, 3);
        let mut c = mix(
            hex(0xE8EEF4),
            hex(0x7A8AA0),
            clamp01((dx * dx + dy * dy).sqrt() * 1.6),
        );
        c = mix(c, hex(0x5A6A80), cloth * 0.35);
        // Front face, right side and top of a software box.
        let (l, r, t, b) = (0.16, 0.66, 0.2, 0.92);
        if u > l && u < r && v > t && v < b {
            c = mix(hex(0x0A3A7A), hex(0x00224A), (v - t) / (b - t));
            let swoosh = sin((u - l) * 9.0 + 1.0) * 0.08 + 0.55;
            if (v - swoosh).abs() < 0.05 {
                c = mix(c, hex(GOLD), 1.0 - (v - swoosh).abs() / 0.05);
            }
        } else if u >= r && u < r + 0.16 && v > t - (u - r) * 0.6 && v < b - (u - r) * 0.6 {
            c = mix(hex(0x06224A), hex(0x001030), (u - r) / 0.16);
        } else if v <= t && v > t - 0.1 && u > l + (t - v) * 1.6 && u < r + (t - v) * 1.6 {
            c = mix(hex(0x3A6AAA), hex(0x5A8ACA), (t - v) / 0.1);
        } else if v > 0.92 && u > 0.2 && u < 0.85 {
            c = scale(c, 0.75);
        }
        c
    });
    let x0 = (wf * 0.16) as i32;
    cv.text(x0 + 6, (hf * 0.26) as i32, "MICROSCAPE", 1, WHITE);
    cv.text_shadow(x0 + 6, (hf * 0.34) as i32, "VOYAGER", 1, hex(GOLD), BLACK);
    cv.text(x0 + 6, (hf * 0.76) as i32, "4.0", 2, WHITE);
    cv
}

pub fn stage(w: usize, h: usize, seed: u64) -> Canvas {
    let mut cv = Canvas::new(w, h, BLACK);
    cv.shade(|x, y| {
        let (u, v) = (x / w as f32, y / h as f32);
        let mut c = mix(hex(0x100818), hex(0x301838), v);
        for (sx, col) in [(0.25, 0xFFE0A0), (0.5, 0xA0C0FF), (0.75, 0xFFA0C0)] {
            let spread = 0.05 + v * 0.18;
            let k = clamp01(1.0 - (u - sx).abs() / spread);
            c = mix(c, hex(col), k * k * 0.5);
        }
        if v > 0.72 {
            let g = fbm(u * w as f32 / 2.0, v * h as f32 / 3.0, seed, 3);
            c = mix(hex(0x2A1408), hex(0x9A6438), g);
        }
        if v > 0.86 {
            let heads = fbm(u * w as f32 / 3.0, v * h as f32 / 3.0, seed + 9, 2);
            c = mix(c, hex(0x080408), smooth(0.4, 0.6, heads));
        }
        if (0.42..0.58).contains(&u) && v > 0.5 && v < 0.8 {
            c = mix(hex(0x505060), hex(0x303040), (u - 0.42) / 0.16);
        }
        c
    });
    cv
}

/// An "adaptive" palette: the `n` most common colours, counted in 4-bit-per-channel
/// boxes, each the mean of its box (ties broken by box number, so it is deterministic).
fn adaptive(cv: &Canvas, n: usize) -> Pal {
    let mut boxes = vec![(0u32, [0f32; 3]); 4096];
    for (p, _) in cv.px.iter().zip(&cv.on).filter(|(_, on)| **on) {
        let c = to_u8(*p);
        let k =
            (usize::from(c[0] >> 4) << 8) | (usize::from(c[1] >> 4) << 4) | usize::from(c[2] >> 4);
        boxes[k].0 += 1;
        boxes[k].1 = add(boxes[k].1, *p);
    }
    let mut order: Vec<usize> = (0..4096).filter(|&k| boxes[k].0 > 0).collect();
    order.sort_by(|&a, &b| boxes[b].0.cmp(&boxes[a].0).then(a.cmp(&b)));
    Pal::List(
        order
            .iter()
            .take(n)
            .map(|&k| to_u8(scale(boxes[k].1, 1.0 / boxes[k].0 as f32)))
            .collect(),
    )
}

/// A photo-like image: 64 colours get an adaptive palette, 256 the 8x8x4 colour cube.
pub fn photo(canvas: Canvas, seed: u64, target: usize, colours: usize, interlaced: bool) -> Gif {
    let pal = if colours == 256 {
        Pal::Cube(8, 8, 4)
    } else {
        adaptive(&canvas, colours)
    };
    tune(target, |g| {
        let mut cv = canvas.clone();
        cv.grain(g * 0.5, seed);
        still(
            &cv,
            &pal,
            Dither::FloydSteinberg,
            Opts {
                interlaced,
                ..Opts::default()
            },
        )
    })
}
