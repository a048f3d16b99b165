//! The retry-storm model: the run's state, its events, what it shows of itself and its
//! metrics.

mod drain;
mod handlers;
mod layers;
mod provider;

use super::breaker::{Breaker, Trip};
use super::budget::BudgetWindow;
use super::client::{Client, ClientState, ClientsNow};
use super::pending::{Pending, PendingCounts};
use super::spec::{AFTER_OUTAGE_MS, DEFAULT_DURATION_MS, DrainRamp, RetryStormConfig, TICK};
use super::ticks::{Chart, TickCounts, TickNow, TickSample, Wave, Waves};
use crate::sim::rng::{SimRng, ms_to_us};
use crate::sim::stats::Series;
use crate::sim::{EventQueue, Micros, Model, Value};
use layers::Layers;
use provider::Provider;

#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// A tick boundary: closes the previous tick's counts.
    Tick,
    /// A client starts a new user action.
    Start(u32),
    /// A client's backoff ends: the waiting layer tries again.
    Retry(u32),
    /// A client's call completes (cancelled when the provider goes down first).
    Done(u32),
    Down,
    Up,
    /// The pending-order worker's next call is due.
    DrainSend,
    /// A call of the worker's completes, by its slot (cancelled when the provider goes down first).
    DrainDone(u32),
}

/// Running totals, for stat cards and the conservation check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counts {
    pub attempts: u64,
    pub succeeded: u64,
    pub rejected: u64,
    pub failed: u64,
    /// Provider calls in flight, the pending worker's included.
    pub in_flight: u64,
    pub waiting: u64,
    /// Attempts the breaker failed at once: not sent, so not in `attempts`.
    pub short_circuited: u64,
    pub actions: u64,
    /// Actions whose call succeeded.
    pub actions_ok: u64,
    pub actions_failed: u64,
    /// The pending orders (all zero without `pending`).
    pub pending: PendingCounts,
}

/// The model: closed-loop clients, a provider with a per-tick capacity and an outage, and the
/// retrying layers between them.
pub struct RetryStorm {
    pub(super) config: RetryStormConfig,
    pub(super) provider: Provider,
    pub(super) think_us: f64,
    /// Not in the list: without it a failed action would be followed by the short think
    /// time, so users whose calls fail fast would call many times faster than usual and a retry
    /// budget would show more traffic, not less.
    pub(super) pause_us: f64,
    pub(super) layers: Layers,

    pub(super) call_rng: SimRng,
    pub(super) think_rng: SimRng,

    pub(super) clients: Vec<Client>,

    pub(super) tick: u64,
    pub(super) cur: TickCounts,
    pub(super) waiting: u32,

    pub(super) actions: u64,
    pub(super) actions_failed: u64,
    pub(super) max_calls_per_action: u32,
    /// Calls sent before the provider went down.
    pub(super) attempts_before: u64,
    /// The calls the provider failed at once when it went down (none until it has).
    pub(super) failed_at_down: Option<u64>,
    pub(super) outage_attempts: u64,
    pub(super) outage_user_calls: u64,
    pub(super) max_open_per_client: u32,
    pub(super) waves: Waves,
    pub(super) recovered: Option<Micros>,
    pub(super) chart: Chart,
    /// When the run ends.
    pub(super) end: Micros,
    /// The client's retry budget window when the provider came back (with a budget only).
    pub(super) budget_at_recovery: Option<BudgetWindow>,
    /// The circuit breaker in front of the provider, when there is one.
    pub(super) breaker: Option<Breaker>,
    /// The pending orders and their worker, when actions are accepted as pending.
    pub(super) pending: Option<Pending>,
    /// Draws for the worker's call durations, apart from the clients'.
    pub(super) drain_rng: SimRng,
    pub(super) short_circuited: u64,
    pub(super) actions_ok: u64,
    pub(super) max_attempts_per_action: u32,
    /// The pending backlog when the provider came back (with `pending` only).
    pub(super) backlog_at_recovery: Option<u64>,
}

impl RetryStorm {
    /// Per-tick counts for the charts (a row per [`Self::ticks_per_row`] ticks).
    pub fn ticks(&self) -> &Series<TickSample> {
        self.chart.rows()
    }

    /// How many ticks one charted row stands for: 1 unless the run is longer than
    /// [`MAX_ROWS`] ticks.
    pub fn ticks_per_row(&self) -> u64 {
        self.chart.ticks_per_row()
    }

    /// When the provider is down: [from, until) in µs (empty when until ≤ from).
    pub fn outage(&self) -> (Micros, Micros) {
        let p = &self.provider;
        (p.down_from(), p.down_until().max(p.down_from()))
    }

    pub fn capacity(&self) -> u32 {
        self.provider.capacity()
    }

    pub fn clients(&self) -> &[Client] {
        &self.clients
    }

    pub fn counts(&self) -> Counts {
        let t = self.provider.totals();
        Counts {
            attempts: t.calls,
            succeeded: t.succeeded,
            rejected: t.rejected,
            failed: t.failed,
            in_flight: t.in_flight as u64,
            waiting: self.waiting as u64,
            short_circuited: self.short_circuited,
            actions: self.actions,
            actions_ok: self.actions_ok,
            actions_failed: self.actions_failed,
            pending: self.pending.as_ref().map(Pending::counts).unwrap_or_default(),
        }
    }

    /// The client's retry budget window when the provider came back (with a budget only).
    pub fn budget_at_recovery(&self) -> Option<BudgetWindow> {
        self.budget_at_recovery
    }

    /// The first `MAX_WAVES` waves after recovery.
    pub fn waves(&self) -> &[Wave] {
        self.waves.listed()
    }

    pub fn recovered_at(&self) -> Option<Micros> {
        self.recovered
    }

    /// The circuit breaker, when there is one.
    pub fn breaker(&self) -> Option<&Breaker> {
        self.breaker.as_ref()
    }

    /// The pending orders and their worker, when actions are accepted as pending.
    pub fn pending(&self) -> Option<&Pending> {
        self.pending.as_ref()
    }

    /// The pending backlog when the provider came back (with `pending` only).
    pub fn backlog_at_recovery(&self) -> Option<u64> {
        self.backlog_at_recovery
    }

    /// The tick in progress at the model's present.
    pub fn tick_now(&self) -> TickNow {
        let p = self.provider.tick();
        TickNow {
            start: self.tick * TICK,
            served: p.admitted,
            rejected: p.rejected,
            failed: p.failed_fast,
            short_circuited: self.cur.short_circuited,
            resets: p.resets,
        }
    }

    /// The clients, counted by what they are doing now.
    pub fn clients_now(&self) -> ClientsNow {
        let mut n = ClientsNow::default();
        for c in &self.clients {
            match c.state {
                ClientState::InFlight => n.in_call += 1,
                ClientState::WaitingToRetry => n.waiting += 1,
                ClientState::Idle => n.idle += 1,
            }
        }
        n
    }

    /// The most calls any client ever had in flight at once (the invariant: 1).
    pub fn max_calls_in_flight_per_client(&self) -> u32 {
        self.max_open_per_client
    }
}

impl Model for RetryStorm {
    type Config = RetryStormConfig;
    type Event = Event;
    type Metrics = crate::scenarios::retry_storm::spec::RetryStormMetrics;

    /// Past the outage: 14 s after the provider is back, time for the longest backoff to play out;
    /// with `pending`, also time for the worker to drain the orders the outage left.
    fn run_length_ms(c: &RetryStormConfig) -> Option<u64> {
        Some((c.down_until_ms as u64 + AFTER_OUTAGE_MS).max(DEFAULT_DURATION_MS) + drain_allowance_ms(c))
    }

    fn new(config: RetryStormConfig, seed: u64, end: Micros, queue: &mut EventQueue<Event>) -> Self {
        // The declared ranges start at 1; a configuration built by hand gets the same floors.
        let n = config.clients.max(1);
        let layers = Layers::new(&config, seed);
        let model = Self {
            provider: Provider::new(&config),
            think_us: ms_to_us(config.think_ms) as f64,
            pause_us: ms_to_us(config.pause_after_failure_ms) as f64,
            call_rng: SimRng::stream(seed, 1),
            think_rng: SimRng::stream(seed, 2),
            clients: vec![Client::new(layers.base_us()); n],
            layers,
            tick: 0,
            cur: TickCounts::default(),
            waiting: 0,
            actions: 0,
            actions_failed: 0,
            max_calls_per_action: 0,
            attempts_before: 0,
            failed_at_down: None,
            outage_attempts: 0,
            outage_user_calls: 0,
            max_open_per_client: 0,
            waves: Waves::default(),
            recovered: None,
            chart: Chart::new(end),
            end,
            budget_at_recovery: None,
            breaker: config.breaker.then(|| {
Breaker::new(Trip::of(&config), ms_to_us(config.breaker_cooldown_ms))
            }),
            pending: config.pending.then(|| Pending::new(config.drain_rate, config.drain_ramp)),
            drain_rng: SimRng::stream(seed, 5),
            short_circuited: 0,
            actions_ok: 0,
            max_attempts_per_action: 0,
            backlog_at_recovery: None,
            config,
        };
        // Outage events first, so at the same instant they come before any call.
        let (from, until) = (model.provider.down_from(), model.provider.down_until());
        if until > from {
            queue.schedule_at(from, Event::Down);
        }
        queue.schedule_at(until, Event::Up);
        queue.schedule_at(0, Event::Tick);
        // Clients start at random moments over one cycle, so the provider sees steady load from
        // the start: starting all of them at 0 would itself be a storm.
        let mut start_rng = SimRng::stream(seed, 4);
        let cycle = model.provider.call_us() + model.think_us;
        for c in 0..n as u32 {
            queue.schedule_at((start_rng.uniform() * cycle) as Micros, Event::Start(c));
        }
        model
    }

    fn handle(&mut self, q: &mut EventQueue<Event>, now: Micros, event: Event) {
        self.roll_to(now / TICK);
        match event {
            Event::Tick => q.schedule_in(TICK, Event::Tick),
            Event::Start(c) => self.start_action(q, now, c as usize),
            Event::Retry(c) => self.retry(q, now, c as usize),
            Event::Done(c) => self.done(q, now, c as usize),
            Event::Down => self.go_down(q, now),
            Event::Up => {
                self.provider.come_up();
                if self.provider.has_outage() && self.layers.has_budget() {
                    self.budget_at_recovery = Some(self.layers.window(self.outage_first_tick()));
                }
                if let Some(p) = &self.pending {
                    self.backlog_at_recovery = Some(p.counts().backlog);
                }
                self.check_recovered(now);
            }
            Event::DrainSend => self.drain_send(q, now),
            Event::DrainDone(slot) => self.drain_done(now, slot),
        }
    }

    fn metrics(&self, now: Micros) -> Self::Metrics {
        let ms = |t: Micros| t as f64 / 1000.0;
        let peak = self.peak_now(now);
        let ratio = |a: u64, b: u64| (b > 0).then(|| a as f64 / b as f64);
        let current_calls = self.clients.iter().map(|c| c.action_calls).max().unwrap_or(0);
        let current_attempts = self.clients.iter().map(|c| c.action_attempts).max().unwrap_or(0);
        let pending = self.pending.as_ref().map(Pending::counts).unwrap_or_default();
        let t = self.provider.totals();
        Self::Metrics {
            peak_after_recovery: peak.map(|(n, _)| u64::from(n)),
            capacity_per_tick: self.provider.capacity() as u64,
            peak_after_recovery_at_ms: peak.map(|(_, at)| ms(at)),
            attempts_total: t.calls,
            rejected_total: t.rejected,
            failed_total: t.failed,
            calls_succeeded: t.succeeded,
            in_flight_end: t.in_flight as u64,
            amplification: ratio(t.calls, self.actions),
            recovered_ms: self.recovered.map(ms),
            waves_after_recovery: self.waves_so_far(),
            max_calls_per_user_action: self.max_calls_per_action.max(current_calls) as u64,
            user_actions: self.actions,
            user_actions_failed: self.actions_failed,
            outage_attempts: self.outage_attempts,
            outage_user_calls: self.outage_user_calls,
            outage_retry_pct: self.outage_retry_pct(),
            outage_traffic_vs_normal: self.outage_traffic(now).map(|(b, o)| o / b),
            calls_per_tick_before: self.calls_per_tick_before(),
            calls_per_tick_outage: self.calls_per_tick_outage(now),
            calls_while_down: t.while_down,
            max_attempts_per_user_action: self.max_attempts_per_action.max(current_attempts) as u64,
            short_circuited: self.short_circuited,
            breaker_opens: self.breaker.as_ref().map_or(0, Breaker::opens),
            pending_accepted: pending.accepted,
            pending_max: pending.backlog_max,
            drain_done_ms: self.pending.as_ref().and_then(Pending::drained_at).map(ms),
        }
    }

    fn config(&self) -> &RetryStormConfig {
        &self.config
    }
}


impl RetryStorm {
    /// The busiest tick after recovery so far, the tick in progress included, and when it
    /// started; none before the provider is back.
    pub fn peak_now(&self, now: Micros) -> Option<(u32, Micros)> {
        if now < self.provider.down_until() {
            return None;
        }
        Some(self.waves.peak(self.provider.tick().after_recovery, self.tick * TICK))
    }

    /// Whether the tick in progress is over capacity after recovery so far.
    pub(super) fn over_now(&self) -> bool {
        self.provider.tick().after_recovery > self.provider.capacity()
    }

    /// The first tick of the outage (a budget's calls from before it are in earlier ticks).
    pub(super) fn outage_first_tick(&self) -> u64 {
        self.provider.down_from().div_ceil(TICK)
    }

    /// Waves over capacity after recovery, the tick in progress included: a wave starts the
    /// moment its tick goes over, as the peak counts it.
    pub fn waves_so_far(&self) -> u64 {
        self.waves.count(self.over_now())
    }

    /// Provider calls per tick before the outage (none when it starts at 0 or never).
    pub fn calls_per_tick_before(&self) -> Option<f64> {
        let from = self.provider.down_from();
        (self.provider.has_outage() && from > 0).then(|| self.attempts_before as f64 / (from as f64 / TICK as f64))
    }

    /// Provider calls per tick during the outage so far (none before it starts).
    pub fn calls_per_tick_outage(&self, now: Micros) -> Option<f64> {
        let p = &self.provider;
        let elapsed = now.min(p.down_until()).saturating_sub(p.down_from());
        (p.has_outage() && elapsed > 0)
            .then(|| self.outage_attempts as f64 / (elapsed as f64 / TICK as f64))
    }

    /// Calls per tick before the outage and during it, when both are known (the outage has
    /// begun and traffic before it was not zero).
    pub(super) fn outage_traffic(&self, now: Micros) -> Option<(f64, f64)> {
        let before = self.calls_per_tick_before().filter(|b| *b > 0.0)?;
        Some((before, self.calls_per_tick_outage(now)?))
    }

    /// Retries during the outage as a share of the user calls then.
    pub(super) fn outage_retry_pct(&self) -> Value {
        if self.outage_user_calls == 0 {
            return Value::Null;
        }
        let retries = self.outage_attempts - self.outage_user_calls;
        Value::share(100.0 * retries as f64 / self.outage_user_calls as f64)
    }
}

/// With `pending`, how much longer than the outage's own length a run needs for the worker to
/// drain what the outage left: each client places about one order per pause after a failed
/// action while the provider is down, and the worker charges `drain_rate` of them a second
/// (a quarter more, and two calls' time, for the spread), after its ramp up to that rate (the
/// sum of 1/r s for r = 1 … drain_rate, under ln(rate) + 1 s).
fn drain_allowance_ms(c: &RetryStormConfig) -> u64 {
    let outage_ms = c.down_until_ms - c.down_from_ms;
    if !c.pending || outage_ms <= 0.0 {
        return 0;
    }
    let orders = c.clients.max(1) as f64 * outage_ms / c.pause_after_failure_ms.max(1.0);
    let ramp_ms = match c.drain_ramp {
        DrainRamp::Aimd => (libm::log(c.drain_rate.max(1.0)) + 1.0) * 1000.0,
        DrainRamp::Fixed => 0.0,
    };
    (1.25 * orders / c.drain_rate.max(1.0) * 1000.0 + ramp_ms + 2.0 * c.call_ms) as u64
}
