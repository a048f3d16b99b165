//! What every simulation page shares: title, presets, controls, playback, the share and
//! embed snippets, and keeping the URL in step with what the reader sees.

use leptos::prelude::*;

use super::controls::ParamControls;
use super::metrics::Metrics;
use super::play::PlayControls;
use super::spread::Spreads;
use super::sweep::SweepPanel;
use crate::sim::{Host, Model, Params, ScenarioSpec};
use crate::ui::runner::{Playback, Runner};
use crate::url::{self, State, SweepView};

/// The reader-editable state of one simulation page.
#[derive(Clone, Copy)]
pub struct SimState {
    pub scenario: &'static ScenarioSpec,
    pub params: RwSignal<Params>,
    pub preset: RwSignal<Option<&'static str>>,
    pub seed: RwSignal<u64>,
    /// A duration set by the link; `None`: the run is as long as its parameters need.
    pub duration_ms: Option<u64>,
    pub embed: bool,
    pub autoplay: bool,
    /// The sweep view, when open.
    pub sweep: RwSignal<Option<SweepView>>,
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
            sweep: RwSignal::new(state.sweep),
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
            sweep: self.sweep.get_untracked(),
        }
    }

    /// Builds a runner for this page's model; it rebuilds from the current state. `step_us` is
    /// what one press of Step advances (0: one event).
    pub fn runner<M: Model>(&self, step_us: u64) -> Runner<M> {
        let (scenario, params, seed, duration_ms) = (self.scenario, self.params, self.seed, self.duration_ms);
        let build = move || {
            params.with_untracked(|p| {
                let ms = duration_ms.unwrap_or_else(|| scenario.duration_for(p));
                Host::<M>::new(p, seed.get_untracked(), ms * 1000)
            })
        };
        Runner::new(build, self.speed0, step_us)
    }

    /// Sets the parameters to a preset's values (the declaration's defaults with the preset's
    /// changes) and remembers the preset.
    pub fn apply_preset(&self, id: &'static str) {
        let mut p = self.scenario.defaults();
        if let Some(preset) = self.scenario.preset(id) {
            let _ = p.apply_preset(preset);
        }
        self.preset.set(Some(id));
        self.params.set(p);
    }

    /// Whether the page shows `control` (a parameter id, or "sweep" or "seed"): all of them
    /// outside an embed, the ones `controls=` names in one.
    pub fn shows(&self, control: &str) -> bool {
        self.controls.with_value(|c| c.as_ref().is_none_or(|c| c.contains(&control))) || !self.embed
    }

    /// Whether the parameters are exactly preset `id`'s.
    pub fn is_preset(&self, id: &'static str) -> bool {
        let scenario = self.scenario;
        self.preset.get() == Some(id)
            && self.params.with(|p| *p == url::State { preset: Some(id), ..State::new(scenario) }.baseline())
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
                let _ =
                    history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&format!("{path}?{query}")));
            }
        },
        std::time::Duration::from_millis(250),
    );
}

/// Whether the page's link sets a playback speed (a page with its own default speed keeps
/// the link's).
pub fn link_sets_speed() -> bool {
    let search = window().location().search().unwrap_or_default();
    search.trim_start_matches('?').split('&').any(|kv| kv.split('=').next() == Some("speed"))
}

/// Sets the speed so that the `span_s` simulated seconds that matter play in about
/// `watch_s` wall seconds (a 300 s hang at 32×, a 2 s one at 1×), again whenever the settings
/// change the span, unless the link sets a speed.
pub fn speed_to_watch(runner: Playback, watch_s: f64, span_s: impl Fn() -> f64 + Send + Sync + 'static) {
    if link_sets_speed() {
        return;
    }
    let span = Memo::new(move |_| span_s());
    Effect::new(move |_| {
        let wanted = (span.get() / watch_s).max(1.0);
        let speed = url::SPEEDS.iter().copied().find(|&s| s >= wanted).unwrap_or(url::SPEEDS[url::SPEEDS.len() - 1]);
        runner.speed.set(speed);
    });
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

/// The buttons that set a preset; the pressed one is the preset the parameters still match.
#[component]
pub fn PresetBar(state: SimState, runner: Playback) -> impl IntoView {
    view! {
        <div class="presets-bar" role="group" aria-label="Presets">
            {state
                .scenario
                .presets
                .iter()
                .map(|p| {
                    view! {
                        <button
                            data-preset=p.id
                            title=p.description
                            aria-pressed=move || state.is_preset(p.id).to_string()
                            on:click=move |_| {
                                state.apply_preset(p.id);
                                runner.rebuild();
                            }
                        >
                            {p.label}
                        </button>
                    }
                })
                .collect_view()}
        </div>
    }
}

/// What a page puts before the play bar: a prediction to make, a question to hold in mind.
#[slot]
pub struct Lead {
    children: Children,
}

/// The frame of every simulation page: title, presets, whatever the page leads with, the play
/// bar, the page's own content, then the parameters and the share links. The reading order is
/// the tab order; on a wide screen CSS moves the parameters to a column on the left.
#[component]
pub fn SimFrame(
    state: SimState,
    #[prop(into)] runner: Playback,
    #[prop(optional)] lead: Option<Lead>,
    children: Children,
) -> impl IntoView {
    let scenario = state.scenario;
    // Keep the URL in step with the state.
    Effect::new(move |_| {
        state.params.track();
        state.preset.track();
        state.seed.track();
        state.sweep.track();
        let speed = runner.speed.get();
        sync_url(url::encode(&state.snapshot(speed, state.embed)));
    });
    let spreads = Spreads::provide(state);
    // Charts speak their summary less often while the run plays (see `Chart`).
    provide_context(runner);
    // When the run hit one of the model's limits (a full backlog…), the reading says what and
    // what it did; the frame shows it whatever the page.
    let limit = Metrics::new(scenario, runner).reading_signal("limit");
    if state.autoplay {
        request_animation_frame(move || runner.play());
    }
    let full_link = move || {
        state.params.track();
        state.preset.track();
        state.seed.track();
        format!("?{}", url::encode(&state.snapshot(runner.speed.get(), false)))
    };
    view! {
        <section class="sim" data-scenario=scenario.id>
            {state.embed.then(|| view! {
                <a class="open-full" href=full_link target="_blank" rel="noopener">"Open full lab ↗"</a>
            })}
            <h1>{scenario.title}</h1>
            {(!state.embed).then(|| view! { <p class="chapter">{scenario.chapter}</p> })}
            {(!state.embed).then(|| view! { <p class="summary">{scenario.summary}</p> })}
            <PresetBar state runner/>
            <div class="sim-layout">
                <div class="results">
                    {lead.map(|l| (l.children)())}
                    <PlayControls runner/>
                    <Show when=move || limit.with(|l| !l.is_empty())>
                        <p class="limit-notice" role="status" data-limit>{limit}</p>
                    </Show>
                    {children()}
                    <p class="spread-note help" data-spread-ms=move || spreads.took_ms().map(|t| format!("{t:.1}"))>
                        {move || spreads.note()}
                    </p>
                    {state.shows("sweep").then(|| view! { <SweepToggle state/> })}
                    <Show when=move || state.sweep.with(Option::is_some)>
                        <SweepPanel state/>
                    </Show>
                </div>
                <aside class="panel" aria-label="Parameters">
                    <ParamControls
                        specs=scenario.params
                        params=state.params
                        shown=state.controls.get_value()
                        on_change=Callback::new(move |_| runner.rebuild())
                    />
                    {state.shows("seed").then(|| view! { <SeedControl state runner/> })}
                </aside>
            </div>
            {(!state.embed).then(|| view! { <Share state runner full_link=Signal::derive(full_link)/> })}
        </section>
    }
}

/// Opens and closes the sweep view.
#[component]
fn SweepToggle(state: SimState) -> impl IntoView {
    let open = move || state.sweep.with(Option::is_some);
    let toggle = move |_| {
        state.sweep.update(|s| *s = if s.is_some() { None } else { Some(SweepView::default_for(state.scenario)) })
    };
    view! {
        <button class="sweep-toggle" data-action="sweep" aria-pressed=move || open().to_string() on:click=toggle>
            {move || if open() { "Hide the sweep" } else { "Sweep: see the whole curve over many runs" }}
        </button>
    }
}

/// A seed the browser draws at random (its own source, through `getrandom`).
fn random_seed() -> u64 {
    let mut bytes = [0u8; 8];
    // Never fails in a browser with crypto.getRandomValues; a fixed seed is a sane fallback.
    let _ = getrandom::fill(&mut bytes);
    u64::from_le_bytes(bytes) % 1_000_000_000
}

#[component]
fn SeedControl(state: SimState, runner: Playback) -> impl IntoView {
    let new_seed = move |_| {
        state.seed.set(random_seed());
        runner.rebuild();
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
                            runner.rebuild();
                        }
                    }
                />
            </label>
        </details>
    }
}

/// The embed snippet and a link to this exact state.
#[component]
fn Share(state: SimState, runner: Playback, full_link: Signal<String>) -> impl IntoView {
    let snippet = RwSignal::new(String::new());
    // None until the button is pressed; then whether the clipboard took the snippet.
    let copied = RwSignal::new(None::<bool>);
    let copy = move |_| {
        let text = embed_snippet(&state.snapshot(runner.speed.get_untracked(), true));
        snippet.set(text.clone());
        copied.set(Some(true));
        // The clipboard may refuse (permissions, no focus): then the reader copies by hand.
        let refused =
            wasm_bindgen::closure::Closure::<dyn FnMut(wasm_bindgen::JsValue)>::new(move |_| copied.set(Some(false)));
        let _ = window().navigator().clipboard().write_text(&text).catch(&refused);
        refused.forget(); // one small closure per press of the button
    };
    view! {
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
    }
}
