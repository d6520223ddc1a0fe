//! The host loopback, the replay's link of last resort: where no private namespace can be
//! made (or with `--no-netns`), the replay runs in the current namespace with `TCP_MAXSEG`
//! clamped, so data segments are Ethernet's (ACKs follow loopback's super-packets).

use super::here::run_here;
use crate::error::Result;
use crate::replay::options::{Method, Replay, ReplayOptions};
use crate::replay::served::ServedSite;
use crate::sim::link::Link;

/// Replays `site` on the host loopback; `namespace_unavailable` says why the private one
/// could not be used (`None`: `--no-netns` asked for this).
pub fn replay(
    site: &ServedSite,
    opts: &ReplayOptions,
    namespace_unavailable: Option<String>,
) -> Result<Replay> {
    let timestamps = std::fs::read_to_string("/proc/sys/net/ipv4/tcp_timestamps")
        .map(|s| s.trim() != "0")
        .unwrap_or(true);
    // With timestamps, 12 bytes of every segment are TCP options: ask for 12 more.
    let maxseg = opts.mss + if timestamps { 12 } else { 0 };
    let detail = match namespace_unavailable {
        Some(reason) => {
            format!("host loopback, TCP_MAXSEG {maxseg}; namespace unavailable: {reason}")
        }
        None => format!("current network namespace (--no-netns), TCP_MAXSEG {maxseg}"),
    };
    let method = Method {
        name: "tcp-maxseg".into(),
        detail,
        tcp_maxseg: Some(maxseg),
    };
    run_here(site, opts, method, &Link::Loopback, &|_| {})
}
