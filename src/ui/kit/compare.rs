//! Compare view: the page's settings run once per option of one choice parameter, a column
//! per option, side by side on the same seed and played in step with the page's clock. Each
//! column shows stat cards of chosen metrics (label, unit and help from the declaration, and the
//! spread of the column's own settings over seeds), a line of the column's own reading, and a chart; the charts share one y scale, and the first
//! one carries the legend for all. Nothing here knows a scenario: a page names the parameter, the options, the
//! metrics and how to chart one run.

use leptos::prelude::*;

use super::spread::Spreads;
use super::{Chart, ChartData, Metrics, StatCard, Tone};
use crate::sim::params::Config;
use crate::sim::{Explain, Host, Metric, Micros, ParamKind, Simulation, Word};
use crate::ui::kit::SimState;
use crate::ui::runner::{EVENTS_PER_FRAME, Runner};

/// What a page compares and how each column shows it.
pub struct CompareSpec<M: Explain> {
    /// The choice parameter whose options are compared (its id in the declaration).
    pub param: &'static str,
    /// The options shown, by id, in order (empty: all of them).
    pub options: &'static [&'static str],
    /// The metrics each column shows as stat cards.
    pub cards: &'static [Metric<M::Metrics>],
    /// The sentence of the words shown under the cards.
    pub line: Word<M::Words>,
    /// The cards' tone, from their column's metrics.
    pub tone: Option<fn(&Metrics<M>) -> Tone>,
    pub chart_title: &'static str,
    /// One run's chart, its y axis at least `y_top` high (the columns' shared scale).
    pub chart: fn(&Host<M>, f64) -> ChartData,
    /// The highest y one run's chart needs, for the shared scale.
    pub tallest: fn(&Host<M>) -> f64,
}

/// The settings every column starts from: the running run's values, its seed and its end.
#[derive(Clone, PartialEq)]
struct Settings {
    values: Vec<f64>,
    seed: u64,
    end: Micros,
}

/// One column: which option, its index in the parameter, and its run.
struct Column<M: Explain> {
    id: &'static str,
    label: &'static str,
    index: usize,
    runner: Runner<M>,
}

impl<M: Explain> Clone for Column<M> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<M: Explain> Copy for Column<M> {}

/// The button that shows the comparison, and the comparison while it is shown.
#[component]
pub fn Compare<M: Explain>(
    state: SimState,
    runner: Runner<M>,
    spec: &'static CompareSpec<M>,
    /// The button's label while the comparison is hidden.
    label: &'static str,
    /// A sentence under the button while it is shown (what is compared, on which settings).
    help: &'static str,
) -> impl IntoView {
    let on = RwSignal::new(false);
    view! {
        <button
            class="compare-toggle"
            data-action="compare"
            aria-pressed=move || on.get().to_string()
            // Only name the view while it exists: a reference to a missing id is invalid ARIA.
            aria-controls=move || on.get().then_some("compare-view")
            on:click=move |_| on.update(|c| *c = !*c)
        >
            {move || if on.get() { "Hide the comparison" } else { label }}
        </button>
        <Show when=move || on.get()>
            <section id="compare-view" class="compare" aria-label=label>
                <p class="help">{help}</p>
                <Columns state runner spec/>
            </section>
        </Show>
    }
}

#[component]
fn Columns<M: Explain>(state: SimState, runner: Runner<M>, spec: &'static CompareSpec<M>) -> impl IntoView {
    let scenario = state.scenario;
    let param_index = scenario.params.iter().position(|p| p.id == spec.param).expect("a declared choice parameter");
    let ParamKind::Choice(options) = scenario.params[param_index].kind else {
        panic!("{}: {} is not a choice", scenario.id, spec.param)
    };
    let running = move || runner.track(|s| Settings { values: s.config().to_values(), seed: 0, end: s.end() });
    let settings = StoredValue::new(Settings { seed: state.seed.get_untracked(), ..running() });
    let columns: Vec<Column<M>> = options
        .iter()
        .enumerate()
        .filter(|(_, o)| spec.options.is_empty() || spec.options.contains(&o.id))
        .map(|(index, o)| {
            let build = move || {
                let mut s = settings.get_value();
                s.values[param_index] = index as f64;
                Host::<M>::start(M::Config::from_values(&s.values), s.seed, s.end)
            };
            Column { id: o.id, label: o.label, index, runner: Runner::new(build, 1.0, 0) }
        })
        .collect();
    keep_in_step(state, runner, settings, columns.clone());
    let top = Memo::new({
        let columns = columns.clone();
        move |_| columns.iter().map(|c| c.runner.track(spec.tallest)).fold(0.0, f64::max)
    });
    let current = Memo::new(move |_| runner.track(|s| s.config().to_values()[param_index] as usize));
    view! {
        <div class="compare-grid">
            {columns
                .into_iter()
                .enumerate()
                .map(|(i, c)| view! { <CompareColumn state column=c spec top current legend=i == 0/> })
                .collect_view()}
        </div>
    }
}

/// Rebuilds the columns when the running run's settings change, and moves them to the page's
/// clock every frame (a few frames at most after a skip to the end of a long run).
fn keep_in_step<M: Explain>(
    state: SimState,
    runner: Runner<M>,
    settings: StoredValue<Settings>,
    columns: Vec<Column<M>>,
) {
    let catch_up = RwSignal::new(0u64);
    Effect::new(move |_| {
        catch_up.track();
        let (values, end) = runner.track(|s| (s.config().to_values(), s.end()));
        let wanted = Settings { values, seed: state.seed.get(), end };
        if settings.with_value(|s| *s != wanted) {
            settings.set_value(wanted);
            columns.iter().for_each(|c| c.runner.rebuild());
        }
        let now = runner.clock().0;
        let mut behind = false;
        for c in &columns {
            behind |= !c.runner.follow(now, EVENTS_PER_FRAME);
        }
        if behind {
            request_animation_frame(move || {
                let _ = catch_up.try_update(|n| *n += 1);
            });
        }
    });
}

#[component]
fn CompareColumn<M: Explain>(
    state: SimState,
    column: Column<M>,
    spec: &'static CompareSpec<M>,
    top: Memo<f64>,
    current: Memo<usize>,
    /// Whether this column's chart carries the legend (one legend serves every column).
    legend: bool,
) -> impl IntoView {
    let runner = column.runner;
    // The column's cards show the spread of the column's own settings, not the page's.
    if let Some(page) = use_context::<Spreads>() {
        let index = column.index as f64;
        let params = Signal::derive(move || {
            let mut p = state.params.get();
            p.set(spec.param, index);
            p
        });
        page.provide_for_column(state, params);
    }
    let metrics = Metrics::new(state.scenario, runner);
    let tone = Signal::derive(move || spec.tone.map_or(Tone::Plain, |f| f(&metrics)));
    let is_current = move || current.get() == column.index;
    let data = Signal::derive(move || {
        let top = top.get();
        runner.track(|s| if legend { (spec.chart)(s, top) } else { unlabelled((spec.chart)(s, top)) })
    });
    let line = metrics.said_signal(spec.line);
    let summary = Signal::derive(move || format!("{}: {}", column.label, line.get()));
    view! {
        <section class="compare-col" class:current=is_current data-compare=column.id>
            <h3>
                {column.label}
                <span class="badge" hidden=move || !is_current()>"this run's setting"</span>
            </h3>
            <div class="stats">
                {spec.cards.iter().map(|&key| view! { <StatCard metrics key tone/> }).collect_view()}
            </div>
            <p class="compare-detail">{move || line.get()}</p>
            <Chart title=spec.chart_title data summary/>
        </section>
    }
}

/// The chart without its legend (the comparison draws one legend for every column).
fn unlabelled(mut data: ChartData) -> ChartData {
    data.lines.iter_mut().for_each(|l| l.label.clear());
    if let Some(b) = &mut data.bars {
        b.stacks.iter_mut().for_each(|s| s.0.clear());
    }
    data
}
