//! What a choosing-numbers run means, in words: a few typed facts taken from the run
//! ([`Facts`]), and sentences that only restate them, so each is true for any parameters.
//!
//! Keys: `verdict` (at most 35 words), `answer` and `prediction` (the page's question: how many
//! healthy calls time out at this timeout; `prediction` is `almost-none`, `about-one` or `many`),
//! and the chapter's figures beside this run's, each `"<row>\t<this run>\t<the chapter's>"`:
//! `chapter_timeouts`, `chapter_fan_out`, `chapter_fit`, `chapter_worst`; `alert`, where the
//! timeout-rate alert is and its rule.

use super::facts::Facts;
use super::model::ChoosingNumbers;
use super::record::AlertState;
use super::spec::ChoosingNumbersConfig;
use super::latency::Latency;
use crate::format;
use crate::sim::{Caption, Explain, Guess, Micros};
use crate::sim::scenario::Quote;
use super::spec::ChoosingNumbersMetrics;

/// The page's answers to "what share of healthy calls time out?", in the order shown, and the
/// shares (in %) that separate them: 1 in 300 and 1 in 20.
pub const ALMOST_NONE: Guess = ("almost-none", "Almost none: well under 1 in 300");
pub const ABOUT_ONE: Guess = ("about-one", "Around 1 in 100 (between 1 in 300 and 1 in 20)");
pub const MANY: Guess = ("many", "More than 1 in 20");
pub const PREDICTIONS: &[Guess] = &[ALMOST_NONE, ABOUT_ONE, MANY];
const ALMOST_NONE_BELOW_PCT: f64 = 0.3;
const MANY_FROM_PCT: f64 = 5.0;

impl Facts {
    pub fn verdict(&self) -> String {
        if self.finished == 0 {
            return "Press play: no request has been answered yet.".to_string();
        }
        let mut out = Vec::new();
        // Break 2's lesson leads when it is this run's: a request waited several timeouts. The
        // worst wait is then said once, and the calls per request left to the card (a verdict
        // stays within 35 words).
        let long = self.waits_past_its_timeout();
        let said_worst = long.is_some();
        out.extend(long);
        if let Some(rate) = self.timeout_rate_pct {
            let at = match (self.timeout_ms, self.tail_pct) {
                (Some(t), Some(tail)) => format!(" with a {} timeout (fitted tail: {})", format::ms(t), format::pct(tail)),
                _ => String::new(),
            };
            out.push(format!("{} of healthy calls timed out{at}.", format::pct(rate)));
        }
        if let Some(cpr) = self.calls_per_request.filter(|_| !said_worst) {
            let cpr = libm::round(cpr * 100.0) / 100.0;
            // "1 call per request", as the unit reads after exactly one ("1.03 calls").
            let calls = if cpr == 1.0 { "call" } else { "calls" };
            out.push(format!(
                "{} {calls} per request ({} without retries).",
                format::plain(cpr),
                self.calls_without_retries
            ));
        }
        match (self.route_p99_ms, self.worst_ms) {
            // As their cards show them ("179 s", not "179,307 ms" beside it).
            (Some(p99), _) if said_worst => out.push(format!("Route p99 {}.", format::card_ms(p99))),
            (Some(p99), Some(worst)) => {
                out.push(format!("Route p99 {}, worst wait {}.", format::card_ms(p99), format::card_ms(worst)))
            }
            _ => {}
        }
        if let (Some(past), Some(d)) = (self.past_deadline_pct, self.deadline_ms)
            && past > 0.0
        {
            out.push(format!("{} hit the {} deadline.", format::pct(past), format::ms(d)));
        }
        out.join(" ")
    }

    /// With no route deadline, a request that waited at least twice the per-attempt timeout:
    /// "Worst wait 12,000 ms, ×6 the 2,000 ms timeout: a timeout bounds each attempt, not the
    /// request."
    fn waits_past_its_timeout(&self) -> Option<String> {
        let (worst, t) = (self.worst_ms?, self.timeout_ms?);
        (self.deadline_ms.is_none() && worst >= 2.0 * t).then(|| {
            format!(
                "Worst wait {}, {} the {} timeout: a timeout bounds each attempt, not the request.",
                format::card_ms(worst),
                format::times(worst / t),
                format::ms(t)
            )
        })
    }

    /// Which of the page's answers this run bears out.
    pub fn prediction(&self) -> Option<&'static str> {
        let rate = self.timeout_rate_pct?;
        Some(if rate < ALMOST_NONE_BELOW_PCT {
            ALMOST_NONE.0
        } else if rate < MANY_FROM_PCT {
            ABOUT_ONE.0
        } else {
            MANY.0
        })
    }

    pub fn answer(&self) -> String {
        let Some(rate) = self.timeout_rate_pct else { return String::new() };
        match (self.timeout_ms, self.tail_pct) {
            (Some(t), Some(tail)) => format!(
                "{} of healthy calls timed out with a {} timeout: the fitted distribution puts {} of calls above it.",
                format::pct(rate),
                format::ms(t),
                format::pct(tail)
            ),
            _ => format!("{} of healthy calls timed out, with no per-attempt timeout set.", format::pct(rate)),
        }
    }

    /// Where the alert is, with its rule: "Pending since 47 s: more than 0.2% (and at least 10)
    /// of the attempts that ended in the last 60 s timed out; it fires at 77 s if that holds."
    pub fn alert(&self) -> String {
        let r = &self.alert_rule;
        let least = if r.min_timeouts > 1 { format!("(and at least {}) ", r.min_timeouts) } else { String::new() };
        let condition = format!(
            "more than {} {least}of the attempts that ended in the last {} timed out",
            format::pct(r.threshold_pct),
            format::secs(r.window_s as f64)
        );
        let held = self.alert_held_since.unwrap_or_default();
        match self.alert {
            AlertState::Firing if r.for_us > 0 => format!(
                "Firing since {}: {condition}, at every second since {}.",
                format::seconds(held + r.for_us),
                format::seconds(held)
            ),
            AlertState::Firing => format!("Firing since {}: {condition}.", format::seconds(held)),
            AlertState::Pending => format!(
                "Pending since {}: {condition}; it fires at {} if that still holds.",
                format::seconds(held),
                format::seconds(held + r.for_us)
            ),
            AlertState::Inactive => {
                let quiet = match self.alert_first_fired {
                    Some(t) => format!("Quiet now (it first fired at {})", format::seconds(t)),
                    None => "Quiet".to_string(),
                };
                let run = if r.for_us > 0 { format!(", for {} in a row,", format::seconds(r.for_us)) } else { String::new() };
                format!("{quiet}: the alert fires when{run} {condition}.")
            }
        }
    }

    /// The chapter's figures beside this run's.
    pub fn chapter_rows(&self) -> [String; 4] {
        let or_dash = |v: Option<String>| v.unwrap_or_else(|| "—".to_string());
        let timeouts = match (self.timeout_rate_pct, self.timeout_ms) {
            (Some(r), Some(t)) => Some(format!("{} with a {} timeout", format::pct(r), format::ms(t))),
            (Some(r), None) => Some(format!("{} with no timeout", format::pct(r))),
            _ => None,
        };
        let calls = match (self.fan_out, self.calls_without_retries / self.fan_out) {
            (fan, 1) => format::counted(fan as u64, "call", "parallel calls"),
            (1, steps) => format!("{steps} calls in sequence"),
            (fan, steps) => format!("{steps} steps of {fan} parallel calls"),
        };
        let fan = self.slow_pct.map(|s| format!("{} with {calls}", format::pct(s)));
        let fit = match (self.attempts_fit, self.deadline_ms, self.timeout_ms) {
            (Some(n), Some(d), Some(t)) => Some(format!("{n} ({} deadline, {} each)", format::ms(d), format::ms(t))),
            _ => None,
        };
        [
                        format!(
                    "Healthy calls timed out\t{}\t1% at p99 (180 ms); almost none at 500 ms",
                    or_dash(timeouts)
                ),
            format!("Slower than one call's p99\t{}\t4.9% with 5 parallel calls", or_dash(fan)),
                        format!("Attempts that fit in the deadline\t{}\t3 (2 s deadline, 500 ms each, minus backoff)", or_dash(fit)),
                        format!(
                    "Worst wait\t{}\t12 s = 2 calls × 3 attempts × 2 s (Break 2)",
                    or_dash(self.worst_ms.map(format::card_ms))
                ),
        ]
    }
}

crate::words! {
    /// What a choosing-numbers run means, in words (the keys above).
    pub struct ChoosingNumbersWords {
        pub verdict: String,
        pub answer: String,
        pub prediction: Option<String>,
        pub chapter_timeouts: String,
        pub chapter_fan_out: String,
        pub chapter_fit: String,
        pub chapter_worst: String,
        pub alert: String,
    }
}

impl Explain for ChoosingNumbers {
    type Facts = Facts;
    type Words = ChoosingNumbersWords;

    fn facts(&self, _now: Micros) -> Facts {
        ChoosingNumbers::facts(self)
    }

    fn words(&self, facts: &Facts) -> ChoosingNumbersWords {
        let [chapter_timeouts, chapter_fan_out, chapter_fit, chapter_worst] = facts.chapter_rows();
        ChoosingNumbersWords {
            verdict: facts.verdict(),
            answer: facts.answer(),
            prediction: facts.prediction().map(str::to_string),
            chapter_timeouts,
            chapter_fan_out,
            chapter_fit,
            chapter_worst,
            alert: facts.alert(),
        }
    }

    fn caption(_config: &ChoosingNumbersConfig, _words: &ChoosingNumbersWords) -> Caption {
        Caption::of(super::spec::HEADLINE, ChoosingNumbersWords::verdict.key)
    }

    fn sweep_theory(c: &ChoosingNumbersConfig, x: &str, _by: Option<&str>) -> Option<String> {
        (x == ChoosingNumbersConfig::timeout_ms).then(|| {
            let l = Latency::fit(c.p50_ms, c.p99_ms, c.p999_ms);
            let at = |t: f64| format!("{} at {}", format::pct(100.0 * l.tail(t)), format::ms(t));
            format!(
                "Theory: an attempt times out when the call is slower than its timeout, so the healthy timeout rate \
                 follows the fitted tail while the deadline leaves each attempt its full timeout: {}, {}, {}, {}.",
                at(100.0),
                at(l.p99_ms),
                at(l.p999_ms),
                at(1000.0)
            )
        })
    }
}

/// Which sentences quote which cards (see [`Quote`]).
/// The verdict quotes the headline cards; the alert's sentence, when it first fired.
pub static QUOTES: &[Quote] = &[
    Quote { reading: ChoosingNumbersWords::alert.key, metrics: &[ChoosingNumbersMetrics::alert_fired_at_ms.key()] },
    Quote { reading: ChoosingNumbersWords::verdict.key, metrics: &[ChoosingNumbersMetrics::timeout_rate_pct.key(), ChoosingNumbersMetrics::route_p99_ms.key(), ChoosingNumbersMetrics::worst_wait_ms.key(), ChoosingNumbersMetrics::calls_per_request.key()] },
];
