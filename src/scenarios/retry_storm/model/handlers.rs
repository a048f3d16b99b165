//! The model's event handlers: ticks closing, user actions, calls, failures and retries, the
//! outage.

use super::provider::Answer;
use super::{Event, RetryStorm};
use crate::scenarios::retry_storm::breaker::{Admit, Caller};
use crate::scenarios::retry_storm::client::{Attempt, ClientState, Leaf, MOST_LEAVES, Outcome};
use crate::scenarios::retry_storm::spec::{MIN_DELAY, RetryAfterKind, TICK};
use crate::scenarios::retry_storm::ticks::TickSample;
use crate::sim::rng::ms_to_us;
use crate::sim::{EventQueue, Micros};

impl RetryStorm {
    /// Closes every tick before `tick`: its counts go to the chart, the peak and the waves.
    pub(super) fn roll_to(&mut self, tick: u64) {
        while self.tick < tick {
            let c = std::mem::take(&mut self.cur);
            let p = self.provider.close_tick(self.tick);
            let start = self.tick * TICK;
            let row = TickSample {
                served: p.admitted.into(),
                rejected: p.rejected.into(),
                failed: p.failed_fast.into(),
                resets: p.resets.into(),
                waiting: c.waiting_max.into(),
                in_flight: self.provider.totals().in_flight.into(),
            };
            self.chart.add(self.tick, row);
            self.waves.close(start, p.after_recovery, self.provider.capacity(), self.provider.down_until());
            self.tick += 1;
            self.cur.waiting_max = self.waiting;
        }
        self.layers.advance(tick);
    }

    pub(super) fn start_action(&mut self, q: &mut EventQueue<Event>, now: Micros, c: usize) {
        self.actions += 1;
        let client = &mut self.clients[c];
        client.action_calls = 0;
        client.action_attempts = 0;
        client.leaves.clear();
        self.layers.invoke(client, 0);
        self.send(q, now, c, true);
    }

    /// The backoff ends: the waiting layer makes its next attempt, which invokes the layers
    /// below it afresh.
    pub(super) fn retry(&mut self, q: &mut EventQueue<Event>, now: Micros, c: usize) {
        self.waiting -= 1;
        let client = &mut self.clients[c];
        client.backoff = None;
        self.layers.invoke(client, client.retry_layer as usize + 1);
        self.send(q, now, c, false);
        self.check_recovered(now);
    }

    /// One attempt of the layers: through the breaker, if there is one, to the provider.
    fn send(&mut self, q: &mut EventQueue<Event>, now: Micros, c: usize, user_call: bool) {
        self.clients[c].action_attempts += 1;
        if now < self.provider.down_from() {
            self.attempts_before += 1;
        }
        if self.provider.is_down() {
            self.outage_attempts += 1;
            self.outage_user_calls += user_call as u64;
        }
        let caller = Caller::Client(c as u32);
        if self.breaker.as_mut().is_some_and(|b| b.admit(now, caller) == Admit::Reject) {
            self.short_circuited += 1;
            self.cur.short_circuited += 1;
            self.record(c, now, Outcome::ShortCircuited);
            self.fail(q, now, c, false);
            return;
        }
        self.clients[c].action_calls += 1;
        let answer = self.provider.admit(now, &mut self.call_rng);
        let outcome = match answer {
            Answer::Served(_) => Outcome::Served,
            Answer::Rejected => Outcome::Rejected,
            Answer::Down => Outcome::Down,
        };
        self.record(c, now, outcome);
        if let Answer::Served(duration) = answer {
            let client = &mut self.clients[c];
            client.state = ClientState::InFlight;
            client.open_calls += 1;
            self.max_open_per_client = self.max_open_per_client.max(client.open_calls);
            client.call = Some(q.timer_in(duration, Event::Done(c as u32)));
        } else {
            self.breaker_failure(now, caller);
            self.fail(q, now, c, answer == Answer::Rejected);
        }
    }

    /// Remembers an attempt of client `c`'s for the picture: its latest, and its leaf in the
    /// layers' tree (layer 0's attempt is the most significant digit).
    fn record(&mut self, c: usize, now: Micros, outcome: Outcome) {
        let client = &mut self.clients[c];
        client.last = Some(Attempt { at: now, outcome });
        if client.leaves.len() < MOST_LEAVES {
            client.leaves.push(Leaf { index: self.layers.leaf_index(client), outcome });
        }
    }

    /// An attempt failed (`overloaded`: with a 503, which may carry Retry-After). The lowest
    /// layer that still has attempts (and budget) schedules its retry; a layer out of either
    /// fails fast to the one above; if none is left the user action fails, or with `pending`
    /// is accepted as a pending order.
    fn fail(&mut self, q: &mut EventQueue<Event>, now: Micros, c: usize, overloaded: bool) {
        for l in (0..self.layers.count()).rev() {
            if !self.layers.take_retry(&self.clients[c], l) {
                continue;
            }
            let delay = match (overloaded && self.config.retry_after, self.config.retry_after_kind) {
                (false, _) => self.layers.backoff(&mut self.clients[c], l),
                (true, RetryAfterKind::IdealSlots) => self.provider.promise(now, self.tick),
                (true, RetryAfterKind::UniformSeconds) => ms_to_us(1000.0 * libm::round(self.config.retry_after_s)),
            };
            let delay = delay.max(MIN_DELAY);
            let client = &mut self.clients[c];
            client.attempts[l] += 1;
            client.retry_layer = l as u8;
            client.state = ClientState::WaitingToRetry;
            client.backoff = Some((now, now + delay));
            self.waiting += 1;
            self.cur.waiting_max = self.cur.waiting_max.max(self.waiting);
            q.schedule_in(delay, Event::Retry(c as u32));
            return;
        }
        if self.pending.is_some() {
            self.accept_pending(q, now);
        } else {
            self.actions_failed += 1;
        }
        self.end_action(c);
        // An order accepted as pending answers as fast as a failure: the same pause.
        let pause = self.think_rng.exponential(self.pause_us) as Micros;
        q.schedule_in(pause.max(MIN_DELAY), Event::Start(c as u32));
    }

    fn end_action(&mut self, c: usize) {
        let client = &mut self.clients[c];
        client.state = ClientState::Idle;
        self.max_calls_per_action = self.max_calls_per_action.max(client.action_calls);
        self.max_attempts_per_action = self.max_attempts_per_action.max(client.action_attempts);
    }

    pub(super) fn done(&mut self, q: &mut EventQueue<Event>, now: Micros, c: usize) {
        if let Some(b) = &mut self.breaker {
            b.success(now, Caller::Client(c as u32));
        }
        self.actions_ok += 1;
        let client = &mut self.clients[c];
        client.call = None;
        client.open_calls -= 1;
        self.provider.served();
        self.end_action(c);
        let think = self.think_rng.exponential(self.think_us) as Micros;
        q.schedule_in(think, Event::Start(c as u32));
    }

    /// Every call in flight fails at this one instant: the shared failure moment.
    pub(super) fn go_down(&mut self, q: &mut EventQueue<Event>, now: Micros) {
        self.provider.go_down();
        self.failed_at_down = Some(self.clients.iter().filter(|c| c.state == ClientState::InFlight).count() as u64);
        for c in 0..self.clients.len() {
            if self.clients[c].state != ClientState::InFlight {
                continue;
            }
            let client = &mut self.clients[c];
            client.open_calls -= 1;
            client.last = Some(Attempt { at: now, outcome: Outcome::Reset });
            // The call in service is the action's latest attempt.
            if let Some(leaf) = client.leaves.last_mut().filter(|_| client.action_attempts as usize <= MOST_LEAVES) {
                leaf.outcome = Outcome::Reset;
            }
            if let Some(call) = client.call.take() {
                q.cancel(call);
            }
            self.provider.reset();
            self.breaker_failure(now, Caller::Client(c as u32));
            self.fail(q, now, c, false);
        }
        self.reset_drain_calls(q, now);
    }

    pub(super) fn check_recovered(&mut self, now: Micros) {
        if self.recovered.is_none() && !self.provider.is_down() && now >= self.provider.down_until() && self.waiting == 0 {
            self.recovered = Some(now);
        }
    }
}
