//! The run before the reader's last change, played to its end, for a picture to draw behind
//! the run on screen (issue 44, item 3): pressing Exp + jitter after Fixed 1 s leaves Fixed's
//! attempts on the picture, on the same axis, so the difference is seen, not remembered.
//!
//! The ghost is a real run: the previous parameters and seed, simulated from the start to the
//! end. A slider's drag is one change: moves less than [`GESTURE_MS`] apart keep the ghost of
//! the run from before the drag began.

use leptos::prelude::*;

use super::SimState;
use crate::sim::{Explain, Host, Params, Simulation};

/// Changes closer together than this are one gesture (a drag of a slider).
const GESTURE_MS: f64 = 1000.0;

pub use crate::draw::Ghost;

/// A run as the reader last had it: its parameters, seed and name.
#[derive(Clone, PartialEq)]
struct Setting {
    params: Params,
    seed: u64,
    label: String,
}

/// The ghost of the run before the reader's last change (none before the first change):
/// `trace` takes what the picture draws of it from the finished run.
pub fn previous_run<M, T>(state: SimState, trace: fn(&Host<M>) -> T) -> Signal<Option<Ghost<T>>>
where
    M: Explain + 'static,
    T: Clone + PartialEq + Send + Sync + 'static,
{
    let ghost = RwSignal::new(None::<Ghost<T>>);
    let setting = move || Setting {
        params: state.params.get_untracked(),
        seed: state.seed.get_untracked(),
        label: label(&state),
    };
    let shown = StoredValue::new(setting());
    let source = StoredValue::new(None::<Setting>);
    let last_change = StoredValue::new(f64::NEG_INFINITY);
    Effect::new(move |_| {
        state.params.track();
        state.seed.track();
        let now = setting();
        let before = shown.get_value();
        if before.params == now.params && before.seed == now.seed {
            return;
        }
        shown.set_value(now);
        let at = js_sys::Date::now();
        let new_gesture = at - last_change.get_value() > GESTURE_MS;
        last_change.set_value(at);
        if !new_gesture || source.with_value(|s| s.as_ref() == Some(&before)) {
            return;
        }
        let ms = state.duration_ms.unwrap_or_else(|| state.scenario.duration_for(&before.params));
        let mut run = Host::<M>::new(&before.params, before.seed, ms * 1000);
        run.run_to_end();
        ghost.set(Some(Ghost { label: before.label.clone(), trace: trace(&run) }));
        source.set_value(Some(before));
    });
    ghost.into()
}

/// The name of the run on screen: its preset's label while its parameters are the preset's,
/// the pressed one first. A figure whose controls set a preset's parameters (cascade's Fix,
/// slow-server's policy) names that preset even though no preset button was pressed.
fn label(state: &SimState) -> String {
    let pressed = state.preset.get_untracked().filter(|id| state.is_preset_untracked(id));
    let matching = || {
        let params = state.params.get_untracked();
        state.scenario.presets.iter().map(|p| p.id).find(|&id| state.preset_params(id) == params)
    };
    pressed
        .or_else(matching)
        .and_then(|id| state.scenario.preset(id))
        .map_or_else(|| "before your change".to_string(), |p| p.label.to_string())
}
