//! One page per simulation, plus the home page.

pub mod deadline_chain;
pub mod home;
pub mod slow_server;

use leptos::prelude::*;

use super::kit::SimState;

/// The page of the scenario `state` names.
pub fn page_for(state: SimState) -> AnyView {
    match state.scenario.id {
        "deadline-chain" => view! { <deadline_chain::DeadlineChainPage state/> }.into_any(),
        "slow-server" => view! { <slow_server::SlowServerPage state/> }.into_any(),
        other => view! { <p>"No page for " {other} " yet."</p> }.into_any(),
    }
}
