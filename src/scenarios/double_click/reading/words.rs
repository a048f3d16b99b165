//! The reading's small words: times, money, key and attempt names.

use crate::format;
use crate::scenarios::double_click::log::AttemptRef;
use crate::sim::Micros;

pub(super) fn when(t: Micros) -> String {
    format::us_as_ms(t)
}

pub(super) fn money(cents: u32) -> String {
    format::dollars(cents as u64)
}

pub(super) fn key_name(k: u32) -> String {
    format!("k{k}")
}


/// "click 1's attempt 2".
pub(super) fn attempt_name(a: AttemptRef) -> String {
    format!("click {}'s attempt {}", a.click, a.number)
}
