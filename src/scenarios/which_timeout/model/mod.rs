//! The which-timeout model: one call, its phases, and every timer armed on it. What the call
//! is made of is in `call.rs`; its handlers phase by phase in `phases.rs`, the timers' in
//! `timers.rs`; how long a run needs in `run_length.rs`.

mod call;
mod phases;
mod run_length;
mod timers;

pub use call::{ArmedTimer, CallError, Event, Outcome, Phase, PhaseSpan, TimerClock, TimerKind};

use super::failover::Failover;
use super::spec::{Client, Os, WhichTimeoutConfig};
use super::undici_clock::{TICK_MS, UndiciClock};
use crate::sim::metrics::MetricValue;
use crate::sim::base::MAX_DURATION_MS;
use crate::sim::rng::ms_to_us;
use crate::sim::{EventQueue, MS, Micros, Model, SEC, Value};

/// macOS gives up on a connect after 75 s (the chapter's measurement; `net.inet.tcp.keepinit`).
const MACOS_CONNECT_GIVE_UP: Micros = 75 * SEC;

/// The model: one call, its phases, and every timer armed on it.
pub struct WhichTimeout {
    pub(super) config: WhichTimeoutConfig,
    rtt: Micros,
    late: Micros,
    clock: UndiciClock,
    phases: Vec<PhaseSpan>,
    pub(super) timers: Vec<ArmedTimer>,
    pool_acquired_at: Option<Micros>,
    connect_started_at: Option<Micros>,
    pub(super) request_sent_at: Option<Micros>,
    pub(super) request_arrived_at: Option<Micros>,
    pub(super) server_done_at: Option<Micros>,
    pub(super) response_at: Option<Micros>,
    pub(super) body_chunks: u64,
    /// A TCP connection to the server is open (its end is what the server sees close).
    connection_open: bool,
    pub(super) server_saw_close_at: Option<Micros>,
    pub(super) outcome: Option<Outcome>,
    pub(super) error_seen_at: Option<Micros>,
    /// Every attempt to end the call, the first included (the tests check there is one at most).
    end_attempts: u32,
    /// Timer events that found no pending timer (the tests check there are none).
    stray_fires: u32,
    /// Break 5's many calls during a failover (none unless `failover_calls_per_s` > 0).
    pub(super) failover: Failover,
    /// When the run ends.
    run_end: Micros,
}

// What a page reads.
impl WhichTimeout {
    /// The phases so far, in order; the last is where the call is (or ended).
    pub fn phases(&self) -> &[PhaseSpan] {
        &self.phases
    }

    /// Every timer armed so far, in the order armed.
    pub fn timers(&self) -> &[ArmedTimer] {
        &self.timers
    }

    pub fn timer(&self, kind: TimerKind) -> Option<&ArmedTimer> {
        self.timers.iter().find(|t| t.kind == kind)
    }

    /// undici's clock: its ticks so far and the next one.
    pub fn undici_clock(&self) -> &UndiciClock {
        &self.clock
    }

    /// Where the call is, or was when it ended.
    pub fn phase(&self) -> Phase {
        self.phases.last().map_or(Phase::Pool, |p| p.phase)
    }

    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    pub fn error(&self) -> Option<CallError> {
        match self.outcome {
            Some(Outcome::Failed { error, .. }) => Some(error),
            _ => None,
        }
    }

    /// When the error reached the caller's code.
    pub fn error_seen_at(&self) -> Option<Micros> {
        self.error_seen_at
    }

    pub fn completed_at(&self) -> Option<Micros> {
        match self.outcome {
            Some(Outcome::Completed { at }) => Some(at),
            _ => None,
        }
    }

    /// When the call's fate was decided (a timer fired, an error came, the body completed).
    pub fn ended_at(&self) -> Option<Micros> {
        self.outcome.map(|o| match o {
            Outcome::Completed { at } | Outcome::Failed { at, .. } => at,
        })
    }

    /// What the `error` metric says: the error, `timeout-event` for node:http's event alone, or `none`.
    pub fn error_id(&self) -> &'static str {
        match (self.error(), self.outcome) {
            (Some(e), _) => e.id(),
            (None, None) if self.timeout_events() > 0 => "timeout-event",
            _ => "none",
        }
    }

    /// The first timer to fire, and when.
    pub fn first_fired(&self) -> Option<(TimerKind, Micros)> {
        self.timers.iter().filter_map(|t| t.fired_at.map(|at| (t.kind, at))).min_by_key(|&(_, at)| at)
    }

    /// Time spent waiting for a pooled connection, up to `now`.
    pub fn pool_wait(&self, now: Micros) -> Micros {
        self.pool_acquired_at.or(self.ended_at()).unwrap_or(now).min(now)
    }

    pub fn response_at(&self) -> Option<Micros> {
        self.response_at
    }

    pub fn request_sent_at(&self) -> Option<Micros> {
        self.request_sent_at
    }

    /// When the request reached the server's application code.
    pub fn request_arrived_at(&self) -> Option<Micros> {
        self.request_arrived_at
    }

    /// When the server's handler finishes its work, if it will (known once the request arrived).
    pub fn server_done_at(&self) -> Option<Micros> {
        self.server_done_at
    }

    pub fn server_saw_close_at(&self) -> Option<Micros> {
        self.server_saw_close_at
    }

    pub fn body_chunks(&self) -> u64 {
        self.body_chunks
    }

    pub fn timeout_events(&self) -> u32 {
        self.timer(TimerKind::HttpIdle).map_or(0, |t| t.firings)
    }

    pub fn reached_server_app(&self, now: Micros) -> bool {
        self.request_arrived_at.is_some_and(|t| t <= now)
    }

    pub fn server_did_work(&self, now: Micros) -> bool {
        self.server_done_at.is_some_and(|t| t <= now)
    }

    /// The call failed and its request was never sent, so it cannot have reached the server.
    pub fn safe_to_retry_without_key(&self) -> bool {
        self.error().is_some() && self.request_sent_at.is_none()
    }

    pub fn still_open(&self) -> bool {
        self.outcome.is_none()
    }

    /// When SYNs were sent: the first, then Linux's retransmissions on its kernel's schedule.
    pub fn syn_sends(&self) -> Vec<Micros> {
        let Some(start) = self.connect_started_at else { return Vec::new() };
        let schedule = self.config.syn_schedule;
        match self.config.os {
            Os::Linux => (0..=schedule.retransmits(self.config.syn_retries)).map(|k| start + schedule.send_at(k)).collect(),
            Os::Macos => vec![start],
        }
    }

    /// When the OS gives up on an unanswered connect, counted from the first SYN.
    pub fn os_connect_give_up(&self) -> Micros {
        os_connect_give_up(&self.config)
    }

    /// When the run ends.
    pub fn end(&self) -> Micros {
        self.run_end
    }

    /// The failover run's calls and their pool (Chapter 1, Break 5).
    pub fn failover(&self) -> &Failover {
        &self.failover
    }

    /// Each attempt to end the call (at most one in a correct run).
    pub fn end_attempts(&self) -> u32 {
        self.end_attempts
    }

    /// Timer events that found no pending timer (none in a correct run).
    pub fn stray_fires(&self) -> u32 {
        self.stray_fires
    }
}

fn os_connect_give_up(c: &WhichTimeoutConfig) -> Micros {
    match c.os {
        Os::Linux => c.syn_schedule.give_up(c.syn_retries),
        Os::Macos => MACOS_CONNECT_GIVE_UP,
    }
}

impl Model for WhichTimeout {
    type Config = WhichTimeoutConfig;
    type Event = Event;
    type Metrics = crate::scenarios::which_timeout::spec::WhichTimeoutMetrics;

    fn new(config: WhichTimeoutConfig, _seed: u64, end: Micros, q: &mut EventQueue<Event>) -> Self {
        let late = ms_to_us(config.timer_late_ms);
        let period = TICK_MS * MS + late;
        let end = end.min(MAX_DURATION_MS * MS);
        // The call starts first, so a tick due at the same instant comes after its first timers.
        q.schedule_at(0, Event::Start);
        let clock = if config.client == Client::Fetch && config.other_calls {
            UndiciClock::running(period, end, ms_to_us(config.tick_phase_ms), q)
        } else {
            UndiciClock::idle(period, end)
        };
        let failover = Failover::new(&config, os_connect_give_up(&config), q);
        Self {
            failover,
            run_end: end,
            rtt: ms_to_us(config.rtt_ms),
            late,
            clock,
            phases: Vec::with_capacity(Phase::SIX.len() + 1),
            timers: Vec::with_capacity(6),
            pool_acquired_at: None,
            connect_started_at: None,
            request_sent_at: None,
            request_arrived_at: None,
            server_done_at: None,
            response_at: None,
            body_chunks: 0,
            connection_open: false,
            server_saw_close_at: None,
            outcome: None,
            error_seen_at: None,
            end_attempts: 0,
            stray_fires: 0,
            config,
        }
    }

    fn handle(&mut self, q: &mut EventQueue<Event>, now: Micros, event: Event) {
        match event {
            Event::Start => self.start(q, now),
            Event::DnsAnswered => self.dns_answered(q, now),
            Event::SynAcked => self.syn_acked(q, now),
            Event::Refused => self.refused(q, now),
            Event::TlsDone => self.tls_done(q, now),
            Event::RequestArrives => self.request_arrives(q, now),
            Event::HeadersArrive => self.headers_arrive(q, now),
            Event::Byte => self.byte(q, now),
            Event::Fire(kind) => self.fire(q, now, kind),
            Event::Tick => self.clock.tick(q, now),
            Event::ErrorSurfaces => self.error_seen_at = Some(now),
            Event::FleetArrives => self.failover.arrives(q, now),
            Event::FleetConnected(slot) => self.failover.connected(q, now, slot as usize),
            Event::FleetConnectFailed(slot) => self.failover.connect_failed(q, now, slot as usize),
            Event::FleetAnswered(slot) => self.failover.answered(q, now, slot as usize),
            Event::FleetRequestLost(slot) => self.failover.request_lost(q, now, slot as usize),
            Event::FleetDnsChanged => self.failover.dns_changed(q, now),
        }
        if matches!(
            event,
            Event::FleetArrives
            | Event::FleetConnected(_)
            | Event::FleetConnectFailed(_)
            | Event::FleetAnswered(_)
            | Event::FleetRequestLost(_)
            | Event::FleetDnsChanged
        ) {
            self.failover.sample(now);
        }
    }

    fn metrics(&self, now: Micros) -> Self::Metrics {
        let first = self.first_fired();
        let f = &self.failover;
        Self::Metrics {
            error: self.error_id().into(),
            gave_up_ms: millis(self.error_seen_at),
            phase: self.phase().id().into(),
            still_open_at_end: self.still_open(),
            reached_server_app: self.reached_server_app(now),
            server_did_work: self.server_did_work(now),
            safe_to_retry_without_key: self.safe_to_retry_without_key(),
            pool_wait_ms: ms(self.pool_wait(now)),
            first_fired: first.map_or("none", |(k, _)| k.id()).into(),
            first_fired_ms: millis(first.map(|(_, at)| at)),
            response_ms: millis(self.response_at),
            completed_ms: millis(self.completed_at()),
            error_proves_not_sent: self.error().is_some_and(CallError::proves_not_sent),
            server_saw_close_ms: millis(self.server_saw_close_at.filter(|&t| t <= now)),
            timeout_events: self.timeout_events().into(),
            body_chunks: self.body_chunks,
            timers: Value::List(self.timers.iter().map(timer_record).collect()),
            phases: Value::List(self.phases.iter().map(phase_record).collect()),
            failover_calls: f.calls,
            failover_ok: f.ok,
            failover_failed: f.failed,
            failover_connect_hangs: f.connect_hangs,
            failover_connect_hang_ms: millis(f.hung_for),
            failover_retries: f.retries,
            failover_pool_full_at_ms: millis(f.pool_full_at),
            failover_waiting_max: f.waiting_max,
            failover_first_ok_ms: millis(f.first_ok_at),
            failover_slowest_ok_ms: millis(f.slowest_ok),
        }
    }

    fn config(&self) -> &WhichTimeoutConfig {
        &self.config
    }

    fn run_length_ms(config: &WhichTimeoutConfig) -> Option<u64> {
        Some(Self::run_length_for(config))
    }
}

fn ms(t: Micros) -> Value {
    Value::num(t as f64 / 1000.0)
}

/// A moment in ms, typed, for the metrics.
fn millis(t: Option<Micros>) -> Option<f64> {
    t.map(|t| t as f64 / 1000.0)
}

/// The same as a record's value.
fn opt_ms(t: Option<Micros>) -> Value {
    millis(t).to_value()
}

fn timer_record(t: &ArmedTimer) -> Vec<(&'static str, Value)> {
    vec![
        ("timer", Value::Text(t.kind.id().into())),
        ("label", Value::Text(t.kind.label().into())),
        ("clock", Value::Text(t.kind.clock().id().into())),
        ("timeout_ms", ms(t.timeout)),
        ("armed_ms", ms(t.armed_at)),
        ("deadline_ms", ms(t.deadline())),
        ("fires_ms", opt_ms(t.fires_at)),
        ("fired_ms", opt_ms(t.fired_at)),
        ("late_ms", t.lateness().map_or(Value::Null, |late| Value::num(late as f64 / 1000.0))),
        ("cleared_ms", opt_ms(t.cleared_at)),
        ("ended_call", Value::Bool(t.ended_call)),
        ("resets", Value::count(t.resets.into())),
        ("firings", Value::count(t.firings.into())),
    ]
}

fn phase_record(p: &PhaseSpan) -> Vec<(&'static str, Value)> {
    vec![
        ("phase", Value::Text(p.phase.id().into())),
        ("label", Value::Text(p.phase.label().into())),
        ("start_ms", ms(p.start)),
        ("end_ms", opt_ms(p.end)),
    ]
}
