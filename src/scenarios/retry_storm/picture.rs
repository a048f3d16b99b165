//! What the figure's picture draws at one moment, read off the model: every client and what it
//! is doing (in a call, waiting out its backoff and how much of it is left, idle), the attempts
//! of the 100 ms tick in progress, each from its client to the provider with its outcome, the
//! provider's capacity for that tick and how much of it is taken, the breaker's state, and the
//! attempts of every tick so far. Nothing in it is made for the animation: every dot is a
//! client, every line an attempt the model made in this tick.

use super::client::{ClientState, ClientsNow, Leaf, Outcome};
use super::facts::BreakerNow;
use super::model::RetryStorm;
use super::spec::TICK;
use super::ticks::{TickNow, TickSample};
use crate::sim::Micros;
use crate::sim::decimal::fixed;

/// One client as the picture draws it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClientNow {
    pub state: ClientState,
    /// Its latest attempt's outcome, when it made it in the tick drawn.
    pub attempt: Option<Outcome>,
    /// While it waits to retry: the share of its backoff still to wait, 0 to 1.
    pub wait_left: Option<f64>,
}

/// With layers that each retry, the busiest user action now (or just ended): the tree of
/// attempts its layers could make, the chapter's 3 × 3 × 3, and the ones they made.
#[derive(Clone, Debug, PartialEq)]
pub struct Fan {
    /// Whose action it is (a client's index).
    pub client: usize,
    /// Attempts each layer makes at most for one attempt from above, the client's first.
    pub shape: Vec<u32>,
    /// Its attempts so far, in order (the first [`super::client::MOST_LEAVES`]).
    pub leaves: Vec<Leaf>,
    /// Its attempts, and of those the calls that reached the provider.
    pub attempts: u32,
    pub calls: u32,
}

impl Fan {
    /// As `data-drawn` gives it: whose action, the bound, its attempts and calls, the leaves
    /// drawn and how many of them the breaker failed.
    fn json(&self) -> String {
        let breaker = self.leaves.iter().filter(|l| l.outcome == Outcome::ShortCircuited).count();
        format!(
            "{{\"client\":{},\"bound\":{},\"attempts\":{},\"calls\":{},\"leaves\":{},\"short_circuited\":{breaker}}}",
            self.client,
            self.bound(),
            self.attempts,
            self.calls,
            self.leaves.len()
        )
    }

    /// Every attempt the layers could make for one action: the product of the shape.
    pub fn bound(&self) -> u32 {
        self.shape.iter().product()
    }
}

/// The picture of one moment.
#[derive(Clone, Debug, PartialEq)]
pub struct Picture {
    /// The moment drawn.
    pub at: Micros,
    pub clients: Vec<ClientNow>,
    pub clients_now: ClientsNow,
    pub tick: TickNow,
    /// Calls the provider admits per tick.
    pub capacity: u32,
    /// Whether the provider is down now, and its outage [from, until) in µs.
    pub down: bool,
    pub outage: (Micros, Micros),
    pub breaker: Option<BreakerNow>,
    /// Calls in service now (the `in_flight_end` metric).
    pub in_flight: u32,
    /// The busiest tick after recovery so far and when it began (`peak_after_recovery`).
    pub peak: Option<(u32, Micros)>,
    /// Each charted row so far (its start in ms, and its attempts by outcome), and how long
    /// a row is (µs).
    pub history: Vec<(f64, TickSample)>,
    pub row: Micros,
    /// When the run ends (µs).
    pub end: Micros,
    /// The busiest action's tree of attempts, when more than one layer retries.
    pub fan: Option<Fan>,
}

impl Picture {
    /// Attempts drawn as lines: the clients whose latest attempt was in the tick drawn.
    pub fn flights(&self) -> usize {
        self.clients.iter().filter(|c| c.attempt.is_some()).count()
    }

    /// What the picture draws, as JSON for its `data-drawn`: counts named as `run --json`
    /// names them (the metrics' `peak_after_recovery`, `in_flight_end`, `capacity_per_tick`;
    /// the facts' `tick_now`, `clients_now`, `breaker.now`).
    pub fn drawn_json(&self) -> String {
        let t = &self.tick;
        let c = &self.clients_now;
        let peak = self.peak.map_or("null".to_string(), |(n, _)| n.to_string());
        let peak_at = self.peak.map_or("null".to_string(), |(_, at)| fixed(at as f64 / 1000.0, 1));
        let breaker = match self.breaker {
            None => "null",
            Some(BreakerNow::Closed) => "\"closed\"",
            Some(BreakerNow::Open { .. }) => "\"open\"",
            Some(BreakerNow::HalfOpen) => "\"half-open\"",
        };
        format!(
            "{{\"at_ms\":{},\"capacity_per_tick\":{},\"down\":{},\"breaker\":{breaker},\"in_flight_end\":{},\
             \"peak_after_recovery\":{peak},\"peak_after_recovery_at_ms\":{peak_at},\
             \"tick_now\":{{\"start\":{},\"served\":{},\"rejected\":{},\"failed\":{},\"short_circuited\":{},\"resets\":{}}},\
             \"clients_now\":{{\"in_call\":{},\"waiting\":{},\"idle\":{}}},\"clients_drawn\":{},\"flights\":{},\"rows\":{},\"fan\":{}}}",
            fixed(self.at as f64 / 1000.0, 3),
            self.capacity,
            self.down,
            self.in_flight,
            t.start,
            t.served,
            t.rejected,
            t.failed,
            t.short_circuited,
            t.resets,
            c.in_call,
            c.waiting,
            c.idle,
            self.clients.len(),
            self.flights(),
            self.history.len(),
            self.fan.as_ref().map_or("null".to_string(), Fan::json),
        )
    }
}

impl RetryStorm {
    /// What the picture draws at `now`, the model's present.
    pub fn picture(&self, now: Micros) -> Picture {
        let tick = self.tick_now();
        let clients = self
            .clients
            .iter()
            .map(|c| ClientNow {
                state: c.state,
                attempt: c.last.filter(|a| a.at >= tick.start).map(|a| a.outcome),
                wait_left: c.backoff.filter(|_| c.state == ClientState::WaitingToRetry).map(|(from, until)| {
                    let span = until.saturating_sub(from).max(1) as f64;
                    (until.saturating_sub(now) as f64 / span).clamp(0.0, 1.0)
                }),
            })
            .collect();
        Picture {
            at: now,
            clients,
            clients_now: self.clients_now(),
            tick,
            capacity: self.provider.capacity(),
            down: self.provider.is_down(),
            outage: self.outage(),
            breaker: self.breaker_now(),
            in_flight: self.provider.totals().in_flight,
            peak: self.peak_now(now),
            history: self.ticks().times_ms().iter().copied().zip(self.ticks().rows().iter().copied()).collect(),
            row: self.ticks_per_row() * TICK,
            end: self.end,
            fan: self.fan(),
        }
    }

    /// The busiest action now: the client whose current (or last) action made the most
    /// attempts, the first of them on a tie; none with a single retrying layer.
    fn fan(&self) -> Option<Fan> {
        if self.layers.count() < 2 {
            return None;
        }
        let (client, c) = self.clients.iter().enumerate().rev().max_by_key(|(_, c)| c.action_attempts)?;
        let shape = self.layers.shape();
        Some(Fan { client, shape, leaves: c.leaves.clone(), attempts: c.action_attempts, calls: c.action_calls })
    }
}
