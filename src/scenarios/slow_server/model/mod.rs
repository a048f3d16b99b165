//! The slow-server model: arrivals, the balancer's choice, the servers' queues, timeouts, B's
//! slowdown or failure, and what a run measures.

use std::collections::VecDeque;

use slotmap::SlotMap;

use super::balancer::Balancer;
use super::charts::{Charts, InFlightSample, LatencySample, QueueSample};
use super::moves::Moves;
use super::request::{Request, RequestKey, Stage};
use super::server::{Server, server_name};
use super::tail::{p99_ratio, p99_with_waiting};
use super::spec::{
    DEFAULT_DURATION_MS, SHOWN_AFTER_EJECTION_MS, SHOWN_AFTER_SLOWDOWN_MS, ServiceDist,
    SlowServerConfig,
};
use crate::sim::rng::{SimRng, ms_to_us};
use crate::sim::stats::{Histogram, Series, WindowHistogram};
use crate::sim::{EventQueue, MS, Micros, Model, Value};

/// Live charts sample every 100 ms of simulated time; live percentiles cover the last second.
pub const SAMPLE_EVERY: Micros = 100 * MS;
const LIVE_WINDOW_SLICES: usize = 10;
const RECENT_WINDOW_SLICES: usize = 50;

#[derive(Clone, Copy, Debug)]
pub enum Event {
    Arrival,
    Done(RequestKey),
    Timeout(RequestKey),
    BChanges,
    EjectB,
    Sample,
}

/// The model: a load balancer in front of `servers` FIFO servers, one of which slows down.
pub struct SlowServer {
    pub(super) config: SlowServerConfig,
    pub(super) end: Micros,
    service_us: f64,
    pub(super) slow_at: Micros,
    pub(super) eject_after: Micros,
    pub(super) timeout: Micros,

    arrivals_rng: SimRng,
    service_rng: SimRng,

    pub(super) servers: Vec<Server>,
    balancer: Balancer,
    pub(super) requests: SlotMap<RequestKey, Request>,
    /// The sends and give-ups the figure's picture draws on their way.
    pub(super) moves: Moves,

    arrived: u64,
    completed: u64,
    pub(super) timed_out: u64,
    pub(super) refused: u64,
    pub(super) backlog_full: u64,
    in_flight: u64,
    /// ∫ in_flight dt, in request·µs, for the time-averaged in-flight count.
    in_flight_area: u128,
    last_change: Micros,

    all: Histogram,
    pub(super) before: Histogram,
    pub(super) after: Histogram,
    live: WindowHistogram,
    pub(super) recent: WindowHistogram,
    /// The longest server backlog at each of the last `RECENT_WINDOW_SLICES` samples, oldest
    /// first: whether a queue is still growing, even while the p99 window reaches back before
    /// the slowdown.
    pub(super) longest_queue: VecDeque<u32>,
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
    type Metrics = crate::scenarios::slow_server::spec::SlowServerMetrics;

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
            servers: (0..servers).map(|_| Server { factor: 1.0, ..Server::default() }).collect(),
            balancer: Balancer::new(config.policy, SimRng::stream(seed, 3), servers),
            requests: SlotMap::with_key(),
            moves: Moves::default(),
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
                self.balancer.eject(1);
            }
            Event::Sample => self.sample(q, now),
        }
    }

    fn metrics(&self, now: Micros) -> Self::Metrics {
        let ms = |h: &Histogram, q: f64| h.quantile_ms(q);
        let (p99_after_with_waiting, after_waiting) = p99_with_waiting(&self.after, &self.requests, self.slow_at, now);
        // The area so far, plus the stretch since the last change.
        let area = self.in_flight_area + self.in_flight as u128 * (now - self.last_change) as u128;
        let mean_in_flight = if now > 0 { area as f64 / now as f64 } else { 0.0 };
        let mean_latency_s = self.all.mean().unwrap_or(0.0) / 1e6;
        Self::Metrics {
            arrived: self.arrived,
            completed: self.completed,
            timed_out: self.timed_out,
            in_flight_end: self.in_flight,
            refused: self.refused,
            mean_ms: self.all.mean().map(|us| us / 1000.0),
            p50_ms_before: ms(&self.before, 0.5),
            p99_ms_before: ms(&self.before, 0.99),
            p50_ms_after: ms(&self.after, 0.5),
            p99_ms_after: ms(&self.after, 0.99),
            p99_ms_after_with_waiting: p99_after_with_waiting,
            p99_ms_now: self.live.quantile_ms(0.99),
            p99_ms_recent: self.recent.quantile_ms(0.99),
            b_queue: self.servers.get(1).map(|b| b.outstanding as u64),
            mean_in_flight,
            littles_law_in_flight: self.accepted_rate() * mean_latency_s,
            littles_law_now: self.littles_law_now(),
            servers: Value::List(self.servers.iter().enumerate().map(|(i, s)| server_record(i, s)).collect()),
            before_count: self.before.count(),
            after_count: self.after.count(),
            after_waiting,
            timed_out_pct: self.timed_out_pct(),
            p99_ratio: p99_ratio(ms(&self.before, 0.99), p99_after_with_waiting),
            backlog_full: self.backlog_full,
            b_ejected_at_ms: self.ejected_by(now).map(|t| t as f64 / 1000.0),
        }
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
            done: None,
            timeout: None,
        });
        if self.dispatch(q, key) && self.timeout > 0 {
            self.requests[key].timeout = Some(q.timer_in(self.timeout, Event::Timeout(key)));
        }
    }

    /// Sends a request to a server the balancer picks. A server that is down refuses the
    /// connection and the balancer picks again among the servers not tried yet. False when
    /// the server's backlog was full: the request failed at once.
    fn dispatch(&mut self, q: &mut EventQueue<Event>, key: RequestKey) -> bool {
        let mut tried = 0u32;
        let server = loop {
            let Some(server) = self.balancer.pick(&self.servers, tried) else {
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
            self.refuse(q, key);
            return false;
        }
        self.moves.send(q.now(), server as u8);
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
    fn refuse(&mut self, q: &mut EventQueue<Event>, key: RequestKey) {
        let r = self.requests.remove(key).expect("a refused request is live");
        if let Some(timeout) = r.timeout {
            q.cancel(timeout); // a resent request's client no longer waits
        }
        self.settle_area(q.now());
        self.in_flight -= 1;
        self.backlog_full += 1;
    }

    fn start(&mut self, q: &mut EventQueue<Event>, server: usize, key: RequestKey) {
        let duration = self.service_time(server);
        self.servers[server].in_service.push(key);
        let done = q.timer_in(duration, Event::Done(key));
        let r = &mut self.requests[key];
        r.stage = Stage::InService;
        r.done = Some(done);
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

    /// A request's service ends. (Its `Done` is cancelled whenever it leaves its server before
    /// that, by a cancelling timeout or B's reset, so the request is live.)
    fn done(&mut self, q: &mut EventQueue<Event>, now: Micros, key: RequestKey) {
        let r = self.requests.remove(key).expect("a request's Done is cancelled when it leaves its server");
        if let Some(timeout) = r.timeout {
            q.cancel(timeout); // answered in time (a timeout that already fired finds nothing)
        }
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

    /// The client stops waiting. (Its timeout is cancelled when the answer comes first or the
    /// request is refused, and armed once per attempt, so the request is live and still waited for.)
    fn timeout(&mut self, q: &mut EventQueue<Event>, now: Micros, key: RequestKey) {
        let r = self.requests[key];
        debug_assert!(!r.abandoned, "a timeout fires once");
        self.settle_area(now);
        self.in_flight -= 1;
        self.timed_out += 1;
        self.moves.give_up(now, r.server);
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
                if let Some(done) = r.done {
                    q.cancel(done);
                }
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
            let r = self.requests[key];
            // The reset attempt's work ends: it will never be done.
            if let Some(done) = r.done {
                q.cancel(done);
            }
            if r.stage == Stage::Cancelled || r.abandoned {
                self.requests.remove(key); // its client has left: nothing to resend
                continue;
            }
            // The resent attempt's timeout covers what is left of the client's wait. It is
            // re-armed at the same deadline rather than kept, so that it ties with events at
            // that instant in the order it always has (the order they were scheduled in).
            let timeout = r.timeout.map(|old| {
                q.cancel(old);
                let remaining = (r.arrived + self.timeout).saturating_sub(now);
                q.timer_in(remaining, Event::Timeout(key))
            });
            self.requests[key] = Request { proxied: false, done: None, timeout, ..r };
            // A refused request's timeout is cancelled with it.
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
