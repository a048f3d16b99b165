//! One handle on a running simulation's metrics and words, shared by every card, note and
//! reading of a page: the metrics are computed once per frame however many parts read them, and
//! the words a few times a second while the run plays (see [`Playback::track_words`]). Both are
//! the scenario's typed structs (`metrics!`, `words!`): a page reads their fields, so a metric or
//! a sentence its scenario lacks does not compile.
//!
//! [`Playback::track_words`]: crate::ui::runner::Playback::track_words

use leptos::prelude::*;

use crate::sim::metrics::Said;
use crate::sim::{Explain, Metric, ScenarioSpec, Value, WordSet};
use crate::ui::runner::Runner;

pub struct Metrics<M: Explain> {
    pub scenario: &'static ScenarioSpec,
    values: Memo<M::Metrics>,
    words: Memo<M::Words>,
}

impl<M: Explain> Clone for Metrics<M> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<M: Explain> Copy for Metrics<M> {}

/// What the run hit of the model's limits (a full backlog…), in words: every page's frame shows
/// it, whatever the scenario (empty when nothing).
#[derive(Clone, Copy)]
pub struct LimitNotice(pub Signal<String>);

impl<M: Explain> Metrics<M> {
    pub fn new(scenario: &'static ScenarioSpec, runner: Runner<M>) -> Self {
        Self {
            scenario,
            values: Memo::new(move |_| runner.track(|h| h.metrics_now())),
            words: Memo::new(move |_| runner.track_words(|h| h.words_now())),
        }
    }

    /// The page's one handle, which its parts read, and the frame's [`LimitNotice`]: a page
    /// makes it once, before its parts.
    pub fn provide(scenario: &'static ScenarioSpec, runner: Runner<M>) -> Self {
        let metrics = Self::new(scenario, runner);
        let words = metrics.words;
        provide_context(LimitNotice(Signal::derive(move || words.with(|w| w.limit().to_string()))));
        metrics
    }

    /// Reads the metrics now (tracked): `metrics.get(|m| m.card_charged)`.
    pub fn get<R>(&self, read: impl FnOnce(&M::Metrics) -> R) -> R {
        self.values.with(read)
    }

    /// The value of a declared metric now, as its card shows it (tracked).
    pub fn value(&self, metric: Metric<M::Metrics>) -> Value {
        self.values.with(|m| metric.read(m))
    }

    /// Its number, if it has one (tracked).
    pub fn num(&self, metric: Metric<M::Metrics>) -> Option<f64> {
        self.value(metric).as_f64()
    }

    pub fn signal(&self, metric: Metric<M::Metrics>) -> Signal<Value> {
        let me = *self;
        Signal::derive(move || me.value(metric))
    }

    /// Reads the words now (tracked).
    pub fn words<R>(&self, read: impl FnOnce(&M::Words) -> R) -> R {
        self.words.with(read)
    }

    /// One sentence of the words, empty when the run has none (tracked):
    /// `metrics.said(|w| &w.verdict)`.
    pub fn said<S: Said>(&self, field: impl FnOnce(&M::Words) -> &S) -> String {
        self.words.with(|w| field(w).text().to_string())
    }

    /// The same, as a signal for a view.
    pub fn said_signal<S: Said + 'static>(&self, field: fn(&M::Words) -> &S) -> Signal<String> {
        let me = *self;
        Signal::derive(move || me.said(field))
    }
}
