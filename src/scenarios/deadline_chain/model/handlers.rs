//! The model's event handlers: messages arrive, work and timers end, hops abort, answer and
//! hang up.

use super::{A, C, DeadlineChain, Event, HopTimers, MAX_MESSAGES, clock_ms, ms_i64};
use crate::scenarios::deadline_chain::lane::{Answer, MarkKind, Phase, Reason, UserAnswer, WorkOutcome};
use crate::scenarios::deadline_chain::message::{Message, MsgKind, Party};
use crate::sim::{EventQueue, Micros};

impl DeadlineChain {
    /// Puts a message on the wire; it reaches the receiver's code after network, handling and
    /// jitter, never before an earlier message on the same connection.
    pub(super) fn send(&mut self, q: &mut EventQueue<Event>, from: Party, to: Party, kind: MsgKind) {
        let now = q.now();
        // A connection is named by its callee; answers travel back on it.
        let (callee, dir) = match kind {
            MsgKind::Response { .. } => (from, 1),
            _ => (to, 0),
        };
        let conn = match callee {
            Party::Hop(c) => c,
            Party::User => A, // never a callee
        };
        let jitter = if self.jitter > 0 { (self.jitter_rng.uniform() * self.jitter as f64) as Micros } else { 0 };
        let at = (now + self.net + self.handling + jitter).max(self.last_delivery[conn][dir]);
        self.last_delivery[conn][dir] = at;
        let msg = Message { from, to, kind, sent: now, delivered: at, heard: None };
        let log = self.messages.len();
        if log < MAX_MESSAGES {
            self.messages.push(msg);
        }
        q.schedule_at(at, Event::Deliver { msg, log });
    }

    pub(super) fn deliver(&mut self, q: &mut EventQueue<Event>, now: Micros, msg: Message, log: usize) {
        match (msg.to, msg.kind) {
            (Party::Hop(h), MsgKind::Request { header_ms }) => self.start(q, now, h, header_ms),
            (Party::Hop(h), MsgKind::Close) => self.caller_left(q, now, h),
            (Party::Hop(h), MsgKind::Response { status, origin }) => {
                let heard = self.lanes[h].phase == Phase::Calling;
                self.mark_heard(msg.from, log, heard);
                if heard {
                    self.lanes[h].mark(now, MarkKind::CallAnswered);
                    self.finish(q, h);
                    self.answer(q, now, h, status, origin);
                } else {
                    self.lanes[h].mark(now, MarkKind::LateAnswer);
                }
            }
            (Party::User, MsgKind::Response { status, origin }) => {
                let heard = self.user.waiting();
                self.mark_heard(msg.from, log, heard);
                if heard {
                    self.user.answer = Some(UserAnswer { answered_at: msg.sent, received: now, status, origin });
                    if let Some(browser) = self.browser_timer.take() {
                        q.cancel(browser);
                    }
                }
            }
            (Party::User, _) => {}
        }
    }

    fn mark_heard(&mut self, from: Party, log: usize, heard: bool) {
        if let Some(m) = self.messages.get_mut(log) {
            m.heard = Some(heard);
        }
        if let Party::Hop(f) = from
            && let Some(answer) = self.lanes[f].answered.as_mut()
        {
            answer.heard = Some(heard);
        }
    }

    /// The request reaches hop `h`'s code: the middleware sets the deadline, the work starts.
    fn start(&mut self, q: &mut EventQueue<Event>, now: Micros, h: usize, header_ms: Option<i64>) {
        let late = self.late;
        if self.propagated() {
            // The browser sends no header: A, the edge, starts from the user's budget.
            let budget = header_ms.unwrap_or(self.user_budget_ms);
            let reserve = if h == A && !self.config.edge_reserve { 0 } else { self.reserve_ms };
            let at = clock_ms(now) + budget - reserve;
            let lane = &mut self.lanes[h];
            lane.budget_told_ms = Some(budget);
            lane.deadline_ms = Some(at);
            // AbortSignal.timeout(Math.max(0, at - Date.now())).
            self.timers[h].deadline =
                Some(q.timer_in(ms_i64(at - clock_ms(now)) + late, Event::DeadlineTimer { hop: h }));
        }
        let lane = &mut self.lanes[h];
        lane.received = Some(now);
        lane.mark(now, MarkKind::Received);
        lane.phase = Phase::Working;
        lane.work_start = Some(now);
        self.timers[h].work = Some(q.timer_in(self.work[h] + late, Event::WorkDone { hop: h }));
    }

    /// The work timer is withdrawn when the work is stopped, so the hop is still working here,
    /// or aborting its work.
    pub(super) fn work_done(&mut self, q: &mut EventQueue<Event>, now: Micros, h: usize) {
        let lane = &mut self.lanes[h];
        // Work can also complete after an abort was sent but before it took effect: C's commit
        // then stands, while A or B cannot call on with an aborted signal and will answer when
        // the abort lands.
        let aborting = matches!(lane.phase, Phase::Aborting { .. });
        lane.work_end = Some(now);
        lane.work_outcome = Some(WorkOutcome::Finished);
        lane.mark(now, MarkKind::WorkFinished);
        if h == C {
            self.finish(q, h);
            self.answer(q, now, h, 200, Party::Hop(C));
        } else if !aborting {
            self.call(q, now, h);
        }
    }

    /// Hop `h` calls the next hop: `forCall(cap)` in propagated mode, a plain timeout otherwise.
    fn call(&mut self, q: &mut EventQueue<Event>, now: Micros, h: usize) {
        let cap = self.caps[h];
        let (limit, header_ms) = if self.propagated() {
            let left = self.lanes[h].deadline_ms.unwrap_or(0) - clock_ms(now);
            if left <= 0 {
                let lane = &mut self.lanes[h];
                lane.failed_fast = Some(now);
                lane.mark(now, MarkKind::FailedFast);
                self.finish(q, h);
                self.answer(q, now, h, 504, Party::Hop(h));
                return;
            }
            let left_us = ms_i64(left);
            (Some(if cap > 0 { left_us.min(cap) } else { left_us }), Some(left))
        } else {
            ((cap > 0).then_some(cap), None)
        };
        let lane = &mut self.lanes[h];
        lane.phase = Phase::Calling;
        lane.call_sent = Some(now);
        lane.call_timeout = limit;
        lane.call_header_ms = header_ms;
        lane.mark(now, MarkKind::CallSent);
        if let Some(limit) = limit {
            self.timers[h].call = Some(q.timer_in(limit + self.late, Event::CallTimer { hop: h }));
        }
        self.send(q, Party::Hop(h), Party::Hop(h + 1), MsgKind::Request { header_ms });
    }

    /// The deadline timer is withdrawn when the hop is done, so the hop is still busy here.
    pub(super) fn deadline_passed(&mut self, q: &mut EventQueue<Event>, now: Micros, h: usize) {
        let phase = self.lanes[h].phase;
        let lane = &mut self.lanes[h];
        lane.deadline_passed = Some(now);
        lane.mark(now, MarkKind::DeadlinePassed);
        match phase {
            Phase::Calling => self.abort_call(q, now, h, Reason::Deadline),
            Phase::Working if self.config.stop_at_deadline => self.abort(q, h, Reason::Deadline, true),
            _ => {}
        }
    }

    /// The call's signal fired: the connection to the callee closes at once, the waiting code
    /// gives up `abort_ms` later.
    pub(super) fn abort_call(&mut self, q: &mut EventQueue<Event>, now: Micros, h: usize, reason: Reason) {
        if let Some(call) = self.timers[h].call.take() {
            q.cancel(call);
        }
        self.lanes[h + 1].caller_hung_up.get_or_insert(now);
        self.send(q, Party::Hop(h), Party::Hop(h + 1), MsgKind::Close);
        self.abort(q, h, reason, false);
    }

    fn abort(&mut self, q: &mut EventQueue<Event>, h: usize, reason: Reason, was_working: bool) {
        self.lanes[h].phase = Phase::Aborting { reason, was_working };
        self.timers[h].abort = Some(q.timer_in(self.abort, Event::Resume { hop: h }));
    }

    /// The abort takes effect: the work stops or the wait ends; the hop answers 504 unless
    /// its caller is gone.
    pub(super) fn resume(&mut self, q: &mut EventQueue<Event>, now: Micros, h: usize) {
        let Phase::Aborting { reason, was_working } = self.lanes[h].phase else {
            unreachable!("the abort timer is withdrawn when its hop is done")
        };
        let lane = &mut self.lanes[h];
        if !was_working {
            lane.gave_up = Some((now, reason));
            lane.mark(now, MarkKind::GaveUp);
        } else if lane.work_outcome.is_none() {
            lane.work_end = Some(now);
            lane.work_outcome = Some(WorkOutcome::Stopped(reason));
            lane.mark(now, MarkKind::WorkStopped);
        }
        self.finish(q, h);
        if reason != Reason::CallerLeft {
            self.answer(q, now, h, 504, Party::Hop(h));
        }
    }

    /// The close from hop `h`'s caller reaches its code. Only a hop that listens stops.
    fn caller_left(&mut self, q: &mut EventQueue<Event>, now: Micros, h: usize) {
        let lane = &mut self.lanes[h];
        lane.caller_left_noticed = Some(now);
        lane.mark(now, MarkKind::CallerLeft);
        if !self.listens_for_close() {
            return;
        }
        match self.lanes[h].phase {
            Phase::Working => self.abort(q, h, Reason::CallerLeft, true),
            Phase::Calling => self.abort_call(q, now, h, Reason::CallerLeft),
            _ => {}
        }
    }

    /// Hop `h` is done: nothing it was waiting for matters any more, so its timers are
    /// withdrawn (cancelling one that already fired does nothing).
    fn finish(&mut self, q: &mut EventQueue<Event>, h: usize) {
        self.lanes[h].phase = Phase::Done;
        let HopTimers { work, call, deadline, abort } = std::mem::take(&mut self.timers[h]);
        for timer in [work, call, deadline, abort].into_iter().flatten() {
            q.cancel(timer);
        }
    }

    /// The browser closes the connection; its timer is withdrawn if an answer came first.
    pub(super) fn browser_gives_up(&mut self, q: &mut EventQueue<Event>, now: Micros) {
        self.user.gave_up = Some(now);
        self.lanes[A].caller_hung_up = Some(now);
        self.send(q, Party::User, Party::Hop(A), MsgKind::Close);
    }

    fn answer(&mut self, q: &mut EventQueue<Event>, now: Micros, h: usize, status: u16, origin: Party) {
        let lane = &mut self.lanes[h];
        lane.answered = Some(Answer { at: now, status, origin, heard: None });
        lane.mark(now, MarkKind::Answered);
        let caller = if h == A { Party::User } else { Party::Hop(h - 1) };
        self.send(q, Party::Hop(h), caller, MsgKind::Response { status, origin });
    }
}
