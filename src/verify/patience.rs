//! How long the render check waits for a page, and what it says when a page runs out of time.
//!
//! A render is a series of DevTools calls (open a tab, navigate, let virtual time run, wait for
//! fonts and two frames, measure, capture); each must be answered before the page's deadline.
//! One deadline for every page made a large page fail on a busy machine: a 5.8 MB page failed
//! `verify` under load with "Runtime.evaluate: no answer within 30 s", as a difference, and
//! passed minutes later (issue 41). Two things changed:
//!
//! - **Patience scales with the page** ([`Patience::for_bytes`]): `floor + per_mib × MiB`, where
//!   MiB is what the page weighs ([`weight`]): its own bytes and those of the site's files its
//!   references make the browser fetch, the larger of the original and the rewritten page.
//!   The floor is the one deadline of before (30 s); a small page gets no more than it did.
//! - **A page that runs out of time is not checked, not different** ([`NotChecked`]): it is
//!   listed apart, with the patience it had, and fails nothing; the check's verdict says how
//!   many pages it could not check. Only a difference, a missing page or a page that could not
//!   be rendered for another reason fails the run.

use std::time::Duration;

use serde::Serialize;

use crate::inventory::{self, AnalyzeOptions};
use crate::site::resolve::{Resolver, Target};
use crate::site::Site;

/// How long the render check waits for one render of a page (see the module's notes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Patience {
    /// What every page gets, however small. Default: 30 s (the render check's one deadline
    /// before patience scaled).
    pub floor: Duration,
    /// What each MiB (1,048,576 bytes) of the page and of what it loads adds. Default: 15 s
    /// (a render took about 1 s a MB more at load 3 on 2 cores, 3.5 times that at load 10:
    /// docs/markup.md, "A render check that does not cry wolf").
    pub per_mib: Duration,
}

impl Default for Patience {
    fn default() -> Self {
        Patience {
            floor: Duration::from_secs(30),
            per_mib: Duration::from_secs(15),
        }
    }
}

impl Patience {
    /// The time one render of a page weighing `bytes` gets: `floor + per_mib × bytes / MiB`.
    pub fn for_bytes(&self, bytes: u64) -> Duration {
        self.floor + self.per_mib.mul_f64(bytes as f64 / 1_048_576.0)
    }
}

/// Why a page was not checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NotCheckedReason {
    /// A render did not finish within the page's patience: the machine was too busy, or the
    /// page too heavy; nothing is known about whether it differs.
    TimedOut,
}

/// A page the check could not compare, and why: never a difference.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NotChecked {
    /// Site-relative path, `/`-separated.
    pub page: String,
    pub reason: NotCheckedReason,
    /// What the page weighed: its bytes and those of the files it loads.
    pub weight_bytes: u64,
    /// The time each render of the page had, in seconds.
    pub patience_s: f64,
    /// What ran out of time, for a person (which tree, which DevTools call).
    pub message: String,
}

/// What a page of `site` weighs for its patience: its own bytes and those of the distinct
/// files of the site that its references make a browser fetch (images, style sheets,
/// scripts, frames; not what those load in turn). A page that cannot be read weighs its size.
pub fn weight(site: &Site, resolver: &Resolver<'_>, page: &str) -> u64 {
    let Some(file) = site.file(page) else {
        return 0;
    };
    let Some(doc) = inventory::document(site, resolver, file, &AnalyzeOptions::default()) else {
        return file.bytes;
    };
    let mut loaded: Vec<&str> = doc
        .references
        .iter()
        .filter(|r| r.fetched)
        .filter_map(|r| match &r.target {
            Target::Local { path, .. } if *path != file.path => Some(path.as_str()),
            _ => None,
        })
        .collect();
    loaded.sort_unstable();
    loaded.dedup();
    file.bytes
        + loaded
            .iter()
            .filter_map(|p| site.file(p))
            .map(|f| f.bytes)
            .sum::<u64>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patience_has_a_floor_and_grows_with_the_page() {
        let p = Patience::default();
        assert_eq!(p.for_bytes(0), Duration::from_secs(30));
        assert_eq!(
            p.for_bytes(20_000),
            p.floor + p.per_mib.mul_f64(20_000.0 / 1_048_576.0)
        );
        assert!(p.for_bytes(20_000) < Duration::from_secs(31));
        // The page of the issue: 5.8 MB.
        let big = p.for_bytes(5_800_000);
        assert!(
            big > Duration::from_secs(100) && big < Duration::from_secs(120),
            "{big:?}"
        );
    }

    #[test]
    fn a_page_weighs_itself_and_what_it_fetches_once() {
        use crate::site::{FileKind, SiteFile};
        let dir = tempfile::tempdir().unwrap();
        let page = br#"<link rel=stylesheet href=s.css><img src=a.gif><img src=a.gif>
            <a href=other.html>x</a><img src=missing.gif><img src=http://elsewhere/x.gif>"#;
        std::fs::write(dir.path().join("p.html"), page).unwrap();
        let files = [
            ("p.html", FileKind::Html, page.len() as u64),
            ("s.css", FileKind::Css, 300),
            ("a.gif", FileKind::Gif, 5_000),
            ("other.html", FileKind::Html, 70_000),
        ]
        .into_iter()
        .map(|(path, kind, bytes)| SiteFile {
            path: path.to_string(),
            kind,
            bytes,
        })
        .collect();
        let site = Site::from_files(dir.path().to_path_buf(), files, Vec::new());
        let resolver = Resolver::new(&site, None);
        assert_eq!(
            weight(&site, &resolver, "p.html"),
            page.len() as u64 + 5_300
        );
        assert_eq!(weight(&site, &resolver, "nowhere.html"), 0);
    }
}
