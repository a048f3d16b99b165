//! What the live charts plot, sampled every [`SAMPLE_EVERY`](super::SAMPLE_EVERY).

use super::spec::MAX_SERVERS;
use crate::sim::stats::Series;

/// Queue depth per server at one sample (unused servers stay 0).
#[derive(Clone, Copy, Debug, Default)]
pub struct QueueSample {
    pub depth: [f64; MAX_SERVERS],
}

/// p50 and p99 over the last second (NaN where nothing finished).
#[derive(Clone, Copy, Debug)]
pub struct LatencySample {
    pub p50_ms: f64,
    pub p99_ms: f64,
}

/// Clients waiting now, and what Little's law predicts (rate × mean latency of the window).
#[derive(Clone, Copy, Debug)]
pub struct InFlightSample {
    pub in_flight: f64,
    pub littles_law: f64,
}

/// Chart data sampled every [`SAMPLE_EVERY`].
pub struct Charts {
    pub queues: Series<QueueSample>,
    pub latency: Series<LatencySample>,
    pub in_flight: Series<InFlightSample>,
}
