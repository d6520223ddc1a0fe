//! What the simulated browser reads of a site: the pages and sheets it parses, every file's
//! size as the server sends it, an image's pixels. A served site answers from memory; the
//! rewrite's CSS choice asks the same of a candidate page and its sheet laid over the staged
//! tree ([`Overlay`]), without serving anything.

use std::borrow::Cow;
use std::collections::BTreeMap;

use super::exchange::Speaks;
use crate::site::{FileKind, Site};

/// The files a simulated load reads.
pub trait Files: Sync {
    /// The site's file list, to resolve references against.
    fn site(&self) -> &Site;
    /// A file's bytes (a page or a sheet: what the browser parses).
    fn bytes(&self, path: &str) -> Option<Cow<'_, [u8]>>;
    /// A file's body as the server sends it to a browser speaking `speaks`, and whether it is
    /// coded (text gzipped, or brotli'd for `h2-br`); `None` for a file the site lacks.
    fn sent(&self, path: &str, speaks: Speaks) -> Option<(u64, bool)>;
    /// Width × height of an image (0 when not an image, or its size is unknown).
    fn pixels(&self, path: &str) -> u64;
}

/// Files laid over a site: a page with other bytes, a new sheet; everything else the base's.
/// Text laid over is sent gzipped at the server's level when that is smaller, as the server
/// would ([`crate::deflate::SERVER_LEVEL`]).
pub struct Overlay<'a> {
    base: &'a dyn Files,
    site: Site,
    files: BTreeMap<&'a str, (&'a [u8], u64)>,
}

impl<'a> Overlay<'a> {
    /// `base` with `files` (site path, bytes) in place of its own, or added.
    pub fn new(base: &'a dyn Files, files: &[(&'a str, &'a [u8])]) -> Self {
        let mut list = base.site().files.clone();
        for (path, bytes) in files {
            match list.iter_mut().find(|f| f.path == *path) {
                Some(f) => f.bytes = bytes.len() as u64,
                None => list.push(crate::site::SiteFile {
                    path: path.to_string(),
                    kind: FileKind::of_name(path),
                    bytes: bytes.len() as u64,
                }),
            }
        }
        Overlay {
            site: base.site().with_files(list),
            base,
            files: files
                .iter()
                .map(|&(path, bytes)| {
                    let gz = crate::deflate::gzip(bytes, crate::deflate::SERVER_LEVEL).len();
                    (path, (bytes, gz as u64))
                })
                .collect(),
        }
    }
}

impl Files for Overlay<'_> {
    fn site(&self) -> &Site {
        &self.site
    }

    fn bytes(&self, path: &str) -> Option<Cow<'_, [u8]>> {
        match self.files.get(path) {
            Some((bytes, _)) => Some(Cow::Borrowed(*bytes)),
            None => self.base.bytes(path),
        }
    }

    fn sent(&self, path: &str, speaks: Speaks) -> Option<(u64, bool)> {
        match self.files.get(path) {
            Some(&(bytes, gz)) if gz < bytes.len() as u64 => Some((gz, true)),
            Some((bytes, _)) => Some((bytes.len() as u64, false)),
            None => self.base.sent(path, speaks),
        }
    }

    fn pixels(&self, path: &str) -> u64 {
        self.base.pixels(path)
    }
}

/// What [`Files::sent`] says of one file.
type Sent = Option<(u64, bool)>;

/// A crawled tree on disk (the rewrite's staged tree), read as the simulated browser needs it:
/// pages and sheets when parsed, a text file's gzipped size once, an image's header once.
pub struct OnDisk<'a> {
    site: &'a Site,
    sent: std::sync::Mutex<std::collections::HashMap<(String, Speaks), Sent>>,
    pixels: std::sync::Mutex<std::collections::HashMap<String, u64>>,
}

impl<'a> OnDisk<'a> {
    pub fn new(site: &'a Site) -> Self {
        OnDisk {
            site,
            sent: Default::default(),
            pixels: Default::default(),
        }
    }
}

impl Files for OnDisk<'_> {
    fn site(&self) -> &Site {
        self.site
    }

    fn bytes(&self, path: &str) -> Option<Cow<'_, [u8]>> {
        self.site.file(path)?;
        self.site.read(path).ok().map(Cow::Owned)
    }

    fn sent(&self, path: &str, speaks: Speaks) -> Option<(u64, bool)> {
        let key = (path.to_string(), speaks);
        if let Some(known) = self.sent.lock().ok().and_then(|m| m.get(&key).copied()) {
            return known;
        }
        let file = self.site.file(path)?;
        let text = crate::site::is_text(crate::site::media_type(path));
        let sent = match text {
            false => Some((file.bytes, false)),
            true => self.site.read(path).ok().map(|body| {
                let coded = match speaks {
                    Speaks::H2Brotli => crate::compression::Coding::Brotli.fast(&body).len(),
                    _ => crate::deflate::gzip(&body, crate::deflate::SERVER_LEVEL).len(),
                } as u64;
                match coded < body.len() as u64 {
                    true => (coded, true),
                    false => (body.len() as u64, false),
                }
            }),
        };
        if let Ok(mut m) = self.sent.lock() {
            m.insert(key, sent);
        }
        sent
    }

    fn pixels(&self, path: &str) -> u64 {
        if let Some(known) = self.pixels.lock().ok().and_then(|m| m.get(path).copied()) {
            return known;
        }
        let pixels = match self.site.file(path) {
            Some(f)
                if matches!(
                    f.kind,
                    FileKind::Gif | FileKind::Png | FileKind::Jpeg | FileKind::Webp
                ) =>
            {
                self.site
                    .read(path)
                    .ok()
                    .and_then(|b| crate::image::dimensions(&b))
                    .map_or(0, |(w, h)| u64::from(w) * u64::from(h))
            }
            _ => 0,
        };
        if let Ok(mut m) = self.pixels.lock() {
            m.insert(path.to_string(), pixels);
        }
        pixels
    }
}
