//! Chapter 1, Break 5 on a chart: the calls of a failover through one pool, over the run
//! (`draw::which_timeout::failover`, which `resilience-lab figure` draws too), and what it shows
//! in words for screen readers.

use leptos::prelude::*;

use crate::draw::which_timeout;
use crate::format;
use crate::scenarios::which_timeout::WhichTimeout;
use crate::sim::Host;
use crate::ui::kit::Chart;
use crate::ui::runner::Runner;

fn summary(s: &Host<WhichTimeout>) -> String {
    let f = s.failover();
    let full = f.pool_full_at.map_or("The pool never filled".to_string(), |t| format!("The pool was full at {}", format::us_as_ms(t)));
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
    let data = Signal::derive(move || runner.track(which_timeout::failover));
    let summary = Signal::derive(move || runner.track(summary));
    view! {
        <Show when=move || enabled.get()>
            <Chart id="chart-failover" title="The calls of the failover, through one pool" data summary/>
        </Show>
    }
}
