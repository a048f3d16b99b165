//! Seeded, portable random sampling.
//!
//! ChaCha8 produces the same stream on every platform, and every transcendental function
//! goes through `libm` (a pure-Rust port of musl's math), so a run in the browser is
//! byte-identical to the same run natively: the platform's own `ln` may differ in the last bit.

use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

pub struct SimRng(ChaCha8Rng);

impl SimRng {
    pub fn new(seed: u64) -> Self {
        Self(ChaCha8Rng::seed_from_u64(seed))
    }

    /// An independent stream derived from this seed, so that adding draws in one component
    /// does not shift the numbers another component sees.
    pub fn stream(seed: u64, stream: u64) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(stream);
        Self(rng)
    }

    /// Uniform in [0, 1).
    pub fn uniform(&mut self) -> f64 {
        // 53 random bits, exactly representable.
        (self.0.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in (0, 1]: safe to take the logarithm of.
    fn uniform_open0(&mut self) -> f64 {
        1.0 - self.uniform()
    }

    /// Uniform integer in [0, n). `n` must be positive.
    pub fn below(&mut self, n: u64) -> u64 {
        self.0.random_range(0..n.max(1))
    }

    /// Exponential with the given mean.
    pub fn exponential(&mut self, mean: f64) -> f64 {
        -mean * libm::log(self.uniform_open0())
    }

    /// Standard normal by Box–Muller.
    pub fn normal(&mut self) -> f64 {
        let u1 = self.uniform_open0();
        let u2 = self.uniform();
        libm::sqrt(-2.0 * libm::log(u1)) * libm::cos(std::f64::consts::TAU * u2)
    }

    /// Lognormal with the given mean and coefficient of variation (sd / mean).
    pub fn lognormal(&mut self, mean: f64, cv: f64) -> f64 {
        let sigma2 = libm::log1p(cv * cv);
        let mu = libm::log(mean) - sigma2 / 2.0;
        libm::exp(mu + libm::sqrt(sigma2) * self.normal())
    }

    /// Uniform in [lo, hi).
    pub fn between(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.uniform()
    }
}

/// Milliseconds (possibly fractional) to whole microseconds, never negative.
pub fn ms_to_us(ms: f64) -> u64 {
    if ms.is_finite() && ms > 0.0 { libm::round(ms * 1000.0) as u64 } else { 0 }
}
