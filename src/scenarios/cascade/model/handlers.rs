//! The model's event handlers: requests arrive, calls take connections, answers and timeouts
//! free them, clients give up.

use std::cmp::Reverse;

use super::{CHECKOUT_LOG_CAPACITY, Cascade, Event, GROWTH_WINDOW, RECS_POOL, SAMPLE_EVERY, SHARED};
use crate::scenarios::cascade::charts::{CheckoutOutcome, CheckoutSample, HomeSample, PoolSample};
use crate::scenarios::cascade::load::{jittered, late};
use crate::scenarios::cascade::pool::Slot;
use crate::scenarios::cascade::requests::{Call, CallKey, CallKind, CallState, Checkout, CheckoutKey, Home, HomeKey};
use crate::sim::{EventQueue, Micros};

impl Cascade {
    pub(super) fn schedule_home(&mut self, q: &mut EventQueue<Event>) {
        if let Some(t) = self.home_load.next(self.config.arrivals, self.late_us, self.load_end) {
            q.schedule_at(t, Event::HomeArrives);
        }
    }

    pub(super) fn schedule_checkout(&mut self, q: &mut EventQueue<Event>) {
        if let Some(t) = self.checkout_load.next(self.config.arrivals, self.late_us, self.load_end) {
            q.schedule_at(t, Event::CheckoutArrives);
        }
    }

    /// A /home request reaches the API; its handler works, then makes its calls.
    pub(super) fn home_arrives(&mut self, q: &mut EventQueue<Event>) {
        self.schedule_home(q);
        self.home_arrived += 1;
        let home = self.homes.insert(Home { unsettled: 2 });
        let work = jittered(&mut self.home_rng, self.handler_us, self.config.jitter_cv);
        q.schedule_in(work, Event::HomeHandler(home));
    }

    /// `Promise.all([recs, price])`: recommendations is asked for first, then price.
    pub(super) fn home_handler(&mut self, q: &mut EventQueue<Event>, now: Micros, home: HomeKey) {
        let recs_pool = if self.config.variant.has_bulkhead() { RECS_POOL } else { SHARED };
        let recs = self.new_call(CallKind::Recs(home), recs_pool);
        if let Some(timeout) = self.recs_timeout {
            // AbortSignal.timeout starts now, so it covers the wait for a connection too.
            let fire = timeout + late(&mut self.home_rng, self.late_us) as Micros;
            self.calls[recs].timeout = Some(q.timer_in(fire, Event::RecsTimeout(recs)));
        }
        self.request_connection(q, now, recs);
        let price = self.new_call(CallKind::HomePrice(home), SHARED);
        self.request_connection(q, now, price);
    }

    /// The load generator sends a /checkout and starts its client timer.
    pub(super) fn checkout_arrives(&mut self, q: &mut EventQueue<Event>, now: Micros) {
        self.schedule_checkout(q);
        self.checkout_arrived += 1;
        let (rng, cv) = (&mut self.checkout_rng, self.config.jitter_cv);
        let to_handler = jittered(rng, self.net_us, cv) + jittered(rng, self.handler_us, cv);
        let give_up = self.checkout_timeout + late(rng, self.late_us) as Micros;
        self.checkouts.insert_with_key(|checkout| {
            // In this order, so that at a tie the handler starts before the client gives up.
            let in_transit = q.timer_in(to_handler, Event::CheckoutHandler(checkout));
            let deadline = q.timer_in(give_up, Event::CheckoutDeadline(checkout));
            Checkout { sent: now, in_transit, deadline, call: None, abandoned: false }
        });
    }

    pub(super) fn checkout_handler(&mut self, q: &mut EventQueue<Event>, now: Micros, checkout: CheckoutKey) {
        let call = self.new_call(CallKind::CheckoutPrice(checkout), SHARED);
        self.checkouts[checkout].call = Some(call);
        self.request_connection(q, now, call);
    }

    fn new_call(&mut self, kind: CallKind, pool: usize) -> CallKey {
        self.calls.insert(Call { kind, pool, state: CallState::Queued, timeout: None })
    }

    /// Removes a call and cancels what it still has pending (its answer, its timeout).
    fn remove_call(&mut self, q: &mut EventQueue<Event>, call: CallKey) -> Call {
        let c = self.calls.remove(call).expect("a call's events are cancelled when it is removed");
        let answer = match c.state {
            CallState::Sent { answer, .. } => answer,
            CallState::Queued => None,
        };
        for timer in [answer, c.timeout].into_iter().flatten() {
            q.cancel(timer);
        }
        c
    }

    fn request_connection(&mut self, q: &mut EventQueue<Event>, now: Micros, call: CallKey) {
        let pool = self.calls[call].pool;
        match self.pools[pool].take() {
            Some((slot, fresh)) => self.start_call(q, now, call, slot, fresh),
            None => {
                self.pools[pool].enqueue(call);
                if matches!(self.calls[call].kind, CallKind::CheckoutPrice(_)) {
                    self.checkout_queued_now += 1;
                    self.checkout_queued += 1;
                }
            }
        }
    }

    /// The call holds connection `slot`; the request goes out (after a handshake on a new
    /// connection) and the answer is scheduled, unless recommendations has stopped answering.
    fn start_call(&mut self, q: &mut EventQueue<Event>, now: Micros, call: CallKey, slot: u32, fresh: bool) {
        let c = &mut self.calls[call];
        c.state = CallState::Sent { slot, answer: None };
        let (kind, pool_id) = (c.kind, c.pool);
        let pool = &mut self.pools[pool_id];
        pool.hold(now, slot, kind);
        if pool_id == SHARED && pool.full_of_recs() && self.pool_exhausted_at.is_none() {
            self.pool_exhausted_at = Some(now);
        }
        if pool_id == SHARED && pool.limit.is_some_and(|l| l > 0 && pool.in_use == l) && self.pool_full_at.is_none() {
            self.pool_full_at = Some(now);
        }
        self.downstream_open_max = self.downstream_open_max.max(self.downstream_open());

        let cv = self.config.jitter_cv;
        let rng = if matches!(kind, CallKind::CheckoutPrice(_)) { &mut self.checkout_rng } else { &mut self.home_rng };
        let handshake = if fresh { self.connect } else { 0 };
        let reaches = now + handshake + jittered(rng, self.net_us, cv);
        let work = match kind {
            // Slow, not silent: it answers after the provider's latency.
            CallKind::Recs(_) if reaches >= self.recs_stops_at && self.recs_slow.is_some() => {
                self.recs_slow.unwrap_or(0)
            }
            CallKind::Recs(_) if reaches >= self.recs_stops_at => {
                // Accepted, never answered.
                let pool = &mut self.pools[pool_id];
                pool.hung += 1;
                if pool.limit.is_some_and(|l| pool.hung == l) && pool.full_of_hung_at.is_none() {
                    pool.full_of_hung_at = Some(now);
                }
                return;
            }
            CallKind::Recs(_) => jittered(rng, self.recs_us, cv),
            CallKind::HomePrice(_) | CallKind::CheckoutPrice(_) => {
                libm::round(self.price_us + late(rng, self.late_us)) as Micros
            }
        };
        let back = jittered(rng, self.net_us, cv);
        let answer = q.timer_at(reaches + work + back, Event::CallReturns(call));
        self.calls[call].state = CallState::Sent { slot, answer: Some(answer) };
    }

    pub(super) fn call_returns(&mut self, q: &mut EventQueue<Event>, now: Micros, call: CallKey) {
        let c = self.remove_call(q, call); // answered in time: its timeout is cancelled
        let CallState::Sent { slot, .. } = c.state else { unreachable!("only a sent call is answered") };
        self.release(q, now, c.pool, slot);
        self.settle(q, now, c.kind);
    }

    /// The connection goes back to the pool: the first live waiter gets it, else it idles.
    fn release(&mut self, q: &mut EventQueue<Event>, now: Micros, pool_id: usize, slot: u32) {
        self.pools[pool_id].unhold(now, slot);
        match self.next_waiter(pool_id) {
            Some(next) => self.start_call(q, now, next, slot, false),
            None => {
                let pool = &mut self.pools[pool_id];
                pool.slots[slot as usize] = Slot::Idle;
                pool.idle.push(Reverse(slot));
            }
        }
    }

    /// An aborted request's connection cannot be reused: it is closed. A waiter, if any, opens
    /// a new connection in its place.
    fn destroy(&mut self, q: &mut EventQueue<Event>, now: Micros, pool_id: usize, slot: u32) {
        let pool = &mut self.pools[pool_id];
        pool.unhold(now, slot);
        pool.open -= 1;
        pool.slots[slot as usize] = Slot::Closed;
        match self.next_waiter(pool_id) {
            Some(next) => {
                self.pools[pool_id].open += 1;
                self.start_call(q, now, next, slot, true);
            }
            None => self.pools[pool_id].closed.push(Reverse(slot)),
        }
    }

    /// The first call still waiting in the pool's queue (aborted ones are gone from `calls`).
    fn next_waiter(&mut self, pool_id: usize) -> Option<CallKey> {
        let pool = &mut self.pools[pool_id];
        while let Some(call) = pool.queue.pop_front() {
            if let Some(c) = self.calls.get(call) {
                pool.waiting -= 1;
                if matches!(c.kind, CallKind::CheckoutPrice(_)) {
                    self.checkout_queued_now -= 1;
                }
                return Some(call);
            }
        }
        None
    }

    /// Gives up on a call: out of the queue, or its connection closed.
    fn abort(&mut self, q: &mut EventQueue<Event>, now: Micros, call: CallKey) {
        let c = self.remove_call(q, call);
        match c.state {
            CallState::Queued => {
                self.pools[c.pool].waiting -= 1;
                if matches!(c.kind, CallKind::CheckoutPrice(_)) {
                    self.checkout_queued_now -= 1;
                }
            }
            CallState::Sent { slot, answer } => {
                if answer.is_none() {
                    self.pools[c.pool].hung -= 1;
                }
                self.destroy(q, now, c.pool, slot)
            }
        }
    }

    pub(super) fn recs_timeout(&mut self, q: &mut EventQueue<Event>, now: Micros, call: CallKey) {
        let kind = self.calls[call].kind;
        self.recs_timed_out += 1;
        self.abort(q, now, call);
        self.settle(q, now, kind); // the page renders without recommendations
    }

    /// A call is over (answered or timed out): tell the handler that made it.
    fn settle(&mut self, q: &mut EventQueue<Event>, now: Micros, kind: CallKind) {
        match kind {
            CallKind::Recs(home) | CallKind::HomePrice(home) => {
                let h = &mut self.homes[home];
                h.unsettled -= 1;
                if h.unsettled == 0 {
                    q.schedule_at(now + self.render, Event::HomeResponds(home));
                }
            }
            CallKind::CheckoutPrice(checkout) if self.checkouts[checkout].abandoned => {
                // The answer goes to a connection its client already closed.
                self.checkouts.remove(checkout);
                self.checkout_abandoned_calls += 1;
            }
            CallKind::CheckoutPrice(checkout) => {
                let back = jittered(&mut self.checkout_rng, self.net_us, self.config.jitter_cv);
                self.checkouts[checkout].in_transit = q.timer_at(now + back, Event::CheckoutResponds(checkout));
            }
        }
    }

    /// The client gets its answer before giving up.
    pub(super) fn checkout_answered(&mut self, q: &mut EventQueue<Event>, now: Micros, checkout: CheckoutKey) {
        let c = self.checkouts.remove(checkout).expect("a checkout's events are cancelled when it ends");
        q.cancel(c.deadline);
        self.checkout_ok += 1;
        self.last_ok_sent = Some(c.sent);
        self.last_ok_latency = Some(now - c.sent);
        self.record_checkout(c.sent, now, true);
    }

    /// The client gives up before its answer came.
    pub(super) fn checkout_gives_up(&mut self, q: &mut EventQueue<Event>, now: Micros, checkout: CheckoutKey) {
        let c = self.checkouts[checkout];
        self.checkout_failed += 1;
        self.first_failed_at.get_or_insert(now);
        self.first_failed_sent = Some(self.first_failed_sent.map_or(c.sent, |t| t.min(c.sent)));
        let queued = c.call.and_then(|call| self.calls.get(call)).is_some_and(|call| call.state == CallState::Queued);
        if queued {
            self.checkout_failed_queued += 1;
        }
        let live_call = c.call.filter(|&call| self.calls.contains_key(call));
        let handler_to_come = c.call.is_none();
        if !self.config.cancel_on_client_close && (handler_to_come || live_call.is_some()) {
            // Node's default: the request still reaches its handler, and the handler's price
            // call goes on; only its answer is dropped.
            self.checkouts[checkout].abandoned = true;
        } else {
            // The handler stops when its caller leaves: its price call leaves the pool queue,
            // or its connection is closed (unless the answer is already on its way back).
            self.checkouts.remove(checkout);
            q.cancel(c.in_transit);
            if let Some(call) = live_call {
                self.abort(q, now, call);
            }
        }
        self.record_checkout(c.sent, now, false);
    }

    fn record_checkout(&mut self, sent: Micros, now: Micros, ok: bool) {
        let waited = now - sent;
        self.checkout_latency.record(waited);
        if self.checkout_log.len() == CHECKOUT_LOG_CAPACITY {
            self.checkout_log.pop_front();
        }
        self.checkout_log.push_back(CheckoutOutcome {
            sent_ms: sent as f64 / 1000.0,
            latency_ms: waited as f64 / 1000.0,
            ok,
        });
    }

    pub(super) fn record_growth(&mut self, now: Micros) {
        if self.at_load_end.is_some() || now > self.load_end {
            return;
        }
        self.growth.push_back((now, self.counts().home_in_flight));
        while self.growth.front().is_some_and(|&(t, _)| t + GROWTH_WINDOW < now) {
            self.growth.pop_front();
        }
    }

    pub(super) fn sample(&mut self, q: &mut EventQueue<Event>, now: Micros) {
        self.record_growth(now);
        let t = now as f64 / 1000.0;
        let c = self.counts();
        let (shared, recs) = (&self.pools[SHARED], &self.pools[RECS_POOL]);
        self.charts.home_in_flight.push(t, HomeSample { in_flight: c.home_in_flight as f64 });
        let pool = PoolSample {
            shared_in_use: shared.in_use as f64,
            shared_recs_held: shared.recs_held as f64,
            shared_waiting: shared.waiting as f64,
            recs_in_use: recs.in_use as f64,
            downstream_open: self.downstream_open() as f64,
        };
        self.charts.pool.push(t, pool);
        let checkout = CheckoutSample {
            ok: c.checkout_ok as f64,
            failed: c.checkout_failed as f64,
            waiting: c.checkout_in_flight as f64,
        };
        self.charts.checkout.push(t, checkout);
        q.schedule_in(SAMPLE_EVERY, Event::Sample);
    }
}
