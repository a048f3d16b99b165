//! The cascade's declaration: its fixes, parameters, presets and metrics.

use crate::sim::scenario::SweepDefault;
use crate::sim::{ParamSpec, Preset};

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
        pub recs_timeout_ms: f64 = ParamSpec::number("recs_timeout_ms", "Recommendations timeout", "ms", 300.0, (10.0, 120_000.0, 10.0),
            "Used when the fix has a timeout: how long /home waits for recommendations, the wait for a \
             connection included. Then the call is cancelled, its connection closed, and the page renders without them.")
            .only_with(CascadeConfig::variant, &["timeout", "both"], "the fix has no timeout"),
        pub pool_size: u32 = ParamSpec::number("pool_size", "Pool size", "connections", 20.0, (1.0, 200.0, 1.0),
            "How many connections the shared pool may open to the downstream host (the chapter's run had 20)."),
        pub recs_pool_size: u32 = ParamSpec::number("recs_pool_size", "Recommendations pool size", "connections", 20.0, (1.0, 200.0, 1.0),
            "Used when the fix has a separate pool: how many connections recommendations' own pool may open.")
            .only_with(CascadeConfig::variant, &["bulkhead", "both"], "the fix has no separate pool"),
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
        pub recs_latency_ms: f64 = ParamSpec::number("recs_latency_ms", "Recommendations latency once slow", "ms", 0.0,
            (0.0, 120_000.0, 100.0),
            "From 'Recommendations stops at', how long recommendations takes to answer each call (a provider that \
             became slow, as in Chapter 1's Break 1: 30 s). 0, the chapter's measured run, means it never answers."),
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
pub(super) const TAIL_MS: u64 = 500;
pub(super) const DEFAULT_DURATION_MS: u64 = 15_500;

pub(super) static PRESETS: &[Preset] = &[
    Preset {
        id: "no-timeout",
        label: "No timeout",
        description: "No timeout and one shared pool of 20, as in the chapter's measured run (the chapter: 479 /home in flight, 4 of 99 checkouts succeeded).",
        values: &[(CascadeConfig::variant, "no-timeout"), (CascadeConfig::unbounded_pool, "false")],
    },
    Preset {
        id: "timeout",
        label: "300 ms timeout",
        description: "A 300 ms timeout on recommendations; the page renders without them (the chapter: 15 /home in flight, flat; 99 of 99 checkouts).",
        values: &[(CascadeConfig::variant, "timeout"), (CascadeConfig::unbounded_pool, "false")],
    },
    Preset {
        id: "bulkhead",
        label: "Separate pool",
        description: "A separate pool for recommendations, no timeout (the chapter: 480 /home in flight, still growing; 99 of 99 checkouts).",
        values: &[(CascadeConfig::variant, "bulkhead"), (CascadeConfig::unbounded_pool, "false")],
    },
    Preset {
        id: "both",
        label: "Timeout and separate pool",
        description: "A 300 ms timeout on recommendations and a separate pool for them.",
        values: &[(CascadeConfig::variant, "both"), (CascadeConfig::unbounded_pool, "false")],
    },
    Preset {
        id: "unbounded-pool",
        label: "No connection limit",
        description: "No timeout, and no limit on connections: a call that finds no free connection opens a new one.",
        values: &[(CascadeConfig::variant, "no-timeout"), (CascadeConfig::unbounded_pool, "true")],
    },
    Preset {
        id: "ch1-break-1",
        label: "Chapter 1, Break 1: the provider takes 30 s",
        description: "Recommendations plays the slow provider: 20 calls a second, answered in 500 ms for 10 s, then \
                      in 30 s each. 20/s × 30 s = 600 in flight instead of about 10; the shared pool of 20 fills in \
                      under a second and /checkout queues behind it.",
        values: &[
            ("variant", "no-timeout"),
            ("unbounded_pool", "false"),
            ("home_rate", "20"),
            ("recs_ms", "500"),
            ("recs_stops_at_ms", "10000"),
            ("recs_latency_ms", "30000"),
            ("load_ms", "40000"),
        ],
    },
    Preset {
        id: "ch1-break-1-fix",
        label: "Break 1, the answer: a 5 s timeout and its own pool",
        description: "The same slow provider behind a 5 s timeout and a pool of its own: at most 20/s × 5 s = 100 \
                      calls wait for it, and the checkouts keep the shared pool.",
        values: &[
            ("variant", "both"),
            ("unbounded_pool", "false"),
            ("home_rate", "20"),
            ("recs_ms", "500"),
            ("recs_stops_at_ms", "10000"),
            ("recs_latency_ms", "30000"),
            ("load_ms", "40000"),
            ("recs_timeout_ms", "5000"),
            ("recs_pool_size", "200"),
        ],
    },
];

crate::metrics! {
    /// What a cascade run reports: the CLI's JSON, the stat cards, the sweeps.
    pub struct CascadeMetrics in METRICS {
        pub home_in_flight_end: u64 = ("/home in flight after the load", "req",
            "/home handlers still running when the load stopped (the chapter's 'after 10 s'); until then, now."),
        pub home_in_flight_growth_per_s: Option<f64> = ("/home in-flight growth", "req/s",
            "How fast /home in flight changed over the last 5 s of the load, per second: near 0 is flat."),
        pub checkout_ok: u64 = ("/checkout succeeded", "req",
            "Checkouts answered before the client gave up."),
        pub checkout_failed: u64 = ("/checkout failed", "req",
            "Checkouts whose client gave up."),
        pub checkout_p99_ms: Option<f64> = ("/checkout p99, finished only", "ms",
            "The wait 99 in 100 /checkout clients did not exceed, of those answered or given up on; a failure counts \
             as the time until its client gave up."),
        pub checkout_p99_ms_with_waiting: Option<f64> = ("/checkout p99", "ms",
            "The wait 99 in 100 /checkout clients did not exceed, each client still waiting counted at its wait so \
             far (the least it will be); a failure counts as the time until its client gave up."),
        pub pool_in_use_max: u64 = ("Shared pool, most in use", "connections",
            "Most connections of the shared pool held by calls at once."),
        pub downstream_open_connections_max: u64 = ("Downstream connections, most", "connections",
            "Most connections open on the downstream host at once, from every pool."),
        pub home_arrived: u64 = ("/home arrived", "req",
            "/home requests sent by the load generator."),
        pub home_done: u64 = ("/home answered", "req",
            "/home requests whose page was rendered and sent."),
        pub home_in_flight_now: u64 = ("/home in flight now", "req",
            "/home handlers running now."),
        pub checkout_arrived: u64 = ("/checkout arrived", "req",
            "/checkout requests sent by the load generator."),
        pub checkout_waiting: u64 = ("/checkout waiting", "req",
            "Checkouts neither answered nor given up on yet."),
        pub checkout_p50_ms: Option<f64> = ("/checkout p50, finished only", "ms",
            "The wait half of the /checkout clients answered or given up on did not exceed."),
        pub checkout_p50_ms_with_waiting: Option<f64> = ("/checkout p50", "ms",
            "The wait half of the /checkout clients did not exceed, each client still waiting counted at its wait so far."),
        pub recs_timed_out: u64 = ("Recommendations timed out", "calls",
            "Recommendations calls aborted by their timeout (the page rendered without them)."),
        pub recs_pool_in_use_max: Option<u64> = ("Recommendations pool, most in use", "connections",
            "With the bulkhead: most connections of the recommendations pool in use at once."),
        pub pool_waiting_max: u64 = ("Shared pool, longest queue", "calls",
            "Most calls waiting at once for a connection of the shared pool."),
        pub pool_exhausted_ms: Option<f64> = ("Pool full of hung calls at", "ms",
            "When every connection of the shared pool was first held by a recommendations call (none if it never was)."),
        pub last_checkout_ok_sent_ms: Option<f64> = ("Last good checkout sent at", "ms",
            "When the latest successful /checkout was sent (none if none succeeded)."),
        pub first_checkout_failed_ms: Option<f64> = ("First checkout failed at", "ms",
            "When the first /checkout client gave up (none if none did)."),
        pub downstream_open_connections: u64 = ("Downstream connections now", "connections",
            "Connections open on the downstream host now."),
        pub checkout_queued: u64 = ("/checkout that waited for a connection", "req",
            "Checkouts whose price call found every connection of the shared pool taken and had to wait for one."),
        pub checkout_failed_queued: u64 = ("/checkout failed still waiting for a connection", "req",
            "Checkouts whose client gave up while their price call was still waiting for a connection: they never left the process."),
        pub checkout_abandoned_calls: u64 = ("Price calls for clients gone", "calls",
            "/checkout price calls answered after their client had given up: a connection used for an answer nobody reads."),
        pub pool_full_at_ms: Option<f64> = ("Shared pool full at", "ms",
            "When every connection of the shared pool was first in use, whatever held them (none if it never was, or \
               has no limit)."),
    }
}

pub(super) static HEADLINE: &[&str] = &[CascadeMetrics::home_in_flight_end.key(), CascadeMetrics::checkout_ok.key(), CascadeMetrics::checkout_failed.key(), CascadeMetrics::checkout_p99_ms_with_waiting.key()];

pub(super) const SWEEP: SweepDefault = SweepDefault {
    x: CascadeConfig::recs_timeout_ms,
    from: 50.0,
    to: 5000.0,
    steps: 15,
    by: Some(CascadeConfig::variant),
    metric: CascadeMetrics::checkout_ok.key(),
};

