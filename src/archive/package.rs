//! Writing a WACZ 1.1.1 package (rawzip): the WARC stored (STORE: WACZ readers fetch records
//! by HTTP range requests into it), the CDXJ index as `indexes/index.cdx` (the name py-wacz
//! writes and `wacz validate` looks for), `pages/pages.jsonl`, `datapackage.json` with each
//! entry's SHA-256 and size, and `datapackage-digest.json` with the hash of that. The ZIP
//! comment carries [`SIGNATURE`], by which webdiet knows a WACZ it wrote and may replace.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::Path;

use rawzip::{CompressionMethod, ZipArchiveWriter};

use super::stamp::Stamp;
use super::wacz::Page;
use crate::digest;

/// The ZIP comment of every WACZ webdiet writes.
pub const SIGNATURE: &str = "written by webdiet";

/// What goes into a package.
pub struct Package<'a> {
    /// The WARC files to store, each with its name under `archive/`.
    pub warcs: &'a [(&'a Path, &'a str)],
    /// Sorted CDXJ lines.
    pub cdxj: &'a [String],
    /// The `pages.jsonl` header line (`{"format": "json-pages-1.0", …}`); one is made when none.
    pub pages_header: Option<&'a str>,
    pub pages: &'a [Page],
    pub title: &'a str,
    pub description: &'a str,
    pub created: Stamp,
    /// The first page, for `mainPageURL` and `mainPageDate`.
    pub main_page: Option<&'a Page>,
}

/// Writes the package to `out` (a new file).
pub fn write(out: &Path, p: &Package<'_>) -> io::Result<u64> {
    let file = File::create(out)?;
    let mut zip = ZipArchiveWriter::new(io::BufWriter::new(file));
    zip.set_comment(SIGNATURE);
    let mut resources = Vec::new();
    let modified = zip_time(p.created);

    for (warc, name) in p.warcs {
        let path = format!("archive/{name}");
        let mut warc = File::open(warc)?;
        let (hash, bytes) = entry(
            &mut zip,
            &path,
            CompressionMethod::STORE,
            modified,
            &mut warc,
        )?;
        resources.push((name.to_string(), path, hash, bytes));
    }

    let mut cdx = String::new();
    for line in p.cdxj {
        cdx.push_str(line);
        cdx.push('\n');
    }
    let (hash, bytes) = entry(
        &mut zip,
        "indexes/index.cdx",
        CompressionMethod::DEFLATE,
        modified,
        &mut cdx.as_bytes(),
    )?;
    resources.push(("index.cdx".into(), "indexes/index.cdx".into(), hash, bytes));

    let header = match p.pages_header {
        Some(h) => h.to_string(),
        None => serde_json::json!({
            "format": "json-pages-1.0",
            "id": "pages",
            "title": "All Pages",
        })
        .to_string(),
    };
    let mut pages = header;
    pages.push('\n');
    for page in p.pages {
        pages.push_str(&serde_json::to_string(page).map_err(io::Error::other)?);
        pages.push('\n');
    }
    let (hash, bytes) = entry(
        &mut zip,
        "pages/pages.jsonl",
        CompressionMethod::DEFLATE,
        modified,
        &mut pages.as_bytes(),
    )?;
    resources.push((
        "pages.jsonl".into(),
        "pages/pages.jsonl".into(),
        hash,
        bytes,
    ));

    let mut package = serde_json::json!({
        "profile": "data-package",
        "resources": resources
            .iter()
            .map(|(name, path, hash, bytes)| serde_json::json!({
                "name": name,
                "path": path,
                "hash": format!("sha256:{hash}"),
                "bytes": bytes,
            }))
            .collect::<Vec<_>>(),
        "wacz_version": "1.1.1",
        "software": format!("webdiet {}", env!("CARGO_PKG_VERSION")),
        "created": p.created.to_iso(),
        "title": p.title,
        "description": p.description,
    });
    if let Some(main) = p.main_page {
        package["mainPageURL"] = serde_json::json!(main.url);
        if let Some(ts) = &main.ts {
            package["mainPageDate"] = serde_json::json!(ts);
        }
    }
    let package = serde_json::to_vec_pretty(&package).map_err(io::Error::other)?;
    let (hash, _) = entry(
        &mut zip,
        "datapackage.json",
        CompressionMethod::DEFLATE,
        modified,
        &mut &package[..],
    )?;
    let digest = serde_json::to_vec_pretty(&serde_json::json!({
        "path": "datapackage.json",
        "hash": format!("sha256:{hash}"),
    }))
    .map_err(io::Error::other)?;
    entry(
        &mut zip,
        "datapackage-digest.json",
        CompressionMethod::DEFLATE,
        modified,
        &mut &digest[..],
    )?;
    let mut out_file = zip.finish().map_err(io::Error::other)?;
    out_file.flush()?;
    let file = out_file.into_inner().map_err(|e| e.into_error())?;
    file.sync_all()?;
    Ok(file.metadata()?.len())
}

/// Writes one entry; returns the SHA-256 (hex) and size of its content.
fn entry<W: Write>(
    zip: &mut ZipArchiveWriter<W>,
    path: &str,
    method: CompressionMethod,
    modified: rawzip::time::UtcDateTime,
    content: &mut dyn Read,
) -> io::Result<(String, u64)> {
    let (mut entry, config) = zip
        .new_file(path)
        .compression_method(method)
        .last_modified(modified)
        .start()
        .map_err(io::Error::other)?;
    let mut hash = digest::Running::sha256();
    let mut buf = vec![0u8; 64 << 10];
    let written = if method == CompressionMethod::DEFLATE {
        let encoder = crate::deflate::stream::RawDeflater::new(&mut entry, 6);
        let mut writer = config.wrap(encoder);
        let n = pump(content, &mut writer, &mut hash, &mut buf)?;
        let (encoder, descriptor) = writer.finish().map_err(io::Error::other)?;
        encoder.finish()?;
        entry.finish(descriptor).map_err(io::Error::other)?;
        n
    } else {
        let mut writer = config.wrap(&mut entry);
        let n = pump(content, &mut writer, &mut hash, &mut buf)?;
        let (_, descriptor) = writer.finish().map_err(io::Error::other)?;
        entry.finish(descriptor).map_err(io::Error::other)?;
        n
    };
    Ok((hash.hex(), written))
}

fn pump(
    from: &mut dyn Read,
    to: &mut dyn Write,
    hash: &mut digest::Running,
    buf: &mut [u8],
) -> io::Result<u64> {
    let mut n = 0u64;
    loop {
        let k = from.read(buf)?;
        if k == 0 {
            return Ok(n);
        }
        hash.update(&buf[..k]);
        to.write_all(&buf[..k])?;
        n += k as u64;
    }
}

fn zip_time(stamp: Stamp) -> rawzip::time::UtcDateTime {
    // ZIP's DOS dates start in 1980.
    rawzip::time::UtcDateTime::from_unix(stamp.0.max(315_532_800))
}
