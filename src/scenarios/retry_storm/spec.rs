//! What retry-storm declares: its parameters and choices, presets, metrics, headline, sweep
//! and run length.

use crate::sim::Value;
use crate::sim::scenario::SweepDefault;
use crate::sim::{MS, Micros, ParamSpec, Preset};

/// The provider admits calls per 100 ms tick (the chapter's unit).
pub const TICK: Micros = 100 * MS;
pub const MAX_LAYERS: usize = 3;
/// No timer fires sooner than this, so every loop of a client moves simulated time forward.
pub(super) const MIN_DELAY: Micros = MS;

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
    /// How the pending-order worker reaches its drain rate.
    #[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
    pub enum DrainRamp {
        Aimd = ("aimd", "Ramp up, back off",
            "The worker starts at 1 call a second and adds 1 a second for each call that succeeds, up to the drain \
             rate; a call that fails halves its rate (not below 1): additive increase, multiplicative decrease, \
             as TCP's congestion control and Netflix's concurrency limiter do."),
        Fixed = ("fixed", "Fixed rate",
            "The worker sends at the drain rate from its first call, whatever the provider answers, as a queue's \
             rate limiter set to a number of jobs a second does (BullMQ's limiter)."),
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

crate::choice! {
    /// What opens the circuit breaker.
    pub enum BreakerTrip {
        Ratio = ("ratio", "Share of failed calls",
            "It opens when at least the set share of the calls in its window failed, once enough calls were made \
             in it: Hystrix's rule (50% of at least 20 calls in 10 s), and Polly v8's and resilience4j's."),
        Consecutive = ("consecutive", "Failures in a row",
            "It opens after the set number of failures in a row; any success starts the count again: Polly's \
             classic CircuitBreaker."),
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
            "The wait between attempts with Fixed backoff (the chapter's 'Fixed 1 s').")
            .only_with(RetryStormConfig::mode, &["fixed"], "only Fixed waits a fixed delay"),
        pub base_ms: f64 = ParamSpec::number("base_ms", "Base delay", "ms", 100.0, (10.0, 10_000.0, 10.0),
            "The first wait of the exponential and jittered backoffs (one tick); it doubles with every attempt.")
            .only_with(RetryStormConfig::mode, &["exponential", "jitter", "decorrelated", "equal"], "every wait is the fixed delay"),
        pub cap_ms: f64 = ParamSpec::number("cap_ms", "Cap", "ms", 2000.0, (10.0, 120_000.0, 10.0),
            "The longest wait of the exponential and jittered backoffs. About one call, so a 20 s run shows \
             the whole recovery.")
            .only_with(RetryStormConfig::mode, &["exponential", "jitter", "decorrelated", "equal"], "every wait is the fixed delay"),
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
             an ideal tick with room for each caller.")
            .only_with(RetryStormConfig::retry_after, &["true"], "clients wait their own backoff"),
        pub retry_after_s: f64 = ParamSpec::number("retry_after_s", "Retry-After seconds", "s", 1.0, (1.0, 59.0, 1.0),
            "The whole seconds a 503 names, the same for every caller. The SDKs honour values under a minute.")
            .only_with(RetryStormConfig::retry_after_kind, &["uniform-seconds"], "the ideal provider names a tick, not seconds"),
        pub layers: usize = ParamSpec::number("layers", "Retrying layers", "", 1.0, (1.0, MAX_LAYERS as f64, 1.0),
            "With 1 only the client retries. 2 and 3 add layers below it (an SDK, a proxy) that each retry \
             every attempt from above, with the same backoff."),
        pub attempts_per_layer: u32 = ParamSpec::number("attempts_per_layer", "Attempts per extra layer", "", 3.0,
            (1.0, 5.0, 1.0), "Attempts each added layer makes (3: the AWS SDK's and the OpenAI SDK's default)."),
        pub breaker: bool = ParamSpec::toggle("breaker", "Circuit breaker", false,
            "A breaker in front of the provider: after enough failures it opens and fails every call at once, \
             without sending it, until a cool-down ends; then one probe goes through, and its answer closes \
             or reopens it."),
        pub breaker_trip: BreakerTrip = ParamSpec::choice("breaker_trip", "Breaker opens on", BreakerTrip::OPTIONS,
            BreakerTrip::Ratio as usize,
            "What opens the breaker: a share of failed calls within its window (Hystrix, Polly v8, resilience4j), \
             or failures in a row (Polly's classic breaker).")
            .only_with(RetryStormConfig::breaker, &["true"], "there is no breaker"),
        pub breaker_failure_pct: f64 = ParamSpec::number("breaker_failure_pct", "Breaker opens at", "% failed",
            50.0, (1.0, 100.0, 1.0),
            "With a share of failed calls: the share of the calls within the window that must have failed \
             (Hystrix's error threshold, 50%; Polly v8's failure ratio, 10%).")
            .only_with(RetryStormConfig::breaker_trip, &["ratio"], "it counts failures in a row"),
        pub breaker_min_calls: u32 = ParamSpec::number("breaker_min_calls", "Breaker's minimum calls", "calls",
            20.0, (1.0, 1000.0, 1.0),
            "With a share of failed calls: fewer calls than this within the window never open it, whatever their \
             failures (Hystrix's request volume threshold, 20; Polly v8's minimum throughput, 100).")
            .only_with(RetryStormConfig::breaker_trip, &["ratio"], "it counts failures in a row"),
        pub breaker_failures: u32 = ParamSpec::number("breaker_failures", "Breaker opens after", "failures in a row",
            5.0, (1.0, 100.0, 1.0),
            "With failures in a row: the failures (resets, calls failed while down, 503s) that open it; a success \
             starts the count again.")
            .only_with(RetryStormConfig::breaker_trip, &["consecutive"], "it counts a share of failed calls"),
        pub breaker_window_ms: f64 = ParamSpec::number("breaker_window_ms", "Breaker window", "ms", 10_000.0,
            (100.0, 60_000.0, 100.0),
            "With a share of failed calls: how far back the breaker counts calls (Hystrix and opossum roll 10 s, \
             Polly v8 samples 30 s).")
            .only_with(RetryStormConfig::breaker_trip, &["ratio"], "it counts failures in a row"),
        pub breaker_cooldown_ms: f64 = ParamSpec::number("breaker_cooldown_ms", "Breaker cool-down", "ms", 5_000.0,
            (100.0, 120_000.0, 100.0), "How long the breaker stays open before one probe may go through \
             (Hystrix's sleep window and Polly's break duration: 5 s).")
            .only_with(RetryStormConfig::breaker, &["true"], "there is no breaker"),
        pub pending: bool = ParamSpec::toggle("pending", "Accept as pending", false,
            "An action whose attempts all failed is accepted as a pending order instead of failing, and a worker \
             charges the backlog, oldest first, one call every 1 / drain rate, until each order's call succeeds."),
        pub drain_rate: f64 = ParamSpec::number("drain_rate", "Drain rate", "orders/s", 20.0, (1.0, 500.0, 1.0),
            "Calls a second the pending-order worker makes at most: set it below what the provider admits \
             (capacity × 10 a second) so the backlog does not become a storm of its own.")
            .only_with(RetryStormConfig::pending, &["true"], "no order is accepted as pending"),
        pub drain_ramp: DrainRamp = ParamSpec::choice("drain_ramp", "Drain ramp", DrainRamp::OPTIONS,
            DrainRamp::Aimd as usize,
            "How the pending-order worker reaches its drain rate: ramping up while its calls succeed and backing \
             off when one fails (the chapter's \"ramping up, not all at once\"), or at the full rate at once.")
            .only_with(RetryStormConfig::pending, &["true"], "no order is accepted as pending"),
    }
}

/// How much of the recovery a run shows.
pub(super) const AFTER_OUTAGE_MS: u64 = 14_000;
pub(super) const DEFAULT_DURATION_MS: u64 = 20_000;

pub static PRESETS: &[Preset] = &[
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
    Preset {
        id: "ch2-break-2",
        label: "Break 2: down five minutes",
        description: "Chapter 2, Break 2: the provider is down for five minutes. One retry layer with exponential \
                      backoff and full jitter under a 10% budget, a circuit breaker in front of the provider, and \
                      orders accepted as pending, which a worker charges at 20 a second, a quarter of what the \
                      provider admits.",
        values: &[
            ("down_until_ms", "302000"),
            ("mode", "jitter"),
            ("max_attempts", "3"),
            ("budget_pct", "10"),
            ("breaker", "true"),
            ("pending", "true"),
            ("drain_rate", "20"),
        ],
    },
    Preset {
        id: "ch2-break-5",
        label: "Break 5: count the layers",
        description: "Chapter 2, Break 5: three layers that each make 3 attempts, 3 × 3 × 3 = 27 for one user \
                      action, with a circuit breaker per provider that fails them at once instead of sending them \
                      to a dead provider.",
        values: &[
            ("mode", "jitter"),
            ("max_attempts", "3"),
            ("layers", "3"),
            ("attempts_per_layer", "3"),
            ("breaker", "true"),
        ],
    },
];

crate::metrics! {
    /// What a retry-storm run reports: the CLI's JSON, the stat cards, the sweeps.
    pub struct RetryStormMetrics in METRICS {
        pub peak_after_recovery: Option<u64> = ("Peak after recovery", "calls/tick",
            "Most attempts in one 100 ms tick after the provider is back. Compare with the capacity."),
        pub capacity_per_tick: u64 = ("Capacity", "calls/tick",
            "What the provider admits per tick."),
        pub peak_after_recovery_at_ms: Option<f64> = ("Peak at", "ms",
            "When that tick started."),
        pub attempts_total: u64 = ("Attempts", "calls",
            "Calls sent to the provider, retries included."),
        pub rejected_total: u64 = ("Rejected (503)", "calls",
            "Attempts over the tick's capacity."),
        pub failed_total: u64 = ("Failed (down)", "calls",
            "Attempts that failed fast while the provider was down, and calls reset when it went down."),
        pub calls_succeeded: u64 = ("Succeeded", "calls",
            "Calls that completed."),
        pub in_flight_end: u64 = ("In flight at end", "calls",
            "Calls still running when the run ended."),
        pub amplification: Option<f64> = ("Amplification", "×",
            "Provider calls per user action, retries at every layer included: 1.0 when nothing retries. A \
               breaker keeps calls from the provider, and the pending worker's calls come on top."),
        pub recovered_ms: Option<f64> = ("Done retrying at", "ms",
            "First moment after the provider is back when no client is waiting on a retry; empty if never."),
        pub waves_after_recovery: u64 = ("Waves", "",
            "Runs of consecutive ticks with more attempts than the capacity, after recovery."),
        pub max_calls_per_user_action: u64 = ("Calls per user action (max)", "calls",
            "The most provider calls one user action caused, across every retrying layer."),
        pub user_actions: u64 = ("User actions", "",
            "Actions the clients started."),
        pub user_actions_failed: u64 = ("Failed actions", "",
            "Actions that gave up."),
        pub outage_attempts: u64 = ("Attempts during the outage", "calls",
            "Calls sent while the provider was down (with a breaker, the attempts it failed fast included)."),
        pub outage_user_calls: u64 = ("User calls during the outage", "calls",
            "Of those, first calls of user actions: the traffic there would be without retries."),
        pub outage_retry_pct: Value = ("Retry share during the outage", "%",
            "Retries sent while the provider was down, as a share of the user calls (first attempts) made \
               then: the share a retry budget caps (the chapter's 'at most 10% of recent requests'). A budget \
               counts its last 10 s, which can reach back before the outage, so over a short outage this \
               share can end above the budget."),
        pub outage_traffic_vs_normal: Option<f64> = ("Outage traffic", "× normal",
            "Attempts per 100 ms tick while the provider was down, divided by calls per tick before it went \
               down, retries included (with a breaker, the attempts it failed at once count too: they are the \
               clients' traffic, not the provider's). The chapter's 'traffic grows by 10%, not by 3×' reads \
               here as 1.1 against 3."),
        pub calls_per_tick_before: Option<f64> = ("Calls per tick before the outage", "calls/tick",
            "Provider calls per 100 ms tick before it went down: the normal traffic."),
        pub calls_per_tick_outage: Option<f64> = ("Calls per tick during the outage", "calls/tick",
            "Attempts per 100 ms tick while the provider was down (so far, during the outage), retries \
               included, and with a breaker those it failed at once."),
        pub calls_while_down: u64 = ("Calls that reached it while down", "calls",
            "Calls that reached the provider while it was down, the pending worker's included: the attempts a \
               breaker did not fail fast."),
        pub max_attempts_per_user_action: u64 = ("Attempts per user action (max)", "attempts",
            "The most attempts the retrying layers made for one user action, those a breaker failed fast \
               included."),
        pub short_circuited: u64 = ("Failed fast by the breaker", "calls",
            "Attempts the open circuit breaker failed at once, without sending them to the provider."),
        pub breaker_opens: u64 = ("Breaker opened", "times",
            "Times the breaker opened."),
        pub pending_accepted: u64 = ("Accepted as pending", "orders",
            "User actions whose attempts all failed, accepted as pending orders instead of failing."),
        pub pending_max: u64 = ("Pending backlog (max)", "orders",
            "The most pending orders waiting for the worker at once."),
        pub drain_done_ms: Option<f64> = ("Backlog drained at", "ms",
            "When the worker had charged every pending order; empty if none was ever pending or some still \
               were at the end."),
    }
}

pub const HEADLINE: &[&str] = &[RetryStormMetrics::peak_after_recovery.key(), RetryStormMetrics::waves_after_recovery.key(), RetryStormMetrics::recovered_ms.key(), RetryStormMetrics::outage_traffic_vs_normal.key()];

pub const SWEEP: SweepDefault = SweepDefault {
    x: RetryStormConfig::base_ms,
    from: 10.0,
    to: 1000.0,
    steps: 15,
    by: Some(RetryStormConfig::mode),
    metric: RetryStormMetrics::peak_after_recovery.key(),
};

