//! What a which-timeout run shows, taken from the run once: which timer fired first, when,
//! how late and why; why the others did not; what the caller sees; whether the request reached
//! the server's code; whether a retry needs a key; what a failover's many calls saw
//! (`facts/failover.rs`). The sentences (`reading.rs`, `reading/failover.rs`) restate these
//! and nothing else, so the tests check each claim here against the metrics.

mod failover;

pub use failover::{Answered, FailoverFacts, Hangs, Lookup, PoolFull, Pooled};
use super::model::{ArmedTimer, CallError, Outcome, Phase, TimerClock, TimerKind, WhichTimeout};
use super::spec::{Client, Fault};
use super::undici_clock::ticks_for;
use crate::sim::{MS, Micros};

/// What a which-timeout run shows (times in µs from the start of the call).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
pub struct WhichTimeoutFacts {
    /// Which client makes the call.
    pub client: Client,
    /// The timer that fired first, if one did.
    pub first: Option<FirstFired>,
    /// How the call ended; None while it is still open.
    pub outcome: Option<Outcome>,
    /// Every other timer the client can have, in the order a call reaches them, and why it did not fire first.
    pub others: Vec<OtherTimer>,
    /// What the caller sees, or where the still-open call is.
    pub caller: Caller,
    /// Where the call was when it ended, or is now.
    pub phase: Phase,
    /// Whether the request reached the server's code, and what the server did.
    pub server: Server,
    /// Whether a retry needs an idempotency key, and what says so.
    pub retry: Retry,
    /// The error the caller got, if the call failed.
    pub error: Option<CallError>,
    /// Whether the error by itself says the request was never sent.
    pub error_proves_not_sent: bool,
    /// The request reached the server's code by now.
    pub reached_server_app: bool,
    /// The server's handler finished its work by now.
    pub server_did_work: bool,
    /// The call failed and the request was never sent.
    pub safe_to_retry_without_key: bool,
    /// How long the call waited for a connection of the pool.
    pub pool_wait_us: Micros,
    /// The moment these facts are of.
    pub now_us: Micros,
    /// What the failover's many calls saw (Chapter 1, Break 5); None without a failover.
    pub failover: Option<FailoverFacts>,
}

/// The timer that fired first.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
pub struct FirstFired {
    /// Which timer.
    pub kind: TimerKind,
    /// Its timeout as set.
    pub timeout_us: Micros,
    /// When its callback ran.
    pub fired_at_us: Micros,
    /// How late after its deadline it fired (negative: early).
    pub late_us: i64,
    /// Under half a millisecond off its deadline: reads as on time.
    pub on_time: bool,
    /// Why it fired when it did (None when there is nothing to explain).
    pub why: Option<WhyThen>,
    /// When an idle timer last started counting, if after it was armed.
    pub counted_from_us: Option<Micros>,
    /// Its firing ended the call (node:http's 'timeout' does not).
    pub ended_call: bool,
    /// An undici timer: the ticks of undici's clock that fired it.
    pub ticks: Option<UndiciTicks>,
}

/// How undici's clock fired a fast timer: on the `count`th of its ticks since the timer started
/// counting (the first whole number of 499 ms ticks, after the tick that takes it in, that
/// covers its timeout), the first tick `first_after_us` after that start, the rest `period_us`
/// apart. So it fired `first_after_us + (count - 1) × period_us` after it started counting.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
pub struct UndiciTicks {
    pub count: u64,
    pub first_after_us: Micros,
    /// 499 ms plus how late Node's timer fires each time.
    pub period_us: Micros,
}

/// Why the first timer fired when it did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
pub enum WhyThen {
    /// Late or early: undici fires a timer only on a tick of its own clock, once whole 499 ms
    /// ticks cover its timeout; the ticks come late as Node's timer does (see `ticks`).
    UndiciTick,
    /// On time: its deadline fell on one of undici's ticks.
    FellOnUndiciTick,
    /// Late as Node's own timers are (`timer_late_ms`).
    NodeTimerLate,
}

/// A timer that did not fire first, and why.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
pub struct OtherTimer {
    /// Which timer.
    pub kind: TimerKind,
    /// Why it did not fire first.
    pub why: NotFirst,
}

/// Why a timer did not fire first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
pub enum NotFirst {
    /// Its timeout is 0: the client did not set it.
    NotSet,
    /// Set, but the call never reached the moment it is armed.
    NeverArmed,
    /// It fired as well, later.
    FiredToo { at_us: Micros },
    /// Still counting when the call ended.
    StillCounting { due_us: Micros },
    /// Cleared before the call ended: its phase was over.
    Cleared { at_us: Micros },
    /// An idle timer that activity keeps resetting.
    StartsOver { timeout_us: Micros, resets: u32, next_due_us: Micros },
    /// Pending, due later.
    Due { at_us: Micros },
}

/// What the caller sees, or where the still-open call is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
pub enum Caller {
    /// The call failed: the socket was destroyed at `at_us`; the caller's code saw it at `seen_at_us`.
    Failed { error: CallError, at_us: Micros, seen_at_us: Option<Micros>, resolved_at_us: Option<Micros> },
    /// The body was complete.
    Succeeded { at_us: Micros },
    /// Before Play.
    NotStarted,
    /// Taking a free connection from the pool (nothing holds it there).
    TakingConnection,
    /// Every connection is held by a hung call (the pool-full fault).
    PoolFull { pool_size: u32 },
    /// Open past the pool: node:http's 'timeout' events so far, the chunks read if in the body, the next timer due.
    Open { timeout_events: u32, first_event_us: Option<Micros>, body_chunks: Option<u64>, next: Option<NextTimer> },
}

/// The next timer due on a still-open call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
pub struct NextTimer {
    /// Which timer.
    pub kind: TimerKind,
    /// When it is due.
    pub due_us: Micros,
}

/// Whether the request reached the server's code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
pub enum Server {
    /// Sent, not arrived yet.
    OnItsWay { sent_at_us: Micros },
    /// Never sent; `still_open` if the call is still waiting.
    NeverReached { still_open: bool },
    /// It arrived; what the handler did; when the server saw the close.
    Reached { at_us: Micros, work: Work, saw_close_at_us: Option<Micros> },
}

/// What the server's handler did with a request that arrived.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
pub enum Work {
    /// Finished, after the client had failed at `after_give_up_us` if it had.
    Done { at_us: Micros, after_give_up_us: Option<Micros> },
    /// Still working; it finishes at `done_at_us`.
    Working { done_at_us: Micros },
    /// It never answers.
    NeverAnswered,
}

/// Whether a retry needs an idempotency key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
pub enum Retry {
    /// The call succeeded.
    NothingFailed,
    /// The call is still open.
    NotFailedYet,
    /// Never sent, and the error itself says so.
    SafeErrorSays,
    /// Never sent, shown only by the pool wait (`pool_wait_us`) in the logs.
    SafePoolWait { pool_wait_us: Micros },
    /// Never sent, shown only by the phase it failed in.
    SafePhase,
    /// The server answered (headers at `headers_at_us`): it did the work.
    KeyServerAnswered { headers_at_us: Micros },
    /// Sent; the server did (or will do) the work if `server_works`, else it may have.
    KeySent { server_works: bool },
}

impl WhichTimeout {
    /// The facts of this run at `now`.
    pub fn facts(&self, now: Micros) -> WhichTimeoutFacts {
        WhichTimeoutFacts {
            client: self.config.client,
            first: self.first_fired_fact(),
            outcome: self.outcome(),
            others: self.other_timers(),
            caller: self.caller_fact(now),
            phase: self.phase(),
            server: self.server_fact(now),
            retry: self.retry_fact(),
            error: self.error(),
            error_proves_not_sent: self.error().is_some_and(CallError::proves_not_sent),
            reached_server_app: self.reached_server_app(now),
            server_did_work: self.server_did_work(now),
            safe_to_retry_without_key: self.safe_to_retry_without_key(),
            pool_wait_us: self.pool_wait(now),
            now_us: now,
            failover: self.failover_facts(now),
        }
    }

    /// The timers this client can have, in the order a call reaches them.
    fn possible_timers(&self) -> &'static [TimerKind] {
        match self.config.client {
            Client::Fetch => {
                &[TimerKind::Total, TimerKind::Connect, TimerKind::OsConnect, TimerKind::Headers, TimerKind::Body]
            }
            Client::NodeHttp => &[TimerKind::Total, TimerKind::HttpIdle, TimerKind::OsConnect],
        }
    }

    /// The timers this client has that are set to 0: off, never armed (undici and node:http
    /// both read 0 as "no timeout").
    pub fn timers_off(&self) -> impl Iterator<Item = TimerKind> + '_ {
        self.possible_timers().iter().copied().filter(|&k| self.timeout_of(k) == 0)
    }

    fn first_fired_fact(&self) -> Option<FirstFired> {
        let (kind, fired) = self.first_fired()?;
        let t = self.timer(kind).expect("a fired timer was armed");
        let late = t.lateness().unwrap_or(0);
        // Under half a millisecond reads as 0 ms: on time, and no lateness to explain.
        let on_time = late.unsigned_abs() < MS / 2;
        let why = match (t.kind.clock(), on_time) {
            (TimerClock::UndiciTick, false) => Some(WhyThen::UndiciTick),
            (TimerClock::UndiciTick, true) => Some(WhyThen::FellOnUndiciTick),
            (TimerClock::NodeTimer, false) => Some(WhyThen::NodeTimerLate),
            _ => None,
        };
        Some(FirstFired {
            kind,
            timeout_us: t.timeout,
            fired_at_us: fired,
            late_us: late,
            on_time,
            why,
            counted_from_us: t.fired_deadline.map(|d| d - t.timeout).filter(|&from| from > t.armed_at),
            ended_call: t.ended_call,
            ticks: self.undici_ticks(t, fired),
        })
    }

    /// The ticks that fired undici timer `t` at `fired` (None for any other clock).
    fn undici_ticks(&self, t: &ArmedTimer, fired: Micros) -> Option<UndiciTicks> {
        if t.kind.clock() != TimerClock::UndiciTick {
            return None;
        }
        let count = ticks_for(t.timeout / MS);
        let period_us = self.undici_clock().period();
        let started = t.fired_deadline? - t.timeout;
        let first_after_us = (fired - (count - 1) * period_us).checked_sub(started)?;
        Some(UndiciTicks { count, first_after_us, period_us })
    }

    fn other_timers(&self) -> Vec<OtherTimer> {
        let first = self.first_fired().map(|(k, _)| k);
        let others = self.possible_timers().iter().filter(|&&k| Some(k) != first);
        others.filter_map(|&kind| Some(OtherTimer { kind, why: self.why_not(kind)? })).collect()
    }

    /// Why `kind` did not fire first (None when there is nothing to say).
    fn why_not(&self, kind: TimerKind) -> Option<NotFirst> {
        let Some(t) = self.timer(kind) else {
            return Some(if self.timeout_of(kind) == 0 { NotFirst::NotSet } else { NotFirst::NeverArmed });
        };
        if let Some(at_us) = t.fired_at {
            return Some(NotFirst::FiredToo { at_us });
        }
        Some(match (t.cleared_at, t.fires_at) {
            (Some(cleared), _) if Some(cleared) == self.ended_at() => NotFirst::StillCounting { due_us: t.deadline() },
            (Some(at_us), _) => NotFirst::Cleared { at_us },
            (None, Some(next_due_us)) if is_idle_and_reset(t) => {
                NotFirst::StartsOver { timeout_us: t.timeout, resets: t.resets, next_due_us }
            }
            (None, Some(at_us)) => NotFirst::Due { at_us },
            (None, None) => return None,
        })
    }

    fn caller_fact(&self, now: Micros) -> Caller {
        match self.outcome() {
            Some(Outcome::Failed { error, at, .. }) => {
                Caller::Failed { error, at_us: at, seen_at_us: self.error_seen_at(), resolved_at_us: self.response_at() }
            }
            Some(Outcome::Completed { at }) => Caller::Succeeded { at_us: at },
            None => self.open_fact(now),
        }
    }

    fn open_fact(&self, now: Micros) -> Caller {
        // Issue 24, case 12: only the pool-full fault holds the call in the pool.
        match (self.phases().is_empty(), self.phase()) {
            (true, _) => return Caller::NotStarted,
            (false, Phase::Pool) if self.config.fault == Fault::PoolFull => {
                return Caller::PoolFull { pool_size: self.config.pool_size };
            }
            (false, Phase::Pool) => return Caller::TakingConnection,
            _ => {}
        }
        let events = self.timeout_events();
        let first_event = self.timer(TimerKind::HttpIdle).and_then(|t| t.fired_at).unwrap_or(now);
        let next = self.timers().iter().filter_map(|t| t.fires_at.map(|due_us| NextTimer { kind: t.kind, due_us }));
        Caller::Open {
            timeout_events: events,
            first_event_us: (events > 0).then_some(first_event),
            body_chunks: (self.phase() == Phase::Body).then_some(self.body_chunks()),
            next: next.min_by_key(|n| n.due_us),
        }
    }

    fn server_fact(&self, now: Micros) -> Server {
        let Some(at_us) = self.request_arrived_at().filter(|&t| t <= now) else {
            return match self.request_sent_at() {
                Some(sent_at_us) => Server::OnItsWay { sent_at_us },
                None => Server::NeverReached { still_open: self.still_open() },
            };
        };
        let work = match self.server_done_at() {
            Some(done) if done <= now => Work::Done {
                at_us: done,
                after_give_up_us: self.ended_at().filter(|&e| e < done && self.error().is_some()),
            },
            Some(done_at_us) => Work::Working { done_at_us },
            None => Work::NeverAnswered,
        };
        Server::Reached { at_us, work, saw_close_at_us: self.server_saw_close_at().filter(|&t| t <= now) }
    }

    fn retry_fact(&self) -> Retry {
        let Some(error) = self.error() else {
            return if self.completed_at().is_some() { Retry::NothingFailed } else { Retry::NotFailedYet };
        };
        if self.safe_to_retry_without_key() {
            return if error.proves_not_sent() {
                Retry::SafeErrorSays
            } else if self.phase() == Phase::Pool {
                Retry::SafePoolWait { pool_wait_us: self.pool_wait(self.ended_at().unwrap_or(0)) }
            } else {
                Retry::SafePhase
            };
        }
        match (self.response_at(), self.server_done_at()) {
            (Some(headers_at_us), Some(_)) => Retry::KeyServerAnswered { headers_at_us },
            _ => Retry::KeySent { server_works: self.server_done_at().is_some() },
        }
    }
}

fn is_idle_and_reset(t: &ArmedTimer) -> bool {
    t.kind.is_idle() && t.resets > 0
}
