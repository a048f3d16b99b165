//! The six phases of a call as a strip: the ones passed, the one the call is in (or ended in),
//! and the ones it never reached, each with how long the call spent there.

use leptos::prelude::*;

use crate::format;
use crate::scenarios::which_timeout::{Phase, WhichTimeout};
use crate::sim::{Micros, Simulation};
use crate::ui::runner::Runner;

/// One phase as the strip shows it.
#[derive(Clone, PartialEq)]
struct Cell {
    phase: Phase,
    /// `passed`, `current`, `failed` or `ahead`.
    state: &'static str,
    time: String,
}

fn cells(s: &crate::sim::Host<WhichTimeout>) -> Vec<Cell> {
    let now = s.now();
    let spans = s.phases();
    let failed = s.error().is_some();
    Phase::SIX
        .iter()
        .map(|&phase| match spans.iter().find(|p| p.phase == phase) {
            None => Cell { phase, state: "ahead", time: String::new() },
            Some(span) => {
                let end: Micros = span.end.unwrap_or(now);
                let last = spans.last().is_some_and(|l| l.phase == phase);
                let state = match (last, failed) {
                    (true, true) => "failed",
                    (true, false) if span.end.is_none() => "current",
                    _ => "passed",
                };
                Cell { phase, state, time: format::span_ms((end - span.start) as f64 / 1000.0) }
            }
        })
        .collect()
}

#[component]
pub fn PhaseStrip(runner: Runner<WhichTimeout>) -> impl IntoView {
    let cells = Memo::new(move |_| runner.track_words(cells));
    let items = move || {
        cells
            .get()
            .into_iter()
            .map(|c| {
                let words = match c.state {
                    "current" => " (the call is here)",
                    "failed" => " (the call ended here)",
                    "ahead" => " (not reached)",
                    _ => "",
                };
                view! {
                    <li data-phase=c.phase.id() data-state=c.state>
                        <span class="wt-phase-name">{c.phase.label()}</span>
                        <span class="wt-phase-time">{c.time}</span>
                        <span class="visually-hidden">{words}</span>
                    </li>
                }
            })
            .collect_view()
    };
    view! {
        <section class="wt-phases" aria-label="The six phases of the call">
            <ol data-phases>{items}</ol>
        </section>
    }
}
