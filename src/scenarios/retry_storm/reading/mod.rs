//! What a retry-storm run means, in words. Every sentence restates the run's facts
//! ([`super::RetryStormFacts`], taken once per reading at the moment it is read) and, where it
//! says what the settings are, the configuration: nothing else, so it is true of the run on
//! screen whatever the reader changed. tests/retry_storm_facts.rs and tests/retry_storm.rs check
//! those facts, and each claim's precondition, against the metrics of random runs; the wording
//! is kept by snapshot (tests/golden/words/retry-storm.json).
//!
//! Keys: `verdict` (the peak after recovery against the capacity, the waves, when the clients
//! were done retrying), `prediction` (which of the page's answers the peak bears out: `near`,
//! `double` or `storm`; once the provider is back), `backoff` (what the chosen backoff does,
//! with the run's delays), `traffic` (the outage's calls per tick against the calls before it),
//! `budget` (what the retry budget, or its absence, did during the outage), `layers` (calls
//! per user action across the retrying layers), `breaker` (the circuit breaker's rule and what
//! it did, or its absence), `pending` (the orders accepted as pending and their drain),
//! `breaker_state` (with a breaker: closed, open or half-open now), `summary` (one line for a
//! comparison column),
//! and the stat cards' notes: `peak_note`, `waves_note`, `recovered_note`, `amplification_note`,
//! `attempts_note`, `calls_note`, `traffic_note`, `retry_note`.

mod backoff;
mod breaker;
mod budget;
mod chart;
mod layers;
mod notes;
mod verdict;
mod words;

use super::{RetryStorm, RetryStormConfig};
use crate::sim::{Caption, Explain};
use crate::sim::{Guess, Micros};
use crate::format;
use crate::sim::scenario::Quote;
use super::spec::RetryStormMetrics;

crate::words! {
    /// What a retry-storm run means, in words (the keys above).
    pub struct RetryStormWords {
        pub verdict: String,
        pub prediction: Option<String>,
        pub backoff: String,
        pub traffic: String,
        pub budget: String,
        pub layers: String,
        pub breaker: String,
        pub pending: String,
        pub summary: String,
        pub peak_note: String,
        pub waves_note: String,
        pub recovered_note: String,
        pub amplification_note: String,
        pub attempts_note: String,
        pub calls_note: String,
        pub traffic_note: String,
        pub retry_note: String,
        pub breaker_state: Option<String>,
    }
}

impl Explain for RetryStorm {
    type Facts = super::RetryStormFacts;
    type Words = RetryStormWords;

    fn facts(&self, now: Micros) -> super::RetryStormFacts {
        RetryStorm::facts(self, now)
    }

    fn words(&self, facts: &super::RetryStormFacts) -> RetryStormWords {
        self.words_at(facts)
    }

    fn caption(_config: &RetryStormConfig, _words: &RetryStormWords) -> Caption {
        Caption::of(super::spec::HEADLINE, RetryStormWords::verdict.key)
    }

    fn sweep_theory(c: &RetryStormConfig, x: &str, _by: Option<&str>) -> Option<String> {
        sweep_theory(c, x)
    }
}

/// A peak up to this multiple of the capacity is "about what it can take" (the page colours
/// it fine); up to [`STORM`] "up to about twice"; above, "several times".
pub const NEAR: f64 = 1.5;
const STORM: f64 = 3.0;

/// The page's answers to "how do the first ticks after the outage compare with the provider's
/// capacity?", in the order shown.
pub const TAKES: Guess = ("near", "what it can take, or less");
pub const TWICE: Guess = ("double", "up to about twice that");
pub const SEVERAL: Guess = ("storm", "several times that");
pub const PREDICTIONS: &[Guess] = &[TAKES, TWICE, SEVERAL];

/// Which of the page's predictions a peak-to-capacity ratio bears out.
pub fn prediction(ratio: f64) -> &'static str {
    if ratio <= NEAR {
        TAKES.0
    } else if ratio <= STORM {
        TWICE.0
    } else {
        SEVERAL.0
    }
}

impl RetryStorm {
    pub(super) fn words_at(&self, f: &super::RetryStormFacts) -> RetryStormWords {
        let c = &self.config;
        RetryStormWords {
            verdict: verdict::verdict(f),
            prediction: f.peak_vs_capacity.map(|r| prediction(r).to_string()),
            backoff: backoff::backoff_words(f),
            traffic: budget::traffic_words(f),
            budget: budget::budget_words(f, c),
            layers: layers::layers_words(f),
            breaker: breaker::breaker_words(f, c),
            pending: breaker::pending_words(f, c),
            summary: verdict::summary(f),
            peak_note: notes::peak_note(f),
            waves_note: notes::waves_note(f),
            recovered_note: notes::recovered_note(f),
            amplification_note: notes::amplification_note(f),
            attempts_note: notes::attempts_note(f),
            calls_note: notes::calls_note(f),
            traffic_note: notes::traffic_note(f),
            retry_note: notes::retry_note(f),
            breaker_state: breaker::breaker_state(f),
        }
    }
}

/// Why the default sweep's curves (the peak after recovery against the base delay, by backoff)
/// look as they do, from the parameters.
pub fn sweep_theory(c: &RetryStormConfig, x: &str) -> Option<String> {
    (x == "base_ms").then(|| {
        format!(
            "While the provider is down every call fails at once, so clients that failed together wait and retry \
             together. With a fixed or an exponential wait they all wait the same time, and up to {} calls come back \
             in one wave against a capacity of {} per tick, whatever the base delay (the fixed wait does not use it \
             at all). Jitter draws each wait at random between zero and the exponential one, so clients that failed \
             together come back spread out; the exponential wait soon reaches the {} cap, which is why the base \
             delay changes little.",
            format::count(c.clients as u64),
            format::count(c.capacity as u64),
            format::ms(c.cap_ms)
        )
    })
}

/// Which sentences quote which cards (see [`Quote`]).
/// The verdict quotes the peak; the readings below it, the cards they explain.
pub static QUOTES: &[Quote] = &[
    Quote { reading: RetryStormWords::verdict.key, metrics: &[RetryStormMetrics::peak_after_recovery.key()] },
    Quote { reading: RetryStormWords::layers.key, metrics: &[RetryStormMetrics::attempts_total.key(), RetryStormMetrics::max_calls_per_user_action.key()] },
    Quote { reading: RetryStormWords::budget.key, metrics: &[RetryStormMetrics::outage_retry_pct.key()] },
    Quote { reading: RetryStormWords::breaker.key, metrics: &[RetryStormMetrics::calls_while_down.key()] },
];
