//! Decimal text to and from `f64`, written here rather than taken from `core` so the browser's
//! module carries neither `core`'s float parser (its 10 KB table of powers of five does not
//! compress) nor its float formatter: together 14–20 KB gzipped of every page's download
//! (README, "What each page downloads"). Plain integer arithmetic, so every platform gives the
//! same bits and the same text.
//!
//! [`fixed`] is exactly `format!("{x:.d$}")`: the binary value rounded to `d` decimals, ties to
//! even. [`parse`] is exactly `text.parse::<f64>()` for every number of up to 15 significant
//! digits with a power of ten up to 22 (every value a slider, a link or a preset writes); longer
//! or larger ones are read to within a unit in the last place, the same way everywhere.

/// The largest number of decimals [`fixed`] writes (the engine's microseconds need 6).
pub const MAX_DECIMALS: usize = 9;

/// `x` with `decimals` digits after the point (at most [`MAX_DECIMALS`]), as `{x:.decimals$}`
/// writes it: "0.2" for 0.25 at one decimal (the binary value's tie goes to even), "-0.0" for
/// -0.04, "inf", "NaN".
pub fn fixed(x: f64, decimals: usize) -> String {
    let decimals = decimals.min(MAX_DECIMALS);
    if x.is_nan() {
        return "NaN".into();
    }
    let sign = if x.is_sign_negative() { "-" } else { "" };
    if x.is_infinite() {
        return format!("{sign}inf");
    }
    let (mantissa, exponent) = binary_parts(x.abs());
    let digits = if exponent >= 0 {
        let mut whole = integer_digits(mantissa, exponent as u32);
        whole.extend(std::iter::repeat_n(b'0', decimals));
        whole
    } else {
        scaled_rounded(mantissa, exponent.unsigned_abs(), decimals)
    };
    with_point(sign, &digits, decimals)
}

/// `x = mantissa × 2^exponent` exactly, for a finite `x ≥ 0`.
fn binary_parts(x: f64) -> (u64, i32) {
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1 << 52) - 1);
    if biased == 0 { (fraction, -1074) } else { (fraction | (1 << 52), biased - 1075) }
}

/// The decimal digits of `mantissa × 2^shift`, most significant first.
fn integer_digits(mantissa: u64, shift: u32) -> Vec<u8> {
    // Little-endian base-10 digits, doubled `shift` times: at most 971 doublings of 309 digits.
    let mut digits: Vec<u8> = mantissa.to_string().bytes().rev().map(|d| d - b'0').collect();
    for _ in 0..shift {
        let mut carry = 0;
        for d in digits.iter_mut() {
            let twice = *d * 2 + carry;
            *d = twice % 10;
            carry = twice / 10;
        }
        if carry > 0 {
            digits.push(carry);
        }
    }
    digits.iter().rev().map(|d| d + b'0').collect()
}

/// The digits of `mantissa / 2^shift × 10^decimals` rounded to a whole number, ties to even,
/// with at least `decimals + 1` of them (leading zeros kept).
fn scaled_rounded(mantissa: u64, shift: u32, decimals: usize) -> Vec<u8> {
    let scaled = u128::from(mantissa) * 10u128.pow(decimals as u32);
    // `scaled` is under 2^83: from a shift of 128 on, it is under half of 2^shift.
    let rounded = if shift >= 128 {
        0
    } else {
        let whole = scaled >> shift;
        let rest = scaled & ((1u128 << shift) - 1);
        let half = 1u128 << (shift - 1);
        if rest > half || (rest == half && whole % 2 == 1) { whole + 1 } else { whole }
    };
    format!("{rounded:0>width$}", width = decimals + 1).into_bytes()
}

/// `digits` with a point before the last `decimals` of them.
fn with_point(sign: &str, digits: &[u8], decimals: usize) -> String {
    let (whole, fraction) = digits.split_at(digits.len() - decimals);
    let text = |d: &[u8]| String::from_utf8_lossy(d).into_owned();
    if decimals == 0 { format!("{sign}{}", text(whole)) } else { format!("{sign}{}.{}", text(whole), text(fraction)) }
}

/// A number written as `str::parse::<f64>` reads one: an optional sign, then digits with an
/// optional point and exponent ("12", "-0.5", ".5", "1e3"), or "inf", "infinity", "nan" in any
/// case. No spaces: the callers trim.
pub fn parse(text: &str) -> Option<f64> {
    let (negative, rest) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let named = |name: &str| rest.eq_ignore_ascii_case(name);
    let magnitude = if named("inf") || named("infinity") {
        f64::INFINITY
    } else if named("nan") {
        f64::NAN
    } else {
        Decimal::read(rest)?.value()
    };
    Some(if negative { -magnitude } else { magnitude })
}

/// A decimal's first 19 significant digits and the power of ten that scales them.
struct Decimal {
    digits: u64,
    exponent: i64,
}

impl Decimal {
    const MAX_DIGITS: u32 = 19;

    fn read(text: &str) -> Option<Decimal> {
        let (number, exponent) = match text.find(['e', 'E']) {
            Some(at) => (&text[..at], exponent(&text[at + 1..])?),
            None => (text, 0),
        };
        let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
        if whole.is_empty() && fraction.is_empty() {
            return None;
        }
        let mut decimal = Decimal { digits: 0, exponent };
        let mut kept = 0;
        for (i, c) in whole.bytes().chain(fraction.bytes()).enumerate() {
            if !c.is_ascii_digit() {
                return None;
            }
            let in_fraction = i >= whole.len();
            if kept < Self::MAX_DIGITS && (decimal.digits > 0 || c != b'0') {
                decimal.digits = decimal.digits * 10 + u64::from(c - b'0');
                kept += 1;
                decimal.exponent -= i64::from(in_fraction);
            } else if !in_fraction && decimal.digits > 0 {
                // A whole-number digit past the 19th still multiplies the value by ten.
                decimal.exponent += 1;
            } else if in_fraction && decimal.digits == 0 {
                // A leading zero after the point divides it by ten.
                decimal.exponent -= 1;
            }
        }
        Some(decimal)
    }

    fn value(&self) -> f64 {
        /// Ten to the powers a double holds exactly.
        const EXACT: [f64; 23] = [
            1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18,
            1e19, 1e20, 1e21, 1e22,
        ];
        if self.digits == 0 {
            return 0.0;
        }
        let digits = self.digits as f64;
        // Both sides exact, one rounding: the correctly rounded value (Clinger's fast path).
        if self.digits < 1 << 53 && self.exponent.unsigned_abs() < EXACT.len() as u64 {
            let power = EXACT[self.exponent.unsigned_abs() as usize];
            return if self.exponent >= 0 { digits * power } else { digits / power };
        }
        let mut value = digits;
        let mut exponent = self.exponent.clamp(-400, 400);
        while exponent > 0 && value.is_finite() {
            let step = exponent.min(22);
            value *= EXACT[step as usize];
            exponent -= step;
        }
        while exponent < 0 && value > 0.0 {
            let step = (-exponent).min(22);
            value /= EXACT[step as usize];
            exponent += step;
        }
        value
    }
}

/// An exponent's digits with an optional sign, saturated far beyond any double's range.
fn exponent(text: &str) -> Option<i64> {
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let value = digits.bytes().fold(0i64, |n, c| (n * 10 + i64::from(c - b'0')).min(1_000_000));
    Some(if negative { -value } else { value })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn fixed_writes_what_format_writes() {
        for x in [
            0.25,
            2.5,
            0.5,
            1.5,
            0.35,
            0.125,
            -0.25,
            -0.0,
            -0.04,
            0.0,
            1e300,
            5e-324,
            f64::MIN_POSITIVE,
            0.375,
            123.456,
            9.995,
            1e21,
        ] {
            for d in 0..=MAX_DECIMALS {
                assert_eq!(fixed(x, d), format!("{x:.d$}"), "{x} to {d}");
            }
        }
        for x in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert_eq!(fixed(x, 1), format!("{x:.1}"));
        }
    }

    #[test]
    fn parse_reads_what_str_parse_reads() {
        for text in [
            "12",
            "-0.5",
            ".5",
            "5.",
            "+1",
            "1e3",
            "1E-3",
            "1e+22",
            "0.1",
            "0.000001",
            "100000",
            "-0",
            "inf",
            "-Infinity",
            "NaN",
            "007",
            "0.30000000000000004",
        ] {
            let (ours, std) = (parse(text), text.parse::<f64>().ok());
            assert_eq!(ours.map(f64::to_bits), std.map(f64::to_bits), "{text}");
        }
        for text in ["", ".", "-", "e5", "1e", "1e+", "1.2.3", "1,5", " 1", "0x10", "1_000", "in", "--1", "1e5.0"] {
            assert_eq!(parse(text), None, "{text:?}");
            assert!(text.parse::<f64>().is_err(), "{text:?}");
        }
    }

    proptest! {
        #[test]
        fn fixed_matches_format_for_any_double(bits in any::<u64>(), d in 0..=MAX_DECIMALS) {
            let x = f64::from_bits(bits);
            prop_assert_eq!(fixed(x, d), format!("{x:.d$}"));
        }

        #[test]
        fn fixed_matches_format_for_everyday_values(x in -1e7f64..1e7, d in 0..=MAX_DECIMALS) {
            prop_assert_eq!(fixed(x, d), format!("{x:.d$}"));
        }

        /// Up to 15 significant digits and a power of ten up to 22: exactly `str::parse`.
        #[test]
        fn parse_matches_str_parse(whole in 0u64..1_000_000_000, fraction in 0u64..1_000_000, places in 0usize..7, exp in -22i32..=22, sign in 0..3usize, with_exp: bool) {
            let fraction = format!("{fraction:0>6}");
            let mut text = format!("{}{whole}", ["", "-", "+"][sign]);
            if places > 0 {
                text = format!("{text}.{}", &fraction[..places]);
            }
            if with_exp && whole < 10 {
                text = format!("{text}e{exp}");
            }
            let ours = parse(&text).map(f64::to_bits);
            prop_assert_eq!(ours, text.parse::<f64>().ok().map(f64::to_bits), "{}", text);
        }

        /// Beyond that, within a unit in the last place.
        #[test]
        fn parse_is_close_for_long_numbers(x in -1e30f64..1e30) {
            let text = format!("{x:e}");
            let (ours, std) = (parse(&text).unwrap(), text.parse::<f64>().unwrap());
            prop_assert!((ours - std).abs() <= std.abs() * 4.0 * f64::EPSILON, "{}: {} vs {}", text, ours, std);
        }

        #[test]
        fn parse_never_panics(text in "[-+0-9.eEinfaINFA]{0,30}") {
            let ours = parse(&text);
            prop_assert_eq!(ours.is_some(), text.parse::<f64>().is_ok(), "{}", text);
        }
    }
}
