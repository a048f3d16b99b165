//! The consumers' handlers: a delivery's plan and steps, the ack, the dedupe record's
//! transaction, the credit, crashes, restarts and lease renewals.

use super::super::spec::{ACK_MS, DedupeOn, Order, RECORD_MS, TIMELINE_CAP, TIMELINE_FIRST, WORK_CAP, WORK_CV};
use super::{
    AtLeastOnce, Cause, ConsumerState, Delivery, DeliveryKey, DeliveryRecord, Event, Message, MessageKey, MessageState, Origin,
    Outcome, Plan, Step, StepSpan,
};
use crate::sim::rng::ms_to_us;
use crate::sim::{EventQueue, MS, Micros};

impl AtLeastOnce {
    /// A consumer receives a message: the broker leases it, the consumer starts its steps.
    pub(super) fn receive(&mut self, q: &mut EventQueue<Event>, now: Micros, consumer: u16, key: MessageKey) {
        self.set_state(key, MessageState::Leased);
        let lease = q.timer_in(self.visibility, Event::LeaseExpires(key));
        let m = &mut self.messages[key];
        let cause = m.next_cause();
        m.receives += 1;
        m.holders += 1;
        m.lease = Some(lease);
        m.lease_until = now + self.visibility;
        let m = *m;
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

    pub(super) fn step_done(&mut self, q: &mut EventQueue<Event>, now: Micros, key: DeliveryKey) {
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
    pub(super) fn crash(&mut self, q: &mut EventQueue<Event>, now: Micros, key: DeliveryKey) {
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

    pub(super) fn restart(&mut self, consumer: u16) {
        self.consumers[consumer as usize].state = ConsumerState::Idle;
        self.idle.push_back(consumer);
    }

    /// A working consumer extends its lease by a full visibility timeout.
    pub(super) fn renew_lease(&mut self, q: &mut EventQueue<Event>, key: DeliveryKey) {
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
        m.lease_until = q.now() + self.visibility;
        self.lease_renewals += 1;
        let every = self.renew_every();
        self.deliveries_live[key].renew = Some(q.timer_in(every, Event::RenewLease(key)));
    }
}
