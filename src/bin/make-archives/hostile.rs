//! `hostile`: archives damaged the ways real ones are, each holding good records around the
//! damage (`http://www.hostile.test/good-N.html`), so that a reader can show it lost nothing
//! but the damaged record: a gzip member cut short, lengths that lie both ways, a header block
//! larger than any reader should buffer, an HTTP head as large, a whole-file gzip, a plain WARC
//! named `.gz`, a WACZ whose entry names climb out of it (`..`, absolute), one whose
//! datapackage.json hashes do not match, three whose datapackage.json costs (2,000,000
//! resources, named or alike; one entry listed 200 times), a body encoded twice that decodes
//! to 256 MiB (a decompression bomb), and bodies that together pass a small archive's disk
//! budget.

use std::path::Path;

use rawzip::{CompressionMethod, ZipArchiveWriter};
use webdiet::archive::cdxj;
use webdiet::archive::package::{self, Package};
use webdiet::archive::stamp::Stamp;
use webdiet::archive::warc::{Record, Writer};

use crate::capture::made_response;

fn good(n: usize) -> (String, Vec<u8>) {
    let body = format!("<html><body><p>good page {n}</p></body></html>\n");
    (
        format!("http://www.hostile.test/good-{n}.html"),
        made_response("200 OK", &[("Content-Type", "text/html")], body.as_bytes()),
    )
}

/// Writes one response record dated 2005-01-01; where it landed (offset, length).
pub fn record(w: &mut Writer<Vec<u8>>, url: &str, block: &[u8]) -> (u64, u64) {
    let at = block
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|p| p + 4);
    let written = w
        .warc(&Record {
            rtype: "response",
            uri: Some(url),
            date: Stamp::parse14("20050101000000").expect("constant date"),
            content_type: Some("application/http; msgtype=response"),
            fields: Vec::new(),
            block,
            payload_at: at,
        })
        .expect("writing to memory");
    (written.offset, written.length)
}

/// Records good-0 … good-(n-1), each its own gzip member or not.
fn goods(n: usize, gzip: bool) -> (Vec<u8>, Vec<(u64, u64)>) {
    let mut w = Writer::new(Vec::new(), gzip);
    let places = (0..n)
        .map(|i| {
            let (url, block) = good(i);
            record(&mut w, &url, &block)
        })
        .collect();
    (w.into_inner(), places)
}

pub fn write(out: &Path) -> Result<(), String> {
    let dir = out.join("hostile");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let put = |name: &str, bytes: &[u8]| {
        std::fs::write(dir.join(name), bytes).map_err(|e| format!("{name}: {e}"))
    };

    // A member cut in half, between two good ones.
    let (bytes, places) = goods(3, true);
    let (mid_at, mid_len) = places[1];
    let mut cut = bytes[..(mid_at + mid_len / 2) as usize].to_vec();
    cut.extend_from_slice(&bytes[(mid_at + mid_len) as usize..]);
    put("truncated.warc.gz", &cut)?;

    // Lengths that lie: good-0 says it is shorter than it is, good-2 that it runs past the end.
    let (bytes, _) = goods(3, false);
    let text = String::from_utf8(bytes).map_err(|e| e.to_string())?;
    let block_len = good(0).1.len();
    let lied = text.replacen(
        &format!("Content-Length: {block_len}\r\n\r\nHTTP"),
        "Content-Length: 20\r\n\r\nHTTP",
        1,
    );
    let last = lied
        .rfind(&format!("Content-Length: {block_len}\r\n\r\nHTTP"))
        .ok_or("no third record")?;
    let lied = format!(
        "{}Content-Length: 999999999{}",
        &lied[..last],
        &lied[last + format!("Content-Length: {block_len}").len()..]
    );
    put("lying.warc", lied.as_bytes())?;

    // A WARC header block of 1 MiB before a good record.
    let mut huge =
        b"WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: http://www.hostile.test/huge\r\n"
            .to_vec();
    while huge.len() < 1 << 20 {
        huge.extend_from_slice(format!("X-Filler: {}\r\n", "x".repeat(1000)).as_bytes());
    }
    huge.extend_from_slice(b"Content-Length: 0\r\n\r\n\r\n\r\n");
    huge.extend_from_slice(&goods(1, false).0);
    put("huge-header.warc", &huge)?;

    // An HTTP head of 1 MiB inside a record, then a good record.
    let mut head = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n".to_vec();
    while head.len() < 1 << 20 {
        head.extend_from_slice(format!("X-Filler: {}\r\n", "y".repeat(1000)).as_bytes());
    }
    head.extend_from_slice(b"\r\n<p>x</p>");
    let mut w = Writer::new(Vec::new(), true);
    record(&mut w, "http://www.hostile.test/huge-http.html", &head);
    let (url, block) = good(0);
    record(&mut w, &url, &block);
    put("huge-http-head.warc.gz", &w.into_inner())?;

    // The whole file gzipped at once.
    let (plain, _) = goods(2, false);
    put("whole.warc.gz", &webdiet::deflate::gzip(&plain, 6))?;
    // Plain records named .gz.
    put("notgzip.warc.gz", &plain)?;

    // A WACZ with a good WARC, plus entries named to climb out of the package.
    let (warc_bytes, places) = goods(2, true);
    let warc_path = dir.join(".data.warc.gz");
    std::fs::write(&warc_path, &warc_bytes).map_err(|e| e.to_string())?;
    let lines: Vec<cdxj::Line> = places
        .iter()
        .enumerate()
        .map(|(i, (offset, length))| cdxj::Line {
            url: good(i).0,
            date: Stamp::parse14("20050101000000").expect("constant date"),
            mime: Some("text/html".into()),
            status: Some(200),
            digest: None,
            length: *length,
            offset: *offset,
            filename: "data.warc.gz".into(),
        })
        .collect();
    let cdx = cdxj::sorted(&lines);
    let slip = dir.join("slip.wacz");
    package::write(
        &slip,
        &Package {
            warcs: &[(&warc_path, "data.warc.gz")],
            cdxj: &cdx,
            pages_header: None,
            pages: &[],
            title: "slip",
            description: "entries named to climb out",
            created: Stamp::parse14("20050101000000").expect("constant date"),
            main_page: None,
        },
    )
    .map_err(|e| e.to_string())?;
    add_entries(
        &slip,
        &[
            ("archive/../../evil.warc.gz", &warc_bytes),
            ("/etc/evil.warc.gz", &warc_bytes),
        ],
    )?;

    // A WACZ whose datapackage.json hash of its WARC is wrong: the WARC has one byte changed
    // after the package was hashed (in a header field's value, so it still reads).
    let bad = dir.join("badhash.wacz");
    package::write(
        &bad,
        &Package {
            warcs: &[(&warc_path, "data.warc.gz")],
            cdxj: &cdx,
            pages_header: None,
            pages: &[],
            title: "badhash",
            description: "a hash that does not match",
            created: Stamp::parse14("20050101000000").expect("constant date"),
            main_page: None,
        },
    )
    .map_err(|e| e.to_string())?;
    let mut bytes = std::fs::read(&bad).map_err(|e| e.to_string())?;
    // The stored WARC is the first entry; its first gzip member's mtime field (bytes 4..8 of
    // the member) can change without harm to the records.
    let at = bytes
        .windows(3)
        .position(|w| w == [0x1f, 0x8b, 0x08])
        .ok_or("no gzip member in the package")?;
    bytes[at + 4] ^= 0xff;
    std::fs::write(&bad, bytes).map_err(|e| e.to_string())?;

    // Packages whose datapackage.json costs: 2,000,000 resources the package does not hold,
    // each named (65 MB of JSON in 5 MB of package), or all alike (a few hundred KB: past the
    // package's budget); and one that lists its WARC 200 times.
    let (warc_hash, _) = webdiet::digest::sha256_hex(&warc_bytes[..]).map_err(|e| e.to_string())?;
    for (name, resources) in [
        (
            "bigpackage.wacz",
            (0..2_000_000)
                .map(|i| format!(r#"{{"path":"archive/x{i}.warc.gz","hash":"sha256:0"}}"#))
                .collect::<Vec<_>>(),
        ),
        (
            "bombpackage.wacz",
            vec![r#"{"path":"archive/x.warc.gz","hash":"sha256:0"}"#.to_string(); 2_000_000],
        ),
        (
            "listed200.wacz",
            (0..200)
                .map(|_| {
                    format!(r#"{{"path":"archive/data.warc.gz","hash":"sha256:{warc_hash}"}}"#)
                })
                .collect(),
        ),
    ] {
        let path = dir.join(name);
        package::write(
            &path,
            &Package {
                warcs: &[(&warc_path, "data.warc.gz")],
                cdxj: &cdx,
                pages_header: None,
                pages: &[],
                title: name,
                description: "a datapackage.json that costs",
                created: Stamp::parse14("20050101000000").expect("constant date"),
                main_page: None,
            },
        )
        .map_err(|e| e.to_string())?;
        let json = format!(
            r#"{{"profile":"data-package","resources":[{}]}}"#,
            resources.join(",")
        );
        rewrite_zip(
            &path,
            &["datapackage.json"],
            &[(
                "datapackage.json",
                json.as_bytes(),
                CompressionMethod::DEFLATE,
            )],
        )?;
    }
    let _ = std::fs::remove_file(&warc_path);

    // A body encoded twice (`Content-Encoding: gzip, gzip`) that decodes to 256 MiB from a
    // few hundred bytes, between two good records.
    let zeros = vec![0u8; 256 << 20];
    let bomb = webdiet::deflate::gzip(&webdiet::deflate::gzip(&zeros, 9), 9);
    drop(zeros);
    let mut w = Writer::new(Vec::new(), true);
    let (url, block) = good(0);
    record(&mut w, &url, &block);
    record(
        &mut w,
        "http://www.hostile.test/bomb.html",
        &made_response(
            "200 OK",
            &[
                ("Content-Type", "text/html"),
                ("Content-Encoding", "gzip, gzip"),
            ],
            &bomb,
        ),
    );
    let (url, block) = good(1);
    record(&mut w, &url, &block);
    put("bomb.warc.gz", &w.into_inner())?;

    // Eight bodies of 12 MiB of zeros, each gzipped once (a ratio one layer of deflate can
    // give; records not gzipped again, which would compress those repetitive bytes once more),
    // 96 MiB from about 100 KB: past the default disk budget of so small an archive.
    let zeros = webdiet::deflate::gzip(&vec![0u8; 12 << 20], 9);
    let mut w = Writer::new(Vec::new(), false);
    let (url, block) = good(0);
    record(&mut w, &url, &block);
    for i in 0..8 {
        record(
            &mut w,
            &format!("http://www.hostile.test/zeros-{i}.txt"),
            &made_response(
                "200 OK",
                &[("Content-Type", "text/plain"), ("Content-Encoding", "gzip")],
                &zeros,
            ),
        );
    }
    let (url, block) = good(1);
    record(&mut w, &url, &block);
    put("expanding.warc", &w.into_inner())?;
    Ok(())
}

/// Rewrites a ZIP with extra STORE entries appended (names as given, unchecked).
pub fn add_entries(path: &Path, extra: &[(&str, &[u8])]) -> Result<(), String> {
    let extra: Vec<_> = extra
        .iter()
        .map(|&(n, d)| (n, d, CompressionMethod::STORE))
        .collect();
    rewrite_zip(path, &[], &extra)
}

/// Rewrites a ZIP without the entries named in `drop` and with `extra` appended (names as
/// given, unchecked; DEFLATE entries compressed here).
fn rewrite_zip(
    path: &Path,
    drop: &[&str],
    extra: &[(&str, &[u8], CompressionMethod)],
) -> Result<(), String> {
    let original = std::fs::read(path).map_err(|e| e.to_string())?;
    let archive = rawzip::ZipArchive::from_slice(&original).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    {
        let mut zip = ZipArchiveWriter::new(&mut out);
        zip.set_comment(package::SIGNATURE);
        let mut entries = archive.entries();
        while let Some(e) = entries.next_entry().map_err(|e| e.to_string())? {
            let name = String::from_utf8_lossy(e.file_path().as_ref()).into_owned();
            if drop.contains(&name.as_str()) {
                continue;
            }
            let entry = archive
                .get_entry(e.wayfinder())
                .map_err(|e| e.to_string())?;
            let method = e.compression_method();
            let (mut w, config) = zip
                .new_file(&name)
                .compression_method(method)
                .crc32(rawzip::Crc32Option::Custom(e.crc32()))
                .start()
                .map_err(|e| e.to_string())?;
            let data = entry.data();
            let mut writer = config.wrap(&mut w);
            std::io::Write::write_all(&mut writer, data).map_err(|e| e.to_string())?;
            writer.finish().map_err(|e| e.to_string())?;
            // The bytes copied were compressed; the descriptor names the entry's own sizes.
            let desc = rawzip::DataDescriptorOutput::new(e.crc32(), e.uncompressed_size_hint());
            w.finish(desc).map_err(|e| e.to_string())?;
        }
        for &(name, data, method) in extra {
            // Verbatim: the writer would otherwise normalise the name into a safe one.
            let (mut w, config) = zip
                .new_file(rawzip::path::EntryPath::verbatim(name.as_bytes()))
                .compression_method(method)
                .start()
                .map_err(|e| format!("{name}: {e}"))?;
            let desc = if method == CompressionMethod::DEFLATE {
                let encoder = webdiet::deflate::stream::RawDeflater::new(&mut w, 6);
                let mut writer = config.wrap(encoder);
                std::io::Write::write_all(&mut writer, data).map_err(|e| e.to_string())?;
                let (encoder, desc) = writer.finish().map_err(|e| e.to_string())?;
                encoder.finish().map_err(|e| e.to_string())?;
                desc
            } else {
                let mut writer = config.wrap(&mut w);
                std::io::Write::write_all(&mut writer, data).map_err(|e| e.to_string())?;
                writer.finish().map_err(|e| e.to_string())?.1
            };
            w.finish(desc).map_err(|e| e.to_string())?;
        }
        zip.finish().map_err(|e| e.to_string())?;
    }
    std::fs::write(path, out).map_err(|e| e.to_string())
}
