//! The timers of a call: armed, reset by activity, cleared, each firing by its own clock.

use super::super::spec::Client;
use super::{ArmedTimer, Event, TimerClock, TimerKind, WhichTimeout, os_connect_give_up};
use crate::sim::rng::ms_to_us;
use crate::sim::{EventQueue, MS, Micros};

impl WhichTimeout {
    /// The configured timeout of `kind` for this client; 0 means it is not set.
    pub(in crate::scenarios::which_timeout) fn timeout_of(&self, kind: TimerKind) -> Micros {
        let c = &self.config;
        let fetch = c.client == Client::Fetch;
        let ms = match kind {
            TimerKind::Total => c.total_timeout_ms,
            TimerKind::Connect if fetch => c.connect_timeout_ms,
            TimerKind::Headers if fetch => c.headers_timeout_ms,
            TimerKind::Body if fetch => c.body_timeout_ms,
            TimerKind::HttpIdle if !fetch => c.http_timeout_ms,
            TimerKind::OsConnect => return os_connect_give_up(c),
            _ => 0.0,
        };
        ms_to_us(ms)
    }

    /// Arms `kind` if it is set (re-arms it when the parser hands its timer over).
    pub(super) fn arm(&mut self, q: &mut EventQueue<Event>, now: Micros, kind: TimerKind) {
        let timeout = self.timeout_of(kind);
        if timeout == 0 {
            return;
        }
        self.timers.push(ArmedTimer {
            kind,
            timeout,
            armed_at: now,
            counting_from: now,
            fires_at: None,
            fired_at: None,
            fired_deadline: None,
            cleared_at: None,
            ended_call: false,
            resets: 0,
            firings: 0,
            key: None,
        });
        self.schedule(q, now, kind);
    }

    /// Puts `kind`'s firing on the queue, at the moment its own clock will fire it.
    fn schedule(&mut self, q: &mut EventQueue<Event>, now: Micros, kind: TimerKind) {
        let Some(i) = self.timers.iter().position(|t| t.kind == kind) else { return };
        let timeout = self.timers[i].timeout;
        let at = match kind.clock() {
            TimerClock::UndiciTick => self.clock.refresh(q, now, kind, timeout / MS),
            TimerClock::NodeTimer => now + timeout + self.late,
            TimerClock::Kernel => now + timeout,
        };
        let t = &mut self.timers[i];
        t.fires_at = Some(at);
        t.key = Some(q.timer_at(at, Event::Fire(kind)));
    }

    pub(super) fn is_pending(&self, kind: TimerKind) -> bool {
        self.timer(kind).is_some_and(ArmedTimer::is_pending)
    }

    /// Activity restarts an idle timer that is still set (node:http's re-arms after firing).
    pub(super) fn reset(&mut self, q: &mut EventQueue<Event>, now: Micros, kind: TimerKind) {
        let Some(t) = self.timers.iter_mut().find(|t| t.kind == kind && t.cleared_at.is_none()) else { return };
        if t.ended_call {
            return;
        }
        if let Some(key) = t.key.take() {
            q.cancel(key);
        }
        t.counting_from = now;
        t.resets += 1;
        self.schedule(q, now, kind);
    }

    /// Withdraws `kind` without firing; undici's list keeps it until the next tick.
    pub(super) fn clear(&mut self, q: &mut EventQueue<Event>, now: Micros, kind: TimerKind) {
        if self.retire(q, now, kind) && kind.clock() == TimerClock::UndiciTick {
            self.clock.clear(kind);
        }
    }

    /// Takes `kind` off the queue and marks it cleared; false when it was not set.
    pub(super) fn retire(&mut self, q: &mut EventQueue<Event>, now: Micros, kind: TimerKind) -> bool {
        let Some(t) = self.timers.iter_mut().find(|t| t.kind == kind && t.cleared_at.is_none() && !t.ended_call) else {
            return false;
        };
        if let Some(key) = t.key.take() {
            q.cancel(key);
        }
        t.fires_at = None;
        t.cleared_at = Some(now);
        true
    }
}
