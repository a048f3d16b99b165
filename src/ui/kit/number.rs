//! A number as a `data-` hook or an input's value carries it: the shortest text that reads back
//! as the same double, written by the browser's own `Number.prototype.toString` rather than by
//! `core`'s formatter, which would add its tables and its two algorithms to every page's download
//! (README, "What each page downloads"). Tests read these with `Number()`, which takes the
//! browser's forms ("1e-7", "Infinity") as they are.

/// `x` as JavaScript writes it: "56.6", "0.30000000000000004", "1e+21".
pub fn shortest(x: f64) -> String {
    js_sys::Number::from(x).to_string_with_radix(10).map(String::from).unwrap_or_default()
}
