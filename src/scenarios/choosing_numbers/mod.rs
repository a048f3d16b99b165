//! Chapter 1, Part 5: "Choosing the numbers", and the answers to Breaks 2 and 4 of "When the
//! interviewer breaks it".
//!
//! Requests arrive at random (Poisson) at a route with a deadline (the chapter's budget tree:
//! browser 10 s > edge 3 s > API route 2 s). The route calls its dependencies in
//! `sequential_calls` steps of `fan_out` parallel calls; a step waits for all of its calls.
//! Every dependency has the latency a caller measures, fitted to its p50, p99 and p99.9
//! (`latency.rs`: a log-normal body through p50 and p99, a Pareto tail through p99.9), and may
//! drift to a slower p99 at `drift_at_ms`.
//!
//! A call is made in attempts. Each attempt opens a connection (a SYN lost with `syn_loss_pct`
//! is retransmitted after 1 s, 3 s, 7 s… as Linux before 6.5 does, or at 1, 2, 3, 4, 5, 7 s… as
//! 6.5 and later do, `syn_schedule`; the connect timeout may give up first), then waits for the answer at most its timeout, counted from the open connection; one
//! cancellable timer per attempt ends it at whichever comes first. A failed attempt is retried after an exponential backoff with
//! jitter, up to `max_attempts`: always (`fixed`), or (`budgeted`) only when the time left of
//! the deadline after the backoff exceeds what an attempt is expected to take (the fitted mean),
//! each attempt then taking at most the time left, connect included. When the deadline passes the route answers
//! with what it has: a partial answer when the dependency is `optional` (it has a fallback),
//! an error otherwise. With `propagate` the dependency stops working on an attempt its caller
//! gave up on; without it, it finishes the work for nobody.
//!
//! A share of requests (`stuck_pct`) are ones the dependency is stuck on (every attempt takes
//! its 60 s limit): with no deadline, three attempts of 2 s and two calls in sequence, such a
//! request waits 2 × 3 × 2 s = 12 s, Break 2's symptom.
//!
//! The alert (Break 4: "alert on its timeout rate") is a Prometheus-style rule evaluated every
//! second: its condition holds when more than `alert_threshold_pct` of the attempts that ended in
//! the last `alert_window_s` timed out, at least `alert_min_timeouts` of them; it is pending
//! while the condition holds and fires once it has held for `alert_for_s`. At the low ends (a
//! 10 s window, no minimum, no pending time) it pages on a few unlucky calls (issue 47).
//!
//! The real limits at the ends of the ranges: the retry's backoff doubles from `backoff_ms`
//! without a cap of its own; at the ends (1,000 ms, 5 attempts) its longest wait is 8 s, below
//! undici's `RetryHandler` cap (`maxTimeout` 30 s, doubling from 500 ms), which
//! `tests/real_limits.rs` checks. A lost SYN waits as Linux's `TCP_RTO_MAX` allows
//! (`crate::sim::syn`). The alert's window (600 slots of a second) is as long as its range.

mod facts;
mod latency;
mod model;
mod picture;
mod reading;
mod record;
mod spec;

pub use latency::{Latency, MAX_LATENCY_MS, inverse_normal};
pub use model::{ChoosingNumbers, Event, RateSample, RequestKey, TICK};
pub use facts::Facts;
pub use reading::PREDICTIONS;
pub use picture::{Picture, worst_wait_bound};
pub use record::{
    AlertRule, AlertState, AlertWindow, AttemptEnd, AttemptRecord, LANDED_KEPT, Landed, LandedRing, RequestRecord, RouteOutcome, SHOWN_CALLS,
    TimeoutAlert,
};
pub use spec::{ChoosingNumbersConfig, MAX_ALERT_WINDOW_S, MAX_ATTEMPTS, MAX_FAN_OUT, MAX_SEQUENTIAL, PARAMS, RetryPolicy};
pub use reading::ChoosingNumbersWords;
pub use spec::ChoosingNumbersMetrics;

use crate::sim::ScenarioSpec;
use crate::sim::model::ModelOf;

pub static SPEC: ScenarioSpec = ScenarioSpec {
    id: "choosing-numbers",
    title: "Choosing the numbers",
    chapter: "Chapter 1, Part 5: Choosing the numbers",
    summary: "Set a timeout from the dependency's p50, p99 and p99.9, fit retries inside the route's deadline, and \
              watch fan-out turn one call's p99 into the page's p95.",
    params: PARAMS,
    presets: spec::PRESETS,
    metrics: spec::METRICS,
    headline: spec::HEADLINE,
    quotes: reading::QUOTES,
    default_duration_ms: spec::DEFAULT_DURATION_MS,
    sweep: spec::SWEEP,
    model: &ModelOf::<ChoosingNumbers>::NEW,
};
