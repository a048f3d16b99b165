//! Chapter 1, Part 3: "server B becomes 5× slower at 1 s but stays healthy. Predict what
//! happens to p99 under round robin, then watch B's queue."
//!
//! Open-loop Poisson arrivals go through a load balancer to `servers` servers, each with
//! `workers` workers and a FIFO queue. At `slow_at_ms` server B slows down (or, with
//! `b_fails`, refuses connections until health checks eject it). A client timeout ends the
//! client's wait; the server keeps working unless `cancel_on_timeout` is on.

use std::collections::VecDeque;

use crate::sim::rng::{SimRng, ms_to_us};
use crate::sim::stats::{Histogram, Series, WindowHistogram};
use crate::sim::{EventQueue, MetricSpec, Micros, MS, ParamSpec, Params, Preset, ScenarioSpec, Simulation, Value};

pub const POLICIES: &[&str] = &["round-robin", "random", "least-outstanding", "two-choices"];
pub const SERVICE_DISTS: &[&str] = &["exponential", "lognormal", "fixed"];
pub const MAX_SERVERS: usize = 8;
/// Live charts sample every 100 ms of simulated time; live percentiles cover the last second.
pub const SAMPLE_EVERY: Micros = 100 * MS;
const LIVE_WINDOW_SLICES: usize = 10;
const RECENT_WINDOW_SLICES: usize = 50;

pub static SPEC: ScenarioSpec = ScenarioSpec {
    id: "slow-server",
    title: "One slow server",
    chapter: "Chapter 1, Part 3: No timeout, as a cascade",
    summary: "Server B becomes 5× slower at 1 s but stays healthy. Predict what happens to p99 \
              under round robin, then watch B's queue.",
    params: &[
        ParamSpec::number("rate", "Arrival rate", "req/s", 150.0, (1.0, 3000.0, 1.0),
            "Requests per second arriving at the load balancer (Poisson)."),
        ParamSpec::number("servers", "Servers", "", 3.0, (1.0, MAX_SERVERS as f64, 1.0),
            "How many servers sit behind the load balancer: A, B, C, …"),
        ParamSpec::number("workers", "Workers per server", "", 1.0, (1.0, 16.0, 1.0),
            "Requests each server works on at once; the rest wait in its FIFO queue."),
        ParamSpec::number("service_ms", "Mean service time", "ms", 10.0, (1.0, 500.0, 1.0),
            "Average time a healthy server needs for one request."),
        ParamSpec::choice("service_dist", "Service time distribution", SERVICE_DISTS, 0,
            "Exponential (the textbook M/M/1 case), lognormal (a long tail, CV 1.5) or fixed."),
        ParamSpec::number("slow_at_ms", "B slows down at", "ms", 1000.0, (0.0, 600_000.0, 100.0),
            "The moment server B gets slower (or, with 'B fails', goes down)."),
        ParamSpec::number("slowdown", "B's slowdown", "×", 5.0, (1.0, 50.0, 0.5),
            "B's service time is multiplied by this. B still passes its health checks."),
        ParamSpec::choice("policy", "Balancing policy", POLICIES, 0,
            "How the load balancer picks a server for each request."),
        ParamSpec::toggle("b_fails", "B fails instead of slowing", false,
            "B refuses connections: the balancer retries the next server and health checks eject B."),
        ParamSpec::number("eject_after_ms", "Health checks eject B after", "ms", 2000.0, (0.0, 60_000.0, 100.0),
            "With 'B fails': how long failing health checks take to remove B from the pool."),
        ParamSpec::number("timeout_ms", "Client timeout", "ms", 0.0, (0.0, 30_000.0, 10.0),
            "0 means no timeout. A timed-out request fails for the client; the server still works on it."),
        ParamSpec::toggle("cancel_on_timeout", "Cancel work on timeout", false,
            "When on, a timeout also removes the request from the server (the caller left)."),
    ],
    presets: &[
        Preset { id: "chapter", label: "Round robin (the chapter)", description:
            "B becomes 5× slower at 1 s and keeps its share of traffic.", values: &[] },
        Preset { id: "least-outstanding", label: "Least outstanding", description:
            "The balancer sends each request to the server with the fewest in progress.",
            values: &[("policy", "least-outstanding")] },
        Preset { id: "two-choices", label: "Power of two choices", description:
            "Pick two servers at random, send to the less busy one.", values: &[("policy", "two-choices")] },
        Preset { id: "b-fails", label: "B fails instead", description:
            "Slow is worse than down: a dead B is ejected and p99 recovers.", values: &[("b_fails", "true")] },
        Preset { id: "timeout", label: "Timeout, no cancellation", description:
            "A 500 ms client timeout: clients stop waiting, B's queue keeps growing.",
            values: &[("timeout_ms", "500")] },
        Preset { id: "timeout-cancel", label: "Timeout with cancellation", description:
            "The same timeout, and B drops work whose caller left.",
            values: &[("timeout_ms", "500"), ("cancel_on_timeout", "true")] },
    ],
    metrics: &[
        MetricSpec { key: "arrived", label: "Arrived", unit: "req", help: "Requests that reached the load balancer." },
        MetricSpec { key: "completed", label: "Completed", unit: "req", help: "Requests answered before any timeout." },
        MetricSpec { key: "timed_out", label: "Timed out", unit: "req", help: "Requests whose client gave up." },
        MetricSpec { key: "in_flight_end", label: "In flight at end", unit: "req", help: "Clients still waiting when the run ended." },
        MetricSpec { key: "refused", label: "Refused connections", unit: "req", help: "Attempts B refused; the balancer retried them elsewhere." },
        MetricSpec { key: "mean_ms", label: "Mean latency", unit: "ms", help: "What clients waited on average (a timeout counts as its limit)." },
        MetricSpec { key: "p50_ms_before", label: "p50 before", unit: "ms", help: "Median latency of requests that arrived before the slowdown." },
        MetricSpec { key: "p99_ms_before", label: "p99 before", unit: "ms", help: "99th percentile before the slowdown." },
        MetricSpec { key: "p50_ms_after", label: "p50 after", unit: "ms", help: "Median latency of requests that arrived after the slowdown." },
        MetricSpec { key: "p99_ms_after", label: "p99 after", unit: "ms", help: "99th percentile after the slowdown." },
        MetricSpec { key: "p99_ms_now", label: "p99 now", unit: "ms", help: "99th percentile of the last second." },
        MetricSpec { key: "p99_ms_recent", label: "p99, last 5 s", unit: "ms", help: "99th percentile of the last five seconds of the run." },
        MetricSpec { key: "b_queue", label: "B's queue", unit: "req", help: "Requests at server B now (waiting and in service)." },
        MetricSpec { key: "mean_in_flight", label: "Mean in flight", unit: "req", help: "Time-averaged number of waiting clients." },
        MetricSpec { key: "littles_law_in_flight", label: "Little's law", unit: "req", help: "Arrival rate × mean latency: what Little's law predicts for the mean in flight." },
        MetricSpec { key: "littles_law_now", label: "Little's law now", unit: "req", help: "Arrival rate × mean latency of the last second." },
        MetricSpec { key: "servers", label: "Servers", unit: "", help: "Per server: requests served, largest and final queue." },
    ],
    default_duration_ms: 20_000,
    build: |params, seed, duration| Box::new(SlowServer::new(params, seed, duration)),
};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Policy {
    RoundRobin,
    Random,
    LeastOutstanding,
    TwoChoices,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum ServiceDist {
    Exponential,
    Lognormal,
    Fixed,
}

#[derive(Clone, Copy, Debug)]
enum Event {
    Arrival,
    Done { slot: u32, generation: u32 },
    Timeout { slot: u32, generation: u32 },
    BChanges,
    EjectB,
    Sample,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Stage {
    Free,
    Queued,
    InService,
    /// Cancelled while queued; freed when the queue reaches it.
    Cancelled,
}

#[derive(Clone, Copy, Debug)]
struct Request {
    arrived: Micros,
    server: u8,
    stage: Stage,
    /// The client stopped waiting (timed out).
    abandoned: bool,
    generation: u32,
}

/// One server as the simulation sees it.
#[derive(Clone, Debug, Default)]
pub struct Server {
    queue: VecDeque<u32>,
    in_service: Vec<u32>,
    /// Requests at this server: queued (not cancelled) plus in service.
    outstanding: u32,
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

/// Chart data sampled every [`SAMPLE_EVERY`].
pub struct Charts {
    /// Queue depth per server (unused columns stay 0).
    pub queues: Series<MAX_SERVERS>,
    /// p50 and p99 over the last second (NaN where nothing finished).
    pub latency: Series<2>,
    /// Clients waiting now, and what Little's law predicts (rate × mean latency of the window).
    pub in_flight: Series<2>,
}

pub struct SlowServer {
    queue: EventQueue<Event>,
    model: Model,
}

struct Model {
    end: Micros,
    rate: f64,
    workers: u32,
    service_us: f64,
    dist: ServiceDist,
    slow_at: Micros,
    slowdown: f64,
    policy: Policy,
    b_fails: bool,
    eject_after: Micros,
    timeout: Micros,
    cancel_on_timeout: bool,

    arrivals_rng: SimRng,
    service_rng: SimRng,
    balance_rng: SimRng,

    servers: Vec<Server>,
    /// Servers the balancer still sends to.
    eligible: Vec<u8>,
    next_rr: usize,
    requests: Vec<Request>,
    free_slots: Vec<u32>,

    arrived: u64,
    completed: u64,
    timed_out: u64,
    refused: u64,
    in_flight: u64,
    /// ∫ in_flight dt, in request·µs, for the time-averaged in-flight count.
    in_flight_area: u128,
    last_change: Micros,

    all: Histogram,
    before: Histogram,
    after: Histogram,
    live: WindowHistogram,
    recent: WindowHistogram,
    charts: Charts,
}

impl SlowServer {
    pub fn new(params: &Params, seed: u64, end: Micros) -> Self {
        let servers = params.get("servers") as usize;
        let mut queue = EventQueue::new();
        let model = Model {
            end,
            rate: params.get("rate"),
            workers: params.get("workers") as u32,
            service_us: params.get("service_ms") * 1000.0,
            dist: match params.choice("service_dist") {
                "lognormal" => ServiceDist::Lognormal,
                "fixed" => ServiceDist::Fixed,
                _ => ServiceDist::Exponential,
            },
            slow_at: ms_to_us(params.get("slow_at_ms")),
            slowdown: params.get("slowdown"),
            policy: match params.choice("policy") {
                "random" => Policy::Random,
                "least-outstanding" => Policy::LeastOutstanding,
                "two-choices" => Policy::TwoChoices,
                _ => Policy::RoundRobin,
            },
            b_fails: params.flag("b_fails"),
            eject_after: ms_to_us(params.get("eject_after_ms")),
            timeout: ms_to_us(params.get("timeout_ms")),
            cancel_on_timeout: params.flag("cancel_on_timeout"),
            arrivals_rng: SimRng::stream(seed, 1),
            service_rng: SimRng::stream(seed, 2),
            balance_rng: SimRng::stream(seed, 3),
            servers: (0..servers).map(|_| Server { factor: 1.0, ..Server::default() }).collect(),
            eligible: (0..servers as u8).collect(),
            next_rr: 0,
            requests: Vec::new(),
            free_slots: Vec::new(),
            arrived: 0,
            completed: 0,
            timed_out: 0,
            refused: 0,
            in_flight: 0,
            in_flight_area: 0,
            last_change: 0,
            all: Histogram::new(),
            before: Histogram::new(),
            after: Histogram::new(),
            live: WindowHistogram::new(LIVE_WINDOW_SLICES),
            recent: WindowHistogram::new(RECENT_WINDOW_SLICES),
            charts: Charts { queues: Series::new(1200), latency: Series::new(1200), in_flight: Series::new(1200) },
        };
        let mut sim = Self { queue: EventQueue::new(), model };
        let first = sim.model.interarrival();
        queue.schedule_at(first, Event::Arrival);
        if servers > 1 {
            queue.schedule_at(sim.model.slow_at, Event::BChanges);
        }
        queue.schedule_at(0, Event::Sample);
        sim.queue = queue;
        sim
    }

    pub fn servers(&self) -> &[Server] {
        &self.model.servers
    }

    pub fn charts(&self) -> &Charts {
        &self.model.charts
    }

    pub fn slow_at(&self) -> Micros {
        self.model.slow_at
    }

    /// When health checks eject B (only with `b_fails`).
    pub fn ejected_at(&self) -> Option<Micros> {
        self.model.b_fails.then(|| self.model.slow_at + self.model.eject_after)
    }

    pub fn in_flight(&self) -> u64 {
        self.model.in_flight
    }

    /// What Little's law predicts for the number in flight now: rate × mean latency of the
    /// last second.
    pub fn littles_law_now(&self) -> Option<f64> {
        self.model.live.mean().map(|mean_us| self.model.rate * mean_us / 1e6)
    }

    pub fn arrived(&self) -> u64 {
        self.model.arrived
    }
}

impl Simulation for SlowServer {
    crate::event_driven_clock!();

    fn metrics(&self) -> Vec<(&'static str, Value)> {
        let m = &self.model;
        let now = self.queue.now();
        let ms = |h: &Histogram, q: f64| h.quantile_ms(q).map_or(Value::Null, Value::num);
        // The area so far, plus the stretch since the last change.
        let area = m.in_flight_area + m.in_flight as u128 * (now - m.last_change) as u128;
        let mean_in_flight = if now > 0 { area as f64 / now as f64 } else { 0.0 };
        let mean_latency_s = m.all.mean().unwrap_or(0.0) / 1e6;
        vec![
            ("arrived", Value::count(m.arrived)),
            ("completed", Value::count(m.completed)),
            ("timed_out", Value::count(m.timed_out)),
            ("in_flight_end", Value::count(m.in_flight)),
            ("refused", Value::count(m.refused)),
            ("mean_ms", m.all.mean().map_or(Value::Null, |us| Value::num(us / 1000.0))),
            ("p50_ms_before", ms(&m.before, 0.5)),
            ("p99_ms_before", ms(&m.before, 0.99)),
            ("p50_ms_after", ms(&m.after, 0.5)),
            ("p99_ms_after", ms(&m.after, 0.99)),
            ("p99_ms_now", m.live.quantile_ms(0.99).map_or(Value::Null, Value::num)),
            ("p99_ms_recent", m.recent.quantile_ms(0.99).map_or(Value::Null, Value::num)),
            ("b_queue", m.servers.get(1).map_or(Value::Null, |b| Value::count(b.outstanding as u64))),
            ("mean_in_flight", Value::num(mean_in_flight)),
            ("littles_law_in_flight", Value::num(m.rate * mean_latency_s)),
            ("littles_law_now", self.littles_law_now().map_or(Value::Null, Value::num)),
            (
                "servers",
                Value::List(
                    m.servers
                        .iter()
                        .enumerate()
                        .map(|(i, s)| {
                            vec![
                                ("name", Value::Text(server_name(i).to_string())),
                                ("served", Value::count(s.served)),
                                ("max_queue", Value::count(s.max_outstanding as u64)),
                                ("final_queue", Value::count(s.outstanding as u64)),
                            ]
                        })
                        .collect(),
                ),
            ),
        ]
    }
}

impl Model {
    fn interarrival(&mut self) -> Micros {
        (self.arrivals_rng.exponential(1e6 / self.rate) as Micros).max(1)
    }

    fn service_time(&mut self, server: usize) -> Micros {
        let base = match self.dist {
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

    fn handle(&mut self, q: &mut EventQueue<Event>, now: Micros, event: Event) {
        match event {
            Event::Arrival => self.arrival(q, now),
            Event::Done { slot, generation } => self.done(q, now, slot, generation),
            Event::Timeout { slot, generation } => self.timeout(q, now, slot, generation),
            Event::BChanges => self.b_changes(q, now),
            Event::EjectB => {
                self.servers[1].ejected = true;
                self.eligible.retain(|&s| s != 1);
            }
            Event::Sample => self.sample(q, now),
        }
    }

    fn arrival(&mut self, q: &mut EventQueue<Event>, now: Micros) {
        let gap = self.interarrival();
        q.schedule_in(gap, Event::Arrival);
        self.settle_area(now);
        self.arrived += 1;
        self.in_flight += 1;
        let slot = self.alloc(now);
        let server = self.pick();
        self.dispatch(q, slot, server);
        if self.timeout > 0 {
            let generation = self.requests[slot as usize].generation;
            q.schedule_in(self.timeout, Event::Timeout { slot, generation });
        }
    }

    fn alloc(&mut self, now: Micros) -> u32 {
        let fresh = |generation| Request { arrived: now, server: 0, stage: Stage::Queued, abandoned: false, generation };
        match self.free_slots.pop() {
            Some(slot) => {
                let r = &mut self.requests[slot as usize];
                *r = fresh(r.generation);
                slot
            }
            None => {
                self.requests.push(fresh(0));
                (self.requests.len() - 1) as u32
            }
        }
    }

    fn free(&mut self, slot: u32) {
        let r = &mut self.requests[slot as usize];
        r.stage = Stage::Free;
        r.generation = r.generation.wrapping_add(1);
        self.free_slots.push(slot);
    }

    /// The balancer's choice among the servers it still considers healthy.
    fn pick(&mut self) -> usize {
        let n = self.eligible.len();
        let choice = match self.policy {
            Policy::RoundRobin => {
                let i = self.next_rr % n;
                self.next_rr = i + 1;
                i
            }
            Policy::Random => self.balance_rng.below(n as u64) as usize,
            Policy::LeastOutstanding => {
                // Start the scan at a rotating index so ties spread evenly.
                let start = self.next_rr % n;
                self.next_rr = start + 1;
                (0..n)
                    .map(|k| (start + k) % n)
                    .min_by_key(|&i| self.servers[self.eligible[i] as usize].outstanding)
                    .unwrap_or(0)
            }
            Policy::TwoChoices => {
                let a = self.balance_rng.below(n as u64) as usize;
                let b = if n > 1 { (a + 1 + self.balance_rng.below(n as u64 - 1) as usize) % n } else { a };
                let load = |i: usize| self.servers[self.eligible[i] as usize].outstanding;
                if load(b) < load(a) { b } else { a }
            }
        };
        self.eligible[choice] as usize
    }

    /// Sends a request to a server. A server that is down refuses the connection and the
    /// balancer tries the next server in its list (as nginx's proxy_next_upstream does).
    fn dispatch(&mut self, q: &mut EventQueue<Event>, slot: u32, mut server: usize) {
        let n = self.servers.len();
        let mut tries = 0;
        while self.servers[server].down && tries < n {
            self.refused += 1;
            server = (server + 1) % n;
            tries += 1;
        }
        if self.servers[server].down {
            // Every server is down: nothing can answer. Only reachable with one server.
            return;
        }
        let r = &mut self.requests[slot as usize];
        r.server = server as u8;
        r.stage = Stage::Queued;
        let s = &mut self.servers[server];
        s.outstanding += 1;
        s.max_outstanding = s.max_outstanding.max(s.outstanding);
        if (s.in_service.len() as u32) < self.workers {
            self.start(q, server, slot);
        } else {
            s.queue.push_back(slot);
        }
    }

    fn start(&mut self, q: &mut EventQueue<Event>, server: usize, slot: u32) {
        let duration = self.service_time(server);
        let r = &mut self.requests[slot as usize];
        r.stage = Stage::InService;
        let generation = r.generation;
        self.servers[server].in_service.push(slot);
        q.schedule_in(duration, Event::Done { slot, generation });
    }

    /// Starts the next queued request on `server`, skipping ones cancelled while waiting.
    fn start_next(&mut self, q: &mut EventQueue<Event>, server: usize) {
        while (self.servers[server].in_service.len() as u32) < self.workers {
            let Some(slot) = self.servers[server].queue.pop_front() else { return };
            if self.requests[slot as usize].stage == Stage::Cancelled {
                self.free(slot);
            } else {
                self.start(q, server, slot);
            }
        }
    }

    fn leave_server(&mut self, slot: u32) -> usize {
        let server = self.requests[slot as usize].server as usize;
        let s = &mut self.servers[server];
        if let Some(pos) = s.in_service.iter().position(|&x| x == slot) {
            s.in_service.swap_remove(pos);
        }
        s.outstanding -= 1;
        server
    }

    fn done(&mut self, q: &mut EventQueue<Event>, now: Micros, slot: u32, generation: u32) {
        let r = self.requests[slot as usize];
        if r.generation != generation || r.stage != Stage::InService {
            return; // cancelled or reset while in service
        }
        let server = self.leave_server(slot);
        self.servers[server].served += 1;
        if !r.abandoned {
            self.settle_area(now);
            self.in_flight -= 1;
            self.completed += 1;
            self.record_latency(r.arrived, now - r.arrived);
        }
        self.free(slot);
        self.start_next(q, server);
    }

    fn timeout(&mut self, q: &mut EventQueue<Event>, now: Micros, slot: u32, generation: u32) {
        let r = self.requests[slot as usize];
        if r.generation != generation || r.stage == Stage::Free || r.abandoned {
            return;
        }
        self.settle_area(now);
        self.in_flight -= 1;
        self.timed_out += 1;
        self.record_latency(r.arrived, self.timeout);
        self.requests[slot as usize].abandoned = true;
        if !self.cancel_on_timeout {
            return; // timeouts stop the waiter, not the worker
        }
        match r.stage {
            Stage::Queued => {
                self.requests[slot as usize].stage = Stage::Cancelled;
                let server = r.server as usize;
                self.servers[server].outstanding -= 1;
            }
            Stage::InService => {
                let server = self.leave_server(slot);
                self.free(slot);
                self.start_next(q, server);
            }
            Stage::Free | Stage::Cancelled => {}
        }
    }

    fn b_changes(&mut self, q: &mut EventQueue<Event>, now: Micros) {
        if !self.b_fails {
            self.servers[1].factor = self.slowdown;
            return;
        }
        // B goes down: its connections reset, and the balancer resends what B held.
        self.servers[1].down = true;
        q.schedule_at(now + self.eject_after, Event::EjectB);
        let b = &mut self.servers[1];
        let held: Vec<u32> = b.in_service.drain(..).chain(b.queue.drain(..)).collect();
        b.outstanding = 0;
        for slot in held {
            let r = self.requests[slot as usize];
            if r.stage == Stage::Cancelled || r.abandoned {
                self.free(slot);
            } else {
                // Invalidate the pending Done event, then resend.
                let r = &mut self.requests[slot as usize];
                r.generation = r.generation.wrapping_add(1);
                if self.timeout > 0 {
                    let remaining = (r.arrived + self.timeout).saturating_sub(now);
                    q.schedule_in(remaining, Event::Timeout { slot, generation: r.generation });
                }
                let server = self.pick();
                self.dispatch(q, slot, server);
            }
        }
    }

    fn record_latency(&mut self, arrived: Micros, latency: Micros) {
        self.all.record(latency);
        if arrived < self.slow_at { self.before.record(latency) } else { self.after.record(latency) }
        self.live.record(latency);
        self.recent.record(latency);
    }

    fn sample(&mut self, q: &mut EventQueue<Event>, now: Micros) {
        let t = now as f64 / 1000.0;
        let mut depths = [0.0; MAX_SERVERS];
        for (d, s) in depths.iter_mut().zip(&self.servers) {
            *d = s.outstanding as f64;
        }
        self.charts.queues.push(t, depths);
        let p = |h: &WindowHistogram, q| h.quantile_ms(q).unwrap_or(f64::NAN);
        self.charts.latency.push(t, [p(&self.live, 0.5), p(&self.live, 0.99)]);
        let little = self.live.mean().map_or(f64::NAN, |us| self.rate * us / 1e6);
        self.charts.in_flight.push(t, [self.in_flight as f64, little]);
        self.live.rotate();
        self.recent.rotate();
        q.schedule_in(SAMPLE_EVERY, Event::Sample);
    }
}
