//! Runs the replay's clients in this process ([`run_here`]), whatever the place: the host, or
//! the child in a namespace of its own.

use crate::error::Result;
use crate::replay::chromium;
use crate::replay::options::{ClientKind, Method, Replay, ReplayOptions};
use crate::replay::robot_visitor;
use crate::replay::served::ServedSite;
use crate::sim::link::Link;

/// Runs the replay's clients in this process, each through the one
/// [`driver`](crate::replay::driver): webdiet's robot ([`robot_visitor`]) and, over an emulated
/// link, Chromium ([`chromium`]), as `opts.clients` asks.
pub fn run_here(
    site: &ServedSite,
    opts: &ReplayOptions,
    method: Method,
    over: &Link,
    progress: &dyn Fn(&str),
) -> Result<Replay> {
    let mut replay = if opts.clients.contains(&ClientKind::Webdiet) {
        robot_visitor::run(site, opts, method, over, progress)?
    } else {
        Replay {
            method,
            mss: opts.mss,
            rows: Vec::new(),
            links: Vec::new(),
            browser: Vec::new(),
            recorded: Vec::new(),
        }
    };
    if opts.clients.contains(&ClientKind::Chromium) {
        let (rows, link_method) = chromium::run(site, opts, over, progress)?;
        replay.browser = rows;
        if let (Some(m), false) = (link_method, opts.clients.contains(&ClientKind::Webdiet)) {
            replay.method = m;
        }
    }
    Ok(replay)
}
