//! Every page of a site, before and after the rewrite, as the simulated browser loads it over
//! each link: the first contentful and largest contentful paint (and `DOMContentLoaded`,
//! `load`) of every page, their median and 90th percentile, and the pages that paint later
//! or sooner. A first visit to each page, and a visit to each page with the landing page's
//! cache; in HTTP/2 over TLS (what a browser speaks to a site today: the headline) and in
//! HTTP/1.1 with the browser's own six connections; and each page again by a new browser with
//! its cache (what Chromium's validation run measures, so that the two can be compared).

use std::collections::BTreeSet;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::super::link::{profiles, Link, LinkSpec};
use super::super::simulate::{Congestion, SimOptions, TcpModel};
use super::{Cpu, Files, PageGraph, Paint, PaintOptions, Speaks, Visit};

/// A milestone's median and 90th percentile over pages (nearest rank), in ms.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Quantiles {
    pub median_ms: f64,
    pub p90_ms: f64,
}

impl Quantiles {
    fn of(mut v: Vec<f64>) -> Quantiles {
        if v.is_empty() {
            return Quantiles::default();
        }
        v.sort_by(f64::total_cmp);
        let rank = |p: f64| v[((p * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1];
        Quantiles {
            median_ms: rank(0.5),
            p90_ms: rank(0.9),
        }
    }
}

/// A milestone over the pages, before and after.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Compared {
    pub original: Quantiles,
    pub rewritten: Quantiles,
}

/// One page's load, before and after.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PageRow {
    pub page: String,
    pub original: Paint,
    pub rewritten: Paint,
}

impl PageRow {
    /// The larger of the changes of FCP and LCP, in ms (positive: later after the rewrite).
    pub fn paint_change_ms(&self) -> f64 {
        (self.rewritten.fcp_ms - self.original.fcp_ms)
            .max(self.rewritten.lcp_ms - self.original.lcp_ms)
    }
}

/// Every page over one link, in one protocol, for one kind of visit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinkPaint {
    pub link: String,
    pub speaks: Speaks,
    pub visit: Visit,
    /// The main thread's slowdown on this link (4 on Lighthouse's mobile profile).
    pub cpu_slowdown: u64,
    pub fcp: Compared,
    pub lcp: Compared,
    pub dcl: Compared,
    pub load: Compared,
    /// Pages whose FCP or LCP is later after the rewrite, by how much (ms), most first.
    pub later: Vec<(String, f64)>,
    /// Every page's loads, in page order.
    pub pages: Vec<PageRow>,
}

impl LinkPaint {
    /// The pages that gain the most (their FCP and LCP both sooner), most first.
    pub fn gains(&self, n: usize) -> Vec<&PageRow> {
        let mut rows: Vec<&PageRow> = self.pages.iter().collect();
        rows.sort_by(|a, b| {
            a.paint_change_ms()
                .total_cmp(&b.paint_change_ms())
                .then(a.page.cmp(&b.page))
        });
        rows.into_iter()
            .take_while(|r| r.paint_change_ms() < 0.0)
            .take(n)
            .collect()
    }
}

/// The simulated browser's view of both versions of a site.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SitePaint {
    /// The pages loaded (every HTML page of the original that the rewritten site also has).
    pub pages: usize,
    /// The page whose cache the later visits start from.
    pub landing: String,
    /// The browser's own time added to the network's (before the simulation's CPU slowdown).
    pub cpu: Cpu,
    pub links: Vec<LinkPaint>,
}

impl SitePaint {
    /// The headline's rows: a first visit in HTTP/2, one per link.
    pub fn headline(&self) -> impl Iterator<Item = &LinkPaint> {
        self.links
            .iter()
            .filter(|l| l.speaks == Speaks::H2 && l.visit == Visit::First)
    }

    /// Pages that paint later on any link, in any protocol and visit: what the rewrite must
    /// never do.
    pub fn later(&self) -> usize {
        self.links
            .iter()
            .flat_map(|l| l.later.iter().map(|(p, _)| p))
            .collect::<BTreeSet<_>>()
            .len()
    }
}

/// The links the visitor is simulated on: the given ones, and Lighthouse's mobile profile.
pub fn links_for(simulated: &[Link]) -> Vec<LinkSpec> {
    let mut specs: Vec<LinkSpec> = simulated
        .iter()
        .filter_map(|l| match l {
            Link::Emulated(spec) => Some((**spec).clone()),
            Link::Loopback => None,
        })
        .collect();
    if !specs.iter().any(|s| profiles::cpu_slowdown(&s.name) > 1) {
        if let Ok(mut mobile) = super::super::link::parse("lighthouse-mobile") {
            if let Some(Link::Emulated(spec)) = mobile.pop() {
                specs.push(*spec);
            }
        }
    }
    specs
}

/// Loads every page of `pages` of both sites over every link.
pub fn site_paint(
    original: &dyn Files,
    rewritten: &dyn Files,
    pages: &[String],
    landing: &str,
    links: &[LinkSpec],
    cpu: Cpu,
) -> SitePaint {
    let graphs = |site: &dyn Files| -> Vec<Option<PageGraph>> {
        pages.par_iter().map(|p| PageGraph::of(site, p)).collect()
    };
    let (before, after) = (graphs(original), graphs(rewritten));
    let cached = |site: &dyn Files| -> BTreeSet<String> {
        let mut set: BTreeSet<String> = PageGraph::of(site, landing)
            .map(|g| g.fetches.into_iter().map(|f| f.path).collect())
            .unwrap_or_default();
        set.insert(landing.to_string());
        set
    };
    let (cached_before, cached_after) = (cached(original), cached(rewritten));
    let mut out = Vec::new();
    for link in links {
        let slowdown = profiles::cpu_slowdown(&link.name);
        for (speaks, visit) in [
            (Speaks::H2, Visit::First),
            (Speaks::Http1, Visit::First),
            (Speaks::H2, Visit::AfterLanding),
            (Speaks::H2, Visit::Repeat),
            (Speaks::Http1, Visit::Repeat),
        ] {
            let opts = PaintOptions {
                speaks,
                visit,
                cpu,
                cpu_slowdown: slowdown,
                sim: SimOptions {
                    tcp: TcpModel::linux(Congestion::Cubic),
                    ..SimOptions::default()
                },
            };
            let rows: Vec<PageRow> = pages
                .par_iter()
                .enumerate()
                // A visit after the landing page is to every other page; a first visit and a
                // repeat visit (the same page again, by a new browser) are to every page.
                .filter(|(_, p)| visit != Visit::AfterLanding || p.as_str() != landing)
                .filter_map(|(i, page)| {
                    let (Some(b), Some(a)) = (&before[i], &after[i]) else {
                        return None;
                    };
                    let load = |g: &PageGraph, s: &dyn Files, c: &BTreeSet<String>| {
                        super::simulate(g, s, c, link, &opts).ok()
                    };
                    Some(PageRow {
                        page: page.clone(),
                        original: load(b, original, &cached_before)?,
                        rewritten: load(a, rewritten, &cached_after)?,
                    })
                })
                .collect();
            if !rows.is_empty() {
                out.push(summarise(link, speaks, visit, slowdown, rows));
            }
        }
    }
    SitePaint {
        pages: pages.len(),
        landing: landing.to_string(),
        cpu,
        links: out,
    }
}

/// A change smaller than this (ms) is no change: the simulation's integer arithmetic is
/// exact, but a page that gains a byte can move a segment boundary by a microsecond.
const SAME_MS: f64 = 0.5;

fn summarise(
    link: &LinkSpec,
    speaks: Speaks,
    visit: Visit,
    cpu_slowdown: u64,
    pages: Vec<PageRow>,
) -> LinkPaint {
    let compared = |f: fn(&Paint) -> f64| Compared {
        original: Quantiles::of(pages.iter().map(|r| f(&r.original)).collect()),
        rewritten: Quantiles::of(pages.iter().map(|r| f(&r.rewritten)).collect()),
    };
    let mut later: Vec<(String, f64)> = pages
        .iter()
        .map(|r| (r.page.clone(), r.paint_change_ms()))
        .filter(|(_, d)| *d > SAME_MS)
        .collect();
    later.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    LinkPaint {
        link: link.name.clone(),
        speaks,
        visit,
        cpu_slowdown,
        fcp: compared(|p| p.fcp_ms),
        lcp: compared(|p| p.lcp_ms),
        dcl: compared(|p| p.dcl_ms),
        load: compared(|p| p.load_ms),
        later,
        pages,
    }
}
