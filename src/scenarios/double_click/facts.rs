//! What a double-click run did, and why, taken from the model once: the verdict, the message
//! under the button and the chapter's line restate these and nothing else.

use super::chapter::chapter_charges;
use super::log::Happening;
use super::model::{BuyerOutcome, ClickEffect, DoubleClick};
use super::spec::{Claim, DoubleClickConfig, Fix, KeyStore, PARAMS, PRESETS};
use crate::sim::{Config, Micros, Params};

/// The button came back before a later click, so that click started a new payment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
pub struct Reenabled {
    /// When the page enabled the button again (µs).
    pub at: Micros,
    /// When the click that started a new payment came (µs).
    pub click_at: Micros,
}

/// What the recovery job settled so far (only once it has settled an order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
pub struct RecoverySettled {
    /// Pending orders the recovery job settled.
    pub orders: u64,
    /// Of those, the ones whose provider call charged the card anew (0: the provider
    /// recognised every order's key).
    pub charged_again: u64,
}

/// What a double-click run did, and why.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
pub struct DoubleClickFacts {
    /// The fix the run tries.
    pub fix: Fix,
    /// Clicks so far (counted even when the page ignored them).
    pub clicks: u64,
    /// Clicks that started a payment.
    pub purchases: u64,
    /// The charges on the card, by id (1 for ch_1), in the order they committed.
    pub charge_ids: Vec<u32>,
    /// Different idempotency keys the client sent (0 without a key).
    pub keys_used: u64,
    /// What the page tells the buyer about the latest click that started a payment.
    pub buyer: BuyerOutcome,
    /// The receipt's charge (the last attempt answered 200).
    pub receipt: Option<u32>,
    /// Whether the click the page is working on had a 409 (the server is still charging).
    pub processing_409: bool,
    /// Handler runs still charging.
    pub in_progress: u64,
    /// Whether nothing more can happen that the buyer or the card would see.
    pub settled: bool,
    /// Once settled: whether what the buyer was told is true of the card.
    pub story_matches_card: Option<bool>,
    /// The button came back before a later click that started a payment.
    pub reenabled: Option<Reenabled>,
    /// Whether this is the chapter's run for its fix (so the chapter's count applies).
    pub chapters_run: bool,
    /// The chapter's charges for this fix, when this is the chapter's run.
    pub chapter_charges: Option<u64>,
    /// Where the key record lives.
    pub key_store: KeyStore,
    /// How the server claims a key.
    pub claim: Claim,
    /// Whether the worker dies right after the charge commits.
    pub crash_after_charge: bool,
    /// Whether the two clicks come in the same millisecond (a race on the key's claim).
    pub same_ms_clicks: bool,
    /// What the recovery job settled, once it has settled an order.
    pub recovery: Option<RecoverySettled>,
    /// The moment these facts are of (µs).
    pub now: Micros,
    /// Whether the run has reached its end.
    pub run_over: bool,
    /// Every event so far, in order.
    pub events: Vec<Happening>,
}

impl DoubleClick {
    /// The run's facts at `now`.
    pub fn facts(&self, now: Micros) -> DoubleClickFacts {
        let c = &self.config;
        let chapters_run = self.is_chapters_run();
        let mut keys: Vec<u32> = self.attempts.iter().filter_map(|a| a.key).collect();
        keys.sort_unstable();
        keys.dedup();
        DoubleClickFacts {
            fix: c.fix,
            clicks: self.clicks.len() as u64,
            purchases: self.clicks.iter().filter(|c| c.effect == ClickEffect::Started).count() as u64,
            charge_ids: self.ledger.iter().map(|c| c.id).collect(),
            keys_used: keys.len() as u64,
            buyer: self.buyer_outcome(),
            receipt: self.receipt(),
            processing_409: self.latest_click_processing(),
            in_progress: self.runs_in_progress() as u64,
            settled: self.settled(now),
            story_matches_card: self.story_matches_card(now),
            reenabled: self.click_after_reenable(),
            chapters_run,
            chapter_charges: chapter_charges(c.fix).filter(|_| chapters_run),
            key_store: c.key_store,
            claim: c.claim,
            crash_after_charge: c.crash_after_charge,
            same_ms_clicks: c.second_click && c.second_click_ms < 1.0,
            recovery: self.recovery_settled(),
            now,
            run_over: now >= self.end,
            events: self.happenings(now),
        }
    }

    /// What the recovery job settled (None while it has settled nothing).
    fn recovery_settled(&self) -> Option<RecoverySettled> {
        let done: Vec<_> = self.recoveries.iter().filter(|r| r.end.is_some()).collect();
        (!done.is_empty()).then(|| RecoverySettled {
            orders: done.len() as u64,
            charged_again: done.iter().filter(|r| r.new_charge).count() as u64,
        })
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
            let Some(preset) = PRESETS.iter().find(|p| p.id == id) else { return false };
            let mut p = Params::defaults(PARAMS);
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

    /// A click that started a payment after the page had enabled the button again: when the
    /// button came back, and when that click came.
    fn click_after_reenable(&self) -> Option<Reenabled> {
        self.clicks.iter().skip(1).filter(|c| c.effect == ClickEffect::Started).find_map(|c| {
            let enabled = self.disabled.iter().filter_map(|d| d.until).filter(|&u| u <= c.at).max()?;
            Some(Reenabled { at: enabled, click_at: c.at })
        })
    }

    /// Whether the click the page is working on has had a 409 (the server is still charging).
    fn latest_click_processing(&self) -> bool {
        self.clicks.iter().rev().find(|c| c.effect == ClickEffect::Started).is_some_and(|c| c.processing_from.is_some())
    }
}
