//! The at-least-once declaration: its parameters, presets, metrics, and the constants the
//! model and the run length share.

use crate::sim::scenario::SweepDefault;
use crate::sim::{ParamSpec, Preset};

/// One broker round trip for the ack (same region).
pub const ACK_MS: u64 = 5;
/// One insert and a commit for the dedupe record.
pub const RECORD_MS: u64 = 5;
/// How long the producer takes to restart after a crash; its outbox republishes then.
pub const PRODUCER_RESTART_MS: u64 = 10_000;
/// A job's time is cut at this many times the mean, so that a run's length can be bounded.
pub const WORK_CAP: f64 = 10.0;
/// The spread of a job's time (standard deviation over mean).
pub(super) const WORK_CV: f64 = 1.0;
/// The timeline keeps every delivery among the first this many...
pub const TIMELINE_FIRST: u32 = 100;
/// ...and then only deliveries of events something happened to, up to this many records.
pub const TIMELINE_CAP: usize = 500;
const HOUR_MS: f64 = 3_600_000.0;
const DAY_MS: f64 = 24.0 * HOUR_MS;
/// The length of a run at the defaults (the model's own estimate is used instead).
pub(super) const DEFAULT_DURATION_MS: u64 = 300_000;

crate::choice! {
    /// The order of the consumer's steps.
    #[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
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
    #[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
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
            "How long a message waits in the dead-letter queue before it is re-driven (SQS keeps a message 14 days at most).")
            .only_with(AtLeastOnceConfig::redrive, &["true"], "nothing is re-driven"),
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
            DedupeOn::EventId as usize, "Which ID the dedupe record keeps (with 'Process + record the ID' only).")
            .only_with(AtLeastOnceConfig::order, &["txn-dedupe"], "no dedupe record is kept"),
        pub dedupe_window_ms: f64 = ParamSpec::number("dedupe_window_ms", "Dedupe window", "ms", DAY_MS,
            (0.0, 30.0 * DAY_MS, 60_000.0),
            "How long the dedupe store keeps an ID. A copy that comes back later is not recognised.")
            .only_with(AtLeastOnceConfig::order, &["txn-dedupe"], "no dedupe record is kept"),
    }
}

pub(super) const PRESETS: &[Preset] = &[
        Preset {
            id: "ack-first",
            label: "Ack, then process",
            description: "A crash after the ack loses the event: at-most-once.",
            values: &[(AtLeastOnceConfig::order, "ack-then-process")],
        },
        Preset {
            id: "process-first",
            label: "Process, then ack",
            description: "A crash after the credit and before the ack credits the event again: at-least-once.",
            values: &[(AtLeastOnceConfig::order, "process-then-ack")],
        },
        Preset {
            id: "txn-dedupe",
            label: "Process + record the ID in one transaction",
            description: "A message that comes back finds its event ID and is skipped: effectively once.",
            values: &[(AtLeastOnceConfig::order, "txn-dedupe")],
        },
        Preset {
            id: "delivery-id",
            label: "Dedupe on the delivery ID",
            description: "The outbox republishes 5% of events under new delivery IDs; deduping on the broker's ID \
                          lets them through.",
            values: &[(AtLeastOnceConfig::order, "txn-dedupe"), (AtLeastOnceConfig::dedupe_on, "delivery-id"), (AtLeastOnceConfig::producer_republish_rate, "5")],
        },
        Preset {
            id: "event-id",
            label: "Dedupe on the event ID",
            description: "The same republishes, deduped on the producer's event ID: all caught.",
            values: &[(AtLeastOnceConfig::order, "txn-dedupe"), (AtLeastOnceConfig::dedupe_on, "event-id"), (AtLeastOnceConfig::producer_republish_rate, "5")],
        },
        Preset {
            id: "short-window",
            label: "A 24 h window, redelivery after 4 days",
            description: "5% of messages come back four days after their ack; the dedupe store forgot them after 24 h.",
            values: &[(AtLeastOnceConfig::order, "txn-dedupe"), (AtLeastOnceConfig::late_redelivery_rate, "5")],
        },
        Preset {
            id: "long-window",
            label: "A window that outlasts redelivery",
            description: "The same late redeliveries against a 7-day window: all skipped.",
            values: &[(AtLeastOnceConfig::order, "txn-dedupe"), (AtLeastOnceConfig::late_redelivery_rate, "5"), (AtLeastOnceConfig::dedupe_window_ms, "604800000")],
        },
        Preset {
            id: "long-jobs",
            label: "Jobs longer than the lease",
            description: "No crash at all: 1% of jobs take 45 s against a 30 s visibility timeout. With 16 \
                          consumers a free one takes the redelivered message while the first still works: credited twice.",
            values: &[(AtLeastOnceConfig::order, "process-then-ack"), (AtLeastOnceConfig::crash_rate, "0"), (AtLeastOnceConfig::long_job_rate, "1"), (AtLeastOnceConfig::consumers, "16")],
        },
        Preset {
            id: "long-jobs-lease",
            label: "Long jobs, lease extended",
            description: "The same long jobs, renewing the lease while working: no redelivery, no double credit.",
            values: &[
                (AtLeastOnceConfig::order, "process-then-ack"),
                (AtLeastOnceConfig::crash_rate, "0"),
                (AtLeastOnceConfig::long_job_rate, "1"),
                (AtLeastOnceConfig::consumers, "16"),
                (AtLeastOnceConfig::extend_lease, "true"),
            ],
        },
        Preset {
            id: "dead-letter",
            label: "Dead-letter queue",
            description: "Crashes on 20% of deliveries and one delivery allowed: the messages not acked are parked in the \
             dead-letter queue, never credited but not lost.",
            values: &[(AtLeastOnceConfig::crash_rate, "20"), (AtLeastOnceConfig::max_deliveries, "1")],
        },
        Preset {
            id: "dead-letter-redrive",
            label: "Dead-letter queue, re-driven",
            description: "The same, with the dead-letter queue re-driven an hour later as new messages: the dedupe on the \
             event ID skips the copies already credited.",
            values: &[(AtLeastOnceConfig::crash_rate, "20"), (AtLeastOnceConfig::max_deliveries, "1"), (AtLeastOnceConfig::redrive, "true"), (AtLeastOnceConfig::order, "txn-dedupe")],
        },
        Preset {
            id: "ch2-break-3",
            label: "Chapter 2, Break 3: double credits from the queue",
            description: "The queue delivers 'credit purchased' twice: consumers crash after the commit, the outbox \
             republishes, acked messages come back days later. The event ID goes into a table of processed messages in the \
             ledger's transaction and the ack comes after the commit, kept longer than any redelivery: every copy \
             finds its ID and does nothing.",
            values: &[
                ("order", "txn-dedupe"),
                ("dedupe_on", "event-id"),
                ("producer_republish_rate", "5"),
                ("late_redelivery_rate", "5"),
                ("dedupe_window_ms", "2592000000"),
            ],
        },
];

crate::metrics! {
    /// What a at-least-once run reports: the CLI's JSON, the stat cards, the sweeps.
    pub struct AtLeastOnceMetrics in METRICS {
        pub lost: u64 = ("Lost", "events",
            "Events never credited, with no copy left that could credit them (not even in the dead-letter queue)."),
        pub duplicated: u64 = ("Credited twice or more", "events",
            "Events credited more than once."),
        pub effectively_once: u64 = ("Credited exactly once", "events",
            "Events credited once, with no copy left that could credit them again."),
        pub pending: u64 = ("Not settled yet", "events",
            "Events not yet published, or with a copy still in the broker, the outbox or a consumer; \
                   lost + credited twice + exactly once + in the dead-letter queue + this = events."),
        pub deliveries: u64 = ("Deliveries", "",
            "Messages handed to a consumer."),
        pub redeliveries: u64 = ("Redeliveries", "",
            "Deliveries of a message the broker had delivered before: after a lease ran out, or days later."),
        pub skipped_as_duplicate: u64 = ("Skipped as duplicates", "",
            "Deliveries whose dedupe key was already recorded: the transaction rolled back and the consumer acked."),
        pub crashes: u64 = ("Consumer crashes", "",
            "Consumers that died mid-message."),
        pub crashes_between: u64 = ("Crashes in the middle", "",
            "Crashes after the first of the two steps that matter and before the second."),
        pub ledger_balance: i64 = ("Ledger balance", "$",
            "What the consumer credited, every credit counted."),
        pub expected_balance: i64 = ("Expected balance", "$",
            "The balance if every event published so far were credited exactly once."),
        pub ledger_difference: i64 = ("Ledger minus expected", "$",
            "Double credits push it up, lost events down."),
        pub extra_credits: u64 = ("Extra credits", "",
            "Credits beyond an event's first."),
        pub republished: u64 = ("Republished by the outbox", "events",
            "Events the producer's outbox published a second time, under a new delivery ID."),
        pub late_redeliveries: u64 = ("Late redeliveries", "",
            "Acked messages the broker delivered once more, long after."),
        pub leases_outlived: u64 = ("Leases outlived", "",
            "Times a lease ran out while its job was still running: a redelivery without any crash."),
        pub lease_renewals: u64 = ("Lease renewals", "",
            "Times a working consumer extended its lease."),
        pub dead_lettered: u64 = ("Dead-lettered", "",
            "Messages moved to the dead-letter queue after the last allowed delivery."),
        pub in_dead_letter_queue: u64 = ("Parked, never credited", "events",
            "Events never credited whose message waits in the dead-letter queue: not lost, to be looked at and re-driven."),
        pub redriven: u64 = ("Re-driven", "",
            "Dead-lettered messages moved back to the queue as new messages."),
        pub settled_at_ms: Option<f64> = ("Settled at", "ms",
            "When the last event settled: nothing left in the broker, the outbox or a consumer (empty until then)."),
        pub guarantee: String = ("Guarantee shown", "",
            "effectively-once, parked (none lost or twice, some waiting in the dead-letter queue), at-most-once \
                   (lost, none twice), at-least-once (twice, none lost) or neither."),
    }
}

pub(super) const HEADLINE: &[&str] = &[AtLeastOnceMetrics::lost.key(), AtLeastOnceMetrics::duplicated.key(), AtLeastOnceMetrics::effectively_once.key(), AtLeastOnceMetrics::skipped_as_duplicate.key()];

pub(super) const SWEEP: SweepDefault =
    SweepDefault { x: AtLeastOnceConfig::crash_rate, from: 0.0, to: 10.0, steps: 11, by: Some(AtLeastOnceConfig::order), metric: AtLeastOnceMetrics::effectively_once.key() };

