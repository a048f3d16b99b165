//! Every simulation of the lab, one module each. Each module declares a `SPEC`.

pub mod deadline_chain;
pub mod slow_server;

use crate::sim::ScenarioSpec;

/// All scenarios, in the order the home page lists them.
pub static ALL: &[&ScenarioSpec] = &[&slow_server::SPEC, &deadline_chain::SPEC];

pub fn find(id: &str) -> Option<&'static ScenarioSpec> {
    ALL.iter().copied().find(|s| s.id == id)
}

/// The scenario ids, for error messages.
pub fn ids() -> String {
    ALL.iter().map(|s| s.id).collect::<Vec<_>>().join(", ")
}
