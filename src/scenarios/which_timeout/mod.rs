//! Chapter 1, Parts 1–2: "a timeout on what?" One outbound call passes through six phases
//! (pool acquire, DNS, TCP connect, TLS handshake, time to first byte, body); a fault makes
//! one of them hang, and every timer the client armed races to end the call. The first to
//! fire decides what the caller sees; where the call was decides whether a retry needs an
//! idempotency key (Chapter 2, Part 2: "sort them by where they failed").
//!
//! Everything happens through events on the queue. The network and the server are plain
//! events (a round trip per DNS answer, SYN/SYN-ACK and TLS 1.3 handshake, half of one for the
//! request and the answer); every timer is a cancellable timer that fires by its own clock:
//!
//! - undici's connect, headers and body timeouts are "fast timers" (see [`UndiciClock`]):
//!   they fire on a tick of undici's own 499 ms clock, which is why the chapter measured
//!   them about half a second late (2,000 ms → 2,502 ms, 1,000 ms → 1,501 ms).
//! - `AbortSignal.timeout` and node:http's `timeout` are Node's own timers: `timer_late_ms` late.
//! - The operating system's give-up on an unanswered connect is the kernel's (on time).
//!
//! What the clients arm, from undici's source (`lib/core/connect.js`, `lib/core/util.js`,
//! `lib/dispatcher/client-h1.js`) and Node's documentation:
//!
//! - fetch: the connect timeout is armed when the socket is created, before the DNS lookup,
//!   and cleared on `secureConnect`, so it covers DNS, TCP and TLS and raises
//!   `UND_ERR_CONNECT_TIMEOUT`. The headers timeout is armed when the request is dispatched on
//!   the connection. When the headers arrive the parser replaces it with the body timeout
//!   (refreshing the same timer when both values are equal), and every body chunk refreshes
//!   the body timeout: it is an idle timer, so a trickle resets it forever.
//! - node:http: no connect, headers or body timeout. Its `timeout` option sets the socket's
//!   idle timer before the socket connects; every read or write resets it, and when it fires
//!   it only emits `'timeout'`. Unless the handler destroys the request (`destroy_on_timeout`),
//!   the request stays open. A connect that is never answered is ended by the OS (`ETIMEDOUT`).
//! - `AbortSignal.timeout` (`total_timeout_ms`, either client) is created before the call, so
//!   it covers everything from the pool wait to the last byte of the body.
//!
//! Where the defaults come from: undici's own (connect 10,000 ms from `buildConnector`,
//! headers and body 300,000 ms), the chapter's Part 2 table (no total timeout, a pool of 10 in
//! the pool-wait run, macOS's 75 s), Linux's `tcp_syn_retries` = 6 (1 + 2 + … + 64 = 127 s) on a
//! kernel before 6.5, the chapter's; `syn_schedule` gives 6.5's linear start (131 s).
//! The small delays are fitted to the chapter's measured table: `timer_late_ms` 1 (Node's
//! timers fire about a millisecond late, so undici's tick is 500 ms) and `error_delay_ms` 2
//! (from the callback that destroys the socket to the caller's `await` rejecting). `rtt_ms` 1
//! is a connect inside one region (Part 1). The model has no randomness: the seed changes
//! nothing.
//!
//! The real limits at the ends of the ranges: `syn_retries` goes to 12, and Linux caps each
//! SYN wait at `TCP_RTO_MAX` (120 s, `net/ipv4/tcp_timer.c`), so 12 retries give up at 847 s,
//! not 2^13 − 1 s (`crate::sim::syn`). Node's timers take up to 2^31 − 1 ms (24.8 days), far
//! past the timeouts' 600 s. A request on a pooled connection to a failed-over address waits,
//! with no client timer, for the kernel's give-up on unacknowledged data: Linux's
//! `tcp_retries2` = 15, 924.6 s (`tcp_model_timeout`, `net/ipv4/tcp_timer.c`); macOS's BSD
//! timers, 12 retransmissions from 1 s capped at 64 s, 511 s (`failover.rs`).
//!
//! The chapter's two 10 s connect timeouts came out differently: 10.5 s against the blackhole,
//! 10.0 s against the server that never speaks TLS. A timer alone in undici's list restarts the
//! clock and cannot fire before 21 × 500 ms = 10.5 s; 10.0 s needs the clock already running
//! (other calls' timers in the list) and ticking just after the call started. The
//! `fetch-no-tls` preset says so (`other_calls`, `tick_phase_ms` 0); the reader can move the
//! phase and watch the same timeout fire anywhere from 10.0 to 10.5 s.
//!
//! Choices where the chapter is silent: the call is to an https:// URL on a new connection (so
//! all six phases happen); a healthy handler answers in 1 ms with the whole body; with
//! `pool-full` the hung calls hold their connections for the whole run; with `silent` the
//! handler never finishes (so the server did not do the work, and the client cannot know).

mod chapter;
mod facts;
mod failover;
mod model;
mod reading;
mod spec;
mod undici_clock;

pub use chapter::{Ending, FaultRow, MEASURED, Measured, RetryCell, every_fault, measured_with};
pub use reading::{caller_cell, chapter_cell, first_fired_cell, retry_cell, work_cell};
pub use facts::{
    Caller, FirstFired, NextTimer, NotFirst, OtherTimer, Retry, Server, UndiciTicks, WhichTimeoutFacts, WhyThen, Work,
};
pub use failover::{Failover, FleetSample, HangEnd, MAX_ATTEMPTS, RequestEnd};
pub use facts::{Answered, FailoverFacts, Hangs, Lookup, PoolFull, Pooled};
pub use model::{ArmedTimer, CallError, Event, Outcome, Phase, PhaseSpan, TimerClock, TimerKind, WhichTimeout};
pub use spec::{Client, Fault, Os, PARAMS, WhichTimeoutConfig};
pub use undici_clock::{TICK_MS, UndiciClock, ticks_for};
pub use reading::WhichTimeoutWords;
pub use spec::WhichTimeoutMetrics;

use crate::sim::ScenarioSpec;
use crate::sim::model::ModelOf;

pub static SPEC: ScenarioSpec = ScenarioSpec {
    id: "which-timeout",
    title: "Which timeout fires?",
    chapter: "Chapter 1, Parts 1–2: One call has six phases; What Node 22 actually does",
    summary: "One call through pool, DNS, connect, TLS, first byte and body. Pick what goes wrong and which \
              timers the client sets, and watch them race: which fires first, how late, what the caller sees, \
              and whether a retry needs an idempotency key.",
    params: PARAMS,
    presets: spec::PRESETS,
    metrics: spec::METRICS,
    headline: spec::HEADLINE,
    quotes: reading::QUOTES,
    default_duration_ms: spec::DEFAULT_DURATION_MS,
    sweep: spec::SWEEP,
    model: &ModelOf::<WhichTimeout>::NEW,
};
