//! The reader-editable state of one simulation page: what its link encodes and every part of
//! the page reads (parameters, preset, seed, what the figure shows).

use leptos::prelude::*;

use crate::sim::{Explain, Host, ParamSpec, Params, ScenarioSpec};
use crate::ui::runner::Runner;
use crate::url::{self, At, Autoplay, State, SweepView, Theme};

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
    pub autoplay: Autoplay,
    /// The link's colour scheme, kept in every link made from the page.
    pub theme: Theme,
    /// The sweep view, when open.
    pub sweep: RwSignal<Option<SweepView>>,
    /// The moment the link opens the figure at (`at=`), paused; the page's own link drops it.
    pub at: Option<At>,
    /// What the link says the figure shows: its controls, presets and parts.
    controls: StoredValue<Option<Vec<&'static str>>>,
    presets: StoredValue<Vec<&'static str>>,
    show: StoredValue<Vec<String>>,
    chart: StoredValue<Option<String>>,
    /// The presets the reader pressed, in order, each once (for the embed snippet's `presets=`).
    pressed: RwSignal<Vec<&'static str>>,
    /// What an embed's link sets beyond its preset (a chapter's 100 clients): kept when the
    /// reader presses another of its presets, unless that preset sets it itself.
    own: StoredValue<Vec<(&'static str, f64)>>,
    speed0: f64,
}

impl SimState {
    pub fn new(state: State) -> Self {
        let baseline = state.baseline();
        let own = if state.embed {
            let set = |spec: &&ParamSpec| state.params.get(spec.id) != baseline.get(spec.id);
            state.scenario.params.iter().filter(set).map(|spec| (spec.id, state.params.get(spec.id))).collect()
        } else {
            Vec::new()
        };
        Self {
            scenario: state.scenario,
            params: RwSignal::new(state.params),
            preset: RwSignal::new(state.preset),
            seed: RwSignal::new(state.seed),
            duration_ms: state.duration_ms,
            embed: state.embed,
            // A figure opened at a moment stays there until the reader plays it.
            autoplay: if state.at.is_some() { Autoplay::Off } else { state.autoplay },
            theme: state.theme,
            sweep: RwSignal::new(state.sweep),
            at: state.at,
            controls: StoredValue::new(state.controls),
            presets: StoredValue::new(state.presets),
            show: StoredValue::new(state.show),
            chart: StoredValue::new(state.chart),
            pressed: RwSignal::new(Vec::new()),
            own: StoredValue::new(own),
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
            autoplay: if embed { self.autoplay } else { Autoplay::Off },
            theme: self.theme,
            sweep: self.sweep.get_untracked(),
            at: None,
        }
    }

    /// The state of the figure an author would embed from here: the link's controls or the
    /// chapter's, the link's presets or the ones the reader pressed (two or more), no autoplay.
    pub fn figure_snapshot(&self, speed: f64, chapter_controls: &'static [&'static str]) -> State {
        let pressed = self.pressed.get_untracked();
        let mut state = self.snapshot(speed, true);
        state.autoplay = Autoplay::Off;
        state.controls = Some(self.controls.get_value().unwrap_or_else(|| chapter_controls.to_vec()));
        if state.presets.is_empty() && pressed.len() >= 2 {
            state.presets = pressed;
        }
        state
    }

    /// Builds a runner for this page's model; it rebuilds from the current state. `step_us` is
    /// what one press of Step advances (0: one event).
    pub fn runner<M: Explain>(&self, step_us: u64) -> Runner<M> {
        let (scenario, params, seed, duration_ms) = (self.scenario, self.params, self.seed, self.duration_ms);
        let build = move || {
            params.with_untracked(|p| {
                let ms = duration_ms.unwrap_or_else(|| scenario.duration_for(p));
                Host::<M>::new(p, seed.get_untracked(), ms * 1000)
            })
        };
        Runner::new(build, self.speed0, step_us)
    }

    /// Sets the parameters to a preset's (see [`Self::preset_params`]) and remembers the preset.
    pub fn apply_preset(&self, id: &'static str) {
        self.preset.set(Some(id));
        self.params.set(self.preset_params(id));
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
        self.preset.get() == Some(id) && self.params.with(|p| *p == self.preset_params(id))
    }

    /// Whether the parameters are exactly preset `id`'s, read without tracking.
    pub fn is_preset_untracked(&self, id: &'static str) -> bool {
        self.preset.get_untracked() == Some(id) && self.params.with_untracked(|p| *p == self.preset_params(id))
    }

    /// Preset `id`'s parameters: the declaration's defaults with the preset's changes, and in an
    /// embed what its link set beyond its own preset where `id` leaves it alone, so a figure's
    /// preset buttons compare the presets at the chapter's settings.
    pub fn preset_params(&self, id: &'static str) -> Params {
        let mut params = url::State { preset: Some(id), ..State::new(self.scenario) }.baseline();
        let sets = |param: &str| self.scenario.preset(id).is_some_and(|p| p.values.iter().any(|(k, _)| *k == param));
        self.own.with_value(|own| {
            for &(param, value) in own.iter().filter(|(param, _)| !sets(param)) {
                params.set(param, value);
            }
        });
        params
    }
}
