//! The seed control: a new random seed, or one the reader types.

use leptos::prelude::*;

use super::state::SimState;
use crate::ui::runner::Playback;

/// A seed the browser draws at random (its own source, through `getrandom`).
fn random_seed() -> u64 {
    let mut bytes = [0u8; 8];
    // Never fails in a browser with crypto.getRandomValues; a fixed seed is a sane fallback.
    let _ = getrandom::fill(&mut bytes);
    u64::from_le_bytes(bytes) % 1_000_000_000
}

#[component]
pub(super) fn SeedControl(state: SimState, runner: Playback) -> impl IntoView {
    let new_seed = move |_| {
        state.seed.set(random_seed());
        runner.rebuild_in_place();
    };
    view! {
        <details open=state.embed>
            <summary>"Seed"</summary>
            <button data-action="new-seed" on:click=new_seed>"New seed"</button>
            <label>
                "Random seed "
                <input
                    type="number"
                    name="seed"
                    min="0"
                    prop:value=move || state.seed.get().to_string()
                    on:change=move |ev| {
                        if let Ok(s) = event_target_value(&ev).trim().parse::<u64>() {
                            state.seed.set(s);
                            runner.rebuild_in_place();
                        }
                    }
                />
            </label>
        </details>
    }
}
