//! A parameter's declaration: its kind, range and step, and the nearest allowed value.

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
}
