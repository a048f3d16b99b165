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
//! <https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-dead-letter-queues.html>),
//! on the receive that would exceed the count, as SQS moves it: not when the last lease runs
//! out. Until then it is visible in the queue, and a holder still working can ack it.
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
//! estimate from the parameters: `model/run_length.rs`); metrics and the reading are live before that.
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

mod chapter;
mod facts;
mod guarantee;
mod model;
mod picture;
mod reading;
mod spec;

pub use chapter::{CHAPTER_TABLE, ChapterRow, RunRow};
pub use facts::{AtLeastOnceFacts, Copies};
pub use guarantee::Guarantee;
pub use picture::{ConsumerNow, Entry, MOST_READY_DRAWN, Orphan, Picture};
pub use model::{
    AtLeastOnce, BrokerSample, BrokerTotals, ByCause, Cause, Consumer, ConsumerState, DeliveryKey, DeliveryRecord,
    Event, EventRecord, Fate, Fates, MessageKey, Outcome, Step, StepSpan,
};
pub use spec::{
    ACK_MS, AtLeastOnceConfig, DedupeOn, Order, PARAMS, PRODUCER_RESTART_MS, RECORD_MS, TIMELINE_CAP, TIMELINE_FIRST,
    WORK_CAP,
};
pub use reading::AtLeastOnceWords;
pub use spec::AtLeastOnceMetrics;

use crate::sim::ScenarioSpec;
use crate::sim::model::ModelOf;

pub static SPEC: ScenarioSpec = ScenarioSpec {
    id: "at-least-once",
    title: "At-least-once delivery",
    chapter: "Chapter 2, Part 5: At-least-once delivery and dedupe",
    summary: "A consumer credits a ledger from a queue that delivers at least once, and sometimes \
              crashes. Ack first, process first, or process and record the event ID in one \
              transaction: count the events lost and the events credited twice.",
    params: PARAMS,
    presets: spec::PRESETS,
    metrics: spec::METRICS,
    headline: spec::HEADLINE,
    quotes: reading::QUOTES,
    default_duration_ms: spec::DEFAULT_DURATION_MS,
    sweep: spec::SWEEP,
    model: &ModelOf::<AtLeastOnce>::NEW,
};
