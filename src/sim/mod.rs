//! The simulation core: a discrete-event engine and the pieces every scenario shares.
//! No web dependency lives here; the same code runs natively (CLI, tests) and in wasm.

pub mod base;
pub mod decimal;
pub mod engine;
pub mod metrics;
pub mod model;
pub mod params;
pub mod rng;
pub mod scenario;
pub mod stats;
pub mod syn;

pub use base::{Caption, Reading, Shown, Simulation, Value};
pub use engine::{EventQueue, MS, Micros, SEC, StepOutcome, TimerKey};
pub use metrics::{Guess, Metric, MetricSet, Word, WordSet};
pub use model::{Explain, Host, Model};
pub use params::{ChoiceOption, Config, ParamKind, ParamSpec, Params, Preset};
pub use scenario::{MetricSpec, Quote, ScenarioSpec};
