//! Any page in a small site of GIFs, rewritten by the whole rewrite stage (images and markup):
//! it never panics, and no reference that resolved in the original is broken in the result.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use webdiet::image::{Effort, ImageOptions};
use webdiet::inventory::{self, AnalyzeOptions};
use webdiet::rewrite::markup::CssChoice;
use webdiet::rewrite::{self, RewriteOptions};
use webdiet::site::{self, CrawlOptions};

/// A 32×32 GIF of stripes that becomes a smaller PNG, and the classic 1×1 spacer.
fn gifs() -> (Vec<u8>, Vec<u8>) {
    let mut stripes = Vec::new();
    {
        let palette = [200, 0, 0, 0, 0, 200, 0, 120, 0, 255, 255, 255];
        let mut enc = gif::Encoder::new(&mut stripes, 32, 32, &palette).unwrap();
        let pixels: Vec<u8> = (0..32 * 32).map(|i| ((i % 32) / 3 % 4) as u8).collect();
        let frame = gif::Frame::from_indexed_pixels(32, 32, pixels, None);
        enc.write_frame(&frame).unwrap();
    }
    let mut spacer = Vec::new();
    {
        let mut enc = gif::Encoder::new(&mut spacer, 1, 1, &[0, 0, 0, 255, 255, 255]).unwrap();
        let frame = gif::Frame::from_indexed_pixels(1, 1, vec![0], Some(0));
        enc.write_frame(&frame).unwrap();
    }
    (stripes, spacer)
}

fn write(root: &Path, path: &str, bytes: &[u8]) {
    let full = root.join(path);
    std::fs::create_dir_all(full.parent().unwrap()).unwrap();
    std::fs::write(full, bytes).unwrap();
}

fuzz_target!(|page: &[u8]| {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("site");
    let (stripes, spacer) = gifs();
    write(&root, "index.html", page);
    write(&root, "a.gif", &stripes);
    write(&root, "img/B.GIF", &stripes);
    write(&root, "s.gif", &spacer);
    let site = site::crawl(&root, &CrawlOptions::default()).unwrap();
    let inv = inventory::analyze(&site, &AnalyzeOptions::default());
    let opts = RewriteOptions {
        out_site: tmp.path().join("out/site"),
        image: ImageOptions {
            effort: Effort::Fast,
            ..ImageOptions::default()
        },
        keep_originals: false,
        analyze: AnalyzeOptions::default(),
        precompress: false,
        markup: Some(CssChoice::Auto),
    };
    let result = rewrite::rewrite(&site, &inv, &opts).unwrap();
    assert!(
        result.broken_by_rewrite.is_empty(),
        "{:?}",
        result.broken_by_rewrite
    );
});
