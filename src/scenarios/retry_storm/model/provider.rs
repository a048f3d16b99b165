//! The provider: a capacity per 100 ms tick, an outage, and the calls it answers. The clients'
//! calls and the pending worker's meet its admission in one place, [`Provider::admit`].

use crate::scenarios::retry_storm::spec::{MIN_DELAY, RetryStormConfig, TICK};
use crate::sim::rng::{SimRng, ms_to_us};
use crate::sim::Micros;

/// How far ahead (in ticks) the provider looks for room when it computes a Retry-After.
const RETRY_AFTER_HORIZON: usize = 600;
/// Spread of call durations: lognormal with this coefficient of variation.
const CALL_CV: f64 = 0.25;

/// What the provider does with a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    /// Admitted within the tick's capacity: it is in service for this long (µs).
    Served(Micros),
    /// Turned away with a 503: the tick's capacity is taken.
    Rejected,
    /// Failed at once: the provider is down.
    Down,
}

/// The provider's counts of the tick in progress.
#[derive(Clone, Copy, Debug, Default)]
pub struct ProviderTick {
    pub admitted: u32,
    pub rejected: u32,
    pub failed_fast: u32,
    /// Calls in service that the outage reset.
    pub resets: u32,
    /// Calls at or after the recovery moment (all of them, once the provider is back).
    pub after_recovery: u32,
}

/// The provider's running totals.
#[derive(Clone, Copy, Debug, Default)]
pub struct ProviderTotals {
    /// Calls that reached it, the worker's included.
    pub calls: u64,
    pub succeeded: u64,
    pub rejected: u64,
    /// Calls failed at once while it was down, and calls in service it reset.
    pub failed: u64,
    pub while_down: u64,
    /// Calls in service now.
    pub in_flight: u32,
}

pub struct Provider {
    capacity: u32,
    /// Mean call duration (µs).
    call_us: f64,
    down_from: Micros,
    down_until: Micros,
    down: bool,
    /// Callers told to come back in each coming tick (a ring indexed by tick number).
    promised: Vec<u32>,
    tick: ProviderTick,
    totals: ProviderTotals,
}

impl Provider {
    pub(super) fn new(config: &RetryStormConfig) -> Self {
        Self {
            capacity: config.capacity.max(1),
            call_us: ms_to_us(config.call_ms) as f64,
            down_from: ms_to_us(config.down_from_ms),
            down_until: ms_to_us(config.down_until_ms),
            down: false,
            promised: vec![0; RETRY_AFTER_HORIZON],
            tick: ProviderTick::default(),
            totals: ProviderTotals::default(),
        }
    }

    /// Calls it admits per tick.
    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    /// Mean call duration (µs).
    pub fn call_us(&self) -> f64 {
        self.call_us
    }

    pub fn down_from(&self) -> Micros {
        self.down_from
    }

    pub fn down_until(&self) -> Micros {
        self.down_until
    }

    /// Whether the run has an outage at all.
    pub fn has_outage(&self) -> bool {
        self.down_until > self.down_from
    }

    pub fn is_down(&self) -> bool {
        self.down
    }

    pub fn tick(&self) -> &ProviderTick {
        &self.tick
    }

    pub fn totals(&self) -> &ProviderTotals {
        &self.totals
    }

    /// A call arrives at `now`: failed at once while down, served while the tick has room
    /// (its duration drawn from the caller's `rng`), else rejected.
    pub(super) fn admit(&mut self, now: Micros, rng: &mut SimRng) -> Answer {
        self.totals.calls += 1;
        if now >= self.down_until {
            self.tick.after_recovery += 1;
        }
        if self.down {
            self.totals.while_down += 1;
            self.totals.failed += 1;
            self.tick.failed_fast += 1;
            Answer::Down
        } else if self.tick.admitted < self.capacity {
            self.tick.admitted += 1;
            self.totals.in_flight += 1;
            Answer::Served((rng.lognormal(self.call_us, CALL_CV) as Micros).max(MIN_DELAY))
        } else {
            self.totals.rejected += 1;
            self.tick.rejected += 1;
            Answer::Rejected
        }
    }

    /// A call in service completed.
    pub(super) fn served(&mut self) {
        self.totals.in_flight -= 1;
        self.totals.succeeded += 1;
    }

    /// A call in service failed because the provider went down.
    pub(super) fn reset(&mut self) {
        self.totals.in_flight -= 1;
        self.totals.failed += 1;
        self.tick.resets += 1;
    }

    pub(super) fn go_down(&mut self) {
        self.down = true;
    }

    pub(super) fn come_up(&mut self) {
        self.down = false;
    }

    /// Retry-After for a 503 from an ideal provider (`ideal-slots`), in tick `tick`: it knows
    /// its admission rate, so it names the first coming tick that still has room, counting the
    /// callers it already sent there.
    pub(super) fn promise(&mut self, now: Micros, tick: u64) -> Micros {
        let horizon = RETRY_AFTER_HORIZON as u64;
        let slot = (tick + 1..tick + horizon)
            .find(|j| self.promised[(j % horizon) as usize] < self.capacity)
            .unwrap_or(tick + horizon - 1);
        self.promised[(slot % horizon) as usize] += 1;
        slot * TICK - now
    }

    /// Closes tick `tick`: its counts, and its promises forgotten (the ring slot is the next
    /// lap's).
    pub(super) fn close_tick(&mut self, tick: u64) -> ProviderTick {
        self.promised[(tick % RETRY_AFTER_HORIZON as u64) as usize] = 0;
        std::mem::take(&mut self.tick)
    }
}
