//! One handle on a running simulation's metrics, shared by every card, note and reading of a
//! page: the metrics are computed once per frame however many parts read them, and the reading
//! (the words) a few times a second while the run plays (see [`Playback::track_words`]).

use leptos::prelude::*;

use crate::sim::{MetricSpec, Reading, ScenarioSpec, Value};
use crate::ui::runner::Playback;

#[derive(Clone, Copy)]
pub struct Metrics {
    pub scenario: &'static ScenarioSpec,
    values: Memo<Vec<(&'static str, Value)>>,
    reading: Memo<Reading>,
}

impl Metrics {
    pub fn new(scenario: &'static ScenarioSpec, playback: Playback) -> Self {
        Self {
            scenario,
            values: Memo::new(move |_| playback.track_dyn(|s| s.metrics())),
            reading: Memo::new(move |_| playback.track_words(|s| s.reading())),
        }
    }

    /// The page's one handle, which the frame and every part read (from context): a page makes
    /// it once, before its parts.
    pub fn provide(scenario: &'static ScenarioSpec, playback: Playback) -> Self {
        let metrics = Self::new(scenario, playback);
        provide_context(metrics);
        metrics
    }

    /// The run's own sentence for `key` (see [`Reading`]), empty when it has none (tracked).
    pub fn reading(&self, key: &str) -> String {
        self.reading.with(|r| r.iter().find(|(k, _)| *k == key).map(|(_, v)| v.clone()).unwrap_or_default())
    }

    /// The same, as a signal for a view.
    pub fn reading_signal(&self, key: &'static str) -> Signal<String> {
        let me = *self;
        Signal::derive(move || me.reading(key))
    }

    /// The declaration of `key`. A key the scenario does not declare is a bug in the page: it
    /// panics at once, so the browser tests, which open every page, catch it.
    pub fn spec(&self, key: &str) -> &'static MetricSpec {
        self.scenario.metric(key).unwrap_or_else(|| panic!("{} declares no metric '{key}'", self.scenario.id))
    }

    /// The value of `key` now (tracked).
    pub fn get(&self, key: &str) -> Value {
        self.values.with(|m| m.iter().find(|(k, _)| *k == key).map(|(_, v)| v.clone()).unwrap_or(Value::Null))
    }

    /// Its number, if it has one (tracked).
    pub fn num(&self, key: &str) -> Option<f64> {
        self.values.with(|m| m.iter().find(|(k, _)| *k == key).and_then(|(_, v)| v.as_f64()))
    }

    /// Its text, if it is one (tracked).
    pub fn text(&self, key: &str) -> Option<String> {
        match self.get(key) {
            Value::Text(t) => Some(t),
            _ => None,
        }
    }

    pub fn signal(&self, key: &'static str) -> Signal<Value> {
        let me = *self;
        Signal::derive(move || me.get(key))
    }
}
