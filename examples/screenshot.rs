//! Screenshots a local HTML file in headless Chromium at a window width, the top of the page
//! down to a height: how `docs/screenshots.sh` makes the report's pictures in the docs.
//!
//! `cargo run --release --example screenshot -- FILE WIDTH HEIGHT OUT.png`

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [file, width, height, out] = args.as_slice() else {
        eprintln!("usage: screenshot FILE WIDTH HEIGHT OUT.png");
        return ExitCode::from(2);
    };
    let (Ok(width), Ok(height)) = (width.parse::<u32>(), height.parse::<u32>()) else {
        eprintln!("screenshot: WIDTH and HEIGHT are pixels");
        return ExitCode::from(2);
    };
    let opts = webdiet::verify::RenderOptions {
        window_width: width,
        window_height: height.min(1200),
        // The shot is cut at this size both ways: the page's top `height` pixels.
        max_size: height.max(width),
        ..webdiet::verify::RenderOptions::default()
    };
    match webdiet::chromium::render_file(&PathBuf::from(file), &opts) {
        Ok(shot) => match std::fs::write(out, &shot.png) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("screenshot: {out}: {e}");
                ExitCode::from(2)
            }
        },
        Err(e) => {
            eprintln!("screenshot: {e}");
            ExitCode::from(2)
        }
    }
}
