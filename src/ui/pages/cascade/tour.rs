//! The chapter's timeline of its run, seven moments, as a guided tour: each column shows the
//! chapter's figure for the moment beside this run's at the same moment (not the clock's).

use leptos::prelude::*;

use crate::scenarios::cascade::{Cascade, CascadeWords, GUIDED_STEPS, GuidedStep, SPEC};
use crate::sim::{MS, Model, Word};
use crate::ui::kit::{Metrics, Tour, TourState};
use crate::ui::runner::Runner;

/// One column of the tour: its heading, the chapter's figure, and this run's sentence (its
/// key in the reading is the `data-tour-run` hook).
struct Column {
    heading: &'static str,
    chapter: fn(&GuidedStep) -> &'static str,
    run: Word<CascadeWords>,
}

const COLUMNS: [Column; 4] = [
    Column { heading: "Recommendations", chapter: |g| g.recs, run: CascadeWords::tour_recs },
    Column { heading: "/home handlers", chapter: |g| g.home, run: CascadeWords::tour_home },
    Column { heading: "Shared pool", chapter: |g| g.pool, run: CascadeWords::tour_pool },
    Column { heading: "/checkout", chapter: |g| g.checkout, run: CascadeWords::tour_checkout },
];

#[component]
pub fn CascadeTour(runner: Runner<Cascade>, metrics: Metrics<Cascade>) -> impl IntoView {
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
                    .map(|&Column { heading, chapter, run }| {
                        view! {
                            <div class="col">
                                <h3>{heading}</h3>
                                <p class="chapter-figure">
                                    <span class="who">"The chapter: "</span>
                                    {Signal::derive(move || chapter(&GUIDED_STEPS[step.get()]).to_string())}
                                </p>
                                <p class="run-figure">
                                    <span class="who">"This run: "</span>
                                    <span data-tour-run=run.key data-reading=run.key>{metrics.said_signal(run)}</span>
                                </p>
                            </div>
                        }
                    })
                    .collect_view()}
            </div>
            <p class="explanation" data-tour-explanation data-reading=CascadeWords::tour_explanation.key>{metrics.said_signal(CascadeWords::tour_explanation)}</p>
            <p class="help tour-note" hidden=chapter_run>{note}</p>
        </Tour>
    }
}
