//! A guided tour of a run: a few moments in time order, each with a title. Back and Next move
//! the run to the previous or next moment (rebuilt and run to it), and the step shown follows
//! the clock, whether the reader steps, plays or skips: it is the last moment the run has
//! reached. What a step says is the page's (the tour's children).

use leptos::prelude::*;

use crate::format;
use crate::sim::Micros;
use crate::ui::runner::Playback;

/// The tour's moments and the step the run has reached.
#[derive(Clone, Copy)]
pub struct TourState {
    runner: Playback,
    times: StoredValue<Vec<Micros>>,
    /// The step shown (0-based): the last moment at or before the clock.
    pub step: Memo<usize>,
}

impl TourState {
    /// A tour of the moments `times` (µs of simulated time, ascending).
    pub fn new(runner: Playback, times: Vec<Micros>) -> Self {
        let times = StoredValue::new(times);
        let step = Memo::new(move |_| {
            let (now, _) = runner.clock();
            times.with_value(|t| t.iter().rposition(|&at| at <= now).unwrap_or(0))
        });
        Self { runner, times, step }
    }

    /// How many steps the tour has.
    pub fn steps(&self) -> usize {
        self.times.with_value(Vec::len)
    }

    /// When step `i` happens.
    pub fn at(&self, i: usize) -> Option<Micros> {
        self.times.with_value(|t| t.get(i).copied())
    }

    /// Whether the run gets to step `i` before it ends (tracked).
    pub fn reachable(&self, i: usize) -> bool {
        let (_, end) = self.runner.clock();
        self.at(i).is_some_and(|at| at <= end)
    }

    /// Moves the run to step `i`.
    pub fn go(&self, i: usize) {
        if let Some(at) = self.at(i) {
            self.runner.seek(at);
        }
    }
}

/// The tour's frame: its heading with the step's title and time, Back, "n / N", Next, then the
/// page's body for the step, and a note when the run ends before the last steps. Everything it
/// shows is a derived signal, so the views share one rendering path (small bundle).
#[component]
pub fn Tour(
    tour: TourState,
    /// What the tour walks through, e.g. "The chapter's run, moment by moment".
    heading: &'static str,
    /// The current step's title.
    #[prop(into)]
    title: Signal<String>,
    children: Children,
) -> impl IntoView {
    let step = tour.step;
    let n = tour.steps();
    let when =
        Signal::derive(move || tour.at(step.get()).map(|t| format!(" at {}", format::seconds(t))).unwrap_or_default());
    let number = Signal::derive(move || (step.get() + 1).to_string());
    let counter = Signal::derive(move || format!("{} / {n}", step.get() + 1));
    let first = Signal::derive(move || step.get() == 0);
    let last = Signal::derive(move || !tour.reachable(step.get() + 1));
    let ends_early = Signal::derive(move || {
        let missed = (0..n).filter(|&i| !tour.reachable(i)).count();
        let (_, end) = tour.runner.clock();
        if missed == 0 {
            return String::new();
        }
        format!(
            "This run ends at {}, before the last {}.",
            format::seconds(end),
            format::counted(missed as u64, "step", "steps")
        )
    });
    let on_time = Signal::derive(move || ends_early.with(String::is_empty));
    view! {
        <section class="tour" data-tour aria-label=heading>
            <div class="tour-head">
                <h2>
                    <span class="tour-heading">{heading} ": "</span>
                    <span class="step-title">{title}</span>
                    <span class="step-time">{when}</span>
                </h2>
                <div class="tour-nav">
                    <button
                        data-action="tour-back"
                        prop:disabled=first
                        on:click=move |_| tour.go(step.get_untracked().saturating_sub(1))
                    >
                        "Back"
                    </button>
                    <span class="counter" data-tour-step=number aria-live="polite">{counter}</span>
                    <button class="primary" data-action="tour-next" prop:disabled=last on:click=move |_| tour.go(step.get_untracked() + 1)>
                        "Next"
                    </button>
                </div>
            </div>
            {children()}
            <p class="help" hidden=on_time>{ends_early}</p>
        </section>
    }
}
