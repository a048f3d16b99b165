//! One page per simulation, plus the home page.

pub mod bench;
pub mod cascade;
pub mod double_click;
pub mod home;
pub mod retry_storm;
pub mod slow_server;

use leptos::prelude::*;

use super::kit::SimState;

/// The page of the scenario `state` names.
pub fn page_for(state: SimState) -> AnyView {
    match state.scenario.id {
        "cascade" => view! { <cascade::CascadePage state/> }.into_any(),
        "double-click" => view! { <double_click::DoubleClickPage state/> }.into_any(),
        "slow-server" => view! { <slow_server::SlowServerPage state/> }.into_any(),
        "retry-storm" => view! { <retry_storm::RetryStormPage state/> }.into_any(),
        other => view! { <p>"No page for " {other} " yet."</p> }.into_any(),
    }
}
