//! The lines under the stat cards, and the pools' titles, rendered from the run's facts.

use super::words::{
    card_ms, checkout_timeout_words, connections, count, growth_words, recs_pool_words, seconds, tenths, waiting_so_far,
};
use crate::scenarios::cascade::CascadeFacts;
use crate::scenarios::cascade::model::GROWTH_WINDOW;

pub(super) fn note_home(f: &CascadeFacts) -> String {
    let load = seconds(f.load_end_us);
    match (f.load_ended, f.home_growth_per_s) {
        (true, Some(g)) => format!("when the load stopped at {load}; {}", growth_words(g)),
        (true, None) => format!("when the load stopped at {load}"),
        (false, Some(g)) => format!("at {}, {}; the load stops at {load}", seconds(f.now_us), growth_words(g)),
        (false, None) => format!("at {}; the load stops at {load}", seconds(f.now_us)),
    }
}

pub(super) fn note_growth(f: &CascadeFacts) -> String {
    if f.load_ended {
        "over the last 5 s of the load".into()
    } else if f.now_us < GROWTH_WINDOW {
        "since the start".into()
    } else {
        "over the last 5 s".into()
    }
}

pub(super) fn note_ok(f: &CascadeFacts) -> String {
    let c = &f.checkout;
    let mut note = format!("of {} sent", count(c.arrived));
    if let (true, Some(t)) = (c.failed > 0 && c.ok > 0, c.successes_first_sent_us) {
        note.push_str(&format!(" (those sent in the first {})", tenths(t)));
    }
    if c.in_flight > 0 {
        note.push_str(&format!(", {} waiting", count(c.in_flight)));
    }
    note
}

pub(super) fn note_failed(f: &CascadeFacts) -> String {
    let after = checkout_timeout_words(f);
    match f.checkout.first_failed_at_us {
        Some(t) => format!("each gave up after {after}; the first at {}", seconds(t)),
        None => format!("a client gives up after {after}"),
    }
}

pub(super) fn note_p99(f: &CascadeFacts) -> String {
    let c = &f.checkout;
    let Some(p) = c.p50_with_waiting_ms else { return "no checkout sent yet".into() };
    let p50 = format!("p50 {}", card_ms(p));
    match (c.failed > 0, c.in_flight) {
        (false, 0) => p50,
        (true, 0) => format!("{p50}; a failure counts as its wait"),
        (false, n) => format!("{p50}; counts {}", waiting_so_far(n)),
        (true, n) => format!("{p50}; a failure counts as its wait, and {}", waiting_so_far(n)),
    }
}

pub(super) fn note_pool(f: &CascadeFacts) -> String {
    match (f.shared.limit, f.pool_exhausted_at_us) {
        (None, _) => "no limit".into(),
        (Some(l), Some(t)) => format!("of {}; all held by recommendations from {}", count(l.into()), seconds(t)),
        (Some(l), None) => format!("of {}", count(l.into())),
    }
}

pub(super) fn note_downstream(f: &CascadeFacts) -> String {
    format!("{} open now, from every pool", count(f.downstream_open_now.into()))
}

pub(super) fn shared_pool_title(f: &CascadeFacts) -> String {
    let size = match f.shared.limit {
        Some(l) => connections(l.into()),
        None => "no limit".into(),
    };
    let users = if f.recs_pool.is_some() {
        "price calls of /home and /checkout"
    } else {
        "recommendations and price, for /home and /checkout"
    };
    format!("Shared pool ({size}): {users}")
}

pub(super) fn recs_pool_title(f: &CascadeFacts) -> Option<String> {
    let recs = f.recs_pool?;
    Some(format!("Recommendations' own pool ({}): the bulkhead", recs_pool_words(&recs)))
}
