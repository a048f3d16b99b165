//! What a double-click run records and the swimlanes draw: each click, attempt, server request
//! and charge, the button's disabled spans, and how each ended.

use crate::sim::{Micros, TimerKey};

/// What a click did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClickEffect {
    /// The click started a payment through the helper.
    Started,
    /// The button was disabled: nothing happened.
    IgnoredDisabled,
    /// The page already shows the receipt: there is no button any more.
    IgnoredAfterPaid,
}

/// What the page tells the buyer about one click.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
pub enum BuyerOutcome {
    /// The helper is still trying.
    Waiting,
    Paid,
    /// The helper gave up after a timeout or reset.
    Failed,
    /// The helper gave up on a 409: the server said the payment is in progress.
    Processing,
    /// 422: the server refused the request.
    Rejected,
    /// A newer click aborted this one; the page forgot it.
    Superseded,
    /// The click did nothing.
    Ignored,
}

impl BuyerOutcome {
    pub fn as_str(self) -> &'static str {
        match self {
            BuyerOutcome::Waiting => "waiting",
            BuyerOutcome::Paid => "paid",
            BuyerOutcome::Failed => "failed",
            BuyerOutcome::Processing => "processing",
            BuyerOutcome::Rejected => "rejected",
            BuyerOutcome::Superseded => "superseded",
            BuyerOutcome::Ignored => "ignored",
        }
    }
}

/// How one client attempt ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttemptOutcome {
    Pending,
    Timeout,
    /// A newer click aborted the wait (fetch's AbortError).
    Aborted,
    Ok {
        charge: u32,
        replayed: bool,
    },
    Conflict,
    Rejected,
    /// The connection was reset: the worker died.
    Reset,
    /// 500: the run's transaction rolled back after its provider call.
    ServerError,
}

impl AttemptOutcome {
    /// As the client sees it: "TimeoutError", "409", "200 ch_1 (replayed)", …
    pub fn label(self) -> String {
        match self {
            AttemptOutcome::Pending => "…".to_string(),
            AttemptOutcome::Timeout => "TimeoutError".to_string(),
            AttemptOutcome::Aborted => "AbortError".to_string(),
            AttemptOutcome::Ok { charge, replayed: false } => format!("200 ch_{charge}"),
            AttemptOutcome::Ok { charge, replayed: true } => format!("200 ch_{charge} (replayed)"),
            AttemptOutcome::Conflict => "409".to_string(),
            AttemptOutcome::Rejected => "422".to_string(),
            AttemptOutcome::Reset => "ECONNRESET".to_string(),
            AttemptOutcome::ServerError => "500".to_string(),
        }
    }
}

/// What the server did with one request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ServerResult {
    /// The handler is charging the card.
    Running,
    Charged {
        charge: u32,
    },
    /// The claim's INSERT waits for the transaction that holds the key to end.
    Waiting,
    /// 409: the key is marked processing, or the wait on it hit `lock_timeout_ms`.
    Conflict,
    /// 200 with the stored response of an earlier run.
    Replayed {
        charge: u32,
    },
    /// 422: the key came with another amount.
    Rejected,
}

/// One click on the Pay button.
#[derive(Clone, Debug)]
pub struct ClickRecord {
    pub at: Micros,
    pub effect: ClickEffect,
    /// The idempotency key this click's attempts send (key-per-attempt: none here).
    pub key: Option<u32>,
    pub amount_cents: u32,
    pub outcome: BuyerOutcome,
    /// When the page stopped working on this click (told the buyer, or was superseded).
    pub finished_at: Option<Micros>,
    /// When the page first showed "processing": a 409 said the first attempt is still running.
    pub processing_from: Option<Micros>,
    pub(super) retries_used: u32,
    /// The attempt in flight, if any (none while backing off).
    pub(super) in_flight: Option<usize>,
    /// The helper's pending timer: the attempt's timeout while one is in flight, else the
    /// backoff before the next attempt.
    pub(super) timer: Option<TimerKey>,
}

/// One request the page's helper sent.
#[derive(Clone, Debug)]
pub struct AttemptRecord {
    /// Index into [`Timeline::clicks`].
    pub click: usize,
    /// 1 for the first attempt of its click.
    pub number: u32,
    pub key: Option<u32>,
    pub amount_cents: u32,
    pub start: Micros,
    pub end: Option<Micros>,
    pub outcome: AttemptOutcome,
}

/// One request as the server handled it.
#[derive(Clone, Debug)]
pub struct ServerRecord {
    /// Index into [`Timeline::attempts`].
    pub attempt: usize,
    pub arrived: Micros,
    /// When the handler answered; for a charge, the commit.
    pub end: Option<Micros>,
    pub result: ServerResult,
    /// The worker died right after the commit and never answered.
    pub crashed: bool,
    /// Its transaction rolled back after the provider call had charged: it answered 500.
    pub rolled_back: bool,
    /// When its claim stopped waiting for the transaction that held the key (None: it never
    /// waited, or still waits).
    pub waited_until: Option<Micros>,
    /// Its wait ended at `lock_timeout_ms` (SQLSTATE 55P03), not at the holder's commit.
    pub lock_timed_out: bool,
    /// It claimed its key committed first, in a transaction held `claim_hold_ms`.
    pub claim_held: bool,
    /// Then: when its claim and pending record committed and the charge started.
    pub claim_committed: Option<Micros>,
    /// The key its charge call sent the provider (None until the call ends).
    pub provider_key: Option<ProviderCallKey>,
    /// The provider had seen that key within its window: it returned the earlier charge and
    /// took no money.
    pub provider_replayed: bool,
}

/// The key a charge call sends the card provider.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
pub enum ProviderCallKey {
    /// Derived from the order's idempotency key: `charge-k1`.
    Order(u32),
    /// Derived from a request that came without a key (its own order): `charge-r3`.
    Request(usize),
    /// Fresh for this call: `p4`.
    Fresh(u32),
}

impl ProviderCallKey {
    pub fn label(self) -> String {
        match self {
            ProviderCallKey::Order(k) => format!("charge-k{k}"),
            ProviderCallKey::Request(r) => format!("charge-r{}", r + 1),
            ProviderCallKey::Fresh(n) => format!("p{n}"),
        }
    }
}

/// One settlement by the recovery job: it found an order still pending and called the provider
/// with the order's key.
#[derive(Clone, Debug)]
pub struct RecoveryRecord {
    /// The order's idempotency key.
    pub key: u32,
    /// When the order's claim and pending record committed.
    pub pending_since: Micros,
    /// When the job found it and called the provider.
    pub start: Micros,
    pub provider_key: ProviderCallKey,
    /// When the provider answered (None while the call runs).
    pub end: Option<Micros>,
    /// The charge the provider answered with.
    pub charge: Option<u32>,
    /// The provider took money for this call (it did not recognise the key).
    pub new_charge: bool,
}

/// One row of the ledger: money taken from the card.
#[derive(Clone, Debug)]
pub struct LedgerCharge {
    /// 1 for ch_1.
    pub id: u32,
    /// The commit.
    pub at: Micros,
    pub amount_cents: u32,
    /// Index into [`Timeline::server`]: the request whose call made it (for a recovery job's
    /// charge, the request that claimed the order).
    pub server: usize,
    /// Made by the recovery job's call, not a request's.
    pub by_recovery: bool,
}

/// A time the Pay button was disabled (`until` is None while it still is).
#[derive(Clone, Copy, Debug)]
pub struct DisabledSpan {
    pub from: Micros,
    pub until: Option<Micros>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ButtonState {
    Enabled,
    Disabled,
    /// The page shows the receipt instead.
    Receipt,
}

/// Everything the swimlanes draw. Bounded by the scenario: at most two clicks, each with at
/// most `retries + 1` attempts, each at most one server request and one charge, and at most
/// one recovery call per claim.
pub struct Timeline<'a> {
    pub clicks: &'a [ClickRecord],
    pub disabled: &'a [DisabledSpan],
    pub attempts: &'a [AttemptRecord],
    pub server: &'a [ServerRecord],
    pub ledger: &'a [LedgerCharge],
    pub recoveries: &'a [RecoveryRecord],
}
