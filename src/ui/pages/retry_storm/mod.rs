//! The retry-storm page (Chapter 2, Part 1): predict how the first ticks after the outage
//! compare with the provider's capacity, watch the attempts per tick, then compare fixed,
//! exponential and jittered backoff side by side on the same seed. The backoff is chosen in
//! the parameter panel or by a preset; every sentence is the run's own reading
//! (`scenarios::retry_storm::reading`).

mod charts;
mod picture;

use leptos::prelude::*;

use crate::scenarios::retry_storm::{NEAR, PREDICTIONS, RetryStorm, RetryStormConfig, RetryStormMetrics, RetryStormWords, TICK};
use crate::sim::{Config, Simulation, Word};
use crate::ui::kit::compare::{Compare, CompareSpec};
use crate::ui::kit::predict::Predict;
use crate::format;
use crate::ui::kit::{Lead, Metrics, Part, Role, SimLayout, SimState, StatCard, Tone, Verdict};
use charts::{AttemptsChart, ClientsStrip, WaitingChart, attempts_chart, tallest};

/// A sentence under the headline chart: what it is about, and the sentence (its key in the
/// reading is its `data-reading` hook).
const READINGS: &[(&str, Word<RetryStormWords>)] = &[
    ("The backoff", RetryStormWords::backoff),
    ("Traffic during the outage", RetryStormWords::traffic),
    ("Retry budget", RetryStormWords::budget),
    ("Calls per user action", RetryStormWords::layers),
    ("Circuit breaker", RetryStormWords::breaker),
    ("Pending orders", RetryStormWords::pending),
];

/// The chapter's three runs, side by side.
static COMPARE: CompareSpec<RetryStorm> = CompareSpec {
    param: RetryStormConfig::mode,
    options: &["fixed", "exponential", "jitter"],
    cards: &[RetryStormMetrics::peak_after_recovery],
    line: RetryStormWords::summary,
    tone: Some(peak_tone),
    chart_title: "Attempts per 100 ms tick",
    chart: attempts_chart,
    tallest,
};

pub fn page(state: SimState) -> AnyView {
    view! { <RetryStormPage state/> }.into_any()
}

fn peak_tone(metrics: &Metrics<RetryStorm>) -> Tone {
    match (metrics.num(RetryStormMetrics::peak_after_recovery), metrics.num(RetryStormMetrics::capacity_per_tick)) {
        (Some(peak), Some(cap)) if peak > NEAR * cap => Tone::Bad,
        (Some(_), _) => Tone::Good,
        _ => Tone::Plain,
    }
}

/// The parameters the chapter's run turns on: the backoff and the retry budget.
const CHAPTER_CONTROLS: &[&str] = &[RetryStormConfig::mode, RetryStormConfig::budget_pct];

/// The run the reader set up, in the chapter's words, with the chapter's own setting named as
/// the chapter's: "40 clients call a provider that is down from 2 s to 6 s…".
fn intro(c: &RetryStormConfig, chapter: &RetryStormConfig) -> String {
    let secs = |ms: f64| format::secs(ms / 1000.0);
    let outage = if c.down_until_ms > c.down_from_ms {
        format!("is down from {} to {}", secs(c.down_from_ms), secs(c.down_until_ms))
    } else {
        "never goes down (its outage ends before it starts)".to_string()
    };
    let same = c.clients == chapter.clients
        && c.capacity == chapter.capacity
        && c.down_from_ms == chapter.down_from_ms
        && c.down_until_ms == chapter.down_until_ms;
    let chapters = if same {
        " (the chapter's setting)".to_string()
    } else {
        format!(
            " (in the chapter: {} clients, down from {} to {}, {} per tick)",
            chapter.clients,
            secs(chapter.down_from_ms),
            secs(chapter.down_until_ms),
            chapter.capacity
        )
    };
    format!(
        "{} call a provider that {outage} and can take {} per 100 ms tick once it is back{chapters}. \
         Compare the peak after recovery with that capacity.",
        format::counted(c.clients as u64, "client", "clients"),
        format::counted(c.capacity as u64, "call", "calls"),
    )
}

#[component]
fn RetryStormPage(state: SimState) -> impl IntoView {
    let runner = state.runner::<RetryStorm>(TICK);
    let chapter = RetryStormConfig::from_params(&state.scenario.defaults());
    let intro = Signal::derive(move || state.params.with(|p| intro(&RetryStormConfig::from_params(p), &chapter)));
    let metrics = Metrics::provide(state.scenario, runner);
    // The answer waits until the clients are done retrying, when the peak has shown itself.
    let ready = Signal::derive(move || runner.track(|s| s.recovered_at().is_some()));
    let finished = Signal::derive(move || runner.track(|s| s.finished()));
    let outcome = Signal::derive(move || Some(metrics.said(RetryStormWords::prediction)).filter(|p| !p.is_empty()));
    let answer = metrics.said_signal(RetryStormWords::verdict);
    let verdict = metrics.said_signal(RetryStormWords::verdict);
    let parts = vec![
        // The figure's headline: the clients and the provider, tick by tick (`chart=attempts`
        // picks the chart).
        Part::new("picture", Role::Chart, move || view! { <picture::StormPicture state runner/> }),
        Part::new("cards", Role::Cards, move || view! { <HeadlineStats metrics/> }),
        Part::new("attempts", Role::Chart, move || view! { <AttemptsChart runner/> }),
        Part::new("verdict", Role::Verdict, move || view! { <Verdict text={verdict} figure=state.embed {..} data-verdict="" data-reading=RetryStormWords::verdict.key/> })
            .figure_only(),
        Part::new("readings", Role::Extra, move || view! { <Readings metrics/> }),
        Part::new("stats", Role::Extra, move || view! { <MoreStats metrics/> }),
        Part::new("compare", Role::Extra, move || {
            view! {
                <Compare
                    state
                    runner
                    spec=&COMPARE
                    label="Compare fixed, exponential and jitter side by side"
                    help="The same clients, seed and settings, with only the backoff changed. The three runs play with \
                          the main clock (Skip to end finishes all of them), and their charts share one y scale."
                />
            }
        }),
        Part::new("waiting", Role::Chart, move || view! { <WaitingChart runner/> }).in_group("charts-grid"),
        Part::new("clients", Role::Chart, move || view! { <ClientsStrip runner/> }).in_group("charts-grid"),
    ];
    view! {
        <SimLayout state runner parts chapter_controls=CHAPTER_CONTROLS intro>
            <Lead slot>
                <Predict
                    question="Predict: once the provider is back, its busiest 100 ms tick gets…".to_string()
                    options=PREDICTIONS
                    ready
                    finished
                    outcome
                    answer
                    reading=&[RetryStormWords::verdict.key]
                />
            </Lead>
        </SimLayout>
    }
}

#[component]
fn HeadlineStats(metrics: Metrics<RetryStorm>) -> impl IntoView {
    let tone = Signal::derive(move || peak_tone(&metrics));
    view! {
        <div class="stats headline">
            <StatCard metrics key=RetryStormMetrics::peak_after_recovery said=RetryStormWords::peak_note tone big=true/>
            <StatCard metrics key=RetryStormMetrics::waves_after_recovery said=RetryStormWords::waves_note/>
            <StatCard metrics key=RetryStormMetrics::recovered_ms said=RetryStormWords::recovered_note/>
            <StatCard metrics key=RetryStormMetrics::outage_traffic_vs_normal said=RetryStormWords::traffic_note/>
        </div>
    }
}

#[component]
fn MoreStats(metrics: Metrics<RetryStorm>) -> impl IntoView {
    view! {
        <div class="stats">
            <StatCard metrics key=RetryStormMetrics::amplification said=RetryStormWords::amplification_note/>
            <StatCard metrics key=RetryStormMetrics::max_calls_per_user_action said=RetryStormWords::calls_note/>
            <StatCard metrics key=RetryStormMetrics::outage_retry_pct said=RetryStormWords::retry_note/>
            <StatCard metrics key=RetryStormMetrics::attempts_total said=RetryStormWords::attempts_note/>
            <StatCard metrics key=RetryStormMetrics::calls_while_down said=RetryStormWords::breaker_state/>
            <StatCard metrics key=RetryStormMetrics::drain_done_ms/>
        </div>
    }
}

/// What the run's numbers mean, in the run's own sentences.
#[component]
fn Readings(metrics: Metrics<RetryStorm>) -> impl IntoView {
    view! {
        <dl class="readings">
            {READINGS
                .iter()
                .map(|&(title, sentence)| {
                    let (key, text) = (sentence.key, metrics.said_signal(sentence));
                    view! {
                        <div data-reading-row=key>
                            <dt>{title}</dt>
                            <dd data-reading=key>{move || text.get()}</dd>
                        </div>
                    }
                })
                .collect_view()}
        </dl>
    }
}
