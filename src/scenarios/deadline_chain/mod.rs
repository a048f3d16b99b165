//! Chapter 1, Part 4: "Measured: fixed timeouts vs a propagated budget".
//!
//! One user request crosses three hops: A works 200 ms and calls B, B works 300 ms and calls
//! C, C needs 3 s. The user waits 2 s. In `fixed` mode each call has its own timeout (A→B
//! 1.8 s, B→C 2 s) and nobody listens for its caller hanging up. In `propagated` mode each
//! hop runs the chapter's deadline middleware: it turns the budget it was told into a local
//! deadline (arrival + header − reserve, on a whole-millisecond clock like `Date.now()`),
//! sends `left = deadline − now` with each call and waits `min(left, cap)`, and stops when
//! its caller leaves.
//!
//! `mode` is the pair of two switches, kept as one choice because presets and URLs name it:
//! `budget_header` (the time left travels in `x-request-timeout-ms` and becomes each hop's
//! deadline) and `listen_for_close` (a hop aborts its work or its call when its caller's
//! connection closes). `fixed` turns both off, `propagated` both on; with `fixed` either switch
//! alone shows what that half does. Node gives neither by default: a handler is told of the
//! close by the request's `'close'` event only, and stops only if it passes an `AbortSignal`
//! on (<https://nodejs.org/api/http.html#event-close_2>).
//!
//! Everything happens through events on the queue: requests, answers and connection closes
//! are messages that take `net_ms + handling_ms` to reach the other side's code; work, call
//! timeouts and deadlines are timers that fire `timer_late_ms` late; an abort takes
//! `abort_ms` to reach the code that was working or waiting. Those small delays are what turn
//! the round numbers (200, 300, 1,800 …) into the chapter's measured ones (2,004, 1,448 …).
//!
//! Two toggles make the chapter's run explicit. The chapter's C was told 1,448 ms =
//! 2,000 − 50 − 200 − 300 − 2: one reserve in the whole chain, so A (the edge, which gets no
//! header from the browser) took the user's full budget as its deadline; `edge_reserve`
//! makes A subtract it too. And the chapter's C kept working past its own deadline until B
//! hung up; `stop_at_deadline` makes every hop's work also stop at its own deadline.
//!
//! The real limits at the ends of the ranges: every timeout and budget (at most 30 s) is far
//! below Node's largest timer, 2^31 − 1 ms, past which `setTimeout` fires after 1 ms instead
//! (`tests/real_limits.rs`); the budget header carries whole milliseconds (`header_ms`), as
//! the chapter's `x-request-timeout-ms` does.

mod chapter;
mod facts;
mod lane;
mod message;
mod moment;
mod model;
mod reading;
mod shown;
mod spec;

pub use chapter::{CHAPTER_FIXED, CHAPTER_PROPAGATED, ChapterRun, TableCell, TableClaim, TableLine, TableRow};
pub use lane::{Answer, Lane, Mark, MarkKind, Phase, Reason, StoppedWaiting, UserAnswer, UserLane, WorkOutcome};
pub use message::{Message, MsgKind, Party};
pub use model::{DeadlineChain, Event, HOP_NAMES, HOPS};
pub use facts::{CWork, DeadlineChainFacts, GaveUp, HangUp, UserGot};
pub use shown::after_shown;
pub use moment::{HopAnswer, Happened, Moment, kept_working_past_deadline};
pub use spec::{DeadlineChainConfig, Mode, PARAMS};
pub use reading::DeadlineChainWords;
pub use spec::DeadlineChainMetrics;

use crate::sim::ScenarioSpec;
use crate::sim::model::ModelOf;

pub static SPEC: ScenarioSpec = ScenarioSpec {
    id: "deadline-chain",
    title: "A deadline that travels",
    chapter: "Chapter 1, Part 4: Deadlines that travel",
    summary: "A calls B calls C; C needs 3 s, the user waits 2 s. With fixed timeouts C finishes \
              for nobody; with a propagated budget every hop knows what is left and C stops when \
              B hangs up.",
    params: PARAMS,
    presets: spec::PRESETS,
    metrics: spec::METRICS,
    headline: spec::HEADLINE,
    quotes: reading::QUOTES,
    default_duration_ms: spec::DEFAULT_DURATION_MS,
    sweep: spec::SWEEP,
    model: &ModelOf::<DeadlineChain>::NEW,
};
