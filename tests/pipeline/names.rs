//! File names that are not UTF-8 (Latin-1 names from old FTP uploads) are bytes from end to
//! end: crawled, listed, converted, copied, referenced by percent-encoded links, served by the
//! replay's server and fetched by its client, and never merged with another name, not even with
//! a name that is their lossy UTF-8 form.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsStr;
use std::io::{Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use common::{analyze_json, webdiet};

use common::seeded_gif as gif;

fn path_of(root: &Path, name: &[u8]) -> PathBuf {
    root.join(OsStr::from_bytes(name))
}

fn write(root: &Path, name: &[u8], bytes: &[u8]) {
    let path = path_of(root, name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// The GIFs of the hostile site, by byte name: two that differ only in a Latin-1 byte, one
/// whose (valid UTF-8) name is what a lossy conversion makes of both, one in a directory whose
/// name is Latin-1, one named only by a Latin-1-named style sheet.
const GIFS: [&[u8]; 5] = [
    b"caf\xe9.gif",
    b"caf\xe8.gif",
    b"caf\xef\xbf\xbd.gif",
    b"r\xe9p/image.gif",
    b"fond\xe9.gif",
];

/// How a site built by [`build`] names its GIFs and its style sheet.
struct Names {
    /// Each GIF's file name and the href that reaches it from the root.
    gifs: [(&'static [u8], &'static str); 5],
    /// The href of the fourth GIF from `r\xe9p/page.html`.
    from_subdir: &'static str,
    /// The style sheet's file name and href.
    sheet: (&'static [u8], &'static str),
}

/// Every name of the hostile site, every href percent-encoded as Apache expects.
const HOSTILE: Names = Names {
    gifs: [
        (GIFS[0], "caf%E9.gif"),
        (GIFS[1], "caf%E8.gif"),
        (GIFS[2], "caf%EF%BF%BD.gif"),
        (GIFS[3], "r%E9p/image.gif"),
        (GIFS[4], "fond%E9.gif"),
    ],
    from_subdir: "image.gif",
    sheet: (b"styl\xe9.css", "styl%E9.css"),
};

/// The same site with ASCII names for the GIFs and the sheet (its pages keep their names).
const ASCII: Names = Names {
    gifs: [
        (b"g0.gif", "g0.gif"),
        (b"g1.gif", "g1.gif"),
        (b"g2.gif", "g2.gif"),
        (b"g3.gif", "g3.gif"),
        (b"g4.gif", "g4.gif"),
    ],
    from_subdir: "../g3.gif",
    sheet: (b"style.css", "style.css"),
};

fn concat(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

/// Writes a site: three pages (one with a Latin-1 name, one in a Latin-1 directory), a style
/// sheet and five GIFs, named by `names`.
fn build(root: &Path, names: &Names) {
    let img = |(_, href): (&[u8], &str), alt: &str| format!("<img src=\"{href}\" alt={alt}>");
    let g = &names.gifs;
    let index = format!(
        "<html><head><meta charset=utf-8><title>noms</title>\
         <link rel=stylesheet href=\"{}\"></head>\n\
         <body>{}{}\n{}{}\n\
         <a href=\"p%E1gina.html\">p\u{e1}gina</a> <a href=\"r%E9p/page.html\">r</a></body></html>\n",
        names.sheet.1,
        img(g[0], "a"),
        img(g[1], "b"),
        img(g[2], "c"),
        img(g[3], "d"),
    );
    write(root, b"index.html", index.as_bytes());
    let latin1_page = concat(&[
        b"<html><head><meta charset=windows-1252><title>p\xe1gina</title></head>\n<body><p>caf\xe9 ",
        img(g[0], "e").as_bytes(),
        b"</p></body></html>\n",
    ]);
    write(root, b"p\xe1gina.html", &latin1_page);
    let sub_page = format!(
        "<html><head><title>r</title></head><body>{}\n{}<a href=\"../index.html\">up</a>\
         </body></html>\n",
        img((b"", names.from_subdir), "f"),
        img((b"", &format!("../{}", g[1].1)), "g"),
    );
    write(root, b"r\xe9p/page.html", sub_page.as_bytes());
    let sheet = format!("body {{ background: url({}) }}\n", g[4].1);
    write(root, names.sheet.0, sheet.as_bytes());
    for (i, (name, _)) in g.iter().enumerate() {
        write(root, name, &gif(i));
    }
}

fn hostile_site(root: &Path) {
    build(root, &HOSTILE);
}

/// Every file and link under `root`, as relative byte names.
fn tree(root: &Path) -> BTreeSet<Vec<u8>> {
    let mut out = BTreeSet::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(root).unwrap();
                out.insert(rel.as_os_str().as_bytes().to_vec());
            }
        }
    }
    out
}

fn with_png(name: &[u8]) -> Vec<u8> {
    let mut png = name[..name.len() - 4].to_vec();
    png.extend_from_slice(b".png");
    png
}

fn pixels(bytes: &[u8]) -> Vec<u8> {
    image::load_from_memory(bytes)
        .unwrap()
        .into_rgba8()
        .into_raw()
}

fn rewrite(site: &Path, out: &Path) -> String {
    let run = webdiet()
        .arg("rewrite")
        .arg(site)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
    assert!(run.status.success(), "rewrite failed: {stderr}");
    stderr
}

#[test]
fn every_non_utf8_name_survives_the_rewrite_under_its_byte_name() {
    let site = tempfile::tempdir().unwrap();
    hostile_site(site.path());
    let out = tempfile::tempdir().unwrap();
    let stderr = rewrite(site.path(), out.path());
    let written = out.path().join("site");

    let mut expected: BTreeSet<Vec<u8>> = [
        b"index.html".as_slice(),
        b"p\xe1gina.html",
        b"r\xe9p/page.html",
        b"styl\xe9.css",
    ]
    .iter()
    .map(|n| n.to_vec())
    .collect();
    expected.extend(GIFS.iter().map(|g| with_png(g)));
    let got = tree(&written);
    let missing: Vec<_> = expected.difference(&got).collect();
    assert!(missing.is_empty(), "missing from the output: {missing:?}");
    // Nothing else but what the markup pass may add (its style sheet).
    for extra in got.difference(&expected) {
        assert!(extra.ends_with(b".css"), "unexpected {extra:?} in {got:?}");
    }
    // Each PNG shows its own GIF: no two names were merged into one file.
    for (i, name) in GIFS.iter().enumerate() {
        let png = std::fs::read(path_of(&written, &with_png(name))).unwrap();
        assert_eq!(pixels(&png), pixels(&gif(i)), "{name:?}");
    }
    // Every reference still resolves in the rewritten site, and nothing was reported.
    let after = analyze_json(&written);
    assert_eq!(after["broken_references"], serde_json::json!([]));
    assert_eq!(after["problems"], serde_json::json!([]));
    assert!(!stderr.contains("webdiet: "), "problems reported: {stderr}");
    // The Latin-1 page's own bytes are still Latin-1.
    let page = std::fs::read(path_of(&written, b"p\xe1gina.html")).unwrap();
    assert!(page.windows(4).any(|w| w == b"caf\xe9"), "{page:?}");
    assert!(
        page.windows(14).any(|w| w == b"\"caf%E9.png\" a"),
        "{page:?}"
    );
}

#[test]
fn analyze_lists_each_non_utf8_name_once_escaped_and_resolves_percent_escapes_to_it() {
    let site = tempfile::tempdir().unwrap();
    hostile_site(site.path());
    let inv = analyze_json(site.path());

    let files = 4 + GIFS.len();
    assert_eq!(inv["pages"].as_u64().unwrap() as usize, 3);
    assert_eq!(
        (inv["pages"].as_u64().unwrap() + inv["resources"].as_u64().unwrap()) as usize,
        files,
        "every file counted once, none merged"
    );
    assert_eq!(inv["broken_references"], serde_json::json!([]));
    assert_eq!(inv["problems"], serde_json::json!([]));
    assert_eq!(inv["orphans"], serde_json::json!([]));

    let documents: BTreeSet<&str> = inv["documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["path"].as_str().unwrap())
        .collect();
    let expected: BTreeSet<&str> = [
        "index.html",
        r"p\xe1gina.html",
        r"r\xe9p/page.html",
        r"styl\xe9.css",
    ]
    .into();
    assert_eq!(documents, expected);

    let targets: BTreeMap<&str, &str> = inv["documents"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|d| d["references"].as_array().unwrap())
        .map(|r| {
            (
                r["value"].as_str().unwrap(),
                r["target"]["path"].as_str().unwrap(),
            )
        })
        .collect();
    for (value, path) in [
        ("caf%E9.gif", r"caf\xe9.gif"),
        ("caf%E8.gif", r"caf\xe8.gif"),
        ("caf%EF%BF%BD.gif", "caf\u{fffd}.gif"),
        ("r%E9p/image.gif", r"r\xe9p/image.gif"),
        ("fond%E9.gif", r"fond\xe9.gif"),
        ("styl%E9.css", r"styl\xe9.css"),
        ("p%E1gina.html", r"p\xe1gina.html"),
    ] {
        assert_eq!(targets.get(value), Some(&path), "{value}");
    }
}

#[test]
fn a_raw_latin1_byte_in_a_link_is_sent_as_utf8_so_only_a_percent_escape_reaches_a_latin1_name() {
    let site = tempfile::tempdir().unwrap();
    let root = site.path();
    // A windows-1252 page names `café.gif` twice: as a raw Latin-1 byte and percent-encoded.
    // A browser sends the first as UTF-8 (`caf%C3%A9.gif`), the second as the byte 0xE9.
    write(
        root,
        b"index.html",
        b"<meta charset=windows-1252><img src=\"caf\xe9.gif\" alt=raw>\
          <img src=\"caf%E9.gif\" alt=escaped>",
    );
    write(root, b"caf\xe9.gif", &gif(1));
    write(root, "café.gif".as_bytes(), &gif(2));
    let inv = analyze_json(root);
    let refs = &inv["documents"][0]["references"];
    assert_eq!(refs[0]["value"], "café.gif");
    assert_eq!(refs[0]["target"]["path"], "café.gif", "the UTF-8 name");
    assert_eq!(
        refs[1]["target"]["path"], r"caf\xe9.gif",
        "the Latin-1 name"
    );

    // Without the UTF-8 file, the raw reference is broken, as it is on Apache.
    std::fs::remove_file(root.join("café.gif")).unwrap();
    let inv = analyze_json(root);
    let broken = inv["broken_references"].as_array().unwrap();
    assert_eq!(broken.len(), 1, "{broken:?}");
    assert_eq!(broken[0]["reference"], "café.gif");
}

#[test]
fn problems_name_a_non_utf8_file_once_escaped() {
    let site = tempfile::tempdir().unwrap();
    write(site.path(), b"index.html", b"<p>x");
    write(site.path(), b"vac\xeda.html", b"");
    let run = webdiet().arg("analyze").arg(site.path()).output().unwrap();
    let stderr = String::from_utf8(run.stderr).expect("stderr is UTF-8");
    assert!(
        stderr.contains(r"/vac\xeda.html: the file is empty"),
        "{stderr}"
    );
    assert!(!stderr.contains('\u{fffd}'), "{stderr}");
}

#[test]
fn the_replay_server_answers_a_percent_encoded_latin1_request_with_that_file() {
    use webdiet::replay::protocol::http1;
    use webdiet::replay::server::{Control, ServeContext, Server, ServerOptions};
    use webdiet::replay::ServedSite;
    use webdiet::site::resolve::Resolver;

    let site = tempfile::tempdir().unwrap();
    hostile_site(site.path());
    let crawled = webdiet::site::crawl(site.path(), &Default::default()).unwrap();
    let (served, problems) = ServedSite::from_site(&crawled);
    assert!(problems.is_empty(), "{problems:?}");
    let resolver = Resolver::new(&served.site, None);
    let (opts, control) = (ServerOptions::default(), Control::default());
    let cx = ServeContext::new(&served, &resolver, &opts);
    std::thread::scope(|scope| {
        let server = Server::start(scope, &cx, &control, &http1::SERVER, None).unwrap();
        for (i, (target, name)) in [
            ("/caf%E9.gif", GIFS[0]),
            ("/caf%E8.gif", GIFS[1]),
            ("/caf%EF%BF%BD.gif", GIFS[2]),
            ("/r%E9p/image.gif", GIFS[3]),
        ]
        .into_iter()
        .enumerate()
        {
            let mut stream = std::net::TcpStream::connect(server.addr).unwrap();
            write!(stream, "GET {target} HTTP/1.0\r\n\r\n").unwrap();
            let mut response = Vec::new();
            stream.read_to_end(&mut response).unwrap();
            assert!(response.starts_with(b"HTTP/1.0 200"), "{target}");
            assert!(response.ends_with(&gif(i)), "{target} is {name:?}");
        }
        server.stop();
    });
}

/// Runs `webdiet replay` for a first visit and returns the rows.
fn replay(site: &Path, extra: &[&str]) -> Vec<serde_json::Value> {
    let run = webdiet()
        .arg("replay")
        .arg(site)
        .args([
            "--json",
            "--runs",
            "1",
            "--modes",
            "http10,pipelined",
            "--tests",
            "first",
        ])
        .args(extra)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "replay failed: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    serde_json::from_slice(&run.stdout).unwrap()
}

#[test]
fn the_replay_fetches_every_image_of_a_page_whose_images_have_non_utf8_names() {
    let site = tempfile::tempdir().unwrap();
    hostile_site(site.path());
    // The page, its style sheet, four images and the sheet's background image.
    let rows = replay(site.path(), &[]);
    assert_eq!(rows.len(), 2);
    for row in &rows {
        assert_eq!(row["requests"], 7, "{row}");
    }
    // A page with a Latin-1 name, named on the command line by its site path.
    let rows = replay(site.path(), &["--page", r"p\xe1gina.html"]);
    for row in &rows {
        assert_eq!(row["requests"], 2, "{row}");
    }
}

#[test]
fn chromium_shows_the_rewritten_hostile_site_exactly_as_the_same_site_with_ascii_names() {
    if !common::chromium_available() {
        return;
    }
    // The twin with ASCII names certainly shows its images; a Latin-1 name that the server,
    // the resolver or the rewrite lost would show its alt text instead.
    let twin = tempfile::tempdir().unwrap();
    build(twin.path(), &ASCII);
    let site = tempfile::tempdir().unwrap();
    hostile_site(site.path());
    let out = tempfile::tempdir().unwrap();
    rewrite(site.path(), out.path());
    let run = webdiet()
        .arg("verify")
        .arg(twin.path())
        .arg(out.path().join("site"))
        .arg("--json")
        .arg("--out")
        .arg(out.path().join("verify"))
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", String::from_utf8_lossy(&run.stderr));
    });
    let pages: Vec<(&str, u64)> = report["pages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["page"].as_str().unwrap(),
                p["differing_pixels"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        pages,
        [
            ("index.html", 0),
            (r"p\xe1gina.html", 0),
            (r"r\xe9p/page.html", 0)
        ],
        "{report}"
    );
    assert!(run.status.success(), "{report}");
}

#[test]
fn a_page_with_a_latin1_name_that_renders_differently_gets_a_diff_image_named_readably() {
    if !common::chromium_available() {
        return;
    }
    let site = tempfile::tempdir().unwrap();
    hostile_site(site.path());
    let changed = tempfile::tempdir().unwrap();
    hostile_site(changed.path());
    // The Latin-1 page's image now shows another picture.
    write(changed.path(), GIFS[0], &gif(7));
    let out = tempfile::tempdir().unwrap();
    let run = webdiet()
        .arg("verify")
        .arg(site.path())
        .arg(changed.path())
        .arg("--json")
        .arg("--out")
        .arg(out.path())
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", String::from_utf8_lossy(&run.stderr));
    });
    let page = report["pages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["page"] == r"p\xe1gina.html")
        .unwrap();
    let diff = page["diff_image"].as_str().unwrap();
    assert!(diff.ends_with(r"p\xe1gina.html.png"), "{diff}");
    assert!(Path::new(diff).is_file());
}

/// Shift_JIS and Big5 write some characters with 0x5C, the byte of `\`, as their second byte
/// (`表` is 95 5C, `ソ` 83 5C, `許` B3 5C). A browser decodes the page first, so the byte is no
/// path separator: it requests `表.gif`. The rewrite must point those references at the PNG
/// too, and ship only the PNG.
#[test]
fn a_name_whose_legacy_encoding_holds_a_backslash_byte_is_rewritten_like_any_other() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    let out = tmp.path().join("out");
    let pages: [(&str, &str, &[&str]); 2] = [
        ("sjis.html", "Shift_JIS", &["表", "ソ"]),
        ("big5.html", "Big5", &["許"]),
    ];
    let mut seed = 0;
    for (page, label, names) in pages {
        let encoding = encoding_rs::Encoding::for_label(label.as_bytes()).unwrap();
        let mut html = format!("<html><head><meta charset={label}></head><body>");
        for name in names {
            html.push_str(&format!(
                "<img src=\"{name}.gif\"><img src=\"img/{name}.gif\">"
            ));
            for dir in ["", "img/"] {
                write(&site, format!("{dir}{name}.gif").as_bytes(), &gif(seed));
                seed += 1;
            }
        }
        html.push_str("</body></html>");
        let (bytes, _, unmappable) = encoding.encode(&html);
        assert!(!unmappable);
        assert!(
            bytes.contains(&b'\\'),
            "{page}: the fixture must hold a 0x5C trail byte"
        );
        write(&site, page.as_bytes(), &bytes);
    }
    rewrite(&site, &out);
    let shipped = tree(&out.join("site"));
    for (page, label, names) in pages {
        let encoding = encoding_rs::Encoding::for_label(label.as_bytes()).unwrap();
        let bytes = std::fs::read(out.join("site").join(page)).unwrap();
        let (text, _, _) = encoding.decode(&bytes);
        for name in names {
            for dir in ["", "img/"] {
                let png = format!("{dir}{name}.png");
                let gif = format!("{dir}{name}.gif");
                assert!(
                    text.contains(&format!("\"{png}\"")),
                    "{page} names {png}: {text}"
                );
                assert!(!text.contains(&gif), "{page} still names {gif}: {text}");
                assert!(shipped.contains(png.as_bytes()), "{png} shipped");
                assert!(
                    !shipped.contains(gif.as_bytes()),
                    "{gif} not shipped beside its PNG"
                );
            }
        }
    }
}
