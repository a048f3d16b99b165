//! What every simulation page shares: title, presets, controls, playback, the share and
//! embed snippets, and keeping the URL in step with what the reader sees.

use leptos::prelude::*;

use super::controls::ParamControls;
use super::figure::{Figure, Part, render_parts};
use super::metrics::Metrics;
use super::play::PlayControls;
use super::snippet;
use super::spread::Spreads;
use super::sweep::SweepPanel;
use crate::sim::{Host, Model, Params, Preset, ScenarioSpec};
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
    /// What the link says the figure shows: its controls, presets and parts.
    controls: StoredValue<Option<Vec<&'static str>>>,
    presets: StoredValue<Vec<&'static str>>,
    show: StoredValue<Vec<String>>,
    chart: StoredValue<Option<String>>,
    /// The presets the reader pressed, in order, each once (for the embed snippet's `presets=`).
    pressed: RwSignal<Vec<&'static str>>,
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
            presets: StoredValue::new(state.presets),
            show: StoredValue::new(state.show),
            chart: StoredValue::new(state.chart),
            pressed: RwSignal::new(Vec::new()),
            speed0: state.speed,
        }
    }

    /// The state as the URL codec sees it. What the link says about the figure is kept on the
    /// full page too, so "Open full lab" and back gives the same figure.
    pub fn snapshot(&self, speed: f64, embed: bool) -> State {
        State {
            scenario: self.scenario,
            preset: self.preset.get_untracked(),
            params: self.params.get_untracked(),
            seed: self.seed.get_untracked(),
            duration_ms: self.duration_ms,
            speed,
            embed,
            controls: self.controls.get_value(),
            presets: self.presets.get_value(),
            show: self.show.get_value(),
            chart: self.chart.get_value(),
            autoplay: embed && self.autoplay,
            sweep: self.sweep.get_untracked(),
        }
    }

    /// The state of the figure an author would embed from here: the link's controls or the
    /// chapter's, the link's presets or the ones the reader pressed (two or more), no autoplay.
    pub fn figure_snapshot(&self, speed: f64, chapter_controls: &'static [&'static str]) -> State {
        let pressed = self.pressed.get_untracked();
        let mut state = self.snapshot(speed, true);
        state.autoplay = false;
        state.controls = Some(self.controls.get_value().unwrap_or_else(|| chapter_controls.to_vec()));
        if state.presets.is_empty() && pressed.len() >= 2 {
            state.presets = pressed;
        }
        state
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
        self.pressed.update(|pressed| {
            if !pressed.contains(&id) {
                pressed.push(id);
            }
        });
    }

    /// Whether the page shows `control` ("sweep" or "seed"): always outside an embed; in one,
    /// when `controls=` or `show=` names it.
    pub fn shows(&self, control: &str) -> bool {
        !self.embed
            || self.controls.with_value(|c| c.as_ref().is_some_and(|c| c.contains(&control)))
            || self.show.with_value(|s| s.iter().any(|n| n == control))
    }

    /// The parameters the figure's control column shows: the link's `controls=`, or the ones
    /// the chapter talks about.
    pub fn figure_controls(&self, chapter_controls: &'static [&'static str]) -> Vec<&'static str> {
        self.controls.get_value().unwrap_or_else(|| chapter_controls.to_vec())
    }

    pub fn preset_choice(&self) -> Vec<&'static str> {
        self.presets.get_value()
    }

    pub fn show_names(&self) -> Vec<String> {
        self.show.get_value()
    }

    pub fn chart_name(&self) -> Option<String> {
        self.chart.get_value()
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
/// the parameters still match it; a press applies it and starts the run again.
#[component]
pub fn PresetButton(state: SimState, runner: Playback, preset: &'static Preset) -> impl IntoView {
    view! {
        <button
            data-preset=preset.id
            title=preset.description
            aria-pressed=move || state.is_preset(preset.id).to_string()
            on:click=move |_| {
                state.apply_preset(preset.id);
                runner.rebuild();
            }
        >
            {preset.label}
        </button>
    }
}

/// What a page puts before the play bar: a prediction to make, a question to hold in mind.
#[slot]
pub struct Lead {
    pub(super) children: Children,
}

/// The frame of every simulation page. Each page declares its parts by name (see
/// [`Part`](super::figure::Part)) and the controls its chapter talks about. The full page shows
/// the title, presets, whatever the page leads with, the play bar, every part in order, then the
/// parameters and the share links (the reading order is the tab order; on a wide screen CSS
/// moves the parameters to a column on the left). An embed shows the figure instead.
#[component]
pub fn SimFrame(
    state: SimState,
    #[prop(into)] runner: Playback,
    #[prop(optional)] lead: Option<Lead>,
    parts: Vec<Part>,
    /// The parameters the chapter asks the reader to change: an embed's controls when its link
    /// names none, and the embed snippet's.
    chapter_controls: &'static [&'static str],
    /// What the run sets up, following the parameters; the scenario's summary when not given.
    #[prop(optional, into)]
    intro: Option<Signal<String>>,
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
    let limit = expect_context::<Metrics>().reading_signal("limit");
    if state.autoplay {
        request_animation_frame(move || runner.play());
    }
    if state.embed {
        return view! { <Figure state runner lead parts limit chapter_controls spreads/> }.into_any();
    }
    let full_link = full_link(state, runner);
    view! {
        <section class="sim" data-scenario=scenario.id>
            <h1>{scenario.title}</h1>
            <p class="chapter">{scenario.chapter}</p>
            <p class="summary" data-intro>{move || intro.map_or_else(|| scenario.summary.to_string(), |i| i.get())}</p>
            <PresetBar state runner/>
            <div class="sim-layout">
                <div class="results">
                    {lead.map(|l| (l.children)())}
                    <PlayControls runner/>
                    <Show when=move || limit.with(|l| !l.is_empty())>
                        <p class="limit-notice" role="status" data-limit>{limit}</p>
                    </Show>
                    {render_parts(parts)}
                    <p class="spread-note help" data-spread-ms=move || spreads.took_ms().map(|t| format!("{t:.1}"))>
                        {move || spreads.note()}
                    </p>
                    <SweepToggle state/>
                    <Show when=move || state.sweep.with(Option::is_some)>
                        <SweepPanel state/>
                    </Show>
                </div>
                <aside class="panel" aria-label="Parameters">
                    <ParamControls
                        specs=scenario.params
                        params=state.params
                        shown=None
                        on_change=Callback::new(move |_| runner.rebuild())
                    />
                    <SeedControl state runner/>
                </aside>
            </div>
            <Share state runner full_link chapter_controls/>
        </section>
    }
    .into_any()
}

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

/// Opens and closes the sweep view.
#[component]
pub(super) fn SweepToggle(state: SimState) -> impl IntoView {
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
pub(super) fn SeedControl(state: SimState, runner: Playback) -> impl IntoView {
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

/// The embed snippet and a link to this exact state. The snippet's heights are the figure's
/// own, measured in a hidden frame at the widths a chapter gives it.
#[component]
fn Share(
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
            <a href=full_link>"Link to this state"</a>
            <Show when=move || status.get().is_some()>
                <span role="status">{move || status.get()}</span>
                <Show when=move || !snippet.with(String::is_empty)>
                    <textarea readonly rows="4" aria-label="Embed snippet">{move || snippet.get()}</textarea>
                </Show>
            </Show>
        </div>
    }
}

const MEASURING: &str = "Measuring the figure…";
