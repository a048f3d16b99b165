//! The cascade's charts: /home in flight (the headline: Little's law with a wait that never
//! ends), connections in use, calls queued for a shared connection, /checkout outcomes. Each
//! summary is words: it reads the moment the verdict and the cards' notes read, and names it.

use leptos::prelude::*;

use crate::format;
use crate::scenarios::cascade::Cascade;
use crate::sim::{Host, Micros, Simulation};
use crate::ui::kit::chart::slot;
use crate::ui::kit::{Chart, ChartData, Line};
use crate::ui::runner::Runner;

/// The time axis: it widens in round steps (1, 2, 5, 10, 20, 50 s…) as the run goes on, so the
/// first second, which holds the whole collapse, is not a sliver of a long run, and a ten-minute
/// run still ends up whole.
pub fn x_range(now: Micros, end: Micros) -> (f64, f64) {
    let (now_ms, end_ms) = (now as f64 / 1000.0, end as f64 / 1000.0);
    let mut span = 1_000.0;
    let mut k = 0;
    while span < now_ms && span < end_ms {
        span *= if k % 3 == 1 { 2.5 } else { 2.0 };
        k += 1;
    }
    (0.0, span.min(end_ms))
}

fn range(s: &Host<Cascade>) -> (f64, f64) {
    x_range(s.now(), s.end())
}

/// Recommendations stopping (or slowing down), the pool filling, the load stopping.
fn markers(s: &Host<Cascade>, with_pool_full: bool) -> Vec<(f64, String)> {
    let ms = |t: Micros| t as f64 / 1000.0;
    let mut m = Vec::new();
    let stop = ms(s.recs_stops_at());
    if stop > 0.0 && stop < ms(s.end()) {
        let what = if s.recs_slow().is_some() { "recommendations slows" } else { "recommendations stops" };
        m.push((stop, what.to_string()));
    }
    if let Some(t) = s.pool_exhausted_at().filter(|_| with_pool_full) {
        m.push((ms(t), "pool full".to_string()));
    }
    if s.load_end() < s.end() {
        m.push((ms(s.load_end()), "load stops".to_string()));
    }
    m
}

#[component]
pub fn HomeChart(runner: Runner<Cascade>) -> impl IntoView {
    let data = Signal::derive(move || {
        runner.track(|s| ChartData {
            x_range: range(s),
            lines: vec![Line::of(&s.charts().home_in_flight, "/home handlers in flight", slot::BLUE, |r| r.in_flight)],
            markers: markers(s, true),
            y_min_max: 20.0,
            ..Default::default()
        })
    });
    let summary = Signal::derive(move || {
        runner.track_words(|s| {
            let c = s.counts();
            format!(
                "{} /home handlers in flight at {}; {} answered.",
                format::count(c.home_in_flight),
                format::seconds(s.now()),
                format::count(c.home_done)
            )
        })
    });
    view! { <Chart id="chart-home" title="/home handlers in flight" data summary/> }
}

/// Each pool's limit as a reference line (one line when both pools have the same).
fn limits(s: &Host<Cascade>) -> Vec<(f64, String)> {
    let shared = s.shared_pool().limit();
    let recs = s.recs_pool().and_then(|p| p.limit());
    match (shared, recs) {
        (Some(a), Some(b)) if a == b => vec![(a as f64, format!("each pool's limit, {a}"))],
        (a, b) => a
            .map(|l| (l as f64, format!("shared pool limit {l}")))
            .into_iter()
            .chain(b.map(|l| (l as f64, format!("recommendations pool limit {l}"))))
            .collect(),
    }
}

#[component]
pub fn PoolChart(runner: Runner<Cascade>) -> impl IntoView {
    let data = Signal::derive(move || {
        runner.track(|s| {
            let p = &s.charts().pool;
            let mut lines = vec![Line::of(p, "Shared pool in use", slot::BLUE, |r| r.shared_in_use)];
            match s.recs_pool() {
                None => lines.push(Line::of(p, "Held by recommendations", slot::RED, |r| r.shared_recs_held)),
                Some(_) => lines.push(Line::of(p, "Recommendations pool in use", slot::RED, |r| r.recs_in_use)),
            }
            if s.shared_pool().limit().is_none() || s.recs_pool().is_some() {
                lines.push(Line::of(p, "Open on the downstream", slot::GRAY, |r| r.downstream_open).dashed());
            }
            // No "pool full" marker here: the lines meeting the limit show it.
            ChartData {
                x_range: range(s),
                lines,
                markers: markers(s, false),
                hlines: limits(s),
                y_min_max: 5.0,
                ..Default::default()
            }
        })
    });
    let summary = Signal::derive(move || {
        runner.track_words(|s| {
            format!("Shared pool at {}: {}.", format::seconds(s.now()), s.shared_now().status(s.recs_pool().is_none()))
        })
    });
    view! { <Chart id="chart-pool" title="Connections in use" data summary/> }
}

#[component]
pub fn WaitingChart(runner: Runner<Cascade>) -> impl IntoView {
    let data = Signal::derive(move || {
        runner.track(|s| ChartData {
            x_range: range(s),
            lines: vec![Line::of(&s.charts().pool, "Calls waiting for a shared connection", slot::PURPLE, |r| {
                r.shared_waiting
            })],
            markers: markers(s, true),
            y_min_max: 5.0,
            ..Default::default()
        })
    });
    let summary = Signal::derive(move || {
        runner.track_words(|s| {
            let w = s.shared_pool().waiting();
            format!(
                "At {}, {} for a connection of the shared pool.",
                format::seconds(s.now()),
                format::counted(w.into(), "call waits", "calls wait")
            )
        })
    });
    view! { <Chart id="chart-waiting" title="Calls queued for a shared connection" data summary/> }
}

#[component]
pub fn CheckoutChart(runner: Runner<Cascade>) -> impl IntoView {
    let data = Signal::derive(move || {
        runner.track(|s| {
            let c = &s.charts().checkout;
            let first_failure = s.first_failed_at().map(|t| (t as f64 / 1000.0, "first failure".to_string()));
            ChartData {
                x_range: range(s),
                lines: vec![
                    Line::of(c, "Succeeded so far", slot::GREEN, |r| r.ok),
                    Line::of(c, "Failed so far", slot::RED, |r| r.failed),
                    Line::of(c, "Waiting now", slot::BLUE, |r| r.waiting).dashed(),
                ],
                markers: first_failure.into_iter().collect(),
                y_min_max: 10.0,
                ..Default::default()
            }
        })
    });
    let summary = Signal::derive(move || {
        runner.track_words(|s| {
            let c = s.counts();
            format!(
                "/checkout at {}: {} succeeded, {} failed, {} waiting, of {} sent.",
                format::seconds(s.now()),
                format::count(c.checkout_ok),
                format::count(c.checkout_failed),
                format::count(c.checkout_in_flight),
                format::count(c.checkout_arrived)
            )
        })
    });
    view! { <Chart id="chart-checkout" title="/checkout outcomes" data summary/> }
}
