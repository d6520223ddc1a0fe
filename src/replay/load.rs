//! The machine's load while time is measured: measured time on a busy machine scatters (the
//! replay's client, server and link emulator wait for a core), so the report records the
//! 1-minute load average (`/proc/loadavg`) sampled around the measured runs, and says when
//! it was too busy for those times to mean much. Simulated time does not depend on it.

use serde::{Deserialize, Serialize};

/// The load during the measured runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Load {
    /// The 1-minute load average at the start and after each measured replay.
    pub samples: Vec<f64>,
    /// The highest of them.
    pub max: f64,
    /// Cores this process may run on.
    pub cores: usize,
    /// The load exceeded the cores at some point: processes were waiting for a CPU, the
    /// replay's among them, so measured times may be late by whatever they waited.
    pub busy: bool,
}

/// Samples the load while measured runs go on.
#[derive(Debug, Clone, Default)]
pub struct Watch {
    samples: Vec<f64>,
}

impl Load {
    /// Starts watching, with a first sample.
    pub fn watch() -> Watch {
        let mut w = Watch::default();
        w.sample();
        w
    }

    /// The warning a report prints when the machine was busy, else `None`.
    pub fn warning(&self) -> Option<String> {
        self.busy.then(|| {
            format!(
                "the machine was busy while time was measured (1-minute load up to {:.1} on {} \
                 core{}): measured times may be late by the time the replay waited for a CPU; \
                 the simulated times do not depend on it",
                self.max,
                self.cores,
                if self.cores == 1 { "" } else { "s" }
            )
        })
    }
}

impl Watch {
    /// One more sample of the 1-minute load average (none where `/proc` has none).
    pub fn sample(&mut self) {
        if let Some(l) = one_minute() {
            self.samples.push(l);
        }
    }

    /// The load over the samples taken.
    pub fn finish(mut self) -> Load {
        self.sample();
        let max = self.samples.iter().copied().fold(0.0, f64::max);
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Load {
            busy: max > cores as f64,
            samples: self.samples,
            max,
            cores,
        }
    }
}

/// The 1-minute load average, from `/proc/loadavg`.
pub fn one_minute() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_load_above_the_cores_is_busy_and_warned_about() {
        let w = Watch {
            samples: vec![0.5, 3.5],
        };
        let mut load = w.finish();
        load.cores = 2;
        load.busy = load.max > 2.0;
        assert!(load.max >= 3.5 && load.busy);
        assert!(load.warning().unwrap().contains("on 2 cores"));
        let calm = Load {
            samples: vec![0.2],
            max: 0.2,
            cores: 2,
            busy: false,
        };
        assert_eq!(calm.warning(), None);
    }
}
