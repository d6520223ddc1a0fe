//! Writes the default demo site `corpus/microscape/`: an invented stand-in, shaped like the 1997 W3C study's "Microscape" test page (whose files were never published), byte-for-byte the same on every run and machine.
//!
//! Usage: `make-corpus OUT_DIR`. It creates `OUT_DIR` and writes `index.html` (about 42 KB of
//! 1996-style table-and-`<font>` HTML) and 42 GIFs under `images/` (about 125 KB, 2 animated)
//! with the size distribution the study reports. Every image is drawn from code: a seeded
//! generator, value noise, a 5x7 bitmap font, dithering to fixed palettes and a hand-written
//! GIF container around the `gif` crate's LZW coder. Before writing anything it decodes every
//! GIF again with the `gif` crate and checks the study's numbers, and fails if one is off.

mod check;
mod draw;
mod gifenc;
mod images;
mod page;
mod rng;
mod summary;

use std::path::{Path, PathBuf};
use std::{env, fs, process};

use check::{check_page, check_shape, verify};
use images::build_images;
use page::build_page;
use summary::summary;

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
