//! What the figure's picture draws at one moment, read off the model: the latency the
//! dependency's calls draw from now, the timeout on it and the share of calls slower than it,
//! the latest attempts landing on the latency they took (red when the timeout passed first),
//! and the slowest request so far, attempt by attempt, on a time axis as long as the settings'
//! worst wait. Nothing in it is made for the animation: every dot is an attempt the model made.

use super::latency::Latency;
use super::model::ChoosingNumbers;
use super::record::{Landed, RequestRecord};
use super::spec::ChoosingNumbersConfig;
use crate::sim::Micros;
use crate::sim::decimal::fixed;
use crate::sim::rng::ms_to_us;

/// The picture of one moment.
#[derive(Clone, Debug, PartialEq)]
pub struct Picture {
    /// The moment drawn.
    pub at: Micros,
    /// The latency calls draw from now, and whether it is the drifted one.
    pub latency: Latency,
    pub drifted: bool,
    pub timeout: Option<Micros>,
    /// The latest attempts that reached the dependency, oldest first, and how many did in all.
    pub landed: Vec<Landed>,
    pub landed_total: u64,
    /// The slowest request answered so far (the `worst_wait_ms` metric is its wait).
    pub slowest: Option<RequestRecord>,
    pub deadline: Option<Micros>,
    /// The end of the slowest request's time axis: the settings' worst wait, or the slowest
    /// wait when it is longer.
    pub axis_end: Micros,
}

impl Picture {
    /// The share of calls slower than the timeout now (%), none without a timeout.
    pub fn tail_pct(&self) -> Option<f64> {
        self.timeout.map(|t| 100.0 * self.latency.tail(t as f64 / 1000.0))
    }

    /// The kept attempts whose timeout passed first.
    pub fn landed_timed_out(&self) -> usize {
        self.landed.iter().filter(|l| l.timed_out).count()
    }

    /// What the picture draws, as JSON for its `data-drawn`: named as `run --json` names
    /// things (the metrics' `tail_at_timeout_pct` is the healthy latency's share, drawn until
    /// a drift; `worst_wait_ms` is the slowest request's wait).
    pub fn drawn_json(&self) -> String {
        let ms = |t: Micros| fixed(t as f64 / 1000.0, 3);
        let opt = |t: Option<Micros>| t.map_or("null".to_string(), ms);
        let tail = self.tail_pct().map_or("null".to_string(), |p| fixed(p, 6));
        let slowest = self.slowest.as_ref().map_or("null".to_string(), |r| {
            let attempts: Vec<String> = (0..r.shown_calls()).map(|c| r.attempts_of(c).len().to_string()).collect();
            format!("{{\"wait_ms\":{},\"calls\":{},\"attempts\":[{}]}}", ms(r.latency), r.calls, attempts.join(","))
        });
        format!(
            "{{\"at_ms\":{},\"timeout_ms\":{},\"deadline_ms\":{},\"drifted\":{},\"tail_now_pct\":{tail},\
             \"landed\":{},\"landed_timed_out\":{},\"landed_total\":{},\"worst_wait_ms\":{},\"slowest\":{slowest},\
             \"axis_end_ms\":{}}}",
            ms(self.at),
            opt(self.timeout),
            opt(self.deadline),
            self.drifted,
            self.landed.len(),
            self.landed_timed_out(),
            self.landed_total,
            opt(self.slowest.as_ref().map(|r| r.latency)),
            ms(self.axis_end),
        )
    }
}

impl ChoosingNumbers {
    /// What the picture draws at `now`, the model's present.
    pub fn picture(&self, now: Micros) -> Picture {
        let slowest = self.slowest().copied();
        let worst = slowest.map_or(0, |r| r.latency);
        Picture {
            at: now,
            latency: *self.latency_at(now),
            drifted: self.drift_at().is_some_and(|d| now >= d),
            timeout: self.timeout(),
            landed: self.landed().recent(),
            landed_total: self.landed().total(),
            slowest,
            deadline: self.deadline(),
            axis_end: worst_wait_bound(&self.config).max(worst).max(1),
        }
    }

}

/// The longest a request can wait by its settings: its route deadline, or without one its
/// calls in sequence, each with every attempt running to its timeout (the p99.9 when there is
/// none) and the doubling backoffs between them.
pub fn worst_wait_bound(c: &ChoosingNumbersConfig) -> Micros {
    if c.deadline_ms > 0.0 {
        return ms_to_us(c.deadline_ms);
    }
    let attempt = ms_to_us(if c.timeout_ms > 0.0 { c.timeout_ms } else { c.p999_ms });
    let attempts = u64::from(c.max_attempts.max(1));
    let backoffs: Micros = (1..attempts).map(|k| ms_to_us(c.backoff_ms).saturating_mul(1 << (k - 1).min(20))).sum();
    (c.sequential_calls.max(1) as u64).saturating_mul(attempts.saturating_mul(attempt).saturating_add(backoffs))
}
