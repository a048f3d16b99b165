//! The reading's vocabulary: how it writes counts, times, pools and this run's settings.

use crate::format;
use crate::scenarios::cascade::{Cascade, PoolNow};
use crate::sim::{MS, Micros};

/// A growth of /home in flight below this, either way, is "flat" (requests per second).
pub(super) const FLAT: f64 = 1.0;

/// A p99 at or above this share of the /checkout client's timeout is "close to" it.
pub(super) const CLOSE_TO_GIVING_UP: f64 = 0.8;

/// The chapter's way of saying a slope: "flat", "growing about 48 per second".
pub(super) fn growth_words(g: f64) -> String {
    if g.abs() < FLAT {
        "flat".into()
    } else if g > 0.0 {
        format!("growing about {} per second", format::number(libm::round(g)))
    } else {
        format!("falling about {} per second", format::number(libm::round(-g)))
    }
}

/// A count as the reading writes it (one copy of the code, however many sentences use it).
#[inline(never)]
pub(super) fn count(n: u64) -> String {
    format::count(n)
}

/// A time as the reading writes it.
#[inline(never)]
pub(super) fn seconds(t: Micros) -> String {
    format::seconds(t)
}

/// A number as the metrics report it (to 0.1), so that a sentence and a card never disagree.
pub(super) fn shown(x: f64) -> f64 {
    libm::round(x * 10.0) / 10.0
}

/// A time rounded to a tenth of a second, as the chapter quotes "the first 0.4 s".
pub(super) fn tenths(t: Micros) -> String {
    seconds((t + 50 * MS) / (100 * MS) * (100 * MS))
}

pub(super) fn calls(n: u64) -> String {
    format::counted(n, "call", "calls")
}

pub(super) fn connections(n: u64) -> String {
    format::counted(n, "connection", "connections")
}

/// The same, starting a sentence: "All 20 connections", "The one connection".
pub(super) fn all_connections_cap(n: u32) -> String {
    if n == 1 { "The one connection".into() } else { format!("All {} connections", count(n.into())) }
}

/// The verb after [`all_connections`].
pub(super) fn was(limit: Option<u32>) -> &'static str {
    if limit == Some(1) { "was" } else { "were" }
}

/// "all 20 connections", "the one connection".
pub(super) fn all_connections(n: u32) -> String {
    if n == 1 { "the one connection".into() } else { format!("all {} connections", count(n.into())) }
}
impl PoolNow {
    /// What the pool holds: "3 of 20 in use, 3 by recommendations; 0 calls waiting".
    pub fn status(&self, with_recs: bool) -> String {
        let held = match self.limit {
            Some(l) => format!("{} of {} in use", count(self.in_use.into()), count(l.into())),
            None => format!("{} open, {} in use (no limit)", count(self.open.into()), count(self.in_use.into())),
        };
        let recs =
            if with_recs { format!(", {} by recommendations", count(self.recs_held.into())) } else { String::new() };
        format!("{held}{recs}; {} waiting", calls(self.waiting.into()))
    }
}

impl Cascade {
    pub(super) fn timeout_words(&self) -> String {
        format::duration_ms(self.config.recs_timeout_ms)
    }

    pub(super) fn checkout_timeout_words(&self) -> String {
        format::duration_ms(self.config.checkout_timeout_ms)
    }

    /// "one shared pool of 20 connections" / "one shared pool with no connection limit".
    pub(super) fn shared_words(&self) -> String {
        if self.config.unbounded_pool {
            "one shared pool with no connection limit".into()
        } else {
            format!("one shared pool of {}", connections(self.config.pool_size.into()))
        }
    }

    /// The bulkhead's size: "20 connections" / "no connection limit".
    pub(super) fn recs_pool_words(&self) -> String {
        if self.config.unbounded_pool {
            "no connection limit".into()
        } else {
            connections(self.config.recs_pool_size.into())
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
