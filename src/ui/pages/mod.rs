//! One page per simulation, plus the benchmark page. The home page is static HTML made from the
//! registry at build time (`scripts/site.mjs`): it needs no simulation's module.

pub mod bench;

use leptos::prelude::*;

use super::kit::SimState;

macro_rules! declare_pages {
    ($($name:ident $feature:literal),*) => {
        $(#[cfg(feature = $feature)] pub mod $name;)*

        /// One page per simulation of this build, in registry order: a simulation whose page
        /// module is missing does not compile (`tests/registry.rs` checks the other way round).
        static PAGES: [fn(SimState) -> AnyView; crate::scenarios::COUNT] = [$(#[cfg(feature = $feature)] $name::page),*];
    };
}

crate::simulations!(declare_pages);

/// The page of the scenario `state` names.
pub fn page_for(state: SimState) -> AnyView {
    PAGES[crate::scenarios::index_of(state.scenario)](state)
}
