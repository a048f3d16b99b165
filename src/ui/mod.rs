//! The browser app (wasm32 only): one page per simulation, chosen by the `sim` query parameter
//! so the app works from any sub-path of a static host without server-side routing. The home
//! page and the loader that picks a simulation's module are static (`index.html`).
//!
//! Each simulation's browser module is built with that simulation alone, so it holds the parts of
//! the kit its page uses and no others (the linker drops the rest): in such a build, the kit's
//! other parts are unused on purpose. Every part is used in the build of all simulations, where
//! the lints stay whole.
#![cfg_attr(not(feature = "all-simulations"), allow(dead_code, unused_imports))]

mod app;
mod embed;
mod kit;
mod pages;
mod runner;

pub fn start() {
    if let Some(loading) = leptos::prelude::document().get_element_by_id("loading") {
        loading.remove();
    }
    leptos::mount::mount_to_body(app::App);
    // When the first simulation became interactive, for the load benchmark.
    if let Some(body) = leptos::prelude::document().body() {
        let ready = leptos::prelude::window().performance().map(|p| p.now()).unwrap_or(0.0);
        let _ = body.set_attribute("data-ready-ms", &crate::sim::decimal::fixed(ready, 1));
    }
}
