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

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use crate::sim::rng::{SimRng, ms_to_us};
use crate::sim::stats::{Histogram, Series};
use crate::sim::{EventQueue, MS, MetricSpec, Micros, ParamSpec, Params, Preset, SEC, ScenarioSpec, Simulation, Value};

pub const VARIANTS: &[&str] = &["no-timeout", "timeout", "bulkhead", "both"];
pub const ARRIVALS: &[&str] = &["paced", "poisson"];
/// Charts sample every 20 ms: the pool fills within 0.4 s, which needs finer than 100 ms.
pub const SAMPLE_EVERY: Micros = 20 * MS;
/// `home_in_flight_growth_per_s` is the slope over the last 5 s of the load.
const GROWTH_WINDOW: Micros = 5 * SEC;
const CHART_CAPACITY: usize = 1200;
/// The most recent /checkout outcomes kept for drawing one mark per request.
pub const CHECKOUT_LOG_CAPACITY: usize = 1024;
/// Marks a call or request slot that is not in use.
const NONE: u32 = u32::MAX;

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
pub static SPEC: ScenarioSpec = ScenarioSpec {
    id: "cascade",
    title: "The shared-pool cascade",
    chapter: "Chapter 1, Part 3: The measured run",
    summary: "Recommendations stops answering; /home waits on it without a timeout, its hung calls \
              fill the shared connection pool, and /checkout, which never calls recommendations, \
              fails. Compare a timeout with a bulkhead.",
    params: &[
        ParamSpec::choice("variant", "Fix", VARIANTS, 0,
            "no-timeout: one shared pool, /home waits forever. timeout: recommendations gets a timeout \
             and the page renders without them. bulkhead: recommendations gets its own pool. both: the timeout and the pool together."),
        ParamSpec::number("recs_timeout_ms", "Recommendations timeout", "ms", 300.0, (10.0, 10_000.0, 10.0),
            "With the timeout: a total timeout on the recommendations call, pool wait included. \
             On expiry the request is aborted and its connection closed."),
        ParamSpec::number("pool_size", "Pool size", "connections", 20.0, (1.0, 200.0, 1.0),
            "Connections the shared client pool may open to the downstream host (undici `connections`)."),
        ParamSpec::number("recs_pool_size", "Recommendations pool size", "connections", 20.0, (1.0, 200.0, 1.0),
            "With the bulkhead: connections of the separate pool that only recommendations uses."),
        ParamSpec::toggle("unbounded_pool", "Unbounded pool", false,
            "No connection limit (node:http's default agent): a call that finds no idle connection opens \
             a new one, so hung calls become open connections on the downstream."),
        ParamSpec::number("home_rate", "/home rate", "req/s", 50.0, (0.0, 200.0, 1.0),
            "/home requests per second from the load generator."),
        ParamSpec::number("checkout_rate", "/checkout rate", "req/s", 10.0, (0.0, 100.0, 1.0),
            "/checkout requests per second from the load generator."),
        ParamSpec::number("load_ms", "Load lasts", "ms", 10_000.0, (100.0, 600_000.0, 100.0),
            "How long the load generator sends. The run goes on afterwards so waiting checkouts can finish."),
        ParamSpec::choice("arrivals", "Arrivals", ARRIVALS, 0,
            "paced: the load generator fires on a timer, evenly spaced (the chapter's run). \
             poisson: independent random arrivals at the same mean rate."),
        ParamSpec::number("timer_late_ms", "Timer lateness", "ms", 0.85, (0.0, 5.0, 0.05),
            "Node timers fire late, uniformly 0 to 2× this on average. It slows the paced load generator \
             (each tick is re-armed after the late one) and delays every setTimeout and AbortSignal.timeout."),
        ParamSpec::number("checkout_timeout_ms", "/checkout gives up after", "ms", 5_000.0, (100.0, 60_000.0, 100.0),
            "The client's total timeout for /checkout, pool wait included. When it fires the handler's \
             price call is abandoned too."),
        ParamSpec::number("price_ms", "Price latency", "ms", 5.0, (0.5, 1_000.0, 0.5),
            "The price endpoint's work (a timer, so it also fires late); it stays healthy throughout."),
        ParamSpec::number("recs_stops_at_ms", "Recommendations stops at", "ms", 0.0, (0.0, 600_000.0, 100.0),
            "From this moment recommendations accepts requests and never answers them."),
        ParamSpec::number("recs_ms", "Recommendations latency", "ms", 30.0, (1.0, 5_000.0, 1.0),
            "How long recommendations takes while it still answers."),
        ParamSpec::number("net_ms", "Network per hop", "ms", 0.4, (0.0, 50.0, 0.1),
            "One way across one hop (client to API, API to downstream), HTTP parsing included."),
        ParamSpec::number("handler_ms", "Handler work", "ms", 1.0, (0.0, 100.0, 0.1),
            "CPU time of a handler before it makes its downstream calls (routing, validation, logging)."),
        ParamSpec::number("render_ms", "/home render", "ms", 2.0, (0.0, 1_000.0, 0.5),
            "Time /home needs to render once its calls have settled."),
        ParamSpec::number("connect_ms", "Connect", "ms", 0.3, (0.0, 100.0, 0.1),
            "Opening a new connection to the downstream (TCP handshake); idle connections are reused."),
        ParamSpec::number("jitter_cv", "Jitter", "CV", 0.5, (0.0, 2.0, 0.05),
            "Spread of network and handler times: lognormal with this coefficient of variation (0 = fixed)."),
    ],
    presets: &[
        Preset { id: "no-timeout", label: "No timeout, one shared pool", description:
            "The chapter's failure: /home piles up, the pool fills with hung calls, /checkout fails.",
            values: &[("variant", "no-timeout"), ("unbounded_pool", "false")] },
        Preset { id: "timeout", label: "300 ms timeout on recommendations", description:
            "The page renders without recommendations: 15 /home in flight, flat, and /checkout is fine.",
            values: &[("variant", "timeout"), ("unbounded_pool", "false")] },
        Preset { id: "bulkhead", label: "Separate pool for recommendations", description:
            "/checkout is fine, but /home still piles up: the bulkhead limits who shares the wait, not the wait.",
            values: &[("variant", "bulkhead"), ("unbounded_pool", "false")] },
        Preset { id: "both", label: "Timeout and bulkhead", description:
            "Both fixes: bounded waits, and recommendations cannot take price's connections.",
            values: &[("variant", "both"), ("unbounded_pool", "false")] },
        Preset { id: "unbounded-pool", label: "Unbounded pool, no timeout", description:
            "No connection limit: /checkout survives, but every hung call is an open connection on the downstream.",
            values: &[("variant", "no-timeout"), ("unbounded_pool", "true")] },
    ],
    metrics: &[
        MetricSpec { key: "home_in_flight_end", label: "/home in flight after the load", unit: "req",
            help: "/home handlers still running when the load stopped (the chapter's 'after 10 s'); until then, now." },
        MetricSpec { key: "home_in_flight_growth_per_s", label: "/home in-flight growth", unit: "req/s",
            help: "Slope of /home in flight over the last 5 s of the load: 0 is flat." },
        MetricSpec { key: "checkout_ok", label: "/checkout succeeded", unit: "req", help: "Checkouts answered before the client gave up." },
        MetricSpec { key: "checkout_failed", label: "/checkout failed", unit: "req", help: "Checkouts whose client gave up." },
        MetricSpec { key: "checkout_p99_ms", label: "/checkout p99", unit: "ms",
            help: "99th percentile of what /checkout clients waited; a failure counts as the time until they gave up." },
        MetricSpec { key: "pool_in_use_max", label: "Shared pool, most in use", unit: "connections",
            help: "Most connections of the shared pool held by calls at once." },
        MetricSpec { key: "downstream_open_connections_max", label: "Downstream connections, most", unit: "connections",
            help: "Most connections open on the downstream host at once, from every pool." },
        MetricSpec { key: "home_arrived", label: "/home arrived", unit: "req", help: "/home requests sent by the load generator." },
        MetricSpec { key: "home_done", label: "/home answered", unit: "req", help: "/home requests whose page was rendered and sent." },
        MetricSpec { key: "home_in_flight_now", label: "/home in flight now", unit: "req", help: "/home handlers running now." },
        MetricSpec { key: "checkout_arrived", label: "/checkout arrived", unit: "req", help: "/checkout requests sent by the load generator." },
        MetricSpec { key: "checkout_waiting", label: "/checkout waiting", unit: "req", help: "Checkouts neither answered nor given up on yet." },
        MetricSpec { key: "checkout_p50_ms", label: "/checkout p50", unit: "ms", help: "Median of what /checkout clients waited." },
        MetricSpec { key: "recs_timed_out", label: "Recommendations timed out", unit: "calls",
            help: "Recommendations calls aborted by their timeout (the page rendered without them)." },
        MetricSpec { key: "recs_pool_in_use_max", label: "Recommendations pool, most in use", unit: "connections",
            help: "With the bulkhead: most connections of the recommendations pool in use at once." },
        MetricSpec { key: "pool_waiting_max", label: "Shared pool, longest queue", unit: "calls",
            help: "Most calls waiting at once for a connection of the shared pool." },
        MetricSpec { key: "pool_exhausted_ms", label: "Pool full of hung calls at", unit: "ms",
            help: "When every connection of the shared pool was first held by a recommendations call (null: never)." },
        MetricSpec { key: "last_checkout_ok_sent_ms", label: "Last good checkout sent at", unit: "ms",
            help: "When the latest successful /checkout was sent (null: none succeeded)." },
        MetricSpec { key: "first_checkout_failed_ms", label: "First checkout failed at", unit: "ms",
            help: "When the first /checkout client gave up (null: none did)." },
        MetricSpec { key: "downstream_open_connections", label: "Downstream connections now", unit: "connections",
            help: "Connections open on the downstream host now." },
    ],
    default_duration_ms: 15_500,
    build: |params, seed, duration| Box::new(Cascade::new(params, seed, duration)),
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
    /// Waiting calls as (call, generation); entries of calls aborted while queued go stale
    /// and are skipped when reached.
    queue: VecDeque<(u32, u32)>,
    waiting: u32,
    in_use: u32,
    recs_held: u32,
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
        if kind == CallKind::Recs {
            self.recs_held += 1;
        }
    }

    fn unhold(&mut self, slot: u32) {
        if self.slots[slot as usize] == Slot::Recs {
            self.recs_held -= 1;
        }
        self.in_use -= 1;
    }

    fn enqueue(&mut self, call: u32, generation: u32) {
        self.queue.push_back((call, generation));
        self.waiting += 1;
        self.waiting_max = self.waiting_max.max(self.waiting);
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum CallKind {
    Recs,
    HomePrice,
    CheckoutPrice,
}

impl CallKind {
    fn slot(self) -> Slot {
        match self {
            CallKind::Recs => Slot::Recs,
            CallKind::HomePrice => Slot::HomePrice,
            CallKind::CheckoutPrice => Slot::CheckoutPrice,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum CallState {
    Free,
    Queued,
    /// Holding connection `slot`, request sent or about to be.
    Sent,
}

/// One outbound call from a handler to the downstream host.
#[derive(Clone, Copy, Debug)]
struct Call {
    kind: CallKind,
    /// The /home or /checkout request that made it.
    owner: u32,
    pool: u8,
    state: CallState,
    slot: u32,
    generation: u32,
}

#[derive(Clone, Copy, Debug)]
struct Home {
    /// Calls not settled yet (answered or timed out).
    unsettled: u8,
}

#[derive(Clone, Copy, Debug)]
struct Checkout {
    sent: Micros,
    pending: bool,
    /// The handler's price call, with its generation (NONE before the handler runs).
    call: u32,
    call_generation: u32,
    generation: u32,
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

/// Chart data sampled every [`SAMPLE_EVERY`].
pub struct Charts {
    /// /home handlers in flight.
    pub home_in_flight: Series<1>,
    /// Shared pool: [in use, held by recommendations, calls waiting]; the recommendations pool
    /// (bulkhead only, else 0): [in use]; and connections open on the downstream.
    pub pool: Series<5>,
    /// /checkout: [succeeded so far, failed so far, waiting now].
    pub checkout: Series<3>,
}

pub struct Cascade {
    queue: EventQueue<Event>,
    model: Model,
}

#[derive(Clone, Copy, Debug)]
enum Event {
    HomeArrives,
    CheckoutArrives,
    HomeHandler { home: u32 },
    CheckoutHandler { checkout: u32, generation: u32 },
    CallReturns { call: u32, generation: u32 },
    RecsTimeout { call: u32, generation: u32 },
    HomeResponds { home: u32 },
    CheckoutResponds { checkout: u32, generation: u32 },
    CheckoutDeadline { checkout: u32, generation: u32 },
    LoadEnds,
    Sample,
}

/// The shared pool (price, and recommendations unless there is a bulkhead).
const SHARED: u8 = 0;
/// The bulkhead's pool for recommendations.
const RECS_POOL: u8 = 1;

struct Model {
    end: Micros,
    load_end: Micros,
    recs_timeout: Option<Micros>,
    bulkhead: bool,
    poisson: bool,
    home_gap_us: f64,
    checkout_gap_us: f64,
    late_us: f64,
    checkout_timeout: Micros,
    price_us: f64,
    recs_stops_at: Micros,
    recs_us: f64,
    net_us: f64,
    handler_us: f64,
    render: Micros,
    connect: Micros,
    cv: f64,

    home_arrivals_rng: SimRng,
    checkout_arrivals_rng: SimRng,
    /// Draws for /home's handler and calls.
    home_rng: SimRng,
    /// Draws for /checkout's handler, calls and client timer, apart from /home's so that the
    /// variants see the same checkouts.
    checkout_rng: SimRng,
    next_home: f64,
    next_checkout: f64,

    pools: [Pool; 2],
    calls: Vec<Call>,
    free_calls: Vec<u32>,
    homes: Vec<Home>,
    free_homes: Vec<u32>,
    checkouts: Vec<Checkout>,
    free_checkouts: Vec<u32>,

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
}

impl Cascade {
    pub fn new(params: &Params, seed: u64, end: Micros) -> Self {
        let variant = params.choice("variant");
        let with_timeout = matches!(variant, "timeout" | "both");
        let bulkhead = matches!(variant, "bulkhead" | "both");
        let unbounded = params.flag("unbounded_pool");
        let limit = |id| (!unbounded).then(|| params.get(id) as u32);
        let gap = |id| {
            let rate = params.get(id);
            if rate > 0.0 { 1e6 / rate } else { 0.0 }
        };
        let mut model = Model {
            end,
            load_end: ms_to_us(params.get("load_ms")),
            recs_timeout: with_timeout.then(|| ms_to_us(params.get("recs_timeout_ms"))),
            bulkhead,
            poisson: params.choice("arrivals") == "poisson",
            home_gap_us: gap("home_rate"),
            checkout_gap_us: gap("checkout_rate"),
            late_us: params.get("timer_late_ms") * 1000.0,
            checkout_timeout: ms_to_us(params.get("checkout_timeout_ms")),
            price_us: params.get("price_ms") * 1000.0,
            recs_stops_at: ms_to_us(params.get("recs_stops_at_ms")),
            recs_us: params.get("recs_ms") * 1000.0,
            net_us: params.get("net_ms") * 1000.0,
            handler_us: params.get("handler_ms") * 1000.0,
            render: ms_to_us(params.get("render_ms")),
            connect: ms_to_us(params.get("connect_ms")),
            cv: params.get("jitter_cv"),
            home_arrivals_rng: SimRng::stream(seed, 1),
            checkout_arrivals_rng: SimRng::stream(seed, 2),
            home_rng: SimRng::stream(seed, 3),
            checkout_rng: SimRng::stream(seed, 4),
            next_home: 0.0,
            next_checkout: 0.0,
            pools: [Pool::new(limit("pool_size")), Pool::new(if bulkhead { limit("recs_pool_size") } else { Some(0) })],
            calls: Vec::new(),
            free_calls: Vec::new(),
            homes: Vec::new(),
            free_homes: Vec::new(),
            checkouts: Vec::new(),
            free_checkouts: Vec::new(),
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
            charts: Charts {
                home_in_flight: Series::new(CHART_CAPACITY),
                pool: Series::new(CHART_CAPACITY),
                checkout: Series::new(CHART_CAPACITY),
            },
        };
        let mut queue = EventQueue::new();
        model.schedule_home(&mut queue);
        model.schedule_checkout(&mut queue);
        queue.schedule_at(model.load_end, Event::LoadEnds);
        queue.schedule_at(0, Event::Sample);
        Self { queue, model }
    }

    pub fn charts(&self) -> &Charts {
        &self.model.charts
    }

    /// The shared pool (/checkout's price calls always go through it).
    pub fn shared_pool(&self) -> &Pool {
        &self.model.pools[SHARED as usize]
    }

    /// The bulkhead's pool for recommendations; None without a bulkhead.
    pub fn recs_pool(&self) -> Option<&Pool> {
        self.model.bulkhead.then(|| &self.model.pools[RECS_POOL as usize])
    }

    /// Connections open on the downstream host now, from every pool.
    pub fn downstream_open(&self) -> u32 {
        self.model.downstream_open()
    }

    pub fn counts(&self) -> Counts {
        self.model.counts()
    }

    /// The latest /checkout outcomes, oldest first (at most [`CHECKOUT_LOG_CAPACITY`]).
    pub fn checkout_log(&self) -> &VecDeque<CheckoutOutcome> {
        &self.model.checkout_log
    }

    /// When the load generator stops sending.
    pub fn load_end(&self) -> Micros {
        self.model.load_end
    }
}

impl Simulation for Cascade {
    crate::event_driven_clock!();

    fn metrics(&self) -> Vec<(&'static str, Value)> {
        let m = &self.model;
        let c = m.counts();
        let (in_flight_end, growth) = m.at_load_end.unwrap_or_else(|| (c.home_in_flight, m.growth_now()));
        let ms = |q: f64| m.checkout_latency.quantile_ms(q).map_or(Value::Null, Value::num);
        let at = |t: Option<Micros>| t.map_or(Value::Null, |t| Value::num(t as f64 / 1000.0));
        vec![
            ("home_in_flight_end", Value::count(in_flight_end)),
            ("home_in_flight_growth_per_s", growth.map_or(Value::Null, Value::num)),
            ("checkout_ok", Value::count(c.checkout_ok)),
            ("checkout_failed", Value::count(c.checkout_failed)),
            ("checkout_p99_ms", ms(0.99)),
            ("pool_in_use_max", Value::count(m.pools[SHARED as usize].in_use_max as u64)),
            ("downstream_open_connections_max", Value::count(m.downstream_open_max as u64)),
            ("home_arrived", Value::count(c.home_arrived)),
            ("home_done", Value::count(c.home_done)),
            ("home_in_flight_now", Value::count(c.home_in_flight)),
            ("checkout_arrived", Value::count(c.checkout_arrived)),
            ("checkout_waiting", Value::count(c.checkout_in_flight)),
            ("checkout_p50_ms", ms(0.5)),
            ("recs_timed_out", Value::count(m.recs_timed_out)),
            (
                "recs_pool_in_use_max",
                if m.bulkhead { Value::count(m.pools[RECS_POOL as usize].in_use_max as u64) } else { Value::Null },
            ),
            ("pool_waiting_max", Value::count(m.pools[SHARED as usize].waiting_max as u64)),
            ("pool_exhausted_ms", at(m.pool_exhausted_at)),
            ("last_checkout_ok_sent_ms", at(m.last_ok_sent)),
            ("first_checkout_failed_ms", at(m.first_failed_at)),
            ("downstream_open_connections", Value::count(m.downstream_open() as u64)),
        ]
    }
}

impl Model {
    fn counts(&self) -> Counts {
        let home_in_flight = self.home_arrived - self.home_done;
        Counts {
            home_arrived: self.home_arrived,
            home_done: self.home_done,
            home_in_flight,
            checkout_arrived: self.checkout_arrived,
            checkout_ok: self.checkout_ok,
            checkout_failed: self.checkout_failed,
            checkout_in_flight: self.checkout_arrived - self.checkout_ok - self.checkout_failed,
        }
    }

    fn downstream_open(&self) -> u32 {
        self.pools[0].open + self.pools[1].open
    }

    /// Slope of /home in flight over the growth window so far, per second.
    fn growth_now(&self) -> Option<f64> {
        let (&(t0, v0), &(t1, v1)) = (self.growth.front()?, self.growth.back()?);
        (t1 > t0).then(|| (v1 as f64 - v0 as f64) * 1e6 / (t1 - t0) as f64)
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

    /// The next arrival of a stream, if it falls inside the load. A paced generator re-arms its
    /// interval timer after each (late) tick, as Node's setInterval does, so lateness adds up.
    fn next_arrival(rng: &mut SimRng, poisson: bool, gap_us: f64, late_us: f64, last: &mut f64, load_end: Micros) -> Option<Micros> {
        if gap_us <= 0.0 {
            return None;
        }
        let step = if poisson { rng.exponential(gap_us) } else { gap_us + Self::late(rng, late_us) };
        *last += step;
        let t = libm::round(*last) as Micros;
        (t < load_end).then_some(t)
    }

    fn schedule_home(&mut self, q: &mut EventQueue<Event>) {
        let next = Self::next_arrival(
            &mut self.home_arrivals_rng, self.poisson, self.home_gap_us, self.late_us, &mut self.next_home, self.load_end,
        );
        if let Some(t) = next {
            q.schedule_at(t, Event::HomeArrives);
        }
    }

    fn schedule_checkout(&mut self, q: &mut EventQueue<Event>) {
        let next = Self::next_arrival(
            &mut self.checkout_arrivals_rng, self.poisson, self.checkout_gap_us, self.late_us, &mut self.next_checkout, self.load_end,
        );
        if let Some(t) = next {
            q.schedule_at(t, Event::CheckoutArrives);
        }
    }

    fn handle(&mut self, q: &mut EventQueue<Event>, now: Micros, event: Event) {
        match event {
            Event::HomeArrives => self.home_arrives(q),
            Event::CheckoutArrives => self.checkout_arrives(q, now),
            Event::HomeHandler { home } => self.home_handler(q, now, home),
            Event::CheckoutHandler { checkout, generation } => self.checkout_handler(q, now, checkout, generation),
            Event::CallReturns { call, generation } => self.call_returns(q, now, call, generation),
            Event::RecsTimeout { call, generation } => self.recs_timeout(q, now, call, generation),
            Event::HomeResponds { home } => {
                self.home_done += 1;
                self.free_homes.push(home);
            }
            Event::CheckoutResponds { checkout, generation } => self.checkout_ends(q, now, checkout, generation, true),
            Event::CheckoutDeadline { checkout, generation } => self.checkout_ends(q, now, checkout, generation, false),
            Event::LoadEnds => {
                self.record_growth(now);
                self.at_load_end = Some((self.counts().home_in_flight, self.growth_now()));
            }
            Event::Sample => self.sample(q, now),
        }
    }

    /// A /home request reaches the API; its handler works, then makes its calls.
    fn home_arrives(&mut self, q: &mut EventQueue<Event>) {
        self.schedule_home(q);
        self.home_arrived += 1;
        let home = Home { unsettled: 2 };
        let i = match self.free_homes.pop() {
            Some(i) => {
                self.homes[i as usize] = home;
                i
            }
            None => {
                self.homes.push(home);
                self.homes.len() as u32 - 1
            }
        };
        let work = Self::jittered(&mut self.home_rng, self.handler_us, self.cv);
        q.schedule_in(work, Event::HomeHandler { home: i });
    }

    /// `Promise.all([recs, price])`: recommendations is asked for first, then price.
    fn home_handler(&mut self, q: &mut EventQueue<Event>, now: Micros, home: u32) {
        let recs_pool = if self.bulkhead { RECS_POOL } else { SHARED };
        let recs = self.new_call(CallKind::Recs, home, recs_pool);
        if let Some(timeout) = self.recs_timeout {
            // AbortSignal.timeout starts now, so it covers the wait for a connection too.
            let fire = timeout + Self::late(&mut self.home_rng, self.late_us) as Micros;
            let generation = self.calls[recs as usize].generation;
            q.schedule_in(fire, Event::RecsTimeout { call: recs, generation });
        }
        self.request_connection(q, now, recs);
        let price = self.new_call(CallKind::HomePrice, home, SHARED);
        self.request_connection(q, now, price);
    }

    /// The load generator sends a /checkout and starts its client timer.
    fn checkout_arrives(&mut self, q: &mut EventQueue<Event>, now: Micros) {
        self.schedule_checkout(q);
        self.checkout_arrived += 1;
        let i = match self.free_checkouts.pop() {
            Some(i) => i,
            None => {
                self.checkouts.push(Checkout { sent: 0, pending: false, call: NONE, call_generation: 0, generation: 0 });
                self.checkouts.len() as u32 - 1
            }
        };
        let c = &mut self.checkouts[i as usize];
        c.sent = now;
        c.pending = true;
        c.call = NONE;
        let generation = c.generation;
        let rng = &mut self.checkout_rng;
        let to_handler = Self::jittered(rng, self.net_us, self.cv) + Self::jittered(rng, self.handler_us, self.cv);
        q.schedule_in(to_handler, Event::CheckoutHandler { checkout: i, generation });
        let give_up = self.checkout_timeout + Self::late(rng, self.late_us) as Micros;
        q.schedule_in(give_up, Event::CheckoutDeadline { checkout: i, generation });
    }

    fn checkout_handler(&mut self, q: &mut EventQueue<Event>, now: Micros, checkout: u32, generation: u32) {
        let c = self.checkouts[checkout as usize];
        if c.generation != generation || !c.pending {
            return; // the client already gave up
        }
        let call = self.new_call(CallKind::CheckoutPrice, checkout, SHARED);
        let c = &mut self.checkouts[checkout as usize];
        c.call = call;
        c.call_generation = self.calls[call as usize].generation;
        self.request_connection(q, now, call);
    }

    fn new_call(&mut self, kind: CallKind, owner: u32, pool: u8) -> u32 {
        let fresh = |generation| Call { kind, owner, pool, state: CallState::Queued, slot: NONE, generation };
        match self.free_calls.pop() {
            Some(i) => {
                let c = &mut self.calls[i as usize];
                *c = fresh(c.generation);
                i
            }
            None => {
                self.calls.push(fresh(0));
                self.calls.len() as u32 - 1
            }
        }
    }

    fn free_call(&mut self, call: u32) {
        let c = &mut self.calls[call as usize];
        c.state = CallState::Free;
        c.generation = c.generation.wrapping_add(1);
        self.free_calls.push(call);
    }

    fn request_connection(&mut self, q: &mut EventQueue<Event>, now: Micros, call: u32) {
        let c = self.calls[call as usize];
        let pool = &mut self.pools[c.pool as usize];
        match pool.take() {
            Some((slot, fresh)) => self.start_call(q, now, call, slot, fresh),
            None => pool.enqueue(call, c.generation),
        }
    }

    /// The call holds connection `slot`; the request goes out (after a handshake on a new
    /// connection) and the answer is scheduled, unless recommendations has stopped answering.
    fn start_call(&mut self, q: &mut EventQueue<Event>, now: Micros, call: u32, slot: u32, fresh: bool) {
        let c = &mut self.calls[call as usize];
        c.state = CallState::Sent;
        c.slot = slot;
        let (kind, pool_id, generation) = (c.kind, c.pool, c.generation);
        let pool = &mut self.pools[pool_id as usize];
        pool.hold(slot, kind);
        if pool_id == SHARED && pool.limit.is_some_and(|l| l > 0 && pool.recs_held == l) && self.pool_exhausted_at.is_none() {
            self.pool_exhausted_at = Some(now);
        }
        self.downstream_open_max = self.downstream_open_max.max(self.downstream_open());

        let rng = if kind == CallKind::CheckoutPrice { &mut self.checkout_rng } else { &mut self.home_rng };
        let reaches = now + if fresh { self.connect } else { 0 } + Self::jittered(rng, self.net_us, self.cv);
        let work = match kind {
            CallKind::Recs if reaches >= self.recs_stops_at => return, // accepted, never answered
            CallKind::Recs => Self::jittered(rng, self.recs_us, self.cv),
            CallKind::HomePrice | CallKind::CheckoutPrice => {
                libm::round(self.price_us + Self::late(rng, self.late_us)) as Micros
            }
        };
        let back = Self::jittered(rng, self.net_us, self.cv);
        q.schedule_at(reaches + work + back, Event::CallReturns { call, generation });
    }

    fn call_returns(&mut self, q: &mut EventQueue<Event>, now: Micros, call: u32, generation: u32) {
        let c = self.calls[call as usize];
        if c.generation != generation || c.state != CallState::Sent {
            return; // aborted meanwhile
        }
        self.free_call(call);
        self.release(q, now, c.pool, c.slot);
        self.settle(q, now, c);
    }

    /// The connection goes back to the pool: the first live waiter gets it, else it idles.
    fn release(&mut self, q: &mut EventQueue<Event>, now: Micros, pool_id: u8, slot: u32) {
        let pool = &mut self.pools[pool_id as usize];
        pool.unhold(slot);
        match self.next_waiter(pool_id) {
            Some(next) => self.start_call(q, now, next, slot, false),
            None => {
                let pool = &mut self.pools[pool_id as usize];
                pool.slots[slot as usize] = Slot::Idle;
                pool.idle.push(Reverse(slot));
            }
        }
    }

    /// An aborted request's connection cannot be reused: it is closed. A waiter, if any, opens
    /// a new connection in its place.
    fn destroy(&mut self, q: &mut EventQueue<Event>, now: Micros, pool_id: u8, slot: u32) {
        let pool = &mut self.pools[pool_id as usize];
        pool.unhold(slot);
        pool.open -= 1;
        pool.slots[slot as usize] = Slot::Closed;
        match self.next_waiter(pool_id) {
            Some(next) => {
                self.pools[pool_id as usize].open += 1;
                self.start_call(q, now, next, slot, true);
            }
            None => self.pools[pool_id as usize].closed.push(Reverse(slot)),
        }
    }

    fn next_waiter(&mut self, pool_id: u8) -> Option<u32> {
        let pool = &mut self.pools[pool_id as usize];
        while let Some((call, generation)) = pool.queue.pop_front() {
            let c = &self.calls[call as usize];
            if c.generation == generation && c.state == CallState::Queued {
                pool.waiting -= 1;
                return Some(call);
            }
        }
        None
    }

    /// Gives up on a call: out of the queue, or its connection closed.
    fn abort(&mut self, q: &mut EventQueue<Event>, now: Micros, call: u32) {
        let c = self.calls[call as usize];
        self.free_call(call);
        match c.state {
            CallState::Queued => self.pools[c.pool as usize].waiting -= 1,
            CallState::Sent => self.destroy(q, now, c.pool, c.slot),
            CallState::Free => {}
        }
    }

    fn recs_timeout(&mut self, q: &mut EventQueue<Event>, now: Micros, call: u32, generation: u32) {
        let c = self.calls[call as usize];
        if c.generation != generation || c.state == CallState::Free {
            return; // answered in time
        }
        self.recs_timed_out += 1;
        self.abort(q, now, call);
        self.settle(q, now, c); // the page renders without recommendations
    }

    /// A call is over (answered or timed out): tell the handler that made it.
    fn settle(&mut self, q: &mut EventQueue<Event>, now: Micros, c: Call) {
        match c.kind {
            CallKind::Recs | CallKind::HomePrice => {
                let home = &mut self.homes[c.owner as usize];
                home.unsettled -= 1;
                if home.unsettled == 0 {
                    q.schedule_at(now + self.render, Event::HomeResponds { home: c.owner });
                }
            }
            CallKind::CheckoutPrice => {
                let checkout = self.checkouts[c.owner as usize];
                let back = Self::jittered(&mut self.checkout_rng, self.net_us, self.cv);
                q.schedule_at(now + back, Event::CheckoutResponds { checkout: c.owner, generation: checkout.generation });
            }
        }
    }

    /// The client gets its answer (`ok`) or gives up; whichever comes first counts.
    fn checkout_ends(&mut self, q: &mut EventQueue<Event>, now: Micros, checkout: u32, generation: u32, ok: bool) {
        let c = self.checkouts[checkout as usize];
        if c.generation != generation || !c.pending {
            return;
        }
        let waited = now - c.sent;
        if ok {
            self.checkout_ok += 1;
            self.last_ok_sent = Some(c.sent);
        } else {
            self.checkout_failed += 1;
            self.first_failed_at.get_or_insert(now);
            // The handler stops when its caller leaves: its price call leaves the pool queue.
            if c.call != NONE && self.calls[c.call as usize].generation == c.call_generation {
                self.abort(q, now, c.call);
            }
        }
        self.checkout_latency.record(waited);
        if self.checkout_log.len() == CHECKOUT_LOG_CAPACITY {
            self.checkout_log.pop_front();
        }
        self.checkout_log.push_back(CheckoutOutcome { sent_ms: c.sent as f64 / 1000.0, latency_ms: waited as f64 / 1000.0, ok });
        let c = &mut self.checkouts[checkout as usize];
        c.pending = false;
        c.generation = c.generation.wrapping_add(1);
        self.free_checkouts.push(checkout);
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
        let shared = &self.pools[SHARED as usize];
        let recs = &self.pools[RECS_POOL as usize];
        self.charts.home_in_flight.push(t, [c.home_in_flight as f64]);
        self.charts.pool.push(
            t,
            [shared.in_use as f64, shared.recs_held as f64, shared.waiting as f64, recs.in_use as f64, self.downstream_open() as f64],
        );
        self.charts.checkout.push(t, [c.checkout_ok as f64, c.checkout_failed as f64, c.checkout_in_flight as f64]);
        q.schedule_in(SAMPLE_EVERY, Event::Sample);
    }
}
