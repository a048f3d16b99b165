//! The one declaration a scenario makes, and the interface every simulation offers.

use super::engine::{Micros, StepOutcome};
use super::params::{ParamSpec, Params, Preset};

/// A metric a scenario reports (JSON key, stat card).
#[derive(Clone, Copy, Debug)]
pub struct MetricSpec {
    pub key: &'static str,
    pub label: &'static str,
    pub unit: &'static str,
    pub help: &'static str,
}

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
}

/// A running simulation. Every scenario implements this; the CLI, the benchmarks and the
/// generic parts of the UI use nothing else.
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
    /// The scenario's metrics, keyed as declared.
    fn metrics(&self) -> Vec<(&'static str, Value)>;

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

/// The clock half of [`Simulation`] for a scenario made of `queue: EventQueue<Event>` and a
/// `model` with an `end` field and a `handle(queue, now, event)` method: `now`, `end`,
/// `advance` and `events`, written once. Use it inside `impl Simulation for …`.
#[macro_export]
macro_rules! event_driven_clock {
    () => {
        fn now(&self) -> $crate::sim::Micros {
            self.queue.now()
        }

        fn end(&self) -> $crate::sim::Micros {
            self.model.end
        }

        fn advance(&mut self, until: $crate::sim::Micros, max_events: u64) -> $crate::sim::StepOutcome {
            let model = &mut self.model;
            self.queue.run_until(until.min(model.end), max_events, |q, t, e| model.handle(q, t, e))
        }

        fn events(&self) -> u64 {
            self.queue.processed()
        }
    };
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
    pub default_duration_ms: u64,
    pub build: fn(&Params, u64, Micros) -> Box<dyn Simulation>,
}

/// The shortest and longest runs anyone can ask for.
pub const MIN_DURATION_MS: u64 = 100;
pub const MAX_DURATION_MS: u64 = 4 * 3_600_000;

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

    pub fn metric(&self, key: &str) -> Option<&'static MetricSpec> {
        self.metrics.iter().find(|m| m.key == key)
    }

    /// Builds a simulation; the duration is clamped to the allowed range.
    pub fn start(&self, params: &Params, seed: u64, duration_ms: u64) -> Box<dyn Simulation> {
        let d = duration_ms.clamp(MIN_DURATION_MS, MAX_DURATION_MS);
        (self.build)(params, seed, d * 1_000)
    }
}
