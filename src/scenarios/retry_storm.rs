//! Chapter 2, Part 1: "40 clients call a provider that is down from 2 s to 6 s and can take
//! 8 requests per 100 ms tick once it is back. Run it with Fixed 1 s, then Exponential, then
//! Exp + jitter, and compare the 'Peak after recovery' stat with the capacity."
//!
//! Closed-loop clients each make a long call (an LLM generation), think briefly and call again,
//! so most of them have a call in flight when the provider goes down. Going down resets every
//! call in flight at the same instant. That shared failure moment is the only thing that lines
//! the clients up: retries without jitter stay lined up and come back as waves, jitter spreads
//! them out. A retry budget limits retries to a share of recent requests, and stacked layers
//! that each retry multiply one user action into many provider calls.

use crate::sim::rng::{SimRng, ms_to_us};
use crate::sim::stats::Series;
use crate::sim::{EventQueue, MetricSpec, Micros, MS, ParamSpec, Params, Preset, ScenarioSpec, Simulation, Value};

pub const MODES: &[&str] = &["fixed", "exponential", "jitter", "decorrelated", "equal"];
/// The provider admits calls per 100 ms tick (the chapter's unit).
pub const TICK: Micros = 100 * MS;
pub const MAX_LAYERS: usize = 3;
/// Budgets count requests over the last 10 s (Finagle's default RetryBudget lets its credits
/// expire after 10 s), in one slot per tick.
const BUDGET_SLOTS: usize = 100;
/// How far ahead (in ticks) the provider looks for room when it computes a Retry-After.
const RETRY_AFTER_HORIZON: usize = 600;
/// The page lists waves; a run keeps the first ones (the count goes on).
pub const MAX_WAVES: usize = 64;
/// No timer fires sooner than this, so every loop of a client moves simulated time forward.
const MIN_DELAY: Micros = MS;
/// Spread of call durations: lognormal with this coefficient of variation.
const CALL_CV: f64 = 0.25;

pub static SPEC: ScenarioSpec = ScenarioSpec {
    id: "retry-storm",
    title: "Retry storm",
    chapter: "Chapter 2, Part 1: The load half",
    summary: "40 clients call a provider that is down from 2 s to 6 s and can take 8 calls per 100 ms \
              tick once it is back. Compare the peak after recovery with the capacity: backoff alone \
              spaces the waves out, jitter breaks them up.",
    params: &[
        ParamSpec::number("clients", "Clients", "", 40.0, (1.0, 200.0, 1.0),
            "Closed-loop clients: each calls, waits for the answer, thinks, and calls again."),
        ParamSpec::number("call_ms", "Call duration", "ms", 2000.0, (10.0, 30_000.0, 10.0),
            "Mean duration of a call the provider accepted (like an LLM generation); each call varies (lognormal, CV 0.25)."),
        ParamSpec::number("think_ms", "Think time", "ms", 100.0, (0.0, 10_000.0, 10.0),
            "Mean pause (exponential) between an answer and the client's next call. Short, so most clients are always in a call."),
        ParamSpec::number("pause_after_failure_ms", "Pause after a failed action", "ms", 2000.0, (100.0, 60_000.0, 100.0),
            "When a user action fails (retries exhausted or budget spent), the mean pause (exponential) before the client's \
             next action. About one call long, so failing fast does not make users call faster."),
        ParamSpec::number("capacity", "Capacity", "calls/tick", 8.0, (1.0, 100.0, 1.0),
            "New calls the provider admits per 100 ms tick; the rest get a retryable 503."),
        ParamSpec::number("down_from_ms", "Down from", "ms", 2000.0, (0.0, 600_000.0, 100.0),
            "The provider goes down: every call in flight fails at this instant (connections reset)."),
        ParamSpec::number("down_until_ms", "Down until", "ms", 6000.0, (0.0, 600_000.0, 100.0),
            "The provider is back. While it is down, every attempt fails fast."),
        ParamSpec::choice("mode", "Retry backoff", MODES, 0,
            "fixed: every fixed_ms. exponential: base × 2^attempt, capped. jitter (full): random × that. \
             decorrelated: random between base and 3 × the last delay, capped. equal: half fixed, half random."),
        ParamSpec::number("fixed_ms", "Fixed delay", "ms", 1000.0, (10.0, 60_000.0, 10.0),
            "The delay of the fixed mode (the chapter's 'Fixed 1 s')."),
        ParamSpec::number("base_ms", "Base delay", "ms", 100.0, (10.0, 10_000.0, 10.0),
            "The first delay of the exponential modes (one tick); it doubles with every attempt."),
        ParamSpec::number("cap_ms", "Cap", "ms", 2000.0, (10.0, 120_000.0, 10.0),
            "The longest delay of the exponential modes. About one call, so a 20 s run shows the whole recovery."),
        ParamSpec::number("max_attempts", "Max attempts", "", 10.0, (1.0, 20.0, 1.0),
            "Attempts the client makes per user action, the first included. 10 is enough that no client gives \
             up before the provider is back in the chapter's runs (fixed 1 s needs 5, exponential 7)."),
        ParamSpec::number("budget_pct", "Retry budget", "%", 0.0, (0.0, 100.0, 1.0),
            "0 = off. Retries may be at most this share of the requests of the last 10 s; when the budget \
             is spent the layer fails fast instead of retrying."),
        ParamSpec::toggle("retry_after", "Honour Retry-After", false,
            "The provider's 503 says when to come back (the first tick with room) and clients wait exactly that \
             instead of their backoff, as the OpenAI and Anthropic SDKs do."),
        ParamSpec::number("layers", "Retrying layers", "", 1.0, (1.0, MAX_LAYERS as f64, 1.0),
            "1 = only the client retries. 2 and 3 add layers below it (an SDK, a proxy) that retry each \
             attempt from above with the same backoff."),
        ParamSpec::number("attempts_per_layer", "Attempts per extra layer", "", 3.0, (1.0, 5.0, 1.0),
            "Attempts each added layer makes (3: the AWS SDK's and the OpenAI SDK's default)."),
    ],
    presets: &[
        Preset { id: "fixed", label: "Fixed 1 s", description:
            "Every client retries 1 s after each failure: they failed together, so they come back together.",
            values: &[("mode", "fixed")] },
        Preset { id: "exponential", label: "Exponential", description:
            "Backoff without jitter: the waves are further apart but just as tall.",
            values: &[("mode", "exponential")] },
        Preset { id: "jitter", label: "Exp + jitter", description:
            "Full jitter: random × min(cap, base × 2^attempt). The wave breaks up.",
            values: &[("mode", "jitter")] },
        Preset { id: "budget", label: "Jitter + 10% budget", description:
            "Retries may be at most 10% of recent requests: under a long outage traffic grows by 10%, not by 3×. In this 4 s outage the 10 s window still counts calls from before it, so retries add 12–16%.",
            values: &[("mode", "jitter"), ("budget_pct", "10"), ("max_attempts", "3")] },
        Preset { id: "three-layers", label: "Three layers × 3", description:
            "The client, an SDK and a proxy each make 3 attempts: 27 calls for one user action during the outage.",
            values: &[("mode", "jitter"), ("max_attempts", "3"), ("layers", "3"), ("attempts_per_layer", "3")] },
    ],
    metrics: &[
        MetricSpec { key: "peak_after_recovery", label: "Peak after recovery", unit: "calls/tick",
            help: "Most attempts in one 100 ms tick after the provider is back. Compare with the capacity." },
        MetricSpec { key: "capacity_per_tick", label: "Capacity", unit: "calls/tick", help: "What the provider admits per tick." },
        MetricSpec { key: "peak_after_recovery_at_ms", label: "Peak at", unit: "ms", help: "When that tick started." },
        MetricSpec { key: "attempts_total", label: "Attempts", unit: "calls", help: "Calls sent to the provider, retries included." },
        MetricSpec { key: "rejected_total", label: "Rejected (503)", unit: "calls", help: "Attempts over the tick's capacity." },
        MetricSpec { key: "failed_total", label: "Failed (down)", unit: "calls",
            help: "Attempts that failed fast while the provider was down, and calls reset when it went down." },
        MetricSpec { key: "calls_succeeded", label: "Succeeded", unit: "calls", help: "Calls that completed." },
        MetricSpec { key: "in_flight_end", label: "In flight at end", unit: "calls", help: "Calls still running when the run ended." },
        MetricSpec { key: "amplification", label: "Amplification", unit: "×", help: "Attempts per successful call." },
        MetricSpec { key: "recovered_ms", label: "Done retrying at", unit: "ms",
            help: "First moment after the provider is back when no client is waiting on a retry; empty if never." },
        MetricSpec { key: "waves_after_recovery", label: "Waves", unit: "",
            help: "Runs of consecutive ticks with more attempts than the capacity, after recovery." },
        MetricSpec { key: "max_calls_per_user_action", label: "Calls per user action (max)", unit: "calls",
            help: "The most provider calls one user action caused, across every retrying layer." },
        MetricSpec { key: "user_actions", label: "User actions", unit: "", help: "Actions the clients started." },
        MetricSpec { key: "user_actions_failed", label: "Failed actions", unit: "", help: "Actions that gave up." },
        MetricSpec { key: "outage_attempts", label: "Attempts during the outage", unit: "calls", help: "Calls sent while the provider was down." },
        MetricSpec { key: "outage_user_calls", label: "User calls during the outage", unit: "calls",
            help: "Of those, first calls of user actions: the traffic there would be without retries." },
        MetricSpec { key: "outage_retry_pct", label: "Outage traffic growth", unit: "%",
            help: "Retries during the outage as a share of the user calls then: how much retries added." },
    ],
    default_duration_ms: 20_000,
    build: |params, seed, duration| Box::new(RetryStorm::new(params, seed, duration)),
};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    Fixed,
    Exponential,
    Jitter,
    Decorrelated,
    Equal,
}

#[derive(Clone, Copy, Debug)]
enum Event {
    /// A tick boundary: closes the previous tick's counts.
    Tick,
    /// A client starts a new user action.
    Start(u32),
    /// A client's backoff ends: the waiting layer tries again.
    Retry(u32),
    Done { client: u32, generation: u32 },
    Down,
    Up,
}

/// What a client is doing, for the page's per-client view.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ClientState {
    /// Between actions: thinking after an answer, or pausing after a failed action.
    Idle,
    InFlight,
    WaitingToRetry,
}

#[derive(Clone, Debug)]
pub struct Client {
    state: ClientState,
    /// Bumped at every admitted call, so a reset call's completion is ignored.
    generation: u32,
    /// Attempts each layer has made in its current invocation (layer 0 is the client).
    attempts: [u32; MAX_LAYERS],
    /// The last delay per layer, for decorrelated jitter (µs).
    last_delay: [f64; MAX_LAYERS],
    retry_layer: u8,
    action_calls: u32,
    /// Calls admitted and not yet finished: the invariant says at most one.
    open_calls: u32,
}

impl Client {
    pub fn state(&self) -> ClientState {
        self.state
    }
    /// Provider calls made for the current (or last) user action.
    pub fn action_calls(&self) -> u32 {
        self.action_calls
    }
    /// The layer whose retry the client waits for (0 = the client's own loop).
    pub fn retry_layer(&self) -> usize {
        self.retry_layer as usize
    }
}

/// Running totals, for stat cards and the conservation check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counts {
    pub attempts: u64,
    pub succeeded: u64,
    pub rejected: u64,
    pub failed: u64,
    pub in_flight: u64,
    pub waiting: u64,
}

/// A run of consecutive overloaded ticks after recovery.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Wave {
    pub start_ms: f64,
    pub ticks: u32,
    /// Most attempts in one of its ticks.
    pub peak: u32,
}

/// Counts of the tick in progress.
#[derive(Clone, Copy, Debug, Default)]
struct TickCounts {
    admitted: u32,
    rejected: u32,
    failed_fast: u32,
    resets: u32,
    /// Attempts at or after the recovery moment (all of them, once the provider is back).
    after_recovery: u32,
    waiting_max: u32,
}

/// One column per tick for the page's charts.
pub mod col {
    /// Attempts admitted (served).
    pub const SERVED: usize = 0;
    /// Attempts rejected with 503 (over capacity).
    pub const REJECTED: usize = 1;
    /// Attempts that failed fast because the provider was down.
    pub const FAILED: usize = 2;
    /// Calls in flight that were reset when the provider went down.
    pub const RESETS: usize = 3;
    /// Most clients waiting on a retry during the tick.
    pub const WAITING: usize = 4;
    /// Calls in flight at the end of the tick.
    pub const IN_FLIGHT: usize = 5;
    pub const COUNT: usize = 6;
}

/// A retry budget: retries at most `share` of the first attempts of the last 10 s.
#[derive(Clone, Debug)]
struct Budget {
    firsts: [u32; BUDGET_SLOTS],
    retries: [u32; BUDGET_SLOTS],
    sum_firsts: u64,
    sum_retries: u64,
    tick: u64,
}

impl Budget {
    fn new() -> Self {
        Self { firsts: [0; BUDGET_SLOTS], retries: [0; BUDGET_SLOTS], sum_firsts: 0, sum_retries: 0, tick: 0 }
    }

    /// Forgets the slots that left the window by `tick`.
    fn advance(&mut self, tick: u64) {
        let steps = (tick.saturating_sub(self.tick)).min(BUDGET_SLOTS as u64);
        for k in 1..=steps {
            let i = ((self.tick + k) % BUDGET_SLOTS as u64) as usize;
            self.sum_firsts -= self.firsts[i] as u64;
            self.sum_retries -= self.retries[i] as u64;
            self.firsts[i] = 0;
            self.retries[i] = 0;
        }
        self.tick = self.tick.max(tick);
    }

    fn slot(&self) -> usize {
        (self.tick % BUDGET_SLOTS as u64) as usize
    }

    fn record_first(&mut self) {
        let i = self.slot();
        self.firsts[i] += 1;
        self.sum_firsts += 1;
    }

    fn allows_retry(&self, share: f64) -> bool {
        (self.sum_retries + 1) as f64 <= share * self.sum_firsts as f64
    }

    fn record_retry(&mut self) {
        let i = self.slot();
        self.retries[i] += 1;
        self.sum_retries += 1;
    }
}

pub struct RetryStorm {
    queue: EventQueue<Event>,
    model: Model,
}

struct Model {
    end: Micros,
    call_us: f64,
    think_us: f64,
    /// Not in the list: without it a failed action would be followed by the short think
    /// time, so users whose calls fail fast would call many times faster than usual and a retry
    /// budget would show more traffic, not less.
    pause_us: f64,
    capacity: u32,
    down_from: Micros,
    down_until: Micros,
    mode: Mode,
    fixed_us: f64,
    base_us: f64,
    cap_us: f64,
    max_attempts: u32,
    /// Retry budget as a fraction of first attempts (so a full outage adds that fraction, as
    /// the chapter says); 0 = off.
    budget_share: f64,
    retry_after: bool,
    layers: usize,
    attempts_per_layer: u32,

    call_rng: SimRng,
    think_rng: SimRng,
    jitter_rng: SimRng,

    clients: Vec<Client>,
    down: bool,
    budgets: Vec<Budget>,
    /// Callers told to come back in each coming tick (a ring indexed by tick number).
    promised: Vec<u32>,

    tick: u64,
    cur: TickCounts,
    waiting: u32,
    in_flight: u32,

    attempts: u64,
    succeeded: u64,
    rejected: u64,
    failed: u64,
    actions: u64,
    actions_failed: u64,
    max_calls_per_action: u32,
    outage_attempts: u64,
    outage_user_calls: u64,
    max_open_per_client: u32,
    peak_after: u32,
    peak_after_at: Option<Micros>,
    waves: Vec<Wave>,
    wave_count: u64,
    in_wave: bool,
    recovered: Option<Micros>,
    ticks: Series<{ col::COUNT }>,
}

impl RetryStorm {
    pub fn new(params: &Params, seed: u64, end: Micros) -> Self {
        let n = params.get("clients").max(1.0) as usize;
        let layers = (params.get("layers") as usize).clamp(1, MAX_LAYERS);
        let mode = match params.choice("mode") {
            "fixed" => Mode::Fixed,
            "exponential" => Mode::Exponential,
            "jitter" => Mode::Jitter,
            "decorrelated" => Mode::Decorrelated,
            _ => Mode::Equal,
        };
        let down_from = ms_to_us(params.get("down_from_ms"));
        let down_until = ms_to_us(params.get("down_until_ms"));
        let base_us = ms_to_us(params.get("base_ms")) as f64;
        let model = Model {
            end,
            call_us: ms_to_us(params.get("call_ms")) as f64,
            think_us: ms_to_us(params.get("think_ms")) as f64,
            pause_us: ms_to_us(params.get("pause_after_failure_ms")) as f64,
            capacity: params.get("capacity").max(1.0) as u32,
            down_from,
            down_until,
            mode,
            fixed_us: ms_to_us(params.get("fixed_ms")) as f64,
            base_us,
            cap_us: ms_to_us(params.get("cap_ms")) as f64,
            max_attempts: params.get("max_attempts").max(1.0) as u32,
            budget_share: params.get("budget_pct").clamp(0.0, 100.0) / 100.0,
            retry_after: params.flag("retry_after"),
            layers,
            attempts_per_layer: params.get("attempts_per_layer").max(1.0) as u32,
            call_rng: SimRng::stream(seed, 1),
            think_rng: SimRng::stream(seed, 2),
            jitter_rng: SimRng::stream(seed, 3),
            clients: vec![
                Client {
                    state: ClientState::Idle,
                    generation: 0,
                    attempts: [0; MAX_LAYERS],
                    last_delay: [base_us; MAX_LAYERS],
                    retry_layer: 0,
                    action_calls: 0,
                    open_calls: 0,
                };
                n
            ],
            down: false,
            budgets: vec![Budget::new(); layers],
            promised: vec![0; RETRY_AFTER_HORIZON],
            tick: 0,
            cur: TickCounts::default(),
            waiting: 0,
            in_flight: 0,
            attempts: 0,
            succeeded: 0,
            rejected: 0,
            failed: 0,
            actions: 0,
            actions_failed: 0,
            max_calls_per_action: 0,
            outage_attempts: 0,
            outage_user_calls: 0,
            max_open_per_client: 0,
            peak_after: 0,
            peak_after_at: None,
            waves: Vec::new(),
            wave_count: 0,
            in_wave: false,
            recovered: None,
            ticks: Series::new(1200),
        };
        let mut queue = EventQueue::new();
        // Outage events first, so at the same instant they come before any call.
        if down_until > down_from {
            queue.schedule_at(down_from, Event::Down);
        }
        queue.schedule_at(down_until, Event::Up);
        queue.schedule_at(0, Event::Tick);
        // Clients start at random moments over one cycle, so the provider sees steady load from
        // the start: starting all of them at 0 would itself be a storm.
        let mut start_rng = SimRng::stream(seed, 4);
        let cycle = model.call_us + model.think_us;
        for c in 0..n as u32 {
            queue.schedule_at((start_rng.uniform() * cycle) as Micros, Event::Start(c));
        }
        Self { queue, model }
    }

    /// Per-tick counts for the charts; columns are named in [`col`].
    pub fn ticks(&self) -> &Series<{ col::COUNT }> {
        &self.model.ticks
    }

    /// When the provider is down: [from, until) in µs (empty when until ≤ from).
    pub fn outage(&self) -> (Micros, Micros) {
        (self.model.down_from, self.model.down_until.max(self.model.down_from))
    }

    pub fn capacity(&self) -> u32 {
        self.model.capacity
    }

    pub fn clients(&self) -> &[Client] {
        &self.model.clients
    }

    pub fn counts(&self) -> Counts {
        let m = &self.model;
        Counts {
            attempts: m.attempts,
            succeeded: m.succeeded,
            rejected: m.rejected,
            failed: m.failed,
            in_flight: m.in_flight as u64,
            waiting: m.waiting as u64,
        }
    }

    /// The first [`MAX_WAVES`] waves after recovery.
    pub fn waves(&self) -> &[Wave] {
        &self.model.waves
    }

    pub fn recovered_at(&self) -> Option<Micros> {
        self.model.recovered
    }

    /// The most calls any client ever had in flight at once (the invariant: 1).
    pub fn max_calls_in_flight_per_client(&self) -> u32 {
        self.model.max_open_per_client
    }
}

impl Simulation for RetryStorm {
    crate::event_driven_clock!();

    fn metrics(&self) -> Vec<(&'static str, Value)> {
        let m = &self.model;
        let now = self.queue.now();
        let ms = |t: Micros| Value::num(t as f64 / 1000.0);
        let recovered_yet = now >= m.down_until;
        let (peak, peak_at) = if m.peak_after_at.is_none() || m.cur.after_recovery > m.peak_after {
            (m.cur.after_recovery, Some(m.tick * TICK))
        } else {
            (m.peak_after, m.peak_after_at)
        };
        let ratio = |a: u64, b: u64| if b > 0 { Value::num(a as f64 / b as f64) } else { Value::Null };
        let current_calls = m.clients.iter().map(|c| c.action_calls).max().unwrap_or(0);
        vec![
            ("peak_after_recovery", if recovered_yet { Value::count(peak as u64) } else { Value::Null }),
            ("capacity_per_tick", Value::count(m.capacity as u64)),
            ("peak_after_recovery_at_ms", if recovered_yet { peak_at.map_or(Value::Null, ms) } else { Value::Null }),
            ("attempts_total", Value::count(m.attempts)),
            ("rejected_total", Value::count(m.rejected)),
            ("failed_total", Value::count(m.failed)),
            ("calls_succeeded", Value::count(m.succeeded)),
            ("in_flight_end", Value::count(m.in_flight as u64)),
            ("amplification", ratio(m.attempts, m.succeeded)),
            ("recovered_ms", m.recovered.map_or(Value::Null, ms)),
            ("waves_after_recovery", Value::count(m.wave_count)),
            ("max_calls_per_user_action", Value::count(m.max_calls_per_action.max(current_calls) as u64)),
            ("user_actions", Value::count(m.actions)),
            ("user_actions_failed", Value::count(m.actions_failed)),
            ("outage_attempts", Value::count(m.outage_attempts)),
            ("outage_user_calls", Value::count(m.outage_user_calls)),
            (
                "outage_retry_pct",
                if m.outage_user_calls > 0 {
                    Value::num(100.0 * (m.outage_attempts - m.outage_user_calls) as f64 / m.outage_user_calls as f64)
                } else {
                    Value::Null
                },
            ),
        ]
    }
}

impl Model {
    fn handle(&mut self, q: &mut EventQueue<Event>, now: Micros, event: Event) {
        self.roll_to(now / TICK);
        match event {
            Event::Tick => q.schedule_in(TICK, Event::Tick),
            Event::Start(c) => self.start_action(q, now, c as usize),
            Event::Retry(c) => self.retry(q, now, c as usize),
            Event::Done { client, generation } => self.done(q, client as usize, generation),
            Event::Down => self.go_down(q, now),
            Event::Up => {
                self.down = false;
                self.check_recovered(now);
            }
        }
    }

    /// Closes every tick before `tick`: its counts go to the chart, the peak and the waves.
    fn roll_to(&mut self, tick: u64) {
        while self.tick < tick {
            let c = std::mem::take(&mut self.cur);
            let start = self.tick * TICK;
            let row = [c.admitted, c.rejected, c.failed_fast, c.resets, c.waiting_max, self.in_flight];
            self.ticks.push(start as f64 / 1000.0, row.map(|v| v as f64));
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

    fn start_action(&mut self, q: &mut EventQueue<Event>, now: Micros, c: usize) {
        self.actions += 1;
        let base = self.base_us;
        let client = &mut self.clients[c];
        client.action_calls = 0;
        for l in 0..self.layers {
            client.attempts[l] = 1;
            client.last_delay[l] = base;
            self.budgets[l].record_first();
        }
        self.send(q, now, c, true);
    }

    /// The backoff ends: the waiting layer makes its next attempt, which invokes the layers
    /// below it afresh.
    fn retry(&mut self, q: &mut EventQueue<Event>, now: Micros, c: usize) {
        self.waiting -= 1;
        let base = self.base_us;
        let client = &mut self.clients[c];
        for l in client.retry_layer as usize + 1..self.layers {
            client.attempts[l] = 1;
            client.last_delay[l] = base;
            self.budgets[l].record_first();
        }
        self.send(q, now, c, false);
        self.check_recovered(now);
    }

    /// One call to the provider.
    fn send(&mut self, q: &mut EventQueue<Event>, now: Micros, c: usize, user_call: bool) {
        self.attempts += 1;
        self.clients[c].action_calls += 1;
        if now >= self.down_until {
            self.cur.after_recovery += 1;
        }
        if self.down {
            self.outage_attempts += 1;
            self.outage_user_calls += user_call as u64;
            self.failed += 1;
            self.cur.failed_fast += 1;
            self.fail(q, now, c, false);
        } else if self.cur.admitted < self.capacity {
            self.cur.admitted += 1;
            self.in_flight += 1;
            let duration = (self.call_rng.lognormal(self.call_us, CALL_CV) as Micros).max(MIN_DELAY);
            let client = &mut self.clients[c];
            client.state = ClientState::InFlight;
            client.generation = client.generation.wrapping_add(1);
            client.open_calls += 1;
            self.max_open_per_client = self.max_open_per_client.max(client.open_calls);
            q.schedule_in(duration, Event::Done { client: c as u32, generation: client.generation });
        } else {
            self.rejected += 1;
            self.cur.rejected += 1;
            self.fail(q, now, c, true);
        }
    }

    /// Retry-After for a 503: the provider knows its admission rate, so it names the first
    /// coming tick that still has room, counting the callers it already sent there.
    fn promise(&mut self, now: Micros) -> Micros {
        let horizon = RETRY_AFTER_HORIZON as u64;
        let tick = (self.tick + 1..self.tick + horizon)
            .find(|j| self.promised[(j % horizon) as usize] < self.capacity)
            .unwrap_or(self.tick + horizon - 1);
        self.promised[(tick % horizon) as usize] += 1;
        tick * TICK - now
    }

    /// An attempt failed (`overloaded`: with a 503, which may carry Retry-After). The lowest layer that still has attempts (and budget) schedules its
    /// retry; a layer out of either fails fast to the one above; if none is left the user
    /// action fails.
    fn fail(&mut self, q: &mut EventQueue<Event>, now: Micros, c: usize, overloaded: bool) {
        for l in (0..self.layers).rev() {
            let limit = if l == 0 { self.max_attempts } else { self.attempts_per_layer };
            if self.clients[c].attempts[l] >= limit {
                continue;
            }
            if self.budget_share > 0.0 && !self.budgets[l].allows_retry(self.budget_share) {
                continue;
            }
            if self.budget_share > 0.0 {
                self.budgets[l].record_retry();
            }
            let delay = if overloaded && self.retry_after { self.promise(now) } else { self.backoff(c, l) };
            let client = &mut self.clients[c];
            client.attempts[l] += 1;
            client.retry_layer = l as u8;
            client.state = ClientState::WaitingToRetry;
            self.waiting += 1;
            self.cur.waiting_max = self.cur.waiting_max.max(self.waiting);
            q.schedule_in(delay.max(MIN_DELAY), Event::Retry(c as u32));
            return;
        }
        self.actions_failed += 1;
        self.end_action(c);
        let pause = self.think_rng.exponential(self.pause_us) as Micros;
        q.schedule_in(pause.max(MIN_DELAY), Event::Start(c as u32));
    }

    /// The delay before layer `l`'s next attempt, in µs.
    fn backoff(&mut self, c: usize, l: usize) -> Micros {
        // Failures so far at this layer, minus one: the first retry waits `base`.
        let k = self.clients[c].attempts[l].saturating_sub(1);
        let doubled = if k >= 40 { f64::INFINITY } else { self.base_us * (1u64 << k) as f64 };
        let exp = doubled.min(self.cap_us);
        let delay = match self.mode {
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
    }

    fn done(&mut self, q: &mut EventQueue<Event>, c: usize, generation: u32) {
        let client = &self.clients[c];
        if client.state != ClientState::InFlight || client.generation != generation {
            return; // reset when the provider went down
        }
        self.clients[c].open_calls -= 1;
        self.in_flight -= 1;
        self.succeeded += 1;
        self.end_action(c);
        let think = self.think_rng.exponential(self.think_us) as Micros;
        q.schedule_in(think, Event::Start(c as u32));
    }

    /// Every call in flight fails at this one instant: the shared failure moment.
    fn go_down(&mut self, q: &mut EventQueue<Event>, now: Micros) {
        self.down = true;
        for c in 0..self.clients.len() {
            if self.clients[c].state != ClientState::InFlight {
                continue;
            }
            let client = &mut self.clients[c];
            client.open_calls -= 1;
            client.generation = client.generation.wrapping_add(1);
            self.in_flight -= 1;
            self.failed += 1;
            self.cur.resets += 1;
            self.fail(q, now, c, false);
        }
    }

    fn check_recovered(&mut self, now: Micros) {
        if self.recovered.is_none() && !self.down && now >= self.down_until && self.waiting == 0 {
            self.recovered = Some(now);
        }
    }
}
