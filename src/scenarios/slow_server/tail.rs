//! The tail after the slowdown: its p99 counting the requests still waited for, and the one
//! ratio the page quotes, each as its card shows it (issue 45).

use slotmap::SlotMap;

use super::request::{Request, RequestKey};
use crate::sim::Micros;
use crate::sim::stats::Histogram;

/// p99 of the requests that arrived from `since` on: the finished ones in `after`, and each one
/// whose client still waits at its wait so far (`now - arrived`, the least its latency will be),
/// and how many were counted so. Without them the tail of a growing queue is missing from its
/// own p99.
pub(super) fn p99_with_waiting(
    after: &Histogram,
    requests: &SlotMap<RequestKey, Request>,
    since: Micros,
    now: Micros,
) -> (Option<f64>, u64) {
    let mut waiting = 0;
    let ages = requests.values().filter(|r| !r.abandoned && r.arrived >= since).map(|r| {
        waiting += 1;
        now - r.arrived
    });
    let p99 = after.quantile_with(0.99, ages).map(|us| us as f64 / 1000.0);
    (p99, waiting)
}

/// A p99 as its card shows it, to 0.1 ms (`Value::num`'s rounding): the words quote this
/// number and the ratio divides these, so the card, its ratio and the sentence agree.
pub(super) fn card_ms(ms: Option<f64>) -> Option<f64> {
    ms.map(|ms| libm::round(ms * 10.0) / 10.0)
}

/// p99 after the slowdown (the waiting counted) over p99 before it, as their cards show them,
/// to the 0.1 the page shows: the one ratio the card, the sentence and the prediction quote.
pub(super) fn p99_ratio(before_ms: Option<f64>, after_ms: Option<f64>) -> Option<f64> {
    let (before, after) = (card_ms(before_ms)?, card_ms(after_ms)?);
    (before > 0.0).then(|| libm::round(after / before * 10.0) / 10.0)
}
