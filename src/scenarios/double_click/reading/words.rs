//! The reading's small words: times, money and key names.

use crate::format;
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

