//! Nearest-rank percentiles and the latency summary every report uses.

use serde::Serialize;

/// Nearest-rank percentile of sorted samples.
pub fn percentile(sorted: &[u64], p: f64) -> u64 {
    nearest_rank(sorted, p).unwrap_or(0)
}

/// Nearest-rank percentile of sorted samples; `None` when there are none.
pub fn nearest_rank<T: Copy>(sorted: &[T], p: f64) -> Option<T> {
    if sorted.is_empty() {
        return None;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

/// Count, mean, p50/p95/p99 and max of latencies, in milliseconds (two decimals).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Summary {
    pub n: usize,
    pub mean: f64,
    pub p50: f64,
    pub p95: f64,
    pub p99: f64,
    pub max: f64,
}

impl Summary {
    /// Summarises samples in microseconds (negative ones allowed: a difference of two
    /// clocks).
    pub fn of_us(mut samples: Vec<i64>) -> Self {
        if samples.is_empty() {
            return Self::default();
        }
        samples.sort_unstable();
        let ms = |us: i64| round2(us as f64 / 1000.0);
        let sum: i128 = samples.iter().map(|&s| i128::from(s)).sum();
        let q = |p: f64| ms(nearest_rank(&samples, p).unwrap_or(0));
        Self {
            n: samples.len(),
            mean: round2(sum as f64 / samples.len() as f64 / 1000.0),
            p50: q(50.0),
            p95: q(95.0),
            p99: q(99.0),
            max: ms(samples[samples.len() - 1]),
        }
    }

    /// `p50 1.20 p95 3.40 p99 5.00 max 9.10 ms`.
    pub fn line(&self) -> String {
        if self.n == 0 {
            return "no samples".to_owned();
        }
        format!(
            "p50 {:.2} p95 {:.2} p99 {:.2} max {:.2} ms",
            self.p50, self.p95, self.p99, self.max
        )
    }
}

/// Rounds to two decimals, as the reports print them.
pub fn round2(x: f64) -> f64 {
    if x.is_finite() {
        (x * 100.0).round() / 100.0
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let v: Vec<u64> = (1..=100).collect();
        assert_eq!(percentile(&v, 50.0), 50);
        assert_eq!(percentile(&v, 95.0), 95);
        assert_eq!(percentile(&v, 99.0), 99);
        assert_eq!(percentile(&v, 100.0), 100);
        assert_eq!(percentile(&[7], 99.0), 7);
        assert_eq!(percentile(&[], 50.0), 0);
    }

    #[test]
    fn summarises_microseconds_as_milliseconds() {
        let s = Summary::of_us((1..=1000).rev().map(|ms| ms * 1000).collect());
        assert_eq!(s.n, 1000);
        assert_eq!((s.p50, s.p95, s.p99, s.max), (500.0, 950.0, 990.0, 1000.0));
        assert_eq!(s.mean, 500.5);
        assert_eq!(Summary::of_us(vec![-1500, 500]).p50, -1.5);
        assert_eq!(Summary::of_us(Vec::new()), Summary::default());
        assert_eq!(Summary::default().line(), "no samples");
    }
}
