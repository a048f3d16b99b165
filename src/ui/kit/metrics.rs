//! One handle on a running simulation's metrics and words, shared by every card, note and
//! reading of a page: the metrics are computed once per frame however many parts read them, and
//! the facts and the words rendered from them a few times a second while the run plays (see
//! [`Playback::track_words`]). All are the scenario's typed structs (`metrics!`, its facts,
//! `words!`): a page reads their fields, so a metric, a fact or a sentence its scenario lacks does
//! not compile, and a page decides on facts (a card's tone), never on a sentence's wording.
//!
//! [`Playback::track_words`]: crate::ui::runner::Playback::track_words

use leptos::prelude::*;

use crate::format;
use crate::sim::model::Told;
use crate::sim::{Explain, Metric, ScenarioSpec, Shown, Value, Word, WordSet};
use crate::ui::runner::Runner;

pub struct Metrics<M: Explain> {
    pub scenario: &'static ScenarioSpec,
    values: Memo<M::Metrics>,
    told: Memo<Told<M>>,
    words: Memo<M::Words>,
}

impl<M: Explain> Clone for Metrics<M> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<M: Explain> Copy for Metrics<M> {}

/// What the run hit of the model's limits (a full backlog…), in words: every page's layout shows
/// it, whatever the scenario (empty when nothing).
#[derive(Clone, Copy)]
pub struct LimitNotice(pub Signal<String>);

impl<M: Explain> Metrics<M> {
    pub fn new(scenario: &'static ScenarioSpec, runner: Runner<M>) -> Self {
        let told = Memo::new(move |_| runner.track_words(|h| h.told_now()));
        Self {
            scenario,
            values: Memo::new(move |_| runner.track(|h| h.metrics_now())),
            told,
            // Its own memo, so a sentence's readers wake only when the words changed, not at
            // each change of the facts (their clock moves at every update).
            words: Memo::new(move |_| told.with(|t| t.words.clone())),
        }
    }

    /// The page's one handle, which its parts read, and the layout's [`LimitNotice`]: a page
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

    /// Reads the facts now (tracked, at the words' pace): what a page decides on.
    pub fn fact<R: PartialEq + Send + Sync + 'static>(&self, read: fn(&M::Facts) -> R) -> Signal<R> {
        let told = self.told;
        Memo::new(move |_| told.with(|t| read(&t.facts))).into()
    }

    /// `read` again at the words' pace: a few times a second while the run plays, at once after
    /// a reader's action. For words a page makes from the metrics (a card's note): read every
    /// frame, they were rewritten and laid out every frame.
    pub fn paced<R: PartialEq + Send + Sync + 'static>(
        &self,
        read: impl Fn() -> R + Send + Sync + 'static,
    ) -> Signal<R> {
        let told = self.told;
        Memo::new(move |_| {
            told.track();
            untrack(&read)
        })
        .into()
    }

    /// Reads the words now (tracked).
    pub fn words<R>(&self, read: impl FnOnce(&M::Words) -> R) -> R {
        self.words.with(read)
    }

    /// One sentence of the words, empty when the run has none (tracked):
    /// `metrics.said(SlowServerWords::verdict)`.
    pub fn said(&self, word: Word<M::Words>) -> String {
        self.words.with(|w| word.of(w).to_string())
    }

    /// The figure's verdict now, as the scenario's `Explain::caption` declares it: its
    /// sentence's key (the `data-reading` hook; none when only its first sentence shows) and
    /// its text. Plain closures on the words, not memos of new types: each new signal type
    /// costs a page kilobytes of reactive code.
    pub fn verdict(&self) -> (impl Fn() -> Option<&'static str> + Copy + Send + Sync + 'static, Signal<String>) {
        let told = self.told;
        let key = move || told.with(|t| (t.caption.shown != Shown::FirstSentence).then_some(t.caption.verdict));
        let text = Signal::derive(move || {
            told.with(|t| {
                let said = t.words.said(t.caption.verdict);
                if t.caption.shown == Shown::FirstSentence {
                    format::first_sentences(said, 1)
                } else {
                    said.to_string()
                }
            })
        });
        (key, text)
    }

    /// The same, as a signal for a view.
    pub fn said_signal(&self, word: Word<M::Words>) -> Signal<String> {
        let me = *self;
        Signal::derive(move || me.said(word))
    }
}
