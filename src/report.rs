//! What the command line prints as JSON, as typed records (native only: the browser bundle
//! carries no serde). `list --json` is a [`ScenarioDescription`] per scenario, `run --json` a
//! [`RunReport`], `bench --json` a [`BenchReport`].

use serde::Serialize;
use serde::ser::{SerializeMap, SerializeSeq, Serializer};

use crate::sim::params::OnlyWith;
use crate::sim::{ChoiceOption, MetricSpec, ParamKind, ParamSpec, Params, Preset, Reading, ScenarioSpec, Value};
use crate::sweep::{Point, Summary, Sweep};
use crate::url::State;

impl Serialize for Value {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => s.serialize_unit(),
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Int(i) => s.serialize_i64(*i),
            Value::Num(x) => s.serialize_f64(*x),
            Value::Text(t) => s.serialize_str(t),
            Value::List(rows) => {
                let mut seq = s.serialize_seq(Some(rows.len()))?;
                for row in rows {
                    seq.serialize_element(&Pairs(row))?;
                }
                seq.end()
            }
        }
    }
}

/// Key–value pairs in their own order, as one JSON object (metrics, preset values, timings).
pub struct Pairs<'a, T>(pub &'a [(&'static str, T)]);

impl<T: Serialize> Serialize for Pairs<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// A parameter's value as JSON: a number, true or false, or the chosen option's id.
#[derive(Serialize)]
#[serde(untagged)]
pub enum ParamJson {
    Number(f64),
    Toggle(bool),
    Choice(&'static str),
}

impl ParamJson {
    pub fn of(spec: &ParamSpec, value: f64) -> Self {
        match spec.kind {
            ParamKind::Number => ParamJson::Number(value),
            ParamKind::Toggle => ParamJson::Toggle(value >= 0.5),
            ParamKind::Choice(options) => ParamJson::Choice(options[(value as usize).min(options.len() - 1)].id),
        }
    }
}

/// Every parameter of a run, by id, in declaration order.
pub struct ParamValues<'a>(pub &'a Params);

impl Serialize for ParamValues<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let specs = self.0.specs();
        let mut map = s.serialize_map(Some(specs.len()))?;
        for (spec, &v) in specs.iter().zip(self.0.values()) {
            map.serialize_entry(spec.id, &ParamJson::of(spec, v))?;
        }
        map.end()
    }
}

/// `run --json`: the run's settings, then every metric at the top level (as the issues name
/// them) and again grouped under `metrics`, for tools that want one object.
#[derive(Serialize)]
pub struct RunReport<'a> {
    /// The lab's version ([`crate::VERSION`]).
    pub version: &'static str,
    pub scenario: &'static str,
    pub seed: u64,
    pub duration_ms: u64,
    /// The length the run's settings need; longer than `duration_ms` when the run was cut.
    pub full_duration_ms: u64,
    pub preset: Option<&'static str>,
    pub params: ParamValues<'a>,
    #[serde(flatten)]
    pub top_level: Pairs<'a, Value>,
    pub metrics: Pairs<'a, Value>,
    /// Sentences that explain the run, computed from it (keyed by what they explain).
    pub reading: Pairs<'a, String>,
    /// What the run did and why, as typed values: the facts the reading is rendered from.
    pub facts: serde_json::Value,
    /// `run --at-ms`: the moment the run was stopped at, as a paused page shows it (absent when
    /// the run went to its end).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at_ms: Option<f64>,
}

impl<'a> RunReport<'a> {
    pub fn new(
        state: &'a State,
        metrics: &'a [(&'static str, Value)],
        reading: &'a Reading,
        facts: serde_json::Value,
    ) -> Self {
        Self {
            version: crate::VERSION,
            scenario: state.scenario.id,
            seed: state.seed,
            duration_ms: state.duration(),
            full_duration_ms: state.full_duration(),
            preset: state.preset,
            params: ParamValues(&state.params),
            top_level: Pairs(metrics),
            metrics: Pairs(metrics),
            reading: Pairs(reading),
            facts,
            at_ms: None,
        }
    }
}

/// `list --json`: one scenario's declaration.
#[derive(Serialize)]
pub struct ScenarioDescription {
    pub id: &'static str,
    pub title: &'static str,
    pub chapter: &'static str,
    pub summary: &'static str,
    pub default_duration_ms: u64,
    pub params: Vec<ParamDescription>,
    pub presets: Vec<PresetDescription>,
    pub metrics: Vec<&'static MetricSpec>,
    pub headline: &'static [&'static str],
}

#[derive(Serialize)]
pub struct ParamDescription {
    pub id: &'static str,
    pub label: &'static str,
    pub unit: &'static str,
    pub kind: &'static str,
    pub default: ParamJson,
    pub min: f64,
    pub max: f64,
    pub step: f64,
    pub help: &'static str,
    /// A choice's option ids, in order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub options: Option<Vec<&'static str>>,
    /// A choice's options with their labels and help.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub choices: Option<&'static [ChoiceOption]>,
    /// When the model reads it: only while `param` is one of `values`; otherwise its control is
    /// disabled, saying `why`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub only_with: Option<OnlyWith>,
}

#[derive(Serialize)]
pub struct PresetDescription {
    pub id: &'static str,
    pub label: &'static str,
    pub description: &'static str,
    pub values: Pairs<'static, &'static str>,
}

impl Serialize for MetricSpec {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(4))?;
        map.serialize_entry("key", self.key)?;
        map.serialize_entry("label", self.label)?;
        map.serialize_entry("unit", self.unit)?;
        map.serialize_entry("help", self.help)?;
        map.end()
    }
}

impl Serialize for OnlyWith {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(3))?;
        map.serialize_entry("param", self.param)?;
        map.serialize_entry("values", self.values)?;
        map.serialize_entry("why", self.why)?;
        map.end()
    }
}

impl Serialize for ChoiceOption {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(3))?;
        map.serialize_entry("id", self.id)?;
        map.serialize_entry("label", self.label)?;
        map.serialize_entry("help", self.help)?;
        map.end()
    }
}

impl ScenarioDescription {
    pub fn of(spec: &'static ScenarioSpec) -> Self {
        Self {
            id: spec.id,
            title: spec.title,
            chapter: spec.chapter,
            summary: spec.summary,
            default_duration_ms: spec.default_duration_ms,
            params: spec.params.iter().map(ParamDescription::of).collect(),
            presets: spec.presets.iter().map(PresetDescription::of).collect(),
            metrics: spec.metrics.iter().collect(),
            headline: spec.headline,
        }
    }
}

impl ParamDescription {
    fn of(p: &'static ParamSpec) -> Self {
        let (kind, choices) = match p.kind {
            ParamKind::Number => ("number", None),
            ParamKind::Toggle => ("toggle", None),
            ParamKind::Choice(options) => ("choice", Some(options)),
        };
        Self {
            id: p.id,
            label: p.label,
            unit: p.unit,
            kind,
            default: ParamJson::of(p, p.default),
            min: p.min,
            max: p.max,
            step: p.step,
            help: p.help,
            options: choices.map(|o| o.iter().map(|o| o.id).collect()),
            choices,
            only_with: p.only_with,
        }
    }
}

impl PresetDescription {
    fn of(p: &'static Preset) -> Self {
        Self { id: p.id, label: p.label, description: p.description, values: Pairs(p.values) }
    }
}

/// `bench --json`: the core's speed at the defaults.
#[derive(Serialize)]
pub struct BenchReport<'a> {
    pub requests_per_s: f64,
    pub events_per_s: f64,
    pub events_per_request: f64,
    pub repetitions: usize,
    /// Wall milliseconds for ten simulated minutes of each scenario.
    pub scenarios_ms: Pairs<'a, f64>,
}

/// `sweep --json`: the settings swept, every run's point and every point's summary.
#[derive(Serialize)]
pub struct SweepReport<'a> {
    pub scenario: &'static str,
    pub preset: Option<&'static str>,
    /// The swept parameter's id.
    pub x: &'static str,
    /// The choice parameter with one line per option, or null.
    pub by: Option<&'static str>,
    pub metrics: &'a [&'static str],
    pub seeds: &'a [u64],
    /// The length every run was given, or null: each run as long as its settings need.
    pub duration_ms: Option<u64>,
    pub params: ParamValues<'a>,
    pub points: Vec<PointRow<'a>>,
    pub summary: Vec<SummaryRow>,
    /// The curve in words: the theory where there is one, and how each line moves.
    pub reading: Vec<String>,
}

/// One run: its line, x and seed, then each metric by key.
pub struct PointRow<'a> {
    pub by: Option<&'static str>,
    pub x: ParamJson,
    pub seed: u64,
    pub metrics: &'a [&'static str],
    pub values: &'a [Option<f64>],
}

impl Serialize for PointRow<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(3 + self.metrics.len()))?;
        map.serialize_entry("by", &self.by)?;
        map.serialize_entry("x", &self.x)?;
        map.serialize_entry("seed", &self.seed)?;
        for (k, v) in self.metrics.iter().zip(self.values) {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// One point's summary over the seeds, each figure rounded to 0.1 as the metrics are.
#[derive(Serialize)]
pub struct SummaryRow {
    pub by: Option<&'static str>,
    pub x: ParamJson,
    pub metric: &'static str,
    pub median: Option<f64>,
    pub p10: Option<f64>,
    pub p90: Option<f64>,
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub n: usize,
}

impl<'a> SweepReport<'a> {
    pub fn new(sweep: &'a Sweep, preset: Option<&'static str>, points: &'a [Point]) -> Self {
        let summary = sweep.summarize(points);
        Self {
            scenario: sweep.scenario.id,
            preset,
            x: sweep.x.id,
            by: sweep.by.map(|b| b.id),
            metrics: &sweep.metrics,
            seeds: &sweep.seeds,
            duration_ms: sweep.duration_ms,
            params: ParamValues(&sweep.base),
            points: points
                .iter()
                .map(|p| PointRow {
                    by: sweep.line_name(p.job.by),
                    x: ParamJson::of(sweep.x, p.job.x),
                    seed: p.job.seed,
                    metrics: &sweep.metrics,
                    values: &p.values,
                })
                .collect(),
            summary: summary.iter().cloned().map(|s| SummaryRow::of(sweep, s)).collect(),
            reading: sweep.reading(&summary),
        }
    }
}

impl SummaryRow {
    pub fn of(sweep: &Sweep, s: Summary) -> Self {
        let round = |v: Option<f64>| v.map(|v| libm::round(v * 10.0) / 10.0);
        Self {
            by: sweep.line_name(s.by),
            x: ParamJson::of(sweep.x, s.x),
            metric: s.metric,
            median: round(s.median),
            p10: round(s.p10),
            p90: round(s.p90),
            min: round(s.min),
            max: round(s.max),
            n: s.n,
        }
    }
}
