//! What a cascade run means, in words. Every sentence is computed from the run's configuration
//! and what the run has done by the moment it is read, so it is true of the run on screen
//! whatever the reader changed (`tests/cascade.rs` checks each claim against random runs).
//!
//! Keys:
//! - `fix`: what the chosen fix does, with this run's numbers.
//! - `verdict`: what happened, and why, rendered from the run's facts only ([`CascadeFacts`](super::CascadeFacts)).
//! - `row_label`, `row_home`, `row_ok`, `row_failed`: this run's row of the chapter's table.
//! - `note_home`, `note_growth`, `note_ok`, `note_failed`, `note_p99`, `note_pool`,
//!   `note_downstream`: the lines under the stat cards.
//! - `shared_pool_title`, `shared_pool`, `recs_pool_title`, `recs_pool`: the pools drawn slot
//!   by slot, and what each holds now (the last two only with a separate pool).
//! - `tour_recs`, `tour_home`, `tour_pool`, `tour_checkout`, `tour_explanation`: this run at the
//!   chapter's moment the run has reached (see [`GUIDED_STEPS`](super::GUIDED_STEPS)), at that moment, not now.

mod notes;
mod row;
mod tour;
mod verdict;
mod words;

use tour::{tour_checkout, tour_home};
use words::count;
use crate::format;
use crate::scenarios::cascade::{Cascade, CascadeConfig};
use crate::sim::{Explain, Micros};

crate::words! {
    /// What a cascade run means, in words (the keys above).
    pub struct CascadeWords {
        pub fix: String,
        pub verdict: String,
        pub row_label: String,
        pub row_home: String,
        pub row_ok: String,
        pub row_failed: String,
        pub note_home: String,
        pub note_growth: String,
        pub note_ok: String,
        pub note_failed: String,
        pub note_p99: String,
        pub note_pool: String,
        pub note_downstream: String,
        pub shared_pool_title: String,
        pub shared_pool: String,
        pub recs_pool_title: Option<String>,
        pub recs_pool: Option<String>,
        pub tour_recs: Option<String>,
        pub tour_home: Option<String>,
        pub tour_pool: Option<String>,
        pub tour_checkout: Option<String>,
        pub tour_explanation: Option<String>,
    }
}

impl Explain for Cascade {
    type Facts = super::CascadeFacts;
    type Words = CascadeWords;

    fn facts(&self, now: Micros) -> super::CascadeFacts {
        Cascade::facts(self, now)
    }

    fn words(&self, now: Micros) -> CascadeWords {
        self.words_at(now)
    }

    fn sweep_theory(c: &CascadeConfig, x: &str, _by: Option<&str>) -> Option<String> {
        sweep_theory(c, x)
    }
}

impl Cascade {
    fn words_at(&self, now: Micros) -> CascadeWords {
        let step = Cascade::step_at(now);
        let recs_pool = self.recs_pool_now();
        let moment = self.moment(step, now);
        let m = moment.as_ref();
        CascadeWords {
            fix: self.fix(),
            verdict: verdict::verdict(&self.facts(now)),
            row_label: self.row_label(),
            row_home: self.row_home(now),
            row_ok: self.row_ok(),
            row_failed: count(self.checkout_failed),
            note_home: self.note_home(now),
            note_growth: self.note_growth(now),
            note_ok: self.note_ok(),
            note_failed: self.note_failed(),
            note_p99: self.note_p99(),
            note_pool: self.note_pool(),
            note_downstream: format!("{} open now, from every pool", count(self.downstream_open().into())),
            shared_pool_title: self.shared_pool_title(),
            shared_pool: self.shared_now().status(!self.config.variant.has_bulkhead()),
            recs_pool_title: recs_pool.as_ref().map(|_| self.recs_pool_title()),
            recs_pool: recs_pool.map(|p| p.status(false)),
            tour_recs: m.map(|m| self.tour_recs(m)),
            tour_home: m.map(tour_home),
            tour_pool: m.map(|m| self.tour_pool(m)),
            tour_checkout: m.map(tour_checkout),
            tour_explanation: m.map(|m| self.tour_explanation(step, m)),
        }
    }
}

/// Why the default sweep's curves (/checkout's successes against the recommendations timeout,
/// by fix) look as they do, from the parameters and Little's law.
pub fn sweep_theory(c: &CascadeConfig, x: &str) -> Option<String> {
    if x != CascadeConfig::recs_timeout_ms {
        return None;
    }
    if c.home_rate <= 0.0 {
        return Some(
            "With no /home load nothing calls recommendations, so no connection hangs and /checkout succeeds \
             whatever the timeout."
                .into(),
        );
    }
    let fills_in_ms = c.pool_size as f64 / c.home_rate * 1000.0;
    Some(format!(
        "Without a timeout each /home call to a silent recommendations holds one of the {} shared connections for \
         good: at {} /home per second the pool is full within {}, and /checkout waits behind it until it gives up \
         after {}. With a timeout t about {} × t calls hang at once (Little's law), so the shared pool has room while \
         t stays under {}; beyond that /checkout waits up to t for a connection and still succeeds while t is under \
         its own {}. A separate pool for recommendations keeps /checkout's connections free whatever the timeout.",
        format::count(c.pool_size as u64),
        format::number(c.home_rate),
        format::ms(fills_in_ms),
        format::ms(c.checkout_timeout_ms),
        format::number(c.home_rate),
        format::ms(fills_in_ms),
        format::ms(c.checkout_timeout_ms)
    ))
}
