//! The double-click page (Chapter 2, Part 3): pick a fix in the panel (or a preset), play or
//! step through one purchase, and watch every click, attempt, server run and charge on the
//! kit's timeline, with the charges counted beside what the buyer was told. Every sentence is
//! the run's own reading (`scenarios::double_click::reading`).

mod events;

use leptos::prelude::*;

use crate::draw::double_click as timeline;
use crate::format;
use crate::scenarios::double_click::{AMOUNT_CENTS, ButtonState, DoubleClick, DoubleClickConfig, DoubleClickMetrics, DoubleClickWords};
use crate::sim::{Config, Model, Params, Simulation};
use crate::ui::kit::ghost::previous_run;
use crate::ui::kit::speed::link_sets_speed;
use crate::ui::kit::{Lead, Metrics, Part, Role, SimLayout, SimState, StatCard, Timeline, Tone};
use crate::ui::runner::Runner;
use crate::ui::kit::predict::Question;

/// Without `speed` in the link, the page plays at half speed: a 1 s timeout then takes 2 s
/// to watch, and the whole story about 7 s.
const DEFAULT_SPEED: f64 = 0.5;

/// The chapter's three fixes and when the second click comes.
const CHAPTER_CONTROLS: &[&str] = &[DoubleClickConfig::fix, DoubleClickConfig::second_click_ms];

/// What the buyer does in this run, with the chapter's setting named as the chapter's.
fn intro(c: &DoubleClickConfig, chapter: &DoubleClickConfig) -> String {
    let clicks = if !c.second_click {
        "A buyer clicks Pay once.".to_string()
    } else {
        let after = format::ms(c.second_click_ms);
        let chapters = if c.second_click_ms == chapter.second_click_ms {
            " (the chapter's setting)".to_string()
        } else {
            format!(" (in the chapter: {})", format::ms(chapter.second_click_ms))
        };
        format!("A buyer clicks Pay twice, the second click {after} after the first{chapters}.")
    };
    format!("{clicks} Set the fix to None, then Disable, then Idempotency key, and count the charges on the card.")
}

pub fn page(state: SimState) -> AnyView {
    view! { <DoubleClickPage state/> }.into_any()
}

#[component]
fn DoubleClickPage(state: SimState) -> impl IntoView {
    // Step goes one event at a time: a click, an arrival, a commit, an answer.
    let runner = state.runner::<DoubleClick>(0);
    if !link_sets_speed() {
        runner.speed.set(DEFAULT_SPEED);
    }
    let metrics = Metrics::provide(state.scenario, runner);
    let chapter = DoubleClickConfig::from_params(&state.scenario.defaults());
    let intro = Signal::derive(move || state.params.with(|p| intro(&DoubleClickConfig::from_params(p), &chapter)));
    // Nothing left to happen: finish the run rather than play an idle clock to its end.
    Effect::new(move |_| {
        let idle = runner.track(|s| s.next_event_time().is_none() && !s.finished());
        if idle && runner.playing.get_untracked() {
            runner.skip_to_end();
        }
    });
    let parts = vec![
        Part::new("cards", Role::Cards, move || view! { <Stats metrics/> }),
        Part::new("timeline", Role::Chart, move || view! { <TimelineView state runner/> }),
        Part::new("verdict", Role::Verdict, move || view! { <Board runner metrics/> }),
        Part::new("last-event", Role::Extra, move || view! { <events::LastEvent runner metrics/> }),
        Part::new("stats", Role::Extra, move || view! { <MoreStats metrics runner/> }),
        Part::new("events", Role::Extra, move || view! { <events::EventList metrics/> }),
    ];
    view! {
        <SimLayout state runner parts chapter_controls=CHAPTER_CONTROLS intro>
            <Lead slot>
                <Question text="Before you press Play: how many charges will this fix leave on the card?"/>
            </Lead>
        </SimLayout>
    }
}

/// The headline cards: what the card shows against what the buyer was told.
#[component]
fn Stats(metrics: Metrics<DoubleClick>) -> impl IntoView {
    let charged_tone = Signal::derive(move || Tone::bad_if(metrics.num(DoubleClickMetrics::card_charged).unwrap_or(0.0) > 1.0));
    view! {
        <div class="stats">
            <StatCard metrics key=DoubleClickMetrics::card_charged said=DoubleClickWords::chapter tone=charged_tone/>
            <StatCard metrics key=DoubleClickMetrics::client_outcome/>
            <StatCard metrics key=DoubleClickMetrics::server_requests/>
            <StatCard metrics key=DoubleClickMetrics::timeouts_seen/>
        </div>
    }
}

/// What the buyer sees (the Pay button and the message under it) beside the verdict.
#[component]
fn Board(runner: Runner<DoubleClick>, metrics: Metrics<DoubleClick>) -> impl IntoView {
    let button = Signal::derive(move || {
        runner.track(|s| {
            let cents = s.timeline().clicks.last().map_or(AMOUNT_CENTS, |c| c.amount_cents);
            let price = format::dollars(cents as u64);
            match s.button() {
                ButtonState::Enabled => ("dc-pay enabled", format!("Pay {price}")),
                ButtonState::Disabled => ("dc-pay disabled", format!("Pay {price}")),
                ButtonState::Receipt => ("dc-pay receipt", "\u{2713} Paid".to_string()),
            }
        })
    });
    let verdict_class = Signal::derive(move || match runner.track(|s| s.story_matches_card(s.now())) {
        Some(true) => "verdict good",
        Some(false) => "verdict bad",
        None => "verdict",
    });
    let outcome = Signal::derive(move || metrics.get(|m| m.client_outcome.clone()));
    view! {
        <div class="dc-board">
            <div class="dc-buyer" data-outcome=outcome>
                <span class="label">"What the buyer sees"</span>
                <div class="dc-mock">
                    <span class=move || button.get().0>{move || button.get().1}</span>
                    <span class="dc-message" data-reading=DoubleClickWords::buyer_sees.key>{metrics.said_signal(DoubleClickWords::buyer_sees)}</span>
                </div>
            </div>
            <p class=verdict_class data-verdict data-reading=DoubleClickWords::verdict.key role="status">{metrics.said_signal(DoubleClickWords::verdict)}</p>
        </div>
    }
}

/// The latest moment any fix can reach at the figure's settings or at any of its presets: the
/// timeline's axis, so switching between them does not rescale it.
fn reach_ms(state: &SimState) -> f64 {
    let reach = |p: &Params| DoubleClick::last_moment_any_fix_ms(&DoubleClickConfig::from_params(p));
    let own = state.params.with(reach);
    state.preset_choice().into_iter().map(|id| reach(&state.preset_params(id))).fold(own, f64::max)
}

#[component]
fn TimelineView(state: SimState, runner: Runner<DoubleClick>) -> impl IntoView {
    // The rows come from this run played to its end, so they stay put.
    let ext = Memo::new(move |_| {
        let end = runner.track(|s| s.end());
        let config = runner.config();
        timeline::extent(config, state.seed.get(), end, reach_ms(&state))
    });
    let ghost = previous_run::<DoubleClick, timeline::Trace>(state, timeline::trace);
    let data = Signal::derive(move || {
        let e = ext.get();
        ghost.with(|g| runner.track(|s| timeline::data(s, e, g.as_ref())))
    });
    let ghost_json = Signal::derive(move || ghost.with(|g| g.as_ref().map(timeline::ghost_json)));
    let summary = Signal::derive(move || {
        let before = ghost.with(|g| {
            g.as_ref().map_or(String::new(), |g| format!(" Before your last change: {}.", g.trace.summary()))
        });
        runner.track(|s| {
            let t = s.timeline();
            format!(
                "At {}: {}, {}, {}, {}.{before}",
                format::us_as_ms(s.now()),
                format::counted(t.clicks.len() as u64, "click", "clicks"),
                format::counted(t.attempts.len() as u64, "attempt sent", "attempts sent"),
                format::counted(t.server.len() as u64, "request at the server", "requests at the server"),
                format::counted(t.ledger.len() as u64, "charge committed", "charges committed"),
            )
        })
    });
    view! { <Timeline id="timeline" title="Every click, attempt, server run and charge" data summary ghost=ghost_json/> }
}

/// The other counts; 422s, resets, the claim's wait and the recovery job's charges only where
/// the settings can produce them.
#[component]
fn MoreStats(metrics: Metrics<DoubleClick>, runner: Runner<DoubleClick>) -> impl IntoView {
    let amount_changes = Signal::derive(move || runner.track(|s| s.config().amount_changes));
    let crash = Signal::derive(move || runner.track(|s| s.config().crash_after_charge));
    let recovery = Signal::derive(move || runner.track(|s| s.config().recovery_after_ms > 0.0));
    let waited = Signal::derive(move || metrics.num(DoubleClickMetrics::claim_wait_ms).unwrap_or(0.0) > 0.0);
    let amount = Signal::derive(move || {
        metrics.num(DoubleClickMetrics::amount_charged_cents).filter(|c| *c > 0.0).map_or(String::new(), |c| format::dollars(c as u64))
    });
    view! {
        <div class="stats">
            <StatCard metrics key=DoubleClickMetrics::charge_ids note=amount/>
            <StatCard metrics key=DoubleClickMetrics::client_attempts/>
            <StatCard metrics key=DoubleClickMetrics::aborted_waits/>
            <StatCard metrics key=DoubleClickMetrics::conflicts_409/>
            <StatCard metrics key=DoubleClickMetrics::replays/>
            <Show when=move || amount_changes.get()>
                <StatCard metrics key=DoubleClickMetrics::rejected_422/>
            </Show>
            <Show when=move || crash.get()>
                <StatCard metrics key=DoubleClickMetrics::resets_seen/>
            </Show>
            <Show when=move || waited.get()>
                <StatCard metrics key=DoubleClickMetrics::claim_wait_ms/>
            </Show>
            <Show when=move || recovery.get()>
                <StatCard metrics key=DoubleClickMetrics::recovery_charges said=DoubleClickWords::recovery/>
            </Show>
        </div>
    }
}
