//! How numbers read, everywhere: stat cards, chart axes, timelines, the readings of a run and
//! the command line. Plain Rust, so the readings that use it are tested natively.

use crate::sim::decimal::fixed;
pub use crate::sim::params::{plain, with_unit};
use crate::sim::{Micros, ParamSpec, Value};

/// An integer with thousands separators: 12,345.
pub fn group(i: i64) -> String {
    let digits = i.unsigned_abs().to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 + 1);
    if i < 0 {
        out.push('-');
    }
    for (n, c) in digits.chars().enumerate() {
        if n > 0 && (digits.len() - n).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A count: 1,234.
pub fn count(n: u64) -> String {
    group(n.min(i64::MAX as u64) as i64)
}

/// `x` to a tenth, as a metric's value is (`Value::num`): a number rendered from it reads the
/// same as from its card's value (236.46 ms is 236.5 on the card, so "237 ms" in both, not
/// "236 ms" in the words beside "237 ms" on the card; issue 45).
fn tenths(x: f64) -> f64 {
    libm::round(x * 10.0) / 10.0
}

/// A quantity as a reader quotes it: whole numbers with separators from 100 up ("1,449"),
/// one decimal below ("56.6"), and no "-0".
pub fn number(x: f64) -> String {
    if !x.is_finite() {
        return "—".into();
    }
    let x = tenths(x);
    if x.abs() >= 100.0 || x == libm::trunc(x) { group(libm::round(x) as i64) } else { fixed(x, 1) }
}

/// Milliseconds with their unit: "1,448 ms", "56.6 ms".
pub fn ms(x: f64) -> String {
    format!("{} ms", number(x))
}

/// A simulated time in µs as milliseconds: "1,448 ms".
pub fn us_as_ms(t: Micros) -> String {
    ms(t as f64 / 1000.0)
}

/// The play bar's clock, both sides in the unit the run's end reads best in, one decimal:
/// "1.4 s / 20.0 s", "0.5 min / 10.0 min", "0.0 days / 4.0 days".
pub fn clock(now: Micros, end: Micros) -> String {
    const S: f64 = 1e6;
    let (per, unit) = match end as f64 / S {
        e if e <= 1000.0 => (S, "s"),
        e if e <= 2.0 * 3600.0 => (60.0 * S, "min"),
        e if e <= 2.0 * 86_400.0 => (3600.0 * S, "h"),
        _ => (86_400.0 * S, "days"),
    };
    format!("{} {unit} / {} {unit}", fixed(now as f64 / per, 1), fixed(end as f64 / per, 1))
}

/// Seconds for people, at most two decimals and no trailing zeros: "0.43 s", "10 s".
pub fn seconds(us: Micros) -> String {
    secs(us as f64 / 1e6)
}

/// Seconds from a float: "0.43 s", "10 s", "1,200 s".
pub fn secs(s: f64) -> String {
    if s.abs() >= 1000.0 {
        return format!("{} s", group(libm::round(s) as i64));
    }
    let text = fixed(s, 2);
    let text = text.trim_end_matches('0').trim_end_matches('.');
    format!("{text} s")
}

/// A duration in ms as a reader would say it: "1 s" for whole seconds, "350 ms" otherwise.
pub fn duration_ms(ms_value: f64) -> String {
    if ms_value >= 1000.0 && ms_value % 1000.0 == 0.0 { secs(ms_value / 1000.0) } else { ms(ms_value) }
}

/// A long span in ms as a reader would say it: "4 days", "36 h", "90 min", else as
/// [`duration_ms`] ("30 s", "350 ms").
pub fn span_ms(ms_value: f64) -> String {
    const MINUTE: f64 = 60_000.0;
    const HOUR: f64 = 60.0 * MINUTE;
    const DAY: f64 = 24.0 * HOUR;
    let whole = |unit: f64| ms_value >= unit && ms_value % unit == 0.0;
    if ms_value >= 2.0 * DAY && whole(DAY) {
        let days = (ms_value / DAY) as u64;
        format!("{} {}", count(days), plural(days, "day", "days"))
    } else if ms_value >= HOUR && whole(HOUR / 2.0) {
        format!("{} h", number(ms_value / HOUR))
    } else if ms_value >= MINUTE && whole(MINUTE) {
        format!("{} min", count((ms_value / MINUTE) as u64))
    } else {
        duration_ms(ms_value)
    }
}

/// A percentage: "12%", "0.5%", "0.013%", "< 0.001%".
pub fn pct(x: f64) -> String {
    format!("{}%", pct_number(x))
}

/// A percentage's number, the one rendering of a share in words and on a card of unit "%":
/// whole from 10 up, one decimal from 0.05 ("12", "0.5"); below, the digits that say it is not
/// zero ("0.013", "0.02"), and "< 0.001" under that: a non-zero share never reads "0" (issue 45).
fn pct_number(x: f64) -> String {
    if x != 0.0 && x.abs() < 0.05 {
        let thousandths = libm::round(x * 1000.0) / 1000.0;
        return if thousandths == 0.0 { "< 0.001".into() } else { plain(thousandths) };
    }
    let x = tenths(x);
    if x.abs() >= 10.0 || x == libm::trunc(x) { group(libm::round(x) as i64) } else { fixed(x, 1) }
}

/// A ratio: "×9.8".
pub fn times(x: f64) -> String {
    format!("×{}", fixed(x, 1))
}

/// Money in cents as dollars: "$49.99".
pub fn dollars(cents: u64) -> String {
    format!("${}.{:02}", count(cents / 100), cents % 100)
}

/// `one` or `many` after a count.
pub fn plural(n: u64, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 { one } else { many }
}

/// "1 call", "3 calls".
pub fn counted(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", count(n), if n == 1 { one } else { many })
}

/// Where each sentence of `text` but the last ends (the index of the space after it): a
/// sentence ends at ". ", "! " or "? " before a capital letter, a digit or a path ("/home"),
/// so "1.5 s" and "e.g. this" do not end one.
fn sentence_ends(text: &str) -> impl Iterator<Item = usize> + '_ {
    let bytes = text.as_bytes();
    (1..bytes.len().saturating_sub(1)).filter(move |&i| {
        matches!(bytes[i - 1], b'.' | b'!' | b'?')
            && bytes[i] == b' '
            && (bytes[i + 1].is_ascii_uppercase() || bytes[i + 1].is_ascii_digit() || bytes[i + 1] == b'/')
    })
}

/// The first `n` sentences of `text` (see [`sentence_ends`]).
pub fn first_sentences(text: &str, n: usize) -> String {
    match n.checked_sub(1).and_then(|k| sentence_ends(text).nth(k)) {
        Some(end) => text[..end].to_string(),
        None => text.to_string(),
    }
}

/// The sentences of `text` (see [`sentence_ends`]), each without the space after it.
pub fn sentences(text: &str) -> Vec<&str> {
    let mut start = 0;
    let mut out = Vec::new();
    for end in sentence_ends(text) {
        out.push(&text[start..end]);
        start = end + 1;
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

/// The most words a verdict shows before its "Why?".
pub const VERDICT_WORDS: usize = 35;

/// The same in a figure, whose verdict box holds about three lines on a phone.
pub const FIGURE_VERDICT_WORDS: usize = 20;

/// A verdict's lead and the rest: the first sentence, and each next one while the lead stays
/// within `max_words` words. The rest is empty when the whole text fits.
pub fn lead(text: &str, max_words: usize) -> (&str, &str) {
    let words = |s: &str| s.split_whitespace().count();
    let mut cut = None;
    for end in sentence_ends(text) {
        if cut.is_some() && words(&text[..end]) > max_words {
            break;
        }
        cut = Some(end);
    }
    match cut {
        Some(end) if words(text) > max_words => (&text[..end], &text[end + 1..]),
        _ => (text, ""),
    }
}

/// A parameter's value beside its slider: as [`with_unit`], but a minute or more of
/// milliseconds as a reader says it ("4 days", "24 h", "5 min", "127 s").
pub fn slider_value(value: f64, unit: &str) -> String {
    if unit == "ms" && value >= 60_000.0 { span_ms(value) } else { with_unit(value, unit) }
}

/// A parameter's value as its slider says it: "300 ms", "5 min", or the word 0 means ("off").
pub fn param_value(spec: &ParamSpec, value: f64) -> String {
    match spec.zero {
        Some(word) if value == 0.0 => word.to_string(),
        _ => slider_value(value, spec.unit),
    }
}

/// A unit as it reads after `value`: "1 time" but "3 times" (the other units read the same
/// whatever the number: "1 req", "1 ms").
pub fn unit_for(value: f64, unit: &str) -> &str {
    if unit == "times" && value == 1.0 { "time" } else { unit }
}

/// A metric's value and its unit as a reader quotes them, on a stat card, on the command line
/// and in the words that state the same quantity: money in dollars ("$149.97"), a minute or more
/// of milliseconds in seconds ("69 s", as the words say a moment; not "1.1 min" beside "69 s",
/// issue 45), ten minutes or more in minutes, hours or days ("12.4 min"), "1 time" but "3 times",
/// and no unit after a dash or a word.
pub fn quantity(v: &Value, unit: &'static str) -> (String, &'static str) {
    const MINUTE: f64 = 60_000.0;
    let Some(x) = v.as_f64().filter(|_| matches!(v, Value::Int(_) | Value::Num(_))) else { return (value(v), "") };
    match unit {
        "¢" => (signed_dollars(libm::round(x) as i64), ""),
        "$" if x == libm::trunc(x) => {
            (format!("{}${}", if x < 0.0 { "-" } else { "" }, group(libm::fabs(x) as i64)), "")
        }
        "$" => (signed_dollars(libm::round(x * 100.0) as i64), ""),
        "ms" if x.abs() >= 2.0 * 24.0 * 60.0 * MINUTE => (number(x / (24.0 * 60.0 * MINUTE)), "days"),
        "ms" if x.abs() >= 2.0 * 60.0 * MINUTE => (number(x / (60.0 * MINUTE)), "h"),
        "ms" if x.abs() >= 60.0 * MINUTE => (number(x / MINUTE), "min"),
        "ms" if x.abs() >= MINUTE => (number(x / 1000.0), "s"),
        // As the words say them: a share as `pct` ("88", not "87.5"), a ratio as `times`.
        "%" => (pct_number(x), "%"),
        "×" | "× normal" => (fixed(x, 1), unit),
        unit => (number(x), unit_for(x, unit)),
    }
}

/// A duration or a moment in ms as its card shows it ([`quantity`]): "3,490 ms", "69 s", "66.1
/// min". Words that state a carded quantity use it, so both read the same (issue 45).
pub fn card_ms(ms: f64) -> String {
    quantity_text(&Value::num(ms), "ms")
}

/// A moment of the run (µs) as a card shows it: "2,502 ms", "58,529 ms", "447 s" (not "58.53 s"
/// or "447.4 s" beside its card).
pub fn moment(t: Micros) -> String {
    card_ms(t as f64 / 1000.0)
}

/// [`quantity`] as one piece of text: "505 s", "$149.97", "1 time", "—".
pub fn quantity_text(v: &Value, unit: &'static str) -> String {
    match quantity(v, unit) {
        (n, "") => n,
        (n, u) => format!("{n} {u}"),
    }
}

fn signed_dollars(cents: i64) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    format!("{sign}{}", dollars(cents.unsigned_abs()))
}

/// How a metric's value reads on a card: a dash for none, yes/no, numbers as [`number`].
pub fn value(v: &Value) -> String {
    match v {
        Value::Null => "—".into(),
        Value::Bool(b) => (if *b { "yes" } else { "no" }).into(),
        Value::Int(i) => group(*i),
        Value::Num(x) => number(*x),
        Value::Text(t) => t.clone(),
        Value::List(rows) => counted(rows.len() as u64, "row", "rows"),
    }
}

/// An axis tick: "500", "1.5k", "20k".
pub fn tick(v: f64) -> String {
    if v.abs() >= 1000.0 {
        let k = v / 1000.0;
        if k == libm::trunc(k) { format!("{}k", k as i64) } else { format!("{}k", fixed(k, 1)) }
    } else if v == libm::trunc(v) {
        format!("{}", v as i64)
    } else {
        fixed(v, 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_as_a_reader_quotes_them() {
        assert_eq!(group(1_234_567), "1,234,567");
        assert_eq!(group(-1_234), "-1,234");
        assert_eq!(number(56.64), "56.6");
        assert_eq!(number(1448.4), "1,448");
        assert_eq!(number(-0.01), "0");
        // A number from its metric's value (to a tenth) and from the raw one read the same.
        assert_eq!([number(236.46), number(Value::num(236.46).as_f64().unwrap())], ["237", "237"]);
        assert_eq!([pct(87.5), quantity_text(&Value::num(87.5), "%")], ["88%", "88 %"]);
        assert_eq!(quantity_text(&Value::num(116.4), "×"), "116.4 ×");
        assert_eq!(number(3.0), "3");
        assert_eq!(ms(2004.0), "2,004 ms");
        assert_eq!(seconds(430_000), "0.43 s");
        assert_eq!(seconds(10_000_000), "10 s");
        assert_eq!(duration_ms(1000.0), "1 s");
        assert_eq!(duration_ms(350.0), "350 ms");
        assert_eq!(span_ms(4.0 * 86_400_000.0), "4 days");
        assert_eq!(span_ms(86_400_000.0), "24 h");
        assert_eq!(span_ms(7.0 * 86_400_000.0), "7 days");
        assert_eq!(span_ms(36.0 * 3_600_000.0), "36 h");
        assert_eq!(span_ms(5_400_000.0), "1.5 h");
        assert_eq!(span_ms(120_000.0), "2 min");
        assert_eq!(span_ms(30_000.0), "30 s");
        assert_eq!(pct(12.6), "13%");
        assert_eq!(pct(0.5), "0.5%");
        assert_eq!(dollars(4999), "$49.99");
        assert_eq!(with_unit(0.3, "s"), "0.3 s");
        assert_eq!(with_unit(5.0, "×"), "5×");
        assert_eq!((unit_for(1.0, "times"), unit_for(3.0, "times"), unit_for(1.0, "req")), ("time", "times", "req"));
        assert_eq!(slider_value(345_600_000.0, "ms"), "4 days");
        assert_eq!(slider_value(86_400_000.0, "ms"), "24 h");
        assert_eq!(slider_value(127_000.0, "ms"), "127 s");
        assert_eq!(slider_value(45_000.0, "ms"), "45000 ms");
        assert_eq!(tick(1500.0), "1.5k");
        assert_eq!(clock(1_400_000, 20_000_000), "1.4 s / 20.0 s");
        assert_eq!(clock(0, 346_092_210_000), "0.0 days / 4.0 days");
        assert_eq!(clock(30_000_000, 600_000_000), "30.0 s / 600.0 s");
        assert_eq!(clock(60_000_000, 3_600_000_000), "1.0 min / 60.0 min");
        assert_eq!(value(&Value::Null), "—");
        assert_eq!(counted(1, "call", "calls"), "1 call");
        assert_eq!(quantity_text(&Value::Int(14997), "¢"), "$149.97");
        assert_eq!(quantity_text(&Value::Int(-51559), "$"), "-$51,559");
        assert_eq!(quantity_text(&Value::Num(505_413.6), "ms"), "505 s");
        assert_eq!(quantity_text(&Value::Num(69_000.0), "ms"), "69 s");
        assert_eq!(quantity_text(&Value::Num(3_966_000.0), "ms"), "66.1 min");
        assert_eq!([pct(0.02), pct(0.0131), pct(0.0004), pct(0.05)], ["0.02%", "0.013%", "< 0.001%", "0.1%"]);
        assert_eq!(quantity_text(&Value::share(0.02), "%"), "0.02 %");
        assert_eq!(quantity_text(&Value::Num(56.6), "ms"), "56.6 ms");
        assert_eq!(quantity_text(&Value::Num(9_000_000.0), "ms"), "2.5 h");
        assert_eq!(quantity_text(&Value::Int(1), "times"), "1 time");
        assert_eq!(quantity_text(&Value::Null, "ms"), "—");
        assert_eq!(quantity_text(&Value::Bool(true), ""), "yes");
    }

    #[test]
    fn a_lead_is_whole_sentences_within_the_words() {
        let text = "One two three. Four five. Six seven eight nine.";
        assert_eq!(lead(text, 5), ("One two three. Four five.", "Six seven eight nine."));
        assert_eq!(lead(text, 4), ("One two three.", "Four five. Six seven eight nine."));
        // The first sentence, however long, and nothing cut when all of it fits.
        assert_eq!(lead(text, 1), ("One two three.", "Four five. Six seven eight nine."));
        assert_eq!(lead(text, 9), (text, ""));
        assert_eq!(lead("One sentence only, quite long.", 2), ("One sentence only, quite long.", ""));
        assert_eq!(lead("At 40 s: 98. /home waits.", 3), ("At 40 s: 98.", "/home waits."));
        assert_eq!(lead("", 3), ("", ""));
        assert_eq!(sentences("At 1.5 s: 98. /home waits. Done"), ["At 1.5 s: 98.", "/home waits.", "Done"]);
        assert!(sentences("").is_empty());
    }

    #[test]
    fn first_sentences_cut_at_sentence_ends_only() {
        let text = "p99 went from 1.5 s to 3 s. B's queue grew. It never drained.";
        assert_eq!(first_sentences(text, 1), "p99 went from 1.5 s to 3 s.");
        assert_eq!(first_sentences(text, 2), "p99 went from 1.5 s to 3 s. B's queue grew.");
        assert_eq!(first_sentences(text, 5), text);
        assert_eq!(first_sentences("", 2), "");
    }

    /// Issue 45: a timer at 0 is off, and its slider says so instead of "0 ms". Every parameter
    /// whose help says what 0 means declares the word.
    #[test]
    fn a_zero_that_means_off_is_shown_as_a_word() {
        let timeout = ParamSpec::number("timeout_ms", "Timeout", "ms", 0.0, (0.0, 5000.0, 10.0), "0 means none.");
        assert_eq!(param_value(&timeout, 0.0), "0 ms");
        let timeout = timeout.zero_means("off");
        assert_eq!(
            (param_value(&timeout, 0.0), param_value(&timeout, 300.0)),
            ("off".to_string(), "300 ms".to_string())
        );
        for scenario in crate::scenarios::ALL {
            for p in scenario.params.iter().filter(|p| p.unit == "ms") {
                let says = ["0 means none", "0 means no timeout", "0 turns it", "0 means never", "never drifts"]
                    .iter()
                    .any(|s| p.help.contains(s));
                assert_eq!(says, p.zero.is_some(), "{}.{}: help {:?}", scenario.id, p.id, p.help);
            }
        }
    }
}
