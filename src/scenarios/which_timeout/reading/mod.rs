//! What a which-timeout run means, in words. Every key is
//! rendered from the run's facts only ([`WhichTimeoutFacts`], taken once at the moment read), so
//! each restates facts the tests check against the metrics over random parameters.
//!
//! Keys: `first` (what fired first and why the others did not), `caller` (what the caller
//! sees), `server` (whether the request reached the server's code and the server did the
//! work), `retry` (whether a retry needs an idempotency key) and `retry_note` (why, in a few
//! words, under its card); with a failover (Chapter 1,
//! Break 5), `failover` (what the many calls saw: `reading/failover.rs`) and `failover_outcome`
//! (the same without its setting).

mod failover;
mod fault;

pub use fault::{caller_cell, chapter_cell, first_fired_cell, retry_cell, work_cell};
use failover::failover_words;
use super::facts::{
    Caller, FirstFired, NextTimer, NotFirst, OtherTimer, Retry, Server, UndiciTicks, WhichTimeoutFacts, WhyThen, Work,
};
use super::undici_clock::TICK_MS;
use super::model::{CallError, Outcome, Phase, TimerKind, WhichTimeout};
use super::spec::{Client, WhichTimeoutConfig};
use crate::format;
use crate::sim::{Caption, Explain, Shown};
use crate::sim::{MS, Micros};
use crate::sim::scenario::Quote;
use super::spec::WhichTimeoutMetrics;

crate::words! {
    /// What a which-timeout run means, in words (the keys above).
    pub struct WhichTimeoutWords {
        pub first: String,
        pub caller: String,
        pub server: String,
        pub retry: String,
        pub retry_note: String,
        pub failover: Option<String>,
        pub failover_outcome: Option<String>,
    }
}

impl Explain for WhichTimeout {
    type Facts = super::WhichTimeoutFacts;
    type Words = WhichTimeoutWords;

    fn facts(&self, now: Micros) -> super::WhichTimeoutFacts {
        WhichTimeout::facts(self, now)
    }

    fn words(&self, facts: &super::WhichTimeoutFacts) -> WhichTimeoutWords {
        self.words_at(facts)
    }

    /// With a failover, its calls and what they saw; else the call's cards and which timer fired
    /// first (why the others did not is the full page's detail).
    fn caption(_config: &WhichTimeoutConfig, words: &WhichTimeoutWords) -> Caption {
        match words.failover_outcome {
            Some(_) => Caption::of(super::spec::FAILOVER_HEADLINE, WhichTimeoutWords::failover_outcome.key),
            None => Caption { shown: Shown::FirstSentence, ..Caption::of(super::spec::HEADLINE, WhichTimeoutWords::first.key) },
        }
    }

    fn sweep_theory(c: &WhichTimeoutConfig, x: &str, _by: Option<&str>) -> Option<String> {
        sweep_theory(c, x)
    }
}

/// A timeout as it was set: "2 s", "500 ms".
fn limit(t: Micros) -> String {
    format::duration_ms((t / MS) as f64)
}

impl WhichTimeout {
    pub(super) fn words_at(&self, facts: &super::WhichTimeoutFacts) -> WhichTimeoutWords {
        let failover = facts.failover.map(|f| failover_words(&f, facts.client, &self.config));
        let (failover, failover_outcome) = failover.unzip();
        WhichTimeoutWords {
            first: first_sentence(facts),
            caller: caller_sentence(facts),
            server: server_sentence(facts),
            retry: retry_sentence(facts),
            retry_note: retry_note(facts.retry).to_string(),
            failover,
            failover_outcome,
        }
    }
}

/// What fired first (or that nothing did), and why each other timer did not.
pub fn first_sentence(f: &WhichTimeoutFacts) -> String {
    let head = match &f.first {
        Some(first) => fired_first(first, &f.caller),
        None => nothing_fired(f),
    };
    let others: Vec<String> = f.others.iter().map(|o| why_not(o, &f.caller)).collect();
    let node_has_none = if f.client == Client::NodeHttp {
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

fn fired_first(t: &FirstFired, caller: &Caller) -> String {
    let off_by = format::us_as_ms(t.late_us.unsigned_abs());
    let off = match (t.on_time, t.late_us >= 0) {
        (true, _) => "on its deadline".to_string(),
        (false, true) => format!("{off_by} after its deadline"),
        (false, false) => format!("{off_by} before its deadline"),
    };
    let ticks = t.ticks.filter(|_| t.why == Some(WhyThen::UndiciTick));
    let why = match (t.why, ticks) {
        (Some(WhyThen::UndiciTick), Some(ticks)) => format!(", on tick {} of undici's clock", format::count(ticks.count)),
        (Some(WhyThen::FellOnUndiciTick), _) => ", which fell on one of undici's ticks".into(),
        (Some(WhyThen::NodeTimerLate), _) => ", as Node's own timers do".into(),
        _ => String::new(),
    };
    // The moment the caller's code saw the error, as its card ("Gave up at") shows it.
    let seen = match caller {
        Caller::Failed { seen_at_us: Some(seen), .. } if t.ended_call => {
            format!("; the caller saw the error at {}", format::moment(*seen))
        }
        _ => String::new(),
    };
    let what = if t.ended_call { "" } else { " It only emitted 'timeout': nothing destroyed the request." };
    let counted = match t.counted_from_us {
        Some(from) => format!(" (counting from the last activity at {})", format::moment(from)),
        None => String::new(),
    };
    let how = ticks.map_or(String::new(), |ticks| format!(" {}", tick_count(ticks)));
    format!(
        "First to fire: {} ({}), at {}{counted}: {off}{why}{seen}.{how}{what}",
        t.kind.label(),
        limit(t.timeout_us),
        format::moment(t.fired_at_us),
    )
}

/// Why an undici timer fired when it did: it counts whole ticks of 499 ms, but the ticks come
/// as Node's timer fires them, and the first whenever the clock's phase puts it.
fn tick_count(ticks: UndiciTicks) -> String {
    let counted = ticks.count * TICK_MS * MS;
    let late = ticks.period_us.saturating_sub(TICK_MS * MS);
    let node = if late > 0 { format!(" (Node's timer fires {} late each time)", format::us_as_ms(late)) } else { String::new() };
    format!(
        "That clock fires a timer once the ticks counted since the timer started, 499 ms each, cover its timeout \
         ({} × 499 ms = {}), never on the tick that takes it in; its ticks came {} apart{node}, the first {} after \
         the timer started.",
        format::count(ticks.count),
        format::us_as_ms(counted),
        format::us_as_ms(ticks.period_us),
        format::us_as_ms(ticks.first_after_us),
    )
}

fn nothing_fired(f: &WhichTimeoutFacts) -> String {
    match f.outcome {
        Some(Outcome::Completed { at: done }) => format!("No timer fired: the call completed at {}.", format::moment(done)),
        Some(Outcome::Failed { error, at: when, .. }) => {
            // The moment the caller's code saw it, as its card ("Gave up at") shows it, when
            // that is later (issue 45: "ended the call at 1,000 ms" beside a card of 1,008 ms).
            let seen = match f.caller {
                Caller::Failed { seen_at_us: Some(seen), .. } if seen != when => {
                    format!("; the caller saw the error at {}", format::moment(seen))
                }
                _ => String::new(),
            };
            format!("No timer fired: {} ended the call at {}{seen}.", error.id(), format::moment(when))
        }
        None => "No timer has fired.".into(),
    }
}

fn why_not(o: &OtherTimer, caller: &Caller) -> String {
    let label = o.kind.label();
    match o.why {
        NotFirst::NotSet => format!("{label} was not set"),
        NotFirst::NeverArmed => format!("{label} was never armed: {}", armed_when(o.kind)),
        // Which ended the call, with when the caller saw it (its card's moment, close to the
        // timer's but not it: "fired too, at 263 s" alone beside a card of 264 s reads as a slip).
        NotFirst::FiredToo { at_us } => match caller {
            Caller::Failed { at_us: ended, seen_at_us: Some(seen), .. } if *ended == at_us => format!(
                "{label} fired too, at {}, and ended the call; the caller saw the error at {}",
                format::moment(at_us),
                format::moment(*seen)
            ),
            _ => format!("{label} fired too, at {}", format::moment(at_us)),
        },
        NotFirst::StillCounting { due_us } => {
            format!("{label} was still counting (due at {}) when the call ended", format::moment(due_us))
        }
        NotFirst::Cleared { at_us } => format!("{label} was cleared at {}, {}", format::moment(at_us), cleared_when(o.kind)),
        NotFirst::StartsOver { timeout_us, resets, next_due_us } => format!(
            "{label} ({}) starts over at every {}: {} so far, so it does not fire (next due at {})",
            limit(timeout_us),
            if o.kind == TimerKind::Body { "chunk" } else { "read or write" },
            format::counted(resets.into(), "reset", "resets"),
            format::moment(next_due_us)
        ),
        NotFirst::Due { at_us } => format!("{label} is due at {}", format::moment(at_us)),
    }
}

/// What the caller sees, or where the still-open call is.
pub fn caller_sentence(f: &WhichTimeoutFacts) -> String {
    match f.caller {
        Caller::Failed { error, at_us, seen_at_us, resolved_at_us } => {
            let seen = match seen_at_us {
                // The moment its card ("Gave up at") shows, as the card shows it.
                Some(seen) => format!("The caller got {} at {}", error.as_caught(f.client), format::moment(seen)),
                None => format!(
                    "The socket was destroyed at {}; the caller's code gets {} a moment later",
                    format::moment(at_us),
                    error.as_caught(f.client)
                ),
            };
            let resolved = match (resolved_at_us, f.client) {
                (Some(r), Client::Fetch) => format!(", after fetch had resolved at {}", format::moment(r)),
                (Some(r), Client::NodeHttp) => format!(", after the 'response' event at {}", format::moment(r)),
                (None, _) => String::new(),
            };
            format!("{seen}, during {}{resolved}.", phase_name(f.phase))
        }
        Caller::Succeeded { at_us } => {
            format!("The call succeeded: the response arrived and its body was complete at {}.", format::moment(at_us))
        }
        Caller::NotStarted => "The call has not started yet.".to_string(),
        Caller::TakingConnection => format!("The call is taking a connection from the pool at {}.", format::moment(f.now_us)),
        Caller::PoolFull { pool_size } => format!(
            "The call is still waiting for a connection at {}: all {pool_size} connections are held by hung calls, \
             and only a total timeout started before the wait can end it.",
            format::moment(f.now_us)
        ),
        Caller::Open { timeout_events, first_event_us, body_chunks, next } => {
            still_open_sentence(f, timeout_events, first_event_us, body_chunks, next)
        }
    }
}

fn still_open_sentence(
    f: &WhichTimeoutFacts,
    events: u32,
    first_event: Option<Micros>,
    body_chunks: Option<u64>,
    next: Option<NextTimer>,
) -> String {
    let now = format::moment(f.now_us);
    let head = match first_event {
        Some(first) => format!(
            "node:http emitted 'timeout' at {}{}, but nothing destroyed the request: it is still open at {now}",
            format::moment(first),
            if events > 1 { format!(" ({events} times)") } else { String::new() },
        ),
        None => format!("The call is still open at {now}"),
    };
    let body = match body_chunks {
        Some(chunks) => format!(", reading the body ({} so far)", format::counted(chunks, "chunk", "chunks")),
        None => format!(", in {}", phase_name(f.phase)),
    };
    let next = match next {
        Some(n) => format!(" The next timer due is {} at {}.", n.kind.label(), format::moment(n.due_us)),
        None => " No timer is armed, so nothing will end it.".to_string(),
    };
    format!("{head}{body}.{next}")
}

/// Whether the request reached the server's code and the server did the work.
pub fn server_sentence(f: &WhichTimeoutFacts) -> String {
    let (arrived, work, saw_close) = match f.server {
        Server::OnItsWay { sent_at_us } => {
            return format!("The request was sent at {} and is on its way to the server.", format::moment(sent_at_us));
        }
        Server::NeverReached { still_open } => {
            return format!(
                "The request never reached the server's code: the call {} in {}, {}.",
                if still_open { "is" } else { "ended" },
                phase_name(f.phase),
                never_sent_because(f.phase)
            );
        }
        Server::Reached { at_us, work, saw_close_at_us } => (at_us, work, saw_close_at_us),
    };
    let close = match saw_close {
        Some(t) => format!(" It saw the connection close at {}.", format::moment(t)),
        None => String::new(),
    };
    let work = match work {
        Work::Done { at_us, after_give_up_us } => {
            let after = match after_give_up_us {
                Some(e) => format!(", after the client had given up at {}", format::moment(e)),
                None => String::new(),
            };
            format!("and the server did the work (finished at {}{after}).", format::moment(at_us))
        }
        Work::Working { done_at_us } => format!("and its handler is still working (it finishes at {}).", format::moment(done_at_us)),
        Work::NeverAnswered => "and its handler never answered: the client cannot know whether it did the work.".into(),
    };
    format!("The request reached the server's code at {}, {work}{close}", format::moment(arrived))
}

/// Whether a retry needs an idempotency key, and what says so.
pub fn retry_sentence(f: &WhichTimeoutFacts) -> String {
    let error = f.error.map_or("", CallError::id);
    let safe = "Safe to retry without an idempotency key: the request was never sent.";
    let key = "A retry needs an idempotency key (or an idempotent method):";
    match f.retry {
        Retry::NothingFailed => "Nothing failed, so there is nothing to retry.".into(),
        Retry::NotFailedYet => "The call has not failed (yet), so there is no retry to decide.".into(),
        Retry::SafeErrorSays => format!("{safe} {error} itself says so: it happens before any request is sent."),
        Retry::SafePoolWait { pool_wait_us } => format!(
            "{safe} But the error alone does not say so: {error} is what a slow server gives too. Only the pool \
             wait ({}) in your logs shows it never left the process.",
            format::us_as_ms(pool_wait_us)
        ),
        Retry::SafePhase => format!(
            "{safe} But the error alone does not say so: only knowing it failed in {} does.",
            phase_name(f.phase)
        ),
        Retry::KeyServerAnswered { headers_at_us } => format!(
            "{key} the server answered (its headers arrived at {}), so it did the work, and a retry would do it again.",
            format::moment(headers_at_us)
        ),
        Retry::KeySent { server_works } => format!(
            "{key} the request had been sent, and {}; {error} does not tell the client which.",
            if server_works { "the server did (or will do) the work" } else { "the server may have done the work" }
        ),
    }
}

/// The few words under the "safe to retry" card (a figure's card has one line): why, from
/// the same fact as [`retry_sentence`].
pub fn retry_note(retry: Retry) -> &'static str {
    match retry {
        Retry::NothingFailed => "nothing failed",
        Retry::NotFailedYet => "not failed (yet)",
        Retry::SafeErrorSays | Retry::SafePoolWait { .. } | Retry::SafePhase => "request never sent",
        Retry::KeyServerAnswered { .. } => "the server answered",
        Retry::KeySent { .. } => "request already sent",
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

/// Which sentences quote which cards (see [`Quote`]).
/// The first timer's sentence and the caller's quote when the caller's code saw the error (the
/// firing itself reads in seconds from 10 s on); the failover's verdict, its cards.
pub static QUOTES: &[Quote] = &[
    Quote { reading: WhichTimeoutWords::first.key, metrics: &[WhichTimeoutMetrics::gave_up_ms.key()] },
    Quote { reading: WhichTimeoutWords::caller.key, metrics: &[WhichTimeoutMetrics::gave_up_ms.key()] },
    Quote { reading: WhichTimeoutWords::failover_outcome.key, metrics: &[WhichTimeoutMetrics::failover_ok.key(), WhichTimeoutMetrics::failover_failed.key(), WhichTimeoutMetrics::failover_pool_full_at_ms.key(), WhichTimeoutMetrics::failover_slowest_ok_ms.key()] },
];
