//! The dependency's latency distribution as a tail: of 10,000 calls, how many are slower than
//! each latency (log scale), with p50, p99, p99.9 and the timeout marked on it.

use leptos::prelude::*;

use crate::format;
use crate::scenarios::choosing_numbers::{ChoosingNumbers, ChoosingNumbersConfig, Latency};
use crate::sim::{Host, Model};
use crate::ui::kit::chart::{XAxis, nice_step, slot};
use crate::ui::kit::{Chart, ChartData, Line, SimState};
use crate::ui::runner::Runner;

/// Calls are counted per this many.
const PER: f64 = 10_000.0;
const POINTS: usize = 160;

/// The fitted tail from 0 to `to` ms, cut where it falls under 1 call in 100,000.
fn tail_line(l: &Latency, to: f64, label: String, color: usize) -> Line {
    let (mut xs, mut ys) = (Vec::with_capacity(POINTS), Vec::with_capacity(POINTS));
    for i in 0..=POINTS {
        let x = to * i as f64 / POINTS as f64;
        let y = PER * l.tail(x);
        if y < 0.1 {
            break;
        }
        xs.push(x);
        ys.push(y);
    }
    Line { label, color, xs, ys, dashed: false }
}

/// The x range: past p99.9 and the timeout, so both are on the chart.
fn x_max(s: &Host<ChoosingNumbers>) -> f64 {
    let l = s.latency();
    let d = s.drifted_latency();
    let t = s.config().timeout_ms;
    let far = (l.p999_ms.max(d.p999_ms) * 1.3).max(t * 1.15);
    let step = nice_step(far, 5.0);
    libm::ceil(far / step) * step
}

pub fn data(s: &Host<ChoosingNumbers>) -> ChartData {
    let l = s.latency();
    let c = s.config();
    let to = x_max(s);
    let mut lines = vec![tail_line(l, to, "Healthy (fitted)".to_string(), slot::BLUE)];
    if s.drift_at().is_some() {
        let label = format!("After the drift (p99 {})", format::ms(s.drifted_latency().p99_ms));
        lines.push(Line { dashed: true, ..tail_line(s.drifted_latency(), to, label, slot::ORANGE) });
    }
    let mut markers = vec![
        (l.p50_ms, format!("p50 {}", format::ms(l.p50_ms))),
        (l.p99_ms, format!("p99 {}", format::ms(l.p99_ms))),
        (l.p999_ms, format!("p99.9 {}", format::ms(l.p999_ms))),
    ];
    if c.timeout_ms > 0.0 {
        markers.push((c.timeout_ms, format!("timeout {}", format::ms(c.timeout_ms))));
    }
    ChartData {
        x_range: (0.0, to),
        x_axis: XAxis::Value("ms"),
        y_unit: "of 10,000",
        lines,
        markers,
        log_y: true,
        y_min_max: PER,
        ..Default::default()
    }
}

fn summary(s: &Host<ChoosingNumbers>) -> String {
    let l = s.latency();
    let t = s.config().timeout_ms;
    let at = if t > 0.0 {
        format!(" At the {} timeout, {} calls in 10,000 are slower.", format::ms(t), format::number(PER * l.tail(t)))
    } else {
        " No timeout is set.".to_string()
    };
    format!(
        "The dependency's latency: p50 {}, p99 {}, p99.9 {}.{at}",
        format::ms(l.p50_ms),
        format::ms(l.p99_ms),
        format::ms(l.p999_ms)
    )
}

#[component]
pub fn Distribution(runner: Runner<ChoosingNumbers>, state: SimState) -> impl IntoView {
    // The curve depends on the settings only: it is rebuilt when the run is, not every frame.
    let chart = Memo::new(move |_| runner.track(data));
    let summary = Signal::derive(move || runner.track(summary));
    // A press or a drag on the chart moves the timeout, as its slider does.
    let drag = Callback::new(move |ms: f64| {
        let id = ChoosingNumbersConfig::timeout_ms;
        let mut next = state.params.get_untracked();
        next.set(id, ms);
        // A move within one step of the slider changes nothing: the run is not restarted.
        if next.get(id) != state.params.with_untracked(|p| p.get(id)) {
            state.params.set(next);
            runner.rebuild_in_place();
        }
    });
    view! {
        <Chart
            id="chart-latency"
            title="Calls in 10,000 slower than each latency (log scale); drag on it to move the timeout"
            data=chart.into()
            summary
            drag
        />
    }
}
