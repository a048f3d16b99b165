//! The verdict: the peak after recovery against the capacity, the waves, when the clients were
//! done retrying; and the one line for a comparison column.

use super::words::{per_tick, round1};
use crate::format;
use crate::scenarios::retry_storm::facts::{Phase, RetriesEnded, RetryStormFacts};
use crate::sim::Micros;

/// The wave starts a sentence lists before "…".
const LISTED_WAVES: usize = 5;

/// The peak after recovery against the capacity, the waves and when the retries ended.
pub(super) fn verdict(f: &RetryStormFacts) -> String {
    let (from, until) = (format::seconds(f.down_from), format::seconds(f.down_until));
    let cap = f.capacity;
    match f.phase {
        Phase::NoOutage => {
            let head = format!(
                "The provider never goes down in this run (it would be back at {until}, before going down at {from}), \
                 so no calls fail together and nothing lines the retries up."
            );
            match f.peak_after_recovery {
                Some(peak) => format!("{head} {}", peak_sentence(f, peak, &format!("The busiest tick after {until}"))),
                None => head,
            }
        }
        Phase::Before => format!(
            "The provider goes down at {from} and is back at {until}; it can take {cap} calls per 100 ms tick. \
             Nothing has failed yet."
        ),
        Phase::Down => format!(
            "The provider is down from {from} to {until}: every call fails at once, and {} waiting to retry.",
            format::counted(f.waiting, "client is", "clients are")
        ),
        Phase::Back => {
            let peak = f.peak_after_recovery.expect("the provider is back");
            format!("{} {} {}", peak_sentence(f, peak, "Peak after recovery"), waves_sentence(f), done_sentence(f))
        }
    }
}

/// "Peak after recovery: 40 calls in one 100 ms tick, ×5.0 of the provider's capacity (8 per tick)."
fn peak_sentence(f: &RetryStormFacts, peak: u32, head: &str) -> String {
    format!(
        "{head}: {} in one 100 ms tick, {} of the provider's capacity ({} per tick).",
        format::counted(peak as u64, "call", "calls"),
        format::times(round1(peak as f64 / f.capacity as f64)),
        f.capacity
    )
}

fn waves_sentence(f: &RetryStormFacts) -> String {
    if !f.over_capacity {
        return "No tick went over capacity after the provider came back.".to_string();
    }
    if let Some(before) = f.calls_per_tick_before.filter(|_| f.overloaded_before()) {
        let from = f.wave_starts.first().map(|t| format!(" (from {})", format::seconds(*t))).unwrap_or_default();
        return format!(
            "The provider was over capacity before the outage too: {} calls per tick against its {}. That load \
             alone goes over, so the {} over capacity after it came back{from} are not a sign of retries lined \
             up by the outage.",
            per_tick(before),
            f.capacity,
            format::counted(f.waves, "run of ticks", "runs of ticks"),
        );
    }
    let listed: Vec<String> = f.wave_starts.iter().take(LISTED_WAVES).map(|t| format::seconds(*t)).collect();
    let more = if f.waves as usize > listed.len() { ", …" } else { "" };
    let gaps: Vec<Micros> = f.wave_starts.windows(2).map(|w| w[1] - w[0]).collect();
    let apart = match gaps.first() {
        Some(g) if gaps.len() >= 2 && gaps.iter().all(|x| x == g) => format!(", {} apart", format::seconds(*g)),
        _ => String::new(),
    };
    format!(
        "{} over capacity after the provider came back{apart}, starting at {}{more}.",
        format::counted(f.waves, "wave went", "waves went"),
        listed.join(", ")
    )
}

fn done_sentence(f: &RetryStormFacts) -> String {
    match f.retries_ended.expect("the provider is back") {
        RetriesEnded::NoneWaiting => format!(
            "No client was waiting to retry when the provider came back at {}.",
            format::seconds(f.down_until)
        ),
        RetriesEnded::At { at } => format!(
            "Every client was done retrying at {}, {} after the provider came back.",
            format::seconds(at),
            format::seconds(at - f.down_until)
        ),
        RetriesEnded::NotByTheEnd => {
            format!("Clients were still retrying when the run ended at {}.", format::seconds(f.end))
        }
        RetriesEnded::NotYet => format!("{} still waiting to retry.", format::counted(f.waiting, "client is", "clients are")),
    }
}

/// One line for a comparison column.
pub(super) fn summary(f: &RetryStormFacts) -> String {
    let Some(peak) = f.peak_after_recovery else {
        return if f.phase == Phase::Down {
            format!("The provider is down; {} waiting to retry.", f.waiting)
        } else {
            "The provider is up.".to_string()
        };
    };
    let done = match f.retries_ended.expect("the peak is after recovery") {
        RetriesEnded::NoneWaiting => format!("done retrying at {}", format::seconds(f.down_until)),
        RetriesEnded::At { at } => format!("done retrying at {}", format::seconds(at)),
        RetriesEnded::NotByTheEnd => "still retrying at the end".to_string(),
        RetriesEnded::NotYet => "still retrying".to_string(),
    };
    let over = if f.overloaded_before() {
        "over capacity before the outage too".to_string()
    } else {
        format!("{} over capacity", format::counted(f.waves, "wave", "waves"))
    };
    format!("{} of capacity · {over} · {done}", format::times(round1(peak as f64 / f.capacity as f64)))
}
