//! Headings, badges, icons, paper background, logo, image map, map and chart: graphics over
//! textured grounds, each with its grain tuned until the file has the size the study's
//! distribution asks for.

use crate::draw::{add, cols, hex, mix, ramp, scale, sphere_light, text_width, Canvas, Col};
use crate::draw::{BLACK, WHITE};
use crate::gifenc::{still, tune, Dither, Gif, Opts, Pal};
use crate::rng::{clamp01, cos, fbm, sin, smooth};

use super::{GOLD, NAVY, RED, TEAL};

/// Section headings rendered as pictures ("text as images").
pub fn heading(label: &str, seed: u64, target: usize) -> Gif {
    let (w, h) = (300usize, 26usize);
    let mut base = Canvas::new(w, h, WHITE);
    base.shade(|x, _| {
        let t = x / w as f32;
        mix(hex(0xFFB000), WHITE, t * t)
    });
    let mut table = ramp(0xFFAA00, 0xFFFFFF, 12);
    table.extend(cols(&[NAVY, 0x999999, 0xCC9900, 0x336699]));
    let pal = Pal::List(table);
    tune(target, |g| {
        let mut cv = base.clone();
        cv.grain(g, seed);
        cv.text_shadow(8, 6, label, 2, hex(NAVY), hex(0x999999));
        still(&cv, &pal, Dither::Ordered(10.0), Opts::default())
    })
}

pub fn badge_best() -> Gif {
    let mut base = Canvas::new(88, 31, BLACK);
    base.shade(|_, y| mix(hex(NAVY), hex(TEAL), y / 31.0));
    tune(1_550, |g| {
        let mut cv = base.clone();
        cv.grain(g, 11);
        cv.bevel(0, 0, 88, 31, hex(0x99CCCC), BLACK);
        cv.text(12, 3, "BEST VIEWED", 1, WHITE);
        cv.text(32, 12, "WITH", 1, WHITE);
        cv.text_shadow(14, 21, "MICROSCAPE", 1, hex(GOLD), BLACK);
        still(
            &cv,
            &Pal::Cube(4, 4, 4),
            Dither::FloydSteinberg,
            Opts::default(),
        )
    })
}

pub fn badge_free() -> Gif {
    let mut base = Canvas::new(88, 31, BLACK);
    base.shade(|x, y| mix(hex(0x990000), hex(0xFF6633), (x / 88.0 + y / 31.0) * 0.5));
    tune(1_750, |g| {
        let mut cv = base.clone();
        cv.grain(g, 12);
        cv.bevel(0, 0, 88, 31, hex(0xFF9999), hex(0x330000));
        cv.text_shadow(20, 3, "FREE", 2, hex(0xFFFF00), BLACK);
        cv.text(21, 20, "DOWNLOAD", 1, WHITE);
        still(
            &cv,
            &Pal::Cube(4, 4, 4),
            Dither::FloydSteinberg,
            Opts {
                local: true,
                ..Opts::default()
            },
        )
    })
}

pub fn icon_globe() -> Gif {
    let mut base = Canvas::clear(40, 40);
    for y in 0..40 {
        for x in 0..40 {
            let (dx, dy) = (
                (x as f32 + 0.5 - 20.0) / 18.5,
                (y as f32 + 0.5 - 20.0) / 18.5,
            );
            let d = (dx * dx + dy * dy).sqrt();
            let cov = clamp01((1.0 - d) * 18.5 + 0.5);
            if cov <= 0.0 {
                continue;
            }
            let (lam, spec) = sphere_light(dx, dy);
            let land = fbm(dx * 2.2 + 3.0, dy * 2.2 + 1.0, 21, 4) > 0.52;
            let c = if land { hex(0x33AA33) } else { hex(0x1E5AC8) };
            let c = add(scale(c, 0.25 + 0.75 * lam), scale(WHITE, 0.6 * spec));
            base.blend(x, y, c, cov);
        }
    }
    let mut table = ramp(0x000820, 0x66AAFF, 24);
    table.extend(ramp(0x001100, 0x88FF88, 20));
    table.extend(ramp(0x404040, 0xFFFFFF, 19));
    table.push([255, 0, 255]);
    let pal = Pal::List(table);
    tune(1_350, |g| {
        let mut cv = base.clone();
        cv.grain(g, 13);
        still(
            &cv,
            &pal,
            Dither::FloydSteinberg,
            Opts {
                trns: Some(63),
                ..Opts::default()
            },
        )
    })
}

pub fn icon_disk() -> Gif {
    let mut base = Canvas::new(48, 48, WHITE);
    base.shade(|x, y| mix(hex(0x3A3A4A), hex(0x14141C), (x + y) / 96.0));
    base.rect(12, 0, 24, 16, hex(0xB8B8C0));
    base.rect(26, 3, 6, 10, hex(0x3A3A4A));
    base.rect(7, 22, 34, 26, hex(0xF4F4F0));
    for y in [32, 37, 42] {
        base.hline(10, y, 28, hex(0x9999CC));
    }
    base.text(10, 24, "MS-4.0", 1, hex(RED));
    let mut table = ramp(0x101018, 0x50505E, 6);
    table.extend(cols(&[
        0xB8B8C0, 0xF4F4F0, 0x9999CC, RED, 0x808088, 0xFFFFFF,
    ]));
    table.extend(ramp(0xC8C8C8, 0xE8E8E8, 4));
    let pal = Pal::List(table);
    tune(1_200, |g| {
        let mut cv = base.clone();
        cv.grain(g, 14);
        still(
            &cv,
            &pal,
            Dither::FloydSteinberg,
            Opts {
                local: true,
                ..Opts::default()
            },
        )
    })
}

pub fn bg_paper() -> Gif {
    let mut base = Canvas::new(80, 80, WHITE);
    base.shade(|x, y| mix(hex(0xF0EEE4), WHITE, fbm(x / 10.0, y / 10.0, 31, 3)));
    let pal = Pal::List(ramp(0xEEEBE0, 0xFFFFFF, 16));
    tune(2_550, |g| {
        let mut cv = base.clone();
        cv.grain(g * 0.1, 15);
        still(&cv, &pal, Dither::Ordered(4.0), Opts::default())
    })
}

pub fn h_title() -> Gif {
    let (w, h) = (300usize, 30usize);
    let mut base = Canvas::new(w, h, BLACK);
    base.shade(|x, y| {
        let t = y / h as f32;
        mix(hex(0x001A33), hex(0x336699), t * (0.7 + 0.3 * x / w as f32))
    });
    let label = "MICROSCAPE VOYAGER 4.0";
    let tw = text_width(label, 2);
    tune(2_650, |g| {
        let mut cv = base.clone();
        cv.grain(g, 16);
        cv.text_shadow((w as i32 - tw) / 2, 8, label, 2, hex(GOLD), BLACK);
        still(
            &cv,
            &Pal::Cube(4, 4, 4),
            Dither::Ordered(40.0),
            Opts::default(),
        )
    })
}

pub fn logo() -> Gif {
    let (w, h) = (176usize, 56usize);
    let mut base = Canvas::new(w, h, WHITE);
    base.shade(|x, y| {
        mix(
            WHITE,
            hex(0xCCDDEE),
            clamp01((x / w as f32) * 0.6 + y / h as f32 * 0.4),
        )
    });
    base.ball(26.0, 28.0, 21.0, hex(0xE8A800));
    // An orbit ring across the ball.
    for i in 0..200 {
        let t = i as f32 / 200.0 * std::f32::consts::TAU;
        let (ox, oy) = (26.0 + 25.0 * cos(t), 28.0 + 8.0 * sin(t));
        cv_dot(&mut base, ox, oy, hex(NAVY));
    }
    base.text(50, 30, "M", 3, hex(0xFFFFFF));
    tune(3_300, |g| {
        let mut cv = base.clone();
        cv.grain(g, 17);
        cv.text_shadow(54, 12, "MICROSCAPE", 2, hex(NAVY), hex(0x99AABB));
        cv.text(55, 34, "COMMUNICATIONS", 1, hex(RED));
        still(
            &cv,
            &Pal::Cube(4, 4, 4),
            Dither::FloydSteinberg,
            Opts::default(),
        )
    })
}

fn cv_dot(cv: &mut Canvas, x: f32, y: f32, c: Col) {
    cv.blend(x.floor() as i32, y.floor() as i32, c, 0.9);
}

/// The image map: five labelled segments, 120 pixels each.
const NAV_ITEMS: [(&str, &str); 5] = [
    ("HOME", "#top"),
    ("NEWS", "#news"),
    ("PRODUCTS", "#products"),
    ("SUPPORT", "#support"),
    ("SEARCH", "#search"),
];

pub fn navbar() -> Gif {
    let (w, h) = (600usize, 28usize);
    let mut base = Canvas::new(w, h, BLACK);
    base.shade(|_, y| mix(hex(0x4D7FB3), hex(0x002244), y / h as f32));
    let mut table = ramp(0x002244, 0x4D7FB3, 11);
    table.extend(cols(&[GOLD, 0xFFFFFF, 0x000000, 0x99BBDD, 0x886600]));
    let pal = Pal::List(table);
    tune(3_800, |g| {
        let mut cv = base.clone();
        cv.grain(g, 18);
        for (i, (label, _)) in NAV_ITEMS.iter().enumerate() {
            let x0 = i as i32 * 120;
            cv.bevel(x0, 0, 120, 28, hex(0x99BBDD), BLACK);
            let tw = text_width(label, 2);
            cv.text_shadow(x0 + (120 - tw) / 2, 7, label, 2, hex(GOLD), BLACK);
        }
        still(&cv, &pal, Dither::Ordered(20.0), Opts::default())
    })
}

pub fn worldmap() -> Gif {
    let (w, h) = (200usize, 100usize);
    let mut base = Canvas::new(w, h, BLACK);
    base.shade(|x, y| {
        let (u, v) = (x / w as f32, y / h as f32);
        let lat = clamp01(1.0 - (v - 0.5).abs() * 2.0);
        let n = fbm(u * 6.0, v * 4.0, 41, 5) + 0.12 * lat - 0.06;
        if n > 0.55 {
            mix(hex(0x2A7A2A), hex(0xA0B060), smooth(0.55, 0.8, n))
        } else {
            mix(hex(0x0A3A7A), hex(0x5A8ACA), n + 0.3)
        }
    });
    let mut table = ramp(0x0A3A7A, 0x6A9ADA, 7);
    table.extend(ramp(0x2A7A2A, 0xA0B060, 5));
    table.extend(cols(&[0xFFFFFF, RED, 0x99BBDD, 0xFFFF00]));
    let pal = Pal::List(table);
    tune(4_100, |g| {
        let mut cv = base.clone();
        cv.grain(g, 19);
        for gx in (0..200).step_by(25) {
            cv.vline(gx, 0, 100, hex(0x99BBDD));
        }
        for gy in (0..100).step_by(25) {
            cv.hline(0, gy, 200, hex(0x99BBDD));
        }
        for (ox, oy) in [
            (42, 30),
            (96, 26),
            (150, 40),
            (110, 62),
            (60, 70),
            (172, 74),
        ] {
            cv.rect(ox - 1, oy - 1, 4, 4, hex(0xFFFF00));
            cv.rect(ox, oy, 2, 2, hex(RED));
        }
        still(&cv, &pal, Dither::Ordered(16.0), Opts::default())
    })
}

pub fn chart() -> Gif {
    let (w, h) = (160usize, 100usize);
    let mut base = Canvas::new(w, h, WHITE);
    base.shade(|_, y| mix(WHITE, hex(0xDDE6F0), y / h as f32));
    let mut table = ramp(0xDDE6F0, 0xFFFFFF, 5);
    table.extend(ramp(0x660000, 0xFF6655, 6));
    table.extend(cols(&[0x000000, NAVY, 0x999999, 0xBBBBBB, GOLD]));
    let pal = Pal::List(table);
    tune(3_450, |g| {
        let mut cv = base.clone();
        cv.grain(g, 20);
        cv.text(42, 3, "REVENUE", 1, hex(NAVY));
        for gy in [30, 50, 70] {
            cv.hline(20, gy, 132, hex(0xBBBBBB));
        }
        cv.vline(20, 14, 76, BLACK);
        cv.hline(20, 89, 134, BLACK);
        for (i, bh) in [28, 41, 52, 66].iter().enumerate() {
            let x0 = 30 + i as i32 * 31;
            for x in x0..x0 + 20 {
                let t = (x - x0) as f32 / 20.0;
                for y in 89 - bh..89 {
                    cv.put(x, y, mix(hex(0xFF6655), hex(0x660000), t));
                }
            }
            cv.text(x0 + 4, 91, &format!("Q{}", i + 1), 1, BLACK);
        }
        still(&cv, &pal, Dither::Ordered(20.0), Opts::default())
    })
}
