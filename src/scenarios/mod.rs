//! Every simulation of the lab, one module each. Each module declares a `SPEC`.

pub mod cascade;
pub mod double_click;
pub mod slow_server;

use crate::sim::ScenarioSpec;

/// All scenarios, in the order the home page lists them.
/// Chapter order: Chapter 1 Parts 3 and 4, then Chapter 2 Parts 1 and 3.
pub static ALL: &[&ScenarioSpec] = &[&slow_server::SPEC, &cascade::SPEC, &double_click::SPEC];

pub fn find(id: &str) -> Option<&'static ScenarioSpec> {
    ALL.iter().copied().find(|s| s.id == id)
}

/// The scenario ids, for error messages.
pub fn ids() -> String {
    ALL.iter().map(|s| s.id).collect::<Vec<_>>().join(", ")
}
