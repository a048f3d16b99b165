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

use super::chapter::chapter_charges;
use super::model::{AttemptOutcome, BuyerOutcome, ClickEffect, DoubleClick, ServerResult};
use super::spec::{AMOUNT_CENTS, Claim, DoubleClickConfig, Fix};
use crate::format;
use crate::sim::Explain;
use crate::sim::base::sort_short;
use crate::sim::{Micros, Reading};

impl Explain for DoubleClick {
    fn reading(&self, now: Micros) -> Reading {
        self.reading_at(now)
    }

    fn sweep_theory(c: &DoubleClickConfig, x: &str, _by: Option<&str>) -> Option<String> {
        sweep_theory(c, x)
    }
}

/// One line of the list of events: when, where, what.
#[derive(Clone, Debug, PartialEq)]
pub struct Happening {
    pub at: Micros,
    /// Orders what happens in the same microsecond: cause before effect.
    order: (u8, usize),
    pub place: &'static str,
    pub text: String,
}

fn when(t: Micros) -> String {
    format::us_as_ms(t)
}

fn money(cents: u32) -> String {
    format::dollars(cents as u64)
}

fn key_name(k: u32) -> String {
    format!("k{k}")
}

impl DoubleClick {
    pub(super) fn reading_at(&self, now: Micros) -> Reading {
        let events = self.happenings(now);
        let mut reading = vec![
            ("verdict", self.verdict(now)),
            ("buyer_sees", self.buyer_sees()),
            (
                "events",
                events
                    .iter()
                    .map(|h| format!("{}: {}: {}", when(h.at), h.place, h.text))
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
            ("last_event", self.last_event(now, &events)),
        ];
        if let Some(n) = chapter_charges(self.config.fix) {
            let with = match self.config.fix {
                Fix::None => "no fix",
                Fix::Disable => "button disabled",
                _ => "one key",
            };
            reading.push(("chapter", format!("The chapter: {n}, {with}")));
        }
        reading
    }

    /// Whether nothing more can happen that the buyer or the card would see: every click has
    /// come, the page has told the buyer, and no handler run is still charging.
    pub fn settled(&self, now: Micros) -> bool {
        let clicks = 1 + usize::from(self.config.second_click);
        let all_came = self.clicks.len() == clicks || now >= self.end;
        all_came && self.buyer_outcome() != BuyerOutcome::Waiting && self.runs_in_progress() == 0
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
        if judgement.is_empty() { self.summary() } else { format!("{} {judgement}", self.summary()) }
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
            _ => "Please wait\u{2026}".into(),
        }
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

    fn attempt_name(&self, a: usize) -> String {
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
        for (n, c) in self.ledger.iter().enumerate() {
            let s = &self.server[c.server];
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
                    if retry { "The helper waits and tries again." } else { "No retries left." }
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
                    format!("The server inserts its claim on key {key}, {} after looking it up.", when(self.claim_gap)),
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
