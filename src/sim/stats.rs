//! Streaming statistics with bounded memory: log-bucketed histograms for percentiles,
//! a sliding-window histogram for live percentiles, and decimating series for charts.
//!
//! The histogram buckets are computed with integer arithmetic only (like HdrHistogram),
//! so results are identical on every platform. Relative error is under 0.8%.

/// Values below this are stored exactly; above it, 64 sub-buckets per power of two.
const LINEAR: u64 = 128;
const SUB: u64 = 64;
/// Values are clamped to 2^42 µs (about 50 days).
const MAX_VALUE: u64 = (1 << 42) - 1;
pub const BUCKETS: usize = (LINEAR + 35 * SUB) as usize;

fn bucket_of(v: u64) -> usize {
    let v = v.min(MAX_VALUE);
    if v < LINEAR {
        return v as usize;
    }
    let magnitude = 63 - v.leading_zeros() as u64; // floor(log2 v), at least 7
    let shift = magnitude - 6;
    let top = v >> shift; // in [64, 128)
    (LINEAR + (shift - 1) * SUB + (top - SUB)) as usize
}

/// The value a bucket stands for: its midpoint.
fn bucket_value(i: usize) -> u64 {
    let i = i as u64;
    if i < LINEAR {
        return i;
    }
    let shift = (i - LINEAR) / SUB + 1;
    let top = (i - LINEAR) % SUB + SUB;
    (top << shift) + (1 << (shift - 1))
}

/// Nearest-rank position of quantile `q` among `n` values (1-based).
fn rank(q: f64, n: u64) -> u64 {
    let r = libm::ceil(q.clamp(0.0, 1.0) * n as f64) as u64;
    r.clamp(1, n)
}

/// A whole-run histogram of values in microseconds.
#[derive(Clone)]
pub struct Histogram {
    counts: Vec<u64>,
    total: u64,
    sum: u128,
    max: u64,
}

impl Default for Histogram {
    fn default() -> Self {
        Self::new()
    }
}

impl Histogram {
    pub fn new() -> Self {
        Self { counts: vec![0; BUCKETS], total: 0, sum: 0, max: 0 }
    }

    pub fn record(&mut self, v: u64) {
        self.counts[bucket_of(v)] += 1;
        self.total += 1;
        self.sum += v as u128;
        self.max = self.max.max(v);
    }

    pub fn count(&self) -> u64 {
        self.total
    }

    /// Mean in microseconds, exact; None when empty.
    pub fn mean(&self) -> Option<f64> {
        (self.total > 0).then(|| self.sum as f64 / self.total as f64)
    }

    pub fn max(&self) -> u64 {
        self.max
    }

    /// The `q` quantile in microseconds (within 0.8%); None when empty.
    pub fn quantile(&self, q: f64) -> Option<u64> {
        if self.total == 0 {
            return None;
        }
        let target = rank(q, self.total);
        let mut seen = 0;
        for (i, c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= target {
                return Some(bucket_value(i).min(self.max));
            }
        }
        Some(self.max)
    }

    /// Convenience: quantile in milliseconds.
    pub fn quantile_ms(&self, q: f64) -> Option<f64> {
        self.quantile(q).map(|us| us as f64 / 1000.0)
    }

    /// The `q` quantile of these values and `more` together, in microseconds, without recording
    /// `more`: a percentile that also counts values not final yet (a wait so far). Its scratch
    /// counts live on the stack, so a page may ask every frame. None when both are empty.
    pub fn quantile_with(&self, q: f64, more: impl Iterator<Item = u64>) -> Option<u64> {
        let mut extra = [0u32; BUCKETS];
        let (mut total, mut max) = (self.total, self.max);
        for v in more {
            extra[bucket_of(v)] += 1;
            total += 1;
            max = max.max(v);
        }
        if total == 0 {
            return None;
        }
        let target = rank(q, total);
        let mut seen = 0;
        for (i, (c, e)) in self.counts.iter().zip(&extra).enumerate() {
            seen += c + *e as u64;
            if seen >= target {
                return Some(bucket_value(i).min(max));
            }
        }
        Some(max)
    }
}

/// Percentiles over a sliding window of recent slices (e.g. the last second in ten 100 ms
/// slices). Recording and expiring are O(1) per value; a quantile query scans 36 group
/// totals and one group of 64 buckets, so it stays cheap at every sample tick.
pub struct WindowHistogram {
    counts: Vec<u32>,
    groups: Vec<u32>,
    total: u64,
    sum: u64,
    /// The bucket of every value in each live slice, to subtract when the slice expires.
    slices: Vec<Vec<u16>>,
    slice_sums: Vec<u64>,
    slice_maxes: Vec<u64>,
    current: usize,
}

const GROUP: usize = 64;

impl WindowHistogram {
    pub fn new(slices: usize) -> Self {
        let slices = slices.max(1);
        Self {
            counts: vec![0; BUCKETS],
            groups: vec![0; BUCKETS.div_ceil(GROUP)],
            total: 0,
            sum: 0,
            slices: vec![Vec::new(); slices],
            slice_sums: vec![0; slices],
            slice_maxes: vec![0; slices],
            current: 0,
        }
    }

    pub fn record(&mut self, v: u64) {
        let b = bucket_of(v);
        self.counts[b] += 1;
        self.groups[b / GROUP] += 1;
        self.total += 1;
        self.sum += v;
        self.slices[self.current].push(b as u16);
        self.slice_sums[self.current] += v;
        self.slice_maxes[self.current] = self.slice_maxes[self.current].max(v);
    }

    /// Starts a new slice, forgetting the oldest one.
    pub fn rotate(&mut self) {
        self.current = (self.current + 1) % self.slices.len();
        let old = std::mem::take(&mut self.slices[self.current]);
        for &b in &old {
            self.counts[b as usize] -= 1;
            self.groups[b as usize / GROUP] -= 1;
        }
        self.total -= old.len() as u64;
        self.sum -= self.slice_sums[self.current];
        self.slice_sums[self.current] = 0;
        self.slice_maxes[self.current] = 0;
        // Keep the allocation: a slice's size is bounded by the arrival rate.
        let mut old = old;
        old.clear();
        self.slices[self.current] = old;
    }

    pub fn count(&self) -> u64 {
        self.total
    }

    pub fn mean(&self) -> Option<f64> {
        (self.total > 0).then(|| self.sum as f64 / self.total as f64)
    }

    pub fn quantile(&self, q: f64) -> Option<u64> {
        if self.total == 0 {
            return None;
        }
        let target = rank(q, self.total);
        let mut seen = 0u64;
        for (g, &gc) in self.groups.iter().enumerate() {
            if seen + gc as u64 >= target {
                let start = g * GROUP;
                for i in start..(start + GROUP).min(BUCKETS) {
                    seen += self.counts[i] as u64;
                    if seen >= target {
                        // Never report more than the largest value actually seen.
                        let max = self.slice_maxes.iter().copied().max().unwrap_or(0);
                        return Some(bucket_value(i).min(max));
                    }
                }
            }
            seen += gc as u64;
        }
        None
    }

    pub fn quantile_ms(&self, q: f64) -> Option<f64> {
        self.quantile(q).map(|us| us as f64 / 1000.0)
    }
}

/// Time series for charts with bounded memory: when full, every other point is dropped and
/// the sampling stride doubles, so a run of any length keeps its whole shape in at most
/// `capacity` points. Each point is a row of the model's own type, so a page asks for a
/// column by name (`series.column(|r| r.p99_ms)`), never by position.
#[derive(Clone, Debug)]
pub struct Series<R> {
    times_ms: Vec<f64>,
    rows: Vec<R>,
    capacity: usize,
    stride: u64,
    offered: u64,
}

impl<R: Copy> Series<R> {
    pub fn new(capacity: usize) -> Self {
        let capacity = capacity.max(4) & !1;
        Self {
            times_ms: Vec::with_capacity(capacity),
            rows: Vec::with_capacity(capacity),
            capacity,
            stride: 1,
            offered: 0,
        }
    }

    /// Offers a sample; it is kept when it falls on the current stride.
    pub fn push(&mut self, t_ms: f64, row: R) {
        let keep = self.offered.is_multiple_of(self.stride);
        self.offered += 1;
        if !keep {
            return;
        }
        if self.times_ms.len() == self.capacity {
            let mut i = 0;
            self.times_ms.retain(|_| {
                i += 1;
                i % 2 == 1
            });
            let mut j = 0;
            self.rows.retain(|_| {
                j += 1;
                j % 2 == 1
            });
            self.stride *= 2;
            if !(self.offered - 1).is_multiple_of(self.stride) {
                return;
            }
        }
        self.times_ms.push(t_ms);
        self.rows.push(row);
    }

    /// The sample times, in ms of simulated time.
    pub fn times_ms(&self) -> &[f64] {
        &self.times_ms
    }

    pub fn rows(&self) -> &[R] {
        &self.rows
    }

    /// One column, picked by name from the row.
    pub fn column(&self, pick: impl Fn(&R) -> f64) -> Vec<f64> {
        self.rows.iter().map(pick).collect()
    }

    pub fn len(&self) -> usize {
        self.times_ms.len()
    }

    pub fn is_empty(&self) -> bool {
        self.times_ms.is_empty()
    }

    pub fn last(&self) -> Option<(f64, R)> {
        Some((*self.times_ms.last()?, *self.rows.last()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_monotone_and_tight() {
        let mut last = 0;
        for v in (0..2_000_000u64).step_by(7).chain([MAX_VALUE]) {
            let b = bucket_of(v);
            assert!(b >= last, "bucket order broke at {v}");
            assert!(b < BUCKETS);
            last = b;
            let mid = bucket_value(b) as f64;
            let err = (mid - v as f64).abs() / (v.max(1) as f64);
            assert!(err <= 0.008, "value {v} maps to {mid}, error {err}");
        }
    }

    #[test]
    fn histogram_quantiles_match_sorted_data() {
        let mut h = Histogram::new();
        for v in 1..=10_000u64 {
            h.record(v * 10);
        }
        let p50 = h.quantile(0.5).unwrap() as f64;
        let p99 = h.quantile(0.99).unwrap() as f64;
        assert!((p50 - 50_000.0).abs() / 50_000.0 < 0.01, "p50 {p50}");
        assert!((p99 - 99_000.0).abs() / 99_000.0 < 0.01, "p99 {p99}");
        assert_eq!(h.mean(), Some(50_005.0));
        assert_eq!(Histogram::new().quantile(0.5), None);
    }

    /// Counting more values without recording them is the quantile of all of them recorded.
    #[test]
    fn quantile_with_is_the_quantile_of_both() {
        let mut h = Histogram::new();
        for v in 1..=900u64 {
            h.record(v * 37);
        }
        let more = || (1..=100u64).map(|v| v * 1_000);
        let mut all = h.clone();
        more().for_each(|v| all.record(v));
        for q in [0.0, 0.5, 0.9, 0.99, 1.0] {
            assert_eq!(h.quantile_with(q, more()), all.quantile(q), "q {q}");
            assert_eq!(h.quantile_with(q, std::iter::empty()), h.quantile(q), "q {q}, nothing more");
        }
        // A value counted so far can only grow: raising it never lowers the quantile, so the
        // quantile of the values so far is the least the final one will be.
        for q in [0.5, 0.99] {
            let mut last = 0;
            for raise in [0, 10, 1_000, 100_000] {
                let now = h.quantile_with(q, more().map(|v| v + raise)).unwrap();
                assert!(now >= last, "q {q}: raising by {raise} lowered it to {now}");
                last = now;
            }
        }
        assert_eq!(Histogram::new().quantile_with(0.99, std::iter::empty()), None);
        assert_eq!(Histogram::new().quantile_with(0.99, [5_000].into_iter()), Some(5_000));
    }

    #[test]
    fn window_forgets_expired_slices() {
        let mut w = WindowHistogram::new(2);
        w.record(1_000);
        w.rotate();
        w.record(100_000);
        assert_eq!(w.count(), 2);
        w.rotate(); // the slice holding 1_000 expires
        assert_eq!(w.count(), 1);
        let p = w.quantile(0.5).unwrap() as f64;
        assert!((p - 100_000.0).abs() / 100_000.0 < 0.01);
        w.rotate();
        assert_eq!(w.count(), 0);
        assert_eq!(w.quantile(0.99), None);
    }

    #[test]
    fn series_stays_bounded_and_keeps_the_ends() {
        let mut s = Series::<f64>::new(100);
        for i in 0..100_000 {
            s.push(i as f64, i as f64);
        }
        assert!(s.len() <= 100 && s.len() >= 50, "len {}", s.len());
        assert_eq!(s.times_ms()[0], 0.0);
        assert!(s.last().unwrap().0 > 90_000.0);
        assert!(s.times_ms().windows(2).all(|w| w[0] < w[1]));
        assert_eq!(s.column(|r| *r), s.times_ms(), "each row kept with its time");
    }
}
