//! What a slow-server run did, as typed facts taken from the model once: the `ratio`,
//! `answer` and `limit` sentences restate these and nothing else (issue 24, item 2).

use super::model::SlowServer;
use super::server::server_name;
use super::spec::Policy;
use super::tail::{p99_ratio, p99_with_waiting};
use crate::sim::Micros;

/// What happens to B at `slow_at`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
#[cfg_attr(not(target_arch = "wasm32"), serde(rename_all = "kebab-case"))]
pub enum BChange {
    /// B serves `slowdown` times slower (a slowdown above 1, B stays up).
    Slows,
    /// B goes down and refuses connections until health checks remove it.
    Fails,
    /// Nothing: a slowdown of ×1 and B stays up.
    Unchanged,
}

/// How the balancer picks a server.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
#[cfg_attr(not(target_arch = "wasm32"), serde(rename_all = "kebab-case"))]
pub enum Spread {
    /// Each server in turn, whatever its load.
    RoundRobin,
    /// A server at random, whatever its load.
    Random,
    /// By load: least outstanding or two choices.
    ByLoad,
}

/// Why p99 did what it did: which case the `answer` sentence explains.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
#[cfg_attr(not(target_arch = "wasm32"), serde(rename_all = "kebab-case"))]
pub enum Why {
    /// One server, more arriving than it can serve.
    OneServerOverloaded,
    /// One server at 90% to 100% busy.
    OneServerBusy,
    /// One server with room to spare.
    OneServerFits,
    /// B's change comes after the end of the run.
    ChangeAfterTheEnd,
    /// B's change is still to come.
    ChangeNotYet,
    /// B went down: the balancer re-picked what it refused onto the others.
    BDown,
    /// The whole pool serves less than arrives.
    PoolOverloaded,
    /// A load-aware policy sends B only what it can take.
    LoadAware,
    /// B's share is under 90% of what B can serve.
    BShareFits,
    /// B's share is 90% to 100% of what B can serve.
    BShareNearFull,
    /// B's share is more than B can serve, and the policy sends it anyway.
    BShareOverloaded,
}

/// The other server whose backlog grew longest: where B's load went.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
pub struct Busiest {
    /// Its name ("A", "C", …).
    pub server: char,
    /// The most requests it held at once.
    pub max_queue: u32,
    /// Requests it served.
    pub served: u64,
    /// Its workers' busy share so far, from what it served at the mean service time.
    pub utilisation: Option<f64>,
}

/// What a slow-server run did, and why.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
pub struct SlowServerFacts {
    /// What happens to B.
    pub b_change: BChange,
    /// B's slowdown factor (×1: none).
    pub slowdown: f64,
    /// When B changes (µs).
    pub slow_at: Micros,
    /// When the run ends (µs).
    pub end: Micros,
    /// Whether the run has ended.
    pub run_over: bool,
    /// The case the answer explains.
    pub why: Why,
    /// The servers behind the balancer.
    pub servers: usize,
    /// How the balancer picks.
    pub spread: Spread,
    /// Requests arriving per second.
    pub rate: f64,
    /// Each server's share of them per second (rate ÷ servers).
    pub share: f64,
    /// What a healthy server serves per second.
    pub healthy_capacity: f64,
    /// What B serves per second once changed (0 when it is down).
    pub b_capacity: f64,
    /// What the pool serves per second once B changed.
    pub pool_capacity: f64,
    /// What the servers other than B serve per second.
    pub capacity_without_b: f64,
    /// B's share against what B can serve once changed (above 1: B's queue grows; none when
    /// B is down).
    pub b_load: Option<f64>,
    /// The arrivals against what the others serve without B (above 1: their queues grow;
    /// none with one server).
    pub load_without_b: Option<f64>,
    /// Requests B refused while down, each re-picked onto another server.
    pub b_refused: u64,
    /// The most loaded of the other servers, when any held a request.
    pub busiest_other: Option<Busiest>,
    /// When health checks removed B, if they have by now.
    pub b_ejected_at: Option<Micros>,
    /// How long health checks take to remove a down B (µs).
    pub eject_after: Micros,
    /// p99 before B's change (ms).
    pub p99_before_ms: Option<f64>,
    /// p99 after it (ms), of the requests that finished or timed out.
    pub p99_after_ms: Option<f64>,
    /// p99 after it (ms), each request still waited for counted at its wait so far: the
    /// number the card and the sentence quote.
    pub p99_after_with_waiting_ms: Option<f64>,
    /// Requests recorded before the change (the window starts at 0, from empty queues).
    pub before_count: u64,
    /// Requests recorded after it (finished or timed out).
    pub after_count: u64,
    /// Requests sent after it whose client still waits, counted in `p99_after_with_waiting_ms`.
    pub after_waiting: u64,
    /// p99 after (the waiting counted) over p99 before, as their cards show them, to 0.1.
    pub p99_ratio: Option<f64>,
    /// Whether the tail is still getting worse.
    pub still_growing: bool,
    /// The client timeout (µs), if set.
    pub timeout: Option<Micros>,
    /// Requests that timed out.
    pub timed_out: u64,
    /// Those as a share of the requests that ended (%).
    pub timed_out_pct: Option<f64>,
    /// Whether a timed-out request leaves its server's queue.
    pub cancel_on_timeout: bool,
    /// The most requests a server holds waiting (its backlog, a setting).
    pub backlog: usize,
    /// Requests refused because their server's backlog was full: they failed at once.
    pub backlog_refused: u64,
}

impl SlowServerFacts {
    /// Whether timeouts removed work from the queues, which keeps them bounded.
    pub fn cancels(&self) -> bool {
        self.timeout.is_some() && self.cancel_on_timeout && self.timed_out > 0
    }
}

impl SlowServer {
    /// The run's facts at `now`.
    pub fn facts(&self, now: Micros) -> SlowServerFacts {
        let c = &self.config;
        let servers = c.servers as f64;
        let healthy = c.workers as f64 * 1000.0 / c.service_ms;
        // A down B serves nothing; a slowed one `slowdown` times less than the others.
        let b = if c.b_fails { 0.0 } else { healthy / c.slowdown };
        let b_load = (b > 0.0).then(|| c.rate / servers / b);
        let pool = healthy * (servers - 1.0) + b;
        let without_b = healthy * (servers - 1.0);
        let q99 = |h: &crate::sim::stats::Histogram| h.quantile_ms(0.99);
        let (p99_after_with_waiting, after_waiting) = p99_with_waiting(&self.after, &self.requests, self.slow_at, now);
        SlowServerFacts {
            b_change: match (c.b_fails, c.slowdown > 1.0) {
                (true, _) => BChange::Fails,
                (false, true) => BChange::Slows,
                (false, false) => BChange::Unchanged,
            },
            slowdown: c.slowdown,
            slow_at: self.slow_at,
            end: self.end,
            run_over: now >= self.end,
            why: self.why(now, c.rate, healthy, pool, b_load),
            servers: c.servers,
            spread: match c.policy {
                Policy::RoundRobin => Spread::RoundRobin,
                Policy::Random => Spread::Random,
                Policy::LeastOutstanding | Policy::TwoChoices => Spread::ByLoad,
            },
            rate: c.rate,
            share: c.rate / servers,
            healthy_capacity: healthy,
            b_capacity: b,
            pool_capacity: pool,
            capacity_without_b: without_b,
            b_load,
            load_without_b: (without_b > 0.0).then(|| c.rate / without_b),
            b_refused: self.refused,
            busiest_other: self.busiest_other(now),
            b_ejected_at: self.ejected_by(now),
            eject_after: self.eject_after,
            p99_before_ms: q99(&self.before),
            p99_after_ms: q99(&self.after),
            p99_after_with_waiting_ms: p99_after_with_waiting,
            before_count: self.before.count(),
            after_count: self.after.count(),
            after_waiting,
            p99_ratio: p99_ratio(q99(&self.before), p99_after_with_waiting),
            still_growing: self.still_growing(),
            timeout: (self.timeout > 0).then_some(self.timeout),
            timed_out: self.timed_out,
            timed_out_pct: self.timed_out_pct(),
            cancel_on_timeout: c.cancel_on_timeout,
            backlog: c.backlog,
            backlog_refused: self.backlog_full,
        }
    }

    /// Which case explains the run: one server, before the change, B down, the pool short,
    /// a load-aware policy, or B's share against what B can serve.
    fn why(&self, now: Micros, rate: f64, healthy: f64, pool: f64, b_load: Option<f64>) -> Why {
        let c = &self.config;
        if c.servers < 2 {
            return match rate / healthy {
                load if load > 1.0 => Why::OneServerOverloaded,
                load if load >= 0.9 => Why::OneServerBusy,
                _ => Why::OneServerFits,
            };
        }
        if !self.past_slowdown(now) {
            return if self.slow_at >= self.end { Why::ChangeAfterTheEnd } else { Why::ChangeNotYet };
        }
        if c.b_fails {
            Why::BDown
        } else if pool < rate {
            Why::PoolOverloaded
        } else if matches!(c.policy, Policy::LeastOutstanding | Policy::TwoChoices) {
            Why::LoadAware
        } else {
            match b_load.expect("B is up") {
                load if load < 0.9 => Why::BShareFits,
                load if load <= 1.0 => Why::BShareNearFull,
                _ => Why::BShareOverloaded,
            }
        }
    }

    /// Whether the run has reached the slowdown (B slowed or went down).
    fn past_slowdown(&self, now: Micros) -> bool {
        now > self.slow_at || self.servers.get(1).is_some_and(|b| b.factor != 1.0 || b.down)
    }

    /// Where B's load went: the other server whose backlog grew longest (the first on a tie).
    fn busiest_other(&self, now: Micros) -> Option<Busiest> {
        let others = self.servers.iter().enumerate().filter(|(i, _)| *i != 1);
        let (i, s) = others.max_by_key(|(i, s)| (s.max_outstanding(), std::cmp::Reverse(*i)))?;
        let busy_ms = s.served() as f64 * self.config.service_ms;
        let utilisation = (now > 0).then(|| busy_ms / (self.config.workers as f64 * now as f64 / 1000.0));
        (s.max_outstanding() > 0).then(|| Busiest {
            server: server_name(i),
            max_queue: s.max_outstanding(),
            served: s.served(),
            utilisation,
        })
    }

    /// The tail keeps growing: the last five seconds' p99 is worse than the whole time since
    /// the slowdown, or (what that misses while the five seconds reach back before the
    /// slowdown) the longest backlog grew over them by more than noise and no client timeout
    /// caps the tail yet.
    fn still_growing(&self) -> bool {
        let (recent, after) = (self.recent.quantile_ms(0.99), self.after.quantile_ms(0.99));
        let tail_worse = matches!((recent, after), (Some(r), Some(a)) if r > a);
        let capped = self.config.timeout_ms > 0.0 && recent.is_some_and(|r| r >= self.config.timeout_ms);
        tail_worse || (self.backlog_growing() && !capped)
    }

    fn backlog_growing(&self) -> bool {
        match (self.longest_queue.front(), self.longest_queue.back()) {
            (Some(&then), Some(&now)) => now >= then + (then / 4).max(10),
            _ => false,
        }
    }
}
