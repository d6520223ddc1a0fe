//! The markup pass's candidate must never make a page paint later. A style sheet blocks
//! rendering: one added to a page that had none makes its first visit wait a round trip more
//! before anything paints, however many bytes it saves, and no byte count sees it. So before
//! a candidate (a site sheet, a sheet per page, inline styles) may win on bytes, every page it
//! changes is loaded by the simulated browser (`sim::paint`) before and after, on the
//! default links (the audit's, and Lighthouse's mobile profile), in HTTP/2 and HTTP/1.1, as a
//! first visit and as a visit after the landing page with its cache. A page whose first or
//! largest contentful paint is later on any of them keeps its markup as it was (reason
//! `paints-later`), the candidate is priced again without it, and the report says which page,
//! where, and by how much.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::sim::link::LinkSpec;
use crate::sim::paint::{self, Files, Overlay, PageGraph, PaintOptions, Speaks, Visit};

/// A later paint than this (ms) is a later paint; less is the simulation's rounding.
const LATER_MS: f64 = 0.5;

/// A page a candidate would make paint later, and where it is latest.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PaintsLater {
    /// The candidate (`site-sheet`, `per-page`, `inline-style`, each `combined` or `atomic`).
    pub candidate: String,
    pub page: String,
    pub link: String,
    pub speaks: String,
    pub visit: String,
    /// `first-contentful-paint` or `largest-contentful-paint`.
    pub metric: String,
    pub before_ms: f64,
    pub after_ms: f64,
}

/// What the check loads pages on.
pub struct PaintCheck<'a> {
    /// The staged tree as the image half left it.
    pub base: &'a dyn Files,
    pub landing: String,
    pub links: Vec<LinkSpec>,
    /// Each page's graph in the staged tree, read once for every candidate that changes it:
    /// on a 15 MB page a graph is a lex of the whole page.
    before: Mutex<HashMap<String, Option<Arc<PageGraph>>>>,
}

impl<'a> PaintCheck<'a> {
    pub fn new(base: &'a dyn Files, landing: String, links: Vec<LinkSpec>) -> Self {
        PaintCheck {
            base,
            landing,
            links,
            before: Mutex::default(),
        }
    }
}

impl PaintCheck<'_> {
    /// Every page of `changed` that would paint later with the candidate, by its index in
    /// `changed`, each with where it is latest; empty when none would. `changed`: each changed
    /// page's path and new bytes; `sheet`: the shared sheet the candidate adds.
    pub fn later(
        &self,
        candidate: &str,
        changed: &[(&str, &[u8])],
        sheet: Option<(&str, &[u8])>,
    ) -> Vec<(usize, PaintsLater)> {
        if changed.is_empty() {
            return Vec::new();
        }
        let landing_after: Vec<(&str, &[u8])> = changed
            .iter()
            .filter(|(p, _)| *p == self.landing)
            .copied()
            .chain(sheet)
            .collect();
        // The landing page's graph in the candidate's tree: what its visit leaves in the
        // cache, and (when the candidate changes it) its own graph after.
        let landing_graph_after =
            PageGraph::of(&Overlay::new(self.base, &landing_after), &self.landing).map(Arc::new);
        let cached = |graph: Option<&PageGraph>| -> BTreeSet<String> {
            let mut set: BTreeSet<String> = graph
                .map(|g| g.fetches.iter().map(|f| f.path.clone()).collect())
                .unwrap_or_default();
            set.insert(self.landing.clone());
            set
        };
        let cached_before = cached(self.graph_before(&self.landing).as_deref());
        let cached_after = cached(landing_graph_after.as_deref());
        changed
            .par_iter()
            .enumerate()
            .filter_map(|(i, &(page, bytes))| {
                let files: Vec<(&str, &[u8])> =
                    std::iter::once((page, bytes)).chain(sheet).collect();
                let after_files = Overlay::new(self.base, &files);
                let before = self.graph_before(page)?;
                let after = match page == self.landing {
                    true => landing_graph_after.clone()?,
                    false => Arc::new(PageGraph::of(&after_files, page)?),
                };
                let mut worst: Option<PaintsLater> = None;
                for link in &self.links {
                    for speaks in [Speaks::H2, Speaks::Http1] {
                        for visit in [Visit::First, Visit::AfterLanding] {
                            if visit == Visit::AfterLanding && page == self.landing {
                                continue;
                            }
                            let opts = PaintOptions {
                                speaks,
                                visit,
                                cpu_slowdown: crate::sim::link::profiles::cpu_slowdown(&link.name),
                                ..PaintOptions::default()
                            };
                            let load = |g: &PageGraph, f: &dyn Files, c: &BTreeSet<String>| {
                                paint::simulate(g, f, c, link, &opts).ok()
                            };
                            let (Some(b), Some(a)) = (
                                load(&before, self.base, &cached_before),
                                load(&after, &after_files, &cached_after),
                            ) else {
                                continue;
                            };
                            for (metric, b, a) in [
                                ("first-contentful-paint", b.fcp_ms, a.fcp_ms),
                                ("largest-contentful-paint", b.lcp_ms, a.lcp_ms),
                            ] {
                                let by = a - b;
                                if by > LATER_MS
                                    && worst.as_ref().is_none_or(|w| by > w.after_ms - w.before_ms)
                                {
                                    worst = Some(PaintsLater {
                                        candidate: candidate.to_string(),
                                        page: page.to_string(),
                                        link: link.name.clone(),
                                        speaks: speaks.as_str().to_string(),
                                        visit: visit.as_str().to_string(),
                                        metric: metric.to_string(),
                                        before_ms: b,
                                        after_ms: a,
                                    });
                                }
                            }
                        }
                    }
                }
                worst.map(|w| (i, w))
            })
            .collect()
    }

    /// `page`'s graph in the staged tree, read the first time it is asked for.
    fn graph_before(&self, page: &str) -> Option<Arc<PageGraph>> {
        let known = self.before.lock().ok()?.get(page).cloned();
        if let Some(graph) = known {
            return graph;
        }
        // Read outside the lock: pages are read in parallel.
        let graph = PageGraph::of(self.base, page).map(Arc::new);
        if let Ok(mut memo) = self.before.lock() {
            memo.insert(page.to_string(), graph.clone());
        }
        graph
    }
}
