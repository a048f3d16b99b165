//! The table "every fault with these settings": the call run once per fault with the reader's
//! client and timers, one row each, beside what the chapter measured where its setup is the
//! reader's.

use super::facts::{Caller, Server, WhichTimeoutFacts};
use super::model::{CallError, Phase, TimerKind, WhichTimeout};
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

/// One row of the table "every fault with these settings": the facts of that fault's run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FaultRow {
    pub fault: Fault,
    /// The timer that fired first, and when.
    pub first_fired: Option<(TimerKind, Micros)>,
    /// How the call ended, as the caller saw it.
    pub ending: Ending,
    /// The server's handler finished its work.
    pub server_did_work: bool,
    /// Whether a retry without an idempotency key is safe.
    pub retry: RetryCell,
    /// What the chapter measured with these very settings (ms), if it did.
    pub chapter_ms: Option<f64>,
}

/// How a fault's call ended, as the caller saw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The caller got `error` at `at_us`.
    Failed { error: CallError, at_us: Micros },
    /// The call failed with `error`, and the caller had not seen it by the end of the run.
    FailedUnseen { error: CallError },
    /// The body was complete at `at_us`.
    Completed { at_us: Micros },
    /// Still open at the end of the run (`at_us`), in `phase`; `timeout_event`: node:http
    /// emitted 'timeout' and nothing destroyed the request.
    StillOpen { at_us: Micros, phase: Phase, timeout_event: bool },
}

/// The "safe to retry without a key" cell: a completed call has nothing to retry; one still
/// under way is safe to give up on and retry only while its request has not been sent
/// (Chapter 2, Part 2); a failed one is safe only if its request was never sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RetryCell {
    /// The call completed.
    NothingToRetry,
    /// Still under way, its request not sent yet: safe if given up now.
    NotSentYet,
    /// Still under way, its request already sent.
    AlreadySent,
    /// Failed before its request was sent.
    Safe,
    /// Failed after its request was sent: a retry needs a key.
    NeedsKey,
}

/// Runs every fault with the settings of `config` (its own fault aside): one row per fault,
/// in the order the faults are declared.
pub fn every_fault(config: &WhichTimeoutConfig) -> Vec<FaultRow> {
    Fault::ALL
        .iter()
        .map(|&fault| {
            let config = WhichTimeoutConfig { fault, ..config.clone() };
            let run_ms = WhichTimeout::run_length_for(&config).min(MAX_DURATION_MS);
            let mut host = Host::<WhichTimeout>::start(config.clone(), 0, run_ms * MS);
            host.run_to_end();
            FaultRow::of(fault, &host.facts_now(), run_ms * MS, measured_with(&config))
        })
        .collect()
}

impl FaultRow {
    /// A fault's run as a row, from its facts at the end of its run (`end_us`).
    pub fn of(fault: Fault, f: &WhichTimeoutFacts, end_us: Micros, chapter_ms: Option<f64>) -> Self {
        let ending = match f.caller {
            Caller::Failed { error, seen_at_us: Some(at_us), .. } => Ending::Failed { error, at_us },
            Caller::Failed { error, seen_at_us: None, .. } => Ending::FailedUnseen { error },
            Caller::Succeeded { at_us } => Ending::Completed { at_us },
            Caller::Open { timeout_events, .. } => {
                Ending::StillOpen { at_us: end_us, phase: f.phase, timeout_event: timeout_events > 0 }
            }
            Caller::NotStarted | Caller::TakingConnection | Caller::PoolFull { .. } => {
                Ending::StillOpen { at_us: end_us, phase: f.phase, timeout_event: false }
            }
        };
        let sent = !matches!(f.server, Server::NeverReached { .. });
        let retry = match (&f.caller, f.outcome.is_none(), sent) {
            (Caller::Succeeded { .. }, _, _) => RetryCell::NothingToRetry,
            (_, true, false) => RetryCell::NotSentYet,
            (_, true, true) => RetryCell::AlreadySent,
            _ if f.safe_to_retry_without_key => RetryCell::Safe,
            _ => RetryCell::NeedsKey,
        };
        FaultRow {
            fault,
            first_fired: f.first.map(|t| (t.kind, t.fired_at_us)),
            ending,
            server_did_work: f.server_did_work,
            retry,
            chapter_ms,
        }
    }
}
