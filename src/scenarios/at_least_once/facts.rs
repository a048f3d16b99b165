//! What an at-least-once run did, and why, taken from the model once: the reading's sentences
//! restate these and nothing else, and the tests check each against the metrics.

use super::chapter::{CHAPTER_TABLE, judged};
use super::guarantee::Guarantee;
use super::model::{AtLeastOnce, Cause, EventRecord, Fate};
use super::spec::{DedupeOn, Order};
use crate::sim::Micros;

/// What the extra copies of events that came back for one cause did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
pub struct Copies {
    /// Events among them credited more than once (by this copy or another).
    pub duplicated: u64,
    /// Deliveries for this cause that the dedupe store skipped.
    pub skipped: u64,
}

/// What an at-least-once run did, and why.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
pub struct AtLeastOnceFacts {
    /// The consumer's order of operations.
    pub order: Order,
    /// The ID the dedupe store keys on, when the order has a dedupe store (`txn-dedupe`).
    pub dedupe: Option<DedupeOn>,
    /// Events the producer publishes in the run (the config's `messages`).
    pub messages: u64,
    /// The lease each delivery gets (ms).
    pub visibility_timeout_ms: f64,
    /// Deliveries without an ack before a message goes to the dead-letter queue.
    pub max_deliveries: u64,
    /// How long a dead-lettered message waits before its redrive (ms).
    pub redrive_after_ms: f64,
    /// How long after its ack a late copy comes back (ms).
    pub redelivery_after_ms: f64,
    /// How long the dedupe store keeps an ID (ms).
    pub dedupe_window_ms: f64,
    /// Whether the dedupe window outlasts a late redelivery (the store still has the ID).
    pub window_outlasts_redelivery: bool,
    /// Whether every event has settled.
    pub settled: bool,
    /// Whether the run has reached its end.
    pub ended: bool,
    /// The guarantee the ledger shows so far.
    pub guarantee: Guarantee,
    /// The chapter's guarantee for this order.
    pub chapter_guarantee: Guarantee,
    /// Whether a crash fell between the two steps that matter, so the run tested the order.
    pub tested: bool,
    /// Whether the run's row may be set against the chapter's (not if better and untested).
    pub judged: bool,
    /// Events lost: never credited, no copy left anywhere.
    pub lost: u64,
    /// Lost events whose consumer crashed after the ack and before the credit.
    pub lost_after_ack: u64,
    /// Events never credited whose message waits in the dead-letter queue.
    pub parked: u64,
    /// The amounts of the parked events ($): in the dead-letter queue, not in the ledger.
    pub parked_usd: i64,
    /// The amounts of the events not settled and not credited yet ($).
    pub uncredited_usd: i64,
    /// Events credited once, not settled, whose consumer crashed between the credit and the ack
    /// (process then ack only): unacked, though the ledger has their credit.
    pub credited_unacked: u64,
    /// Events credited more than once.
    pub duplicated: u64,
    /// Events credited exactly once.
    pub once: u64,
    /// Events not settled yet.
    pub pending: u64,
    /// The ledger's balance ($).
    pub ledger: i64,
    /// The ledger minus the balance every event published so far should give ($).
    pub ledger_difference: i64,
    /// Consumer crashes (a restarted consumer may crash again: crashes, not consumers).
    pub crashes: u64,
    /// Crashes between the two steps that matter.
    pub crashes_between: u64,
    /// Messages moved to the dead-letter queue.
    pub dead_lettered: u64,
    /// Dead-lettered messages moved back to the queue.
    pub redriven: u64,
    /// Events the outbox published a second time.
    pub republished: u64,
    /// Acked messages the broker delivered once more, long after.
    pub late_redeliveries: u64,
    /// Leases that ran out under a running job.
    pub leases_outlived: u64,
    /// Lease renewals by working consumers.
    pub lease_renewals: u64,
    /// Deliveries the dedupe store skipped, all causes.
    pub skipped: u64,
    /// The copies that came back after a crash in the middle.
    pub after_middle_crash: Copies,
    /// Extra credits made by a redelivery after a crash in the middle (the store forgot the ID).
    pub middle_recredits: u64,
    /// The outbox's second publishes.
    pub republished_copies: Copies,
    /// The broker's late redeliveries.
    pub late_copies: Copies,
    /// The redeliveries of leases that ran out under a running job.
    pub outlived_copies: Copies,
    /// The re-driven messages.
    pub redriven_copies: Copies,
}

impl AtLeastOnce {
    /// The run's facts at `now`.
    pub fn facts(&self, now: Micros) -> AtLeastOnceFacts {
        let c = &self.config;
        let fates = self.fates();
        let guarantee = self.guarantee();
        let chapter_guarantee = CHAPTER_TABLE[c.order as usize].guarantee;
        let tested = self.crashes_between > 0;
        AtLeastOnceFacts {
            order: c.order,
            dedupe: (c.order == Order::TxnDedupe).then_some(c.dedupe_on),
            messages: c.messages as u64,
            visibility_timeout_ms: c.visibility_timeout_ms,
            max_deliveries: c.max_deliveries as u64,
            redrive_after_ms: c.redrive_after_ms,
            redelivery_after_ms: c.redelivery_after_ms,
            dedupe_window_ms: c.dedupe_window_ms,
            window_outlasts_redelivery: c.dedupe_window_ms > c.redelivery_after_ms,
            settled: self.settled_at.is_some(),
            ended: now >= self.end,
            guarantee,
            chapter_guarantee,
            tested,
            judged: judged(c.order, guarantee, tested),
            lost: fates.lost,
            lost_after_ack: self.lost_after_ack(),
            parked: fates.dead_lettered,
            parked_usd: self.amount_of(|e| e.fate() == Fate::DeadLettered),
            uncredited_usd: self.amount_of(|e| e.fate() == Fate::Pending && e.credits() == 0),
            credited_unacked: self.count_of(|e| {
                c.order == Order::ProcessThenAck && e.fate() == Fate::Pending && e.credits() == 1 && e.crashed_in_middle()
            }),
            duplicated: fates.duplicated,
            once: fates.once,
            pending: fates.pending,
            ledger: self.ledger,
            ledger_difference: self.ledger - self.expected,
            crashes: self.crashes,
            crashes_between: self.crashes_between,
            dead_lettered: self.totals.dead_lettered,
            redriven: self.redriven,
            republished: self.republished,
            late_redeliveries: self.late_redeliveries,
            leases_outlived: self.leases_outlived,
            lease_renewals: self.lease_renewals,
            skipped: self.skipped.total(),
            after_middle_crash: self.copies(EventRecord::crashed_in_middle, Cause::AfterMiddleCrash),
            middle_recredits: self.extra_credits_by_cause().get(Cause::AfterMiddleCrash),
            republished_copies: self.copies(EventRecord::republished, Cause::Republished),
            late_copies: self.copies(EventRecord::redelivered_late, Cause::Late),
            outlived_copies: self.copies(EventRecord::lease_outlived, Cause::LeaseOutlived),
            redriven_copies: self.copies(EventRecord::redriven, Cause::Redriven),
        }
    }

    fn amount_of(&self, pick: impl Fn(&EventRecord) -> bool) -> i64 {
        self.event_records().iter().filter(|e| pick(e)).map(|e| i64::from(e.amount())).sum()
    }

    fn count_of(&self, pick: impl Fn(&EventRecord) -> bool) -> u64 {
        self.event_records().iter().filter(|e| pick(e)).count() as u64
    }

    fn copies(&self, pick: fn(&EventRecord) -> bool, cause: Cause) -> Copies {
        Copies { duplicated: self.duplicated_among(pick), skipped: self.skipped.get(cause) }
    }
}
