//! The at-least-once model: a producer with an outbox, a broker with leases, consumers that
//! crash, a dedupe store and a ledger. The producer's and the broker's handlers are in
//! `broker.rs`, the consumers' in `consumer.rs`, what a run records in `records.rs`.

mod broker;
mod consumer;
mod records;
mod run_length;

use std::collections::VecDeque;

use slotmap::{SlotMap, new_key_type};

pub use records::{
    BrokerSample, BrokerTotals, ByCause, Cause, Consumer, ConsumerState, DeliveryRecord, EventRecord, Fate, Fates,
    Outcome, Step, StepSpan,
};

use super::guarantee::Guarantee;
use super::spec::{AtLeastOnceConfig, Order, TIMELINE_CAP};
use crate::sim::base::MAX_RUN_LENGTH_MS;
use crate::sim::rng::{SimRng, ms_to_us};
use crate::sim::stats::Series;
use crate::sim::{EventQueue, Micros, Model, TimerKey};

/// The broker chart keeps at most this many points, however long the run.
const CHART_POINTS: usize = 1200;

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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum MessageState {
    /// In the outbox, or acked and waiting to come back late.
    Waiting,
    Ready,
    Leased,
}

/// What kind of publish a message is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Origin {
    First,
    Republished,
    Late,
    /// A dead-lettered message moved back to the queue.
    Redriven,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Message {
    event: u32,
    delivery_id: u32,
    pub(super) origin: Origin,
    pub(super) state: MessageState,
    pub(super) receives: u16,
    lease: Option<TimerKey>,
    /// When its lease runs out (for the picture's countdown; meaningful while leased).
    pub(super) lease_until: Micros,
    /// Deliveries of this message still being worked on.
    pub(super) holders: u16,
    /// Why its last lease ran out (the cause of the next receive).
    last_expiry: Cause,
    /// A consumer crashed between the two steps that matter on it.
    middle_crash: bool,
}

impl Message {
    /// Why its next receive reaches a consumer: the cause of its last lease running out, or
    /// what kind of publish it is.
    pub(super) fn next_cause(&self) -> Cause {
        match (self.receives > 0, self.origin) {
            (true, _) => self.last_expiry,
            (false, Origin::First) => Cause::First,
            (false, Origin::Republished) => Cause::Republished,
            (false, Origin::Late) => Cause::Late,
            (false, Origin::Redriven) => Cause::Redriven,
        }
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

/// The at-least-once model: a producer with an outbox, a broker with leases, consumers that
/// crash, a dedupe store and a ledger.
pub struct AtLeastOnce {
    pub(super) config: AtLeastOnceConfig,
    pub(super) end: Micros,
    visibility: Micros,
    restart: Micros,
    redelivery_after: Micros,
    dedupe_window: Micros,
    redrive_after: Micros,
    publish_gap_us: f64,

    publish_rng: SimRng,
    work_rng: SimRng,
    crash_rng: SimRng,

    pub(super) events: Vec<EventRecord>,
    pub(super) messages: SlotMap<MessageKey, Message>,
    pub(super) ready: VecDeque<MessageKey>,
    deliveries_live: SlotMap<DeliveryKey, Delivery>,
    consumers: Vec<Consumer>,
    idle: VecDeque<u16>,
    /// When each dedupe key was recorded (by event ID or delivery ID).
    dedupe: Vec<Option<Micros>>,
    next_delivery_id: u32,

    held: [u64; 3],
    pub(super) totals: BrokerTotals,
    deliveries: u64,
    pub(super) redeliveries: u64,
    pub(super) skipped: ByCause,
    extra_credits: ByCause,
    pub(super) crashes: u64,
    pub(super) crashes_between: u64,
    pub(super) republished: u64,
    pub(super) late_redeliveries: u64,
    pub(super) leases_outlived: u64,
    pub(super) lease_renewals: u64,
    pub(super) ledger: i64,
    pub(super) expected: i64,
    credited_events: u64,
    lost: u64,
    parked: u64,
    pub(super) redriven: u64,
    once: u64,
    duplicated: u64,
    settled_events: u32,
    pub(super) settled_at: Option<Micros>,

    timeline: Vec<DeliveryRecord>,
    chart: Series<BrokerSample>,
}

impl AtLeastOnce {
    /// The guarantee the ledger shows so far.
    pub fn guarantee(&self) -> Guarantee {
        let fates = self.fates();
        Guarantee::of(fates.lost, fates.duplicated, fates.dead_lettered)
    }

    /// Every event published so far, by event ID: its amount, credits and fate (the ledger view).
    pub fn event_records(&self) -> &[EventRecord] {
        &self.events
    }

    /// The first [`TIMELINE_FIRST`](super::spec::TIMELINE_FIRST) deliveries, then those of
    /// events something happened to (crashes, redeliveries, republishes, late copies), in the
    /// order they ended; at most [`TIMELINE_CAP`].
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
    type Metrics = crate::scenarios::at_least_once::spec::AtLeastOnceMetrics;

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
            Event::LeaseExpires(key) => self.lease_expires(key),
            Event::RenewLease(key) => self.renew_lease(q, key),
            Event::Restart(consumer) => self.restart(consumer),
        }
        self.dispatch(q, now);
        self.sample(now);
    }

    fn metrics(&self, _now: Micros) -> Self::Metrics {
        let fates = self.fates();
        Self::Metrics {
            lost: fates.lost,
            duplicated: fates.duplicated,
            effectively_once: fates.once,
            pending: fates.pending,
            deliveries: self.deliveries,
            redeliveries: self.redeliveries,
            skipped_as_duplicate: self.skipped.total(),
            crashes: self.crashes,
            crashes_between: self.crashes_between,
            ledger_balance: self.ledger,
            expected_balance: self.expected,
            ledger_difference: self.ledger - self.expected,
            extra_credits: self.extra_credits.total(),
            republished: self.republished,
            late_redeliveries: self.late_redeliveries,
            leases_outlived: self.leases_outlived,
            lease_renewals: self.lease_renewals,
            dead_lettered: self.totals.dead_lettered,
            in_dead_letter_queue: fates.dead_lettered,
            redriven: self.redriven,
            settled_at_ms: self.settled_at.map(|t| t as f64 / 1000.0),
            guarantee: self.guarantee().id().to_string(),
        }
    }

    fn config(&self) -> &AtLeastOnceConfig {
        &self.config
    }

    fn run_length_ms(c: &AtLeastOnceConfig) -> Option<u64> {
        Some(run_length::estimate_ms(c))
    }
}
