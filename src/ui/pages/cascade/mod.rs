//! The cascade page (Chapter 1, Part 3, "The measured run"): one hung dependency fills the
//! shared pool and takes /checkout down with it, or not, depending on the fix picked in the
//! parameters (or by a preset). Every sentence about the outcome is the run's own reading
//! (`scenarios::cascade::reading`); the chapter's figures are shown beside it, labelled.

mod charts;
mod pools;
mod table;
mod tour;

use leptos::prelude::*;

use crate::scenarios::cascade::{Cascade, CascadeConfig, SAMPLE_EVERY};
use crate::sim::Config;
use crate::ui::kit::moment::keep_moment;
use crate::format;
use crate::ui::kit::{Lead, Metrics, Part, Role, SimFrame, SimState, StatCard, Tone, Verdict};

pub fn page(state: SimState) -> AnyView {
    view! { <CascadePage state/> }.into_any()
}

/// A stat card: the metric it shows and the reading that writes the line under it.
type Card = (&'static str, &'static str);

/// The chapter's table in numbers: /home in flight, /checkout succeeded and failed, p99.
const HEADLINE: &[Card] = &[
    ("home_in_flight_end", "note_home"),
    ("checkout_ok", "note_ok"),
    ("checkout_failed", "note_failed"),
    ("checkout_p99_ms", "note_p99"),
];

/// Where the waiting happened: the pool, its queue, the downstream.
const POOL_CARDS: &[Card] = &[
    ("home_in_flight_growth_per_s", "note_growth"),
    ("pool_in_use_max", "note_pool"),
    ("pool_waiting_max", ""),
    ("checkout_queued", ""),
    ("downstream_open_connections_max", "note_downstream"),
];

/// The chapter's four fixes and the two numbers they turn on.
const CHAPTER_CONTROLS: &[&str] = &[CascadeConfig::variant, CascadeConfig::recs_timeout_ms, CascadeConfig::pool_size];

/// The run the reader set up, with the chapter's own setting named as the chapter's: the load,
/// the pool, when recommendations stops answering, and the fix.
fn intro(c: &CascadeConfig, chapter: &CascadeConfig) -> String {
    let secs = |ms: f64| format::secs(ms / 1000.0);
    let pool = if c.unbounded_pool {
        "an unbounded pool".to_string()
    } else {
        format!("one pool of {}", format::counted(u64::from(c.pool_size), "connection", "connections"))
    };
    let stops = if c.recs_stops_at_ms < c.load_ms {
        format!("recommendations stops answering at {}", secs(c.recs_stops_at_ms))
    } else {
        format!("recommendations would stop answering at {}, after the load ends", secs(c.recs_stops_at_ms))
    };
    let same = (c.home_rate, c.checkout_rate, c.pool_size, c.load_ms, c.recs_stops_at_ms, c.unbounded_pool)
        == (chapter.home_rate, chapter.checkout_rate, chapter.pool_size, chapter.load_ms, chapter.recs_stops_at_ms, chapter.unbounded_pool);
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
    let metrics = Metrics::provide(state.scenario, runner.into());
    keep_moment(state, runner.into());
    let verdict = metrics.reading_signal("verdict");
    let parts = vec![
        Part::new("cards", Role::Cards, move || view! { <Cards metrics cards=HEADLINE/> }),
        Part::new("home", Role::Chart, move || view! { <charts::HomeChart runner/> }),
        Part::new("verdict", Role::Verdict, move || view! { <Verdict text={verdict} figure=state.embed {..} data-reading="verdict"/> }),
        Part::new("pools", Role::Extra, move || view! { <pools::Pools runner metrics/> }),
        Part::new("stats", Role::Extra, move || view! { <Cards metrics cards=POOL_CARDS/> }),
        Part::new("tour", Role::Extra, move || view! { <tour::CascadeTour runner metrics/> }),
        Part::new("table", Role::Extra, move || view! { <table::ChapterTable runner metrics/> }),
        Part::new("pool", Role::Chart, move || view! { <charts::PoolChart runner metrics/> }).in_group("charts-grid"),
        Part::new("waiting", Role::Chart, move || view! { <charts::WaitingChart runner/> }).in_group("charts-grid"),
        Part::new("checkout", Role::Chart, move || view! { <charts::CheckoutChart runner/> }).in_group("charts-grid"),
    ];
    view! {
        <SimFrame state runner parts chapter_controls=CHAPTER_CONTROLS intro>
            <Lead slot>
                <p class="fix-caption" data-fix>{metrics.reading_signal("fix")}</p>
            </Lead>
        </SimFrame>
    }
}

/// How a card's number should feel: bad where the cascade shows, good where /checkout is fine.
fn tone(metrics: Metrics, key: &str) -> Tone {
    let n = |k: &str| metrics.num(k).unwrap_or(0.0);
    match key {
        "home_in_flight_end" | "home_in_flight_growth_per_s" => Tone::bad_if(n("home_in_flight_growth_per_s") >= 1.0),
        "checkout_ok" if n("checkout_failed") == 0.0 && n("checkout_ok") > 0.0 => Tone::Good,
        "checkout_ok" | "checkout_failed" => Tone::bad_if(n("checkout_failed") > 0.0),
        "pool_waiting_max" | "checkout_queued" => Tone::bad_if(n(key) > 0.0),
        "downstream_open_connections_max" => Tone::bad_if(n(key) > n("pool_in_use_max").max(100.0)),
        _ => Tone::Plain,
    }
}

/// Stat cards from their declarations, each with its reading's line.
#[component]
fn Cards(metrics: Metrics, cards: &'static [Card]) -> impl IntoView {
    view! {
        <div class="stats cascade-stats" style=format!("--cards: {}", cards.len())>
            {cards
                .iter()
                .map(|&(key, note)| {
                    let tone = Signal::derive(move || tone(metrics, key));
                    view! { <StatCard metrics key note=metrics.reading_signal(note) tone/> }
                })
                .collect_view()}
        </div>
    }
}
