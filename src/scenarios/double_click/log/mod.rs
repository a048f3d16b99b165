//! Every event of a double-click run, as typed facts taken from its records: the clicks, the
//! helper's attempts, the server's requests, the provider's calls, the recovery job and the
//! card's charges. The list of events in the reading renders one line from each, and from
//! nothing else (issue 24).

mod page;
mod server;

use super::model::{BuyerOutcome, DoubleClick, ProviderCallKey};
use crate::sim::Micros;
use crate::sim::base::sort_short;

/// Where an event happens: the lane it is told in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
pub enum Place {
    Page,
    Helper,
    Server,
    Provider,
    Recovery,
    Card,
}

/// One attempt of one click: click 1's attempt 2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
pub struct AttemptRef {
    /// The click, from 1.
    pub click: usize,
    /// The attempt, from 1.
    pub number: u32,
}

/// The idempotency key a click that started a payment goes with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
pub enum ClickKey {
    /// The page creates the purchase's key (one key per purchase, first click).
    Created(u32),
    /// The page reuses the purchase's key (one key per purchase, a later click).
    Reused(u32),
    /// The click handler creates a new key for this click.
    NewForClick(u32),
}

/// The idempotency key an attempt sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
pub enum SentKey {
    /// A new key made in the retry loop, for this attempt only.
    NewForAttempt(u32),
    /// The click's key.
    Clicks(u32),
}

/// How an attempt ended, as the helper saw it (an abort is its own event).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
pub enum AttemptEnd {
    /// No answer within the attempt's timeout (µs).
    TimedOut { after: Micros },
    /// The connection was reset: the worker died.
    Reset,
    /// 500: the server's transaction rolled back after the charge.
    ServerError,
    /// 409: the payment is in progress.
    Conflict,
    /// 200 with a charge; `replayed` when it is an earlier run's stored answer.
    Ok { charge: u32, replayed: bool },
    /// 422: the key was already used for another amount.
    Rejected,
}

/// An answer that reached a page no longer waiting for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
pub enum UnreadAnswer {
    /// The worker died after charging: a connection reset.
    Reset,
    /// The transaction rolled back after charging: 500.
    ServerError,
    Charged { charge: u32 },
    Replayed { charge: u32 },
    Conflict,
    Rejected,
}

/// What the server did on receiving a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
pub enum Received {
    /// Its claim's insert meets an uncommitted claim on the key and waits for it.
    WaitsForClaim,
    /// Read-then-insert: it looks the key up, finds nothing, and starts charging.
    FindsNothing,
    /// It claims the key and records the order pending in a transaction held open this long (µs).
    ClaimsPending { hold: Micros },
    /// It claims the key and starts charging; the claim's transaction stays open at least this long (µs).
    ClaimsAndChargesHeld { hold: Micros },
    /// It claims the key and starts charging.
    ClaimsAndCharges,
    /// No key: it starts charging.
    Charges,
    /// The key is marked processing: 409.
    KeyProcessing,
    /// The key is done: it replays this charge and charges nothing.
    KeyDone { charge: u32 },
    /// The key was first used for another amount: 422.
    OtherAmount { first_cents: u32, cents: u32 },
}

/// How a claim's wait for the transaction holding its key ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
pub enum WaitEnd {
    /// The holder committed the key done: the stored answer is replayed.
    Replayed { charge: u32 },
    /// The holder committed the key for another amount: 422.
    OtherAmount { first_cents: u32, cents: u32 },
    /// The holder committed its claim with a pending order: 409.
    OrderProcessing,
    /// The lock timeout cancelled the insert (SQLSTATE 55P03): 409.
    LockTimeout,
    /// The holder rolled back: the insert gets the row, claims the key and charges.
    ClaimFreed,
}

/// What a rollback after the charge did to the request's claim on its key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
pub enum RolledClaim {
    /// The claim was in the transaction: it went with it.
    Lost(u32),
    /// The claim committed before (or lives in another store): it stays "processing".
    Kept(u32),
}

/// What the server answered when a request's expired claim had been overwritten.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
pub enum AfterOverwrite {
    Replays { charge: u32 },
    Answers422,
    Answers409,
}

/// A provider key charged once more because the provider had forgotten it.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
pub struct Forgotten {
    pub key: ProviderCallKey,
    /// The charge the key made first.
    pub first_charge: u32,
    /// How long before this charge (µs).
    pub ago: Micros,
    /// The provider's key window (ms), a setting.
    pub window_ms: f64,
}

/// Why the provider charged for the recovery job's call.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
pub enum RecoveryChargeWhy {
    /// Its key was past the provider's window.
    Forgotten(Forgotten),
    /// A fresh key the provider had never seen.
    FreshKey(ProviderCallKey),
    /// With this key.
    Key(ProviderCallKey),
}

/// Whom the provider returned an earlier charge to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
pub enum ReplayedTo {
    Attempt(AttemptRef),
    RecoveryJob,
}

/// What happened.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
pub enum What {
    /// Click `click` (from 1) started a payment; `tip_cents` when it pays another amount.
    Click { click: usize, tip_cents: Option<u32>, key: Option<ClickKey> },
    /// A click the disabled button ignored.
    ClickWhileDisabled { click: usize },
    /// A click after the page showed the receipt.
    ClickAfterReceipt { click: usize },
    /// What the page tells the buyer (paid, failed, processing or rejected).
    BuyerTold { outcome: BuyerOutcome },
    ButtonDisabled,
    ButtonEnabled,
    /// The helper sends an attempt; `cents` when it pays another amount.
    AttemptSent { attempt: AttemptRef, cents: Option<u32>, key: Option<SentKey> },
    /// A new click aborted the attempt; the request goes on at the server.
    AttemptAborted { attempt: AttemptRef },
    /// The attempt ended; `retries_left` whether the helper retries.
    AttemptEnded { attempt: AttemptRef, end: AttemptEnd, retries_left: bool },
    /// The server's answer reached a page that stopped waiting at `gave_up_at` (µs).
    AnswerUnread { attempt: AttemptRef, answer: UnreadAnswer, gave_up_at: Micros },
    /// The server received the attempt.
    Received { attempt: AttemptRef, key: Option<u32>, how: Received },
    /// The claim stopped waiting after `waited` (µs).
    WaitEnded { attempt: AttemptRef, key: Option<u32>, waited: Micros, how: WaitEnd },
    /// Read-then-insert: the claim row went in `gap` (µs) after the lookup.
    ClaimRowInserted { key: Option<u32>, gap: Micros },
    /// The claim and its pending order committed `after` (µs) the claim.
    ClaimCommitted { key: Option<u32>, after: Micros },
    /// An earlier request recorded the key over this request's expired claim.
    ClaimOverwritten { key: Option<u32>, then: AfterOverwrite },
    /// The provider had seen the key within its window and returned `charge`, `ago` (µs) old.
    ProviderReplayed { to: ReplayedTo, key: ProviderCallKey, charge: u32, ago: Micros, window_ms: f64 },
    /// The server's call sent a key derived from the order's record.
    DerivedKeySent { key: ProviderCallKey },
    /// The recovery job found key `key`'s order pending for `pending_for` (µs) and called the provider.
    RecoveryCalls { key: u32, pending_for: Micros, with: ProviderCallKey },
    /// The recovery job recorded `charge` and marked the order done.
    RecoveryRecords { key: u32, charge: u32 },
    /// A request's call charged the card: the `nth` charge for the purchase.
    Charged { charge: u32, cents: u32, nth: usize, forgotten: Option<Forgotten>, worker_dies: bool },
    /// A request's call charged the card, then its transaction rolled back: the `nth` charge
    /// for the purchase.
    ChargedThenRolledBack { charge: u32, cents: u32, nth: usize, claim: Option<RolledClaim> },
    /// The recovery job's call charged the card: the `nth` charge for the purchase.
    RecoveryCharged { charge: u32, cents: u32, nth: usize, why: Option<RecoveryChargeWhy> },
}

/// One event of the run: when, where, what.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
pub struct Happening {
    pub at: Micros,
    /// Orders what happens in the same microsecond: cause before effect.
    #[cfg_attr(not(target_arch = "wasm32"), serde(skip))]
    pub(super) order: (u8, usize),
    pub place: Place,
    pub what: What,
}

/// Adds an event of the run, if it has happened by then.
type Push<'a> = dyn FnMut(Micros, (u8, usize), Place, What) + 'a;

impl DoubleClick {
    /// Everything that happened up to `now`, in order.
    pub fn happenings(&self, now: Micros) -> Vec<Happening> {
        let mut out = Vec::new();
        let mut push = |at: Micros, order: (u8, usize), place: Place, what: What| {
            if at <= now {
                out.push(Happening { at, order, place, what });
            }
        };
        self.click_happenings(&mut push);
        self.attempt_happenings(&mut push);
        self.server_happenings(&mut push);
        self.provider_happenings(&mut push);
        self.charge_happenings(&mut push);
        sort_short(&mut out, |h| (h.at, h.order));
        out
    }

    /// Attempt `a` as the log names it.
    fn attempt_ref(&self, a: usize) -> AttemptRef {
        let at = &self.attempts[a];
        AttemptRef { click: at.click + 1, number: at.number }
    }
}
