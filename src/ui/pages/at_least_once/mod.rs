//! The at-least-once page (Chapter 2, Part 5): a producer, a broker that delivers at least
//! once, consumers that crash, and a ledger. The reader picks the order of the consumer's
//! steps (the panel's one choice, or a preset) and watches the deliveries, the ledger and the
//! chapter's table with this run's row beside it. Every sentence is the run's own reading
//! (`scenarios::at_least_once::reading`).

mod deliveries;
mod ledger;
mod picture;
mod table;

use leptos::prelude::*;

use crate::scenarios::at_least_once::{AtLeastOnce, AtLeastOnceConfig, AtLeastOnceMetrics, AtLeastOnceWords};
use crate::sim::{Config, Simulation};
use crate::ui::kit::speed::speed_to_watch;
use crate::format;
use crate::ui::kit::{Lead, Metrics, Part, Role, SimLayout, SimState, StatCard, Tone, Verdict};
use crate::ui::kit::predict::Question;

/// The publishing plays in about this many seconds unless the link sets a speed.
const WATCH_SECONDS: f64 = 15.0;

/// The chapter's order-of-operations table: the order, how often consumers crash, and what
/// the dedupe store keys on.
const CHAPTER_CONTROLS: &[&str] = &[AtLeastOnceConfig::order, AtLeastOnceConfig::crash_rate, AtLeastOnceConfig::dedupe_on];

pub fn page(state: SimState) -> AnyView {
    view! { <AtLeastOncePage state/> }.into_any()
}

/// The run the reader set up: the events, the consumers and how often they crash, the order of
/// operations and what the dedupe keys on, with the chapter's setting named as the chapter's.
fn intro(c: &AtLeastOnceConfig, chapter: &AtLeastOnceConfig) -> String {
    let same = (c.messages, c.publish_rate, c.consumers, c.crash_rate)
        == (chapter.messages, chapter.publish_rate, chapter.consumers, chapter.crash_rate);
    let chapters = if same {
        " (the chapter's setting)".to_string()
    } else {
        format!(
            " (in the chapter: {} events to {} consumers, {}% crashes)",
            format::count(u64::from(chapter.messages)),
            chapter.consumers,
            format::number(chapter.crash_rate)
        )
    };
    format!(
        "{} at {} per second go to {} that {} on {}% of deliveries{chapters}. Order: {}; dedupe on: {}.",
        format::counted(u64::from(c.messages), "event", "events"),
        format::number(c.publish_rate),
        format::counted(u64::from(c.consumers), "consumer", "consumers"),
        if c.consumers == 1 { "crashes" } else { "crash" },
        format::number(c.crash_rate),
        c.order.label(),
        c.dedupe_on.label()
    )
}

#[component]
fn AtLeastOncePage(state: SimState) -> impl IntoView {
    let chapter = AtLeastOnceConfig::from_params(&state.scenario.defaults());
    let intro = Signal::derive(move || state.params.with(|p| intro(&AtLeastOnceConfig::from_params(p), &chapter)));
    // Step goes one event at a time: a publish, a step's end, a crash, a lease running out.
    let runner = state.runner::<AtLeastOnce>(0);
    // A redelivery four days later plays at once instead of after hours of an idle clock.
    runner.skip_idle.set(true);
    speed_to_watch(runner.into(), WATCH_SECONDS, move || {
        let c = state.params.with(AtLeastOnceConfig::from_params);
        c.messages as f64 / c.publish_rate
    });
    let metrics = Metrics::provide(state.scenario, runner);
    let finished = Signal::derive(move || runner.track(|s| s.finished()));
    let verdict = metrics.said_signal(AtLeastOnceWords::answer);
    let parts = vec![
        // The figure's headline: the messages and the ledger (`chart=timeline` picks the timeline).
        Part::new("picture", Role::Chart, move || view! { <picture::MessagePicture runner/> }),
        Part::new("cards", Role::Cards, move || view! { <Stats metrics finished/> }),
        Part::new("verdict", Role::Verdict, move || view! { <Verdict text={verdict} figure=state.embed {..} role="status" data-verdict="" data-reading=AtLeastOnceWords::answer.key/> }),
        Part::new("timeline", Role::Chart, move || view! { <deliveries::Deliveries runner/> }),
        Part::new("ledger", Role::Extra, move || view! { <ledger::Ledger runner metrics/> }),
        Part::new("table", Role::Extra, move || view! { <table::ChapterTable runner/> }),
        Part::new("stats", Role::Extra, move || view! { <MoreStats metrics/> }),
    ];
    view! {
        <SimLayout state runner parts chapter_controls=CHAPTER_CONTROLS intro>
            <Lead slot>
                <Question text="Before you press Play: with this order, will the ledger lose credits, double them, or neither?"/>
            </Lead>
        </SimLayout>
    }
}

/// The headline: the three fates of an event, and the copies the dedupe store caught.
#[component]
fn Stats(metrics: Metrics<AtLeastOnce>, finished: Signal<bool>) -> impl IntoView {
    // The verdict quotes these four: each card, and its tone, changes with the words, so a card
    // and the sentence under it show one moment.
    let lost_tone = metrics.paced(move || Tone::bad_if(metrics.get(|m| m.lost > 0)));
    let duplicated_tone = metrics.paced(move || Tone::bad_if(metrics.get(|m| m.duplicated > 0)));
    let once_tone = metrics.paced(move || {
        let clean = metrics.get(|m| m.lost == 0 && m.duplicated == 0);
        if clean && finished.get_untracked() { Tone::Good } else { Tone::Plain }
    });
    view! {
        <div class="stats">
            <StatCard metrics key=AtLeastOnceMetrics::lost tone=lost_tone/>
            <StatCard metrics key=AtLeastOnceMetrics::duplicated tone=duplicated_tone/>
            <StatCard metrics key=AtLeastOnceMetrics::effectively_once tone=once_tone/>
            <StatCard metrics key=AtLeastOnceMetrics::skipped_as_duplicate/>
        </div>
    }
}

/// The broker's side and the faults behind the fates.
#[component]
fn MoreStats(metrics: Metrics<AtLeastOnce>) -> impl IntoView {
    view! {
        <div class="stats">
            <StatCard metrics key=AtLeastOnceMetrics::deliveries/>
            <StatCard metrics key=AtLeastOnceMetrics::redeliveries/>
            <StatCard metrics key=AtLeastOnceMetrics::crashes/>
            <StatCard metrics key=AtLeastOnceMetrics::crashes_between/>
            <StatCard metrics key=AtLeastOnceMetrics::leases_outlived/>
            <StatCard metrics key=AtLeastOnceMetrics::republished/>
            <StatCard metrics key=AtLeastOnceMetrics::late_redeliveries/>
            <StatCard metrics key=AtLeastOnceMetrics::dead_lettered/>
        </div>
    }
}
