//! The retry-storm charts: attempts per tick against the capacity (the chapter's chart, also
//! drawn in each comparison column), clients waiting to retry, and the clients as dots.

use leptos::prelude::*;

use crate::format;
use crate::scenarios::retry_storm::{ClientState, NEAR, RetryStorm, TICK, TickSample};
use crate::sim::{Host, Simulation};
use crate::ui::kit::chart::{Bars, slot, spoken_summary};
use crate::ui::kit::{Chart, ChartData, Line};
use crate::ui::runner::Runner;

fn attempts(r: &TickSample) -> f64 {
    r.served + r.rejected + r.failed
}

/// The most attempts in one charted row so far (the comparison's shared y scale).
pub fn tallest(s: &Host<RetryStorm>) -> f64 {
    let top = s.ticks().rows().iter().map(attempts).fold(0.0, f64::max);
    top.max(s.capacity() as f64 * NEAR) * 1.05
}

fn outage(s: &Host<RetryStorm>, label: &str) -> Vec<(f64, f64, String)> {
    let (from, until) = s.outage();
    if until > from { vec![(from as f64 / 1000.0, until as f64 / 1000.0, label.to_string())] } else { Vec::new() }
}

fn x_range(s: &Host<RetryStorm>) -> (f64, f64) {
    (0.0, s.end() as f64 / 1000.0)
}

/// Attempts per tick stacked by outcome, the capacity line, the outage shaded and the moment
/// the retries were over; the y axis at least `y_top` high.
pub fn attempts_chart(s: &Host<RetryStorm>, y_top: f64) -> ChartData {
    let t = s.ticks();
    let markers = s.recovered_at().map(|r| (r as f64 / 1000.0, "retries over".to_string())).into_iter().collect();
    ChartData {
        x_range: x_range(s),
        bars: Some(Bars {
            xs: t.times_ms().to_vec(),
            width: (s.ticks_per_row() * TICK) as f64 / 1000.0,
            stacks: vec![
                ("Served".to_string(), slot::GREEN, t.column(|r| r.served)),
                ("Rejected: over capacity (503)".to_string(), slot::RED, t.column(|r| r.rejected)),
                ("Failed: provider down".to_string(), slot::GRAY, t.column(|r| r.failed)),
            ],
        }),
        hlines: vec![(s.capacity() as f64, format!("capacity {} per tick", s.capacity()))],
        shaded: outage(s, "down"),
        markers,
        y_min_max: y_top.max(tallest(s)),
        ..Default::default()
    }
}

#[component]
pub fn AttemptsChart(runner: Runner<RetryStorm>) -> impl IntoView {
    let data = Signal::derive(move || runner.track(|s| attempts_chart(s, 0.0)));
    let summary = Signal::derive(move || runner.track(|s| s.attempts_chart_words()));
    // A long run charts a bar per few ticks, each as tall as the busiest of them.
    let per_bar = Memo::new(move |_| {
        runner.track(|s| match s.ticks_per_row() {
            1 => String::new(),
            n => format!("Each bar is the busiest 100 ms tick of {}.", format::seconds(n * TICK)),
        })
    });
    view! {
        <Chart id="chart-attempts" title="Attempts per 100 ms tick: served, rejected, failed" data summary/>
        <p class="help" data-per-bar hidden=move || per_bar.with(String::is_empty)>{move || per_bar.get()}</p>
    }
}

#[component]
pub fn WaitingChart(runner: Runner<RetryStorm>) -> impl IntoView {
    let data = Signal::derive(move || {
        runner.track(|s| {
            let t = s.ticks();
            ChartData {
                x_range: x_range(s),
                lines: vec![
                    Line::of(t, "Waiting to retry", slot::ORANGE, |r| r.waiting),
                    Line::of(t, "In a call", slot::BLUE, |r| r.in_flight).dashed(),
                ],
                shaded: outage(s, "provider down"),
                y_min_max: s.clients().len() as f64 * 1.15,
                ..Default::default()
            }
        })
    });
    let summary = Signal::derive(move || {
        runner.track(|s| {
            let c = s.counts();
            format!(
                "At {}: {} waiting to retry, {} in a call.",
                format::seconds(s.now()),
                format::counted(c.waiting, "client", "clients"),
                format::count(c.in_flight)
            )
        })
    });
    view! { <Chart id="chart-waiting" title="Clients waiting to retry, and in a call" data summary/> }
}

fn dot_class(state: ClientState) -> &'static str {
    match state {
        ClientState::InFlight => "dot in-call",
        ClientState::WaitingToRetry => "dot waiting",
        ClientState::Idle => "dot idle",
    }
}

/// Sets the class of each dot whose client's state is not the one shown.
fn redot(strip: &web_sys::Element, shown: &[ClientState], now: &[ClientState]) {
    let mut dot = strip.first_element_child();
    for (was, is) in shown.iter().zip(now) {
        let Some(el) = dot else { return };
        if was != is {
            el.set_class_name(dot_class(*is));
        }
        dot = el.next_element_sibling();
    }
}

/// Every client as a dot coloured by what it is doing now. The dots are one string of markup
/// (far less code than a view per dot), written when their number changes; after that a frame
/// changes the class of the dots whose client changed state, and nothing else (rewriting the
/// markup every frame made the browser build, style and lay out every dot anew).
#[component]
pub fn ClientsStrip(runner: Runner<RetryStorm>) -> impl IntoView {
    let states = Memo::new(move |_| runner.track(|s| s.clients().iter().map(|c| c.state()).collect::<Vec<_>>()));
    let strip = NodeRef::<leptos::html::Div>::new();
    Effect::new(move |shown: Option<Vec<ClientState>>| {
        let Some(el) = strip.get() else { return Vec::new() };
        states.with(|now| {
            match shown.filter(|shown| shown.len() == now.len()) {
                Some(shown) => redot(&el, &shown, now),
                None => el.set_inner_html(
                    &now.iter().map(|s| format!("<span class=\"{}\"></span>", dot_class(*s))).collect::<String>(),
                ),
            }
            now.clone()
        })
    });
    let counts = Memo::new(move |_| {
        let n = |want: ClientState| states.with(|v| v.iter().filter(|s| **s == want).count() as u64);
        [
            format!("{} in a call", format::count(n(ClientState::InFlight))),
            format!("{} waiting to retry", format::count(n(ClientState::WaitingToRetry))),
            format!("{} idle (thinking, or pausing after a failed action)", format::count(n(ClientState::Idle))),
        ]
    });
    let item = move |i: usize| move || counts.with(|c| c[i].clone());
    // At most once a second while the run plays, as a chart's summary.
    let spoken = spoken_summary(Signal::derive(move || counts.with(|c| c.join(", ") + ".")));
    view! {
        <figure class="clients-strip">
            <figcaption>"The clients now"</figcaption>
            <div class="dots" role="img" aria-label=spoken node_ref=strip></div>
            <ul class="legend">
                <li><span class="dot in-call"></span>{item(0)}</li>
                <li><span class="dot waiting"></span>{item(1)}</li>
                <li><span class="dot idle"></span>{item(2)}</li>
            </ul>
        </figure>
    }
}
