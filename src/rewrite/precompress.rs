//! `--precompress`: pre-compressed files next to the rewritten text files, for servers that
//! send one when the client accepts its coding: `.gz` (gzip level 9; nginx `gzip_static`,
//! Apache MultiViews), `.br` (brotli 11; nginx `brotli_static`) and `.zst` (zstd 19; nginx
//! `zstd_static`, Caddy `precompressed`). Each is written only where the "worth compressing"
//! rule holds for it, so no server ever sends a pre-compressed file that saves less than a
//! packet. Every file written is decoded again and compared with its source first.

use std::collections::BTreeSet;

use rayon::prelude::*;

use super::output::Staging;
use crate::compression::Coding;
use crate::deflate::{self, WorthRule};
use crate::error::Problem;
use crate::site::{FileKind, Site};

/// One kind of pre-compressed file.
#[derive(Clone, Copy)]
enum Sidecar {
    Gzip,
    Other(Coding),
}

const SIDECARS: [Sidecar; 3] = [
    Sidecar::Gzip,
    Sidecar::Other(Coding::Brotli),
    Sidecar::Other(Coding::Zstd),
];

impl Sidecar {
    fn extension(self) -> &'static str {
        match self {
            Sidecar::Gzip => "gz",
            Sidecar::Other(coding) => coding.extension(),
        }
    }

    /// The file's bytes, when worth writing and decoded back to `data`.
    fn make(self, data: &[u8], rule: &WorthRule) -> Option<Vec<u8>> {
        let limit = data.len() as u64;
        let (body, decoded) = match self {
            Sidecar::Gzip => {
                let gz = deflate::gz_sidecar(data, rule)?;
                let decoded = deflate::inflate_gzip(&gz, limit);
                (gz, decoded)
            }
            Sidecar::Other(coding) => {
                let body = coding.best(data);
                if !rule.worth(limit, body.len() as u64) {
                    return None;
                }
                let decoded = coding.decode(&body, limit);
                (body, decoded)
            }
        };
        decoded.is_ok_and(|d| d == data).then_some(body)
    }
}

/// Writes `PATH.gz`, `PATH.br` and `PATH.zst` for each text file of the staged tree where
/// each is worth it; returns the site paths of the files written, sorted.
pub(super) fn precompress(
    site: &Site,
    staging: &Staging,
    rule: &WorthRule,
    problems: &mut Vec<Problem>,
) -> Vec<String> {
    let existing: BTreeSet<String> = site.files.iter().map(|f| f.path.to_lowercase()).collect();
    let results: Vec<(Vec<String>, Vec<Problem>)> = site
        .files
        .par_iter()
        .filter(|f| matches!(f.kind, FileKind::Html | FileKind::Css | FileKind::Js))
        .map(|f| {
            let (mut written, mut found) = (Vec::new(), Vec::new());
            let Ok(staged) = staging.path(&f.path) else {
                return (written, found);
            };
            let Ok(bytes) = std::fs::read(&staged) else {
                // Not in the output (e.g. a file the rewrite dropped): nothing to compress.
                return (written, found);
            };
            for sidecar in SIDECARS {
                let path = format!("{}.{}", f.path, sidecar.extension());
                if existing.contains(&path.to_lowercase()) {
                    found.push(Problem::new(
                        &f.path,
                        "precompress-clash",
                        format!("{path} already exists in the site; not replaced"),
                    ));
                    continue;
                }
                let Some(body) = sidecar.make(&bytes, rule) else {
                    continue;
                };
                match staging.write(&path, &body) {
                    Ok(()) => written.push(path),
                    Err(e) => found.push(Problem::new(&path, "unwritable", e.to_string())),
                }
            }
            (written, found)
        })
        .collect();
    let mut written = Vec::new();
    for (paths, found) in results {
        written.extend(paths);
        problems.extend(found);
    }
    written.sort();
    written
}
