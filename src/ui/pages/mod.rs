//! One page per simulation, plus the home page.

pub mod bench;
pub mod cascade;
pub mod deadline_chain;
pub mod double_click;
pub mod home;
pub mod retry_storm;
pub mod slow_server;

use leptos::prelude::*;

use super::kit::SimState;

/// The page of the scenario `state` names (every scenario in `scenarios::ALL` has one; the
/// browser tests visit each).
pub fn page_for(state: SimState) -> AnyView {
    match state.scenario.id {
        "slow-server" => view! { <slow_server::SlowServerPage state/> }.into_any(),
        "cascade" => view! { <cascade::CascadePage state/> }.into_any(),
        "deadline-chain" => view! { <deadline_chain::DeadlineChainPage state/> }.into_any(),
        "retry-storm" => view! { <retry_storm::RetryStormPage state/> }.into_any(),
        "double-click" => view! { <double_click::DoubleClickPage state/> }.into_any(),
        _ => view! { <home::Home/> }.into_any(),
    }
}
