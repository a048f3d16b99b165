//! The choosing-numbers model: requests to a route that calls its dependencies in steps, each
//! call in attempts with timeouts, retries and a connect phase; what a run counts and keeps.

mod route;

use slotmap::{SlotMap, new_key_type};

use super::latency::Latency;
use super::record::{AlertRule, AlertState, AttemptEnd, LandedRing, RequestRecord, TimeoutAlert};
use super::spec::{ChoosingNumbersConfig, DEFAULT_DURATION_MS, SHOWN_AFTER_DRIFT_MS, STUCK_DURATION_MS};
use crate::sim::rng::{SimRng, ms_to_us};
use crate::sim::stats::{Histogram, Series};
use crate::sim::{EventQueue, Micros, Model, SEC, TimerKey, Value};

new_key_type! {
    /// A request the route is working on.
    pub struct RequestKey;
}

/// The alert is evaluated, and the chart sampled, every second.
pub const TICK: Micros = SEC;

#[derive(Clone, Copy, Debug)]
pub enum Event {
    Arrival,
    /// An attempt ends: answered, timed out or failed to connect (decided when it started).
    AttemptEnd { req: RequestKey, call: u8 },
    /// A call's backoff is over: its next attempt starts.
    Retry { req: RequestKey, call: u8 },
    /// The route's deadline for a request passed.
    Deadline(RequestKey),
    Tick,
}

/// One call of a request, and its current attempt.
#[derive(Clone, Copy, Debug, Default)]
struct Call {
    tries: u8,
    /// The pending attempt end or retry.
    timer: Option<TimerKey>,
    /// An attempt is under way (false: waiting to retry, or done).
    attempting: bool,
    done: bool,
    start: Micros,
    connected: Option<Micros>,
    /// When the dependency would answer (it works until then unless told to stop).
    work_end: Micros,
    planned: AttemptEnd,
    /// SYNs lost before this attempt's connection opened (all the kernel sends: every one of them).
    lost: u8,
    /// Started while the dependency was healthy (before any drift) on a request it is not stuck on.
    healthy: bool,
    /// Started after the drift, on a request it is not stuck on.
    drifted: bool,
}

struct Request {
    arrived: Micros,
    deadline_timer: Option<TimerKey>,
    stuck: bool,
    step: usize,
    pending: usize,
    fallback: bool,
    attempts: u64,
    calls: Vec<Call>,
    record: RequestRecord,
}

/// The timeout rate over the alert's window and the alert's state, every second (the rate NaN
/// when no attempt ended in the window).
#[derive(Clone, Copy, Debug)]
pub struct RateSample {
    pub rate_pct: f64,
    pub alert: AlertState,
}

#[derive(Clone, Copy, Debug, Default)]
struct Counts {
    requests: u64,
    finished: u64,
    in_flight: u64,
    /// Attempts of the answered requests.
    attempts: u64,
    healthy_ended: u64,
    healthy_timed_out: u64,
    drift_ended: u64,
    drift_timed_out: u64,
    past_deadline: u64,
    slow: u64,
    fallback: u64,
    errors: u64,
    connect_timeouts: u64,
    syn_retransmits: u64,
    work_after_give_up: Micros,
}

/// The model: a route, its dependencies, and the numbers chosen for them.
pub struct ChoosingNumbers {
    pub(super) config: ChoosingNumbersConfig,
    latency: Latency,
    drifted: Latency,
    drift_at: Option<Micros>,
    deadline: Option<Micros>,
    timeout: Option<Micros>,
    connect_timeout: Option<Micros>,
    /// What an attempt is expected to take (the fitted mean): a budgeted retry needs this much.
    expected_attempt: Micros,
    p99: Micros,

    arrivals_rng: SimRng,
    latency_rng: SimRng,
    syn_rng: SimRng,
    jitter_rng: SimRng,
    stuck_rng: SimRng,

    requests: SlotMap<RequestKey, Request>,
    /// Call lists of answered requests, kept for the next ones.
    spare_calls: Vec<Vec<Call>>,
    counts: Counts,
    route: Histogram,
    alert: TimeoutAlert,
    alert_state: AlertState,
    alert_fired_at: Option<Micros>,
    alert_after_drift: Option<Micros>,
    rates: Series<RateSample>,
    slowest: Option<RequestRecord>,
    latest: Option<RequestRecord>,
    /// The latest attempts that reached the dependency, for the picture.
    landed: LandedRing,
}

fn optional_us(ms: f64) -> Option<Micros> {
    (ms > 0.0).then(|| ms_to_us(ms))
}

impl ChoosingNumbers {
    /// The dependency's fitted latency while healthy.
    pub fn latency(&self) -> &Latency {
        &self.latency
    }

    /// Its latency after the drift (the healthy one when it never drifts).
    pub fn drifted_latency(&self) -> &Latency {
        &self.drifted
    }

    pub fn drift_at(&self) -> Option<Micros> {
        self.drift_at
    }

    /// The slowest request answered so far, and the latest.
    pub fn slowest(&self) -> Option<&RequestRecord> {
        self.slowest.as_ref()
    }

    /// The latest attempts that reached the dependency, and how many did in all.
    pub fn landed(&self) -> &LandedRing {
        &self.landed
    }

    /// The latency calls draw from now: the drifted one once the drift has begun.
    pub fn latency_at(&self, now: Micros) -> &Latency {
        if self.drift_at.is_some_and(|d| now >= d) { &self.drifted } else { &self.latency }
    }

    /// The route's deadline and the per-attempt timeout, when set.
    pub fn deadline(&self) -> Option<Micros> {
        self.deadline
    }

    pub fn timeout(&self) -> Option<Micros> {
        self.timeout
    }

    pub fn latest(&self) -> Option<&RequestRecord> {
        self.latest.as_ref()
    }

    /// The timeout rate over the alert's window and the alert's state, every second.
    pub fn rates(&self) -> &Series<RateSample> {
        &self.rates
    }

    /// The route's answers so far (µs).
    pub fn route(&self) -> &Histogram {
        &self.route
    }

    pub fn expected_attempt(&self) -> Micros {
        self.expected_attempt
    }

    pub fn requests(&self) -> u64 {
        self.counts.requests
    }

    pub fn answered(&self) -> u64 {
        self.counts.finished
    }

    pub fn in_flight(&self) -> u64 {
        self.counts.in_flight
    }

    pub fn alert_state(&self) -> AlertState {
        self.alert_state
    }

    /// The alert's rule, and since when its condition has held (pending or firing), if it does.
    pub fn alert_rule(&self) -> AlertRule {
        self.alert.rule
    }

    pub fn alert_held_since(&self) -> Option<Micros> {
        self.alert.held_since()
    }

    pub fn alert_fired_at(&self) -> Option<Micros> {
        self.alert_fired_at
    }

    pub fn alert_after_drift(&self) -> Option<Micros> {
        self.alert_after_drift
    }

    /// Healthy attempts that timed out, of those that answered or timed out (%).
    pub fn timeout_rate_pct(&self) -> Option<f64> {
        let c = &self.counts;
        (c.healthy_ended > 0).then(|| 100.0 * c.healthy_timed_out as f64 / c.healthy_ended as f64)
    }

    pub fn timeout_rate_after_drift_pct(&self) -> Option<f64> {
        let c = &self.counts;
        (c.drift_ended > 0).then(|| 100.0 * c.drift_timed_out as f64 / c.drift_ended as f64)
    }

    /// The fitted share of healthy calls slower than the per-attempt timeout (%).
    pub fn tail_at_timeout_pct(&self) -> Option<f64> {
        (self.config.timeout_ms > 0.0).then(|| 100.0 * self.latency.tail(self.config.timeout_ms))
    }

    /// With one step of parallel calls: the chance that one of them is slower than its p99 (%).
    pub fn slow_request_theory_pct(&self) -> Option<f64> {
        let q = self.latency.tail(self.latency.p99_ms);
        (self.config.sequential_calls == 1)
            .then(|| 100.0 * (1.0 - libm::pow(1.0 - q, self.config.fan_out as f64)))
    }

    /// Attempts per answered request.
    pub fn calls_per_request(&self) -> Option<f64> {
        let c = &self.counts;
        (c.finished > 0).then(|| c.attempts as f64 / c.finished as f64)
    }

    /// A share of the answered requests (%).
    fn share(&self, n: u64) -> Option<f64> {
        (self.counts.finished > 0).then(|| 100.0 * n as f64 / self.counts.finished as f64)
    }

    pub fn slow_request_pct(&self) -> Option<f64> {
        self.share(self.counts.slow)
    }

    pub fn past_deadline_pct(&self) -> Option<f64> {
        self.deadline.and(self.share(self.counts.past_deadline))
    }

    pub fn fallback_pct(&self) -> Option<f64> {
        self.share(self.counts.fallback)
    }

    pub fn error_pct(&self) -> Option<f64> {
        self.share(self.counts.errors)
    }

    pub fn work_after_give_up_ms(&self) -> f64 {
        self.counts.work_after_give_up as f64 / 1000.0
    }

    pub fn connect_timeouts(&self) -> u64 {
        self.counts.connect_timeouts
    }

    pub fn syn_retransmits(&self) -> u64 {
        self.counts.syn_retransmits
    }

    /// How many full attempts, with the backoffs between them (without jitter), fit in the
    /// route deadline: the most `n` with `n × timeout + backoff × (1 + 2 + … + 2ⁿ⁻²) ≤ deadline`.
    pub fn attempts_fit(&self) -> Option<u64> {
        let (deadline, timeout) = (self.deadline?, self.timeout?);
        let backoff = ms_to_us(self.config.backoff_ms);
        let mut n = 0u64;
        let mut used = 0u64;
        while n < 64 {
            let gap = if n == 0 { 0 } else { backoff.saturating_mul(1 << (n - 1).min(40)) };
            let next = used.saturating_add(gap).saturating_add(timeout);
            if next > deadline {
                break;
            }
            used = next;
            n += 1;
        }
        Some(n)
    }
}

fn ms_value(us: Option<Micros>) -> Value {
    us.map_or(Value::Null, |t| Value::num(t as f64 / 1000.0))
}

/// A share, with the digits a small one needs (see [`Value::share`]).
fn share(x: Option<f64>) -> Value {
    x.map_or(Value::Null, Value::share)
}

/// A small share or ratio to three decimals (0.013%), where 0.1 would read as nothing; a
/// non-zero one under a thousandth as it is (its card reads "< 0.001").
fn fine(x: Option<f64>) -> Value {
    match x {
        Some(x) if x.is_finite() => {
            let r = libm::round(x * 1000.0) / 1000.0;
            Value::Num(if r == 0.0 { x } else { r })
        }
        _ => Value::Null,
    }
}

impl Model for ChoosingNumbers {
    type Config = ChoosingNumbersConfig;
    type Event = Event;
    type Metrics = crate::scenarios::choosing_numbers::spec::ChoosingNumbersMetrics;

    fn new(config: ChoosingNumbersConfig, seed: u64, _end: Micros, queue: &mut EventQueue<Event>) -> Self {
        let latency = Latency::fit(config.p50_ms, config.p99_ms, config.p999_ms);
        let drift_at = optional_us(config.drift_at_ms);
        let drifted = if drift_at.is_some() { latency.drifted(config.drift_p99_ms) } else { latency };
        let mut model = Self {
            latency,
            drifted,
            drift_at,
            deadline: optional_us(config.deadline_ms),
            timeout: optional_us(config.timeout_ms),
            connect_timeout: optional_us(config.connect_timeout_ms),
            expected_attempt: ms_to_us(latency.mean_ms()),
            p99: ms_to_us(latency.p99_ms),
            arrivals_rng: SimRng::stream(seed, 1),
            latency_rng: SimRng::stream(seed, 2),
            syn_rng: SimRng::stream(seed, 3),
            jitter_rng: SimRng::stream(seed, 4),
            stuck_rng: SimRng::stream(seed, 5),
            requests: SlotMap::with_key(),
            spare_calls: Vec::new(),
            counts: Counts::default(),
            route: Histogram::new(),
            alert: TimeoutAlert::new(AlertRule {
                window_s: config.alert_window_s,
                threshold_pct: config.alert_threshold_pct,
                min_timeouts: config.alert_min_timeouts,
                for_us: config.alert_for_s as Micros * SEC,
            }),
            alert_state: AlertState::Inactive,
            alert_fired_at: None,
            alert_after_drift: None,
            rates: Series::new(1200),
            slowest: None,
            latest: None,
            landed: LandedRing::default(),
            config,
        };
        let first = model.interarrival();
        queue.schedule_at(first, Event::Arrival);
        queue.schedule_at(TICK, Event::Tick);
        model
    }

    fn handle(&mut self, q: &mut EventQueue<Event>, now: Micros, event: Event) {
        match event {
            Event::Arrival => self.arrival(q, now),
            Event::AttemptEnd { req, call } => self.attempt_end(q, now, req, call as usize),
            Event::Retry { req, call } => {
                if let Some(r) = self.requests.get_mut(req) {
                    r.calls[call as usize].timer = None;
                    self.start_attempt(q, now, req, call as usize);
                }
            }
            Event::Deadline(req) => self.deadline_passed(q, now, req),
            Event::Tick => self.tick(q, now),
        }
    }

    fn metrics(&self, _now: Micros) -> Self::Metrics {
        let c = &self.counts;
        let q = |p: f64| self.route.quantile(p).map(|us| us as f64 / 1000.0);
        Self::Metrics {
            requests: c.requests,
            finished: c.finished,
            in_flight: c.in_flight,
            timeout_rate_pct: share(self.timeout_rate_pct()),
            tail_at_timeout_pct: fine(self.tail_at_timeout_pct()),
            timeout_rate_after_drift_pct: share(self.timeout_rate_after_drift_pct()),
            calls_per_request: fine(self.calls_per_request()),
            route_p50_ms: q(0.5),
            route_p95_ms: q(0.95),
            route_p99_ms: q(0.99),
            past_deadline_pct: share(self.past_deadline_pct()),
            slow_request_pct: share(self.slow_request_pct()),
            slow_request_theory_pct: share(self.slow_request_theory_pct()),
            worst_wait_ms: ms_value((c.finished > 0).then(|| self.route.max())),
            fallback_pct: share(self.fallback_pct()),
            error_pct: share(self.error_pct()),
            work_after_give_up_ms: self.work_after_give_up_ms(),
            attempts_fit: self.attempts_fit(),
            connect_timeouts: c.connect_timeouts,
            syn_retransmits: c.syn_retransmits,
            alert_firing: self.alert_state == AlertState::Firing,
            alert_pending: self.alert_state == AlertState::Pending,
            alert_fired_at_ms: ms_value(self.alert_fired_at),
            alert_after_drift_ms: ms_value(self.alert_after_drift),
        }
    }

    fn config(&self) -> &ChoosingNumbersConfig {
        &self.config
    }

    fn run_length_ms(c: &ChoosingNumbersConfig) -> Option<u64> {
        let alert_ms = 1000.0 * (c.alert_window_s + c.alert_for_s) as f64;
        let ms = if c.drift_at_ms > 0.0 { c.drift_at_ms + alert_ms + SHOWN_AFTER_DRIFT_MS } else { 0.0 };
        let least = if c.stuck_pct > 0.0 { STUCK_DURATION_MS } else { DEFAULT_DURATION_MS };
        Some((ms as u64).max(least))
    }
}
