//! `traversal`: archives whose captures aim at a file outside any tree webdiet writes, through
//! every spelling of "up a directory" and "from the root" that a URL, a redirect or a WACZ entry
//! can carry (docs/archives.md, "Names from archives, and the disk"). Each aims at
//! `AIM/victim.html` (and at new names beside it) both by climbing from wherever webdiet's own
//! trees are (1 to 6 levels, then 40, which reaches `/` from anywhere, and down to `AIM`) and by
//! naming `AIM` absolutely. Around them, an index page links to every one, so that the crawl,
//! the rewrite and the replay all meet the names.
//!
//! Writes `traversal.warc.gz`, `traversal.warc`, `traversal.arc` and `traversal.wacz` (whose
//! entries also climb: `..`, absolute, backslashed, with a NUL), and `slashes.warc.gz`, whose
//! only page is `a%2F%2Fb.html` (an encoded `//`, one name).

use std::path::Path;

use webdiet::archive::cdxj;
use webdiet::archive::package::{self, Package};
use webdiet::archive::stamp::Stamp;
use webdiet::archive::wacz;
use webdiet::archive::warc::Writer;

use crate::capture::made_response;
use crate::hostile::record;

pub const HOST: &str = "www.traversal.test";

/// How each spelling writes one step up (`../`) and one separator (`/`) in a URL path.
const SPELLINGS: [(&str, &str, &str); 13] = [
    ("encoded", "%2E%2E%2F", "%2F"),
    ("encoded-lower", "%2e%2e%2f", "%2f"),
    ("double-encoded", "%252E%252E%252F", "%252F"),
    ("triple-encoded", "%25252E%25252E%25252F", "%25252F"),
    ("backslash-encoded", "..%5C", "%5C"),
    ("backslash", "..\\", "\\"),
    ("overlong-2", "%C0%AE%C0%AE%C0%AF", "%C0%AF"),
    ("overlong-3", "%E0%80%AE%E0%80%AE%E0%80%AF", "%E0%80%AF"),
    ("fullwidth", "%EF%BC%8E%EF%BC%8E%EF%BC%8F", "%EF%BC%8F"),
    ("mixed-dots", ".%2E/", "/"),
    ("nul", "%2E%2E%00%2F", "%00%2F"),
    ("key-escape", "\\x2e\\x2e\\x2f", "\\x2f"),
    ("plain", "../", "/"),
];

/// Climbs: from a tree 1 to 6 directories below `AIM`'s parent, and 40 (past `/` from anywhere).
const CLIMBS: [usize; 7] = [1, 2, 3, 4, 5, 6, 40];

/// Every URL that aims at a name under `aim` (`victim.html`, or `made-N.html` beside it).
pub fn aimed_urls(aim: &Path) -> Vec<String> {
    let aim_name = aim
        .file_name()
        .map_or("aim".into(), |n| n.to_string_lossy());
    let absolute: Vec<String> = aim
        .to_string_lossy()
        .trim_start_matches('/')
        .split('/')
        .map(str::to_string)
        .collect();
    let mut urls = Vec::new();
    let mut n = 0;
    for (_, up, sep) in SPELLINGS {
        for climbs in CLIMBS {
            // Down from where the climb ends: to `aim` by its name when the climb ends at its
            // parent, else by its whole absolute path.
            let down: Vec<String> = if climbs < 40 {
                vec![aim_name.to_string()]
            } else {
                absolute.clone()
            };
            for target in ["victim.html".to_string(), format!("made-{n}.html")] {
                let path = format!("{}{}{sep}{target}", up.repeat(climbs), down.join(sep));
                urls.push(format!("http://{HOST}/{path}"));
            }
            n += 1;
        }
        // From the root, absolutely: a leading encoded separator, and a doubled slash.
        urls.push(format!(
            "http://{HOST}/{sep}{}{sep}made-{n}.html",
            absolute.join(sep)
        ));
        urls.push(format!(
            "http://{HOST}//{}/made-{}.html",
            absolute.join("/"),
            n + 1
        ));
        n += 2;
    }
    // An encoded `//`: one name, not an empty directory.
    urls.push(format!("http://{HOST}/a%2F%2Fb.html"));
    // A query that names the file, with a key escape and plain climbs in it.
    urls.push(format!(
        "http://{HOST}/q.html?x=\\x2f..\\x2f..\\x2f{}\\x2fvictim.html",
        absolute.join("\\x2f")
    ));
    urls.push(format!(
        "http://{HOST}/q.html?x=../../../../../../../../{}/victim.html",
        absolute.join("/")
    ));
    urls
}

pub fn write(out: &Path, aim: &Path) -> Result<(), String> {
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let date = Stamp::parse14("20050101000000").expect("constant date");
    let urls = aimed_urls(aim);
    let mut index =
        String::from("<!DOCTYPE html><html><head><title>Traversal</title></head><body>");
    for url in &urls {
        let href = url.trim_start_matches(&format!("http://{HOST}"));
        index.push_str(&format!(
            "<p><a href=\"{}\">a</a></p>",
            href.replace('&', "&amp;")
        ));
    }
    index.push_str("</body></html>\n");
    let html = [("Content-Type", "text/html")];
    let mut records: Vec<(String, Vec<u8>)> = vec![(
        format!("http://{HOST}/"),
        made_response("200 OK", &html, index.as_bytes()),
    )];
    for url in &urls {
        records.push((
            url.clone(),
            made_response(
                "200 OK",
                &html,
                b"<html><body><p>written by an archive</p></body></html>\n",
            ),
        ));
    }
    // Redirects whose Location climbs: a link is made for an on-site redirect.
    let absolute = aim.to_string_lossy().trim_start_matches('/').to_string();
    for (i, location) in [
        format!(
            "/%2E%2E%2F%2E%2E%2F%2E%2E%2F{}%2Fvictim.html",
            absolute.replace('/', "%2F")
        ),
        format!("/{}/victim.html", "../".repeat(40) + &absolute),
        format!("file:///{absolute}/victim.html"),
    ]
    .iter()
    .enumerate()
    {
        records.push((
            format!("http://{HOST}/moved-{i}.html"),
            made_response(
                "301 Moved Permanently",
                &[("Location", location), ("Content-Type", "text/html")],
                b"<p>Moved</p>\n",
            ),
        ));
    }

    for gzip in [true, false] {
        let mut w = Writer::new(Vec::new(), gzip);
        for (url, block) in &records {
            record(&mut w, url, block);
        }
        let name = if gzip {
            "traversal.warc.gz"
        } else {
            "traversal.warc"
        };
        put(out, name, &w.into_inner())?;
    }
    put(out, "traversal.arc", &arc(&records, date)?)?;

    // The WACZ: the WARC, and entries that climb out of the package by every spelling of a
    // ZIP name (each holding the same WARC, so that reading one would show).
    let mut w = Writer::new(Vec::new(), true);
    let lines: Vec<cdxj::Line> = records
        .iter()
        .map(|(url, block)| {
            let (offset, length) = record(&mut w, url, block);
            cdxj::Line {
                url: url.clone(),
                date,
                mime: Some("text/html".into()),
                status: Some(200),
                digest: None,
                length,
                offset,
                filename: "data.warc.gz".into(),
            }
        })
        .collect();
    let warc_bytes = w.into_inner();
    let warc_path = out.join(".traversal-data.warc.gz");
    std::fs::write(&warc_path, &warc_bytes).map_err(|e| e.to_string())?;
    let pages: Vec<wacz::Page> = std::iter::once(format!("http://{HOST}/"))
        .chain(urls.iter().take(8).cloned())
        .map(|u| wacz::Page::new(&u, date, None))
        .collect();
    let path = out.join("traversal.wacz");
    package::write(
        &path,
        &Package {
            warcs: &[(&warc_path, "data.warc.gz")],
            cdxj: &cdxj::sorted(&lines),
            pages_header: None,
            pages: &pages,
            title: "traversal",
            description: "names that aim outside",
            created: date,
            main_page: None,
        },
    )
    .map_err(|e| e.to_string())?;
    let _ = std::fs::remove_file(&warc_path);
    let climbing = [
        format!("archive/../../{absolute}/evil.warc.gz"),
        format!("/{absolute}/evil.warc.gz"),
        format!(
            "archive\\..\\..\\{}\\evil.warc.gz",
            absolute.replace('/', "\\")
        ),
        "archive/./../evil.warc.gz".to_string(),
        "archive//../evil.warc.gz".to_string(),
        "archive/evil\0.warc.gz".to_string(),
        format!("../../../../../../../../../../../../{absolute}/evil.warc.gz"),
    ];
    let extra: Vec<(&str, &[u8])> = climbing
        .iter()
        .map(|n| (n.as_str(), warc_bytes.as_slice()))
        .collect();
    crate::hostile::add_entries(&path, &extra)?;

    let mut w = Writer::new(Vec::new(), true);
    let page = b"<html><body><p>one name, two slashes</p></body></html>\n";
    record(
        &mut w,
        &format!("http://{HOST}/a%2F%2Fb.html"),
        &made_response("200 OK", &html, page),
    );
    put(out, "slashes.warc.gz", &w.into_inner())
}

fn put(out: &Path, name: &str, bytes: &[u8]) -> Result<(), String> {
    std::fs::write(out.join(name), bytes).map_err(|e| format!("{name}: {e}"))
}

/// The records as ARC v1 (`URL IP DATE MIME LENGTH`, then the HTTP response).
fn arc(records: &[(String, Vec<u8>)], date: Stamp) -> Result<Vec<u8>, String> {
    let mut w = Writer::new(Vec::new(), false);
    let desc = "1 0 make-archives\nURL IP-address Archive-date Content-type Archive-length\n";
    let err = |e: std::io::Error| e.to_string();
    w.arc(
        "filedesc://traversal.arc",
        "0.0.0.0",
        date,
        "text/plain",
        desc.as_bytes(),
    )
    .map_err(err)?;
    for (url, block) in records {
        // An ARC header line is split at spaces: a URL holding one cannot be written.
        if !url.contains(' ') {
            w.arc(url, "127.0.0.1", date, "text/html", block)
                .map_err(err)?;
        }
    }
    Ok(w.into_inner())
}
