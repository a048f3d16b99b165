//! The lines under the stat cards, and the pools' titles.

use super::words::{connections, count, growth_words, seconds, tenths};
use crate::scenarios::cascade::facts::shown;
use crate::format;
use crate::scenarios::cascade::Cascade;
use crate::scenarios::cascade::model::GROWTH_WINDOW;
use crate::sim::Micros;

impl Cascade {
    pub(super) fn note_home(&self, now: Micros) -> String {
        let (_, g) = self.home_now();
        let load = seconds(self.load_end);
        match (self.load_ended(), g) {
            (true, Some(g)) => format!("when the load stopped at {load}; {}", growth_words(g)),
            (true, None) => format!("when the load stopped at {load}"),
            (false, Some(g)) => format!("at {}, {}; the load stops at {load}", seconds(now), growth_words(g)),
            (false, None) => format!("at {}; the load stops at {load}", seconds(now)),
        }
    }

    pub(super) fn note_growth(&self, now: Micros) -> String {
        if self.load_ended() {
            "over the last 5 s of the load".into()
        } else if now < GROWTH_WINDOW {
            "since the start".into()
        } else {
            "over the last 5 s".into()
        }
    }

    pub(super) fn note_ok(&self) -> String {
        let c = self.counts();
        let mut note = format!("of {} sent", count(c.checkout_arrived));
        if let (true, Some(t)) = (c.checkout_failed > 0 && c.checkout_ok > 0, self.successes_came_first()) {
            note.push_str(&format!(" (those sent in the first {})", tenths(t)));
        }
        if c.checkout_in_flight > 0 {
            note.push_str(&format!(", {} waiting", count(c.checkout_in_flight)));
        }
        note
    }

    pub(super) fn note_failed(&self) -> String {
        let after = self.checkout_timeout_words();
        match self.first_failed_at {
            Some(t) => format!("each gave up after {after}; the first at {}", seconds(t)),
            None => format!("a client gives up after {after}"),
        }
    }

    pub(super) fn note_p99(&self) -> String {
        match self.checkout_latency.quantile_ms(0.5).map(shown) {
            Some(p) if self.checkout_failed > 0 => format!("p50 {}; a failure counts as its wait", format::ms(p)),
            Some(p) => format!("p50 {}", format::ms(p)),
            None => "no checkout has finished yet".into(),
        }
    }

    pub(super) fn note_pool(&self) -> String {
        match (self.shared_pool().limit(), self.pool_exhausted_at) {
            (None, _) => "no limit".into(),
            (Some(l), Some(t)) => {
                format!("of {}; all held by recommendations from {}", count(l.into()), seconds(t))
            }
            (Some(l), None) => format!("of {}", count(l.into())),
        }
    }

    pub(super) fn shared_pool_title(&self) -> String {
        let size = match self.shared_pool().limit() {
            Some(l) => connections(l.into()),
            None => "no limit".into(),
        };
        let users = if self.config.variant.has_bulkhead() {
            "price calls of /home and /checkout"
        } else {
            "recommendations and price, for /home and /checkout"
        };
        format!("Shared pool ({size}): {users}")
    }

    pub(super) fn recs_pool_title(&self) -> String {
        format!("Recommendations' own pool ({}): the bulkhead", self.recs_pool_words())
    }
}
