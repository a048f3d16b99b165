//! Calls per user action across the retrying layers, from the run's facts only.

use super::words::round1;
use crate::format;
use crate::scenarios::retry_storm::facts::RetryStormFacts;

/// The layers' attempts multiplied out: "3 × 3 × 3 = 27".
pub(super) fn product(f: &RetryStormFacts) -> String {
    let factors: Vec<String> = std::iter::once(f.max_attempts)
        .chain((1..f.layers).map(|_| f.attempts_per_layer))
        .map(|n| n.to_string())
        .collect();
    format!("{} = {}", factors.join(" × "), format::count(f.calls_per_action_bound()))
}

/// Calls per user action across the layers, and over the run.
pub(super) fn layers_words(f: &RetryStormFacts) -> String {
    let head = if !f.retries_at_all() {
        "No layer retries (each makes one attempt), so every user action makes exactly one provider call.".to_string()
    } else if f.layers == 1 {
        format!(
            "Only the client retries: at most {} for one user action (its max attempts). The most one action \
             made in this run: {}.",
            format::counted(f.max_attempts as u64, "provider call", "provider calls"),
            format::count(f.most_calls_per_action)
        )
    } else {
        format!(
            "The client makes up to {} and each of the {} layers below it up to {} for every attempt from \
             above: up to {} provider calls for one user action. The most one action made in this run: {}.",
            format::counted(f.max_attempts as u64, "attempt", "attempts"),
            f.layers - 1,
            f.attempts_per_layer,
            product(f),
            format::count(f.most_calls_per_action)
        )
    };
    let budget = if f.has_budget && f.retries_at_all() {
        " The retry budget can stop a layer before its attempts run out."
    } else {
        ""
    };
    if f.actions == 0 {
        return format!("{head}{budget}");
    }
    let breaker = if f.breaker.is_some() {
        format!(
            " The breaker fails attempts at once while it is open, without sending them: the most attempts \
             the layers made for one action was {}, those it failed fast included.",
            format::count(f.most_attempts_per_action)
        )
    } else {
        String::new()
    };
    let sent = f.pending.map_or(0, |p| p.sent);
    let worker = if sent > 0 {
        format!(" (the pending worker's {} included)", format::counted(sent, "call", "calls"))
    } else {
        String::new()
    };
    format!(
        "{head}{budget}{breaker} Over the run{}, {}{worker} for {}: amplification {}.",
        if f.run_ended { "" } else { " so far" },
        format::counted(f.attempts, "provider call", "provider calls"),
        format::counted(f.actions, "user action", "user actions"),
        format::times(round1(f.attempts as f64 / f.actions as f64))
    )
}
