//! Every simulation of the lab, one model per module, each with its one declaration (`SPEC`).
//!
//! [`simulations!`](crate::simulations) is the registry: one line per simulation. This module
//! and the browser app's page list (`ui::pages`) are both generated from it, so a scenario
//! without a page, or a page without a scenario, does not compile.

use crate::sim::ScenarioSpec;

/// The registry: calls `$then!` with every simulation's module name and its Cargo feature (the
/// scenario's id), in the order the app lists them. Adding a simulation is adding it here and its
/// feature in Cargo.toml (`tests/registry.rs` checks both). A build has the simulations whose
/// features it enables: the CLI and the tests all of them, each browser module one.
#[macro_export]
macro_rules! simulations {
    ($then:ident) => {
        $then! {
            slow_server "slow-server", cascade "cascade", deadline_chain "deadline-chain", retry_storm "retry-storm",
            double_click "double-click", which_timeout "which-timeout", at_least_once "at-least-once",
            choosing_numbers "choosing-numbers"
        }
    };
}

macro_rules! declare_scenarios {
    ($($name:ident $feature:literal),*) => {
        $(#[cfg(feature = $feature)] pub mod $name;)*

        /// How many simulations this build has (one in a simulation's browser module).
        pub const COUNT: usize = 0 $(+ cfg!(feature = $feature) as usize)*;

        /// This build's simulations' declarations, in registry order.
        pub static ALL: [&ScenarioSpec; COUNT] = [$(#[cfg(feature = $feature)] &$name::SPEC),*];

        /// Every registered simulation's module name and feature, in registry order, whether this
        /// build has it or not (checked against the files on disk and Cargo.toml's features).
        pub const REGISTRY: &[(&str, &str)] = &[$((stringify!($name), $feature)),*];
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
