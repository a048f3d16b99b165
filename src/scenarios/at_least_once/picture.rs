//! What the figure's picture draws at one moment, read off the model: the broker's queue of
//! ready messages in the order consumers will take them, each marked by why it comes (a first
//! delivery, back after a crash, back after a lease ran out under a running job, a new copy),
//! the leases of crashed consumers running out, the consumers and the copy each works on, the
//! copies out of sight (the outbox's, the late ones, the dead-letter queue), and the ledger, an
//! entry per event by how often it was credited. Nothing in it is made for the animation: every
//! dot is a message or a delivery the model holds now.

use super::model::{AtLeastOnce, Cause, ConsumerState, Fate, MessageState, Origin, Step};
use crate::sim::Micros;
use crate::sim::decimal::fixed;

/// The most ready messages kept, head of the queue first (the count says all).
pub const MOST_READY_DRAWN: usize = 600;

/// A lease whose consumer crashed: the message is hidden until it runs out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Orphan {
    /// When the lease runs out.
    pub until: Micros,
    /// It had its last allowed delivery: back in the queue, its next receive dead-letters it.
    pub to_dead_letter: bool,
}

/// A consumer now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConsumerNow {
    Idle,
    /// Working on a copy that came for `cause`, at `step`.
    Busy { cause: Cause, step: Step },
    /// Crashed; a new one starts after the restart time.
    Restarting,
}

/// An event's entry in the ledger.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    /// The producer has not published it yet.
    Unpublished,
    /// Published, not credited yet (a copy is still somewhere).
    Uncredited,
    Once,
    Twice,
    /// Never credited, no copy left.
    Lost,
    /// Never credited, its copy parked in the dead-letter queue.
    Parked,
}

impl Entry {
    fn of(credits: u16, fate: Fate) -> Self {
        match (credits, fate) {
            (2.., _) => Entry::Twice,
            (1, _) => Entry::Once,
            (_, Fate::Lost) => Entry::Lost,
            (_, Fate::DeadLettered) => Entry::Parked,
            _ => Entry::Uncredited,
        }
    }
}

/// The picture of one moment.
#[derive(Clone, Debug, PartialEq)]
pub struct Picture {
    /// The moment drawn.
    pub at: Micros,
    /// The first [`MOST_READY_DRAWN`] ready messages, head first: why each will reach a consumer.
    pub ready: Vec<Cause>,
    pub ready_total: u64,
    /// Ready messages that came back after a crash, and after a lease ran out under a running job.
    pub ready_after_crash: u64,
    pub ready_after_lease: u64,
    /// Leased messages with a consumer working on them.
    pub leased_working: u64,
    /// Leases of crashed consumers, and the one that runs out first.
    pub orphans: u64,
    pub next_orphan: Option<Orphan>,
    pub consumers: Vec<ConsumerNow>,
    /// Messages out of sight: the outbox's second publishes and the acked ones due back late.
    pub outbox: u64,
    pub late: u64,
    /// Messages in the dead-letter queue (a re-drive's copy waits there too).
    pub dead_letter_queue: u64,
    /// An entry per event, in event ID order.
    pub ledger: Vec<Entry>,
    pub ledger_balance: i64,
    pub expected_balance: i64,
    pub crashes: u64,
    pub redeliveries: u64,
}

impl AtLeastOnce {
    /// What the picture draws at `now`, the model's present.
    pub fn picture(&self, now: Micros) -> Picture {
        let ready: Vec<Cause> = self
            .ready
            .iter()
            // A message acked by a slow holder while it waited is gone; the queue skips it.
            .filter_map(|&k| self.messages.get(k))
            .filter(|m| m.state == MessageState::Ready)
            .map(|m| m.next_cause())
            .collect();
        let count = |of: fn(Cause) -> bool| ready.iter().filter(|c| of(**c)).count() as u64;
        let orphans = self.messages.values().filter(|m| m.state == MessageState::Leased && m.holders == 0);
        let next_orphan = orphans.clone().min_by_key(|m| m.lease_until).map(|m| Orphan {
            until: m.lease_until,
            to_dead_letter: m.receives as u32 >= self.config.max_deliveries,
        });
        let waiting = |origin: Origin| {
            self.messages.values().filter(|m| m.state == MessageState::Waiting && m.origin == origin).count() as u64
        };
        let mut ledger: Vec<Entry> = self.events.iter().map(|e| Entry::of(e.credits(), e.fate())).collect();
        ledger.resize(self.config.messages as usize, Entry::Unpublished);
        Picture {
            at: now,
            ready_total: ready.len() as u64,
            ready_after_crash: count(|c| matches!(c, Cause::AfterEarlyCrash | Cause::AfterMiddleCrash)),
            ready_after_lease: count(|c| c == Cause::LeaseOutlived),
            ready: ready.into_iter().take(MOST_READY_DRAWN).collect(),
            leased_working: self.messages.values().filter(|m| m.state == MessageState::Leased && m.holders > 0).count()
                as u64,
            orphans: orphans.count() as u64,
            next_orphan,
            consumers: self.consumers_now(),
            outbox: waiting(Origin::Republished),
            late: waiting(Origin::Late),
            dead_letter_queue: self.totals.dead_lettered - self.redriven,
            ledger,
            ledger_balance: self.ledger,
            expected_balance: self.expected,
            crashes: self.crashes,
            redeliveries: self.redeliveries,
        }
    }

    fn consumers_now(&self) -> Vec<ConsumerNow> {
        let mut now: Vec<ConsumerNow> = self
            .consumers()
            .iter()
            .map(|c| if c.state == ConsumerState::Restarting { ConsumerNow::Restarting } else { ConsumerNow::Idle })
            .collect();
        for d in self.in_progress() {
            let step = d.steps().last().map_or(Step::Work, |s| s.step);
            now[d.consumer as usize] = ConsumerNow::Busy { cause: d.cause, step };
        }
        now
    }
}

impl Picture {
    fn entries(&self, kind: Entry) -> usize {
        self.ledger.iter().filter(|e| **e == kind).count()
    }

    /// Events credited twice or more: the `duplicated` metric.
    pub fn duplicated(&self) -> usize {
        self.entries(Entry::Twice)
    }

    /// Consumers working on a copy now.
    pub fn busy(&self) -> usize {
        self.consumers.iter().filter(|c| matches!(c, ConsumerNow::Busy { .. })).count()
    }

    /// Consumers that crashed and have not restarted yet.
    pub fn restarting(&self) -> usize {
        self.consumers.iter().filter(|c| **c == ConsumerNow::Restarting).count()
    }

    /// Events lost: the `lost` metric.
    pub fn lost(&self) -> usize {
        self.entries(Entry::Lost)
    }

    /// What the picture draws, as JSON for the page's `data-drawn` hook: the ledger's counts
    /// named as `run --json` names its metrics (`duplicated`, `lost`, `in_dead_letter_queue`,
    /// `ledger_balance`, `expected_balance`, `crashes`, `redeliveries`), and the broker's
    /// messages and the consumers by kind.
    pub fn drawn_json(&self) -> String {
        let busy_came_back = self
            .consumers
            .iter()
            .filter(|c| matches!(c, ConsumerNow::Busy { cause, .. } if *cause != Cause::First))
            .count();
        format!(
            "{{\"at_ms\":{},\"duplicated\":{},\"lost\":{},\"in_dead_letter_queue\":{},\"credited_once\":{},\"uncredited\":{},\
             \"unpublished\":{},\"ledger_balance\":{},\"expected_balance\":{},\"crashes\":{},\"redeliveries\":{},\
             \"ready\":{},\"ready_drawn\":{},\"ready_after_crash\":{},\"ready_after_lease\":{},\"leased_working\":{},\
             \"leases_of_crashed\":{},\"consumers_busy\":{},\"consumers_busy_came_back\":{},\"consumers_restarting\":{},\
             \"outbox\":{},\"late\":{},\"dead_letter_queue\":{}}}",
            fixed(self.at as f64 / 1000.0, 3),
            self.duplicated(),
            self.lost(),
            self.entries(Entry::Parked),
            self.entries(Entry::Once),
            self.entries(Entry::Uncredited),
            self.entries(Entry::Unpublished),
            self.ledger_balance,
            self.expected_balance,
            self.crashes,
            self.redeliveries,
            self.ready_total,
            self.ready.len(),
            self.ready_after_crash,
            self.ready_after_lease,
            self.leased_working,
            self.orphans,
            self.busy(),
            busy_came_back,
            self.restarting(),
            self.outbox,
            self.late,
            self.dead_letter_queue,
        )
    }
}
