//! The named links webdiet ships, each with the source of its numbers: the 1997 W3C study's
//! three networks, the SPDY white paper's two, WebPageTest's connectivity presets under their
//! usual names, and Lighthouse's default mobile profile (whose CPU slowdown the simulated
//! browser applies: [`cpu_slowdown`]). Where a source leaves a number out, the value chosen
//! here says so.

use std::time::Duration;

/// Which study or tool a profile comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// Nielsen et al., "Network Performance Effects of HTTP/1.1, CSS1, and PNG", SIGCOMM '97.
    Study1997,
    /// Google, "SPDY: An experimental protocol for a faster web" (white paper, 2009), Table 1.
    Spdy2009,
    /// WebPageTest's `connectivity.ini.sample` (WPO-Foundation/webpagetest, master).
    WebPageTest,
    /// Lighthouse's simulated throttling defaults (`throttling.mobileSlow4G`).
    Lighthouse,
}

/// One named link. Rates are the same in both directions unless `up_bps` differs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Profile {
    /// The name `--link` takes (matched without regard to case).
    pub name: &'static str,
    pub down_bps: u64,
    pub up_bps: u64,
    pub rtt: Duration,
    /// Per direction, in percent.
    pub loss_percent: f64,
    pub family: Family,
    /// Where the numbers come from, and which ones webdiet had to choose.
    pub source: &'static str,
}

const fn wpt(name: &'static str, down_bps: u64, up_bps: u64, rtt_ms: u64) -> Profile {
    Profile {
        name,
        down_bps,
        up_bps,
        rtt: Duration::from_millis(rtt_ms),
        loss_percent: 0.0,
        family: Family::WebPageTest,
        source: "WebPageTest connectivity.ini.sample (bwIn/bwOut, latency = RTT, plr 0)",
    }
}

/// What `loopback` means: no emulated link.
pub const LOOPBACK_SOURCE: &str = "no emulation: the replay's private loopback (MTU 1500, \
    offloads off), as webdiet measured before it had links; bytes and packets, no real time";

/// Every profile but `loopback`, in the order `webdiet links` lists them.
pub const PROFILES: &[Profile] = &[
    Profile {
        name: "lan-1997",
        down_bps: 10_000_000,
        up_bps: 10_000_000,
        rtt: Duration::from_millis(1),
        loss_percent: 0.0,
        family: Family::Study1997,
        source: "Nielsen et al., SIGCOMM '97: 10 Mbit/s Ethernet, RTT under 1 ms (1 ms here)",
    },
    Profile {
        name: "wan-1997",
        down_bps: 1_544_000,
        up_bps: 1_544_000,
        rtt: Duration::from_millis(75),
        loss_percent: 0.0,
        family: Family::Study1997,
        source: "Nielsen et al., SIGCOMM '97: MIT to LBL, RTT about 75 ms. The paper gives no \
                 bandwidth; 1.544 Mbit/s is webdiet's choice: a T1, the leased line that \
                 typically connected a site to the 1997 Internet, so the path's narrowest hop",
    },
    Profile {
        name: "ppp-1997",
        down_bps: 28_800,
        up_bps: 28_800,
        rtt: Duration::from_millis(150),
        loss_percent: 0.0,
        family: Family::Study1997,
        source: "Nielsen et al., SIGCOMM '97: 28.8 kbit/s modem, RTT about 150 ms. The modem's \
                 own compression, which the paper's runs had, is not emulated",
    },
    Profile {
        name: "spdy-dsl",
        down_bps: 2_000_000,
        up_bps: 375_000,
        rtt: Duration::from_millis(20),
        loss_percent: 1.0,
        family: Family::Spdy2009,
        source: "SPDY white paper (2009), Table 1: 2 Mbit/s down, 375 kbit/s up, 1% loss. \
                 It states no RTT; 20 ms is the lowest of its Table 3 sweep, the one whose \
                 page load time (1240 ms) is nearest its 0%-loss Table 2 figure (1152 ms)",
    },
    Profile {
        name: "spdy-cable",
        down_bps: 4_000_000,
        up_bps: 1_000_000,
        rtt: Duration::from_millis(20),
        loss_percent: 1.0,
        family: Family::Spdy2009,
        source: "SPDY white paper (2009), Table 1: 4 Mbit/s down, 1 Mbit/s up, 1% loss. \
                 RTT 20 ms chosen as for spdy-dsl",
    },
    wpt("Cable", 5_000_000, 1_000_000, 28),
    wpt("DSL", 1_500_000, 384_000, 50),
    wpt("3GSlow", 400_000, 400_000, 400),
    wpt("3G", 1_600_000, 768_000, 300),
    wpt("3GFast", 1_600_000, 768_000, 150),
    wpt("4G", 9_000_000, 9_000_000, 170),
    wpt("LTE", 12_000_000, 12_000_000, 70),
    wpt("Edge", 240_000, 200_000, 840),
    wpt("2G", 280_000, 256_000, 800),
    wpt("Dial", 49_000, 30_000, 120),
    Profile {
        name: "lighthouse-mobile",
        down_bps: 1_638_400,
        up_bps: 750_000,
        rtt: Duration::from_millis(150),
        loss_percent: 0.0,
        family: Family::Lighthouse,
        source: "Lighthouse's default mobile throttling (lighthouse-core config constants, \
                 throttling.mobileSlow4G: rttMs 150, throughputKbps 1638.4, \
                 uploadThroughputKbps 750, cpuSlowdownMultiplier 4); the simulated browser \
                 multiplies a page's main-thread time by 4 on it",
    },
];

/// The links the audit simulates when none is named, and on which the rewrite's CSS choice
/// must not make a page paint later (with Lighthouse's mobile profile).
pub const AUDIT_LINKS: &str = "Cable,DSL,3G,4G";

/// How much slower than this machine's a browser's main thread is taken to be on a link: 4 on
/// Lighthouse's mobile profile (and a custom link based on it), 1 elsewhere.
pub fn cpu_slowdown(link_name: &str) -> u64 {
    let base = link_name.split(',').next().unwrap_or_default();
    match find(base) {
        Some(p) if p.family == Family::Lighthouse => 4,
        _ => 1,
    }
}

/// The profile called `name` (any case), if there is one.
pub fn find(name: &str) -> Option<&'static Profile> {
    PROFILES.iter().find(|p| p.name.eq_ignore_ascii_case(name))
}

/// Every name `--link` accepts, `loopback` first.
pub fn names() -> Vec<&'static str> {
    std::iter::once("loopback")
        .chain(PROFILES.iter().map(|p| p.name))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_without_regard_to_case() {
        let mut names: Vec<String> = names().iter().map(|n| n.to_lowercase()).collect();
        let all = names.len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), all);
    }

    #[test]
    fn the_issue_s_profiles_are_all_there() {
        for name in [
            "loopback",
            "lan-1997",
            "wan-1997",
            "ppp-1997",
            "spdy-dsl",
            "spdy-cable",
            "cable",
            "dsl",
            "3gslow",
            "3g",
            "3gfast",
            "4g",
            "lte",
            "edge",
            "2g",
            "dial",
            "lighthouse-mobile",
        ] {
            assert!(
                name == "loopback" || find(name).is_some(),
                "{name} is missing"
            );
        }
    }

    #[test]
    fn every_profile_names_its_source_and_has_a_rate() {
        for p in PROFILES {
            assert!(p.source.len() > 20, "{}", p.name);
            assert!(p.down_bps > 0 && p.up_bps > 0, "{}", p.name);
        }
    }
}
