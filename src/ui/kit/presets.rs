//! The preset buttons: the full page's bar and the figure's segmented choice.

use leptos::prelude::*;

use super::state::SimState;
use crate::sim::Preset;
use crate::ui::runner::Playback;

/// The buttons that set a preset; the pressed one is the preset the parameters still match.
#[component]
pub fn PresetBar(state: SimState, runner: Playback) -> impl IntoView {
    view! {
        <div class="presets-bar" role="group" aria-label="Presets">
            {state.scenario.presets.iter().map(|p| view! { <PresetButton state runner preset=p/> }).collect_view()}
        </div>
    }
}

/// One preset's button (the full page's bar and the figure's segmented choice): pressed while
/// the parameters still match it; after a control moved them away, the preset the reader chose
/// stays marked "changed" (half pressed), so the reader sees where they started from. A press
/// applies it, keeping the clock.
#[component]
pub fn PresetButton(state: SimState, runner: Playback, preset: &'static Preset) -> impl IntoView {
    let changed = move || state.preset.get() == Some(preset.id) && !state.is_preset(preset.id);
    let pressed = move || match (state.is_preset(preset.id), changed()) {
        (true, _) => "true",
        (false, true) => "mixed",
        (false, false) => "false",
    };
    view! {
        <button
            data-preset=preset.id
            title=preset.description
            aria-pressed=pressed
            on:click=move |_| {
                state.apply_preset(preset.id);
                runner.rebuild_in_place();
            }
        >
            {preset.label}
            <span class="changed" data-changed hidden=move || !changed()>" · changed"</span>
        </button>
    }
}
