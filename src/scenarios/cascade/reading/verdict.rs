//! The verdict: what happened in this run, and why, rendered from the run's facts only.

use super::words::{all_connections, calls, card_ms, count, growth_words, seconds, tenths, timeout_words, waiting_so_far, was};
use crate::format;
use crate::scenarios::cascade::facts::{CascadeFacts, Cause, Little, PoolFacts};

/// The verdict: the cause, /home, the slowdown, the pool, /checkout.
pub fn verdict(f: &CascadeFacts) -> String {
    if !f.started {
        return "Nothing has happened yet: press Play, or Skip to end.".into();
    }
    let mut parts = vec![cause(f), home_sentence(f)];
    parts.extend(slow_sentence(f));
    parts.extend(pool_sentence(f));
    parts.push(checkout_sentence(f));
    parts.join(" ")
}

/// What recommendations did, and how /home waits for it.
fn cause(f: &CascadeFacts) -> String {
    let stop = seconds(f.recs_stops_at_us);
    match f.cause {
        Cause::NoHome => "No /home request arrives in this run (0 a second), so nothing calls recommendations.".into(),
        Cause::AnswersThroughout => format!(
            "Recommendations answers throughout this run: it would stop at {stop}, after the run ends at {}, so no call hangs.",
            seconds(f.end_us)
        ),
        Cause::NotYet => format!("Recommendations answers until {stop}; no call hangs yet."),
        Cause::Slow { slow_us, home_gives_up } => {
            let took = format!(
                "From {stop} recommendations takes {} to answer each call",
                format::duration_ms(slow_us as f64 / 1000.0)
            );
            if home_gives_up {
                format!("{took}; each /home gives up on it after {} and renders without it.", timeout_words(f))
            } else {
                format!("{took}, and /home waits for it.")
            }
        }
        Cause::Stopped { home_gives_up: true } => format!(
            "Recommendations stopped answering at {stop}; each /home gives up on it after {} and renders without it.",
            timeout_words(f)
        ),
        Cause::Stopped { home_gives_up: false } => {
            format!("Recommendations stopped answering at {stop}, and /home waits for it without a timeout.")
        }
    }
}

/// /home in flight, and why it grew or stayed flat when the reason is clear.
fn home_sentence(f: &CascadeFacts) -> String {
    let n = f.home_in_flight;
    let when = if f.load_ended {
        format!("when the load stopped at {}", seconds(f.load_end_us))
    } else {
        format!("at {}", seconds(f.now_us))
    };
    let Some(g) = f.home_growth_per_s else {
        return format!("/home in flight {when}: {}.", count(n));
    };
    let stop = seconds(f.recs_stops_at_us);
    let why = match f.little {
        Little::Unexplained => String::new(),
        Little::SlowWait { wait_us } => format!(
            " Every /home that arrived after {stop} waits at least {} for recommendations, so the count grows with \
             the arrivals (Little's law: in flight = arrival rate × time in the system).",
            format::duration_ms(wait_us as f64 / 1000.0)
        ),
        Little::WaitNeverEnds => format!(
            " Every /home that arrived after {stop} is still waiting, so the count grows with the arrivals \
             (Little's law with a wait that never ends)."
        ),
        Little::TimeoutCaps => format!(
            " Each /home waits at most about {} for recommendations, so the count stops growing: in flight = \
             arrival rate × time in the system (Little's law).",
            timeout_words(f)
        ),
    };
    format!("/home in flight {when}: {}, {}.{why}", count(n), growth_words(g))
}

/// Chapter 1, Break 1: a dependency that answers slowly rather than never. What its
/// latency asks of the pool (Little's law, from the parameters), and when the shared pool
/// filled in this run.
fn slow_sentence(f: &CascadeFacts) -> Option<String> {
    let Cause::Slow { slow_us, .. } = f.cause else { return None };
    let rate = f.home_rate;
    let wait_ms = slow_us.min(f.recs_timeout_us.unwrap_or(slow_us)) as f64 / 1000.0;
    let usual_ms = f.recs_ms.min(f.recs_timeout_us.map_or(f64::MAX, |t| t as f64 / 1000.0));
    let mut s = format!(
        "At {} /home a second and {} a call, Little's law asks for {} recommendations calls in flight at once \
         (arrival rate × wait) instead of about {} at its usual {}.",
        format::number(rate),
        format::duration_ms(wait_ms),
        format::number(libm::round(rate * wait_ms / 1000.0)),
        format::number(libm::round(rate * usual_ms / 1000.0)),
        format::duration_ms(usual_ms)
    );
    if let (Some(full), Some(limit)) = (f.pool_full_at_us, f.shared.limit)
        && full >= f.recs_stops_at_us
    {
        let queued = if f.shared.waiting_max > 0 { ", and calls queued behind it" } else { "" };
        s += &format!(
            " The shared pool of {} filled {} after the slowdown{queued}.",
            count(limit.into()),
            format::us_as_ms(full - f.recs_stops_at_us)
        );
    }
    Some(s)
}

/// Who held the connections, and who waited for them.
fn pool_sentence(f: &CascadeFacts) -> Option<String> {
    let shared = &f.shared;
    if f.unbounded_pool {
        let max = f.downstream_open_max;
        return (max > 0).then(|| {
            format!(
                "With no connection limit no call ever waits for a connection, but every call in progress holds \
                 one open on the downstream host: {} at most.",
                count(max.into())
            )
        });
    }
    let waited = if shared.waiting_max > 0 {
        format!(", and up to {} waited for one at once", calls(shared.waiting_max.into()))
    } else {
        String::new()
    };
    let limit = count(shared.limit.unwrap_or(0).into());
    if let Some(recs) = &f.recs_pool {
        return Some(format!(
            "{}, while price calls kept the shared pool to themselves: at most {} of {limit} in use{waited}.",
            recs_pool_words(f, recs),
            count(shared.in_use_max.into())
        ));
    }
    Some(format!("{}{waited}.", shared_held(f)))
}

/// What held recommendations' own pool (with a bulkhead).
fn recs_pool_words(f: &CascadeFacts, recs: &PoolFacts) -> String {
    let recs_all = all_connections(recs.limit.unwrap_or(0));
    match recs.full_of_hung_at_us {
        Some(t) if f.recs_timeout_us.is_some() => format!(
            "From {}, calls that will never be answered took {recs_all} of recommendations' own pool, each \
             holding its connection until its {} timeout fired",
            seconds(t),
            timeout_words(f)
        ),
        Some(t) => format!(
            "From {}, {recs_all} of recommendations' own pool {} held by calls that will never return",
            seconds(t),
            was(recs.limit)
        ),
        None => format!(
            "Recommendations' own pool had at most {} of {} connections in use",
            count(recs.in_use_max.into()),
            count(recs.limit.unwrap_or(0).into())
        ),
    }
}

/// What held the shared pool (without a bulkhead).
fn shared_held(f: &CascadeFacts) -> String {
    let shared = &f.shared;
    let all = all_connections(shared.limit.unwrap_or(0));
    let has_timeout = f.recs_timeout_us.is_some();
    match (shared.full_of_hung_at_us, f.pool_exhausted_at_us) {
        (Some(t), _) if !has_timeout => format!(
            "From {}, {all} of the shared pool {} held by recommendations calls that will never return",
            seconds(t),
            was(shared.limit)
        ),
        (Some(t), _) => format!(
            "From {}, recommendations calls that will never be answered took {all} of the shared pool, each \
             holding its connection until its {} timeout fired",
            seconds(t),
            timeout_words(f)
        ),
        (_, Some(t)) if has_timeout => format!(
            "From {}, recommendations calls took {all} of the shared pool, each holding its connection until \
             it was answered or its {} timeout fired",
            seconds(t),
            timeout_words(f)
        ),
        (_, Some(t)) => format!("From {}, recommendations calls held {all} of the shared pool", seconds(t)),
        (_, None) => format!(
            "Recommendations calls never held the whole shared pool: at most {} of {} connections were in use at once",
            count(shared.in_use_max.into()),
            count(shared.limit.unwrap_or(0).into())
        ),
    }
}

/// What /checkout's clients got.
fn checkout_sentence(f: &CascadeFacts) -> String {
    let c = &f.checkout;
    if c.arrived == 0 {
        return if c.sent_by_load { "No /checkout has been sent yet.".into() } else { "The load sends no /checkout.".into() };
    }
    let of = |n: u64| format!("{} of {}", count(n), count(c.arrived));
    let still = if c.in_flight > 0 { format!(" {} still waiting.", count(c.in_flight)) } else { String::new() };
    let give_up = format::duration_ms(f.checkout_timeout_ms);
    if c.failed > 0 {
        return format!("{}{}{}{still}", checkout_failed(f, &give_up), longer(f, &give_up), succeeded(f));
    }
    if c.ok == 0 {
        return format!("No /checkout has finished yet;{still}");
    }
    let p99 = c.p99_with_waiting_ms.map(|p| format!(", p99 {}", card_ms(p))).unwrap_or_default();
    let close =
        if c.close_to_giving_up { format!(", close to the {give_up} after which the client gives up") } else { String::new() };
    let queued = if c.queued > 0 {
        format!(" {} had to wait for a connection first.", of(c.queued))
    } else {
        String::new()
    };
    // The p99 is of every checkout sent: those still waiting count at their wait so far.
    let counted = match c.in_flight {
        0 => String::new(),
        n => format!(" The p99 counts {}.", waiting_so_far(n)),
    };
    format!("{} checkouts succeeded{p99}{close}.{queued}{counted}", of(c.ok))
}

/// How many checkouts failed, and how many of them never left the process.
fn checkout_failed(f: &CascadeFacts, give_up: &str) -> String {
    let c = &f.checkout;
    let of = format!("{} of {}", count(c.failed), count(c.arrived));
    if c.failed_queued == 0 {
        return format!("{of} checkouts failed: each client gave up after {give_up}.");
    }
    let failed = if f.recs_stops_at_us < f.end_us {
        format!("/checkout never calls recommendations, yet {of} failed")
    } else {
        format!("{of} checkouts failed")
    };
    format!(
        "{failed}: each client gave up after {give_up}, and {} of them were still waiting for a connection, without \
         ever leaving the process.",
        count(c.failed_queued)
    )
}

/// Issue 24, case 13: a recommendations timeout longer than /checkout's own frees no connection in time.
fn longer(f: &CascadeFacts, give_up: &str) -> String {
    if f.checkout.recs_timeout_longer {
        format!(" Recommendations' {} timeout is longer than the {give_up} /checkout's clients wait.", timeout_words(f))
    } else {
        String::new()
    }
}

fn succeeded(f: &CascadeFacts) -> String {
    match (f.checkout.ok, f.checkout.successes_first_sent_us) {
        (0, _) => " None succeeded.".to_string(),
        (ok, Some(t)) => format!(" {} succeeded, those sent in the first {}.", count(ok), tenths(t)),
        (ok, None) => format!(" {} succeeded.", count(ok)),
    }
}
