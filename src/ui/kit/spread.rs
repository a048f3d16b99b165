//! Is the number on the card typical or luck? Once the parameters settle, the page runs the same
//! settings on seeds 1 to 20 (and the reader's) in the background, and each headline stat card
//! shows its metric's spread over them, saying what it is: the middle 80% of the seeds (10th to
//! 90th percentile; whole numbers for a count), or, for a count or a yes/no that comes out the
//! same on most seeds, on how many seeds it does. While the page's question is open (a
//! prediction not yet answered, a question the run has not yet answered), the spreads stay
//! hidden: they would give the answer away. A compare view's column has spreads of its own.

use std::time::Duration;

use leptos::prelude::*;

use super::background::{Background, Done};
use super::state::SimState;
use crate::format;
use crate::sim::{ParamKind, Params, ScenarioSpec, Value};
use crate::sweep::Sweep;

/// Seeds 1 to this, plus the reader's.
pub const SPREAD_SEEDS: u64 = 20;
/// How long the parameters must stay unchanged before the spread is computed.
const SETTLE: Duration = Duration::from_millis(400);

/// The spread of every headline metric, shared with the stat cards by context.
#[derive(Clone, Copy)]
pub struct Spreads {
    runs: Background,
    /// Whether the page's question is still open (its spreads are hidden meanwhile).
    question: RwSignal<Option<Signal<bool>>>,
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
    /// Every seed gave a whole number (a count): the range reads in whole numbers.
    pub whole: bool,
}

impl Spreads {
    /// Starts the spreads for `state` and shares them with the page's stat cards.
    pub fn provide(state: SimState) -> Self {
        let seed = state.seed;
        let spreads = Self::start(state.scenario, state.params.into(), seed.into(), state.duration_ms);
        provide_context(spreads);
        spreads
    }

    /// The spreads of a compare view's column: its own settings, the page's seed and question.
    pub fn provide_for_column(&self, state: SimState, params: Signal<Params>) -> Self {
        let spreads = Self {
            question: self.question,
            ..Self::start(state.scenario, params, state.seed.into(), state.duration_ms)
        };
        provide_context(spreads);
        spreads
    }

    fn start(
        scenario: &'static ScenarioSpec,
        params: Signal<Params>,
        seed: Signal<u64>,
        duration_ms: Option<u64>,
    ) -> Self {
        let runs = Background::new();
        let pending = StoredValue::new_local(None::<TimeoutHandle>);
        Effect::new(move |_| {
            let params = params.get();
            let seed = seed.get();
            runs.stop(); // what was shown belongs to the old settings
            if let Some(h) = pending.get_value() {
                h.clear();
            }
            let sweep = spread_sweep(scenario, params, seed, duration_ms);
            let handle = set_timeout_with_handle(move || runs.start(sweep), SETTLE).ok();
            pending.set_value(handle);
        });
        on_cleanup(move || {
            // The settle timer must not start runs for a part that is gone.
            if let Some(Some(h)) = pending.try_get_value() {
                h.clear();
            }
            runs.stop();
        });
        Self { runs, question: RwSignal::new(None) }
    }

    /// Hides the spreads while `open` (the page's question is not answered yet): they would
    /// answer it.
    pub fn hide_while(&self, open: Signal<bool>) {
        self.question.set(Some(open));
    }

    /// Whether the page's question is still open (tracked).
    fn held(&self) -> bool {
        self.question.with(|q| q.is_some_and(|open| open.get()))
    }

    /// "The ranges under the cards: …", once they are computed (tracked).
    pub fn note(&self) -> Option<String> {
        if self.held() {
            return Some(format!(
                "Ranges over {SPREAD_SEEDS} seeds appear under the cards once the question above is answered."
            ));
        }
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

    /// The spread of `key` once computed and while the page's question is not open (tracked).
    pub fn of(&self, key: &str) -> Option<Spread> {
        if self.held() {
            return None;
        }
        self.runs.done.with(|d| d.as_ref().and_then(|d| spread(d, key)))
    }
}

/// The same settings on seeds 1..=20 and the reader's, every headline metric.
fn spread_sweep(scenario: &'static ScenarioSpec, params: Params, seed: u64, duration_ms: Option<u64>) -> Sweep {
    let x = scenario.params.iter().find(|p| p.kind == ParamKind::Number).expect("a scenario has a number parameter");
    let v = params.values()[scenario.params.iter().position(|p| p.id == x.id).unwrap_or(0)];
    let mut sweep = Sweep::new(scenario, params, (x.id, v, v, 1), None, SPREAD_SEEDS as usize, scenario.headline)
        .expect("headline metrics are declared (tested)");
    if !sweep.seeds.contains(&seed) {
        sweep.seeds.push(seed);
    }
    sweep.duration_ms = duration_ms;
    sweep
}

fn spread(done: &Done, key: &str) -> Option<Spread> {
    let m = done.sweep.metrics.iter().position(|k| *k == key)?;
    let s = done.summary.iter().find(|s| s.metric == key)?;
    let values: Vec<f64> = done.points.iter().filter_map(|p| p.values[m]).collect();
    let whole = values.iter().all(|v| v.fract() == 0.0);
    Some(Spread { median: s.median?, p10: s.p10?, p90: s.p90?, n: s.n, mode: mode(&values), whole })
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
    /// What the card shows: "3 on 20 of 20 seeds", "yes on 18 of 20 seeds" (`yes_no`: a yes/no
    /// metric, 1 for yes), or "middle 80% of 20 seeds: 1,310–1,720" (the 10th to the 90th
    /// percentile, in whole numbers for a count), each value as the card shows its own in `unit`
    /// ("301 s on 20 of 20 seeds" under a card of 301 s, not its 301,002 ms).
    pub fn text(&self, yes_no: bool, unit: &'static str) -> String {
        let n = self.n;
        match self.mode {
            Some((v, count)) if yes_no => format!("{} on {count} of {n} seeds", if v == 1.0 { "yes" } else { "no" }),
            Some((v, count)) => format!("{} on {count} of {n} seeds", as_card(v, unit)),
            None => {
                let (low, high) = self.range(unit);
                if low == high {
                    format!("middle 80% of {n} seeds: {low}")
                } else {
                    format!("middle 80% of {n} seeds: {low}–{high}")
                }
            }
        }
    }

    /// The 10th and 90th percentiles as the card shows them.
    fn range(&self, unit: &'static str) -> (String, String) {
        let shown = |v: f64| as_card(if self.whole { libm::round(v) } else { v }, unit);
        (shown(self.p10), shown(self.p90))
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

/// A value as its card shows it: a bare number in the card's own unit, or with the unit the
/// card changed to ("301 s" for 301,002 ms, "$149.97" for cents).
fn as_card(v: f64, unit: &'static str) -> String {
    // Value::Num, not Value::num: that rounds to 0.1 first, and 298.45 would then read 299.
    match format::quantity(&Value::Num(v), unit) {
        (n, u) if u.is_empty() || u == format::unit_for(v, unit) => n,
        (n, u) => format!("{n} {u}"),
    }
}
