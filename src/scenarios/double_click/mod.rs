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

mod reading;

pub use reading::{Happening, chapter_charges};

use crate::sim::model::ModelOf;
use crate::sim::rng::{SimRng, ms_to_us};
use crate::sim::scenario::SweepDefault;
use crate::sim::{EventQueue, MetricSpec, Micros, Model, ParamSpec, Preset, ScenarioSpec, TimerKey, Value};

/// What the buyer pays ($49.99).
pub const AMOUNT_CENTS: u32 = 4999;
/// With `amount_changes`: what the second click sends after the buyer adds a $10 tip.
pub const CHANGED_AMOUNT_CENTS: u32 = 5999;
/// Backoff doubles per retry; the exponent stops here so no setting overflows.
const MAX_BACKOFF_DOUBLINGS: u32 = 16;

crate::choice! {
    /// What the page does so that one purchase is charged once.
    pub enum Fix {
        None = ("none", "No fix", "Every click and every retry is a new request to charge."),
        Disable = ("disable", "Disable the button", "The button is disabled after the first click; the helper still retries."),
        Key = ("key", "Idempotency key", "One key per purchase, made before the first attempt and sent with every attempt."),
        KeyPerClick = ("key-per-click", "Key per click", "A bug: the click handler makes a new key, so a second click is a new purchase."),
        KeyPerAttempt = ("key-per-attempt", "Key per attempt", "A bug: the retry loop makes a new key, so every retry is a new purchase."),
    }
}

crate::choice! {
    /// How the server claims an idempotency key before it charges.
    pub enum Claim {
        Atomic = ("atomic", "Atomic", "Looking the key up and inserting it is one step (INSERT … ON CONFLICT): exactly one request wins."),
        ReadThenInsert = ("read-then-insert", "Read, then insert", "The server looks the key up and inserts it a moment later, into a table with no unique constraint on the key: requests that look before the insert is visible all find nothing."),
    }
}

crate::choice! {
    /// Where the server keeps the key and its stored response.
    pub enum KeyStore {
        SameTransaction = ("same-transaction", "With the charge", "The key's row and its stored response are in the charge's Postgres transaction."),
        Separate = ("separate", "Separate store", "The key lives in another store, say Redis, and is marked done after the charge commits."),
    }
}

crate::choice! {
    /// When a claim on a key becomes visible to a repeat of the request, in the charge's
    /// database (a separate store's claim is visible at once, whatever this says).
    pub enum KeyClaim {
        Wait = ("wait", "Waits for the commit (Postgres)", "The claim is in the charge's transaction: a repeat's INSERT … ON CONFLICT waits until the first transaction commits, then replays its response (Postgres)."),
        CommittedFirst = ("committed-first", "Committed first (409)", "The claim commits on its own before the work, as for an external API: a repeat sees 'processing' at once and gets 409 (Stripe answers a key in use so)."),
    }
}

crate::config! {
    /// What the double-click model reads from its parameters (where the defaults come from:
    /// see the module documentation).
    pub struct DoubleClickConfig in PARAMS {
        pub fix: Fix = ParamSpec::choice("fix", "Fix", Fix::OPTIONS, Fix::None as usize,
            "What the page does so that one purchase is charged once."),
        pub second_click: bool = ParamSpec::toggle("second_click", "Buyer clicks twice", true,
            "The buyer clicks Pay again when nothing seems to happen."),
        pub second_click_ms: f64 = ParamSpec::number("second_click_ms", "Second click after", "ms", 600.0, (0.0, 5000.0, 10.0),
            "When the second click comes. Any moment before the first click's retry (about 1.2 s) \
             gives the chapter's 3 / 2 / 1. 0 sends both requests in the same millisecond."),
        pub attempt_timeout_ms: f64 = ParamSpec::number("attempt_timeout_ms", "Timeout per attempt", "ms", 1000.0, (100.0, 30_000.0, 10.0),
            "How long the page's HTTP helper waits for each attempt (the chapter: 1,000 ms)."),
        pub retries: u32 = ParamSpec::number("retries", "Retries", "", 1.0, (0.0, 5.0, 1.0),
            "Retries after a timeout, reset or 409, per click. The chapter's browser helper retries \
             once (\"the first click's own retry\"); its Part 3 table retries twice."),
        pub backoff_ms: f64 = ParamSpec::number("backoff_ms", "Backoff base", "ms", 400.0, (0.0, 5000.0, 10.0),
            "How long the helper waits before its first retry; each later retry waits twice as long \
             as the one before, less the jitter. 400 ms lets the second attempt of the Part 3 table \
             land while the first still runs, and the third after it committed."),
        pub jitter_pct: f64 = ParamSpec::number("jitter_pct", "Jitter", "%", 50.0, (0.0, 100.0, 5.0),
            "Up to this share of each backoff is taken off at random, so that retries from many \
             buyers spread out: 0 always waits the whole backoff, 100 anywhere from none of it to all."),
        pub retry_after_ms: f64 = ParamSpec::number("retry_after_ms", "Retry-After on 409", "ms", 1000.0, (0.0, 10_000.0, 100.0),
            "The server's 409 says when to come back (Retry-After: 1 s); the helper waits at least \
             that long. 0: the helper uses its own backoff."),
        pub handler_ms: f64 = ParamSpec::number("handler_ms", "Handler time", "ms", 1500.0, (0.0, 20_000.0, 10.0),
            "How long POST /charges takes from arrival to commit (the chapter measured 1,500 ms)."),
        pub handler_spread_ms: f64 = ParamSpec::number("handler_spread_ms", "Handler time spread", "ms", 0.0, (0.0, 5000.0, 10.0),
            "Each run takes an extra uniform random 0 to this much. The chapter's handler was steady."),
        pub network_ms: f64 = ParamSpec::number("network_ms", "Network delay (one way)", "ms", 20.0, (0.0, 1000.0, 1.0),
            "Browser to server, and back; a typical nearby region."),
        pub claim: Claim = ParamSpec::choice("claim", "Key claim", Claim::OPTIONS, Claim::Atomic as usize,
            "How the server claims an idempotency key before it charges."),
        pub key_claim: KeyClaim = ParamSpec::choice("key_claim", "Claim visible", KeyClaim::OPTIONS, KeyClaim::Wait as usize,
            "When the first request's claim on a key becomes visible to a repeat: at its commit (a \
             Postgres INSERT … ON CONFLICT on the same key waits for it), or at once (409)."),
        pub lock_timeout_ms: f64 = ParamSpec::number("lock_timeout_ms", "Lock timeout", "ms", 0.0, (0.0, 10_000.0, 10.0),
            "Postgres's lock timeout on the claim: a repeat that waits this long for the first \
             transaction is cancelled (SQLSTATE 55P03) and answered 409. 0: wait for the commit \
             however long it takes (Postgres's default)."),
        pub claim_ttl_ms: f64 = ParamSpec::number("claim_ttl_ms", "Claim expiry", "ms", 0.0, (0.0, 60_000.0, 100.0),
            "A claim committed before the work (or kept in a separate store, Redis SET NX PX) that is \
             still 'processing' this long after it was taken is treated as abandoned: the next \
             request takes it over and charges. 0: it never expires, and a claim whose worker died \
             answers 409 for good."),
        pub claim_gap_ms: f64 = ParamSpec::number("claim_gap_ms", "Read-then-insert gap", "ms", 2.0, (0.0, 100.0, 1.0),
            "With read-then-insert: time between the lookup and the insert (one database round trip)."),
        pub key_store: KeyStore = ParamSpec::choice("key_store", "Where the key record lives", KeyStore::OPTIONS,
            KeyStore::SameTransaction as usize, "Where the server keeps the idempotency key and its stored response."),
        pub crash_after_charge: bool = ParamSpec::toggle("crash_after_charge", "Crash after the charge", false,
            "The worker that makes the first charge dies right after the commit, before it responds: \
             the client sees a connection reset. A key marked done in the charge's transaction is done; \
             a claim in a separate store is never marked done and stays 'processing'."),
        pub amount_changes: bool = ParamSpec::toggle("amount_changes", "Second click changes the amount", false,
            "Between the clicks the buyer adds a $10 tip, and the page sends the same key with the \
             new amount: the server must answer 422, never replay the first charge."),
    }
}

const DEFAULT_DURATION_MS: u64 = 8_000;

pub static SPEC: ScenarioSpec = ScenarioSpec {
    id: "double-click",
    title: "The double-click payment",
    chapter: "Chapter 2, Part 3: A timeout means an unknown outcome",
    summary: "A buyer clicks Pay twice while the charge is slow. Set the fix to None, then \
              Disable, then Idempotency key, and count the charges on the card.",
    params: PARAMS,
    presets: &[
        Preset {
            id: "double-click",
            label: "Double click, no fix (the chapter)",
            description: "The buyer clicks again at 600 ms. Each click's helper retries once. 3 charges.",
            values: &[],
        },
        Preset {
            id: "disable",
            label: "Disable the button",
            description: "The second click does nothing, but the first click's own retry still charges: 2.",
            values: &[("fix", "disable")],
        },
        Preset {
            id: "key",
            label: "Idempotency key",
            description: "One key per purchase on every attempt: the second click's request waits for the first's commit, then gets the replay: 1.",
            values: &[("fix", "key")],
        },
        Preset {
            id: "part3-table",
            label: "Part 3 table, no key",
            description: "One click, handler 1,500 ms, 1,000 ms per attempt, two retries: TimeoutError × 3, \
             3 charges, and the buyer is told the payment failed.",
            values: &[
                ("second_click", "false"),
                ("handler_ms", "1500"),
                ("attempt_timeout_ms", "1000"),
                ("retries", "2"),
            ],
        },
        Preset {
            id: "part3-table-key",
            label: "Part 3 table, same key",
            description: "The same run with one key, claimed and committed before the card is charged (as an external \
             charge must be): TimeoutError, then 409, then 200 with ch_1 replayed: 1 charge.",
            values: &[
                ("second_click", "false"),
                ("handler_ms", "1500"),
                ("attempt_timeout_ms", "1000"),
                ("retries", "2"),
                ("fix", "key"),
                ("key_claim", "committed-first"),
            ],
        },
        Preset {
            id: "key-in-retry-loop",
            label: "Key made inside the retry loop",
            description: "A fresh key per attempt: the server never sees a repeat, and charges like no key at all.",
            values: &[("fix", "key-per-attempt")],
        },
        Preset {
            id: "amount-changed",
            label: "Same key, another amount",
            description: "The second click sends the same key with $59.99: 422, not a silent replay of the $49.99 charge.",
            values: &[("fix", "key"), ("amount_changes", "true")],
        },
        Preset {
            id: "same-ms-race",
            label: "Same millisecond, read-then-insert",
            description: "Two requests with one key arrive together; both read 'not found' and both charge, and so does \
             the retry: a lookup sees no claim until the first transaction commits.",
            values: &[("fix", "key"), ("second_click_ms", "0"), ("claim", "read-then-insert")],
        },
        Preset {
            id: "same-ms-atomic",
            label: "Same millisecond, atomic claim",
            description: "The same race against INSERT … ON CONFLICT: exactly one wins; the other waits for its commit and gets the replay.",
            values: &[("fix", "key"), ("second_click_ms", "0")],
        },
        Preset {
            id: "crash-after-charge",
            label: "Crash after the charge",
            description: "A fast handler whose worker dies after committing: the key's response committed with \
             the charge, so the retry gets it replayed.",
            values: &[("fix", "key"), ("second_click", "false"), ("handler_ms", "300"), ("crash_after_charge", "true")],
        },
        Preset {
            id: "crash-separate-store",
            label: "Crash, key in a separate store",
            description: "The same crash with the key in another store: the claim is never marked done, so the retry gets 409 \
             and the buyer is told 'processing' (set a claim expiry and a later retry charges again).",
            values: &[
                ("fix", "key"),
                ("second_click", "false"),
                ("handler_ms", "300"),
                ("crash_after_charge", "true"),
                ("key_store", "separate"),
            ],
        },
        Preset {
            id: "part4-wait",
            label: "Part 4: the duplicate waits",
            description: "Chapter 2 Part 4 measured on Postgres: a 3 s transaction holds the claim, and the duplicate \
             sent 0.5 s later blocks 2.5 s on its INSERT … ON CONFLICT, then replays the stored response.",
            values: &[
                ("fix", "key"),
                ("second_click_ms", "500"),
                ("handler_ms", "3000"),
                ("attempt_timeout_ms", "5000"),
                ("retries", "0"),
            ],
        },
        Preset {
            id: "part4-lock-timeout",
            label: "Part 4: a 200 ms lock timeout",
            description: "The same with a 200 ms lock timeout on the claim: each duplicate fails after 200 ms (55P03) \
             and gets 409; the buyer is told 'processing' while the one charge commits.",
            values: &[
                ("fix", "key"),
                ("second_click_ms", "500"),
                ("handler_ms", "3000"),
                ("attempt_timeout_ms", "2000"),
                ("lock_timeout_ms", "200"),
            ],
        },
    ],
    metrics: &[
        MetricSpec {
            key: "charges",
            label: "Charges",
            unit: "",
            help: "Distinct charges the server created (ch_1, ch_2, …).",
        },
        MetricSpec {
            key: "card_charged",
            label: "Card charged",
            unit: "times",
            help: "The truth: how many times money left the buyer's card.",
        },
        MetricSpec {
            key: "amount_charged_cents",
            label: "Amount charged",
            unit: "¢",
            help: "What the card was charged in all.",
        },
        MetricSpec {
            key: "client_outcome",
            label: "Buyer was told",
            unit: "",
            help: "paid, failed, processing, rejected, or waiting (still in flight).",
        },
        MetricSpec {
            key: "server_requests",
            label: "Server requests",
            unit: "",
            help: "POST /charges requests that reached the server.",
        },
        MetricSpec {
            key: "client_attempts",
            label: "Client attempts",
            unit: "",
            help: "Requests the page's helper sent, over all clicks.",
        },
        MetricSpec {
            key: "timeouts_seen",
            label: "Timeouts",
            unit: "",
            help: "Attempts that ended in TimeoutError at the client.",
        },
        MetricSpec {
            key: "conflicts_409",
            label: "409s",
            unit: "",
            help: "409 'already in progress' answers the server sent.",
        },
        MetricSpec {
            key: "claim_wait_ms",
            label: "Longest claim wait",
            unit: "ms",
            help: "The longest a request's INSERT … ON CONFLICT waited for the transaction holding its key.",
        },
        MetricSpec {
            key: "replays",
            label: "Replays",
            unit: "",
            help: "Stored responses the server replayed for a repeated key.",
        },
        MetricSpec {
            key: "rejected_422",
            label: "422s",
            unit: "",
            help: "Requests rejected because their key came with another amount.",
        },
        MetricSpec {
            key: "resets_seen",
            label: "Connection resets",
            unit: "",
            help: "Attempts that ended in a reset because the worker crashed.",
        },
        MetricSpec {
            key: "aborted_waits",
            label: "Aborted waits",
            unit: "",
            help: "Attempts the page stopped waiting for because a newer click came.",
        },
        MetricSpec {
            key: "handler_runs",
            label: "Handler runs",
            unit: "",
            help: "Requests whose handler set out to charge the card.",
        },
        MetricSpec { key: "client_saw", label: "Client saw", unit: "", help: "Each click's attempts, in order." },
        MetricSpec { key: "charge_ids", label: "Charge ids", unit: "", help: "The ledger, in commit order." },
        MetricSpec {
            key: "summary",
            label: "Buyer vs card",
            unit: "",
            help: "What the buyer saw against what the card shows.",
        },
    ],
    headline: &["card_charged", "client_outcome", "server_requests", "timeouts_seen"],
    default_duration_ms: DEFAULT_DURATION_MS,
    sweep: SweepDefault {
        x: "second_click_ms",
        from: 0.0,
        to: 3000.0,
        steps: 16,
        by: Some("fix"),
        metric: "card_charged",
    },
    model: &ModelOf::<DoubleClick>::NEW,
};

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
    retries_used: u32,
    /// The attempt in flight, if any (none while backing off).
    in_flight: Option<usize>,
    /// The helper's pending timer: the attempt's timeout while one is in flight, else the
    /// backoff before the next attempt.
    timer: Option<TimerKey>,
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
    /// When its claim stopped waiting for the transaction that held the key (None: it never
    /// waited, or still waits).
    pub waited_until: Option<Micros>,
}

/// One row of the ledger: money taken from the card.
#[derive(Clone, Debug)]
pub struct LedgerCharge {
    /// 1 for ch_1.
    pub id: u32,
    /// The commit.
    pub at: Micros,
    pub amount_cents: u32,
    /// Index into [`Timeline::server`].
    pub server: usize,
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
/// most `retries + 1` attempts, each at most one server request and one charge.
pub struct Timeline<'a> {
    pub clicks: &'a [ClickRecord],
    pub disabled: &'a [DisabledSpan],
    pub attempts: &'a [AttemptRecord],
    pub server: &'a [ServerRecord],
    pub ledger: &'a [LedgerCharge],
}

#[derive(Clone, Copy, Debug)]
pub enum Event {
    Click(usize),
    /// The helper of a click sends its next attempt.
    Send(usize),
    /// An attempt reaches the server.
    Arrive(usize),
    /// Read-then-insert: the server record's late insert of its key.
    Insert(usize),
    /// A handler run commits its charge.
    Commit(usize),
    /// A server request's wait on a held claim reaches `lock_timeout_ms`.
    LockTimeout(usize),
    /// An answer reaches the client.
    Reply {
        attempt: usize,
        outcome: AttemptOutcome,
    },
    Timeout(usize),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum KeyState {
    Running,
    Done { charge: u32 },
}

#[derive(Clone, Copy, Debug)]
struct KeyEntry {
    key: u32,
    amount: u32,
    state: KeyState,
    /// Whether other transactions see the row: a claim in the charge's transaction becomes
    /// visible only at its commit.
    committed: bool,
    claimed_at: Micros,
}

/// The model: a Pay button, the page's HTTP helper, and the server's POST /charges.
pub struct DoubleClick {
    config: DoubleClickConfig,
    /// When the run ends.
    end: Micros,
    attempt_timeout: Micros,
    jitter: f64,
    retry_after: Micros,
    handler: Micros,
    network: Micros,
    claim_gap: Micros,
    lock_timeout: Micros,
    claim_ttl: Micros,
    /// The next commit crashes its worker (set by `crash_after_charge`, used once).
    crash_pending: bool,

    handler_rng: SimRng,
    backoff_rng: SimRng,

    button: ButtonState,
    /// The click whose helper is running (latest click wins).
    active: Option<usize>,
    /// The purchase intent's key, created at the first click (fix = key).
    intent_key: Option<u32>,
    next_key: u32,
    keys: Vec<KeyEntry>,
    /// Server requests whose claim waits for the transaction holding their key.
    waiting: Vec<usize>,
    longest_claim_wait: Micros,

    clicks: Vec<ClickRecord>,
    disabled: Vec<DisabledSpan>,
    attempts: Vec<AttemptRecord>,
    server: Vec<ServerRecord>,
    ledger: Vec<LedgerCharge>,

    timeouts: u64,
    conflicts: u64,
    replays: u64,
    rejected: u64,
    resets: u64,
    aborted: u64,
    handler_runs: u64,
}

impl DoubleClick {
    /// Every click, attempt, server request and charge so far, for the swimlanes.
    pub fn timeline(&self) -> Timeline<'_> {
        Timeline {
            clicks: &self.clicks,
            disabled: &self.disabled,
            attempts: &self.attempts,
            server: &self.server,
            ledger: &self.ledger,
        }
    }

    pub fn button(&self) -> ButtonState {
        self.button
    }

    /// What the page tells the buyer now: the outcome of the latest click that did something.
    pub fn buyer_outcome(&self) -> BuyerOutcome {
        self.clicks.iter().rev().find(|c| c.effect == ClickEffect::Started).map_or(BuyerOutcome::Waiting, |c| c.outcome)
    }

    /// Charges in the ledger so far.
    pub fn charges(&self) -> usize {
        self.ledger.len()
    }

    /// Handler runs still charging (they will commit whatever the client does).
    pub fn runs_in_progress(&self) -> usize {
        self.server.iter().filter(|s| s.result == ServerResult::Running).count()
    }

    /// One sentence: what the buyer saw against what the card shows.
    pub fn summary(&self) -> String {
        let paid_with = self.attempts.iter().rev().find_map(|a| match a.outcome {
            AttemptOutcome::Ok { charge, .. } => Some(charge),
            _ => None,
        });
        let buyer = match (self.buyer_outcome(), paid_with) {
            (BuyerOutcome::Paid, Some(charge)) => format!("The buyer saw \u{201c}paid\u{201d} (ch_{charge})"),
            (BuyerOutcome::Failed, _) => "The buyer was told the payment failed".to_string(),
            (BuyerOutcome::Processing, _) => "The buyer was told the payment is processing".to_string(),
            (BuyerOutcome::Rejected, _) => {
                "The buyer saw an error (422: the key was already used for another amount)".to_string()
            }
            _ => "The buyer is still waiting".to_string(),
        };
        let ids = charge_list(&self.ledger);
        let card = match self.ledger.len() {
            0 => "the card was not charged".to_string(),
            1 => format!("the card was charged once ({ids})"),
            2 => format!("the card was charged twice ({ids})"),
            n => format!("the card was charged {n} times ({ids})"),
        };
        let later = match self.runs_in_progress() {
            0 => String::new(),
            1 => ", and one more charge is still in progress on the server".to_string(),
            n => format!(", and {n} more charges are still in progress on the server"),
        };
        format!("{buyer}; {card}{later}.")
    }

    /// Each click's attempts as the client saw them, e.g. "click 1: AbortError · click 2: 409, 200 ch_1 (replayed)".
    fn client_saw(&self) -> String {
        let mut parts = Vec::with_capacity(self.clicks.len());
        for (i, c) in self.clicks.iter().enumerate() {
            let seen: Vec<String> = self.attempts.iter().filter(|a| a.click == i).map(|a| a.outcome.label()).collect();
            let text = match c.effect {
                ClickEffect::Started => seen.join(", "),
                ClickEffect::IgnoredDisabled => "button disabled".to_string(),
                ClickEffect::IgnoredAfterPaid => "receipt shown".to_string(),
            };
            parts.push(format!("click {}: {text}", i + 1));
        }
        parts.join(" · ")
    }
}

impl Model for DoubleClick {
    type Config = DoubleClickConfig;
    type Event = Event;

    fn new(config: DoubleClickConfig, seed: u64, end: Micros, queue: &mut EventQueue<Event>) -> Self {
        queue.schedule_at(0, Event::Click(0));
        if config.second_click {
            queue.schedule_at(ms_to_us(config.second_click_ms), Event::Click(1));
        }
        Self {
            attempt_timeout: ms_to_us(config.attempt_timeout_ms).max(1),
            jitter: config.jitter_pct / 100.0,
            retry_after: ms_to_us(config.retry_after_ms),
            handler: ms_to_us(config.handler_ms),
            network: ms_to_us(config.network_ms),
            claim_gap: ms_to_us(config.claim_gap_ms),
            lock_timeout: ms_to_us(config.lock_timeout_ms),
            claim_ttl: ms_to_us(config.claim_ttl_ms),
            crash_pending: config.crash_after_charge,
            handler_rng: SimRng::stream(seed, 1),
            backoff_rng: SimRng::stream(seed, 2),
            button: ButtonState::Enabled,
            active: None,
            intent_key: None,
            next_key: 1,
            keys: Vec::new(),
            waiting: Vec::new(),
            longest_claim_wait: 0,
            clicks: Vec::with_capacity(2),
            disabled: Vec::new(),
            attempts: Vec::new(),
            server: Vec::new(),
            ledger: Vec::new(),
            timeouts: 0,
            conflicts: 0,
            replays: 0,
            rejected: 0,
            resets: 0,
            aborted: 0,
            handler_runs: 0,
            end,
            config,
        }
    }

    fn handle(&mut self, q: &mut EventQueue<Event>, now: Micros, event: Event) {
        match event {
            Event::Click(i) => self.click(q, now, i),
            Event::Send(click) => self.send(q, now, click),
            Event::Arrive(attempt) => self.arrive(q, now, attempt),
            Event::Insert(request) => self.late_insert(now, request),
            Event::Commit(request) => self.commit(q, now, request),
            Event::LockTimeout(request) => self.lock_timeout_fires(q, now, request),
            Event::Reply { attempt, outcome } => self.reply(q, now, attempt, outcome),
            Event::Timeout(attempt) => self.timeout(q, now, attempt),
        }
    }

    fn metrics(&self, _now: Micros) -> Vec<(&'static str, Value)> {
        let amount: u64 = self.ledger.iter().map(|c| c.amount_cents as u64).sum();
        vec![
            ("charges", Value::count(self.ledger.len() as u64)),
            ("card_charged", Value::count(self.ledger.len() as u64)),
            ("amount_charged_cents", Value::count(amount)),
            ("client_outcome", Value::Text(self.buyer_outcome().as_str().to_string())),
            ("server_requests", Value::count(self.server.len() as u64)),
            ("client_attempts", Value::count(self.attempts.len() as u64)),
            ("timeouts_seen", Value::count(self.timeouts)),
            ("conflicts_409", Value::count(self.conflicts)),
            ("claim_wait_ms", Value::num(self.longest_claim_wait as f64 / 1000.0)),
            ("replays", Value::count(self.replays)),
            ("rejected_422", Value::count(self.rejected)),
            ("resets_seen", Value::count(self.resets)),
            ("aborted_waits", Value::count(self.aborted)),
            ("handler_runs", Value::count(self.handler_runs)),
            ("client_saw", Value::Text(self.client_saw())),
            ("charge_ids", Value::Text(charge_list(&self.ledger))),
            ("summary", Value::Text(self.summary())),
        ]
    }

    fn config(&self) -> &DoubleClickConfig {
        &self.config
    }

    /// Long enough for the last attempt to be answered: the last click, every retry's wait for
    /// its attempt and its backoff (at least the 409's Retry-After), then the longer of the last
    /// attempt's timeout and a handler run with its answer; in whole seconds, and never shorter
    /// than the default 8 s.
    fn run_length_ms(c: &DoubleClickConfig) -> Option<u64> {
        let last_click = if c.second_click { c.second_click_ms } else { 0.0 };
        let retries: f64 = (1..=c.retries)
            .map(|n| {
                let backoff = c.backoff_ms * (1u64 << (n - 1).min(MAX_BACKOFF_DOUBLINGS)) as f64;
                c.attempt_timeout_ms + backoff.max(c.retry_after_ms)
            })
            .sum();
        // A claim's wait ends by the holder's commit, which is inside the holder's own answer.
        let answered = 2.0 * c.network_ms + c.claim_gap_ms + c.handler_ms + c.handler_spread_ms;
        let last = last_click + retries + c.attempt_timeout_ms.max(answered);
        let seconds = libm::ceil((last + 500.0) / 1000.0) as u64;
        Some((seconds * 1000).max(DEFAULT_DURATION_MS))
    }
}

fn charge_list(ledger: &[LedgerCharge]) -> String {
    ledger.iter().map(|c| format!("ch_{}", c.id)).collect::<Vec<_>>().join(", ")
}

impl DoubleClick {
    fn new_key(&mut self) -> u32 {
        let k = self.next_key;
        self.next_key += 1;
        k
    }

    fn click(&mut self, q: &mut EventQueue<Event>, now: Micros, i: usize) {
        let amount = if i > 0 && self.config.amount_changes { CHANGED_AMOUNT_CENTS } else { AMOUNT_CENTS };
        let effect = match self.button {
            ButtonState::Enabled => ClickEffect::Started,
            ButtonState::Disabled => ClickEffect::IgnoredDisabled,
            ButtonState::Receipt => ClickEffect::IgnoredAfterPaid,
        };
        let mut record = ClickRecord {
            at: now,
            effect,
            key: None,
            amount_cents: amount,
            outcome: BuyerOutcome::Ignored,
            finished_at: Some(now),
            retries_used: 0,
            in_flight: None,
            timer: None,
        };
        if effect != ClickEffect::Started {
            self.clicks.push(record);
            return;
        }
        // Latest click wins: the page aborts the previous click's request. That ends the
        // waiting in the browser; the server is not told.
        if let Some(previous) = self.active.take() {
            self.supersede(q, now, previous);
        }
        if self.config.fix == Fix::Disable {
            self.button = ButtonState::Disabled;
            self.disabled.push(DisabledSpan { from: now, until: None });
        }
        record.key = match self.config.fix {
            Fix::Key => Some(match self.intent_key {
                Some(k) => k,
                None => {
                    let k = self.new_key();
                    self.intent_key = Some(k);
                    k
                }
            }),
            Fix::KeyPerClick => Some(self.new_key()),
            Fix::None | Fix::Disable | Fix::KeyPerAttempt => None,
        };
        record.outcome = BuyerOutcome::Waiting;
        record.finished_at = None;
        let index = self.clicks.len();
        self.clicks.push(record);
        self.active = Some(index);
        self.send(q, now, index);
    }

    /// A newer click aborts this one: its wait ends, and so does its helper's pending timer
    /// (the attempt's timeout, or the backoff before its next attempt).
    fn supersede(&mut self, q: &mut EventQueue<Event>, now: Micros, click: usize) {
        let c = &mut self.clicks[click];
        c.outcome = BuyerOutcome::Superseded;
        c.finished_at = Some(now);
        if let Some(timer) = c.timer.take() {
            q.cancel(timer);
        }
        if let Some(a) = c.in_flight.take() {
            let attempt = &mut self.attempts[a];
            attempt.outcome = AttemptOutcome::Aborted;
            attempt.end = Some(now);
            self.aborted += 1;
        }
    }

    fn send(&mut self, q: &mut EventQueue<Event>, now: Micros, click: usize) {
        let key = if self.config.fix == Fix::KeyPerAttempt { Some(self.new_key()) } else { self.clicks[click].key };
        let c = &mut self.clicks[click];
        let index = self.attempts.len();
        self.attempts.push(AttemptRecord {
            click,
            number: c.retries_used + 1,
            key,
            amount_cents: c.amount_cents,
            start: now,
            end: None,
            outcome: AttemptOutcome::Pending,
        });
        c.in_flight = Some(index);
        q.schedule_in(self.network, Event::Arrive(index));
        c.timer = Some(q.timer_in(self.attempt_timeout, Event::Timeout(index)));
    }

    /// The end of an attempt at the client; false when the client had already stopped waiting.
    fn end_attempt(&mut self, q: &mut EventQueue<Event>, now: Micros, attempt: usize, outcome: AttemptOutcome) -> bool {
        let a = &mut self.attempts[attempt];
        if a.outcome != AttemptOutcome::Pending {
            return false;
        }
        a.outcome = outcome;
        a.end = Some(now);
        let c = &mut self.clicks[a.click];
        c.in_flight = None;
        // An answer in time stops the attempt's timeout.
        if let Some(timer) = c.timer.take() {
            q.cancel(timer);
        }
        true
    }

    fn timeout(&mut self, q: &mut EventQueue<Event>, now: Micros, attempt: usize) {
        if self.end_attempt(q, now, attempt, AttemptOutcome::Timeout) {
            self.timeouts += 1;
            self.retry_or_give_up(q, now, self.attempts[attempt].click, 0, BuyerOutcome::Failed);
        }
    }

    fn reply(&mut self, q: &mut EventQueue<Event>, now: Micros, attempt: usize, outcome: AttemptOutcome) {
        if !self.end_attempt(q, now, attempt, outcome) {
            return; // the page stopped waiting: the answer is dropped
        }
        let click = self.attempts[attempt].click;
        match outcome {
            AttemptOutcome::Ok { .. } => self.finish(now, click, BuyerOutcome::Paid),
            AttemptOutcome::Conflict => {
                self.retry_or_give_up(q, now, click, self.retry_after, BuyerOutcome::Processing)
            }
            AttemptOutcome::Reset => {
                self.resets += 1;
                self.retry_or_give_up(q, now, click, 0, BuyerOutcome::Failed);
            }
            // A 4xx validation error is not retried.
            AttemptOutcome::Rejected => self.finish(now, click, BuyerOutcome::Rejected),
            AttemptOutcome::Pending | AttemptOutcome::Timeout | AttemptOutcome::Aborted => {}
        }
    }

    /// Retries after a jittered exponential backoff (at least `min_wait`), or tells the buyer
    /// `give_up` when the retries are spent.
    fn retry_or_give_up(
        &mut self,
        q: &mut EventQueue<Event>,
        now: Micros,
        click: usize,
        min_wait: Micros,
        give_up: BuyerOutcome,
    ) {
        let c = &mut self.clicks[click];
        if c.retries_used >= self.config.retries {
            self.finish(now, click, give_up);
            return;
        }
        c.retries_used += 1;
        let doublings = (c.retries_used - 1).min(MAX_BACKOFF_DOUBLINGS);
        let base = self.config.backoff_ms * (1u64 << doublings) as f64;
        let wait = ms_to_us(base * (1.0 - self.jitter * self.backoff_rng.uniform()));
        c.timer = Some(q.timer_in(wait.max(min_wait), Event::Send(click)));
    }

    fn finish(&mut self, now: Micros, click: usize, outcome: BuyerOutcome) {
        let c = &mut self.clicks[click];
        c.outcome = outcome;
        c.finished_at = Some(now);
        if self.active == Some(click) {
            self.active = None;
        }
        if let Some(span) = self.disabled.last_mut().filter(|s| s.until.is_none()) {
            span.until = Some(now);
        }
        // A paid page shows the receipt; any other ending gives the buyer the button back.
        self.button = if outcome == BuyerOutcome::Paid { ButtonState::Receipt } else { ButtonState::Enabled };
    }

    fn arrive(&mut self, q: &mut EventQueue<Event>, now: Micros, attempt: usize) {
        let a = &self.attempts[attempt];
        let (key, amount) = (a.key, a.amount_cents);
        let index = self.server.len();
        self.server.push(ServerRecord {
            attempt,
            arrived: now,
            end: None,
            result: ServerResult::Running,
            crashed: false,
            waited_until: None,
        });
        let Some(key) = key else {
            self.start_run(q, index);
            return;
        };
        match self.config.claim {
            Claim::Atomic => self.insert_on_conflict(q, now, index, key, amount),
            Claim::ReadThenInsert => self.read_then_insert(q, now, index, key),
        }
    }

    /// Whether a new claim is visible to others at once: committed on its own, or in a
    /// separate store (Redis has no transaction to wait for).
    fn claim_commits_first(&self) -> bool {
        self.config.key_store == KeyStore::Separate || self.config.key_claim == KeyClaim::CommittedFirst
    }

    /// The key's row, if any; a "processing" claim older than its expiry is dropped first
    /// (Redis deletes a key when its PX runs out).
    fn live_entry(&mut self, key: u32, now: Micros) -> Option<KeyEntry> {
        let p = self.keys.iter().position(|e| e.key == key)?;
        let e = self.keys[p];
        let expired = self.claim_ttl > 0
            && e.committed
            && e.state == KeyState::Running
            && now >= e.claimed_at + self.claim_ttl;
        if expired {
            self.keys.swap_remove(p);
            return None;
        }
        Some(e)
    }

    fn claim_key(&mut self, key: u32, amount: u32, now: Micros) {
        let committed = self.claim_commits_first();
        self.keys.push(KeyEntry { key, amount, state: KeyState::Running, committed, claimed_at: now });
    }

    /// INSERT … ON CONFLICT DO NOTHING against the key's unique index: a row nobody has
    /// committed yet makes the insert wait for its transaction.
    fn insert_on_conflict(&mut self, q: &mut EventQueue<Event>, now: Micros, index: usize, key: u32, amount: u32) {
        match self.live_entry(key, now) {
            None => {
                self.claim_key(key, amount, now);
                self.start_run(q, index);
            }
            Some(e) if !e.committed => {
                self.server[index].result = ServerResult::Waiting;
                self.waiting.push(index);
                if self.lock_timeout > 0 {
                    q.schedule_in(self.lock_timeout, Event::LockTimeout(index));
                }
            }
            Some(e) => self.answer_from_key(q, now, index, e),
        }
    }

    /// A plain lookup sees only committed rows; the insert comes a round trip later and,
    /// with no unique constraint, never conflicts.
    fn read_then_insert(&mut self, q: &mut EventQueue<Event>, now: Micros, index: usize, key: u32) {
        match self.live_entry(key, now).filter(|e| e.committed) {
            None => {
                q.schedule_in(self.claim_gap, Event::Insert(index));
                self.start_run(q, index);
            }
            Some(e) => self.answer_from_key(q, now, index, e),
        }
    }

    /// The answer a repeat gets from a key's visible row: 422 for another amount, 409 while it
    /// is processing, else the stored response replayed.
    fn answer_from_key(&mut self, q: &mut EventQueue<Event>, now: Micros, index: usize, entry: KeyEntry) {
        let attempt = self.server[index].attempt;
        let answer = match entry {
            e if e.amount != self.attempts[attempt].amount_cents => {
                self.rejected += 1;
                (ServerResult::Rejected, AttemptOutcome::Rejected)
            }
            KeyEntry { state: KeyState::Running, .. } => {
                self.conflicts += 1;
                (ServerResult::Conflict, AttemptOutcome::Conflict)
            }
            KeyEntry { state: KeyState::Done { charge }, .. } => {
                self.replays += 1;
                (ServerResult::Replayed { charge }, AttemptOutcome::Ok { charge, replayed: true })
            }
        };
        self.answer(q, now, index, answer);
    }

    fn answer(&mut self, q: &mut EventQueue<Event>, now: Micros, index: usize, (result, outcome): (ServerResult, AttemptOutcome)) {
        let s = &mut self.server[index];
        s.result = result;
        s.end = Some(now);
        q.schedule_in(self.network, Event::Reply { attempt: s.attempt, outcome });
    }

    /// Ends a request's wait on a held claim.
    fn stop_waiting(&mut self, now: Micros, index: usize) {
        self.waiting.retain(|&w| w != index);
        let s = &mut self.server[index];
        s.waited_until = Some(now);
        self.longest_claim_wait = self.longest_claim_wait.max(now - s.arrived);
    }

    /// Postgres cancels the waiting statement (SQLSTATE 55P03); the server answers 409.
    fn lock_timeout_fires(&mut self, q: &mut EventQueue<Event>, now: Micros, index: usize) {
        if self.server[index].result != ServerResult::Waiting {
            return; // the holder committed first
        }
        self.stop_waiting(now, index);
        self.conflicts += 1;
        self.answer(q, now, index, (ServerResult::Conflict, AttemptOutcome::Conflict));
    }

    /// The holder committed: every insert waiting on the key gets no row, and reads it.
    fn wake_waiters(&mut self, q: &mut EventQueue<Event>, now: Micros, key: u32) {
        let Some(entry) = self.keys.iter().find(|e| e.key == key).copied() else { return };
        let woken: Vec<usize> =
            self.waiting.iter().copied().filter(|&w| self.attempts[self.server[w].attempt].key == Some(key)).collect();
        for index in woken {
            self.stop_waiting(now, index);
            self.answer_from_key(q, now, index, entry);
        }
    }

    fn start_run(&mut self, q: &mut EventQueue<Event>, request: usize) {
        self.handler_runs += 1;
        let spread = ms_to_us(self.config.handler_spread_ms * self.handler_rng.uniform());
        q.schedule_in(self.handler + spread, Event::Commit(request));
    }

    /// Read-then-insert: the key appears only now; whoever looked in between saw nothing.
    fn late_insert(&mut self, now: Micros, request: usize) {
        let a = &self.attempts[self.server[request].attempt];
        let (Some(key), amount) = (a.key, a.amount_cents) else { return };
        if !self.keys.iter().any(|e| e.key == key) {
            self.claim_key(key, amount, now);
        }
    }

    fn commit(&mut self, q: &mut EventQueue<Event>, now: Micros, request: usize) {
        let attempt = self.server[request].attempt;
        let a = &self.attempts[attempt];
        let (key, amount) = (a.key, a.amount_cents);
        let charge = self.ledger.len() as u32 + 1;
        self.ledger.push(LedgerCharge { id: charge, at: now, amount_cents: amount, server: request });
        let crashed = std::mem::take(&mut self.crash_pending);
        let s = &mut self.server[request];
        s.result = ServerResult::Charged { charge };
        s.end = Some(now);
        s.crashed = crashed;
        if let Some(key) = key {
            let position = self.keys.iter().position(|e| e.key == key);
            // A separate store is marked done after the charge commits: a worker that died
            // in between leaves the claim "processing". In the charge's transaction the
            // stored response committed with the charge.
            let stuck = crashed && self.config.key_store == KeyStore::Separate;
            if !stuck {
                let done = KeyEntry { key, amount, state: KeyState::Done { charge }, committed: true, claimed_at: now };
                match position {
                    Some(p) => self.keys[p] = KeyEntry { claimed_at: self.keys[p].claimed_at, ..done },
                    None => self.keys.push(done),
                }
            }
            self.wake_waiters(q, now, key);
        }
        let outcome = if crashed { AttemptOutcome::Reset } else { AttemptOutcome::Ok { charge, replayed: false } };
        q.schedule_in(self.network, Event::Reply { attempt, outcome });
    }
}
