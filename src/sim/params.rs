//! Parameters: declared once per scenario, read by the CLI, the URL codec and the sliders.

use std::fmt;

use super::decimal;

/// What kind of value a parameter holds. Every value is stored as an `f64`: a number as
/// itself, a toggle as 0 or 1, a choice as the index of its option.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ParamKind {
    Number,
    Toggle,
    Choice(&'static [ChoiceOption]),
}

/// One option of a choice parameter: the id links and the CLI use, the label a reader sees,
/// and a sentence of help in the reader's words.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChoiceOption {
    pub id: &'static str,
    pub label: &'static str,
    pub help: &'static str,
}

/// When a parameter is used: only while another one (a choice or a toggle) holds one of
/// `values` (option ids, or "true"/"false"), and why not otherwise. Its control is disabled
/// the rest of the time, keeping its value.
#[derive(Clone, Copy, Debug)]
pub struct OnlyWith {
    pub param: &'static str,
    pub values: &'static [&'static str],
    /// The reason in the reader's words, true for every other value: "the fix has no timeout".
    pub why: &'static str,
}

/// One parameter of a scenario.
#[derive(Clone, Copy, Debug)]
pub struct ParamSpec {
    pub id: &'static str,
    pub label: &'static str,
    pub unit: &'static str,
    pub kind: ParamKind,
    pub default: f64,
    pub min: f64,
    pub max: f64,
    pub step: f64,
    pub help: &'static str,
    /// What 0 means where it is not a quantity (a timer at 0 is "off"): its slider says this
    /// word instead of "0 ms".
    pub zero: Option<&'static str>,
    /// When the model reads it at all (see [`OnlyWith`]); `None`: always.
    pub only_with: Option<OnlyWith>,
}

impl ParamSpec {
    /// A numeric parameter shown as a slider.
    pub const fn number(
        id: &'static str,
        label: &'static str,
        unit: &'static str,
        default: f64,
        (min, max, step): (f64, f64, f64),
        help: &'static str,
    ) -> Self {
        Self { id, label, unit, kind: ParamKind::Number, default, min, max, step, help, zero: None, only_with: None }
    }

    /// The same parameter, 0 meaning `word` ("off") rather than a quantity.
    pub const fn zero_means(self, word: &'static str) -> Self {
        Self { zero: Some(word), ..self }
    }

    /// The same parameter, read by the model only while `param` is one of `values`: the
    /// others make it do nothing, `why`.
    pub const fn only_with(self, param: &'static str, values: &'static [&'static str], why: &'static str) -> Self {
        Self { only_with: Some(OnlyWith { param, values, why }), ..self }
    }

    /// How a value reads in a sentence: a choice by its label, a toggle as "<label> on/off".
    pub fn value_label(&self, value: f64) -> String {
        match self.kind {
            ParamKind::Choice(options) => options[(value as usize).min(options.len() - 1)].label.to_string(),
            ParamKind::Toggle => format!("{} {}", self.label, if value >= 0.5 { "on" } else { "off" }),
            ParamKind::Number => with_unit(value, self.unit),
        }
    }

    /// An on/off parameter.
    pub const fn toggle(id: &'static str, label: &'static str, default: bool, help: &'static str) -> Self {
        let default = if default { 1.0 } else { 0.0 };
        Self {
            id,
            label,
            unit: "",
            kind: ParamKind::Toggle,
            default,
            min: 0.0,
            max: 1.0,
            step: 1.0,
            help,
            zero: None,
            only_with: None,
        }
    }

    /// A choice among declared options; `default` is the index of the default option.
    pub const fn choice(
        id: &'static str,
        label: &'static str,
        options: &'static [ChoiceOption],
        default: usize,
        help: &'static str,
    ) -> Self {
        let max = options.len() as f64 - 1.0;
        Self {
            id,
            label,
            unit: "",
            kind: ParamKind::Choice(options),
            default: default as f64,
            min: 0.0,
            max,
            step: 1.0,
            help,
            zero: None,
            only_with: None,
        }
    }

    /// Whether only whole numbers are allowed: a count, or any number on a grid of whole steps.
    pub const fn whole(&self) -> bool {
        !matches!(self.kind, ParamKind::Number) || (self.step >= 1.0 && self.step % 1.0 == 0.0 && self.min % 1.0 == 0.0)
    }

    /// The declaration of a field whose type is an integer when `integer`: it must allow only
    /// whole numbers (checked when the declaration compiles).
    pub const fn for_field(self, integer: bool) -> Self {
        assert!(!integer || self.whole(), "a parameter read as an integer must have whole steps");
        self
    }

    /// The value at fraction `f` (0 to 1) of the declared range: a number linearly, a toggle
    /// on from one half, a choice by index. Property tests draw parameters with it.
    pub fn at_fraction(&self, f: f64) -> f64 {
        let f = f.clamp(0.0, 1.0);
        match self.kind {
            ParamKind::Number => self.min + f * (self.max - self.min),
            ParamKind::Toggle => f64::from(u8::from(f >= 0.5)),
            ParamKind::Choice(options) => ((f * options.len() as f64) as usize).min(options.len() - 1) as f64,
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

    /// The nearest allowed value: clamped to the range and snapped to the step grid.
    pub fn sanitize(&self, value: f64) -> f64 {
        if !value.is_finite() {
            return self.default;
        }
        let clamped = value.clamp(self.min, self.max);
        match self.kind {
            ParamKind::Number if self.step > 0.0 => {
                let steps = libm::round((clamped - self.min) / self.step);
                // Round to a few decimals so 0.1-step values print as 0.3, not 0.30000000000000004.
                let snapped = self.min + steps * self.step;
                (libm::round(snapped * 1e9) / 1e9).clamp(self.min, self.max)
            }
            ParamKind::Number => clamped,
            _ => libm::round(clamped),
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

/// A named starting point: the values that differ from the defaults, written as text.
#[derive(Clone, Copy, Debug)]
pub struct Preset {
    pub id: &'static str,
    pub label: &'static str,
    pub description: &'static str,
    pub values: &'static [(&'static str, &'static str)],
}

/// The values of every parameter of one scenario, in declaration order.
#[derive(Clone, Debug)]
pub struct Params {
    specs: &'static [ParamSpec],
    values: Vec<f64>,
}

impl PartialEq for Params {
    /// Equal when they belong to the same declaration and hold the same values.
    fn eq(&self, other: &Self) -> bool {
        same_declaration(self.specs, other.specs) && self.values == other.values
    }
}

/// Whether two declarations are the same scenario's. Not by address alone: a declaration
/// reached through a `const` may sit at a different address in each codegen unit (debug
/// builds do not merge the copies), so the parameters' ids decide.
fn same_declaration(a: &[ParamSpec], b: &[ParamSpec]) -> bool {
    std::ptr::eq(a, b) || a.iter().map(|s| s.id).eq(b.iter().map(|s| s.id))
}

impl Params {
    pub fn defaults(specs: &'static [ParamSpec]) -> Self {
        Self { specs, values: specs.iter().map(|s| s.default).collect() }
    }

    pub fn specs(&self) -> &'static [ParamSpec] {
        self.specs
    }

    pub fn values(&self) -> &[f64] {
        &self.values
    }

    pub fn index_of(&self, id: &str) -> Option<usize> {
        self.specs.iter().position(|s| s.id == id)
    }

    /// Sets a parameter from text (presets, tests): an error for a value of the wrong kind or
    /// out of range; a value between steps snaps to the nearest.
    pub fn set_text(&mut self, id: &str, text: &str) -> Result<(), SetError> {
        let i = self.index_of(id).ok_or_else(|| SetError::UnknownParam(shorten(id)))?;
        let value = self.specs[i].parse(text).map_err(SetError::Invalid)?;
        self.set_at(i, value);
        Ok(())
    }

    /// Sets a parameter to the nearest allowed value (the sliders' behaviour).
    pub fn set(&mut self, id: &str, value: f64) {
        if let Some(i) = self.index_of(id) {
            self.set_at(i, value);
        }
    }

    /// Sets the `i`th declared parameter to the nearest allowed value.
    pub fn set_at(&mut self, i: usize, value: f64) {
        self.values[i] = self.specs[i].sanitize(value);
    }

    pub fn get(&self, id: &str) -> f64 {
        match self.index_of(id) {
            Some(i) => self.values[i],
            None => panic!("scenario reads an undeclared parameter '{id}'"),
        }
    }

    pub fn flag(&self, id: &str) -> bool {
        self.get(id) >= 0.5
    }

    /// The name of the chosen option of a choice parameter.
    pub fn choice(&self, id: &str) -> &'static str {
        let i = self.index_of(id).unwrap_or_else(|| panic!("undeclared parameter '{id}'"));
        match self.specs[i].kind {
            ParamKind::Choice(options) => options[(self.values[i] as usize).min(options.len() - 1)].id,
            _ => panic!("parameter '{id}' is not a choice"),
        }
    }

    /// Why the `i`th parameter does nothing with the other values as they are ("Not used with
    /// Separate pool: the fix has no timeout."), or `None` when the model reads it. A parameter
    /// that depends on an unused one is unused too.
    pub fn unused_because(&self, i: usize) -> Option<String> {
        let when = self.specs[i].only_with?;
        let j = self.index_of(when.param)?;
        let on = &self.specs[j];
        if !when.values.contains(&on.format(self.values[j]).as_str()) {
            return Some(format!("Not used with {}: {}.", on.value_label(self.values[j]), when.why));
        }
        self.unused_because(j)
    }

    /// These values with every parameter the others leave unused (see [`Self::unused_because`])
    /// at its default: two runs the model cannot tell apart compare equal.
    pub fn with_unused_at_defaults(&self) -> Params {
        let mut read = self.clone();
        for i in (0..self.values.len()).filter(|i| self.unused_because(*i).is_some()) {
            read.values[i] = self.specs[i].default;
        }
        read
    }

    /// Applies a preset's values on top of the current ones.
    pub fn apply_preset(&mut self, preset: &Preset) -> Result<(), SetError> {
        for (id, text) in preset.values {
            self.set_text(id, text)?;
        }
        Ok(())
    }

    /// Each parameter with its value as text, for JSON and URLs.
    pub fn formatted(&self) -> impl Iterator<Item = (&'static ParamSpec, String)> + '_ {
        self.specs.iter().zip(&self.values).map(|(s, v)| (s, s.format(*v)))
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum SetError {
    UnknownParam(String),
    Invalid(ParamError),
}

impl fmt::Display for SetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetError::UnknownParam(id) => write!(f, "unknown parameter '{id}'"),
            SetError::Invalid(e) => e.fmt(f),
        }
    }
}

/// A parameter value as a model reads it: a number, a count, a toggle or a choice.
pub trait ParamValue: Sized {
    /// Whether the type holds only whole numbers (its declaration must have whole steps).
    const INTEGER: bool = false;
    fn from_value(value: f64) -> Self;
    fn to_value(&self) -> f64;
}

impl ParamValue for f64 {
    fn from_value(value: f64) -> Self {
        value
    }
    fn to_value(&self) -> f64 {
        *self
    }
}

impl ParamValue for bool {
    fn from_value(value: f64) -> Self {
        value >= 0.5
    }
    fn to_value(&self) -> f64 {
        f64::from(u8::from(*self))
    }
}

macro_rules! whole_number_params {
    ($($t:ty),*) => {$(
        impl ParamValue for $t {
            const INTEGER: bool = true;
            // Values are sanitized to the declared step first, so the cast only drops a `.0`.
            fn from_value(value: f64) -> Self {
                value as $t
            }
            fn to_value(&self) -> f64 {
                *self as f64
            }
        }
    )*};
}
whole_number_params!(u32, u64, usize);

/// A scenario's typed configuration: one field per declared parameter, built by
/// [`config!`](crate::config) together with the declaration, so a model and a page read
/// `config.rate`, never `params.get("rate")`.
pub trait Config: Clone + PartialEq + std::fmt::Debug + 'static {
    /// The declaration the fields come from, in order.
    fn specs() -> &'static [ParamSpec];
    /// The fields from values in declaration order.
    fn from_values(values: &[f64]) -> Self;
    /// The values in declaration order.
    fn to_values(&self) -> Vec<f64>;

    /// The configuration held by `params`, which must belong to this declaration.
    fn from_params(params: &Params) -> Self {
        assert!(same_declaration(params.specs(), Self::specs()), "parameters of another scenario");
        Self::from_values(params.values())
    }

    /// The declared defaults.
    fn defaults() -> Self {
        Self::from_params(&Params::defaults(Self::specs()))
    }

    /// This configuration with the parameters it leaves unused at their defaults.
    fn as_read(&self) -> Self {
        Self::from_params(&self.to_params().with_unused_at_defaults())
    }

    /// These values as parameters, each snapped to its range and step.
    fn to_params(&self) -> Params {
        let specs = Self::specs();
        let values = specs.iter().zip(self.to_values()).map(|(s, v)| s.sanitize(v)).collect();
        Params { specs, values }
    }
}

/// Whether two texts are the same, in a constant (`config!` checks ids against field names).
pub const fn same_text(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Declares a scenario's parameters and its typed configuration at once:
///
/// ```ignore
/// config! {
///     /// What the model reads.
///     pub struct SlowServerConfig in PARAMS {
///         pub rate: f64 = ParamSpec::number("rate", "Arrival rate", "req/s", 150.0, (1.0, 3000.0, 1.0), "…"),
///         pub policy: Policy = ParamSpec::choice("policy", "Balancing policy", Policy::OPTIONS, 0, "…"),
///     }
/// }
/// ```
///
/// gives `static PARAMS: &[ParamSpec]` (the declaration the CLI, the URL and the sliders
/// read), the struct with one field per parameter, in the same order, and each parameter's id
/// as a constant named by its field (`SlowServerConfig::rate == "rate"`); an id that is not its
/// field's name does not compile.
#[macro_export]
macro_rules! config {
    (
        $(#[$meta:meta])*
        pub struct $name:ident in $specs:ident {
            $( $(#[$fmeta:meta])* pub $field:ident : $ty:ty = $spec:expr ),+ $(,)?
        }
    ) => {
        /// The parameters, in declaration order: ids, labels, units, defaults, ranges and help.
        pub static $specs: &[$crate::sim::ParamSpec] =
            &[$( ($spec).for_field(<$ty as $crate::sim::params::ParamValue>::INTEGER) ),+];

        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq)]
        pub struct $name {
            $( $(#[$fmeta])* pub $field: $ty ),+
        }

        /// Each parameter's id, by its field's name: sweeps, compare views and pages name a
        /// parameter as `Config::field`, so a misspelt one does not compile.
        #[allow(non_upper_case_globals)]
        impl $name {
            $( pub const $field: &'static str = stringify!($field); )+
        }

        // A parameter's id is its field's name (links and the CLI use the id, code the field).
        const _: () = {
            $( assert!(
                $crate::sim::params::same_text(($spec).id, stringify!($field)),
                concat!("the parameter of field `", stringify!($field), "` must have the id \"", stringify!($field), "\""),
            ); )+
        };

        impl $crate::sim::params::Config for $name {
            fn specs() -> &'static [$crate::sim::ParamSpec] {
                $specs
            }

            fn from_values(values: &[f64]) -> Self {
                let mut values = values.iter().copied();
                Self {
                    $( $field: $crate::sim::params::ParamValue::from_value(
                        values.next().expect("one value per declared parameter"),
                    ) ),+
                }
            }

            fn to_values(&self) -> Vec<f64> {
                vec![$( $crate::sim::params::ParamValue::to_value(&self.$field) ),+]
            }
        }
    };
}

/// Declares the options of a choice parameter as an enum, each with its id, label and help:
///
/// ```ignore
/// choice! {
///     pub enum Policy {
///         RoundRobin = ("round-robin", "Round robin", "Each server in turn."),
///         Random = ("random", "Random", "A server at random."),
///     }
/// }
/// ```
#[macro_export]
macro_rules! choice {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = ($id:literal, $label:literal, $help:literal) ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum $name {
            $( $(#[$vmeta])* $variant ),+
        }

        impl $name {
            /// The options as the declaration lists them.
            pub const OPTIONS: &'static [$crate::sim::params::ChoiceOption] = &[
                $( $crate::sim::params::ChoiceOption { id: $id, label: $label, help: $help } ),+
            ];
            /// Every option, in declaration order.
            pub const ALL: &'static [Self] = &[$(Self::$variant),+];

            pub fn id(self) -> &'static str {
                Self::OPTIONS[self as usize].id
            }

            pub fn label(self) -> &'static str {
                Self::OPTIONS[self as usize].label
            }

            pub fn help(self) -> &'static str {
                Self::OPTIONS[self as usize].help
            }
        }

        impl $crate::sim::params::ParamValue for $name {
            fn from_value(value: f64) -> Self {
                Self::ALL[(value as usize).min(Self::ALL.len() - 1)]
            }

            fn to_value(&self) -> f64 {
                *self as usize as f64
            }
        }
    };
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

#[cfg(test)]
mod tests {
    use super::*;

    crate::config! {
        /// A configuration for the test, as a scenario declares one.
        pub struct TestConfig in TEST_PARAMS {
            pub rate: f64 = ParamSpec::number("rate", "Rate", "req/s", 10.0, (1.0, 100.0, 1.0), "How many."),
            pub on: bool = ParamSpec::toggle("on", "On", false, "Whether."),
        }
    }

    #[test]
    fn each_parameter_id_is_a_constant_named_by_its_field() {
        assert_eq!(TestConfig::rate, "rate");
        assert_eq!(TestConfig::on, "on");
        assert_eq!(TEST_PARAMS.iter().map(|p| p.id).collect::<Vec<_>>(), [TestConfig::rate, TestConfig::on]);
    }

    #[test]
    fn same_text_compares_every_byte() {
        assert!(same_text("rate", "rate"));
        assert!(!same_text("rate", "rats"));
        assert!(!same_text("rate", "rat"));
        assert!(same_text("", ""));
    }
}
