//! The reading's vocabulary: times as the metrics show them, hop names.

use crate::format;
use crate::scenarios::deadline_chain::{Lane, Party, Reason, WorkOutcome};
use crate::scenarios::deadline_chain::facts::ms_f;
use crate::sim::Micros;

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
