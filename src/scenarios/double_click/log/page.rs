//! The page's and the helper's events: the clicks, the button, what the buyer is told, and each
//! attempt sent and how it ended.

use super::{AttemptEnd, ClickKey, Place, Push, SentKey, What};
use crate::scenarios::double_click::model::{AttemptOutcome, BuyerOutcome, ClickEffect, DoubleClick};
use crate::scenarios::double_click::spec::{AMOUNT_CENTS, Fix};
use crate::sim::Micros;

impl DoubleClick {
    /// The click that started at `at` (what it does in that instant is ordered with it).
    pub(super) fn click_at(&self, at: Micros, after: Option<usize>) -> usize {
        self.clicks
            .iter()
            .enumerate()
            .find(|(j, c)| c.effect == ClickEffect::Started && c.at == at && after.is_none_or(|a| *j > a))
            .map_or(0, |(j, _)| j)
    }

    pub(super) fn click_happenings(&self, push: &mut Push) {
        for (i, c) in self.clicks.iter().enumerate() {
            let click = i + 1;
            let what = match c.effect {
                ClickEffect::Started => What::Click {
                    click,
                    tip_cents: (c.amount_cents != AMOUNT_CENTS).then_some(c.amount_cents),
                    key: c.key.map(|k| match self.config.fix {
                        Fix::Key if i == 0 => ClickKey::Created(k),
                        Fix::Key => ClickKey::Reused(k),
                        _ => ClickKey::NewForClick(k),
                    }),
                },
                ClickEffect::IgnoredDisabled => What::ClickWhileDisabled { click },
                ClickEffect::IgnoredAfterPaid => What::ClickAfterReceipt { click },
            };
            push(c.at, (0, i * 4), Place::Page, what);
            let told = matches!(
                c.outcome,
                BuyerOutcome::Paid | BuyerOutcome::Failed | BuyerOutcome::Processing | BuyerOutcome::Rejected
            );
            if let (Some(f), true) = (c.finished_at, told) {
                push(f, (4, i), Place::Page, What::BuyerTold { outcome: c.outcome });
            }
        }
        for (i, d) in self.disabled.iter().enumerate() {
            push(d.from, (0, self.click_at(d.from, None) * 4 + 2), Place::Page, What::ButtonDisabled);
            if let Some(u) = d.until {
                push(u, (5, i), Place::Page, What::ButtonEnabled);
            }
        }
    }

    pub(super) fn attempt_happenings(&self, push: &mut Push) {
        for (i, a) in self.attempts.iter().enumerate() {
            let attempt = self.attempt_ref(i);
            let key = a.key.map(|k| if self.config.fix == Fix::KeyPerAttempt { SentKey::NewForAttempt(k) } else { SentKey::Clicks(k) });
            let cents = (a.amount_cents != AMOUNT_CENTS).then_some(a.amount_cents);
            let order = if a.number == 1 { (0, a.click * 4 + 3) } else { (3, i * 8) };
            push(a.start, order, Place::Helper, What::AttemptSent { attempt, cents, key });
            let Some(end) = a.end else { continue };
            let retries_left = a.number <= self.config.retries;
            let end_as_seen = match a.outcome {
                AttemptOutcome::Aborted => {
                    let order = (0, self.click_at(end, Some(a.click)) * 4 + 1);
                    push(end, order, Place::Helper, What::AttemptAborted { attempt });
                    continue;
                }
                AttemptOutcome::Pending => continue,
                AttemptOutcome::Timeout => AttemptEnd::TimedOut { after: self.attempt_timeout },
                AttemptOutcome::Reset => AttemptEnd::Reset,
                AttemptOutcome::ServerError => AttemptEnd::ServerError,
                AttemptOutcome::Conflict => AttemptEnd::Conflict,
                AttemptOutcome::Ok { charge, replayed } => AttemptEnd::Ok { charge, replayed },
                AttemptOutcome::Rejected => AttemptEnd::Rejected,
            };
            push(end, (3, i * 8 + 3), Place::Helper, What::AttemptEnded { attempt, end: end_as_seen, retries_left });
        }
    }
}
