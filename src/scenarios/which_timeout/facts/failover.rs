//! Chapter 1, Break 5 as facts: what the failover's many calls saw, taken from the run once.
//! `reading/failover.rs` restates these (and the settings it names) and nothing else.

use crate::scenarios::which_timeout::failover::{HangEnd, RequestEnd};
use crate::scenarios::which_timeout::model::WhichTimeout;
use crate::sim::Micros;

/// What the failover's calls saw so far (only in a run with a failover).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
pub struct FailoverFacts {
    /// Calls started so far.
    pub calls: u64,
    /// The run has reached its end.
    pub run_ended: bool,
    /// The connections of the pool the calls share.
    pub pool_size: u64,
    /// Where new connections went.
    pub lookup: Lookup,
    /// The connects to the old address, and what ended them.
    pub hangs: Hangs,
    /// The requests written on pooled connections to the old address (None while there are none).
    pub pooled: Option<Pooled>,
    /// When the pool was full, if it was.
    pub pool_full: Option<PoolFull>,
    /// Failed connects retried at once on a new connection.
    pub retries: u64,
    /// The calls answered, if any were.
    pub answered: Option<Answered>,
    /// Calls failed.
    pub failed: u64,
    /// Calls neither answered nor failed.
    pub pending: u64,
}

/// Where a new connection of the failover went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
pub enum Lookup {
    /// Each new connection looks the name up again; it gave the old address until `old_until_us`.
    ReResolved { old_until_us: Micros },
    /// The client kept the address it resolved before the failover: every connect goes to the old one.
    KeptOldAddress,
}

/// The connects to the old address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize), serde(rename_all = "kebab-case"))]
pub enum Hangs {
    /// None so far.
    None,
    /// `connects` went to the old address and none has ended yet.
    StillHanging { connects: u64 },
    /// `connects` went to the old address; each hung until `ended_by` (`latest_us` for the latest).
    Ended { connects: u64, latest_us: Micros, ended_by: HangEnd },
}

/// The requests written on the keep-alive connections the pool held to the old address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
pub struct Pooled {
    /// Requests written on them (none was answered).
    pub requests: u64,
    /// What ended such a request's wait, and how long the latest waited (µs), once one ended on
    /// its own.
    pub ended: Option<(RequestEnd, Micros)>,
    /// Connections to the old address the client dropped when the name changed.
    pub dropped: u64,
    /// When the name changed (µs).
    pub changed_at_us: Micros,
}

/// The pool was full.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
pub struct PoolFull {
    /// When it first was.
    pub at_us: Micros,
    /// The most calls waiting for a connection at once.
    pub waiting_max: u64,
}

/// The calls answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(serde::Serialize))]
pub struct Answered {
    pub calls: u64,
    /// When the first was answered.
    pub first_at_us: Micros,
    /// The longest an answered call took.
    pub slowest_us: Micros,
}

impl WhichTimeout {
    /// The failover's facts as of `now`; None in a run without a failover.
    pub(super) fn failover_facts(&self, now: Micros) -> Option<FailoverFacts> {
        let f = self.failover();
        if !f.enabled() {
            return None;
        }
        let lookup =
            if f.re_resolves() { Lookup::ReResolved { old_until_us: f.dns_switch() } } else { Lookup::KeptOldAddress };
        let hangs = match (f.hung_for, f.connect_hangs) {
            (Some(latest_us), connects) => Hangs::Ended { connects, latest_us, ended_by: f.hang_end() },
            (None, 0) => Hangs::None,
            (None, connects) => Hangs::StillHanging { connects },
        };
        let answered = f.first_ok_at.zip(f.slowest_ok).map(|(first_at_us, slowest_us)| Answered {
            calls: f.ok,
            first_at_us,
            slowest_us,
        });
        Some(FailoverFacts {
            calls: f.calls,
            run_ended: now >= self.end(),
            pool_size: f.pool_size() as u64,
            lookup,
            hangs,
            pooled: (f.requests_hung > 0 || f.dropped > 0).then(|| Pooled {
                requests: f.requests_hung,
                ended: f.request_hung_for.map(|latest| (f.request_end(), latest)),
                dropped: f.dropped,
                changed_at_us: f.dns_switch(),
            }),
            pool_full: f.pool_full_at.map(|at_us| PoolFull { at_us, waiting_max: f.waiting_max }),
            retries: f.retries,
            answered,
            failed: f.failed,
            pending: f.pending(),
        })
    }
}
