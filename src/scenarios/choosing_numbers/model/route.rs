//! The route's handlers: a request arrives, its steps of calls start, each attempt connects and
//! ends (answered, timed out, failed to connect), a failed call is retried or falls back, the
//! deadline cuts what is left, and the answer is counted.

use super::{Call, ChoosingNumbers, Event, RateSample, Request, RequestKey, TICK};
use crate::scenarios::choosing_numbers::latency::MAX_LATENCY_MS;
use crate::scenarios::choosing_numbers::record::{AlertState, AttemptEnd, AttemptRecord, Landed, RequestRecord, RouteOutcome, SHOWN_CALLS};
use crate::scenarios::choosing_numbers::spec::RetryPolicy;
use crate::sim::rng::ms_to_us;
use crate::sim::{EventQueue, Micros};

/// Linux retransmits a SYN `tcp_syn_retries` times (its default, 6), more on 6.5 and later.
const SYN_RETRIES: u32 = 6;

impl ChoosingNumbers {
    /// How many SYNs the kernel sends for one connect, the first included.
    fn syn_sends(&self) -> u8 {
        self.config.syn_schedule.retransmits(SYN_RETRIES) as u8 + 1
    }

    /// When send `j` of a SYN goes out (0: the first), on the kernel's schedule.
    fn retransmit_at(&self, j: u8) -> Micros {
        self.config.syn_schedule.send_at(j as u32)
    }
}

impl ChoosingNumbers {
    pub(super) fn interarrival(&mut self) -> Micros {
        (self.arrivals_rng.exponential(1e6 / self.config.rate) as Micros).max(1)
    }

    pub(super) fn arrival(&mut self, q: &mut EventQueue<Event>, now: Micros) {
        let gap = self.interarrival();
        q.schedule_in(gap, Event::Arrival);
        self.counts.requests += 1;
        self.counts.in_flight += 1;
        let n = self.config.fan_out * self.config.sequential_calls;
        let mut calls = self.spare_calls.pop().unwrap_or_default();
        calls.clear();
        calls.resize(n, Call::default());
        let stuck = self.stuck_rng.uniform() * 100.0 < self.config.stuck_pct;
        let mut record = RequestRecord { arrived: now, deadline: self.deadline, calls: n, stuck, ..Default::default() };
        for (c, step) in record.step.iter_mut().enumerate() {
            *step = (c / self.config.fan_out) as u8;
        }
        let key = self.requests.insert(Request {
            arrived: now,
            deadline_timer: None,
            stuck,
            step: 0,
            pending: 0,
            fallback: false,
            attempts: 0,
            calls,
            record,
        });
        if let Some(d) = self.deadline {
            self.requests[key].deadline_timer = Some(q.timer_in(d, Event::Deadline(key)));
        }
        self.start_step(q, now, key);
    }

    fn start_step(&mut self, q: &mut EventQueue<Event>, now: Micros, key: RequestKey) {
        let fan = self.config.fan_out;
        let step = {
            let r = &mut self.requests[key];
            r.pending = fan;
            r.step
        };
        for c in step * fan..(step + 1) * fan {
            self.start_attempt(q, now, key, c);
        }
    }

    /// With a budgeted policy and a deadline: how long an attempt starting now may take in all,
    /// the time left of the deadline.
    fn budget_left(&self, now: Micros, arrived: Micros) -> Option<Micros> {
        match (self.config.retry_policy, self.deadline) {
            (RetryPolicy::Budgeted, Some(d)) => Some((arrived + d).saturating_sub(now)),
            _ => None,
        }
    }

    pub(super) fn start_attempt(&mut self, q: &mut EventQueue<Event>, now: Micros, key: RequestKey, c: usize) {
        let (arrived, stuck) = (self.requests[key].arrived, self.requests[key].stuck);
        let budget = self.budget_left(now, arrived);
        // The connection: each SYN is lost with the set chance, and retransmitted on the kernel's
        // schedule; the fitted latency already holds a region's ~1 ms connect.
        let sends = self.syn_sends();
        let mut lost = 0;
        while lost < sends && self.syn_rng.uniform() * 100.0 < self.config.syn_loss_pct {
            lost += 1;
        }
        let connect = if lost < sends { Some(self.retransmit_at(lost)) } else { None };
        let connect_ok = connect.filter(|&d| self.connect_timeout.is_none_or(|ct| d <= ct));
        let after_drift = self.drift_at.is_some_and(|d| now >= d);
        let work = if stuck {
            MAX_LATENCY_MS
        } else {
            let u = self.latency_rng.uniform();
            if after_drift { self.drifted.quantile(u) } else { self.latency.quantile(u) }
        };
        // The timeout counts from the open connection (the connect has its own); a budgeted
        // attempt also ends when the deadline's time left runs out.
        let (mut end_at, mut planned, work_end) = match connect_ok {
            Some(d) => {
                let answer = now + d + ms_to_us(work).max(1);
                match self.timeout {
                    Some(t) if now + d + t < answer => (now + d + t, AttemptEnd::TimedOut, answer),
                    _ => (answer, AttemptEnd::Answered, answer),
                }
            }
            None => {
                let fails = self.connect_timeout.unwrap_or(self.config.syn_schedule.give_up(SYN_RETRIES));
                (now + fails, AttemptEnd::ConnectFailed, 0)
            }
        };
        if let Some(b) = budget
            && now + b < end_at
        {
            (end_at, planned) = (now + b, AttemptEnd::TimedOut);
        }
        let timer = q.timer_at(end_at, Event::AttemptEnd { req: key, call: c as u8 });
        let r = &mut self.requests[key];
        r.attempts += 1;
        let call = &mut r.calls[c];
        *call = Call {
            tries: call.tries + 1,
            timer: Some(timer),
            attempting: true,
            done: false,
            start: now,
            connected: connect_ok.map(|d| now + d),
            work_end,
            planned,
            lost,
            healthy: !stuck && !after_drift,
            drifted: !stuck && after_drift,
        };
        if c < SHOWN_CALLS {
            let i = (call.tries - 1) as usize;
            r.record.attempts[c][i] = AttemptRecord { start: now - arrived, ..Default::default() };
            r.record.tries[c] = call.tries;
        }
    }

    /// Closes call `c`'s attempt at `now` with `outcome`: the record, the SYNs it sent again and
    /// the dependency's work after the caller stopped waiting.
    fn close_attempt(&mut self, now: Micros, key: RequestKey, c: usize, outcome: AttemptEnd) {
        let propagate = self.config.propagate;
        let (sends, schedule) = (self.syn_sends(), self.config.syn_schedule);
        let r = &mut self.requests[key];
        let call = &mut r.calls[c];
        call.attempting = false;
        let elapsed = now - call.start;
        self.counts.syn_retransmits +=
            (1..=call.lost.min(sends - 1)).filter(|&j| schedule.send_at(j as u32) < elapsed).count() as u64;
        let working = call.connected.is_some_and(|t| t <= now) && outcome != AttemptEnd::Answered;
        let work_end = match call.connected {
            Some(t) if t <= now => {
                if working && !propagate {
                    self.counts.work_after_give_up += call.work_end.saturating_sub(now);
                    call.work_end
                } else {
                    now.min(call.work_end)
                }
            }
            _ => now,
        };
        if let Some(t) = call.connected.filter(|&t| t <= now && matches!(outcome, AttemptEnd::Answered | AttemptEnd::TimedOut)) {
            let timed_out = outcome == AttemptEnd::TimedOut;
            self.landed.push(Landed { latency: call.work_end.saturating_sub(t), timed_out });
        }
        if c < SHOWN_CALLS {
            let arrived = r.arrived;
            let a = &mut r.record.attempts[c][(call.tries - 1) as usize];
            a.end = now - arrived;
            a.connected = call.connected.filter(|&t| t <= now).map(|t| t - arrived);
            a.work_end = work_end - arrived;
            a.outcome = outcome;
        }
    }

    pub(super) fn attempt_end(&mut self, q: &mut EventQueue<Event>, now: Micros, key: RequestKey, c: usize) {
        let Some(r) = self.requests.get_mut(key) else { return };
        let call = &mut r.calls[c];
        call.timer = None;
        let (outcome, healthy, drifted, tries) = (call.planned, call.healthy, call.drifted, call.tries);
        self.close_attempt(now, key, c, outcome);
        let timed_out = outcome == AttemptEnd::TimedOut;
        if outcome == AttemptEnd::ConnectFailed {
            self.counts.connect_timeouts += 1;
        } else {
            self.alert.record(timed_out);
            if healthy {
                self.counts.healthy_ended += 1;
                self.counts.healthy_timed_out += u64::from(timed_out);
            } else if drifted {
                self.counts.drift_ended += 1;
                self.counts.drift_timed_out += u64::from(timed_out);
            }
        }
        if outcome == AttemptEnd::Answered {
            return self.call_done(q, now, key, c, true);
        }
        if (tries as u32) < self.config.max_attempts {
            let backoff = self.config.backoff_ms * libm::pow(2.0, (tries - 1) as f64);
            let delay = ms_to_us(backoff * (1.0 - self.config.jitter_pct / 100.0 * self.jitter_rng.uniform()));
            let room = match (self.config.retry_policy, self.deadline) {
                (RetryPolicy::Budgeted, Some(d)) => {
                    let left = (self.requests[key].arrived + d).saturating_sub(now + delay);
                    left > self.expected_attempt
                }
                _ => true,
            };
            if room {
                let timer = q.timer_in(delay, Event::Retry { req: key, call: c as u8 });
                self.requests[key].calls[c].timer = Some(timer);
                return;
            }
        }
        self.call_done(q, now, key, c, false);
    }

    /// Call `c` answered (`ok`) or failed for good.
    fn call_done(&mut self, q: &mut EventQueue<Event>, now: Micros, key: RequestKey, c: usize, ok: bool) {
        let optional = self.config.optional;
        let r = &mut self.requests[key];
        r.calls[c].done = true;
        if !ok {
            if !optional {
                return self.finish(q, now, key, RouteOutcome::Error);
            }
            r.fallback = true;
            if c < SHOWN_CALLS {
                r.record.fallback[c] = true;
            }
        }
        r.pending -= 1;
        if r.pending > 0 {
            return;
        }
        if r.step + 1 < self.config.sequential_calls {
            r.step += 1;
            return self.start_step(q, now, key);
        }
        let outcome = if r.fallback { RouteOutcome::Partial } else { RouteOutcome::Complete };
        self.finish(q, now, key, outcome);
    }

    /// The route's deadline passed with calls still going: it answers with what it has.
    pub(super) fn deadline_passed(&mut self, q: &mut EventQueue<Event>, now: Micros, key: RequestKey) {
        let Some(r) = self.requests.get_mut(key) else { return };
        r.deadline_timer = None;
        self.counts.past_deadline += 1;
        let outcome = if self.config.optional { RouteOutcome::Partial } else { RouteOutcome::Error };
        if self.config.optional {
            let r = &mut self.requests[key];
            let first_open = r.step * self.config.fan_out;
            for c in first_open..r.calls.len().min(SHOWN_CALLS) {
                r.record.fallback[c] |= !r.calls[c].done;
            }
        }
        self.finish(q, now, key, outcome);
    }

    /// The route answers: every call still going is cut, the answer is counted.
    fn finish(&mut self, q: &mut EventQueue<Event>, now: Micros, key: RequestKey, outcome: RouteOutcome) {
        for c in 0..self.requests[key].calls.len() {
            let call = &mut self.requests[key].calls[c];
            if let Some(t) = call.timer.take() {
                q.cancel(t);
            }
            if call.attempting {
                self.close_attempt(now, key, c, AttemptEnd::Cut);
            }
        }
        let Some(mut r) = self.requests.remove(key) else { return };
        if let Some(t) = r.deadline_timer.take() {
            q.cancel(t);
        }
        let latency = now - r.arrived;
        let c = &mut self.counts;
        c.in_flight -= 1;
        c.finished += 1;
        c.attempts += r.attempts;
        c.slow += u64::from(latency > self.p99);
        c.fallback += u64::from(outcome == RouteOutcome::Partial);
        c.errors += u64::from(outcome == RouteOutcome::Error);
        self.route.record(latency);
        r.record.latency = latency;
        r.record.outcome = outcome;
        if self.slowest.is_none_or(|s| latency > s.latency) {
            self.slowest = Some(r.record);
        }
        self.latest = Some(r.record);
        self.spare_calls.push(r.calls);
    }

    /// Every second: the alert evaluates its rule over its window, and the chart gets a point.
    pub(super) fn tick(&mut self, q: &mut EventQueue<Event>, now: Micros) {
        let rate = self.alert.rate_pct();
        self.alert_state = self.alert.evaluate(now);
        if self.alert_state == AlertState::Firing {
            self.alert_fired_at.get_or_insert(now);
            if let Some(d) = self.drift_at.filter(|&d| now >= d) {
                self.alert_after_drift.get_or_insert(now - d);
            }
        }
        self.rates.push(now as f64 / 1000.0, RateSample { rate_pct: rate.unwrap_or(f64::NAN), alert: self.alert_state });
        q.schedule_in(TICK, Event::Tick);
    }
}
