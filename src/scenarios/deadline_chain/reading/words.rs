//! The reading's vocabulary: times as the metrics show them, hop names.

use crate::format;
use crate::scenarios::deadline_chain::Party;
use crate::scenarios::deadline_chain::shown::ms_f;
use crate::sim::Micros;

/// A time as the metrics report it (to 0.1 ms), so a sentence quotes the card's figure.
pub(super) fn when(t: Micros) -> String {
    format::ms(ms_f(t))
}

pub(super) fn hop(h: usize) -> &'static str {
    Party::Hop(h).name()
}
