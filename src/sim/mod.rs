//! The simulation core: a discrete-event engine and the pieces every scenario shares.
//! No web dependency lives here; the same code runs natively (CLI, tests) and in wasm.

pub mod engine;
pub mod params;
pub mod rng;
pub mod scenario;
pub mod stats;

pub use engine::{EventQueue, Micros, StepOutcome, MS, SEC};
pub use params::{ParamKind, ParamSpec, Params, Preset};
pub use scenario::{MetricSpec, ScenarioSpec, Simulation, Value};
