//! Small helpers the reading's sentences share.

use crate::format;

/// A ratio as the metrics round it (to 0.1), so a sentence quotes the number on the card.
pub(super) fn round1(x: f64) -> f64 {
    libm::round(x * 10.0) / 10.0
}

/// A duration in µs as a reader says it: "1 s", "100 ms", "1,600 ms".
pub(super) fn wait(us: f64) -> String {
    format::duration_ms(libm::round(us / 1000.0))
}
