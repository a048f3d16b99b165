//! Presets: named starting points, applied on top of the current values.

use super::values::{Params, SetError};

/// A named starting point: the values that differ from the defaults, written as text.
#[derive(Clone, Copy, Debug)]
pub struct Preset {
    pub id: &'static str,
    pub label: &'static str,
    pub description: &'static str,
    pub values: &'static [(&'static str, &'static str)],
}

impl Params {
    /// Applies a preset's values on top of the current ones.
    pub fn apply_preset(&mut self, preset: &Preset) -> Result<(), SetError> {
        for (id, text) in preset.values {
            self.set_text(id, text)?;
        }
        Ok(())
    }
}
