//! The fix in words, and this run's row of the chapter's table.

use super::words::{count, growth_words, seconds, tenths};
use crate::format;
use crate::scenarios::cascade::{Cascade, CascadeConfig, PARAMS, Variant};
use crate::sim::params::Config;
use crate::sim::{MS, Micros};

impl Cascade {
    /// When recommendations stops answering, said against the run's end.
    fn stop_words(&self) -> String {
        let at = seconds(self.recs_stops_at);
        if let Some(slow) = self.recs_slow() {
            let what = format!("take {} a call", format::duration_ms(slow as f64 / 1000.0));
            if self.recs_stops_at >= self.end {
                format!("Recommendations would {what} from {at}, after this run ends at {}.", seconds(self.end))
            } else {
                format!("Recommendations starts to {what} at {at}.")
            }
        } else if self.recs_stops_at >= self.end {
            format!("Recommendations would stop answering at {at}, after this run ends at {}.", seconds(self.end))
        } else {
            format!("Recommendations stops answering at {at}.")
        }
    }

    /// What the chosen fix does.
    pub(super) fn fix(&self) -> String {
        let (t, shared) = (self.timeout_words(), self.shared_words());
        let what = match self.config.variant {
            Variant::NoTimeout if self.config.unbounded_pool => format!(
                "No timeout, and no limit: {shared} for recommendations and price; /home waits for recommendations as \
                 long as it takes."
            ),
            Variant::NoTimeout => {
                format!(
                    "No fix: {shared} for recommendations and price; /home waits for recommendations as long as it takes."
                )
            }
            Variant::Timeout => format!(
                "A {t} timeout on recommendations, the wait for a connection included, then /home renders without them; \
                 {shared} for recommendations and price."
            ),
            Variant::Bulkhead => format!(
                "A separate pool for recommendations ({}) and no timeout: price calls keep {shared} to themselves.",
                self.recs_pool_words()
            ),
            Variant::Both => format!(
                "A {t} timeout on recommendations and a separate pool for them ({}): price calls keep {shared} to themselves.",
                self.recs_pool_words()
            ),
        };
        format!("{what} {}", self.stop_words())
    }

    /// The parameters, other than the fix and the pools the row's label names, that differ
    /// from the chapter's run.
    fn changed_settings(&self) -> Vec<&'static str> {
        let named = [
            CascadeConfig::variant,
            CascadeConfig::recs_timeout_ms,
            CascadeConfig::pool_size,
            CascadeConfig::recs_pool_size,
            CascadeConfig::unbounded_pool,
        ];
        let chapter = CascadeConfig::defaults().to_values();
        PARAMS
            .iter()
            .zip(self.config.to_values().iter().zip(chapter))
            .filter(|(spec, (v, c))| !named.contains(&spec.id) && **v != *c)
            .map(|(spec, _)| spec.label)
            .collect()
    }

    /// This run's row of the chapter's table: the fix as the chapter would name it, with the
    /// pool it really has.
    pub(super) fn row_label(&self) -> String {
        let c = &self.config;
        let t = self.timeout_words();
        let fix = match (c.variant, c.unbounded_pool) {
            (Variant::NoTimeout, false) => format!("No timeout, one shared pool of {}", c.pool_size),
            (Variant::NoTimeout, true) => "No timeout, no connection limit".to_string(),
            (Variant::Timeout, false) => format!("{t} timeout on recommendations, one shared pool of {}", c.pool_size),
            (Variant::Timeout, true) => format!("{t} timeout on recommendations, no connection limit"),
            (Variant::Bulkhead, _) => {
                format!("Separate pool for recommendations ({}), no timeout", self.recs_pool_words())
            }
            (Variant::Both, _) => {
                format!("{t} timeout and a separate pool for recommendations ({})", self.recs_pool_words())
            }
        };
        let changed = self.changed_settings();
        if changed.is_empty() {
            format!("This run: {fix}")
        } else {
            format!("This run: {fix} (also changed: {})", changed.join(", "))
        }
    }

    pub(super) fn row_home(&self, now: Micros) -> String {
        let (n, g) = self.home_now();
        let mut s = count(n);
        if let Some(g) = g {
            s = format!("{s}, {}", growth_words(g));
        }
        if !self.load_ended() {
            s.push_str(&format!(" so far (at {}; the load lasts {})", seconds(now), seconds(self.load_end)));
        } else if self.load_end != 10_000 * MS {
            s.push_str(&format!(" after {}", seconds(self.load_end)));
        }
        s
    }

    pub(super) fn row_ok(&self) -> String {
        let c = self.counts();
        let mut s = format!("{} of {}", count(c.checkout_ok), count(c.checkout_arrived));
        if c.checkout_failed == 0 && c.checkout_ok > 0 {
            if let Some(p) = self.p99() {
                s.push_str(&format!(", p99 {}", format::ms(p)));
            }
        } else if let (true, Some(t)) = (c.checkout_ok > 0, self.successes_came_first()) {
            s.push_str(&format!(" (the first {})", tenths(t)));
        }
        if c.checkout_in_flight > 0 {
            s.push_str(&format!("; {} still waiting", count(c.checkout_in_flight)));
        }
        s
    }
}
