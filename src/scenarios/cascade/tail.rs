//! /checkout's percentiles counting the clients still waiting (issue 45): a checkout whose
//! client still waits counts at its wait so far, the least its latency will be, so the p99
//! beside "34 waiting" is not the p99 of the four that got through.

use super::model::Cascade;
use crate::sim::Micros;

impl Cascade {
    /// The `q` quantile of /checkout's waits (ms): those answered or given up on, and each
    /// client still waiting at `now - sent`. None before any checkout is sent.
    pub(super) fn checkout_quantile_with_waiting(&self, q: f64, now: Micros) -> Option<f64> {
        // An abandoned checkout's client has gone: its wait is recorded already.
        let waiting = self.checkouts.values().filter(|c| !c.abandoned).map(|c| now.saturating_sub(c.sent));
        self.checkout_latency.quantile_with(q, waiting).map(|us| us as f64 / 1000.0)
    }
}
