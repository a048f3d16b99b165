//! Many runs at once: the same settings over a range of one parameter, one line per option of a
//! choice parameter, each point over several seeds, summarised as a median and a 10th–90th
//! percentile band. The CLI's `sweep`, the page's sweep view and the spread under each headline
//! stat card all run [`Sweep`]s; the work is a list of [`Job`]s, so the CLI can share it out
//! over threads and the page can run it a slice at a time, with the same results either way.

pub use crate::sim::scenario::SweepDefault;
use crate::sim::{ParamKind, ParamSpec, Params, ScenarioSpec, Simulation};

/// What to run.
#[derive(Clone, Debug)]
pub struct Sweep {
    pub scenario: &'static ScenarioSpec,
    /// Every other parameter's value.
    pub base: Params,
    pub x: &'static ParamSpec,
    /// The x values, in order (snapped to the parameter's grid, no repeats).
    pub xs: Vec<f64>,
    pub by: Option<&'static ParamSpec>,
    pub seeds: Vec<u64>,
    pub metrics: Vec<&'static str>,
    /// A duration set for every run; `None`: each run is as long as its parameters need.
    pub duration_ms: Option<u64>,
}

/// One run of a sweep.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Job {
    /// The option of `by` (its index), if any.
    pub by: Option<usize>,
    pub x: f64,
    pub seed: u64,
}

/// A run's result: its job and each metric's number (None where it has none).
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    pub job: Job,
    pub values: Vec<Option<f64>>,
}

/// A metric at one x, on one line, over the seeds.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    pub by: Option<usize>,
    pub x: f64,
    pub metric: &'static str,
    pub median: Option<f64>,
    pub p10: Option<f64>,
    pub p90: Option<f64>,
    pub min: Option<f64>,
    pub max: Option<f64>,
    /// How many seeds gave a number.
    pub n: usize,
}

/// Why a sweep cannot be built, in words that name what is allowed.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepError(pub String);

impl std::fmt::Display for SweepError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The x values from `from` to `to` in `steps` points, snapped to the parameter's grid.
pub fn x_values(x: &ParamSpec, from: f64, to: f64, steps: usize) -> Vec<f64> {
    let steps = steps.max(1);
    let mut xs: Vec<f64> = (0..steps)
        .map(|i| if steps == 1 { from } else { from + (to - from) * i as f64 / (steps - 1) as f64 })
        .map(|v| x.sanitize(v))
        .collect();
    xs.dedup();
    xs
}

impl Sweep {
    /// A sweep of `scenario` with `base` as every other setting. Checks that `x` is a numeric
    /// parameter, `by` a choice parameter other than `x`, and every metric declared.
    pub fn new(
        scenario: &'static ScenarioSpec,
        base: Params,
        (x, from, to, steps): (&str, f64, f64, usize),
        by: Option<&str>,
        seeds: usize,
        metrics: &[&str],
    ) -> Result<Self, SweepError> {
        let ids: Vec<&str> = scenario.params.iter().map(|p| p.id).collect();
        let x = scenario.param(x).ok_or_else(|| {
            SweepError(format!("x must be a parameter of {}: one of {}", scenario.id, ids.join(", ")))
        })?;
        // A choice or a toggle takes every option, whatever range was asked.
        let (from, to, steps) = match x.kind {
            ParamKind::Number => (from, to, steps),
            _ => (x.min, x.max, x.max as usize + 1),
        };
        let by = match by {
            None => None,
            Some(id) => {
                Some(scenario.param(id).filter(|p| matches!(p.kind, ParamKind::Choice(_))).ok_or_else(|| {
                    let choices: Vec<&str> = scenario
                        .params
                        .iter()
                        .filter(|p| matches!(p.kind, ParamKind::Choice(_)))
                        .map(|p| p.id)
                        .collect();
                    SweepError(format!(
                        "by must be a choice parameter of {}: one of {}",
                        scenario.id,
                        choices.join(", ")
                    ))
                })?)
            }
        };
        if by.is_some_and(|b| b.id == x.id) {
            return Err(SweepError(format!("by: {} is already the x axis; choose another choice parameter", x.id)));
        }
        let known: Vec<&str> = scenario.metrics.iter().map(|m| m.key).collect();
        let metrics = metrics
            .iter()
            .map(|m| {
                scenario.metric(m).map(|m| m.key).ok_or_else(|| {
                    SweepError(format!(
                        "unknown metric '{m}' for {}; expected one of {}",
                        scenario.id,
                        known.join(", ")
                    ))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        if !(from.is_finite() && to.is_finite()) || from < x.min || to > x.max || from > to {
            return Err(SweepError(format!(
                "x: {}={}..{} is not allowed; expected from ≤ to within {}",
                x.id,
                crate::format::plain(from),
                crate::format::plain(to),
                x.allowed()
            )));
        }
        Ok(Self {
            scenario,
            base,
            x,
            xs: x_values(x, from, to, steps),
            by,
            seeds: (1..=seeds.max(1) as u64).collect(),
            metrics: if metrics.is_empty() { vec![scenario.sweep.metric] } else { metrics },
            duration_ms: None,
        })
    }

    /// The options of `by` (one line each), or a single line.
    pub fn lines(&self) -> Vec<Option<usize>> {
        match self.by.map(|b| b.kind) {
            Some(ParamKind::Choice(options)) => (0..options.len()).map(Some).collect(),
            _ => vec![None],
        }
    }

    /// Every run, in the order their results are reported: by line, then x, then seed.
    pub fn jobs(&self) -> Vec<Job> {
        let mut jobs = Vec::with_capacity(self.lines().len() * self.xs.len() * self.seeds.len());
        for by in self.lines() {
            for &x in &self.xs {
                for &seed in &self.seeds {
                    jobs.push(Job { by, x, seed });
                }
            }
        }
        jobs
    }

    /// The parameters of one job.
    pub fn params(&self, job: &Job) -> Params {
        let mut p = self.base.clone();
        p.set(self.x.id, job.x);
        if let (Some(by), Some(option)) = (self.by, job.by) {
            p.set(by.id, option as f64);
        }
        p
    }

    /// Starts one job's run (the page advances it a slice at a time).
    pub fn start(&self, job: &Job) -> Box<dyn Simulation> {
        let params = self.params(job);
        let duration = self.duration_ms.unwrap_or_else(|| self.scenario.duration_for(&params));
        self.scenario.start(&params, job.seed, duration)
    }

    /// The point a finished run gives.
    pub fn point(&self, job: Job, sim: &dyn Simulation) -> Point {
        let metrics = sim.metrics();
        let values = self
            .metrics
            .iter()
            .map(|key| metrics.iter().find(|(k, _)| k == key).and_then(|(_, v)| v.as_f64()).filter(|v| v.is_finite()))
            .collect();
        Point { job, values }
    }

    /// Runs one job to the end.
    pub fn run(&self, job: Job) -> Point {
        let mut sim = self.start(&job);
        sim.run_to_end();
        self.point(job, &*sim)
    }

    /// Every point's median and 10th–90th percentiles over the seeds, by line, x and metric.
    pub fn summarize(&self, points: &[Point]) -> Vec<Summary> {
        let mut out = Vec::new();
        for chunk in points.chunk_by(|a, b| a.job.by == b.job.by && a.job.x == b.job.x) {
            let job = chunk[0].job;
            for (m, &metric) in self.metrics.iter().enumerate() {
                let mut values: Vec<f64> = chunk.iter().filter_map(|p| p.values[m]).collect();
                values.sort_by(f64::total_cmp);
                out.push(Summary {
                    by: job.by,
                    x: job.x,
                    metric,
                    median: quantile(&values, 0.5),
                    p10: quantile(&values, 0.1),
                    p90: quantile(&values, 0.9),
                    min: values.first().copied(),
                    max: values.last().copied(),
                    n: values.len(),
                });
            }
        }
        out
    }

    /// An x value as a reader reads it: a choice's label, or the value beside its slider.
    pub fn x_text(&self, x: f64) -> String {
        match self.x.kind {
            ParamKind::Number => crate::format::slider_value(x, self.x.unit),
            _ => self.x.format(x),
        }
    }

    /// The name of a line's option.
    pub fn line_name(&self, by: Option<usize>) -> Option<&'static str> {
        match (self.by.map(|b| b.kind), by) {
            (Some(ParamKind::Choice(options)), Some(i)) => options.get(i).map(|o| o.id),
            _ => None,
        }
    }
}

impl Sweep {
    /// The curve in words: what theory says (where the scenario states it), then how each
    /// line's median moves from the first x to the last.
    pub fn reading(&self, summary: &[Summary]) -> Vec<String> {
        let mut out: Vec<String> =
            self.scenario.model.sweep_theory(&self.base, self.x.id, self.by.map(|b| b.id)).into_iter().collect();
        let Some(metric) = self.metrics.first().and_then(|m| self.scenario.metric(m)) else { return out };
        let value = |v: f64| match metric.unit {
            "" => crate::format::number(v),
            unit => format!("{} {}", crate::format::number(v), crate::format::unit_for(v, unit)),
        };
        for by in self.lines() {
            let line: Vec<&Summary> = summary.iter().filter(|s| s.by == by && s.metric == metric.key).collect();
            let (Some(first), Some(last)) = (line.first(), line.last()) else { continue };
            let (Some(a), Some(b)) = (first.median, last.median) else { continue };
            let name = match (self.by, by) {
                (Some(p), Some(i)) => match p.kind {
                    ParamKind::Choice(options) => format!("{}: ", options[i].label),
                    _ => String::new(),
                },
                _ => String::new(),
            };
            out.push(format!(
                "{name}{} goes from {} ({}: {}) to {} ({}).",
                metric.label,
                value(a),
                self.x.label,
                self.x_text(first.x),
                value(b),
                self.x_text(last.x)
            ));
        }
        out
    }
}

/// The `q` quantile of sorted values, interpolating linearly between neighbours (as
/// spreadsheets and numpy do by default); None when there are none.
pub fn quantile(sorted: &[f64], q: f64) -> Option<f64> {
    let last = sorted.len().checked_sub(1)?;
    let pos = q.clamp(0.0, 1.0) * last as f64;
    let (lo, hi) = (libm::floor(pos) as usize, libm::ceil(pos) as usize);
    Some(sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_interpolate_between_order_statistics() {
        let v = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert_eq!(quantile(&v, 0.5), Some(3.0));
        assert_eq!(quantile(&v, 0.1), Some(1.4));
        assert_eq!(quantile(&v, 0.9), Some(4.6));
        assert_eq!(quantile(&[7.0], 0.9), Some(7.0));
        assert_eq!(quantile(&[], 0.5), None);
    }
}
