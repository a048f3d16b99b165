//! The slow-server page: predict, then watch B's queue and p99 under the balancing policy.
//! Every sentence of explanation is the run's own reading (`scenarios::slow_server::reading`).

mod picture;

use leptos::prelude::*;
use picture::at_each_server;

use crate::format;
use crate::scenarios::slow_server::{PREDICTIONS, SAMPLE_EVERY, SlowServer, SlowServerConfig, SlowServerMetrics, server_name, SlowServerWords};
use crate::sim::{Config, Host, Micros, Model, Simulation};
use crate::ui::kit::chart::slot;
use crate::ui::kit::predict::Predict;
use crate::ui::kit::{Chart, ChartData, Lead, Line, Metrics, Part, Role, SimLayout, SimState, StatCard, Tone, Verdict};
use crate::ui::runner::Runner;

/// How long after the slowdown the answer may be shown: long enough for B's queue to show.
const REVEAL_AFTER: Micros = 2_000_000;

/// The parameters the chapter asks about: the policy, B's slowdown, the client timeout.
const CHAPTER_CONTROLS: &[&str] = &[SlowServerConfig::policy, SlowServerConfig::slowdown, SlowServerConfig::timeout_ms];

pub fn page(state: SimState) -> AnyView {
    view! { <SlowServerPage state/> }.into_any()
}

/// What happens to B in this run, in the chapter's words, with the chapter's own setting named
/// as the chapter's: "Server B becomes 5× slower at 1 s but stays healthy (the chapter's run)."
fn setup_sentence(c: &SlowServerConfig, chapter: &SlowServerConfig) -> String {
    if c.servers < 2 {
        return "There is one server, so there is no B to slow down.".into();
    }
    let at = format::secs(c.slow_at_ms / 1000.0);
    if c.b_fails {
        return format!(
            "Server B goes down at {at}; failing health checks eject it after {}.",
            format::secs(c.eject_after_ms / 1000.0)
        );
    }
    let chapters = if c.slowdown == chapter.slowdown && c.slow_at_ms == chapter.slow_at_ms {
        " (the chapter's setting)".to_string()
    } else {
        format!(
            " (in the chapter: {}× at {})",
            format::plain(chapter.slowdown),
            format::secs(chapter.slow_at_ms / 1000.0)
        )
    };
    if c.slowdown <= 1.0 {
        return format!("Server B keeps its speed: a slowdown of ×1 changes nothing{chapters}.");
    }
    format!("Server B becomes {}× slower at {at} but stays healthy{chapters}.", format::plain(c.slowdown))
}

#[component]
fn SlowServerPage(state: SimState) -> impl IntoView {
    let runner = state.runner::<SlowServer>(SAMPLE_EVERY);
    let metrics = Metrics::provide(state.scenario, runner);
    let ready = Signal::derive(move || runner.track(|s| s.now() >= s.slow_at() + REVEAL_AFTER));
    let finished = Signal::derive(move || runner.track(|s| s.finished()));
    let outcome = Signal::derive(move || Some(metrics.said(SlowServerWords::prediction)).filter(|p| !p.is_empty()));
    let answer = Signal::derive(move || format!("{} {}", metrics.said(SlowServerWords::ratio), metrics.said(SlowServerWords::answer)));
    let chapter = SlowServerConfig::from_params(&state.scenario.defaults());
    let config = Memo::new(move |_| state.params.with(SlowServerConfig::from_params));
    let setup = Signal::derive(move || config.with(|c| setup_sentence(c, &chapter)));
    let intro = Signal::derive(move || {
        let policy = config.with(|c| c.policy.label().to_ascii_lowercase());
        format!("{} Predict what happens to p99 under {policy}, then watch B's queue.", setup.get())
    });
    let question = Signal::derive(move || {
        let policy = config.with(|c| c.policy.label().to_ascii_lowercase());
        format!("{} Predict: under {policy}, what happens to p99?", setup.get())
    });
    // The figure's verdict, as the scenario's caption declares it.
    let (verdict_key, verdict) = metrics.verdict();
    let parts = vec![
        Part::new("picture", Role::Chart, move || view! { <picture::QueuePicture state runner/> }),
        Part::new("cards", Role::Cards, move || view! { <Stats metrics/> }),
        Part::new("queues", Role::Chart, move || view! { <QueueChart runner/> }).in_group("charts-grid"),
        Part::new("latency", Role::Chart, move || view! { <LatencyChart runner metrics config/> }).in_group("charts-grid"),
        Part::new("in-flight", Role::Chart, move || view! { <InFlightChart runner/> }).in_group("charts-grid"),
        Part::new("verdict", Role::Verdict, move || view! { <Verdict text={verdict} figure=state.embed {..} data-verdict="" data-reading=verdict_key/> })
            .figure_only(),
    ];
    view! {
        <SimLayout state runner parts chapter_controls=CHAPTER_CONTROLS intro>
            <Lead slot>
                <Predict question options=PREDICTIONS ready finished outcome answer reading=&[SlowServerWords::ratio.key, SlowServerWords::answer.key]/>
            </Lead>
        </SimLayout>
    }
}

#[component]
fn Stats(metrics: Metrics<SlowServer>) -> impl IntoView {
    let ratio_note = Signal::derive(move || {
        let ratio = metrics.num(SlowServerMetrics::p99_ratio).map(|r| format!("{} of before", format::times(r)));
        let waiting = metrics
            .num(SlowServerMetrics::after_waiting)
            .filter(|n| *n > 0.0)
            .map(|n| format!("counts {} still waiting", format::count(n as u64)));
        let timeouts =
            metrics.num(SlowServerMetrics::timed_out_pct).filter(|p| *p > 0.0).map(|p| format!("{} timed out", format::pct(p)));
        [ratio, waiting, timeouts].into_iter().flatten().collect::<Vec<_>>().join("; ")
    });
    let before_note = Signal::derive(move || match metrics.num(SlowServerMetrics::before_count) {
        Some(n) if n > 0.0 => format!("from {}", format::counted(n as u64, "request", "requests")),
        _ => String::new(),
    });
    let little_note = Signal::derive(move || match metrics.num(SlowServerMetrics::littles_law_now) {
        Some(l) => format!("Little's law: {}", format::number(l)),
        None => String::new(),
    });
    let b_tone = Signal::derive(move || Tone::bad_if(metrics.num(SlowServerMetrics::b_queue).unwrap_or(0.0) > 20.0));
    view! {
        <div class="stats">
            <StatCard metrics key=SlowServerMetrics::p99_ms_now/>
            // The cards the words quote (spec::QUOTES) change with the words: one moment in both.
            <StatCard metrics key=SlowServerMetrics::p99_ms_before note=before_note/>
            <StatCard metrics key=SlowServerMetrics::p99_ms_after_with_waiting note=ratio_note/>
            <StatCard metrics key=SlowServerMetrics::b_queue tone=b_tone/>
            <StatCard metrics key=SlowServerMetrics::in_flight_end note=little_note/>
            <StatCard metrics key=SlowServerMetrics::timed_out/>
            <StatCard metrics key=SlowServerMetrics::completed/>
        </div>
    }
}

/// B slowing down (or going down) and B's ejection, as chart markers; none for a slowdown of ×1,
/// which changes nothing.
fn markers(s: &Host<SlowServer>) -> Vec<(f64, String)> {
    let c = s.config();
    if c.servers < 2 {
        return Vec::new();
    }
    let at = s.slow_at() as f64 / 1000.0;
    let mut m = Vec::new();
    if c.b_fails {
        m.push((at, "B goes down".to_string()));
    } else if c.slowdown > 1.0 {
        m.push((at, format!("B ×{} slower", format::plain(c.slowdown))));
    }
    if let Some(e) = s.ejected_at() {
        m.push((e as f64 / 1000.0, "B ejected".to_string()));
    }
    m
}

fn x_range(s: &Host<SlowServer>) -> (f64, f64) {
    (0.0, s.end() as f64 / 1000.0)
}

#[component]
fn QueueChart(runner: Runner<SlowServer>) -> impl IntoView {
    let data = Signal::derive(move || {
        runner.track(|s| {
            let q = &s.charts().queues;
            let lines = (0..s.config().servers)
                .map(|i| Line::of(q, format!("Server {}", server_name(i)), i, |r| r.depth[i]))
                .collect();
            ChartData { x_range: x_range(s), lines, markers: markers(s), y_min_max: 5.0, ..Default::default() }
        })
    });
    let summary = Signal::derive(move || runner.track(at_each_server));
    view! { <Chart id="chart-queues" title="Requests at each server (queue + in service)" data summary/> }
}

/// What "before" means in this run, restated from the settings as the ratio sentence does: a
/// ×1 slowdown changes nothing, so the "before" window is only the run's first moments.
fn before_words(c: &SlowServerConfig) -> String {
    if c.b_fails {
        "before B went down".into()
    } else if c.slowdown > 1.0 {
        "before the slowdown".into()
    } else {
        format!("in the first {}", format::secs(c.slow_at_ms / 1000.0))
    }
}

#[component]
fn LatencyChart(runner: Runner<SlowServer>, metrics: Metrics<SlowServer>, config: Memo<SlowServerConfig>) -> impl IntoView {
    let data = Signal::derive(move || {
        runner.track(|s| {
            let l = &s.charts().latency;
            ChartData {
                x_range: x_range(s),
                y_unit: "ms",
                lines: vec![
                    Line::of(l, "p50 (last 1 s)", slot::GREEN, |r| r.p50_ms),
                    Line::of(l, "p99 (last 1 s)", slot::RED, |r| r.p99_ms),
                ],
                markers: markers(s),
                log_y: true,
                y_min_max: 10.0,
                ..Default::default()
            }
        })
    });
    let summary = Signal::derive(move || match (metrics.num(SlowServerMetrics::p99_ms_before), metrics.num(SlowServerMetrics::p99_ms_now)) {
        (Some(b), Some(n)) => {
            let before = config.with(before_words);
            format!("p99 was {} {before} and is {} over the last second.", format::ms(b), format::ms(n))
        }
        _ => "No request has finished yet.".to_string(),
    });
    view! { <Chart id="chart-latency" title="Latency percentiles over the last second (log scale)" data summary/> }
}

#[component]
fn InFlightChart(runner: Runner<SlowServer>) -> impl IntoView {
    let data = Signal::derive(move || {
        runner.track(|s| {
            let f = &s.charts().in_flight;
            ChartData {
                x_range: x_range(s),
                lines: vec![
                    Line::of(f, "In flight", slot::BLUE, |r| r.in_flight),
                    Line::of(f, "Little's law: rate × mean latency (last 1 s)", slot::ORANGE, |r| r.littles_law)
                        .dashed(),
                ],
                markers: markers(s),
                y_min_max: 5.0,
                ..Default::default()
            }
        })
    });
    let summary = Signal::derive(move || {
        runner.track(|s| match s.littles_law_now() {
            Some(l) => format!(
                "{} in flight; Little's law predicts {} from the last second.",
                format::counted(s.in_flight(), "request", "requests"),
                format::number(l)
            ),
            None => format!("{} in flight.", format::counted(s.in_flight(), "request", "requests")),
        })
    });
    view! {
        <div>
            <Chart id="chart-in-flight" title="Requests in flight vs Little's law" data summary/>
            <p class="help">
                "Little's law (in flight = arrival rate × time in the system) holds while the system is steady. "
                "Once B's queue grows, the requests stuck in it have not finished, so the latency of those that did "
                "understates the wait, and the dashed line lags behind the solid one."
            </p>
        </div>
    }
}
