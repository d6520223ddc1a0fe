//! Mahimahi-format link traces: variable-rate links (cellular, Wi-Fi) as users already record
//! them. One integer per line, a millisecond timestamp at which one 1500-byte packet may leave
//! the queue; equal lines mean several packets in that millisecond; when the file runs out it
//! repeats, shifted by its last timestamp. A constant 12 Mbit/s is "1", "2", "3", ….

use std::path::Path;

use serde::{Deserialize, Serialize};

/// The bytes one line of a trace lets through: one MTU-sized IP packet, as the format defines
/// it (Mahimahi's 1504 counts the 4-byte TUN header its devices carry; ours carry none).
pub const OPPORTUNITY_BYTES: u32 = 1500;

/// Why a trace file was refused; each variant names the trace (and the line).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TraceError {
    #[error("trace {path}: {reason}")]
    Unreadable { path: String, reason: String },
    #[error("trace {path}: not UTF-8 text")]
    NotText { path: String },
    #[error("trace {path}, line {line}: {text:?} is not a whole number of milliseconds")]
    NotMilliseconds {
        path: String,
        line: usize,
        text: String,
    },
    #[error(
        "trace {path}, line {line}: {ms} ms comes before the previous line's {last} ms; \
         timestamps must never decrease (not monotonic)"
    )]
    Decreasing {
        path: String,
        line: usize,
        ms: u64,
        last: u64,
    },
    #[error("trace {path}: empty, it holds no timestamps")]
    Empty { path: String },
    #[error("trace {path}: every timestamp is 0, so the trace lasts no time and cannot repeat")]
    NoDuration { path: String },
}

/// A loaded trace: its delivery opportunities, in milliseconds from the start of the link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trace {
    /// Where it was read from (for messages and listings).
    pub path: String,
    /// Non-decreasing; the last one is > 0 and is the period after which the trace repeats.
    pub opportunities_ms: Vec<u64>,
}

impl Trace {
    /// Reads and checks a trace file: it must hold at least one timestamp, every line a whole
    /// number of milliseconds, never less than the line before, and last longer than 0 ms.
    pub fn load(path: &Path) -> Result<Trace, TraceError> {
        let bytes =
            crate::input::read_limited(path, crate::input::MAX_TRACE_BYTES).map_err(|e| {
                TraceError::Unreadable {
                    path: path.display().to_string(),
                    reason: e.to_string(),
                }
            })?;
        let text = String::from_utf8(bytes).map_err(|_| TraceError::NotText {
            path: path.display().to_string(),
        })?;
        Trace::parse(&path.display().to_string(), &text)
    }

    /// Parses trace text (see [`Trace::load`]); `path` only names it in messages.
    pub fn parse(path: &str, text: &str) -> Result<Trace, TraceError> {
        let mut opportunities_ms: Vec<u64> = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            let ms: u64 = line.parse().map_err(|_| TraceError::NotMilliseconds {
                path: path.to_string(),
                line: i + 1,
                text: line.to_string(),
            })?;
            if let Some(&last) = opportunities_ms.last() {
                if ms < last {
                    return Err(TraceError::Decreasing {
                        path: path.to_string(),
                        line: i + 1,
                        ms,
                        last,
                    });
                }
            }
            opportunities_ms.push(ms);
        }
        match opportunities_ms.last() {
            None => Err(TraceError::Empty {
                path: path.to_string(),
            }),
            Some(0) => Err(TraceError::NoDuration {
                path: path.to_string(),
            }),
            Some(_) => Ok(Trace {
                path: path.to_string(),
                opportunities_ms,
            }),
        }
    }

    /// The length of one pass, after which the trace repeats.
    pub fn period_ms(&self) -> u64 {
        *self
            .opportunities_ms
            .last()
            .expect("a loaded trace is not empty")
    }

    /// The long-run rate: opportunities × 1500 bytes over one period.
    pub fn mean_bits_per_second(&self) -> u64 {
        self.opportunities_ms.len() as u64 * u64::from(OPPORTUNITY_BYTES) * 8 * 1000
            / self.period_ms()
    }

    /// The time of opportunity number `k`, counting across repetitions, in ns from the start.
    pub fn time_ns(&self, k: u64) -> u64 {
        let n = self.opportunities_ms.len() as u64;
        let ms = (k / n) * self.period_ms() + self.opportunities_ms[(k % n) as usize];
        ms * 1_000_000
    }

    /// The first opportunity at or after `t_ns`.
    pub fn first_at_or_after(&self, t_ns: u64) -> u64 {
        let n = self.opportunities_ms.len() as u64;
        let period_ns = self.period_ms() * 1_000_000;
        // Opportunities of pass p lie in [p·period, (p+1)·period]; start one pass early so a
        // timestamp equal to the period (the next pass's first instant) is not skipped.
        let pass = (t_ns / period_ns).saturating_sub(1);
        let within = |k: u64| self.time_ns(k) >= t_ns;
        let (mut lo, mut hi) = (pass * n, (pass + 3) * n);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if within(mid) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        lo
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_per_millisecond_is_twelve_megabits() {
        let text: String = (1..=1000).map(|ms| format!("{ms}\n")).collect();
        let trace = Trace::parse("12mbit", &text).unwrap();
        assert_eq!(trace.mean_bits_per_second(), 12_000_000);
    }

    #[test]
    fn an_empty_trace_is_rejected() {
        let err = Trace::parse("t", "\n\n").unwrap_err();
        assert!(
            matches!(&err, TraceError::Empty { path } if path == "t"),
            "{err:?}"
        );
        assert!(err.to_string().contains("empty"), "{err}");
    }

    #[test]
    fn a_decreasing_trace_is_rejected_with_its_line() {
        let err = Trace::parse("t", "1\n5\n3\n").unwrap_err();
        assert!(
            matches!(
                err,
                TraceError::Decreasing {
                    line: 3,
                    ms: 3,
                    last: 5,
                    ..
                }
            ),
            "{err:?}"
        );
        let err = err.to_string();
        assert!(err.contains("line 3") && err.contains("monotonic"), "{err}");
    }

    #[test]
    fn a_trace_of_zeros_is_rejected() {
        assert!(Trace::parse("t", "0\n0\n").is_err());
    }

    #[test]
    fn a_non_number_is_rejected_with_its_line() {
        let err = Trace::parse("t", "1\nfast\n").unwrap_err();
        assert!(
            matches!(&err, TraceError::NotMilliseconds { line: 2, text, .. } if text == "fast"),
            "{err:?}"
        );
        assert!(err.to_string().contains("line 2"), "{err}");
    }

    #[test]
    fn opportunities_repeat_shifted_by_the_period() {
        let trace = Trace::parse("t", "1\n1\n3\n").unwrap();
        let times: Vec<u64> = (0..6).map(|k| trace.time_ns(k) / 1_000_000).collect();
        assert_eq!(times, [1, 1, 3, 4, 4, 6]);
    }

    #[test]
    fn the_first_opportunity_after_a_time_is_found_in_any_pass() {
        let trace = Trace::parse("t", "1\n1\n3\n").unwrap();
        assert_eq!(trace.first_at_or_after(0), 0);
        assert_eq!(trace.first_at_or_after(1_000_000), 0);
        assert_eq!(trace.first_at_or_after(1_000_001), 2);
        assert_eq!(trace.first_at_or_after(3_000_000), 2);
        assert_eq!(trace.first_at_or_after(3_500_000), 3);
        // Far ahead: pass 1000 starts at 3000 ms with opportunities at 3001, 3001, 3003.
        assert_eq!(trace.first_at_or_after(3_002_000_000), 3002);
        assert_eq!(trace.time_ns(3002), 3_003_000_000);
    }
}
