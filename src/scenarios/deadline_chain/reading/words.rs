//! The reading's vocabulary: times as the metrics show them, hop names, and when the user
//! stopped waiting.

use crate::format;
use crate::scenarios::deadline_chain::{DeadlineChain, Lane, Party, Reason, WorkOutcome};
use crate::scenarios::deadline_chain::model::total_ms;
use crate::sim::{MS, Micros};

/// A time as the metrics report it (to 0.1 ms), so a sentence quotes the card's figure.
pub(super) fn when(t: Micros) -> String {
    format::ms(ms_f(t))
}

pub(super) fn hop(h: usize) -> &'static str {
    Party::Hop(h).name()
}

/// Whether the hop's work carried on past its deadline (rather than stopping because of it).
pub fn kept_working_past_deadline(lane: &Lane) -> bool {
    match (lane.deadline_passed, lane.work_start, lane.work_outcome) {
        (_, _, Some(WorkOutcome::Stopped(Reason::Deadline))) => false,
        (Some(d), Some(s), _) => s <= d && lane.work_end.is_none_or(|e| e > d),
        _ => false,
    }
}

/// Whether `t` comes after `stop` as the metrics show them (to 0.1 ms), so that a sentence
/// never calls work "for nobody" that the metrics count as none.
pub fn after_shown(stop: Micros, t: Micros) -> bool {
    ms_f(t) > ms_f(stop)
}

pub(super) fn ms_of(ms: i64) -> Micros {
    ms.max(0) as Micros * MS
}

/// A time in ms as the metrics report it (to 0.1 ms).
pub(super) fn ms_f(t: Micros) -> f64 {
    crate::sim::Value::num(t as f64 / 1000.0).as_f64().unwrap_or(0.0)
}

impl DeadlineChain {
    pub(super) fn finished(&self, now: Micros) -> bool {
        now >= self.end
    }

    /// When the user stopped waiting, as of `now`.
    pub(super) fn stopped(&self, now: Micros) -> Option<Micros> {
        self.user_stopped_waiting(now).map(|s| s.0)
    }

    pub(super) fn wasted_ms(&self, now: Micros) -> f64 {
        // As the metric reports it (rounded to 0.1 ms).
        crate::sim::Value::num(total_ms(&self.wasted_intervals(now))).as_f64().unwrap_or(0.0)
    }
}
