//! The app shell: reads the URL once, shows any notices about it, then the home page or a
//! simulation page, with or without the app chrome (embed layout).

use leptos::prelude::*;

use super::embed;
use super::kit::SimState;
use super::pages;
use crate::url;

#[component]
pub fn App() -> impl IntoView {
    let search = window().location().search().unwrap_or_default();
    if let Some(kind) = search.split(['?', '&']).find_map(|kv| kv.strip_prefix("bench=")) {
        return view! { <main><pages::bench::Bench kind=kind.to_string()/></main> }.into_any();
    }
    let (state, notices) = url::decode(&search, None);
    if search.contains("debug=panic") {
        // The documented way to see the error banner (README, "Robustness").
        panic!("debug=panic asked for a panic");
    }
    let embed = state.as_ref().is_some_and(|s| s.embed);
    if embed {
        embed::report_height();
        let _ = document().body().map(|b| b.class_list().add_1("embed"));
    }
    let notice_view = (!notices.is_empty()).then(|| {
        view! {
            <div class="notices" role="status" data-notices>
                <strong>"Some of this link's settings were not used:"</strong>
                <ul>{notices.into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}</ul>
            </div>
        }
    });
    let page = match state {
        None => view! { <pages::home::Home/> }.into_any(),
        Some(state) => pages::page_for(SimState::new(state)),
    };
    view! {
        {(!embed).then(|| view! {
            <header class="app-header">
                <a class="brand" href="?">"Resilience Lab"</a>
                <nav aria-label="Simulations">
                    {crate::scenarios::ALL
                        .iter()
                        .map(|s| view! { <a href=format!("?sim={}", s.id)>{s.title}</a> })
                        .collect_view()}
                </nav>
            </header>
        })}
        <main>
            {notice_view}
            {page}
        </main>
        {(!embed).then(|| view! {
            <footer class="app-footer">
                "Every number here comes from a seeded discrete-event simulation running in your browser. "
                "The same link gives the same run."
            </footer>
        })}
    }
    .into_any()
}
