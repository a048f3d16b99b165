//! The pending-order worker's events, and the breaker's bookkeeping that the clients' calls and
//! the worker's share.

use super::provider::Answer;
use super::{Event, RetryStorm};
use crate::scenarios::retry_storm::breaker::{Admit, BreakerState, Caller};
use crate::sim::{EventQueue, Micros, TimerKey};

impl RetryStorm {
    /// A call that reached the provider failed: the breaker counts it.
    pub(super) fn breaker_failure(&mut self, now: Micros, caller: Caller) {
        if let Some(b) = &mut self.breaker {
            b.failure(now, caller);
        }
    }

    /// A user action whose attempts all failed becomes a pending order; the worker wakes if it
    /// was idle.
    pub(super) fn accept_pending(&mut self, q: &mut EventQueue<Event>, now: Micros) {
        let p = self.pending.as_mut().expect("accept_pending with pending on");
        if let Some(at) = p.accept(now) {
            q.schedule_at(at, Event::DrainSend);
        }
    }

    /// Arms the worker's next call, if it has orders and none is scheduled.
    fn arm_worker(&mut self, q: &mut EventQueue<Event>, now: Micros) {
        if let Some(at) = self.pending.as_mut().and_then(|p| p.arm(now)) {
            q.schedule_at(at, Event::DrainSend);
        }
    }

    /// The worker sends the oldest pending order to the provider, through the breaker. A call
    /// that fails leaves the order at the head of the backlog for the next call.
    pub(super) fn drain_send(&mut self, q: &mut EventQueue<Event>, now: Micros) {
        let Some(p) = self.pending.as_mut() else { return };
        if p.counts.backlog == 0 {
            p.armed = false;
            return;
        }
        let slot = p.free_slot();
        let caller = Caller::Worker(slot);
        let admit = self.breaker.as_mut().map_or(Admit::Pass, |b| b.admit(now, caller));
        if admit == Admit::Reject {
            // Told the breaker is open, the worker waits for its cool-down to end.
            let until = match self.breaker.as_ref().map(|b| b.state()) {
                Some(BreakerState::Open { until }) => until,
                _ => now,
            };
            self.short_circuited += 1;
            p.held(now, until);
            self.arm_worker(q, now);
            return;
        }
        p.sent(now);
        match self.provider.admit(now, &mut self.drain_rng) {
            Answer::Served(duration) => {
                let call = q.timer_in(duration, Event::DrainDone(slot));
                self.pending.as_mut().expect("pending").in_flight(slot, call);
            }
            Answer::Rejected | Answer::Down => {
                self.breaker_failure(now, caller);
                self.pending.as_mut().expect("pending").back_off();
            }
        }
        self.arm_worker(q, now);
    }

    /// The worker's call in `slot` completed: its order is served.
    pub(super) fn drain_done(&mut self, now: Micros, slot: u32) {
        self.provider.served();
        if let Some(b) = &mut self.breaker {
            b.success(now, Caller::Worker(slot));
        }
        self.pending.as_mut().expect("a worker call completed").done(slot, now);
    }

    /// The provider went down: the worker's calls in flight fail, and their orders go back to
    /// the backlog.
    pub(super) fn reset_drain_calls(&mut self, q: &mut EventQueue<Event>, now: Micros) {
        let Some(p) = self.pending.as_mut() else { return };
        let calls: Vec<(u32, TimerKey)> = p.calls().collect();
        for (slot, call) in calls {
            q.cancel(call);
            self.pending.as_mut().expect("pending").reset(slot);
            self.provider.reset();
            self.breaker_failure(now, Caller::Worker(slot));
        }
        self.arm_worker(q, now);
    }
}
