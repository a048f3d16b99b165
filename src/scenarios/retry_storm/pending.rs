//! Accept as pending: a user action whose calls failed is not failed but accepted as a pending
//! order (the user is told it is being processed), and one worker charges the backlog, oldest
//! first, one call per `1 / rate` seconds. A call of the worker's that fails puts its order back
//! at the head of the backlog: an accepted order is never failed, so every one is served,
//! waiting, or at the provider.
//!
//! The rate (`drain_ramp`): with `aimd` it starts at [`START_RATE`] and grows by 1 call/s for
//! each call that succeeds, up to `drain_rate`, and halves (not below the start) on each call
//! that fails: additive increase, multiplicative decrease, TCP's congestion control (RFC 5681
//! halves the window on a loss) and Netflix's concurrency-limits `AIMDLimit`. A call the
//! breaker refuses never reaches the provider and says nothing about it: the rate stays. With
//! `fixed` it is `drain_rate` from the first call, as BullMQ's limiter (`max` jobs per
//! `duration`) does. Checked at the ends of the range: `drain_rate` 1 makes both the same (the
//! ramp starts at its ceiling); at 500 the ramp reaches it after 499 successes, about 6.8 s of
//! calls (the sum of 1/r for r = 1 … 499).

use super::spec::DrainRamp;
use crate::sim::{Micros, SEC, TimerKey};

/// The rate a ramping worker starts at, and never backs off below (calls/s).
pub const START_RATE: f64 = 1.0;
/// The slowest worker: one call an hour.
const MIN_RATE: f64 = 1.0 / 3600.0;

/// What the pending orders have come to, for the cards and the conservation check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct PendingCounts {
    /// Orders accepted as pending.
    pub accepted: u64,
    /// Orders whose worker call completed.
    pub served: u64,
    /// Orders waiting for the worker.
    pub backlog: u64,
    /// Orders whose worker call is at the provider now.
    pub in_flight: u64,
    /// The longest the backlog was.
    pub backlog_max: u64,
    /// Calls the worker sent to the provider (failed ones included).
    pub sent: u64,
}

#[derive(Clone, Debug)]
pub struct Pending {
    /// The calls a second the worker makes now.
    rate: f64,
    /// The most it makes (`drain_rate`).
    max_rate: f64,
    ramp: DrainRamp,
    pub(super) counts: PendingCounts,
    /// The worker's calls at the provider, by slot (the slot names the call to the breaker).
    calls: Vec<Option<TimerKey>>,
    /// Whether the worker has its next call scheduled.
    pub(super) armed: bool,
    /// The earliest the worker may send again, so the rate holds however it is woken.
    next_send: Micros,
    /// When the backlog and the worker's calls last came to zero; none while orders remain.
    pub(super) drained_at: Option<Micros>,
    /// The last time the worker sent a call.
    pub(super) last_sent: Option<Micros>,
}

impl Pending {
    /// A worker that makes at most `drain_rate` calls a second (at least one an hour), from
    /// the start or ramping up to it.
    pub fn new(drain_rate: f64, ramp: DrainRamp) -> Self {
        let max_rate = drain_rate.max(MIN_RATE);
        let rate = match ramp {
            DrainRamp::Aimd => START_RATE.min(max_rate),
            DrainRamp::Fixed => max_rate,
        };
        Self {
            rate,
            max_rate,
            ramp,
            counts: PendingCounts::default(),
            calls: Vec::new(),
            armed: false,
            next_send: 0,
            drained_at: None,
            last_sent: None,
        }
    }

    pub fn counts(&self) -> PendingCounts {
        self.counts
    }

    /// When the backlog was drained (none if nothing was ever pending, or orders remain).
    pub fn drained_at(&self) -> Option<Micros> {
        self.drained_at
    }

    /// The worker's last call, if it made any.
    pub fn last_sent(&self) -> Option<Micros> {
        self.last_sent
    }

    /// The shortest time between two of the worker's calls, at its drain rate (µs).
    pub fn interval(&self) -> Micros {
        interval_at(self.max_rate)
    }

    /// The calls a second the worker makes now.
    pub fn rate(&self) -> f64 {
        self.rate
    }

    /// A call of the worker's succeeded: a ramping worker speeds up by one call a second.
    fn speed_up(&mut self) {
        if self.ramp == DrainRamp::Aimd {
            self.rate = (self.rate + 1.0).min(self.max_rate);
        }
    }

    /// A call of the worker's failed at the provider: a ramping worker halves its rate.
    pub(super) fn back_off(&mut self) {
        if self.ramp == DrainRamp::Aimd {
            self.rate = (self.rate / 2.0).max(START_RATE.min(self.max_rate));
        }
    }

    /// An order accepted at `now`; returns when the worker should next send if it is idle.
    pub(super) fn accept(&mut self, now: Micros) -> Option<Micros> {
        let c = &mut self.counts;
        c.accepted += 1;
        c.backlog += 1;
        c.backlog_max = c.backlog_max.max(c.backlog);
        self.drained_at = None;
        self.arm(now)
    }

    /// When the worker's next call should go, if it has orders and is not already scheduled.
    pub(super) fn arm(&mut self, now: Micros) -> Option<Micros> {
        if self.armed || self.counts.backlog == 0 {
            return None;
        }
        self.armed = true;
        Some(self.next_send.max(now))
    }

    /// The worker sends the head order at `now`; the next call may go one interval later.
    pub(super) fn sent(&mut self, now: Micros) {
        self.armed = false;
        self.counts.sent += 1;
        self.last_sent = Some(now);
        self.next_send = now + interval_at(self.rate);
    }

    /// The breaker failed the worker's call at once: the order stays, and the next try is one
    /// interval later, or when the breaker's cool-down ends (`until`) if that is later.
    pub(super) fn held(&mut self, now: Micros, until: Micros) {
        self.armed = false;
        self.next_send = (now + interval_at(self.rate)).max(until);
    }

    /// The slot the worker's next call would take.
    pub(super) fn free_slot(&self) -> u32 {
        self.calls.iter().position(Option::is_none).unwrap_or(self.calls.len()) as u32
    }

    /// The head order's call is at the provider, in `slot`.
    pub(super) fn in_flight(&mut self, slot: u32, call: TimerKey) {
        let slot = slot as usize;
        if slot == self.calls.len() {
            self.calls.push(None);
        }
        self.calls[slot] = Some(call);
        self.counts.backlog -= 1;
        self.counts.in_flight += 1;
    }

    /// The worker's calls at the provider now, with their slots.
    pub(super) fn calls(&self) -> impl Iterator<Item = (u32, TimerKey)> + '_ {
        self.calls.iter().enumerate().filter_map(|(i, c)| c.map(|k| (i as u32, k)))
    }

    /// The call in `slot` completed: its order is served.
    pub(super) fn done(&mut self, slot: u32, now: Micros) {
        self.calls[slot as usize] = None;
        self.counts.in_flight -= 1;
        self.counts.served += 1;
        self.speed_up();
        if self.counts.backlog == 0 && self.counts.in_flight == 0 {
            self.drained_at = Some(now);
        }
    }

    /// The call in `slot` was reset: its order goes back to the backlog.
    pub(super) fn reset(&mut self, slot: u32) {
        self.calls[slot as usize] = None;
        self.counts.in_flight -= 1;
        self.counts.backlog += 1;
        self.back_off();
    }
}

/// The time between two calls at `rate` calls a second (µs, at least 1).
fn interval_at(rate: f64) -> Micros {
    ((SEC as f64 / rate) as Micros).max(1)
}
