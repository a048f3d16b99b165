//! Chapter 2, Part 5: "Queues, webhooks and event streams almost all deliver at least once. A
//! consumer that processes a message and crashes before acknowledging it gets the message
//! again." What each order of operations does to a ledger, and the details interviewers push on.
//!
//! A producer publishes `messages` events at `publish_rate`, each with an event ID and an amount
//! in dollars. With `producer_republish_rate` the producer crashes after publishing an event and
//! before marking it sent, so its outbox publishes it again when it restarts
//! ([`PRODUCER_RESTART_MS`] later): the same event ID under a new broker delivery ID.
//!
//! The broker hands each message to one of `consumers` consumers and hides it for
//! `visibility_timeout_ms` (a lease). An ack deletes the message; a lease that runs out makes it
//! visible again, and the next receive is a redelivery. After `max_deliveries` receives without
//! an ack it goes to the dead-letter queue (SQS's `maxReceiveCount`,
//! <https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-dead-letter-queues.html>).
//! A dead-lettered message is parked, not lost: an event never credited whose message waits
//! there counts as `in_dead_letter_queue`, apart from `lost` (no copy left anywhere). With
//! `redrive`, each dead-lettered message is moved back to the queue `redrive_after_ms` later,
//! once; SQS's redrive makes it a new message with a new message ID and a fresh receive count
//! (<https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-configure-dead-letter-queue-redrive.html>),
//! so a dedupe on the delivery ID does not recognise it. With `late_redelivery_rate`, an acked message comes
//! back once more `redelivery_after_ms` later (a replica that missed the delete, a replay).
//!
//! A consumer takes one message at a time through the steps of the chosen `order`:
//! - `ack-then-process`: receive, ack, work (the credit commits when the work ends);
//! - `process-then-ack`: receive, work, ack;
//! - `txn-dedupe`: receive, work, record (insert the dedupe key and commit the credit with it in
//!   one transaction; a key already in the store rolls the work back: skipped), ack.
//!
//! Each order has two steps that matter (the ack, and the credit or the commit). For
//! `crash_rate` of deliveries the consumer crashes: half the time before the first of the two,
//! half the time between them (the chapter's "crash in the middle"), at a uniform point of that
//! stretch. (Weighting by time instead would put almost every crash inside the 200 ms of work,
//! where the order makes no difference, and hide the table's point.) A crashed consumer's lease
//! runs out on its own; a new consumer starts `restart_ms` later.
//!
//! Jobs are lognormal around `work_ms` (spread equal to the mean, cut at [`WORK_CAP`] times
//! it), except the `long_job_rate` of events whose job takes `long_job_ms` every time it runs.
//! A job longer than the lease is redelivered while it still runs, unless `extend_lease` renews
//! the lease every half timeout. Any ack of a message deletes it, so the copy that finishes
//! first ends the redeliveries; the others still run to the end and credit. (SQS may ignore an
//! ack with an old receipt handle; a broker that did would redeliver a long job until the
//! dead-letter queue, not credit it twice as the chapter says.) A message that comes back joins
//! the back of the ready queue; consumers take messages first come, first served.
//!
//! Simulated time jumps from one event to the next, so a redelivery four days later costs one
//! event. A run lasts until the broker, the outbox and the consumers hold nothing more (an
//! estimate from the parameters: `run_length.rs`); metrics and the reading are live before that.
//!
//! Where the defaults come from:
//! - 1,000 messages, a 30 s visibility timeout (SQS's default), jobs of 200 ms, crashes for 2% of
//!   deliveries, a 24 h dedupe window: the issue, after the chapter.
//! - Four days of redelivery: the chapter ("if messages can be redelivered for 4 days, keeping
//!   IDs for 24 hours lets a late redelivery through"); four days is also SQS's default
//!   retention.
//! - 10 events/s over 4 consumers: the consumers are half busy, so crashes, not queueing, shape
//!   the run; a consumer restarts in 5 s (a supervisor restarting a process).
//! - 5 deliveries before the dead-letter queue: a common SQS redrive setting.
//! - No redrive by default (a person looks at the dead-letter queue first); one hour when on.
//!
//! The real limits at the ends of the ranges (SQS's quotas,
//! <https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/quotas-messages.html>
//! and the queue attributes of `SetQueueAttributes`): a visibility timeout from 0 to 12 hours
//! (the slider's 1 s to 12 h); `maxReceiveCount` from 1 to 1,000 (the slider stops at 20);
//! a message kept from 60 s to 14 days, which bounds both a late redelivery and a message
//! waiting in the dead-letter queue for its redrive (both stop at 14 days).
//! - Long jobs of 45 s: one and a half visibility timeouts, so each is redelivered once. At most
//!   10 min: renewing a 1 s lease every half second, a longer job would cost thousands of events.
//! - Amounts of $1 to $100, so a double credit shows on the ledger as money.
//! - `process-then-ack` by default: what a queue client does when it acks after the handler
//!   returns. At the defaults the only fault is the consumer's crashes (no republishes, no late
//!   redeliveries, no long jobs, no lease renewal); each preset turns one on.
//! - Dedupe on the event ID: the chapter's advice. It matters only with `txn-dedupe`.
//! - The ack and the dedupe record take 5 ms each (a round trip in one region); the producer
//!   restarts in 10 s before its outbox republishes.
//! - The presets: 5% of events republished or redelivered late (dozens of each in 1,000); long
//!   jobs for 1% of events with 16 consumers, so a free consumer takes the redelivered message
//!   while the first still works (with 4, 45 s jobs fill every consumer and the first copy's
//!   ack usually comes before a second consumer is free).

mod reading;
mod run_length;

use std::collections::VecDeque;

use slotmap::{SlotMap, new_key_type};

pub use reading::{CHAPTER_TABLE, ChapterRow, Guarantee, RunRow};

use crate::sim::model::ModelOf;
use crate::sim::rng::{SimRng, ms_to_us};
use crate::sim::base::MAX_RUN_LENGTH_MS;
use crate::sim::scenario::SweepDefault;
use crate::sim::stats::Series;
use crate::sim::{
    EventQueue, MS, MetricSpec, Micros, Model, ParamSpec, Preset, ScenarioSpec, TimerKey, Value,
};

/// One broker round trip for the ack (same region).
pub const ACK_MS: u64 = 5;
/// One insert and a commit for the dedupe record.
pub const RECORD_MS: u64 = 5;
/// How long the producer takes to restart after a crash; its outbox republishes then.
pub const PRODUCER_RESTART_MS: u64 = 10_000;
/// A job's time is cut at this many times the mean, so that a run's length can be bounded.
pub const WORK_CAP: f64 = 10.0;
/// The spread of a job's time (standard deviation over mean).
const WORK_CV: f64 = 1.0;
/// The timeline keeps every delivery among the first this many...
pub const TIMELINE_FIRST: u32 = 100;
/// ...and then only deliveries of events something happened to, up to this many records.
pub const TIMELINE_CAP: usize = 500;
/// The broker chart keeps at most this many points, however long the run.
const CHART_POINTS: usize = 1200;
/// The run is long enough that the chance of a crash chain outlasting it is below this.
const CHAIN_MISS_CHANCE: f64 = 1e-4;
/// The run allows for this many standard deviations more work than expected.
const DEVIATIONS: f64 = 4.0;
/// Quiet time after the last possible event.
const TAIL_MS: f64 = 1_000.0;
const HOUR_MS: f64 = 3_600_000.0;
const DAY_MS: f64 = 24.0 * HOUR_MS;
/// The length of a run at the defaults (the model's own estimate is used instead).
const DEFAULT_DURATION_MS: u64 = 300_000;

crate::choice! {
    /// The order of the consumer's steps.
    pub enum Order {
        AckThenProcess = ("ack-then-process", "Ack, then process",
            "The consumer acks as soon as it receives a message, then does the work: a crash after the ack loses the work."),
        ProcessThenAck = ("process-then-ack", "Process, then ack",
            "The consumer does the work, then acks: a crash before the ack brings the message back and the work runs again."),
        TxnDedupe = ("txn-dedupe", "Process + record the ID, then ack",
            "The work and a dedupe record commit in one transaction, then the consumer acks: a message that comes back is found and skipped."),
    }
}

crate::choice! {
    /// Which ID the dedupe store keys on.
    pub enum DedupeOn {
        EventId = ("event-id", "Producer's event ID",
            "The ID the producer gave the event: the same on every copy, republished or redelivered."),
        DeliveryId = ("delivery-id", "Broker's delivery ID",
            "The ID the broker gave the message: the same on a redelivery, new when the producer republishes."),
    }
}

crate::config! {
    /// What the at-least-once model reads from its parameters (where the defaults come from:
    /// see the module documentation).
    pub struct AtLeastOnceConfig in PARAMS {
        pub messages: u32 = ParamSpec::number("messages", "Events", "", 1000.0, (1.0, 5000.0, 1.0),
            "How many events the producer publishes, each with its own ID and amount."),
        pub publish_rate: f64 = ParamSpec::number("publish_rate", "Publish rate", "events/s", 10.0, (1.0, 1000.0, 1.0),
            "Events the producer publishes per second, evenly spaced."),
        pub producer_republish_rate: f64 = ParamSpec::number("producer_republish_rate", "Outbox republishes", "%", 0.0,
            (0.0, 100.0, 1.0),
            "Share of events the producer publishes twice: it crashed before marking the event sent, and its outbox \
             sends it again on restart, with the same event ID and a new delivery ID."),
        pub consumers: u32 = ParamSpec::number("consumers", "Consumers", "", 4.0, (1.0, 16.0, 1.0),
            "Consumer processes, each working on one message at a time."),
        pub visibility_timeout_ms: f64 = ParamSpec::number("visibility_timeout_ms", "Visibility timeout", "ms", 30_000.0,
            (1000.0, 43_200_000.0, 1000.0),
            "How long a received message stays hidden (the lease). Not acked by then, the broker delivers it again."),
        pub max_deliveries: u32 = ParamSpec::number("max_deliveries", "Deliveries before dead-letter", "", 5.0,
            (1.0, 20.0, 1.0),
            "After this many receives without an ack, the broker moves the message to the dead-letter queue, \
             where it waits to be looked at: not lost."),
        pub redrive: bool = ParamSpec::toggle("redrive", "Re-drive the dead-letter queue", false,
            "Each dead-lettered message is moved back to the queue once, as a new message with a new delivery ID \
             (as SQS's redrive does), after the wait below."),
        pub redrive_after_ms: f64 = ParamSpec::number("redrive_after_ms", "Re-drive after", "ms", HOUR_MS,
            (0.0, 14.0 * DAY_MS, 60_000.0),
            "How long a message waits in the dead-letter queue before it is re-driven (SQS keeps a message 14 days at most)."),
        pub late_redelivery_rate: f64 = ParamSpec::number("late_redelivery_rate", "Late redeliveries", "%", 0.0,
            (0.0, 100.0, 1.0),
            "Share of acked messages the broker delivers once more, much later (a replica that missed the delete, a replay)."),
        pub redelivery_after_ms: f64 = ParamSpec::number("redelivery_after_ms", "Late redelivery after", "ms",
            4.0 * DAY_MS, (0.0, 14.0 * DAY_MS, 60_000.0),
            "How long after its ack a late redelivery comes back. Four days is the chapter's example."),
        pub work_ms: f64 = ParamSpec::number("work_ms", "Job time", "ms", 200.0, (1.0, 5000.0, 1.0),
            "Mean time a consumer works on one message (lognormal, spread equal to the mean)."),
        pub crash_rate: f64 = ParamSpec::number("crash_rate", "Consumer crashes", "%", 2.0, (0.0, 100.0, 0.5),
            "Share of deliveries during which the consumer crashes: half before the first step that matters, \
             half between the two (a crash in the middle)."),
        pub restart_ms: f64 = ParamSpec::number("restart_ms", "Consumer restart", "ms", 5000.0, (0.0, 60_000.0, 100.0),
            "How long until a new consumer replaces a crashed one."),
        pub long_job_rate: f64 = ParamSpec::number("long_job_rate", "Long jobs", "%", 0.0, (0.0, 100.0, 1.0),
            "Share of events whose job takes the long job time every time it runs."),
        pub long_job_ms: f64 = ParamSpec::number("long_job_ms", "Long job time", "ms", 45_000.0,
            (1000.0, 600_000.0, 1000.0),
            "How long a long job takes. Longer than the visibility timeout, it is redelivered while still running."),
        pub extend_lease: bool = ParamSpec::toggle("extend_lease", "Extend the lease while working", false,
            "The consumer renews its lease every half visibility timeout until it acks, so a long job keeps its message."),
        pub order: Order = ParamSpec::choice("order", "Order of operations", Order::OPTIONS,
            Order::ProcessThenAck as usize, "What the consumer does first: ack, or the work."),
        pub dedupe_on: DedupeOn = ParamSpec::choice("dedupe_on", "Dedupe on", DedupeOn::OPTIONS,
            DedupeOn::EventId as usize, "Which ID the dedupe record keeps (with 'Process + record the ID' only)."),
        pub dedupe_window_ms: f64 = ParamSpec::number("dedupe_window_ms", "Dedupe window", "ms", DAY_MS,
            (0.0, 30.0 * DAY_MS, 60_000.0),
            "How long the dedupe store keeps an ID. A copy that comes back later is not recognised."),
    }
}

pub static SPEC: ScenarioSpec = ScenarioSpec {
    id: "at-least-once",
    title: "At-least-once delivery",
    chapter: "Chapter 2, Part 5: At-least-once delivery and dedupe",
    summary: "A consumer credits a ledger from a queue that delivers at least once, and sometimes \
              crashes. Ack first, process first, or process and record the event ID in one \
              transaction: count the events lost and the events credited twice.",
    params: PARAMS,
    presets: &[
        Preset {
            id: "ack-first",
            label: "Ack, then process",
            description: "A crash after the ack loses the event: at-most-once.",
            values: &[("order", "ack-then-process")],
        },
        Preset {
            id: "process-first",
            label: "Process, then ack",
            description: "A crash after the credit and before the ack credits the event again: at-least-once.",
            values: &[("order", "process-then-ack")],
        },
        Preset {
            id: "txn-dedupe",
            label: "Process + record the ID in one transaction",
            description: "A message that comes back finds its event ID and is skipped: effectively once.",
            values: &[("order", "txn-dedupe")],
        },
        Preset {
            id: "delivery-id",
            label: "Dedupe on the delivery ID",
            description: "The outbox republishes 5% of events under new delivery IDs; deduping on the broker's ID \
                          lets them through.",
            values: &[("order", "txn-dedupe"), ("dedupe_on", "delivery-id"), ("producer_republish_rate", "5")],
        },
        Preset {
            id: "event-id",
            label: "Dedupe on the event ID",
            description: "The same republishes, deduped on the producer's event ID: all caught.",
            values: &[("order", "txn-dedupe"), ("dedupe_on", "event-id"), ("producer_republish_rate", "5")],
        },
        Preset {
            id: "short-window",
            label: "A 24 h window, redelivery after 4 days",
            description: "5% of messages come back four days after their ack; the dedupe store forgot them after 24 h.",
            values: &[("order", "txn-dedupe"), ("late_redelivery_rate", "5")],
        },
        Preset {
            id: "long-window",
            label: "A window that outlasts redelivery",
            description: "The same late redeliveries against a 7-day window: all skipped.",
            values: &[("order", "txn-dedupe"), ("late_redelivery_rate", "5"), ("dedupe_window_ms", "604800000")],
        },
        Preset {
            id: "long-jobs",
            label: "Jobs longer than the lease",
            description: "No crash at all: 1% of jobs take 45 s against a 30 s visibility timeout. With 16 \
                          consumers a free one takes the redelivered message while the first still works: credited twice.",
            values: &[("order", "process-then-ack"), ("crash_rate", "0"), ("long_job_rate", "1"), ("consumers", "16")],
        },
        Preset {
            id: "long-jobs-lease",
            label: "Long jobs, lease extended",
            description: "The same long jobs, renewing the lease while working: no redelivery, no double credit.",
            values: &[
                ("order", "process-then-ack"),
                ("crash_rate", "0"),
                ("long_job_rate", "1"),
                ("consumers", "16"),
                ("extend_lease", "true"),
            ],
        },
        Preset {
            id: "dead-letter",
            label: "Dead-letter queue",
            description: "Crashes on 20% of deliveries and one delivery allowed: the messages not acked are parked in the \
             dead-letter queue, never credited but not lost.",
            values: &[("crash_rate", "20"), ("max_deliveries", "1")],
        },
        Preset {
            id: "dead-letter-redrive",
            label: "Dead-letter queue, re-driven",
            description: "The same, with the dead-letter queue re-driven an hour later as new messages: the dedupe on the \
             event ID skips the copies already credited.",
            values: &[("crash_rate", "20"), ("max_deliveries", "1"), ("redrive", "true"), ("order", "txn-dedupe")],
        },
    ],
    metrics: &[
        MetricSpec {
            key: "lost",
            label: "Lost",
            unit: "events",
            help: "Events never credited, with no copy left that could credit them (not even in the dead-letter queue).",
        },
        MetricSpec {
            key: "duplicated",
            label: "Credited twice or more",
            unit: "events",
            help: "Events credited more than once.",
        },
        MetricSpec {
            key: "effectively_once",
            label: "Credited exactly once",
            unit: "events",
            help: "Events credited once, with no copy left that could credit them again.",
        },
        MetricSpec {
            key: "pending",
            label: "Not settled yet",
            unit: "events",
            help: "Events not yet published, or with a copy still in the broker, the outbox or a consumer; \
                   lost + credited twice + exactly once + in the dead-letter queue + this = events.",
        },
        MetricSpec { key: "deliveries", label: "Deliveries", unit: "", help: "Messages handed to a consumer." },
        MetricSpec {
            key: "redeliveries",
            label: "Redeliveries",
            unit: "",
            help: "Deliveries of a message the broker had delivered before: after a lease ran out, or days later.",
        },
        MetricSpec {
            key: "skipped_as_duplicate",
            label: "Skipped as duplicates",
            unit: "",
            help: "Deliveries whose dedupe key was already recorded: the transaction rolled back and the consumer acked.",
        },
        MetricSpec { key: "crashes", label: "Consumer crashes", unit: "", help: "Consumers that died mid-message." },
        MetricSpec {
            key: "crashes_between",
            label: "Crashes in the middle",
            unit: "",
            help: "Crashes after the first of the two steps that matter and before the second.",
        },
        MetricSpec {
            key: "ledger_balance",
            label: "Ledger balance",
            unit: "$",
            help: "What the consumer credited, every credit counted.",
        },
        MetricSpec {
            key: "expected_balance",
            label: "Expected balance",
            unit: "$",
            help: "The balance if every event published so far were credited exactly once.",
        },
        MetricSpec {
            key: "ledger_difference",
            label: "Ledger minus expected",
            unit: "$",
            help: "Double credits push it up, lost events down.",
        },
        MetricSpec { key: "extra_credits", label: "Extra credits", unit: "", help: "Credits beyond an event's first." },
        MetricSpec {
            key: "republished",
            label: "Republished by the outbox",
            unit: "events",
            help: "Events the producer's outbox published a second time, under a new delivery ID.",
        },
        MetricSpec {
            key: "late_redeliveries",
            label: "Late redeliveries",
            unit: "",
            help: "Acked messages the broker delivered once more, long after.",
        },
        MetricSpec {
            key: "leases_outlived",
            label: "Leases outlived",
            unit: "",
            help: "Times a lease ran out while its job was still running: a redelivery without any crash.",
        },
        MetricSpec {
            key: "lease_renewals",
            label: "Lease renewals",
            unit: "",
            help: "Times a working consumer extended its lease.",
        },
        MetricSpec {
            key: "dead_lettered",
            label: "Dead-lettered",
            unit: "",
            help: "Messages moved to the dead-letter queue after the last allowed delivery.",
        },
        MetricSpec {
            key: "in_dead_letter_queue",
            label: "Parked, never credited",
            unit: "events",
            help: "Events never credited whose message waits in the dead-letter queue: not lost, to be looked at and re-driven.",
        },
        MetricSpec {
            key: "redriven",
            label: "Re-driven",
            unit: "",
            help: "Dead-lettered messages moved back to the queue as new messages.",
        },
        MetricSpec {
            key: "settled_at_ms",
            label: "Settled at",
            unit: "ms",
            help: "When the last event settled: nothing left in the broker, the outbox or a consumer (empty until then).",
        },
        MetricSpec {
            key: "guarantee",
            label: "Guarantee shown",
            unit: "",
            help: "effectively-once, parked (none lost or twice, some waiting in the dead-letter queue), at-most-once \
                   (lost, none twice), at-least-once (twice, none lost) or neither.",
        },
    ],
    headline: &["lost", "duplicated", "effectively_once", "skipped_as_duplicate"],
    default_duration_ms: DEFAULT_DURATION_MS,
    sweep: SweepDefault {
        x: "crash_rate",
        from: 0.0,
        to: 10.0,
        steps: 11,
        by: Some("order"),
        metric: "effectively_once",
    },
    model: &ModelOf::<AtLeastOnce>::NEW,
};

new_key_type! {
    /// A message the broker (or the outbox) holds.
    pub struct MessageKey;
    /// A delivery a consumer is working on.
    pub struct DeliveryKey;
}

#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// The producer publishes its next event.
    Publish,
    /// A message waiting in the outbox or for its late redelivery becomes visible.
    Appear(MessageKey),
    /// A dead-lettered message's new copy is moved back to the queue.
    Redrive(MessageKey),
    /// The consumer finishes the current step of a delivery.
    StepDone(DeliveryKey),
    Crash(DeliveryKey),
    LeaseExpires(MessageKey),
    RenewLease(DeliveryKey),
    Restart(u16),
}

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

impl Order {
    /// The steps after the receive, in order.
    pub fn steps(self) -> &'static [Step] {
        match self {
            Order::AckThenProcess => &[Step::Ack, Step::Work],
            Order::ProcessThenAck => &[Step::Work, Step::Ack],
            Order::TxnDedupe => &[Step::Work, Step::Record, Step::Ack],
        }
    }

    /// The index of the step whose end is the first of the two that matter.
    fn first_effect(self) -> usize {
        match self {
            Order::TxnDedupe => 1,
            _ => 0,
        }
    }
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

    fn add(&mut self, cause: Cause) {
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
    amount: u32,
    credits: u16,
    /// Copies in the broker or the outbox, plus deliveries in progress.
    live: u16,
    long_job: bool,
    republished: bool,
    late: bool,
    /// A consumer crashed between the two steps that matter on one of its copies.
    crashed_in_middle: bool,
    /// A lease on one of its copies ran out while the job was still running.
    lease_outlived: bool,
    dead_lettered: bool,
    /// Copies waiting in the dead-letter queue (for good, or until their redrive).
    in_dlq: u16,
    /// A dead-lettered copy of it was moved back to the queue.
    redriven: bool,
    /// Something happened to it that the timeline should show.
    notable: bool,
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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum MessageState {
    /// In the outbox, or acked and waiting to come back late.
    Waiting,
    Ready,
    Leased,
}

/// What kind of publish a message is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Origin {
    First,
    Republished,
    Late,
    /// A dead-lettered message moved back to the queue.
    Redriven,
}

#[derive(Clone, Copy, Debug)]
struct Message {
    event: u32,
    delivery_id: u32,
    origin: Origin,
    state: MessageState,
    receives: u16,
    lease: Option<TimerKey>,
    /// Deliveries of this message still being worked on.
    holders: u16,
    /// Why its last lease ran out (the cause of the next receive).
    last_expiry: Cause,
    /// A consumer crashed between the two steps that matter on it.
    middle_crash: bool,
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
    steps: [StepSpan; 3],
    step_count: u8,
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

/// The plan of one delivery: when each step ends and when (if) the consumer crashes, from the
/// receive.
#[derive(Clone, Copy, Debug)]
struct Plan {
    ends: [Micros; 3],
    crash_at: Option<Micros>,
}

#[derive(Clone, Copy, Debug)]
struct Delivery {
    message: MessageKey,
    cause: Cause,
    plan: Plan,
    step: u8,
    renew: Option<TimerKey>,
    record: DeliveryRecord,
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

/// The at-least-once model: a producer with an outbox, a broker with leases, consumers that
/// crash, a dedupe store and a ledger.
pub struct AtLeastOnce {
    config: AtLeastOnceConfig,
    end: Micros,
    visibility: Micros,
    restart: Micros,
    redelivery_after: Micros,
    dedupe_window: Micros,
    redrive_after: Micros,
    publish_gap_us: f64,

    publish_rng: SimRng,
    work_rng: SimRng,
    crash_rng: SimRng,

    events: Vec<EventRecord>,
    messages: SlotMap<MessageKey, Message>,
    ready: VecDeque<MessageKey>,
    deliveries_live: SlotMap<DeliveryKey, Delivery>,
    consumers: Vec<Consumer>,
    idle: VecDeque<u16>,
    /// When each dedupe key was recorded (by event ID or delivery ID).
    dedupe: Vec<Option<Micros>>,
    next_delivery_id: u32,

    held: [u64; 3],
    totals: BrokerTotals,
    deliveries: u64,
    redeliveries: u64,
    skipped: ByCause,
    extra_credits: ByCause,
    crashes: u64,
    crashes_between: u64,
    republished: u64,
    late_redeliveries: u64,
    leases_outlived: u64,
    lease_renewals: u64,
    ledger: i64,
    expected: i64,
    credited_events: u64,
    lost: u64,
    parked: u64,
    redriven: u64,
    once: u64,
    duplicated: u64,
    settled_events: u32,
    settled_at: Option<Micros>,

    timeline: Vec<DeliveryRecord>,
    chart: Series<BrokerSample>,
}

impl AtLeastOnce {
    /// Every event published so far, by event ID: its amount, credits and fate (the ledger view).
    pub fn event_records(&self) -> &[EventRecord] {
        &self.events
    }

    /// The first [`TIMELINE_FIRST`] deliveries, then those of events something happened to
    /// (crashes, redeliveries, republishes, late copies), in the order they ended; at most
    /// [`TIMELINE_CAP`].
    pub fn timeline(&self) -> &[DeliveryRecord] {
        &self.timeline
    }

    /// The deliveries in progress now (for a live timeline), with the steps done so far.
    pub fn in_progress(&self) -> impl Iterator<Item = &DeliveryRecord> {
        self.deliveries_live.values().map(|d| &d.record)
    }

    pub fn consumers(&self) -> &[Consumer] {
        &self.consumers
    }

    /// What the broker held over the run (one point per change, thinned to a bounded number).
    pub fn chart(&self) -> &Series<BrokerSample> {
        &self.chart
    }

    pub fn broker_totals(&self) -> BrokerTotals {
        self.totals
    }

    /// Extra credits (beyond an event's first), by why the crediting copy arrived.
    pub fn extra_credits_by_cause(&self) -> ByCause {
        self.extra_credits
    }

    /// Deliveries skipped by the dedupe store, by why the copy arrived.
    pub fn skipped_by_cause(&self) -> ByCause {
        self.skipped
    }

    /// The ledger's balance in dollars.
    pub fn ledger_balance(&self) -> i64 {
        self.ledger
    }

    /// The balance if every event published so far were credited exactly once.
    pub fn expected_balance(&self) -> i64 {
        self.expected
    }

    /// How many events met each fate so far; they add up to `messages`.
    pub fn fates(&self) -> Fates {
        let pending = self.config.messages as u64 - self.lost - self.parked - self.duplicated - self.once;
        Fates { lost: self.lost, dead_lettered: self.parked, duplicated: self.duplicated, once: self.once, pending }
    }

    /// When the last event settled, if every event has.
    pub fn settled_at(&self) -> Option<Micros> {
        self.settled_at
    }

    /// Lost events that a crash between the ack and the credit lost (only ack then process
    /// loses events that way; a dead-lettered event is parked, not lost).
    pub fn lost_after_ack(&self) -> u64 {
        self.events.iter().filter(|e| e.fate() == Fate::Lost && e.crashed_in_middle).count() as u64
    }

    /// Events credited more than once among those `pick` selects (why the ledger is over).
    pub fn duplicated_among(&self, pick: impl Fn(&EventRecord) -> bool) -> u64 {
        self.events.iter().filter(|e| e.credits >= 2 && pick(e)).count() as u64
    }

    /// Events published so far.
    pub fn published(&self) -> u64 {
        self.events.len() as u64
    }
}

impl Model for AtLeastOnce {
    type Config = AtLeastOnceConfig;
    type Event = Event;

    /// Late redeliveries come up to 14 days after the ack: the longest run any model may have.
    const MAX_RUN_LENGTH_MS: u64 = MAX_RUN_LENGTH_MS;

    fn new(config: AtLeastOnceConfig, seed: u64, end: Micros, queue: &mut EventQueue<Event>) -> Self {
        let consumers = config.consumers.clamp(1, u16::MAX as u32) as u16;
        let messages = config.messages as usize;
        let model = Self {
            end,
            visibility: ms_to_us(config.visibility_timeout_ms).max(1),
            restart: ms_to_us(config.restart_ms),
            redelivery_after: ms_to_us(config.redelivery_after_ms),
            dedupe_window: ms_to_us(config.dedupe_window_ms),
            redrive_after: ms_to_us(config.redrive_after_ms),
            publish_gap_us: 1e6 / config.publish_rate.max(1e-3),
            publish_rng: SimRng::stream(seed, 1),
            work_rng: SimRng::stream(seed, 2),
            crash_rng: SimRng::stream(seed, 3),
            events: Vec::with_capacity(config.messages as usize),
            // Sized up front for what a run holds at once, so that a warm run does not allocate.
            messages: SlotMap::with_capacity_and_key(messages),
            ready: VecDeque::with_capacity(messages),
            deliveries_live: SlotMap::with_capacity_and_key(consumers as usize),
            consumers: vec![Consumer::default(); consumers as usize],
            idle: (0..consumers).collect(),
            dedupe: Vec::with_capacity(if config.order == Order::TxnDedupe { 2 * messages } else { 0 }),
            next_delivery_id: 0,
            held: [0; 3],
            totals: BrokerTotals::default(),
            deliveries: 0,
            redeliveries: 0,
            skipped: ByCause::default(),
            extra_credits: ByCause::default(),
            crashes: 0,
            crashes_between: 0,
            republished: 0,
            late_redeliveries: 0,
            leases_outlived: 0,
            lease_renewals: 0,
            ledger: 0,
            expected: 0,
            credited_events: 0,
            lost: 0,
            parked: 0,
            redriven: 0,
            once: 0,
            duplicated: 0,
            settled_events: 0,
            settled_at: None,
            timeline: Vec::with_capacity(TIMELINE_CAP),
            chart: Series::new(CHART_POINTS),
            config,
        };
        if model.config.messages > 0 {
            queue.schedule_at(0, Event::Publish);
        }
        model
    }

    fn handle(&mut self, q: &mut EventQueue<Event>, now: Micros, event: Event) {
        match event {
            Event::Publish => self.publish(q),
            Event::Appear(key) => self.appear(key),
            Event::Redrive(key) => self.redrive(key),
            Event::StepDone(key) => self.step_done(q, now, key),
            Event::Crash(key) => self.crash(q, now, key),
            Event::LeaseExpires(key) => self.lease_expires(q, now, key),
            Event::RenewLease(key) => self.renew_lease(q, key),
            Event::Restart(consumer) => self.restart(consumer),
        }
        self.dispatch(q, now);
        self.sample(now);
    }

    fn metrics(&self, _now: Micros) -> Vec<(&'static str, Value)> {
        let fates = self.fates();
        vec![
            ("lost", Value::count(fates.lost)),
            ("duplicated", Value::count(fates.duplicated)),
            ("effectively_once", Value::count(fates.once)),
            ("pending", Value::count(fates.pending)),
            ("deliveries", Value::count(self.deliveries)),
            ("redeliveries", Value::count(self.redeliveries)),
            ("skipped_as_duplicate", Value::count(self.skipped.total())),
            ("crashes", Value::count(self.crashes)),
            ("crashes_between", Value::count(self.crashes_between)),
            ("ledger_balance", Value::Int(self.ledger)),
            ("expected_balance", Value::Int(self.expected)),
            ("ledger_difference", Value::Int(self.ledger - self.expected)),
            ("extra_credits", Value::count(self.extra_credits.total())),
            ("republished", Value::count(self.republished)),
            ("late_redeliveries", Value::count(self.late_redeliveries)),
            ("leases_outlived", Value::count(self.leases_outlived)),
            ("lease_renewals", Value::count(self.lease_renewals)),
            ("dead_lettered", Value::count(self.totals.dead_lettered)),
            ("in_dead_letter_queue", Value::count(fates.dead_lettered)),
            ("redriven", Value::count(self.redriven)),
            ("settled_at_ms", self.settled_at.map_or(Value::Null, |t| Value::num(t as f64 / 1000.0))),
            ("guarantee", Value::Text(self.guarantee().id().to_string())),
        ]
    }

    fn config(&self) -> &AtLeastOnceConfig {
        &self.config
    }

    fn run_length_ms(c: &AtLeastOnceConfig) -> Option<u64> {
        Some(run_length::estimate_ms(c))
    }
}

impl AtLeastOnce {
    /// The producer publishes event `events.len()`: its message goes to the broker, and a
    /// second copy to the outbox when the producer will crash before marking it sent.
    fn publish(&mut self, q: &mut EventQueue<Event>) {
        let id = self.events.len() as u32;
        let c = &self.config;
        // Four draws per event whatever the settings, so that changing one rate moves no other draw.
        let amount = 1 + self.publish_rng.below(100) as u32;
        let long_job = self.publish_rng.uniform() * 100.0 < c.long_job_rate;
        let republished = self.publish_rng.uniform() * 100.0 < c.producer_republish_rate;
        let late = self.publish_rng.uniform() * 100.0 < c.late_redelivery_rate;
        self.events.push(EventRecord {
            amount,
            credits: 0,
            live: 0,
            long_job,
            republished,
            late,
            crashed_in_middle: false,
            lease_outlived: false,
            dead_lettered: false,
            in_dlq: 0,
            redriven: false,
            notable: republished || late,
        });
        self.expected += amount as i64;
        let first = self.add_message(id, Origin::First, MessageState::Ready);
        self.ready.push_back(first);
        if republished {
            self.republished += 1;
            let copy = self.add_message(id, Origin::Republished, MessageState::Waiting);
            q.schedule_in(PRODUCER_RESTART_MS * MS, Event::Appear(copy));
        }
        let next = id + 1;
        if next < self.config.messages {
            q.schedule_at(libm::round(next as f64 * self.publish_gap_us) as Micros, Event::Publish);
        }
    }

    /// A new message for `event`: the producer's and the outbox's get a new delivery ID.
    fn add_message(&mut self, event: u32, origin: Origin, state: MessageState) -> MessageKey {
        let delivery_id = self.next_delivery_id;
        self.next_delivery_id += 1;
        self.insert_message(Message {
            event,
            delivery_id,
            origin,
            state,
            receives: 0,
            lease: None,
            holders: 0,
            last_expiry: Cause::First,
            middle_crash: false,
        })
    }

    fn insert_message(&mut self, message: Message) -> MessageKey {
        self.events[message.event as usize].live += 1;
        self.held[message.state as usize] += 1;
        self.totals.published += 1;
        self.totals.held += 1;
        self.messages.insert(message)
    }

    fn set_state(&mut self, key: MessageKey, state: MessageState) {
        let m = &mut self.messages[key];
        self.held[m.state as usize] -= 1;
        self.held[state as usize] += 1;
        m.state = state;
    }

    /// Removes a message from the broker (acked or dead), cancelling its lease.
    fn remove_message(&mut self, q: &mut EventQueue<Event>, now: Micros, key: MessageKey) -> Message {
        let m = self.messages.remove(key).expect("a held message");
        if let Some(lease) = m.lease {
            q.cancel(lease);
        }
        self.held[m.state as usize] -= 1;
        self.totals.held -= 1;
        self.release(now, m.event);
        m
    }

    fn appear(&mut self, key: MessageKey) {
        self.set_state(key, MessageState::Ready);
        self.ready.push_back(key);
    }

    /// Hands ready messages to idle consumers.
    fn dispatch(&mut self, q: &mut EventQueue<Event>, now: Micros) {
        while !self.idle.is_empty() {
            let Some(key) = self.ready.pop_front() else { return };
            // A message acked by a slow holder while it waited here is gone.
            if self.messages.get(key).is_some_and(|m| m.state == MessageState::Ready) {
                let consumer = self.idle.pop_front().expect("an idle consumer");
                self.receive(q, now, consumer, key);
            }
        }
    }

    /// A consumer receives a message: the broker leases it, the consumer starts its steps.
    fn receive(&mut self, q: &mut EventQueue<Event>, now: Micros, consumer: u16, key: MessageKey) {
        self.set_state(key, MessageState::Leased);
        let lease = q.timer_in(self.visibility, Event::LeaseExpires(key));
        let m = &mut self.messages[key];
        m.receives += 1;
        m.holders += 1;
        m.lease = Some(lease);
        let m = *m;
        let cause = match (m.receives > 1, m.origin) {
            (true, _) => m.last_expiry,
            (false, Origin::First) => Cause::First,
            (false, Origin::Republished) => Cause::Republished,
            (false, Origin::Late) => Cause::Late,
            (false, Origin::Redriven) => Cause::Redriven,
        };
        // A republished or re-driven message is a new message, not a redelivery of one.
        if !matches!(cause, Cause::First | Cause::Republished | Cause::Redriven) {
            self.redeliveries += 1;
        }
        if cause == Cause::Late {
            self.late_redeliveries += 1;
        }
        let event = &mut self.events[m.event as usize];
        event.live += 1;
        event.notable |= cause != Cause::First;
        let long_job = event.long_job;
        let plan = self.plan(long_job);
        let record = DeliveryRecord {
            number: self.deliveries as u32,
            event: m.event,
            delivery_id: m.delivery_id,
            consumer,
            receive: m.receives,
            cause,
            received_at: now,
            steps: [StepSpan { step: Step::Ack, start: now, end: now, completed: false }; 3],
            step_count: 0,
            outcome: Outcome::Running,
            credit_number: 0,
            credited: false,
            acked: false,
            skipped: false,
        };
        self.deliveries += 1;
        let c = &mut self.consumers[consumer as usize];
        c.state = ConsumerState::Busy;
        c.delivered += 1;
        let key = self.deliveries_live.insert(Delivery { message: key, cause, plan, step: 0, renew: None, record });
        if self.config.extend_lease {
            self.deliveries_live[key].renew = Some(q.timer_in(self.renew_every(), Event::RenewLease(key)));
        }
        self.start_step(q, now, key);
    }

    fn renew_every(&self) -> Micros {
        (self.visibility / 2).max(1)
    }

    /// Draws a delivery's step times and whether (and where) the consumer crashes. Always the
    /// same draws per delivery, so runs that differ only in the order see the same crashes.
    fn plan(&mut self, long_job: bool) -> Plan {
        let work_ms = self.config.work_ms;
        let drawn = self.work_rng.lognormal(work_ms, WORK_CV).min(WORK_CAP * work_ms);
        let work = if long_job { ms_to_us(self.config.long_job_ms) } else { ms_to_us(drawn) }.max(1);
        let crashes = self.crash_rng.uniform() * 100.0 < self.config.crash_rate;
        let between = self.crash_rng.uniform() < 0.5;
        let point = self.crash_rng.uniform();

        let order = self.config.order;
        let mut ends = [0; 3];
        let mut t = 0;
        for (end, step) in ends.iter_mut().zip(order.steps()) {
            t += match step {
                Step::Ack => ACK_MS * MS,
                Step::Work => work,
                Step::Record => RECORD_MS * MS,
            };
            *end = t;
        }
        let boundary = ends[order.first_effect()];
        let total = ends[order.steps().len() - 1];
        let (from, to) = if between { (boundary, total) } else { (0, boundary) };
        let crash_at = crashes.then(|| from + ((to - from) as f64 * point) as Micros);
        Plan { ends, crash_at }
    }

    /// Starts the delivery's current step: it ends, or the consumer crashes during it.
    fn start_step(&mut self, q: &mut EventQueue<Event>, now: Micros, key: DeliveryKey) {
        let d = &mut self.deliveries_live[key];
        let i = d.step as usize;
        let step = self.config.order.steps()[i];
        let end = d.record.received_at + d.plan.ends[i];
        d.record.steps[i] = StepSpan { step, start: now, end, completed: false };
        d.record.step_count = i as u8 + 1;
        match d.plan.crash_at.map(|c| d.record.received_at + c) {
            Some(crash) if crash < end => q.schedule_at(crash, Event::Crash(key)),
            _ => q.schedule_at(end, Event::StepDone(key)),
        }
    }

    fn step_done(&mut self, q: &mut EventQueue<Event>, now: Micros, key: DeliveryKey) {
        let d = &mut self.deliveries_live[key];
        let i = d.step as usize;
        d.record.steps[i].completed = true;
        let skipped = match self.config.order.steps()[i] {
            Step::Ack => {
                self.ack(q, now, key);
                false
            }
            Step::Work if self.config.order != Order::TxnDedupe => {
                self.credit(key);
                false
            }
            Step::Work => false,
            Step::Record => self.commit(now, key),
        };
        let d = &mut self.deliveries_live[key];
        if skipped {
            // Rolled back; the ack that follows tells the broker it is done with.
            d.record.skipped = true;
        }
        if i + 1 < self.config.order.steps().len() {
            d.step += 1;
            self.start_step(q, now, key);
        } else {
            self.finish(q, now, key);
        }
    }

    /// The broker deletes the message, if no other copy's ack deleted it first; an event due
    /// for a late redelivery comes back, as the same message, `redelivery_after_ms` later.
    fn ack(&mut self, q: &mut EventQueue<Event>, now: Micros, key: DeliveryKey) {
        let d = &mut self.deliveries_live[key];
        d.record.acked = true;
        let message_key = d.message;
        if !self.messages.contains_key(message_key) {
            return;
        }
        let m = self.messages[message_key];
        let late = m.origin == Origin::First && self.events[m.event as usize].late;
        if late {
            // Added before the acked one leaves, so the event never looks settled in between.
            let copy = self.insert_message(Message {
                origin: Origin::Late,
                state: MessageState::Waiting,
                receives: 0,
                lease: None,
                holders: 0,
                middle_crash: false,
                ..m
            });
            q.schedule_in(self.redelivery_after, Event::Appear(copy));
        }
        self.totals.acked += 1;
        self.remove_message(q, now, message_key);
    }

    /// The dedupe record's transaction: false when it commits the credit, true when the key
    /// was already recorded within the window and the transaction rolls back.
    fn commit(&mut self, now: Micros, key: DeliveryKey) -> bool {
        let d = &self.deliveries_live[key];
        let dedupe_key = match self.config.dedupe_on {
            DedupeOn::EventId => d.record.event,
            DedupeOn::DeliveryId => d.record.delivery_id,
        } as usize;
        if dedupe_key >= self.dedupe.len() {
            self.dedupe.resize(dedupe_key + 1, None);
        }
        let seen = self.dedupe[dedupe_key].is_some_and(|at| now - at < self.dedupe_window);
        if seen {
            self.skipped.add(d.cause);
            return true;
        }
        self.dedupe[dedupe_key] = Some(now);
        self.credit(key);
        false
    }

    fn credit(&mut self, key: DeliveryKey) {
        let d = &mut self.deliveries_live[key];
        let event = &mut self.events[d.record.event as usize];
        event.credits = event.credits.saturating_add(1);
        self.ledger += event.amount as i64;
        d.record.credited = true;
        d.record.credit_number = event.credits;
        match event.credits {
            1 => self.credited_events += 1,
            2 => {
                self.duplicated += 1;
                self.extra_credits.add(d.cause);
            }
            _ => self.extra_credits.add(d.cause),
        }
    }

    /// The consumer is done with a delivery and takes the next message.
    fn finish(&mut self, q: &mut EventQueue<Event>, now: Micros, key: DeliveryKey) {
        let record = &mut self.deliveries_live[key].record;
        record.outcome = if record.skipped { Outcome::Skipped } else { Outcome::Done };
        let d = self.end_delivery(q, now, key);
        let c = &mut self.consumers[d.record.consumer as usize];
        c.state = ConsumerState::Idle;
        self.idle.push_back(d.record.consumer);
    }

    /// The consumer dies mid-step; its lease runs out on its own, and a new consumer starts
    /// `restart_ms` later.
    fn crash(&mut self, q: &mut EventQueue<Event>, now: Micros, key: DeliveryKey) {
        let d = &mut self.deliveries_live[key];
        let i = d.step as usize;
        d.record.steps[i].end = now;
        d.record.outcome = Outcome::Crashed;
        let order = self.config.order;
        let between = now - d.record.received_at >= d.plan.ends[order.first_effect()];
        self.crashes += 1;
        if between {
            self.crashes_between += 1;
        }
        if let Some(m) = self.messages.get_mut(d.message) {
            m.middle_crash |= between;
        }
        let event = &mut self.events[d.record.event as usize];
        event.notable = true;
        event.crashed_in_middle |= between;
        let d = self.end_delivery(q, now, key);
        let c = &mut self.consumers[d.record.consumer as usize];
        c.state = ConsumerState::Restarting;
        c.crashes += 1;
        q.schedule_in(self.restart, Event::Restart(d.record.consumer));
    }

    /// Takes a delivery off its consumer and its message, and keeps its record if the
    /// timeline has room for it.
    fn end_delivery(&mut self, q: &mut EventQueue<Event>, now: Micros, key: DeliveryKey) -> Delivery {
        let d = self.deliveries_live.remove(key).expect("a live delivery");
        if let Some(renew) = d.renew {
            q.cancel(renew);
        }
        if let Some(m) = self.messages.get_mut(d.message) {
            m.holders -= 1;
        }
        let keep = d.record.number < TIMELINE_FIRST || self.events[d.record.event as usize].notable;
        if keep && self.timeline.len() < TIMELINE_CAP {
            self.timeline.push(d.record);
        }
        self.release(now, d.record.event);
        d
    }

    fn restart(&mut self, consumer: u16) {
        self.consumers[consumer as usize].state = ConsumerState::Idle;
        self.idle.push_back(consumer);
    }

    /// A lease ran out: the message is visible again, or dead-lettered after its last allowed
    /// delivery.
    fn lease_expires(&mut self, q: &mut EventQueue<Event>, now: Micros, key: MessageKey) {
        let m = &mut self.messages[key];
        m.lease = None;
        let still_working = m.holders > 0;
        m.last_expiry = match (still_working, m.middle_crash) {
            (true, _) => Cause::LeaseOutlived,
            (false, true) => Cause::AfterMiddleCrash,
            (false, false) => Cause::AfterEarlyCrash,
        };
        if still_working {
            self.leases_outlived += 1;
            let event = &mut self.events[m.event as usize];
            event.notable = true;
            event.lease_outlived = true;
        }
        if m.receives as u32 >= self.config.max_deliveries {
            self.dead_letter(q, now, key);
        } else {
            self.set_state(key, MessageState::Ready);
            self.ready.push_back(key);
        }
    }

    /// The message leaves the queue for the dead-letter queue. With `redrive` (once per
    /// message), its new copy is made now, so that the event never looks settled in between,
    /// and moved back to the queue `redrive_after_ms` later.
    fn dead_letter(&mut self, q: &mut EventQueue<Event>, now: Micros, key: MessageKey) {
        let m = self.messages.remove(key).expect("a held message");
        self.held[m.state as usize] -= 1;
        self.totals.held -= 1;
        self.totals.dead_lettered += 1;
        let event = &mut self.events[m.event as usize];
        event.dead_lettered = true;
        event.notable = true;
        event.in_dlq += 1;
        if self.config.redrive && m.origin != Origin::Redriven {
            let copy = self.add_message(m.event, Origin::Redriven, MessageState::Waiting);
            q.schedule_in(self.redrive_after, Event::Redrive(copy));
        }
        self.release(now, m.event);
    }

    fn redrive(&mut self, key: MessageKey) {
        let event = self.messages[key].event as usize;
        self.events[event].in_dlq -= 1;
        self.events[event].redriven = true;
        self.redriven += 1;
        self.appear(key);
    }

    /// A working consumer extends its lease by a full visibility timeout.
    fn renew_lease(&mut self, q: &mut EventQueue<Event>, key: DeliveryKey) {
        let Some(d) = self.deliveries_live.get(key) else { return };
        let message_key = d.message;
        let Some(m) = self.messages.get_mut(message_key) else {
            self.deliveries_live[key].renew = None; // acked: nothing left to renew
            return;
        };
        if m.state != MessageState::Leased {
            self.deliveries_live[key].renew = None;
            return;
        }
        if let Some(lease) = m.lease.take() {
            q.cancel(lease);
        }
        m.lease = Some(q.timer_in(self.visibility, Event::LeaseExpires(message_key)));
        self.lease_renewals += 1;
        let every = self.renew_every();
        self.deliveries_live[key].renew = Some(q.timer_in(every, Event::RenewLease(key)));
    }

    /// One copy of an event is gone (a message left the broker, or a delivery ended); the
    /// event settles when none is left.
    fn release(&mut self, now: Micros, event: u32) {
        let e = &mut self.events[event as usize];
        e.live -= 1;
        if e.live > 0 {
            return;
        }
        match e.credits {
            0 if e.in_dlq > 0 => self.parked += 1,
            0 => self.lost += 1,
            1 => self.once += 1,
            _ => {} // counted when the second credit came
        }
        self.settled_events += 1;
        if self.settled_events == self.config.messages {
            self.settled_at = Some(now);
        }
    }

    fn sample(&mut self, now: Micros) {
        let busy = self.consumers.iter().filter(|c| c.state == ConsumerState::Busy).count();
        let restarting = self.consumers.iter().filter(|c| c.state == ConsumerState::Restarting).count();
        let sample = BrokerSample {
            ready: self.held[MessageState::Ready as usize] as f64,
            leased: self.held[MessageState::Leased as usize] as f64,
            waiting: self.held[MessageState::Waiting as usize] as f64,
            busy_consumers: busy as f64,
            restarting_consumers: restarting as f64,
            credited_events: self.credited_events as f64,
        };
        if self.chart.last().is_none_or(|(_, last)| last != sample) {
            self.chart.push(now as f64 / 1000.0, sample);
        }
    }
}
