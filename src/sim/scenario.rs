//! The one declaration a scenario makes, and the interface every simulation offers.

use super::base::{MAX_RUN_LENGTH_MS, MIN_DURATION_MS, Runs, Simulation};
use super::params::{ParamSpec, Params, Preset};

/// A metric a scenario reports (JSON key, stat card).
#[derive(Clone, Copy, Debug)]
pub struct MetricSpec {
    pub key: &'static str,
    pub label: &'static str,
    pub unit: &'static str,
    pub help: &'static str,
}

/// A scenario's default sweep: what its page's sweep view shows first and what the CLI sweeps
/// without `--x`, with the sentence that reads its curve.
#[derive(Clone, Copy, Debug)]
pub struct SweepDefault {
    pub x: &'static str,
    pub from: f64,
    pub to: f64,
    pub steps: usize,
    /// A choice parameter: one line per option.
    pub by: Option<&'static str>,
    pub metric: &'static str,
}

/// A sentence of the run's reading that quotes metrics its page shows as stat cards: while the
/// sentence states a number of that quantity, it is the card's text (`tests/agreement.rs`), and
/// the page changes those cards at the words' pace, so both show one moment (`StatCard`).
#[derive(Clone, Copy, Debug)]
pub struct Quote {
    /// The reading's key (a field of the scenario's `words!`).
    pub reading: &'static str,
    /// The metrics it quotes, by key.
    pub metrics: &'static [&'static str],
}

/// Everything about one scenario, declared once.
pub struct ScenarioSpec {
    pub id: &'static str,
    pub title: &'static str,
    /// Where it belongs in the course.
    pub chapter: &'static str,
    /// One or two sentences: what the reader will see.
    pub summary: &'static str,
    pub params: &'static [ParamSpec],
    pub presets: &'static [Preset],
    pub metrics: &'static [MetricSpec],
    /// The metrics a reader should look at first (stat cards' order, spreads, sweeps).
    pub headline: &'static [&'static str],
    /// Which sentences quote which cards.
    pub quotes: &'static [Quote],
    /// How long a run is when its model does not say (ms).
    pub default_duration_ms: u64,
    pub sweep: SweepDefault,
    /// The model: builds runs, says how long a run should be, states the theory of a sweep.
    pub model: &'static dyn Runs,
}

impl ScenarioSpec {
    pub fn defaults(&self) -> Params {
        Params::defaults(self.params)
    }

    pub fn preset(&self, id: &str) -> Option<&'static Preset> {
        self.presets.iter().find(|p| p.id == id)
    }

    pub fn param(&self, id: &str) -> Option<&'static ParamSpec> {
        self.params.iter().find(|p| p.id == id)
    }

    /// The keys of the sentences that quote metric `key` (see [`Quote`]).
    pub fn quoted_by<'a>(&'a self, key: &'a str) -> impl Iterator<Item = &'static str> + 'a {
        self.quotes.iter().filter(move |q| q.metrics.contains(&key)).map(|q| q.reading)
    }

    pub fn metric(&self, key: &str) -> Option<&'static MetricSpec> {
        self.metrics.iter().find(|m| m.key == key)
    }

    /// The length of a run with `params` when no duration was set: long enough to show what
    /// the parameters set in motion, in the allowed range (a model's own run length is capped
    /// by the model: see `Model::MAX_RUN_LENGTH_MS`).
    pub fn duration_for(&self, params: &Params) -> u64 {
        self.model.run_length_ms(params).unwrap_or(self.default_duration_ms).clamp(MIN_DURATION_MS, MAX_RUN_LENGTH_MS)
    }

    /// The parameters of `preset` (none: "") with `set`'s values on top, as `--preset` and
    /// `--set` give them. For tests and tools that name known settings: it panics, naming what,
    /// on an unknown preset or a value that cannot be set.
    pub fn configured(&self, preset: &str, set: &[(&str, &str)]) -> Params {
        let mut params = self.defaults();
        if !preset.is_empty() {
            let known = self.preset(preset).unwrap_or_else(|| panic!("{}: no preset '{preset}'", self.id));
            params.apply_preset(known).unwrap_or_else(|e| panic!("{}: preset {preset}: {e}", self.id));
        }
        for (key, value) in set {
            params.set_text(key, value).unwrap_or_else(|e| panic!("{}: {key}={value}: {e}", self.id));
        }
        params
    }

    /// Builds a simulation; the duration is clamped to the allowed range (a reader's duration
    /// was checked against [`MAX_DURATION_MS`] where it was read).
    pub fn start(&self, params: &Params, seed: u64, duration_ms: u64) -> Box<dyn Simulation> {
        let d = duration_ms.clamp(MIN_DURATION_MS, MAX_RUN_LENGTH_MS);
        self.model.build(params, seed, d * 1_000)
    }
}
