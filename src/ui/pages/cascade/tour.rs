//! The chapter's timeline of its run, seven moments, as a guided tour: each column shows the
//! chapter's figure for the moment beside this run's at the same moment (not the clock's).

use leptos::prelude::*;

use crate::scenarios::cascade::{Cascade, GUIDED_STEPS, GuidedStep, SPEC};
use crate::sim::{MS, Model};
use crate::ui::kit::{Metrics, Tour, TourState};
use crate::ui::runner::Runner;

/// One column of the tour: its heading, the chapter's figure, the reading with this run's.
struct Column {
    heading: &'static str,
    chapter: fn(&GuidedStep) -> &'static str,
    reading: &'static str,
}

const COLUMNS: [Column; 4] = [
    Column { heading: "Recommendations", chapter: |g| g.recs, reading: "tour_recs" },
    Column { heading: "/home handlers", chapter: |g| g.home, reading: "tour_home" },
    Column { heading: "Shared pool", chapter: |g| g.pool, reading: "tour_pool" },
    Column { heading: "/checkout", chapter: |g| g.checkout, reading: "tour_checkout" },
];

#[component]
pub fn CascadeTour(runner: Runner<Cascade>, metrics: Metrics) -> impl IntoView {
    let tour = TourState::new(runner.into(), GUIDED_STEPS.iter().map(|g| g.time_ms * MS).collect());
    let step = tour.step;
    let title = Signal::derive(move || GUIDED_STEPS[step.get()].title.to_string());
    let chapter_run = Signal::derive(move || runner.track(|s| s.config().is_chapter_timeline()));
    let note = format!(
        "The chapter's figures are from its measured run: no timeout, one shared pool of 20, its settings (the \
         preset “{}”). “This run” is yours at the same moment.",
        SPEC.preset("no-timeout").map_or("", |p| p.label)
    );
    view! {
        <Tour tour heading="The chapter's run, moment by moment" title>
            <div class="columns">
                {COLUMNS
                    .iter()
                    .map(|&Column { heading, chapter, reading }| {
                        view! {
                            <div class="col">
                                <h3>{heading}</h3>
                                <p class="chapter-figure">
                                    <span class="who">"The chapter: "</span>
                                    {Signal::derive(move || chapter(&GUIDED_STEPS[step.get()]).to_string())}
                                </p>
                                <p class="run-figure">
                                    <span class="who">"This run: "</span>
                                    <span data-tour-run=reading>{metrics.reading_signal(reading)}</span>
                                </p>
                            </div>
                        }
                    })
                    .collect_view()}
            </div>
            <p class="explanation" data-tour-explanation>{metrics.reading_signal("tour_explanation")}</p>
            <p class="help tour-note" hidden=chapter_run>{note}</p>
        </Tour>
    }
}
