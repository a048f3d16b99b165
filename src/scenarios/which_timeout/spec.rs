//! The which-timeout declaration: what can go wrong, the clients and the operating systems,
//! the parameters, presets and metrics.

use crate::sim::Value;
use crate::sim::scenario::SweepDefault;
use crate::sim::syn::SynSchedule;
use crate::sim::{ParamSpec, Preset};

/// The run at the defaults: fetch against a silent server, ended by undici's headers timeout.
pub(super) const DEFAULT_DURATION_MS: u64 = 302_100;

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
    #[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
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
            "The kernel resends an unanswered SYN tcp_syn_retries times, doubling the wait from 1 s: 127 s with the \
             default 6 (131 s on Linux 6.5 and later, whose first 4 extra waits are 1 s)."),
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
             undici's default is 10,000.").zero_means("off")
            .only_with(WhichTimeoutConfig::client, &["fetch"], "undici's timers are fetch's"),
        pub headers_timeout_ms: f64 = ParamSpec::number("headers_timeout_ms", "Headers timeout (undici)", "ms",
            300_000.0, (0.0, 600_000.0, 100.0),
            "fetch only: undici's headersTimeout, from sending the request to the response headers. 0 turns it \
             off; the default is 300,000.").zero_means("off")
            .only_with(WhichTimeoutConfig::client, &["fetch"], "undici's timers are fetch's"),
        pub body_timeout_ms: f64 = ParamSpec::number("body_timeout_ms", "Body timeout (undici)", "ms",
            300_000.0, (0.0, 600_000.0, 100.0),
            "fetch only: undici's bodyTimeout, the longest silence between two chunks of the body (every chunk \
             resets it). 0 turns it off; the default is 300,000.").zero_means("off")
            .only_with(WhichTimeoutConfig::client, &["fetch"], "undici's timers are fetch's"),
        pub total_timeout_ms: f64 = ParamSpec::number("total_timeout_ms", "Total timeout (AbortSignal)", "ms",
            0.0, (0.0, 600_000.0, 100.0),
            "AbortSignal.timeout passed as the call's signal, created before the call: it covers the pool wait, \
             every phase and the body read. 0 means none.").zero_means("off"),
        pub http_timeout_ms: f64 = ParamSpec::number("http_timeout_ms", "timeout option (node:http)", "ms",
            0.0, (0.0, 600_000.0, 100.0),
            "node:http only: the request's timeout option, an idle timer on the socket that every read or write \
             resets. It only emits a 'timeout' event. 0 means none.").zero_means("off")
            .only_with(WhichTimeoutConfig::client, &["node-http"], "this is a node:http option"),
        pub destroy_on_timeout: bool = ParamSpec::toggle("destroy_on_timeout", "Destroy on 'timeout'", false,
            "node:http only: the 'timeout' handler calls req.destroy(). Off, the request stays open after the \
             event.")
            .only_with(WhichTimeoutConfig::client, &["node-http"], "this is a node:http option"),
        pub pool_size: u32 = ParamSpec::number("pool_size", "Connections per host", "", 10.0, (1.0, 100.0, 1.0),
            "How many connections the client's pool may open to this host. With 'Pool full', all of them are held \
             by hung calls. fetch's own pool has no limit (undici's Agent sets none by default), nor has node:http's \
             default agent (maxSockets Infinity): a limit is set with an Agent, as in the chapter's pool run (10)."),
        pub os: Os = ParamSpec::choice("os", "Operating system", Os::OPTIONS, Os::Linux as usize,
            "Whose kernel gives up on a connect that is never answered."),
        pub syn_retries: u32 = ParamSpec::number("syn_retries", "tcp_syn_retries (Linux)", "", 6.0, (1.0, 12.0, 1.0),
            "Linux: how many times an unanswered SYN is resent before connect fails; the waits double from 1 s, \
             none longer than 120 s (Linux 6.5 and later first add 4 more, 1 s apart).")
            .only_with(WhichTimeoutConfig::os, &["linux"], "the kernel gives up after 75 s"),
        pub syn_schedule: SynSchedule = ParamSpec::choice("syn_schedule", "SYN schedule (Linux)", SynSchedule::OPTIONS,
            SynSchedule::Exponential as usize,
            "Linux: which kernel resends the SYN. Before 6.5 the waits double from 1 s (127 s to give up with 6 \
             retries); 6.5 and later first send 4 more SYNs 1 s apart (131 s).")
            .only_with(WhichTimeoutConfig::os, &["linux"], "the kernel gives up after 75 s"),
        pub server_ms: f64 = ParamSpec::number("server_ms", "Server time (slow)", "ms", 5_000.0,
            (0.0, 600_000.0, 100.0),
            "With 'Slow server': how long the handler works before it answers.")
            .only_with(WhichTimeoutConfig::fault, &["slow"], "only a slow server takes this time"),
        pub dns_ms: f64 = ParamSpec::number("dns_ms", "DNS time (slow DNS)", "ms", 15_000.0, (0.0, 120_000.0, 100.0),
            "With 'Slow DNS': how long the resolver takes to answer.")
            .only_with(WhichTimeoutConfig::fault, &["dns-slow"], "the resolver answers in one round trip"),
        pub trickle_ms: f64 = ParamSpec::number("trickle_ms", "Gap between bytes (trickle)", "ms", 1_000.0,
            (100.0, 60_000.0, 100.0),
            "With 'Body trickles': the server sends one byte this often.")
            .only_with(WhichTimeoutConfig::fault, &["trickle"], "no body trickles"),
        pub rtt_ms: f64 = ParamSpec::number("rtt_ms", "Network round trip", "ms", 1.0, (0.0, 500.0, 0.1),
            "One round trip to the server (and to the resolver). DNS, the TCP connect and the TLS 1.3 handshake \
             take one each."),
        pub other_calls: bool = ParamSpec::toggle("other_calls", "Other calls keep undici's clock running", false,
            "fetch only: other requests in the process have undici timers armed, so undici's 499 ms clock ticks \
             on its own rhythm instead of restarting with this call's first timer.")
            .only_with(WhichTimeoutConfig::client, &["fetch"], "undici's clock is fetch's"),
        pub tick_phase_ms: f64 = ParamSpec::number("tick_phase_ms", "undici's next tick", "ms", 250.0,
            (0.0, 499.0, 1.0),
            "With other calls: how long after this call starts undici's clock ticks next (0: just after its \
             first timer is armed).")
            .only_with(WhichTimeoutConfig::other_calls, &["true"], "undici's clock starts with this call's first timer"),
        pub timer_late_ms: f64 = ParamSpec::number("timer_late_ms", "Node timer lateness", "ms", 1.0,
            (0.0, 50.0, 0.1),
            "How late Node's own timers fire: AbortSignal.timeout, the socket's idle timer and undici's 499 ms \
             tick."),
        pub error_delay_ms: f64 = ParamSpec::number("error_delay_ms", "Error reaches your code after", "ms", 2.0,
            (0.0, 50.0, 0.1),
            "From the callback that destroys the socket to your await seeing the rejection: a turn or two of the \
             event loop."),
        pub failover_calls_per_s: f64 = ParamSpec::number("failover_calls_per_s", "Calls during a failover", "calls/s",
            0.0, (0.0, 200.0, 1.0),
            "Chapter 1, Break 5: the database fails over at 0 and its old address drops every packet. This many \
             calls a second share the pool (connections per host) to it; 0 runs the one call alone."),
        pub calls_for_ms: f64 = ParamSpec::number("calls_for_ms", "Calls keep coming for", "ms", 30_000.0,
            (1000.0, 120_000.0, 1000.0),
            "With a failover: how long the calls keep arriving."),
        pub dns_ttl_ms: f64 = ParamSpec::number("dns_ttl_ms", "Old address still resolved for", "ms", 1_000.0,
            (0.0, 300_000.0, 100.0),
            "With a failover: how long the name still resolves to the old address (the record's TTL in the \
             resolvers' caches)."),
        pub re_resolve: bool = ParamSpec::toggle("re_resolve", "Look the name up for each connection", true,
            "With a failover: each new connection resolves the name again, as Node's net.connect does. Off: the \
             client keeps the address it resolved before the failover (an address cached at startup, an IP in the \
             config)."),
        pub pooled_to_old_ip: bool = ParamSpec::toggle("pooled_to_old_ip", "Pool holds connections to the old address", false,
            "With a failover: at the failover the pool already holds open keep-alive connections to the old \
             address, one per slot, as under steady load. A request written on one gets no answer and waits for \
             the headers timeout (fetch), node:http's timeout option if its handler destroys the request, or the \
             kernel giving up on the unacknowledged data (about 15 minutes on Linux). Off: the pool starts empty \
             (idle connections already closed by their keep-alive timeout), so only new connects hang."),
        pub drop_pool_on_dns_change: bool = ParamSpec::toggle("drop_pool_on_dns_change", "Drop pooled connections on a DNS change", false,
            "With a failover: when the name starts to resolve to the new address, the client closes its pooled \
             connections to the old one (the chapter's \"drop pooled connections to the old IP\"): idle ones are \
             gone, a request waiting on one fails at once instead of waiting minutes, and the next call connects \
             anew."),
        pub retry_connect: bool = ParamSpec::toggle("retry_connect", "Retry a failed connect at once", false,
            "With a failover: a connect that fails is retried at once on a new connection, up to 3 connects a call. \
             Safe even for a write: the request was never sent."),
    }
}

pub(super) const PRESETS: &[Preset] = &[
        Preset {
            id: "fetch-silent",
            label: "fetch, silent server",
            description: "fetch with no options against a server that accepts and never answers: \
                          UND_ERR_HEADERS_TIMEOUT after 301.0 s.",
            values: &[(WhichTimeoutConfig::client, "fetch"), (WhichTimeoutConfig::fault, "silent")],
        },
        Preset {
            id: "fetch-blackhole",
            label: "fetch, blackholed address",
            description: "fetch with no options to an address that drops packets: UND_ERR_CONNECT_TIMEOUT after \
                          10.5 s.",
            values: &[(WhichTimeoutConfig::client, "fetch"), (WhichTimeoutConfig::fault, "blackhole")],
        },
        Preset {
            id: "fetch-no-tls",
            label: "fetch, server never speaks TLS",
            description: "fetch to https:// on a plain TCP server: the same connect timeout error, at 10.0 s \
                          (undici's clock already running, ticking just after the call starts).",
            values: &[(WhichTimeoutConfig::client, "fetch"), (WhichTimeoutConfig::fault, "no-tls"), (WhichTimeoutConfig::other_calls, "true"), (WhichTimeoutConfig::tick_phase_ms, "0")],
        },
        Preset {
            id: "http-blackhole",
            label: "node:http, blackholed address",
            description: "node:http with no options: no connect timeout, so the OS gives up: ETIMEDOUT after 75 s \
                          on macOS.",
            values: &[(WhichTimeoutConfig::client, "node-http"), (WhichTimeoutConfig::fault, "blackhole"), (WhichTimeoutConfig::os, "macos")],
        },
        Preset {
            id: "http-timeout-event",
            label: "node:http timeout: 1000",
            description: "A 'timeout' event at about 1,003 ms against a silent server, and nothing else: the \
                          request is still open at 3.5 s.",
            values: &[(WhichTimeoutConfig::client, "node-http"), (WhichTimeoutConfig::fault, "silent"), (WhichTimeoutConfig::http_timeout_ms, "1000")],
        },
        Preset {
            id: "abort-silent",
            label: "AbortSignal.timeout(2000), silent server",
            description: "TimeoutError at about 2,007 ms; the server sees the connection close.",
            values: &[(WhichTimeoutConfig::client, "fetch"), (WhichTimeoutConfig::fault, "silent"), (WhichTimeoutConfig::total_timeout_ms, "2000")],
        },
        Preset {
            id: "body-timeout-trickle",
            label: "bodyTimeout 2000, trickle",
            description: "One byte a second resets the 2 s idle timer every time: it never fires, and the call is \
                          still reading after 7 s.",
            values: &[(WhichTimeoutConfig::client, "fetch"), (WhichTimeoutConfig::fault, "trickle"), (WhichTimeoutConfig::body_timeout_ms, "2000")],
        },
        Preset {
            id: "abort-trickle",
            label: "AbortSignal.timeout(3000), trickle",
            description: "TimeoutError at about 3,004 ms during the body read, after fetch had resolved.",
            values: &[(WhichTimeoutConfig::client, "fetch"), (WhichTimeoutConfig::fault, "trickle"), (WhichTimeoutConfig::total_timeout_ms, "3000")],
        },
        Preset {
            id: "undici-headers-timeout",
            label: "headersTimeout 2000",
            description: "undici's headers timeout of 2 s against a silent server fires late, at about 2,502 ms.",
            values: &[(WhichTimeoutConfig::client, "fetch"), (WhichTimeoutConfig::fault, "silent"), (WhichTimeoutConfig::headers_timeout_ms, "2000")],
        },
        Preset {
            id: "undici-connect-timeout",
            label: "connect: { timeout: 1000 }",
            description: "undici's connect timeout of 1 s against a blackholed address fires late, at about \
                          1,501 ms.",
            values: &[(WhichTimeoutConfig::client, "fetch"), (WhichTimeoutConfig::fault, "blackhole"), (WhichTimeoutConfig::connect_timeout_ms, "1000")],
        },
        Preset {
            id: "pool-wait",
            label: "AbortSignal.timeout(2000), pool full",
            description: "All 10 connections are held by hung calls: TimeoutError at about 2,003 ms, and the \
                          request never left the process.",
            values: &[(WhichTimeoutConfig::client, "fetch"), (WhichTimeoutConfig::fault, "pool-full"), (WhichTimeoutConfig::total_timeout_ms, "2000"), (WhichTimeoutConfig::pool_size, "10")],
        },
        Preset {
            id: "covered",
            label: "A client that covers every phase",
            description: "The chapter's client: a pool of 20, connect 1 s, headers 2 s, body 2 s, and a total of \
                          500 ms that ends any hang at about half a second.",
            values: &[
                (WhichTimeoutConfig::client, "fetch"),
                (WhichTimeoutConfig::pool_size, "20"),
                (WhichTimeoutConfig::connect_timeout_ms, "1000"),
                (WhichTimeoutConfig::headers_timeout_ms, "2000"),
                (WhichTimeoutConfig::body_timeout_ms, "2000"),
                (WhichTimeoutConfig::total_timeout_ms, "500"),
            ],
        },
        Preset {
            id: "ch1-break-5",
            label: "Chapter 1, Break 5: failover, the old IP drops packets",
            description: "50 calls a second through a pool of 10 while the old address drops packets: each connect to \
                          it hangs fetch's 10 s, the pool is full at once, and the calls queue behind it.",
            values: &[
                ("client", "fetch"),
                ("fault", "blackhole"),
                ("failover_calls_per_s", "50"),
                ("pool_size", "10"),
            ],
        },
        Preset {
            id: "ch1-break-5-http",
            label: "Break 5 with node-postgres on Linux",
            description: "The same failover with node-postgres on its defaults: a pool of 10 (pg.Pool's max) and no \
                          connect timeout, so each connect hangs until the kernel's SYN give-up, 127 s on Linux, as \
                          node:http's does (whose default agent has no limit: every call would open its own).",
            values: &[
                ("client", "node-http"),
                ("fault", "blackhole"),
                ("os", "linux"),
                ("failover_calls_per_s", "50"),
                ("pool_size", "10"),
            ],
        },
        Preset {
            id: "ch1-break-5-fix",
            label: "Break 5, the answer: a 1 s connect timeout and a retry at once",
            description: "undici's connect timeout at 1 s, and a failed connect retried at once on a new connection, \
                          which looks the name up again and reaches the new address: safe, the request was never sent.",
            values: &[
                ("client", "fetch"),
                ("fault", "blackhole"),
                ("failover_calls_per_s", "50"),
                ("pool_size", "10"),
                ("connect_timeout_ms", "1000"),
                ("retry_connect", "true"),
            ],
        },
        Preset {
            id: "ch1-break-5-pooled",
            label: "Break 5 under load: the pool holds connections to the old IP",
            description: "The failover with fetch under load: the pool of 10 holds keep-alive connections to the old \
                          address. The first 10 calls are written on them and get no answer: each waits for undici's \
                          headers timeout, 300 s, holding its connection, and every later call waits behind them.",
            values: &[
                ("client", "fetch"),
                ("fault", "blackhole"),
                ("failover_calls_per_s", "50"),
                ("pool_size", "10"),
                ("pooled_to_old_ip", "true"),
            ],
        },
        Preset {
            id: "ch1-break-5-drop-pool",
            label: "Break 5 under load, the answer: drop the old connections",
            description: "The same, with the chapter's whole answer: when the name changes (1 s) the client drops its \
                          pooled connections to the old address, so the 10 requests hung on them fail at once \
                          instead of after 300 s; new connects reach the new address, with a 1 s connect timeout and \
                          a retry at once.",
            values: &[
                ("client", "fetch"),
                ("fault", "blackhole"),
                ("failover_calls_per_s", "50"),
                ("pool_size", "10"),
                ("pooled_to_old_ip", "true"),
                ("drop_pool_on_dns_change", "true"),
                ("connect_timeout_ms", "1000"),
                ("retry_connect", "true"),
            ],
        },
];

crate::metrics! {
    /// What a which-timeout run reports: the CLI's JSON, the stat cards, the sweeps.
    pub struct WhichTimeoutMetrics in METRICS {
        pub error: String = ("Caller sees", "",
            "The error the caller got (UND_ERR_…, TimeoutError, AbortError, ETIMEDOUT, ECONNREFUSED, \
                   ECONNRESET); timeout-event when node:http only emitted 'timeout'; none when nothing failed."),
        pub gave_up_ms: Option<f64> = ("Gave up at", "ms",
            "When the error reached the caller's code (empty if nothing ended the call with an error)."),
        pub phase: String = ("Phase", "",
            "Where the call was when it ended, or is now: pool, dns, connect, tls, ttfb, body, or done."),
        pub still_open_at_end: bool = ("Still open", "",
            "Whether the call is still waiting: nothing has ended it."),
        pub reached_server_app: bool = ("Reached the server's code", "",
            "Whether the request got to the server's application code."),
        pub server_did_work: bool = ("Server did the work", "",
            "Whether the server's handler finished its work (it goes on after the client gives up)."),
        pub safe_to_retry_without_key: bool = ("Safe to retry without a key", "",
            "True only when the call failed and the request provably never reached the server's code."),
        pub pool_wait_ms: Value = ("Pool wait", "ms",
            "Time the call spent waiting in your own process for a free connection."),
        pub first_fired: String = ("First to fire", "",
            "The timer that fired first: total, connect, headers, body, http-timeout, os-connect (none)."),
        pub first_fired_ms: Option<f64> = ("It fired at", "ms",
            "When the first timer fired (its callback ran)."),
        pub response_ms: Option<f64> = ("Response at", "ms",
            "When the headers arrived: fetch resolved, or node:http emitted 'response'."),
        pub completed_ms: Option<f64> = ("Completed at", "ms",
            "When the last byte of the body arrived, if the call succeeded."),
        pub error_proves_not_sent: bool = ("Error proves it was not sent", "",
            "Whether the error by itself says the request never reached the server (connect errors do; a \
                   TimeoutError does not)."),
        pub server_saw_close_ms: Option<f64> = ("Server saw the close at", "ms",
            "When the server saw the client close the connection."),
        pub timeout_events: u64 = ("'timeout' events", "",
            "How many times node:http emitted 'timeout'."),
        pub body_chunks: u64 = ("Body chunks read", "",
            "Chunks of the body read so far (one byte each for a trickle)."),
        pub timers: Value = ("Timers", "",
            "Every armed timer: its clock, timeout, deadline, when it fired and how late, when it was cleared."),
        pub phases: Value = ("Phases", "",
            "The phases the call went through, with their start and end."),
        pub failover_calls: u64 = ("Calls during the failover", "",
            "Calls made so far in the failover run (0 without one)."),
        pub failover_ok: u64 = ("Failover calls answered", "",
            "Calls of the failover run answered, over a connection to the new address."),
        pub failover_failed: u64 = ("Failover calls failed", "",
            "Calls of the failover run whose connect failed and that were not retried (or ran out of retries)."),
        pub failover_connect_hangs: u64 = ("Connects to the old address", "",
            "Connects that went to the old address and hung until a timer or the kernel ended them."),
        pub failover_connect_hang_ms: Option<f64> = ("A connect to the old address hung", "ms",
            "How long the last failed connect to the old address hung before it failed (none if none failed yet)."),
        pub failover_retries: u64 = ("Connects retried", "",
            "Failed connects retried at once on a new connection."),
        pub failover_pool_full_at_ms: Option<f64> = ("Pool full at", "ms",
            "When every connection of the pool was first connecting or in use (none if it never was)."),
        pub failover_waiting_max: u64 = ("Most calls waiting for a connection", "",
            "Most calls of the failover run waiting at once for a connection of the pool."),
        pub failover_first_ok_ms: Option<f64> = ("First call answered at", "ms",
            "When the first call of the failover run was answered (none if none was)."),
        pub failover_slowest_ok_ms: Option<f64> = ("Slowest answered call", "ms",
            "The longest an answered call of the failover run took, its wait for a connection included."),
    }
}

/// With a failover, the figure's cards are its calls' instead (`Explain::caption`).
pub(super) const FAILOVER_HEADLINE: &[&str] = &[
    WhichTimeoutMetrics::failover_ok.key(),
    WhichTimeoutMetrics::failover_failed.key(),
    WhichTimeoutMetrics::failover_pool_full_at_ms.key(),
    WhichTimeoutMetrics::failover_slowest_ok_ms.key(),
];
pub(super) const HEADLINE: &[&str] = &[WhichTimeoutMetrics::error.key(), WhichTimeoutMetrics::gave_up_ms.key(), WhichTimeoutMetrics::phase.key(), WhichTimeoutMetrics::safe_to_retry_without_key.key()];

pub(super) const SWEEP: SweepDefault = SweepDefault {
    x: WhichTimeoutConfig::total_timeout_ms,
    from: 0.0,
    to: 10_000.0,
    steps: 21,
    by: Some(WhichTimeoutConfig::fault),
    metric: WhichTimeoutMetrics::gave_up_ms.key(),
};

