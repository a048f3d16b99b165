//! Every simulation of the lab, one module each. Each module declares a `SPEC`.

pub mod cascade;
pub mod deadline_chain;
pub mod double_click;
pub mod retry_storm;
pub mod slow_server;

use crate::sim::ScenarioSpec;

pub static ALL: &[&ScenarioSpec] =
    &[&slow_server::SPEC, &cascade::SPEC, &deadline_chain::SPEC, &retry_storm::SPEC, &double_click::SPEC];

pub fn find(id: &str) -> Option<&'static ScenarioSpec> {
    ALL.iter().copied().find(|s| s.id == id)
}

/// The scenario ids, for error messages.
pub fn ids() -> String {
    ALL.iter().map(|s| s.id).collect::<Vec<_>>().join(", ")
}
