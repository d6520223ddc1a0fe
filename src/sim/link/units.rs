//! Reading and writing the quantities of a link spec: rates (`2mbit`), times (`50ms`),
//! percentages (`1%`), queue sizes (`100`, `64000B`), in both directions, so a normalised name
//! parses back to the same link.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// A drop-tail queue's capacity: packets waiting for the link (the one being serialized is no
/// longer waiting).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum QueueLimit {
    Packets(u32),
    Bytes(u64),
}

impl QueueLimit {
    /// Whether a queue of `packets` packets and `bytes` bytes is within the limit.
    pub fn holds(&self, packets: usize, bytes: u64) -> bool {
        match *self {
            QueueLimit::Packets(n) => packets <= n as usize,
            QueueLimit::Bytes(n) => bytes <= n,
        }
    }
}

/// Why a quantity of a link spec was refused; the caller names the setting it was for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UnitError {
    #[error("not a number")]
    NotANumber,
    #[error("must be a finite number of at least 0")]
    OutOfRange,
    #[error("give a unit: bit, kbit, mbit or gbit (e.g. 2mbit)")]
    RateWithoutUnit,
    #[error(
        "{unit} is ambiguous (tc reads kbps as kilobytes per second); write kbit, mbit or gbit"
    )]
    AmbiguousRate { unit: String },
    #[error("unknown unit {unit:?}; use bit, kbit, mbit or gbit")]
    UnknownRateUnit { unit: String },
    #[error("a rate of 0 carries nothing; leave the rate out for an unshaped link")]
    ZeroRate,
    #[error("more than 1000 Gbit/s")]
    RateTooHigh,
    #[error("unknown unit {unit:?}; use us, ms or s")]
    UnknownTimeUnit { unit: String },
    #[error("too long")]
    TimeTooLong,
    #[error("a queue holds a whole number of packets or bytes, at least 1")]
    QueueNotWhole,
    #[error("too large")]
    QueueTooLarge,
    #[error("too many packets")]
    TooManyPackets,
    #[error("unknown unit {unit:?}; a number alone is packets, or give bytes as B, kB, KiB, MB")]
    UnknownQueueUnit { unit: String },
}

/// A finite, non-negative decimal number.
pub fn parse_number(text: &str) -> Result<f64, UnitError> {
    match text.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
        Ok(_) => Err(UnitError::OutOfRange),
        Err(_) => Err(UnitError::NotANumber),
    }
}

/// Splits `12.5mbit` into `(12.5, "mbit")`.
fn split_unit(text: &str) -> (&str, &str) {
    let text = text.trim();
    let at = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    (&text[..at], text[at..].trim())
}

/// A rate in bits per second: `28.8kbit`, `2mbit`, `1gbit`, `9600bit`.
pub fn parse_rate(text: &str) -> Result<u64, UnitError> {
    let (number, unit) = split_unit(text);
    let scale = match unit.to_ascii_lowercase().as_str() {
        "bit" => 1.0,
        "kbit" => 1e3,
        "mbit" => 1e6,
        "gbit" => 1e9,
        "" => return Err(UnitError::RateWithoutUnit),
        u if u.ends_with("bps") || u.ends_with("b/s") => {
            return Err(UnitError::AmbiguousRate {
                unit: u.to_string(),
            })
        }
        u => {
            return Err(UnitError::UnknownRateUnit {
                unit: u.to_string(),
            })
        }
    };
    let bps = (parse_number(number)? * scale).round();
    if bps < 1.0 {
        return Err(UnitError::ZeroRate);
    }
    if bps > 1e12 {
        return Err(UnitError::RateTooHigh);
    }
    Ok(bps as u64)
}

/// A time: `50ms`, `0.2s`, `500us`; a bare number is milliseconds (as in `--sweep rtt=20,40`).
pub fn parse_time(text: &str) -> Result<Duration, UnitError> {
    let (number, unit) = split_unit(text);
    let scale = match unit.to_ascii_lowercase().as_str() {
        "" | "ms" => 1e-3,
        "s" => 1.0,
        "us" | "µs" => 1e-6,
        u => {
            return Err(UnitError::UnknownTimeUnit {
                unit: u.to_string(),
            })
        }
    };
    let secs = parse_number(number)? * scale;
    if secs > 1e6 {
        return Err(UnitError::TimeTooLong);
    }
    Ok(Duration::from_secs_f64(secs))
}

/// A percentage, with or without the `%` sign (`1%`, `0.5`).
pub fn parse_percent(text: &str) -> Result<f64, UnitError> {
    parse_number(text.trim().trim_end_matches('%'))
}

/// A queue size: packets (`100`, `100p`) or bytes (`64000B`, `64kB`, `64KiB`).
pub fn parse_queue(text: &str) -> Result<QueueLimit, UnitError> {
    let (number, unit) = split_unit(text);
    let value = parse_number(number)?;
    if value < 1.0 || value.fract() != 0.0 {
        return Err(UnitError::QueueNotWhole);
    }
    let bytes = |scale: f64| {
        let n = value * scale;
        (n <= 1e12)
            .then_some(QueueLimit::Bytes(n as u64))
            .ok_or(UnitError::QueueTooLarge)
    };
    match unit {
        "" | "p" | "pkt" | "packets" => {
            if value > f64::from(u32::MAX) {
                return Err(UnitError::TooManyPackets);
            }
            Ok(QueueLimit::Packets(value as u32))
        }
        "B" => bytes(1.0),
        "kB" | "KB" => bytes(1e3),
        "KiB" => bytes(1024.0),
        "MB" => bytes(1e6),
        "MiB" => bytes(1_048_576.0),
        u => Err(UnitError::UnknownQueueUnit {
            unit: u.to_string(),
        }),
    }
}

/// A number without trailing zeros: `1.5`, `2`, `0.25`.
pub fn decimal(x: f64) -> String {
    let text = format!("{x:.6}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    text.to_string()
}

/// A rate as `--link` writes it, in the largest unit that keeps it short: `2mbit`, `375kbit`.
pub fn rate_token(bps: u64) -> String {
    let (scale, unit) = rate_scale(bps);
    format!("{}{}", decimal(bps as f64 / scale), unit)
}

fn rate_scale(bps: u64) -> (f64, &'static str) {
    if bps >= 1_000_000_000 {
        (1e9, "gbit")
    } else if bps >= 1_000_000 {
        (1e6, "mbit")
    } else if bps >= 1_000 {
        (1e3, "kbit")
    } else {
        (1.0, "bit")
    }
}

/// A rate for people: `2 Mbit/s`, `28.8 kbit/s`.
pub fn rate_text(bps: u64) -> String {
    let (scale, unit) = rate_scale(bps);
    let unit = match unit {
        "gbit" => "Gbit/s",
        "mbit" => "Mbit/s",
        "kbit" => "kbit/s",
        _ => "bit/s",
    };
    format!("{} {unit}", decimal(bps as f64 / scale))
}

/// A time as `--link` writes it: `50ms`, `0.5ms`.
pub fn time_token(d: Duration) -> String {
    format!("{}ms", decimal(d.as_secs_f64() * 1000.0))
}

/// A time for people: `50 ms`.
pub fn time_text(d: Duration) -> String {
    format!("{} ms", decimal(d.as_secs_f64() * 1000.0))
}

/// A queue as `--link` writes it: `100` (packets) or `64000B`.
pub fn queue_token(q: QueueLimit) -> String {
    match q {
        QueueLimit::Packets(n) => n.to_string(),
        QueueLimit::Bytes(n) => format!("{n}B"),
    }
}

/// A queue for people: `50 packets`, `64000 bytes`.
pub fn queue_text(q: QueueLimit) -> String {
    match q {
        QueueLimit::Packets(n) => format!("{n} packets"),
        QueueLimit::Bytes(n) => format!("{n} bytes"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_read_in_tc_units() {
        assert_eq!(parse_rate("28.8kbit"), Ok(28_800));
        assert_eq!(parse_rate("2Mbit"), Ok(2_000_000));
        assert_eq!(parse_rate("1.544mbit"), Ok(1_544_000));
        assert_eq!(parse_rate("1gbit"), Ok(1_000_000_000));
    }

    #[test]
    fn a_rate_of_zero_or_without_a_unit_is_refused() {
        assert_eq!(parse_rate("0mbit"), Err(UnitError::ZeroRate));
        assert_eq!(parse_rate("2"), Err(UnitError::RateWithoutUnit));
        let ambiguous = parse_rate("2mbps").unwrap_err();
        assert_eq!(
            ambiguous,
            UnitError::AmbiguousRate {
                unit: "mbps".into()
            }
        );
        assert!(parse_rate("0mbit")
            .unwrap_err()
            .to_string()
            .contains("rate of 0"));
        assert!(parse_rate("2").unwrap_err().to_string().contains("unit"));
        assert!(ambiguous.to_string().contains("ambiguous"));
    }

    #[test]
    fn bare_times_are_milliseconds() {
        assert_eq!(parse_time("20"), Ok(Duration::from_millis(20)));
        assert_eq!(parse_time("0.2s"), Ok(Duration::from_millis(200)));
        assert_eq!(parse_time("500us"), Ok(Duration::from_micros(500)));
    }

    #[test]
    fn queues_are_packets_unless_given_in_bytes() {
        assert_eq!(parse_queue("100"), Ok(QueueLimit::Packets(100)));
        assert_eq!(parse_queue("64000B"), Ok(QueueLimit::Bytes(64_000)));
        assert_eq!(parse_queue("64KiB"), Ok(QueueLimit::Bytes(65_536)));
        assert!(parse_queue("0").is_err());
        assert!(parse_queue("2.5").is_err());
    }

    #[test]
    fn tokens_read_back_as_the_same_value() {
        for bps in [28_800, 375_000, 1_544_000, 2_000_000, 12_000_000, 9600] {
            assert_eq!(parse_rate(&rate_token(bps)), Ok(bps));
        }
        for ms in [1, 20, 75, 150] {
            let d = Duration::from_millis(ms);
            assert_eq!(parse_time(&time_token(d)), Ok(d));
        }
    }

    #[test]
    fn rates_read_well() {
        assert_eq!(rate_text(28_800), "28.8 kbit/s");
        assert_eq!(rate_text(1_544_000), "1.544 Mbit/s");
        assert_eq!(rate_text(10_000_000), "10 Mbit/s");
    }
}
