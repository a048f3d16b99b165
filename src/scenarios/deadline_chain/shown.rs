//! Times as the metrics show them (to 0.1 ms), shared by the facts, the table and the moments,
//! so that no fact calls a moment "after" another that the cards show as the same.

use crate::sim::{MS, Micros};

/// Whether `t` comes after `stop` as the metrics show them (to 0.1 ms), so that a sentence
/// never calls work "for nobody" that the metrics count as none.
pub fn after_shown(stop: Micros, t: Micros) -> bool {
    ms_f(t) > ms_f(stop)
}

/// Whole milliseconds (the user's budget) in µs.
pub(super) fn ms_of(ms: i64) -> Micros {
    ms.max(0) as Micros * MS
}

/// A time in ms as the metrics report it (to 0.1 ms).
pub(super) fn ms_f(t: Micros) -> f64 {
    crate::sim::Value::num(t as f64 / 1000.0).as_f64().unwrap_or(0.0)
}
