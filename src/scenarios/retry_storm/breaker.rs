//! A circuit breaker in front of the provider, as Hystrix, opossum and Polly build one: closed,
//! it counts failures over a sliding window and opens after `failures` of them within
//! `window`; open, it fails every call at once without sending it; after `cooldown` the next
//! call goes through as the one half-open probe while every other call still fails fast; the
//! probe's success closes the breaker, its failure opens it for another cool-down.

use std::collections::VecDeque;

use crate::sim::Micros;

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

#[derive(Clone, Debug)]
pub struct Breaker {
    failures: usize,
    window: Micros,
    cooldown: Micros,
    state: BreakerState,
    /// When the failures counted while closed happened, oldest first, within `window`.
    recent: VecDeque<Micros>,
    opens: u64,
    /// Of those, the reopenings after a failed probe.
    failed_probes: u64,
    first_open: Option<Micros>,
}

impl Breaker {
    /// Opens after `failures` (at least 1) failures within `window` µs, for `cooldown` µs.
    pub fn new(failures: u32, window: Micros, cooldown: Micros) -> Self {
        Self {
            failures: failures.max(1) as usize,
            window,
            cooldown,
            state: BreakerState::Closed,
            recent: VecDeque::new(),
            opens: 0,
            failed_probes: 0,
            first_open: None,
        }
    }

    /// The failures within the window that open it.
    pub fn failure_threshold(&self) -> u32 {
        self.failures as u32
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
                self.recent.push_back(now);
                while self.recent.front().is_some_and(|t| *t + self.window <= now) {
                    self.recent.pop_front();
                }
                if self.recent.len() >= self.failures {
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

    /// A call that went to the provider succeeded. Only the probe's success changes anything.
    pub fn success(&mut self, caller: Caller) {
        if self.state == (BreakerState::HalfOpen { probe: caller }) {
            self.state = BreakerState::Closed;
        }
    }

    fn open(&mut self, now: Micros) {
        self.state = BreakerState::Open { until: now + self.cooldown };
        self.recent.clear();
        self.opens += 1;
        self.first_open.get_or_insert(now);
    }
}
