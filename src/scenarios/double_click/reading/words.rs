//! The reading's small words: a line of the list of events, times, money and key names.

use crate::format;
use crate::sim::Micros;

/// One line of the list of events: when, where, what.
#[derive(Clone, Debug, PartialEq)]
pub struct Happening {
    pub at: Micros,
    /// Orders what happens in the same microsecond: cause before effect.
    pub(super) order: (u8, usize),
    pub place: &'static str,
    pub text: String,
}

pub(super) fn when(t: Micros) -> String {
    format::us_as_ms(t)
}

pub(super) fn money(cents: u32) -> String {
    format::dollars(cents as u64)
}

pub(super) fn key_name(k: u32) -> String {
    format!("k{k}")
}

