//! The page's two animations: a throbber of transparent sub-rectangle frames and a banner
//! advertisement of full frames with local colour tables.

use crate::draw::{hex, mix, ramp, text_width, Canvas, BLACK};
use crate::gifenc::{quantize, tune, Dither, GFrame, Gce, Gif, Pal};
use crate::rng::{clamp01, cos, sin};

use super::GOLD;

/// A 48x48 "throbber": a static base frame and six comet frames that are
/// small transparent sub-rectangles, each undone with "restore to previous".
pub fn throbber() -> Gif {
    let mut table = ramp(0x000010, 0x2A5A9A, 24);
    table.extend(ramp(0x886600, 0xFFEE99, 6));
    table.push([255, 255, 255]);
    table.push([255, 0, 255]);
    let pal = Pal::List(table.clone());
    let mut base = Canvas::new(48, 48, BLACK);
    base.shade(|x, y| {
        let (dx, dy) = (x - 18.0, y - 16.0);
        mix(
            hex(0x2A5A9A),
            hex(0x000010),
            clamp01((dx * dx + dy * dy).sqrt() / 36.0),
        )
    });
    let comet = |k: usize| {
        let mut cv = Canvas::clear(12, 12);
        let a = k as f32 / 6.0 * std::f32::consts::TAU;
        cv.ball(6.0, 6.0, 2.6, hex(GOLD));
        for s in 1..5 {
            let t = a - 0.35 * s as f32;
            let tx = 6.0 - cos(t) * s as f32 * 1.2;
            let ty = 6.0 - sin(t) * s as f32 * 1.2;
            cv.blend(tx as i32, ty as i32, hex(0xFFEE99), 1.0 - s as f32 * 0.15);
        }
        cv
    };
    tune(1_750, |g| {
        let mut cv = base.clone();
        cv.grain(g * 0.3, 21);
        cv.text_shadow(14, 10, "M", 4, hex(GOLD), BLACK);
        let mut frames = vec![GFrame {
            left: 0,
            top: 0,
            w: 48,
            h: 48,
            idx: quantize(&cv, &pal, Dither::FloydSteinberg, Some(31)),
            lct: None,
            interlaced: false,
            gce: Some(Gce {
                dispose: 1,
                delay: 30,
                trns: None,
            }),
        }];
        for k in 0..6 {
            let a = k as f32 / 6.0 * std::f32::consts::TAU;
            let (cx, cy) = (24.0 + 17.0 * cos(a), 24.0 + 17.0 * sin(a));
            frames.push(GFrame {
                left: (cx - 6.0).round() as u16,
                top: (cy - 6.0).round() as u16,
                w: 12,
                h: 12,
                idx: quantize(&comet(k), &pal, Dither::Nearest, Some(31)),
                lct: None,
                interlaced: false,
                gce: Some(Gce {
                    dispose: 3,
                    delay: 12,
                    trns: Some(31),
                }),
            });
        }
        Gif {
            v87a: false,
            w: 48,
            h: 48,
            gct: Some(table.clone()),
            loops: Some(0),
            frames,
        }
    })
}

/// A 468x60 banner advertisement: four full frames, each with its own local
/// colour table, "restore to background" disposal and a finite loop count.
pub fn banner_ad() -> Gif {
    let themes: [(u32, u32, u32, &str, &str); 4] = [
        (
            0x001A40,
            0x3A7AC0,
            GOLD,
            "MICROSCAPE VOYAGER 4.0",
            "THE WEB, YOUR WAY.",
        ),
        (
            0x400010,
            0xC04A3A,
            0xFFFFFF,
            "NOW WITH PUSH CHANNELS",
            "NEWS DELIVERED TO YOUR DESKTOP",
        ),
        (
            0x0A3010,
            0x4A9A3A,
            0xFFFF99,
            "FASTER. SMARTER. FREE.",
            "FOR WINDOWS, MAC OS AND UNIX",
        ),
        (
            0x302000,
            0xC09020,
            0xFFFFFF,
            "DOWNLOAD IT TODAY >",
            "CLICK HERE",
        ),
    ];
    let bases: Vec<Canvas> = themes
        .iter()
        .enumerate()
        .map(|(k, &(a, b, _, _, _))| {
            let mut cv = Canvas::new(468, 60, BLACK);
            cv.shade(|x, _| {
                let wave = 0.5 + 0.5 * sin(x / 40.0 + k as f32);
                mix(hex(a), hex(b), clamp01(x / 468.0 * 0.8 + wave * 0.2))
            });
            cv
        })
        .collect();
    let tables: Vec<Vec<[u8; 3]>> = themes
        .iter()
        .map(|&(a, b, fg, _, _)| {
            let mut t = ramp(a, b, 12);
            t.extend(ramp(0x000000, fg, 4));
            t
        })
        .collect();
    let frames = themes
        .iter()
        .enumerate()
        .map(|(k, &(_, _, fg, big, small))| {
            let mut cv = bases[k].clone();
            cv.bevel(0, 0, 468, 60, hex(0xCCCCCC), BLACK);
            let tw = text_width(big, 3);
            cv.text_shadow((468 - tw) / 2, 8, big, 3, hex(fg), BLACK);
            let sw = text_width(small, 1);
            cv.text((468 - sw) / 2, 42, small, 1, hex(fg));
            let pal = Pal::List(tables[k].clone());
            GFrame {
                left: 0,
                top: 0,
                w: 468,
                h: 60,
                idx: quantize(&cv, &pal, Dither::Nearest, None),
                lct: Some(tables[k].clone()),
                interlaced: false,
                gce: Some(Gce {
                    dispose: 2,
                    delay: [250, 200, 200, 300][k],
                    trns: None,
                }),
            }
        })
        .collect();
    Gif {
        v87a: false,
        w: 468,
        h: 60,
        gct: None,
        loops: Some(3),
        frames,
    }
}
