//! The cascade model: the run's state, its events, and what it shows of itself.

mod handlers;

use std::collections::VecDeque;

use slotmap::SlotMap;

use super::chapter::GUIDED_STEPS;
use super::charts::{CheckoutOutcome, Charts};
use super::load::LoadGenerator;
use super::moment::{Counts, Moment};
use super::pool::{Pool, PoolNow};
use super::requests::{Call, CallKey, Checkout, CheckoutKey, Home, HomeKey};
use super::spec::{CascadeConfig, DEFAULT_DURATION_MS, TAIL_MS};
use crate::sim::rng::{SimRng, ms_to_us};
use crate::sim::stats::{Histogram, Series};
use crate::sim::{EventQueue, MS, Micros, Model, SEC};

/// Charts sample every 20 ms: the pool fills within 0.4 s, which needs finer than 100 ms.
pub const SAMPLE_EVERY: Micros = 20 * MS;
/// `home_in_flight_growth_per_s` is the slope over the last 5 s of the load.
pub(super) const GROWTH_WINDOW: Micros = 5 * SEC;
const CHART_CAPACITY: usize = 1200;
/// The most recent /checkout outcomes kept for drawing one mark per request.
pub const CHECKOUT_LOG_CAPACITY: usize = 1024;

/// The shared pool (price, and recommendations unless there is a bulkhead).
pub(super) const SHARED: usize = 0;
/// The bulkhead's pool for recommendations.
pub(super) const RECS_POOL: usize = 1;

#[derive(Clone, Copy, Debug)]
pub enum Event {
    HomeArrives,
    CheckoutArrives,
    /// /home's handler has done its own work and makes its calls.
    HomeHandler(HomeKey),
    /// /checkout's request reaches its handler, which makes its price call.
    CheckoutHandler(CheckoutKey),
    /// A call's answer reaches the handler that made it.
    CallReturns(CallKey),
    /// Recommendations' AbortSignal.timeout fires.
    RecsTimeout(CallKey),
    /// /home's page is rendered and sent.
    HomeResponds(HomeKey),
    /// /checkout's answer reaches its client.
    CheckoutResponds(CheckoutKey),
    /// /checkout's client gives up.
    CheckoutDeadline(CheckoutKey),
    LoadEnds,
    Sample,
}

/// The model: an API whose two routes share one connection pool to a downstream host.
pub struct Cascade {
    pub(super) config: CascadeConfig,
    pub(super) load_end: Micros,
    recs_timeout: Option<Micros>,
    late_us: f64,
    checkout_timeout: Micros,
    price_us: f64,
    pub(super) recs_stops_at: Micros,
    recs_us: f64,
    /// From `recs_stops_at`: how long each recommendations call takes; None = never answered.
    recs_slow: Option<Micros>,
    net_us: f64,
    handler_us: f64,
    render: Micros,
    connect: Micros,

    home_load: LoadGenerator,
    checkout_load: LoadGenerator,
    /// Draws for /home's handler and calls.
    home_rng: SimRng,
    /// Draws for /checkout's handler, calls and client timer, apart from /home's so that the
    /// variants see the same checkouts.
    checkout_rng: SimRng,

    pub(super) pools: [Pool; 2],
    /// Read by the picture (which call holds a slot, which waits), as are the checkouts.
    pub(super) calls: SlotMap<CallKey, Call>,
    homes: SlotMap<HomeKey, Home>,
    pub(super) checkouts: SlotMap<CheckoutKey, Checkout>,

    home_arrived: u64,
    home_done: u64,
    checkout_arrived: u64,
    checkout_ok: u64,
    pub(super) checkout_failed: u64,
    recs_timed_out: u64,
    pub(super) downstream_open_max: u32,
    pub(super) pool_exhausted_at: Option<Micros>,
    /// When every connection of the shared pool was first in use, by any calls.
    pub(super) pool_full_at: Option<Micros>,
    pub(super) last_ok_sent: Option<Micros>,
    pub(super) first_failed_at: Option<Micros>,
    pub(super) checkout_latency: Histogram,
    checkout_log: VecDeque<CheckoutOutcome>,

    /// (time, /home in flight) over the last [`GROWTH_WINDOW`] of the load.
    growth: VecDeque<(Micros, u64)>,
    /// /home in flight and its growth, frozen when the load stops.
    pub(super) at_load_end: Option<(u64, Option<f64>)>,
    charts: Charts,

    /// When the run ends.
    pub(super) end: Micros,
    /// /checkout price calls waiting for a shared connection now, and in all.
    checkout_queued_now: u32,
    pub(super) checkout_queued: u64,
    /// Checkouts given up on while their price call still waited for a connection.
    pub(super) checkout_failed_queued: u64,
    checkout_abandoned_calls: u64,
    /// When the earliest-sent checkout that failed was sent (the successes before it are a prefix).
    pub(super) first_failed_sent: Option<Micros>,
    last_ok_latency: Option<Micros>,
    /// The run at each of the chapter's moments ([`GUIDED_STEPS`]), once it has passed them.
    moments: [Option<Moment>; GUIDED_STEPS.len()],
    next_moment: usize,
}

impl Cascade {
    pub fn charts(&self) -> &Charts {
        &self.charts
    }

    /// The shared pool (/checkout's price calls always go through it).
    pub fn shared_pool(&self) -> &Pool {
        &self.pools[SHARED]
    }

    /// The bulkhead's pool for recommendations; None without a bulkhead.
    pub fn recs_pool(&self) -> Option<&Pool> {
        self.config.variant.has_bulkhead().then(|| &self.pools[RECS_POOL])
    }

    /// Connections open on the downstream host now, from every pool.
    pub fn downstream_open(&self) -> u32 {
        self.pools[SHARED].open + self.pools[RECS_POOL].open
    }

    pub fn counts(&self) -> Counts {
        Counts {
            home_arrived: self.home_arrived,
            home_done: self.home_done,
            home_in_flight: self.home_arrived - self.home_done,
            checkout_arrived: self.checkout_arrived,
            checkout_ok: self.checkout_ok,
            checkout_failed: self.checkout_failed,
            checkout_in_flight: self.checkout_arrived - self.checkout_ok - self.checkout_failed,
        }
    }

    /// The latest /checkout outcomes, oldest first (at most [`CHECKOUT_LOG_CAPACITY`]).
    pub fn checkout_log(&self) -> &VecDeque<CheckoutOutcome> {
        &self.checkout_log
    }

    /// When the load generator stops sending.
    pub fn load_end(&self) -> Micros {
        self.load_end
    }

    /// When recommendations stops answering.
    pub fn recs_stops_at(&self) -> Micros {
        self.recs_stops_at
    }

    /// When every connection of the shared pool was first held by a recommendations call.
    pub fn pool_exhausted_at(&self) -> Option<Micros> {
        self.pool_exhausted_at
    }

    /// When every connection of the shared pool was first in use, by any calls.
    pub fn pool_full_at(&self) -> Option<Micros> {
        self.pool_full_at
    }

    /// From [`recs_stops_at`](Self::recs_stops_at), how long each recommendations call takes
    /// to answer; None when it never answers (the chapter's run).
    pub fn recs_slow(&self) -> Option<Micros> {
        self.recs_slow
    }

    /// Recommendations' timeout, when the fix has one.
    pub fn recs_timeout_us(&self) -> Option<Micros> {
        self.recs_timeout
    }

    /// When the first /checkout client gave up.
    pub fn first_failed_at(&self) -> Option<Micros> {
        self.first_failed_at
    }

    /// When the run ends.
    pub fn end(&self) -> Micros {
        self.end
    }

    /// The shared pool now.
    pub fn shared_now(&self) -> PoolNow {
        PoolNow::of(&self.pools[SHARED])
    }

    /// The bulkhead's pool now (None without one).
    pub fn recs_pool_now(&self) -> Option<PoolNow> {
        self.recs_pool().map(PoolNow::of)
    }

    /// The run as it is now (at `now`).
    pub fn moment_now(&self, now: Micros) -> Moment {
        Moment {
            at: now,
            counts: self.counts(),
            shared: self.shared_now(),
            recs_pool: self.recs_pool_now(),
            recs_timed_out: self.recs_timed_out,
            checkout_queued: self.checkout_queued_now,
            last_ok_latency: self.last_ok_latency,
            downstream_open: self.downstream_open(),
        }
    }

    /// The run at the chapter's moment `step` ([`GUIDED_STEPS`]), if the run has reached it by
    /// `now`: what it was then, not now.
    pub fn moment(&self, step: usize, now: Micros) -> Option<Moment> {
        let at = GUIDED_STEPS.get(step)?.time_ms * MS;
        match self.moments[step] {
            Some(m) => Some(m),
            // Reached, and no event after it handled yet: the state now is the state then.
            None if at <= now => Some(Moment { at, ..self.moment_now(now) }),
            None => None,
        }
    }

    /// The chapter's moment the run has reached by `now` (the last one at or before it).
    pub fn step_at(now: Micros) -> usize {
        GUIDED_STEPS.iter().rposition(|g| g.time_ms * MS <= now).unwrap_or(0)
    }

    /// Records the run at each chapter's moment before the first event at or after it is
    /// handled: the state then is the state at that moment (events before it, none after).
    fn pass_moments(&mut self, now: Micros) {
        while let Some(g) = GUIDED_STEPS.get(self.next_moment) {
            let at = g.time_ms * MS;
            if at > now {
                return;
            }
            self.moments[self.next_moment] = Some(self.moment_now(at));
            self.next_moment += 1;
        }
    }
}

impl Model for Cascade {
    type Config = CascadeConfig;
    type Event = Event;
    type Metrics = crate::scenarios::cascade::spec::CascadeMetrics;

    /// The load, the longest a checkout may wait after it, and half a second for the last
    /// answers: the chapter's 10 s of load and 5 s timeout give its 15.5 s.
    fn run_length_ms(c: &CascadeConfig) -> Option<u64> {
        Some(((c.load_ms + c.checkout_timeout_ms) as u64 + TAIL_MS).max(DEFAULT_DURATION_MS))
    }

    fn new(config: CascadeConfig, seed: u64, end: Micros, queue: &mut EventQueue<Event>) -> Self {
        let limit = |size: u32| (!config.unbounded_pool).then_some(size);
        let recs_pool_limit = if config.variant.has_bulkhead() { limit(config.recs_pool_size) } else { Some(0) };
        let mut model = Self {
            load_end: ms_to_us(config.load_ms),
            recs_timeout: config.variant.has_timeout().then(|| ms_to_us(config.recs_timeout_ms)),
            late_us: config.timer_late_ms * 1000.0,
            checkout_timeout: ms_to_us(config.checkout_timeout_ms),
            price_us: config.price_ms * 1000.0,
            recs_stops_at: ms_to_us(config.recs_stops_at_ms),
            recs_us: config.recs_ms * 1000.0,
            recs_slow: (config.recs_latency_ms > 0.0).then(|| ms_to_us(config.recs_latency_ms)),
            net_us: config.net_ms * 1000.0,
            handler_us: config.handler_ms * 1000.0,
            render: ms_to_us(config.render_ms),
            connect: ms_to_us(config.connect_ms),
            home_load: LoadGenerator::new(SimRng::stream(seed, 1), config.home_rate),
            checkout_load: LoadGenerator::new(SimRng::stream(seed, 2), config.checkout_rate),
            home_rng: SimRng::stream(seed, 3),
            checkout_rng: SimRng::stream(seed, 4),
            pools: [Pool::new(limit(config.pool_size)), Pool::new(recs_pool_limit)],
            calls: SlotMap::with_key(),
            homes: SlotMap::with_key(),
            checkouts: SlotMap::with_key(),
            home_arrived: 0,
            home_done: 0,
            checkout_arrived: 0,
            checkout_ok: 0,
            checkout_failed: 0,
            recs_timed_out: 0,
            downstream_open_max: 0,
            pool_exhausted_at: None,
            pool_full_at: None,
            last_ok_sent: None,
            first_failed_at: None,
            checkout_latency: Histogram::new(),
            checkout_log: VecDeque::with_capacity(CHECKOUT_LOG_CAPACITY),
            growth: VecDeque::new(),
            at_load_end: None,
            end,
            checkout_queued_now: 0,
            checkout_queued: 0,
            checkout_failed_queued: 0,
            checkout_abandoned_calls: 0,
            first_failed_sent: None,
            last_ok_latency: None,
            moments: [None; GUIDED_STEPS.len()],
            next_moment: 0,
            charts: Charts {
                home_in_flight: Series::new(CHART_CAPACITY),
                pool: Series::new(CHART_CAPACITY),
                checkout: Series::new(CHART_CAPACITY),
            },
            config,
        };
        model.schedule_home(queue);
        model.schedule_checkout(queue);
        queue.schedule_at(model.load_end, Event::LoadEnds);
        queue.schedule_at(0, Event::Sample);
        model
    }

    fn handle(&mut self, q: &mut EventQueue<Event>, now: Micros, event: Event) {
        self.pass_moments(now);
        match event {
            Event::HomeArrives => self.home_arrives(q),
            Event::CheckoutArrives => self.checkout_arrives(q, now),
            Event::HomeHandler(home) => self.home_handler(q, now, home),
            Event::CheckoutHandler(checkout) => self.checkout_handler(q, now, checkout),
            Event::CallReturns(call) => self.call_returns(q, now, call),
            Event::RecsTimeout(call) => self.recs_timeout(q, now, call),
            Event::HomeResponds(home) => {
                self.home_done += 1;
                self.homes.remove(home);
            }
            Event::CheckoutResponds(checkout) => self.checkout_answered(q, now, checkout),
            Event::CheckoutDeadline(checkout) => self.checkout_gives_up(q, now, checkout),
            Event::LoadEnds => {
                self.record_growth(now);
                self.at_load_end = Some((self.counts().home_in_flight, self.growth_now()));
            }
            Event::Sample => self.sample(q, now),
        }
    }

    fn metrics(&self, now: Micros) -> Self::Metrics {
        let c = self.counts();
        let (in_flight_end, growth) = self.at_load_end.unwrap_or_else(|| (c.home_in_flight, self.growth_now()));
        let ms = |q: f64| self.checkout_latency.quantile_ms(q);
        let at = |t: Option<Micros>| t.map(|t| t as f64 / 1000.0);
        let shared = self.shared_pool();
        Self::Metrics {
            home_in_flight_end: in_flight_end,
            home_in_flight_growth_per_s: growth,
            checkout_ok: c.checkout_ok,
            checkout_failed: c.checkout_failed,
            checkout_p99_ms: ms(0.99),
            checkout_p99_ms_with_waiting: self.checkout_quantile_with_waiting(0.99, now),
            pool_in_use_max: shared.in_use_max as u64,
            downstream_open_connections_max: self.downstream_open_max as u64,
            home_arrived: c.home_arrived,
            home_done: c.home_done,
            home_in_flight_now: c.home_in_flight,
            checkout_arrived: c.checkout_arrived,
            checkout_waiting: c.checkout_in_flight,
            checkout_p50_ms: ms(0.5),
            checkout_p50_ms_with_waiting: self.checkout_quantile_with_waiting(0.5, now),
            recs_timed_out: self.recs_timed_out,
            recs_pool_in_use_max: self.recs_pool().map(|p| p.in_use_max as u64),
            pool_waiting_max: shared.waiting_max as u64,
            pool_exhausted_ms: at(self.pool_exhausted_at),
            last_checkout_ok_sent_ms: at(self.last_ok_sent),
            first_checkout_failed_ms: at(self.first_failed_at),
            downstream_open_connections: self.downstream_open() as u64,
            checkout_queued: self.checkout_queued,
            checkout_failed_queued: self.checkout_failed_queued,
            checkout_abandoned_calls: self.checkout_abandoned_calls,
            pool_full_at_ms: at(self.pool_full_at),
        }
    }

    fn config(&self) -> &CascadeConfig {
        &self.config
    }
}

impl Cascade {
    /// Slope of /home in flight over the growth window so far, per second.
    pub(super) fn growth_now(&self) -> Option<f64> {
        let (&(t0, v0), &(t1, v1)) = (self.growth.front()?, self.growth.back()?);
        (t1 > t0).then(|| (v1 as f64 - v0 as f64) * 1e6 / (t1 - t0) as f64)
    }
}
