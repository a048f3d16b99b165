//! What every simulation offers, whatever its model: the run's interface ([`Simulation`]), its
//! values ([`Value`]) and sentences ([`Reading`]), and how a declaration builds runs ([`Runs`]).
//! The layer under the engine host and the declarations: it uses nothing above the engine.

use super::engine::{Micros, StepOutcome};
use super::params::Params;

/// A metric's value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Num(f64),
    Text(String),
    /// A list of records, e.g. one per server.
    List(Vec<Vec<(&'static str, Value)>>),
}

impl Value {
    /// A number when the value has one (stat cards, tests).
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Int(i) => Some(*i as f64),
            Value::Num(x) => Some(*x),
            Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
            _ => None,
        }
    }

    /// A float metric rounded to 0.1 so reports read well; NaN and infinities become null.
    pub fn num(x: f64) -> Value {
        if x.is_finite() { Value::Num(libm::round(x * 10.0) / 10.0) } else { Value::Null }
    }

    pub fn count(n: u64) -> Value {
        Value::Int(n.min(i64::MAX as u64) as i64)
    }

    /// A share (%) as a metric: to 0.1 from 0.05 up, as [`Value::num`]; below, to a thousandth,
    /// and a non-zero share under that as it is, so that its card reads as the words say it
    /// ("0.02%", "< 0.001%"), never "0" beside them (issue 45).
    pub fn share(x: f64) -> Value {
        let thousandths = libm::round(x * 1000.0) / 1000.0;
        match x {
            x if !x.is_finite() || x.abs() >= 0.05 => Value::num(x),
            _ if thousandths == 0.0 => Value::Num(x),
            _ => Value::Num(thousandths),
        }
    }
}

/// Sentences that explain a run, each keyed by what it explains ("answer", "verdict", …):
/// computed from the run, never written for the chapter's run only.
pub type Reading = Vec<(&'static str, String)>;

/// Sorts a short list (a reading's moments) by `key`, keeping the order of equal keys, in a few
/// bytes of code (the standard sorts add kilobytes to the browser's bundle).
pub fn sort_short<T, K: PartialOrd>(v: &mut [T], key: impl Fn(&T) -> K) {
    for i in 1..v.len() {
        let mut j = i;
        while j > 0 && key(&v[j - 1]) > key(&v[j]) {
            v.swap(j - 1, j);
            j -= 1;
        }
    }
}

/// What a figure shows beside its picture, declared once for the page and the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Caption {
    /// Its stat cards, by metric key, in order (at most four).
    pub cards: &'static [&'static str],
    /// The key of the sentence that is its verdict.
    pub verdict: &'static str,
    /// How much of it the figure shows.
    pub shown: Shown,
}

/// How much of its verdict's sentence a figure shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shown {
    /// Its lead, the rest behind a "Why?" (the kit's verdict).
    Lead,
    /// The lead of its first sentence only: the rest is the full page's detail.
    FirstSentence,
    /// All of it, as one paragraph.
    Whole,
}

impl Caption {
    /// The cards and the sentence `verdict`, its lead before a "Why?".
    pub const fn of(cards: &'static [&'static str], verdict: &'static str) -> Self {
        Self { cards, verdict, shown: Shown::Lead }
    }
}

/// A running simulation. The engine's `Host` implements it for every model; the CLI,
/// the benchmarks and the generic parts of the UI use nothing else.
pub trait Simulation: std::any::Any {
    /// Current simulated time.
    fn now(&self) -> Micros;
    /// When the run ends.
    fn end(&self) -> Micros;
    /// Processes events up to `until` (capped at the end), but at most `max_events` of them,
    /// so that no setting can freeze a frame.
    fn advance(&mut self, until: Micros, max_events: u64) -> StepOutcome;
    /// Events processed since the start.
    fn events(&self) -> u64;
    /// The time of the next event that will be handled, if any (before the end).
    fn next_event_time(&self) -> Option<Micros>;
    /// The scenario's metrics, keyed as declared.
    fn metrics(&self) -> Vec<(&'static str, Value)>;
    /// Sentences that explain this run, computed from its configuration and its metrics.
    fn reading(&self) -> Reading;
    /// What its figure shows beside the picture now: cards and verdict (see `Explain::caption`).
    fn caption(&self) -> Caption;
    /// What the run did and why, as JSON (`run --json`'s `facts`).
    #[cfg(not(target_arch = "wasm32"))]
    fn facts(&self) -> serde_json::Value;

    fn finished(&self) -> bool {
        self.now() >= self.end()
    }

    /// Runs to the end in one go (CLI, tests).
    fn run_to_end(&mut self) {
        while !self.finished() {
            self.advance(self.end(), u64::MAX);
        }
    }
}

/// What a scenario's declaration needs from its model without naming its type: build a run,
/// say how long a run should be, state the theory behind a sweep.
pub trait Runs: Sync {
    fn build(&self, params: &Params, seed: u64, end: Micros) -> Box<dyn Simulation>;
    fn run_length_ms(&self, params: &Params) -> Option<u64>;
    fn sweep_theory(&self, params: &Params, x: &str, by: Option<&str>) -> Option<String>;
}

/// The shortest and longest runs a reader can ask for (link, command line); also the longest a
/// model declares for itself unless it raises its own limit (`Model::MAX_RUN_LENGTH_MS`).
pub const MIN_DURATION_MS: u64 = 100;
pub const MAX_DURATION_MS: u64 = 4 * 3_600_000;
/// The longest run any model may declare for itself: 30 days, for a model whose queue jumps
/// over idle days (at-least-once's late redeliveries come days after the ack).
pub const MAX_RUN_LENGTH_MS: u64 = 30 * 24 * 3_600_000;
