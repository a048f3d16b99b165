//! The retry-storm picture on the page: the model's moment and the run before the reader's
//! last change (its ghost), drawn by `draw::retry_storm` (the drawing `resilience-lab figure`
//! uses), with the legend, the words for screen readers and the hooks the tests read.

use leptos::prelude::*;
use web_sys::HtmlCanvasElement;

use crate::draw::retry_storm::{Scene, Trace, breaker_word, trace, y_top};
use crate::draw::slot;
use crate::format;
use crate::scenarios::retry_storm::{Picture as Moment, RetryStorm, RetryStormConfig};
use crate::sim::Config;
use crate::sim::decimal::fixed;
use crate::ui::kit::canvas::{context, set_attribute};
use crate::ui::kit::chart::Theme;
use crate::ui::kit::ghost::previous_run;
use crate::ui::kit::{Mark, Picture, SimState};
use crate::ui::runner::Runner;

const LEGEND: &[(&str, Mark)] = &[
    ("in a call", Mark::Dot(slot::BLUE)),
    ("waiting to retry", Mark::Dot(slot::ORANGE)),
    ("idle", Mark::Ring(slot::GRAY)),
    ("served", Mark::Dot(slot::GREEN)),
    ("turned away (503)", Mark::Dot(slot::RED)),
    ("failed: down", Mark::Dot(slot::GRAY)),
];

#[component]
pub fn StormPicture(state: SimState, runner: Runner<RetryStorm>) -> impl IntoView {
    let ghost = previous_run::<RetryStorm, Trace>(state, trace);
    let top = Signal::derive(move || state.params.with(|p| y_top(&RetryStormConfig::from_params(p))));
    let data = Signal::derive(move || {
        let (ghost, top) = (ghost.get(), top.get());
        runner.track(|s| Scene::of(s, ghost, top))
    });
    let summary = Signal::derive(move || data.with(|s| summary(&s.moment)));
    view! {
        <Picture
            id="picture"
            title="The clients and the provider, tick by tick"
            data
            draw=draw
            drawn=drawn
            summary
            legend=LEGEND
            ghost=ghost_json
        />
    }
}

fn drawn(scene: &Scene) -> String {
    let json = scene.moment.drawn_json();
    let end_ms = scene.moment.end / 1000;
    format!("{},\"y_top\":{},\"x_end_ms\":{end_ms}}}", &json[..json.len() - 1], fixed(scene.y_top, 0))
}

fn ghost_json(scene: &Scene) -> Option<String> {
    let g = scene.ghost.as_ref()?;
    let peak = g.trace.peak.map_or("null".to_string(), |n| n.to_string());
    Some(format!(
        "{{\"label\":\"{}\",\"peak_after_recovery\":{peak},\"max_calls_per_user_action\":{},\"rows\":{}}}",
        g.label.replace('"', "'"),
        g.trace.most_calls,
        g.trace.rows.len()
    ))
}

/// The picture in words, for screen readers.
fn summary(m: &Moment) -> String {
    let t = &m.tick;
    let c = &m.clients_now;
    let provider = if m.down { "The provider is down" } else { "The provider is up" };
    let mut text = format!(
        "At {}: {provider}; this tick {} reached it against a capacity of {}: {} served, {} turned away, {} failed while it was down. \
         Clients: {} in a call, {} waiting to retry, {} idle.",
        format::seconds(m.at),
        format::counted(t.attempts().into(), "attempt", "attempts"),
        m.capacity,
        t.served,
        t.rejected,
        t.failed,
        c.in_call,
        c.waiting,
        c.idle
    );
    if let Some(b) = m.breaker {
        text += &format!(" The breaker is {}; it failed {} at once this tick.", breaker_word(b), t.short_circuited);
    }
    if let Some((n, at)) = m.peak {
        text += &format!(" Busiest tick since it came back: {n}, at {}.", format::seconds(at));
    }
    text
}

/// The picture, drawn by `draw::retry_storm`, the code `resilience-lab figure` draws it with.
fn draw(el: &HtmlCanvasElement, w: f64, h: f64, scene: &Scene) {
    let Some(ctx) = context(el, w, h) else { return };
    set_attribute(el, "data-labels", &crate::draw::retry_storm::draw(&ctx, w, h, &Theme::now(), scene));
}
