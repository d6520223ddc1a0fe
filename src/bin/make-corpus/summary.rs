//! The table `make-corpus` prints: every file with its size, frames, kind and GIF details,
//! then the totals set against the study's numbers.

use std::fmt::Write as _;

use crate::gifenc::table_bits;
use crate::images::Img;

pub fn summary(page: &str, images: &[Img]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<30} {:>7} {:>6}  {:<16} details",
        "file", "bytes", "frames", "kind"
    );
    let _ = writeln!(
        s,
        "{:<30} {:>7} {:>6}  {:<16} HTML 3.2",
        "index.html",
        page.len(),
        1,
        "page"
    );
    let mut sorted: Vec<&Img> = images.iter().collect();
    sorted.sort_by_key(|i| (i.bytes.len(), i.path));
    for im in &sorted {
        let g = &im.gif;
        let table = g
            .gct
            .as_ref()
            .or(g.frames[0].lct.as_ref())
            .map_or(0, |t| t.len());
        let mut d = format!("{}x{}, {} colours", g.w, g.h, 1usize << table_bits(table));
        if g.v87a {
            d.push_str(", GIF87a");
        }
        if g.gct.is_none() {
            d.push_str(", local tables");
        }
        if g.frames.iter().any(|f| f.interlaced) {
            d.push_str(", interlaced");
        }
        if g.frames
            .iter()
            .any(|f| matches!(&f.gce, Some(c) if c.trns.is_some()))
        {
            d.push_str(", transparent");
        }
        let _ = writeln!(
            s,
            "{:<30} {:>7} {:>6}  {:<16} {d}",
            im.path,
            im.bytes.len(),
            g.frames.len(),
            im.kind
        );
    }
    let sizes: Vec<usize> = images.iter().map(|i| i.bytes.len()).collect();
    let count = |lo: usize, hi: usize| sizes.iter().filter(|&&s| s >= lo && s < hi).count();
    let total: usize = sizes.iter().sum();
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "page {} bytes; {} GIFs, {} bytes ({} static, {} animated); smallest {} B, largest {} B",
        page.len(),
        images.len(),
        total,
        images.iter().filter(|i| i.gif.frames.len() == 1).count(),
        images.iter().filter(|i| i.gif.frames.len() > 1).count(),
        sizes.iter().min().unwrap_or(&0),
        sizes.iter().max().unwrap_or(&0)
    );
    let _ = writeln!(
        s,
        "under 1 KB: {}, 1-2 KB: {}, 2-3 KB: {}, 3 KB and over: {}; page + images = {} bytes in {} requests",
        count(0, 1024),
        count(1024, 2048),
        count(2048, 3072),
        count(3072, usize::MAX),
        page.len() + total,
        1 + images.len()
    );
    s
}
