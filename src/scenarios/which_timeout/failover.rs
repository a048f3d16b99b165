//! Chapter 1, Break 5: "After a failover, the old database IP drops all packets." Many calls
//! at once, through one pool, to a name that pointed at the old address.
//!
//! The database failed over at 0: the name now points at the new address, but resolvers keep
//! answering with the old one for `dns_ttl_ms` (the record's TTL). The old address drops every
//! packet, so a connect to it is never answered: it hangs until undici's connect timeout
//! (fetch), the socket's idle timer when the `'timeout'` handler destroys the request
//! (node:http), or the kernel's SYN give-up, whichever comes first. Calls arrive at
//! `failover_calls_per_s` for `calls_for_ms`, each takes a connection of the pool
//! (`pool_size`; a connecting socket counts, as in undici's pool and node-postgres's), and
//! waits in line when none is free.
//!
//! Each new connection looks the name up again (Node's `net.connect` calls `dns.lookup` every
//! time) unless `re_resolve` is off: then the client keeps the address it resolved before the
//! failover. A connection to the new address connects and answers in round trips; it then
//! goes back to the pool for the next call. A connect that failed never sent the request, so
//! with `retry_connect` the call retries at once on a new connection, up to
//! [`MAX_ATTEMPTS`] connects in all; without it the call fails.
//!
//! With `pooled_to_old_ip` the pool starts full of keep-alive connections to the old address
//! (a service under load: its sockets never sit idle long enough for a keep-alive timeout to
//! close them). A query written on one is never acknowledged: it waits for undici's headers
//! timeout (fetch), node:http's idle timer with a handler that destroys the request, or the
//! kernel giving up on the unacknowledged data, whichever is first; the request was sent, so
//! the call fails (no retry). The kernel's give-up is Linux's `tcp_retries2` = 15: waits from
//! `TCP_RTO_MIN` 200 ms doubling to `TCP_RTO_MAX` 120 s, 924.6 s in all (`tcp_model_timeout`,
//! `net/ipv4/tcp_timer.c`); macOS's BSD timers: 12 retransmissions (`TCP_MAXRXTSHIFT`) from a
//! 1 s minimum, doubling to 64 s (`TCPTV_MIN`, `TCPTV_REXMTMAX`), 511 s (`tcp_totbackoff`).
//! With `drop_pool_on_dns_change` the client closes every pooled connection to the old address
//! when the name starts to resolve to the new one: an idle one is gone, a call waiting on one
//! fails then, and the next call in line connects anew.
//!
//! undici's connect timeouts in the pool are fast timers on a clock kept running by the
//! calls' many timers: a timeout fires on the `ticks_for(t)`th tick after it was armed (see
//! `undici_clock.rs`), between 0 and one tick late.

use std::collections::VecDeque;

use super::model::Event;
use super::spec::{Client, Os, WhichTimeoutConfig};
use super::undici_clock::{TICK_MS, ticks_for};
use crate::sim::rng::ms_to_us;
use crate::sim::stats::Series;
use crate::sim::{EventQueue, MS, Micros, SEC, TimerKey};

/// Connects a call may make before it fails, the first included (with `retry_connect`).
pub const MAX_ATTEMPTS: u32 = 3;
/// The server's time to answer a query on a healthy connection.
const SERVER: Micros = MS;

/// Points kept of the failover's course (the series halves its density when full).
const SAMPLES: usize = 512;

/// The failover's calls at one instant, for the page's chart.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FleetSample {
    /// Calls in line for a connection of the pool.
    pub waiting: f64,
    /// Connections of the pool hung on the old address: connecting, or a request on a pooled
    /// connection.
    pub hung: f64,
    /// Calls answered so far.
    pub answered: f64,
    /// Calls failed so far.
    pub failed: f64,
}

/// Linux gives up on unacknowledged data after `tcp_retries2` = 15 retransmissions: 200 ms
/// doubling to 120 s, (2^10 − 1) × 200 ms + 6 × 120 s.
const LINUX_DATA_GIVE_UP: Micros = 924_600 * MS;
/// macOS (BSD timers): 12 retransmissions, 1 s doubling to 64 s, 511 × 1 s.
const MACOS_DATA_GIVE_UP: Micros = 511 * SEC;

/// A connection slot of the pool; `old` when its address is the old one (it never answers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Conn {
    Closed,
    /// Connecting for `call`.
    Connecting { call: u32, old: bool },
    Idle { old: bool },
    Busy { call: u32, old: bool },
}

/// The calls of the failover run and the pool they share.
#[derive(Clone, Debug)]
pub struct Failover {
    client: Client,
    interval: Micros,
    calls_until: Micros,
    dns_switch: Micros,
    re_resolve: bool,
    retry: bool,
    rtt: Micros,
    error_delay: Micros,
    /// What a connect to the old address waits for (the client's timers, the kernel's).
    config: WhichTimeoutConfig,
    os_give_up: Micros,
    slots: Vec<Conn>,
    /// Per slot: when its current connect started.
    connect_started: Vec<Micros>,
    queue: VecDeque<u32>,
    /// Per call: when it arrived, and how many connects it has made.
    arrived: Vec<Micros>,
    attempts: Vec<u32>,

    pub calls: u64,
    pub ok: u64,
    pub failed: u64,
    pub connect_hangs: u64,
    pub retries: u64,
    pub waiting_max: u64,
    pub pool_full_at: Option<Micros>,
    pub first_ok_at: Option<Micros>,
    pub slowest_ok: Option<Micros>,
    /// The last connect to the old address that failed: how long it hung.
    pub hung_for: Option<Micros>,
    /// Per slot: the wait of a request written on a connection to the old address.
    lost: Vec<Option<TimerKey>>,
    /// Requests written on pooled connections to the old address.
    pub requests_hung: u64,
    /// The last such request that failed on its own: how long it waited.
    pub request_hung_for: Option<Micros>,
    /// Pooled connections to the old address the client dropped when the name changed.
    pub dropped: u64,
    samples: Series<FleetSample>,
}

/// What ends a request written on a connection whose peer never answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
pub enum RequestEnd {
    /// undici's headers timeout (fetch).
    HeadersTimeout,
    /// node:http's socket idle timer, with a `'timeout'` handler that destroys the request.
    HttpIdle,
    /// The kernel gives up retransmitting the unacknowledged request.
    Kernel,
}

/// The kernel's give-up on data never acknowledged.
fn data_give_up(os: Os) -> Micros {
    match os {
        Os::Linux => LINUX_DATA_GIVE_UP,
        Os::Macos => MACOS_DATA_GIVE_UP,
    }
}

/// When a request written at `written` on a dead connection fails, and what ends it.
pub(super) fn request_end(c: &WhichTimeoutConfig, written: Micros) -> (Micros, RequestEnd) {
    let late = ms_to_us(c.timer_late_ms);
    let kernel = written + data_give_up(c.os);
    let client = match c.client {
        Client::Fetch if c.headers_timeout_ms > 0.0 => {
            Some((undici_fires(written, c.headers_timeout_ms, late), RequestEnd::HeadersTimeout))
        }
        Client::NodeHttp if c.destroy_on_timeout && c.http_timeout_ms > 0.0 => {
            Some((written + ms_to_us(c.http_timeout_ms) + late, RequestEnd::HttpIdle))
        }
        _ => None,
    };
    match client {
        Some((t, end)) if t < kernel => (t + ms_to_us(c.error_delay_ms), end),
        _ => (kernel + ms_to_us(c.error_delay_ms), RequestEnd::Kernel),
    }
}

/// When an undici fast timer of `timeout_ms` armed at `armed` fires: on its clock's ticks,
/// which the calls' many timers keep running.
fn undici_fires(armed: Micros, timeout_ms: f64, late: Micros) -> Micros {
    let period = TICK_MS * MS + late;
    let first_tick = (armed / period + 1) * period;
    first_tick + (ticks_for(timeout_ms as u64) - 1) * period
}

/// What ends a connect to an address that never answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
pub enum HangEnd {
    /// undici's connect timeout (fetch).
    UndiciConnect,
    /// node:http's socket idle timer, with a `'timeout'` handler that destroys the request.
    HttpIdle,
    /// The kernel gives up on the unanswered SYNs.
    Kernel,
}

impl HangEnd {
    /// What ends the hang for these settings.
    pub fn of(c: &WhichTimeoutConfig, os_give_up: Micros) -> Self {
        let (_, end) = hang_end(c, 0, os_give_up);
        end
    }
}

/// When a connect armed at `armed` to an address that never answers fails, as the caller
/// sees it: the first of the client's connect timeout and the kernel's give-up, plus the
/// error's way to the caller's code. `os_give_up` counts from the first SYN.
pub(super) fn connect_fails_after(c: &WhichTimeoutConfig, armed: Micros, os_give_up: Micros) -> Micros {
    let (at, _) = hang_end(c, armed, os_give_up);
    at + ms_to_us(c.error_delay_ms) - armed
}

fn hang_end(c: &WhichTimeoutConfig, armed: Micros, os_give_up: Micros) -> (Micros, HangEnd) {
    let rtt = ms_to_us(c.rtt_ms);
    let late = ms_to_us(c.timer_late_ms);
    // The lookup answers in one round trip, then the first SYN goes out.
    let kernel = armed + rtt + os_give_up;
    let client = match c.client {
        Client::Fetch if c.connect_timeout_ms > 0.0 => {
            Some((undici_fires(armed, c.connect_timeout_ms, late), HangEnd::UndiciConnect))
        }
        Client::NodeHttp if c.destroy_on_timeout && c.http_timeout_ms > 0.0 => {
            Some((armed + ms_to_us(c.http_timeout_ms) + late, HangEnd::HttpIdle))
        }
        _ => None,
    };
    match client {
        Some((t, end)) if t < kernel => (t, end),
        _ => (kernel, HangEnd::Kernel),
    }
}

impl Failover {
    pub(super) fn new(c: &WhichTimeoutConfig, os_give_up: Micros, q: &mut EventQueue<Event>) -> Self {
        let enabled = c.failover_calls_per_s > 0.0;
        let interval = if enabled { libm::round(1e6 / c.failover_calls_per_s) as Micros } else { 0 };
        let calls_until = if enabled { ms_to_us(c.calls_for_ms) } else { 0 };
        let expected = if enabled { (calls_until / interval.max(1)) as usize + 1 } else { 0 };
        let slots = if enabled { c.pool_size as usize } else { 0 };
        if enabled {
            q.schedule_at(0, Event::FleetArrives);
            if c.drop_pool_on_dns_change {
                q.schedule_at(ms_to_us(c.dns_ttl_ms), Event::FleetDnsChanged);
            }
        }
        let start = if c.pooled_to_old_ip { Conn::Idle { old: true } } else { Conn::Closed };
        Self {
            client: c.client,
            interval,
            calls_until,
            dns_switch: ms_to_us(c.dns_ttl_ms),
            re_resolve: c.re_resolve,
            retry: c.retry_connect,
            rtt: ms_to_us(c.rtt_ms),
            error_delay: ms_to_us(c.error_delay_ms),
            config: c.clone(),
            os_give_up,
            slots: vec![start; slots],
            connect_started: vec![0; slots],
            queue: VecDeque::new(),
            arrived: Vec::with_capacity(expected),
            attempts: Vec::with_capacity(expected),
            calls: 0,
            ok: 0,
            failed: 0,
            connect_hangs: 0,
            retries: 0,
            waiting_max: 0,
            pool_full_at: None,
            first_ok_at: None,
            slowest_ok: None,
            hung_for: None,
            lost: vec![None; slots],
            requests_hung: 0,
            request_hung_for: None,
            dropped: 0,
            samples: Series::new(if enabled { SAMPLES } else { 0 }),
        }
    }

    /// Records the calls' state after an event of the failover.
    pub(super) fn sample(&mut self, now: Micros) {
        let row = self.state();
        self.samples.push(now as f64 / MS as f64, row);
    }

    /// The calls' state now (the series may have dropped the latest point it was offered).
    pub fn state(&self) -> FleetSample {
        let hung = self.slots.iter().filter(|s| matches!(s, Conn::Connecting { old: true, .. } | Conn::Busy { old: true, .. })).count();
        FleetSample {
            waiting: self.queue.len() as f64,
            hung: hung as f64,
            answered: self.ok as f64,
            failed: self.failed as f64,
        }
    }

    /// The failover's course so far, thinned (see [`Series`]); [`Failover::state`] is now.
    pub fn samples(&self) -> &Series<FleetSample> {
        &self.samples
    }

    /// Whether the run has a failover at all.
    pub fn enabled(&self) -> bool {
        !self.slots.is_empty()
    }

    pub fn client(&self) -> Client {
        self.client
    }

    /// Calls neither answered nor failed yet.
    pub fn pending(&self) -> u64 {
        self.calls - self.ok - self.failed
    }

    /// Every call has arrived and ended.
    pub fn done(&self) -> bool {
        !self.enabled() || (self.calls > 0 && self.pending() == 0 && self.next_arrival().is_none())
    }

    /// Calls waiting for a connection now.
    pub fn waiting(&self) -> u64 {
        self.queue.len() as u64
    }

    /// When the name starts to resolve to the new address.
    pub fn dns_switch(&self) -> Micros {
        self.dns_switch
    }

    pub fn re_resolves(&self) -> bool {
        self.re_resolve
    }

    pub fn retries_connects(&self) -> bool {
        self.retry
    }

    /// What ends a connect to the old address.
    pub fn hang_end(&self) -> HangEnd {
        HangEnd::of(&self.config, self.os_give_up)
    }

    /// The pool's size.
    pub fn pool_size(&self) -> usize {
        self.slots.len()
    }

    fn next_arrival(&self) -> Option<Micros> {
        let next = self.calls * self.interval;
        (next < self.calls_until).then_some(next)
    }

    pub(super) fn arrives(&mut self, q: &mut EventQueue<Event>, now: Micros) {
        let call = self.calls as u32;
        self.calls += 1;
        self.arrived.push(now);
        self.attempts.push(0);
        if let Some(next) = self.next_arrival() {
            q.schedule_at(next, Event::FleetArrives);
        }
        if let Some(slot) = self.slots.iter().position(|s| matches!(s, Conn::Idle { .. })) {
            self.send(q, now, slot, call);
        } else if let Some(slot) = self.slots.iter().position(|s| *s == Conn::Closed) {
            self.connect(q, now, slot, call);
        } else {
            self.queue.push_back(call);
            self.waiting_max = self.waiting_max.max(self.queue.len() as u64);
        }
    }

    /// A new connection for `call` in `slot`: the lookup, then the connect to whichever
    /// address it gave.
    fn connect(&mut self, q: &mut EventQueue<Event>, now: Micros, slot: usize, call: u32) {
        let old = !self.re_resolve || now < self.dns_switch;
        self.attempts[call as usize] += 1;
        self.slots[slot] = Conn::Connecting { call, old };
        self.connect_started[slot] = now;
        if old {
            self.connect_hangs += 1;
            let hang = connect_fails_after(&self.config, now, self.os_give_up);
            q.schedule_at(now + hang, Event::FleetConnectFailed(slot as u32));
        } else {
            // The lookup, the TCP handshake and TLS 1.3: a round trip each.
            q.schedule_at(now + 3 * self.rtt, Event::FleetConnected(slot as u32));
        }
        self.note_full(now);
    }

    /// `call` sends its query on the connection in `slot`; on one to the old address it is
    /// never answered.
    fn send(&mut self, q: &mut EventQueue<Event>, now: Micros, slot: usize, call: u32) {
        let old = matches!(self.slots[slot], Conn::Idle { old: true } | Conn::Connecting { old: true, .. });
        self.slots[slot] = Conn::Busy { call, old };
        self.connect_started[slot] = now;
        if old {
            self.requests_hung += 1;
            let (at, _) = request_end(&self.config, now);
            self.lost[slot] = Some(q.timer_at(at, Event::FleetRequestLost(slot as u32)));
        } else {
            q.schedule_at(now + self.rtt + SERVER, Event::FleetAnswered(slot as u32));
        }
        self.note_full(now);
    }

    /// What ends a request written on a pooled connection to the old address.
    pub fn request_end(&self) -> RequestEnd {
        request_end(&self.config, 0).1
    }

    /// The request in `slot` got no answer and its wait ended: it was sent, so the call fails;
    /// the dead connection closes and the next call in line connects anew.
    pub(super) fn request_lost(&mut self, q: &mut EventQueue<Event>, now: Micros, slot: usize) {
        self.lost[slot] = None;
        self.request_hung_for = Some(now - self.connect_started[slot] - self.error_delay);
        self.close_failed(q, now, slot);
    }

    fn close_failed(&mut self, q: &mut EventQueue<Event>, now: Micros, slot: usize) {
        self.failed += 1;
        self.slots[slot] = Conn::Closed;
        self.next_waiter(q, now, slot);
    }

    /// The name now resolves to the new address: the client drops its pooled connections to
    /// the old one. A call waiting on one fails; an idle one closes.
    pub(super) fn dns_changed(&mut self, q: &mut EventQueue<Event>, now: Micros) {
        for slot in 0..self.slots.len() {
            match self.slots[slot] {
                Conn::Idle { old: true } => self.slots[slot] = Conn::Closed,
                Conn::Busy { old: true, .. } => {
                    if let Some(timer) = self.lost[slot].take() {
                        q.cancel(timer);
                    }
                    self.close_failed(q, now, slot);
                }
                _ => continue,
            }
            self.dropped += 1;
        }
    }

    fn note_full(&mut self, now: Micros) {
        let busy = self.slots.iter().all(|s| matches!(s, Conn::Connecting { .. } | Conn::Busy { .. }));
        if busy && self.pool_full_at.is_none() {
            self.pool_full_at = Some(now);
        }
    }

    pub(super) fn connected(&mut self, q: &mut EventQueue<Event>, now: Micros, slot: usize) {
        let Conn::Connecting { call, .. } = self.slots[slot] else { unreachable!("a connect ends once") };
        self.send(q, now, slot, call);
    }

    /// The connect to the old address failed, as the caller sees it. The request was never
    /// sent: retry at once on a new connection, or fail.
    pub(super) fn connect_failed(&mut self, q: &mut EventQueue<Event>, now: Micros, slot: usize) {
        let Conn::Connecting { call, .. } = self.slots[slot] else { unreachable!("a connect ends once") };
        self.hung_for = Some(now - self.connect_started[slot] - self.error_delay);
        if self.retry && self.attempts[call as usize] < MAX_ATTEMPTS {
            self.retries += 1;
            self.connect(q, now, slot, call);
            return;
        }
        self.close_failed(q, now, slot);
    }

    pub(super) fn answered(&mut self, q: &mut EventQueue<Event>, now: Micros, slot: usize) {
        let Conn::Busy { call, .. } = self.slots[slot] else { unreachable!("a query is answered once") };
        self.ok += 1;
        self.first_ok_at.get_or_insert(now);
        let took = now - self.arrived[call as usize];
        self.slowest_ok = Some(self.slowest_ok.map_or(took, |s| s.max(took)));
        self.slots[slot] = Conn::Idle { old: false };
        self.next_waiter(q, now, slot);
    }

    /// The first call in line takes the freed slot: its connection if it is open, a new one
    /// if it closed.
    fn next_waiter(&mut self, q: &mut EventQueue<Event>, now: Micros, slot: usize) {
        let Some(call) = self.queue.pop_front() else { return };
        match self.slots[slot] {
            Conn::Idle { .. } => self.send(q, now, slot, call),
            _ => self.connect(q, now, slot, call),
        }
    }
}
