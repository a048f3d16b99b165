//! The guided tour: this run at the chapter's moment it has reached, rendered from the run's
//! facts ([`TourFacts`] and what recommendations does).

use super::words::{all_connections_cap, calls, connections, count, seconds, timeout_words};
use crate::format;
use crate::scenarios::cascade::{CascadeFacts, GUIDED_STEPS, Moment, PoolNow, TourFacts};

/// The pool recommendations uses, at a moment.
fn recs_side(m: &Moment) -> PoolNow {
    m.recs_pool.unwrap_or(m.shared)
}

/// What recommendations does at `recs_stops_at_us`: it stops answering, or it slows down.
fn stops_word(f: &CascadeFacts) -> &'static str {
    if f.recs_slow_us.is_some() { "slows down" } else { "stops" }
}

pub(super) fn tour_recs(f: &CascadeFacts, m: &Moment) -> String {
    if m.at < f.recs_stops_at_us {
        return format!("answering (it {} at {})", stops_word(f), seconds(f.recs_stops_at_us));
    }
    let held = recs_side(m).recs_held;
    let what = match f.recs_slow_us {
        Some(slow) => format!("slowed to {} a call at", format::duration_ms(slow as f64 / 1000.0)),
        None => "stopped at".to_string(),
    };
    let mut s = format!(
        "{what} {}; {} {} a connection",
        seconds(f.recs_stops_at_us),
        calls(held.into()),
        if held == 1 { "holds" } else { "hold" }
    );
    if m.recs_timed_out > 0 {
        s.push_str(&format!(", {} timed out so far", count(m.recs_timed_out)));
    }
    s
}

pub(super) fn tour_pool(m: &Moment) -> String {
    match m.recs_pool {
        Some(r) => format!(
            "price only: {}. Recommendations' own pool: {}",
            m.shared.status(false),
            match r.limit {
                Some(l) => format!("{} of {} in use", count(r.in_use.into()), count(l.into())),
                None => format!("{} in use (no limit)", count(r.in_use.into())),
            }
        ),
        None => m.shared.status(true),
    }
}

/// The chapter's explanation of a moment when this is the chapter's run; otherwise what
/// this run was doing at that moment.
pub(super) fn tour_explanation(f: &CascadeFacts, tour: &TourFacts) -> String {
    if tour.chapter_timeline {
        return GUIDED_STEPS[tour.step].explanation.to_string();
    }
    let m = &tour.moment;
    if m.at < f.recs_stops_at_us {
        return still_answering(f, m);
    }
    format!("{}{}{}", held(f, m), waiting(m), checkout(m))
}

/// Before recommendations stops: whether any checkout waits for a connection.
fn still_answering(f: &CascadeFacts, m: &Moment) -> String {
    let waits = if m.checkout_queued > 0 {
        format!("{} waiting for a connection", format::counted(m.checkout_queued.into(), "checkout is", "checkouts are"))
    } else {
        "no checkout is waiting for a connection".into()
    };
    format!(
        "At {} recommendations still answers (it {} at {}): its calls come and go, and {waits}.",
        seconds(m.at),
        stops_word(f),
        seconds(f.recs_stops_at_us)
    )
}

/// What recommendations calls hold of their pool at the moment.
fn held(f: &CascadeFacts, m: &Moment) -> String {
    let p = recs_side(m);
    let (name, name_cap) = if m.recs_pool.is_some() {
        ("recommendations' own pool", "Recommendations' own pool")
    } else {
        ("the shared pool", "The shared pool")
    };
    let has_timeout = f.recs_timeout_us.is_some();
    let is = |l: u32| if l == 1 { "is" } else { "are" };
    match p.limit {
        None => format!(
            "With no connection limit every recommendations call holds a connection of its own: {} now, and {} \
             open on the downstream host.",
            count(p.recs_held.into()),
            count(m.downstream_open.into())
        ),
        Some(l) if p.full_of_hung() && !has_timeout => format!(
            "{} of {name} {} held by recommendations calls that will never return.",
            all_connections_cap(l),
            is(l)
        ),
        Some(l) if p.full_of_recs() && has_timeout => format!(
            "{} of {name} {} held by recommendations calls; each frees its connection when it is answered or its \
             {} timeout fires.",
            all_connections_cap(l),
            is(l),
            timeout_words(f)
        ),
        Some(l) => format!(
            "{} of {} has {} held by recommendations calls.",
            name_cap,
            connections(l.into()),
            count(p.recs_held.into())
        ),
    }
}

/// Who waits for a shared connection at the moment.
fn waiting(m: &Moment) -> String {
    if m.recs_pool.is_some() {
        format!(" Price calls have the shared pool to themselves: {}.", m.shared.status(false))
    } else if m.shared.waiting > 0 {
        let queued = m.checkout_queued;
        let of_checkout =
            if queued > 0 { format!(", {} of them /checkout's", count(queued.into())) } else { String::new() };
        format!(
            " {} for a connection of the shared pool{of_checkout}.",
            format::counted(m.shared.waiting.into(), "call waits", "calls wait")
        )
    } else {
        " No call waits for a connection.".into()
    }
}

/// What /checkout got by the moment.
fn checkout(m: &Moment) -> String {
    if m.counts.checkout_failed > 0 {
        format!(
            " {} so far.",
            format::counted(m.counts.checkout_failed, "checkout has failed", "checkouts have failed")
        )
    } else if m.checkout_queued > 0 && m.recs_pool.is_none() {
        " /checkout never calls recommendations, yet it waits in that queue.".into()
    } else {
        " Every checkout so far got its answer or is still waiting.".into()
    }
}

pub(super) fn tour_home(m: &Moment) -> String {
    format!("{} in flight, {} answered", count(m.counts.home_in_flight), count(m.counts.home_done))
}

pub(super) fn tour_checkout(m: &Moment) -> String {
    let c = &m.counts;
    let latest = m.last_ok_latency.map(|l| format!(" (the latest in {})", format::us_as_ms(l))).unwrap_or_default();
    let mut s = format!(
        "{} ok{latest}, {} failed, {} waiting",
        count(c.checkout_ok),
        count(c.checkout_failed),
        count(c.checkout_in_flight)
    );
    if m.checkout_queued > 0 {
        s.push_str(&format!(", {} of them for a connection", count(m.checkout_queued.into())));
    }
    s
}
