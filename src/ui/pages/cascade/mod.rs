//! The cascade page (Chapter 1, Part 3, "The measured run"): one hung dependency fills the
//! shared pool and takes /checkout down with it, or not, depending on the fix picked in the
//! parameters (or by a preset). Every sentence about the outcome is the run's own reading
//! (`scenarios::cascade::reading`); the chapter's figures are shown beside it, labelled.

mod charts;
mod picture;
mod pools;
mod table;
mod tour;

use leptos::prelude::*;

use crate::scenarios::cascade::{Cascade, CascadeConfig, CascadeMetrics as M, CascadeWords, SAMPLE_EVERY};
use crate::sim::{Metric, Word};
use crate::sim::Config;
use crate::format;
use crate::ui::kit::{Lead, Metrics, Part, Role, SimLayout, SimState, StatCard, Tone, Verdict};

pub fn page(state: SimState) -> AnyView {
    view! { <CascadePage state/> }.into_any()
}

/// A stat card: the metric it shows, the sentence under it, and how its number should feel
/// (bad where the cascade shows, good where /checkout is fine).
struct Card {
    metric: Metric<M>,
    /// The sentence under the number, if any.
    note: Option<Word<CascadeWords>>,
    tone: fn(&M) -> Tone,
}

const PLAIN: fn(&M) -> Tone = |_| Tone::Plain;

/// The chapter's table in numbers: /home in flight, /checkout succeeded and failed, p99.
const HEADLINE: &[Card] = &[
    Card { metric: M::home_in_flight_end, note: Some(CascadeWords::note_home), tone: growing },
    Card { metric: M::checkout_ok, note: Some(CascadeWords::note_ok), tone: checkout_ok },
    Card { metric: M::checkout_failed, note: Some(CascadeWords::note_failed), tone: |m| Tone::bad_if(m.checkout_failed > 0) },
    Card { metric: M::checkout_p99_ms_with_waiting, note: Some(CascadeWords::note_p99), tone: PLAIN },
];

/// Where the waiting happened: the pool, its queue, the downstream.
const POOL_CARDS: &[Card] = &[
    Card { metric: M::home_in_flight_growth_per_s, note: Some(CascadeWords::note_growth), tone: growing },
    Card { metric: M::pool_in_use_max, note: Some(CascadeWords::note_pool), tone: PLAIN },
    Card { metric: M::pool_waiting_max, note: None, tone: |m| Tone::bad_if(m.pool_waiting_max > 0) },
    Card { metric: M::checkout_queued, note: None, tone: |m| Tone::bad_if(m.checkout_queued > 0) },
    Card {
        metric: M::downstream_open_connections_max,
        note: Some(CascadeWords::note_downstream),
        tone: |m| Tone::bad_if(m.downstream_open_connections_max as f64 > (m.pool_in_use_max as f64).max(100.0)),
    },
];

/// /home's waiting is bad once it grows by a request a second or more.
fn growing(m: &M) -> Tone {
    Tone::bad_if(m.home_in_flight_growth_per_s.unwrap_or(0.0) >= 1.0)
}

fn checkout_ok(m: &M) -> Tone {
    if m.checkout_failed == 0 && m.checkout_ok > 0 { Tone::Good } else { Tone::bad_if(m.checkout_failed > 0) }
}

/// The chapter's four fixes and the two numbers they turn on.
const CHAPTER_CONTROLS: &[&str] = &[CascadeConfig::variant, CascadeConfig::recs_timeout_ms, CascadeConfig::pool_size];

/// The run the reader set up, with the chapter's own setting named as the chapter's: the load,
/// the pool, when recommendations stops answering (or slows down), and the fix.
fn intro(c: &CascadeConfig, chapter: &CascadeConfig) -> String {
    let secs = |ms: f64| format::secs(ms / 1000.0);
    let pool = if c.unbounded_pool {
        "an unbounded pool".to_string()
    } else {
        format!("one pool of {}", format::counted(u64::from(c.pool_size), "connection", "connections"))
    };
    // Recommendations either stops answering or, with a latency set, starts to answer slowly.
    let (does, would) = if c.recs_latency_ms > 0.0 {
        let slow = format::duration_ms(c.recs_latency_ms);
        (format!("slows to {slow} a call"), format!("slow to {slow} a call"))
    } else {
        ("stops answering".to_string(), "stop answering".to_string())
    };
    let stops = if c.recs_stops_at_ms < c.load_ms {
        format!("recommendations {does} at {}", secs(c.recs_stops_at_ms))
    } else {
        format!("recommendations would {would} at {}, after the load ends", secs(c.recs_stops_at_ms))
    };
    let setting = |c: &CascadeConfig| {
        (c.home_rate, c.checkout_rate, c.pool_size, c.load_ms, c.recs_stops_at_ms, c.recs_latency_ms, c.unbounded_pool)
    };
    let same = setting(c) == setting(chapter);
    let chapters = if same {
        " (the chapter's setting)".to_string()
    } else {
        format!(
            " (in the chapter: {} and {} per second for {}, a pool of {}, stopping at {})",
            format::number(chapter.home_rate),
            format::number(chapter.checkout_rate),
            secs(chapter.load_ms),
            chapter.pool_size,
            secs(chapter.recs_stops_at_ms)
        )
    };
    format!(
        "{} /home and {} /checkout requests per second for {} share {pool}; {stops}{chapters}. Fix: {}.",
        format::number(c.home_rate),
        format::number(c.checkout_rate),
        secs(c.load_ms),
        c.variant.label()
    )
}

#[component]
fn CascadePage(state: SimState) -> impl IntoView {
    let runner = state.runner::<Cascade>(SAMPLE_EVERY * 5);
    let chapter = CascadeConfig::from_params(&state.scenario.defaults());
    let intro = Signal::derive(move || state.params.with(|p| intro(&CascadeConfig::from_params(p), &chapter)));
    let metrics = Metrics::provide(state.scenario, runner);
    let verdict = metrics.said_signal(CascadeWords::verdict);
    let parts = vec![
        // The figure's headline: the pool itself, slot by slot (`chart=home` picks the chart).
        Part::new("picture", Role::Chart, move || view! { <picture::PoolPicture state runner/> }),
        Part::new("cards", Role::Cards, move || view! { <Cards metrics cards=HEADLINE/> }),
        Part::new("home", Role::Chart, move || view! { <charts::HomeChart runner/> }),
        Part::new("verdict", Role::Verdict, move || view! { <Verdict text={verdict} figure=state.embed {..} data-reading=CascadeWords::verdict.key/> }),
        Part::new("pools", Role::Extra, move || view! { <pools::Pools runner metrics/> }),
        Part::new("stats", Role::Extra, move || view! { <Cards metrics cards=POOL_CARDS/> }),
        Part::new("tour", Role::Extra, move || view! { <tour::CascadeTour runner metrics/> }),
        Part::new("table", Role::Extra, move || view! { <table::ChapterTable runner metrics/> }),
        Part::new("pool", Role::Chart, move || view! { <charts::PoolChart runner/> }).in_group("charts-grid"),
        Part::new("waiting", Role::Chart, move || view! { <charts::WaitingChart runner/> }).in_group("charts-grid"),
        Part::new("checkout", Role::Chart, move || view! { <charts::CheckoutChart runner/> }).in_group("charts-grid"),
    ];
    view! {
        <SimLayout state runner parts chapter_controls=CHAPTER_CONTROLS intro>
            <Lead slot>
                <p class="fix-caption" data-fix data-reading=CascadeWords::fix.key>{metrics.said_signal(CascadeWords::fix)}</p>
            </Lead>
        </SimLayout>
    }
}

/// Stat cards from their declarations, each with its reading's line.
#[component]
fn Cards(metrics: Metrics<Cascade>, cards: &'static [Card]) -> impl IntoView {
    view! {
        <div class="stats cascade-stats" style=format!("--cards: {}", cards.len())>
            {cards
                .iter()
                .map(|card| {
                    let tone = metrics.paced(move || metrics.get(card.tone));
                    // A card the verdict quotes (`spec::QUOTES`) changes with the words, so the
                    // card and the sentence show one moment.
                    match card.note {
                        Some(said) => view! { <StatCard metrics key=card.metric said tone/> }.into_any(),
                        None => view! { <StatCard metrics key=card.metric tone/> }.into_any(),
                    }
                })
                .collect_view()}
        </div>
    }
}
