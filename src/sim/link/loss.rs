//! Seeded random loss, so a lossy run can be repeated packet for packet: independent
//! (Bernoulli) losses, or bursts from a two-state Gilbert model (Gilbert–Elliott with every
//! packet lost in the bad state and none in the good one), parameterised by the mean loss rate
//! and the mean burst length.

use serde::{Deserialize, Serialize};

/// How a direction loses packets.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Loss {
    None,
    /// Each packet is lost with probability `rate`, independently of the others.
    Bernoulli {
        rate: f64,
    },
    /// Losses come in bursts: the long-run share lost is `rate`, and a burst of consecutive
    /// losses lasts `burst` packets on average (≥ 1).
    Bursts {
        rate: f64,
        burst: f64,
    },
}

impl Loss {
    /// The long-run share of packets lost.
    pub fn rate(&self) -> f64 {
        match *self {
            Loss::None => 0.0,
            Loss::Bernoulli { rate } | Loss::Bursts { rate, .. } => rate,
        }
    }
}

/// SplitMix64 (Steele, Lea and Flood, 2014): a small, fast generator with good statistical
/// quality, enough to decide losses; the same seed gives the same sequence on every machine.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1), from the top 53 bits.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The per-direction loss decision, one call per packet offered to the link.
#[derive(Debug, Clone)]
pub struct LossProcess {
    loss: Loss,
    rng: Rng,
    /// Gilbert model: in the bad (losing) state.
    bad: bool,
}

impl LossProcess {
    pub fn new(loss: Loss, seed: u64) -> Self {
        LossProcess {
            loss,
            rng: Rng::new(seed),
            bad: false,
        }
    }

    /// Whether the next packet is lost.
    pub fn lose_next(&mut self) -> bool {
        match self.loss {
            Loss::None => false,
            Loss::Bernoulli { rate } => self.rng.next_f64() < rate,
            Loss::Bursts { rate, burst } => {
                // Leave the bad state with probability r = 1/burst (so bursts last `burst`
                // packets on average) and enter it with p = rate·r/(1 − rate), which makes the
                // stationary share of bad packets p/(p + r) = rate.
                let leave = 1.0 / burst;
                let enter = rate * leave / (1.0 - rate);
                let draw = self.rng.next_f64();
                self.bad = if self.bad {
                    draw >= leave
                } else {
                    draw < enter
                };
                self.bad
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pattern(loss: Loss, seed: u64, n: usize) -> Vec<bool> {
        let mut process = LossProcess::new(loss, seed);
        (0..n).map(|_| process.lose_next()).collect()
    }

    #[test]
    fn bernoulli_loss_is_near_its_rate() {
        let lost = pattern(Loss::Bernoulli { rate: 0.02 }, 7, 200_000)
            .iter()
            .filter(|&&l| l)
            .count();
        // Mean 4000, standard deviation ≈ 62.6: ±5 σ.
        assert!((3_687..=4_313).contains(&lost), "{lost}");
    }

    #[test]
    fn the_same_seed_gives_the_same_pattern_and_another_seed_another() {
        let loss = Loss::Bernoulli { rate: 0.05 };
        assert_eq!(pattern(loss, 1, 5000), pattern(loss, 1, 5000));
        assert_ne!(pattern(loss, 1, 5000), pattern(loss, 2, 5000));
    }

    #[test]
    fn bursts_keep_the_mean_rate_and_the_mean_burst_length() {
        let losses = pattern(
            Loss::Bursts {
                rate: 0.02,
                burst: 4.0,
            },
            11,
            1_000_000,
        );
        let lost = losses.iter().filter(|&&l| l).count() as f64;
        let bursts = losses.windows(2).filter(|w| !w[0] && w[1]).count() as f64;
        let rate = lost / losses.len() as f64;
        assert!((0.018..0.022).contains(&rate), "rate {rate}");
        let mean_burst = lost / bursts;
        assert!((3.7..4.3).contains(&mean_burst), "mean burst {mean_burst}");
    }

    #[test]
    fn independent_losses_rarely_come_in_long_bursts() {
        let losses = pattern(Loss::Bernoulli { rate: 0.02 }, 11, 1_000_000);
        let lost = losses.iter().filter(|&&l| l).count() as f64;
        let bursts = losses.windows(2).filter(|w| !w[0] && w[1]).count() as f64;
        // 1 / (1 − 0.02) ≈ 1.02 packets per burst.
        assert!(lost / bursts < 1.05, "{}", lost / bursts);
    }

    #[test]
    fn no_loss_loses_nothing() {
        assert!(!pattern(Loss::None, 3, 10_000).contains(&true));
    }
}
