//! What the visitor sees: a browser's load of one page, simulated over a link, to its first
//! contentful paint (FCP), largest contentful paint (LCP), `DOMContentLoaded` and `load`.
//!
//! The robot's simulated time says when a 1997 robot has every byte; a visitor sees paint, and
//! paint waits on what a browser puts on its critical path: the page's bytes up to its first
//! content, and every style sheet and blocking script before it ([`graph`]). A style sheet
//! added to a page that had none costs a first visit a round trip before anything paints,
//! however few bytes it saves; no byte count and no robot can see that.
//!
//! The load is built as a browser makes it ([`exchange`]): one connection over TLS for HTTP/2
//! (every request on it as soon as the bytes that name it arrive), or HTTP/1.1 in cleartext
//! with up to six connections, each fetch on the next one free; text sent gzipped (or as
//! brotli); a later visit with the cache of an earlier page revalidating what it has (webdiet's
//! server says `no-cache`, so every cached file costs a `304`). It runs through the same
//! simulator as the robot's replay ([`super::simulate`]: the link's model and Linux's TCP),
//! so it is bit-identical on any machine at any load. The main thread's time is the page's
//! own, measured once by Chromium on loopback where a browser is at hand ([`Cpu`]), times the
//! link's CPU slowdown (Lighthouse's mobile profile: 4).

pub mod exchange;
pub mod files;
pub mod graph;
pub mod site;

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::link::LinkSpec;
use super::simulate::{self, SimError, SimOptions, Timeline};
pub use exchange::Speaks;
pub use files::{Files, Overlay};
pub use graph::PageGraph;

/// Which visit: a first one, or one with what an earlier page left in the cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Visit {
    /// An empty cache.
    First,
    /// The cache of the site's landing page: what it fetched is revalidated, not fetched.
    AfterLanding,
    /// The same page again, later, by a new browser: everything it fetched (the page too) is
    /// in the cache and revalidated, on new connections (Chromium's validation run).
    Repeat,
}

impl Visit {
    pub fn as_str(self) -> &'static str {
        match self {
            Visit::First => "first",
            Visit::AfterLanding => "after-landing",
            Visit::Repeat => "repeat",
        }
    }
}

/// The browser's own time, in ns, beside the network's: before it asks for the page (the
/// navigation: a new tab, the URL, the request), and the main thread's before each milestone
/// once what it waits for has arrived (parsing, style, layout, paint; for `load`, the rest).
/// Measured as Chromium's loads over a link that costs nearly nothing, less the network's
/// time there ([`Cpu::CHROMIUM`], `benches/visitor.py --calibrate`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cpu {
    pub navigation_ns: u64,
    pub fcp_ns: u64,
    pub lcp_ns: u64,
    pub dcl_ns: u64,
    pub load_ns: u64,
}

impl Cpu {
    /// Headless Chromium 156 on this project's 2-core machine (docs/simulation.md, "The
    /// visitor", where the calibration's date, pages and load are given).
    pub const CHROMIUM: Cpu = Cpu {
        navigation_ns: CALIBRATED[0],
        fcp_ns: CALIBRATED[1],
        lcp_ns: CALIBRATED[2],
        dcl_ns: CALIBRATED[3],
        load_ns: CALIBRATED[4],
    };

    /// The main thread's share slowed down by `factor` (Lighthouse's mobile profile: 4); the
    /// navigation is the browser process's, and stays.
    fn slowed(self, factor: u64) -> Cpu {
        Cpu {
            navigation_ns: self.navigation_ns,
            fcp_ns: self.fcp_ns * factor,
            lcp_ns: self.lcp_ns * factor,
            dcl_ns: self.dcl_ns * factor,
            load_ns: self.load_ns * factor,
        }
    }
}

/// [`Cpu::CHROMIUM`]'s figures (navigation, FCP, LCP, DCL, load), in ns, as
/// `benches/visitor.py --calibrate` printed them: the medians over nine pages (microscape, the
/// Space Jam index, two libwww pages, two of gri's manual, two of dx's), original and
/// rewritten, h2 and HTTP/1.1, first visits, 3 runs each, 2026-12-07 21:26 to 21:40 UTC, load
/// average 5 to 9 (two builds running at nice 19 beside Chromium at nice 0: docs/simulation.md
/// says what that does to these figures).
const CALIBRATED: [u64; 5] = [
    22_067_460,
    228_803_460,
    247_001_960,
    164_290_120,
    204_367_620,
];

/// A simulated browser load's milestones, in ms from the navigation's start.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Paint {
    pub ttfb_ms: f64,
    pub fcp_ms: f64,
    pub lcp_ms: f64,
    pub dcl_ms: f64,
    pub load_ms: f64,
    /// Some fetch never arrived within the simulation's timeout.
    pub timed_out: bool,
}

/// How one load is simulated.
#[derive(Debug, Clone, PartialEq)]
pub struct PaintOptions {
    pub speaks: Speaks,
    pub visit: Visit,
    /// The browser's own time; its main-thread share multiplied by `cpu_slowdown`.
    /// Default: [`Cpu::CHROMIUM`].
    pub cpu: Cpu,
    /// Default: 1; Lighthouse's mobile profile: 4.
    pub cpu_slowdown: u64,
    pub sim: SimOptions,
}

impl Default for PaintOptions {
    fn default() -> Self {
        PaintOptions {
            speaks: Speaks::H2,
            visit: Visit::First,
            cpu: Cpu::CHROMIUM,
            cpu_slowdown: 1,
            sim: SimOptions::default(),
        }
    }
}

/// An image smaller than this many pixels is not taken for the largest contentful paint:
/// icons and spacers paint with the text (Chromium ignores what covers nearly nothing).
const LCP_MIN_PIXELS: u64 = 64 * 64;

/// Simulates a browser loading `graph`'s page of `site` over `link`. `cached`: what the cache
/// holds (the landing page's fetches, and the landing page itself), for
/// [`Visit::AfterLanding`].
pub fn simulate(
    graph: &PageGraph,
    site: &dyn Files,
    cached: &BTreeSet<String>,
    link: &LinkSpec,
    opts: &PaintOptions,
) -> Result<Paint, SimError> {
    let built = exchange::build(graph, site, cached, opts.speaks, opts.visit);
    let timeline = simulate::simulate(&built.exchange, link, &opts.sim)?;
    Ok(milestones(
        graph,
        &built,
        &timeline,
        opts.cpu.slowed(opts.cpu_slowdown),
    ))
}

/// The milestones of a simulated load, from when the messages they wait for arrived.
fn milestones(graph: &PageGraph, built: &exchange::Built, t: &Timeline, cpu: Cpu) -> Paint {
    let arrived = |m: exchange::At| {
        t.connections
            .get(m.conn)
            .and_then(|c| c.messages.get(m.message))
            .and_then(|m| m.last_byte_ns)
            .unwrap_or(t.complete_ns)
    };
    let first = |m: exchange::At| {
        t.connections
            .get(m.conn)
            .and_then(|c| c.messages.get(m.message))
            .and_then(|m| m.first_byte_ns)
            .unwrap_or(t.complete_ns)
    };
    let fetched = |i: usize| built.fetches[i].map_or(0, arrived);
    let blocking = graph
        .fetches
        .iter()
        .enumerate()
        .filter(|(_, f)| f.blocks_paint)
        .map(|(i, _)| fetched(i))
        .max()
        .unwrap_or(0);
    // A page with no content of its own (a frameset) paints with its first frame.
    let content = match graph.first_content {
        Some(_) => arrived(built.content),
        None => graph
            .fetches
            .iter()
            .position(|f| f.kind == graph::FetchKind::Frame)
            .map_or(arrived(built.page_end), fetched),
    };
    let painted = content.max(blocking);
    let fcp = painted + cpu.fcp_ns;
    // The largest paint: the largest image once it is in, else the text with the first paint.
    let lcp = match graph.largest_image() {
        Some(i) if graph.fetches[i].pixels >= LCP_MIN_PIXELS => (fetched(i) + cpu.lcp_ns).max(fcp),
        _ => painted + cpu.fcp_ns.max(cpu.lcp_ns),
    };
    let scripts = graph
        .fetches
        .iter()
        .enumerate()
        .filter(|(_, f)| {
            matches!(
                f.kind,
                graph::FetchKind::Script | graph::FetchKind::LateScript
            )
        })
        .map(|(i, _)| fetched(i))
        .max()
        .unwrap_or(0);
    let dcl = arrived(built.page_end).max(scripts).max(blocking) + cpu.dcl_ns;
    let all = (0..graph.fetches.len()).map(fetched).max().unwrap_or(0);
    let load = dcl.max(all + cpu.load_ns.saturating_sub(cpu.dcl_ns));
    // The navigation comes before everything.
    let ms = |ns: u64| (ns + cpu.navigation_ns) as f64 / 1e6;
    Paint {
        ttfb_ms: ms(first(built.page_start)),
        fcp_ms: ms(fcp),
        lcp_ms: ms(lcp),
        dcl_ms: ms(dcl),
        load_ms: ms(load.max(lcp)),
        timed_out: t.timed_out,
    }
}

#[cfg(test)]
mod tests;
