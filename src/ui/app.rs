//! A simulation's module: reads the URL once, shows any notices about it, then the simulation's
//! page, in the embed layout or not. The page around it (the header listing every simulation,
//! the footer, the home page) is the static `index.html` made from the registry
//! (`scripts/site.mjs`), which loads this module only for the simulation the URL names.

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
    // The loader in index.html loads a module only for its own simulation: that is the default.
    let (state, notices) = url::decode(&search, crate::scenarios::ALL.first().copied());
    if search.contains("debug=panic") {
        // The documented way to see the error banner (README, "Robustness").
        panic!("debug=panic asked for a panic");
    }
    if let Some(s) = &state {
        super::kit::chart::force(s.theme);
    }
    let embed = state.as_ref().is_some_and(|s| s.embed);
    if embed {
        embed::report_height();
        let _ = document().body().map(|b| b.class_list().add_1("embed"));
    }
    // A link escaped twice was still read in full: that notice stands apart from any setting
    // that was not used.
    let escaped = notices.first().is_some_and(|n| n == url::ESCAPED_TWICE);
    let unused: Vec<String> = notices.into_iter().skip(usize::from(escaped)).collect();
    let notice_view = (escaped || !unused.is_empty()).then(|| {
        view! {
            <div class="notices" role="status" data-notices>
                {escaped.then(|| view! { <p>{url::ESCAPED_TWICE}</p> })}
                {(!unused.is_empty()).then(|| view! {
                    <strong>"Some of this link's settings were not used:"</strong>
                    <ul>{unused.into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}</ul>
                })}
            </div>
        }
    });
    let page = state.map(|state| pages::page_for(SimState::new(state)));
    view! {
        <main>
            {notice_view}
            {page}
        </main>
    }
    .into_any()
}
