//! What slow-server declares: its parameters and choices, presets, metrics, headline, sweep
//! and run length.

use crate::sim::Value;
use crate::sim::scenario::SweepDefault;
use crate::sim::{ParamSpec, Preset};

pub const MAX_SERVERS: usize = 8;
/// A run lasts 20 s, or longer when the slowdown (and B's ejection) come later: it always
/// shows 10 s after the slowdown, and 5 s after the ejection.
pub(super) const DEFAULT_DURATION_MS: u64 = 20_000;
pub(super) const SHOWN_AFTER_SLOWDOWN_MS: f64 = 10_000.0;
pub(super) const SHOWN_AFTER_EJECTION_MS: f64 = 5_000.0;

crate::choice! {
    /// How long a healthy server takes for one request.
    pub enum ServiceDist {
        Exponential = ("exponential", "Exponential", "The textbook M/M/1 case: most requests are quick, a few take several times the mean."),
        Lognormal = ("lognormal", "Lognormal", "A long tail: the spread is one and a half times the mean, like many real services."),
        Fixed = ("fixed", "Fixed", "Every request takes exactly the mean."),
    }
}

crate::choice! {
    /// How the load balancer picks a server for each request.
    pub enum Policy {
        RoundRobin = ("round-robin", "Round robin", "Each server in turn, whatever its load."),
        Random = ("random", "Random", "A server picked at random, whatever its load."),
        LeastOutstanding = ("least-outstanding", "Least outstanding", "The server with the fewest requests the balancer has open on it (a client that gave up no longer counts)."),
        TwoChoices = ("two-choices", "Two choices", "Two servers picked at random; the less busy one gets the request."),
    }
}

crate::config! {
    /// What the slow-server model reads from its parameters.
    pub struct SlowServerConfig in PARAMS {
        pub rate: f64 = ParamSpec::number("rate", "Arrival rate", "req/s", 150.0, (1.0, 3000.0, 1.0),
            "Requests per second arriving at the load balancer (Poisson)."),
        pub servers: usize = ParamSpec::number("servers", "Servers", "", 3.0, (1.0, MAX_SERVERS as f64, 1.0),
            "How many servers sit behind the load balancer: A, B, C, …"),
        pub workers: u32 = ParamSpec::number("workers", "Workers per server", "", 1.0, (1.0, 16.0, 1.0),
            "Requests each server works on at once; the rest wait in line, first come, first served."),
        pub service_ms: f64 = ParamSpec::number("service_ms", "Mean service time", "ms", 10.0, (1.0, 500.0, 1.0),
            "Average time a healthy server needs for one request."),
        pub service_dist: ServiceDist = ParamSpec::choice("service_dist", "Service time distribution", ServiceDist::OPTIONS,
            ServiceDist::Exponential as usize, "How much one request's service time varies around the mean."),
        pub slow_at_ms: f64 = ParamSpec::number("slow_at_ms", "B slows down at", "ms", 1000.0, (0.0, 600_000.0, 100.0),
            "The moment server B gets slower (or, with 'B fails', goes down)."),
        pub slowdown: f64 = ParamSpec::number("slowdown", "B's slowdown", "×", 5.0, (1.0, 50.0, 0.5),
            "B's service time is multiplied by this. B still passes its health checks."),
        pub policy: Policy = ParamSpec::choice("policy", "Balancing policy", Policy::OPTIONS, Policy::RoundRobin as usize,
            "How the load balancer picks a server for each request."),
        pub b_fails: bool = ParamSpec::toggle("b_fails", "B fails instead of slowing", false,
            "B refuses connections: the balancer picks again, by its policy, among the servers it has not tried, and health checks eject B."),
        pub eject_after_ms: f64 = ParamSpec::number("eject_after_ms", "Health checks eject B after", "ms", 2000.0, (0.0, 60_000.0, 100.0),
            "With 'B fails': how long failing health checks take to remove B from the pool.")
            .only_with(SlowServerConfig::b_fails, &["true"], "B passes its health checks"),
        pub timeout_ms: f64 = ParamSpec::number("timeout_ms", "Client timeout", "ms", 0.0, (0.0, 30_000.0, 10.0),
            "0 means no timeout. A timed-out request fails for the client; the server still works on it.").zero_means("off"),
        pub cancel_on_timeout: bool = ParamSpec::toggle("cancel_on_timeout", "Cancel work on timeout", false,
            "When on, a timeout also removes the request from the server (the caller left)."),
        pub backlog: usize = ParamSpec::number("backlog", "Backlog per server", "req", 10_000.0, (10.0, 100_000.0, 10.0),
            "How many requests a server holds waiting (its accept queue, connections whose client already \
             left included). Beyond it the server refuses new connections and the client gets an error at \
             once; the page says so when it happens. The default is far above every chapter run."),
    }
}

pub static PRESETS: &[Preset] = &[
    Preset {
        id: "chapter",
        label: "Round robin (the chapter)",
        description: "B becomes 5× slower at 1 s and keeps its share of traffic.",
        values: &[],
    },
    Preset {
        id: "least-outstanding",
        label: "Least outstanding",
        description: "The balancer sends each request to the server with the fewest in progress.",
        values: &[(SlowServerConfig::policy, "least-outstanding")],
    },
    Preset {
        id: "two-choices",
        label: "Power of two choices",
        description: "Pick two servers at random, send to the less busy one.",
        values: &[(SlowServerConfig::policy, "two-choices")],
    },
    Preset {
        id: "b-fails",
        label: "B fails instead",
        description: "Slow is worse than down: a dead B is ejected and p99 recovers.",
        values: &[(SlowServerConfig::b_fails, "true")],
    },
    Preset {
        id: "timeout",
        label: "Timeout, no cancellation",
        description: "A 500 ms client timeout: clients stop waiting, B's queue keeps growing.",
        values: &[(SlowServerConfig::timeout_ms, "500")],
    },
    Preset {
        id: "timeout-cancel",
        label: "Timeout with cancellation",
        description: "The same timeout, and B drops work whose caller left.",
        values: &[(SlowServerConfig::timeout_ms, "500"), (SlowServerConfig::cancel_on_timeout, "true")],
    },
];

crate::metrics! {
    /// What a slow-server run reports: the CLI's JSON, the stat cards, the sweeps.
    pub struct SlowServerMetrics in METRICS {
        pub arrived: u64 = ("Arrived", "req",
            "Requests that reached the load balancer."),
        pub completed: u64 = ("Completed", "req",
            "Requests answered before any timeout."),
        pub timed_out: u64 = ("Timed out", "req",
            "Requests whose client gave up."),
        pub in_flight_end: u64 = ("In flight", "req",
            "Clients still waiting for an answer: now, or when the run ended."),
        pub refused: u64 = ("Refused by a down B", "req",
            "Attempts B refused while it was down (with 'B fails'); the balancer picked again among the \
               servers not tried. Refusals by a full backlog are counted apart."),
        pub mean_ms: Option<f64> = ("Mean latency", "ms",
            "What clients waited on average (a timeout counts as its limit)."),
        pub p50_ms_before: Option<f64> = ("p50 before the slowdown", "ms",
            "Median wait of requests that arrived before the slowdown (a timeout counts as its limit)."),
        pub p99_ms_before: Option<f64> = ("p99 before the slowdown", "ms",
            "99th percentile wait of requests that arrived before the slowdown (a timeout counts as its limit)."),
        pub p50_ms_after: Option<f64> = ("p50 after the slowdown", "ms",
            "Median wait of requests that arrived after the slowdown (a timeout counts as its limit)."),
        pub p99_ms_after: Option<f64> = ("p99 after the slowdown, finished only", "ms",
            "99th percentile wait of requests that arrived after the slowdown and have finished or timed out."),
        pub p99_ms_after_with_waiting: Option<f64> = ("p99 after the slowdown", "ms",
            "99th percentile wait of requests that arrived after the slowdown, counting each one whose \
             client still waits at its wait so far (the least it will be): the tail still in the queues."),
        pub p99_ms_now: Option<f64> = ("p99 now (last 1 s)", "ms",
            "99th percentile wait of the requests that finished or timed out in the last second."),
        pub p99_ms_recent: Option<f64> = ("p99, last 5 s", "ms",
            "99th percentile of the last five seconds of the run."),
        pub b_queue: Option<u64> = ("B's queue", "req",
            "Requests at server B now (waiting and in service)."),
        pub mean_in_flight: f64 = ("Mean in flight", "req",
            "Time-averaged number of waiting clients."),
        pub littles_law_in_flight: f64 = ("Little's law", "req",
            "Arrival rate × mean latency: what Little's law predicts for the mean in flight (requests a full backlog refused, which waited no time, left out of the rate)."),
        pub littles_law_now: Option<f64> = ("Little's law now", "req",
            "Arrival rate × mean latency of the last second."),
        pub servers: Value = ("Servers", "",
            "Per server: requests served, largest and final queue."),
        pub before_count: u64 = ("Requests before the slowdown", "req",
            "How many waits the 'before' percentiles rest on."),
        pub after_count: u64 = ("Requests after the slowdown", "req",
            "How many waits the 'after' percentiles rest on (finished or timed out)."),
        pub after_waiting: u64 = ("Still waiting, sent after the slowdown", "req",
            "Requests sent after the slowdown whose client still waits: counted in the p99 after it at their wait so far."),
        pub timed_out_pct: Option<f64> = ("Timed out", "%",
            "Timed-out requests as a share of the requests that finished or timed out."),
        pub p99_ratio: Option<f64> = ("p99 after / before", "×",
            "p99 after the slowdown (the requests still waiting counted) divided by p99 before it, \
             each as its card shows it: the one ratio the page quotes."),
        pub backlog_full: u64 = ("Refused: backlog full", "req",
            "Requests refused because their server's backlog was full; they failed at once and count in no percentile."),
        pub b_ejected_at_ms: Option<f64> = ("B ejected at", "ms",
            "When health checks removed B from the pool (empty when they did not within the run)."),
    }
}

/// The metrics a reader looks at first.
pub static HEADLINE: &[&str] = &[SlowServerMetrics::p99_ms_after_with_waiting.key(), SlowServerMetrics::p99_ms_before.key(), SlowServerMetrics::b_queue.key(), SlowServerMetrics::timed_out.key()];

pub const SWEEP: SweepDefault =
    SweepDefault { x: SlowServerConfig::slowdown, from: 1.0, to: 8.0, steps: 15, by: Some(SlowServerConfig::policy), metric: SlowServerMetrics::p99_ms_after.key() };

