//! The run at one moment: its counts and pools, as the stat cards and the guided tour read them.

use super::pool::PoolNow;
use crate::sim::Micros;

/// Every request counted, for conservation checks and stat cards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
pub struct Counts {
    pub home_arrived: u64,
    pub home_done: u64,
    pub home_in_flight: u64,
    pub checkout_arrived: u64,
    pub checkout_ok: u64,
    pub checkout_failed: u64,
    pub checkout_in_flight: u64,
}

/// The run at one moment, as the guided tour compares it with the chapter's.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
pub struct Moment {
    pub at: Micros,
    pub counts: Counts,
    pub shared: PoolNow,
    /// The bulkhead's pool (None without one).
    pub recs_pool: Option<PoolNow>,
    pub recs_timed_out: u64,
    /// /checkout price calls waiting for a shared connection.
    pub checkout_queued: u32,
    /// What the latest successful /checkout waited, if any had succeeded.
    pub last_ok_latency: Option<Micros>,
    pub downstream_open: u32,
}
