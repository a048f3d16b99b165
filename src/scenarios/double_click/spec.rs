//! The double-click declaration: the amounts, the fixes and the server's ways of claiming a
//! key, the parameters, presets and metrics.

use crate::sim::scenario::SweepDefault;
use crate::sim::{ParamSpec, Preset};

/// What the buyer pays ($49.99).
pub const AMOUNT_CENTS: u32 = 4999;
/// With `amount_changes`: what the second click sends after the buyer adds a $10 tip.
pub const CHANGED_AMOUNT_CENTS: u32 = 5999;
/// Backoff doubles per retry; the exponent stops here so no setting overflows.
pub(super) const MAX_BACKOFF_DOUBLINGS: u32 = 16;
/// A day, in ms: Stripe keeps an idempotency key "at least 24 hours".
const DAY_MS: f64 = 24.0 * 60.0 * 60.0 * 1000.0;

crate::choice! {
    /// What the page does so that one purchase is charged once.
    #[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
    pub enum Fix {
        // The chapter's words: "set the fix to None …, then Disable …, then Idempotency key".
        None = ("none", "None", "No fix: every click and every retry is a new request to charge."),
        Disable = ("disable", "Disable", "Disable the button after the first click; the helper still retries."),
        Key = ("key", "Idempotency key", "One key per purchase, made before the first attempt and sent with every attempt."),
        KeyPerClick = ("key-per-click", "Key per click", "A bug: the click handler makes a new key, so a second click is a new purchase."),
        KeyPerAttempt = ("key-per-attempt", "Key per attempt", "A bug: the retry loop makes a new key, so every retry is a new purchase."),
    }
}

crate::choice! {
    /// How the server claims an idempotency key before it charges.
    #[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
    pub enum Claim {
        Atomic = ("atomic", "Atomic", "Looking the key up and inserting it is one step (INSERT … ON CONFLICT): exactly one request wins."),
        ReadThenInsert = ("read-then-insert", "Read, then insert", "The server looks the key up and inserts it a moment later, into a table with no unique constraint on the key: requests that look before the insert is visible all find nothing."),
    }
}

crate::choice! {
    /// Where the server keeps the key and its stored response.
    #[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
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

crate::choice! {
    /// The key the server sends the card provider with each charge call.
    pub enum ProviderKey {
        PerAttempt = ("per-attempt", "Fresh per attempt", "Each call to the provider makes a new key (a UUID per call): the provider never sees a repeat, and every call that reaches it charges."),
        Derived = ("derived", "Derived from the record", "The key comes from the order's own record (charge-k1 for key k1): every process that resumes the order, a retry, a worker or the recovery job, sends the same key, and the provider deduplicates within its key window."),
    }
}

crate::choice! {
    /// How the first run's transaction ends once its provider call has charged the card.
    pub enum FirstTxn {
        Commits = ("commits", "Commits", "The first run's transaction commits after the provider call, with its claim and stored response."),
        RollsBack = ("rolls-back", "Rolls back after the charge", "An error after the provider call (saving its answer fails) rolls the first run's transaction back, as Postgres does with any error in a transaction: its claim goes too, but the money taken at the provider stays. The server answers 500."),
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
        pub claim_hold_ms: f64 = ParamSpec::number("claim_hold_ms", "Claim held", "ms", 0.0, (0.0, 10_000.0, 10.0),
            "How long the first request holds its claim's transaction open. With the claim in the \
             charge's transaction, that transaction commits no sooner than this (Part 4's session held \
             it 3 s; the handler's own time holds it too). With the claim committed \
             first, the claim and its pending record commit after this, and only then does the charge \
             start. 0: the claim is held for the handler's time only. A separate store has no \
             transaction to hold."),
        pub provider_key: ProviderKey = ParamSpec::choice("provider_key", "Provider key", ProviderKey::OPTIONS,
            ProviderKey::PerAttempt as usize,
            "The key the server forwards to the card provider: derived from the order's record (the \
             same for every attempt, worker and recovery job), or fresh per attempt."),
        pub recovery_after_ms: f64 = ParamSpec::number("recovery_after_ms", "Recovery job after", "ms", 0.0,
            (0.0, 4.0 * DAY_MS, 1000.0),
            "A recovery job finds orders still pending this long after their claim committed and \
             settles each by calling the provider with the order's key (Part 4: \"a job that finds \
             orders pending for more than a few minutes\"). With it, a page that runs out of retries \
             says 'processing', not 'failed'. 0: no recovery job."),
        pub provider_key_window_ms: f64 = ParamSpec::number("provider_key_window_ms", "Provider key window", "ms", DAY_MS,
            (1000.0, 4.0 * DAY_MS, 1000.0),
            "How long the provider remembers a key it charged with (Stripe: at least 24 hours). A call \
             with the same key after the window charges again."),
        pub claim_gap_ms: f64 = ParamSpec::number("claim_gap_ms", "Read-then-insert gap", "ms", 2.0, (0.0, 100.0, 1.0),
            "With read-then-insert: time between the lookup and the insert (one database round trip)."),
        pub key_store: KeyStore = ParamSpec::choice("key_store", "Where the key record lives", KeyStore::OPTIONS,
            KeyStore::SameTransaction as usize, "Where the server keeps the idempotency key and its stored response."),
        pub crash_after_charge: bool = ParamSpec::toggle("crash_after_charge", "Crash after the charge", false,
            "The worker that makes the first charge dies right after the commit, before it responds: \
             the client sees a connection reset. A key marked done in the charge's transaction is done; \
             a claim in a separate store is never marked done and stays 'processing'."),
        pub first_txn: FirstTxn = ParamSpec::choice("first_txn", "First transaction", FirstTxn::OPTIONS, FirstTxn::Commits as usize,
            "Whether the first run's transaction commits, or rolls back after its provider call charged \
             the card. A claim in that transaction goes with it: a repeat waiting on the key then gets \
             the row, claims the key and charges again. A claim committed first stays 'processing'."),
        pub amount_changes: bool = ParamSpec::toggle("amount_changes", "Second click changes the amount", false,
            "Between the clicks the buyer adds a $10 tip, and the page sends the same key with the \
             new amount: the server must answer 422, never replay the first charge."),
    }
}

pub(super) const DEFAULT_DURATION_MS: u64 = 8_000;

pub(super) const PRESETS: &[Preset] = &[
        Preset {
            id: "double-click",
            label: "None (the chapter's double click)",
            description: "The buyer clicks again at 600 ms. Each click's helper retries once. 3 charges.",
            values: &[],
        },
        Preset {
            id: "disable",
            label: "Disable",
            description: "The second click does nothing, but the first click's own retry still charges: 2.",
            values: &[(DoubleClickConfig::fix, "disable")],
        },
        Preset {
            id: "key",
            label: "Idempotency key",
            description: "One key per purchase on every attempt: the second click's request waits for the first's commit, then gets the replay: 1.",
            values: &[(DoubleClickConfig::fix, "key")],
        },
        Preset {
            id: "part3-table",
            label: "Part 3 table, no key",
            description: "One click, handler 1,500 ms, 1,000 ms per attempt, two retries: TimeoutError × 3, \
             3 charges, and the buyer is told the payment failed.",
            values: &[
                (DoubleClickConfig::second_click, "false"),
                (DoubleClickConfig::handler_ms, "1500"),
                (DoubleClickConfig::attempt_timeout_ms, "1000"),
                (DoubleClickConfig::retries, "2"),
            ],
        },
        Preset {
            id: "part3-table-key",
            label: "Part 3 table, same key",
            description: "The same run with one key, claimed and committed before the card is charged (as an external \
             charge must be): TimeoutError, then 409, then 200 with ch_1 replayed: 1 charge.",
            values: &[
                (DoubleClickConfig::second_click, "false"),
                (DoubleClickConfig::handler_ms, "1500"),
                (DoubleClickConfig::attempt_timeout_ms, "1000"),
                (DoubleClickConfig::retries, "2"),
                (DoubleClickConfig::fix, "key"),
                (DoubleClickConfig::key_claim, "committed-first"),
            ],
        },
        Preset {
            id: "key-in-retry-loop",
            label: "Key made inside the retry loop",
            description: "A fresh key per attempt: the server never sees a repeat, and charges like no key at all.",
            values: &[(DoubleClickConfig::fix, "key-per-attempt")],
        },
        Preset {
            id: "amount-changed",
            label: "Same key, another amount",
            description: "The second click sends the same key with $59.99: 422, not a silent replay of the $49.99 charge.",
            values: &[(DoubleClickConfig::fix, "key"), (DoubleClickConfig::amount_changes, "true")],
        },
        Preset {
            id: "same-ms-race",
            label: "Same millisecond, read-then-insert",
            description: "Two requests with one key arrive together; both read 'not found' and both charge, and so does \
             the retry: a lookup sees no claim until the first transaction commits.",
            values: &[(DoubleClickConfig::fix, "key"), (DoubleClickConfig::second_click_ms, "0"), (DoubleClickConfig::claim, "read-then-insert")],
        },
        Preset {
            id: "same-ms-atomic",
            label: "Same millisecond, atomic claim",
            description: "The same race against INSERT … ON CONFLICT: exactly one wins; the other waits for its commit and gets the replay.",
            values: &[(DoubleClickConfig::fix, "key"), (DoubleClickConfig::second_click_ms, "0")],
        },
        Preset {
            id: "crash-after-charge",
            label: "Crash after the charge",
            description: "A fast handler whose worker dies after committing: the key's response committed with \
             the charge, so the retry gets it replayed.",
            values: &[(DoubleClickConfig::fix, "key"), (DoubleClickConfig::second_click, "false"), (DoubleClickConfig::handler_ms, "300"), (DoubleClickConfig::crash_after_charge, "true")],
        },
        Preset {
            id: "crash-separate-store",
            label: "Crash, key in a separate store",
            description: "The same crash with the key in another store: the claim is never marked done, so the retry gets 409 \
             and the buyer is told 'processing' (set a claim expiry and a later retry charges again).",
            values: &[
                (DoubleClickConfig::fix, "key"),
                (DoubleClickConfig::second_click, "false"),
                (DoubleClickConfig::handler_ms, "300"),
                (DoubleClickConfig::crash_after_charge, "true"),
                (DoubleClickConfig::key_store, "separate"),
            ],
        },
        Preset {
            id: "part4-wait",
            label: "Part 4: the duplicate waits",
            description: "Chapter 2 Part 4 measured on Postgres: a 3 s transaction holds the claim, and the duplicate \
             sent 0.5 s later blocks 2.5 s on its INSERT … ON CONFLICT, then replays the stored response.",
            values: &[
                (DoubleClickConfig::fix, "key"),
                (DoubleClickConfig::second_click_ms, "500"),
                (DoubleClickConfig::handler_ms, "3000"),
                (DoubleClickConfig::attempt_timeout_ms, "5000"),
                (DoubleClickConfig::retries, "0"),
            ],
        },
        Preset {
            id: "part4-lock-timeout",
            label: "Part 4: a 200 ms lock timeout",
            description: "The same with a 200 ms lock timeout on the claim: each duplicate fails after 200 ms (55P03) \
             and gets 409; the buyer is told 'processing' while the one charge commits.",
            values: &[
                (DoubleClickConfig::fix, "key"),
                (DoubleClickConfig::second_click_ms, "500"),
                (DoubleClickConfig::handler_ms, "3000"),
                (DoubleClickConfig::attempt_timeout_ms, "2000"),
                (DoubleClickConfig::lock_timeout_ms, "200"),
            ],
        },
        Preset {
            id: "ch2-break-1",
            label: "Break 1: the charge timed out",
            description: "Chapter 2, Break 1. The claim and a pending order commit first, then the provider call \
             (1,500 ms) with a key derived from the order. The page retries with the same key: TimeoutError, \
             then 409 while the first runs ('processing', not 'failed'). The worker dies after the provider \
             charged, so the order stays pending and the page ends on 'processing'; the recovery job (3 s \
             here, minutes in production) settles it with the same key, and the provider charges nothing \
             more. The buyer clicks again at 5 s: the same key, the stored ch_1 replayed. One charge.",
            values: &[
                ("fix", "key"),
                ("key_claim", "committed-first"),
                ("provider_key", "derived"),
                ("second_click_ms", "5000"),
                ("handler_ms", "1500"),
                ("attempt_timeout_ms", "1000"),
                ("retries", "2"),
                ("crash_after_charge", "true"),
                ("recovery_after_ms", "3000"),
            ],
        },
        Preset {
            id: "ch2-break-4",
            label: "Break 4: same key, same millisecond",
            description: "Chapter 2, Break 4. Two requests with one key arrive in the same millisecond. The claim \
             is INSERT … ON CONFLICT in the charge's transaction, held open 3 s (as Part 4's session held \
             it): exactly one gets the row; the other waits for its commit, then gets no row and reads the \
             stored response. One charge.",
            values: &[
                ("fix", "key"),
                ("second_click_ms", "0"),
                ("claim_hold_ms", "3000"),
                ("attempt_timeout_ms", "5000"),
                ("retries", "0"),
            ],
        },
        Preset {
            id: "ch2-break-4-lock-timeout",
            label: "Break 4: a short lock timeout",
            description: "The same race with a 200 ms lock timeout on the claim: the duplicate's insert is \
             cancelled after 200 ms (SQLSTATE 55P03) and answered 409 at once instead of holding a \
             connection; the page shows 'processing', retries after the Retry-After, and once the first \
             has committed it gets the stored response. One charge.",
            values: &[
                ("fix", "key"),
                ("second_click_ms", "0"),
                ("claim_hold_ms", "3000"),
                ("attempt_timeout_ms", "2000"),
                ("lock_timeout_ms", "200"),
                ("retries", "3"),
            ],
        },
        Preset {
            id: "ch2-break-4-external",
            label: "Break 4: the work is an external API",
            description: "The follow-up. The claim and a pending order commit first (a 50 ms transaction: the \
             duplicate waits that long, then reads 'processing' and gets 409), then the provider call with a \
             key derived from the order. The worker dies after the provider charged; the recovery job \
             resumes the pending order with the same key, and the provider charges nothing more. Set the \
             provider key to 'fresh per attempt', or its window below 3 s, and the recovery charges again.",
            values: &[
                ("fix", "key"),
                ("second_click_ms", "0"),
                ("key_claim", "committed-first"),
                ("claim_hold_ms", "50"),
                ("provider_key", "derived"),
                ("crash_after_charge", "true"),
                ("recovery_after_ms", "3000"),
            ],
        },
        Preset {
            id: "rollback-external",
            label: "Rollback after an external charge",
            description: "Chapter 2, Part 4: external work cannot be in the transaction. The claim and the card charge \
             share one transaction; an error after the provider call rolls it back, and the claim goes with it, \
             but not the money. The second click's request, waiting on the key, then gets the row, claims it \
             and charges again: 2 charges, and the buyer is told the payment failed.",
            values: &[("fix", "key"), ("first_txn", "rolls-back")],
        },
        Preset {
            id: "rollback-committed-first",
            label: "Rollback, claim committed first",
            description: "The chapter's fix for external work: the claim and a pending order commit first, in their own \
             transaction, and the provider call sends a key derived from the order. The same rollback leaves the \
             order pending, so the second click gets 409 ('processing'); the recovery job resumes it with the \
             same key, and the provider charges nothing more. One charge.",
            values: &[
                ("fix", "key"),
                ("first_txn", "rolls-back"),
                ("key_claim", "committed-first"),
                ("provider_key", "derived"),
                ("recovery_after_ms", "3000"),
            ],
        },
];

crate::metrics! {
    /// What a double-click run reports: the CLI's JSON, the stat cards, the sweeps.
    pub struct DoubleClickMetrics in METRICS {
        pub charges: u64 = ("Charges", "",
            "Distinct charges the server created (ch_1, ch_2, …)."),
        pub card_charged: u64 = ("Card charged", "times",
            "The truth: how many times money left the buyer's card."),
        pub amount_charged_cents: u64 = ("Amount charged", "¢",
            "What the card was charged in all."),
        pub client_outcome: String = ("Buyer was told", "",
            "paid, failed, processing, rejected, or waiting (still in flight)."),
        pub server_requests: u64 = ("Server requests", "",
            "POST /charges requests that reached the server."),
        pub client_attempts: u64 = ("Client attempts", "",
            "Requests the page's helper sent, over all clicks."),
        pub timeouts_seen: u64 = ("Timeouts", "",
            "Attempts that ended in TimeoutError at the client."),
        pub conflicts_409: u64 = ("409s", "",
            "409 'already in progress' answers the server sent."),
        pub claim_wait_ms: f64 = ("Longest claim wait", "ms",
            "The longest a request's INSERT … ON CONFLICT waited for the transaction holding its key."),
        pub recovery_charges: u64 = ("Recovery charges", "",
            "Charges the recovery job's provider calls created (0 when the provider recognised the order's key)."),
        pub replays: u64 = ("Replays", "",
            "Stored responses the server replayed for a repeated key."),
        pub rejected_422: u64 = ("422s", "",
            "Requests rejected because their key came with another amount."),
        pub resets_seen: u64 = ("Connection resets", "",
            "Attempts that ended in a reset because the worker crashed."),
        pub aborted_waits: u64 = ("Aborted waits", "",
            "Attempts the page stopped waiting for because a newer click came."),
        pub handler_runs: u64 = ("Handler runs", "",
            "Requests whose handler set out to charge the card."),
        pub client_saw: String = ("Client saw", "",
            "Each click's attempts, in order."),
        pub charge_ids: String = ("Charge ids", "",
            "The ledger, in commit order."),
        pub summary: String = ("Buyer vs card", "",
            "What the buyer saw against what the card shows."),
    }
}

pub(super) const HEADLINE: &[&str] = &[DoubleClickMetrics::card_charged.key(), DoubleClickMetrics::client_outcome.key(), DoubleClickMetrics::server_requests.key(), DoubleClickMetrics::timeouts_seen.key()];

pub(super) const SWEEP: SweepDefault = SweepDefault {
        x: DoubleClickConfig::second_click_ms,
        from: 0.0,
        to: 3000.0,
        steps: 16,
        by: Some(DoubleClickConfig::fix),
        metric: DoubleClickMetrics::card_charged.key(),
};

