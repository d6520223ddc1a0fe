//! `webdiet verify`: the render check, run end to end against headless Chromium on fixture
//! trees built here. Without Chromium the tests skip with a note, unless CI=true.

use crate::common;

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::str::contains;
use webdiet::verify::{self, diff, RenderOptions, VerifyOptions};

use common::chromium_available;

fn write(root: &Path, path: &str, bytes: impl AsRef<[u8]>) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

fn page(body: &str) -> String {
    format!("<html><head><title>t</title></head><body bgcolor=\"#ffffff\">{body}</body></html>")
}

/// A small site: two pages, a style sheet and an image referenced relatively.
fn small_site(root: &Path, heading_colour: &str) {
    write(
        root,
        "index.html",
        page(&format!(
            "<h1><font color=\"{heading_colour}\">Welcome</font></h1>\
             <p>Some text.</p><img src=\"img/dot.gif\" width=40 height=40>\
             <a href=\"sub/more.html\">more</a>"
        )),
    );
    write(
        root,
        "sub/more.html",
        "<html><head><link rel=stylesheet href=\"../style.css\"></head>\
         <body><p class=x>More text</p></body></html>",
    );
    write(root, "style.css", "p.x { color: #336699; font-size: 20px }");
    write(root, "img/dot.gif", animated_gif(&[[0, 0, 255]], 4, 4));
}

/// Renders `file`, then again after each pause (in ms): every render must equal the first,
/// which is returned.
fn same_after_pauses(file: &Path, pauses: &[u64]) -> diff::Image {
    let mut browser = verify::Browser::launch(&RenderOptions::default()).unwrap();
    let first = diff::decode_png(&browser.render(file).unwrap().png).unwrap();
    for &pause in pauses {
        std::thread::sleep(std::time::Duration::from_millis(pause));
        let again = diff::decode_png(&browser.render(file).unwrap().png).unwrap();
        assert_eq!(
            diff::compare(&first, &again).differing_pixels,
            0,
            "after {pause} ms"
        );
    }
    first
}

/// A GIF89a with one frame per colour (each a solid `w × h` block), looping forever,
/// 50 ms per frame.
fn animated_gif(colours: &[[u8; 3]], w: u16, h: u16) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut palette = Vec::new();
        for c in colours {
            palette.extend_from_slice(c);
        }
        let mut encoder = gif::Encoder::new(&mut out, w, h, &[]).unwrap();
        encoder.set_repeat(gif::Repeat::Infinite).unwrap();
        for (i, _) in colours.iter().enumerate() {
            let frame = gif::Frame {
                width: w,
                height: h,
                delay: 5,
                buffer: std::borrow::Cow::Owned(vec![i as u8; usize::from(w) * usize::from(h)]),
                palette: Some(palette.clone()),
                ..gif::Frame::default()
            };
            encoder.write_frame(&frame).unwrap();
        }
    }
    out
}

fn options(out: &Path) -> VerifyOptions {
    VerifyOptions {
        out_dir: out.to_path_buf(),
        ..VerifyOptions::default()
    }
}

fn webdiet() -> Command {
    Command::cargo_bin("webdiet").unwrap()
}

#[test]
fn identical_trees_render_identically_and_exit_0() {
    if !chromium_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (a, b, out) = trees(dir.path());
    small_site(&a, "#990000");
    small_site(&b, "#990000");
    let report = verify::verify(&a, &b, &options(&out)).unwrap();
    assert_eq!(report.pages_in_both, 2);
    assert_eq!(report.pages.len(), 2);
    assert!(report.all_identical(), "{report:?}");
    assert!(report.pages.iter().all(|p| p.diff_image.is_none()));
    assert!(!out.exists(), "no diff image for identical pages");

    webdiet()
        .arg("verify")
        .arg(&a)
        .arg(&b)
        .arg("--out")
        .arg(&out)
        .assert()
        .code(0)
        .stdout(contains("2 pixel-identical"));
}

#[test]
fn a_changed_colour_is_found_with_a_diff_image_and_exit_1() {
    if !chromium_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (a, b, out) = trees(dir.path());
    small_site(&a, "#990000");
    small_site(&b, "#009900");
    let report = verify::verify(&a, &b, &options(&out)).unwrap();
    let index = report
        .pages
        .iter()
        .find(|p| p.page == "index.html")
        .unwrap();
    let more = report
        .pages
        .iter()
        .find(|p| p.page == "sub/more.html")
        .unwrap();
    assert!(index.differing_pixels > 0);
    assert!(index.share > 0.0 && index.share < 0.01, "only the heading");
    assert_eq!(more.differing_pixels, 0);
    let image_path = index.diff_image.as_ref().unwrap();
    assert_eq!(image_path, &out.join("index.html.png"));
    let image = diff::decode_png(&std::fs::read(image_path).unwrap()).unwrap();
    assert_eq!((image.width, image.height), (index.width, index.height));
    assert_eq!(report.worst().unwrap().page, "index.html");

    let output = webdiet()
        .arg("verify")
        .arg(&a)
        .arg(&b)
        .arg("--out")
        .arg(&out)
        .arg("--json")
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let json: serde_json::Value = serde_json::from_slice(&output).unwrap();
    let pages = json["pages"].as_array().unwrap();
    assert_eq!(pages.len(), 2);
    assert_eq!(pages[0]["page"], "index.html");
    assert!(pages[0]["differing_pixels"].as_u64().unwrap() > 0);
    assert!(pages[0]["diff_image"].is_string());
    assert_eq!(pages[1]["differing_pixels"], 0);

    // Fixed: the next run removes the stale diff image.
    small_site(&b, "#990000");
    webdiet()
        .arg("verify")
        .arg(&a)
        .arg(&b)
        .arg("--out")
        .arg(&out)
        .assert()
        .code(0);
    assert!(!out.join("index.html.png").exists());
}

#[test]
fn a_page_taller_than_the_window_is_compared_down_to_the_bottom() {
    if !chromium_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (a, b, out) = trees(dir.path());
    let tall = |colour: &str| {
        let lines: String = (0..120).map(|i| format!("<p>line {i}</p>")).collect();
        page(&format!(
            "{lines}<p><font color=\"{colour}\">THE END</font></p>"
        ))
    };
    write(&a, "tall.html", tall("black"));
    write(&b, "tall.html", tall("red"));
    let report = verify::verify(&a, &b, &options(&out)).unwrap();
    let result = &report.pages[0];
    let window = RenderOptions::default().window_height;
    assert!(result.height > 2 * window, "full page, not one screen");
    assert!(!result.truncated);
    assert!(
        result.differing_pixels > 0,
        "the change at the bottom is found"
    );
    let image =
        diff::decode_png(&std::fs::read(result.diff_image.as_ref().unwrap()).unwrap()).unwrap();
    let red_rows: Vec<u32> = (0..image.height)
        .filter(|&y| (0..image.width).any(|x| image.get(x, y) == Some([255, 0, 0, 255])))
        .collect();
    assert!(
        red_rows.iter().all(|&y| y > window),
        "differences only below the first screen"
    );
}

#[test]
fn a_taller_rewritten_page_counts_the_extra_area_as_differing() {
    if !chromium_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (a, b, out) = trees(dir.path());
    let lines = |n: usize| {
        page(
            &(0..n)
                .map(|i| format!("<p>line {i}</p>"))
                .collect::<String>(),
        )
    };
    write(&a, "p.html", lines(60));
    write(&b, "p.html", lines(80));
    let report = verify::verify(&a, &b, &options(&out)).unwrap();
    let result = &report.pages[0];
    assert!(result.differing_pixels > 0);
    assert!(result.differing_pixels >= u64::from(result.width) * 20 * 10);
}

#[test]
fn animations_are_frozen_so_the_same_page_renders_identically_twice() {
    if !chromium_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    let colours = [[255, 0, 0], [0, 0, 255], [0, 255, 0], [0, 0, 0]];
    write(&site, "spin.gif", animated_gif(&colours, 200, 200));
    write(
        &site,
        "index.html",
        "<html><head><style>@keyframes spin { to { transform: rotate(360deg) } }\
         div { width: 80px; height: 80px; background: red; animation: spin 0.3s infinite linear }\
         </style></head><body><img src=spin.gif><div></div>\
         <marquee>scrolling text</marquee></body></html>",
    );
    let file = site.join("index.html");
    let mut browser = verify::Browser::launch(&RenderOptions::default()).unwrap();
    let first = diff::decode_png(&browser.render(&file).unwrap().png).unwrap();
    for _ in 0..3 {
        std::thread::sleep(std::time::Duration::from_millis(70));
        let again = diff::decode_png(&browser.render(&file).unwrap().png).unwrap();
        assert_eq!(diff::compare(&first, &again).differing_pixels, 0);
    }
    drop(browser);
    let fresh = verify::render_file(&file, &RenderOptions::default()).unwrap();
    let fresh = diff::decode_png(&fresh.png).unwrap();
    assert_eq!(diff::compare(&first, &fresh).differing_pixels, 0);
    // The GIF shows its first frame (red) and the image loaded at all.
    assert_eq!(first.get(100, 100), Some([255, 0, 0, 255]));
}

/// `webdiet verify` on two identical small trees with `browser` as the Chromium binary.
fn verify_with_browser(browser: &str) -> assert_cmd::assert::Assert {
    let dir = tempfile::tempdir().unwrap();
    let (a, b, out) = trees(dir.path());
    small_site(&a, "#000000");
    small_site(&b, "#000000");
    webdiet()
        .env("WEBDIET_CHROMIUM", browser)
        .arg("verify")
        .arg(&a)
        .arg(&b)
        .arg("--out")
        .arg(&out)
        .assert()
}

#[test]
fn missing_chromium_exits_2_and_says_how_to_install_it() {
    verify_with_browser("/nonexistent/chromium")
        .code(2)
        .stderr(contains("/nonexistent/chromium: Chromium not found"))
        .stderr(contains("apt-get install chromium"));
}

#[test]
fn a_tree_that_does_not_exist_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let (a, _, _) = trees(dir.path());
    small_site(&a, "#000000");
    webdiet()
        .arg("verify")
        .arg(&a)
        .arg(dir.path().join("nowhere"))
        .assert()
        .code(2)
        .stderr(contains("nowhere"));
}

#[test]
fn pages_takes_a_sample_spread_over_the_site() {
    if !chromium_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (a, b, out) = trees(dir.path());
    for tree in [&a, &b] {
        for i in 0..6 {
            write(
                tree,
                &format!("p{i}.html"),
                page(&format!("<p>page {i}</p>")),
            );
        }
    }
    let opts = VerifyOptions {
        pages: Some(2),
        ..options(&out)
    };
    let report = verify::verify(&a, &b, &opts).unwrap();
    assert_eq!(report.pages_in_both, 6);
    let checked: Vec<&str> = report.pages.iter().map(|p| p.page.as_str()).collect();
    assert_eq!(checked, ["p0.html", "p3.html"]);
}

/// Runs Space Jam against an unchanged copy of itself: every sampled page must be identical,
/// which shows the rendering is deterministic on real 1996 pages.
#[test]
fn space_jam_renders_identically_against_itself() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpora/spacejam");
    if !corpus.is_dir() {
        assert!(
            !common::in_ci(),
            "CI=true but {} is missing",
            corpus.display()
        );
        eprintln!("note: {} missing, skipping", corpus.display());
        return;
    }
    if !chromium_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("spacejam");
    copy_tree(&corpus, &copy);
    let opts = VerifyOptions {
        pages: Some(6),
        ..options(&dir.path().join("out"))
    };
    let report = verify::verify(&corpus, &copy, &opts).unwrap();
    assert_eq!(report.pages.len(), 6);
    assert!(report.all_identical(), "{:#?}", report.pages);
}

#[test]
fn a_page_with_frames_and_iframes_from_outside_hosts_is_compared_like_any_other() {
    // 1990s sites framed other sites (Space Jam's studio store page). Those hosts are
    // unreachable by construction; their frames must fail at once and the page be compared,
    // not time out (cross-site frames rendered in processes of their own never settled).
    if !chromium_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (a, b, out) = trees(dir.path());
    for (root, colour) in [(&a, "#990000"), (&b, "#000099")] {
        write(
            root,
            "frames.html",
            "<html><frameset cols=\"120,*\"><frame src=\"nav.html\">\
             <frame src=\"http://www.example.com/\"></frameset></html>",
        );
        write(
            root,
            "nav.html",
            page(&format!("<h1 style=\"color:{colour}\">nav</h1>")),
        );
        write(
            root,
            "iframe.html",
            page("<p>before</p><iframe src=\"https://www.example.org/\" width=300 height=100></iframe>"),
        );
    }
    let report = verify::verify(&a, &b, &options(&out)).unwrap();
    assert!(
        report.problems.is_empty(),
        "every page rendered: {:?}",
        report.problems
    );
    let differing = |name: &str| {
        report
            .pages
            .iter()
            .find(|p| p.page == name)
            .unwrap_or_else(|| panic!("{name} checked: {report:?}"))
            .differing_pixels
    };
    assert!(
        differing("frames.html") > 0,
        "the local frame's change is seen"
    );
    assert_eq!(differing("iframe.html"), 0);
}

fn trees(root: &Path) -> (PathBuf, PathBuf, PathBuf) {
    (
        root.join("original"),
        root.join("rewritten"),
        root.join("out"),
    )
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.unwrap();
        let target = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else if entry.file_type().is_file() {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

#[test]
fn a_page_that_opens_an_alert_is_still_rendered() {
    if !chromium_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (a, b, out) = trees(dir.path());
    for tree in [&a, &b] {
        write(
            tree,
            "index.html",
            "<html><body onload=\"alert('welcome!')\"><script>confirm('sure?')</script>\
             <p>after the dialogs</p></body></html>",
        );
    }
    let report = verify::verify(&a, &b, &options(&out)).unwrap();
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    assert_eq!(report.pages.len(), 1, "rendered, not timed out: {report:?}");
    assert!(report.all_identical());
}

#[test]
fn a_focused_text_field_renders_identically_every_time() {
    if !chromium_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("form.html");
    write(
        dir.path(),
        "form.html",
        "<html><body><form><input name=q autofocus value=abc>\
         <textarea autofocus>text</textarea></form></body></html>",
    );
    same_after_pauses(&file, &[150, 320, 530]);
}

/// What the audit report's test will do: render one local HTML file and look at the pixels.
#[test]
fn render_file_draws_a_script_made_chart_and_a_blank_page_stays_blank() {
    if !chromium_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "chart.html",
        "<html><body style=\"margin:0\"><canvas id=c width=300 height=200></canvas><script>\
         const g = document.getElementById('c').getContext('2d');\
         g.fillStyle = '#2060c0'; g.fillRect(20, 50, 60, 150); g.fillRect(120, 100, 60, 100);\
         </script><svg width=300 height=100><rect x=10 y=10 width=80 height=80 fill=green />\
         </svg></body></html>",
    );
    write(dir.path(), "blank.html", "<html><body></body></html>");
    let opts = RenderOptions::default();
    let chart = verify::render_file(&dir.path().join("chart.html"), &opts).unwrap();
    let image = diff::decode_png(&chart.png).unwrap();
    assert_eq!(image.width, opts.window_width);
    assert!(!image.is_uniform());
    assert_eq!(
        image.get(50, 100),
        Some([0x20, 0x60, 0xc0, 255]),
        "canvas bar"
    );
    assert_eq!(
        image.get(250, 100),
        Some([255, 255, 255, 255]),
        "canvas background"
    );
    let blank = verify::render_file(&dir.path().join("blank.html"), &opts).unwrap();
    assert!(diff::decode_png(&blank.png).unwrap().is_uniform());
}

#[test]
fn a_browser_binary_that_does_not_speak_devtools_exits_2() {
    verify_with_browser("/bin/false")
        .code(2)
        .stderr(contains("/bin/false: Chromium did not start"));
}

/// An APNG of solid frames, one per colour, 50 ms each, looping forever.
fn animated_png(colours: &[[u8; 3]], size: u32) -> Vec<u8> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, size, size);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_animated(colours.len() as u32, 0).unwrap();
    encoder.set_frame_delay(1, 20).unwrap();
    let mut writer = encoder.write_header().unwrap();
    for colour in colours {
        let frame: Vec<u8> = (0..size * size).flat_map(|_| *colour).collect();
        writer.write_image_data(&frame).unwrap();
    }
    writer.finish().unwrap();
    out
}

#[test]
fn an_animated_png_is_frozen_on_its_first_frame() {
    if !chromium_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let colours = [[255, 0, 0], [0, 0, 255], [0, 255, 0]];
    write(dir.path(), "spin.png", animated_png(&colours, 120));
    write(
        dir.path(),
        "index.html",
        "<html><body style=\"margin:0\"><img src=spin.png></body></html>",
    );
    let file = dir.path().join("index.html");
    let first = same_after_pauses(&file, &[40, 90]);
    assert_eq!(first.get(60, 60), Some([255, 0, 0, 255]), "first frame");
}

#[test]
fn pages_are_rendered_as_a_server_sends_them_so_an_extensionless_image_loads() {
    if !chromium_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (a, b, out) = trees(dir.path());
    let red = common::still_gif(60, 60, &[200, 0, 0, 0, 0, 0], None, vec![0; 3600]);
    // `logo` is `logo.gif` to a server (content negotiation), nothing at all to a file: URL.
    let body = page("<h1>Logo</h1><img src=\"logo\" width=60 height=60 alt=\"\">");
    write(&a, "index.html", &body);
    write(&a, "logo.gif", &red);
    write(&b, "index.html", &body);
    let report = verify::verify(&a, &b, &options(&out)).unwrap();
    assert_eq!(report.pages.len(), 1);
    assert!(
        report.pages[0].differing_pixels >= 60 * 60,
        "{:?}",
        report.pages[0]
    );
}

/// A page whose script adds entries on timers, each saying when (by `Date.now()` and
/// `performance.now()`) and with a `Math.random()` draw, as a documentation site's navigation
/// script does.
fn timer_driven_page(n: usize) -> String {
    format!(
        "<html><body><h1>Page {n}</h1><ul id=nav></ul><script>\
         var start = Date.now(), count = 0;\
         function add() {{\
           var li = document.createElement('li');\
           li.textContent = 'entry ' + count + ' at ' + (Date.now() - start) + ' ms, ' +\
             performance.now().toFixed(3) + ', ' + Math.random() + ', ' + new Date();\
           document.getElementById('nav').appendChild(li);\
           if (++count < 25) setTimeout(add, 1 + count % 7);\
         }}\
         setTimeout(add, {delay});\
         setInterval(function () {{ document.title = Date.now(); }}, 10);\
         </script></body></html>",
        delay = 5 + n * 3
    )
}

#[test]
fn a_tree_of_timer_driven_pages_compared_with_itself_is_identical() {
    if !chromium_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (tree, _, out) = trees(dir.path());
    for n in 0..6 {
        write(&tree, &format!("page{n}.html"), timer_driven_page(n));
    }
    let report = verify::verify(&tree, &tree, &options(&out)).unwrap();
    assert_eq!(report.pages.len(), 6);
    let differing: Vec<_> = report
        .pages
        .iter()
        .filter(|p| p.differing_pixels != 0)
        .map(|p| (&p.page, p.differing_pixels))
        .collect();
    assert!(differing.is_empty(), "differing: {differing:?}");
    assert!(report.all_identical(), "{report:?}");
    webdiet()
        .arg("verify")
        .arg(&tree)
        .arg(&tree)
        .arg("--out")
        .arg(&out)
        .assert()
        .code(0)
        .stdout(contains("6 pixel-identical"));
}

/// A page whose render cannot finish within its patience is "not checked (timed out)":
/// never a difference, in the report, the JSON, the summary or the exit status. Patience grows
/// with the page: with a floor of 0.3 s and 2 minutes a MiB, a page of 1 MiB gets two minutes
/// and is compared, while a small page whose script holds the renderer for seconds (real
/// time: virtual time does not stop a loop) runs out. That page differs between the trees,
/// so had it been compared, the check would have failed.
#[test]
fn a_page_that_runs_out_of_patience_is_not_checked_and_fails_nothing() {
    use webdiet::app::{verify_status, Status};
    use webdiet::report::terminal::style::TextStyle;
    use webdiet::verify::{NotCheckedReason, Patience};
    if !chromium_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (a, b, out) = trees(dir.path());
    let busy = |colour: &str| {
        page(&format!(
            "<p style=\"color: {colour}\">busy</p><script>var x = 0;\
             for (var i = 0; i < 1e9; i++) {{ x = (x + i) % 7; }}</script>"
        ))
    };
    let heavy = page(&format!(
        "<p>heavy</p><!-- {} -->",
        "padding ".repeat(1_048_576 / 8)
    ));
    for (tree, colour) in [(&a, "red"), (&b, "green")] {
        write(tree, "busy.html", busy(colour));
        write(tree, "heavy.html", &heavy);
    }
    let opts = VerifyOptions {
        patience: Patience {
            floor: std::time::Duration::from_millis(300),
            per_mib: std::time::Duration::from_secs(120),
        },
        ..options(&out)
    };
    let report = verify::verify(&a, &b, &opts).unwrap();

    let compared: Vec<&str> = report.pages.iter().map(|p| p.page.as_str()).collect();
    assert_eq!(compared, ["heavy.html"], "{report:?}");
    assert_eq!(report.pages[0].differing_pixels, 0);
    assert_eq!(report.not_checked.len(), 1, "{report:?}");
    let busy = &report.not_checked[0];
    assert_eq!(busy.page, "busy.html");
    assert_eq!(busy.reason, NotCheckedReason::TimedOut);
    assert!(busy.patience_s < 1.0, "{busy:?}");
    assert!(busy.message.contains("no answer within"), "{busy:?}");
    assert!(report.problems.is_empty(), "{report:?}");
    assert!(report.worst().is_none());
    // Not a difference: the check passes, and says what it could not check.
    assert!(report.all_identical());
    assert_eq!(verify_status(&report), Status::Success);
    let summary = webdiet::report::terminal::verify::verify(&report, &TextStyle::default());
    assert!(
        summary.contains("renders identically where checked; 1 page not checked (timed out)"),
        "{summary}"
    );
    assert!(
        summary.contains("not checked (timed out)  busy.html"),
        "{summary}"
    );
    assert!(!summary.contains("CHANGED"), "{summary}");
    let json: serde_json::Value =
        serde_json::from_str(&webdiet::report::json::to_string(&report)).unwrap();
    assert_eq!(json["not_checked"][0]["page"], "busy.html");
    assert_eq!(json["not_checked"][0]["reason"], "timed-out");
    assert_eq!(json["problems"].as_array().unwrap().len(), 0);
    assert!(!out.join("busy.html.png").exists(), "no diff image");

    // When every page runs out of time, nothing differs and nothing is proven: said so, and
    // still no failure.
    let opts = VerifyOptions {
        patience: Patience {
            floor: std::time::Duration::from_millis(1),
            per_mib: std::time::Duration::ZERO,
        },
        ..options(&out)
    };
    let report = verify::verify(&a, &b, &opts).unwrap();
    assert!(report.pages.is_empty(), "{report:?}");
    assert_eq!(report.timed_out(), 2);
    assert!(report.nothing_checked());
    assert_eq!(verify_status(&report), Status::Success);
    let summary = webdiet::report::terminal::verify::verify(&report, &TextStyle::default());
    assert!(
        summary.contains("NOT CHECKED: 2 pages timed out"),
        "{summary}"
    );
}
