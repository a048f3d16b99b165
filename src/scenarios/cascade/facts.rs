//! What a cascade run shows, taken from the run once: what recommendations did, /home in flight
//! and why it grew, who held the shared pool and whether it stayed full, what /checkout's
//! clients got, what the pools hold now and the run at the chapter's moment it has reached.
//! Every sentence (`reading/`) restates these and nothing else, apart from the settings the
//! table row's label names, so the tests check each claim here against the metrics.

use super::model::{Cascade, SHARED};
use super::moment::Moment;
use super::pool::{Pool, PoolNow};
use crate::sim::Micros;

/// A growth of /home in flight below this, either way, is "flat" (requests per second).
pub(super) const FLAT: f64 = 1.0;

/// A p99 at or above this share of the /checkout client's timeout is "close to" it.
pub(super) const CLOSE_TO_GIVING_UP: f64 = 0.8;

/// What a cascade run shows (times in µs from the start).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
pub struct CascadeFacts {
    /// The run has started (Play or Skip).
    pub started: bool,
    /// The moment these facts are of.
    pub now_us: Micros,
    /// When the run ends.
    pub end_us: Micros,
    /// /home requests a second (0: no /home traffic, so nothing calls recommendations).
    pub home_rate: f64,
    /// What recommendations did, and whether /home gives up on it.
    pub cause: Cause,
    /// When recommendations stops answering (or slows down).
    pub recs_stops_at_us: Micros,
    /// From then, how long each recommendations call takes (None: it never answers).
    pub recs_slow_us: Option<Micros>,
    /// Recommendations' usual answer time (ms).
    pub recs_ms: f64,
    /// Its recommendations timeout, when the fix has one.
    pub recs_timeout_us: Option<Micros>,
    /// The recommendations timeout as set (ms), used or not.
    pub recs_timeout_ms: f64,
    /// How long /checkout's clients wait before they give up (ms).
    pub checkout_timeout_ms: f64,
    /// /home in flight when the load stopped (or now, before).
    pub home_in_flight: u64,
    /// Its growth (requests a second, to 0.1), once measurable.
    pub home_growth_per_s: Option<f64>,
    /// The load has stopped.
    pub load_ended: bool,
    /// When the load stops.
    pub load_end_us: Micros,
    /// Why /home in flight grew or stayed flat, when the reason is clear.
    pub little: Little,
    /// The shared pool: its limit, most in use and waiting, when it first filled with hung calls.
    pub shared: PoolFacts,
    /// Recommendations' own pool, with a bulkhead.
    pub recs_pool: Option<PoolFacts>,
    /// The pools have no connection limit.
    pub unbounded_pool: bool,
    /// Most connections open at once on the downstream host.
    pub downstream_open_max: u32,
    /// When recommendations calls first held every connection of the shared pool.
    pub pool_exhausted_at_us: Option<Micros>,
    /// When every connection of the shared pool was first in use, by any calls.
    pub pool_full_at_us: Option<Micros>,
    /// Since when the shared pool has been full without a gap (None: not full now); with
    /// `shared.full_for_us`, whether it was full throughout or at times.
    pub shared_full_since_us: Option<Micros>,
    /// What /checkout's clients got.
    pub checkout: CheckoutFacts,
    /// The shared pool now.
    pub shared_now: PoolNow,
    /// Recommendations' own pool now, with a bulkhead.
    pub recs_pool_now: Option<PoolNow>,
    /// Connections open on the downstream host now, from every pool.
    pub downstream_open_now: u32,
    /// The run at the chapter's moment it has reached (the guided tour), once it has reached one.
    pub tour: Option<TourFacts>,
}

/// The run at one of the chapter's moments ([`GUIDED_STEPS`](super::GUIDED_STEPS)): what it
/// was then, not now.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
pub struct TourFacts {
    /// Which of the chapter's moments.
    pub step: usize,
    /// This is the run the chapter's timeline describes (every setting the chapter's).
    pub chapter_timeline: bool,
    /// The run at that moment.
    pub moment: Moment,
}

/// What recommendations did in this run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
pub enum Cause {
    /// No /home traffic: nothing calls recommendations.
    NoHome,
    /// It would stop after the run ends.
    AnswersThroughout,
    /// It has not stopped yet.
    NotYet,
    /// It answers slowly (`slow_us` a call); /home gives up first if its timeout is shorter.
    Slow { slow_us: Micros, home_gives_up: bool },
    /// It stopped answering; /home gives up if the fix has a timeout.
    Stopped { home_gives_up: bool },
}

/// Why /home in flight grew or stayed flat (Little's law), when the reason is clear.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
pub enum Little {
    /// Nothing to explain (not stopped yet, or no growth to speak of).
    Unexplained,
    /// Growing: every /home waits at least `wait_us` for a slow recommendations.
    SlowWait { wait_us: Micros },
    /// Growing: every /home since the stop is still waiting, with no timeout.
    WaitNeverEnds,
    /// Flat: the timeout caps each /home's wait.
    TimeoutCaps,
}

/// A client connection pool over the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
pub struct PoolFacts {
    /// Its connection limit (None: no limit).
    pub limit: Option<u32>,
    /// Most connections in use at once.
    pub in_use_max: u32,
    /// Most calls waiting for a connection at once.
    pub waiting_max: u32,
    /// When every connection it may open was first held by a call that will never be answered.
    pub full_of_hung_at_us: Option<Micros>,
    /// How long every connection was in use, in all (0 without a limit).
    pub full_for_us: Micros,
}

/// What /checkout's clients got.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
pub struct CheckoutFacts {
    /// The load sends /checkout at all.
    pub sent_by_load: bool,
    /// /checkout requests sent so far.
    pub arrived: u64,
    /// Answered.
    pub ok: u64,
    /// Failed: the client gave up.
    pub failed: u64,
    /// Still waiting.
    pub in_flight: u64,
    /// When the first client gave up.
    pub first_failed_at_us: Option<Micros>,
    /// Failed while still waiting for a connection, never having left the process.
    pub failed_queued: u64,
    /// Had to wait for a connection first.
    pub queued: u64,
    /// Every success was sent before the first failure; the last success was sent then.
    pub successes_first_sent_us: Option<Micros>,
    /// /checkout's p99 of those answered or given up on (ms, to 0.1).
    pub p99_ms: Option<f64>,
    /// Its median (ms, to 0.1).
    pub p50_ms: Option<f64>,
    /// /checkout's p99, each client still waiting (`in_flight`) counted at its wait so far (ms,
    /// to 0.1): the number the card and the words quote.
    pub p99_with_waiting_ms: Option<f64>,
    /// Its median, the same way (ms, to 0.1).
    pub p50_with_waiting_ms: Option<f64>,
    /// The p99 the words quote is close to the client's timeout.
    pub close_to_giving_up: bool,
    /// Issue 24, case 13: checkouts failed queued behind a recommendations timeout longer than the clients wait.
    pub recs_timeout_longer: bool,
}

impl Cascade {
    /// The facts of this run at `now`.
    pub fn facts(&self, now: Micros) -> CascadeFacts {
        let c = &self.config;
        let (home_in_flight, home_growth_per_s) = self.home_now();
        CascadeFacts {
            started: now > 0,
            now_us: now,
            end_us: self.end,
            home_rate: c.home_rate,
            cause: self.cause_fact(now),
            recs_stops_at_us: self.recs_stops_at,
            recs_slow_us: self.recs_slow(),
            recs_ms: c.recs_ms,
            recs_timeout_us: self.recs_timeout_us(),
            recs_timeout_ms: c.recs_timeout_ms,
            checkout_timeout_ms: c.checkout_timeout_ms,
            home_in_flight,
            home_growth_per_s,
            load_ended: self.load_ended(),
            load_end_us: self.load_end,
            little: self.little(now),
            shared: pool_facts(&self.pools[SHARED], now),
            recs_pool: self.recs_pool().map(|p| pool_facts(p, now)),
            unbounded_pool: c.unbounded_pool,
            downstream_open_max: self.downstream_open_max,
            pool_exhausted_at_us: self.pool_exhausted_at,
            pool_full_at_us: self.pool_full_at,
            shared_full_since_us: self.pools[SHARED].full_since(),
            checkout: self.checkout_facts(now),
            shared_now: self.shared_now(),
            recs_pool_now: self.recs_pool_now(),
            downstream_open_now: self.downstream_open(),
            tour: self.tour_facts(now),
        }
    }

    fn tour_facts(&self, now: Micros) -> Option<TourFacts> {
        let step = Cascade::step_at(now);
        let moment = self.moment(step, now)?;
        Some(TourFacts { step, chapter_timeline: self.config.is_chapter_timeline(), moment })
    }

    fn cause_fact(&self, now: Micros) -> Cause {
        if self.config.home_rate <= 0.0 {
            return Cause::NoHome;
        }
        if self.recs_stops_at >= self.end {
            return Cause::AnswersThroughout;
        }
        if now <= self.recs_stops_at {
            return Cause::NotYet;
        }
        match self.recs_slow() {
            Some(slow_us) => {
                Cause::Slow { slow_us, home_gives_up: self.recs_timeout_us().is_some_and(|t| t < slow_us) }
            }
            None => Cause::Stopped { home_gives_up: self.recs_timeout_us().is_some() },
        }
    }

    fn little(&self, now: Micros) -> Little {
        let (n, g) = self.home_now();
        let Some(g) = g else { return Little::Unexplained };
        let stopped = self.recs_stops_at < now.min(self.load_end);
        let timeout = self.recs_timeout_us();
        match (stopped, self.recs_slow()) {
            (true, Some(slow)) if g >= FLAT => Little::SlowWait { wait_us: slow.min(timeout.unwrap_or(slow)) },
            (true, None) if timeout.is_none() && g >= FLAT => Little::WaitNeverEnds,
            (true, _) if timeout.is_some() && g.abs() < FLAT && n > 0 => Little::TimeoutCaps,
            _ => Little::Unexplained,
        }
    }

    fn checkout_facts(&self, now: Micros) -> CheckoutFacts {
        let c = self.counts();
        let cfg = &self.config;
        let p99_with_waiting = self.checkout_quantile_with_waiting(0.99, now).map(shown);
        CheckoutFacts {
            sent_by_load: cfg.checkout_rate > 0.0,
            arrived: c.checkout_arrived,
            ok: c.checkout_ok,
            failed: c.checkout_failed,
            in_flight: c.checkout_in_flight,
            first_failed_at_us: self.first_failed_at,
            failed_queued: self.checkout_failed_queued,
            queued: self.checkout_queued,
            successes_first_sent_us: self.successes_came_first(),
            p99_ms: self.p99(),
            p50_ms: self.checkout_latency.quantile_ms(0.5).map(shown),
            p99_with_waiting_ms: p99_with_waiting,
            p50_with_waiting_ms: self.checkout_quantile_with_waiting(0.5, now).map(shown),
            close_to_giving_up: p99_with_waiting.is_some_and(|p| p >= CLOSE_TO_GIVING_UP * cfg.checkout_timeout_ms),
            // A timeout no shorter than the time a checkout waits frees no connection in time for it.
            recs_timeout_longer: cfg.variant.has_timeout()
                && cfg.recs_timeout_ms > cfg.checkout_timeout_ms
                && self.checkout_failed_queued > 0,
        }
    }

    /// /home in flight when the load stopped (or now, before), and its growth.
    /// (the growth rounded as its metric is).
    pub(super) fn home_now(&self) -> (u64, Option<f64>) {
        let (n, g) = self.at_load_end.unwrap_or_else(|| (self.counts().home_in_flight, self.growth_now()));
        (n, g.map(shown))
    }

    pub(super) fn load_ended(&self) -> bool {
        self.at_load_end.is_some()
    }

    /// Whether the checkouts that succeeded were all sent before any that failed.
    pub(super) fn successes_came_first(&self) -> Option<Micros> {
        match (self.last_ok_sent, self.first_failed_sent) {
            (Some(ok), Some(failed)) if ok < failed => Some(ok),
            _ => None,
        }
    }

    /// /checkout's p99 (ms, rounded as its metric is).
    pub(super) fn p99(&self) -> Option<f64> {
        self.checkout_latency.quantile_ms(0.99).map(shown)
    }
}

fn pool_facts(p: &Pool, now: Micros) -> PoolFacts {
    PoolFacts {
        limit: p.limit,
        in_use_max: p.in_use_max,
        waiting_max: p.waiting_max,
        full_of_hung_at_us: p.full_of_hung_at,
        full_for_us: p.full_for(now),
    }
}

/// A number as the metrics report it (to 0.1), so that a sentence and a card never disagree.
pub(super) fn shown(x: f64) -> f64 {
    libm::round(x * 10.0) / 10.0
}
