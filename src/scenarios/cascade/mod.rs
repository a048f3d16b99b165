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

mod reading;

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use slotmap::{SlotMap, new_key_type};

use crate::sim::model::ModelOf;
use crate::sim::params::Config;
use crate::sim::rng::{SimRng, ms_to_us};
use crate::sim::scenario::SweepDefault;
use crate::sim::stats::{Histogram, Series};
use crate::sim::{
    EventQueue, MS, MetricSpec, Micros, Model, ParamSpec, Preset, SEC, ScenarioSpec, TimerKey, Value,
};

/// Charts sample every 20 ms: the pool fills within 0.4 s, which needs finer than 100 ms.
pub const SAMPLE_EVERY: Micros = 20 * MS;
/// `home_in_flight_growth_per_s` is the slope over the last 5 s of the load.
const GROWTH_WINDOW: Micros = 5 * SEC;
const CHART_CAPACITY: usize = 1200;
/// The most recent /checkout outcomes kept for drawing one mark per request.
pub const CHECKOUT_LOG_CAPACITY: usize = 1024;

crate::choice! {
    /// What protects the API from a recommendations service that stops answering.
    pub enum Variant {
        NoTimeout = ("no-timeout", "No timeout", "One shared pool, and /home waits for recommendations as long as it takes."),
        Timeout = ("timeout", "Timeout", "Recommendations gets a timeout, and the page renders without them when it expires."),
        Bulkhead = ("bulkhead", "Separate pool", "Recommendations gets a connection pool of its own, but no timeout."),
        Both = ("both", "Timeout and separate pool", "The timeout and the separate pool together."),
    }
}

impl Variant {
    /// Whether recommendations calls are aborted after `recs_timeout_ms`.
    pub fn has_timeout(self) -> bool {
        matches!(self, Variant::Timeout | Variant::Both)
    }

    /// Whether recommendations has a pool of its own (a bulkhead).
    pub fn has_bulkhead(self) -> bool {
        matches!(self, Variant::Bulkhead | Variant::Both)
    }
}

crate::choice! {
    /// How the load generator spaces its requests.
    pub enum Arrivals {
        Paced = ("paced", "Paced", "The load generator fires on a timer, evenly spaced, as in the chapter's run."),
        Poisson = ("poisson", "Random", "Requests come at random moments, independently of each other, at the same average rate."),
    }
}

crate::config! {
    /// What the cascade model reads from its parameters.
    ///
    /// Where the defaults come from:
    /// - From the chapter: a pool of 20, 50 /home and 10 /checkout per second for 10 s, price 5 ms,
    ///   recommendations silent from 0 s, a 300 ms recommendations timeout, /checkout's 5 s.
    /// - `timer_late_ms` 0.85: the chapter's in-flight count grew "about 48 per second", not 50,
    ///   and reached 479 in 10 s: a 20 ms tick that is re-armed about 0.85 ms late (1000 / 20.85 =
    ///   48/s). The same lateness leaves 99 checkouts in 10 s (100.85 ms apart), as in the chapter.
    /// - `net_ms` 0.4, `handler_ms` 1 and `jitter_cv` 0.5 (same host, Node HTTP): chosen so a healthy
    ///   checkout takes about 8 ms (the chapter's "8 ms, fine") and the slowest of 99 about 10 ms
    ///   (its p99 of 10 to 11 ms; with 99 requests p99 is the maximum).
    /// - `render_ms` 2, `connect_ms` 0.3, `recs_ms` 30, `recs_pool_size` 20: not in the chapter;
    ///   small plausible values. Render adds to /home's lifetime with the timeout (15 in flight).
    pub struct CascadeConfig in PARAMS {
        pub variant: Variant = ParamSpec::choice("variant", "Fix", Variant::OPTIONS, Variant::NoTimeout as usize,
            "What protects /checkout when recommendations stops answering."),
        pub recs_timeout_ms: f64 = ParamSpec::number("recs_timeout_ms", "Recommendations timeout", "ms", 300.0, (10.0, 10_000.0, 10.0),
            "Used when the fix has a timeout: how long /home waits for recommendations, the wait for a \
             connection included. Then the call is cancelled, its connection closed, and the page renders without them."),
        pub pool_size: u32 = ParamSpec::number("pool_size", "Pool size", "connections", 20.0, (1.0, 200.0, 1.0),
            "How many connections the shared pool may open to the downstream host (the chapter's run had 20)."),
        pub recs_pool_size: u32 = ParamSpec::number("recs_pool_size", "Recommendations pool size", "connections", 20.0, (1.0, 200.0, 1.0),
            "Used when the fix has a separate pool: how many connections recommendations' own pool may open."),
        pub unbounded_pool: bool = ParamSpec::toggle("unbounded_pool", "Unbounded pool", false,
            "No limit on connections, as with Node's built-in HTTP client by default: a call that finds no \
             free connection opens a new one, so every hung call is one more open connection on the downstream."),
        pub home_rate: f64 = ParamSpec::number("home_rate", "/home rate", "req/s", 50.0, (0.0, 200.0, 1.0),
            "/home requests per second from the load generator."),
        pub checkout_rate: f64 = ParamSpec::number("checkout_rate", "/checkout rate", "req/s", 10.0, (0.0, 100.0, 1.0),
            "/checkout requests per second from the load generator."),
        pub load_ms: f64 = ParamSpec::number("load_ms", "Load lasts", "ms", 10_000.0, (100.0, 600_000.0, 100.0),
            "How long the load generator sends. The run goes on afterwards so waiting checkouts can finish."),
        pub arrivals: Arrivals = ParamSpec::choice("arrivals", "Arrivals", Arrivals::OPTIONS, Arrivals::Paced as usize,
            "How the load generator spaces the requests it sends."),
        pub timer_late_ms: f64 = ParamSpec::number("timer_late_ms", "Timer lateness", "ms", 0.85, (0.0, 5.0, 0.05),
            "How late Node's timers fire on average (anywhere from none to twice this). Each tick of the paced \
             load generator is set from the late one before it, so the load comes a little slower, and every \
             timeout in the run fires this much later."),
        pub checkout_timeout_ms: f64 = ParamSpec::number("checkout_timeout_ms", "/checkout gives up after", "ms", 5_000.0, (100.0, 60_000.0, 100.0),
            "How long a /checkout client waits for its answer, the wait for a connection included. When it \
             gives up, its handler goes on unless it cancels on the client's close."),
        pub cancel_on_client_close: bool = ParamSpec::toggle("cancel_on_client_close", "Cancel when the client leaves", false,
            "The /checkout handler listens for its client's close and aborts its price call (out of the pool's queue, \
             or its connection closed). Off, as in Node by default: the abandoned call still waits for a connection \
             and uses it."),
        pub price_ms: f64 = ParamSpec::number("price_ms", "Price latency", "ms", 5.0, (0.5, 1_000.0, 0.5),
            "How long the price endpoint takes to answer (its timer fires late like every other). It stays \
             healthy throughout."),
        pub recs_stops_at_ms: f64 = ParamSpec::number("recs_stops_at_ms", "Recommendations stops at", "ms", 0.0, (0.0, 600_000.0, 100.0),
            "From this moment recommendations accepts requests and never answers them."),
        pub recs_ms: f64 = ParamSpec::number("recs_ms", "Recommendations latency", "ms", 30.0, (1.0, 5_000.0, 1.0),
            "How long recommendations takes while it still answers."),
        pub net_ms: f64 = ParamSpec::number("net_ms", "Network per hop", "ms", 0.4, (0.0, 50.0, 0.1),
            "One way across one hop (client to API, API to downstream), HTTP parsing included."),
        pub handler_ms: f64 = ParamSpec::number("handler_ms", "Handler work", "ms", 1.0, (0.0, 100.0, 0.1),
            "CPU time of a handler before it makes its downstream calls (routing, validation, logging)."),
        pub render_ms: f64 = ParamSpec::number("render_ms", "/home render", "ms", 2.0, (0.0, 1_000.0, 0.5),
            "Time /home needs to render once its calls have settled."),
        pub connect_ms: f64 = ParamSpec::number("connect_ms", "Connect", "ms", 0.3, (0.0, 100.0, 0.1),
            "Opening a new connection to the downstream (TCP handshake); idle connections are reused."),
        pub jitter_cv: f64 = ParamSpec::number("jitter_cv", "Spread of network and handler times", "", 0.5, (0.0, 2.0, 0.05),
            "How much network and handler times vary: 0 means always the average; 0.5 means a typical time \
             is about half the average above or below it; higher values add rare very slow ones."),
    }
}

/// A run covers the load and its tail: a checkout sent last may wait its whole timeout.
const TAIL_MS: u64 = 500;
const DEFAULT_DURATION_MS: u64 = 15_500;

pub static SPEC: ScenarioSpec = ScenarioSpec {
    id: "cascade",
    title: "The shared-pool cascade",
    chapter: "Chapter 1, Part 3: The measured run",
    summary: "In the chapter's run recommendations stops answering, /home's hung calls fill the shared \
              connection pool, and /checkout, which never calls recommendations, fails. Pick a fix.",
    params: PARAMS,
    presets: &[
        Preset {
            id: "no-timeout",
            label: "No timeout",
            description: "No timeout and one shared pool of 20, as in the chapter's measured run (the chapter: 479 /home in flight, 4 of 99 checkouts succeeded).",
            values: &[("variant", "no-timeout"), ("unbounded_pool", "false")],
        },
        Preset {
            id: "timeout",
            label: "300 ms timeout",
            description: "A 300 ms timeout on recommendations; the page renders without them (the chapter: 15 /home in flight, flat; 99 of 99 checkouts).",
            values: &[("variant", "timeout"), ("unbounded_pool", "false")],
        },
        Preset {
            id: "bulkhead",
            label: "Separate pool",
            description: "A separate pool for recommendations, no timeout (the chapter: 480 /home in flight, still growing; 99 of 99 checkouts).",
            values: &[("variant", "bulkhead"), ("unbounded_pool", "false")],
        },
        Preset {
            id: "both",
            label: "Timeout and separate pool",
            description: "A 300 ms timeout on recommendations and a separate pool for them.",
            values: &[("variant", "both"), ("unbounded_pool", "false")],
        },
        Preset {
            id: "unbounded-pool",
            label: "No connection limit",
            description: "No timeout, and no limit on connections: a call that finds no free connection opens a new one.",
            values: &[("variant", "no-timeout"), ("unbounded_pool", "true")],
        },
    ],
    metrics: &[
        MetricSpec {
            key: "home_in_flight_end",
            label: "/home in flight after the load",
            unit: "req",
            help: "/home handlers still running when the load stopped (the chapter's 'after 10 s'); until then, now.",
        },
        MetricSpec {
            key: "home_in_flight_growth_per_s",
            label: "/home in-flight growth",
            unit: "req/s",
            help: "How fast /home in flight changed over the last 5 s of the load, per second: near 0 is flat.",
        },
        MetricSpec {
            key: "checkout_ok",
            label: "/checkout succeeded",
            unit: "req",
            help: "Checkouts answered before the client gave up.",
        },
        MetricSpec {
            key: "checkout_failed",
            label: "/checkout failed",
            unit: "req",
            help: "Checkouts whose client gave up.",
        },
        MetricSpec {
            key: "checkout_p99_ms",
            label: "/checkout p99",
            unit: "ms",
            help: "The wait 99 in 100 /checkout clients did not exceed; a failure counts as the time until its client gave up.",
        },
        MetricSpec {
            key: "pool_in_use_max",
            label: "Shared pool, most in use",
            unit: "connections",
            help: "Most connections of the shared pool held by calls at once.",
        },
        MetricSpec {
            key: "downstream_open_connections_max",
            label: "Downstream connections, most",
            unit: "connections",
            help: "Most connections open on the downstream host at once, from every pool.",
        },
        MetricSpec {
            key: "home_arrived",
            label: "/home arrived",
            unit: "req",
            help: "/home requests sent by the load generator.",
        },
        MetricSpec {
            key: "home_done",
            label: "/home answered",
            unit: "req",
            help: "/home requests whose page was rendered and sent.",
        },
        MetricSpec {
            key: "home_in_flight_now",
            label: "/home in flight now",
            unit: "req",
            help: "/home handlers running now.",
        },
        MetricSpec {
            key: "checkout_arrived",
            label: "/checkout arrived",
            unit: "req",
            help: "/checkout requests sent by the load generator.",
        },
        MetricSpec {
            key: "checkout_waiting",
            label: "/checkout waiting",
            unit: "req",
            help: "Checkouts neither answered nor given up on yet.",
        },
        MetricSpec {
            key: "checkout_p50_ms",
            label: "/checkout p50",
            unit: "ms",
            help: "The wait half of the /checkout clients did not exceed.",
        },
        MetricSpec {
            key: "recs_timed_out",
            label: "Recommendations timed out",
            unit: "calls",
            help: "Recommendations calls aborted by their timeout (the page rendered without them).",
        },
        MetricSpec {
            key: "recs_pool_in_use_max",
            label: "Recommendations pool, most in use",
            unit: "connections",
            help: "With the bulkhead: most connections of the recommendations pool in use at once.",
        },
        MetricSpec {
            key: "pool_waiting_max",
            label: "Shared pool, longest queue",
            unit: "calls",
            help: "Most calls waiting at once for a connection of the shared pool.",
        },
        MetricSpec {
            key: "pool_exhausted_ms",
            label: "Pool full of hung calls at",
            unit: "ms",
            help: "When every connection of the shared pool was first held by a recommendations call (none if it never was).",
        },
        MetricSpec {
            key: "last_checkout_ok_sent_ms",
            label: "Last good checkout sent at",
            unit: "ms",
            help: "When the latest successful /checkout was sent (none if none succeeded).",
        },
        MetricSpec {
            key: "first_checkout_failed_ms",
            label: "First checkout failed at",
            unit: "ms",
            help: "When the first /checkout client gave up (none if none did).",
        },
        MetricSpec {
            key: "downstream_open_connections",
            label: "Downstream connections now",
            unit: "connections",
            help: "Connections open on the downstream host now.",
        },
        MetricSpec {
            key: "checkout_queued",
            label: "/checkout that waited for a connection",
            unit: "req",
            help: "Checkouts whose price call found every connection of the shared pool taken and had to wait for one.",
        },
        MetricSpec {
            key: "checkout_failed_queued",
            label: "/checkout failed still waiting for a connection",
            unit: "req",
            help: "Checkouts whose client gave up while their price call was still waiting for a connection: they never left the process.",
        },
        MetricSpec {
            key: "checkout_abandoned_calls",
            label: "Price calls for clients gone",
            unit: "calls",
            help: "/checkout price calls answered after their client had given up: a connection used for an answer nobody reads.",
        },
    ],
    headline: &["home_in_flight_end", "checkout_ok", "checkout_failed", "checkout_p99_ms"],
    default_duration_ms: DEFAULT_DURATION_MS,
    sweep: SweepDefault {
        x: "recs_timeout_ms",
        from: 50.0,
        to: 5000.0,
        steps: 15,
        by: Some("variant"),
        metric: "checkout_ok",
    },
    model: &ModelOf::<Cascade>::NEW,
};

/// One moment of the chapter's run, for the page's guided mode ("1 / 7"). Each column is what
/// that part of the system is doing at `time_ms` under the defaults (variant `no-timeout`);
/// the tests check every number here against the model.
#[derive(Clone, Copy, Debug)]
pub struct GuidedStep {
    pub time_ms: u64,
    pub title: &'static str,
    pub recs: &'static str,
    pub home: &'static str,
    pub pool: &'static str,
    pub checkout: &'static str,
    pub explanation: &'static str,
}

/// The chapter's seven-step timeline of the `no-timeout` run. Step 1 is the chapter's own row.
pub static GUIDED_STEPS: [GuidedStep; 7] = [
    GuidedStep {
        time_ms: 0,
        title: "Recommendations stops answering",
        recs: "stops answering at 0 s",
        home: "50 per second arrive, each awaits recs",
        pool: "0 of 20 used",
        checkout: "8 ms, fine",
        explanation: "Recommendations accepts every request and never answers: no error, no refusal, \
                      nothing for a health check to see. /home awaits it without a timeout.",
    },
    GuidedStep {
        time_ms: 200,
        title: "Hung calls pile up",
        recs: "9 calls open, none answered",
        home: "9 in flight, all waiting on recs",
        pool: "9 of 20 held by recs; price calls come and go",
        checkout: "8 ms, fine",
        explanation: "Each /home takes a connection for its recommendations call and keeps it. Little's law with \
                      an infinite duration: in flight grows by the arrival rate, about 48 per second.",
    },
    GuidedStep {
        time_ms: 430,
        title: "The pool is full",
        recs: "20 calls open, none will return",
        home: "20 in flight; the 20th's price call finds no connection",
        pool: "20 of 20 held by recs",
        checkout: "the one sent at 0.4 s got one of the last free connections",
        explanation: "About 0.42 s in, the 20th /home's recommendations call takes the last connection. \
                      From now on nothing ever returns a connection to the pool.",
    },
    GuidedStep {
        time_ms: 510,
        title: "/checkout starts waiting",
        recs: "still 20 open requests, CPU idle",
        home: "24 in flight, growing",
        pool: "20 of 20; every new call queues",
        checkout: "waits for a connection, never leaves the process",
        explanation: "/checkout never calls recommendations, yet its price call queues behind /home's calls \
                      for a connection that will not come back. Price itself is healthy and idle.",
    },
    GuidedStep {
        time_ms: 5_510,
        title: "The first checkout fails",
        recs: "still 20 open requests",
        home: "264 in flight",
        pool: "20 of 20; over 500 calls queued",
        checkout: "gave up after 5 s: looks like a slow server",
        explanation: "The checkout sent at 0.5 s gives up after 5 s without ever reaching the downstream. \
                      Its error looks exactly like a slow price service: log the pool wait separately.",
    },
    GuidedStep {
        time_ms: 10_000,
        title: "The load stops",
        recs: "20 open requests the whole time",
        home: "479 in flight, grew about 48 per second",
        pool: "20 of 20",
        checkout: "4 succeeded, 45 failed, 50 still waiting",
        explanation: "The downstream was never overloaded: it held 20 open requests and its graphs look fine. \
                      The failure is entirely waiting, inside the caller.",
    },
    GuidedStep {
        time_ms: 15_010,
        title: "The last checkout fails",
        recs: "20 open requests, forever",
        home: "479 still in flight; none will ever finish",
        pool: "20 of 20, forever",
        checkout: "4 of 99 succeeded (the first 0.4 s), 95 failed",
        explanation: "The healthy endpoint died first in user terms. A shared, bounded pool plus an unbounded \
                      wait equals a full pool. A timeout bounds the wait; a bulkhead bounds who shares it.",
    },
];

/// One row of the chapter's table: the fix as the chapter names it, and what its measured run
/// gave (/home in flight after 10 s, /checkout succeeded, /checkout failed). The tests check
/// each against the model at the chapter's settings.
#[derive(Clone, Copy, Debug)]
pub struct ChapterRow {
    pub variant: Variant,
    pub fix: &'static str,
    pub home: &'static str,
    pub ok: &'static str,
    pub failed: &'static str,
}

/// The chapter's table, as printed.
pub static CHAPTER_TABLE: [ChapterRow; 3] = [
    ChapterRow {
        variant: Variant::NoTimeout,
        fix: "No timeout, one shared pool",
        home: "479, growing about 48 per second",
        ok: "4 of 99 (the first 0.4 s)",
        failed: "95",
    },
    ChapterRow {
        variant: Variant::Timeout,
        fix: "300 ms timeout on recommendations, page renders without them",
        home: "15, flat",
        ok: "99 of 99, p99 10 ms",
        failed: "0",
    },
    ChapterRow {
        variant: Variant::Bulkhead,
        fix: "Separate pool for recommendations, no timeout",
        home: "480, still growing",
        ok: "99 of 99, p99 11 ms",
        failed: "0",
    },
];

impl CascadeConfig {
    /// The row of the chapter's table this configuration reproduces: the chapter's settings in
    /// every parameter but the fix, and a fix the table has a row for. None otherwise.
    pub fn chapter_row(&self) -> Option<&'static ChapterRow> {
        let chapter = CascadeConfig { variant: self.variant, ..CascadeConfig::defaults() };
        if *self != chapter {
            return None;
        }
        CHAPTER_TABLE.iter().find(|r| r.variant == self.variant)
    }

    /// Whether this is the run the chapter's timeline (the guided tour) describes.
    pub fn is_chapter_timeline(&self) -> bool {
        *self == CascadeConfig::defaults()
    }
}

/// A pool at one moment: what its status line and the tour read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoolNow {
    /// The connection limit; None when unbounded.
    pub limit: Option<u32>,
    pub in_use: u32,
    pub recs_held: u32,
    /// Connections held by recommendations calls that will never be answered.
    pub hung: u32,
    pub waiting: u32,
    pub open: u32,
}

impl PoolNow {
    fn of(p: &Pool) -> Self {
        Self {
            limit: p.limit,
            in_use: p.in_use,
            recs_held: p.recs_held,
            hung: p.hung,
            waiting: p.waiting,
            open: p.open,
        }
    }

    /// Every connection it may open is held by a recommendations call.
    pub fn full_of_recs(&self) -> bool {
        self.limit.is_some_and(|l| l > 0 && self.recs_held == l)
    }

    /// Every connection it may open is held by a call that will never be answered.
    pub fn full_of_hung(&self) -> bool {
        self.limit.is_some_and(|l| l > 0 && self.hung == l)
    }
}

/// The run at one moment, as the guided tour compares it with the chapter's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Moment {
    pub at: Micros,
    pub counts: Counts,
    pub shared: PoolNow,
    /// The bulkhead's pool (None without one).
    pub recs_pool: Option<PoolNow>,
    pub recs_timed_out: u64,
    /// /checkout price calls waiting for a shared connection.
    pub checkout_queued: u32,
    /// What the latest successful /checkout waited, if any had succeeded.
    pub last_ok_latency: Option<Micros>,
    pub downstream_open: u32,
}

/// What a connection slot of a pool is doing, for drawing the pool slot by slot.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Slot {
    /// No connection open in this slot.
    Closed,
    /// Open, kept alive, free for the next call.
    Idle,
    /// Held by a recommendations call.
    Recs,
    /// Held by /home's price call.
    HomePrice,
    /// Held by /checkout's price call.
    CheckoutPrice,
}

/// A client connection pool (undici Pool): reuses the lowest idle connection, else opens a new
/// one while under its limit, else queues the call (FIFO).
#[derive(Clone, Debug)]
pub struct Pool {
    limit: Option<u32>,
    slots: Vec<Slot>,
    idle: BinaryHeap<Reverse<u32>>,
    closed: BinaryHeap<Reverse<u32>>,
    /// Waiting calls; entries of calls aborted while queued are skipped when reached.
    queue: VecDeque<CallKey>,
    waiting: u32,
    in_use: u32,
    recs_held: u32,
    /// Connections held by recommendations calls that will never be answered.
    hung: u32,
    /// When every connection it may open was first held by such a call.
    full_of_hung_at: Option<Micros>,
    open: u32,
    in_use_max: u32,
    waiting_max: u32,
}

impl Pool {
    fn new(limit: Option<u32>) -> Self {
        let n = limit.unwrap_or(0);
        Self {
            limit,
            slots: vec![Slot::Closed; n as usize],
            idle: BinaryHeap::new(),
            closed: (0..n).map(Reverse).collect(),
            queue: VecDeque::new(),
            waiting: 0,
            in_use: 0,
            recs_held: 0,
            hung: 0,
            full_of_hung_at: None,
            open: 0,
            in_use_max: 0,
            waiting_max: 0,
        }
    }

    /// The connection limit; None when unbounded.
    pub fn limit(&self) -> Option<u32> {
        self.limit
    }
    /// Every slot's state (an unbounded pool has as many slots as it ever had connections).
    pub fn slots(&self) -> &[Slot] {
        &self.slots
    }
    /// Connections held by a call now.
    pub fn in_use(&self) -> u32 {
        self.in_use
    }
    /// Connections held by recommendations calls now.
    pub fn recs_held(&self) -> u32 {
        self.recs_held
    }
    /// Calls waiting for a connection now.
    pub fn waiting(&self) -> u32 {
        self.waiting
    }
    /// Connections open now (in use or idle).
    pub fn open(&self) -> u32 {
        self.open
    }
    pub fn in_use_max(&self) -> u32 {
        self.in_use_max
    }
    pub fn waiting_max(&self) -> u32 {
        self.waiting_max
    }
    /// When every connection it may open was first held by a recommendations call that will
    /// never be answered (None: never).
    pub fn full_of_hung_at(&self) -> Option<Micros> {
        self.full_of_hung_at
    }

    /// Every connection the pool may open is held by a recommendations call.
    fn full_of_recs(&self) -> bool {
        self.limit.is_some_and(|l| l > 0 && self.recs_held == l)
    }

    /// A connection for a new call: `(slot, freshly opened)`, or None when the call must queue.
    fn take(&mut self) -> Option<(u32, bool)> {
        if let Some(Reverse(s)) = self.idle.pop() {
            return Some((s, false));
        }
        let slot = match self.closed.pop() {
            Some(Reverse(s)) => s,
            None if self.limit.is_none() => {
                self.slots.push(Slot::Closed);
                self.slots.len() as u32 - 1
            }
            None => return None,
        };
        self.open += 1;
        Some((slot, true))
    }

    fn hold(&mut self, slot: u32, kind: CallKind) {
        self.slots[slot as usize] = kind.slot();
        self.in_use += 1;
        self.in_use_max = self.in_use_max.max(self.in_use);
        if matches!(kind, CallKind::Recs(_)) {
            self.recs_held += 1;
        }
    }

    fn unhold(&mut self, slot: u32) {
        if self.slots[slot as usize] == Slot::Recs {
            self.recs_held -= 1;
        }
        self.in_use -= 1;
    }

    fn enqueue(&mut self, call: CallKey) {
        self.queue.push_back(call);
        self.waiting += 1;
        self.waiting_max = self.waiting_max.max(self.waiting);
    }
}

new_key_type! {
    /// A /home request whose handler is running.
    pub struct HomeKey;
    /// A /checkout request whose client is still waiting.
    pub struct CheckoutKey;
    /// An outbound call, queued for a connection or sent.
    pub struct CallKey;
}

/// The shared pool (price, and recommendations unless there is a bulkhead).
const SHARED: usize = 0;
/// The bulkhead's pool for recommendations.
const RECS_POOL: usize = 1;

/// Which call it is, and the request whose handler made it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum CallKind {
    Recs(HomeKey),
    HomePrice(HomeKey),
    CheckoutPrice(CheckoutKey),
}

impl CallKind {
    fn slot(self) -> Slot {
        match self {
            CallKind::Recs(_) => Slot::Recs,
            CallKind::HomePrice(_) => Slot::HomePrice,
            CallKind::CheckoutPrice(_) => Slot::CheckoutPrice,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum CallState {
    /// Waiting in its pool's queue.
    Queued,
    /// Holding connection `slot`; `answer` is the reply on its way (None: it will never come).
    Sent { slot: u32, answer: Option<TimerKey> },
}

/// One outbound call from a handler to the downstream host.
#[derive(Clone, Copy, Debug)]
struct Call {
    kind: CallKind,
    pool: usize,
    state: CallState,
    /// Recommendations' AbortSignal.timeout, with the timeout variants.
    timeout: Option<TimerKey>,
}

#[derive(Clone, Copy, Debug)]
struct Home {
    /// Calls not settled yet (answered or timed out).
    unsettled: u8,
}

#[derive(Clone, Copy, Debug)]
struct Checkout {
    sent: Micros,
    /// The request on its way to the handler, later the answer on its way back: whichever is
    /// pending is dropped when the client gives up.
    in_transit: TimerKey,
    /// The client's timer.
    deadline: TimerKey,
    /// The handler's price call, once the handler runs.
    call: Option<CallKey>,
    /// The client gave up, and the handler, not told, goes on.
    abandoned: bool,
}

/// How one /checkout ended, for drawing a mark per request.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CheckoutOutcome {
    pub sent_ms: f64,
    /// What the client waited: until the answer, or until it gave up.
    pub latency_ms: f64,
    pub ok: bool,
}

/// Every request counted, for conservation checks and stat cards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counts {
    pub home_arrived: u64,
    pub home_done: u64,
    pub home_in_flight: u64,
    pub checkout_arrived: u64,
    pub checkout_ok: u64,
    pub checkout_failed: u64,
    pub checkout_in_flight: u64,
}

/// /home at one sample.
#[derive(Clone, Copy, Debug)]
pub struct HomeSample {
    /// /home handlers in flight.
    pub in_flight: f64,
}

/// The pools at one sample.
#[derive(Clone, Copy, Debug)]
pub struct PoolSample {
    /// Connections of the shared pool held by a call.
    pub shared_in_use: f64,
    /// Connections of the shared pool held by recommendations calls.
    pub shared_recs_held: f64,
    /// Calls waiting for a connection of the shared pool.
    pub shared_waiting: f64,
    /// Connections of the recommendations pool in use (bulkhead only, else 0).
    pub recs_in_use: f64,
    /// Connections open on the downstream host, from every pool.
    pub downstream_open: f64,
}

/// /checkout at one sample.
#[derive(Clone, Copy, Debug)]
pub struct CheckoutSample {
    /// Succeeded so far.
    pub ok: f64,
    /// Failed so far.
    pub failed: f64,
    /// Neither answered nor given up on yet.
    pub waiting: f64,
}

/// Chart data sampled every [`SAMPLE_EVERY`].
pub struct Charts {
    pub home_in_flight: Series<HomeSample>,
    pub pool: Series<PoolSample>,
    pub checkout: Series<CheckoutSample>,
}

#[derive(Clone, Copy, Debug)]
pub enum Event {
    HomeArrives,
    CheckoutArrives,
    /// /home's handler has done its own work and makes its calls.
    HomeHandler(HomeKey),
    /// /checkout's request reaches its handler, which makes its price call.
    CheckoutHandler(CheckoutKey),
    /// A call's answer reaches the handler that made it.
    CallReturns(CallKey),
    /// Recommendations' AbortSignal.timeout fires.
    RecsTimeout(CallKey),
    /// /home's page is rendered and sent.
    HomeResponds(HomeKey),
    /// /checkout's answer reaches its client.
    CheckoutResponds(CheckoutKey),
    /// /checkout's client gives up.
    CheckoutDeadline(CheckoutKey),
    LoadEnds,
    Sample,
}

/// One route's load generator: its own random stream, the mean gap between requests, and
/// when the next one is due (fractional, so paced gaps do not round away).
struct LoadGenerator {
    rng: SimRng,
    gap_us: f64,
    next: f64,
}

impl LoadGenerator {
    fn new(rng: SimRng, rate: f64) -> Self {
        Self { rng, gap_us: if rate > 0.0 { 1e6 / rate } else { 0.0 }, next: 0.0 }
    }

    /// The next request, if it falls inside the load. A paced generator re-arms its interval
    /// timer after each (late) tick, as Node's setInterval does, so lateness adds up.
    fn next(&mut self, arrivals: Arrivals, late_us: f64, load_end: Micros) -> Option<Micros> {
        if self.gap_us <= 0.0 {
            return None;
        }
        let step = match arrivals {
            Arrivals::Poisson => self.rng.exponential(self.gap_us),
            Arrivals::Paced => self.gap_us + late(&mut self.rng, late_us),
        };
        self.next += step;
        let t = libm::round(self.next) as Micros;
        (t < load_end).then_some(t)
    }
}

/// How late a Node timer fires: uniform in [0, 2 × mean).
fn late(rng: &mut SimRng, mean_us: f64) -> f64 {
    if mean_us > 0.0 { rng.between(0.0, 2.0 * mean_us) } else { 0.0 }
}

/// A network or CPU time with the configured spread.
fn jittered(rng: &mut SimRng, mean_us: f64, cv: f64) -> Micros {
    if mean_us <= 0.0 {
        return 0;
    }
    let x = if cv > 0.0 { mean_us * rng.lognormal(1.0, cv) } else { mean_us };
    libm::round(x) as Micros
}

/// The model: an API whose two routes share one connection pool to a downstream host.
pub struct Cascade {
    config: CascadeConfig,
    load_end: Micros,
    recs_timeout: Option<Micros>,
    late_us: f64,
    checkout_timeout: Micros,
    price_us: f64,
    recs_stops_at: Micros,
    recs_us: f64,
    net_us: f64,
    handler_us: f64,
    render: Micros,
    connect: Micros,

    home_load: LoadGenerator,
    checkout_load: LoadGenerator,
    /// Draws for /home's handler and calls.
    home_rng: SimRng,
    /// Draws for /checkout's handler, calls and client timer, apart from /home's so that the
    /// variants see the same checkouts.
    checkout_rng: SimRng,

    pools: [Pool; 2],
    calls: SlotMap<CallKey, Call>,
    homes: SlotMap<HomeKey, Home>,
    checkouts: SlotMap<CheckoutKey, Checkout>,

    home_arrived: u64,
    home_done: u64,
    checkout_arrived: u64,
    checkout_ok: u64,
    checkout_failed: u64,
    recs_timed_out: u64,
    downstream_open_max: u32,
    pool_exhausted_at: Option<Micros>,
    last_ok_sent: Option<Micros>,
    first_failed_at: Option<Micros>,
    checkout_latency: Histogram,
    checkout_log: VecDeque<CheckoutOutcome>,

    /// (time, /home in flight) over the last [`GROWTH_WINDOW`] of the load.
    growth: VecDeque<(Micros, u64)>,
    /// /home in flight and its growth, frozen when the load stops.
    at_load_end: Option<(u64, Option<f64>)>,
    charts: Charts,

    /// When the run ends.
    end: Micros,
    /// /checkout price calls waiting for a shared connection now, and in all.
    checkout_queued_now: u32,
    checkout_queued: u64,
    /// Checkouts given up on while their price call still waited for a connection.
    checkout_failed_queued: u64,
    checkout_abandoned_calls: u64,
    /// When the earliest-sent checkout that failed was sent (the successes before it are a prefix).
    first_failed_sent: Option<Micros>,
    last_ok_latency: Option<Micros>,
    /// The run at each of the chapter's moments ([`GUIDED_STEPS`]), once it has passed them.
    moments: [Option<Moment>; GUIDED_STEPS.len()],
    next_moment: usize,
}

impl Cascade {
    pub fn charts(&self) -> &Charts {
        &self.charts
    }

    /// The shared pool (/checkout's price calls always go through it).
    pub fn shared_pool(&self) -> &Pool {
        &self.pools[SHARED]
    }

    /// The bulkhead's pool for recommendations; None without a bulkhead.
    pub fn recs_pool(&self) -> Option<&Pool> {
        self.config.variant.has_bulkhead().then(|| &self.pools[RECS_POOL])
    }

    /// Connections open on the downstream host now, from every pool.
    pub fn downstream_open(&self) -> u32 {
        self.pools[SHARED].open + self.pools[RECS_POOL].open
    }

    pub fn counts(&self) -> Counts {
        Counts {
            home_arrived: self.home_arrived,
            home_done: self.home_done,
            home_in_flight: self.home_arrived - self.home_done,
            checkout_arrived: self.checkout_arrived,
            checkout_ok: self.checkout_ok,
            checkout_failed: self.checkout_failed,
            checkout_in_flight: self.checkout_arrived - self.checkout_ok - self.checkout_failed,
        }
    }

    /// The latest /checkout outcomes, oldest first (at most [`CHECKOUT_LOG_CAPACITY`]).
    pub fn checkout_log(&self) -> &VecDeque<CheckoutOutcome> {
        &self.checkout_log
    }

    /// When the load generator stops sending.
    pub fn load_end(&self) -> Micros {
        self.load_end
    }

    /// When recommendations stops answering.
    pub fn recs_stops_at(&self) -> Micros {
        self.recs_stops_at
    }

    /// When every connection of the shared pool was first held by a recommendations call.
    pub fn pool_exhausted_at(&self) -> Option<Micros> {
        self.pool_exhausted_at
    }

    /// When the first /checkout client gave up.
    pub fn first_failed_at(&self) -> Option<Micros> {
        self.first_failed_at
    }

    /// When the run ends.
    pub fn end(&self) -> Micros {
        self.end
    }

    /// The shared pool now.
    pub fn shared_now(&self) -> PoolNow {
        PoolNow::of(&self.pools[SHARED])
    }

    /// The bulkhead's pool now (None without one).
    pub fn recs_pool_now(&self) -> Option<PoolNow> {
        self.recs_pool().map(PoolNow::of)
    }

    /// The run as it is now (at `now`).
    pub fn moment_now(&self, now: Micros) -> Moment {
        Moment {
            at: now,
            counts: self.counts(),
            shared: self.shared_now(),
            recs_pool: self.recs_pool_now(),
            recs_timed_out: self.recs_timed_out,
            checkout_queued: self.checkout_queued_now,
            last_ok_latency: self.last_ok_latency,
            downstream_open: self.downstream_open(),
        }
    }

    /// The run at the chapter's moment `step` ([`GUIDED_STEPS`]), if the run has reached it by
    /// `now`: what it was then, not now.
    pub fn moment(&self, step: usize, now: Micros) -> Option<Moment> {
        let at = GUIDED_STEPS.get(step)?.time_ms * MS;
        match self.moments[step] {
            Some(m) => Some(m),
            // Reached, and no event after it handled yet: the state now is the state then.
            None if at <= now => Some(Moment { at, ..self.moment_now(now) }),
            None => None,
        }
    }

    /// The chapter's moment the run has reached by `now` (the last one at or before it).
    pub fn step_at(now: Micros) -> usize {
        GUIDED_STEPS.iter().rposition(|g| g.time_ms * MS <= now).unwrap_or(0)
    }

    /// Records the run at each chapter's moment before the first event at or after it is
    /// handled: the state then is the state at that moment (events before it, none after).
    fn pass_moments(&mut self, now: Micros) {
        while let Some(g) = GUIDED_STEPS.get(self.next_moment) {
            let at = g.time_ms * MS;
            if at > now {
                return;
            }
            self.moments[self.next_moment] = Some(self.moment_now(at));
            self.next_moment += 1;
        }
    }
}

impl Model for Cascade {
    type Config = CascadeConfig;
    type Event = Event;

    /// The load, the longest a checkout may wait after it, and half a second for the last
    /// answers: the chapter's 10 s of load and 5 s timeout give its 15.5 s.
    fn run_length_ms(c: &CascadeConfig) -> Option<u64> {
        Some(((c.load_ms + c.checkout_timeout_ms) as u64 + TAIL_MS).max(DEFAULT_DURATION_MS))
    }

    fn new(config: CascadeConfig, seed: u64, end: Micros, queue: &mut EventQueue<Event>) -> Self {
        let limit = |size: u32| (!config.unbounded_pool).then_some(size);
        let recs_pool_limit = if config.variant.has_bulkhead() { limit(config.recs_pool_size) } else { Some(0) };
        let mut model = Self {
            load_end: ms_to_us(config.load_ms),
            recs_timeout: config.variant.has_timeout().then(|| ms_to_us(config.recs_timeout_ms)),
            late_us: config.timer_late_ms * 1000.0,
            checkout_timeout: ms_to_us(config.checkout_timeout_ms),
            price_us: config.price_ms * 1000.0,
            recs_stops_at: ms_to_us(config.recs_stops_at_ms),
            recs_us: config.recs_ms * 1000.0,
            net_us: config.net_ms * 1000.0,
            handler_us: config.handler_ms * 1000.0,
            render: ms_to_us(config.render_ms),
            connect: ms_to_us(config.connect_ms),
            home_load: LoadGenerator::new(SimRng::stream(seed, 1), config.home_rate),
            checkout_load: LoadGenerator::new(SimRng::stream(seed, 2), config.checkout_rate),
            home_rng: SimRng::stream(seed, 3),
            checkout_rng: SimRng::stream(seed, 4),
            pools: [Pool::new(limit(config.pool_size)), Pool::new(recs_pool_limit)],
            calls: SlotMap::with_key(),
            homes: SlotMap::with_key(),
            checkouts: SlotMap::with_key(),
            home_arrived: 0,
            home_done: 0,
            checkout_arrived: 0,
            checkout_ok: 0,
            checkout_failed: 0,
            recs_timed_out: 0,
            downstream_open_max: 0,
            pool_exhausted_at: None,
            last_ok_sent: None,
            first_failed_at: None,
            checkout_latency: Histogram::new(),
            checkout_log: VecDeque::with_capacity(CHECKOUT_LOG_CAPACITY),
            growth: VecDeque::new(),
            at_load_end: None,
            end,
            checkout_queued_now: 0,
            checkout_queued: 0,
            checkout_failed_queued: 0,
            checkout_abandoned_calls: 0,
            first_failed_sent: None,
            last_ok_latency: None,
            moments: [None; GUIDED_STEPS.len()],
            next_moment: 0,
            charts: Charts {
                home_in_flight: Series::new(CHART_CAPACITY),
                pool: Series::new(CHART_CAPACITY),
                checkout: Series::new(CHART_CAPACITY),
            },
            config,
        };
        model.schedule_home(queue);
        model.schedule_checkout(queue);
        queue.schedule_at(model.load_end, Event::LoadEnds);
        queue.schedule_at(0, Event::Sample);
        model
    }

    fn handle(&mut self, q: &mut EventQueue<Event>, now: Micros, event: Event) {
        self.pass_moments(now);
        match event {
            Event::HomeArrives => self.home_arrives(q),
            Event::CheckoutArrives => self.checkout_arrives(q, now),
            Event::HomeHandler(home) => self.home_handler(q, now, home),
            Event::CheckoutHandler(checkout) => self.checkout_handler(q, now, checkout),
            Event::CallReturns(call) => self.call_returns(q, now, call),
            Event::RecsTimeout(call) => self.recs_timeout(q, now, call),
            Event::HomeResponds(home) => {
                self.home_done += 1;
                self.homes.remove(home);
            }
            Event::CheckoutResponds(checkout) => self.checkout_answered(q, now, checkout),
            Event::CheckoutDeadline(checkout) => self.checkout_gives_up(q, now, checkout),
            Event::LoadEnds => {
                self.record_growth(now);
                self.at_load_end = Some((self.counts().home_in_flight, self.growth_now()));
            }
            Event::Sample => self.sample(q, now),
        }
    }

    fn metrics(&self, _now: Micros) -> Vec<(&'static str, Value)> {
        let c = self.counts();
        let (in_flight_end, growth) = self.at_load_end.unwrap_or_else(|| (c.home_in_flight, self.growth_now()));
        let ms = |q: f64| self.checkout_latency.quantile_ms(q).map_or(Value::Null, Value::num);
        let at = |t: Option<Micros>| t.map_or(Value::Null, |t| Value::num(t as f64 / 1000.0));
        let shared = self.shared_pool();
        vec![
            ("home_in_flight_end", Value::count(in_flight_end)),
            ("home_in_flight_growth_per_s", growth.map_or(Value::Null, Value::num)),
            ("checkout_ok", Value::count(c.checkout_ok)),
            ("checkout_failed", Value::count(c.checkout_failed)),
            ("checkout_p99_ms", ms(0.99)),
            ("pool_in_use_max", Value::count(shared.in_use_max as u64)),
            ("downstream_open_connections_max", Value::count(self.downstream_open_max as u64)),
            ("home_arrived", Value::count(c.home_arrived)),
            ("home_done", Value::count(c.home_done)),
            ("home_in_flight_now", Value::count(c.home_in_flight)),
            ("checkout_arrived", Value::count(c.checkout_arrived)),
            ("checkout_waiting", Value::count(c.checkout_in_flight)),
            ("checkout_p50_ms", ms(0.5)),
            ("recs_timed_out", Value::count(self.recs_timed_out)),
            ("recs_pool_in_use_max", self.recs_pool().map_or(Value::Null, |p| Value::count(p.in_use_max as u64))),
            ("pool_waiting_max", Value::count(shared.waiting_max as u64)),
            ("pool_exhausted_ms", at(self.pool_exhausted_at)),
            ("last_checkout_ok_sent_ms", at(self.last_ok_sent)),
            ("first_checkout_failed_ms", at(self.first_failed_at)),
            ("downstream_open_connections", Value::count(self.downstream_open() as u64)),
            ("checkout_queued", Value::count(self.checkout_queued)),
            ("checkout_failed_queued", Value::count(self.checkout_failed_queued)),
            ("checkout_abandoned_calls", Value::count(self.checkout_abandoned_calls)),
        ]
    }

    fn config(&self) -> &CascadeConfig {
        &self.config
    }
}

impl Cascade {
    /// Slope of /home in flight over the growth window so far, per second.
    fn growth_now(&self) -> Option<f64> {
        let (&(t0, v0), &(t1, v1)) = (self.growth.front()?, self.growth.back()?);
        (t1 > t0).then(|| (v1 as f64 - v0 as f64) * 1e6 / (t1 - t0) as f64)
    }

    fn schedule_home(&mut self, q: &mut EventQueue<Event>) {
        if let Some(t) = self.home_load.next(self.config.arrivals, self.late_us, self.load_end) {
            q.schedule_at(t, Event::HomeArrives);
        }
    }

    fn schedule_checkout(&mut self, q: &mut EventQueue<Event>) {
        if let Some(t) = self.checkout_load.next(self.config.arrivals, self.late_us, self.load_end) {
            q.schedule_at(t, Event::CheckoutArrives);
        }
    }

    /// A /home request reaches the API; its handler works, then makes its calls.
    fn home_arrives(&mut self, q: &mut EventQueue<Event>) {
        self.schedule_home(q);
        self.home_arrived += 1;
        let home = self.homes.insert(Home { unsettled: 2 });
        let work = jittered(&mut self.home_rng, self.handler_us, self.config.jitter_cv);
        q.schedule_in(work, Event::HomeHandler(home));
    }

    /// `Promise.all([recs, price])`: recommendations is asked for first, then price.
    fn home_handler(&mut self, q: &mut EventQueue<Event>, now: Micros, home: HomeKey) {
        let recs_pool = if self.config.variant.has_bulkhead() { RECS_POOL } else { SHARED };
        let recs = self.new_call(CallKind::Recs(home), recs_pool);
        if let Some(timeout) = self.recs_timeout {
            // AbortSignal.timeout starts now, so it covers the wait for a connection too.
            let fire = timeout + late(&mut self.home_rng, self.late_us) as Micros;
            self.calls[recs].timeout = Some(q.timer_in(fire, Event::RecsTimeout(recs)));
        }
        self.request_connection(q, now, recs);
        let price = self.new_call(CallKind::HomePrice(home), SHARED);
        self.request_connection(q, now, price);
    }

    /// The load generator sends a /checkout and starts its client timer.
    fn checkout_arrives(&mut self, q: &mut EventQueue<Event>, now: Micros) {
        self.schedule_checkout(q);
        self.checkout_arrived += 1;
        let (rng, cv) = (&mut self.checkout_rng, self.config.jitter_cv);
        let to_handler = jittered(rng, self.net_us, cv) + jittered(rng, self.handler_us, cv);
        let give_up = self.checkout_timeout + late(rng, self.late_us) as Micros;
        self.checkouts.insert_with_key(|checkout| {
            // In this order, so that at a tie the handler starts before the client gives up.
            let in_transit = q.timer_in(to_handler, Event::CheckoutHandler(checkout));
            let deadline = q.timer_in(give_up, Event::CheckoutDeadline(checkout));
            Checkout { sent: now, in_transit, deadline, call: None, abandoned: false }
        });
    }

    fn checkout_handler(&mut self, q: &mut EventQueue<Event>, now: Micros, checkout: CheckoutKey) {
        let call = self.new_call(CallKind::CheckoutPrice(checkout), SHARED);
        self.checkouts[checkout].call = Some(call);
        self.request_connection(q, now, call);
    }

    fn new_call(&mut self, kind: CallKind, pool: usize) -> CallKey {
        self.calls.insert(Call { kind, pool, state: CallState::Queued, timeout: None })
    }

    /// Removes a call and cancels what it still has pending (its answer, its timeout).
    fn remove_call(&mut self, q: &mut EventQueue<Event>, call: CallKey) -> Call {
        let c = self.calls.remove(call).expect("a call's events are cancelled when it is removed");
        let answer = match c.state {
            CallState::Sent { answer, .. } => answer,
            CallState::Queued => None,
        };
        for timer in [answer, c.timeout].into_iter().flatten() {
            q.cancel(timer);
        }
        c
    }

    fn request_connection(&mut self, q: &mut EventQueue<Event>, now: Micros, call: CallKey) {
        let pool = self.calls[call].pool;
        match self.pools[pool].take() {
            Some((slot, fresh)) => self.start_call(q, now, call, slot, fresh),
            None => {
                self.pools[pool].enqueue(call);
                if matches!(self.calls[call].kind, CallKind::CheckoutPrice(_)) {
                    self.checkout_queued_now += 1;
                    self.checkout_queued += 1;
                }
            }
        }
    }

    /// The call holds connection `slot`; the request goes out (after a handshake on a new
    /// connection) and the answer is scheduled, unless recommendations has stopped answering.
    fn start_call(&mut self, q: &mut EventQueue<Event>, now: Micros, call: CallKey, slot: u32, fresh: bool) {
        let c = &mut self.calls[call];
        c.state = CallState::Sent { slot, answer: None };
        let (kind, pool_id) = (c.kind, c.pool);
        let pool = &mut self.pools[pool_id];
        pool.hold(slot, kind);
        if pool_id == SHARED && pool.full_of_recs() && self.pool_exhausted_at.is_none() {
            self.pool_exhausted_at = Some(now);
        }
        self.downstream_open_max = self.downstream_open_max.max(self.downstream_open());

        let cv = self.config.jitter_cv;
        let rng = if matches!(kind, CallKind::CheckoutPrice(_)) { &mut self.checkout_rng } else { &mut self.home_rng };
        let handshake = if fresh { self.connect } else { 0 };
        let reaches = now + handshake + jittered(rng, self.net_us, cv);
        let work = match kind {
            CallKind::Recs(_) if reaches >= self.recs_stops_at => {
                // Accepted, never answered.
                let pool = &mut self.pools[pool_id];
                pool.hung += 1;
                if pool.limit.is_some_and(|l| pool.hung == l) && pool.full_of_hung_at.is_none() {
                    pool.full_of_hung_at = Some(now);
                }
                return;
            }
            CallKind::Recs(_) => jittered(rng, self.recs_us, cv),
            CallKind::HomePrice(_) | CallKind::CheckoutPrice(_) => {
                libm::round(self.price_us + late(rng, self.late_us)) as Micros
            }
        };
        let back = jittered(rng, self.net_us, cv);
        let answer = q.timer_at(reaches + work + back, Event::CallReturns(call));
        self.calls[call].state = CallState::Sent { slot, answer: Some(answer) };
    }

    fn call_returns(&mut self, q: &mut EventQueue<Event>, now: Micros, call: CallKey) {
        let c = self.remove_call(q, call); // answered in time: its timeout is cancelled
        let CallState::Sent { slot, .. } = c.state else { unreachable!("only a sent call is answered") };
        self.release(q, now, c.pool, slot);
        self.settle(q, now, c.kind);
    }

    /// The connection goes back to the pool: the first live waiter gets it, else it idles.
    fn release(&mut self, q: &mut EventQueue<Event>, now: Micros, pool_id: usize, slot: u32) {
        self.pools[pool_id].unhold(slot);
        match self.next_waiter(pool_id) {
            Some(next) => self.start_call(q, now, next, slot, false),
            None => {
                let pool = &mut self.pools[pool_id];
                pool.slots[slot as usize] = Slot::Idle;
                pool.idle.push(Reverse(slot));
            }
        }
    }

    /// An aborted request's connection cannot be reused: it is closed. A waiter, if any, opens
    /// a new connection in its place.
    fn destroy(&mut self, q: &mut EventQueue<Event>, now: Micros, pool_id: usize, slot: u32) {
        let pool = &mut self.pools[pool_id];
        pool.unhold(slot);
        pool.open -= 1;
        pool.slots[slot as usize] = Slot::Closed;
        match self.next_waiter(pool_id) {
            Some(next) => {
                self.pools[pool_id].open += 1;
                self.start_call(q, now, next, slot, true);
            }
            None => self.pools[pool_id].closed.push(Reverse(slot)),
        }
    }

    /// The first call still waiting in the pool's queue (aborted ones are gone from `calls`).
    fn next_waiter(&mut self, pool_id: usize) -> Option<CallKey> {
        let pool = &mut self.pools[pool_id];
        while let Some(call) = pool.queue.pop_front() {
            if let Some(c) = self.calls.get(call) {
                pool.waiting -= 1;
                if matches!(c.kind, CallKind::CheckoutPrice(_)) {
                    self.checkout_queued_now -= 1;
                }
                return Some(call);
            }
        }
        None
    }

    /// Gives up on a call: out of the queue, or its connection closed.
    fn abort(&mut self, q: &mut EventQueue<Event>, now: Micros, call: CallKey) {
        let c = self.remove_call(q, call);
        match c.state {
            CallState::Queued => {
                self.pools[c.pool].waiting -= 1;
                if matches!(c.kind, CallKind::CheckoutPrice(_)) {
                    self.checkout_queued_now -= 1;
                }
            }
            CallState::Sent { slot, answer } => {
                if answer.is_none() {
                    self.pools[c.pool].hung -= 1;
                }
                self.destroy(q, now, c.pool, slot)
            }
        }
    }

    fn recs_timeout(&mut self, q: &mut EventQueue<Event>, now: Micros, call: CallKey) {
        let kind = self.calls[call].kind;
        self.recs_timed_out += 1;
        self.abort(q, now, call);
        self.settle(q, now, kind); // the page renders without recommendations
    }

    /// A call is over (answered or timed out): tell the handler that made it.
    fn settle(&mut self, q: &mut EventQueue<Event>, now: Micros, kind: CallKind) {
        match kind {
            CallKind::Recs(home) | CallKind::HomePrice(home) => {
                let h = &mut self.homes[home];
                h.unsettled -= 1;
                if h.unsettled == 0 {
                    q.schedule_at(now + self.render, Event::HomeResponds(home));
                }
            }
            CallKind::CheckoutPrice(checkout) if self.checkouts[checkout].abandoned => {
                // The answer goes to a connection its client already closed.
                self.checkouts.remove(checkout);
                self.checkout_abandoned_calls += 1;
            }
            CallKind::CheckoutPrice(checkout) => {
                let back = jittered(&mut self.checkout_rng, self.net_us, self.config.jitter_cv);
                self.checkouts[checkout].in_transit = q.timer_at(now + back, Event::CheckoutResponds(checkout));
            }
        }
    }

    /// The client gets its answer before giving up.
    fn checkout_answered(&mut self, q: &mut EventQueue<Event>, now: Micros, checkout: CheckoutKey) {
        let c = self.checkouts.remove(checkout).expect("a checkout's events are cancelled when it ends");
        q.cancel(c.deadline);
        self.checkout_ok += 1;
        self.last_ok_sent = Some(c.sent);
        self.last_ok_latency = Some(now - c.sent);
        self.record_checkout(c.sent, now, true);
    }

    /// The client gives up before its answer came.
    fn checkout_gives_up(&mut self, q: &mut EventQueue<Event>, now: Micros, checkout: CheckoutKey) {
        let c = self.checkouts[checkout];
        self.checkout_failed += 1;
        self.first_failed_at.get_or_insert(now);
        self.first_failed_sent = Some(self.first_failed_sent.map_or(c.sent, |t| t.min(c.sent)));
        let queued = c.call.and_then(|call| self.calls.get(call)).is_some_and(|call| call.state == CallState::Queued);
        if queued {
            self.checkout_failed_queued += 1;
        }
        let live_call = c.call.filter(|&call| self.calls.contains_key(call));
        let handler_to_come = c.call.is_none();
        if !self.config.cancel_on_client_close && (handler_to_come || live_call.is_some()) {
            // Node's default: the request still reaches its handler, and the handler's price
            // call goes on; only its answer is dropped.
            self.checkouts[checkout].abandoned = true;
        } else {
            // The handler stops when its caller leaves: its price call leaves the pool queue,
            // or its connection is closed (unless the answer is already on its way back).
            self.checkouts.remove(checkout);
            q.cancel(c.in_transit);
            if let Some(call) = live_call {
                self.abort(q, now, call);
            }
        }
        self.record_checkout(c.sent, now, false);
    }

    fn record_checkout(&mut self, sent: Micros, now: Micros, ok: bool) {
        let waited = now - sent;
        self.checkout_latency.record(waited);
        if self.checkout_log.len() == CHECKOUT_LOG_CAPACITY {
            self.checkout_log.pop_front();
        }
        self.checkout_log.push_back(CheckoutOutcome {
            sent_ms: sent as f64 / 1000.0,
            latency_ms: waited as f64 / 1000.0,
            ok,
        });
    }

    fn record_growth(&mut self, now: Micros) {
        if self.at_load_end.is_some() || now > self.load_end {
            return;
        }
        self.growth.push_back((now, self.counts().home_in_flight));
        while self.growth.front().is_some_and(|&(t, _)| t + GROWTH_WINDOW < now) {
            self.growth.pop_front();
        }
    }

    fn sample(&mut self, q: &mut EventQueue<Event>, now: Micros) {
        self.record_growth(now);
        let t = now as f64 / 1000.0;
        let c = self.counts();
        let (shared, recs) = (&self.pools[SHARED], &self.pools[RECS_POOL]);
        self.charts.home_in_flight.push(t, HomeSample { in_flight: c.home_in_flight as f64 });
        let pool = PoolSample {
            shared_in_use: shared.in_use as f64,
            shared_recs_held: shared.recs_held as f64,
            shared_waiting: shared.waiting as f64,
            recs_in_use: recs.in_use as f64,
            downstream_open: self.downstream_open() as f64,
        };
        self.charts.pool.push(t, pool);
        let checkout = CheckoutSample {
            ok: c.checkout_ok as f64,
            failed: c.checkout_failed as f64,
            waiting: c.checkout_in_flight as f64,
        };
        self.charts.checkout.push(t, checkout);
        q.schedule_in(SAMPLE_EVERY, Event::Sample);
    }
}
