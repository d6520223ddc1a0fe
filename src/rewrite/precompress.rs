//! `--precompress`: `.gz` files next to the rewritten text files, for servers that send a
//! pre-compressed file when the client accepts gzip (nginx `gzip_static`, Apache MultiViews).
//! Written only where the "worth compressing" rule holds, so no server ever sends a `.gz` that
//! saves less than a packet.

use std::collections::BTreeSet;

use rayon::prelude::*;

use super::output::Staging;
use crate::deflate::{self, WorthRule};
use crate::error::Problem;
use crate::site::{FileKind, Site};

/// Writes `PATH.gz` for each text file of the staged tree that is worth compressing; returns
/// the site paths of the `.gz` files written, sorted.
pub(super) fn precompress(
    site: &Site,
    staging: &Staging,
    rule: &WorthRule,
    problems: &mut Vec<Problem>,
) -> Vec<String> {
    let existing: BTreeSet<String> = site.files.iter().map(|f| f.path.to_lowercase()).collect();
    let results: Vec<(Option<String>, Option<Problem>)> = site
        .files
        .par_iter()
        .filter(|f| matches!(f.kind, FileKind::Html | FileKind::Css | FileKind::Js))
        .map(|f| {
            let gz_path = format!("{}.gz", f.path);
            if existing.contains(&gz_path.to_lowercase()) {
                return (
                    None,
                    Some(Problem::new(
                        &f.path,
                        "precompress-clash",
                        format!("{gz_path} already exists in the site; not replaced"),
                    )),
                );
            }
            let staged = staging.path(&f.path);
            let bytes = match std::fs::read(&staged) {
                Ok(bytes) => bytes,
                // Not in the output (e.g. a file the rewrite dropped): nothing to compress.
                Err(_) => return (None, None),
            };
            match deflate::gz_sidecar(&bytes, rule) {
                Some(gz) => match staging.write(&gz_path, &gz) {
                    Ok(()) => (Some(gz_path), None),
                    Err(e) => (
                        None,
                        Some(Problem::new(&gz_path, "unwritable", e.to_string())),
                    ),
                },
                None => (None, None),
            }
        })
        .collect();
    let mut written = Vec::new();
    for (path, problem) in results {
        written.extend(path);
        problems.extend(problem);
    }
    written.sort();
    written
}
