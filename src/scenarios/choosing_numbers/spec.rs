//! What choosing-numbers declares: its retry policies, parameters, presets, metrics, headline,
//! sweep and run length.

use crate::sim::Value;
use crate::sim::scenario::SweepDefault;
use crate::sim::syn::SynSchedule;
use crate::sim::{ParamSpec, Preset};

/// A run lasts 30 s; 60 s when the dependency is stuck on some requests, so that most of theirs
/// (up to 5 × 3 × 5 s of waiting) are answered within the run. After a drift it goes on for the
/// alert's window (then full of the slower dependency's attempts), its pending time, and 20 s.
pub(super) const DEFAULT_DURATION_MS: u64 = 30_000;
pub(super) const STUCK_DURATION_MS: u64 = 60_000;
pub(super) const SHOWN_AFTER_DRIFT_MS: f64 = 20_000.0;
pub const MAX_FAN_OUT: usize = 20;
pub const MAX_SEQUENTIAL: usize = 3;
pub const MAX_ATTEMPTS: usize = 5;
/// The longest window the timeout-rate alert may look back over (10 min).
pub const MAX_ALERT_WINDOW_S: usize = 600;

crate::choice! {
    /// How a call decides its attempts' timeouts and whether to retry.
    pub enum RetryPolicy {
        Fixed = ("fixed", "Fixed",
            "Every attempt waits its full timeout, and a failed call is retried up to the maximum, whatever is left of \
             the route's deadline."),
        Budgeted = ("budgeted", "Budgeted",
            "An attempt waits at most what is left of the route's deadline, and a call is retried only when the time \
             left exceeds the time an attempt is expected to take."),
    }
}

crate::config! {
    /// What the choosing-numbers model reads from its parameters.
    ///
    /// Where the defaults come from: Chapter 1 Part 5's budget tree (an API route deadline of
    /// 2 s) and its pricing call (p50 40 ms, p99 180 ms, p99.9 310 ms, timeout 500 ms, "at most
    /// three attempts fit"); a connect timeout of 2 s is inside the chapter's "1–3 s is
    /// generous"; the drift to a p99 of 450 ms is Break 4's. The alert is a Prometheus rule on
    /// the timeout rate: `rate > 0.2% over [1m] and timeouts >= 10, for: 30s`; at the chapter's
    /// 0.013% its condition never holds (the old 10 s window with no minimum and no `for` paged
    /// on a healthy dependency within the hour, issue 47).
    pub struct ChoosingNumbersConfig in PARAMS {
        pub rate: f64 = ParamSpec::number("rate", "Request rate", "req/s", 100.0, (1.0, 200.0, 1.0),
            "Requests per second arriving at the route (at random moments)."),
        pub deadline_ms: f64 = ParamSpec::number("deadline_ms", "Route deadline", "ms", 2000.0, (0.0, 10_000.0, 50.0),
            "How long the route may take in all; when it passes, the route answers with what it has. 0 means none.").zero_means("none"),
        pub fan_out: usize = ParamSpec::number("fan_out", "Parallel calls", "", 1.0, (1.0, MAX_FAN_OUT as f64, 1.0),
            "How many dependencies the route calls at once at each step; the step waits for all of them."),
        pub sequential_calls: usize = ParamSpec::number("sequential_calls", "Calls in sequence", "",
            1.0, (1.0, MAX_SEQUENTIAL as f64, 1.0),
            "How many steps of calls the route makes one after the other."),
        pub p50_ms: f64 = ParamSpec::number("p50_ms", "Dependency p50", "ms", 40.0, (1.0, 2000.0, 1.0),
            "The dependency's median latency, measured on the caller's side."),
        pub p99_ms: f64 = ParamSpec::number("p99_ms", "Dependency p99", "ms", 180.0, (1.0, 10_000.0, 1.0),
            "The latency 99 calls in 100 beat (raised to the p50 if set below it)."),
        pub p999_ms: f64 = ParamSpec::number("p999_ms", "Dependency p99.9", "ms", 310.0, (1.0, 20_000.0, 1.0),
            "The latency 999 calls in 1,000 beat (raised to the p99 if set below it)."),
        pub timeout_ms: f64 = ParamSpec::number("timeout_ms", "Per-attempt timeout", "ms", 500.0, (0.0, 5000.0, 10.0),
            "How long the caller waits for an attempt's answer once its connection is open (the connect has its own \
             timeout). 0 means no timeout.").zero_means("off"),
        pub connect_timeout_ms: f64 = ParamSpec::number("connect_timeout_ms", "Connect timeout", "ms", 2000.0,
            (0.0, 5000.0, 50.0),
            "How long an attempt may take to open its connection. A lost SYN is sent again after 1 s (then, before \
             Linux 6.5, 2 s, 4 s…), so a connect timeout under 1 s allows no second try. 0 means none.")
            .zero_means("off"),
        pub syn_loss_pct: f64 = ParamSpec::number("syn_loss_pct", "SYNs lost", "%", 0.0, (0.0, 50.0, 0.5),
            "The share of connection requests (SYN packets) lost on the way; each is retransmitted after the kernel's \
             wait."),
        pub syn_schedule: SynSchedule = ParamSpec::choice("syn_schedule", "SYN schedule (Linux)", SynSchedule::OPTIONS,
            SynSchedule::Exponential as usize,
            "Which kernel resends a lost SYN: before Linux 6.5 the waits double from 1 s (SYNs at 0, 1, 3, 7 s…); \
             6.5 and later send 4 more 1 s apart first (0, 1, 2, 3, 4, 5, 7 s…)."),
        pub max_attempts: u32 = ParamSpec::number("max_attempts", "Attempts per call", "", 3.0,
            (1.0, MAX_ATTEMPTS as f64, 1.0),
            "How many times a call may be tried in all (1: no retry)."),
        pub retry_policy: RetryPolicy = ParamSpec::choice("retry_policy", "Retry policy", RetryPolicy::OPTIONS,
            RetryPolicy::Budgeted as usize,
            "Whether attempts and retries follow the route's remaining budget."),
        pub backoff_ms: f64 = ParamSpec::number("backoff_ms", "Backoff", "ms", 50.0, (0.0, 1000.0, 10.0),
            "The wait before the first retry; each later retry waits twice as long as the one before."),
        pub jitter_pct: f64 = ParamSpec::number("jitter_pct", "Jitter", "%", 50.0, (0.0, 100.0, 5.0),
            "Up to this share of each backoff is taken off at random, so retries do not line up."),
        pub optional: bool = ParamSpec::toggle("optional", "Optional, with a fallback", false,
            "The route can answer without this dependency (a page without recommendations): a failed or late call \
             uses the fallback, and the answer is partial instead of an error."),
        pub propagate: bool = ParamSpec::toggle("propagate", "Pass the remaining time on", true,
            "The caller sends the time it has left, so the dependency stops working on an attempt the caller gave up \
             on. Off: the dependency finishes every abandoned attempt."),
        pub stuck_pct: f64 = ParamSpec::number("stuck_pct", "Requests the dependency is stuck on", "%", 0.0,
            (0.0, 20.0, 0.5),
            "For this share of requests (an expensive query, a hot key) every call and every retry takes the \
             dependency's limit of 60 s: the slow requests of Break 2."),
        pub drift_at_ms: f64 = ParamSpec::number("drift_at_ms", "Dependency slows at", "ms", 0.0, (0.0, 600_000.0, 1000.0),
            "From this moment the dependency's p99 is the drifted one below. 0 means it never drifts.").zero_means("never"),
        pub drift_p99_ms: f64 = ParamSpec::number("drift_p99_ms", "Drifted p99", "ms", 450.0, (1.0, 10_000.0, 1.0),
            "The dependency's p99 after the drift (its p99.9 moves by the same factor; its p50 stays)."),
        pub alert_threshold_pct: f64 = ParamSpec::number("alert_threshold_pct", "Alert above", "%", 0.2,
            (0.05, 20.0, 0.05),
            "The alert's condition: more than this share of the attempts that ended in its window timed out."),
        pub alert_window_s: usize = ParamSpec::number("alert_window_s", "Alert window", "s", 60.0,
            (10.0, MAX_ALERT_WINDOW_S as f64, 10.0),
            "The alert reads the attempts that ended in the last this many seconds (a Prometheus rule's rate \
             window)."),
        pub alert_min_timeouts: u64 = ParamSpec::number("alert_min_timeouts", "Alert's minimum timeouts", "", 10.0,
            (0.0, 100.0, 1.0),
            "The condition also needs at least this many timeouts in the window, so that a few unlucky calls do not \
             page anyone. 0 means no minimum.").zero_means("none"),
        pub alert_for_s: usize = ParamSpec::number("alert_for_s", "Pending before firing", "s", 30.0, (0.0, 600.0, 5.0),
            "The condition must hold at every evaluation (each second) for this long before the alert fires; until \
             then it is pending (in a Prometheus rule, its for duration). 0 means it fires at once.").zero_means("none"),
    }
}

pub(super) static PRESETS: &[Preset] = &[
    Preset {
        id: "chapter",
        label: "The chapter's budget",
        description: "A 2 s route calls pricing (p50 40, p99 180, p99.9 310 ms) with a 500 ms timeout: healthy calls \
                      almost never time out.",
        values: &[],
    },
    Preset {
        id: "at-p99",
        label: "Timeout at p99",
        description: "The timeout at exactly p99, 180 ms: about 1 healthy call in 100 times out, and its retry is 1% \
                      more load.",
        values: &[("timeout_ms", "180")],
    },
    Preset {
        id: "fan-out-5",
        label: "Five calls at once",
        description: "The route waits for 5 parallel calls: it is slower than one call's p99 about 4.9% of the time.",
        values: &[("fan_out", "5")],
    },
    Preset {
        id: "ch1-break-2",
        label: "Break 2: 12 s waits",
        description: "Two calls in sequence, 2 s per attempt, three attempts, no route deadline, the handler going on \
                      without a failed call: a stuck request waits 2 × 3 × 2 s = 12 s.",
        values: &[
            ("deadline_ms", "0"),
            ("sequential_calls", "2"),
            ("p50_ms", "70"),
            ("p99_ms", "300"),
            ("p999_ms", "600"),
            ("timeout_ms", "2000"),
            ("max_attempts", "3"),
            ("retry_policy", "fixed"),
            ("backoff_ms", "0"),
            ("optional", "true"),
            ("propagate", "false"),
            ("stuck_pct", "2"),
        ],
    },
    Preset {
        id: "ch1-break-2-fixed",
        label: "Break 2, fixed",
        description: "The same route with a 2 s deadline, attempts from the remaining budget, a partial answer and the \
                      time left passed on: nothing waits past 2 s.",
        values: &[
            ("deadline_ms", "2000"),
            ("sequential_calls", "2"),
            ("p50_ms", "70"),
            ("p99_ms", "300"),
            ("p999_ms", "600"),
            ("timeout_ms", "2000"),
            ("max_attempts", "3"),
            ("retry_policy", "budgeted"),
            ("backoff_ms", "0"),
            ("optional", "true"),
            ("propagate", "true"),
            ("stuck_pct", "2"),
        ],
    },
    Preset {
        id: "drift",
        label: "p99 drifts to 450 ms",
        description: "At 15 s the dependency's p99 drifts from 180 to 450 ms: the 500 ms timeout starts firing, and the \
                      alert is pending once more than 0.2% of the last minute's attempts, and at least 10, have timed \
                      out, and fires when that has held for 30 s.",
        values: &[("drift_at_ms", "15000"), ("drift_p99_ms", "450")],
    },
    Preset {
        id: "ch1-break-4",
        label: "Break 4: why 500 ms?",
        description: "Pricing at 40/180/310 ms on the critical path of a 2 s route, 500 ms per attempt: room for one \
                      retry.",
        values: &[("max_attempts", "2")],
    },
    Preset {
        id: "connect-below-syn",
        label: "Connect timeout under 1 s",
        description: "A 900 ms connect timeout while 10% of SYNs are lost: the retransmission would come at 1 s, so a \
                      lost SYN gets no second try.",
        values: &[("connect_timeout_ms", "900"), ("syn_loss_pct", "10")],
    },
];

crate::metrics! {
    /// What a choosing-numbers run reports: the CLI's JSON, the stat cards, the sweeps.
    pub struct ChoosingNumbersMetrics in METRICS {
        pub requests: u64 = ("Requests", "req",
            "Requests that reached the route."),
        pub finished: u64 = ("Answered", "req",
            "Requests the route has answered."),
        pub in_flight: u64 = ("In flight", "req",
            "Requests still waiting for an answer."),
        pub timeout_rate_pct: Value = ("Healthy calls timed out", "%",
            "Attempts that hit their own timeout, of the attempts that answered or timed out, while the dependency \
               was healthy (before any drift, stuck requests left out)."),
        pub tail_at_timeout_pct: Value = ("Tail at the timeout", "%",
            "The share of healthy calls slower than the per-attempt timeout, from the fitted distribution: what the \
               timeout rate should be."),
        pub timeout_rate_after_drift_pct: Value = ("Timed out after the drift", "%",
            "The same share for attempts started after the dependency slowed (empty without a drift)."),
        pub calls_per_request: Value = ("Calls per request", "",
            "Attempts sent per answered request, retries included: the load on the dependencies."),
        pub route_p50_ms: Option<f64> = ("Route p50", "ms",
            "The median time the route took to answer."),
        pub route_p95_ms: Option<f64> = ("Route p95", "ms",
            "95 answers in 100 came faster."),
        pub route_p99_ms: Option<f64> = ("Route p99", "ms",
            "99 answers in 100 came faster."),
        pub past_deadline_pct: Value = ("Hit the deadline", "%",
            "Answered requests whose route deadline passed while a call was still going: the route answered at the \
               deadline with a fallback or an error (empty without a deadline)."),
        pub slow_request_pct: Value = ("Slower than one call's p99", "%",
            "Answered requests that took longer than the dependency's p99."),
        pub slow_request_theory_pct: Value = ("Theory: slower than p99", "%",
            "With one step of parallel calls: the chance that at least one of them is slower than its p99 (1 minus \
               0.99 to the power of the calls), from the fitted distribution. Empty with calls in sequence."),
        pub worst_wait_ms: Value = ("Worst wait", "ms",
            "The longest any request waited."),
        pub fallback_pct: Value = ("Partial answers", "%",
            "Answered requests that used a fallback for at least one call."),
        pub error_pct: Value = ("Errors", "%",
            "Answered requests that failed: a call without a fallback failed or was cut by the deadline."),
        pub work_after_give_up_ms: f64 = ("Work after the caller gave up", "ms",
            "Time the dependency spent (or will spend) on attempts after the caller stopped waiting for them, \
               summed. With the remaining time passed on, it stops at once."),
        pub attempts_fit: Option<u64> = ("Attempts that fit", "",
            "How many full attempts, with the backoffs between them, fit in the route deadline (empty without a \
               deadline or a timeout)."),
        pub connect_timeouts: u64 = ("Connect timeouts", "",
            "Attempts that gave up while opening their connection."),
        pub syn_retransmits: u64 = ("SYNs sent again", "",
            "Lost SYNs the kernel retransmitted before the connect timeout."),
        pub alert_firing: bool = ("Alert firing", "",
            "Whether the timeout-rate alert is firing now: its condition has held for its pending time."),
        pub alert_pending: bool = ("Alert pending", "",
            "Whether the alert's condition holds now but has not yet held for its pending time."),
        pub alert_fired_at_ms: Value = ("Alert first fired", "ms",
            "When the timeout-rate alert first fired, its pending time over (empty if it never did)."),
        pub alert_after_drift_ms: Value = ("Alert after the drift", "ms",
            "How long after the drift the alert first fired (empty without a drift, or if it did not fire after it)."),
    }
}

pub(super) static HEADLINE: &[&str] = &[ChoosingNumbersMetrics::timeout_rate_pct.key(), ChoosingNumbersMetrics::calls_per_request.key(), ChoosingNumbersMetrics::route_p99_ms.key(), ChoosingNumbersMetrics::worst_wait_ms.key()];

pub(super) const SWEEP: SweepDefault = SweepDefault {
    x: ChoosingNumbersConfig::timeout_ms,
    from: 100.0,
    to: 1000.0,
    steps: 19,
    by: None,
    metric: ChoosingNumbersMetrics::timeout_rate_pct.key(),
};

