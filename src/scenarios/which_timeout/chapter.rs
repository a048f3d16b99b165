//! The table "every fault with these settings": the call run once per fault with the reader's
//! client and timers, one row each, beside what the chapter measured where its setup is the
//! reader's.

use super::model::{Phase, TimerKind, WhichTimeout};
use super::spec::{Fault, WhichTimeoutConfig};
use crate::sim::base::MAX_DURATION_MS;
use crate::sim::{Config, Host, MS, Micros, Simulation};

/// A row of the chapter's Part 2 table ("What Node 22 actually does") that the model
/// reproduces: the preset that sets it up, and the time the chapter measured (the error's, or
/// node:http's 'timeout' event's).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measured {
    pub preset: &'static str,
    pub ms: f64,
}

pub const MEASURED: &[Measured] = &[
    Measured { preset: "fetch-silent", ms: 300_900.0 },
    Measured { preset: "fetch-blackhole", ms: 10_500.0 },
    Measured { preset: "fetch-no-tls", ms: 10_000.0 },
    Measured { preset: "http-blackhole", ms: 75_000.0 },
    Measured { preset: "http-timeout-event", ms: 1_003.0 },
    Measured { preset: "abort-silent", ms: 2_007.0 },
    Measured { preset: "abort-trickle", ms: 3_004.0 },
    Measured { preset: "undici-headers-timeout", ms: 2_502.0 },
    Measured { preset: "undici-connect-timeout", ms: 1_501.0 },
    Measured { preset: "pool-wait", ms: 2_003.0 },
];

/// What the chapter measured with exactly `config` (the fault included), if it did.
pub fn measured_with(config: &WhichTimeoutConfig) -> Option<f64> {
    MEASURED.iter().find(|m| preset_config(m.preset).as_ref() == Some(config)).map(|m| m.ms)
}

fn preset_config(id: &str) -> Option<WhichTimeoutConfig> {
    let mut params = super::SPEC.defaults();
    params.apply_preset(super::SPEC.preset(id)?).ok()?;
    Some(WhichTimeoutConfig::from_params(&params))
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
    /// The request left the client (a retry could repeat the server's work).
    pub request_sent: bool,
    /// How long the run was (ms).
    pub run_ms: u64,
    /// What the chapter measured with these very settings (ms), if it did.
    pub chapter_ms: Option<f64>,
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

impl FaultRow {
    /// The "safe to retry without a key" cell: a completed call has nothing to retry; one still
    /// under way is safe to give up on and retry only while its request has not been sent.
    pub fn retry_cell(&self) -> &'static str {
        match (self.completed_at.is_some(), self.still_open, self.request_sent) {
            (true, _, _) => "nothing to retry",
            (_, true, false) => "yes, if given up now: not sent yet",
            (_, true, true) => "no: already sent",
            _ if self.safe_to_retry_without_key => "yes",
            _ => "no",
        }
    }
}

impl WhichTimeout {
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
            request_sent: self.request_sent_at.is_some(),
            run_ms,
            chapter_ms: measured_with(&self.config),
        }
    }
}
