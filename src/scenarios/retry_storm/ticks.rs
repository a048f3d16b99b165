//! What the run counts per 100 ms tick: the tick in progress, the chart's rows, and the waves
//! over capacity after recovery.

use super::spec::TICK;
use crate::sim::Micros;
use crate::sim::stats::Series;

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
/// [`Chart::ticks_per_row`] ticks: the attempts of the busiest of them (so every wave
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

/// The chart's rows: a row per [`Chart::ticks_per_row`] closed ticks.
pub(super) struct Chart {
    rows: Series<TickSample>,
    ticks_per_row: u64,
    /// The row being gathered.
    row: TickSample,
}

impl Chart {
    /// A chart for a run that ends at `end` (µs): at most [`MAX_ROWS`] rows.
    pub(super) fn new(end: Micros) -> Self {
        Self {
            rows: Series::new(MAX_ROWS as usize),
            ticks_per_row: end.div_ceil(TICK).div_ceil(MAX_ROWS).max(1),
            row: TickSample::default(),
        }
    }

    pub(super) fn rows(&self) -> &Series<TickSample> {
        &self.rows
    }

    pub(super) fn ticks_per_row(&self) -> u64 {
        self.ticks_per_row
    }

    /// Adds closed tick number `tick` to the row in progress, and the row to the chart when it
    /// is complete.
    pub(super) fn add(&mut self, tick: u64, sample: TickSample) {
        let attempts = |r: &TickSample| r.served + r.rejected + r.failed;
        let first = tick.is_multiple_of(self.ticks_per_row);
        let r = &mut self.row;
        if first || attempts(&sample) > attempts(r) {
            (r.served, r.rejected, r.failed) = (sample.served, sample.rejected, sample.failed);
        }
        r.resets = if first { sample.resets } else { r.resets + sample.resets };
        r.waiting = if first { sample.waiting } else { r.waiting.max(sample.waiting) };
        r.in_flight = sample.in_flight;
        if (tick + 1).is_multiple_of(self.ticks_per_row) {
            let start = (tick + 1 - self.ticks_per_row) * TICK;
            self.rows.push(start as f64 / 1000.0, self.row);
        }
    }
}

/// The busiest tick after recovery and the waves over capacity, from the closed ticks; the
/// tick in progress is passed in where it counts.
#[derive(Default)]
pub(super) struct Waves {
    peak: u32,
    peak_at: Option<Micros>,
    /// The first [`MAX_WAVES`] waves.
    waves: Vec<Wave>,
    /// Every wave so far.
    count: u64,
    /// Whether the last closed tick was over capacity.
    in_wave: bool,
}

impl Waves {
    pub(super) fn listed(&self) -> &[Wave] {
        &self.waves
    }

    /// A tick that began at `start` closed with `attempts` at or after `back` (the provider's
    /// recovery), against `capacity`.
    pub(super) fn close(&mut self, start: Micros, attempts: u32, capacity: u32, back: Micros) {
        if start + TICK > back && (self.peak_at.is_none() || attempts > self.peak) {
            self.peak = attempts;
            self.peak_at = Some(start);
        }
        let over = attempts > capacity;
        if over && !self.in_wave {
            self.count += 1;
            if self.waves.len() < MAX_WAVES {
                self.waves.push(Wave { start_ms: start as f64 / 1000.0, ticks: 0, peak: 0 });
            }
        }
        if over && self.waves.len() as u64 == self.count {
            let w = self.waves.last_mut().expect("a wave was just started");
            w.ticks += 1;
            w.peak = w.peak.max(attempts);
        }
        self.in_wave = over;
    }

    /// The busiest tick, the one in progress (`attempts` since `start`) included, and when it
    /// began.
    pub(super) fn peak(&self, attempts: u32, start: Micros) -> (u32, Micros) {
        match self.peak_at {
            Some(at) if attempts <= self.peak => (self.peak, at),
            _ => (attempts, start),
        }
    }

    /// Waves so far; a tick in progress that is `over` capacity starts one the moment it goes
    /// over.
    pub(super) fn count(&self, over: bool) -> u64 {
        self.count + u64::from(over && !self.in_wave)
    }

    /// When each wave began, one starting in the tick in progress (`over` since `start`)
    /// included.
    pub(super) fn starts(&self, over: bool, start: Micros) -> Vec<Micros> {
        let mut starts: Vec<Micros> = self.waves.iter().map(|w| (w.start_ms * 1000.0) as Micros).collect();
        if self.count(over) > self.count && starts.len() < MAX_WAVES {
            starts.push(start);
        }
        starts
    }
}
