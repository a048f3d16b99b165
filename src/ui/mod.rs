//! The browser app (wasm32 only): a home page listing every simulation and one page per
//! simulation, chosen by the `sim` query parameter so the app works from any sub-path of a
//! static host without server-side routing.

mod app;
mod embed;
mod kit;
mod pages;
mod panic;
mod runner;

pub fn start() {
    panic::install();
    if let Some(loading) = leptos::prelude::document().get_element_by_id("loading") {
        loading.remove();
    }
    leptos::mount::mount_to_body(app::App);
    // When the first simulation became interactive, for the load benchmark.
    if let Some(body) = leptos::prelude::document().body() {
        let ready = leptos::prelude::window().performance().map(|p| p.now()).unwrap_or(0.0);
        let _ = body.set_attribute("data-ready-ms", &format!("{ready:.1}"));
    }
}
