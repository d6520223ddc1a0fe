//! What a link is, and how `--link` and `--sweep` text becomes one: a profile name, a custom
//! link (`down=2mbit,up=375kbit,rtt=50ms,loss=1%`), Mahimahi traces
//! (`trace:UP_FILE,DOWN_FILE`), or a profile with overrides (`3G,rtt=100ms`). Every value is
//! checked here, so the emulator only ever sees a link it can carry.

use std::path::Path;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::loss::Loss;
use super::profiles::{self, Profile};
use super::trace::{Trace, TraceError};
pub use super::units::QueueLimit;
use super::units::{self, UnitError};

/// A link the replay runs over.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Link {
    /// No emulation: the replay's own private loopback.
    Loopback,
    /// Two namespaces joined by webdiet's forwarder, shaped as specified.
    Emulated(Box<LinkSpec>),
}

impl Link {
    /// The name it was asked for by (`loopback`, `3G`, `spdy-cable,rtt=40ms`, …).
    pub fn name(&self) -> &str {
        match self {
            Link::Loopback => "loopback",
            Link::Emulated(spec) => &spec.name,
        }
    }
}

/// An emulated link: what each direction does to the packets that cross it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinkSpec {
    /// How it was asked for, values normalised (`spdy-cable,rtt=40ms`).
    pub name: String,
    /// Client → server.
    pub up: Direction,
    /// Server → client.
    pub down: Direction,
    /// Largest IP packet, bytes; the TCP MSS is 40 less. Default: 1500 (Ethernet).
    pub mtu: u32,
}

/// One direction of a link. A packet is first subject to `loss`, then to the drop-tail
/// `queue`, then serialized at `rate`, then delayed by `delay`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Direction {
    pub rate: Rate,
    /// One-way propagation delay: half the RTT.
    pub delay: Duration,
    /// How many packets may wait for the link; more are dropped (drop-tail).
    pub queue: QueueLimit,
    pub loss: Loss,
}

/// How fast a direction sends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rate {
    /// No serialization delay (a delay- or loss-only link).
    Unlimited,
    /// IP bytes × 8 per second (link-layer framing is not counted).
    BitsPerSecond(u64),
    /// Delivery opportunities from a Mahimahi trace.
    Trace(Trace),
}

impl Rate {
    /// The long-run rate, if the direction is shaped.
    pub fn mean_bits_per_second(&self) -> Option<u64> {
        match self {
            Rate::Unlimited => None,
            Rate::BitsPerSecond(bps) => Some(*bps),
            Rate::Trace(trace) => Some(trace.mean_bits_per_second()),
        }
    }
}

/// The smallest default queue, in packets: dummynet's default of 50 slots (ipfw(8)), the
/// emulator behind WebPageTest's original agents, and room for four HTTP/1.0 connections'
/// initial windows of 10 segments at once.
pub const MIN_DEFAULT_QUEUE_PACKETS: u32 = 50;

/// The default queue of a direction: one bandwidth-delay product, so that a single TCP flow
/// still fills the link after halving its window on a loss, and never fewer than
/// [`MIN_DEFAULT_QUEUE_PACKETS`] packets of `mtu` bytes.
pub fn default_queue(rate: &Rate, rtt: Duration, mtu: u32) -> QueueLimit {
    let bdp_bytes = rate.mean_bits_per_second().map_or(0, |bps| {
        (u128::from(bps) * rtt.as_nanos() / 8 / 1_000_000_000) as u64
    });
    let bdp_packets = bdp_bytes.div_ceil(u64::from(mtu));
    QueueLimit::Packets(MIN_DEFAULT_QUEUE_PACKETS.max(bdp_packets.min(u64::from(u32::MAX)) as u32))
}

/// The largest RTT a link may have.
pub const MAX_RTT: Duration = Duration::from_secs(10);
/// Loss at or above this share is refused: TCP would spend the run in timeouts.
pub const MAX_LOSS_PERCENT: f64 = 50.0;
/// MTU bounds: an MSS (MTU − 40) of at least 88 bytes, as `--mss` allows, up to 64 KiB.
pub const MTU_RANGE: std::ops::RangeInclusive<u32> = 128..=65_535;
pub const DEFAULT_MTU: u32 = 1500;

/// The forms `--link` accepts, for error messages.
pub fn valid_forms() -> String {
    format!(
        "valid forms: a profile ({}); a custom link down=RATE,up=RATE,rtt=TIME[,loss=PERCENT]\
         [,burst=PACKETS][,queue=PACKETS|BYTESB][,mtu=BYTES] (e.g. down=2mbit,up=375kbit,\
         rtt=50ms,loss=1%; rate=RATE sets both directions; a direction without a rate is not \
         shaped); trace:UP_FILE,DOWN_FILE (Mahimahi traces) with optional rtt=, loss=, queue=, \
         mtu=; a profile followed by overrides (3G,rtt=100ms,loss=0.5%). Rates in bit, kbit, \
         mbit or gbit; times in us, ms (the default) or s; loss in percent",
        profiles::names().join(", ")
    )
}

/// Why a `--link` or `--sweep` text was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{flag} {input}: {reason}\n  {forms}", forms = valid_forms())]
pub struct SpecError {
    /// `link` or `sweep`.
    pub flag: &'static str,
    pub input: String,
    pub reason: SpecReason,
}

/// What is wrong with a `--link` or `--sweep` text (the [`SpecError`] names the flag and the
/// text); each variant names the item or setting it is about.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecReason {
    #[error("trace: needs two files, trace:UP_FILE,DOWN_FILE")]
    TraceNeedsTwoFiles,
    #[error(transparent)]
    Trace(#[from] TraceError),
    #[error("{key}=: a trace link takes its rates from its trace files")]
    RateOfTrace { key: String },
    /// A setting whose value does not parse.
    #[error("{key}={value}: {source}")]
    Value {
        key: String,
        value: String,
        #[source]
        source: UnitError,
    },
    #[error("rtt={value}: an RTT over {} s is refused", MAX_RTT.as_secs())]
    RttTooLong { value: String },
    #[error(
        "loss={value}: loss of {MAX_LOSS_PERCENT}% or more is refused (TCP would spend the run \
         in timeouts)"
    )]
    LossTooHigh { value: String },
    #[error("burst={value}: the mean length of a loss burst is at least 1 packet")]
    BurstTooShort { value: String },
    #[error("mtu={value}: not a whole number of bytes")]
    MtuNotWhole { value: String },
    #[error("mtu={value}: must be {} to {} bytes", MTU_RANGE.start(), MTU_RANGE.end())]
    MtuOutOfRange { value: String },
    #[error("unknown setting {key:?} (settings: down, up, rate, rtt, loss, burst, queue, mtu)")]
    UnknownSetting { key: String },
    #[error("queue={bytes}B is smaller than one packet of the MTU ({mtu} bytes)")]
    QueueBelowMtu { bytes: u64, mtu: u32 },
    #[error("an empty item (two commas in a row, or a comma at an end)")]
    EmptyItem,
    #[error("loopback takes no settings ({token}); use a custom link instead")]
    LoopbackSettings { token: String },
    #[error("unknown profile {token:?}")]
    UnknownProfile { token: String },
    #[error("no link given")]
    NoLink,
    #[error("expected KEY=V1,V2,… (e.g. rtt=20,40,80 or loss=0,0.5,1)")]
    SweepSyntax,
    #[error("an empty value")]
    SweepEmptyValue,
    #[error("a sweep needs an emulated base link; loopback has nothing to vary")]
    SweepOfLoopback,
}

/// A link being assembled from a profile or a custom spec and its overrides.
#[derive(Debug, Clone)]
struct Draft {
    name: String,
    down: Rate,
    up: Rate,
    is_trace: bool,
    rtt: Duration,
    loss_percent: f64,
    burst: Option<f64>,
    queue: Option<QueueLimit>,
    mtu: u32,
}

impl Draft {
    fn custom() -> Self {
        Draft {
            name: String::new(),
            down: Rate::Unlimited,
            up: Rate::Unlimited,
            is_trace: false,
            rtt: Duration::ZERO,
            loss_percent: 0.0,
            burst: None,
            queue: None,
            mtu: DEFAULT_MTU,
        }
    }

    fn from_profile(p: &Profile) -> Self {
        Draft {
            name: p.name.to_string(),
            down: Rate::BitsPerSecond(p.down_bps),
            up: Rate::BitsPerSecond(p.up_bps),
            rtt: p.rtt,
            loss_percent: p.loss_percent,
            ..Draft::custom()
        }
    }

    fn from_traces(up: &str, down: &str) -> Result<Self, SpecReason> {
        if up.is_empty() || down.is_empty() || down.contains('=') {
            return Err(SpecReason::TraceNeedsTwoFiles);
        }
        Ok(Draft {
            name: format!("trace:{up},{down}"),
            up: Rate::Trace(Trace::load(Path::new(up))?),
            down: Rate::Trace(Trace::load(Path::new(down))?),
            is_trace: true,
            ..Draft::custom()
        })
    }

    /// Applies one `key=value`, and records it in the name in normalised form.
    fn apply(&mut self, key: &str, value: &str) -> Result<(), SpecReason> {
        let key = key.trim().to_ascii_lowercase();
        let value = value.trim();
        let refused = |source: UnitError| SpecReason::Value {
            key: key.clone(),
            value: value.to_string(),
            source,
        };
        let value_of = || value.to_string();
        let shown = match key.as_str() {
            "down" | "up" | "rate" => {
                if self.is_trace {
                    return Err(SpecReason::RateOfTrace { key: key.clone() });
                }
                let bps = units::parse_rate(value).map_err(refused)?;
                if key != "up" {
                    self.down = Rate::BitsPerSecond(bps);
                }
                if key != "down" {
                    self.up = Rate::BitsPerSecond(bps);
                }
                units::rate_token(bps)
            }
            "rtt" => {
                let rtt = units::parse_time(value).map_err(refused)?;
                if rtt > MAX_RTT {
                    return Err(SpecReason::RttTooLong { value: value_of() });
                }
                self.rtt = rtt;
                units::time_token(rtt)
            }
            "loss" => {
                let pct = units::parse_percent(value).map_err(refused)?;
                if pct >= MAX_LOSS_PERCENT {
                    return Err(SpecReason::LossTooHigh { value: value_of() });
                }
                self.loss_percent = pct;
                format!("{}%", units::decimal(pct))
            }
            "burst" => {
                let burst = units::parse_number(value).map_err(refused)?;
                if burst < 1.0 {
                    return Err(SpecReason::BurstTooShort { value: value_of() });
                }
                self.burst = Some(burst);
                units::decimal(burst)
            }
            "queue" => {
                let queue = units::parse_queue(value).map_err(refused)?;
                self.queue = Some(queue);
                units::queue_token(queue)
            }
            "mtu" => {
                let mtu: u32 = value
                    .parse()
                    .map_err(|_| SpecReason::MtuNotWhole { value: value_of() })?;
                if !MTU_RANGE.contains(&mtu) {
                    return Err(SpecReason::MtuOutOfRange { value: value_of() });
                }
                self.mtu = mtu;
                mtu.to_string()
            }
            _ => return Err(SpecReason::UnknownSetting { key: key.clone() }),
        };
        if !self.name.is_empty() {
            self.name.push(',');
        }
        self.name.push_str(&format!("{key}={shown}"));
        Ok(())
    }

    /// Checks what only the whole link can tell, and resolves the default queues.
    fn build(self) -> Result<LinkSpec, SpecReason> {
        if let Some(QueueLimit::Bytes(bytes)) = self.queue {
            if bytes < u64::from(self.mtu) {
                return Err(SpecReason::QueueBelowMtu {
                    bytes,
                    mtu: self.mtu,
                });
            }
        }
        let loss = match (self.loss_percent, self.burst) {
            (0.0, _) => Loss::None,
            (pct, None) => Loss::Bernoulli { rate: pct / 100.0 },
            (pct, Some(burst)) => Loss::Bursts {
                rate: pct / 100.0,
                burst,
            },
        };
        let direction = |rate: Rate| Direction {
            queue: self
                .queue
                .unwrap_or_else(|| default_queue(&rate, self.rtt, self.mtu)),
            delay: self.rtt / 2,
            loss,
            rate,
        };
        Ok(LinkSpec {
            up: direction(self.up.clone()),
            down: direction(self.down.clone()),
            mtu: self.mtu,
            name: self.name,
        })
    }
}

/// One item of a link list while it is parsed.
enum Item {
    Loopback,
    Draft(Draft),
}

/// Parses a `--link` value: one or more links separated by commas, where `key=value` items
/// modify the link before them (or, at the start, make a custom link).
pub fn parse(text: &str) -> Result<Vec<Link>, SpecError> {
    let error = |reason: SpecReason| SpecError {
        flag: "link",
        input: text.to_string(),
        reason,
    };
    let items = parse_items(text).map_err(error)?;
    items
        .into_iter()
        .map(|item| match item {
            Item::Loopback => Ok(Link::Loopback),
            Item::Draft(draft) => draft.build().map(|spec| Link::Emulated(Box::new(spec))),
        })
        .collect::<Result<_, _>>()
        .map_err(error)
}

fn parse_items(text: &str) -> Result<Vec<Item>, SpecReason> {
    let mut items: Vec<Item> = Vec::new();
    let mut tokens = text.split(',').map(str::trim);
    while let Some(token) = tokens.next() {
        if token.is_empty() {
            return Err(SpecReason::EmptyItem);
        }
        if let Some((key, value)) = token.split_once('=') {
            match items.last_mut() {
                Some(Item::Draft(draft)) => draft.apply(key, value)?,
                Some(Item::Loopback) => {
                    return Err(SpecReason::LoopbackSettings {
                        token: token.to_string(),
                    })
                }
                None => {
                    let mut draft = Draft::custom();
                    draft.apply(key, value)?;
                    items.push(Item::Draft(draft));
                }
            }
        } else if let Some(up) = token.strip_prefix("trace:") {
            let down = tokens.next().unwrap_or("");
            items.push(Item::Draft(Draft::from_traces(up.trim(), down)?));
        } else if token.eq_ignore_ascii_case("loopback") {
            items.push(Item::Loopback);
        } else {
            let profile = profiles::find(token).ok_or_else(|| SpecReason::UnknownProfile {
                token: token.to_string(),
            })?;
            items.push(Item::Draft(Draft::from_profile(profile)));
        }
    }
    if items.is_empty() {
        return Err(SpecReason::NoLink);
    }
    Ok(items)
}

/// Expands a `--sweep KEY=V1,V2,…` over the `--link` value `base`: one link per base link and
/// value, each the base with `KEY=V` applied (`rtt=20,40` → `spdy-cable,rtt=20ms`, …).
pub fn sweep(base: &str, sweep: &str) -> Result<Vec<Link>, SpecError> {
    let error = |reason: SpecReason| SpecError {
        flag: "sweep",
        input: sweep.to_string(),
        reason,
    };
    let (key, values) = sweep
        .split_once('=')
        .ok_or_else(|| error(SpecReason::SweepSyntax))?;
    let values: Vec<&str> = values.split(',').map(str::trim).collect();
    if values.iter().any(|v| v.is_empty()) {
        return Err(error(SpecReason::SweepEmptyValue));
    }
    let items = parse_items(base).map_err(|reason| SpecError {
        flag: "link",
        input: base.to_string(),
        reason,
    })?;
    let mut links = Vec::new();
    for item in items {
        let Item::Draft(draft) = item else {
            return Err(error(SpecReason::SweepOfLoopback));
        };
        for value in &values {
            let mut point = draft.clone();
            point.apply(key, value).map_err(error)?;
            links.push(Link::Emulated(Box::new(point.build().map_err(error)?)));
        }
    }
    Ok(links)
}

#[cfg(test)]
#[path = "spec_tests.rs"]
mod tests;
