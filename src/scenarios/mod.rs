//! Every simulation of the lab, one model per module, each with its one declaration (`SPEC`).
//!
//! [`simulations!`](crate::simulations) is the registry: one line per simulation. This module
//! and the browser app's page list (`ui::pages`) are both generated from it, so a scenario
//! without a page, or a page without a scenario, does not compile.

use crate::sim::ScenarioSpec;

/// The registry: calls `$then!` with every simulation's module name, in the order the app
/// lists them. Adding a simulation is adding its name here.
#[macro_export]
macro_rules! simulations {
    ($then:ident) => {
        $then! { slow_server, cascade, deadline_chain, retry_storm, double_click, which_timeout, at_least_once }
    };
}

macro_rules! declare_scenarios {
    ($($name:ident),*) => {
        $(pub mod $name;)*

        /// How many simulations there are (none in the bundle script's floor build).
        pub const COUNT: usize = 0 $(+ { let _ = stringify!($name); 1 })*;

        /// Every simulation's declaration, in registry order.
        pub static ALL: [&ScenarioSpec; COUNT] = [$(&$name::SPEC),*];

        /// Every simulation's module name, in registry order (checked against the page files).
        pub const MODULES: [&str; COUNT] = [$(stringify!($name)),*];
    };
}

simulations!(declare_scenarios);

pub fn find(id: &str) -> Option<&'static ScenarioSpec> {
    ALL.iter().copied().find(|s| s.id == id)
}

/// The position of a scenario in [`ALL`] (the app's pages are indexed the same way).
pub fn index_of(spec: &ScenarioSpec) -> usize {
    ALL.iter().position(|s| s.id == spec.id).expect("every spec comes from the registry")
}

/// The scenario ids, for error messages.
pub fn ids() -> String {
    ALL.iter().map(|s| s.id).collect::<Vec<_>>().join(", ")
}
