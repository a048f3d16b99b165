//! The choosing-numbers page (Chapter 1, Part 5): the dependency's latency with p50, p99, p99.9
//! and the timeout marked on it, the timeout beside it, the slowest and latest requests on the
//! kit's timeline with their attempts and the route's budget, the headline cards, and the
//! chapter's figures beside this run's. Every sentence is the run's own reading
//! (`scenarios::choosing_numbers::reading`).

mod distribution;
mod picture;
mod timeline;

use leptos::prelude::*;

use crate::format;
use crate::scenarios::choosing_numbers::{PREDICTIONS, ChoosingNumbers, ChoosingNumbersConfig, ChoosingNumbersMetrics, ChoosingNumbersWords};
use crate::sim::{Config, Micros, Simulation, Word};
use crate::ui::kit::predict::Predict;
use crate::ui::kit::table::ChapterRows;
use crate::ui::kit::{Lead, Metrics, Part, Role, SimLayout, SimState, StatCard, Table, Timeline, Tone, Verdict};
use crate::ui::runner::Runner;

pub fn page(state: SimState) -> AnyView {
    view! { <ChoosingNumbersPage state/> }.into_any()
}

/// The chapter's question is where the timeout goes: the timeout, the policy, the fan-out.
const CHAPTER_CONTROLS: &[&str] =
    &[ChoosingNumbersConfig::timeout_ms, ChoosingNumbersConfig::retry_policy, ChoosingNumbersConfig::fan_out];

/// The answer may be shown once this much of the run has played.
const REVEAL_AFTER: Micros = 5_000_000;

/// The chapter's rows, as the reading names them.
const ROWS: [Word<ChoosingNumbersWords>; 4] = [
    ChoosingNumbersWords::chapter_timeouts,
    ChoosingNumbersWords::chapter_fan_out,
    ChoosingNumbersWords::chapter_fit,
    ChoosingNumbersWords::chapter_worst,
];

/// What the reader set up, with the chapter's pricing call named as the chapter's.
fn question(c: &ChoosingNumbersConfig, chapter: &ChoosingNumbersConfig) -> String {
    let dist = format!(
        "p50 {}, p99 {}, p99.9 {}",
        format::ms(c.p50_ms),
        format::ms(c.p99_ms),
        format::ms(c.p999_ms)
    );
    // "Pricing" only for the chapter's pricing call: Break 2's is a search API's dependency.
    let pricing = (c.p50_ms, c.p99_ms, c.p999_ms) == (chapter.p50_ms, chapter.p99_ms, chapter.p999_ms);
    let (whose, chapters) = if pricing { ("pricing's", " (the chapter's pricing call)") } else { ("the dependency's", "") };
    let at = if c.timeout_ms > 0.0 { format!("at {}", format::ms(c.timeout_ms)) } else { "off".to_string() };
    format!(
        "Where would you put {whose} timeout? Its latency: {dist}{chapters}. With the timeout {at}, predict how many \
         healthy calls time out."
    )
}

#[component]
fn ChoosingNumbersPage(state: SimState) -> impl IntoView {
    let runner = state.runner::<ChoosingNumbers>(100_000);
    let metrics = Metrics::provide(state.scenario, runner);
    let chapter = ChoosingNumbersConfig::from_params(&state.scenario.defaults());
    let config = Memo::new(move |_| state.params.with(ChoosingNumbersConfig::from_params));
    let question = Signal::derive(move || config.with(|c| question(c, &chapter)));
    let ready = Signal::derive(move || runner.track(|s| s.now() >= REVEAL_AFTER));
    let finished = Signal::derive(move || runner.track(|s| s.finished()));
    let outcome = Signal::derive(move || Some(metrics.said(ChoosingNumbersWords::prediction)).filter(|p| !p.is_empty()));
    let answer = metrics.said_signal(ChoosingNumbersWords::answer);
    let verdict = metrics.said_signal(ChoosingNumbersWords::verdict);
    let parts = vec![
        // The figure's headline: calls landing on the latency, and the slowest request
        // (`chart=latency` picks the chart, which also moves the timeout when dragged).
        Part::new("picture", Role::Chart, move || view! { <picture::LatencyPicture state runner/> }),
        Part::new("latency", Role::Chart, move || view! { <distribution::Distribution runner state/> }),
        Part::new("cards", Role::Cards, move || view! { <Stats metrics/> }),
        Part::new("timeline", Role::Chart, move || view! { <Requests runner/> }),
        Part::new("verdict", Role::Verdict, move || {
            view! { <Verdict text={verdict} figure=state.embed {..} role="status" data-verdict="" data-reading=ChoosingNumbersWords::verdict.key/> }
        }),
        Part::new("stats", Role::Extra, move || view! { <MoreStats metrics/> }),
        Part::new("table", Role::Extra, move || view! { <ChapterTable metrics/> }),
    ];
    view! {
        <SimLayout state runner parts chapter_controls=CHAPTER_CONTROLS>
            <Lead slot>
                <Predict question options=PREDICTIONS ready finished outcome answer reading=&[ChoosingNumbersWords::answer.key]/>
            </Lead>
        </SimLayout>
    }
}

#[component]
fn Stats(metrics: Metrics<ChoosingNumbers>) -> impl IntoView {
    let rate_note = Signal::derive(move || {
        metrics.num(ChoosingNumbersMetrics::tail_at_timeout_pct).map(|t| format!("the fitted tail: {}", format::pct(t))).unwrap_or_default()
    });
    let rate_tone = Signal::derive(move || Tone::bad_if(metrics.num(ChoosingNumbersMetrics::timeout_rate_pct).unwrap_or(0.0) >= 0.5));
    // The chapter's route has 2 s; a wait past the edge's 3 s reaches the user as a failure.
    let worst_tone = Signal::derive(move || Tone::bad_if(metrics.num(ChoosingNumbersMetrics::worst_wait_ms).unwrap_or(0.0) > 3000.0));
    view! {
        <div class="stats">
            <StatCard metrics key=ChoosingNumbersMetrics::timeout_rate_pct note=rate_note tone=rate_tone/>
            <StatCard metrics key=ChoosingNumbersMetrics::calls_per_request/>
            <StatCard metrics key=ChoosingNumbersMetrics::route_p99_ms/>
            <StatCard metrics key=ChoosingNumbersMetrics::worst_wait_ms tone=worst_tone/>
        </div>
    }
}


#[component]
fn MoreStats(metrics: Metrics<ChoosingNumbers>) -> impl IntoView {
    let alert_tone = Signal::derive(move || Tone::bad_if(metrics.num(ChoosingNumbersMetrics::alert_firing) == Some(1.0)));
    // Pending, firing or quiet, with the rule: the card alone says "no" while it is pending.
    view! {
        <div class="stats">
            <StatCard metrics key=ChoosingNumbersMetrics::route_p50_ms/>
            <StatCard metrics key=ChoosingNumbersMetrics::route_p95_ms/>
            <StatCard metrics key=ChoosingNumbersMetrics::slow_request_pct/>
            <StatCard metrics key=ChoosingNumbersMetrics::slow_request_theory_pct/>
            <StatCard metrics key=ChoosingNumbersMetrics::past_deadline_pct/>
            <StatCard metrics key=ChoosingNumbersMetrics::fallback_pct/>
            <StatCard metrics key=ChoosingNumbersMetrics::error_pct/>
            <StatCard metrics key=ChoosingNumbersMetrics::work_after_give_up_ms/>
            <StatCard metrics key=ChoosingNumbersMetrics::attempts_fit/>
            <StatCard metrics key=ChoosingNumbersMetrics::connect_timeouts/>
            <StatCard metrics key=ChoosingNumbersMetrics::syn_retransmits/>
            <StatCard metrics key=ChoosingNumbersMetrics::timeout_rate_after_drift_pct/>
            // The alert's two cards last, side by side: the sentence makes its row tall.
            <StatCard metrics key=ChoosingNumbersMetrics::alert_fired_at_ms/>
            <StatCard metrics key=ChoosingNumbersMetrics::alert_firing tone=alert_tone said=ChoosingNumbersWords::alert/>
        </div>
    }
}

#[component]
fn Requests(runner: Runner<ChoosingNumbers>) -> impl IntoView {
    let data = Signal::derive(move || runner.track(timeline::data));
    let summary = Signal::derive(move || runner.track(timeline::summary));
    view! {
        <Timeline id="timeline" title="The slowest and the latest request, from their arrival (ms)" data summary/>
    }
}

/// The chapter's figures beside this run's, labelled as the chapter's.
#[component]
fn ChapterTable(metrics: Metrics<ChoosingNumbers>) -> impl IntoView {
    view! {
        <Table hook="data-chapter-table" label="This run beside the chapter's figures" head=&["", "This run", "The chapter's"]>
            <ChapterRows metrics rows=&ROWS/>
        </Table>
    }
}
