//! The producer's and the broker's handlers: publishing, the outbox, dispatch to idle
//! consumers, leases running out, the dead-letter queue and its redrive, and when an event settles.

use super::super::spec::PRODUCER_RESTART_MS;
use super::{AtLeastOnce, BrokerSample, Cause, ConsumerState, Event, EventRecord, Message, MessageKey, MessageState, Origin};
use crate::sim::{EventQueue, MS, Micros};

impl AtLeastOnce {
    /// The producer publishes event `events.len()`: its message goes to the broker, and a
    /// second copy to the outbox when the producer will crash before marking it sent.
    pub(super) fn publish(&mut self, q: &mut EventQueue<Event>) {
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
    pub(super) fn add_message(&mut self, event: u32, origin: Origin, state: MessageState) -> MessageKey {
        let delivery_id = self.next_delivery_id;
        self.next_delivery_id += 1;
        self.insert_message(Message {
            event,
            delivery_id,
            origin,
            state,
            receives: 0,
            lease: None,
            lease_until: 0,
            holders: 0,
            last_expiry: Cause::First,
            middle_crash: false,
        })
    }

    pub(super) fn insert_message(&mut self, message: Message) -> MessageKey {
        self.events[message.event as usize].live += 1;
        self.held[message.state as usize] += 1;
        self.totals.published += 1;
        self.totals.held += 1;
        self.messages.insert(message)
    }

    pub(super) fn set_state(&mut self, key: MessageKey, state: MessageState) {
        let m = &mut self.messages[key];
        self.held[m.state as usize] -= 1;
        self.held[state as usize] += 1;
        m.state = state;
    }

    /// Removes a message from the broker (acked or dead), cancelling its lease.
    pub(super) fn remove_message(&mut self, q: &mut EventQueue<Event>, now: Micros, key: MessageKey) -> Message {
        let m = self.messages.remove(key).expect("a held message");
        if let Some(lease) = m.lease {
            q.cancel(lease);
        }
        self.held[m.state as usize] -= 1;
        self.totals.held -= 1;
        self.release(now, m.event);
        m
    }

    pub(super) fn appear(&mut self, key: MessageKey) {
        self.set_state(key, MessageState::Ready);
        self.ready.push_back(key);
    }

    /// Hands ready messages to idle consumers. A message already received `max_deliveries`
    /// times is not handed out: that receive would exceed SQS's `maxReceiveCount`, so it moves
    /// to the dead-letter queue instead ("When the ReceiveCount for a message exceeds the
    /// maxReceiveCount for a queue, Amazon SQS moves the message to the dead-letter queue",
    /// <https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-dead-letter-queues.html>;
    /// the count grows on each receive, so the move happens on a receive, not when a lease
    /// runs out).
    pub(super) fn dispatch(&mut self, q: &mut EventQueue<Event>, now: Micros) {
        while !self.idle.is_empty() {
            let Some(key) = self.ready.pop_front() else { return };
            // A message acked by a slow holder while it waited here is gone.
            let Some(m) = self.messages.get(key).filter(|m| m.state == MessageState::Ready) else { continue };
            if m.receives as u32 >= self.config.max_deliveries {
                self.dead_letter(q, now, key);
            } else {
                let consumer = self.idle.pop_front().expect("an idle consumer");
                self.receive(q, now, consumer, key);
            }
        }
    }

    /// A lease ran out: the message is visible again (and dead-lettered on its next receive if
    /// that would be one too many).
    pub(super) fn lease_expires(&mut self, key: MessageKey) {
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
        self.set_state(key, MessageState::Ready);
        self.ready.push_back(key);
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

    pub(super) fn redrive(&mut self, key: MessageKey) {
        let event = self.messages[key].event as usize;
        self.events[event].in_dlq -= 1;
        self.events[event].redriven = true;
        self.redriven += 1;
        self.appear(key);
    }

    /// One copy of an event is gone (a message left the broker, or a delivery ended); the
    /// event settles when none is left.
    pub(super) fn release(&mut self, now: Micros, event: u32) {
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

    pub(super) fn sample(&mut self, now: Micros) {
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
