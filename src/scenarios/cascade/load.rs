//! The load generators, and the run's random times: Node's timer lateness, the spread of
//! network and CPU times.

use super::spec::Arrivals;
use crate::sim::Micros;
use crate::sim::rng::SimRng;

/// One route's load generator: its own random stream, the mean gap between requests, and
/// when the next one is due (fractional, so paced gaps do not round away).
pub(super) struct LoadGenerator {
    rng: SimRng,
    gap_us: f64,
    next: f64,
}

impl LoadGenerator {
    pub(super) fn new(rng: SimRng, rate: f64) -> Self {
        Self { rng, gap_us: if rate > 0.0 { 1e6 / rate } else { 0.0 }, next: 0.0 }
    }

    /// The next request, if it falls inside the load. A paced generator re-arms its interval
    /// timer after each (late) tick, as Node's setInterval does, so lateness adds up.
    pub(super) fn next(&mut self, arrivals: Arrivals, late_us: f64, load_end: Micros) -> Option<Micros> {
        if self.gap_us <= 0.0 {
            return None;
        }
        let step = match arrivals {
            Arrivals::Poisson => self.rng.exponential(self.gap_us),
            Arrivals::Paced => self.gap_us + late(&mut self.rng, late_us),
        };
        self.next += step;
        let t = libm::round(self.next) as Micros;
        (t < load_end).then_some(t)
    }
}

/// How late a Node timer fires: uniform in [0, 2 × mean).
pub(super) fn late(rng: &mut SimRng, mean_us: f64) -> f64 {
    if mean_us > 0.0 { rng.between(0.0, 2.0 * mean_us) } else { 0.0 }
}

/// A network or CPU time with the configured spread.
pub(super) fn jittered(rng: &mut SimRng, mean_us: f64, cv: f64) -> Micros {
    if mean_us <= 0.0 {
        return 0;
    }
    let x = if cv > 0.0 { mean_us * rng.lognormal(1.0, cv) } else { mean_us };
    libm::round(x) as Micros
}
