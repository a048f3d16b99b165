//! What a retry-storm run did, as typed facts taken from the model once: every sentence of the
//! reading restates these (and, where it says what the settings are, the configuration) and
//! nothing else (issue 24, item 2).

use super::{
    BreakerState, BudgetWindow, ClientState, ClientsNow, DrainRamp, Mode, RetryAfterKind, RetryStorm, TICK, TickNow, Trip,
};
use crate::sim::{Micros, Value};

/// Where the run is against the outage, which decides what the verdict can say.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
#[cfg_attr(not(target_arch = "wasm32"), serde(rename_all = "kebab-case"))]
pub enum Phase {
    /// The provider never goes down (it would be back before it goes down).
    NoOutage,
    /// The outage has not begun.
    Before,
    /// The provider is down now.
    Down,
    /// The provider is back.
    Back,
}

/// Whether the outage lined the clients up: it can only through calls in flight when it began.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
#[cfg_attr(not(target_arch = "wasm32"), serde(rename_all = "kebab-case"))]
pub enum LinedUp {
    /// There is no outage, so nothing fails together.
    NoOutage,
    /// The outage has not begun yet.
    NotYet,
    /// Nothing was in flight when it began (e.g. it began at 0), so nothing failed together.
    NothingInFlight,
    /// This many calls were in flight and failed together when it began.
    Together { calls: u64 },
}

/// When the clients were done retrying after the provider came back.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
#[cfg_attr(not(target_arch = "wasm32"), serde(rename_all = "kebab-case"))]
pub enum RetriesEnded {
    /// No client was waiting to retry at the moment the provider came back.
    NoneWaiting,
    /// Every client was done retrying at this moment (µs), after the provider came back.
    At { at: Micros },
    /// Clients were still retrying when the run ended.
    NotByTheEnd,
    /// Clients are still retrying now; the run goes on.
    NotYet,
}

/// The backoff the clients use, with the waits it quotes.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
#[cfg_attr(not(target_arch = "wasm32"), serde(rename_all = "kebab-case"))]
pub enum Backoff {
    /// The same wait after every failure.
    Fixed,
    /// Base delay doubling up to the cap, the same for every client.
    Exponential,
    /// Random between zero and the exponential wait.
    Jitter,
    /// Random between the base delay and three times the previous wait.
    Decorrelated,
    /// Half the exponential wait plus a random part of the other half.
    Equal,
}

/// What a 503's Retry-After tells the clients, when they honour it.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
#[cfg_attr(not(target_arch = "wasm32"), serde(rename_all = "kebab-case"))]
pub enum RetryAfter {
    /// Each caller gets the first tick with room for it.
    IdealSlots,
    /// Every caller gets the same whole number of seconds.
    UniformSeconds { seconds: f64 },
}

/// Why the outage's retries stand where they do against a retry budget's percentage.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
#[cfg_attr(not(target_arch = "wasm32"), serde(rename_all = "kebab-case"))]
pub enum BudgetWhy {
    /// The outage's retries were at most the budget's percentage of its user calls.
    Within,
    /// Above the percentage, with a floor whose retries come on top of it.
    AboveWithFloor,
    /// Above the budget: the window at recovery (or now) still holds calls from before the outage.
    WindowReachesBack,
    /// Above the budget: calls were made before the outage, which the window counted during its
    /// first 10 s (they have left it since).
    EarlyWindow,
    /// Above the budget, with none of those reasons.
    Above,
}

/// The outage's user calls and retries, and why they stand where they do against a budget.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
pub struct OutageRetries {
    /// User calls (first attempts) made during the outage so far.
    pub user_calls: u64,
    /// Retries made during the outage so far: its provider calls that were not first attempts.
    pub retries: u64,
    /// Those retries per 100 user calls, as the `outage_retry_pct` metric rounds them ([`Value::share`]).
    pub retry_pct: f64,
    /// Why they stand where they do against the budget (with a budget only).
    pub why: Option<BudgetWhy>,
}

/// The circuit breaker's state now.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
#[cfg_attr(not(target_arch = "wasm32"), serde(rename_all = "kebab-case"))]
pub enum BreakerNow {
    /// Calls go through.
    Closed,
    /// Calls fail fast until this moment (µs).
    Open { until: Micros },
    /// One probe is out; every other call fails fast.
    HalfOpen,
}

/// What the circuit breaker did, when there is one.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
pub struct BreakerFacts {
    /// The rule that opens it.
    pub trip: Trip,
    /// Times it opened, reopening after a failed probe included (the `breaker_opens` metric).
    pub opens: u64,
    /// Of those, the times a failed half-open probe opened it again.
    pub failed_probes: u64,
    /// When it first opened (µs).
    pub first_open: Option<Micros>,
    /// Its state now.
    pub now: BreakerNow,
}

/// What the pending orders came to, when actions are accepted as pending.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
pub struct PendingFacts {
    /// How the worker reaches its rate: ramping up, or at once.
    pub ramp: DrainRamp,
    /// Time between two of the worker's calls at its drain rate (µs).
    pub interval: Micros,
    /// Orders accepted as pending (the `pending_accepted` metric).
    pub accepted: u64,
    /// The longest the backlog was (the `pending_max` metric).
    pub backlog_max: u64,
    /// Orders not yet served: waiting, or at the provider.
    pub unserved: u64,
    /// Calls the worker sent to the provider, failed ones included.
    pub sent: u64,
    /// The backlog when the provider came back (once it is back after an outage).
    pub backlog_at_recovery: Option<u64>,
    /// When the worker had charged every order (µs; the `drain_done_ms` metric).
    pub drained_at: Option<Micros>,
}

/// What a retry-storm run did, and why.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
pub struct RetryStormFacts {
    /// Where the run is against the outage.
    pub phase: Phase,
    /// When the provider goes down (µs).
    pub down_from: Micros,
    /// When it is back (µs; at or before `down_from` when there is no outage).
    pub down_until: Micros,
    /// When the run ends (µs).
    pub end: Micros,
    /// Calls the provider admits per 100 ms tick.
    pub capacity: u32,
    /// Most attempts in one tick after the provider is back (none before).
    pub peak_after_recovery: Option<u32>,
    /// That peak divided by the capacity.
    pub peak_vs_capacity: Option<f64>,
    /// Whether some tick after recovery went over capacity.
    pub over_capacity: bool,
    /// Waves over capacity after recovery, the one in progress included.
    pub waves: u64,
    /// When each listed wave started (µs), the one in progress included.
    pub wave_starts: Vec<Micros>,
    /// Whether the outage lined the clients up.
    pub lined_up: LinedUp,
    /// Clients waiting to retry now.
    pub waiting: u64,
    /// The clients by what they do now (the picture's dots).
    pub clients_now: ClientsNow,
    /// The 100 ms tick in progress (the picture's attempts).
    pub tick_now: TickNow,
    /// When the retries ended (once the provider is back).
    pub retries_ended: Option<RetriesEnded>,
    /// Provider calls per tick before the outage (none when it starts at 0 or never).
    pub calls_per_tick_before: Option<f64>,
    /// Those calls per tick divided by the capacity: the load before the outage.
    pub load_before_vs_capacity: Option<f64>,
    /// The backoff mode.
    pub backoff: Backoff,
    /// The fixed wait (µs).
    pub fixed_us: f64,
    /// The exponential base delay (µs).
    pub base_us: f64,
    /// The cap on any wait (µs).
    pub cap_us: f64,
    /// Attempts a user action makes at most at the client.
    pub max_attempts: u32,
    /// What Retry-After tells the clients, when they honour it.
    pub retry_after: Option<RetryAfter>,
    /// Whether the run has reached its end (sentences say "so far" until it has).
    pub run_ended: bool,
    /// Provider calls so far (the `attempts_total` metric).
    pub attempts: u64,
    /// Calls the provider turned away with a 503 (the `rejected_total` metric).
    pub rejected: u64,
    /// Calls that failed because the provider was down (the `failed_total` metric).
    pub failed: u64,
    /// User actions begun (the `user_actions` metric).
    pub actions: u64,
    /// User actions that failed (the `user_actions_failed` metric).
    pub actions_failed: u64,
    /// Retrying layers, the client's own loop included.
    pub layers: usize,
    /// Attempts each layer below the client makes at most for one attempt from above.
    pub attempts_per_layer: u32,
    /// The most provider calls one user action made (the `max_calls_per_user_action` metric).
    pub most_calls_per_action: u64,
    /// The most attempts the layers made for one action, those a breaker failed fast included
    /// (the `max_attempts_per_user_action` metric).
    pub most_attempts_per_action: u64,
    /// Provider calls per tick during the outage so far (none before it has begun).
    pub calls_per_tick_outage: Option<f64>,
    /// Of those, user actions' first calls per tick.
    pub user_calls_per_tick_outage: Option<f64>,
    /// User calls and retries during the outage, once a user call was made in it.
    pub outage_retries: Option<OutageRetries>,
    /// Whether the layers retry under a budget: a percentage, a floor, or both.
    pub has_budget: bool,
    /// The budget floor's retries over the budget's 10 s.
    pub budget_reserve: f64,
    /// The client's budget window, when the provider came back or now during the outage.
    pub budget_window: Option<BudgetWindow>,
    /// Calls that reached the provider while it was down (the `calls_while_down` metric).
    pub calls_while_down: u64,
    /// Attempts the breaker failed at once (the `short_circuited` metric).
    pub short_circuited: u64,
    /// The circuit breaker, when there is one.
    pub breaker: Option<BreakerFacts>,
    /// The pending orders, when actions are accepted as pending.
    pub pending: Option<PendingFacts>,
}

impl RetryStormFacts {
    /// Whether the backoff sentence says the clients came back in waves: a backoff without
    /// jitter kept clients that failed together in step, and some tick went over capacity.
    pub fn in_waves(&self) -> bool {
        matches!(self.lined_up, LinedUp::Together { calls } if calls > 0) && self.waves > 0 && !self.overloaded_before()
    }

    /// Whether the provider got more calls per tick than its capacity before the outage: then
    /// ticks over capacity after it are that load, and say nothing of retries the outage lined up.
    pub fn overloaded_before(&self) -> bool {
        self.load_before_vs_capacity.is_some_and(|l| l > 1.0)
    }

    /// Whether the outage has begun and time has passed in it.
    pub fn outage_begun(&self) -> bool {
        self.calls_per_tick_outage.is_some()
    }

    /// Whether there is an outage in this run.
    pub fn has_outage(&self) -> bool {
        self.phase != Phase::NoOutage
    }

    /// Whether any layer makes more than one attempt.
    pub fn retries_at_all(&self) -> bool {
        self.max_attempts > 1 || (self.layers > 1 && self.attempts_per_layer > 1)
    }

    /// The most calls one user action can make: the product of the layers' attempts.
    pub fn calls_per_action_bound(&self) -> u64 {
        (1..self.layers).fold(self.max_attempts as u64, |n, _| n * self.attempts_per_layer as u64)
    }
}

impl RetryStorm {
    /// The run's facts at `now`.
    pub fn facts(&self, now: Micros) -> RetryStormFacts {
        let c = &self.config;
        let peak = self.peak_now(now).map(|(p, _)| p);
        let before = self.calls_per_tick_before();
        let budget_window = self.budget_window(now);
        let (provider, totals) = (&self.provider, self.provider.totals());
        let capacity = provider.capacity();
        RetryStormFacts {
            phase: self.phase(now),
            down_from: provider.down_from(),
            down_until: provider.down_until(),
            end: self.end,
            capacity,
            peak_after_recovery: peak,
            peak_vs_capacity: peak.map(|p| p as f64 / capacity as f64),
            over_capacity: peak.is_some_and(|p| p > capacity),
            waves: self.waves_so_far(),
            wave_starts: self.wave_starts(),
            lined_up: self.lined_up(),
            waiting: self.clients.iter().filter(|c| c.state == ClientState::WaitingToRetry).count() as u64,
            clients_now: self.clients_now(),
            tick_now: self.tick_now(),
            retries_ended: (now >= provider.down_until()).then(|| self.retries_ended(now)),
            calls_per_tick_before: before,
            load_before_vs_capacity: before.map(|b| b / capacity as f64),
            backoff: backoff(c.mode),
            fixed_us: self.layers.fixed_us(),
            base_us: self.layers.base_us(),
            cap_us: self.layers.cap_us(),
            max_attempts: self.layers.max_attempts(),
            retry_after: c.retry_after.then_some(match c.retry_after_kind {
                RetryAfterKind::IdealSlots => RetryAfter::IdealSlots,
                RetryAfterKind::UniformSeconds => RetryAfter::UniformSeconds { seconds: c.retry_after_s },
            }),
            run_ended: now >= self.end,
            attempts: totals.calls,
            rejected: totals.rejected,
            failed: totals.failed,
            actions: self.actions,
            actions_failed: self.actions_failed,
            layers: self.layers.count(),
            attempts_per_layer: self.layers.attempts_per_layer(),
            most_calls_per_action: self.most_per_action(|c| c.action_calls, self.max_calls_per_action),
            most_attempts_per_action: self.most_per_action(|c| c.action_attempts, self.max_attempts_per_action),
            calls_per_tick_outage: self.calls_per_tick_outage(now),
            user_calls_per_tick_outage: self.user_calls_per_tick_outage(now),
            outage_retries: self.outage_retries(budget_window.as_ref()),
            has_budget: self.layers.has_budget(),
            budget_reserve: self.layers.budget_reserve(),
            budget_window,
            calls_while_down: totals.while_down,
            short_circuited: self.short_circuited,
            breaker: self.breaker.as_ref().map(|b| BreakerFacts {
                trip: b.trip(),
                opens: b.opens(),
                failed_probes: b.failed_probes(),
                first_open: b.first_open(),
                now: breaker_now(b.state()),
            }),
            pending: self.pending.as_ref().map(|p| {
                let counts = p.counts();
                PendingFacts {
                    ramp: self.config.drain_ramp,
                    interval: p.interval(),
                    accepted: counts.accepted,
                    backlog_max: counts.backlog_max,
                    unserved: counts.backlog + counts.in_flight,
                    sent: counts.sent,
                    backlog_at_recovery: self
                        .backlog_at_recovery
                        .filter(|_| provider.has_outage() && now >= provider.down_until()),
                    drained_at: p.drained_at(),
                }
            }),
        }
    }

    /// The breaker's state now, when there is one.
    pub(super) fn breaker_now(&self) -> Option<BreakerNow> {
        self.breaker.as_ref().map(|b| breaker_now(b.state()))
    }

    /// The most of `per_action` one user action reached: the ended actions' `ended`, or an
    /// action under way.
    fn most_per_action(&self, per_action: impl Fn(&super::Client) -> u32, ended: u32) -> u64 {
        self.clients.iter().map(per_action).max().unwrap_or(0).max(ended) as u64
    }

    /// User actions' first calls per tick during the outage so far (none before it has begun).
    fn user_calls_per_tick_outage(&self, now: Micros) -> Option<f64> {
        self.calls_per_tick_outage(now)?;
        let p = &self.provider;
        let elapsed = (now.min(p.down_until()) - p.down_from()) as f64 / TICK as f64;
        Some(self.outage_user_calls as f64 / elapsed)
    }

    /// The outage's user calls and retries, once a user call was made in it; `window` is the
    /// budget's window the facts hold.
    fn outage_retries(&self, window: Option<&BudgetWindow>) -> Option<OutageRetries> {
        let users = self.outage_user_calls;
        if users == 0 {
            return None;
        }
        let retries = self.outage_attempts - users;
        let retry_pct = Value::share(100.0 * retries as f64 / users as f64).as_f64().unwrap_or_default();
        let why = self.layers.has_budget().then(|| self.budget_why(window, retry_pct));
        Some(OutageRetries { user_calls: users, retries, retry_pct, why })
    }

    fn budget_why(&self, window: Option<&BudgetWindow>, retry_pct: f64) -> BudgetWhy {
        if retry_pct <= self.config.budget_pct {
            BudgetWhy::Within
        } else if self.config.budget_min_retries_per_s > 0.0 {
            BudgetWhy::AboveWithFloor
        } else if window.is_some_and(|w| w.firsts_before_outage > 0) {
            BudgetWhy::WindowReachesBack
        } else if self.attempts_before > 0 {
            BudgetWhy::EarlyWindow
        } else {
            BudgetWhy::Above
        }
    }

    /// The budget's window when the provider came back, or now during the outage.
    fn budget_window(&self, now: Micros) -> Option<BudgetWindow> {
        let p = &self.provider;
        if !p.has_outage() || now <= p.down_from() {
            return None;
        }
        if now >= p.down_until() {
            return self.budget_at_recovery;
        }
        Some(self.layers.window(self.outage_first_tick()))
    }

    fn phase(&self, now: Micros) -> Phase {
        let p = &self.provider;
        if !p.has_outage() {
            Phase::NoOutage
        } else if now < p.down_from() {
            Phase::Before
        } else if now < p.down_until() {
            Phase::Down
        } else {
            Phase::Back
        }
    }

    fn lined_up(&self) -> LinedUp {
        match self.failed_at_down {
            _ if !self.provider.has_outage() => LinedUp::NoOutage,
            None => LinedUp::NotYet,
            Some(0) => LinedUp::NothingInFlight,
            Some(calls) => LinedUp::Together { calls },
        }
    }

    fn retries_ended(&self, now: Micros) -> RetriesEnded {
        match self.recovered {
            Some(r) if r == self.provider.down_until() => RetriesEnded::NoneWaiting,
            Some(at) => RetriesEnded::At { at },
            None if now >= self.end => RetriesEnded::NotByTheEnd,
            None => RetriesEnded::NotYet,
        }
    }

    /// When each wave after recovery started, the one in progress included.
    pub(super) fn wave_starts(&self) -> Vec<Micros> {
        self.waves.starts(self.over_now(), self.tick * TICK)
    }
}

fn breaker_now(state: BreakerState) -> BreakerNow {
    match state {
        BreakerState::Closed => BreakerNow::Closed,
        BreakerState::Open { until } => BreakerNow::Open { until },
        BreakerState::HalfOpen { .. } => BreakerNow::HalfOpen,
    }
}

fn backoff(mode: Mode) -> Backoff {
    match mode {
        Mode::Fixed => Backoff::Fixed,
        Mode::Exponential => Backoff::Exponential,
        Mode::Jitter => Backoff::Jitter,
        Mode::Decorrelated => Backoff::Decorrelated,
        Mode::Equal => Backoff::Equal,
    }
}
