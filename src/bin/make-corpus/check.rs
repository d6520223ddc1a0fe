//! Proves the generated site right before a byte is written: every GIF decodes back to what
//! was encoded, the images have the study's numbers and the page refers to each of them.

use std::collections::BTreeSet;

use crate::gifenc::table_bits;
use crate::images::Img;
use crate::page::{PAGE_MAX, PAGE_MIN};

/// Decodes a file with the `gif` crate and compares every frame with what was encoded.
pub fn verify(im: &Img) -> Result<(), String> {
    let err = |m: String| format!("{}: {m}", im.path);
    let g = &im.gif;
    let magic: &[u8] = if g.v87a { b"GIF87a" } else { b"GIF89a" };
    if !im.bytes.starts_with(magic) {
        return Err(err("wrong signature".into()));
    }
    let mut o = gif::DecodeOptions::new();
    o.set_color_output(gif::ColorOutput::Indexed);
    let mut d = o
        .read_info(&im.bytes[..])
        .map_err(|e| err(format!("does not decode: {e}")))?;
    if (d.width(), d.height()) != (g.w, g.h) {
        return Err(err("screen size differs".into()));
    }
    let want_repeat = match g.loops {
        None => gif::Repeat::Finite(0),
        Some(0) => gif::Repeat::Infinite,
        Some(n) => gif::Repeat::Finite(n),
    };
    let mut n = 0;
    while let Some(f) = d
        .next_frame_info()
        .map_err(|e| err(format!("frame {n}: {e}")))?
    {
        let info = (
            f.left,
            f.top,
            f.width,
            f.height,
            f.interlaced,
            f.transparent,
            f.dispose as u8,
            f.delay,
            f.palette.is_some(),
        );
        let want = g
            .frames
            .get(n)
            .ok_or_else(|| err("more frames than written".into()))?;
        let (trns, dispose, delay) = match &want.gce {
            Some(c) => (c.trns, c.dispose, c.delay),
            // Without a control block the decoder reports its own default disposal.
            None => (None, info.6, 0),
        };
        let expected = (
            want.left,
            want.top,
            want.w,
            want.h,
            want.interlaced,
            trns,
            dispose,
            delay,
            want.lct.is_some(),
        );
        if info != expected {
            return Err(err(format!(
                "frame {n} header {info:?}, expected {expected:?}"
            )));
        }
        let mut buf = vec![0u8; d.buffer_size()];
        d.read_into_buffer(&mut buf)
            .map_err(|e| err(format!("frame {n}: {e}")))?;
        if buf != want.idx {
            return Err(err(format!("frame {n} pixels do not round-trip")));
        }
        n += 1;
    }
    if n != g.frames.len() {
        return Err(err(format!(
            "{n} frames decoded, {} written",
            g.frames.len()
        )));
    }
    if d.repeat() != want_repeat {
        return Err(err("loop count differs".into()));
    }
    Ok(())
}

/// The study's numbers: 42 GIFs (40 static, 2 animated), about 125 KB, 70 B to 40 KB,
/// 19 under 1 KB, 7 in 1-2 KB, 6 in 2-3 KB and 10 larger.
pub fn check_shape(images: &[Img]) -> Result<(), String> {
    let sizes: Vec<usize> = images.iter().map(|i| i.bytes.len()).collect();
    let bucket = |lo: usize, hi: usize| sizes.iter().filter(|&&s| s >= lo && s < hi).count();
    let total: usize = sizes.iter().sum();
    let animated = images.iter().filter(|i| i.gif.frames.len() > 1).count();
    let distinct: BTreeSet<&str> = images.iter().map(|i| i.path).collect();
    let mut problems = Vec::new();
    if images.len() != 42 || distinct.len() != 42 {
        problems.push(format!(
            "{} images, {} distinct (want 42)",
            images.len(),
            distinct.len()
        ));
    }
    if animated != 2 {
        problems.push(format!("{animated} animated (want 2)"));
    }
    let got = [
        bucket(0, 1024),
        bucket(1024, 2048),
        bucket(2048, 3072),
        bucket(3072, usize::MAX),
    ];
    if got != [19, 7, 6, 10] {
        problems.push(format!(
            "size buckets <1K/1-2K/2-3K/larger are {got:?} (want [19, 7, 6, 10])"
        ));
    }
    if !(120_000..=130_000).contains(&total) {
        problems.push(format!("images total {total} bytes (want 120,000-130,000)"));
    }
    let (min, max) = (sizes.iter().min(), sizes.iter().max());
    if min < Some(&40) {
        problems.push(format!(
            "smallest image is {min:?} bytes (want at least 40)"
        ));
    }
    if !(max >= Some(&36_000) && max <= Some(&44_000)) {
        problems.push(format!(
            "largest image is {max:?} bytes (want about 40,000)"
        ));
    }
    let has = |f: &dyn Fn(&Img) -> bool| images.iter().any(f);
    if !has(&|i| i.gif.v87a) {
        problems.push("no GIF87a file".into());
    }
    if !has(&|i| i.gif.frames.iter().any(|f| f.interlaced)) {
        problems.push("no interlaced file".into());
    }
    if !has(&|i| i.gif.gct.is_none()) {
        problems.push("no file with only local colour tables".into());
    }
    if !has(&|i| {
        i.gif.frames.len() > 2
            && i.gif
                .frames
                .iter()
                .any(|f| matches!(&f.gce, Some(c) if c.dispose == 2))
    }) {
        problems.push("no animation with restore-to-background disposal".into());
    }
    if !has(&|i| {
        i.gif.frames.len() > 2
            && i.gif.frames.iter().any(|f| {
                f.w < i.gif.w && f.h < i.gif.h && matches!(&f.gce, Some(c) if c.trns.is_some())
            })
    }) {
        problems.push("no animation with a transparent sub-rectangle frame".into());
    }
    let table_sizes: BTreeSet<usize> = images
        .iter()
        .flat_map(|i| {
            i.gif
                .gct
                .iter()
                .chain(i.gif.frames.iter().filter_map(|f| f.lct.as_ref()))
                .map(|t| 1usize << table_bits(t.len()))
                .collect::<Vec<_>>()
        })
        .collect();
    for want in [2, 4, 16, 64, 256] {
        if !table_sizes.contains(&want) {
            problems.push(format!("no file with a {want}-colour table"));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "the images do not match the study:\n  {}",
            problems.join("\n  ")
        ))
    }
}

/// A tiny tag reader: enough for the page this program writes.
fn tags(html: &str) -> Vec<(String, Vec<(String, String)>)> {
    let b = html.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'<' || html[i..].starts_with("<!") || html[i..].starts_with("</") {
            i += 1;
            continue;
        }
        i += 1;
        let start = i;
        while i < b.len() && b[i].is_ascii_alphanumeric() {
            i += 1;
        }
        let name = html[start..i].to_ascii_lowercase();
        let mut attrs = Vec::new();
        loop {
            while i < b.len() && b[i].is_ascii_whitespace() {
                i += 1;
            }
            if i >= b.len() || b[i] == b'>' {
                break;
            }
            let s = i;
            while i < b.len() && !b[i].is_ascii_whitespace() && b[i] != b'=' && b[i] != b'>' {
                i += 1;
            }
            let key = html[s..i].to_ascii_lowercase();
            let mut value = String::new();
            if i < b.len() && b[i] == b'=' {
                i += 1;
                if i < b.len() && b[i] == b'"' {
                    let s = i + 1;
                    let e = html[s..].find('"').map_or(b.len(), |e| s + e);
                    value = html[s..e].to_string();
                    i = e + 1;
                } else {
                    let s = i;
                    while i < b.len() && !b[i].is_ascii_whitespace() && b[i] != b'>' {
                        i += 1;
                    }
                    value = html[s..i].to_string();
                }
            }
            attrs.push((key, value));
        }
        out.push((name, attrs));
    }
    out
}

pub fn check_page(page: &str, images: &[Img]) -> Result<(), String> {
    let mut problems = Vec::new();
    if !(PAGE_MIN..=PAGE_MAX).contains(&page.len()) {
        problems.push(format!("page is {} bytes", page.len()));
    }
    if !page.is_ascii() {
        problems.push("page is not plain ASCII".into());
    }
    let all = tags(page);
    let anchors: BTreeSet<String> = all
        .iter()
        .filter(|(n, _)| n == "a" || n == "map")
        .flat_map(|(_, a)| {
            a.iter()
                .filter(|(k, _)| k == "name")
                .map(|(_, v)| v.clone())
        })
        .collect();
    let mut used = BTreeSet::new();
    for (name, attrs) in &all {
        let get = |k: &str| attrs.iter().find(|(a, _)| a == k).map(|(_, v)| v.as_str());
        for (k, v) in attrs {
            if k == "src" || k == "background" {
                match images.iter().find(|i| i.path == v) {
                    None => problems.push(format!("<{name} {k}={v}> names no generated image")),
                    Some(im) => {
                        used.insert(im.path);
                        if name == "img" || name == "input" {
                            let size = (get("width"), get("height"));
                            let real = (im.gif.w.to_string(), im.gif.h.to_string());
                            let matches = size == (Some(&real.0), Some(&real.1));
                            let stretched = im.path == "images/spacer.gif" && size.0.is_some();
                            if !matches && !stretched {
                                problems.push(format!("<{name} src={v}> has size {size:?}"));
                            }
                            if get("alt").is_none() {
                                problems.push(format!("<{name} src={v}> has no alt"));
                            }
                        }
                    }
                }
            }
            if k == "href" || k == "action" || k == "usemap" {
                let ok = match v.strip_prefix('#') {
                    Some(anchor) => anchors.contains(anchor),
                    None => v.starts_with("http://www.example.com/") || v.starts_with("mailto:"),
                };
                if !ok {
                    problems.push(format!("<{name} {k}={v}> is not an allowed link"));
                }
            }
        }
    }
    for im in images {
        if !used.contains(im.path) {
            problems.push(format!("{} is never referenced", im.path));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("the page is wrong:\n  {}", problems.join("\n  ")))
    }
}
