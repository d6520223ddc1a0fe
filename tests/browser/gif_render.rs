//! Conversions are judged by what a browser shows: GIFs at the edges of the format (frames past
//! or outside the logical screen, a zero screen, palette indices past the colour table, an
//! out-of-range transparent index, interlacing, local tables, disposal on the first frame,
//! delays of 0 and 1) and the GIF suite of `../shared/corpora/gif-suite`, each on its own page
//! over a magenta background, rewritten by `webdiet rewrite` and rendered in Chromium: every
//! page must be pixel-identical to the original, and the edge cases must really have been
//! converted (else the check would compare a GIF with itself). The same again with
//! `--image-format webp`: lossless WebP pages render pixel-identical too. For animations
//! Chromium shows the first frame; the image stage's own frame check covers the rest, and the
//! timing.

use crate::common;

use std::collections::BTreeMap;

use common::rawgif::{gif, lzw, Frame};
use common::{chromium_available, shared_corpus, webdiet};

const RED: [u8; 3] = [255, 0, 0];
const GREEN: [u8; 3] = [0, 255, 0];
const BLUE: [u8; 3] = [0, 0, 255];
const YELLOW: [u8; 3] = [255, 255, 0];
const CYAN: [u8; 3] = [0, 255, 255];
const WHITE: [u8; 3] = [255, 255, 255];
const FOUR: [[u8; 3]; 4] = [RED, GREEN, BLUE, YELLOW];

/// Diagonal bands of 8 pixels cycling through `indices`: large enough that the PNG wins.
fn bands(w: u16, h: u16, indices: &[u8]) -> Vec<u8> {
    let (w, h) = (usize::from(w), usize::from(h));
    (0..w * h)
        .map(|i| indices[((i % w) / 8 + (i / w) / 8) % indices.len()])
        .collect()
}

fn frame(rect: (u16, u16, u16, u16)) -> Frame {
    Frame::new(rect, &bands(rect.2, rect.3, &[0, 1, 2, 3]))
}

/// The edge cases, by file name.
fn edge_cases() -> BTreeMap<&'static str, Vec<u8>> {
    let mut cases = BTreeMap::new();
    let mut add = |name, bytes| {
        cases.insert(name, bytes);
    };
    add(
        "baseline",
        gif((32, 32), &FOUR, 0, &[frame((0, 0, 32, 32))]),
    );
    add(
        "first_larger_than_screen",
        gif((32, 32), &FOUR, 0, &[frame((0, 0, 48, 48))]),
    );
    add(
        "first_offset_past_screen",
        gif((32, 32), &FOUR, 0, &[frame((16, 16, 32, 32))]),
    );
    add(
        "first_wholly_outside",
        gif((32, 32), &FOUR, 0, &[frame((48, 40, 24, 24))]),
    );
    add(
        "first_past_right_only",
        gif((32, 32), &FOUR, 0, &[frame((8, 0, 48, 24))]),
    );
    add(
        "first_past_bottom_only",
        gif((32, 32), &FOUR, 0, &[frame((0, 24, 32, 32))]),
    );
    add(
        "screen_zero",
        gif((0, 0), &FOUR, 0, &[frame((0, 0, 32, 32))]),
    );
    add(
        "screen_zero_height",
        gif((32, 0), &FOUR, 0, &[frame((0, 0, 32, 32))]),
    );
    add(
        "first_inside_smaller",
        gif((48, 48), &FOUR, 0, &[frame((8, 16, 24, 24))]),
    );
    add(
        "background_index_ignored",
        gif((48, 32), &FOUR, 2, &[frame((0, 0, 24, 32))]),
    );
    let stripes = |w: u16, h: u16, idx: &[u8]| {
        let w = usize::from(w);
        (0..w * usize::from(h))
            .map(|i| idx[(i % w) / 8 % idx.len()])
            .collect::<Vec<u8>>()
    };
    add(
        "index_past_the_table_is_black",
        gif(
            (64, 32),
            &[RED, GREEN],
            0,
            &[Frame::new(
                (0, 0, 64, 32),
                &stripes(64, 32, &[0, 1, 2, 3, 200]),
            )],
        ),
    );
    add(
        "transparent_index_past_the_table",
        gif(
            (64, 32),
            &[RED, GREEN],
            0,
            &[Frame {
                transparent: Some(7),
                ..Frame::new((0, 0, 64, 32), &stripes(64, 32, &[0, 1, 7, 3]))
            }],
        ),
    );
    add(
        "local_table_shorter_than_indices",
        gif(
            (32, 32),
            &FOUR,
            0,
            &[Frame {
                palette: Some(vec![CYAN, WHITE]),
                ..frame((0, 0, 32, 32))
            }],
        ),
    );
    add(
        "interlaced_at_an_offset",
        gif(
            (48, 88),
            &FOUR,
            0,
            &[Frame {
                interlaced: true,
                ..Frame::new(
                    (8, 8, 32, 72),
                    &interlace(&bands(32, 72, &[0, 1, 2, 3]), 32),
                )
            }],
        ),
    );
    add(
        "too_much_data",
        gif(
            (32, 32),
            &FOUR,
            0,
            &[Frame {
                data: lzw(&bands(32, 48, &[0, 1, 2, 3])),
                ..frame((0, 0, 32, 32))
            }],
        ),
    );
    // Animations: Chromium shows the first frame (the render check freezes animations).
    let first = |dispose, delay_cs| Frame {
        dispose,
        delay_cs,
        ..frame((0, 0, 32, 32))
    };
    add(
        "restore_previous_on_the_first_frame",
        gif((32, 32), &FOUR, 0, &[first(3, 20), frame((8, 8, 16, 16))]),
    );
    add(
        "delays_0_and_1",
        gif(
            (32, 32),
            &FOUR,
            0,
            &[first(0, 0), first(2, 1), frame((8, 8, 16, 16))],
        ),
    );
    add(
        "later_frames_past_and_outside",
        gif(
            (32, 32),
            &FOUR,
            0,
            &[
                first(1, 20),
                frame((16, 16, 32, 32)),
                frame((40, 40, 8, 8)),
                frame((8, 8, 0, 0)),
            ],
        ),
    );
    add(
        "grown_canvas_animation",
        gif(
            (16, 16),
            &FOUR,
            0,
            &[
                Frame {
                    delay_cs: 20,
                    ..frame((0, 0, 48, 48))
                },
                frame((40, 40, 16, 16)),
            ],
        ),
    );
    cases
}

/// Rows in GIF interlace order (0, 8, … / 4, 12, … / 2, 6, … / 1, 3, …).
fn interlace(pixels: &[u8], w: usize) -> Vec<u8> {
    let h = pixels.len() / w;
    let mut out = Vec::with_capacity(pixels.len());
    for (start, step) in [(0, 8), (4, 8), (2, 4), (1, 2)] {
        for row in (start..h).step_by(step) {
            out.extend_from_slice(&pixels[row * w..(row + 1) * w]);
        }
    }
    out
}

fn page(gif: &str) -> String {
    format!(
        "<!DOCTYPE html><html><body style=\"margin:0;background:#f0f\">\
         <img src=\"{gif}\" style=\"display:block\"></body></html>"
    )
}

#[test]
fn edge_case_gifs_and_the_gif_suite_render_like_their_conversions_in_chromium() {
    render_check("png");
}

#[test]
fn edge_case_gifs_and_the_gif_suite_render_like_their_webp_conversions_in_chromium() {
    render_check("webp");
}

/// Rewrites the edge cases and the suite to `format` and renders every page in Chromium.
fn render_check(format: &str) {
    if !chromium_available() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    let cases = edge_cases();
    for (name, bytes) in &cases {
        files.push((format!("{name}.gif"), bytes.clone()));
        files.push((
            format!("{name}.html"),
            page(&format!("{name}.gif")).into_bytes(),
        ));
    }
    if let Some(suite) = shared_corpus("gif-suite") {
        for entry in std::fs::read_dir(suite.join("gifs")).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "gif") {
                let name = path.file_name().unwrap().to_str().unwrap().to_string();
                files.push((format!("suite/{name}"), std::fs::read(&path).unwrap()));
                files.push((format!("suite/{name}.html"), page(&name).into_bytes()));
            }
        }
    }
    let refs: Vec<(&str, &[u8])> = files.iter().map(|(p, b)| (p.as_str(), &b[..])).collect();
    common::write_site(&site, &refs);
    let out = tmp.path().join("out");
    webdiet()
        .args(["rewrite", "--no-markup", "--image-format", format])
        .arg(&site)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
    let outcomes: BTreeMap<String, (String, String)> = report["images"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["path"].as_str().unwrap().to_string(),
                (
                    r["reason"].as_str().unwrap().to_string(),
                    r["format"].as_str().unwrap().to_string(),
                ),
            )
        })
        .collect();
    for name in cases.keys() {
        let (reason, served) = &outcomes[&format!("{name}.gif")];
        assert!(reason.starts_with("converted("), "{name}: {reason}");
        let expected: &[&str] = match format {
            "webp" => &["webp"],
            _ => &["png", "apng"],
        };
        assert!(expected.contains(&served.as_str()), "{name}: {served}");
    }

    let verify = webdiet()
        .arg("verify")
        .arg(&site)
        .arg(out.join("site"))
        .arg("--out")
        .arg(tmp.path().join("diff"))
        .arg("--json")
        .output()
        .unwrap();
    let result: serde_json::Value = serde_json::from_slice(&verify.stdout)
        .unwrap_or_else(|_| panic!("verify: {}", String::from_utf8_lossy(&verify.stderr)));
    let pages = result["pages"].as_array().unwrap();
    let differing: Vec<String> = pages
        .iter()
        .filter(|p| p["differing_pixels"] != 0)
        .map(|p| format!("{} ({} px)", p["page"], p["differing_pixels"]))
        .collect();
    assert!(
        differing.is_empty(),
        "render differently in Chromium: {differing:?}"
    );
    assert_eq!(pages.len(), files.len() / 2, "every page was rendered");
    assert!(
        verify.status.success(),
        "{}",
        String::from_utf8_lossy(&verify.stderr)
    );
}
