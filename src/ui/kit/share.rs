//! Sharing what the reader sees: the link to this exact state and the embed snippet.

use leptos::prelude::*;

use super::snippet;
use super::state::SimState;
use crate::ui::runner::Playback;
use crate::url;

/// The full page's link to this exact state (the figure's too, so the figure it came from can
/// be copied back from it).
pub(super) fn full_link(state: SimState, runner: Playback) -> Signal<String> {
    Signal::derive(move || {
        state.params.track();
        state.preset.track();
        state.seed.track();
        format!("?{}", url::encode(&state.snapshot(runner.speed.get(), false)))
    })
}

/// The embed snippet and a link to this exact state. The snippet's heights are the figure's
/// own, measured in a hidden frame at the widths a chapter gives it.
#[component]
pub(super) fn Share(
    state: SimState,
    runner: Playback,
    full_link: Signal<String>,
    chapter_controls: &'static [&'static str],
) -> impl IntoView {
    let snippet = RwSignal::new(String::new());
    // What the button has done: nothing yet, measuring, or copied (or not: the clipboard refused).
    let status = RwSignal::new(None::<&'static str>);
    let copy = move |_| {
        if status.get_untracked() == Some(MEASURING) {
            return;
        }
        status.set(Some(MEASURING));
        let figure = state.figure_snapshot(runner.speed.get_untracked(), chapter_controls);
        let query = url::encode(&figure);
        let title = state.scenario.title;
        snippet::measure(query.clone(), move |heights| {
            let text = snippet::text(&query, title, &heights);
            snippet.set(text.clone());
            status.set(Some("Copied. The snippet:"));
            // The clipboard may refuse (permissions, no focus): then the reader copies by hand.
            let refused = wasm_bindgen::closure::Closure::<dyn FnMut(wasm_bindgen::JsValue)>::new(move |_| {
                status.set(Some("Select and copy the snippet:"))
            });
            let _ = window().navigator().clipboard().write_text(&text).catch(&refused);
            refused.forget(); // one small closure per press of the button
        });
    };
    view! {
        <div class="share">
            <button data-action="copy-embed" on:click=copy>"Copy embed snippet"</button>
            <a href=full_link data-state-link>"Link to this state"</a>
            <Show when=move || status.get().is_some()>
                <span role="status">{move || status.get()}</span>
                <Show when=move || !snippet.with(String::is_empty)>
                    <textarea readonly rows="7" aria-label="Embed snippet">{move || snippet.get()}</textarea>
                </Show>
            </Show>
        </div>
    }
}

const MEASURING: &str = "Measuring the figure…";
