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
//!
//! Retry-After, as real servers send it (`retry_after_kind` = `uniform-seconds`, the default):
//! its value is delay-seconds, a whole number of seconds (RFC 9110 §10.2.3,
//! <https://www.rfc-editor.org/rfc/rfc9110#field.retry-after>), and a server that does not
//! track whom it told what sends every caller the same value (`retry_after_s`). The SDKs that
//! honour it wait exactly that, with no jitter, when it is under a minute (the Stainless-built
//! OpenAI and Anthropic SDKs: "If the API asks us to wait a certain amount of time (and it's a
//! reasonable amount), just do what it says", `_calculate_retry_timeout` in openai-python's
//! `_base_client.py`, `retryRequest` in openai-node's client), so callers turned away in one
//! tick all come back in one tick `retry_after_s` later: the header lines them up again.
//! `ideal-slots` is the other end: a provider that knows its admission rate and hands each
//! caller its own coming tick with room, which no common API does.
//!
//! The retry budget is Finagle's `RetryBudget`
//! (<https://github.com/twitter/finagle/blob/develop/finagle-core/src/main/scala/com/twitter/finagle/service/RetryBudget.scala>):
//! every user call deposits, every retry withdraws, deposits and withdrawals expire after a
//! `ttl` of 10 s, and a reserve of `minRetriesPerSec` × ttl retries comes on top of
//! `percentCanRetry` of the deposits. Finagle's defaults are 10 retries a second and 20%
//! (ttl 1–60 s, `minRetriesPerSec` ≥ 0, `percentCanRetry` 0–1,000 %); here the floor
//! (`budget_min_retries_per_s`) is 0 by default, so the chapter's "at most 10% of recent
//! requests" is the whole budget, and the percentage stops at 100 %.

mod reading;

pub use reading::prediction;

use crate::sim::model::ModelOf;
use crate::sim::rng::{SimRng, ms_to_us};
use crate::sim::scenario::SweepDefault;
use crate::sim::stats::Series;
use crate::sim::{
    EventQueue, MS, MetricSpec, Micros, Model, ParamSpec, Preset, ScenarioSpec, TimerKey, Value,
};

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
/// The most rows the chart series holds. A run longer than this many ticks charts a row per
/// few ticks (see [`TickSample`]) instead of letting the series drop every other tick, which
/// would drop the one-tick waves with them.
const MAX_ROWS: u64 = 1200;

crate::choice! {
    /// How long a client waits after a failed call before it tries again.
    pub enum Mode {
        Fixed = ("fixed", "Fixed", "The same wait after every failure."),
        Exponential = ("exponential", "Exponential",
            "Starts at the base delay and doubles with every attempt, up to the cap."),
        Jitter = ("jitter", "Exp + jitter",
            "A random wait between zero and the exponential one, so clients that failed together spread out."),
        Decorrelated = ("decorrelated", "Decorrelated jitter",
            "A random wait between the base delay and three times the previous wait, up to the cap."),
        Equal = ("equal", "Equal jitter", "Half the exponential wait, plus a random part of the other half."),
    }
}

crate::choice! {
    /// What a 503's Retry-After says.
    pub enum RetryAfterKind {
        UniformSeconds = ("uniform-seconds", "Whole seconds, the same for all",
            "The value real servers send: a whole number of seconds, the same for every caller, so callers turned \
             away together come back together."),
        IdealSlots = ("ideal-slots", "A tick with room for each caller",
            "An ideal provider that knows its rate and tells each caller the first coming tick still with room, \
             counting the callers it already sent there. No common API schedules callers so."),
    }
}

crate::config! {
    /// What the retry-storm model reads from its parameters.
    pub struct RetryStormConfig in PARAMS {
        pub clients: usize = ParamSpec::number("clients", "Clients", "", 40.0, (1.0, 200.0, 1.0),
            "Closed-loop clients: each calls, waits for the answer, thinks, and calls again."),
        pub call_ms: f64 = ParamSpec::number("call_ms", "Call duration", "ms", 2000.0, (10.0, 30_000.0, 10.0),
            "Mean duration of a call the provider accepted (like an LLM generation); each call takes a \
             random time around it, most within a quarter of it."),
        pub think_ms: f64 = ParamSpec::number("think_ms", "Think time", "ms", 100.0, (0.0, 10_000.0, 10.0),
            "Mean of a random pause between an answer and the client's next call. Short, so most clients \
             are always in a call."),
        pub pause_after_failure_ms: f64 = ParamSpec::number("pause_after_failure_ms", "Pause after a failed action",
            "ms", 2000.0, (100.0, 60_000.0, 100.0),
            "When a user action fails (retries exhausted or budget spent), the mean of a random pause before \
             the client's next action. About one call long, so failing fast does not make users call faster."),
        pub capacity: u32 = ParamSpec::number("capacity", "Capacity", "calls/tick", 8.0, (1.0, 100.0, 1.0),
            "New calls the provider admits per 100 ms tick; the rest are turned away with a 503, which \
             clients may retry."),
        pub down_from_ms: f64 = ParamSpec::number("down_from_ms", "Down from", "ms", 2000.0, (0.0, 600_000.0, 100.0),
            "The provider goes down: every call in flight fails at this instant (connections reset)."),
        pub down_until_ms: f64 = ParamSpec::number("down_until_ms", "Down until", "ms", 6000.0, (0.0, 600_000.0, 100.0),
            "The provider is back. While it is down, every attempt fails fast."),
        pub mode: Mode = ParamSpec::choice("mode", "Retry backoff", Mode::OPTIONS, Mode::Fixed as usize,
            "How long a client waits after a failed call before it tries again."),
        pub fixed_ms: f64 = ParamSpec::number("fixed_ms", "Fixed delay", "ms", 1000.0, (10.0, 60_000.0, 10.0),
            "The wait between attempts with Fixed backoff (the chapter's 'Fixed 1 s')."),
        pub base_ms: f64 = ParamSpec::number("base_ms", "Base delay", "ms", 100.0, (10.0, 10_000.0, 10.0),
            "The first wait of the exponential and jittered backoffs (one tick); it doubles with every attempt."),
        pub cap_ms: f64 = ParamSpec::number("cap_ms", "Cap", "ms", 2000.0, (10.0, 120_000.0, 10.0),
            "The longest wait of the exponential and jittered backoffs. About one call, so a 20 s run shows \
             the whole recovery."),
        pub max_attempts: u32 = ParamSpec::number("max_attempts", "Max attempts", "", 10.0, (1.0, 20.0, 1.0),
            "Attempts the client makes per user action, the first included. 10 is enough that no client gives \
             up before the provider is back in the chapter's runs (fixed 1 s needs 5, exponential 7)."),
        pub budget_pct: f64 = ParamSpec::number("budget_pct", "Retry budget", "%", 0.0, (0.0, 100.0, 1.0),
            "0 means no budget (unless a floor is set). Retries may be at most this share of the requests of the \
             last 10 s; when the budget is spent the layer fails fast instead of retrying."),
        pub budget_min_retries_per_s: f64 = ParamSpec::number("budget_min_retries_per_s", "Budget floor", "retries/s",
            0.0, (0.0, 100.0, 1.0),
            "Retries a second the budget allows on top of its share, as a reserve over its 10 s (Finagle's \
             RetryBudget: 10 a second by default, with 20%). 0: the share alone."),
        pub retry_after: bool = ParamSpec::toggle("retry_after", "Honour Retry-After", false,
            "The provider's 503 says when to come back, and clients wait exactly that instead of their backoff, \
             as the OpenAI and Anthropic SDKs do for a value under a minute."),
        pub retry_after_kind: RetryAfterKind = ParamSpec::choice("retry_after_kind", "Retry-After value",
            RetryAfterKind::OPTIONS, RetryAfterKind::UniformSeconds as usize,
            "What the 503's Retry-After says: whole seconds, the same for every caller (what servers send), or \
             an ideal tick with room for each caller."),
        pub retry_after_s: f64 = ParamSpec::number("retry_after_s", "Retry-After seconds", "s", 1.0, (1.0, 59.0, 1.0),
            "The whole seconds a 503 names, the same for every caller. The SDKs honour values under a minute."),
        pub layers: usize = ParamSpec::number("layers", "Retrying layers", "", 1.0, (1.0, MAX_LAYERS as f64, 1.0),
            "With 1 only the client retries. 2 and 3 add layers below it (an SDK, a proxy) that each retry \
             every attempt from above, with the same backoff."),
        pub attempts_per_layer: u32 = ParamSpec::number("attempts_per_layer", "Attempts per extra layer", "", 3.0,
            (1.0, 5.0, 1.0), "Attempts each added layer makes (3: the AWS SDK's and the OpenAI SDK's default)."),
    }
}

/// How much of the recovery a run shows.
const AFTER_OUTAGE_MS: u64 = 14_000;
const DEFAULT_DURATION_MS: u64 = 20_000;

pub static SPEC: ScenarioSpec = ScenarioSpec {
    id: "retry-storm",
    title: "Retry storm",
    chapter: "Chapter 2, Part 1: The load half",
    summary: "A provider goes down, then comes back able to take a fixed number of calls per 100 ms tick. \
              Compare the peak after recovery with that capacity.",
    params: PARAMS,
    presets: &[
        Preset {
            id: "fixed",
            label: "Fixed 1 s",
            description: "Every client retries 1 s after each failure: they failed together, so they come back \
                          together.",
            values: &[("mode", "fixed")],
        },
        Preset {
            id: "exponential",
            label: "Exponential",
            description: "Backoff without jitter: the waves are further apart but just as tall.",
            values: &[("mode", "exponential")],
        },
        Preset {
            id: "jitter",
            label: "Exp + jitter",
            description: "Full jitter: a random wait up to the exponential one. The wave breaks up.",
            values: &[("mode", "jitter")],
        },
        Preset {
            id: "budget",
            label: "Jitter + 10% budget",
            description: "Retries may be at most 10% of recent requests: under a long outage traffic grows by 10%, \
                          not by 3×. In this 4 s outage the budget's 10 s window still counts calls from before \
                          it, so retries come to 12–16% of the user calls made during it.",
            values: &[("mode", "jitter"), ("budget_pct", "10"), ("max_attempts", "3")],
        },
        Preset {
            id: "three-layers",
            label: "Three layers × 3",
            description: "The client, an SDK and a proxy each make 3 attempts: 27 calls for one user action \
                          during the outage.",
            values: &[("mode", "jitter"), ("max_attempts", "3"), ("layers", "3"), ("attempts_per_layer", "3")],
        },
    ],
    metrics: &[
        MetricSpec {
            key: "peak_after_recovery",
            label: "Peak after recovery",
            unit: "calls/tick",
            help: "Most attempts in one 100 ms tick after the provider is back. Compare with the capacity.",
        },
        MetricSpec {
            key: "capacity_per_tick",
            label: "Capacity",
            unit: "calls/tick",
            help: "What the provider admits per tick.",
        },
        MetricSpec { key: "peak_after_recovery_at_ms", label: "Peak at", unit: "ms", help: "When that tick started." },
        MetricSpec {
            key: "attempts_total",
            label: "Attempts",
            unit: "calls",
            help: "Calls sent to the provider, retries included.",
        },
        MetricSpec {
            key: "rejected_total",
            label: "Rejected (503)",
            unit: "calls",
            help: "Attempts over the tick's capacity.",
        },
        MetricSpec {
            key: "failed_total",
            label: "Failed (down)",
            unit: "calls",
            help: "Attempts that failed fast while the provider was down, and calls reset when it went down.",
        },
        MetricSpec { key: "calls_succeeded", label: "Succeeded", unit: "calls", help: "Calls that completed." },
        MetricSpec {
            key: "in_flight_end",
            label: "In flight at end",
            unit: "calls",
            help: "Calls still running when the run ended.",
        },
        MetricSpec {
            key: "amplification",
            label: "Amplification",
            unit: "×",
            help: "Provider calls per user action, retries at every layer included: 1.0 when nothing retries.",
        },
        MetricSpec {
            key: "recovered_ms",
            label: "Done retrying at",
            unit: "ms",
            help: "First moment after the provider is back when no client is waiting on a retry; empty if never.",
        },
        MetricSpec {
            key: "waves_after_recovery",
            label: "Waves",
            unit: "",
            help: "Runs of consecutive ticks with more attempts than the capacity, after recovery.",
        },
        MetricSpec {
            key: "max_calls_per_user_action",
            label: "Calls per user action (max)",
            unit: "calls",
            help: "The most provider calls one user action caused, across every retrying layer.",
        },
        MetricSpec { key: "user_actions", label: "User actions", unit: "", help: "Actions the clients started." },
        MetricSpec { key: "user_actions_failed", label: "Failed actions", unit: "", help: "Actions that gave up." },
        MetricSpec {
            key: "outage_attempts",
            label: "Attempts during the outage",
            unit: "calls",
            help: "Calls sent while the provider was down.",
        },
        MetricSpec {
            key: "outage_user_calls",
            label: "User calls during the outage",
            unit: "calls",
            help: "Of those, first calls of user actions: the traffic there would be without retries.",
        },
        MetricSpec {
            key: "outage_retry_pct",
            label: "Retry share during the outage",
            unit: "%",
            help: "Retries sent while the provider was down, as a share of the user calls (first attempts) made \
                   then: the share a retry budget caps (the chapter's 'at most 10% of recent requests'). A budget \
                   counts its last 10 s, which can reach back before the outage, so over a short outage this \
                   share can end above the budget.",
        },
        MetricSpec {
            key: "outage_traffic_vs_normal",
            label: "Outage traffic",
            unit: "× normal",
            help: "Calls per 100 ms tick while the provider was down, divided by calls per tick before it went \
                   down, retries included. The chapter's 'traffic grows by 10%, not by 3×' reads here as 1.1 \
                   against 3.",
        },
        MetricSpec {
            key: "calls_per_tick_before",
            label: "Calls per tick before the outage",
            unit: "calls/tick",
            help: "Provider calls per 100 ms tick before it went down: the normal traffic.",
        },
        MetricSpec {
            key: "calls_per_tick_outage",
            label: "Calls per tick during the outage",
            unit: "calls/tick",
            help: "Provider calls per 100 ms tick while it was down (so far, during the outage), retries included.",
        },
    ],
    headline: &["peak_after_recovery", "waves_after_recovery", "recovered_ms", "outage_traffic_vs_normal"],
    default_duration_ms: DEFAULT_DURATION_MS,
    sweep: SweepDefault {
        x: "base_ms",
        from: 10.0,
        to: 1000.0,
        steps: 15,
        by: Some("mode"),
        metric: "peak_after_recovery",
    },
    model: &ModelOf::<RetryStorm>::NEW,
};

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
    /// The completion of the call in flight, withdrawn if the provider goes down first.
    call: Option<TimerKey>,
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

/// One tick as the page charts it. In a run longer than [`MAX_ROWS`] ticks a row stands for
/// [`RetryStorm::ticks_per_row`] ticks: the attempts of the busiest of them (so every wave
/// shows at its height), the most clients waiting in any of them, the calls in flight at
/// their end.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct TickSample {
    /// Attempts admitted (served).
    pub served: f64,
    /// Attempts rejected with 503 (over capacity).
    pub rejected: f64,
    /// Attempts that failed fast because the provider was down.
    pub failed: f64,
    /// Calls in flight that were reset when the provider went down.
    pub resets: f64,
    /// Most clients waiting on a retry during the tick.
    pub waiting: f64,
    /// Calls in flight at the end of the tick.
    pub in_flight: f64,
}

/// What a retry budget's 10 s window holds at one moment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BudgetWindow {
    /// User calls (first attempts) in the window.
    pub firsts: u64,
    /// Of those, the ones made before the provider went down.
    pub firsts_before_outage: u64,
    /// Retries in the window.
    pub retries: u64,
}

/// A retry budget: retries at most a reserve plus `share` of the first attempts of the last
/// 10 s (Finagle's `RetryBudget`, with its deposits and withdrawals expiring after the window).
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

    /// Finagle's check: the reserve plus `share` of the window's deposits covers one more
    /// retry on top of the window's withdrawals.
    fn allows_retry(&self, share: f64, reserve: f64) -> bool {
        (self.sum_retries + 1) as f64 <= reserve + share * self.sum_firsts as f64
    }

    /// What the window holds now: its user calls, those made before tick `before`, its retries.
    fn window(&self, before: u64) -> BudgetWindow {
        let from = self.tick.saturating_sub(BUDGET_SLOTS as u64 - 1);
        let earlier =
            (from..before.min(self.tick + 1)).map(|t| self.firsts[(t % BUDGET_SLOTS as u64) as usize] as u64).sum();
        BudgetWindow { firsts: self.sum_firsts, firsts_before_outage: earlier, retries: self.sum_retries }
    }

    fn record_retry(&mut self) {
        let i = self.slot();
        self.retries[i] += 1;
        self.sum_retries += 1;
    }
}

/// The model: closed-loop clients, a provider with a per-tick capacity and an outage, and the
/// retrying layers between them.
pub struct RetryStorm {
    config: RetryStormConfig,
    call_us: f64,
    think_us: f64,
    /// Not in the list: without it a failed action would be followed by the short think
    /// time, so users whose calls fail fast would call many times faster than usual and a retry
    /// budget would show more traffic, not less.
    pause_us: f64,
    capacity: u32,
    down_from: Micros,
    down_until: Micros,
    fixed_us: f64,
    base_us: f64,
    cap_us: f64,
    max_attempts: u32,
    /// Retry budget as a fraction of first attempts (so a full outage adds that fraction, as
    /// the chapter says); 0 = off.
    budget_share: f64,
    /// Finagle's reserve: the floor's retries over the budget's 10 s.
    budget_reserve: f64,
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
    /// Calls sent before the provider went down.
    attempts_before: u64,
    outage_attempts: u64,
    outage_user_calls: u64,
    max_open_per_client: u32,
    peak_after: u32,
    peak_after_at: Option<Micros>,
    waves: Vec<Wave>,
    wave_count: u64,
    in_wave: bool,
    recovered: Option<Micros>,
    ticks: Series<TickSample>,
    /// When the run ends.
    end: Micros,
    /// The client's retry budget window when the provider came back (with a budget only).
    budget_at_recovery: Option<BudgetWindow>,
    /// Ticks per charted row, and the row being gathered.
    ticks_per_row: u64,
    row: TickSample,
}

impl RetryStorm {
    /// Per-tick counts for the charts (a row per [`Self::ticks_per_row`] ticks).
    pub fn ticks(&self) -> &Series<TickSample> {
        &self.ticks
    }

    /// How many ticks one charted row stands for: 1 unless the run is longer than
    /// [`MAX_ROWS`] ticks.
    pub fn ticks_per_row(&self) -> u64 {
        self.ticks_per_row
    }

    /// When the provider is down: [from, until) in µs (empty when until ≤ from).
    pub fn outage(&self) -> (Micros, Micros) {
        (self.down_from, self.down_until.max(self.down_from))
    }

    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    pub fn clients(&self) -> &[Client] {
        &self.clients
    }

    pub fn counts(&self) -> Counts {
        Counts {
            attempts: self.attempts,
            succeeded: self.succeeded,
            rejected: self.rejected,
            failed: self.failed,
            in_flight: self.in_flight as u64,
            waiting: self.waiting as u64,
        }
    }

    /// The client's retry budget window when the provider came back (with a budget only).
    pub fn budget_at_recovery(&self) -> Option<BudgetWindow> {
        self.budget_at_recovery
    }

    /// The first [`MAX_WAVES`] waves after recovery.
    pub fn waves(&self) -> &[Wave] {
        &self.waves
    }

    pub fn recovered_at(&self) -> Option<Micros> {
        self.recovered
    }

    /// The most calls any client ever had in flight at once (the invariant: 1).
    pub fn max_calls_in_flight_per_client(&self) -> u32 {
        self.max_open_per_client
    }
}

impl Model for RetryStorm {
    type Config = RetryStormConfig;
    type Event = Event;

    /// Past the outage: 14 s after the provider is back, time for the longest backoff to play out.
    fn run_length_ms(c: &RetryStormConfig) -> Option<u64> {
        Some((c.down_until_ms as u64 + AFTER_OUTAGE_MS).max(DEFAULT_DURATION_MS))
    }

    fn new(config: RetryStormConfig, seed: u64, end: Micros, queue: &mut EventQueue<Event>) -> Self {
        // The declared ranges start at 1; a configuration built by hand gets the same floors.
        let n = config.clients.max(1);
        let layers = config.layers.clamp(1, MAX_LAYERS);
        let base_us = ms_to_us(config.base_ms) as f64;
        let model = Self {
            call_us: ms_to_us(config.call_ms) as f64,
            think_us: ms_to_us(config.think_ms) as f64,
            pause_us: ms_to_us(config.pause_after_failure_ms) as f64,
            capacity: config.capacity.max(1),
            down_from: ms_to_us(config.down_from_ms),
            down_until: ms_to_us(config.down_until_ms),
            fixed_us: ms_to_us(config.fixed_ms) as f64,
            base_us,
            cap_us: ms_to_us(config.cap_ms) as f64,
            max_attempts: config.max_attempts.max(1),
            budget_share: config.budget_pct.clamp(0.0, 100.0) / 100.0,
            budget_reserve: config.budget_min_retries_per_s.max(0.0) * (BUDGET_SLOTS as u64 * TICK / (1000 * MS)) as f64,
            layers,
            attempts_per_layer: config.attempts_per_layer.max(1),
            call_rng: SimRng::stream(seed, 1),
            think_rng: SimRng::stream(seed, 2),
            jitter_rng: SimRng::stream(seed, 3),
            clients: vec![
                Client {
                    state: ClientState::Idle,
                    call: None,
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
            attempts_before: 0,
            outage_attempts: 0,
            outage_user_calls: 0,
            max_open_per_client: 0,
            peak_after: 0,
            peak_after_at: None,
            waves: Vec::new(),
            wave_count: 0,
            in_wave: false,
            recovered: None,
            ticks: Series::new(MAX_ROWS as usize),
            end,
            budget_at_recovery: None,
            ticks_per_row: end.div_ceil(TICK).div_ceil(MAX_ROWS).max(1),
            row: TickSample::default(),
            config,
        };
        // Outage events first, so at the same instant they come before any call.
        if model.down_until > model.down_from {
            queue.schedule_at(model.down_from, Event::Down);
        }
        queue.schedule_at(model.down_until, Event::Up);
        queue.schedule_at(0, Event::Tick);
        // Clients start at random moments over one cycle, so the provider sees steady load from
        // the start: starting all of them at 0 would itself be a storm.
        let mut start_rng = SimRng::stream(seed, 4);
        let cycle = model.call_us + model.think_us;
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
            Event::Done(c) => self.done(q, c as usize),
            Event::Down => self.go_down(q, now),
            Event::Up => {
                self.down = false;
                if self.down_until > self.down_from && self.has_budget() {
                    self.budget_at_recovery = Some(self.budgets[0].window(self.outage_first_tick()));
                }
                self.check_recovered(now);
            }
        }
    }

    fn metrics(&self, now: Micros) -> Vec<(&'static str, Value)> {
        let ms = |t: Micros| Value::num(t as f64 / 1000.0);
        let peak = self.peak_now(now);
        let ratio = |a: u64, b: u64| if b > 0 { Value::num(a as f64 / b as f64) } else { Value::Null };
        let current_calls = self.clients.iter().map(|c| c.action_calls).max().unwrap_or(0);
        vec![
            ("peak_after_recovery", peak.map_or(Value::Null, |(n, _)| Value::count(n as u64))),
            ("capacity_per_tick", Value::count(self.capacity as u64)),
            ("peak_after_recovery_at_ms", peak.map_or(Value::Null, |(_, at)| ms(at))),
            ("attempts_total", Value::count(self.attempts)),
            ("rejected_total", Value::count(self.rejected)),
            ("failed_total", Value::count(self.failed)),
            ("calls_succeeded", Value::count(self.succeeded)),
            ("in_flight_end", Value::count(self.in_flight as u64)),
            // Every user action makes one first call; whatever is above one per action is retries.
            ("amplification", ratio(self.attempts, self.actions)),
            ("recovered_ms", self.recovered.map_or(Value::Null, ms)),
            ("waves_after_recovery", Value::count(self.waves_so_far())),
            ("max_calls_per_user_action", Value::count(self.max_calls_per_action.max(current_calls) as u64)),
            ("user_actions", Value::count(self.actions)),
            ("user_actions_failed", Value::count(self.actions_failed)),
            ("outage_attempts", Value::count(self.outage_attempts)),
            ("outage_user_calls", Value::count(self.outage_user_calls)),
            ("outage_retry_pct", self.outage_retry_pct()),
            ("outage_traffic_vs_normal", self.outage_traffic(now).map_or(Value::Null, |(b, o)| Value::num(o / b))),
            ("calls_per_tick_before", self.calls_per_tick_before().map_or(Value::Null, Value::num)),
            ("calls_per_tick_outage", self.calls_per_tick_outage(now).map_or(Value::Null, Value::num)),
        ]
    }

    fn config(&self) -> &RetryStormConfig {
        &self.config
    }
}

impl RetryStorm {
    /// The busiest tick after recovery so far, the tick in progress included, and when it
    /// started; none before the provider is back.
    pub fn peak_now(&self, now: Micros) -> Option<(u32, Micros)> {
        if now < self.down_until {
            return None;
        }
        match self.peak_after_at {
            Some(at) if self.cur.after_recovery <= self.peak_after => Some((self.peak_after, at)),
            _ => Some((self.cur.after_recovery, self.tick * TICK)),
        }
    }

    /// Whether the layers retry under a budget: a share, a floor, or both.
    fn has_budget(&self) -> bool {
        self.budget_share > 0.0 || self.budget_reserve > 0.0
    }

    /// The first tick of the outage (a budget's calls from before it are in earlier ticks).
    fn outage_first_tick(&self) -> u64 {
        self.down_from.div_ceil(TICK)
    }

    /// Waves over capacity after recovery, the tick in progress included: a wave starts the
    /// moment its tick goes over, as the peak counts it.
    pub fn waves_so_far(&self) -> u64 {
        self.wave_count + u64::from(self.cur.after_recovery > self.capacity && !self.in_wave)
    }

    /// Provider calls per tick before the outage (none when it starts at 0 or never).
    pub fn calls_per_tick_before(&self) -> Option<f64> {
        (self.down_until > self.down_from && self.down_from > 0)
            .then(|| self.attempts_before as f64 / (self.down_from as f64 / TICK as f64))
    }

    /// Provider calls per tick during the outage so far (none before it starts).
    pub fn calls_per_tick_outage(&self, now: Micros) -> Option<f64> {
        let elapsed = now.min(self.down_until).saturating_sub(self.down_from);
        (self.down_until > self.down_from && elapsed > 0)
            .then(|| self.outage_attempts as f64 / (elapsed as f64 / TICK as f64))
    }

    /// Calls per tick before the outage and during it, when both are known (the outage has
    /// begun and traffic before it was not zero).
    fn outage_traffic(&self, now: Micros) -> Option<(f64, f64)> {
        let before = self.calls_per_tick_before().filter(|b| *b > 0.0)?;
        Some((before, self.calls_per_tick_outage(now)?))
    }

    /// Retries during the outage as a share of the user calls then.
    fn outage_retry_pct(&self) -> Value {
        if self.outage_user_calls == 0 {
            return Value::Null;
        }
        let retries = self.outage_attempts - self.outage_user_calls;
        Value::num(100.0 * retries as f64 / self.outage_user_calls as f64)
    }

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
    fn roll_to(&mut self, tick: u64) {
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
        if now < self.down_from {
            self.attempts_before += 1;
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
            client.open_calls += 1;
            self.max_open_per_client = self.max_open_per_client.max(client.open_calls);
            client.call = Some(q.timer_in(duration, Event::Done(c as u32)));
        } else {
            self.rejected += 1;
            self.cur.rejected += 1;
            self.fail(q, now, c, true);
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
    /// fails fast to the one above; if none is left the user action fails.
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
    }

    fn done(&mut self, q: &mut EventQueue<Event>, c: usize) {
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
    fn go_down(&mut self, q: &mut EventQueue<Event>, now: Micros) {
        self.down = true;
        for c in 0..self.clients.len() {
            if self.clients[c].state != ClientState::InFlight {
                continue;
            }
            let client = &mut self.clients[c];
            client.open_calls -= 1;
            if let Some(call) = client.call.take() {
                q.cancel(call);
            }
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
