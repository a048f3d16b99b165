//! One page per simulation, plus the home page and the benchmark page.

pub mod bench;
pub mod home;

use leptos::prelude::*;

use super::kit::SimState;

macro_rules! declare_pages {
    ($($name:ident),*) => {
        $(pub mod $name;)*

        /// One page per registered simulation, in registry order: a simulation whose page
        /// module is missing does not compile (`tests/registry.rs` checks the other way round).
        static PAGES: [fn(SimState) -> AnyView; crate::scenarios::COUNT] = [$($name::page),*];
    };
}

crate::simulations!(declare_pages);

/// The page of the scenario `state` names.
pub fn page_for(state: SimState) -> AnyView {
    PAGES[crate::scenarios::index_of(state.scenario)](state)
}
