//! What the run counts per 100 ms tick: the tick in progress, the chart's rows, and the waves
//! over capacity after recovery.

use crate::sim::Micros;

/// The page lists waves; a run keeps the first ones (the count goes on).
pub const MAX_WAVES: usize = 64;
/// The most rows the chart series holds. A run longer than this many ticks charts a row per
/// few ticks (see [`TickSample`]) instead of letting the series drop every other tick, which
/// would drop the one-tick waves with them.
pub(super) const MAX_ROWS: u64 = 1200;

/// A run of consecutive overloaded ticks after recovery.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Wave {
    pub start_ms: f64,
    pub ticks: u32,
    /// Most attempts in one of its ticks.
    pub peak: u32,
}

/// The callers' counts of the tick in progress (the provider keeps its own).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct TickCounts {
    /// Attempts the breaker failed at once (not sent, so not the provider's).
    pub(super) short_circuited: u32,
    pub(super) waiting_max: u32,
}

/// One tick as the page charts it. In a run longer than [`MAX_ROWS`] ticks a row stands for
/// `RetryStorm::ticks_per_row` ticks: the attempts of the busiest of them (so every wave
/// shows at its height), the most clients waiting in any of them, the calls in flight at
/// their end.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct TickSample {
    /// Attempts admitted (served).
    pub served: f64,
    /// Attempts rejected with 503 (over capacity).
    pub rejected: f64,
    /// Attempts that failed fast because the provider was down.
    pub failed: f64,
    /// Calls in flight that were reset when the provider went down.
    pub resets: f64,
    /// Most clients waiting on a retry during the tick.
    pub waiting: f64,
    /// Calls in flight at the end of the tick.
    pub in_flight: f64,
}

/// The tick in progress, counted as the provider counts it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
pub struct TickNow {
    /// When it began (µs).
    pub start: Micros,
    /// Attempts admitted within the capacity.
    pub served: u32,
    /// Attempts turned away with a 503.
    pub rejected: u32,
    /// Attempts that failed at once because the provider was down.
    pub failed: u32,
    /// Attempts the breaker failed without sending them.
    pub short_circuited: u32,
    /// Calls in service that the outage reset.
    pub resets: u32,
}

impl TickNow {
    /// Attempts that reached the provider (the attempts chart's bar).
    pub fn attempts(&self) -> u32 {
        self.served + self.rejected + self.failed
    }
}
