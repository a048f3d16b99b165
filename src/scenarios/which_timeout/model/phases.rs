//! The call, phase by phase: the pool, DNS, the connect, TLS, the request, the headers and
//! the body, and how the call fails or completes.

use super::super::spec::{Client, Fault};
use super::{CallError, Event, Outcome, Phase, PhaseSpan, TimerClock, TimerKind, WhichTimeout};
use crate::sim::rng::ms_to_us;
use crate::sim::{EventQueue, MS, Micros};

/// A healthy server's handler: what it needs before it answers.
const HANDLER: Micros = MS;

impl WhichTimeout {
    pub(super) fn start(&mut self, q: &mut EventQueue<Event>, now: Micros) {
        self.enter(now, Phase::Pool);
        // AbortSignal.timeout is created before the call, so its clock includes the pool wait.
        self.arm(q, now, TimerKind::Total);
        if self.config.fault != Fault::PoolFull {
            self.acquire(q, now);
        }
    }

    /// A connection is free: the client creates a socket, which looks the name up first.
    fn acquire(&mut self, q: &mut EventQueue<Event>, now: Micros) {
        self.pool_acquired_at = Some(now);
        self.enter(now, Phase::Dns);
        // undici arms its connect timeout right after creating the socket, before the lookup;
        // node:http's timeout option sets the socket's idle timer before it connects.
        match self.config.client {
            Client::Fetch => self.arm(q, now, TimerKind::Connect),
            Client::NodeHttp => self.arm(q, now, TimerKind::HttpIdle),
        }
        let lookup = if self.config.fault == Fault::DnsSlow { ms_to_us(self.config.dns_ms) } else { self.rtt };
        q.schedule_in(lookup, Event::DnsAnswered);
    }

    pub(super) fn dns_answered(&mut self, q: &mut EventQueue<Event>, now: Micros) {
        if self.outcome.is_some() {
            return;
        }
        self.enter(now, Phase::Connect);
        self.connect_started_at = Some(now);
        self.arm(q, now, TimerKind::OsConnect);
        match self.config.fault {
            Fault::Blackhole => {} // the SYNs are dropped: only a timer ends this
            Fault::Refused => q.schedule_in(self.rtt, Event::Refused),
            _ => q.schedule_in(self.rtt, Event::SynAcked),
        }
    }

    pub(super) fn refused(&mut self, q: &mut EventQueue<Event>, now: Micros) {
        if self.outcome.is_none() {
            self.clear(q, now, TimerKind::OsConnect);
            self.fail(q, now, CallError::Econnrefused, None);
        }
    }

    pub(super) fn syn_acked(&mut self, q: &mut EventQueue<Event>, now: Micros) {
        if self.outcome.is_some() {
            return;
        }
        self.clear(q, now, TimerKind::OsConnect);
        self.connection_open = true;
        self.activity(q, now);
        self.enter(now, Phase::Tls);
        if self.config.fault != Fault::NoTls {
            q.schedule_in(self.rtt, Event::TlsDone);
        }
    }

    /// The handshake is done: the client sends the request.
    pub(super) fn tls_done(&mut self, q: &mut EventQueue<Event>, now: Micros) {
        if self.outcome.is_some() {
            return;
        }
        if self.config.client == Client::Fetch {
            self.arm(q, now, TimerKind::Headers);
            self.clear(q, now, TimerKind::Connect);
        }
        self.activity(q, now);
        self.enter(now, Phase::Ttfb);
        self.request_sent_at = Some(now);
        q.schedule_in(self.rtt / 2, Event::RequestArrives);
    }

    /// The server's code gets the request, whatever the client has done since sending it, and
    /// works on it to the end: a client giving up does not stop a handler.
    pub(super) fn request_arrives(&mut self, q: &mut EventQueue<Event>, now: Micros) {
        self.request_arrived_at = Some(now);
        let work = match self.config.fault {
            Fault::Silent => return,
            Fault::Slow => ms_to_us(self.config.server_ms),
            _ => HANDLER,
        };
        self.server_done_at = Some(now + work);
        q.schedule_in(work + self.rtt / 2, Event::HeadersArrive);
    }

    /// fetch resolves (node:http emits 'response'); the body read begins.
    pub(super) fn headers_arrive(&mut self, q: &mut EventQueue<Event>, now: Micros) {
        if self.outcome.is_some() {
            return; // the socket is gone: the answer arrives for nobody
        }
        self.response_at = Some(now);
        self.activity(q, now);
        self.enter(now, Phase::Body);
        match self.config.fault {
            Fault::Stall => {
                self.start_body_timer(q, now);
                self.body_chunks = 1; // the first chunk, then nothing
            }
            Fault::Trickle => {
                self.start_body_timer(q, now);
                q.schedule_in(ms_to_us(self.config.trickle_ms), Event::Byte);
            }
            _ => {
                // The whole body came with the headers.
                self.clear(q, now, TimerKind::Headers);
                self.complete(q, now);
            }
        }
    }

    pub(super) fn byte(&mut self, q: &mut EventQueue<Event>, now: Micros) {
        if self.outcome.is_some() {
            return;
        }
        self.body_chunks += 1;
        self.activity(q, now);
        self.reset(q, now, TimerKind::Body);
        q.schedule_in(ms_to_us(self.config.trickle_ms), Event::Byte);
    }

    /// The parser swaps its headers timer for the body timer. With equal values it keeps the
    /// one timer object and refreshes it (`Parser.setTimeout`), which matters to undici's clock.
    fn start_body_timer(&mut self, q: &mut EventQueue<Event>, now: Micros) {
        if self.config.client != Client::Fetch {
            return;
        }
        let c = &self.config;
        let same_timer = c.body_timeout_ms > 0.0 && c.body_timeout_ms == c.headers_timeout_ms;
        if same_timer && self.is_pending(TimerKind::Headers) {
            self.retire(q, now, TimerKind::Headers);
            self.clock.hand_over(TimerKind::Headers, TimerKind::Body);
        } else {
            self.clear(q, now, TimerKind::Headers);
        }
        self.arm(q, now, TimerKind::Body);
    }

    /// Socket activity: node:http's idle timer starts over.
    fn activity(&mut self, q: &mut EventQueue<Event>, now: Micros) {
        if self.config.client == Client::NodeHttp {
            self.reset(q, now, TimerKind::HttpIdle);
        }
    }

    pub(super) fn fire(&mut self, q: &mut EventQueue<Event>, now: Micros, kind: TimerKind) {
        let Some(t) = self.timers.iter_mut().find(|t| t.kind == kind && t.fires_at == Some(now)) else {
            self.stray_fires += 1;
            return;
        };
        t.key = None;
        t.fires_at = None;
        if t.fired_at.is_none() {
            t.fired_at = Some(now);
            t.fired_deadline = Some(t.deadline());
        }
        t.firings += 1;
        if kind.clock() == TimerClock::UndiciTick {
            self.clock.fired(kind);
        }
        let error = match kind {
            TimerKind::HttpIdle if !self.config.destroy_on_timeout => return, // an event, nothing more
            TimerKind::HttpIdle => CallError::Econnreset,
            TimerKind::Total if self.config.client == Client::Fetch => CallError::TimeoutError,
            TimerKind::Total => CallError::AbortError,
            TimerKind::Connect => CallError::ConnectTimeout,
            TimerKind::Headers => CallError::HeadersTimeout,
            TimerKind::Body => CallError::BodyTimeout,
            TimerKind::OsConnect => CallError::Etimedout,
        };
        self.fail(q, now, error, Some(kind));
    }

    fn fail(&mut self, q: &mut EventQueue<Event>, now: Micros, error: CallError, by: Option<TimerKind>) {
        self.end_attempts += 1;
        if self.outcome.is_some() {
            return;
        }
        self.outcome = Some(Outcome::Failed { error, by, at: now });
        if let Some(t) = by.and_then(|kind| self.timers.iter_mut().find(|t| t.kind == kind)) {
            t.ended_call = true;
        }
        self.stop(q, now);
        // The socket is destroyed now; the caller's await sees it a turn or two later.
        q.schedule_in(ms_to_us(self.config.error_delay_ms), Event::ErrorSurfaces);
        if std::mem::take(&mut self.connection_open) {
            self.server_saw_close_at = Some(now + self.rtt / 2);
        }
    }

    fn complete(&mut self, q: &mut EventQueue<Event>, now: Micros) {
        self.end_attempts += 1;
        if self.outcome.is_some() {
            return;
        }
        self.outcome = Some(Outcome::Completed { at: now });
        self.stop(q, now);
        self.enter(now, Phase::Done);
    }

    /// The call is over: every timer still set stops mattering and is withdrawn.
    fn stop(&mut self, q: &mut EventQueue<Event>, now: Micros) {
        for i in 0..self.timers.len() {
            let t = self.timers[i];
            if t.cleared_at.is_none() && !t.ended_call {
                self.clear(q, now, t.kind);
            }
        }
        if let Some(last) = self.phases.last_mut() {
            last.end.get_or_insert(now);
        }
    }

    fn enter(&mut self, now: Micros, phase: Phase) {
        if let Some(last) = self.phases.last_mut() {
            last.end = Some(now);
        }
        self.phases.push(PhaseSpan { phase, start: now, end: None });
    }
}
