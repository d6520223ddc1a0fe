//! How late the forwarder releases packets compared with the model's schedule: the emulator's
//! own timing error, kept as a histogram (1 µs buckets up to 10 ms) so that a long run costs
//! no memory and the benchmark and `docs/links.md` can quote its distribution.

use serde::{Deserialize, Serialize};

/// Buckets of 1 µs from 0 to this many µs; later releases go in the overflow.
const MAX_US: usize = 10_000;

/// A histogram of release lateness (actual − scheduled).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lateness {
    buckets: Vec<u64>,
    overflow: u64,
    count: u64,
    sum_ns: u64,
    max_ns: u64,
}

impl Default for Lateness {
    fn default() -> Self {
        Lateness {
            buckets: vec![0; MAX_US + 1],
            overflow: 0,
            count: 0,
            sum_ns: 0,
            max_ns: 0,
        }
    }
}

impl Lateness {
    pub fn record(&mut self, late_ns: u64) {
        let us = (late_ns / 1000) as usize;
        match self.buckets.get_mut(us) {
            Some(bucket) => *bucket += 1,
            None => self.overflow += 1,
        }
        self.count += 1;
        self.sum_ns += late_ns;
        self.max_ns = self.max_ns.max(late_ns);
    }

    /// Adds another histogram's samples (the two directions of a link).
    pub fn merge(&mut self, other: &Lateness) {
        for (a, b) in self.buckets.iter_mut().zip(&other.buckets) {
            *a += b;
        }
        self.overflow += other.overflow;
        self.count += other.count;
        self.sum_ns += other.sum_ns;
        self.max_ns = self.max_ns.max(other.max_ns);
    }

    /// The `q` quantile (0–1) in µs, as the upper edge of its 1 µs bucket; `None` without
    /// samples, and the maximum when it falls in the overflow.
    pub fn quantile_us(&self, q: f64) -> Option<f64> {
        if self.count == 0 {
            return None;
        }
        let rank = ((q * self.count as f64).ceil() as u64).clamp(1, self.count);
        let mut seen = 0;
        for (us, n) in self.buckets.iter().enumerate() {
            seen += n;
            if seen >= rank {
                return Some((us + 1) as f64);
            }
        }
        Some(self.max_ns as f64 / 1000.0)
    }

    pub fn summary(&self) -> TimingSummary {
        let q = |q| self.quantile_us(q).unwrap_or(0.0);
        TimingSummary {
            packets: self.count,
            mean_us: if self.count == 0 {
                0.0
            } else {
                self.sum_ns as f64 / self.count as f64 / 1000.0
            },
            p50_us: q(0.5),
            p99_us: q(0.99),
            p999_us: q(0.999),
            max_us: self.max_ns as f64 / 1000.0,
        }
    }
}

/// The distribution of release lateness, in µs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TimingSummary {
    pub packets: u64,
    pub mean_us: f64,
    pub p50_us: f64,
    pub p99_us: f64,
    pub p999_us: f64,
    pub max_us: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_come_from_the_buckets() {
        let mut h = Lateness::default();
        for us in 0..100 {
            h.record(us * 1000 + 500);
        }
        assert_eq!(h.quantile_us(0.5), Some(50.0));
        assert_eq!(h.quantile_us(0.99), Some(99.0));
        assert_eq!(h.summary().max_us, 99.5);
    }

    #[test]
    fn late_outliers_land_in_the_overflow_and_the_maximum() {
        let mut h = Lateness::default();
        h.record(1000);
        h.record(50_000_000);
        assert_eq!(h.quantile_us(1.0), Some(50_000.0));
        let mut other = Lateness::default();
        other.record(2000);
        h.merge(&other);
        assert_eq!(h.summary().packets, 3);
    }

    #[test]
    fn an_empty_histogram_has_no_quantiles() {
        assert_eq!(Lateness::default().quantile_us(0.5), None);
    }
}
