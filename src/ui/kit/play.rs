//! Play / pause / step / reset / speed / skip-to-end, with the simulated clock.

use leptos::prelude::*;

use super::number::shortest;
use crate::format;
use crate::sim::decimal;

use super::super::runner::Playback;
use crate::url::SPEEDS;

#[component]
pub fn PlayControls(runner: Playback) -> impl IntoView {
    let clock = move || {
        let (now, end) = runner.clock();
        format::clock(now, end)
    };
    // One button that keeps its place and its focus: its label, its pressed state and its
    // `data-action` say what a press does now.
    let playing = move || runner.playing.get();
    let toggle = move |_| if runner.playing.get_untracked() { runner.pause() } else { runner.play() };
    // A transform, not a width: it changes no layout.
    let progress = move || {
        let (now, end) = runner.clock();
        format!("transform: scaleX({})", decimal::fixed(now as f64 / end.max(1) as f64, 4))
    };
    let speed_label = |s: f64| if s < 1.0 { format!("{}×", shortest(s)) } else { format!("{}×", s as u32) };
    view! {
        <div class="play-controls" role="toolbar" aria-label="Playback">
            <button
                class="primary play-pause"
                data-action=move || if playing() { "pause" } else { "play" }
                aria-pressed=move || playing().to_string()
                on:click=toggle
            >
                {move || if playing() { "Pause" } else { "Play" }}
            </button>
            <button data-action="step" on:click=move |_| runner.step() title="Advance one step">"Step"</button>
            <button data-action="reset" on:click=move |_| runner.reset()>"Reset"</button>
            <button data-action="skip" on:click=move |_| runner.skip_to_end()>"Skip to end"</button>
            <label>
                <span class="visually-hidden">"Speed"</span>
                <select
                    name="speed"
                    aria-label="Speed"
                    on:change=move |ev| {
                        if let Some(s) = decimal::parse(&event_target_value(&ev)) {
                            runner.speed.set(s);
                        }
                    }
                >
                    {SPEEDS
                        .iter()
                        .map(|&s| {
                            view! { <option value=shortest(s) selected=move || runner.speed.get() == s>{speed_label(s)}</option> }
                        })
                        .collect_view()}
                </select>
            </label>
            <span
                class="clock"
                data-stat="time_s"
                data-value=move || shortest(runner.clock().0 as f64 / 1e6)
                data-end=move || shortest(runner.clock().1 as f64 / 1e6)
            >
                {clock}
            </span>
        </div>
        <div class="progress" aria-hidden="true"><div style=progress></div></div>
    }
}
