//! Chapter 2, Part 3: "The same thing happens in the browser with a double click. In the sim,
//! set the fix to None (3 stories charged), then Disable (2: the disabled button stops the
//! second click but not the first click's own retry), then Idempotency key (1)."
//!
//! A buyer clicks Pay, and may click again `second_click_ms` later. Each click runs the page's
//! HTTP helper: every attempt gets `attempt_timeout_ms`, and a timeout (or a connection reset,
//! or a 409) is retried up to `retries` times after a jittered exponential backoff. The page
//! keeps one request per button: a new click aborts the previous click's request ("latest
//! click wins"). Aborting, like a timeout, only stops the waiting: fetch closes the connection,
//! so the server can see the close, but this handler does not listen for it and goes on.
//!
//! The server's POST /charges handler charges the card and commits `handler_ms` after the
//! request arrives. With an idempotency key it first claims the key: a repeat after the first
//! run committed gets the stored response replayed (same charge id), a repeat with another
//! amount gets 422. A repeat while the first run is still working depends on where the claim
//! lives (`key_store`, `key_claim`):
//!
//! - In the charge's own Postgres transaction (`wait`, the default): the repeat's
//!   `INSERT … ON CONFLICT DO NOTHING` meets the first transaction's uncommitted row in the
//!   unique index and waits for that transaction to end ("If a conflicting row has been
//!   inserted by an as-yet-uncommitted transaction, the would-be inserter must wait to see if
//!   that transaction commits", <https://www.postgresql.org/docs/current/index-unique-checks.html>).
//!   After the commit it gets no row, reads the stored response and replays it. Chapter 2
//!   Part 4 measured it: the duplicate blocked 2.5 s behind a 3 s transaction (preset
//!   `part4-wait`). `lock_timeout_ms` caps the wait: past it Postgres cancels the statement
//!   ("canceling statement due to lock timeout", SQLSTATE 55P03) and the server answers 409
//!   (<https://www.postgresql.org/docs/current/runtime-config-client.html#GUC-LOCK-TIMEOUT>:
//!   0, the default, waits forever).
//! - Committed on its own before the work (`committed-first`, the pattern Part 4 gives for an
//!   external API, and what Stripe does: a concurrent request with a key in use gets 409,
//!   <https://docs.stripe.com/api/idempotent_requests>), or in a separate store such as Redis
//!   (`SET key … NX PX ttl`, <https://redis.io/docs/latest/commands/set/>, visible at once): the
//!   repeat sees "processing" at once and gets 409. A worker that dies after the charge but
//!   before marking the key done leaves it "processing": 409s until `claim_ttl_ms` lets a
//!   request take it over (and charge again).
//! - Read, then insert: a lookup and a later insert into a table with no unique constraint on
//!   the key, so nothing ever conflicts. A plain `SELECT` sees only committed rows (READ
//!   COMMITTED, <https://www.postgresql.org/docs/current/transaction-iso.html>): with the claim
//!   in the charge's transaction a repeat finds nothing until the first run commits; with a
//!   claim committed first, only the lookup-to-insert gap (`claim_gap_ms`) is open.
//!
//! The claim's transaction may be held longer than the work (`claim_hold_ms`; Part 4's session
//! "held the transaction open for 3 s"): in the charge's transaction it commits no sooner; with
//! the claim committed first, the claim and its pending order commit after the hold, and a
//! duplicate waits on that short transaction, then reads "processing" (409).
//!
//! When the charge is someone else's API (Part 4, "forward a key, and record progress"; Break 4's
//! follow-up), the claim and a pending order commit first (`committed-first`), the provider call
//! follows, and its result is recorded after: a worker that dies in between leaves the order
//! pending. The provider charges once per key it has seen within its key window
//! (`provider_key_window_ms`, 24 h by default: Stripe keeps keys "at least 24 hours",
//! <https://docs.stripe.com/api/idempotent_requests>); past it, the same key charges again. The
//! server's key is `derived` from the order's record (any process that resumes the order sends
//! the same one) or fresh `per-attempt` (the default: the provider never sees a repeat, which is
//! what every run did before there was a provider key, so the defaults and the older presets
//! are unchanged). A recovery job (`recovery_after_ms`, off by default; "a job that finds orders
//! pending for more than a few minutes") settles each order still pending that long after its
//! claim committed by calling the provider with the order's key, and marks it done, so a later
//! request gets the charge replayed. With it, a page whose retries run out says "processing"
//! (Break 1: "processing" rather than "failed"); after a 409 the page shows "Processing…" while
//! it waits to retry. Presets `ch2-break-1`, `ch2-break-4`, `ch2-break-4-lock-timeout` and
//! `ch2-break-4-external` answer the chapter's Breaks 1 and 4 (the recovery job runs after 3 s
//! there, minutes in production, so that the timeline shows it).
//!
//! The first run's transaction may roll back after its provider call (`first_txn`: an error
//! after the call, such as failing to save its answer; Postgres aborts the whole transaction on
//! any error, <https://www.postgresql.org/docs/current/tutorial-transactions.html>). Everything in
//! it goes, the claim too, but the card's charge at the provider stays, and the server answers
//! 500 (the helper retries only timeouts, resets and 409s). A repeat waiting on the key then gets
//! the row (the waiter "must wait to see if that transaction commits", and inserts if it does
//! not), claims the key and charges again: Part 4's "If the first rolls back, the second gets the
//! claim and does the work", which is one debit when the work is local and two charges when it is
//! someone else's API (preset `rollback-external`). With the claim and a pending order committed
//! first in their own transaction, the rollback leaves the order pending: repeats get 409 and the
//! recovery job resumes it with the order's key, one charge (preset `rollback-committed-first`).
//!
//! Why the chapter's numbers come out of one set of defaults (handler 1,500 ms, 1,000 ms per
//! attempt, one retry, second click at 600 ms): every attempt times out, because the handler is
//! slower than the client's patience, so every request that reaches the server becomes a charge.
//! `none`: the second click aborts the first click's wait (its request still charges) and makes
//! two attempts of its own: 3 charges. `disable`: the second click does nothing, the first click
//! makes its attempt and its own retry: 2. `key`: every attempt carries the same key; the first
//! claims it and charges, every later one waits for that commit (or, with a claim committed
//! first, gets 409) and then gets the one charge replayed: 1. The Part 3 table's key row,
//! "TimeoutError, then 409 (first attempt still running), then 200 replayed", is a claim
//! committed before the charge, as an external card charge must be (preset `part3-table-key`).
//!
//! The real limits at the ends of the ranges: Postgres's `lock_timeout` is an int of
//! milliseconds with 0 = no limit (so 0 here waits for the commit however long it takes);
//! Redis's `PX` must be a positive integer (0 here means a claim that never expires, as a
//! table row does); a key window (24–72 h, Stripe at least 24 h) is far longer than any run
//! here, so a replay never finds an expired key.

mod chapter;
mod facts;
mod log;
mod model;
mod reading;
mod spec;

pub use chapter::chapter_charges;
pub use facts::{DoubleClickFacts, RecoverySettled, Reenabled};
pub use model::{
    AttemptOutcome, AttemptRecord, ButtonState, BuyerOutcome, ClickEffect, ClickRecord, DisabledSpan, DoubleClick, Event,
    LedgerCharge, ProviderCallKey, RecoveryRecord, ServerRecord, ServerResult, Timeline,
};
pub use log::{
    AfterOverwrite, AttemptEnd, AttemptRef, ClickKey, Forgotten, Happening, Place, Received, RecoveryChargeWhy,
    ReplayedTo, RolledClaim, SentKey, UnreadAnswer, WaitEnd, What,
};
pub use spec::{
    AMOUNT_CENTS, CHANGED_AMOUNT_CENTS, Claim, DoubleClickConfig, FirstTxn, Fix, KeyClaim, KeyStore, PARAMS, ProviderKey,
};
pub use reading::DoubleClickWords;
pub use spec::DoubleClickMetrics;

use crate::sim::ScenarioSpec;
use crate::sim::model::ModelOf;

pub static SPEC: ScenarioSpec = ScenarioSpec {
    id: "double-click",
    title: "The double-click payment",
    chapter: "Chapter 2, Part 3: A timeout means an unknown outcome",
    summary: "A buyer clicks Pay twice while the charge is slow. Set the fix to None, then \
              Disable, then Idempotency key, and count the charges on the card.",
    params: PARAMS,
    presets: spec::PRESETS,
    metrics: spec::METRICS,
    headline: spec::HEADLINE,
    quotes: reading::QUOTES,
    default_duration_ms: spec::DEFAULT_DURATION_MS,
    sweep: spec::SWEEP,
    model: &ModelOf::<DoubleClick>::NEW,
};
