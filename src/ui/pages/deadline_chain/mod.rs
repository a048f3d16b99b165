//! The deadline-chain page (Chapter 1, Part 4): one request through A, B and C on the kit's
//! timeline, with fixed timeouts or a propagated budget (the mode is the parameter panel's one
//! control). Every sentence is the run's own reading (`scenarios::deadline_chain::reading`):
//! the verdict, the notes under the cards, the chapter's table beside this run, the moments.

mod table;

use leptos::prelude::*;

use crate::draw::deadline_chain as timeline;
use crate::scenarios::deadline_chain::{CWork, DeadlineChain, DeadlineChainConfig, DeadlineChainMetrics, DeadlineChainWords};
use crate::sim::{Config, Params, Simulation};
use crate::format;
use crate::ui::kit::{Lead, Metrics, Part, Role, SimLayout, SimState, StatCard, Timeline, Tone, Verdict};
use crate::ui::runner::Runner;

pub fn page(state: SimState) -> AnyView {
    view! { <DeadlineChainPage state/> }.into_any()
}

/// The chapter's comparison: the mode, the user's budget and C's work.
const CHAPTER_CONTROLS: &[&str] = &[DeadlineChainConfig::mode, DeadlineChainConfig::user_budget_ms, DeadlineChainConfig::c_work_ms];

/// The run the reader set up, with the chapter's setting named as the chapter's.
fn intro(c: &DeadlineChainConfig, chapter: &DeadlineChainConfig) -> String {
    let secs = |ms: f64| format::secs(ms / 1000.0);
    let chapters = if c.c_work_ms == chapter.c_work_ms && c.user_budget_ms == chapter.user_budget_ms {
        " (the chapter's setting)".to_string()
    } else {
        format!(" (in the chapter: {} and {})", secs(chapter.c_work_ms), secs(chapter.user_budget_ms))
    };
    format!(
        "A calls B calls C; C needs {} of work and the user waits {}{chapters}. Compare fixed timeouts with a \
         propagated budget.",
        secs(c.c_work_ms),
        secs(c.user_budget_ms)
    )
}

#[component]
fn DeadlineChainPage(state: SimState) -> impl IntoView {
    let chapter = DeadlineChainConfig::from_params(&state.scenario.defaults());
    let intro = Signal::derive(move || state.params.with(|p| intro(&DeadlineChainConfig::from_params(p), &chapter)));
    // Step goes one event at a time: a request, a timer, an answer.
    let runner = state.runner::<DeadlineChain>(0);
    let metrics = Metrics::provide(state.scenario, runner);
    let verdict = metrics.said_signal(DeadlineChainWords::verdict);
    let parts = vec![
        Part::new("cards", Role::Cards, move || view! { <Stats metrics runner/> }),
        Part::new("timeline", Role::Chart, move || view! { <TimelineView state runner verdict/> }),
        Part::new("verdict", Role::Verdict, move || {
            view! { <Verdict text={verdict} figure=state.embed {..} role="status" data-verdict="" data-reading=DeadlineChainWords::verdict.key/> }
        }),
        // Chapter 1, Break 3: the window between the first hang-up and C's commit.
        Part::new("window", Role::Extra, move || {
            let window = metrics.said_signal(DeadlineChainWords::commit_window);
            view! {
                <Show when=move || !window.with(String::is_empty)>
                    <p data-reading=DeadlineChainWords::commit_window.key>{window}</p>
                </Show>
            }
        }),
        Part::new("stats", Role::Extra, move || {
            view! {
                <div class="stats">
                    <StatCard metrics key=DeadlineChainMetrics::c_budget_told_ms said=DeadlineChainWords::told_note/>
                    <StatCard metrics key=DeadlineChainMetrics::commit_window_ms/>
                </div>
            }
        }),
        Part::new("table", Role::Extra, move || view! { <table::ChapterTable metrics/> }),
        Part::new("moments", Role::Extra, move || view! { <Moments metrics/> }),
    ];
    view! {
        <SimLayout state runner parts chapter_controls=CHAPTER_CONTROLS intro>
            <Lead slot>
                <p class="lead">"As it plays, watch who is still working after the user has stopped waiting."</p>
            </Lead>
        </SimLayout>
    }
}

#[component]
fn Stats(metrics: Metrics<DeadlineChain>, runner: Runner<DeadlineChain>) -> impl IntoView {
    let finished = Signal::derive(move || runner.track(|s| s.finished()));
    let answer_tone = Signal::derive(move || {
        let late = metrics.num(DeadlineChainMetrics::user_in_budget) == Some(0.0) || metrics.num(DeadlineChainMetrics::user_gave_up_ms).is_some();
        Tone::bad_if(late)
    });
    let b_tone = metrics.fact(|f| Tone::bad_if(f.b_gave_up_after_user_left()));
    let c_tone = metrics.fact(|f| match f.c_work {
        CWork::Committed { for_nobody_by_us: Some(_), .. } => Tone::Bad,
        CWork::Stopped { .. } => Tone::Good,
        _ => Tone::Plain,
    });
    let waste_tone = Signal::derive(move || match metrics.num(DeadlineChainMetrics::wasted_work_ms) {
        Some(w) if w > 0.0 => Tone::Bad,
        _ if finished.get() => Tone::Good,
        _ => Tone::Plain,
    });
    view! {
        <div class="stats">
            <StatCard metrics key=DeadlineChainMetrics::user_answer_ms said=DeadlineChainWords::answer_note tone=answer_tone/>
            <StatCard metrics key=DeadlineChainMetrics::b_gives_up_ms said=DeadlineChainWords::b_note tone=b_tone/>
            <StatCard metrics key=DeadlineChainMetrics::c_end_ms said=DeadlineChainWords::c_note tone=c_tone/>
            <StatCard metrics key=DeadlineChainMetrics::wasted_work_ms tone=waste_tone/>
        </div>
    }
}

/// The whole-run axis: the longest run of the figure's settings and of its presets (each
/// settles within its run length), so switching between them does not rescale it.
fn whole_ms(state: &SimState) -> f64 {
    let length = |p: &Params| state.duration_ms.unwrap_or_else(|| state.scenario.duration_for(p)) as f64;
    let own = state.params.with(length);
    state.preset_choice().into_iter().map(|id| length(&state.preset_params(id))).fold(own, f64::max)
}

/// The timeline, over the whole run or zoomed on where the chain unwinds.
#[component]
fn TimelineView(state: SimState, runner: Runner<DeadlineChain>, verdict: Signal<String>) -> impl IntoView {
    // The zoomed window comes from this run played to its end, so it stays put while it plays.
    let window = Memo::new(move |_| {
        let end = runner.track(|s| s.end());
        let config = runner.config();
        timeline::unwind_window(config, state.seed.get(), end)
    });
    let whole = Memo::new(move |_| whole_ms(&state));
    let zoom = RwSignal::new(false);
    let zoom_label = Signal::derive(move || timeline::window_words(window.get()));
    let data = Signal::derive(move || {
        let range = zoom.get().then(|| window.get());
        let whole = whole.get();
        runner.track(|s| timeline::data(s, whole, range))
    });
    view! {
        <Timeline id="timeline" title="One request through A, B and C" data summary=verdict/>
        <div class="zoom" role="group" aria-label="Time range shown">
            <button data-zoom="whole" aria-pressed=move || (!zoom.get()).to_string() on:click=move |_| zoom.set(false)>
                "Whole run"
            </button>
            <button
                data-zoom="end"
                title="The 170 ms around the end of the user's wait, where the chain unwinds"
                aria-pressed=move || zoom.get().to_string()
                on:click=move |_| zoom.set(true)
            >
                "Zoom: "
                {zoom_label}
            </button>
        </div>
    }
}

/// Every moment so far, in words: the text equivalent of the timeline.
#[component]
fn Moments(metrics: Metrics<DeadlineChain>) -> impl IntoView {
    let moments = metrics.said_signal(DeadlineChainWords::moments);
    let items = move || {
        moments.with(|m| {
            m.lines()
                .map(|line| {
                    let (t, text) = line.split_once(": ").unwrap_or(("", line));
                    let (t, text) = (t.to_string(), text.to_string());
                    view! { <li><span class="t">{t}</span>" "{text}</li> }
                })
                .collect_view()
        })
    };
    view! {
        <section class="moments" aria-labelledby="moments-title">
            <h2 id="moments-title">"The run so far, moment by moment"</h2>
            <ol data-moments>{items}</ol>
        </section>
    }
}
