//! The values of one scenario's parameters, set by id and read back.

use std::fmt;

use super::spec::{ParamKind, ParamSpec};
use super::text::{ParamError, shorten};

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
pub(super) fn same_declaration(a: &[ParamSpec], b: &[ParamSpec]) -> bool {
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
