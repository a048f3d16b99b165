//! Small helpers the reading's sentences share.

use crate::format;

/// A ratio as the metrics round it (to 0.1), so a sentence quotes the number on the card.
pub(super) fn round1(x: f64) -> f64 {
    libm::round(x * 10.0) / 10.0
}

/// Calls per tick as a reader compares them: to one decimal, or under 1 to two significant
/// digits ("0.05"), so a small rate never reads 0 beside a ratio worked from it.
pub(super) fn per_tick(x: f64) -> String {
    if x >= 0.95 || x <= 0.0 {
        return format::number(round1(x));
    }
    let scale = libm::pow(10.0, 1.0 - libm::floor(libm::log10(x)));
    format::plain(libm::round(x * scale) / scale)
}

/// A duration in µs as a reader says it: "1 s", "100 ms", "1,600 ms".
pub(super) fn wait(us: f64) -> String {
    format::duration_ms(libm::round(us / 1000.0))
}
