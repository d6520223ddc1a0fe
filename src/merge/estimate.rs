//! The seeded sample's estimate of the whole collection: the mean per-site time saved over
//! the sample's link, with a 95% interval (Student's t, with the finite-population
//! correction, since the sample is drawn without replacement from the list), and the total
//! it implies for every unit of the list.

use serde::{Deserialize, Serialize};

use super::Collection;

/// What the sample says about the whole.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SampleEstimate {
    pub seed: u64,
    pub link: String,
    /// Units of the list, and of the sample.
    pub population: u64,
    pub sampled: u64,
    /// Sampled units with a time over the link (others failed, or the link could not run).
    pub timed: u64,
    /// Mean per-site saving of the first visit's time, ms, and its 95% interval.
    pub mean_saved_ms: Option<f64>,
    pub mean_saved_ms_ci95: Option<(f64, f64)>,
    /// Mean per-site saving in percent of the site's time before, and its 95% interval.
    pub mean_saved_pct: Option<f64>,
    pub mean_saved_pct_ci95: Option<(f64, f64)>,
    /// `population × mean_saved_ms`: one first visit to every site, in seconds, with its
    /// 95% interval.
    pub total_saved_s: Option<f64>,
    pub total_saved_s_ci95: Option<(f64, f64)>,
}

/// The estimate from the collection's sampled rows.
pub fn estimate(c: &Collection) -> SampleEstimate {
    let sample = c
        .sample
        .clone()
        .unwrap_or_else(|| crate::batch::SampleSpec {
            size: 0,
            seed: 0,
            link: String::new(),
        });
    let times: Vec<(f64, f64)> = c
        .sampled
        .iter()
        .filter_map(|d| c.rows.get(d)?.link_time.as_ref())
        .map(|t| (t.before_ms, t.after_ms))
        .collect();
    let population = c.units.len() as u64;
    let saved: Vec<f64> = times.iter().map(|(b, a)| b - a).collect();
    let pct: Vec<f64> = times
        .iter()
        .filter(|(b, _)| *b > 0.0)
        .map(|(b, a)| (b - a) * 100.0 / b)
        .collect();
    let ms = mean_ci(&saved, population);
    let p = mean_ci(&pct, population);
    let n = population as f64;
    SampleEstimate {
        seed: sample.seed,
        link: sample.link,
        population,
        sampled: c.sampled.len() as u64,
        timed: times.len() as u64,
        mean_saved_ms: ms.map(|m| m.0),
        mean_saved_ms_ci95: ms.and_then(|m| m.1),
        mean_saved_pct: p.map(|m| m.0),
        mean_saved_pct_ci95: p.and_then(|m| m.1),
        total_saved_s: ms.map(|m| m.0 * n / 1000.0),
        total_saved_s_ci95: ms
            .and_then(|m| m.1)
            .map(|(lo, hi)| (lo * n / 1000.0, hi * n / 1000.0)),
    }
}

/// The mean, and its 95% interval when there are two values or more.
fn mean_ci(values: &[f64], population: u64) -> Option<(f64, Option<(f64, f64)>)> {
    if values.is_empty() {
        return None;
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    if values.len() < 2 {
        return Some((mean, None));
    }
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    let big_n = population as f64;
    let fpc = if big_n > 1.0 {
        ((big_n - n) / (big_n - 1.0)).max(0.0)
    } else {
        0.0
    };
    let half = t95(values.len() - 1) * (var / n * fpc).sqrt();
    Some((mean, Some((mean - half, mean + half))))
}

/// Student's t, two-sided 95%, for `df` degrees of freedom.
fn t95(df: usize) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => f64::INFINITY,
        1..=30 => T[df - 1],
        31..=60 => 2.000,
        61..=120 => 1.980,
        _ => 1.960,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sample_of_the_whole_population_has_no_sampling_error() {
        let (mean, ci) = mean_ci(&[1.0, 2.0, 3.0], 3).unwrap();
        assert_eq!(ci, Some((mean, mean)));
    }

    #[test]
    fn the_interval_holds_the_mean_and_narrows_with_more_values() {
        let few = mean_ci(&[1.0, 3.0, 2.0, 4.0], 1000).unwrap();
        let many: Vec<f64> = [1.0, 3.0, 2.0, 4.0].repeat(10);
        let more = mean_ci(&many, 1000).unwrap();
        let (lo, hi) = few.1.unwrap();
        let (lo2, hi2) = more.1.unwrap();
        assert!(lo < few.0 && few.0 < hi);
        assert!(hi2 - lo2 < hi - lo);
    }
}
