//! Chapter 1, Part 3: "server B becomes 5× slower at 1 s but stays healthy. Predict what
//! happens to p99 under round robin, then watch B's queue."
//!
//! Open-loop Poisson arrivals go through a load balancer to `servers` servers, each with
//! `workers` workers and a FIFO queue. At `slow_at_ms` server B slows down (or, with
//! `b_fails`, refuses connections until health checks eject it). A client timeout ends the
//! client's wait; the server keeps working unless `cancel_on_timeout` is on.
//!
//! The balancer as nginx and Envoy behave:
//! - A connection a down B refuses is retried on another server chosen by the same policy
//!   among the servers not tried yet for this request (nginx's `proxy_next_upstream error`
//!   marks the peer tried and picks again, `ngx_http_upstream_round_robin.c`; Envoy's retries
//!   choose a host through the load balancer, `previous_hosts` keeping off the failed one), so
//!   B's share spreads over the healthy servers instead of landing on the next index.
//! - Least outstanding counts the requests the balancer has open on each server's upstream
//!   connections (nginx's `least_conn` counts `peer->conns`, Envoy's least request counts a
//!   host's active requests). When a client gives up the balancer closes its upstream request
//!   (nginx by default, `proxy_ignore_client_abort off`), so the count drops at once, even
//!   though the server, never told, may go on working on it (its queue still shows it).

mod reading;
pub use reading::prediction;

use std::collections::VecDeque;

use slotmap::{SlotMap, new_key_type};

use crate::sim::model::ModelOf;
use crate::sim::rng::{SimRng, ms_to_us};
use crate::sim::scenario::SweepDefault;
use crate::sim::stats::{Histogram, Series, WindowHistogram};
use crate::sim::{EventQueue, MS, MetricSpec, Micros, Model, ParamSpec, Preset, ScenarioSpec, Value};

pub const MAX_SERVERS: usize = 8;
/// A run lasts 20 s, or longer when the slowdown (and B's ejection) come later: it always
/// shows 10 s after the slowdown, and 5 s after the ejection.
const DEFAULT_DURATION_MS: u64 = 20_000;
const SHOWN_AFTER_SLOWDOWN_MS: f64 = 10_000.0;
const SHOWN_AFTER_EJECTION_MS: f64 = 5_000.0;
/// Live charts sample every 100 ms of simulated time; live percentiles cover the last second.
pub const SAMPLE_EVERY: Micros = 100 * MS;
const LIVE_WINDOW_SLICES: usize = 10;
const RECENT_WINDOW_SLICES: usize = 50;

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
            "With 'B fails': how long failing health checks take to remove B from the pool."),
        pub timeout_ms: f64 = ParamSpec::number("timeout_ms", "Client timeout", "ms", 0.0, (0.0, 30_000.0, 10.0),
            "0 means no timeout. A timed-out request fails for the client; the server still works on it."),
        pub cancel_on_timeout: bool = ParamSpec::toggle("cancel_on_timeout", "Cancel work on timeout", false,
            "When on, a timeout also removes the request from the server (the caller left)."),
        pub backlog: usize = ParamSpec::number("backlog", "Backlog per server", "req", 10_000.0, (10.0, 100_000.0, 10.0),
            "How many requests a server holds waiting (its accept queue, connections whose client already \
             left included). Beyond it the server refuses new connections and the client gets an error at \
             once; the page says so when it happens. The default is far above every chapter run."),
    }
}

pub static SPEC: ScenarioSpec = ScenarioSpec {
    id: "slow-server",
    title: "One slow server",
    chapter: "Chapter 1, Part 3: No timeout, as a cascade",
    summary: "Server B becomes 5× slower at 1 s but stays healthy. Predict what happens to p99 \
              under round robin, then watch B's queue.",
    params: PARAMS,
    presets: &[
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
            values: &[("policy", "least-outstanding")],
        },
        Preset {
            id: "two-choices",
            label: "Power of two choices",
            description: "Pick two servers at random, send to the less busy one.",
            values: &[("policy", "two-choices")],
        },
        Preset {
            id: "b-fails",
            label: "B fails instead",
            description: "Slow is worse than down: a dead B is ejected and p99 recovers.",
            values: &[("b_fails", "true")],
        },
        Preset {
            id: "timeout",
            label: "Timeout, no cancellation",
            description: "A 500 ms client timeout: clients stop waiting, B's queue keeps growing.",
            values: &[("timeout_ms", "500")],
        },
        Preset {
            id: "timeout-cancel",
            label: "Timeout with cancellation",
            description: "The same timeout, and B drops work whose caller left.",
            values: &[("timeout_ms", "500"), ("cancel_on_timeout", "true")],
        },
    ],
    metrics: &[
        MetricSpec { key: "arrived", label: "Arrived", unit: "req", help: "Requests that reached the load balancer." },
        MetricSpec { key: "completed", label: "Completed", unit: "req", help: "Requests answered before any timeout." },
        MetricSpec { key: "timed_out", label: "Timed out", unit: "req", help: "Requests whose client gave up." },
        MetricSpec {
            key: "in_flight_end",
            label: "In flight",
            unit: "req",
            help: "Clients still waiting for an answer: now, or when the run ended.",
        },
        MetricSpec {
            key: "refused",
            label: "Refused by a down B",
            unit: "req",
            help: "Attempts B refused while it was down (with 'B fails'); the balancer picked again among the \
                   servers not tried. Refusals by a full backlog are counted apart.",
        },
        MetricSpec {
            key: "mean_ms",
            label: "Mean latency",
            unit: "ms",
            help: "What clients waited on average (a timeout counts as its limit).",
        },
        MetricSpec {
            key: "p50_ms_before",
            label: "p50 before the slowdown",
            unit: "ms",
            help: "Median wait of requests that arrived before the slowdown (a timeout counts as its limit).",
        },
        MetricSpec {
            key: "p99_ms_before",
            label: "p99 before the slowdown",
            unit: "ms",
            help: "99th percentile wait of requests that arrived before the slowdown (a timeout counts as its limit).",
        },
        MetricSpec {
            key: "p50_ms_after",
            label: "p50 after the slowdown",
            unit: "ms",
            help: "Median wait of requests that arrived after the slowdown (a timeout counts as its limit).",
        },
        MetricSpec {
            key: "p99_ms_after",
            label: "p99 after the slowdown",
            unit: "ms",
            help: "99th percentile wait of requests that arrived after the slowdown and have finished or timed out.",
        },
        MetricSpec {
            key: "p99_ms_now",
            label: "p99 now (last 1 s)",
            unit: "ms",
            help: "99th percentile wait of the requests that finished or timed out in the last second.",
        },
        MetricSpec {
            key: "p99_ms_recent",
            label: "p99, last 5 s",
            unit: "ms",
            help: "99th percentile of the last five seconds of the run.",
        },
        MetricSpec {
            key: "b_queue",
            label: "B's queue",
            unit: "req",
            help: "Requests at server B now (waiting and in service).",
        },
        MetricSpec {
            key: "mean_in_flight",
            label: "Mean in flight",
            unit: "req",
            help: "Time-averaged number of waiting clients.",
        },
        MetricSpec {
            key: "littles_law_in_flight",
            label: "Little's law",
            unit: "req",
            help: "Arrival rate × mean latency: what Little's law predicts for the mean in flight (requests a full backlog refused, which waited no time, left out of the rate).",
        },
        MetricSpec {
            key: "littles_law_now",
            label: "Little's law now",
            unit: "req",
            help: "Arrival rate × mean latency of the last second.",
        },
        MetricSpec {
            key: "servers",
            label: "Servers",
            unit: "",
            help: "Per server: requests served, largest and final queue.",
        },
        MetricSpec {
            key: "before_count",
            label: "Requests before the slowdown",
            unit: "req",
            help: "How many waits the 'before' percentiles rest on.",
        },
        MetricSpec {
            key: "after_count",
            label: "Requests after the slowdown",
            unit: "req",
            help: "How many waits the 'after' percentiles rest on (finished or timed out).",
        },
        MetricSpec {
            key: "timed_out_pct",
            label: "Timed out",
            unit: "%",
            help: "Timed-out requests as a share of the requests that finished or timed out.",
        },
        MetricSpec {
            key: "p99_ratio",
            label: "p99 after / before",
            unit: "×",
            help: "p99 after the slowdown divided by p99 before it: the one ratio the page quotes.",
        },
        MetricSpec {
            key: "backlog_full",
            label: "Refused: backlog full",
            unit: "req",
            help: "Requests refused because their server's backlog was full; they failed at once and count in no percentile.",
        },
        MetricSpec {
            key: "b_ejected_at_ms",
            label: "B ejected at",
            unit: "ms",
            help: "When health checks removed B from the pool (empty when they did not within the run).",
        },
    ],
    headline: &["p99_ms_after", "p99_ms_before", "b_queue", "timed_out"],
    default_duration_ms: DEFAULT_DURATION_MS,
    sweep: SweepDefault { x: "slowdown", from: 1.0, to: 8.0, steps: 15, by: Some("policy"), metric: "p99_ms_after" },
    model: &ModelOf::<SlowServer>::NEW,
};

new_key_type! {
    /// A request the model is tracking.
    pub struct RequestKey;
}

#[derive(Clone, Copy, Debug)]
pub enum Event {
    Arrival,
    Done(RequestKey),
    Timeout(RequestKey),
    BChanges,
    EjectB,
    Sample,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Stage {
    Queued,
    InService,
    /// Cancelled while queued; dropped when the queue reaches it.
    Cancelled,
}

#[derive(Clone, Copy, Debug)]
struct Request {
    arrived: Micros,
    server: u8,
    stage: Stage,
    /// The client stopped waiting (timed out).
    abandoned: bool,
    /// The balancer has the request open on its server's upstream connection (counted in
    /// that server's `proxied`).
    proxied: bool,
}

/// One server as the simulation sees it.
#[derive(Clone, Debug, Default)]
pub struct Server {
    queue: VecDeque<RequestKey>,
    in_service: Vec<RequestKey>,
    /// Requests at this server: queued (not cancelled) plus in service.
    outstanding: u32,
    /// Requests the balancer has open on this server, whose clients still wait: what least
    /// outstanding and two choices compare.
    proxied: u32,
    served: u64,
    max_outstanding: u32,
    factor: f64,
    down: bool,
    ejected: bool,
}

impl Server {
    pub fn outstanding(&self) -> u32 {
        self.outstanding
    }
    pub fn served(&self) -> u64 {
        self.served
    }
    /// Requests the balancer has open on this server (whose clients still wait).
    pub fn proxied(&self) -> u32 {
        self.proxied
    }
    pub fn max_outstanding(&self) -> u32 {
        self.max_outstanding
    }
    pub fn is_down(&self) -> bool {
        self.down
    }
    pub fn is_ejected(&self) -> bool {
        self.ejected
    }
}

pub fn server_name(i: usize) -> char {
    (b'A' + i as u8) as char
}

/// Queue depth per server at one sample (unused servers stay 0).
#[derive(Clone, Copy, Debug, Default)]
pub struct QueueSample {
    pub depth: [f64; MAX_SERVERS],
}

/// p50 and p99 over the last second (NaN where nothing finished).
#[derive(Clone, Copy, Debug)]
pub struct LatencySample {
    pub p50_ms: f64,
    pub p99_ms: f64,
}

/// Clients waiting now, and what Little's law predicts (rate × mean latency of the window).
#[derive(Clone, Copy, Debug)]
pub struct InFlightSample {
    pub in_flight: f64,
    pub littles_law: f64,
}

/// Chart data sampled every [`SAMPLE_EVERY`].
pub struct Charts {
    pub queues: Series<QueueSample>,
    pub latency: Series<LatencySample>,
    pub in_flight: Series<InFlightSample>,
}

/// The model: a load balancer in front of `servers` FIFO servers, one of which slows down.
pub struct SlowServer {
    config: SlowServerConfig,
    end: Micros,
    service_us: f64,
    slow_at: Micros,
    eject_after: Micros,
    timeout: Micros,

    arrivals_rng: SimRng,
    service_rng: SimRng,
    balance_rng: SimRng,

    servers: Vec<Server>,
    /// Servers the balancer still sends to.
    eligible: Vec<u8>,
    next_rr: usize,
    /// The rotation of retries after a refused connection.
    next_retry_rr: usize,
    requests: SlotMap<RequestKey, Request>,

    arrived: u64,
    completed: u64,
    timed_out: u64,
    refused: u64,
    backlog_full: u64,
    in_flight: u64,
    /// ∫ in_flight dt, in request·µs, for the time-averaged in-flight count.
    in_flight_area: u128,
    last_change: Micros,

    all: Histogram,
    before: Histogram,
    after: Histogram,
    live: WindowHistogram,
    recent: WindowHistogram,
    /// The longest server backlog at each of the last `RECENT_WINDOW_SLICES` samples, oldest
    /// first: whether a queue is still growing, even while the p99 window reaches back before
    /// the slowdown.
    longest_queue: VecDeque<u32>,
    charts: Charts,
}

impl SlowServer {
    pub fn servers(&self) -> &[Server] {
        &self.servers
    }

    pub fn charts(&self) -> &Charts {
        &self.charts
    }

    pub fn slow_at(&self) -> Micros {
        self.slow_at
    }

    /// When health checks eject B (only with `b_fails`), whether or not the run gets there.
    pub fn ejected_at(&self) -> Option<Micros> {
        self.config.b_fails.then(|| self.slow_at + self.eject_after)
    }

    /// When B was ejected, if it has been by `now`.
    pub fn ejected_by(&self, now: Micros) -> Option<Micros> {
        self.ejected_at().filter(|&t| self.servers.get(1).is_some_and(|b| b.ejected) && t <= now)
    }

    /// The arrival rate less the share a full backlog refused (which waited no time at all):
    /// the λ of Little's law for the waits that were recorded.
    fn accepted_rate(&self) -> f64 {
        let refused = if self.arrived > 0 { self.backlog_full as f64 / self.arrived as f64 } else { 0.0 };
        self.config.rate * (1.0 - refused)
    }

    /// p99 of the requests that arrived after the slowdown over p99 of those before it, to the
    /// 0.1 the page shows, so that the card, the sentence and the prediction's verdict agree.
    pub fn p99_ratio(&self) -> Option<f64> {
        let before = self.before.quantile(0.99)? as f64;
        let after = self.after.quantile(0.99)? as f64;
        (before > 0.0).then(|| libm::round(after / before * 10.0) / 10.0)
    }

    /// Timed-out requests as a share of those that finished or timed out.
    pub fn timed_out_pct(&self) -> Option<f64> {
        let ended = self.completed + self.timed_out;
        (ended > 0).then(|| 100.0 * self.timed_out as f64 / ended as f64)
    }

    pub fn in_flight(&self) -> u64 {
        self.in_flight
    }

    /// What Little's law predicts for the number in flight now: rate × mean latency of the
    /// last second.
    pub fn littles_law_now(&self) -> Option<f64> {
        self.live.mean().map(|mean_us| self.config.rate * mean_us / 1e6)
    }

    pub fn arrived(&self) -> u64 {
        self.arrived
    }
}

impl Model for SlowServer {
    type Config = SlowServerConfig;
    type Event = Event;

    fn new(config: SlowServerConfig, seed: u64, end: Micros, queue: &mut EventQueue<Event>) -> Self {
        let servers = config.servers;
        let mut model = Self {
            end,
            service_us: config.service_ms * 1000.0,
            slow_at: ms_to_us(config.slow_at_ms),
            eject_after: ms_to_us(config.eject_after_ms),
            timeout: ms_to_us(config.timeout_ms),
            arrivals_rng: SimRng::stream(seed, 1),
            service_rng: SimRng::stream(seed, 2),
            balance_rng: SimRng::stream(seed, 3),
            servers: (0..servers).map(|_| Server { factor: 1.0, ..Server::default() }).collect(),
            eligible: (0..servers as u8).collect(),
            next_rr: 0,
            next_retry_rr: 0,
            requests: SlotMap::with_key(),
            arrived: 0,
            completed: 0,
            timed_out: 0,
            refused: 0,
            backlog_full: 0,
            in_flight: 0,
            in_flight_area: 0,
            last_change: 0,
            all: Histogram::new(),
            before: Histogram::new(),
            after: Histogram::new(),
            live: WindowHistogram::new(LIVE_WINDOW_SLICES),
            recent: WindowHistogram::new(RECENT_WINDOW_SLICES),
            longest_queue: VecDeque::with_capacity(RECENT_WINDOW_SLICES + 1),
            charts: Charts { queues: Series::new(1200), latency: Series::new(1200), in_flight: Series::new(1200) },
            config,
        };
        let first = model.interarrival();
        queue.schedule_at(first, Event::Arrival);
        if servers > 1 {
            queue.schedule_at(model.slow_at, Event::BChanges);
        }
        queue.schedule_at(0, Event::Sample);
        model
    }

    fn handle(&mut self, q: &mut EventQueue<Event>, now: Micros, event: Event) {
        match event {
            Event::Arrival => self.arrival(q, now),
            Event::Done(key) => self.done(q, now, key),
            Event::Timeout(key) => self.timeout(q, now, key),
            Event::BChanges => self.b_changes(q, now),
            Event::EjectB => {
                self.servers[1].ejected = true;
                self.eligible.retain(|&s| s != 1);
            }
            Event::Sample => self.sample(q, now),
        }
    }

    fn metrics(&self, now: Micros) -> Vec<(&'static str, Value)> {
        let ms = |h: &Histogram, q: f64| h.quantile_ms(q).map_or(Value::Null, Value::num);
        // The area so far, plus the stretch since the last change.
        let area = self.in_flight_area + self.in_flight as u128 * (now - self.last_change) as u128;
        let mean_in_flight = if now > 0 { area as f64 / now as f64 } else { 0.0 };
        let mean_latency_s = self.all.mean().unwrap_or(0.0) / 1e6;
        vec![
            ("arrived", Value::count(self.arrived)),
            ("completed", Value::count(self.completed)),
            ("timed_out", Value::count(self.timed_out)),
            ("in_flight_end", Value::count(self.in_flight)),
            ("refused", Value::count(self.refused)),
            ("mean_ms", self.all.mean().map_or(Value::Null, |us| Value::num(us / 1000.0))),
            ("p50_ms_before", ms(&self.before, 0.5)),
            ("p99_ms_before", ms(&self.before, 0.99)),
            ("p50_ms_after", ms(&self.after, 0.5)),
            ("p99_ms_after", ms(&self.after, 0.99)),
            ("p99_ms_now", self.live.quantile_ms(0.99).map_or(Value::Null, Value::num)),
            ("p99_ms_recent", self.recent.quantile_ms(0.99).map_or(Value::Null, Value::num)),
            ("b_queue", self.servers.get(1).map_or(Value::Null, |b| Value::count(b.outstanding as u64))),
            ("mean_in_flight", Value::num(mean_in_flight)),
            ("littles_law_in_flight", Value::num(self.accepted_rate() * mean_latency_s)),
            ("littles_law_now", self.littles_law_now().map_or(Value::Null, Value::num)),
            ("servers", Value::List(self.servers.iter().enumerate().map(|(i, s)| server_record(i, s)).collect())),
            ("before_count", Value::count(self.before.count())),
            ("after_count", Value::count(self.after.count())),
            ("timed_out_pct", self.timed_out_pct().map_or(Value::Null, Value::num)),
            ("p99_ratio", self.p99_ratio().map_or(Value::Null, Value::num)),
            ("backlog_full", Value::count(self.backlog_full)),
            ("b_ejected_at_ms", self.ejected_by(now).map_or(Value::Null, |t| Value::num(t as f64 / 1000.0))),
        ]
    }

    fn config(&self) -> &SlowServerConfig {
        &self.config
    }

    fn run_length_ms(c: &SlowServerConfig) -> Option<u64> {
        let mut ms = c.slow_at_ms + SHOWN_AFTER_SLOWDOWN_MS;
        if c.b_fails {
            ms = ms.max(c.slow_at_ms + c.eject_after_ms + SHOWN_AFTER_EJECTION_MS);
        }
        Some((ms as u64).max(DEFAULT_DURATION_MS))
    }
}

fn server_record(i: usize, s: &Server) -> Vec<(&'static str, Value)> {
    vec![
        ("name", Value::Text(server_name(i).to_string())),
        ("served", Value::count(s.served)),
        ("max_queue", Value::count(s.max_outstanding as u64)),
        ("final_queue", Value::count(s.outstanding as u64)),
    ]
}

impl SlowServer {
    fn interarrival(&mut self) -> Micros {
        (self.arrivals_rng.exponential(1e6 / self.config.rate) as Micros).max(1)
    }

    fn service_time(&mut self, server: usize) -> Micros {
        let base = match self.config.service_dist {
            ServiceDist::Exponential => self.service_rng.exponential(self.service_us),
            ServiceDist::Lognormal => self.service_rng.lognormal(self.service_us, 1.5),
            ServiceDist::Fixed => self.service_us,
        };
        ((base * self.servers[server].factor) as Micros).max(1)
    }

    /// Adds the in-flight area up to `now`.
    fn settle_area(&mut self, now: Micros) {
        self.in_flight_area += self.in_flight as u128 * (now - self.last_change) as u128;
        self.last_change = now;
    }

    fn arrival(&mut self, q: &mut EventQueue<Event>, now: Micros) {
        let gap = self.interarrival();
        q.schedule_in(gap, Event::Arrival);
        self.settle_area(now);
        self.arrived += 1;
        self.in_flight += 1;
        let key = self.requests.insert(Request {
            arrived: now,
            server: 0,
            stage: Stage::Queued,
            abandoned: false,
            proxied: false,
        });
        if self.dispatch(q, key) && self.timeout > 0 {
            q.schedule_in(self.timeout, Event::Timeout(key));
        }
    }

    /// The balancer's choice among the servers it still considers healthy and has not tried
    /// for this request (`tried`: a bit per server); None when none is left.
    fn pick(&mut self, tried: u32) -> Option<usize> {
        let mut candidates = [0u8; MAX_SERVERS];
        let mut n = 0;
        for &s in self.eligible.iter().filter(|&&s| tried & (1 << s) == 0) {
            candidates[n] = s;
            n += 1;
        }
        if n == 0 {
            return None;
        }
        let load = |s: &Self, i: usize| s.servers[candidates[i] as usize].proxied;
        // A retry keeps its own rotation, so that B's share alternates over the others.
        let rotation = if tried == 0 { &mut self.next_rr } else { &mut self.next_retry_rr };
        let choice = match self.config.policy {
            Policy::RoundRobin => {
                let i = *rotation % n;
                *rotation = i + 1;
                i
            }
            Policy::Random => self.balance_rng.below(n as u64) as usize,
            Policy::LeastOutstanding => {
                // Start the scan at a rotating index so ties spread evenly.
                let start = *rotation % n;
                *rotation = start + 1;
                (0..n).map(|k| (start + k) % n).min_by_key(|&i| load(self, i)).unwrap_or(0)
            }
            Policy::TwoChoices => {
                let a = self.balance_rng.below(n as u64) as usize;
                let b = if n > 1 { (a + 1 + self.balance_rng.below(n as u64 - 1) as usize) % n } else { a };
                if load(self, b) < load(self, a) { b } else { a }
            }
        };
        Some(candidates[choice] as usize)
    }

    /// Sends a request to a server the balancer picks. A server that is down refuses the
    /// connection and the balancer picks again among the servers not tried yet. False when
    /// the server's backlog was full: the request failed at once.
    fn dispatch(&mut self, q: &mut EventQueue<Event>, key: RequestKey) -> bool {
        let mut tried = 0u32;
        let server = loop {
            let Some(server) = self.pick(tried) else {
                // Every server the balancer knows is down: nothing can answer.
                return true;
            };
            if !self.servers[server].down {
                break server;
            }
            self.refused += 1;
            tried |= 1 << server;
        };
        if self.servers[server].queue.len() >= self.config.backlog {
            self.refuse(q.now(), key);
            return false;
        }
        let r = &mut self.requests[key];
        r.server = server as u8;
        r.stage = Stage::Queued;
        r.proxied = true;
        let s = &mut self.servers[server];
        s.proxied += 1;
        s.outstanding += 1;
        s.max_outstanding = s.max_outstanding.max(s.outstanding);
        if (s.in_service.len() as u32) < self.config.workers {
            self.start(q, server, key);
        } else {
            s.queue.push_back(key);
        }
        true
    }

    /// The server's accept queue is full: the connection is refused and the client fails at once.
    fn refuse(&mut self, now: Micros, key: RequestKey) {
        self.requests.remove(key);
        self.settle_area(now);
        self.in_flight -= 1;
        self.backlog_full += 1;
    }

    fn start(&mut self, q: &mut EventQueue<Event>, server: usize, key: RequestKey) {
        let duration = self.service_time(server);
        self.servers[server].in_service.push(key);
        let r = &mut self.requests[key];
        r.stage = Stage::InService;
        q.schedule_in(duration, Event::Done(key));
    }

    /// Starts the next queued request on `server`, dropping ones cancelled while waiting.
    fn start_next(&mut self, q: &mut EventQueue<Event>, server: usize) {
        while (self.servers[server].in_service.len() as u32) < self.config.workers {
            let Some(key) = self.servers[server].queue.pop_front() else { return };
            if self.requests[key].stage == Stage::Cancelled {
                self.requests.remove(key);
            } else {
                self.start(q, server, key);
            }
        }
    }

    /// Takes a request out of service at `server`.
    fn leave_server(&mut self, server: usize, key: RequestKey) {
        let s = &mut self.servers[server];
        if let Some(pos) = s.in_service.iter().position(|&x| x == key) {
            s.in_service.swap_remove(pos);
        }
        s.outstanding -= 1;
    }

    /// A request's service ends. (A request's key outlives none of its events' relevance: one
    /// that timed out and was cancelled, or was resent after B went down, has a new key or
    /// none, so its old events find nothing and are ignored.)
    fn done(&mut self, q: &mut EventQueue<Event>, now: Micros, key: RequestKey) {
        let Some(r) = self.requests.remove(key) else { return };
        let server = r.server as usize;
        if r.proxied {
            self.servers[server].proxied -= 1;
        }
        self.leave_server(server, key);
        self.servers[server].served += 1;
        if !r.abandoned {
            self.settle_area(now);
            self.in_flight -= 1;
            self.completed += 1;
            self.record_latency(r.arrived, now - r.arrived);
        }
        self.start_next(q, server);
    }

    fn timeout(&mut self, q: &mut EventQueue<Event>, now: Micros, key: RequestKey) {
        let Some(&r) = self.requests.get(key) else { return }; // answered in time
        if r.abandoned {
            return;
        }
        self.settle_area(now);
        self.in_flight -= 1;
        self.timed_out += 1;
        self.record_latency(r.arrived, self.timeout);
        self.requests[key].abandoned = true;
        // The balancer closes the upstream request when its client leaves.
        if r.proxied {
            self.requests[key].proxied = false;
            self.servers[r.server as usize].proxied -= 1;
        }
        if !self.config.cancel_on_timeout {
            return; // timeouts stop the waiter, not the worker
        }
        match r.stage {
            Stage::Queued => {
                self.requests[key].stage = Stage::Cancelled;
                self.servers[r.server as usize].outstanding -= 1;
            }
            Stage::InService => {
                self.leave_server(r.server as usize, key);
                self.requests.remove(key);
                self.start_next(q, r.server as usize);
            }
            Stage::Cancelled => {}
        }
    }

    fn b_changes(&mut self, q: &mut EventQueue<Event>, now: Micros) {
        if !self.config.b_fails {
            self.servers[1].factor = self.config.slowdown;
            return;
        }
        // B goes down: its connections reset, and the balancer resends what B held.
        self.servers[1].down = true;
        q.schedule_at(now + self.eject_after, Event::EjectB);
        let b = &mut self.servers[1];
        let held: Vec<RequestKey> = b.in_service.drain(..).chain(b.queue.drain(..)).collect();
        b.outstanding = 0;
        b.proxied = 0;
        for key in held {
            let r = self.requests.remove(key).expect("a server holds live requests");
            if r.stage == Stage::Cancelled || r.abandoned {
                continue;
            }
            // A new key: the reset attempt's pending events now find nothing. A new timeout
            // covers what is left of the client's wait.
            let key = self.requests.insert(Request { proxied: false, ..r });
            if self.timeout > 0 {
                let remaining = (r.arrived + self.timeout).saturating_sub(now);
                q.schedule_in(remaining, Event::Timeout(key));
            }
            // A refused request's timeout finds no request and is ignored.
            self.dispatch(q, key);
        }
    }

    fn record_latency(&mut self, arrived: Micros, latency: Micros) {
        self.all.record(latency);
        if arrived < self.slow_at {
            self.before.record(latency)
        } else {
            self.after.record(latency)
        }
        self.live.record(latency);
        self.recent.record(latency);
    }

    fn sample(&mut self, q: &mut EventQueue<Event>, now: Micros) {
        let t = now as f64 / 1000.0;
        let mut queues = QueueSample::default();
        for (d, s) in queues.depth.iter_mut().zip(&self.servers) {
            *d = s.outstanding as f64;
        }
        self.charts.queues.push(t, queues);
        let p = |h: &WindowHistogram, q| h.quantile_ms(q).unwrap_or(f64::NAN);
        self.charts.latency.push(t, LatencySample { p50_ms: p(&self.live, 0.5), p99_ms: p(&self.live, 0.99) });
        let little = self.live.mean().map_or(f64::NAN, |us| self.config.rate * us / 1e6);
        self.charts.in_flight.push(t, InFlightSample { in_flight: self.in_flight as f64, littles_law: little });
        self.live.rotate();
        self.recent.rotate();
        self.longest_queue.push_back(self.servers.iter().map(|s| s.outstanding).max().unwrap_or(0));
        if self.longest_queue.len() > RECENT_WINDOW_SLICES {
            self.longest_queue.pop_front();
        }
        q.schedule_in(SAMPLE_EVERY, Event::Sample);
    }
}
