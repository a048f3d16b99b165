//! The double-click model: a Pay button, the page's HTTP helper, and the server's POST
//! /charges. What a run records is in `records.rs`; the page's handlers (clicks, attempts,
//! retries) in `client.rs`, the server's (claims, waits, commits) in `server.rs`.

mod client;
mod provider;
mod records;
mod server;

pub use records::{
    AttemptOutcome, AttemptRecord, ButtonState, BuyerOutcome, ClickEffect, ClickRecord, DisabledSpan, LedgerCharge,
    ProviderCallKey, RecoveryRecord, ServerRecord, ServerResult, Timeline,
};

use super::spec::{DEFAULT_DURATION_MS, DoubleClickConfig, FirstTxn, Fix, KeyClaim, KeyStore, MAX_BACKOFF_DOUBLINGS};
use crate::sim::rng::{SimRng, ms_to_us};
use crate::sim::{EventQueue, Micros, Model};

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
    /// A claim committed first, held `claim_hold_ms`, commits with its pending record; the
    /// request's charge starts.
    ClaimCommitted(usize),
    /// The recovery job looks at the order claimed (committed) at `since` with this key.
    Recover {
        key: u32,
        since: Micros,
    },
    /// The provider answers a recovery job's call.
    RecoveryDone(usize),
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
    /// The server request whose claim this is.
    holder: usize,
}

/// The model: a Pay button, the page's HTTP helper, and the server's POST /charges.
pub struct DoubleClick {
    pub(super) config: DoubleClickConfig,
    /// When the run ends.
    pub(super) end: Micros,
    pub(super) attempt_timeout: Micros,
    jitter: f64,
    retry_after: Micros,
    handler: Micros,
    pub(super) network: Micros,
    pub(super) claim_gap: Micros,
    lock_timeout: Micros,
    claim_ttl: Micros,
    pub(super) claim_hold: Micros,
    recovery_after: Micros,
    provider_window: Micros,
    /// The next commit crashes its worker (set by `crash_after_charge`, used once).
    crash_pending: bool,
    /// The next commit rolls back instead (set by `first_txn`, used once).
    rollback_pending: bool,

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
    /// The provider's memory: each key it charged with, the charge, and when it first saw it.
    provider_keys: Vec<(ProviderCallKey, u32, Micros)>,
    next_fresh_key: u32,

    pub(super) clicks: Vec<ClickRecord>,
    pub(super) disabled: Vec<DisabledSpan>,
    pub(super) attempts: Vec<AttemptRecord>,
    pub(super) server: Vec<ServerRecord>,
    pub(super) ledger: Vec<LedgerCharge>,
    pub(super) recoveries: Vec<RecoveryRecord>,

    recovery_charges: u64,
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
            recoveries: &self.recoveries,
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
        let ids: Vec<u32> = self.ledger.iter().map(|c| c.id).collect();
        summary_sentence(self.buyer_outcome(), self.receipt(), &ids, self.runs_in_progress() as u64)
    }

    /// The charge of the last attempt answered 200: the receipt the page shows.
    pub fn receipt(&self) -> Option<u32> {
        self.attempts.iter().rev().find_map(|a| match a.outcome {
            AttemptOutcome::Ok { charge, .. } => Some(charge),
            _ => None,
        })
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
    type Metrics = crate::scenarios::double_click::spec::DoubleClickMetrics;

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
            claim_hold: ms_to_us(config.claim_hold_ms),
            recovery_after: ms_to_us(config.recovery_after_ms),
            provider_window: ms_to_us(config.provider_key_window_ms),
            crash_pending: config.crash_after_charge,
            rollback_pending: config.first_txn == FirstTxn::RollsBack,
            handler_rng: SimRng::stream(seed, 1),
            backoff_rng: SimRng::stream(seed, 2),
            button: ButtonState::Enabled,
            active: None,
            intent_key: None,
            next_key: 1,
            keys: Vec::new(),
            waiting: Vec::new(),
            longest_claim_wait: 0,
            provider_keys: Vec::new(),
            next_fresh_key: 1,
            clicks: Vec::with_capacity(2),
            disabled: Vec::new(),
            attempts: Vec::new(),
            server: Vec::new(),
            ledger: Vec::new(),
            recoveries: Vec::new(),
            recovery_charges: 0,
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
            Event::Insert(request) => self.late_insert(q, now, request),
            Event::Commit(request) => self.commit(q, now, request),
            Event::LockTimeout(request) => self.lock_timeout_fires(q, now, request),
            Event::ClaimCommitted(request) => self.claim_committed(q, now, request),
            Event::Recover { key, since } => self.recover(q, now, key, since),
            Event::RecoveryDone(r) => self.recovery_done(now, r),
            Event::Reply { attempt, outcome } => self.reply(q, now, attempt, outcome),
            Event::Timeout(attempt) => self.timeout(q, now, attempt),
        }
    }

    fn metrics(&self, _now: Micros) -> Self::Metrics {
        let amount: u64 = self.ledger.iter().map(|c| c.amount_cents as u64).sum();
        Self::Metrics {
            charges: self.ledger.len() as u64,
            card_charged: self.ledger.len() as u64,
            amount_charged_cents: amount,
            client_outcome: self.buyer_outcome().as_str().to_string(),
            server_requests: self.server.len() as u64,
            client_attempts: self.attempts.len() as u64,
            timeouts_seen: self.timeouts,
            conflicts_409: self.conflicts,
            claim_wait_ms: self.longest_claim_wait as f64 / 1000.0,
            recovery_charges: self.recovery_charges,
            replays: self.replays,
            rejected_422: self.rejected,
            resets_seen: self.resets,
            aborted_waits: self.aborted,
            handler_runs: self.handler_runs,
            client_saw: self.client_saw(),
            charge_ids: charge_list(&self.ledger),
            summary: self.summary(),
        }
    }

    fn config(&self) -> &DoubleClickConfig {
        &self.config
    }

    /// Long enough for the last attempt to be answered (see [`settled_ms`]), in whole seconds,
    /// and never shorter than the default 8 s.
    fn run_length_ms(c: &DoubleClickConfig) -> Option<u64> {
        let seconds = libm::ceil((settled_ms(c, c.retry_after_ms) + 500.0) / 1000.0) as u64;
        Some((seconds * 1000).max(DEFAULT_DURATION_MS))
    }
}

impl DoubleClick {
    /// The latest moment anything happens in a run at these settings, for any seed (ms): a
    /// retry waits at least the 409's Retry-After only where a 409 can come (a key whose claim
    /// is visible before the charge commits, or a lock timeout).
    pub fn last_moment_bound_ms(c: &DoubleClickConfig) -> f64 {
        let keyed = !matches!(c.fix, Fix::None | Fix::Disable);
        let conflicts = keyed && (c.key_claim == KeyClaim::CommittedFirst || c.key_store == KeyStore::Separate || c.lock_timeout_ms > 0.0);
        settled_ms(c, if conflicts { c.retry_after_ms } else { 0.0 })
    }

    /// The latest moment a run at these settings can reach under any fix: the axis a figure
    /// that compares the fixes keeps while the reader switches between them.
    pub fn last_moment_any_fix_ms(c: &DoubleClickConfig) -> f64 {
        Fix::ALL.iter().map(|&fix| Self::last_moment_bound_ms(&DoubleClickConfig { fix, ..c.clone() })).fold(0.0, f64::max)
    }
}

/// When the last attempt has been answered, at the latest (ms): the last click, every retry's
/// wait for its attempt and its backoff (at least `min_wait`), then the longer of the last
/// attempt's timeout and a held claim and a handler run with its answer (two runs when the
/// first rolls back and a waiting request takes the key over); with a recovery job, also its
/// call on the last claim.
fn settled_ms(c: &DoubleClickConfig, min_wait: f64) -> f64 {
    let last_click = if c.second_click { c.second_click_ms } else { 0.0 };
    let retries: f64 = (1..=c.retries)
        .map(|n| {
            let backoff = c.backoff_ms * (1u64 << (n - 1).min(MAX_BACKOFF_DOUBLINGS)) as f64;
            c.attempt_timeout_ms + backoff.max(min_wait)
        })
        .sum();
    // A claim's wait ends by the holder's commit, which is inside the holder's own answer.
    let run = c.handler_ms + c.handler_spread_ms;
    let runs = if c.first_txn == FirstTxn::RollsBack { 2.0 * run } else { run };
    let answered = 2.0 * c.network_ms + c.claim_gap_ms + c.claim_hold_ms + runs;
    let mut last = last_click + retries + c.attempt_timeout_ms.max(answered);
    if c.recovery_after_ms > 0.0 {
        let claimed = last_click + retries + c.network_ms + c.claim_gap_ms + c.claim_hold_ms;
        last = last.max(claimed + c.recovery_after_ms + c.handler_ms);
    }
    last
}

/// What the buyer saw against what the card shows, from the buyer's outcome, the receipt, the
/// charges' ids and the handler runs still charging.
pub fn summary_sentence(buyer: BuyerOutcome, receipt: Option<u32>, charge_ids: &[u32], in_progress: u64) -> String {
    let buyer = match (buyer, receipt) {
        (BuyerOutcome::Paid, Some(charge)) => format!("The buyer saw \u{201c}paid\u{201d} (ch_{charge})"),
        (BuyerOutcome::Failed, _) => "The buyer was told the payment failed".to_string(),
        (BuyerOutcome::Processing, _) => "The buyer was told the payment is processing".to_string(),
        (BuyerOutcome::Rejected, _) => "The buyer saw an error (422: the key was already used for another amount)".to_string(),
        _ => "The buyer is still waiting".to_string(),
    };
    let ids = charge_ids.iter().map(|id| format!("ch_{id}")).collect::<Vec<_>>().join(", ");
    let card = match charge_ids.len() {
        0 => "the card was not charged".to_string(),
        1 => format!("the card was charged once ({ids})"),
        2 => format!("the card was charged twice ({ids})"),
        n => format!("the card was charged {n} times ({ids})"),
    };
    let later = match in_progress {
        0 => String::new(),
        1 => ", and one more charge is still in progress on the server".to_string(),
        n => format!(", and {n} more charges are still in progress on the server"),
    };
    format!("{buyer}; {card}{later}.")
}

fn charge_list(ledger: &[LedgerCharge]) -> String {
    ledger.iter().map(|c| format!("ch_{}", c.id)).collect::<Vec<_>>().join(", ")
}
