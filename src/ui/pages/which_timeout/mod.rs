//! The which-timeout page (Chapter 1, Parts 1–2): one call through the six phases, every timer
//! the client armed racing to its deadline, what the caller sees, whether the server did the
//! work, and the same settings against every fault. Every sentence is the run's own reading
//! (`scenarios::which_timeout::reading`).

mod failover;
mod faults;
mod phases;
mod timers;

use leptos::prelude::*;

use crate::draw::which_timeout as timeline;
use crate::scenarios::which_timeout::{Client, WhichTimeout, WhichTimeoutConfig, WhichTimeoutMetrics, WhichTimeoutWords};
use crate::sim::Config;
use crate::ui::kit::speed::speed_to_watch;
use crate::format;
use crate::ui::kit::{Lead, Metrics, Part, Role, SimLayout, SimState, StatCard, Timeline, Tone, Verdict};
use crate::ui::runner::Runner;
use crate::ui::kit::predict::Question;

/// A run plays in about this many seconds unless the link sets a speed.
const WATCH_SECONDS: f64 = 10.0;

/// The chapter's table: the fault, the client, and the timers it sets.
const CHAPTER_CONTROLS: &[&str] = &[WhichTimeoutConfig::fault, WhichTimeoutConfig::client, WhichTimeoutConfig::connect_timeout_ms, WhichTimeoutConfig::headers_timeout_ms, WhichTimeoutConfig::total_timeout_ms];

pub fn page(state: SimState) -> AnyView {
    view! { <WhichTimeoutPage state/> }.into_any()
}

/// The call the reader set up: the client, the fault and the timers it sets (0 = none), with
/// the chapter's row named when the settings are one of them.
fn intro(c: &WhichTimeoutConfig, row: Option<&'static str>) -> String {
    let timer = |label: &str, ms: f64| {
        let value = if ms > 0.0 { format::slider_value(ms, "ms") } else { "none".to_string() };
        format!("{label} {value}")
    };
    let timers = match c.client {
        Client::Fetch => [
            timer("connect", c.connect_timeout_ms),
            timer("headers", c.headers_timeout_ms),
            timer("body", c.body_timeout_ms),
            timer("total (AbortSignal)", c.total_timeout_ms),
        ]
        .join(", "),
        Client::NodeHttp => {
            [timer("timeout option", c.http_timeout_ms), timer("total (AbortSignal)", c.total_timeout_ms)].join(", ")
        }
    };
    let chapters = row.map_or(String::new(), |r| format!(" (the chapter's row: {r})"));
    format!("One {} call; what goes wrong: {}{chapters}. Its timers: {timers}.", c.client.label(), c.fault.label())
}

#[component]
fn WhichTimeoutPage(state: SimState) -> impl IntoView {
    let intro = Signal::derive(move || {
        let row = state.scenario.presets.iter().find(|p| state.is_preset(p.id)).map(|p| p.label);
        state.params.with(|p| intro(&WhichTimeoutConfig::from_params(p), row))
    });
    // Step goes one event at a time: a phase starting, a tick, a timer firing.
    let runner = state.runner::<WhichTimeout>(0);
    // Long hangs (300 s) and short ones (2 s) both play in about ten seconds.
    // The run's length as the runner builds it: the link's, or what the parameters need.
    let (scenario, link_ms) = (state.scenario, state.duration_ms);
    speed_to_watch(runner.into(), WATCH_SECONDS, move || {
        link_ms.unwrap_or_else(|| state.params.with(|p| scenario.duration_for(p))) as f64 / 1000.0
    });
    let metrics = Metrics::provide(state.scenario, runner);
    // A memo: it changes only when the settings do, so the cards are not rebuilt every frame.
    let fleet: Signal<bool> = Memo::new(move |_| runner.track(|s| s.failover().enabled())).into();
    let failover = Part::new("failover", Role::Chart, move || view! { <failover::FailoverChart runner/> });
    let timeline = Part::new("timeline", Role::Chart, move || view! { <TimelineView runner metrics/> });
    // A link that opens on a failover (Break 5) leads with its calls, not with one call's timers.
    let charts = if fleet.get_untracked() { [failover, timeline] } else { [timeline, failover] };
    let question = if fleet.get_untracked() {
        "Before Play: when is the first call answered, and how many calls wait for a connection?"
    } else {
        "Before you press Play: which timer fires first, and will the server have done the work?"
    };
    let mut parts = vec![
        Part::new("cards", Role::Cards, move || view! { <Stats metrics fleet/> }),
        Part::new("phases", Role::Extra, move || view! { <phases::PhaseStrip runner/> }),
    ];
    parts.extend(charts);
    parts.extend([
        Part::new("verdict", Role::Verdict, move || view! { <Readings metrics fleet embed=state.embed/> }),
        Part::new("stats", Role::Extra, move || view! { <MoreStats metrics/> }),
        Part::new("timers", Role::Extra, move || view! { <timers::TimerTable runner/> }),
        Part::new("table", Role::Extra, move || view! { <faults::FaultTable state runner/> }),
    ]);
    view! {
        <SimLayout state runner parts chapter_controls=CHAPTER_CONTROLS intro>
            <Lead slot>
                <Question text=question/>
            </Lead>
        </SimLayout>
    }
}

/// The headline: what the caller sees, when, where the call was, and whether a plain retry is safe.
/// With a failover, its calls: how many were answered, when the pool filled, the longest line,
/// the slowest answer.
#[component]
fn Stats(metrics: Metrics<WhichTimeout>, fleet: Signal<bool>) -> impl IntoView {
    move || if fleet.get() { view! { <FleetStats metrics/> }.into_any() } else { view! { <CallStats metrics/> }.into_any() }
}

#[component]
fn FleetStats(metrics: Metrics<WhichTimeout>) -> impl IntoView {
    let failed_tone = Signal::derive(move || Tone::bad_if(metrics.num(WhichTimeoutMetrics::failover_failed).unwrap_or(0.0) > 0.0));
    view! {
        <div class="stats">
            <StatCard metrics key=WhichTimeoutMetrics::failover_ok lead=true/>
            <StatCard metrics key=WhichTimeoutMetrics::failover_failed tone=failed_tone lead=true/>
            <StatCard metrics key=WhichTimeoutMetrics::failover_pool_full_at_ms lead=true/>
            <StatCard metrics key=WhichTimeoutMetrics::failover_slowest_ok_ms lead=true/>
        </div>
    }
}

#[component]
fn CallStats(metrics: Metrics<WhichTimeout>) -> impl IntoView {
    let failed = move || metrics.get(|m| m.error != "none");
    let error_tone = Signal::derive(move || Tone::bad_if(failed()));
    let retry_tone = Signal::derive(move || match metrics.get(|m| m.safe_to_retry_without_key) {
        true => Tone::Good,
        false if failed() => Tone::Bad,
        false => Tone::Plain,
    });
    view! {
        <div class="stats">
            <StatCard metrics key=WhichTimeoutMetrics::error tone=error_tone/>
            <StatCard metrics key=WhichTimeoutMetrics::gave_up_ms/>
            <StatCard metrics key=WhichTimeoutMetrics::phase/>
            <StatCard metrics key=WhichTimeoutMetrics::safe_to_retry_without_key said=WhichTimeoutWords::retry_note tone=retry_tone/>
        </div>
    }
}

#[component]
fn TimelineView(runner: Runner<WhichTimeout>, metrics: Metrics<WhichTimeout>) -> impl IntoView {
    let data = Signal::derive(move || runner.track(timeline::data));
    let summary = metrics.said_signal(WhichTimeoutWords::first);
    view! { <Timeline id="timeline" title="The call, every armed timer, and the server" data summary/> }
}

/// The race and the server's side in numbers.
#[component]
fn MoreStats(metrics: Metrics<WhichTimeout>) -> impl IntoView {
    view! {
        <div class="stats">
            <StatCard metrics key=WhichTimeoutMetrics::first_fired/>
            <StatCard metrics key=WhichTimeoutMetrics::first_fired_ms/>
            <StatCard metrics key=WhichTimeoutMetrics::still_open_at_end/>
            <StatCard metrics key=WhichTimeoutMetrics::pool_wait_ms/>
            <StatCard metrics key=WhichTimeoutMetrics::reached_server_app/>
            <StatCard metrics key=WhichTimeoutMetrics::server_did_work/>
        </div>
    }
}

/// Why it ended as it did: which timer fired first, with why the others did not behind "Why?";
/// then what reached the server. In an embed, the first sentence of which timer fired, and
/// nothing about the server (the figure's cards say whether it did the work).
/// With a failover, what its calls saw leads, and which timer fired follows on the full page.
#[component]
fn Readings(metrics: Metrics<WhichTimeout>, fleet: Signal<bool>, embed: bool) -> impl IntoView {
    let first = Signal::derive(move || metrics.said(WhichTimeoutWords::first));
    // Under a failover's verdict, and in a figure, only which timer fired: why the others did
    // not is the single call's detail.
    let first_fired = Signal::derive(move || format::first_sentences(&first.get(), 1));
    // The figure's verdict is the caption's (which timer fired first, or what the calls saw);
    // the full page's says why the others did not, behind its "Why?".
    let (caption_key, caption) = metrics.verdict();
    let verdict_key = move || match (fleet.get(), embed) {
        (false, false) => Some(WhichTimeoutWords::first.key),
        _ => caption_key(),
    };
    let verdict = Signal::derive(move || match (fleet.get(), embed) {
        (false, false) => first.get(),
        _ => caption.get(),
    });
    view! {
        <section class="wt-readings" aria-label="What this run shows">
            <Verdict text={verdict} figure={embed} {..} role="status" data-verdict="" data-reading=verdict_key/>
            {(!embed).then(|| view! { <Show when=move || fleet.get()><p data-reading-lead="first">{first_fired}</p></Show> })}
            {(!embed).then(|| view! {
                <p data-reading=WhichTimeoutWords::caller.key>{metrics.said_signal(WhichTimeoutWords::caller)}</p>
                <p data-reading=WhichTimeoutWords::retry.key>{metrics.said_signal(WhichTimeoutWords::retry)}</p>
                <p data-reading=WhichTimeoutWords::server.key>{metrics.said_signal(WhichTimeoutWords::server)}</p>
            })}
        </section>
    }
}
