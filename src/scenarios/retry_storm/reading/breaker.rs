//! What the circuit breaker and the pending orders did (Chapter 2, Breaks 2 and 5), from the
//! run's facts (and the breaker's and the worker's settings) only.

use super::words::wait;
use crate::format;
use crate::scenarios::retry_storm::{DrainRamp, RetryStormConfig, Trip};
use crate::scenarios::retry_storm::facts::{BreakerNow, RetryStormFacts};

/// "so far" while the run goes on.
fn so_far(f: &RetryStormFacts) -> &'static str {
    if f.run_ended { "" } else { " so far" }
}

/// "N calls reached the provider while it was down so far.", once the outage has begun.
fn while_down(f: &RetryStormFacts) -> Option<String> {
    f.outage_begun().then(|| {
        format!(
            "{} the provider while it was down{}.",
            format::counted(f.calls_while_down, "call reached", "calls reached"),
            so_far(f)
        )
    })
}

/// The breaker's rule and what it did.
pub(super) fn breaker_words(f: &RetryStormFacts, c: &RetryStormConfig) -> String {
    let Some(b) = &f.breaker else {
        let head = "No circuit breaker: every attempt goes to the provider, down or not.";
        return match while_down(f) {
            Some(down) => format!("{head} {down}"),
            None => head.to_string(),
        };
    };
    let mut text = format!(
        "A circuit breaker in front of the provider opens {}, then fails every call at once, without sending \
         it, for {}; after that one probe goes through, and its answer closes the breaker or opens it again.",
        trip_words(b.trip),
        wait(c.breaker_cooldown_ms * 1000.0)
    );
    match b.first_open {
        None => text += &format!(" It has not opened{}.", so_far(f)),
        Some(at) => {
            text += &format!(" It first opened at {}", format::seconds(at));
            if b.opens > 1 {
                text += &format!(
                    " and opened {} in all, {} of them when a probe failed",
                    format::counted(b.opens, "time", "times"),
                    format::count(b.failed_probes)
                );
            }
            text += &format!("; it failed {} fast{}.", format::counted(f.short_circuited, "call", "calls"), so_far(f));
        }
    }
    if let Some(down) = while_down(f) {
        text += &format!(" {down}");
    }
    text
}

/// When the breaker opens: "when at least 50% of the calls in the last 10 s failed, once 20 were
/// made", "after 5 failures in a row (a success starts the count again)".
fn trip_words(trip: Trip) -> String {
    match trip {
        Trip::Ratio { failure_pct, min_calls, window } => format!(
            "when at least {} of the calls in the last {} failed, once {} made in that time",
            format::pct(failure_pct),
            wait(window as f64),
            format::counted(min_calls as u64, "was", "were")
        ),
        Trip::Consecutive { failures } => format!(
            "after {} in a row (a success starts the count again)",
            format::counted(failures as u64, "failure", "failures")
        ),
    }
}

/// The breaker's state now, for the page: "breaker closed", "breaker open until 7 s",
/// "breaker half-open: one probe out".
pub(super) fn breaker_state(f: &RetryStormFacts) -> Option<String> {
    f.breaker.map(|b| match b.now {
        BreakerNow::Closed => "breaker closed".to_string(),
        BreakerNow::Open { until } => format!("breaker open until {}", format::seconds(until)),
        BreakerNow::HalfOpen => "breaker half-open: one probe out".to_string(),
    })
}

/// What accepting as pending did: the orders, the backlog, when the worker had drained it.
pub(super) fn pending_words(f: &RetryStormFacts, c: &RetryStormConfig) -> String {
    let Some(p) = &f.pending else {
        return format!(
            "Nothing is accepted as pending: an action whose attempts all fail is a failed action ({}{}).",
            format::count(f.actions_failed),
            so_far(f)
        );
    };
    let rate = match p.ramp {
        DrainRamp::Aimd => format!(
            "starting at 1 call a second and adding 1 for each call that succeeds, up to {} a second (one call \
             every {}); a call that fails halves its rate",
            format::number(c.drain_rate),
            wait(p.interval as f64)
        ),
        DrainRamp::Fixed => {
            format!("at {} a second (one call every {})", format::number(c.drain_rate), wait(p.interval as f64))
        }
    };
    let mut text = format!(
        "Accept as pending: an action whose attempts all failed is accepted as a pending order, and a worker \
         charges the backlog, oldest first, {rate}."
    );
    if p.accepted == 0 {
        text += &format!(" No order was accepted as pending{}.", so_far(f));
        return text;
    }
    text += &format!(
        " {} accepted{}; the backlog peaked at {}.",
        format::counted(p.accepted, "order was", "orders were"),
        so_far(f),
        format::count(p.backlog_max)
    );
    if let Some(b) = p.backlog_at_recovery {
        text += &format!(
            " When the provider came back at {}, {} waiting.",
            format::seconds(f.down_until),
            format::counted(b, "was", "were")
        );
    }
    match p.drained_at {
        Some(d) if f.has_outage() && d >= f.down_until => {
            text += &format!(
                " The worker had charged every order at {}, {} after the provider came back.",
                format::seconds(d),
                format::seconds(d - f.down_until)
            );
        }
        Some(d) => text += &format!(" The worker had charged every order at {}.", format::seconds(d)),
        None => {
            text += &format!(
                " {} still pending{}.",
                format::counted(p.unserved, "order is", "orders are"),
                if f.run_ended { " at the end" } else { "" }
            );
        }
    }
    text
}
