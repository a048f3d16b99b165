//! What an at-least-once run records and the pages read: the steps, why a copy arrived, each
//! event's fate, each delivery's record, the consumers and what the broker holds.

use crate::sim::Micros;

/// One step of a consumer's work on a delivery.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Tell the broker to delete the message.
    Ack,
    /// The job; outside `txn-dedupe` the credit commits when it ends.
    Work,
    /// Insert the dedupe record and commit it with the credit (`txn-dedupe`).
    Record,
}

/// Why a copy of an event reached a consumer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cause {
    /// The first delivery of the producer's first publish.
    First,
    /// A lease ran out after its consumer crashed before the first step that matters.
    AfterEarlyCrash,
    /// A lease ran out after a consumer crashed between the two steps that matter (for this
    /// message, at any earlier delivery): the chapter's "crash in the middle".
    AfterMiddleCrash,
    /// A lease ran out while its consumer was still working.
    LeaseOutlived,
    /// The first delivery of the outbox's second publish (a new delivery ID).
    Republished,
    /// The broker's late redelivery of an acked message.
    Late,
    /// The first delivery of a dead-lettered message moved back to the queue (a new delivery ID).
    Redriven,
}

impl Cause {
    pub const ALL: [Cause; 7] = [
        Cause::First,
        Cause::AfterEarlyCrash,
        Cause::AfterMiddleCrash,
        Cause::LeaseOutlived,
        Cause::Republished,
        Cause::Late,
        Cause::Redriven,
    ];

    fn index(self) -> usize {
        self as usize
    }
}

/// Counts per [`Cause`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ByCause([u64; 7]);

impl ByCause {
    pub fn get(&self, cause: Cause) -> u64 {
        self.0[cause.index()]
    }

    pub(super) fn add(&mut self, cause: Cause) {
        self.0[cause.index()] += 1;
    }

    pub fn total(&self) -> u64 {
        self.0.iter().sum()
    }
}

/// Where an event stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    /// A copy is still somewhere (or it is not published yet) and it was credited at most once.
    Pending,
    Lost,
    /// Never credited, and a copy waits in the dead-letter queue (parked, not lost).
    DeadLettered,
    Once,
    Duplicated,
}

/// Events by [`Fate`]: `lost + dead_lettered + duplicated + once + pending` is always `messages`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Fates {
    pub lost: u64,
    /// Never credited, parked in the dead-letter queue.
    pub dead_lettered: u64,
    pub duplicated: u64,
    pub once: u64,
    pub pending: u64,
}

/// One event as the producer published it, and what the ledger did with it.
#[derive(Clone, Copy, Debug)]
pub struct EventRecord {
    pub(super) amount: u32,
    pub(super) credits: u16,
    /// Copies in the broker or the outbox, plus deliveries in progress.
    pub(super) live: u16,
    pub(super) long_job: bool,
    pub(super) republished: bool,
    pub(super) late: bool,
    /// A consumer crashed between the two steps that matter on one of its copies.
    pub(super) crashed_in_middle: bool,
    /// A lease on one of its copies ran out while the job was still running.
    pub(super) lease_outlived: bool,
    pub(super) dead_lettered: bool,
    /// Copies waiting in the dead-letter queue (for good, or until their redrive).
    pub(super) in_dlq: u16,
    /// A dead-lettered copy of it was moved back to the queue.
    pub(super) redriven: bool,
    /// Something happened to it that the timeline should show.
    pub(super) notable: bool,
}

impl EventRecord {
    /// The amount in dollars.
    pub fn amount(&self) -> u32 {
        self.amount
    }
    /// How many times the ledger credited it.
    pub fn credits(&self) -> u16 {
        self.credits
    }
    pub fn is_long_job(&self) -> bool {
        self.long_job
    }
    /// The outbox published it twice.
    pub fn republished(&self) -> bool {
        self.republished
    }
    /// Its message comes back once more after the ack.
    pub fn redelivered_late(&self) -> bool {
        self.late
    }
    pub fn dead_lettered(&self) -> bool {
        self.dead_lettered
    }
    /// A dead-lettered copy of it was moved back to the queue.
    pub fn redriven(&self) -> bool {
        self.redriven
    }
    /// A consumer crashed between the two steps that matter on one of its copies.
    pub fn crashed_in_middle(&self) -> bool {
        self.crashed_in_middle
    }
    /// A lease on one of its copies ran out while its job was still running.
    pub fn lease_outlived(&self) -> bool {
        self.lease_outlived
    }
    /// No copy left anywhere: its credits are final.
    pub fn settled(&self) -> bool {
        self.live == 0
    }
    pub fn fate(&self) -> Fate {
        match (self.credits, self.settled()) {
            (2.., _) => Fate::Duplicated,
            (_, false) => Fate::Pending,
            (0, true) if self.in_dlq > 0 => Fate::DeadLettered,
            (0, true) => Fate::Lost,
            (_, true) => Fate::Once,
        }
    }
}

/// One step as it happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StepSpan {
    pub step: Step,
    pub start: Micros,
    pub end: Micros,
    /// False when a crash cut the step short (`end` is the crash).
    pub completed: bool,
}

/// How a delivery ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Still in progress (a record from `in_progress`).
    Running,
    /// Every step ran.
    Done,
    /// The dedupe record was found: rolled back, then acked.
    Skipped,
    Crashed,
}

/// One delivery on the timeline: who got which copy, when, its steps and how it ended.
#[derive(Clone, Copy, Debug)]
pub struct DeliveryRecord {
    /// The delivery's number in the run, from 0.
    pub number: u32,
    pub event: u32,
    pub delivery_id: u32,
    pub consumer: u16,
    /// The message's receive count with this delivery (1: its first).
    pub receive: u16,
    pub cause: Cause,
    pub received_at: Micros,
    pub(super) steps: [StepSpan; 3],
    pub(super) step_count: u8,
    pub outcome: Outcome,
    /// The credits the event had after this delivery (0 when it credited nothing).
    pub credit_number: u16,
    /// This delivery applied a credit.
    pub credited: bool,
    /// This delivery's ack reached the broker.
    pub acked: bool,
    /// The dedupe store had its key: the transaction rolled back (known before the ack).
    pub skipped: bool,
}

impl DeliveryRecord {
    pub fn steps(&self) -> &[StepSpan] {
        &self.steps[..self.step_count as usize]
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ConsumerState {
    #[default]
    Idle,
    Busy,
    Restarting,
}

/// One consumer process slot.
#[derive(Clone, Copy, Debug, Default)]
pub struct Consumer {
    pub state: ConsumerState,
    pub delivered: u64,
    pub crashes: u64,
}

/// What the broker holds at one moment.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BrokerSample {
    /// Visible, waiting for a consumer.
    pub ready: f64,
    /// Hidden while a consumer holds the lease.
    pub leased: f64,
    /// In the outbox, or acked and due to come back late.
    pub waiting: f64,
    pub busy_consumers: f64,
    pub restarting_consumers: f64,
    /// Events credited at least once.
    pub credited_events: f64,
}

/// Running totals of the broker's messages.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BrokerTotals {
    /// Messages published: the producer's, the outbox's republishes and the late copies.
    pub published: u64,
    /// Messages deleted by an ack.
    pub acked: u64,
    pub dead_lettered: u64,
    /// Messages still held (waiting, ready or leased).
    pub held: u64,
}
