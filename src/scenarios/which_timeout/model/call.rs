//! One call as a page reads it: its phases, the timers armed on it, the error the caller
//! gets and how it ended; and the events that move it on.

use super::super::spec::Client;
use crate::sim::{Micros, TimerKey};

/// The six phases of a call (Chapter 1, Part 1), and done.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
pub enum Phase {
    Pool,
    Dns,
    Connect,
    Tls,
    Ttfb,
    Body,
    Done,
}

impl Phase {
    /// The six phases, in order.
    pub const SIX: [Phase; 6] = [Phase::Pool, Phase::Dns, Phase::Connect, Phase::Tls, Phase::Ttfb, Phase::Body];

    pub fn id(self) -> &'static str {
        ["pool", "dns", "connect", "tls", "ttfb", "body", "done"][self as usize]
    }

    pub fn label(self) -> &'static str {
        ["Pool acquire", "DNS", "TCP connect", "TLS handshake", "Time to first byte", "Body", "Done"][self as usize]
    }
}

/// One phase as the call went through it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PhaseSpan {
    pub phase: Phase,
    pub start: Micros,
    /// None while the call is in it; a failed call's last phase ends when it failed.
    pub end: Option<Micros>,
}

/// The timers a call may arm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
pub enum TimerKind {
    /// `AbortSignal.timeout`, the call's signal.
    Total,
    /// undici's connect timeout.
    Connect,
    /// undici's headers timeout.
    Headers,
    /// undici's body (idle) timeout.
    Body,
    /// node:http's `timeout` option: the socket's idle timer.
    HttpIdle,
    /// The kernel's give-up on an unanswered connect.
    OsConnect,
}

/// What makes a timer fire when it does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerClock {
    /// On a tick of undici's 499 ms clock.
    UndiciTick,
    /// Node's own timer: `timer_late_ms` late.
    NodeTimer,
    /// The kernel: on time.
    Kernel,
}

impl TimerClock {
    pub fn id(self) -> &'static str {
        match self {
            TimerClock::UndiciTick => "undici-tick",
            TimerClock::NodeTimer => "node-timer",
            TimerClock::Kernel => "kernel",
        }
    }
}

impl TimerKind {
    pub fn id(self) -> &'static str {
        match self {
            TimerKind::Total => "total",
            TimerKind::Connect => "connect",
            TimerKind::Headers => "headers",
            TimerKind::Body => "body",
            TimerKind::HttpIdle => "http-timeout",
            TimerKind::OsConnect => "os-connect",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            TimerKind::Total => "AbortSignal.timeout",
            TimerKind::Connect => "undici's connect timeout",
            TimerKind::Headers => "undici's headersTimeout",
            TimerKind::Body => "undici's bodyTimeout",
            TimerKind::HttpIdle => "node:http's timeout",
            TimerKind::OsConnect => "the OS's connect give-up",
        }
    }

    pub fn clock(self) -> TimerClock {
        match self {
            TimerKind::Connect | TimerKind::Headers | TimerKind::Body => TimerClock::UndiciTick,
            TimerKind::Total | TimerKind::HttpIdle => TimerClock::NodeTimer,
            TimerKind::OsConnect => TimerClock::Kernel,
        }
    }

    /// Idle timers start over on activity instead of counting from when they were armed.
    pub fn is_idle(self) -> bool {
        matches!(self, TimerKind::Body | TimerKind::HttpIdle)
    }
}

/// One armed timer: the page draws it as a bar counting to its deadline, then its lateness.
#[derive(Clone, Copy, Debug)]
pub struct ArmedTimer {
    pub kind: TimerKind,
    pub timeout: Micros,
    pub armed_at: Micros,
    /// When it last started counting: armed, or reset by activity (idle timers).
    pub counting_from: Micros,
    /// When it is due to fire, while it is pending.
    pub fires_at: Option<Micros>,
    /// When it first fired.
    pub fired_at: Option<Micros>,
    /// Its deadline when it first fired (an idle timer's moves on with later activity).
    pub fired_deadline: Option<Micros>,
    /// When it was cleared without firing (its phase ended, or the call did).
    pub cleared_at: Option<Micros>,
    /// Whether its firing ended the call.
    pub ended_call: bool,
    /// How many times activity reset it.
    pub resets: u32,
    /// How many times it fired (node:http's idle timer can fire again after more activity).
    pub firings: u32,
    pub(super) key: Option<TimerKey>,
}

impl ArmedTimer {
    /// Its deadline as set: when it started counting plus its timeout.
    pub fn deadline(&self) -> Micros {
        self.counting_from + self.timeout
    }

    /// How late it first fired after its deadline, in µs: negative when early (undici's clock
    /// can fire a timer up to a tick before its deadline).
    pub fn lateness(&self) -> Option<i64> {
        Some(self.fired_at? as i64 - self.fired_deadline? as i64)
    }

    pub fn is_pending(&self) -> bool {
        self.key.is_some()
    }
}

/// What the caller's code gets when the call fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
pub enum CallError {
    ConnectTimeout,
    HeadersTimeout,
    BodyTimeout,
    /// fetch aborted by `AbortSignal.timeout`.
    TimeoutError,
    /// node:http aborted by `AbortSignal.timeout` (its cause is the TimeoutError).
    AbortError,
    /// The OS gave up on the connect.
    Etimedout,
    Econnrefused,
    /// node:http destroyed by the 'timeout' handler: "socket hang up".
    Econnreset,
}

impl CallError {
    pub fn id(self) -> &'static str {
        match self {
            CallError::ConnectTimeout => "UND_ERR_CONNECT_TIMEOUT",
            CallError::HeadersTimeout => "UND_ERR_HEADERS_TIMEOUT",
            CallError::BodyTimeout => "UND_ERR_BODY_TIMEOUT",
            CallError::TimeoutError => "TimeoutError",
            CallError::AbortError => "AbortError",
            CallError::Etimedout => "ETIMEDOUT",
            CallError::Econnrefused => "ECONNREFUSED",
            CallError::Econnreset => "ECONNRESET",
        }
    }

    /// Whether the error by itself says the request never reached the server.
    pub fn proves_not_sent(self) -> bool {
        matches!(self, CallError::ConnectTimeout | CallError::Etimedout | CallError::Econnrefused)
    }

    /// What the caller's `catch` holds, as Node prints it.
    pub fn as_caught(self, client: Client) -> String {
        match (client, self) {
            (_, CallError::TimeoutError) => "TimeoutError: The operation was aborted due to timeout".into(),
            (_, CallError::AbortError) => "AbortError: The operation was aborted (cause: TimeoutError)".into(),
            (Client::Fetch, e) => format!("TypeError: fetch failed (cause: {})", e.id()),
            (Client::NodeHttp, CallError::Econnreset) => "Error: socket hang up (ECONNRESET)".into(),
            (Client::NodeHttp, e) => format!("Error: connect {}", e.id()),
        }
    }
}

/// How the call ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
pub enum Outcome {
    /// The last byte of the body arrived.
    Completed { at: Micros },
    /// Something ended it with an error; `by` is the timer that fired, if a timer did.
    Failed { error: CallError, by: Option<TimerKind>, at: Micros },
}

#[derive(Clone, Copy, Debug)]
pub enum Event {
    Start,
    DnsAnswered,
    SynAcked,
    Refused,
    TlsDone,
    RequestArrives,
    HeadersArrive,
    Byte,
    Fire(TimerKind),
    Tick,
    ErrorSurfaces,
    /// Break 5's failover run: a call arrives; a connect to the new address completes; one to
    /// the old address fails, as the caller sees it; a query is answered (each on a pool slot).
    FleetArrives,
    FleetConnected(u32),
    FleetConnectFailed(u32),
    FleetAnswered(u32),
    /// A request written on a pooled connection to the old address gets no answer: whatever
    /// ends that wait fires.
    FleetRequestLost(u32),
    /// The name resolves to the new address: with `drop_pool_on_dns_change`, the pool drops its
    /// connections to the old one.
    FleetDnsChanged,
}
