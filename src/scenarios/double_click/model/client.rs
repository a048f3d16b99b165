//! The page's handlers: clicks, the helper's attempts, timeouts, answers, and its retries
//! with backoff until the buyer is told how it ended.

use super::super::spec::{AMOUNT_CENTS, CHANGED_AMOUNT_CENTS, Fix, MAX_BACKOFF_DOUBLINGS};
use super::{
    AttemptOutcome, AttemptRecord, ButtonState, BuyerOutcome, ClickEffect, ClickRecord, DisabledSpan, DoubleClick, Event,
};
use crate::sim::rng::ms_to_us;
use crate::sim::{EventQueue, Micros};

impl DoubleClick {
    fn new_key(&mut self) -> u32 {
        let k = self.next_key;
        self.next_key += 1;
        k
    }

    pub(super) fn click(&mut self, q: &mut EventQueue<Event>, now: Micros, i: usize) {
        let amount = if i > 0 && self.config.amount_changes { CHANGED_AMOUNT_CENTS } else { AMOUNT_CENTS };
        let effect = match self.button {
            ButtonState::Enabled => ClickEffect::Started,
            ButtonState::Disabled => ClickEffect::IgnoredDisabled,
            ButtonState::Receipt => ClickEffect::IgnoredAfterPaid,
        };
        let mut record = ClickRecord {
            at: now,
            effect,
            key: None,
            amount_cents: amount,
            outcome: BuyerOutcome::Ignored,
            finished_at: Some(now),
            processing_from: None,
            retries_used: 0,
            in_flight: None,
            timer: None,
        };
        if effect != ClickEffect::Started {
            self.clicks.push(record);
            return;
        }
        // Latest click wins: the page aborts the previous click's request. That ends the
        // waiting in the browser; the server is not told.
        if let Some(previous) = self.active.take() {
            self.supersede(q, now, previous);
        }
        if self.config.fix == Fix::Disable {
            self.button = ButtonState::Disabled;
            self.disabled.push(DisabledSpan { from: now, until: None });
        }
        record.key = match self.config.fix {
            Fix::Key => Some(match self.intent_key {
                Some(k) => k,
                None => {
                    let k = self.new_key();
                    self.intent_key = Some(k);
                    k
                }
            }),
            Fix::KeyPerClick => Some(self.new_key()),
            Fix::None | Fix::Disable | Fix::KeyPerAttempt => None,
        };
        record.outcome = BuyerOutcome::Waiting;
        record.finished_at = None;
        let index = self.clicks.len();
        self.clicks.push(record);
        self.active = Some(index);
        self.send(q, now, index);
    }

    /// A newer click aborts this one: its wait ends, and so does its helper's pending timer
    /// (the attempt's timeout, or the backoff before its next attempt).
    fn supersede(&mut self, q: &mut EventQueue<Event>, now: Micros, click: usize) {
        let c = &mut self.clicks[click];
        c.outcome = BuyerOutcome::Superseded;
        c.finished_at = Some(now);
        if let Some(timer) = c.timer.take() {
            q.cancel(timer);
        }
        if let Some(a) = c.in_flight.take() {
            let attempt = &mut self.attempts[a];
            attempt.outcome = AttemptOutcome::Aborted;
            attempt.end = Some(now);
            self.aborted += 1;
        }
    }

    pub(super) fn send(&mut self, q: &mut EventQueue<Event>, now: Micros, click: usize) {
        let key = if self.config.fix == Fix::KeyPerAttempt { Some(self.new_key()) } else { self.clicks[click].key };
        let c = &mut self.clicks[click];
        let index = self.attempts.len();
        self.attempts.push(AttemptRecord {
            click,
            number: c.retries_used + 1,
            key,
            amount_cents: c.amount_cents,
            start: now,
            end: None,
            outcome: AttemptOutcome::Pending,
        });
        c.in_flight = Some(index);
        q.schedule_in(self.network, Event::Arrive(index));
        c.timer = Some(q.timer_in(self.attempt_timeout, Event::Timeout(index)));
    }

    /// The end of an attempt at the client; false when the client had already stopped waiting.
    fn end_attempt(&mut self, q: &mut EventQueue<Event>, now: Micros, attempt: usize, outcome: AttemptOutcome) -> bool {
        let a = &mut self.attempts[attempt];
        if a.outcome != AttemptOutcome::Pending {
            return false;
        }
        a.outcome = outcome;
        a.end = Some(now);
        let c = &mut self.clicks[a.click];
        c.in_flight = None;
        // An answer in time stops the attempt's timeout.
        if let Some(timer) = c.timer.take() {
            q.cancel(timer);
        }
        true
    }

    /// What the page says when its retries run out without an answer: with a key and a recovery
    /// job that settles pending orders, "processing" (the order will settle, and the buyer can
    /// be emailed), else "failed".
    fn unknown_outcome(&self, click: usize) -> BuyerOutcome {
        if self.config.recovery_after_ms > 0.0 && self.clicks[click].key.is_some() {
            BuyerOutcome::Processing
        } else {
            BuyerOutcome::Failed
        }
    }

    pub(super) fn timeout(&mut self, q: &mut EventQueue<Event>, now: Micros, attempt: usize) {
        if self.end_attempt(q, now, attempt, AttemptOutcome::Timeout) {
            self.timeouts += 1;
            let click = self.attempts[attempt].click;
            self.retry_or_give_up(q, now, click, 0, self.unknown_outcome(click));
        }
    }

    pub(super) fn reply(&mut self, q: &mut EventQueue<Event>, now: Micros, attempt: usize, outcome: AttemptOutcome) {
        if !self.end_attempt(q, now, attempt, outcome) {
            return; // the page stopped waiting: the answer is dropped
        }
        let click = self.attempts[attempt].click;
        match outcome {
            AttemptOutcome::Ok { .. } => self.finish(now, click, BuyerOutcome::Paid),
            AttemptOutcome::Conflict => {
                // The page shows "processing" while it waits to try again.
                self.clicks[click].processing_from.get_or_insert(now);
                self.retry_or_give_up(q, now, click, self.retry_after, BuyerOutcome::Processing)
            }
            AttemptOutcome::Reset => {
                self.resets += 1;
                self.retry_or_give_up(q, now, click, 0, self.unknown_outcome(click));
            }
            // The helper retries only timeouts, resets and 409s.
            AttemptOutcome::ServerError => self.finish(now, click, BuyerOutcome::Failed),
            // A 4xx validation error is not retried.
            AttemptOutcome::Rejected => self.finish(now, click, BuyerOutcome::Rejected),
            AttemptOutcome::Pending | AttemptOutcome::Timeout | AttemptOutcome::Aborted => {}
        }
    }

    /// Retries after a jittered exponential backoff (at least `min_wait`), or tells the buyer
    /// `give_up` when the retries are spent.
    fn retry_or_give_up(
        &mut self,
        q: &mut EventQueue<Event>,
        now: Micros,
        click: usize,
        min_wait: Micros,
        give_up: BuyerOutcome,
    ) {
        let c = &mut self.clicks[click];
        if c.retries_used >= self.config.retries {
            self.finish(now, click, give_up);
            return;
        }
        c.retries_used += 1;
        let doublings = (c.retries_used - 1).min(MAX_BACKOFF_DOUBLINGS);
        let base = self.config.backoff_ms * (1u64 << doublings) as f64;
        let wait = ms_to_us(base * (1.0 - self.jitter * self.backoff_rng.uniform()));
        c.timer = Some(q.timer_in(wait.max(min_wait), Event::Send(click)));
    }

    fn finish(&mut self, now: Micros, click: usize, outcome: BuyerOutcome) {
        let c = &mut self.clicks[click];
        c.outcome = outcome;
        c.finished_at = Some(now);
        if self.active == Some(click) {
            self.active = None;
        }
        if let Some(span) = self.disabled.last_mut().filter(|s| s.until.is_none()) {
            span.until = Some(now);
        }
        // A paid page shows the receipt; any other ending gives the buyer the button back.
        self.button = if outcome == BuyerOutcome::Paid { ButtonState::Receipt } else { ButtonState::Enabled };
    }
}
