//! Parameters: declared once per scenario, read by the CLI, the URL codec and the sliders.
//!
//! One concept a file: the declaration ([`ParamSpec`], `spec.rs`), its text (parsing and
//! printing, `text.rs`), a scenario's values ([`Params`], `values.rs`), presets (`preset.rs`)
//! and the typed configuration a model reads (`config!`, `config.rs`).

mod config;
mod preset;
mod spec;
mod text;
mod values;

pub use config::{Config, ParamValue, same_text};
pub use preset::Preset;
pub use spec::{ChoiceOption, OnlyWith, ParamKind, ParamSpec};
pub use text::{ParamError, ParamErrorKind, plain, shorten, with_unit};
pub use values::{Params, SetError};
