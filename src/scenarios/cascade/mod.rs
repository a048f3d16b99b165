//! Chapter 1, Part 3, "The measured run": one hung dependency takes down a healthy route.
//!
//! An API has two routes. `/home` calls recommendations and price in parallel; `/checkout`
//! calls only price. Both reach the same downstream host through one client pool of
//! `pool_size` connections (undici's `connections: 20`). At `recs_stops_at_ms` (0 s)
//! recommendations stops answering while price stays healthy. Every hung recommendations call
//! keeps its connection, so after about 20 /home requests the pool is full of calls that will
//! never return, and every later call, /checkout's among them, waits in the pool's queue until
//! its caller gives up. Nothing here is special-cased: the chapter's table comes out of the
//! pool, the waits and the timers.
//!
//! Variants: `timeout` aborts recommendations after `recs_timeout_ms` (the aborted request's
//! connection is destroyed, as undici does, and the page renders without them); `bulkhead`
//! gives recommendations a pool of its own; `both` does both. `unbounded_pool` removes the
//! connection limit (node:http's default agent): then every hung call opens its own connection
//! on the downstream.
//!
//! When a /checkout client gives up, Node's handler is not told: the request's `'close'`
//! event fires, but nothing aborts the handler's own fetch unless the handler passes a signal
//! tied to it (Node's docs, <https://nodejs.org/api/http.html#event-close_2>; undici aborts a
//! request only through its `signal`, `lib/api/api-request.js`). So by default
//! (`cancel_on_client_close` off) the abandoned handler's price call stays queued for a
//! connection and, once it gets one, holds it until price answers: abandoned work competes with
//! the checkouts still waiting. `cancel_on_client_close` is a handler that listens for the close
//! and aborts its call, as deadline-chain's handlers can. The chapter's runs have no
//! /checkout that gives up with its price call still queued behind a connection that frees, so
//! its numbers come out the same either way.
//!
//! The real limits at the ends of the ranges: the pool is undici's `connections` per origin,
//! which has no cap of its own (null: unbounded, the `unbounded_pool` toggle), so 200 is a
//! slider's end, not the client's. Every timeout (at most 120 s) is far below Node's largest
//! timer, 2^31 − 1 ms (24.8 days, `TIMEOUT_MAX` in `lib/internal/timers.js`), which
//! `tests/real_limits.rs` checks for every millisecond parameter of every scenario.

mod chapter;
mod charts;
mod facts;
mod load;
mod model;
mod moment;
mod picture;
mod pool;
mod reading;
mod requests;
mod spec;
mod tail;

pub use chapter::{CHAPTER_TABLE, ChapterRow, GUIDED_STEPS, GuidedStep};
pub use facts::{CascadeFacts, Cause, CheckoutFacts, Little, PoolFacts, TourFacts};
pub use charts::{Charts, CheckoutOutcome, CheckoutSample, HomeSample, PoolSample};
pub use model::{CHECKOUT_LOG_CAPACITY, Cascade, Event, SAMPLE_EVERY};
pub use moment::{Counts, Moment};
pub use picture::{Held, Holder, MOST_SLOTS_DRAWN, MOST_WAITING_DRAWN, Picture, PoolPicture, Waiter};
pub use pool::{Pool, PoolNow, Slot};
pub use requests::{CallKey, CheckoutKey, HomeKey};
pub use spec::{Arrivals, CascadeConfig, PARAMS, Variant};
pub use reading::CascadeWords;
pub use spec::CascadeMetrics;

use crate::sim::ScenarioSpec;
use crate::sim::model::ModelOf;

pub static SPEC: ScenarioSpec = ScenarioSpec {
    id: "cascade",
    title: "The shared-pool cascade",
    chapter: "Chapter 1, Part 3: The measured run",
    summary: "In the chapter's run recommendations stops answering, /home's hung calls fill the shared \
              connection pool, and /checkout, which never calls recommendations, fails. Pick a fix.",
    params: PARAMS,
    presets: spec::PRESETS,
    metrics: spec::METRICS,
    headline: spec::HEADLINE,
    quotes: reading::QUOTES,
    default_duration_ms: spec::DEFAULT_DURATION_MS,
    sweep: spec::SWEEP,
    model: &ModelOf::<Cascade>::NEW,
};
