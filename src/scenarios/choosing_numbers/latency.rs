//! A dependency's latency as the caller measures it, from three numbers a dashboard gives: p50,
//! p99 and p99.9.
//!
//! The fit. Up to p99 the latency is log-normal through p50 and p99: `ln X` is normal with mean
//! `ln p50` and standard deviation `(ln p99 − ln p50) / z₀.₉₉` (z₀.₉₉ = 2.3263…, the standard
//! normal's 99th percentile). A log-normal alone cannot honour a third quantile, so above p99
//! the tail is a Pareto segment that starts at p99 and passes through p99.9: the quantile at
//! `u > 0.99` is `p99 · (0.01 / (1 − u))^α` with `α = log₁₀(p99.9 / p99)`, so at `u = 0.999` it
//! is exactly p99.9, and the share slower than `t > p99` is `0.01 · (p99 / t)^(1/α)`. The two
//! pieces meet at p99, so the quantile function is continuous and increasing. Samples are drawn
//! by inverting it (one uniform per sample), so every sampled quantile lands on the fitted one
//! up to sampling error (`tests/choosing_numbers.rs` checks 1M samples to within 3%).
//!
//! Out-of-order inputs are put in order: p99 is at least p50, p99.9 at least p99 (equal values
//! give no spread: every call below takes exactly that long). No call takes longer than
//! [`MAX_LATENCY_MS`]: the far tail of a Pareto segment is unbounded, and a real server has a
//! limit of its own.

/// The standard normal's 99th percentile.
pub const Z99: f64 = 2.326_347_874_040_841;
/// The longest any call takes (ms): the callee's own limit on a request.
pub const MAX_LATENCY_MS: f64 = 60_000.0;

/// A fitted latency distribution, in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Latency {
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub p999_ms: f64,
    mu: f64,
    sigma: f64,
    alpha: f64,
}

impl Latency {
    /// The distribution through `p50`, `p99` and `p99.9` (ms), put in order first.
    pub fn fit(p50_ms: f64, p99_ms: f64, p999_ms: f64) -> Self {
        let p50 = p50_ms.max(1e-3);
        let p99 = p99_ms.max(p50);
        let p999 = p999_ms.max(p99);
        Self {
            p50_ms: p50,
            p99_ms: p99,
            p999_ms: p999,
            mu: libm::log(p50),
            sigma: libm::log(p99 / p50) / Z99,
            alpha: libm::log10(p999 / p99),
        }
    }

    /// The same body and tail shape with p99 moved to `p99_ms` (a drift): p50 stays, p99.9
    /// moves by the same factor as p99 (the tail keeps its ratio p99.9 / p99).
    pub fn drifted(&self, p99_ms: f64) -> Self {
        let p99 = p99_ms.max(self.p50_ms);
        Self::fit(self.p50_ms, p99, p99 * self.p999_ms / self.p99_ms)
    }

    /// The `u` quantile (0 ≤ u < 1), in ms.
    pub fn quantile(&self, u: f64) -> f64 {
        let x = if u <= 0.99 && self.sigma == 0.0 {
            self.p50_ms
        } else if u <= 0.99 {
            libm::exp(self.mu + self.sigma * inverse_normal(u.max(1e-12)))
        } else {
            let rest = (1.0 - u).max(f64::EPSILON / 2.0);
            self.p99_ms * libm::pow(0.01 / rest, self.alpha)
        };
        x.min(MAX_LATENCY_MS)
    }

    /// The share of calls slower than `t_ms` (0 to 1).
    pub fn tail(&self, t_ms: f64) -> f64 {
        if t_ms >= MAX_LATENCY_MS {
            return 0.0;
        }
        if t_ms < self.p99_ms {
            if t_ms <= 0.0 {
                return 1.0;
            }
            if self.sigma == 0.0 {
                return 1.0; // every call takes p50 = p99, which is longer than t
            }
            let z = (libm::log(t_ms) - self.mu) / self.sigma;
            return 0.5 * libm::erfc(z / std::f64::consts::SQRT_2);
        }
        if self.alpha == 0.0 {
            return 0.0;
        }
        0.01 * libm::pow(self.p99_ms / t_ms, 1.0 / self.alpha)
    }

    /// The mean (ms): what a call is expected to take. The body by a midpoint sum over its
    /// quantiles; the tail exactly (`p99 · 0.01 / (1 − α)`), capped at the share of the limit.
    pub fn mean_ms(&self) -> f64 {
        const SLICES: usize = 990;
        let body: f64 = (0..SLICES).map(|i| self.quantile((i as f64 + 0.5) / 1000.0)).sum::<f64>() / 1000.0;
        let tail = if self.alpha < 1.0 { self.p99_ms * 0.01 / (1.0 - self.alpha) } else { f64::INFINITY };
        body + tail.min(0.01 * MAX_LATENCY_MS)
    }
}

/// The standard normal's quantile function: Acklam's rational approximation, within 1.2e-9 of
/// the exact value relative to it (far below the sampling error of any run).
pub fn inverse_normal(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] =
        [-5.447_609_879_822_406e1, 1.615_858_368_580_409e2, -1.556_989_798_598_866e2, 6.680_131_188_771_972e1, -1.328_068_155_288_572e1];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] = [7.784_695_709_041_462e-3, 3.224_671_290_700_398e-1, 2.445_134_137_142_996, 3.754_408_661_907_416];
    const LOW: f64 = 0.024_25;
    let p = p.clamp(1e-300, 1.0 - 1e-16);
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    if p < LOW {
        tail(libm::sqrt(-2.0 * libm::log(p)))
    } else if p <= 1.0 - LOW {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    } else {
        -tail(libm::sqrt(-2.0 * libm::log1p(-p)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fit_passes_through_the_three_quantiles() {
        let l = Latency::fit(40.0, 180.0, 310.0);
        for (u, want) in [(0.5, 40.0), (0.99, 180.0), (0.999, 310.0)] {
            let got = l.quantile(u);
            assert!((got - want).abs() < 1e-6 * want, "q{u}: {got} vs {want}");
            assert!((l.tail(want) - (1.0 - u)).abs() < 1e-8, "tail at {want}: {}", l.tail(want));
        }
    }

    #[test]
    fn the_inverse_normal_inverts_the_normal() {
        for p in [1e-9, 0.001, 0.02, 0.3, 0.5, 0.77, 0.99, 0.999_999] {
            let x = inverse_normal(p);
            let back = 0.5 * libm::erfc(-x / std::f64::consts::SQRT_2);
            assert!((back - p).abs() < 1e-8 * p.max(1e-3), "{p}: {back}");
        }
        assert!((inverse_normal(0.99) - Z99).abs() < 1e-8);
    }

    #[test]
    fn out_of_order_inputs_are_put_in_order() {
        let l = Latency::fit(100.0, 50.0, 20.0);
        assert_eq!((l.p50_ms, l.p99_ms, l.p999_ms), (100.0, 100.0, 100.0));
        assert_eq!(l.quantile(0.3), 100.0);
        assert_eq!(l.quantile(0.9999), 100.0);
    }

    #[test]
    fn a_drift_moves_p99_and_keeps_the_tail_ratio() {
        let d = Latency::fit(40.0, 180.0, 310.0).drifted(450.0);
        assert_eq!(d.p50_ms, 40.0);
        assert!((d.quantile(0.99) - 450.0).abs() < 1e-6);
        assert!((d.p999_ms - 775.0).abs() < 1e-9);
    }
}
