//! The home page: every simulation, where it belongs in the course, and its presets.

use leptos::prelude::*;

use crate::scenarios::ALL;

#[component]
pub fn Home() -> impl IntoView {
    view! {
        <h1>"Resilience Lab"</h1>
        <p class="summary">
            "Interactive simulations for the course chapters on timeouts, retries and idempotency. "
            "Drag the sliders, press play, predict, and watch the numbers the chapters quote come out of the model."
        </p>
        <ul class="cards">
            {ALL
                .iter()
                .map(|s| {
                    view! {
                        <li class="card" data-scenario=s.id>
                            <h2><a href=format!("?sim={}", s.id)>{s.title}</a></h2>
                            <p class="chapter">{s.chapter}</p>
                            <p>{s.summary}</p>
                            <ul class="presets">
                                {s.presets
                                    .iter()
                                    .map(|p| view! {
                                        <li><a class="button" href=format!("?sim={}&preset={}", s.id, p.id) title=p.description>{p.label}</a></li>
                                    })
                                    .collect_view()}
                            </ul>
                        </li>
                    }
                })
                .collect_view()}
        </ul>
    }
}
