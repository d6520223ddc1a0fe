//! The replay stage's entry point: [`replay`] over every link the options ask for, each where
//! it can run ([`replay_over`]), with the simulated links' rows merged in.

use super::over::{replay_over, Over};
use crate::error::{Error, Result};
use crate::replay::chromium;
use crate::replay::link::capture;
use crate::replay::options::{loopback_only, ClientKind, LinkRun, Replay, ReplayOptions};
use crate::replay::row::ReplayRow;
use crate::replay::served::ServedSite;
use crate::replay::simulated;
use crate::sim::link::Link;

/// Replays `site` over every link of `opts`.
pub fn replay(site: &ServedSite, opts: &ReplayOptions) -> Result<Replay> {
    replay_with(site, opts, &|_| {})
}

/// [`replay`], telling `progress` what runs on a slow link and how long is left.
pub fn replay_with(
    site: &ServedSite,
    opts: &ReplayOptions,
    progress: &dyn Fn(&str),
) -> Result<Replay> {
    if opts.clients.contains(&ClientKind::Chromium) {
        chromium::check(&opts.chromium)?;
    }
    if let Some(file) = &opts.capture {
        crate::output::check_named_file(file, "--capture", &site.site.root, &capture::is_ours)?;
    }
    let mut rows = Vec::new();
    let mut browser = Vec::new();
    let mut links = Vec::new();
    let mut method = None;
    let mut mss = opts.mss;
    let mut recorded = Vec::new();
    let mut loopback_rows: Vec<ReplayRow> = Vec::new();
    for link in &opts.links {
        let mut o = pinned(opts, link);
        o.runs = opts.runs_for(link);
        if let Link::Emulated(spec) = link {
            o.mss = spec.mtu - 40;
        }
        match replay_over(site, &o, link, progress)? {
            Over::Ran(replay) => {
                links.push(LinkRun {
                    name: link.name().into(),
                    method: Some(replay.method.clone()),
                    unavailable: None,
                });
                if method.is_none() {
                    mss = replay.mss;
                    method = Some(replay.method);
                }
                rows.extend(replay.rows);
                browser.extend(replay.browser);
                recorded.extend(replay.recorded);
            }
            Over::Unavailable(reason) => links.push(LinkRun {
                name: link.name().into(),
                method: None,
                unavailable: Some(reason),
            }),
        }
    }
    // No link could run, or simulated time needs the loopback recording that no link made:
    // the loopback replay runs (its rows reported only when nothing else ran).
    let needs_recording = !opts.simulate.is_empty() && recorded.is_empty();
    if method.is_none() || needs_recording {
        let mut o = pinned(opts, &Link::Loopback);
        o.links = loopback_only();
        if method.is_some() {
            // A capture was of the links asked for.
            o.capture = None;
        }
        o.runs = if method.is_none() {
            opts.runs_for(&Link::Loopback)
        } else {
            1
        };
        if let Over::Ran(replay) = replay_over(site, &o, &Link::Loopback, &|_| {})? {
            recorded.extend(replay.recorded);
            if method.is_none() {
                links.push(LinkRun {
                    name: "loopback".into(),
                    method: Some(replay.method.clone()),
                    unavailable: None,
                });
                mss = replay.mss;
                method = Some(replay.method);
                rows.extend(replay.rows);
            } else {
                // Unreported, but the simulated rows take their counts from it.
                loopback_rows = replay.rows;
            }
        }
    }
    let method = method.ok_or_else(|| Error::Invalid {
        path: site.site.root.clone(),
        message: "no link could run, not even the host loopback".into(),
    })?;
    for link in &opts.simulate {
        if recorded.is_empty() {
            return Err(simulated::no_recording(site));
        }
        let sim = simulated::simulate_over(site, opts, &recorded, link)?;
        let mut all = std::mem::take(&mut rows);
        let reported = all.len();
        all.extend(loopback_rows.iter().cloned());
        simulated::merge(&mut all, sim, link);
        // The unreported loopback rows were only the simulated rows' base.
        let extra = loopback_rows.len();
        let mut kept: Vec<ReplayRow> = all.drain(..reported).collect();
        kept.extend(all.into_iter().skip(extra));
        rows = kept;
    }
    Ok(Replay {
        method,
        mss,
        rows,
        links,
        browser,
        recorded: Vec::new(),
    })
}

/// `opts` with the congestion control the replay pins over `link` on both ends.
fn pinned(opts: &ReplayOptions, link: &Link) -> ReplayOptions {
    let mut o = opts.clone();
    let c = Some(simulated::congestion_for(link));
    o.client.tcp.congestion = c;
    o.server.tcp.congestion = c;
    o
}
