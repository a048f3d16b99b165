//! What the chosen backoff does, with the run's own delays, from the run's facts only.

use super::words::wait;
use crate::format;
use crate::scenarios::retry_storm::facts::{Backoff, LinedUp, RetryAfter, RetryStormFacts};

/// The exponential waits of the run, from the base delay doubling up to the cap:
/// "100 ms, 200 ms, 400 ms, 800 ms, 1,600 ms, then 2 s".
fn doubling(f: &RetryStormFacts) -> String {
    let mut waits = Vec::new();
    let mut w = f.base_us;
    while w < f.cap_us && waits.len() < 6 {
        waits.push(wait(w));
        w *= 2.0;
    }
    if waits.is_empty() {
        return format!("{} (the cap, which is below the base delay)", wait(f.cap_us));
    }
    let last = if w < f.cap_us { "…".to_string() } else { format!("then {}", wait(f.cap_us)) };
    format!("{}, {last}", waits.join(", "))
}

/// Whether clients failed together when the provider went down, so that a backoff without
/// jitter keeps them together (`they` says how), and whether that made waves.
fn in_step(f: &RetryStormFacts, they: &str) -> String {
    match f.lined_up {
        LinedUp::NoOutage => "There is no outage in this run, so no clients fail together.".to_string(),
        LinedUp::NotYet => {
            format!("When the provider goes down it fails every call then in flight at once, and those clients {they}.")
        }
        LinedUp::NothingInFlight => {
            "No call was in flight when the provider went down, so no clients failed together.".to_string()
        }
        LinedUp::Together { calls } => {
            let waves = if f.in_waves() {
                format!(": in waves ({} over capacity after it came back)", format::counted(f.waves, "wave", "waves"))
            } else {
                String::new()
            };
            format!(
                "The provider failed the {} in flight at once when it went down, and those clients {they}{waves}.",
                format::counted(calls, "call", "calls")
            )
        }
    }
}

/// What the chosen backoff does, with the run's own delays.
pub(super) fn backoff_words(f: &RetryStormFacts) -> String {
    let (base, cap) = (wait(f.base_us), wait(f.cap_us));
    let how = match f.backoff {
        Backoff::Fixed => format!(
            "Fixed: every client waits the same {} after each failed attempt. {}",
            wait(f.fixed_us),
            in_step(f, &format!("retry at the same instants, {} apart", wait(f.fixed_us)))
        ),
        Backoff::Exponential => format!(
            "Exponential: a client waits {base} after its first failed attempt, and the wait doubles with every \
             attempt up to {cap} ({}). Every client follows the same sequence. {}",
            doubling(f),
            in_step(f, "stay in step, their retries further apart each time")
        ),
        Backoff::Jitter => format!(
            "Exp + jitter: a client waits a random time between zero and the exponential wait, which starts at \
             {base} and doubles with every attempt up to {cap} ({}). Clients that failed together pick \
             different waits, so their retries spread out instead of landing in the same tick.",
            doubling(f)
        ),
        Backoff::Decorrelated => format!(
            "Decorrelated jitter: a client waits a random time between {base} and three times its previous \
             wait, up to {cap}. The waits are random from the first retry, so clients that failed together \
             drift apart."
        ),
        Backoff::Equal => format!(
            "Equal jitter: a client waits half the exponential wait ({}) plus a random part of the other half: \
             partly in step, partly spread.",
            doubling(f)
        ),
    };
    let attempts = format!(
        " Each user action makes at most {} at the client.",
        format::counted(f.max_attempts as u64, "attempt", "attempts")
    );
    let retry_after = match f.retry_after {
        None => String::new(),
        Some(RetryAfter::IdealSlots) => " When the provider turns a call away with a 503 it says \
             when to come back (the first tick with room for that caller), and clients wait exactly that instead."
            .to_string(),
        Some(RetryAfter::UniformSeconds { seconds }) => format!(
            " When the provider turns a call away with a 503 it says Retry-After: {}, the same for every caller, \
             and clients wait exactly that instead, so those turned away together come back together.",
            format::plain(libm::round(seconds))
        ),
    };
    format!("{how}{attempts}{retry_after}")
}
