//! What a double-click run means, in words, rendered from the run's facts
//! ([`DoubleClickFacts`](super::DoubleClickFacts)) only: the list of events one line per typed
//! event of the facts ([`Happening`](super::Happening)); `tests/double_click.rs` and
//! `tests/double_click_facts.rs` check the facts against the metrics and the records over
//! random parameters.
//!
//! Keys:
//! - `verdict`: what the buyer was told against what the card shows (the `summary` metric),
//!   and, once nothing more can happen, whether the two agree.
//! - `buyer_sees`: the message under the Pay button.
//! - `chapter`: the chapter's count of charges for this fix ("The chapter: 3, no fix";
//!   None 3, Disable 2, Idempotency key 1), for the three fixes the chapter names.
//! - `events`: everything that happened so far, one per line: `"<time>: <where>: <what>"`.
//! - `last_event`: what the latest moment changed, numbered as the list numbers it.
//! - `recovery`: what the recovery job settled and whether the provider charged again (only
//!   once it has settled an order).

mod events;
mod provider;
mod verdict;
mod words;

use super::facts::DoubleClickFacts;
use super::model::DoubleClick;
use super::spec::DoubleClickConfig;
use crate::format;
use crate::sim::{Caption, Explain, Shown};
use crate::sim::Micros;
use words::when;
use crate::sim::scenario::Quote;
use super::spec::DoubleClickMetrics;

crate::words! {
    /// What a double-click run means, in words (the keys above).
    pub struct DoubleClickWords {
        pub verdict: String,
        pub buyer_sees: String,
        pub events: String,
        pub last_event: String,
        pub chapter: Option<String>,
        pub recovery: Option<String>,
    }
}

impl Explain for DoubleClick {
    type Facts = super::DoubleClickFacts;
    type Words = DoubleClickWords;

    fn facts(&self, now: Micros) -> super::DoubleClickFacts {
        DoubleClick::facts(self, now)
    }

    fn words(&self, facts: &super::DoubleClickFacts) -> DoubleClickWords {
        self.words_at(facts)
    }

    /// The verdict whole: the page shows it as one paragraph beside the Pay button.
    fn caption(_config: &DoubleClickConfig, _words: &DoubleClickWords) -> Caption {
        Caption { shown: Shown::Whole, ..Caption::of(super::spec::HEADLINE, DoubleClickWords::verdict.key) }
    }

    fn sweep_theory(c: &DoubleClickConfig, x: &str, _by: Option<&str>) -> Option<String> {
        sweep_theory(c, x)
    }
}

impl DoubleClick {
    pub(super) fn words_at(&self, facts: &super::DoubleClickFacts) -> DoubleClickWords {
        DoubleClickWords {
            verdict: facts.verdict(),
            buyer_sees: facts.buyer_sees(),
            events: facts.events.iter().map(|h| h.line()).collect::<Vec<_>>().join("\n"),
            last_event: facts.last_event(),
            chapter: facts.chapter(),
            recovery: facts.recovery(),
        }
    }
}

impl DoubleClickFacts {
    /// What the latest moment changed, numbered as the list numbers it.
    pub fn last_event(&self) -> String {
        if self.clicks == 0 {
            return "No event yet.".to_string();
        }
        let first = self.events.iter().filter(|h| h.at < self.now).count() + 1;
        let same: Vec<String> = self.events.iter().filter(|h| h.at == self.now).map(|h| h.text()).collect();
        let numbers = match same.len() {
            1 => format!("Event {first}"),
            n => format!("Events {first}–{}", first + n - 1),
        };
        if !same.is_empty() {
            format!("{numbers}, at {}: {}", when(self.now), same.join(" "))
        } else if self.run_over {
            format!("The run is over ({} events). Every event is in the list.", self.events.len())
        } else {
            format!("At {}: nothing the buyer, the page or the server can see changes.", when(self.now))
        }
    }
}

/// Why the default sweep's curves (charges against the second click's moment, by fix) look as
/// they do, from the parameters.
pub fn sweep_theory(c: &DoubleClickConfig, x: &str) -> Option<String> {
    (x == DoubleClickConfig::second_click_ms).then(|| {
        format!(
            "Each click starts a purchase whose helper tries up to {} {} of {} each. With no fix every click and every \
             retry is a new charge. Disabling the button stops the second click only while the first purchase is \
             still trying; a click after that is a purchase of its own. One idempotency key per purchase, sent with \
             every attempt, makes all of them one charge, at any timing.",
            format::count(c.retries as u64 + 1),
            format::plural(c.retries as u64 + 1, "attempt", "attempts"),
            format::ms(c.attempt_timeout_ms)
        )
    })
}

/// Which sentences quote which cards (see [`Quote`]).
/// The verdict says how many times the card was charged.
pub static QUOTES: &[Quote] = &[
    Quote { reading: DoubleClickWords::verdict.key, metrics: &[DoubleClickMetrics::card_charged.key()] },
];
