//! Every event of the run so far, in words: one line from each typed event of the log
//! ([`Happening`]), and from nothing else. The server's, the provider's, the recovery job's and
//! the card's lines are written in `provider.rs`.

use super::provider::{
    charged_by_recovery_text, charged_by_request_text, claim_committed_text, claim_overwritten_text, claim_row_text,
    derived_key_text, provider_replayed_text, received_text, recovery_calls_text, recovery_records_text, rolled_back_text,
    server_key,
    wait_ended_text,
};
use super::words::{attempt_name, key_name, money, when};
use crate::scenarios::double_click::log::{AttemptEnd, AttemptRef, ClickKey, Happening, Place, SentKey, UnreadAnswer, What};
use crate::scenarios::double_click::model::BuyerOutcome;
use crate::sim::Micros;

impl Place {
    /// The lane's name in the list of events.
    pub fn label(self) -> &'static str {
        match self {
            Place::Page => "Page",
            Place::Helper => "Helper",
            Place::Server => "Server",
            Place::Provider => "Provider",
            Place::Recovery => "Recovery",
            Place::Card => "Card",
        }
    }
}

/// "Click 1's attempt 2", to start a sentence.
fn attempt_name_cap(a: AttemptRef) -> String {
    format!("Click {}'s attempt {}", a.click, a.number)
}

impl Happening {
    /// The event's line in the list, without its time and place.
    pub fn text(&self) -> String {
        match self.what {
            What::Click { click, tip_cents, key } => click_text(click, tip_cents, key),
            What::ClickWhileDisabled { click } => {
                format!("The buyer clicks Pay again (click {click}), but the button is disabled: nothing is sent.")
            }
            What::ClickAfterReceipt { click } => {
                format!("The buyer clicks again (click {click}), but the page already shows the receipt: nothing is sent.")
            }
            What::BuyerTold { outcome } => told_text(outcome).to_string(),
            What::ButtonDisabled => "The page disables the Pay button.".to_string(),
            What::ButtonEnabled => "The page enables the Pay button again.".to_string(),
            What::AttemptSent { attempt, cents, key } => sent_text(attempt, cents, key),
            What::AttemptAborted { attempt } => format!(
                "The new click aborts {} (AbortError). The page stops waiting and closes the connection; the request still reaches the server, whose handler does not listen for the close and goes on.",
                attempt_name(attempt)
            ),
            What::AttemptEnded { attempt, end, retries_left } => ended_text(attempt, end, retries_left),
            What::AnswerUnread { attempt, answer, gave_up_at } => unread_text(attempt, answer, gave_up_at),
            What::Received { attempt, key, how } => received_text(&attempt_name(attempt), &server_key(key), how),
            What::WaitEnded { attempt, key, waited, how } => {
                wait_ended_text(&attempt_name(attempt), &server_key(key), &when(waited), how)
            }
            What::ClaimRowInserted { key, gap } => claim_row_text(key, gap),
            What::ClaimCommitted { key, after } => claim_committed_text(key, after),
            What::ClaimOverwritten { key, then } => claim_overwritten_text(key, then),
            What::ProviderReplayed { to, key, charge, ago, window_ms } => {
                provider_replayed_text(to, key, charge, ago, window_ms)
            }
            What::DerivedKeySent { key } => derived_key_text(key),
            What::RecoveryCalls { key, pending_for, with } => recovery_calls_text(key, pending_for, with),
            What::RecoveryRecords { key, charge } => recovery_records_text(key, charge),
            What::Charged { charge, cents, nth, forgotten, worker_dies } => {
                charged_by_request_text(charge, cents, nth, forgotten, worker_dies)
            }
            What::ChargedThenRolledBack { charge, cents, nth, claim } => {
                rolled_back_text(charge, cents, nth, claim)
            }
            What::RecoveryCharged { charge, cents, nth, why } => charged_by_recovery_text(charge, cents, nth, why),
        }
    }

    /// The line as the reading's `events` lists it: `"<time>: <where>: <what>"`.
    pub fn line(&self) -> String {
        format!("{}: {}: {}", when(self.at), self.place.label(), self.text())
    }
}

fn click_text(click: usize, tip_cents: Option<u32>, key: Option<ClickKey>) -> String {
    let mut s =
        if click == 1 { "The buyer clicks Pay.".to_string() } else { format!("The buyer clicks Pay again (click {click}).") };
    if let Some(cents) = tip_cents {
        s.push_str(&format!(" With a tip added, this click pays {}.", money(cents)));
    }
    match key {
        Some(ClickKey::Created(k)) => {
            s.push_str(&format!(" The page creates the purchase's idempotency key {}.", key_name(k)))
        }
        Some(ClickKey::Reused(k)) => s.push_str(&format!(" The page reuses the purchase's key {}.", key_name(k))),
        Some(ClickKey::NewForClick(k)) => s.push_str(&format!(" The click handler creates a new key {}.", key_name(k))),
        None => {}
    }
    s
}

fn told_text(outcome: BuyerOutcome) -> &'static str {
    match outcome {
        BuyerOutcome::Paid => "The page shows the buyer the receipt: paid.",
        BuyerOutcome::Failed => "The page tells the buyer: \u{201c}Payment failed.\u{201d}",
        BuyerOutcome::Processing => "The page tells the buyer: \u{201c}Your payment is processing.\u{201d}",
        _ => "The page shows the buyer an error.",
    }
}

fn sent_text(attempt: AttemptRef, cents: Option<u32>, key: Option<SentKey>) -> String {
    let mut send = if attempt.number == 1 {
        format!("Click {}'s helper sends attempt 1: POST /charges", attempt.click)
    } else {
        format!("Click {}'s helper retries: attempt {}, POST /charges", attempt.click, attempt.number)
    };
    if let Some(cents) = cents {
        send.push_str(&format!(" for {}", money(cents)));
    }
    match key {
        Some(SentKey::NewForAttempt(k)) => {
            send.push_str(&format!(" with a new Idempotency-Key {}, made in the retry loop", key_name(k)))
        }
        Some(SentKey::Clicks(k)) => send.push_str(&format!(" with Idempotency-Key {}", key_name(k))),
        None => {}
    }
    send.push('.');
    send
}

fn ended_text(attempt: AttemptRef, end: AttemptEnd, retries_left: bool) -> String {
    let cap = attempt_name_cap(attempt);
    let next = if retries_left { "The helper backs off, then retries." } else { "No retries left." };
    match end {
        AttemptEnd::TimedOut { after } => format!(
            "{cap}: TimeoutError after {}. The page cannot tell whether the charge happened. {next}",
            when(after)
        ),
        AttemptEnd::Reset => format!(
            "{cap}: connection reset (ECONNRESET). Again the page cannot tell whether the charge happened. {next}"
        ),
        AttemptEnd::ServerError => {
            format!("{cap} gets 500. The helper retries only timeouts, resets and 409s: it stops here.")
        }
        AttemptEnd::Conflict => format!(
            "{cap} gets 409: the payment is in progress. {}",
            if retries_left {
                "The page shows \u{201c}Processing\u{2026}\u{201d}, not an error, and the helper waits and tries again."
            } else {
                "No retries left."
            }
        ),
        AttemptEnd::Ok { charge, replayed: false } => format!("{cap} gets 200 with ch_{charge}."),
        AttemptEnd::Ok { charge, replayed: true } => {
            format!("{cap} gets 200 with ch_{charge}, replayed: the same charge, not a new one.")
        }
        AttemptEnd::Rejected => format!("{cap} gets 422: the key was already used for another amount."),
    }
}

fn unread_text(attempt: AttemptRef, answer: UnreadAnswer, gave_up_at: Micros) -> String {
    let what = match answer {
        UnreadAnswer::Reset => "a connection reset".to_string(),
        UnreadAnswer::ServerError => "500".to_string(),
        UnreadAnswer::Charged { charge } => format!("200 with ch_{charge}"),
        UnreadAnswer::Replayed { charge } => format!("200 with ch_{charge}, replayed"),
        UnreadAnswer::Conflict => "409".to_string(),
        UnreadAnswer::Rejected => "422".to_string(),
    };
    format!(
        "The server's answer to {} ({what}) reaches the browser, but the page stopped waiting at {}: nobody reads it.",
        attempt_name(attempt),
        when(gave_up_at)
    )
}
