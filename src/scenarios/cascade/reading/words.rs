//! The reading's vocabulary: how it writes counts, times, pools and this run's settings.

use crate::format;
use crate::scenarios::cascade::facts::{CascadeFacts, FLAT, PoolFacts};
use crate::scenarios::cascade::PoolNow;
use crate::sim::{MS, Micros};

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

/// A time rounded to a tenth of a second, as the chapter quotes "the first 0.4 s".
pub(super) fn tenths(t: Micros) -> String {
    seconds((t + 50 * MS) / (100 * MS) * (100 * MS))
}

/// A /checkout percentile as its card shows it ("3,490 ms", "69 s"): one function renders the
/// number the card and the words both show.
pub(super) use crate::format::card_ms;

/// The checkouts still waiting, as a percentile counts them: "35 still waiting at their wait so far".
pub(super) fn waiting_so_far(n: u64) -> String {
    if n == 1 { "1 still waiting at its wait so far".into() } else { format!("{} still waiting at their wait so far", count(n)) }
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

pub(super) fn timeout_words(f: &CascadeFacts) -> String {
    format::duration_ms(f.recs_timeout_ms)
}

pub(super) fn checkout_timeout_words(f: &CascadeFacts) -> String {
    format::duration_ms(f.checkout_timeout_ms)
}

/// "one shared pool of 20 connections" / "one shared pool with no connection limit".
pub(super) fn shared_words(f: &CascadeFacts) -> String {
    match f.shared.limit {
        None => "one shared pool with no connection limit".into(),
        Some(l) => format!("one shared pool of {}", connections(l.into())),
    }
}

/// The bulkhead's size: "20 connections" / "no connection limit".
pub(super) fn recs_pool_words(recs: &PoolFacts) -> String {
    match recs.limit {
        None => "no connection limit".into(),
        Some(l) => connections(l.into()),
    }
}
