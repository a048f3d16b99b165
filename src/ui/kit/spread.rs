//! Is the number on the card typical or luck? Once the parameters settle, the page runs the same
//! settings on seeds 1 to 20 (and the reader's) in the background, and each headline stat card
//! shows its metric's spread over them: the median and the 10th to 90th percentile, or, for a
//! count that comes out the same on most seeds, on how many seeds it does.

use std::time::Duration;

use leptos::prelude::*;

use super::background::{Background, Done};
use super::state::SimState;
use crate::format;
use crate::sim::ParamKind;
use crate::sweep::Sweep;

/// Seeds 1 to this, plus the reader's.
pub const SPREAD_SEEDS: u64 = 20;
/// How long the parameters must stay unchanged before the spread is computed.
const SETTLE: Duration = Duration::from_millis(400);

/// The spread of every headline metric, shared with the stat cards by context.
#[derive(Clone, Copy)]
pub struct Spreads {
    runs: Background,
}

/// One metric's spread over seeds.
#[derive(Clone, Debug, PartialEq)]
pub struct Spread {
    pub median: f64,
    pub p10: f64,
    pub p90: f64,
    pub n: usize,
    /// A value most seeds share, with how many: for counts ("3 charges on 20 of 20 seeds").
    pub mode: Option<(f64, usize)>,
}

impl Spreads {
    /// Starts the spreads for `state` and shares them with the page's stat cards.
    pub fn provide(state: SimState) -> Self {
        let runs = Background::new();
        let pending = StoredValue::new_local(None::<TimeoutHandle>);
        Effect::new(move |_| {
            let params = state.params.get();
            let seed = state.seed.get();
            runs.stop(); // what was shown belongs to the old settings
            if let Some(h) = pending.get_value() {
                h.clear();
            }
            let sweep = spread_sweep(state, params, seed);
            let handle = set_timeout_with_handle(move || runs.start(sweep), SETTLE).ok();
            pending.set_value(handle);
        });
        on_cleanup(move || runs.stop());
        provide_context(Spreads { runs });
        Spreads { runs }
    }

    /// "The ranges under the cards: …", once they are computed (tracked).
    pub fn note(&self) -> Option<String> {
        self.runs.done.with(|d| {
            d.as_ref().map(|d| {
                format!(
                    "Ranges under the cards: the same settings on {} seeds ({} runs in {}): is this run typical, or luck?",
                    d.sweep.seeds.len(),
                    d.points.len(),
                    format::secs(d.took_ms / 1000.0)
                )
            })
        })
    }

    /// How long the spread took (wall ms), once computed (tracked).
    pub fn took_ms(&self) -> Option<f64> {
        self.runs.done.with(|d| d.as_ref().map(|d| d.took_ms))
    }

    /// The spread of `key` once computed (tracked).
    pub fn of(&self, key: &str) -> Option<Spread> {
        self.runs.done.with(|d| d.as_ref().and_then(|d| spread(d, key)))
    }
}

/// The same settings on seeds 1..=20 and the reader's, every headline metric.
fn spread_sweep(state: SimState, params: crate::sim::Params, seed: u64) -> Sweep {
    let scenario = state.scenario;
    let x = scenario.params.iter().find(|p| p.kind == ParamKind::Number).expect("a scenario has a number parameter");
    let v = params.values()[scenario.params.iter().position(|p| p.id == x.id).unwrap_or(0)];
    let mut sweep = Sweep::new(scenario, params, (x.id, v, v, 1), None, SPREAD_SEEDS as usize, scenario.headline)
        .expect("headline metrics are declared (tested)");
    if !sweep.seeds.contains(&seed) {
        sweep.seeds.push(seed);
    }
    sweep.duration_ms = state.duration_ms;
    sweep
}

fn spread(done: &Done, key: &str) -> Option<Spread> {
    let m = done.sweep.metrics.iter().position(|k| *k == key)?;
    let s = done.summary.iter().find(|s| s.metric == key)?;
    let values: Vec<f64> = done.points.iter().filter_map(|p| p.values[m]).collect();
    Some(Spread { median: s.median?, p10: s.p10?, p90: s.p90?, n: s.n, mode: mode(&values) })
}

/// The value at least half the seeds share, when every value is a whole number.
fn mode(values: &[f64]) -> Option<(f64, usize)> {
    if values.iter().any(|v| v.fract() != 0.0) {
        return None;
    }
    let best = values.iter().map(|v| (*v, values.iter().filter(|w| *w == v).count())).max_by_key(|(_, c)| *c)?;
    (best.1 * 2 >= values.len()).then_some(best)
}

impl Spread {
    /// "3 on 20 of 20 seeds" or "20 seeds: 1,310–1,720" (10th to 90th percentile).
    pub fn text(&self) -> String {
        match self.mode {
            Some((v, count)) => format!("{} on {count} of {} seeds", format::number(v), self.n),
            None => format!("{} seeds: {}–{}", self.n, format::number(self.p10), format::number(self.p90)),
        }
    }

    /// The same in full, for the card's tooltip and screen readers.
    pub fn detail(&self, unit: &str) -> String {
        format!(
            "Over {} seeds: median {} {unit}, 10th percentile {}, 90th percentile {}.",
            self.n,
            format::number(self.median),
            format::number(self.p10),
            format::number(self.p90)
        )
    }
}
