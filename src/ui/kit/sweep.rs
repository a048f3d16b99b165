//! The sweep view: the whole curve instead of one run. x is any numeric parameter, y any
//! metric, one line per option of a choice parameter, each point the median over K seeds with
//! its 10th–90th percentile band, and the reader's own setting marked. It recomputes in the
//! background whenever a setting changes, dropping the stale curve at once.

use std::time::Duration;

use leptos::prelude::*;

use super::background::{Background, Done};
use super::chart::{Band, Chart, ChartData, Line, XAxis};
use super::state::SimState;
use crate::format;
use crate::sim::{ParamKind, ScenarioSpec};
use crate::sweep::Sweep;
use crate::url::SweepView;

/// How many x values a sweep of a parameter other than the default one takes.
const STEPS: usize = 15;
const SEED_CHOICES: [usize; 5] = [1, 3, 5, 10, 20];
/// A slider being dragged restarts the sweep only once it rests this long.
const SETTLE: Duration = Duration::from_millis(250);

/// The sweep the view asks for, from the page's current settings.
fn sweep_for(state: SimState, view: SweepView) -> Option<Sweep> {
    let scenario = state.scenario;
    let d = scenario.sweep;
    let x = scenario.param(view.x)?;
    let (from, to, steps) = if view.x == d.x { (d.from, d.to, d.steps) } else { (x.min, x.max, STEPS) };
    let mut sweep = Sweep::new(
        scenario,
        state.params.get_untracked(),
        (view.x, from, to, steps),
        view.by,
        view.seeds,
        &[view.metric],
    )
    .ok()?;
    sweep.duration_ms = state.duration_ms;
    Some(sweep)
}

fn chart(done: &Done, current_x: f64) -> ChartData {
    let sweep = &done.sweep;
    let mut data = ChartData {
        x_range: (sweep.xs[0], *sweep.xs.last().unwrap_or(&sweep.xs[0])),
        x_axis: XAxis::Value(sweep.x.unit),
        y_unit: sweep.scenario.metric(sweep.metrics[0]).map_or("", |m| m.unit),
        markers: vec![(current_x, "your setting".to_string())],
        y_min_max: 1.0,
        ..Default::default()
    };
    for (color, by) in sweep.lines().into_iter().enumerate() {
        let line: Vec<_> = done.summary.iter().filter(|s| s.by == by).collect();
        let xs: Vec<f64> = line.iter().map(|s| s.x).collect();
        let at = |f: fn(&crate::sweep::Summary) -> Option<f64>| line.iter().map(|s| f(s).unwrap_or(f64::NAN)).collect();
        let label = match (sweep.by.map(|b| b.kind), by) {
            (Some(ParamKind::Choice(options)), Some(i)) => options[i].label.to_string(),
            _ => "Median".to_string(),
        };
        data.bands.push(Band { color, xs: xs.clone(), lo: at(|s| s.p10), hi: at(|s| s.p90) });
        data.lines.push(Line { label, color, xs, ys: at(|s| s.median), dashed: false });
    }
    data.log_y = spans_decades(&done.summary);
    data
}

/// A curve whose medians run over more than two decades reads better on a log scale.
fn spans_decades(summary: &[crate::sweep::Summary]) -> bool {
    let positive = summary.iter().filter_map(|s| s.median).filter(|m| *m > 0.0);
    let (lo, hi) = positive.fold((f64::INFINITY, 0.0f64), |(lo, hi), m| (lo.min(m), hi.max(m)));
    hi / lo > 100.0
}

#[component]
pub fn SweepPanel(state: SimState) -> impl IntoView {
    let scenario = state.scenario;
    let runs = Background::new();
    let pending = StoredValue::new_local(None::<TimeoutHandle>);
    Effect::new(move |_| {
        state.params.track();
        let Some(view) = state.sweep.get() else { return runs.stop() };
        runs.stop(); // never draw points of the old settings
        if let Some(h) = pending.get_value() {
            h.clear();
        }
        let start = move || {
            if let Some(s) = sweep_for(state, view) {
                runs.start(s);
            }
        };
        pending.set_value(set_timeout_with_handle(start, SETTLE).ok());
    });
    on_cleanup(move || {
        // The settle timer must not start runs for a part that is gone.
        if let Some(Some(h)) = pending.try_get_value() {
            h.clear();
        }
        runs.stop();
    });
    let current_x = move || {
        state
            .sweep
            .with(|v| v.and_then(|v| scenario.params.iter().position(|p| p.id == v.x)))
            .map_or(0.0, |i| state.params.with(|p| p.values()[i]))
    };
    let data =
        Signal::derive(move || runs.done.with(|d| d.as_ref().map(|d| chart(d, current_x())).unwrap_or_default()));
    let reading = move || runs.done.with(|d| d.as_ref().map(|d| d.sweep.reading(&d.summary)).unwrap_or_default());
    let summary = Signal::derive(move || reading().join(" "));
    view! {
        <section class="sweep" data-sweep aria-labelledby="sweep-title">
            <h2 id="sweep-title">"Sweep: the whole curve, over seeds"</h2>
            <SweepControls state/>
            <p class="help">
                "Each point is the median over the seeds; the band runs from the 10th to the 90th percentile. "
                "The curve follows every change you make above."
            </p>
            <Progress runs/>
            <Chart id="chart-sweep" title="The sweep" data summary/>
            <div class="sweep-reading" data-sweep-reading>
                {move || reading().into_iter().map(|r| view! { <p>{r}</p> }).collect_view()}
            </div>
        </section>
    }
}

#[component]
fn Progress(runs: Background) -> impl IntoView {
    view! {
        <p
            class="sweep-progress"
            role="status"
            data-sweep-ms=move || runs.done.with(|d| d.as_ref().map(|d| crate::sim::decimal::fixed(d.took_ms, 1)))
            data-sweep-progress=move || match (runs.progress.get(), runs.done.with(Option::is_some)) {
            (Some(_), _) => "running",
            (None, true) => "done",
            (None, false) => "waiting",
        }>
            {move || match runs.progress.get() {
                Some((done, total)) => view! {
                    <progress max=total value=done></progress>
                    " " {format!("{done} of {total} runs")}
                }
                .into_any(),
                None if runs.done.with(Option::is_some) => runs
                    .done
                    .with(|d| d.as_ref().map(|d| format!("{} runs in {}", d.points.len(), format::secs(d.took_ms / 1000.0))))
                    .into_any(),
                None => "Waiting for the settings to rest…".into_any(),
            }}
        </p>
    }
}

/// The three pickers and the seeds: what to sweep, what to plot, which lines.
#[component]
fn SweepControls(state: SimState) -> impl IntoView {
    let scenario: &'static ScenarioSpec = state.scenario;
    let view = move || state.sweep.get().unwrap_or_else(|| SweepView::default_for(scenario));
    let set = move |f: &dyn Fn(&mut SweepView)| {
        let mut v = view();
        f(&mut v);
        state.sweep.set(Some(v));
    };
    let numeric = scenario.params.iter().filter(|p| p.kind == ParamKind::Number);
    let choices = scenario.params.iter().filter(|p| matches!(p.kind, ParamKind::Choice(_)));
    view! {
        <div class="sweep-controls">
            <label>
                "x: "
                <select name="sweep_x" on:change=move |ev| {
                    let id = event_target_value(&ev);
                    if let Some(p) = scenario.param(&id) {
                        set(&|v| { v.x = p.id; });
                    }
                }>
                    {numeric.map(|p| view! { <option value=p.id selected=move || view().x == p.id>{p.label}</option> }).collect_view()}
                </select>
            </label>
            <label>
                "y: "
                <select name="sweep_metric" on:change=move |ev| {
                    let key = event_target_value(&ev);
                    if let Some(m) = scenario.metric(&key) {
                        set(&|v| { v.metric = m.key; });
                    }
                }>
                    {scenario.metrics.iter().map(|m| view! { <option value=m.key selected=move || view().metric == m.key>{m.label}</option> }).collect_view()}
                </select>
            </label>
            <label>
                "Lines: "
                <select name="sweep_by" on:change=move |ev| {
                    let id = event_target_value(&ev);
                    let by = scenario.param(&id).map(|p| p.id);
                    set(&|v| { v.by = by; });
                }>
                    <option value="none" selected=move || view().by.is_none()>"one line"</option>
                    {choices.map(|p| view! { <option value=p.id selected=move || view().by == Some(p.id)>{format!("one per option of: {}", p.label)}</option> }).collect_view()}
                </select>
            </label>
            <label>
                "Seeds per point: "
                <select name="sweep_seeds" on:change=move |ev| {
                    if let Ok(k) = event_target_value(&ev).parse::<usize>() {
                        set(&|v| { v.seeds = k; });
                    }
                }>
                    {SEED_CHOICES.iter().map(|&k| view! { <option value=k selected=move || view().seeds == k>{k}</option> }).collect_view()}
                </select>
            </label>
        </div>
    }
}

/// Opens and closes the sweep view.
#[component]
pub(super) fn SweepToggle(state: SimState) -> impl IntoView {
    let open = move || state.sweep.with(Option::is_some);
    let toggle = move |_| {
        state.sweep.update(|s| *s = if s.is_some() { None } else { Some(SweepView::default_for(state.scenario)) })
    };
    view! {
        <button class="sweep-toggle" data-action="sweep" aria-pressed=move || open().to_string() on:click=toggle>
            {move || if open() { "Hide the sweep" } else { "Sweep: see the whole curve over many runs" }}
        </button>
    }
}
