//! The model's event handlers: ticks closing, user actions, calls, failures and retries, the
//! outage.

use super::{CALL_CV, Event, MIN_DELAY, RETRY_AFTER_HORIZON, RetryStorm};
use crate::scenarios::retry_storm::breaker::{Admit, Caller};
use crate::scenarios::retry_storm::client::{Attempt, ClientState, Leaf, MOST_LEAVES, Outcome};
use crate::scenarios::retry_storm::spec::{Mode, RetryAfterKind, TICK};
use crate::scenarios::retry_storm::ticks::{MAX_WAVES, TickSample, Wave};
use crate::sim::rng::ms_to_us;
use crate::sim::{EventQueue, Micros};

impl RetryStorm {
    /// Adds a closed tick to the chart's row in progress, and the row to the chart when it is
    /// complete.
    fn chart(&mut self, tick: TickSample) {
        let attempts = |r: &TickSample| r.served + r.rejected + r.failed;
        let first = self.tick.is_multiple_of(self.ticks_per_row);
        let r = &mut self.row;
        if first || attempts(&tick) > attempts(r) {
            (r.served, r.rejected, r.failed) = (tick.served, tick.rejected, tick.failed);
        }
        r.resets = if first { tick.resets } else { r.resets + tick.resets };
        r.waiting = if first { tick.waiting } else { r.waiting.max(tick.waiting) };
        r.in_flight = tick.in_flight;
        if (self.tick + 1).is_multiple_of(self.ticks_per_row) {
            let start = (self.tick + 1 - self.ticks_per_row) * TICK;
            self.ticks.push(start as f64 / 1000.0, self.row);
        }
    }

    /// Closes every tick before `tick`: its counts go to the chart, the peak and the waves.
    pub(super) fn roll_to(&mut self, tick: u64) {
        while self.tick < tick {
            let c = std::mem::take(&mut self.cur);
            let start = self.tick * TICK;
            let row = TickSample {
                served: c.admitted.into(),
                rejected: c.rejected.into(),
                failed: c.failed_fast.into(),
                resets: c.resets.into(),
                waiting: c.waiting_max.into(),
                in_flight: self.in_flight.into(),
            };
            self.chart(row);
            if start + TICK > self.down_until && (self.peak_after_at.is_none() || c.after_recovery > self.peak_after) {
                self.peak_after = c.after_recovery;
                self.peak_after_at = Some(start);
            }
            let over = c.after_recovery > self.capacity;
            if over && !self.in_wave {
                self.wave_count += 1;
                if self.waves.len() < MAX_WAVES {
                    self.waves.push(Wave { start_ms: start as f64 / 1000.0, ticks: 0, peak: 0 });
                }
            }
            if over && self.waves.len() as u64 == self.wave_count {
                let w = self.waves.last_mut().expect("a wave was just started");
                w.ticks += 1;
                w.peak = w.peak.max(c.after_recovery);
            }
            self.in_wave = over;
            self.promised[(self.tick % RETRY_AFTER_HORIZON as u64) as usize] = 0;
            self.tick += 1;
            self.cur.waiting_max = self.waiting;
        }
        for b in &mut self.budgets {
            b.advance(tick);
        }
    }

    pub(super) fn start_action(&mut self, q: &mut EventQueue<Event>, now: Micros, c: usize) {
        self.actions += 1;
        let base = self.base_us;
        let client = &mut self.clients[c];
        client.action_calls = 0;
        client.action_attempts = 0;
        client.leaves.clear();
        for l in 0..self.layers {
            client.attempts[l] = 1;
            client.last_delay[l] = base;
            self.budgets[l].record_first();
        }
        self.send(q, now, c, true);
    }

    /// The backoff ends: the waiting layer makes its next attempt, which invokes the layers
    /// below it afresh.
    pub(super) fn retry(&mut self, q: &mut EventQueue<Event>, now: Micros, c: usize) {
        self.waiting -= 1;
        let base = self.base_us;
        let client = &mut self.clients[c];
        client.backoff = None;
        for l in client.retry_layer as usize + 1..self.layers {
            client.attempts[l] = 1;
            client.last_delay[l] = base;
            self.budgets[l].record_first();
        }
        self.send(q, now, c, false);
        self.check_recovered(now);
    }

    /// One attempt of the layers: through the breaker, if there is one, to the provider.
    fn send(&mut self, q: &mut EventQueue<Event>, now: Micros, c: usize, user_call: bool) {
        self.clients[c].action_attempts += 1;
        if now < self.down_from {
            self.attempts_before += 1;
        }
        if self.down {
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
        self.attempts += 1;
        self.clients[c].action_calls += 1;
        if now >= self.down_until {
            self.cur.after_recovery += 1;
        }
        let outcome = if self.down {
            Outcome::Down
        } else if self.cur.admitted < self.capacity {
            Outcome::Served
        } else {
            Outcome::Rejected
        };
        self.record(c, now, outcome);
        if self.down {
            self.calls_while_down += 1;
            self.failed += 1;
            self.cur.failed_fast += 1;
            self.breaker_failure(now, caller);
            self.fail(q, now, c, false);
        } else if self.cur.admitted < self.capacity {
            self.cur.admitted += 1;
            self.in_flight += 1;
            let duration = (self.call_rng.lognormal(self.call_us, CALL_CV) as Micros).max(MIN_DELAY);
            let client = &mut self.clients[c];
            client.state = ClientState::InFlight;
            client.open_calls += 1;
            self.max_open_per_client = self.max_open_per_client.max(client.open_calls);
            client.call = Some(q.timer_in(duration, Event::Done(c as u32)));
        } else {
            self.rejected += 1;
            self.cur.rejected += 1;
            self.breaker_failure(now, caller);
            self.fail(q, now, c, true);
        }
    }

    /// Remembers an attempt of client `c`'s for the picture: its latest, and its leaf in the
    /// layers' tree (layer 0's attempt is the most significant digit).
    fn record(&mut self, c: usize, now: Micros, outcome: Outcome) {
        let client = &mut self.clients[c];
        client.last = Some(Attempt { at: now, outcome });
        if client.leaves.len() < MOST_LEAVES {
            let index = (0..self.layers).fold(0, |index, l| {
                let radix = if l == 0 { self.max_attempts } else { self.attempts_per_layer };
                index * radix + client.attempts[l].saturating_sub(1)
            });
            client.leaves.push(Leaf { index, outcome });
        }
    }

    /// Retry-After for a 503 from an ideal provider (`ideal-slots`): it knows its admission
    /// rate, so it names the first coming tick that still has room, counting the callers it
    /// already sent there.
    fn promise(&mut self, now: Micros) -> Micros {
        let horizon = RETRY_AFTER_HORIZON as u64;
        let tick = (self.tick + 1..self.tick + horizon)
            .find(|j| self.promised[(j % horizon) as usize] < self.capacity)
            .unwrap_or(self.tick + horizon - 1);
        self.promised[(tick % horizon) as usize] += 1;
        tick * TICK - now
    }

    /// An attempt failed (`overloaded`: with a 503, which may carry Retry-After). The lowest
    /// layer that still has attempts (and budget) schedules its retry; a layer out of either
    /// fails fast to the one above; if none is left the user action fails, or with `pending`
    /// is accepted as a pending order.
    fn fail(&mut self, q: &mut EventQueue<Event>, now: Micros, c: usize, overloaded: bool) {
        for l in (0..self.layers).rev() {
            let limit = if l == 0 { self.max_attempts } else { self.attempts_per_layer };
            if self.clients[c].attempts[l] >= limit {
                continue;
            }
            if self.has_budget() && !self.budgets[l].allows_retry(self.budget_share, self.budget_reserve) {
                continue;
            }
            if self.has_budget() {
                self.budgets[l].record_retry();
            }
            let delay = match (overloaded && self.config.retry_after, self.config.retry_after_kind) {
                (false, _) => self.backoff(c, l),
                (true, RetryAfterKind::IdealSlots) => self.promise(now),
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

    /// The delay before layer `l`'s next attempt, in µs.
    fn backoff(&mut self, c: usize, l: usize) -> Micros {
        // Failures so far at this layer, minus one: the first retry waits `base`.
        let k = self.clients[c].attempts[l].saturating_sub(1);
        let doubled = if k >= 40 { f64::INFINITY } else { self.base_us * (1u64 << k) as f64 };
        let exp = doubled.min(self.cap_us);
        let delay = match self.config.mode {
            Mode::Fixed => self.fixed_us,
            Mode::Exponential => exp,
            Mode::Jitter => self.jitter_rng.uniform() * exp,
            Mode::Equal => exp / 2.0 + self.jitter_rng.uniform() * exp / 2.0,
            Mode::Decorrelated => {
                // AWS's "decorrelated jitter": sleep = min(cap, random_between(base, sleep × 3)).
                let last = self.clients[c].last_delay[l];
                let d = self.jitter_rng.between(self.base_us, last * 3.0).min(self.cap_us);
                self.clients[c].last_delay[l] = d;
                d
            }
        };
        delay as Micros
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
        self.in_flight -= 1;
        self.succeeded += 1;
        self.end_action(c);
        let think = self.think_rng.exponential(self.think_us) as Micros;
        q.schedule_in(think, Event::Start(c as u32));
    }

    /// Every call in flight fails at this one instant: the shared failure moment.
    pub(super) fn go_down(&mut self, q: &mut EventQueue<Event>, now: Micros) {
        self.down = true;
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
            self.in_flight -= 1;
            self.failed += 1;
            self.cur.resets += 1;
            self.breaker_failure(now, Caller::Client(c as u32));
            self.fail(q, now, c, false);
        }
        self.reset_drain_calls(q, now);
    }

    pub(super) fn check_recovered(&mut self, now: Micros) {
        if self.recovered.is_none() && !self.down && now >= self.down_until && self.waiting == 0 {
            self.recovered = Some(now);
        }
    }
}
