//! What the run draws: its chart samples and one mark per /checkout.

use crate::sim::stats::Series;

/// How one /checkout ended, for drawing a mark per request.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CheckoutOutcome {
    pub sent_ms: f64,
    /// What the client waited: until the answer, or until it gave up.
    pub latency_ms: f64,
    pub ok: bool,
}

/// /home at one sample.
#[derive(Clone, Copy, Debug)]
pub struct HomeSample {
    /// /home handlers in flight.
    pub in_flight: f64,
}

/// The pools at one sample.
#[derive(Clone, Copy, Debug)]
pub struct PoolSample {
    /// Connections of the shared pool held by a call.
    pub shared_in_use: f64,
    /// Connections of the shared pool held by recommendations calls.
    pub shared_recs_held: f64,
    /// Calls waiting for a connection of the shared pool.
    pub shared_waiting: f64,
    /// Connections of the recommendations pool in use (bulkhead only, else 0).
    pub recs_in_use: f64,
    /// Connections open on the downstream host, from every pool.
    pub downstream_open: f64,
}

/// /checkout at one sample.
#[derive(Clone, Copy, Debug)]
pub struct CheckoutSample {
    /// Succeeded so far.
    pub ok: f64,
    /// Failed so far.
    pub failed: f64,
    /// Neither answered nor given up on yet.
    pub waiting: f64,
}

/// Chart data sampled every [`SAMPLE_EVERY`](super::SAMPLE_EVERY).
pub struct Charts {
    pub home_in_flight: Series<HomeSample>,
    pub pool: Series<PoolSample>,
    pub checkout: Series<CheckoutSample>,
}
