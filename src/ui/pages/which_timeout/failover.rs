//! Chapter 1, Break 5 on a chart: the calls of a failover through one pool, over the run. The
//! line of calls waiting for a connection climbs while the pool's connections hang on the old
//! address, and the answered calls climb once connects reach the new one.

use leptos::prelude::*;

use crate::format;
use crate::scenarios::which_timeout::{FleetSample, WhichTimeout};
use crate::sim::{Host, MS, Micros, Simulation};
use crate::ui::kit::chart::slot;
use crate::ui::kit::{Chart, ChartData, Line};
use crate::ui::runner::Runner;

fn ms(t: Micros) -> f64 {
    t as f64 / MS as f64
}

pub fn data(s: &Host<WhichTimeout>) -> ChartData {
    let f = s.failover();
    let (points, now) = (f.samples(), f.state());
    // The series' points, then the state now: the line ends where the cards are.
    let line = |label: &str, color: usize, pick: fn(&FleetSample) -> f64| {
        let mut l = Line::of(points, label, color, pick);
        l.xs.push(ms(s.now()));
        l.ys.push(pick(&now));
        l
    };
    let mut lines = vec![
        line("Waiting for a connection", slot::ORANGE, |r| r.waiting),
        line("Answered", slot::GREEN, |r| r.answered),
    ];
    if f.failed > 0 {
        lines.push(line("Failed", slot::RED, |r| r.failed));
    }
    let mut markers = Vec::new();
    if let Some(full) = f.pool_full_at {
        markers.push((ms(full), format!("pool full at {}", format::ms(ms(full)))));
    }
    if f.re_resolves() {
        markers.push((ms(f.dns_switch()), "DNS gives the new address".to_string()));
    }
    ChartData {
        x_range: (0.0, ms(s.end())),
        y_unit: "calls",
        lines,
        markers,
        hlines: vec![(f.pool_size() as f64, format!("pool of {}", f.pool_size()))],
        y_min_max: 10.0,
        ..Default::default()
    }
}

fn summary(s: &Host<WhichTimeout>) -> String {
    let f = s.failover();
    let full = f.pool_full_at.map_or("The pool never filled".to_string(), |t| format!("The pool was full at {}", format::ms(ms(t))));
    format!(
        "{full}; at most {} calls waited for a connection; {} of {} calls answered, {} failed.",
        format::count(f.waiting_max),
        format::count(f.ok),
        format::count(f.calls),
        format::count(f.failed)
    )
}

/// The failover's chart, when the run has a failover.
#[component]
pub fn FailoverChart(runner: Runner<WhichTimeout>) -> impl IntoView {
    let enabled = Memo::new(move |_| runner.track(|s| s.failover().enabled()));
    let data = Signal::derive(move || runner.track(data));
    let summary = Signal::derive(move || runner.track(summary));
    view! {
        <Show when=move || enabled.get()>
            <Chart id="chart-failover" title="The calls of the failover, through one pool" data summary/>
        </Show>
    }
}
