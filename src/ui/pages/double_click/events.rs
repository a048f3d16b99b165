//! The run in words: the latest moment (read out while stepping) and every event so far, both
//! from the run's reading.

use leptos::prelude::*;

use crate::scenarios::double_click::{DoubleClick, DoubleClickWords};
use crate::sim::Simulation;
use crate::ui::kit::{Metrics, Table};
use crate::ui::runner::Runner;

/// One line of the reading's `events`: "<time>: <where>: <what>".
fn split(line: &str) -> (String, String, String) {
    let (t, rest) = line.split_once(": ").unwrap_or(("", line));
    let (place, text) = rest.split_once(": ").unwrap_or(("", rest));
    (t.to_string(), place.to_string(), text.to_string())
}

#[component]
pub fn LastEvent(runner: Runner<DoubleClick>, metrics: Metrics<DoubleClick>) -> impl IntoView {
    // Read out while stepping; silent while playing, where it would change every moment.
    let live = move || if runner.playing.get() { "off" } else { "polite" };
    let events = Signal::derive(move || runner.track_words(|s| s.events().to_string()));
    view! {
        <p class="dc-last" data-last-event data-reading=DoubleClickWords::last_event.key data-events=events aria-live=live>
            {metrics.said_signal(DoubleClickWords::last_event)}
        </p>
    }
}

#[component]
pub fn EventList(metrics: Metrics<DoubleClick>) -> impl IntoView {
    let lines = Memo::new(move |_| metrics.said(DoubleClickWords::events).lines().map(split).collect::<Vec<_>>());
    let title = move || lines.with(|l| format!("Every event so far ({})", l.len()));
    let rows = move || {
        lines.with(|l| {
            let latest = l.last().map(|e| e.0.clone());
            l.iter()
                .map(|(t, place, text)| {
                    let class = if Some(t) == latest.as_ref() { "latest" } else { "" };
                    view! {
                        <tr class=class>
                            <td class="num">{t.clone()}</td>
                            <td>{place.clone()}</td>
                            <td>{text.clone()}</td>
                        </tr>
                    }
                })
                .collect_view()
        })
    };
    view! {
        <details class="dc-events" open>
            <summary>{title}</summary>
            <Table hook="data-events-table" label="Every event so far" head=&["Time", "Where", "What happened"]>
                {rows}
            </Table>
        </details>
    }
}
