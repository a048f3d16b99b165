//! What a double-click run means, in words. Every sentence is computed from the run's
//! configuration and its records at the moment it is read, so it is true of the run on screen
//! whatever the reader changed (`tests/double_click.rs` checks the claims against the metrics
//! over random parameters).
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
mod words;

pub use words::Happening;

use super::chapter::chapter_charges;
use super::model::{AttemptOutcome, BuyerOutcome, ClickEffect, DoubleClick};
use super::SPEC;
use super::spec::{DoubleClickConfig, Fix};
use crate::format;
use crate::sim::{Config, Explain};
use crate::sim::Micros;
use words::when;

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
    type Words = DoubleClickWords;

    fn words(&self, now: Micros) -> DoubleClickWords {
        self.words_at(now)
    }

    fn sweep_theory(c: &DoubleClickConfig, x: &str, _by: Option<&str>) -> Option<String> {
        sweep_theory(c, x)
    }
}

impl DoubleClick {
    pub(super) fn words_at(&self, now: Micros) -> DoubleClickWords {
        let events = self.happenings(now);
        let chapter = chapter_charges(self.config.fix).filter(|_| self.is_chapters_run()).map(|n| {
            let with = match self.config.fix {
                Fix::None => "no fix",
                Fix::Disable => "button disabled",
                _ => "one key",
            };
            format!("The chapter: {n}, {with}")
        });
        let recovery = self.recovery_sentence();
        DoubleClickWords {
            verdict: self.verdict(now),
            buyer_sees: self.buyer_sees(),
            events: events
                .iter()
                .map(|h| format!("{}: {}: {}", when(h.at), h.place, h.text))
                .collect::<Vec<_>>()
                .join("\n"),
            last_event: self.last_event(now, &events),
            chapter,
            recovery: (!recovery.is_empty()).then_some(recovery),
        }
    }

    /// Whether this is the chapter's run for its fix (Part 3: the double click, or its table's
    /// single click with retries), so that the chapter's count of charges is this run's to meet;
    /// a crash, another store or a race is a different run.
    fn is_chapters_run(&self) -> bool {
        // Part 3's table has no second click: a disabled button changes nothing there.
        let chapters: [(&str, &[Fix]); 3] = [
            ("double-click", &[Fix::None, Fix::Disable, Fix::Key]),
            ("part3-table", &[Fix::None, Fix::Key]),
            ("part3-table-key", &[Fix::Key]),
        ];
        let unfixed = DoubleClickConfig { fix: Fix::None, ..self.config.clone() };
        chapters.into_iter().any(|(id, fixes)| {
            let Some(preset) = SPEC.preset(id) else { return false };
            let mut p = SPEC.defaults();
            p.apply_preset(preset).expect("a declared preset applies");
            fixes.contains(&self.config.fix) && DoubleClickConfig { fix: Fix::None, ..DoubleClickConfig::from_params(&p) } == unfixed
        })
    }

    /// Whether nothing more can happen that the buyer or the card would see: every click has
    /// come, the page has told the buyer, no handler run is still charging, and the recovery
    /// job has no pending order left to settle.
    pub fn settled(&self, now: Micros) -> bool {
        let clicks = 1 + usize::from(self.config.second_click);
        let all_came = self.clicks.len() == clicks || now >= self.end;
        all_came
            && self.buyer_outcome() != BuyerOutcome::Waiting
            && self.runs_in_progress() == 0
            && self.recoveries_due(now) == 0
    }

    /// Once settled: whether what the buyer was told is true of the card.
    pub fn story_matches_card(&self, now: Micros) -> Option<bool> {
        if !self.settled(now) {
            return None;
        }
        let charges = self.ledger.len();
        Some(match self.buyer_outcome() {
            BuyerOutcome::Paid | BuyerOutcome::Processing => charges == 1,
            BuyerOutcome::Failed | BuyerOutcome::Rejected => charges == 0,
            _ => false,
        })
    }

    fn verdict(&self, now: Micros) -> String {
        if self.clicks.is_empty() {
            return "Press Play to watch, or Step to go one event at a time.".to_string();
        }
        let on_card = format!("{} on the card", format::count(self.ledger.len() as u64));
        let judgement = match (self.story_matches_card(now), self.buyer_outcome()) {
            (None, _) => String::new(),
            (Some(true), BuyerOutcome::Paid) => "That is the truth: one purchase, one charge.".to_string(),
            (Some(true), BuyerOutcome::Processing) => {
                "That is the truth: one charge went through, and an email can confirm it.".to_string()
            }
            (Some(true), _) => "That is the truth: nothing was charged.".to_string(),
            (Some(false), BuyerOutcome::Paid) => format!("One payment on the page, {on_card}."),
            (Some(false), BuyerOutcome::Processing) => format!("One payment processing, {on_card}."),
            (Some(false), BuyerOutcome::Failed) => "The page said it failed, but the money left the card.".to_string(),
            (Some(false), _) => "The page shows an error, but the money left the card.".to_string(),
        };
        let verdict = if judgement.is_empty() { self.summary() } else { format!("{} {judgement}", self.summary()) };
        match self.click_after_reenable() {
            Some((enabled, click)) => format!(
                "{verdict} The button was disabled only until the page answered: it came back at {}, so the click at {} \
                 started a new payment.",
                when(enabled),
                when(click)
            ),
            None => verdict,
        }
    }

    /// A click that started a payment after the page had enabled the button again: when the
    /// button came back, and when that click came.
    fn click_after_reenable(&self) -> Option<(Micros, Micros)> {
        self.clicks.iter().skip(1).filter(|c| c.effect == ClickEffect::Started).find_map(|c| {
            let enabled = self.disabled.iter().filter_map(|d| d.until).filter(|&u| u <= c.at).max()?;
            Some((enabled, c.at))
        })
    }

    fn buyer_sees(&self) -> String {
        if self.clicks.is_empty() {
            return "The buyer is about to click Pay.".to_string();
        }
        let paid_with = self.attempts.iter().rev().find_map(|a| match a.outcome {
            AttemptOutcome::Ok { charge, .. } => Some(charge),
            _ => None,
        });
        match self.buyer_outcome() {
            BuyerOutcome::Paid => {
                format!("Thank you! Receipt {}.", paid_with.map_or(String::new(), |c| format!("ch_{c}")))
            }
            BuyerOutcome::Failed => "Payment failed. Please try again.".into(),
            BuyerOutcome::Processing => "Your payment is processing. We will email you.".into(),
            BuyerOutcome::Rejected => "Something went wrong. Please try again.".into(),
            // A 409 said the first attempt is still running: the page says so while it retries.
            BuyerOutcome::Waiting if self.latest_click_processing() => {
                "Processing\u{2026} Your payment is in progress; the page will check again.".into()
            }
            _ => "Please wait\u{2026}".into(),
        }
    }

    /// Whether the click the page is working on has had a 409 (the server is still charging).
    fn latest_click_processing(&self) -> bool {
        self.clicks.iter().rev().find(|c| c.effect == ClickEffect::Started).is_some_and(|c| c.processing_from.is_some())
    }

    fn last_event(&self, now: Micros, events: &[Happening]) -> String {
        if self.clicks.is_empty() {
            return "No event yet.".to_string();
        }
        let first = events.iter().filter(|h| h.at < now).count() + 1;
        let same: Vec<&str> = events.iter().filter(|h| h.at == now).map(|h| h.text.as_str()).collect();
        let numbers = match same.len() {
            1 => format!("Event {first}"),
            n => format!("Events {first}–{}", first + n - 1),
        };
        if !same.is_empty() {
            format!("{numbers}, at {}: {}", when(now), same.join(" "))
        } else if now >= self.end {
            format!("The run is over ({} events). Every event is in the list.", events.len())
        } else {
            format!("At {}: nothing the buyer, the page or the server can see changes.", when(now))
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
