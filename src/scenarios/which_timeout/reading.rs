//! What a which-timeout run means, in words. Every sentence is computed from the run at the
//! moment it is read, so it is true of the run on screen whatever the reader changed (the
//! tests check each claim against the metrics over random parameters).
//!
//! Keys: `first` (what fired first and why the others did not), `caller` (what the caller
//! sees), `server` (whether the request reached the server's code and the server did the
//! work), `retry` (whether a retry needs an idempotency key); with a failover (Chapter 1,
//! Break 5), `failover` (what the many calls saw: `failover_words.rs`) and `failover_outcome`
//! (the same without its setting).

use super::model::{ArmedTimer, Outcome, Phase, TimerClock, TimerKind, WhichTimeout};
use super::spec::{Client, Fault, WhichTimeoutConfig};
use crate::format;
use crate::sim::Explain;
use crate::sim::{MS, Micros, SEC};

crate::words! {
    /// What a which-timeout run means, in words (the keys above).
    pub struct WhichTimeoutWords {
        pub first: String,
        pub caller: String,
        pub server: String,
        pub retry: String,
        pub failover: Option<String>,
        pub failover_outcome: Option<String>,
    }
}

impl Explain for WhichTimeout {
    type Words = WhichTimeoutWords;

    fn words(&self, now: Micros) -> WhichTimeoutWords {
        self.words_at(now)
    }

    fn sweep_theory(c: &WhichTimeoutConfig, x: &str, _by: Option<&str>) -> Option<String> {
        sweep_theory(c, x)
    }
}

/// A moment for people: "2,502 ms" below 10 s, "10.5 s" or "301 s" above.
fn at(t: Micros) -> String {
    if t < 10 * SEC { format::us_as_ms(t) } else { format::seconds(t) }
}

/// A timeout as it was set: "2 s", "500 ms".
fn limit(t: Micros) -> String {
    format::duration_ms((t / MS) as f64)
}

impl WhichTimeout {
    pub(super) fn words_at(&self, now: Micros) -> WhichTimeoutWords {
        let (failover, failover_outcome) = self.failover_words(now).unzip();
        WhichTimeoutWords {
            first: self.first_sentence(),
            caller: self.caller_sentence(now),
            server: self.server_sentence(now),
            retry: self.retry_sentence(),
            failover,
            failover_outcome,
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

    fn first_sentence(&self) -> String {
        let head = match self.first_fired() {
            Some((kind, fired)) => self.fired_first(self.timer(kind).expect("a fired timer was armed"), fired),
            None => self.nothing_fired(),
        };
        let first = self.first_fired().map(|(k, _)| k);
        let others: Vec<String> =
            self.possible_timers().iter().filter(|&&k| Some(k) != first).filter_map(|&k| self.why_not(k)).collect();
        let node_has_none = if self.config.client == Client::NodeHttp {
            " node:http has no connect, headers or body timeout of its own."
        } else {
            ""
        };
        if others.is_empty() {
            format!("{head}{node_has_none}")
        } else {
            format!("{head} The others: {}.{node_has_none}", others.join("; "))
        }
    }

    fn fired_first(&self, t: &ArmedTimer, fired: Micros) -> String {
        let late = t.lateness().unwrap_or(0);
        // Under half a millisecond reads as 0 ms: on time, and nothing to explain.
        let on_time = late.unsigned_abs() < MS / 2;
        let off = if on_time {
            "on its deadline".to_string()
        } else if late >= 0 {
            format!("{} after its deadline", format::us_as_ms(late.unsigned_abs()))
        } else {
            format!("{} before its deadline", format::us_as_ms(late.unsigned_abs()))
        };
        let why = match (t.kind.clock(), on_time) {
            (TimerClock::UndiciTick, false) => ", because undici checks its timers only on its own 499 ms tick",
            (TimerClock::UndiciTick, true) => ", which fell on one of the 499 ms ticks undici checks its timers on",
            (TimerClock::NodeTimer, false) => ", as Node's own timers do",
            _ => "",
        };
        let what = if t.ended_call {
            String::new()
        } else {
            " It only emitted 'timeout': nothing destroyed the request.".to_string()
        };
        let counted = match t.fired_deadline.map(|d| d - t.timeout) {
            Some(from) if from > t.armed_at => format!(" (counting from the last activity at {})", at(from)),
            _ => String::new(),
        };
        format!(
            "First to fire: {} ({}), at {}{counted}: {off}{why}.{what}",
            t.kind.label(),
            limit(t.timeout),
            at(fired),
        )
    }

    fn nothing_fired(&self) -> String {
        match self.outcome {
            Some(Outcome::Completed { at: done }) => format!("No timer fired: the call completed at {}.", at(done)),
            Some(Outcome::Failed { error, at: when, .. }) => {
                format!("No timer fired: {} ended the call at {}.", error.id(), at(when))
            }
            None => "No timer has fired.".into(),
        }
    }

    /// Why `kind` did not fire (None when there is nothing to say, e.g. it fired as well).
    fn why_not(&self, kind: TimerKind) -> Option<String> {
        let label = kind.label();
        let Some(t) = self.timer(kind) else {
            return Some(if self.timeout_of(kind) == 0 {
                format!("{label} was not set")
            } else {
                format!("{label} was never armed: {}", armed_when(kind))
            });
        };
        if let Some(fired) = t.fired_at {
            return Some(format!("{label} fired too, at {}", at(fired)));
        }
        let ended = self.ended_at();
        Some(match (t.cleared_at, t.fires_at) {
            (Some(cleared), _) if Some(cleared) == ended => {
                format!("{label} was still counting (due at {}) when the call ended", at(t.deadline()))
            }
            (Some(cleared), _) => format!("{label} was cleared at {}, {}", at(cleared), cleared_when(kind)),
            (None, Some(due)) if t.is_idle_and_reset() => format!(
                "{label} ({}) starts over at every {}: {} so far, so it does not fire (next due at {})",
                limit(t.timeout),
                if kind == TimerKind::Body { "chunk" } else { "read or write" },
                format::counted(t.resets.into(), "reset", "resets"),
                at(due)
            ),
            (None, Some(due)) => format!("{label} is due at {}", at(due)),
            (None, None) => return None,
        })
    }

    fn caller_sentence(&self, now: Micros) -> String {
        let c = &self.config;
        match self.outcome {
            Some(Outcome::Failed { error, at: when, .. }) => {
                let seen = match self.error_seen_at {
                    Some(seen) => format!("The caller got {} at {}", error.as_caught(c.client), at(seen)),
                    None => format!(
                        "The socket was destroyed at {}; the caller's code gets {} a moment later",
                        at(when),
                        error.as_caught(c.client)
                    ),
                };
                let resolved = match (self.response_at, c.client) {
                    (Some(r), Client::Fetch) => format!(", after fetch had resolved at {}", at(r)),
                    (Some(r), Client::NodeHttp) => format!(", after the 'response' event at {}", at(r)),
                    (None, _) => String::new(),
                };
                format!("{seen}, during {}{resolved}.", phase_name(self.phase()))
            }
            Some(Outcome::Completed { at: done }) => {
                format!("The call succeeded: the response arrived and its body was complete at {}.", at(done))
            }
            None => self.still_open_sentence(now),
        }
    }

    fn still_open_sentence(&self, now: Micros) -> String {
        let c = &self.config;
        // Issue 24, case 12: only the pool-full fault holds the call in the pool.
        if self.phases().is_empty() {
            return "The call has not started yet.".to_string();
        }
        if self.phase() == Phase::Pool && c.fault != Fault::PoolFull {
            return format!("The call is taking a connection from the pool at {}.", at(now));
        }
        if self.phase() == Phase::Pool {
            return format!(
                "The call is still waiting for a connection at {}: all {} connections are held by hung calls, and \
                 only a total timeout started before the wait can end it.",
                at(now),
                c.pool_size
            );
        }
        let events = self.timeout_events();
        let head = if events > 0 {
            let first = self.timer(TimerKind::HttpIdle).and_then(|t| t.fired_at).unwrap_or(now);
            format!(
                "node:http emitted 'timeout' at {}{}, but nothing destroyed the request: it is still open at {}",
                at(first),
                if events > 1 { format!(" ({events} times)") } else { String::new() },
                at(now)
            )
        } else {
            format!("The call is still open at {}", at(now))
        };
        let body = if self.phase() == Phase::Body {
            format!(", reading the body ({} so far)", format::counted(self.body_chunks, "chunk", "chunks"))
        } else {
            format!(", in {}", phase_name(self.phase()))
        };
        let next =
            match self.timers.iter().filter_map(|t| t.fires_at.map(|due| (due, t.kind))).min_by_key(|&(due, _)| due) {
                Some((due, kind)) => format!(" The next timer due is {} at {}.", kind.label(), at(due)),
                None => " No timer is armed, so nothing will end it.".to_string(),
            };
        format!("{head}{body}.{next}")
    }

    fn server_sentence(&self, now: Micros) -> String {
        let Some(arrived) = self.request_arrived_at.filter(|&t| t <= now) else {
            if let Some(sent) = self.request_sent_at {
                return format!("The request was sent at {} and is on its way to the server.", at(sent));
            }
            let state = if self.still_open() { "is" } else { "ended" };
            return format!(
                "The request never reached the server's code: the call {state} in {}, {}.",
                phase_name(self.phase()),
                never_sent_because(self.phase())
            );
        };
        let close = match self.server_saw_close_at.filter(|&t| t <= now) {
            Some(t) => format!(" It saw the connection close at {}.", at(t)),
            None => String::new(),
        };
        let work = match self.server_done_at {
            Some(done) if done <= now => {
                let after = match self.ended_at().filter(|&e| e < done && self.error().is_some()) {
                    Some(e) => format!(", after the client had given up at {}", at(e)),
                    None => String::new(),
                };
                format!("and the server did the work (finished at {}{after}).", at(done))
            }
            Some(done) => format!("and its handler is still working (it finishes at {}).", at(done)),
            None => "and its handler never answered: the client cannot know whether it did the work.".into(),
        };
        format!("The request reached the server's code at {}, {work}{close}", at(arrived))
    }

    fn retry_sentence(&self) -> String {
        let Some(error) = self.error() else {
            return if self.completed_at().is_some() {
                "Nothing failed, so there is nothing to retry.".into()
            } else {
                "The call has not failed (yet), so there is no retry to decide.".into()
            };
        };
        if self.safe_to_retry_without_key() {
            let proof = if error.proves_not_sent() {
                format!("{} itself says so: it happens before any request is sent.", error.id())
            } else if self.phase() == Phase::Pool {
                format!(
                    "But the error alone does not say so: {} is what a slow server gives too. Only the pool wait \
                     ({}) in your logs shows it never left the process.",
                    error.id(),
                    format::us_as_ms(self.pool_wait(self.ended_at().unwrap_or(0)))
                )
            } else {
                format!(
                    "But the error alone does not say so: only knowing it failed in {} does.",
                    phase_name(self.phase())
                )
            };
            return format!("Safe to retry without an idempotency key: the request was never sent. {proof}");
        }
        if let (Some(headers), Some(_)) = (self.response_at(), self.server_done_at) {
            return format!(
                "A retry needs an idempotency key (or an idempotent method): the server answered (its headers arrived \
                 at {}), so it did the work, and a retry would do it again.",
                at(headers)
            );
        }
        let did = if self.server_done_at.is_some() {
            "the server did (or will do) the work"
        } else {
            "the server may have done the work"
        };
        format!(
            "A retry needs an idempotency key (or an idempotent method): the request had been sent, and {did}; {} \
             does not tell the client which.",
            error.id()
        )
    }
}

impl ArmedTimer {
    fn is_idle_and_reset(&self) -> bool {
        self.kind.is_idle() && self.resets > 0
    }
}

/// When a timer gets armed, for one that never was.
fn armed_when(kind: TimerKind) -> &'static str {
    match kind {
        TimerKind::Connect | TimerKind::HttpIdle => "it starts with the socket, and the call never got a connection",
        TimerKind::OsConnect => "the call never sent a SYN",
        TimerKind::Headers => "it starts when the request is sent, and the call never got that far",
        TimerKind::Body => "it starts when the headers arrive, and they never did",
        TimerKind::Total => "it starts with the call",
    }
}

/// Why a timer was cleared before the call ended: its phase was over.
fn cleared_when(kind: TimerKind) -> &'static str {
    match kind {
        TimerKind::Connect => "when the TLS handshake finished",
        TimerKind::OsConnect => "when the server answered the SYN",
        TimerKind::Headers => "when the headers arrived",
        TimerKind::Body | TimerKind::HttpIdle | TimerKind::Total => "when the call ended",
    }
}

fn never_sent_because(phase: Phase) -> &'static str {
    match phase {
        Phase::Pool => "so the request never left the process",
        Phase::Dns => "before the name was even resolved",
        Phase::Connect => "so no connection was ever made",
        Phase::Tls => "so the TLS handshake never finished and no HTTP request was sent",
        Phase::Ttfb | Phase::Body | Phase::Done => "before the request was sent",
    }
}

fn phase_name(phase: Phase) -> String {
    match phase {
        Phase::Done => "done".into(),
        p => format!("phase {} ({})", p as usize + 1, p.label()),
    }
}

/// Why the default sweep's curves (when the caller gave up against the total timeout, by fault)
/// look as they do, from the parameters.
pub fn sweep_theory(c: &WhichTimeoutConfig, x: &str) -> Option<String> {
    (x == WhichTimeoutConfig::total_timeout_ms).then(|| {
        format!(
            "The total timeout starts before the call and covers every phase: the wait for a connection, DNS, \
             connecting, TLS, the headers and the body. So a fault that hangs ends at the total timeout, a few \
             milliseconds later (timers fire up to {} late, and the error takes {} to reach your code), unless a \
             shorter timer covers that phase; a fault that ends by itself, as a refused connection does, ends when it \
             does, whatever the total. At 0 there is no total timeout.",
            format::ms(c.timer_late_ms),
            format::ms(c.error_delay_ms)
        )
    })
}
