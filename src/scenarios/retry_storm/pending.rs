//! Accept as pending: a user action whose calls failed is not failed but accepted as a pending
//! order (the user is told it is being processed), and one worker charges the backlog, oldest
//! first, at a set rate, one call per `1 / drain_rate` seconds. A call of the worker's that
//! fails puts its order back at the head of the backlog: an accepted order is never failed, so
//! every one is served, waiting, or at the provider.

use crate::sim::{Micros, SEC, TimerKey};

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
    /// Time between two of the worker's calls (µs).
    interval: Micros,
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
    /// A worker that makes `drain_rate` calls a second (at least one an hour).
    pub fn new(drain_rate: f64) -> Self {
        let interval = (SEC as f64 / drain_rate.max(1.0 / 3600.0)) as Micros;
        Self {
            interval: interval.max(1),
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

    /// The time between two of the worker's calls (µs).
    pub fn interval(&self) -> Micros {
        self.interval
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
        self.next_send = now + self.interval;
    }

    /// The breaker failed the worker's call at once: the order stays, and the next try is one
    /// interval later, or when the breaker's cool-down ends (`until`) if that is later.
    pub(super) fn held(&mut self, now: Micros, until: Micros) {
        self.armed = false;
        self.next_send = (now + self.interval).max(until);
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
        if self.counts.backlog == 0 && self.counts.in_flight == 0 {
            self.drained_at = Some(now);
        }
    }

    /// The call in `slot` was reset: its order goes back to the backlog.
    pub(super) fn reset(&mut self, slot: u32) {
        self.calls[slot as usize] = None;
        self.counts.in_flight -= 1;
        self.counts.backlog += 1;
    }
}
