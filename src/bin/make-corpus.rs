//! Writes the default demo site `corpus/microscape/`: an invented stand-in, shaped like the 1997 W3C study's "Microscape" test page (whose files were never published), byte-for-byte the same on every run and machine.
//!
//! Usage: `make-corpus OUT_DIR`. It creates `OUT_DIR` and writes `index.html` (about 42 KB of
//! 1996-style table-and-`<font>` HTML) and 42 GIFs under `images/` (about 125 KB, 2 animated)
//! with the size distribution the study reports. Every image is drawn from code: a seeded
//! generator, value noise, a 5x7 bitmap font, dithering to fixed palettes and a hand-written
//! GIF container around the `gif` crate's LZW coder. Before writing anything it decodes every
//! GIF again with the `gif` crate and checks the study's numbers, and fails if one is off.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::{env, fs, process};

fn main() {
    let args: Vec<String> = env::args().collect();
    if args.len() != 2 || args[1].starts_with('-') {
        eprintln!("usage: make-corpus OUT_DIR");
        process::exit(2);
    }
    if let Err(e) = run(Path::new(&args[1])) {
        eprintln!("make-corpus: {e}");
        process::exit(1);
    }
}

fn run(out: &Path) -> Result<(), String> {
    let images = build_images();
    for im in &images {
        verify(im)?;
    }
    let page = build_page(&images)?;
    if let Err(e) = check_shape(&images).and_then(|()| check_page(&page, &images)) {
        eprint!("{}", summary(&page, &images));
        return Err(e);
    }

    let mut files: Vec<(PathBuf, &[u8])> = vec![(out.join("index.html"), page.as_bytes())];
    for im in &images {
        let mut p = out.to_path_buf();
        p.extend(im.path.split('/'));
        files.push((p, &im.bytes));
    }
    for (path, bytes) in &files {
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    print!("{}", summary(&page, &images));
    Ok(())
}

/// Decodes a file with the `gif` crate and compares every frame with what was encoded.
fn verify(im: &Img) -> Result<(), String> {
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
fn check_shape(images: &[Img]) -> Result<(), String> {
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

fn check_page(page: &str, images: &[Img]) -> Result<(), String> {
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

fn summary(page: &str, images: &[Img]) -> String {
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
// ---------------------------------------------------------------------------
// Deterministic numbers: a seeded splitmix64, position hashing and value noise.
// Only +, -, *, /, sqrt, floor and round are used on floats (all exactly specified
// by IEEE 754), so every machine computes the same pixels.
// ---------------------------------------------------------------------------

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix64(self.0)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A number in [0, 1) that depends only on (x, y, seed).
fn hashf(x: i64, y: i64, seed: u64) -> f32 {
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
fn fbm(x: f32, y: f32, seed: u64, octaves: u32) -> f32 {
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
fn sin(x: f32) -> f32 {
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

fn cos(x: f32) -> f32 {
    sin(x + std::f32::consts::FRAC_PI_2)
}

fn clamp01(t: f32) -> f32 {
    t.clamp(0.0, 1.0)
}

fn smooth(e0: f32, e1: f32, x: f32) -> f32 {
    let t = clamp01((x - e0) / (e1 - e0));
    t * t * (3.0 - 2.0 * t)
}

// ---------------------------------------------------------------------------
// Colours and a small RGB canvas with a transparency mask.
// ---------------------------------------------------------------------------

type Col = [f32; 3];

const WHITE: Col = [255.0, 255.0, 255.0];
const BLACK: Col = [0.0, 0.0, 0.0];

fn hex(c: u32) -> Col {
    [
        ((c >> 16) & 255) as f32,
        ((c >> 8) & 255) as f32,
        (c & 255) as f32,
    ]
}

fn mix(a: Col, b: Col, t: f32) -> Col {
    [
        a[0] + (b[0] - a[0]) * t,
        a[1] + (b[1] - a[1]) * t,
        a[2] + (b[2] - a[2]) * t,
    ]
}

fn scale(a: Col, k: f32) -> Col {
    [a[0] * k, a[1] * k, a[2] * k]
}

fn add(a: Col, b: Col) -> Col {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

fn to_u8(c: Col) -> [u8; 3] {
    [
        c[0].clamp(0.0, 255.0).round() as u8,
        c[1].clamp(0.0, 255.0).round() as u8,
        c[2].clamp(0.0, 255.0).round() as u8,
    ]
}

/// `n` colours evenly spaced from `a` to `b`.
fn ramp(a: u32, b: u32, n: usize) -> Vec<[u8; 3]> {
    (0..n)
        .map(|i| to_u8(mix(hex(a), hex(b), i as f32 / (n - 1).max(1) as f32)))
        .collect()
}

fn cols(list: &[u32]) -> Vec<[u8; 3]> {
    list.iter().map(|&c| to_u8(hex(c))).collect()
}

#[derive(Clone)]
struct Canvas {
    w: usize,
    h: usize,
    px: Vec<Col>,
    on: Vec<bool>,
}

impl Canvas {
    fn new(w: usize, h: usize, c: Col) -> Self {
        Canvas {
            w,
            h,
            px: vec![c; w * h],
            on: vec![true; w * h],
        }
    }

    /// A fully transparent canvas; anti-aliased edges are blended towards white,
    /// the page colour, as GIF tools of the day did ("matte").
    fn clear(w: usize, h: usize) -> Self {
        Canvas {
            w,
            h,
            px: vec![WHITE; w * h],
            on: vec![false; w * h],
        }
    }

    fn at(&self, x: i32, y: i32) -> Option<usize> {
        if x < 0 || y < 0 || x as usize >= self.w || y as usize >= self.h {
            None
        } else {
            Some(y as usize * self.w + x as usize)
        }
    }

    fn put(&mut self, x: i32, y: i32, c: Col) {
        if let Some(i) = self.at(x, y) {
            self.px[i] = c;
            self.on[i] = true;
        }
    }

    fn blend(&mut self, x: i32, y: i32, c: Col, a: f32) {
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

    fn rect(&mut self, x: i32, y: i32, w: i32, h: i32, c: Col) {
        for yy in y..y + h {
            for xx in x..x + w {
                self.put(xx, yy, c);
            }
        }
    }

    /// Paints every pixel with `f(x, y)` (pixel centres).
    fn shade(&mut self, f: impl Fn(f32, f32) -> Col) {
        for y in 0..self.h {
            for x in 0..self.w {
                let i = y * self.w + x;
                self.px[i] = f(x as f32 + 0.5, y as f32 + 0.5);
                self.on[i] = true;
            }
        }
    }

    /// Film grain: the knob that the size tuner turns.
    fn grain(&mut self, amount: f32, seed: u64) {
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

    fn hline(&mut self, x: i32, y: i32, w: i32, c: Col) {
        self.rect(x, y, w, 1, c);
    }

    fn vline(&mut self, x: i32, y: i32, h: i32, c: Col) {
        self.rect(x, y, 1, h, c);
    }

    /// A raised 3-D frame, Windows 95 style.
    fn bevel(&mut self, x: i32, y: i32, w: i32, h: i32, light: Col, dark: Col) {
        self.hline(x, y, w, light);
        self.vline(x, y, h, light);
        self.hline(x, y + h - 1, w, dark);
        self.vline(x + w - 1, y, h, dark);
    }

    fn text(&mut self, x: i32, y: i32, s: &str, k: i32, c: Col) {
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

    fn text_shadow(&mut self, x: i32, y: i32, s: &str, k: i32, c: Col, shadow: Col) {
        self.text(x + 1, y + 1, s, k, shadow);
        self.text(x, y, s, k, c);
    }

    /// A lit sphere (bullets, logos, the globe), anti-aliased at the rim.
    fn ball(&mut self, cx: f32, cy: f32, r: f32, base: Col) {
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
fn sphere_light(nx: f32, ny: f32) -> (f32, f32) {
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

// ---------------------------------------------------------------------------
// A 5x7 bitmap font, so that "text as images" carries real letters.
// ---------------------------------------------------------------------------

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

fn text_width(s: &str, k: i32) -> i32 {
    s.chars().map(advance).sum::<i32>() * k - k
}

// ---------------------------------------------------------------------------
// Palettes and colour reduction.
// ---------------------------------------------------------------------------

enum Pal {
    /// An explicit colour table.
    List(Vec<[u8; 3]>),
    /// A uniform colour cube with this many levels of red, green and blue.
    Cube(usize, usize, usize),
}

#[derive(Clone, Copy)]
enum Dither {
    Nearest,
    /// 4x4 Bayer matrix with this spread in 0..255 units.
    Ordered(f32),
    FloydSteinberg,
}

fn level(i: usize, n: usize) -> u8 {
    ((i * 255 + (n - 1) / 2) / (n - 1)) as u8
}

impl Pal {
    fn colors(&self) -> Vec<[u8; 3]> {
        match self {
            Pal::List(v) => v.clone(),
            Pal::Cube(r, g, b) => {
                let mut v = Vec::new();
                for ri in 0..*r {
                    for gi in 0..*g {
                        for bi in 0..*b {
                            v.push([level(ri, *r), level(gi, *g), level(bi, *b)]);
                        }
                    }
                }
                v
            }
        }
    }

    /// Nearest entry, never `skip` (the transparent slot).
    fn nearest(&self, c: Col, skip: Option<u8>) -> (u8, Col) {
        match self {
            Pal::List(v) => {
                let mut best = (u32::MAX, 0usize);
                for (i, p) in v.iter().enumerate() {
                    if Some(i as u8) == skip {
                        continue;
                    }
                    let d: f32 = (0..3)
                        .map(|k| {
                            let e = c[k] - f32::from(p[k]);
                            e * e
                        })
                        .sum();
                    let d = d as u32;
                    if d < best.0 {
                        best = (d, i);
                    }
                }
                let p = v[best.1];
                (
                    best.1 as u8,
                    [f32::from(p[0]), f32::from(p[1]), f32::from(p[2])],
                )
            }
            Pal::Cube(r, g, b) => {
                let q = |v: f32, n: usize| {
                    ((v.clamp(0.0, 255.0) / 255.0 * (n - 1) as f32).round() as usize).min(n - 1)
                };
                let (ri, gi, bi) = (q(c[0], *r), q(c[1], *g), q(c[2], *b));
                let idx = (ri * g + gi) * b + bi;
                let col = [
                    f32::from(level(ri, *r)),
                    f32::from(level(gi, *g)),
                    f32::from(level(bi, *b)),
                ];
                (idx as u8, col)
            }
        }
    }
}

const BAYER: [[f32; 4]; 4] = [
    [0.0, 8.0, 2.0, 10.0],
    [12.0, 4.0, 14.0, 6.0],
    [3.0, 11.0, 1.0, 9.0],
    [15.0, 7.0, 13.0, 5.0],
];

/// Reduces a canvas to palette indices; transparent pixels get `trns`.
fn quantize(cv: &Canvas, pal: &Pal, dither: Dither, trns: Option<u8>) -> Vec<u8> {
    let (w, h) = (cv.w, cv.h);
    let mut out = vec![0u8; w * h];
    let mut work = cv.px.clone();
    for y in 0..h {
        for x in 0..w {
            let i = y * w + x;
            if !cv.on[i] {
                if let Some(t) = trns {
                    out[i] = t;
                    continue;
                }
            }
            let c = work[i];
            match dither {
                Dither::Nearest => out[i] = pal.nearest(c, trns).0,
                Dither::Ordered(spread) => {
                    let o = (BAYER[y % 4][x % 4] + 0.5) / 16.0 - 0.5;
                    out[i] = pal.nearest(add(c, [o * spread; 3]), trns).0;
                }
                Dither::FloydSteinberg => {
                    let c = [
                        c[0].clamp(0.0, 255.0),
                        c[1].clamp(0.0, 255.0),
                        c[2].clamp(0.0, 255.0),
                    ];
                    let (k, got) = pal.nearest(c, trns);
                    out[i] = k;
                    let e = [c[0] - got[0], c[1] - got[1], c[2] - got[2]];
                    let mut spread = |dx: i32, dy: usize, f: f32| {
                        let nx = x as i32 + dx;
                        let ny = y + dy;
                        if nx >= 0 && (nx as usize) < w && ny < h {
                            let j = ny * w + nx as usize;
                            work[j] = add(work[j], scale(e, f));
                        }
                    };
                    spread(1, 0, 7.0 / 16.0);
                    spread(-1, 1, 3.0 / 16.0);
                    spread(0, 1, 5.0 / 16.0);
                    spread(1, 1, 1.0 / 16.0);
                }
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------
// The GIF container, written by hand so that GIF87a files, files with only
// local colour tables and files without extension blocks come out exactly as
// 1996 tools wrote them. The LZW coding is the `gif` crate's.
// ---------------------------------------------------------------------------

struct Gce {
    dispose: u8,
    delay: u16,
    trns: Option<u8>,
}

struct GFrame {
    left: u16,
    top: u16,
    w: u16,
    h: u16,
    idx: Vec<u8>,
    lct: Option<Vec<[u8; 3]>>,
    interlaced: bool,
    gce: Option<Gce>,
}

struct Gif {
    v87a: bool,
    w: u16,
    h: u16,
    gct: Option<Vec<[u8; 3]>>,
    loops: Option<u16>,
    frames: Vec<GFrame>,
}

fn table_bits(n: usize) -> u8 {
    let mut b = 1;
    while (1usize << b) < n {
        b += 1;
    }
    b
}

fn put_table(out: &mut Vec<u8>, t: &[[u8; 3]]) {
    for c in t {
        out.extend_from_slice(c);
    }
    for _ in t.len()..(1usize << table_bits(t.len())) {
        out.extend_from_slice(&[0, 0, 0]);
    }
}

fn interlace(idx: &[u8], w: usize, h: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(idx.len());
    for (start, step) in [(0, 8), (4, 8), (2, 4), (1, 2)] {
        for y in (start..h).step_by(step) {
            out.extend_from_slice(&idx[y * w..(y + 1) * w]);
        }
    }
    out
}

fn lzw(data: &[u8], w: u16, h: u16) -> Vec<u8> {
    let mut f = gif::Frame {
        width: w,
        height: h,
        buffer: std::borrow::Cow::Owned(data.to_vec()),
        ..gif::Frame::default()
    };
    f.make_lzw_pre_encoded();
    f.buffer.into_owned()
}

fn le16(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn encode(g: &Gif) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(if g.v87a { b"GIF87a" } else { b"GIF89a" });
    le16(&mut out, g.w);
    le16(&mut out, g.h);
    match &g.gct {
        Some(t) => {
            let b = table_bits(t.len()) - 1;
            out.extend_from_slice(&[0x80 | (b << 4) | b, 0, 0]);
            put_table(&mut out, t);
        }
        None => out.extend_from_slice(&[0x70, 0, 0]),
    }
    if let Some(n) = g.loops {
        out.extend_from_slice(&[0x21, 0xFF, 0x0B]);
        out.extend_from_slice(b"NETSCAPE2.0");
        out.extend_from_slice(&[3, 1]);
        le16(&mut out, n);
        out.push(0);
    }
    for f in &g.frames {
        if let Some(c) = &f.gce {
            out.extend_from_slice(&[0x21, 0xF9, 4, (c.dispose << 2) | u8::from(c.trns.is_some())]);
            le16(&mut out, c.delay);
            out.extend_from_slice(&[c.trns.unwrap_or(0), 0]);
        }
        out.push(0x2C);
        for v in [f.left, f.top, f.w, f.h] {
            le16(&mut out, v);
        }
        let mut flags = if f.interlaced { 0x40 } else { 0 };
        if let Some(t) = &f.lct {
            flags |= 0x80 | (table_bits(t.len()) - 1);
        }
        out.push(flags);
        if let Some(t) = &f.lct {
            put_table(&mut out, t);
        }
        let data = if f.interlaced {
            interlace(&f.idx, usize::from(f.w), usize::from(f.h))
        } else {
            f.idx.clone()
        };
        let z = lzw(&data, f.w, f.h);
        out.push(z[0]);
        for chunk in z[1..].chunks(255) {
            out.push(chunk.len() as u8);
            out.extend_from_slice(chunk);
        }
        out.push(0);
    }
    out.push(0x3B);
    out
}

#[derive(Clone, Copy, Default)]
struct Opts {
    trns: Option<u8>,
    v87a: bool,
    interlaced: bool,
    local: bool,
}

/// A one-frame GIF from a canvas.
fn still(cv: &Canvas, pal: &Pal, dither: Dither, o: Opts) -> Gif {
    let table = pal.colors();
    let idx = quantize(cv, pal, dither, o.trns);
    let gce = o.trns.map(|t| Gce {
        dispose: 0,
        delay: 0,
        trns: Some(t),
    });
    assert!(!(o.v87a && gce.is_some()), "GIF87a has no transparency");
    Gif {
        v87a: o.v87a,
        w: cv.w as u16,
        h: cv.h as u16,
        gct: if o.local { None } else { Some(table.clone()) },
        loops: None,
        frames: vec![GFrame {
            left: 0,
            top: 0,
            w: cv.w as u16,
            h: cv.h as u16,
            idx,
            lct: if o.local { Some(table) } else { None },
            interlaced: o.interlaced,
            gce,
        }],
    }
}

/// Turns the grain knob (0 to 256 in quarter steps) until the encoded file is
/// as close as it gets to `target` bytes. The result is a pure function of the
/// inputs, so it is the same on every run.
fn tune(target: usize, build: impl Fn(f32) -> Gif) -> Gif {
    let size = |q: u32| encode(&build(q as f32 * 0.25)).len();
    if size(0) >= target {
        return build(0.0);
    }
    let (mut lo, mut hi) = (0u32, 1024u32);
    if size(hi) < target {
        return build(hi as f32 * 0.25);
    }
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if size(mid) < target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let best = if target - size(lo) <= size(hi) - target {
        lo
    } else {
        hi
    };
    build(best as f32 * 0.25)
}
// ---------------------------------------------------------------------------
// The 42 images.
// ---------------------------------------------------------------------------

const NAVY: u32 = 0x003366;
const GOLD: u32 = 0xFFCC00;
const TEAL: u32 = 0x008080;
const RED: u32 = 0xCC0000;

struct Img {
    path: &'static str,
    kind: &'static str,
    gif: Gif,
    bytes: Vec<u8>,
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

fn spacer() -> Gif {
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

fn bullet_ball() -> Gif {
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

fn bullet_arrow() -> Gif {
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

fn bullet_square() -> Gif {
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

fn rule_blue() -> Gif {
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

fn rule_fade() -> Gif {
    let mut cv = Canvas::new(300, 2, WHITE);
    cv.shade(|x, _| mix(hex(RED), WHITE, x / 300.0));
    still(
        &cv,
        &Pal::List(ramp(RED, 0xFFFFFF, 16)),
        Dither::Ordered(18.0),
        Opts::default(),
    )
}

fn corner(right: bool) -> Gif {
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

fn new_badge() -> Gif {
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
fn push_button(label: &str, w: i32, h: i32) -> Gif {
    let mut cv = Canvas::new(w as usize, h as usize, hex(0xC0C0C0));
    cv.bevel(0, 0, w, h, WHITE, BLACK);
    cv.bevel(1, 1, w - 2, h - 2, hex(0xDFDFDF), hex(0x808080));
    let tw = text_width(label, 1);
    cv.text((w - tw) / 2, (h - 7) / 2, label, 1, hex(NAVY));
    let mut table = cols(&[0xC0C0C0, 0xFFFFFF, 0x000000, 0xDFDFDF, 0x808080, NAVY]);
    table.extend(ramp(0x202020, 0xE0E0E0, 10));
    still(&cv, &Pal::List(table), Dither::Nearest, Opts::default())
}

fn more_link() -> Gif {
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

fn icon_mail() -> Gif {
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
fn tab(label: &str) -> Gif {
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
fn bar_left() -> Gif {
    let mut cv = Canvas::new(140, 8, BLACK);
    cv.shade(|x, _| mix(hex(NAVY), hex(0x0B5A7A), x / 140.0));
    still(
        &cv,
        &Pal::List(ramp(NAVY, 0x0B5A7A, 16)),
        Dither::Ordered(10.0),
        Opts::default(),
    )
}

/// Section headings rendered as pictures ("text as images").
fn heading(label: &str, seed: u64, target: usize) -> Gif {
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

fn badge_best() -> Gif {
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

fn badge_free() -> Gif {
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

fn icon_globe() -> Gif {
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

fn icon_disk() -> Gif {
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

fn bg_paper() -> Gif {
    let mut base = Canvas::new(80, 80, WHITE);
    base.shade(|x, y| mix(hex(0xF0EEE4), WHITE, fbm(x / 10.0, y / 10.0, 31, 3)));
    let pal = Pal::List(ramp(0xEEEBE0, 0xFFFFFF, 16));
    tune(2_550, |g| {
        let mut cv = base.clone();
        cv.grain(g * 0.1, 15);
        still(&cv, &pal, Dither::Ordered(4.0), Opts::default())
    })
}

fn h_title() -> Gif {
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

fn logo() -> Gif {
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

fn navbar() -> Gif {
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

// --- Photo-like scenes: smooth gradients plus noise, dithered. ---------------

fn landscape(w: usize, h: usize, seed: u64, dusk: bool) -> Canvas {
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

fn earth(w: usize, h: usize, seed: u64) -> Canvas {
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

fn office(w: usize, h: usize, seed: u64, night: bool) -> Canvas {
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

fn product_box(w: usize, h: usize) -> Canvas {
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

fn stage(w: usize, h: usize, seed: u64) -> Canvas {
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
fn photo(canvas: Canvas, seed: u64, target: usize, colours: usize, interlaced: bool) -> Gif {
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

fn worldmap() -> Gif {
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

fn chart() -> Gif {
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

// --- The two animations. -----------------------------------------------------

/// A 48x48 "throbber": a static base frame and six comet frames that are
/// small transparent sub-rectangles, each undone with "restore to previous".
fn throbber() -> Gif {
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
fn banner_ad() -> Gif {
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

fn build_images() -> Vec<Img> {
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
// ---------------------------------------------------------------------------
// The page. `[[U:path]]` expands to `SRC="path" WIDTH=w HEIGHT=h` and
// `[[l:path]]` to the same in lower case, with the real pixel size.
// `[[NEWS]]`, `[[PRODUCTS]]`, `[[DOWNLOADS]]` and `[[ARCHIVE]]` are generated.
// All names, products and news are invented.
// ---------------------------------------------------------------------------

const PAGE: &str = r##"<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 3.2 Final//EN">
<HTML>
<HEAD>
<TITLE>Welcome to Microscape</TITLE>
<META NAME="description" CONTENT="Microscape Communications: the Voyager web browser, Harbor Server, Scribe page editor and Postbox mail for the Internet and your intranet.">
<META NAME="keywords" CONTENT="Microscape, Voyager, Harbor Server, Scribe, Postbox, Compass, ScapeScript, browser, web server, intranet, Internet software, download">
</HEAD>
<BODY BGCOLOR="#FFFFFF" BACKGROUND="images/bg_paper.gif" TEXT="#000000" LINK="#003399" VLINK="#663366" ALINK="#CC0000">
<BASEFONT SIZE=3>
<A NAME="top"></A>

<!-- ===================== MASTHEAD ===================== -->
<CENTER>
<TABLE WIDTH=600 BORDER=0 CELLPADDING=0 CELLSPACING=0>
<TR>
<TD WIDTH=176 VALIGN=TOP><A HREF="#top"><IMG [[U:images/logo.gif]] BORDER=0 ALT="Microscape Communications"></A></TD>
<TD WIDTH=384 ALIGN=RIGHT VALIGN=TOP><FONT FACE="Arial,Helvetica" SIZE=1 COLOR="#666666">Saturday, December 7, 1996<BR>
<A HREF="http://www.example.com/sitemap.html">Site Map</A> |
<A HREF="http://www.example.com/help/">Help</A> |
<A HREF="http://www.example.com/international/">International</A> |
<A HREF="mailto:webmaster@example.com">Webmaster</A></FONT><BR>
<IMG SRC="images/spacer.gif" WIDTH=1 HEIGHT=6 ALT=""><BR>
<FONT FACE="Arial,Helvetica" SIZE=2><B>Over 9 million people use Voyager.<BR>Shouldn't you?</B></FONT></TD>
<TD WIDTH=40 ALIGN=RIGHT VALIGN=TOP><A HREF="#top"><IMG [[U:images/throbber.gif]] BORDER=0 ALT="M"></A></TD>
</TR>
<TR>
<TD COLSPAN=3 ALIGN=CENTER><IMG SRC="images/spacer.gif" WIDTH=600 HEIGHT=4 ALT=""><BR>
<A HREF="http://www.example.com/voyager/download/"><IMG [[U:images/banner_ad.gif]] BORDER=0 ALT="Microscape Voyager 4.0 - download it free"></A></TD>
</TR>
</TABLE>
</CENTER>
<br clear=all>

<!-- ===================== NAVIGATION (client-side image map) ===================== -->
<center>
<img [[l:images/navbar.gif]] border=0 usemap="#nav" alt="Home | News | Products | Support | Search">
<map name="nav">
<area shape=rect coords="0,0,119,27" href="#top" alt="Home">
<area shape=rect coords="120,0,239,27" href="#news" alt="News">
<area shape=rect coords="240,0,359,27" href="#products" alt="Products">
<area shape=rect coords="360,0,479,27" href="#support" alt="Support">
<area shape=rect coords="480,0,599,27" href="#search" alt="Search">
</map>
</center>
<BR CLEAR=ALL>

<CENTER><FONT FACE="Arial,Helvetica" SIZE=+2 COLOR="#003366"><B>Welcome to Microscape</B></FONT></CENTER>
<CENTER><font size=2 color="#666666"><i>Software for the open Internet and the enterprise intranet</i></font></CENTER>
<P>

<!-- ===================== THREE COLUMNS ===================== -->
<CENTER>
<TABLE WIDTH=600 BORDER=0 CELLPADDING=0 CELLSPACING=0>
<TR>

<!-- ======== left column ======== -->
<TD WIDTH=140 VALIGN=TOP BGCOLOR="#003366" BACKGROUND="images/bar_left.gif">
<IMG SRC="images/spacer.gif" WIDTH=140 HEIGHT=6 ALT=""><BR>
<CENTER>
<A HREF="#news"><IMG [[U:images/buttons/news.gif]] BORDER=0 VSPACE=2 ALT="News"></A><BR>
<A HREF="#products"><IMG [[U:images/buttons/products.gif]] BORDER=0 VSPACE=2 ALT="Products"></A><BR>
<A HREF="#support"><IMG [[U:images/buttons/support.gif]] BORDER=0 VSPACE=2 ALT="Support"></A><BR>
<A HREF="#downloads"><IMG [[U:images/buttons/download.gif]] BORDER=0 VSPACE=2 ALT="Download"></A><BR>
<A HREF="#company"><IMG [[U:images/buttons/company.gif]] BORDER=0 VSPACE=2 ALT="Company"></A><BR>
</CENTER>
<IMG SRC="images/spacer.gif" WIDTH=1 HEIGHT=10 ALT=""><BR>
<TABLE WIDTH=140 BORDER=0 CELLPADDING=6 CELLSPACING=0>
<TR><TD>
<FONT FACE="Arial,Helvetica" SIZE=2 COLOR="#FFCC00"><B>QUICK LINKS</B></FONT><BR>
<FONT FACE="Arial,Helvetica" SIZE=1 COLOR="#FFFFFF">
<A HREF="http://www.example.com/voyager/"><FONT COLOR="#FFFFFF">Voyager 4.0</FONT></A><BR>
<A HREF="http://www.example.com/harbor/"><FONT COLOR="#FFFFFF">Harbor Server</FONT></A><BR>
<A HREF="http://www.example.com/scribe/"><FONT COLOR="#FFFFFF">Scribe Editor</FONT></A><BR>
<A HREF="http://www.example.com/postbox/"><FONT COLOR="#FFFFFF">Postbox Mail</FONT></A><BR>
<A HREF="http://www.example.com/compass/"><FONT COLOR="#FFFFFF">Compass Directory</FONT></A><BR>
<A HREF="http://www.example.com/scapescript/"><FONT COLOR="#FFFFFF">ScapeScript</FONT></A><BR>
<A HREF="http://www.example.com/channels/"><FONT COLOR="#FFFFFF">Channel Guide</FONT></A><BR>
<A HREF="http://www.example.com/store/"><FONT COLOR="#FFFFFF">Microscape Store</FONT></A><BR>
<A HREF="http://www.example.com/partners/"><FONT COLOR="#FFFFFF">Partner Program</FONT></A><BR>
<A HREF="http://www.example.com/jobs/"><FONT COLOR="#FFFFFF">Jobs at Microscape</FONT></A><BR>
</FONT>
<P>
<FONT FACE="Arial,Helvetica" SIZE=2 COLOR="#FFCC00"><B>THIS WEEK</B></FONT><BR>
<FONT FACE="Arial,Helvetica" SIZE=1 COLOR="#CCDDEE">
Live chat with the Voyager<BR>team, Thursday 11am PST.<BR>
<A HREF="http://www.example.com/chat/"><FONT COLOR="#FFFFFF"><U>Join in</U></FONT></A>
</FONT>
<P>
<FONT FACE="Arial,Helvetica" SIZE=1 COLOR="#CCDDEE">
<A HREF="mailto:info@example.com"><IMG [[U:images/icon_mail.gif]] BORDER=0 ALIGN=ABSMIDDLE HSPACE=2 ALT="Mail"></A>
<A HREF="mailto:info@example.com"><FONT COLOR="#FFFFFF">Write to us</FONT></A>
</FONT>
</TD></TR>
</TABLE>
<IMG SRC="images/spacer.gif" WIDTH=1 HEIGHT=30 ALT="">
</TD>

<TD WIDTH=10><IMG SRC="images/spacer.gif" WIDTH=10 HEIGHT=1 ALT=""></TD>

<!-- ======== middle column ======== -->
<TD WIDTH=300 VALIGN=TOP>
<table width=300 border=0 cellpadding=0 cellspacing=0>
<tr>
<td width=12 bgcolor="#003366"><img [[l:images/corner_tl.gif]] alt=""></td>
<td width=276 bgcolor="#003366" align=center><font face="Arial,Helvetica" size=1 color="#FFFFFF"><b>TODAY AT MICROSCAPE</b></font></td>
<td width=12 bgcolor="#003366"><img [[l:images/corner_tr.gif]] alt=""></td>
</tr>
</table>
<a href="http://www.example.com/voyager/tour/"><img [[l:images/photo_hero.gif]] border=0 alt="Voyager takes you further"></a><br>
<font face="Arial,Helvetica" size=1 color="#666666"><i>Photo: the Voyager 4.0 preview tour starts in the mountains.</i></font>
<p>
<a href="http://www.example.com/voyager/"><img [[l:images/h_title.gif]] border=0 alt="Microscape Voyager 4.0"></a><br>
<font face="Times New Roman,Times" size=3>
The next generation of <b>Voyager</b> is here. Browse, read mail, join discussion groups,
edit pages and receive <b>push channels</b>, all from one window. The preview release is
<u>free</u> for everyone during the evaluation period.
<a href="http://www.example.com/voyager/download/"><img [[l:images/more.gif]] border=0 alt="More"></a>
</font>
<p>
<A NAME="news"></A>
<IMG [[U:images/h_whatsnew.gif]] ALT="What's New"><BR>
<IMG SRC="images/spacer.gif" WIDTH=1 HEIGHT=4 ALT=""><BR>
[[NEWS]]
<IMG [[U:images/rule_fade.gif]] ALT="----"><BR>
<FONT FACE="Arial,Helvetica" SIZE=2><A HREF="http://www.example.com/news/archive.html">News archive</A> |
<A HREF="http://www.example.com/news/press.html">Press releases</A> |
<A HREF="http://www.example.com/news/subscribe.html">Get news by mail</A></FONT>
<P>
<A NAME="products"></A>
<IMG [[U:images/h_products.gif]] ALT="Products"><BR>
<TABLE WIDTH=300 BORDER=0 CELLPADDING=2 CELLSPACING=0>
<TR>
<TD VALIGN=TOP>
<A HREF="http://www.example.com/voyager/"><IMG [[U:images/photo_box.gif]] ALIGN=LEFT HSPACE=6 VSPACE=4 BORDER=0 ALT="Voyager 4.0 box"></A>
<FONT FACE="Arial,Helvetica" SIZE=2><B>Voyager 4.0 Professional Edition</B></FONT><BR>
<FONT SIZE=2>Everything in Voyager plus the Compass address book, calendar, group scheduling and
a 3270 terminal window for the mainframe crowd. Boxed with a printed manual and 90 days of
telephone support.<BR>
<FONT COLOR="#CC0000"><B>$79 retail, $49 upgrade</B></FONT><BR>
<A HREF="http://www.example.com/store/voyager-pro.html">Buy it now</A></FONT>
</TD>
</TR>
</TABLE>
<BR CLEAR=ALL>
[[PRODUCTS]]
<P>
<A NAME="developers"></A>
<IMG [[U:images/h_developers.gif]] ALT="Developers"><BR>
<font size=2>
<img [[l:images/bullet_arrow.gif]] alt="&gt;"> <a href="http://www.example.com/dev/scapescript/">ScapeScript 1.2 reference and examples</a><br>
<img [[l:images/bullet_arrow.gif]] alt="&gt;"> <a href="http://www.example.com/dev/plugins/">Writing Voyager plug-ins in C and C++</a><br>
<img [[l:images/bullet_arrow.gif]] alt="&gt;"> <a href="http://www.example.com/dev/harbor-api/">Harbor Server API: filters and handlers</a><br>
<img [[l:images/bullet_arrow.gif]] alt="&gt;"> <a href="http://www.example.com/dev/channels/">Build a push channel in one afternoon</a><br>
<img [[l:images/bullet_arrow.gif]] alt="&gt;"> <a href="http://www.example.com/dev/frames/">Frames, tables and layers: a style guide</a><br>
<img [[l:images/bullet_arrow.gif]] alt="&gt;"> <a href="http://www.example.com/dev/devcon97/">DevCon '97 call for papers (deadline January 15)</a><br>
</font>
<P>
<TABLE WIDTH=300 BORDER=1 CELLPADDING=4 CELLSPACING=0 BGCOLOR="#FFFFEE">
<TR>
<TD WIDTH=80 VALIGN=TOP><A HREF="http://www.example.com/dev/devcon97/"><IMG [[U:images/thumb_devcon.gif]] BORDER=0 ALT="DevCon stage"></A></TD>
<TD VALIGN=TOP><FONT SIZE=2><B>DevCon '97</B><BR>Four days, ninety sessions, one keynote you will not want to miss.
March 10-13, Bayview Convention Center. <A HREF="http://www.example.com/dev/devcon97/register.html">Register early and save $200.</A></FONT></TD>
</TR>
<TR>
<TD WIDTH=80 VALIGN=TOP><A HREF="http://www.example.com/labs/"><IMG [[U:images/thumb_lab.gif]] BORDER=0 ALT="Microscape Labs at night"></A></TD>
<TD VALIGN=TOP><FONT SIZE=2><B>Microscape Labs</B><BR>Try tomorrow's technology today: the experimental 3-D bookmark
browser, a speech plug-in and the new layout engine are waiting for brave testers.
<A HREF="http://www.example.com/labs/">Visit the Labs.</A></FONT></TD>
</TR>
</TABLE>
</TD>

<TD WIDTH=10><IMG SRC="images/spacer.gif" WIDTH=10 HEIGHT=1 ALT=""></TD>

<!-- ======== right column ======== -->
<TD WIDTH=140 VALIGN=TOP BGCOLOR="#FFFFCC">
<A NAME="search"></A>
<FORM METHOD=GET ACTION="http://www.example.com/cgi-bin/search">
<TABLE WIDTH=140 BORDER=0 CELLPADDING=4 CELLSPACING=0 BGCOLOR="#FFCC00">
<TR><TD NOWRAP><FONT FACE="Arial,Helvetica" SIZE=2 COLOR="#003366"><B>SEARCH</B></FONT><BR>
<INPUT TYPE=text NAME=q SIZE=12 MAXLENGTH=80><BR>
<SELECT NAME=where><OPTION SELECTED>This site<OPTION>The Web<OPTION>Newsgroups</SELECT><BR>
<INPUT TYPE=image SRC="images/buttons/search.gif" WIDTH=64 HEIGHT=20 BORDER=0 ALT="Search" VSPACE=3>
</TD></TR>
</TABLE>
</FORM>
<FORM METHOD=GET ACTION="http://www.example.com/cgi-bin/jump">
<FONT FACE="Arial,Helvetica" SIZE=1><B>JUMP TO:</B></FONT><BR>
<SELECT NAME=to>
<OPTION VALUE="voyager">Voyager
<OPTION VALUE="harbor">Harbor Server
<OPTION VALUE="scribe">Scribe
<OPTION VALUE="postbox">Postbox
<OPTION VALUE="compass">Compass
<OPTION VALUE="support">Support
</SELECT>
<INPUT TYPE=image SRC="images/buttons/go.gif" WIDTH=28 HEIGHT=20 BORDER=0 ALT="Go" ALIGN=ABSMIDDLE>
</FORM>
<center>
<a href="http://www.example.com/voyager/download/"><img [[l:images/badge_free.gif]] border=0 vspace=4 alt="Free download"></a><br>
<a href="http://www.example.com/bestviewed/"><img [[l:images/badge_best.gif]] border=0 vspace=4 alt="Best viewed with Microscape"></a>
</center>
<P>
<A NAME="downloads"></A>
<TABLE WIDTH=140 BORDER=0 CELLPADDING=3 CELLSPACING=0>
<TR><TD BGCOLOR="#003366"><IMG [[U:images/icon_disk.gif]] ALIGN=LEFT ALT="Disk"><FONT FACE="Arial,Helvetica" SIZE=2 COLOR="#FFFFFF"><B>DOWNLOADS</B></FONT><BR CLEAR=ALL></TD></TR>
[[DOWNLOADS]]
</TABLE>
<P>
<A NAME="support"></A>
<TABLE WIDTH=140 BORDER=0 CELLPADDING=3 CELLSPACING=0>
<TR><TD BGCOLOR="#003366"><FONT FACE="Arial,Helvetica" SIZE=2 COLOR="#FFFFFF"><B>SUPPORT</B></FONT></TD></TR>
<TR><TD><FONT SIZE=1>
<IMG [[U:images/bullet_square.gif]] ALT="*"> <A HREF="http://www.example.com/support/kb/">Knowledge base</A><BR>
<IMG [[U:images/bullet_square.gif]] ALT="*"> <A HREF="http://www.example.com/support/faq/">Frequent questions</A><BR>
<IMG [[U:images/bullet_square.gif]] ALT="*"> <A HREF="http://www.example.com/support/forums/">User forums</A><BR>
<IMG [[U:images/bullet_square.gif]] ALT="*"> <A HREF="http://www.example.com/support/security/">Security notices</A><BR>
<IMG [[U:images/bullet_square.gif]] ALT="*"> <A HREF="http://www.example.com/support/plans/">Support plans</A><BR>
<IMG [[U:images/bullet_square.gif]] ALT="*"> <A HREF="mailto:support@example.com">Mail support</A>
</FONT></TD></TR>
</TABLE>
<P>
<TABLE WIDTH=140 BORDER=0 CELLPADDING=3 CELLSPACING=0>
<TR><TD ALIGN=CENTER><A HREF="http://www.example.com/international/"><IMG [[U:images/icon_globe.gif]] BORDER=0 ALT="Globe"></A><BR>
<FONT FACE="Arial,Helvetica" SIZE=1><B>MICROSCAPE WORLDWIDE</B><BR>
<A HREF="http://www.example.com/intl/de/">Deutsch</A> |
<A HREF="http://www.example.com/intl/fr/">Fran&ccedil;ais</A> |
<A HREF="http://www.example.com/intl/jp/">Nihongo</A> |
<A HREF="http://www.example.com/intl/es/">Espa&ntilde;ol</A> |
<A HREF="http://www.example.com/intl/pt/">Portugu&ecirc;s</A> |
<A HREF="http://www.example.com/intl/it/">Italiano</A></FONT></TD></TR>
</TABLE>
<P>
<CENTER><FONT SIZE=1 COLOR="#666666">Photo of the day:</FONT><BR>
<A HREF="http://www.example.com/photo/"><IMG [[U:images/photo_earth.gif]] BORDER=0 ALT="The Earth from orbit"></A></CENTER>
</TD>
</TR>
</TABLE>
</CENTER>

<P>
<CENTER><IMG [[U:images/rule_blue.gif]] ALT="________"></CENTER>
<P>

<!-- ===================== COMPANY ===================== -->
<A NAME="company"></A>
<CENTER>
<TABLE WIDTH=600 BORDER=0 CELLPADDING=4 CELLSPACING=2 BGCOLOR="#EEEEEE">
<TR>
<TD COLSPAN=3 BGCOLOR="#003366"><CENTER><FONT FACE="Arial,Helvetica" SIZE=+2 COLOR="#FFCC00">Inside Microscape</FONT></CENTER></TD>
</TR>
<TR>
<TD WIDTH=200 VALIGN=TOP ALIGN=CENTER><A HREF="http://www.example.com/company/"><IMG [[U:images/photo_office.gif]] BORDER=0 ALT="Microscape headquarters"></A><BR>
<FONT SIZE=2><B>Headquarters</B><BR>1200 Harbor Point Road, Bayview.
<A HREF="http://www.example.com/company/visit.html">Plan a visit</A></FONT></TD>
<TD WIDTH=200 VALIGN=TOP ALIGN=CENTER><A HREF="http://www.example.com/company/campus.html"><IMG [[U:images/photo_campus.gif]] BORDER=0 ALT="The Bayview campus"></A><BR>
<FONT SIZE=2><B>The campus</B><BR>Where 2,400 people build the open Web.
<A HREF="http://www.example.com/jobs/">We are hiring</A></FONT></TD>
<TD WIDTH=200 VALIGN=TOP ALIGN=CENTER><A HREF="http://www.example.com/company/team.html"><IMG [[U:images/thumb_team.gif]] BORDER=0 ALT="Team outing at dusk"></A><BR>
<FONT SIZE=2><B>The team</B><BR>Our annual lake retreat, as seen by the Voyager camera club.</FONT></TD>
</TR>
<TR>
<TD COLSPAN=2 VALIGN=TOP><IMG [[U:images/worldmap.gif]] ALIGN=LEFT HSPACE=6 ALT="Offices worldwide">
<FONT SIZE=2><B>Offices in 22 countries.</B> Microscape products are sold in more than 100 countries
through our own offices and a network of 3,000 resellers.
<A HREF="http://www.example.com/company/offices.html">Find the office near you.</A></FONT></TD>
<TD VALIGN=TOP><A HREF="http://www.example.com/investor/"><IMG [[U:images/chart.gif]] BORDER=0 ALT="Quarterly revenue chart"></A><BR>
<FONT SIZE=1>Quarterly revenue, fiscal 1996. <A HREF="http://www.example.com/investor/">Investor relations</A></FONT></TD>
</TR>
</TABLE>
</CENTER>
<P>

<!-- ===================== PRESS ARCHIVE ===================== -->
<CENTER>
<TABLE WIDTH=600 BORDER=0 CELLPADDING=2 CELLSPACING=0>
<TR><TD BGCOLOR="#CCCCCC"><FONT FACE="Arial,Helvetica" SIZE=2><B>&nbsp;Earlier this year</B></FONT></TD></TR>
<TR><TD><FONT SIZE=2>
[[ARCHIVE]]
</FONT></TD></TR>
</TABLE>
</CENTER>

<!-- ===================== FOOTER ===================== -->
<HR SIZE=1 NOSHADE WIDTH=600>
<center>
<table border=0 cellpadding=2 cellspacing=0>
<tr>
<td nowrap><font face="Arial,Helvetica" size=1>
<a href="#top">Top</a> |
<a href="#news">News</a> |
<a href="#products">Products</a> |
<a href="#developers">Developers</a> |
<a href="#support">Support</a> |
<a href="#downloads">Downloads</a> |
<a href="#company">Company</a> |
<a href="http://www.example.com/sitemap.html">Site map</a> |
<a href="mailto:webmaster@example.com">Feedback</a>
</font></td>
</tr>
</table>
<font size=1 color="#666666">Copyright &copy; 1996 Microscape Communications Corporation. All rights reserved.<br>
Microscape, Voyager, Harbor, Scribe, Postbox, Compass and ScapeScript are invented names used for a test page.<br>
<tt>This page is best viewed at 640x480 or above.</tt></font>
</center>
<br clear=all>
</BODY>
</HTML>
"##;

struct News {
    date: &'static str,
    title: &'static str,
    text: &'static str,
    url: &'static str,
    new: bool,
}

const NEWS: &[News] = &[
    News {
        date: "Dec 6",
        title: "Voyager 4.0 preview release 2 now available",
        text: "The second preview adds push channels, a faster layout engine and support for the new style sheets draft. Download it free for Windows 95, Windows NT, Mac OS and nine versions of UNIX.",
        url: "voyager/pr2.html",
        new: true,
    },
    News {
        date: "Dec 5",
        title: "Harbor Server 2.0 ships",
        text: "Our web server now runs on Windows NT and six flavors of UNIX, with built-in search, server-side ScapeScript and a graphical administration console.",
        url: "harbor/20.html",
        new: true,
    },
    News {
        date: "Dec 4",
        title: "Bayview Public Library puts all 40 branches online",
        text: "Every branch now has public Voyager terminals and a shared catalog served by Harbor. Patrons can reserve books from home.",
        url: "news/library.html",
        new: false,
    },
    News {
        date: "Dec 3",
        title: "Postbox learns HTML mail",
        text: "Send messages with pictures, tables and links to anyone, and they still read fine in plain-text mail programs.",
        url: "postbox/html-mail.html",
        new: false,
    },
    News {
        date: "Dec 2",
        title: "Compass Directory beta opens to the public",
        text: "One address book for the whole company, reachable from Voyager, Postbox and any standard directory client.",
        url: "compass/beta.html",
        new: false,
    },
    News {
        date: "Nov 29",
        title: "Security update for Voyager 3.01",
        text: "A fix for a form submission problem reported by a university research group. All users should install the update.",
        url: "support/security/3011.html",
        new: false,
    },
    News {
        date: "Nov 27",
        title: "Holiday hours for technical support",
        text: "Telephone support closes at noon on December 24 and 31. Mail and the knowledge base stay open around the clock.",
        url: "support/hours.html",
        new: false,
    },
];

struct Product {
    name: &'static str,
    text: &'static str,
    url: &'static str,
    price: &'static str,
}

const PRODUCTS: &[Product] = &[
    Product {
        name: "Voyager 4.0",
        text: "The browser that started it all, now with mail, news, push channels and a page editor built in.",
        url: "voyager/",
        price: "Free preview",
    },
    Product {
        name: "Harbor Server 2.0",
        text: "Publish documents, run applications and search your whole intranet from one fast server.",
        url: "harbor/",
        price: "$995 per server",
    },
    Product {
        name: "Scribe 2.0",
        text: "What you see is what you get page editing. Drag in pictures and tables, publish with one click.",
        url: "scribe/",
        price: "$39",
    },
    Product {
        name: "Postbox 1.5",
        text: "Mail and discussion groups that work offline, with filters, signatures and HTML messages.",
        url: "postbox/",
        price: "Included in Voyager",
    },
    Product {
        name: "Compass Directory 1.0",
        text: "A standard directory for people, groups and machines that every Microscape product can read.",
        url: "compass/",
        price: "$1,495",
    },
];

fn news_html() -> String {
    let mut s = String::new();
    s.push_str("<TABLE WIDTH=300 BORDER=0 CELLPADDING=2 CELLSPACING=0>\n");
    for (i, n) in NEWS.iter().enumerate() {
        let bg = if i % 2 == 0 { "#FFFFFF" } else { "#F0F0F8" };
        let _ = writeln!(
            s,
            "<TR><TD WIDTH=14 VALIGN=TOP BGCOLOR=\"{bg}\"><IMG [[U:images/bullet_ball.gif]] VSPACE=3 ALT=\"*\"></TD>\n\
             <TD VALIGN=TOP BGCOLOR=\"{bg}\"><FONT FACE=\"Arial,Helvetica\" SIZE=-1 COLOR=\"#666666\">{}</FONT>\n\
             <FONT FACE=\"Arial,Helvetica\" SIZE=2><B><A HREF=\"http://www.example.com/{}\">{}</A></B></FONT>{}<BR>\n\
             <FONT SIZE=2>{}</FONT></TD></TR>",
            n.date,
            n.url,
            n.title,
            if n.new {
                " <IMG [[U:images/new.gif]] ALT=\"New!\">"
            } else {
                ""
            },
            n.text
        );
    }
    s.push_str("</TABLE>");
    s
}

fn products_html() -> String {
    let mut s = String::new();
    s.push_str("<table width=300 border=0 cellpadding=3 cellspacing=1>\n");
    for (i, p) in PRODUCTS.iter().enumerate() {
        let bg = if i % 2 == 0 { "#E8EEF8" } else { "#FFFFFF" };
        let _ = writeln!(
            s,
            "<tr bgcolor=\"{bg}\"><td valign=top><font face=\"Arial,Helvetica\" size=2><b><a href=\"http://www.example.com/{}\">{}</a></b></font><br>\n\
             <font size=2>{}</font></td>\n<td valign=top align=right nowrap><font size=1 color=\"#CC0000\"><b>{}</b></font></td></tr>",
            p.url, p.name, p.text, p.price
        );
    }
    s.push_str("</table>");
    s
}

fn downloads_html() -> String {
    let rows = [
        ("Voyager 4.0 PR2", "Windows 95/NT", "7.9 MB"),
        ("Voyager 4.0 PR2", "Mac OS", "8.4 MB"),
        ("Voyager 4.0 PR2", "UNIX", "9.6 MB"),
        ("Voyager 3.01", "Windows 3.1", "3.2 MB"),
        ("Scribe 2.0 trial", "Windows 95/NT", "4.1 MB"),
        ("Harbor 2.0 trial", "Windows NT", "14.2 MB"),
    ];
    let mut s = String::new();
    for (i, (name, os, size)) in rows.iter().enumerate() {
        let bg = if i % 2 == 0 { "#FFFFFF" } else { "#EEEEDD" };
        let _ = writeln!(
            s,
            "<TR><TD BGCOLOR=\"{bg}\"><FONT SIZE=1><A HREF=\"http://www.example.com/download/{}.html\"><B>{name}</B></A><BR>{os} <I>({size})</I></FONT></TD></TR>",
            i + 1
        );
    }
    s
}

/// Press-release headlines built from phrase lists with a seeded generator,
/// as many as it takes to bring the page to the study's size.
fn archive_html(count: usize) -> String {
    const WHO: [&str; 8] = [
        "Microscape",
        "Harbor Server",
        "Voyager",
        "Scribe",
        "Postbox",
        "Compass Directory",
        "ScapeScript",
        "The Microscape Channel Guide",
    ];
    const DID: [&str; 10] = [
        "wins a readers' choice award from",
        "is chosen as the standard intranet platform by",
        "adds support for the formats used by",
        "announces a new partnership with",
        "ships in eleven languages for",
        "opens a developer program for",
        "passes the interoperability tests run by",
        "introduces special pricing for",
        "brings secure commerce to",
        "is now bundled by",
    ];
    const WHOM: [&str; 12] = [
        "the Imaginary Computing Monthly editors",
        "Northfield State University",
        "a consortium of regional banks",
        "the Harbor County school district",
        "independent software vendors",
        "three national airlines",
        "small businesses and home offices",
        "the Lakeside Hospital group",
        "online newspapers",
        "twelve Internet service providers",
        "government agencies",
        "the Pacific Rim trade fair",
    ];
    const MONTHS: [&str; 11] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov",
    ];
    let mut rng = Rng(1996);
    let mut s = String::new();
    for i in 0..count {
        let month = MONTHS[MONTHS.len() - 1 - (i * MONTHS.len() / count.max(1)).min(10)];
        let day = 1 + rng.below(28);
        let (a, b, c) = (
            rng.below(WHO.len()),
            rng.below(DID.len()),
            rng.below(WHOM.len()),
        );
        let tag = if i % 3 == 0 { "B" } else { "b" };
        let _ = writeln!(
            s,
            "<{tag}>{month} {day}</{tag}> &nbsp;<a href=\"http://www.example.com/press/1996/{:03}.html\">{} {} {}</a><br>",
            i + 1,
            WHO[a],
            DID[b],
            WHOM[c]
        );
    }
    s
}

fn expand(template: &str, images: &[Img]) -> Result<String, String> {
    let mut out = String::with_capacity(template.len() + 1024);
    let mut rest = template;
    while let Some(start) = rest.find("[[") {
        out.push_str(&rest[..start]);
        let end = rest[start..].find("]]").ok_or("unterminated [[ marker")? + start;
        let marker = &rest[start + 2..end];
        let (mode, path) = marker
            .split_once(':')
            .ok_or(format!("bad marker [[{marker}]]"))?;
        let im = images
            .iter()
            .find(|i| i.path == path)
            .ok_or(format!("page refers to unknown image {path}"))?;
        let (w, h) = (im.gif.w, im.gif.h);
        match mode {
            "U" => {
                let _ = write!(out, "SRC=\"{path}\" WIDTH={w} HEIGHT={h}");
            }
            "l" => {
                let _ = write!(out, "src=\"{path}\" width={w} height={h}");
            }
            _ => return Err(format!("bad marker mode in [[{marker}]]")),
        }
        rest = &rest[end + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

const PAGE_MIN: usize = 42_800;
const PAGE_MAX: usize = 43_500;

fn build_page(images: &[Img]) -> Result<String, String> {
    let base = PAGE
        .replace("[[NEWS]]", &news_html())
        .replace("[[PRODUCTS]]", &products_html())
        .replace("[[DOWNLOADS]]", &downloads_html());
    for count in 0..400 {
        let page = expand(&base.replace("[[ARCHIVE]]", &archive_html(count)), images)?;
        if page.len() >= PAGE_MIN {
            return Ok(page);
        }
    }
    Err("page never reached its target size".into())
}
