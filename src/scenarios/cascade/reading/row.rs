//! The fix in words, and this run's row of the chapter's table, rendered from the run's facts
//! (the row's label also names the settings that differ from the chapter's).

use super::words::{card_ms, count, growth_words, recs_pool_words, seconds, shared_words, tenths, timeout_words, waiting_so_far};
use crate::format;
use crate::scenarios::cascade::{CascadeConfig, CascadeFacts, PARAMS, PoolFacts};
use crate::sim::params::Config;
use crate::sim::{MS, Micros};

/// The fix this run has, as its facts show it: a timeout on recommendations or not, and
/// recommendations' own pool (the bulkhead) or not.
enum Fix {
    NoTimeout,
    Timeout,
    Bulkhead(PoolFacts),
    Both(PoolFacts),
}

fn fix_of(f: &CascadeFacts) -> Fix {
    match (f.recs_timeout_us.is_some(), f.recs_pool) {
        (false, None) => Fix::NoTimeout,
        (true, None) => Fix::Timeout,
        (false, Some(recs)) => Fix::Bulkhead(recs),
        (true, Some(recs)) => Fix::Both(recs),
    }
}

/// When recommendations stops answering, said against the run's end.
fn stop_words(f: &CascadeFacts) -> String {
    let at = seconds(f.recs_stops_at_us);
    let after_the_end = f.recs_stops_at_us >= f.end_us;
    match f.recs_slow_us {
        Some(slow) => {
            let what = format!("take {} a call", format::duration_ms(slow as f64 / 1000.0));
            if after_the_end {
                format!("Recommendations would {what} from {at}, after this run ends at {}.", seconds(f.end_us))
            } else {
                format!("Recommendations starts to {what} at {at}.")
            }
        }
        None if after_the_end => {
            format!("Recommendations would stop answering at {at}, after this run ends at {}.", seconds(f.end_us))
        }
        None => format!("Recommendations stops answering at {at}."),
    }
}

/// What the chosen fix does.
pub(super) fn fix(f: &CascadeFacts) -> String {
    let (t, shared) = (timeout_words(f), shared_words(f));
    let what = match fix_of(f) {
        Fix::NoTimeout if f.unbounded_pool => format!(
            "No timeout, and no limit: {shared} for recommendations and price; /home waits for recommendations as \
             long as it takes."
        ),
        Fix::NoTimeout => {
            format!("No fix: {shared} for recommendations and price; /home waits for recommendations as long as it takes.")
        }
        Fix::Timeout => format!(
            "A {t} timeout on recommendations, the wait for a connection included, then /home renders without them; \
             {shared} for recommendations and price."
        ),
        Fix::Bulkhead(recs) => format!(
            "A separate pool for recommendations ({}) and no timeout: price calls keep {shared} to themselves.",
            recs_pool_words(&recs)
        ),
        Fix::Both(recs) => format!(
            "A {t} timeout on recommendations and a separate pool for them ({}): price calls keep {shared} to themselves.",
            recs_pool_words(&recs)
        ),
    };
    format!("{what} {}", stop_words(f))
}

/// The parameters, other than the fix and the pools the row's label names, that differ
/// from the chapter's run.
fn changed_settings(c: &CascadeConfig) -> Vec<&'static str> {
    let named = [
        CascadeConfig::variant,
        CascadeConfig::recs_timeout_ms,
        CascadeConfig::pool_size,
        CascadeConfig::recs_pool_size,
        CascadeConfig::unbounded_pool,
    ];
    let chapter = CascadeConfig::defaults().to_values();
    PARAMS
        .iter()
        .zip(c.to_values().iter().zip(chapter))
        .filter(|(spec, (v, c))| !named.contains(&spec.id) && **v != *c)
        .map(|(spec, _)| spec.label)
        .collect()
}

/// This run's row of the chapter's table: the fix as the chapter would name it, with the
/// pool it really has, and the other settings that differ from the chapter's (restated from
/// the configuration).
pub(super) fn row_label(f: &CascadeFacts, c: &CascadeConfig) -> String {
    let t = timeout_words(f);
    let fix = match (fix_of(f), f.shared.limit) {
        (Fix::NoTimeout, Some(size)) => format!("No timeout, one shared pool of {size}"),
        (Fix::NoTimeout, None) => "No timeout, no connection limit".to_string(),
        (Fix::Timeout, Some(size)) => format!("{t} timeout on recommendations, one shared pool of {size}"),
        (Fix::Timeout, None) => format!("{t} timeout on recommendations, no connection limit"),
        (Fix::Bulkhead(recs), _) => {
            format!("Separate pool for recommendations ({}), no timeout", recs_pool_words(&recs))
        }
        (Fix::Both(recs), _) => {
            format!("{t} timeout and a separate pool for recommendations ({})", recs_pool_words(&recs))
        }
    };
    let changed = changed_settings(c);
    if changed.is_empty() {
        format!("This run: {fix}")
    } else {
        format!("This run: {fix} (also changed: {})", changed.join(", "))
    }
}

/// The chapter's load lasts 10 s; a row of another length says how long.
const CHAPTERS_LOAD: Micros = 10_000 * MS;

pub(super) fn row_home(f: &CascadeFacts) -> String {
    let mut s = count(f.home_in_flight);
    if let Some(g) = f.home_growth_per_s {
        s = format!("{s}, {}", growth_words(g));
    }
    if !f.load_ended {
        s.push_str(&format!(" so far (at {}; the load lasts {})", seconds(f.now_us), seconds(f.load_end_us)));
    } else if f.load_end_us != CHAPTERS_LOAD {
        s.push_str(&format!(" after {}", seconds(f.load_end_us)));
    }
    s
}

pub(super) fn row_ok(f: &CascadeFacts) -> String {
    let c = &f.checkout;
    let mut s = format!("{} of {}", count(c.ok), count(c.arrived));
    let p99 = c.p99_with_waiting_ms.filter(|_| c.failed == 0 && c.ok > 0);
    if let Some(p) = p99 {
        s.push_str(&format!(", p99 {}", card_ms(p)));
    } else if let (true, Some(t)) = (c.ok > 0, c.successes_first_sent_us) {
        s.push_str(&format!(" (the first {})", tenths(t)));
    }
    match (c.in_flight, p99) {
        (0, _) => {}
        // The p99 quoted counts them: say so.
        (n, Some(_)) => s.push_str(&format!("; it counts {}", waiting_so_far(n))),
        (n, None) => s.push_str(&format!("; {} still waiting", count(n))),
    }
    s
}
