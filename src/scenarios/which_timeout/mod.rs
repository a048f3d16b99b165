//! Chapter 1, Parts 1–2: "a timeout on what?" One outbound call passes through six phases
//! (pool acquire, DNS, TCP connect, TLS handshake, time to first byte, body); a fault makes
//! one of them hang, and every timer the client armed races to end the call. The first to
//! fire decides what the caller sees; where the call was decides whether a retry needs an
//! idempotency key (Chapter 2, Part 2: "sort them by where they failed").
//!
//! Everything happens through events on the queue. The network and the server are plain
//! events (a round trip per DNS answer, SYN/SYN-ACK and TLS 1.3 handshake, half of one for the
//! request and the answer); every timer is a cancellable timer that fires by its own clock:
//!
//! - undici's connect, headers and body timeouts are "fast timers" (see [`UndiciClock`]):
//!   they fire on a tick of undici's own 499 ms clock, which is why the chapter measured
//!   them about half a second late (2,000 ms → 2,502 ms, 1,000 ms → 1,501 ms).
//! - `AbortSignal.timeout` and node:http's `timeout` are Node's own timers: `timer_late_ms` late.
//! - The operating system's give-up on an unanswered connect is the kernel's (on time).
//!
//! What the clients arm, from undici's source (`lib/core/connect.js`, `lib/core/util.js`,
//! `lib/dispatcher/client-h1.js`) and Node's documentation:
//!
//! - fetch: the connect timeout is armed when the socket is created, before the DNS lookup,
//!   and cleared on `secureConnect`, so it covers DNS, TCP and TLS and raises
//!   `UND_ERR_CONNECT_TIMEOUT`. The headers timeout is armed when the request is dispatched on
//!   the connection. When the headers arrive the parser replaces it with the body timeout
//!   (refreshing the same timer when both values are equal), and every body chunk refreshes
//!   the body timeout: it is an idle timer, so a trickle resets it forever.
//! - node:http: no connect, headers or body timeout. Its `timeout` option sets the socket's
//!   idle timer before the socket connects; every read or write resets it, and when it fires
//!   it only emits `'timeout'`. Unless the handler destroys the request (`destroy_on_timeout`),
//!   the request stays open. A connect that is never answered is ended by the OS (`ETIMEDOUT`).
//! - `AbortSignal.timeout` (`total_timeout_ms`, either client) is created before the call, so
//!   it covers everything from the pool wait to the last byte of the body.
//!
//! Where the defaults come from: undici's own (connect 10,000 ms from `buildConnector`,
//! headers and body 300,000 ms), the chapter's Part 2 table (no total timeout, a pool of 10 in
//! the pool-wait run, macOS's 75 s), Linux's `tcp_syn_retries` = 6 (1 + 2 + … + 64 = 127 s).
//! The small delays are fitted to the chapter's measured table: `timer_late_ms` 1 (Node's
//! timers fire about a millisecond late, so undici's tick is 500 ms) and `error_delay_ms` 2
//! (from the callback that destroys the socket to the caller's `await` rejecting). `rtt_ms` 1
//! is a connect inside one region (Part 1). The model has no randomness: the seed changes
//! nothing.
//!
//! The chapter's two 10 s connect timeouts came out differently: 10.5 s against the blackhole,
//! 10.0 s against the server that never speaks TLS. A timer alone in undici's list restarts the
//! clock and cannot fire before 21 × 500 ms = 10.5 s; 10.0 s needs the clock already running
//! (other calls' timers in the list) and ticking just after the call started. The
//! `fetch-no-tls` preset says so (`other_calls`, `tick_phase_ms` 0); the reader can move the
//! phase and watch the same timeout fire anywhere from 10.0 to 10.5 s.
//!
//! Choices where the chapter is silent: the call is to an https:// URL on a new connection (so
//! all six phases happen); a healthy handler answers in 1 ms with the whole body; with
//! `pool-full` the hung calls hold their connections for the whole run; with `silent` the
//! handler never finishes (so the server did not do the work, and the client cannot know).

mod reading;
mod undici_clock;

pub use undici_clock::{TICK_MS, UndiciClock, ticks_for};

use crate::sim::model::ModelOf;
use crate::sim::rng::ms_to_us;
use crate::sim::base::MAX_DURATION_MS;
use crate::sim::scenario::SweepDefault;
use crate::sim::{
    EventQueue, Host, MS, MetricSpec, Micros, Model, ParamSpec, Preset, SEC, ScenarioSpec, Simulation,
    TimerKey, Value,
};

/// A healthy server's handler: what it needs before it answers.
const HANDLER: Micros = MS;
/// macOS gives up on a connect after 75 s (the chapter's measurement; `net.inet.tcp.keepinit`).
const MACOS_CONNECT_GIVE_UP: Micros = 75 * SEC;
/// Linux's first SYN retransmission comes after 1 s, and each wait doubles.
const LINUX_INITIAL_RTO: Micros = SEC;
/// How long a run goes on after the outcome is settled, so the end is visible.
const TAIL: Micros = SEC;
/// A call that never ends is watched for this many times its longest timer still armed (the
/// chapter watched a 1 s timeout to 3.5 s and a 2 s one to 7 s) …
const WATCH_FACTOR: f64 = 3.5;
/// … or this long when no timer is armed at all.
const DEFAULT_WATCH: Micros = 10 * SEC;
/// The run at the defaults: fetch against a silent server, ended by undici's headers timeout.
const DEFAULT_DURATION_MS: u64 = 302_100;

crate::choice! {
    /// What goes wrong on the way, and so which phase hangs.
    pub enum Fault {
        None = ("none", "Nothing",
            "A healthy server: the call goes through all six phases and completes."),
        PoolFull = ("pool-full", "Pool full",
            "Every pooled connection to the host is held by a hung call, so this call waits inside your process."),
        DnsSlow = ("dns-slow", "Slow DNS",
            "The resolver answers only after the DNS time set below; then all is well."),
        Blackhole = ("blackhole", "Blackholed address",
            "SYNs are dropped, as by a dead host behind a firewall: the connect is never answered."),
        Refused = ("refused", "Connection refused",
            "Nothing listens on the port: the host answers the SYN with a reset."),
        NoTls = ("no-tls", "Never speaks TLS",
            "A plain TCP server: it accepts the connection and never answers the TLS handshake."),
        Silent = ("silent", "Silent server",
            "It reads the request and never answers."),
        Stall = ("stall", "Body stalls",
            "The headers and a first chunk arrive, then the body stops."),
        Trickle = ("trickle", "Body trickles",
            "The headers arrive, then one byte at a time, forever (one a second by default)."),
        Slow = ("slow", "Slow server",
            "It answers, but only after the server time set below."),
    }
}

crate::choice! {
    /// Which Node client makes the call.
    pub enum Client {
        Fetch = ("fetch", "fetch (undici)",
            "Node's built-in fetch: undici's connect, headers and body timeouts, and an AbortSignal if you pass one."),
        NodeHttp = ("node-http", "node:http",
            "https.request: no connect, headers or body timeout; only the socket's idle 'timeout' event and an AbortSignal."),
    }
}

crate::choice! {
    /// Whose kernel gives up on a connect that is never answered.
    pub enum Os {
        Linux = ("linux", "Linux",
            "The kernel resends an unanswered SYN tcp_syn_retries times, doubling the wait from 1 s: 127 s with the default 6."),
        Macos = ("macos", "macOS",
            "The kernel gives up on a connect after 75 s."),
    }
}

crate::config! {
    /// What the which-timeout model reads from its parameters.
    pub struct WhichTimeoutConfig in PARAMS {
        pub fault: Fault = ParamSpec::choice("fault", "What goes wrong", Fault::OPTIONS, Fault::Silent as usize,
            "Which phase of the call hangs, and how."),
        pub client: Client = ParamSpec::choice("client", "Client", Client::OPTIONS, Client::Fetch as usize,
            "Which Node client makes the call: each arms different timers."),
        pub connect_timeout_ms: f64 = ParamSpec::number("connect_timeout_ms", "Connect timeout (undici)", "ms",
            10_000.0, (0.0, 600_000.0, 100.0),
            "fetch only: undici's connect.timeout. It covers DNS, TCP and the TLS handshake. 0 turns it off; \
             undici's default is 10,000."),
        pub headers_timeout_ms: f64 = ParamSpec::number("headers_timeout_ms", "Headers timeout (undici)", "ms",
            300_000.0, (0.0, 600_000.0, 100.0),
            "fetch only: undici's headersTimeout, from sending the request to the response headers. 0 turns it \
             off; the default is 300,000."),
        pub body_timeout_ms: f64 = ParamSpec::number("body_timeout_ms", "Body timeout (undici)", "ms",
            300_000.0, (0.0, 600_000.0, 100.0),
            "fetch only: undici's bodyTimeout, the longest silence between two chunks of the body (every chunk \
             resets it). 0 turns it off; the default is 300,000."),
        pub total_timeout_ms: f64 = ParamSpec::number("total_timeout_ms", "Total timeout (AbortSignal)", "ms",
            0.0, (0.0, 600_000.0, 100.0),
            "AbortSignal.timeout passed as the call's signal, created before the call: it covers the pool wait, \
             every phase and the body read. 0 means none."),
        pub http_timeout_ms: f64 = ParamSpec::number("http_timeout_ms", "timeout option (node:http)", "ms",
            0.0, (0.0, 600_000.0, 100.0),
            "node:http only: the request's timeout option, an idle timer on the socket that every read or write \
             resets. It only emits a 'timeout' event. 0 means none."),
        pub destroy_on_timeout: bool = ParamSpec::toggle("destroy_on_timeout", "Destroy on 'timeout'", false,
            "node:http only: the 'timeout' handler calls req.destroy(). Off, the request stays open after the \
             event."),
        pub pool_size: u32 = ParamSpec::number("pool_size", "Connections per host", "", 10.0, (1.0, 100.0, 1.0),
            "How many connections the client's pool may open to this host. With 'Pool full', all of them are held \
             by hung calls. fetch's own pool has no limit (undici's Agent sets none by default), nor has node:http's \
             default agent (maxSockets Infinity): a limit is set with an Agent, as in the chapter's pool run (10)."),
        pub os: Os = ParamSpec::choice("os", "Operating system", Os::OPTIONS, Os::Linux as usize,
            "Whose kernel gives up on a connect that is never answered."),
        pub syn_retries: u32 = ParamSpec::number("syn_retries", "tcp_syn_retries (Linux)", "", 6.0, (1.0, 12.0, 1.0),
            "Linux: how many times an unanswered SYN is resent before connect fails; the waits double from 1 s."),
        pub server_ms: f64 = ParamSpec::number("server_ms", "Server time (slow)", "ms", 5_000.0,
            (0.0, 600_000.0, 100.0),
            "With 'Slow server': how long the handler works before it answers."),
        pub dns_ms: f64 = ParamSpec::number("dns_ms", "DNS time (slow DNS)", "ms", 15_000.0, (0.0, 120_000.0, 100.0),
            "With 'Slow DNS': how long the resolver takes to answer."),
        pub trickle_ms: f64 = ParamSpec::number("trickle_ms", "Gap between bytes (trickle)", "ms", 1_000.0,
            (100.0, 60_000.0, 100.0),
            "With 'Body trickles': the server sends one byte this often."),
        pub rtt_ms: f64 = ParamSpec::number("rtt_ms", "Network round trip", "ms", 1.0, (0.0, 500.0, 0.1),
            "One round trip to the server (and to the resolver). DNS, the TCP connect and the TLS 1.3 handshake \
             take one each."),
        pub other_calls: bool = ParamSpec::toggle("other_calls", "Other calls keep undici's clock running", false,
            "fetch only: other requests in the process have undici timers armed, so undici's 499 ms clock ticks \
             on its own rhythm instead of restarting with this call's first timer."),
        pub tick_phase_ms: f64 = ParamSpec::number("tick_phase_ms", "undici's next tick", "ms", 250.0,
            (0.0, 499.0, 1.0),
            "With other calls: how long after this call starts undici's clock ticks next (0: just after its \
             first timer is armed)."),
        pub timer_late_ms: f64 = ParamSpec::number("timer_late_ms", "Node timer lateness", "ms", 1.0,
            (0.0, 50.0, 0.1),
            "How late Node's own timers fire: AbortSignal.timeout, the socket's idle timer and undici's 499 ms \
             tick."),
        pub error_delay_ms: f64 = ParamSpec::number("error_delay_ms", "Error reaches your code after", "ms", 2.0,
            (0.0, 50.0, 0.1),
            "From the callback that destroys the socket to your await seeing the rejection: a turn or two of the \
             event loop."),
    }
}

pub static SPEC: ScenarioSpec = ScenarioSpec {
    id: "which-timeout",
    title: "Which timeout fires?",
    chapter: "Chapter 1, Parts 1–2: One call has six phases; What Node 22 actually does",
    summary: "One call through pool, DNS, connect, TLS, first byte and body. Pick what goes wrong and which \
              timers the client sets, and watch them race: which fires first, how late, what the caller sees, \
              and whether a retry needs an idempotency key.",
    params: PARAMS,
    presets: &[
        Preset {
            id: "fetch-silent",
            label: "fetch, silent server",
            description: "fetch with no options against a server that accepts and never answers: \
                          UND_ERR_HEADERS_TIMEOUT after 301.0 s.",
            values: &[("client", "fetch"), ("fault", "silent")],
        },
        Preset {
            id: "fetch-blackhole",
            label: "fetch, blackholed address",
            description: "fetch with no options to an address that drops packets: UND_ERR_CONNECT_TIMEOUT after \
                          10.5 s.",
            values: &[("client", "fetch"), ("fault", "blackhole")],
        },
        Preset {
            id: "fetch-no-tls",
            label: "fetch, server never speaks TLS",
            description: "fetch to https:// on a plain TCP server: the same connect timeout error, at 10.0 s \
                          (undici's clock already running, ticking just after the call starts).",
            values: &[("client", "fetch"), ("fault", "no-tls"), ("other_calls", "true"), ("tick_phase_ms", "0")],
        },
        Preset {
            id: "http-blackhole",
            label: "node:http, blackholed address",
            description: "node:http with no options: no connect timeout, so the OS gives up: ETIMEDOUT after 75 s \
                          on macOS.",
            values: &[("client", "node-http"), ("fault", "blackhole"), ("os", "macos")],
        },
        Preset {
            id: "http-timeout-event",
            label: "node:http timeout: 1000",
            description: "A 'timeout' event at about 1,003 ms against a silent server, and nothing else: the \
                          request is still open at 3.5 s.",
            values: &[("client", "node-http"), ("fault", "silent"), ("http_timeout_ms", "1000")],
        },
        Preset {
            id: "abort-silent",
            label: "AbortSignal.timeout(2000), silent server",
            description: "TimeoutError at about 2,007 ms; the server sees the connection close.",
            values: &[("client", "fetch"), ("fault", "silent"), ("total_timeout_ms", "2000")],
        },
        Preset {
            id: "body-timeout-trickle",
            label: "bodyTimeout 2000, trickle",
            description: "One byte a second resets the 2 s idle timer every time: it never fires, and the call is \
                          still reading after 7 s.",
            values: &[("client", "fetch"), ("fault", "trickle"), ("body_timeout_ms", "2000")],
        },
        Preset {
            id: "abort-trickle",
            label: "AbortSignal.timeout(3000), trickle",
            description: "TimeoutError at about 3,004 ms during the body read, after fetch had resolved.",
            values: &[("client", "fetch"), ("fault", "trickle"), ("total_timeout_ms", "3000")],
        },
        Preset {
            id: "undici-headers-timeout",
            label: "headersTimeout 2000",
            description: "undici's headers timeout of 2 s against a silent server fires late, at about 2,502 ms.",
            values: &[("client", "fetch"), ("fault", "silent"), ("headers_timeout_ms", "2000")],
        },
        Preset {
            id: "undici-connect-timeout",
            label: "connect: { timeout: 1000 }",
            description: "undici's connect timeout of 1 s against a blackholed address fires late, at about \
                          1,501 ms.",
            values: &[("client", "fetch"), ("fault", "blackhole"), ("connect_timeout_ms", "1000")],
        },
        Preset {
            id: "pool-wait",
            label: "AbortSignal.timeout(2000), pool full",
            description: "All 10 connections are held by hung calls: TimeoutError at about 2,003 ms, and the \
                          request never left the process.",
            values: &[("client", "fetch"), ("fault", "pool-full"), ("total_timeout_ms", "2000"), ("pool_size", "10")],
        },
        Preset {
            id: "covered",
            label: "A client that covers every phase",
            description: "The chapter's client: a pool of 20, connect 1 s, headers 2 s, body 2 s, and a total of \
                          500 ms that ends any hang at about half a second.",
            values: &[
                ("client", "fetch"),
                ("pool_size", "20"),
                ("connect_timeout_ms", "1000"),
                ("headers_timeout_ms", "2000"),
                ("body_timeout_ms", "2000"),
                ("total_timeout_ms", "500"),
            ],
        },
    ],
    metrics: &[
        MetricSpec {
            key: "error",
            label: "Caller sees",
            unit: "",
            help: "The error the caller got (UND_ERR_…, TimeoutError, AbortError, ETIMEDOUT, ECONNREFUSED, \
                   ECONNRESET); timeout-event when node:http only emitted 'timeout'; none when nothing failed.",
        },
        MetricSpec {
            key: "gave_up_ms",
            label: "Gave up at",
            unit: "ms",
            help: "When the error reached the caller's code (empty if nothing ended the call with an error).",
        },
        MetricSpec {
            key: "phase",
            label: "Phase",
            unit: "",
            help: "Where the call was when it ended, or is now: pool, dns, connect, tls, ttfb, body, or done.",
        },
        MetricSpec {
            key: "still_open_at_end",
            label: "Still open",
            unit: "",
            help: "Whether the call is still waiting: nothing has ended it.",
        },
        MetricSpec {
            key: "reached_server_app",
            label: "Reached the server's code",
            unit: "",
            help: "Whether the request got to the server's application code.",
        },
        MetricSpec {
            key: "server_did_work",
            label: "Server did the work",
            unit: "",
            help: "Whether the server's handler finished its work (it goes on after the client gives up).",
        },
        MetricSpec {
            key: "safe_to_retry_without_key",
            label: "Safe to retry without a key",
            unit: "",
            help: "True only when the call failed and the request provably never reached the server's code.",
        },
        MetricSpec {
            key: "pool_wait_ms",
            label: "Pool wait",
            unit: "ms",
            help: "Time the call spent waiting in your own process for a free connection.",
        },
        MetricSpec {
            key: "first_fired",
            label: "First to fire",
            unit: "",
            help: "The timer that fired first: total, connect, headers, body, http-timeout, os-connect (none).",
        },
        MetricSpec {
            key: "first_fired_ms",
            label: "It fired at",
            unit: "ms",
            help: "When the first timer fired (its callback ran).",
        },
        MetricSpec {
            key: "response_ms",
            label: "Response at",
            unit: "ms",
            help: "When the headers arrived: fetch resolved, or node:http emitted 'response'.",
        },
        MetricSpec {
            key: "completed_ms",
            label: "Completed at",
            unit: "ms",
            help: "When the last byte of the body arrived, if the call succeeded.",
        },
        MetricSpec {
            key: "error_proves_not_sent",
            label: "Error proves it was not sent",
            unit: "",
            help: "Whether the error by itself says the request never reached the server (connect errors do; a \
                   TimeoutError does not).",
        },
        MetricSpec {
            key: "server_saw_close_ms",
            label: "Server saw the close at",
            unit: "ms",
            help: "When the server saw the client close the connection.",
        },
        MetricSpec {
            key: "timeout_events",
            label: "'timeout' events",
            unit: "",
            help: "How many times node:http emitted 'timeout'.",
        },
        MetricSpec {
            key: "body_chunks",
            label: "Body chunks read",
            unit: "",
            help: "Chunks of the body read so far (one byte each for a trickle).",
        },
        MetricSpec {
            key: "timers",
            label: "Timers",
            unit: "",
            help: "Every armed timer: its clock, timeout, deadline, when it fired and how late, when it was cleared.",
        },
        MetricSpec {
            key: "phases",
            label: "Phases",
            unit: "",
            help: "The phases the call went through, with their start and end.",
        },
    ],
    headline: &["error", "gave_up_ms", "phase", "safe_to_retry_without_key"],
    default_duration_ms: DEFAULT_DURATION_MS,
    sweep: SweepDefault {
        x: "total_timeout_ms",
        from: 0.0,
        to: 10_000.0,
        steps: 21,
        by: Some("fault"),
        metric: "gave_up_ms",
    },
    model: &ModelOf::<WhichTimeout>::NEW,
};

/// The six phases of a call (Chapter 1, Part 1), and done.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
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
    key: Option<TimerKey>,
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
}

/// The model: one call, its phases, and every timer armed on it.
pub struct WhichTimeout {
    config: WhichTimeoutConfig,
    rtt: Micros,
    late: Micros,
    clock: UndiciClock,
    phases: Vec<PhaseSpan>,
    timers: Vec<ArmedTimer>,
    pool_acquired_at: Option<Micros>,
    connect_started_at: Option<Micros>,
    request_sent_at: Option<Micros>,
    request_arrived_at: Option<Micros>,
    server_done_at: Option<Micros>,
    response_at: Option<Micros>,
    body_chunks: u64,
    /// A TCP connection to the server is open (its end is what the server sees close).
    connection_open: bool,
    server_saw_close_at: Option<Micros>,
    outcome: Option<Outcome>,
    error_seen_at: Option<Micros>,
    /// Every attempt to end the call, the first included (the tests check there is one at most).
    end_attempts: u32,
    /// Timer events that found no pending timer (the tests check there are none).
    stray_fires: u32,
}

/// One row of the table "every fault with these settings".
#[derive(Clone, Debug, PartialEq)]
pub struct FaultRow {
    pub fault: Fault,
    pub first_fired: Option<(TimerKind, Micros)>,
    pub error: &'static str,
    pub gave_up_at: Option<Micros>,
    pub completed_at: Option<Micros>,
    pub phase: Phase,
    pub still_open: bool,
    pub reached_server_app: bool,
    pub server_did_work: bool,
    pub safe_to_retry_without_key: bool,
    /// How long the run was (ms).
    pub run_ms: u64,
}

/// Runs every fault with the settings of `config` (its own fault aside): one row per fault,
/// in the order the faults are declared.
pub fn every_fault(config: &WhichTimeoutConfig) -> Vec<FaultRow> {
    Fault::ALL
        .iter()
        .map(|&fault| {
            let config = WhichTimeoutConfig { fault, ..config.clone() };
            let run_ms = WhichTimeout::run_length_for(&config).min(MAX_DURATION_MS);
            let mut host = Host::<WhichTimeout>::start(config, 0, run_ms * MS);
            host.run_to_end();
            host.model().row(host.now(), run_ms)
        })
        .collect()
}

// What a page reads.
impl WhichTimeout {
    /// The phases so far, in order; the last is where the call is (or ended).
    pub fn phases(&self) -> &[PhaseSpan] {
        &self.phases
    }

    /// Every timer armed so far, in the order armed.
    pub fn timers(&self) -> &[ArmedTimer] {
        &self.timers
    }

    pub fn timer(&self, kind: TimerKind) -> Option<&ArmedTimer> {
        self.timers.iter().find(|t| t.kind == kind)
    }

    /// undici's clock: its ticks so far and the next one.
    pub fn undici_clock(&self) -> &UndiciClock {
        &self.clock
    }

    /// Where the call is, or was when it ended.
    pub fn phase(&self) -> Phase {
        self.phases.last().map_or(Phase::Pool, |p| p.phase)
    }

    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    pub fn error(&self) -> Option<CallError> {
        match self.outcome {
            Some(Outcome::Failed { error, .. }) => Some(error),
            _ => None,
        }
    }

    /// When the error reached the caller's code.
    pub fn error_seen_at(&self) -> Option<Micros> {
        self.error_seen_at
    }

    pub fn completed_at(&self) -> Option<Micros> {
        match self.outcome {
            Some(Outcome::Completed { at }) => Some(at),
            _ => None,
        }
    }

    /// When the call's fate was decided (a timer fired, an error came, the body completed).
    pub fn ended_at(&self) -> Option<Micros> {
        self.outcome.map(|o| match o {
            Outcome::Completed { at } | Outcome::Failed { at, .. } => at,
        })
    }

    /// What the `error` metric says: the error, `timeout-event` for node:http's event alone, or `none`.
    pub fn error_id(&self) -> &'static str {
        match (self.error(), self.outcome) {
            (Some(e), _) => e.id(),
            (None, None) if self.timeout_events() > 0 => "timeout-event",
            _ => "none",
        }
    }

    /// The first timer to fire, and when.
    pub fn first_fired(&self) -> Option<(TimerKind, Micros)> {
        self.timers.iter().filter_map(|t| t.fired_at.map(|at| (t.kind, at))).min_by_key(|&(_, at)| at)
    }

    /// Time spent waiting for a pooled connection, up to `now`.
    pub fn pool_wait(&self, now: Micros) -> Micros {
        self.pool_acquired_at.or(self.ended_at()).unwrap_or(now).min(now)
    }

    pub fn response_at(&self) -> Option<Micros> {
        self.response_at
    }

    pub fn request_sent_at(&self) -> Option<Micros> {
        self.request_sent_at
    }

    /// When the request reached the server's application code.
    pub fn request_arrived_at(&self) -> Option<Micros> {
        self.request_arrived_at
    }

    /// When the server's handler finishes its work, if it will (known once the request arrived).
    pub fn server_done_at(&self) -> Option<Micros> {
        self.server_done_at
    }

    pub fn server_saw_close_at(&self) -> Option<Micros> {
        self.server_saw_close_at
    }

    pub fn body_chunks(&self) -> u64 {
        self.body_chunks
    }

    pub fn timeout_events(&self) -> u32 {
        self.timer(TimerKind::HttpIdle).map_or(0, |t| t.firings)
    }

    pub fn reached_server_app(&self, now: Micros) -> bool {
        self.request_arrived_at.is_some_and(|t| t <= now)
    }

    pub fn server_did_work(&self, now: Micros) -> bool {
        self.server_done_at.is_some_and(|t| t <= now)
    }

    /// The call failed and its request was never sent, so it cannot have reached the server.
    pub fn safe_to_retry_without_key(&self) -> bool {
        self.error().is_some() && self.request_sent_at.is_none()
    }

    pub fn still_open(&self) -> bool {
        self.outcome.is_none()
    }

    /// When SYNs were sent: the first, then Linux's retransmissions (1 s, then doubling).
    pub fn syn_sends(&self) -> Vec<Micros> {
        let Some(start) = self.connect_started_at else { return Vec::new() };
        match self.config.os {
            Os::Linux => (0..=self.config.syn_retries).map(|i| start + ((1 << i) - 1) * LINUX_INITIAL_RTO).collect(),
            Os::Macos => vec![start],
        }
    }

    /// When the OS gives up on an unanswered connect, counted from the first SYN.
    pub fn os_connect_give_up(&self) -> Micros {
        os_connect_give_up(&self.config)
    }

    /// Each attempt to end the call (at most one in a correct run).
    pub fn end_attempts(&self) -> u32 {
        self.end_attempts
    }

    /// Timer events that found no pending timer (none in a correct run).
    pub fn stray_fires(&self) -> u32 {
        self.stray_fires
    }

    /// How long a run of `config` needs to show its outcome (ms): until the caller has the
    /// error or the body and the server has finished (or will never), plus a second; for a call
    /// that never ends, 3.5 times its longest timer still armed (10 s with none).
    pub fn run_length_for(config: &WhichTimeoutConfig) -> u64 {
        let mut q = EventQueue::new();
        // A run of no length records no ticks: only the outcome matters here.
        let mut model = Self::new(config.clone(), 0, 0, &mut q);
        let end = loop {
            if let Some(settled) = model.settled_at() {
                break settled + TAIL;
            }
            let watch = model.watch_until();
            match q.pop_until(watch) {
                Some((t, event)) => model.handle(&mut q, t, event),
                None => break watch,
            }
        };
        end.div_ceil(100 * MS) * 100
    }

    /// This run as a row of the table "every fault with these settings".
    pub fn row(&self, now: Micros, run_ms: u64) -> FaultRow {
        FaultRow {
            fault: self.config.fault,
            first_fired: self.first_fired(),
            error: self.error_id(),
            gave_up_at: self.error_seen_at,
            completed_at: self.completed_at(),
            phase: self.phase(),
            still_open: self.still_open(),
            reached_server_app: self.reached_server_app(now),
            server_did_work: self.server_did_work(now),
            safe_to_retry_without_key: self.safe_to_retry_without_key(),
            run_ms,
        }
    }
}

fn os_connect_give_up(c: &WhichTimeoutConfig) -> Micros {
    match c.os {
        Os::Linux => ((1 << (c.syn_retries + 1)) - 1) * LINUX_INITIAL_RTO,
        Os::Macos => MACOS_CONNECT_GIVE_UP,
    }
}

impl Model for WhichTimeout {
    type Config = WhichTimeoutConfig;
    type Event = Event;

    fn new(config: WhichTimeoutConfig, _seed: u64, end: Micros, q: &mut EventQueue<Event>) -> Self {
        let late = ms_to_us(config.timer_late_ms);
        let period = TICK_MS * MS + late;
        let end = end.min(MAX_DURATION_MS * MS);
        // The call starts first, so a tick due at the same instant comes after its first timers.
        q.schedule_at(0, Event::Start);
        let clock = if config.client == Client::Fetch && config.other_calls {
            UndiciClock::running(period, end, ms_to_us(config.tick_phase_ms), q)
        } else {
            UndiciClock::idle(period, end)
        };
        Self {
            rtt: ms_to_us(config.rtt_ms),
            late,
            clock,
            phases: Vec::with_capacity(Phase::SIX.len() + 1),
            timers: Vec::with_capacity(6),
            pool_acquired_at: None,
            connect_started_at: None,
            request_sent_at: None,
            request_arrived_at: None,
            server_done_at: None,
            response_at: None,
            body_chunks: 0,
            connection_open: false,
            server_saw_close_at: None,
            outcome: None,
            error_seen_at: None,
            end_attempts: 0,
            stray_fires: 0,
            config,
        }
    }

    fn handle(&mut self, q: &mut EventQueue<Event>, now: Micros, event: Event) {
        match event {
            Event::Start => self.start(q, now),
            Event::DnsAnswered => self.dns_answered(q, now),
            Event::SynAcked => self.syn_acked(q, now),
            Event::Refused => self.refused(q, now),
            Event::TlsDone => self.tls_done(q, now),
            Event::RequestArrives => self.request_arrives(q, now),
            Event::HeadersArrive => self.headers_arrive(q, now),
            Event::Byte => self.byte(q, now),
            Event::Fire(kind) => self.fire(q, now, kind),
            Event::Tick => self.clock.tick(q, now),
            Event::ErrorSurfaces => self.error_seen_at = Some(now),
        }
    }

    fn metrics(&self, now: Micros) -> Vec<(&'static str, Value)> {
        let first = self.first_fired();
        vec![
            ("error", Value::Text(self.error_id().into())),
            ("gave_up_ms", opt_ms(self.error_seen_at)),
            ("phase", Value::Text(self.phase().id().into())),
            ("still_open_at_end", Value::Bool(self.still_open())),
            ("reached_server_app", Value::Bool(self.reached_server_app(now))),
            ("server_did_work", Value::Bool(self.server_did_work(now))),
            ("safe_to_retry_without_key", Value::Bool(self.safe_to_retry_without_key())),
            ("pool_wait_ms", ms(self.pool_wait(now))),
            ("first_fired", Value::Text(first.map_or("none", |(k, _)| k.id()).into())),
            ("first_fired_ms", opt_ms(first.map(|(_, at)| at))),
            ("response_ms", opt_ms(self.response_at)),
            ("completed_ms", opt_ms(self.completed_at())),
            ("error_proves_not_sent", Value::Bool(self.error().is_some_and(CallError::proves_not_sent))),
            ("server_saw_close_ms", opt_ms(self.server_saw_close_at.filter(|&t| t <= now))),
            ("timeout_events", Value::count(self.timeout_events().into())),
            ("body_chunks", Value::count(self.body_chunks)),
            ("timers", Value::List(self.timers.iter().map(timer_record).collect())),
            ("phases", Value::List(self.phases.iter().map(phase_record).collect())),
        ]
    }

    fn config(&self) -> &WhichTimeoutConfig {
        &self.config
    }

    fn run_length_ms(config: &WhichTimeoutConfig) -> Option<u64> {
        Some(Self::run_length_for(config))
    }
}

fn ms(t: Micros) -> Value {
    Value::num(t as f64 / 1000.0)
}

fn opt_ms(t: Option<Micros>) -> Value {
    t.map_or(Value::Null, ms)
}

fn timer_record(t: &ArmedTimer) -> Vec<(&'static str, Value)> {
    vec![
        ("timer", Value::Text(t.kind.id().into())),
        ("label", Value::Text(t.kind.label().into())),
        ("clock", Value::Text(t.kind.clock().id().into())),
        ("timeout_ms", ms(t.timeout)),
        ("armed_ms", ms(t.armed_at)),
        ("deadline_ms", ms(t.deadline())),
        ("fires_ms", opt_ms(t.fires_at)),
        ("fired_ms", opt_ms(t.fired_at)),
        ("late_ms", t.lateness().map_or(Value::Null, |late| Value::num(late as f64 / 1000.0))),
        ("cleared_ms", opt_ms(t.cleared_at)),
        ("ended_call", Value::Bool(t.ended_call)),
        ("resets", Value::count(t.resets.into())),
        ("firings", Value::count(t.firings.into())),
    ]
}

fn phase_record(p: &PhaseSpan) -> Vec<(&'static str, Value)> {
    vec![
        ("phase", Value::Text(p.phase.id().into())),
        ("label", Value::Text(p.phase.label().into())),
        ("start_ms", ms(p.start)),
        ("end_ms", opt_ms(p.end)),
    ]
}

// The call, phase by phase.
impl WhichTimeout {
    fn start(&mut self, q: &mut EventQueue<Event>, now: Micros) {
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

    fn dns_answered(&mut self, q: &mut EventQueue<Event>, now: Micros) {
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

    fn refused(&mut self, q: &mut EventQueue<Event>, now: Micros) {
        if self.outcome.is_none() {
            self.clear(q, now, TimerKind::OsConnect);
            self.fail(q, now, CallError::Econnrefused, None);
        }
    }

    fn syn_acked(&mut self, q: &mut EventQueue<Event>, now: Micros) {
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
    fn tls_done(&mut self, q: &mut EventQueue<Event>, now: Micros) {
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
    fn request_arrives(&mut self, q: &mut EventQueue<Event>, now: Micros) {
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
    fn headers_arrive(&mut self, q: &mut EventQueue<Event>, now: Micros) {
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

    fn byte(&mut self, q: &mut EventQueue<Event>, now: Micros) {
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

    fn fire(&mut self, q: &mut EventQueue<Event>, now: Micros, kind: TimerKind) {
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

// Timers: armed, reset by activity, cleared, each firing by its own clock.
impl WhichTimeout {
    /// The configured timeout of `kind` for this client; 0 means it is not set.
    fn timeout_of(&self, kind: TimerKind) -> Micros {
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
    fn arm(&mut self, q: &mut EventQueue<Event>, now: Micros, kind: TimerKind) {
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

    fn is_pending(&self, kind: TimerKind) -> bool {
        self.timer(kind).is_some_and(ArmedTimer::is_pending)
    }

    /// Activity restarts an idle timer that is still set (node:http's re-arms after firing).
    fn reset(&mut self, q: &mut EventQueue<Event>, now: Micros, kind: TimerKind) {
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
    fn clear(&mut self, q: &mut EventQueue<Event>, now: Micros, kind: TimerKind) {
        if self.retire(q, now, kind) && kind.clock() == TimerClock::UndiciTick {
            self.clock.clear(kind);
        }
    }

    /// Takes `kind` off the queue and marks it cleared; false when it was not set.
    fn retire(&mut self, q: &mut EventQueue<Event>, now: Micros, kind: TimerKind) -> bool {
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

// How long a run needs.
impl WhichTimeout {
    /// When nothing more about the outcome can change: the caller has the error or the body,
    /// and the server has its request's fate (it finishes at a known time, or never).
    fn settled_at(&self) -> Option<Micros> {
        let ended = match self.outcome? {
            Outcome::Completed { at } => at,
            Outcome::Failed { .. } => self.error_seen_at?,
        };
        let request_in_flight = self.request_sent_at.is_some() && self.request_arrived_at.is_none();
        (!request_in_flight).then(|| ended.max(self.server_done_at.unwrap_or(0)))
    }

    /// How long to watch a call that has not ended: 3.5 times each timer still set, from when it
    /// was armed, and past whatever the fault itself is waiting for.
    fn watch_until(&self) -> Micros {
        let timers = self
            .timers
            .iter()
            .filter(|t| t.cleared_at.is_none())
            .map(|t| t.armed_at + (t.timeout as f64 * WATCH_FACTOR) as Micros)
            .max()
            .unwrap_or(DEFAULT_WATCH);
        let c = &self.config;
        let own = match c.fault {
            Fault::DnsSlow => ms_to_us(c.dns_ms),
            Fault::Slow => ms_to_us(c.server_ms),
            _ => 0,
        };
        timers.max(own + 10 * self.rtt + TAIL)
    }
}
