//! Small few-colour graphics drawn pixel by pixel: spacer, bullets, rules, corners, buttons,
//! an icon and the left column's background tile; the study's 19 files under 1 KB.

use crate::draw::{cols, hex, mix, ramp, text_width, to_u8, Canvas, BLACK, WHITE};
use crate::gifenc::{still, Dither, Gif, Opts, Pal};
use crate::rng::clamp01;

use super::{GOLD, NAVY, RED};

pub fn spacer() -> Gif {
    // 1x1, fully transparent, with the 8-colour table a 1996 export tool left in.
    let pal = Pal::List(cols(&[
        0xFFFFFF, 0x000000, 0xFF0000, 0x00FF00, 0x0000FF, 0xFFFF00, 0x00FFFF, 0xFF00FF,
    ]));
    still(
        &Canvas::clear(1, 1),
        &pal,
        Dither::Nearest,
        Opts {
            trns: Some(0),
            ..Opts::default()
        },
    )
}

pub fn bullet_ball() -> Gif {
    let mut cv = Canvas::clear(11, 11);
    cv.ball(5.5, 5.5, 4.8, hex(0xDD1111));
    let mut table = ramp(0x330000, 0xFF2222, 9);
    table.extend(ramp(0xFF6666, 0xFFFFFF, 6));
    table.push([255, 255, 255]);
    still(
        &cv,
        &Pal::List(table),
        Dither::Nearest,
        Opts {
            trns: Some(15),
            ..Opts::default()
        },
    )
}

pub fn bullet_arrow() -> Gif {
    let mut cv = Canvas::clear(8, 9);
    for y in 0..9i32 {
        for x in 0..=(4 - (y - 4).abs()) {
            cv.put(x + 1, y, hex(NAVY));
        }
        cv.put(6 - (y - 4).abs(), y, hex(0x6699CC));
    }
    still(
        &cv,
        &Pal::List(cols(&[NAVY, 0x6699CC, 0x000000, 0xFFFFFF])),
        Dither::Nearest,
        Opts {
            trns: Some(3),
            ..Opts::default()
        },
    )
}

pub fn bullet_square() -> Gif {
    let mut cv = Canvas::new(8, 8, hex(0xFFFFFF));
    cv.rect(0, 0, 7, 7, hex(0x996600));
    cv.rect(0, 0, 6, 6, hex(GOLD));
    cv.hline(0, 0, 6, WHITE);
    cv.vline(0, 0, 6, WHITE);
    still(
        &cv,
        &Pal::List(cols(&[GOLD, 0x996600, 0xFFFFFF, 0x000000])),
        Dither::Nearest,
        Opts {
            v87a: true,
            ..Opts::default()
        },
    )
}

pub fn rule_blue() -> Gif {
    let mut cv = Canvas::new(560, 4, hex(NAVY));
    cv.hline(0, 0, 560, hex(0x99CCFF));
    cv.hline(0, 3, 560, hex(0x001133));
    still(
        &cv,
        &Pal::List(cols(&[NAVY, 0x99CCFF, 0x001133, 0xFFFFFF])),
        Dither::Nearest,
        Opts::default(),
    )
}

pub fn rule_fade() -> Gif {
    let mut cv = Canvas::new(300, 2, WHITE);
    cv.shade(|x, _| mix(hex(RED), WHITE, x / 300.0));
    still(
        &cv,
        &Pal::List(ramp(RED, 0xFFFFFF, 16)),
        Dither::Ordered(18.0),
        Opts::default(),
    )
}

pub fn corner(right: bool) -> Gif {
    let mut cv = Canvas::clear(12, 12);
    for y in 0..12 {
        for x in 0..12 {
            let fx = if right {
                x as f32 + 0.5
            } else {
                12.0 - x as f32 - 0.5
            };
            let fy = 12.0 - y as f32 - 0.5;
            let d = (fx * fx + fy * fy).sqrt();
            cv.blend(x, y, hex(NAVY), clamp01(12.0 - d + 0.5));
        }
    }
    let table = vec![
        to_u8(hex(NAVY)),
        to_u8(mix(hex(NAVY), WHITE, 0.33)),
        to_u8(mix(hex(NAVY), WHITE, 0.66)),
        [255, 255, 255],
    ];
    still(
        &cv,
        &Pal::List(table),
        Dither::Nearest,
        Opts {
            trns: Some(3),
            ..Opts::default()
        },
    )
}

pub fn new_badge() -> Gif {
    let mut cv = Canvas::new(29, 11, hex(RED));
    cv.text(3, 2, "NEW!", 1, hex(0xFFFF00));
    still(
        &cv,
        &Pal::List(cols(&[RED, 0xFFFF00])),
        Dither::Nearest,
        Opts {
            v87a: true,
            ..Opts::default()
        },
    )
}

/// A grey Windows-style push button with a caption.
pub fn push_button(label: &str, w: i32, h: i32) -> Gif {
    let mut cv = Canvas::new(w as usize, h as usize, hex(0xC0C0C0));
    cv.bevel(0, 0, w, h, WHITE, BLACK);
    cv.bevel(1, 1, w - 2, h - 2, hex(0xDFDFDF), hex(0x808080));
    let tw = text_width(label, 1);
    cv.text((w - tw) / 2, (h - 7) / 2, label, 1, hex(NAVY));
    let mut table = cols(&[0xC0C0C0, 0xFFFFFF, 0x000000, 0xDFDFDF, 0x808080, NAVY]);
    table.extend(ramp(0x202020, 0xE0E0E0, 10));
    still(&cv, &Pal::List(table), Dither::Nearest, Opts::default())
}

pub fn more_link() -> Gif {
    let label = "MORE >";
    let w = text_width(label, 1) + 2;
    let mut cv = Canvas::clear(w as usize, 9);
    cv.text(1, 1, "MORE", 1, hex(NAVY));
    cv.text(1 + text_width("MORE ", 1) + 1, 1, ">", 1, hex(RED));
    still(
        &cv,
        &Pal::List(cols(&[NAVY, RED, 0x999999, 0xFFFFFF])),
        Dither::Nearest,
        Opts {
            trns: Some(3),
            ..Opts::default()
        },
    )
}

pub fn icon_mail() -> Gif {
    let mut cv = Canvas::clear(17, 13);
    cv.rect(0, 0, 17, 12, WHITE);
    cv.bevel(0, 0, 17, 12, BLACK, BLACK);
    for i in 0..8 {
        cv.put(i, i - 1 + 1, hex(0x808080));
        cv.put(16 - i, i, hex(0x808080));
    }
    cv.hline(1, 12, 17, hex(0x808080));
    still(
        &cv,
        &Pal::List(cols(&[0xFFFFFF, 0x000000, 0x808080, 0xFF00FF])),
        Dither::Nearest,
        Opts {
            trns: Some(3),
            ..Opts::default()
        },
    )
}

/// The navigation buttons of the left column.
pub fn tab(label: &str) -> Gif {
    let (w, h) = (128, 20);
    let mut cv = Canvas::new(w as usize, h as usize, hex(0x0B3D6E));
    cv.bevel(0, 0, w, h, hex(0x6699CC), hex(0x001833));
    cv.rect(6, 6, 8, 8, hex(GOLD));
    cv.text(20, 6, label, 1, WHITE);
    still(
        &cv,
        &Pal::List(cols(&[0x0B3D6E, 0x6699CC, 0x001833, GOLD, 0xFFFFFF])),
        Dither::Nearest,
        Opts::default(),
    )
}

/// Background tile of the left column: a horizontal gradient.
pub fn bar_left() -> Gif {
    let mut cv = Canvas::new(140, 8, BLACK);
    cv.shade(|x, _| mix(hex(NAVY), hex(0x0B5A7A), x / 140.0));
    still(
        &cv,
        &Pal::List(ramp(NAVY, 0x0B5A7A, 16)),
        Dither::Ordered(10.0),
        Opts::default(),
    )
}
