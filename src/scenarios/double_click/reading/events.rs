//! Every event of the run so far, in words: the clicks, the helper's attempts, the server's
//! requests and the card's charges (the provider's and the recovery job's are in `provider.rs`).

use super::words::{Happening, key_name, money, when};
use crate::scenarios::double_click::model::{AttemptOutcome, BuyerOutcome, ClickEffect, DoubleClick, ServerResult};
use crate::scenarios::double_click::spec::{AMOUNT_CENTS, Claim, Fix};
use crate::sim::Micros;
use crate::sim::base::sort_short;

impl DoubleClick {
    pub(super) fn attempt_name(&self, a: usize) -> String {
        let at = &self.attempts[a];
        format!("click {}'s attempt {}", at.click + 1, at.number)
    }

    /// When the server's answer to request `s` reaches the browser (None while it has not
    /// answered).
    fn reply_at(&self, s: usize) -> Option<Micros> {
        self.server[s].end.map(|e| e + self.network)
    }

    /// The click that started at `at` (what it does in that instant is ordered with it).
    fn click_at(&self, at: Micros, after: Option<usize>) -> usize {
        self.clicks
            .iter()
            .enumerate()
            .find(|(j, c)| c.effect == ClickEffect::Started && c.at == at && after.is_none_or(|a| *j > a))
            .map_or(0, |(j, _)| j)
    }

    /// Everything that happened up to `now`, in order.
    pub fn happenings(&self, now: Micros) -> Vec<Happening> {
        let mut out = Vec::new();
        let mut push = |at: Micros, order: (u8, usize), place: &'static str, text: String| {
            if at <= now {
                out.push(Happening { at, order, place, text });
            }
        };
        self.click_happenings(&mut push);
        self.attempt_happenings(&mut push);
        self.server_happenings(&mut push);
        self.provider_happenings(&mut push);
        for (n, c) in self.ledger.iter().enumerate() {
            let s = &self.server[c.server];
            if c.by_recovery {
                push(c.at, (3, s.attempt * 8 + 6), "Card", self.recovery_charge_text(n, c));
                continue;
            }
            let mut text = if n == 0 {
                format!("The server commits ch_{}: the card is charged {}.", c.id, money(c.amount_cents))
            } else {
                format!(
                    "The server commits ch_{}: the card is charged {} again, {} charges for one purchase.",
                    c.id,
                    money(c.amount_cents),
                    n + 1
                )
            };
            if let Some(forgotten) = self.forgotten_key_text(c) {
                text.push_str(&forgotten);
            }
            if s.crashed {
                text.push_str(" Its worker dies before it can answer.");
            }
            push(c.at, (3, s.attempt * 8 + 2), "Card", text);
        }
        sort_short(&mut out, |h| (h.at, h.order));
        out
    }

    fn click_happenings(&self, push: &mut impl FnMut(Micros, (u8, usize), &'static str, String)) {
        for (i, c) in self.clicks.iter().enumerate() {
            let n = i + 1;
            let text = match c.effect {
                ClickEffect::Started => {
                    let mut s = if i == 0 {
                        "The buyer clicks Pay.".to_string()
                    } else {
                        format!("The buyer clicks Pay again (click {n}).")
                    };
                    if c.amount_cents != AMOUNT_CENTS {
                        s.push_str(&format!(" With a tip added, this click pays {}.", money(c.amount_cents)));
                    }
                    match (self.config.fix, c.key) {
                        (Fix::Key, Some(k)) if i == 0 => {
                            s.push_str(&format!(" The page creates the purchase's idempotency key {}.", key_name(k)))
                        }
                        (Fix::Key, Some(k)) => {
                            s.push_str(&format!(" The page reuses the purchase's key {}.", key_name(k)))
                        }
                        (_, Some(k)) => s.push_str(&format!(" The click handler creates a new key {}.", key_name(k))),
                        _ => {}
                    }
                    s
                }
                ClickEffect::IgnoredDisabled => {
                    format!("The buyer clicks Pay again (click {n}), but the button is disabled: nothing is sent.")
                }
                ClickEffect::IgnoredAfterPaid => format!(
                    "The buyer clicks again (click {n}), but the page already shows the receipt: nothing is sent."
                ),
            };
            push(c.at, (0, i * 4), "Page", text);
            if let Some(f) = c.finished_at {
                let told = match c.outcome {
                    BuyerOutcome::Paid => Some("The page shows the buyer the receipt: paid."),
                    BuyerOutcome::Failed => Some("The page tells the buyer: \u{201c}Payment failed.\u{201d}"),
                    BuyerOutcome::Processing => {
                        Some("The page tells the buyer: \u{201c}Your payment is processing.\u{201d}")
                    }
                    BuyerOutcome::Rejected => Some("The page shows the buyer an error."),
                    _ => None,
                };
                if let Some(told) = told {
                    push(f, (4, i), "Page", told.to_string());
                }
            }
        }
        for (i, d) in self.disabled.iter().enumerate() {
            let order = (0, self.click_at(d.from, None) * 4 + 2);
            push(d.from, order, "Page", "The page disables the Pay button.".to_string());
            if let Some(u) = d.until {
                push(u, (5, i), "Page", "The page enables the Pay button again.".to_string());
            }
        }
    }

    fn attempt_happenings(&self, push: &mut impl FnMut(Micros, (u8, usize), &'static str, String)) {
        for (i, a) in self.attempts.iter().enumerate() {
            let name = self.attempt_name(i);
            let cap = format!("C{}", &name[1..]);
            let mut send = if a.number == 1 {
                format!("Click {}'s helper sends attempt 1: POST /charges", a.click + 1)
            } else {
                format!("Click {}'s helper retries: attempt {}, POST /charges", a.click + 1, a.number)
            };
            if a.amount_cents != AMOUNT_CENTS {
                send.push_str(&format!(" for {}", money(a.amount_cents)));
            }
            match a.key {
                Some(k) if self.config.fix == Fix::KeyPerAttempt => {
                    send.push_str(&format!(" with a new Idempotency-Key {}, made in the retry loop", key_name(k)))
                }
                Some(k) => send.push_str(&format!(" with Idempotency-Key {}", key_name(k))),
                None => {}
            }
            send.push('.');
            let order = if a.number == 1 { (0, a.click * 4 + 3) } else { (3, i * 8) };
            push(a.start, order, "Helper", send);
            let Some(end) = a.end else { continue };
            let retry = a.number <= self.config.retries;
            let next = if retry { "The helper backs off, then retries." } else { "No retries left." };
            let text = match a.outcome {
                AttemptOutcome::Aborted => {
                    push(
                        end,
                        (0, self.click_at(end, Some(a.click)) * 4 + 1),
                        "Helper",
                        format!(
                            "The new click aborts {name} (AbortError). The page stops waiting and closes the connection; the request still reaches the server, whose handler does not listen for the close and goes on."
                        ),
                    );
                    continue;
                }
                AttemptOutcome::Timeout => format!(
                    "{cap}: TimeoutError after {}. The page cannot tell whether the charge happened. {next}",
                    when(self.attempt_timeout)
                ),
                AttemptOutcome::Reset => format!(
                    "{cap}: connection reset (ECONNRESET). Again the page cannot tell whether the charge happened. {next}"
                ),
                AttemptOutcome::Conflict => format!(
                    "{cap} gets 409: the payment is in progress. {}",
                    if retry {
                        "The page shows \u{201c}Processing\u{2026}\u{201d}, not an error, and the helper waits and tries again."
                    } else {
                        "No retries left."
                    }
                ),
                AttemptOutcome::Ok { charge, replayed: false } => format!("{cap} gets 200 with ch_{charge}."),
                AttemptOutcome::Ok { charge, replayed: true } => {
                    format!("{cap} gets 200 with ch_{charge}, replayed: the same charge, not a new one.")
                }
                AttemptOutcome::Rejected => format!("{cap} gets 422: the key was already used for another amount."),
                AttemptOutcome::Pending => continue,
            };
            push(end, (3, i * 8 + 3), "Helper", text);
        }
    }

    fn server_happenings(&self, push: &mut impl FnMut(Micros, (u8, usize), &'static str, String)) {
        let read_then_insert = self.config.claim == Claim::ReadThenInsert;
        for (i, s) in self.server.iter().enumerate() {
            let a = s.attempt;
            let at = &self.attempts[a];
            let name = self.attempt_name(a);
            let key = at.key.map(key_name).unwrap_or_else(|| "?".to_string());
            let first_amount =
                money(self.attempts.iter().find(|x| x.key == at.key).map_or(AMOUNT_CENTS, |x| x.amount_cents));
            let waits = || {
                format!(
                    "The server receives {name}: its INSERT … ON CONFLICT on key {key} meets the claim of a \
                     transaction that has not committed, and waits for it."
                )
            };
            let text = match (s.result, at.key.is_some()) {
                (ServerResult::Waiting, _) => waits(),
                _ if s.waited_until.is_some() => waits(),
                (ServerResult::Running | ServerResult::Charged { .. }, true) if read_then_insert => {
                    format!(
                        "The server receives {name}, looks up key {key}, finds nothing, and starts charging the card."
                    )
                }
                _ if s.claim_held => {
                    format!(
                        "The server receives {name}, claims key {key} and records the order pending, in a \
                         transaction it holds open {} before committing.",
                        when(self.claim_hold)
                    )
                }
                (ServerResult::Running | ServerResult::Charged { .. }, true) if self.claim_hold > 0 && !self.claim_commits_first() => {
                    format!(
                        "The server receives {name}, claims key {key}, and starts charging the card; its transaction, \
                         with the claim, stays open at least {}.",
                        when(self.claim_hold)
                    )
                }
                (ServerResult::Running | ServerResult::Charged { .. }, true) => {
                    format!("The server receives {name}, claims key {key}, and starts charging the card.")
                }
                (ServerResult::Running | ServerResult::Charged { .. }, false) => {
                    format!("The server receives {name} and starts charging the card.")
                }
                (ServerResult::Conflict, _) => format!(
                    "The server receives {name}: key {key} is marked processing (claimed, not done). It answers 409."
                ),
                (ServerResult::Replayed { charge }, _) => format!(
                    "The server receives {name}: key {key} is done. It replays the stored answer, 200 with ch_{charge}, and charges nothing."
                ),
                (ServerResult::Rejected, _) => format!(
                    "The server receives {name}: key {key} was first used for {first_amount}, this request says {}. It answers 422.",
                    money(at.amount_cents)
                ),
            };
            push(s.arrived, (3, a * 8 + 1), "Server", text);
            if let Some(w) = s.waited_until {
                let waited = when(w - s.arrived);
                let text = match s.result {
                    ServerResult::Replayed { charge } => format!(
                        "The transaction holding key {key} commits: {name}'s insert, after waiting {waited}, gets no row, \
                         reads the key done, and replays the stored answer, 200 with ch_{charge}."
                    ),
                    ServerResult::Rejected => format!(
                        "The transaction holding key {key} commits: {name}, after waiting {waited}, reads that the key \
                         was used for {first_amount}, not {}. It answers 422.",
                        money(at.amount_cents)
                    ),
                    ServerResult::Conflict if !s.lock_timed_out => format!(
                        "The claim on key {key} commits with its pending order: {name}'s insert, after waiting {waited}, \
                         gets no row and reads the order processing. The server answers 409."
                    ),
                    _ => format!(
                        "{name} has waited {waited} for key {key}: the lock timeout cancels its insert (SQLSTATE 55P03), \
                         and the server answers 409."
                    ),
                };
                push(w, (3, a * 8 + 2), "Server", text);
            }
            if read_then_insert
                && at.key.is_some()
                && matches!(s.result, ServerResult::Running | ServerResult::Charged { .. })
            {
                push(
                    s.arrived + self.claim_gap,
                    (3, a * 8 + 2),
                    "Server",
                    format!(
                        "The server inserts a claim row for key {key}, {} after looking it up; the table has no \
                         unique constraint on the key, so nothing stops a second row.",
                        when(self.claim_gap)
                    ),
                );
            }
            // An answer that reaches a page no longer waiting for it.
            if let (Some(r), AttemptOutcome::Timeout | AttemptOutcome::Aborted, Some(gave_up)) =
                (self.reply_at(i), at.outcome, at.end)
            {
                let what = match s.result {
                    ServerResult::Charged { .. } if s.crashed => "a connection reset".to_string(),
                    ServerResult::Charged { charge } => format!("200 with ch_{charge}"),
                    ServerResult::Replayed { charge } => format!("200 with ch_{charge}, replayed"),
                    ServerResult::Conflict => "409".to_string(),
                    ServerResult::Rejected => "422".to_string(),
                    ServerResult::Running | ServerResult::Waiting => continue,
                };
                push(
                    r,
                    (3, a * 8 + 4),
                    "Helper",
                    format!(
                        "The server's answer to {name} ({what}) reaches the browser, but the page stopped waiting at {}: nobody reads it.",
                        when(gave_up)
                    ),
                );
            }
        }
    }
}

