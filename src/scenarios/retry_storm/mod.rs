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
//!
//! Chapter 2, Breaks 2 and 5 add what the answers put in front of the provider. A circuit
//! breaker (`breaker`, per provider, the model's one downstream) watches the calls that reached
//! the provider; failures are resets, calls failed while it was down and 503s. By default
//! (`breaker_trip` = `ratio`) it opens at a failure that leaves at least `breaker_failure_pct`
//! of the calls that ended within `breaker_window_ms` failed, once `breaker_min_calls` ended in
//! it: Hystrix's defaults, 50% of at least 20 calls in a 10 s rolling window (Polly v8 and
//! resilience4j check at each failure too; Hystrix reads a snapshot every 500 ms). With
//! `consecutive` it opens after `breaker_failures` failures in a row, which any success resets:
//! Polly's classic `CircuitBreaker`. While open it fails every attempt at once without sending
//! it; after `breaker_cooldown_ms` (Hystrix's and Polly's 5 s) the next call is the one
//! half-open probe, whose success closes it (counting afresh) and whose failure opens it for
//! another cool-down. The ends of the ranges are within the libraries' own: a share of 1–100%
//! (Hystrix's errorThresholdPercentage; Polly's FailureRatio is (0, 1]), a minimum of 1 to 1,000
//! calls (Hystrix's requestVolumeThreshold has no floor; Polly's MinimumThroughput starts at 2),
//! a window of 0.1–60 s (Hystrix's rolling window is any length; Polly's SamplingDuration
//! 0.5 s to a day). A healthy provider that answers 5% of calls with a 503 never opens it.
//! Accept as pending (`pending`): an action whose attempts all failed is accepted as a pending
//! order, and a worker sends the oldest one every `1 / rate` s; a call that fails puts its order
//! back at the head. Its rate ramps (`drain_ramp` = `aimd`, the chapter's "at a fixed rate below
//! the provider's limit, ramping up, not all at once"): 1 call/s to start, +1 for each call that
//! succeeds up to `drain_rate`, halved on each that fails, as TCP's congestion control does; or
//! `fixed`, `drain_rate` from the first call (BullMQ's rate limiter). The worker's calls go
//! through the breaker like the clients'.
//!
//! The real limits at the ends of the ranges: the exponential and jittered backoffs double from
//! `base_ms` and stop at `cap_ms`, whose 120 s top is gRPC's own `MAX_BACKOFF` (gRPC's
//! connection-backoff spec; the AWS SDKs' standard mode stops at 20 s, the OpenAI SDKs at 8 s),
//! and with 20 attempts of up to 10 s bases no wait passes the cap (`tests/real_limits.rs`).
//! `retry_after_s` stops at 59 s, as the SDKs honour a Retry-After only under a minute; the
//! breaker's window and cool-down (60 s, 120 s) are Hystrix's and opossum's settings, whose
//! defaults (10 s, 5 s) are well inside them.

mod breaker;
mod budget;
mod client;
mod facts;
mod model;
mod pending;
mod picture;
mod reading;
mod spec;
mod ticks;

pub use breaker::{Admit, Breaker, BreakerState, Caller, Trip};
pub use budget::BudgetWindow;
pub use client::{Attempt, Client, ClientState, ClientsNow, Leaf, MOST_LEAVES, Outcome};
pub use model::{Counts, Event, RetryStorm};
pub use pending::{Pending, PendingCounts};
pub use picture::{ClientNow, Fan, Picture};
pub use facts::{
    Backoff, BreakerFacts, BreakerNow, BudgetWhy, LinedUp, OutageRetries, PendingFacts, Phase, RetriesEnded, RetryAfter,
    RetryStormFacts,
};
pub use reading::{NEAR, PREDICTIONS, prediction};
pub use spec::{BreakerTrip, DrainRamp, MAX_LAYERS, Mode, PARAMS, RetryAfterKind, RetryStormConfig, TICK};
pub use ticks::{MAX_WAVES, TickNow, TickSample, Wave};
pub use reading::RetryStormWords;
pub use spec::RetryStormMetrics;

use crate::sim::ScenarioSpec;
use crate::sim::model::ModelOf;

pub static SPEC: ScenarioSpec = ScenarioSpec {
    id: "retry-storm",
    title: "Retry storm",
    chapter: "Chapter 2, Part 1: The load half",
    summary: "A provider goes down, then comes back able to take a fixed number of calls per 100 ms tick. \
              Compare the peak after recovery with that capacity.",
    params: PARAMS,
    presets: spec::PRESETS,
    metrics: spec::METRICS,
    headline: spec::HEADLINE,
    quotes: reading::QUOTES,
    default_duration_ms: spec::DEFAULT_DURATION_MS,
    sweep: spec::SWEEP,
    model: &ModelOf::<RetryStorm>::NEW,
};
