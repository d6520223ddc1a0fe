//! The 42 images of the page, each drawn from code, and the list that names and encodes them.

mod anim;
mod flat;
mod photos;
mod tuned;

use crate::gifenc::{encode, Gif};

use anim::{banner_ad, throbber};
use flat::{
    bar_left, bullet_arrow, bullet_ball, bullet_square, corner, icon_mail, more_link, new_badge,
    push_button, rule_blue, rule_fade, spacer, tab,
};
use photos::{earth, landscape, office, photo, product_box, stage};
use tuned::{
    badge_best, badge_free, bg_paper, chart, h_title, heading, icon_disk, icon_globe, logo, navbar,
    worldmap,
};

pub const NAVY: u32 = 0x003366;
pub const GOLD: u32 = 0xFFCC00;
pub const TEAL: u32 = 0x008080;
pub const RED: u32 = 0xCC0000;

pub struct Img {
    pub path: &'static str,
    pub kind: &'static str,
    pub gif: Gif,
    pub bytes: Vec<u8>,
}

fn img(path: &'static str, kind: &'static str, gif: Gif) -> Img {
    let bytes = encode(&gif);
    Img {
        path,
        kind,
        gif,
        bytes,
    }
}

pub fn build_images() -> Vec<Img> {
    let tabs = [
        ("images/buttons/news.gif", "NEWS"),
        ("images/buttons/products.gif", "PRODUCTS"),
        ("images/buttons/support.gif", "SUPPORT"),
        ("images/buttons/download.gif", "DOWNLOAD"),
        ("images/buttons/company.gif", "COMPANY"),
    ];
    let mut v = vec![
        img("images/spacer.gif", "spacer", spacer()),
        img("images/bullet_ball.gif", "bullet", bullet_ball()),
        img("images/bullet_arrow.gif", "bullet", bullet_arrow()),
        img("images/bullet_square.gif", "bullet", bullet_square()),
        img("images/rule_blue.gif", "rule", rule_blue()),
        img("images/rule_fade.gif", "rule", rule_fade()),
        img("images/corner_tl.gif", "corner", corner(false)),
        img("images/corner_tr.gif", "corner", corner(true)),
        img("images/new.gif", "text as image", new_badge()),
        img(
            "images/buttons/go.gif",
            "text button",
            push_button("GO", 28, 20),
        ),
        img(
            "images/buttons/search.gif",
            "text button",
            push_button("SEARCH", 64, 20),
        ),
        img("images/more.gif", "text as image", more_link()),
        img("images/icon_mail.gif", "icon", icon_mail()),
    ];
    for (path, label) in tabs {
        v.push(img(path, "text button", tab(label)));
    }
    v.extend([
        img("images/bar_left.gif", "background tile", bar_left()),
        img(
            "images/h_whatsnew.gif",
            "heading",
            heading("WHAT'S NEW", 1, 1_250),
        ),
        img(
            "images/h_products.gif",
            "heading",
            heading("PRODUCTS", 2, 1_450),
        ),
        img(
            "images/h_developers.gif",
            "heading",
            heading("DEVELOPERS", 3, 2_250),
        ),
        img("images/badge_best.gif", "badge", badge_best()),
        img("images/badge_free.gif", "badge", badge_free()),
        img("images/icon_globe.gif", "icon", icon_globe()),
        img("images/icon_disk.gif", "icon", icon_disk()),
        img("images/bg_paper.gif", "background tile", bg_paper()),
        img("images/h_title.gif", "heading", h_title()),
        img("images/throbber.gif", "animation", throbber()),
        img(
            "images/thumb_team.gif",
            "photo",
            photo(landscape(72, 54, 51, true), 52, 2_350, 64, false),
        ),
        img(
            "images/thumb_lab.gif",
            "photo",
            photo(office(80, 60, 53, true), 54, 2_500, 64, false),
        ),
        img(
            "images/thumb_devcon.gif",
            "photo",
            photo(stage(80, 60, 55), 56, 2_750, 64, false),
        ),
        img("images/logo.gif", "logo", logo()),
        img("images/navbar.gif", "image map", navbar()),
        img("images/banner_ad.gif", "animation", banner_ad()),
        img(
            "images/photo_hero.gif",
            "photo",
            photo(landscape(300, 225, 61, false), 62, 40_000, 256, true),
        ),
        img(
            "images/photo_box.gif",
            "photo",
            photo(product_box(150, 130), 63, 11_800, 256, true),
        ),
        img(
            "images/photo_office.gif",
            "photo",
            photo(office(140, 105, 64, false), 65, 8_200, 64, false),
        ),
        img(
            "images/photo_campus.gif",
            "photo",
            photo(landscape(120, 90, 66, false), 67, 5_800, 64, false),
        ),
        img(
            "images/photo_earth.gif",
            "photo",
            photo(earth(100, 100, 68), 69, 4_900, 256, false),
        ),
        img("images/worldmap.gif", "map", worldmap()),
        img("images/chart.gif", "chart", chart()),
    ]);
    v
}
