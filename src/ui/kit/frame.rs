//! What every simulation page shares: title, presets, controls, playback, the share and
//! embed snippets, and keeping the URL in step with what the reader sees.

use leptos::prelude::*;

use super::controls::ParamControls;
use super::play::PlayControls;
use crate::sim::{Params, ScenarioSpec, Simulation};
use crate::ui::runner::{Playback, Runner};
use crate::url::{self, State};

/// The reader-editable state of one simulation page.
#[derive(Clone, Copy)]
pub struct SimState {
    pub scenario: &'static ScenarioSpec,
    pub params: RwSignal<Params>,
    pub preset: RwSignal<Option<&'static str>>,
    pub seed: RwSignal<u64>,
    pub duration_ms: u64,
    pub embed: bool,
    pub autoplay: bool,
    controls: StoredValue<Option<Vec<&'static str>>>,
    speed0: f64,
}

impl SimState {
    pub fn new(state: State) -> Self {
        Self {
            scenario: state.scenario,
            params: RwSignal::new(state.params),
            preset: RwSignal::new(state.preset),
            seed: RwSignal::new(state.seed),
            duration_ms: state.duration_ms,
            embed: state.embed,
            autoplay: state.autoplay,
            controls: StoredValue::new(state.controls),
            speed0: state.speed,
        }
    }

    /// The state as the URL codec sees it.
    pub fn snapshot(&self, speed: f64, embed: bool) -> State {
        State {
            scenario: self.scenario,
            preset: self.preset.get_untracked(),
            params: self.params.get_untracked(),
            seed: self.seed.get_untracked(),
            duration_ms: self.duration_ms,
            speed,
            embed,
            controls: if embed { self.controls.get_value() } else { None },
            autoplay: embed && self.autoplay,
        }
    }

    /// Builds a runner for this page's simulation type; it rebuilds from the current state.
    pub fn runner<T: Simulation + 'static>(&self, build: fn(&Params, u64, u64) -> T, step_us: u64) -> Runner<T> {
        let (params, seed, duration_us) = (self.params, self.seed, self.duration_ms * 1000);
        Runner::new(move || build(&params.get_untracked(), seed.get_untracked(), duration_us), self.speed0, step_us)
    }
}

/// Replaces the URL (no new history entry) a moment after the last change, so dragging a
/// slider does not flood the browser's history API.
fn sync_url(query: String) {
    thread_local! {
        static PENDING: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
    }
    let ticket = PENDING.with(|p| {
        p.set(p.get().wrapping_add(1));
        p.get()
    });
    set_timeout(
        move || {
            if PENDING.with(|p| p.get()) != ticket {
                return;
            }
            let w = window();
            let path = w.location().pathname().unwrap_or_default();
            if let Ok(history) = w.history() {
                let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&format!("{path}?{query}")));
            }
        },
        std::time::Duration::from_millis(250),
    );
}

/// The iframe snippet an author pastes into a chapter.
pub fn embed_snippet(state: &State) -> String {
    let loc = window().location();
    let base = format!("{}{}", loc.origin().unwrap_or_default(), loc.pathname().unwrap_or_default());
    format!(
        "<iframe src=\"{base}?{}\" title=\"{}\" style=\"width:100%;height:720px;border:0\" loading=\"lazy\"></iframe>",
        url::encode(state).replace('&', "&amp;"),
        state.scenario.title
    )
}

#[component]
pub fn SimFrame(state: SimState, #[prop(into)] runner: Playback, children: Children) -> impl IntoView {
    let scenario = state.scenario;
    // Keep the URL in step with the state.
    Effect::new(move |_| {
        state.params.track();
        state.preset.track();
        state.seed.track();
        let speed = runner.speed.get();
        sync_url(url::encode(&state.snapshot(speed, state.embed)));
    });
    if state.autoplay {
        request_animation_frame(move || runner.play());
    }
    let rebuild = Callback::new(move |_| runner.rebuild());
    let choose_preset = move |id: &'static str| {
        let mut p = scenario.defaults();
        if let Some(preset) = scenario.preset(id) {
            let _ = p.apply_preset(preset);
        }
        state.preset.set(Some(id));
        state.params.set(p);
        runner.rebuild();
    };
    let preset_active = move |id: &'static str| {
        state.preset.get() == Some(id) && state.params.with(|p| *p == url::State { preset: Some(id), ..State::new(scenario) }.baseline())
    };
    let snippet = RwSignal::new(String::new());
    // None until the button is pressed; then whether the clipboard took the snippet.
    let copied = RwSignal::new(None::<bool>);
    let copy = move |_| {
        let text = embed_snippet(&state.snapshot(runner.speed.get_untracked(), true));
        snippet.set(text.clone());
        copied.set(Some(true));
        // The clipboard may refuse (permissions, no focus): then the reader copies by hand.
        let refused = wasm_bindgen::closure::Closure::<dyn FnMut(wasm_bindgen::JsValue)>::new(move |_| copied.set(Some(false)));
        let _ = window().navigator().clipboard().write_text(&text).catch(&refused);
        refused.forget(); // one small closure per press of the button
    };
    let full_link = move || {
        state.params.track();
        state.preset.track();
        state.seed.track();
        format!("?{}", url::encode(&state.snapshot(runner.speed.get(), false)))
    };
    let shown = state.controls.get_value();
    let presets = scenario.presets;
    view! {
        <section class="sim" data-scenario=scenario.id>
            {state.embed.then(|| view! {
                <a class="open-full" href=full_link target="_blank" rel="noopener">"Open full lab ↗"</a>
            })}
            <h1>{scenario.title}</h1>
            {(!state.embed).then(|| view! { <p class="chapter">{scenario.chapter}</p> })}
            <p class="summary">{scenario.summary}</p>
            <div class="presets-bar" role="group" aria-label="Presets">
                {presets
                    .iter()
                    .map(|p| {
                        view! {
                            <button
                                data-preset=p.id
                                title=p.description
                                aria-pressed=move || preset_active(p.id).to_string()
                                on:click=move |_| choose_preset(p.id)
                            >
                                {p.label}
                            </button>
                        }
                    })
                    .collect_view()}
            </div>
            <div class="sim-layout">
                <aside class="panel" aria-label="Parameters">
                    <ParamControls specs=scenario.params params=state.params shown=shown on_change=rebuild/>
                    {(!state.embed).then(|| view! {
                        <details>
                            <summary>"Seed"</summary>
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
                                            runner.rebuild();
                                        }
                                    }
                                />
                            </label>
                        </details>
                    })}
                </aside>
                <div class="results">
                    <PlayControls runner/>
                    {children()}
                </div>
            </div>
            {(!state.embed).then(|| view! {
                <div class="share">
                    <button data-action="copy-embed" on:click=copy>"Copy embed snippet"</button>
                    <a href=full_link>"Link to this state"</a>
                    <Show when=move || copied.get().is_some()>
                        <span role="status">
                            {move || if copied.get() == Some(true) { "Copied. The snippet:" } else { "Select and copy the snippet:" }}
                        </span>
                        <textarea readonly rows="3" aria-label="Embed snippet">{move || snippet.get()}</textarea>
                    </Show>
                </div>
            })}
        </section>
    }
}
