//! The verdict, the message under the Pay button and the chapter's line, rendered from the
//! run's facts only.

use super::super::facts::{DoubleClickFacts, Reenabled};
use super::super::model::{BuyerOutcome, summary_sentence};
use super::super::spec::Fix;
use super::words::when;
use crate::format;

impl DoubleClickFacts {
    /// What the buyer was told against what the card shows, and, once nothing more can happen,
    /// whether the two agree.
    pub fn verdict(&self) -> String {
        if self.clicks == 0 {
            return "Press Play to watch, or Step to go one event at a time.".to_string();
        }
        let summary = summary_sentence(self.buyer, self.receipt, &self.charge_ids, self.in_progress);
        let verdict = match self.judgement() {
            Some(judgement) => format!("{summary} {judgement}"),
            None => summary,
        };
        match self.reenabled {
            Some(Reenabled { at, click_at }) => format!(
                "{verdict} The button was disabled only until the page answered: it came back at {}, so the click at {} \
                 started a new payment.",
                when(at),
                when(click_at)
            ),
            None => verdict,
        }
    }

    fn judgement(&self) -> Option<String> {
        let on_card = format!("{} on the card", format::count(self.charge_ids.len() as u64));
        Some(match (self.story_matches_card?, self.buyer) {
            (true, BuyerOutcome::Paid) => "That is the truth: one purchase, one charge.".to_string(),
            (true, BuyerOutcome::Processing) => {
                "That is the truth: one charge went through, and an email can confirm it.".to_string()
            }
            (true, _) => "That is the truth: nothing was charged.".to_string(),
            (false, BuyerOutcome::Paid) => format!("One payment on the page, {on_card}."),
            (false, BuyerOutcome::Processing) => format!("One payment processing, {on_card}."),
            (false, BuyerOutcome::Failed) => "The page said it failed, but the money left the card.".to_string(),
            (false, _) => "The page shows an error, but the money left the card.".to_string(),
        })
    }

    /// The message under the Pay button.
    pub fn buyer_sees(&self) -> String {
        if self.clicks == 0 {
            return "The buyer is about to click Pay.".to_string();
        }
        match self.buyer {
            BuyerOutcome::Paid => {
                format!("Thank you! Receipt {}.", self.receipt.map_or(String::new(), |c| format!("ch_{c}")))
            }
            BuyerOutcome::Failed => "Payment failed. Please try again.".into(),
            BuyerOutcome::Processing => "Your payment is processing. We will email you.".into(),
            BuyerOutcome::Rejected => "Something went wrong. Please try again.".into(),
            // A 409 said the first attempt is still running: the page says so while it retries.
            BuyerOutcome::Waiting if self.processing_409 => {
                "Processing\u{2026} Your payment is in progress; the page will check again.".into()
            }
            _ => "Please wait\u{2026}".into(),
        }
    }

    /// The chapter's count of charges for this fix, only when this is the chapter's run.
    pub fn chapter(&self) -> Option<String> {
        let with = match self.fix {
            Fix::None => "no fix",
            Fix::Disable => "button disabled",
            _ => "one key",
        };
        self.chapter_charges.map(|n| format!("The chapter: {n}, {with}"))
    }
}
