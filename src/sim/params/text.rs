//! Parameters as text: parsing what a reader wrote (a link, a command line), and writing a
//! value back (JSON, URLs, sentences).

use std::fmt;

use super::spec::{ParamKind, ParamSpec};
use crate::sim::decimal;

impl ParamSpec {
    /// How a value reads in a sentence: a choice by its label, a toggle as "<label> on/off".
    pub fn value_label(&self, value: f64) -> String {
        match self.kind {
            ParamKind::Choice(options) => options[(value as usize).min(options.len() - 1)].label.to_string(),
            ParamKind::Toggle => format!("{} {}", self.label, if value >= 0.5 { "on" } else { "off" }),
            ParamKind::Number => with_unit(value, self.unit),
        }
    }

    /// Parses a value as written on a command line or in a URL.
    pub fn parse(&self, text: &str) -> Result<f64, ParamError> {
        let text = text.trim();
        let value = match self.kind {
            ParamKind::Number => match decimal::parse(text) {
                Some(v) if v.is_finite() => v,
                _ => return Err(self.error(ParamErrorKind::NotANumber, text)),
            },
            ParamKind::Toggle => match text {
                "1" | "true" | "on" | "yes" => 1.0,
                "0" | "false" | "off" | "no" => 0.0,
                _ => return Err(self.error(ParamErrorKind::NotAToggle, text)),
            },
            ParamKind::Choice(options) => match options.iter().position(|o| o.id == text) {
                Some(i) => i as f64,
                None => return Err(self.error(ParamErrorKind::UnknownOption, text)),
            },
        };
        if value < self.min || value > self.max {
            return Err(self.error(ParamErrorKind::OutOfRange, text));
        }
        Ok(value)
    }

    /// As [`parse`](Self::parse), and the value must also be on the declared steps.
    pub fn parse_exact(&self, text: &str) -> Result<f64, ParamError> {
        let value = self.parse(text)?;
        if self.sanitize(value) != value {
            return Err(self.error(ParamErrorKind::OffGrid, text));
        }
        Ok(value)
    }

    /// What a value a reader wrote (a link, a command line) becomes, and the notice that says
    /// so when it is not used as written: the one rule the page, the URL and the CLI share.
    /// Out of range: the nearest end; between steps: the nearest step; not a value at all: the
    /// `current` one.
    pub fn read(&self, text: &str, current: f64) -> (f64, Option<String>) {
        let e = match self.parse_exact(text) {
            Ok(v) => return (v, None),
            Err(e) => e,
        };
        let number = decimal::parse(text.trim()).filter(|v| v.is_finite());
        match (e.kind, number) {
            (ParamErrorKind::OutOfRange | ParamErrorKind::OffGrid, Some(n)) => {
                let v = self.sanitize(n);
                let why = if e.kind == ParamErrorKind::OutOfRange {
                    format!("is outside {}", e.allowed)
                } else if self.whole() && n % 1.0 != 0.0 {
                    "is not a whole number".to_string()
                } else {
                    format!("is between the steps of {}", with_unit(self.step, self.unit))
                };
                (v, Some(format!("{}: {} {why}; using {}.", self.id, e.given, self.format(v))))
            }
            _ => (current, Some(format!("{e}; using {}.", self.format(current)))),
        }
    }

    /// How a value is written back (CLI JSON, URL): choices by name, toggles as true/false.
    pub fn format(&self, value: f64) -> String {
        match self.kind {
            ParamKind::Number => plain(value),
            ParamKind::Toggle => (if value >= 0.5 { "true" } else { "false" }).to_string(),
            ParamKind::Choice(options) => options[(value as usize).min(options.len() - 1)].id.to_string(),
        }
    }

    /// The allowed values in words, for error messages and `list`.
    pub fn allowed(&self) -> String {
        match self.kind {
            ParamKind::Number => {
                let what = if self.whole() { "a whole number" } else { "a number" };
                let range = format!("{what} from {} to {}{}", plain(self.min), plain(self.max), unit_suffix(self.unit));
                let grid = self.step > 0.0 && self.step != 1.0;
                if grid { format!("{range} in steps of {}", plain(self.step)) } else { range }
            }
            ParamKind::Toggle => "true or false".to_string(),
            ParamKind::Choice(options) => {
                format!("one of {}", options.iter().map(|o| o.id).collect::<Vec<_>>().join(", "))
            }
        }
    }

    fn error(&self, kind: ParamErrorKind, text: &str) -> ParamError {
        ParamError { param: self.id, kind, allowed: self.allowed(), given: shorten(text) }
    }
}

fn unit_suffix(unit: &str) -> String {
    if unit.is_empty() { String::new() } else { format!(" {unit}") }
}

/// Keeps error messages one line and short, whatever was typed.
pub fn shorten(text: &str) -> String {
    let clean: String = text.chars().filter(|c| !c.is_control()).take(40).collect();
    if text.chars().count() > 40 { format!("{clean}…") } else { clean }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ParamErrorKind {
    NotANumber,
    NotAToggle,
    UnknownOption,
    OutOfRange,
    /// In range but not on the declared steps (2.5 servers).
    OffGrid,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ParamError {
    pub param: &'static str,
    pub kind: ParamErrorKind,
    pub allowed: String,
    pub given: String,
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: '{}' is not allowed; expected {}", self.param, self.given, self.allowed)
    }
}

/// A number as a parameter writes it: no trailing `.0`, no float noise (0.3, not
/// 0.30000000000000004).
pub fn plain(v: f64) -> String {
    if v == libm::trunc(v) && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        let s = decimal::fixed(v, 6);
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// A value with its unit, as beside a slider: "150 req/s", "5×", "3".
pub fn with_unit(value: f64, unit: &str) -> String {
    let v = plain(value);
    match unit {
        "" => v,
        "×" => format!("{v}×"),
        u => format!("{v} {u}"),
    }
}
