//! References as a browser reads them (issue 41, item 4): a name written with character
//! references (`&#97;.gif`, `&#x61;`, `&period;`, `&eacute` without its `;`), percent-encoded
//! (`a%2Egif`), or followed by a query or fragment (`a.gif?v=1`, `q?.gif`), is the name the
//! browser asks for, and `webdiet rewrite` renames it so that the rewritten page, parsed by
//! html5ever, asks for the new file with the same query and fragment. Every other byte of
//! the page stays.
//!
//! The oracle here is independent of webdiet's own reading: html5ever decodes the attribute,
//! the `url` crate resolves it, and the file is the one a static server finds for the URL's
//! percent-decoded path, or, for a file named with its query (`r?.gif`, as a web archive's
//! capture of `/r?.gif` is stored, and as webdiet's server serves it), `path?query`.

use crate::common;

use std::path::{Path, PathBuf};

use markup5ever_rcdom::{Handle, NodeData, RcDom};
use url::Url;

/// `(as written in the original, as the rewrite must write it)`, one `<img src>` each.
const UTF8_REFERENCES: &[(&str, &str)] = &[
    ("&#97;.gif", "&#97;.png"),
    ("&#x61;.gif", "&#x61;.png"),
    ("&#X61;.gif", "&#X61;.png"),
    ("&#97.gif", "&#97.png"),
    ("a&period;gif", "a.png"),
    ("a&#46;gif", "a.png"),
    ("a.gi&#102;?v=1", "a.png?v=1"),
    ("a%2Egif", "a.png"),
    ("a.gif?v=1", "a.png?v=1"),
    ("a.gif#x", "a.png#x"),
    ("a.gif?v=1&amp;w=.gif#x.gif", "a.png?v=1&amp;w=.gif#x.gif"),
    ("caf&eacute;.gif", "caf&eacute;.png"),
    ("caf&eacute.gif", "caf&eacute.png"),
    // The browser asks for `/q` with the query `.gif`: the GIF named `q` is the resource,
    // and it becomes `q.png` (a name without extension gets the new one appended).
    ("q?.gif", "q.png?.gif"),
    ("q&#63;.gif", "q.png&#63;.gif"),
    // A file named with its query, as an archive's capture of `/r?.gif` is stored: the
    // query is its name, and that is what is renamed.
    ("r?.gif", "r?.png"),
    // A PNG with `.gif` in its query is no GIF.
    ("x.png?.gif", "x.png?.gif"),
];

/// The same in a windows-1252 page: `é` is the byte E9 there, a browser still asks for the
/// UTF-8 name `caf%C3%A9.gif`.
const LATIN1_REFERENCES: &[(&[u8], &[u8])] = &[
    (b"caf\xe9.gif", b"caf\xe9.png"),
    (b"caf&eacute;.gif", b"caf&eacute;.png"),
    (b"caf&#233;.gif?v=\xe9", b"caf&#233;.png?v=\xe9"),
];

fn page(head: &[u8], srcs: impl Iterator<Item = Vec<u8>>) -> Vec<u8> {
    let mut out = b"<!DOCTYPE html>\n<html><head>".to_vec();
    out.extend_from_slice(head);
    out.extend_from_slice(b"<title>refs</title></head><body>\n");
    for src in srcs {
        out.extend_from_slice(b"<p><img alt=\"&#97;.gif?\" src=\"");
        out.extend_from_slice(&src);
        out.extend_from_slice(b"\"> a.gif &#97;.gif</p>\n");
    }
    out.extend_from_slice(b"</body></html>\n");
    out
}

/// The UTF-8 page, as written or as the rewrite must write it.
fn utf8_page(rewritten: bool) -> Vec<u8> {
    page(
        b"<meta charset=\"utf-8\">",
        UTF8_REFERENCES
            .iter()
            .map(|&(old, new)| if rewritten { new } else { old }.as_bytes().to_vec()),
    )
}

/// The windows-1252 page, as written or as the rewrite must write it.
fn latin1_page(rewritten: bool) -> Vec<u8> {
    page(
        b"<meta charset=\"windows-1252\">",
        LATIN1_REFERENCES
            .iter()
            .map(|&(old, new)| if rewritten { new } else { old }.to_vec()),
    )
}

/// Every `<img src>` of a page, as html5ever reads it from the page decoded in `encoding`.
fn image_urls(bytes: &[u8], encoding: &'static encoding_rs::Encoding) -> Vec<String> {
    fn walk(node: &Handle, out: &mut Vec<String>) {
        if let NodeData::Element { name, attrs, .. } = &node.data {
            if &*name.local == "img" {
                let attrs = attrs.borrow();
                if let Some(src) = attrs.iter().find(|a| &*a.name.local == "src") {
                    out.push(src.value.to_string());
                }
            }
        }
        for child in node.children.borrow().iter() {
            walk(child, out);
        }
    }
    use html5ever::tendril::TendrilSink;
    let text = encoding.decode_without_bom_handling(bytes).0;
    let dom = html5ever::parse_document(RcDom::default(), Default::default()).one(&*text);
    let mut out = Vec::new();
    walk(&dom.document, &mut out);
    out
}

/// The file a server serves for `src` on the page `page` of the site at `root`: the URL's
/// path percent-decoded to a name, or that name with `?` and the query when the site keeps
/// such a file. `None` when there is none.
fn served_file(root: &Path, page: &str, src: &str) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStringExt;
    let base = Url::parse("http://site.invalid/")
        .unwrap()
        .join(page)
        .unwrap();
    let url = base.join(src).unwrap();
    let path: Vec<u8> = percent_encoding::percent_decode_str(&url.path()[1..]).collect();
    let plain = root.join(std::ffi::OsString::from_vec(path.clone()));
    if let Some(query) = url.query() {
        let mut named = path;
        named.push(b'?');
        named.extend_from_slice(query.as_bytes());
        let named = root.join(std::ffi::OsString::from_vec(named));
        if named.is_file() {
            return Some(named);
        }
    }
    plain.is_file().then_some(plain)
}

#[test]
fn names_written_with_references_queries_and_fragments_are_renamed_as_a_browser_reads_them() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("site");
    let cafe = "caf\u{e9}.gif";
    common::write_site(
        &input,
        &[
            ("a.gif", &common::seeded_gif(1)),
            ("q", &common::seeded_gif(2)),
            ("r?.gif", &common::seeded_gif(3)),
            (cafe, &common::seeded_gif(4)),
            ("x.png", &common::modern::plain_png(5, 255)),
            ("refs.html", &utf8_page(false)),
            ("latin.html", &latin1_page(false)),
        ],
    );
    let pages = [
        ("refs.html", encoding_rs::UTF_8),
        ("latin.html", encoding_rs::WINDOWS_1252),
    ];
    // The test's own site is right: every image of the original is a GIF it has (or the PNG).
    for (name, encoding) in pages {
        let bytes = std::fs::read(input.join(name)).unwrap();
        for src in image_urls(&bytes, encoding) {
            let file = served_file(&input, name, &src)
                .unwrap_or_else(|| panic!("{name}: the original's {src} names no file"));
            let magic = std::fs::read(&file).unwrap();
            assert!(
                magic.starts_with(b"GIF8") || src.starts_with("x.png"),
                "{src}"
            );
        }
    }

    let out = tmp.path().join("out");
    common::webdiet()
        .arg("rewrite")
        .arg(&input)
        .arg("--out")
        .arg(&out)
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "references broken by the rewrite: none",
        ));
    let site = out.join("site");

    // Only the bytes that spell the name's tail changed.
    let written = |p: &str| std::fs::read(site.join(p)).unwrap();
    assert_eq!(
        String::from_utf8(written("refs.html")).unwrap(),
        String::from_utf8(utf8_page(true)).unwrap()
    );
    assert_eq!(written("latin.html"), latin1_page(true));

    // Every image of the rewritten pages, read by html5ever, is a converted file of the tree.
    for (name, encoding) in pages {
        for src in image_urls(&written(name), encoding) {
            let file = served_file(&site, name, &src)
                .unwrap_or_else(|| panic!("{name}: the rewritten page's {src} names no file"));
            let bytes = std::fs::read(&file).unwrap();
            assert!(
                bytes.starts_with(b"\x89PNG\r\n\x1a\n"),
                "{name}: {src} is served {} , not a PNG",
                file.display()
            );
        }
    }
    // Nothing names a GIF any more, so none is shipped; the PNG with `.gif` in its query
    // kept its name.
    let mut files: Vec<String> = std::fs::read_dir(&site)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "a.png",
            "caf\u{e9}.png",
            "latin.html",
            "q.png",
            "r?.png",
            "refs.html",
            "x.png"
        ]
    );
}
