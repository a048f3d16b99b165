//! What a cascade run means, in words. Every sentence is rendered from the run's facts
//! ([`CascadeFacts`](super::CascadeFacts), taken once per reading: what the run has done by the
//! moment it is read), so it is true of the run on screen whatever the reader changed
//! (`tests/cascade_facts.rs` and `tests/cascade.rs` check the facts against random runs). Only
//! the row's label also reads the configuration, to name the settings changed from the chapter's.
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

use words::count;
use crate::format;
use crate::scenarios::cascade::{Cascade, CascadeConfig};
use crate::sim::{Caption, Explain, Micros};
use crate::sim::scenario::Quote;
use super::spec::CascadeMetrics;

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

    fn words(&self, facts: &super::CascadeFacts) -> CascadeWords {
        self.words_at(facts)
    }

    fn caption(_config: &CascadeConfig, _words: &CascadeWords) -> Caption {
        Caption::of(super::spec::HEADLINE, CascadeWords::verdict.key)
    }

    fn sweep_theory(c: &CascadeConfig, x: &str, _by: Option<&str>) -> Option<String> {
        sweep_theory(c, x)
    }
}

impl Cascade {
    /// Every sentence from the run's facts, taken once (the row's label also restates the
    /// settings that differ from the chapter's).
    fn words_at(&self, f: &super::CascadeFacts) -> CascadeWords {
        let tour = f.tour.as_ref();
        let moment = tour.map(|t| &t.moment);
        CascadeWords {
            fix: row::fix(f),
            verdict: verdict::verdict(f),
            row_label: row::row_label(f, &self.config),
            row_home: row::row_home(f),
            row_ok: row::row_ok(f),
            row_failed: count(f.checkout.failed),
            note_home: notes::note_home(f),
            note_growth: notes::note_growth(f),
            note_ok: notes::note_ok(f),
            note_failed: notes::note_failed(f),
            note_p99: notes::note_p99(f),
            note_pool: notes::note_pool(f),
            note_downstream: notes::note_downstream(f),
            shared_pool_title: notes::shared_pool_title(f),
            shared_pool: f.shared_now.status(f.recs_pool.is_none()),
            recs_pool_title: notes::recs_pool_title(f),
            recs_pool: f.recs_pool_now.map(|p| p.status(false)),
            tour_recs: moment.map(|m| tour::tour_recs(f, m)),
            tour_home: moment.map(tour::tour_home),
            tour_pool: moment.map(tour::tour_pool),
            tour_checkout: moment.map(tour::tour_checkout),
            tour_explanation: tour.map(|t| tour::tour_explanation(f, t)),
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

/// Which sentences quote which cards (see [`Quote`]).
/// The verdict quotes the headline cards.
pub static QUOTES: &[Quote] = &[
    Quote { reading: CascadeWords::verdict.key, metrics: &[CascadeMetrics::checkout_ok.key(), CascadeMetrics::checkout_failed.key(), CascadeMetrics::checkout_p99_ms_with_waiting.key(), CascadeMetrics::home_in_flight_end.key(), CascadeMetrics::pool_in_use_max.key()] },
];
