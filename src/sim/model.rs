//! A model and the one generic host that runs any model as a [`Simulation`].
//!
//! A scenario writes a [`Model`]: its typed configuration, its event type, how it starts, how
//! it handles one event and what it reports. [`Host`] owns the event queue and the clock, so
//! the loop that advances a run (frames, caps, the end) is written once for every scenario.

use std::marker::PhantomData;
use std::ops::Deref;

use super::base::{Caption, MAX_DURATION_MS, Reading, Runs, Simulation, Value};
use super::engine::{EventQueue, Micros, StepOutcome};
use super::metrics::{FactSet, MetricSet, WordSet};
use super::params::{Config, Params};

/// One scenario's model of the world.
pub trait Model: Sized + 'static {
    /// The typed configuration, built once from the parameters.
    type Config: Config;
    /// What the model schedules on its queue.
    type Event: Copy + 'static;

    /// Builds the model for a run of `end` µs and schedules its first events.
    fn new(config: Self::Config, seed: u64, end: Micros, queue: &mut EventQueue<Self::Event>) -> Self;

    /// Handles one event at time `now`.
    fn handle(&mut self, queue: &mut EventQueue<Self::Event>, now: Micros, event: Self::Event);

    /// The scenario's metrics, as its `metrics!` declaration types them.
    type Metrics: MetricSet;

    /// The scenario's metrics at time `now`.
    fn metrics(&self, now: Micros) -> Self::Metrics;

    /// The configuration the model was built with (pages read it from the running simulation).
    fn config(&self) -> &Self::Config;

    /// How long a run with this configuration should be (ms) to show what it sets in motion;
    /// `None`: the scenario's default duration whatever the parameters.
    fn run_length_ms(_config: &Self::Config) -> Option<u64> {
        None
    }

    /// The longest run length this model may declare (ms). A model whose queue jumps over idle
    /// stretches may raise it, up to [`MAX_RUN_LENGTH_MS`](super::scenario::MAX_RUN_LENGTH_MS):
    /// a run of days then costs no more than the events in it. Others keep the reader's limit.
    const MAX_RUN_LENGTH_MS: u64 = MAX_DURATION_MS;
}

/// What a model says about its runs, in words: written apart from the model (a scenario's
/// `reading.rs`), which reads the model and is never called by it.
pub trait Explain: Model {
    /// What a run did and why, as the scenario types it (see [`FactSet`]).
    type Facts: FactSet;
    /// The scenario's sentences, as its `words!` declaration types them.
    type Words: WordSet;

    /// What the run has done by `now`, and why.
    fn facts(&self, now: Micros) -> Self::Facts;

    /// Sentences that explain the run so far, rendered from its facts and nothing else of the
    /// run (settings aside).
    fn words(&self, facts: &Self::Facts) -> Self::Words;

    /// What a figure shows beside its picture with these settings and words: its cards and its
    /// verdict (the embed's, and `resilience-lab figure`'s image; issue 46).
    fn caption(config: &Self::Config, words: &Self::Words) -> Caption;

    /// What theory says about a sweep of parameter `x` (by the options of `by`) from this
    /// configuration, in a sentence (e.g. where a queue starts to grow without bound); `None`
    /// where there is no theory to state.
    fn sweep_theory(_config: &Self::Config, _x: &str, _by: Option<&str>) -> Option<String> {
        None
    }
}

/// A run's facts at one moment, its words rendered from them and its figure's caption.
pub struct Told<M: Explain> {
    pub facts: M::Facts,
    pub words: M::Words,
    pub caption: Caption,
}

impl<M: Explain> Clone for Told<M> {
    fn clone(&self) -> Self {
        Told { facts: self.facts.clone(), words: self.words.clone(), caption: self.caption }
    }
}

impl<M: Explain> PartialEq for Told<M> {
    fn eq(&self, other: &Self) -> bool {
        self.facts == other.facts && self.words == other.words && self.caption == other.caption
    }
}

/// A running model: the queue, the clock and the end of the run around it. It derefs to the
/// model, so a page reads `host.charts()` as it would on the model itself.
pub struct Host<M: Model> {
    queue: EventQueue<M::Event>,
    model: M,
    end: Micros,
    seed: u64,
}

impl<M: Model> Host<M> {
    /// Starts a run of `end` µs from a typed configuration.
    pub fn start(config: M::Config, seed: u64, end: Micros) -> Self {
        let mut queue = EventQueue::new();
        let model = M::new(config, seed, end, &mut queue);
        Self { queue, model, end, seed }
    }

    /// Starts a run from parameter values (the declaration's own, checked).
    pub fn new(params: &Params, seed: u64, end: Micros) -> Self {
        Self::start(M::Config::from_params(params), seed, end)
    }

    /// The seed it was started with: a picture that needs the whole run (its rows, its axis)
    /// at a moment before its end plays a copy to the end.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    pub fn model(&self) -> &M {
        &self.model
    }

    /// The metrics now, typed (pages read their fields).
    pub fn metrics_now(&self) -> M::Metrics {
        self.model.metrics(self.queue.now())
    }

    /// Entries waiting in the event queue (memory checks).
    pub fn queued_events(&self) -> usize {
        self.queue.len()
    }
}

impl<M: Explain> Host<M> {
    /// The sentences now, typed (pages read their fields).
    pub fn words_now(&self) -> M::Words {
        self.told_now().words
    }

    /// The facts now and the sentences rendered from them, computed once for both.
    pub fn told_now(&self) -> Told<M> {
        let facts = self.facts_now();
        let words = self.model.words(&facts);
        let caption = M::caption(self.model.config(), &words);
        Told { facts, words, caption }
    }

    /// The facts now, typed.
    pub fn facts_now(&self) -> M::Facts {
        self.model.facts(self.queue.now())
    }
}

impl<M: Model> Deref for Host<M> {
    type Target = M;
    fn deref(&self) -> &M {
        &self.model
    }
}

impl<M: Explain> Simulation for Host<M> {
    fn now(&self) -> Micros {
        self.queue.now()
    }

    fn end(&self) -> Micros {
        self.end
    }

    fn advance(&mut self, until: Micros, max_events: u64) -> StepOutcome {
        let model = &mut self.model;
        self.queue.run_until(until.min(self.end), max_events, |q, t, e| model.handle(q, t, e))
    }

    fn events(&self) -> u64 {
        self.queue.processed()
    }

    fn next_event_time(&self) -> Option<Micros> {
        self.queue.peek_time().filter(|&t| t < self.end)
    }

    fn metrics(&self) -> Vec<(&'static str, Value)> {
        self.metrics_now().values()
    }

    fn reading(&self) -> Reading {
        self.words_now().reading()
    }

    fn caption(&self) -> Caption {
        self.told_now().caption
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn facts(&self) -> serde_json::Value {
        serde_json::to_value(self.facts_now()).expect("facts are plain values")
    }
}

/// [`Runs`] for model `M`: a scenario declares `model: &ModelOf::<M>::NEW`.
pub struct ModelOf<M>(PhantomData<fn() -> M>);

impl<M> ModelOf<M> {
    pub const NEW: Self = Self(PhantomData);
}

impl<M: Explain> Runs for ModelOf<M> {
    fn build(&self, params: &Params, seed: u64, end: Micros) -> Box<dyn Simulation> {
        Box::new(Host::<M>::new(params, seed, end))
    }

    fn run_length_ms(&self, params: &Params) -> Option<u64> {
        M::run_length_ms(&M::Config::from_params(params)).map(|ms| ms.min(M::MAX_RUN_LENGTH_MS))
    }

    fn sweep_theory(&self, params: &Params, x: &str, by: Option<&str>) -> Option<String> {
        M::sweep_theory(&M::Config::from_params(params), x, by)
    }
}
