//! `webdiet links`: the profiles with their parameters and sources, or what a given `--link`
//! (and `--sweep`) resolves to, as a table or as JSON.

use serde::{Deserialize, Serialize};

use super::loss::Loss;
use super::profiles;
use super::spec::{self, Direction, Link, QueueLimit, Rate};
use super::units;

/// One link as listed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinkListing {
    pub name: String,
    /// `false` for `loopback`, which has no emulated link and so none of the fields below.
    pub emulated: bool,
    pub down: Option<DirectionListing>,
    pub up: Option<DirectionListing>,
    pub rtt_ms: Option<f64>,
    pub mtu: Option<u32>,
    /// Where the numbers come from (profiles, and links derived from a profile).
    pub source: Option<String>,
}

/// One direction as listed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DirectionListing {
    /// Bits per second; for a trace its long-run mean; `None` when unshaped.
    pub rate_bps: Option<u64>,
    /// The Mahimahi trace file, for a trace link.
    pub trace: Option<String>,
    pub delay_ms: f64,
    pub loss_percent: f64,
    /// Mean loss-burst length in packets, for bursty loss.
    pub loss_burst: Option<f64>,
    pub queue: QueueLimit,
}

fn direction(d: &Direction) -> DirectionListing {
    DirectionListing {
        rate_bps: d.rate.mean_bits_per_second(),
        trace: match &d.rate {
            Rate::Trace(t) => Some(t.path.clone()),
            _ => None,
        },
        delay_ms: d.delay.as_secs_f64() * 1000.0,
        loss_percent: d.loss.rate() * 100.0,
        loss_burst: match d.loss {
            Loss::Bursts { burst, .. } => Some(burst),
            _ => None,
        },
        queue: d.queue,
    }
}

/// How a link is listed.
pub fn listing(link: &Link) -> LinkListing {
    match link {
        Link::Loopback => LinkListing {
            name: "loopback".into(),
            emulated: false,
            down: None,
            up: None,
            rtt_ms: None,
            mtu: None,
            source: Some(profiles::LOOPBACK_SOURCE.into()),
        },
        Link::Emulated(spec) => {
            let base = spec.name.split(',').next().unwrap_or_default();
            let source = profiles::find(base).map(|p| {
                if spec.name.contains('=') {
                    format!("{} (with the overrides in its name)", p.source)
                } else {
                    p.source.to_string()
                }
            });
            LinkListing {
                name: spec.name.clone(),
                emulated: true,
                down: Some(direction(&spec.down)),
                up: Some(direction(&spec.up)),
                rtt_ms: Some((spec.up.delay + spec.down.delay).as_secs_f64() * 1000.0),
                mtu: Some(spec.mtu),
                source,
            }
        }
    }
}

/// Every profile, `loopback` first.
pub fn profiles() -> Vec<LinkListing> {
    profiles::names()
        .into_iter()
        .flat_map(|name| spec::parse(name).expect("every shipped profile parses"))
        .map(|link| listing(&link))
        .collect()
}

fn rate(d: &Option<DirectionListing>) -> String {
    match d {
        None => "—".into(),
        Some(d) => match (&d.trace, d.rate_bps) {
            (Some(_), Some(bps)) => format!("trace ~{}", units::rate_text(bps)),
            (None, Some(bps)) => units::rate_text(bps),
            _ => "unshaped".into(),
        },
    }
}

/// The listings as a table, sources below it.
pub fn table(links: &[LinkListing]) -> String {
    let mut rows = vec![[
        "link".to_string(),
        "down".into(),
        "up".into(),
        "RTT".into(),
        "loss".into(),
        "queue down/up".into(),
        "MTU".into(),
    ]];
    for l in links {
        let loss = l.down.as_ref().map_or("—".into(), |d| {
            let mut text = format!("{}%", units::decimal(d.loss_percent));
            if let Some(burst) = d.loss_burst {
                text.push_str(&format!(" (bursts of {})", units::decimal(burst)));
            }
            text
        });
        let queue = match (&l.down, &l.up) {
            (Some(d), Some(u)) if d.queue == u.queue => units::queue_text(d.queue),
            (Some(d), Some(u)) => format!(
                "{} / {}",
                units::queue_text(d.queue),
                units::queue_text(u.queue)
            ),
            _ => "—".into(),
        };
        rows.push([
            l.name.clone(),
            rate(&l.down),
            rate(&l.up),
            l.rtt_ms
                .map_or("—".into(), |ms| format!("{} ms", units::decimal(ms))),
            loss,
            queue,
            l.mtu.map_or("—".into(), |m| m.to_string()),
        ]);
    }
    let widths: Vec<usize> = (0..7)
        .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for row in &rows {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(cell, w)| format!("{cell:<w$}"))
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    let sources: Vec<&LinkListing> = links.iter().filter(|l| l.source.is_some()).collect();
    if !sources.is_empty() {
        out.push_str("\nsources:\n");
        for l in sources {
            out.push_str(&format!(
                "  {}: {}\n",
                l.name,
                l.source.as_deref().unwrap_or_default()
            ));
        }
    }
    out.push_str(
        "\nRates are IP bytes × 8 per second in each direction; RTT is split evenly between \
         the directions; loss applies to each direction. Default queue: one bandwidth-delay \
         product, at least 50 packets (docs/links.md).\n",
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_profile_table_lists_every_profile_with_its_source() {
        let all = profiles();
        assert_eq!(all.len(), profiles::names().len());
        let text = table(&all);
        for name in profiles::names() {
            assert!(text.contains(name), "{name} missing from\n{text}");
        }
        assert!(text.contains("28.8 kbit/s"));
        assert!(text.contains("1.544 Mbit/s"));
        assert!(all.iter().all(|l| l.source.is_some()));
    }

    #[test]
    fn an_override_keeps_the_profile_s_source_and_says_so() {
        let links = spec::parse("3G,rtt=100ms").unwrap();
        let l = listing(&links[0]);
        assert_eq!(l.rtt_ms, Some(100.0));
        assert!(l.source.unwrap().contains("overrides"));
    }

    #[test]
    fn a_custom_link_has_no_source() {
        let links = spec::parse("down=1mbit,rtt=10").unwrap();
        let l = listing(&links[0]);
        assert_eq!(l.source, None);
        assert_eq!(l.up.unwrap().rate_bps, None);
    }
}
