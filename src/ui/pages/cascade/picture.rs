//! The cascade picture on the page: the model's moment and the run before the reader's last
//! change (its ghost), drawn by `draw::cascade` (the drawing `resilience-lab figure` uses), with
//! the legend, the words for screen readers and the hooks the tests read.

use leptos::prelude::*;
use web_sys::HtmlCanvasElement;

use crate::draw::cascade::{Scene, Trace, trace};
use crate::draw::slot;
use crate::format;
use crate::scenarios::cascade::{Cascade, Picture as Moment, PoolPicture};
use crate::sim::Simulation;
use crate::sim::decimal::fixed;
use crate::ui::kit::canvas::{context, set_attribute};
use crate::ui::kit::chart::Theme;
use crate::ui::kit::ghost::previous_run;
use crate::ui::kit::{Mark, Picture, SimState};
use crate::ui::runner::Runner;

/// Short, so that the legend fits the figure's chart box on a phone.
const LEGEND: &[(&str, Mark)] = &[
    ("recommendations, hung", Mark::Dot(slot::RED)),
    ("recommendations", Mark::Dot(slot::ORANGE)),
    ("/home's price", Mark::Dot(slot::BLUE)),
    ("/checkout's price", Mark::Dot(slot::GREEN)),
    ("client gone", Mark::Ring(slot::GREEN)),
    ("free", Mark::Ring(slot::GRAY)),
];

#[component]
pub fn PoolPicture(state: SimState, runner: Runner<Cascade>) -> impl IntoView {
    let ghost = previous_run::<Cascade, Trace>(state, trace);
    let data = Signal::derive(move || {
        let ghost = ghost.get();
        runner.track(|s| Scene::of(s, ghost))
    });
    // Words: the summary reads the moment the verdict reads, and names it.
    let summary = Signal::derive(move || runner.track_words(|s| summary(&s.picture(s.now()))));
    view! {
        <Picture
            id="picture"
            title="The connection pool, call by call"
            data
            draw=draw
            drawn=|scene: &Scene| scene.moment.drawn_json()
            summary
            legend=LEGEND
            ghost=ghost_json
        />
    }
}

fn ghost_json(scene: &Scene) -> Option<String> {
    let g = scene.ghost.as_ref()?;
    let t = &g.trace;
    let full = t.pool_full_at_ms.map_or("null".to_string(), |ms| fixed(ms, 1));
    Some(format!(
        "{{\"label\":\"{}\",\"pool_full_at_ms\":{full},\"pool_in_use_max\":{},\"pool_waiting_max\":{},\"checkout_ok\":{},\"checkout_arrived\":{}}}",
        g.label.replace('"', "'"),
        t.pool_in_use_max,
        t.pool_waiting_max,
        t.checkout_ok,
        t.checkout_arrived
    ))
}

/// The picture in words at its moment, for screen readers.
fn summary(m: &Moment) -> String {
    let pool = |p: &PoolPicture, name: &str| {
        let size = p.now.limit.map_or("no limit".to_string(), |l| format!("{l} connections"));
        format!(
            "{name} ({size}): {} in use, {} by recommendations calls that never answer; {} calls wait, {} of them /checkout's.",
            p.now.in_use, p.held.recs_hung, p.now.waiting, p.waiting_checkout
        )
    };
    let mut text = format!("At {}: {}", format::seconds(m.at), pool(&m.shared, "shared pool"));
    if let Some(t) = m.pool_full_at {
        text += &format!(" It was first full at {}.", format::seconds(t));
    }
    if let Some(r) = &m.recs_pool {
        text += &format!(" {}", pool(r, "Recommendations' pool"));
    }
    text
}

/// The picture, drawn by `draw::cascade`, the code `resilience-lab figure` draws it with.
fn draw(el: &HtmlCanvasElement, w: f64, h: f64, scene: &Scene) {
    let Some(ctx) = context(el, w, h) else { return };
    set_attribute(el, "data-labels", &crate::draw::cascade::draw(&ctx, w, h, &Theme::now(), scene));
}
