//! What a slow-server run means, in words. Every sentence is computed from the run's
//! configuration and its metrics at the moment it is read, so it is true of the run on screen
//! whatever the reader changed (the tests check each claim against random runs).
//!
//! Keys: `ratio` (p99 before and after, the one ratio the page quotes), `answer` (why p99 did
//! what it did), `prediction` (which of the page's predictions this run bears out: `same`,
//! `double` or `explodes`; absent when none does, e.g. p99 rose ×4 and then recovered),
//! `limit` (only when a server's backlog overflowed: what was refused).

use super::model::SlowServer;
use super::spec::{Policy, SlowServerConfig};
use crate::format;
use crate::sim::Micros;
use crate::sim::Explain;

crate::words! {
    /// What a slow-server run means, in words (the keys above).
    pub struct SlowServerWords {
        pub ratio: Option<String>,
        pub prediction: Option<String>,
        pub answer: String,
        pub limit: Option<String>,
    }
}

impl Explain for SlowServer {
    type Words = SlowServerWords;

    fn words(&self, now: Micros) -> SlowServerWords {
        self.words_at(now)
    }

    fn sweep_theory(c: &SlowServerConfig, x: &str, _by: Option<&str>) -> Option<String> {
        sweep_theory(c, x)
    }
}

/// A ratio of p99 after the slowdown to p99 before it below this is "about the same"; from
/// it to [`EXPLODES`] "roughly doubles, then settles"; from [`EXPLODES`] on, "many times over
/// and keeps growing" when the last five seconds are worse still.
const SAME: f64 = 1.5;
const EXPLODES: f64 = 4.0;

/// What each server can serve, and what arrives, in requests per second.
struct Capacity {
    rate: f64,
    share: f64,
    healthy: f64,
    b: f64,
    pool: f64,
    without_b: f64,
}

impl SlowServer {
    fn capacity(&self) -> Capacity {
        let c = &self.config;
        let servers = c.servers as f64;
        let healthy = c.workers as f64 * 1000.0 / c.service_ms;
        let b = healthy / c.slowdown;
        Capacity {
            rate: c.rate,
            share: c.rate / servers,
            healthy,
            b,
            pool: healthy * (servers - 1.0) + b,
            without_b: healthy * (servers - 1.0),
        }
    }

    pub(super) fn words_at(&self, now: Micros) -> SlowServerWords {
        let ratio = self.p99_ratio();
        SlowServerWords {
            ratio: ratio.map(|r| self.ratio_sentence(r)),
            prediction: ratio.and_then(|r| prediction(r, self.still_growing())).map(str::to_string),
            answer: self.answer(now),
            limit: (self.backlog_full > 0).then(|| self.backlog_sentence()),
        }
    }

    fn backlog_sentence(&self) -> String {
        format!(
            "{} refused: a server's backlog of {} waiting requests was full, so they failed at once (they count in no percentile). A real server's accept queue overflows the same way.",
            format::counted(self.backlog_full, "request was", "requests were"),
            format::count(self.config.backlog as u64)
        )
    }

    /// Whether B slows down at all in this run (a slowdown of ×1 changes nothing, and B going
    /// down is not a slowdown).
    fn b_slows(&self) -> bool {
        self.config.slowdown > 1.0 && !self.config.b_fails
    }

    fn ratio_sentence(&self, ratio: f64) -> String {
        let q = |h: &crate::sim::stats::Histogram| h.quantile_ms(0.99).map_or("—".into(), format::ms);
        if !self.b_slows() && !self.config.b_fails {
            // Nothing changes at "the slowdown": the two windows differ only in that the first
            // starts from empty queues.
            return format!(
                "B does not slow down (×1). p99 was {} in the first {} ({}), from empty queues, and {} after ({}): {}.",
                q(&self.before),
                format::seconds(self.slow_at),
                format::counted(self.before.count(), "request", "requests"),
                q(&self.after),
                format::counted(self.after.count(), "request", "requests"),
                format::times(ratio)
            );
        }
        let event = if self.config.b_fails { "B went down" } else { "the slowdown" };
        format!(
            "p99 went from {} before {event} ({}) to {} after it ({}): {}.",
            q(&self.before),
            format::counted(self.before.count(), "request", "requests"),
            q(&self.after),
            format::counted(self.after.count(), "request", "requests"),
            format::times(ratio)
        )
    }

    /// Why p99 did what it did: the load against what the servers can serve, what the policy
    /// and the health checks did, and what the client timeout changed.
    fn answer(&self, now: Micros) -> String {
        let cap = self.capacity();
        let c = &self.config;
        if c.servers < 2 {
            return self.one_server(&cap);
        }
        if !self.past_slowdown(now) {
            let what = if c.b_fails { "goes down" } else { "slows down" };
            return if self.slow_at >= self.end {
                format!("B does not {} within this run: that comes after the end. Move it earlier or run longer.", if c.b_fails { "go down" } else { "slow down" })
            } else {
                format!("B {what} at {}; nothing has changed yet.", format::seconds(self.slow_at))
            };
        }
        if c.b_fails {
            return self.b_down(&cap, now) + &self.timeouts(false);
        }
        if cap.pool < cap.rate {
            let grows = if self.cancels() { "" } else { " Queues grow whatever the policy." };
            return format!(
                "Even the whole pool cannot keep up: {} it serves about {} req/s in all, less than the {} req/s arriving.{grows}{}",
                if self.b_slows() { "with B slowed" } else { "with B at full speed" },
                format::number(cap.pool),
                format::number(cap.rate),
                self.timeouts(true)
            );
        }
        if matches!(c.policy, Policy::LeastOutstanding | Policy::TwoChoices) {
            return format!(
                "This policy looks at the servers' load, so B gets only what it can handle and the others take the rest.{}",
                self.timeouts(false)
            );
        }
        self.b_share(&cap)
    }

    /// Whether the run has reached the slowdown (B slowed or went down).
    fn past_slowdown(&self, now: Micros) -> bool {
        now > self.slow_at || self.servers.get(1).is_some_and(|b| b.factor != 1.0 || b.down)
    }

    fn cancels(&self) -> bool {
        self.timeout > 0 && self.config.cancel_on_timeout && self.timed_out > 0
    }

    fn one_server(&self, cap: &Capacity) -> String {
        let load = cap.rate / cap.healthy;
        let head = "There is one server, so there is no B to slow down";
        if load > 1.0 {
            let grows = if self.cancels() {
                String::new()
            } else {
                format!(" Its queue grows by about {} every second.", format::number(cap.rate - cap.healthy))
            };
            format!(
                "{head}, but it can serve only about {} req/s and {} arrive: it cannot keep up.{grows}{}",
                format::number(cap.healthy),
                format::number(cap.rate),
                self.timeouts(true)
            )
        } else if load >= 0.9 {
            format!(
                "{head}. It is {} busy, so its queue swings long and short.{}",
                format::pct(load * 100.0),
                self.timeouts(false)
            )
        } else {
            format!(
                "{head}: it can serve about {} req/s, more than the {} arriving, so waits stay short.{}",
                format::number(cap.healthy),
                format::number(cap.rate),
                self.timeouts(false)
            )
        }
    }

    fn b_down(&self, cap: &Capacity, now: Micros) -> String {
        let from = format::seconds(self.slow_at);
        let ejected = match self.ejected_by(now) {
            Some(t) => format!("Health checks removed B at {}.", format::seconds(t)),
            None if now >= self.end => format!(
                "Health checks take {} to remove B and had not by the end of the run.",
                format::seconds(self.eject_after)
            ),
            None => format!("Health checks take {} to remove B; they have not yet.", format::seconds(self.eject_after)),
        };
        let rest = if cap.without_b < cap.rate {
            format!(
                " The servers left can serve only about {} req/s of the {} arriving, so their queues grow.",
                format::number(cap.without_b),
                format::number(cap.rate)
            )
        } else {
            String::new()
        };
        format!(
            "B refused connections from {from}, so the balancer sent each refused request to another server. {ejected}{rest}{}",
            self.busiest_other()
        )
    }

    /// Where B's load went: the other server whose backlog grew longest, from the run.
    fn busiest_other(&self) -> String {
        let others = self.servers.iter().enumerate().filter(|(i, _)| *i != 1);
        match others.max_by_key(|(i, s)| (s.max_outstanding(), std::cmp::Reverse(*i))) {
            Some((i, s)) if s.max_outstanding() > 0 => format!(
                " The most loaded of the others was {}, with up to {} at once.",
                super::server_name(i),
                format::counted(s.max_outstanding() as u64, "request", "requests")
            ),
            _ => String::new(),
        }
    }

    /// Round robin and random choice send B its share whatever B's state.
    fn b_share(&self, cap: &Capacity) -> String {
        let load = cap.share / cap.b;
        let (even, still, now) = if self.b_slows() { ("Even slowed, B", " still", " now") } else { ("B", "", "") };
        if load < 0.9 {
            return format!(
                "{even} can serve {} req/s, more than its share of {} req/s: its queue stays short{}.{}",
                format::number(cap.b),
                format::number(cap.share),
                if self.b_slows() { ", and only B's slower service shows in the tail" } else { "" },
                self.timeouts(false)
            );
        }
        if load <= 1.0 {
            return format!(
                "B's share, {} req/s, is{now} {} of what B can serve: so close to full, its queue grows long and swings without settling.{}",
                format::number(cap.share),
                format::pct(load * 100.0),
                self.timeouts(false)
            );
        }
        let (name, on_average) =
            if self.config.policy == Policy::Random { ("Random choice", " on average") } else { ("Round robin", "") };
        let grows = if self.cancels() {
            String::new()
        } else {
            format!(
                " Its queue grows by about {} requests every second, and every request sent to B waits behind all of them.",
                format::number(cap.share - cap.b)
            )
        };
        format!(
            "{name}{still} sends B its share, {} req/s{on_average}, but B can{now} serve only {} req/s.{grows}{}",
            format::number(cap.share),
            format::number(cap.b),
            self.timeouts(true)
        )
    }

    /// What the client timeout did. `queues_grow`: the sentence may say that abandoned work
    /// keeps the queue growing (only where it does).
    fn timeouts(&self, queues_grow: bool) -> String {
        if self.timeout == 0 {
            return String::new();
        }
        let limit = format::us_as_ms(self.timeout);
        if self.timed_out == 0 {
            return format!(" No request waited the full {limit}, so the client timeout never fired.");
        }
        let share = self.timed_out_pct().map(format::pct).unwrap_or_default();
        let n = format::counted(self.timed_out, "request", "requests");
        let how = format!(" A timed-out request counts in the percentiles as {limit}, so they cannot go above it.");
        if self.config.cancel_on_timeout {
            format!(
                " {n} ({share}) timed out after {limit}; each left its server's queue with its client, so queues stay bounded and slow requests became timeouts.{how}"
            )
        } else if queues_grow {
            format!(
                " {n} ({share}) timed out after {limit}, but the servers still work through every abandoned request, so the queue grows all the same.{how}"
            )
        } else {
            format!(" {n} ({share}) timed out after {limit}; the servers still finished their work.{how}")
        }
    }
}

impl SlowServer {
    /// The tail is still getting worse: p99 of the last five seconds is above p99 of
    /// everything since the slowdown.
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

/// Which of the page's three predictions a run bears out, from its p99 ratio and whether its
/// tail is still growing; none when it fits none of them.
pub fn prediction(ratio: f64, growing: bool) -> Option<&'static str> {
    if ratio < SAME {
        Some("same")
    } else if ratio < EXPLODES {
        (!growing).then_some("double")
    } else {
        growing.then_some("explodes")
    }
}

/// Where B's queue starts to grow without bound in a sweep of the slowdown or the rate, from
/// queueing theory: B gets rate / servers under round robin and random choice whatever its
/// state, and serves workers × 1000 / (service_ms × slowdown) once slowed.
pub fn sweep_theory(c: &SlowServerConfig, x: &str) -> Option<String> {
    let servers = c.servers as f64;
    if servers < 2.0 {
        return None;
    }
    let healthy = c.workers as f64 * 1000.0 / c.service_ms;
    let share = c.rate / servers;
    let knee = match x {
        SlowServerConfig::slowdown => format!("from a slowdown of ×{} on", format::number(healthy / share)),
        SlowServerConfig::rate => format!("from {} req/s on", format::number(servers * healthy / c.slowdown)),
        _ => return None,
    };
    Some(format!(
        "Round robin and random choice keep sending B its share of the load, so once B's share exceeds what the slowed B can serve its queue grows without bound: {knee} (rate ÷ servers > workers × 1000 ÷ (service time × slowdown)). Least outstanding and two choices send B only what it can take."
    ))
}
