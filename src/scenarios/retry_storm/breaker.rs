//! A circuit breaker in front of the provider: closed, it lets calls through and watches their
//! outcomes; when its rule trips it opens and fails every call at once without sending it;
//! after `cooldown` the next call goes through as the one half-open probe while every other
//! call still fails fast; the probe's success closes the breaker, its failure opens it for
//! another cool-down.
//!
//! Two rules, as real libraries have them. [`Trip::Ratio`]: at least a share of the calls that
//! ended within a rolling window failed, once enough calls ended in it (Hystrix: 50% of at least
//! 20 requests in 10 s; Polly v8 and resilience4j the same with other defaults).
//! [`Trip::Consecutive`]: a number of failures in a row, which a success resets (Polly's classic
//! `CircuitBreaker`, `exceptionsAllowedBeforeBreaking`).

use std::collections::VecDeque;

use super::spec::{BreakerTrip, RetryStormConfig};
use crate::sim::Micros;
use crate::sim::rng::ms_to_us;

/// Who made a call, so the breaker can tell its half-open probe from calls sent before it
/// opened: a client (by index) or the pending-order worker (by its call's slot).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Caller {
    Client(u32),
    Worker(u32),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BreakerState {
    /// Calls go through; failures are counted.
    Closed,
    /// Calls fail fast until the cool-down ends, at `until` (µs).
    Open { until: Micros },
    /// The cool-down is over and one probe is out; every other call fails fast.
    HalfOpen { probe: Caller },
}

/// What the breaker does with a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admit {
    /// Closed: the call goes to the provider.
    Pass,
    /// The cool-down is over: this call goes to the provider as the half-open probe.
    Probe,
    /// Open, or a probe is already out: the call fails at once, without reaching the provider.
    Reject,
}

/// What opens a closed breaker.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
pub enum Trip {
    /// At least `failure_pct` % of the calls that ended within `window` µs failed, and at least
    /// `min_calls` ended in it.
    Ratio { failure_pct: f64, min_calls: u32, window: Micros },
    /// `failures` failures in a row; a success starts the count again.
    Consecutive { failures: u32 },
}

impl Trip {
    /// The rule the parameters set.
    pub fn of(c: &RetryStormConfig) -> Self {
        match c.breaker_trip {
            BreakerTrip::Ratio => Trip::Ratio {
                failure_pct: c.breaker_failure_pct,
                min_calls: c.breaker_min_calls,
                window: ms_to_us(c.breaker_window_ms),
            },
            BreakerTrip::Consecutive => Trip::Consecutive { failures: c.breaker_failures },
        }
    }
}

#[derive(Clone, Debug)]
pub struct Breaker {
    trip: Trip,
    cooldown: Micros,
    state: BreakerState,
    /// With a ratio: the calls that ended while closed within the window, oldest first, and
    /// whether each failed.
    recent: VecDeque<(Micros, bool)>,
    /// Of `recent`, the failures.
    recent_failures: usize,
    /// With consecutive failures: the failures since the last success.
    in_a_row: u32,
    opens: u64,
    /// Of those, the reopenings after a failed probe.
    failed_probes: u64,
    first_open: Option<Micros>,
}

impl Breaker {
    /// Opens when `trip` says so (a count of at least 1), for `cooldown` µs.
    pub fn new(trip: Trip, cooldown: Micros) -> Self {
        let trip = match trip {
            Trip::Ratio { failure_pct, min_calls, window } => Trip::Ratio { failure_pct, min_calls: min_calls.max(1), window },
            Trip::Consecutive { failures } => Trip::Consecutive { failures: failures.max(1) },
        };
        Self {
            trip,
            cooldown,
            state: BreakerState::Closed,
            recent: VecDeque::new(),
            recent_failures: 0,
            in_a_row: 0,
            opens: 0,
            failed_probes: 0,
            first_open: None,
        }
    }

    /// The rule that opens it.
    pub fn trip(&self) -> Trip {
        self.trip
    }

    pub fn state(&self) -> BreakerState {
        self.state
    }

    /// Times it opened, reopening after a failed probe included.
    pub fn opens(&self) -> u64 {
        self.opens
    }

    /// Times a failed half-open probe opened it again.
    pub fn failed_probes(&self) -> u64 {
        self.failed_probes
    }

    /// When it first opened.
    pub fn first_open(&self) -> Option<Micros> {
        self.first_open
    }

    /// Whether a call from `caller` at `now` may go to the provider. Past the cool-down the
    /// first call becomes the probe.
    pub fn admit(&mut self, now: Micros, caller: Caller) -> Admit {
        match self.state {
            BreakerState::Closed => Admit::Pass,
            BreakerState::Open { until } if now >= until => {
                self.state = BreakerState::HalfOpen { probe: caller };
                Admit::Probe
            }
            BreakerState::Open { .. } | BreakerState::HalfOpen { .. } => Admit::Reject,
        }
    }

    /// A call that went to the provider failed at `now` (reset, failed while down, or a 503).
    pub fn failure(&mut self, now: Micros, caller: Caller) {
        match self.state {
            BreakerState::Closed => {
                if self.record(now, true) {
                    self.open(now);
                }
            }
            BreakerState::HalfOpen { probe } if probe == caller => {
                self.failed_probes += 1;
                self.open(now);
            }
            // Calls sent before it opened, ending now: the breaker is already open.
            BreakerState::Open { .. } | BreakerState::HalfOpen { .. } => {}
        }
    }

    /// A call that went to the provider succeeded at `now`: closed, it counts; half-open, the
    /// probe's success closes the breaker.
    pub fn success(&mut self, now: Micros, caller: Caller) {
        match self.state {
            BreakerState::Closed => {
                self.record(now, false);
            }
            BreakerState::HalfOpen { probe } if probe == caller => self.state = BreakerState::Closed,
            BreakerState::Open { .. } | BreakerState::HalfOpen { .. } => {}
        }
    }

    /// Counts a call that ended at `now` while closed; whether the rule now trips.
    fn record(&mut self, now: Micros, failed: bool) -> bool {
        match self.trip {
            Trip::Consecutive { failures } => {
                self.in_a_row = if failed { self.in_a_row + 1 } else { 0 };
                self.in_a_row >= failures
            }
            Trip::Ratio { failure_pct, min_calls, window } => {
                self.recent.push_back((now, failed));
                self.recent_failures += failed as usize;
                while let Some(&(_, f)) = self.recent.front().filter(|(t, _)| *t + window <= now) {
                    self.recent.pop_front();
                    self.recent_failures -= f as usize;
                }
                let calls = self.recent.len();
                failed && calls >= min_calls as usize && self.recent_failures as f64 * 100.0 >= failure_pct * calls as f64
            }
        }
    }

    fn open(&mut self, now: Micros) {
        self.state = BreakerState::Open { until: now + self.cooldown };
        // Closed again, it counts afresh (Hystrix resets its rolling counts when it closes).
        self.recent.clear();
        self.recent_failures = 0;
        self.in_a_row = 0;
        self.opens += 1;
        self.first_open.get_or_insert(now);
    }
}
