//! The lines under the stat cards, from the run's facts only.

use super::budget::retries_for;
use super::layers::product;
use super::words::{per_tick, round1};
use crate::format;
use crate::scenarios::retry_storm::facts::{RetriesEnded, RetryStormFacts};
use crate::sim::Micros;

pub(super) fn peak_note(f: &RetryStormFacts) -> String {
    match f.peak_after_recovery {
        Some(peak) => format!(
            "{} of capacity ({} per tick)",
            format::times(round1(peak as f64 / f.capacity as f64)),
            f.capacity
        ),
        None => format!("capacity {} per tick", f.capacity),
    }
}

pub(super) fn waves_note(f: &RetryStormFacts) -> String {
    if f.peak_after_recovery.is_none() {
        return "after recovery".to_string();
    }
    if f.overloaded_before() && f.over_capacity {
        return "over capacity before the outage too".to_string();
    }
    let starts = &f.wave_starts;
    let gaps: Vec<Micros> = starts.windows(2).map(|w| w[1] - w[0]).collect();
    match (starts.first(), gaps.first()) {
        (None, _) => "no tick over capacity".to_string(),
        (Some(s), Some(g)) if gaps.iter().all(|x| x == g) => {
            format!("from {}, {} apart", format::seconds(*s), format::seconds(*g))
        }
        (Some(s), _) => format!("from {}", format::seconds(*s)),
    }
}

pub(super) fn recovered_note(f: &RetryStormFacts) -> String {
    match f.retries_ended {
        Some(RetriesEnded::NoneWaiting) => "as the provider came back".to_string(),
        Some(RetriesEnded::At { at }) => format!("{} after the provider came back", format::seconds(at - f.down_until)),
        Some(RetriesEnded::NotByTheEnd) => "still retrying at the end".to_string(),
        None if f.run_ended => "the provider was still down at the end".to_string(),
        Some(RetriesEnded::NotYet) | None => String::new(),
    }
}

pub(super) fn amplification_note(f: &RetryStormFacts) -> String {
    format!(
        "{} for {}",
        format::counted(f.attempts, "call", "calls"),
        format::counted(f.actions, "user action", "user actions")
    )
}

pub(super) fn attempts_note(f: &RetryStormFacts) -> String {
    format!("{} rejected (503), {} failed while down", format::count(f.rejected), format::count(f.failed))
}

pub(super) fn calls_note(f: &RetryStormFacts) -> String {
    if f.layers > 1 { format!("at most {}", product(f)) } else { format!("at most {} (max attempts)", f.max_attempts) }
}

pub(super) fn traffic_note(f: &RetryStormFacts) -> String {
    if let (Some(d), Some(reached)) = (f.calls_per_tick_outage, reached_per_tick(f)) {
        // A breaker fails attempts at once: the layers' traffic is not the provider's.
        return format!("{} attempts per tick, {} reached the provider", per_tick(d), per_tick(reached));
    }
    match (f.calls_per_tick_outage, f.calls_per_tick_before) {
        (Some(d), Some(b)) => format!("{} calls per tick, {} before", per_tick(d), per_tick(b)),
        (Some(d), None) => format!("{} calls per tick", per_tick(d)),
        _ => String::new(),
    }
}

/// With a breaker, the outage's calls that reached the provider per tick, over the same ticks
/// as the layers' attempts (none before a user call was made in it).
fn reached_per_tick(f: &RetryStormFacts) -> Option<f64> {
    let attempts = f.outage_retries.map(|o| o.user_calls + o.retries).filter(|n| *n > 0)?;
    let d = f.calls_per_tick_outage?;
    f.breaker.map(|_| f.calls_while_down as f64 * d / attempts as f64)
}

pub(super) fn retry_note(f: &RetryStormFacts) -> String {
    match f.outage_retries {
        Some(o) => retries_for(&o),
        None => "while the provider is down".to_string(),
    }
}
