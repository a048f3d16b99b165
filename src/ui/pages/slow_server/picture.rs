//! The slow-server picture on the page: the model's moment and the run before the reader's last
//! change (its ghost), drawn by `draw::slow_server` (the drawing `resilience-lab figure` uses),
//! with the legend, the words for screen readers and the hooks the tests read.

use leptos::prelude::*;
use web_sys::HtmlCanvasElement;

use crate::draw::slow_server::{Scene, Trace, trace};
use crate::draw::slot;
use crate::format;
use crate::scenarios::slow_server::{SlowServer, server_name};
use crate::sim::{Host, Simulation};
use crate::ui::kit::canvas::{context, set_attribute};
use crate::ui::kit::chart::Theme;
use crate::ui::kit::ghost::previous_run;
use crate::ui::kit::{Mark, Picture, SimState};
use crate::ui::runner::Runner;

const LEGEND: &[(&str, Mark)] = &[
    ("sent, waiting", Mark::Dot(slot::BLUE)),
    ("in service", Mark::Dot(slot::GREEN)),
    ("client gone, work left", Mark::Ring(slot::GRAY)),
    ("client gives up", Mark::Dot(slot::RED)),
];

#[component]
pub fn QueuePicture(state: SimState, runner: Runner<SlowServer>) -> impl IntoView {
    let ghost = previous_run::<SlowServer, Trace>(state, trace);
    let data = Signal::derive(move || {
        let ghost = ghost.get();
        runner.track(|s| Scene::of(s, ghost))
    });
    let summary = Signal::derive(move || runner.track(at_each_server));
    view! {
        <Picture
            id="picture"
            title="Each dot is a request"
            data
            draw=draw
            drawn=|scene: &Scene| scene.moment.drawn_json()
            summary
            legend=LEGEND
            ghost=ghost_json
        />
    }
}

/// The ghost as `run --json` names it: each server's `max_queue`, as in the `servers` metric.
fn ghost_json(scene: &Scene) -> Option<String> {
    let g = scene.ghost.as_ref()?;
    let servers: Vec<String> = g
        .trace
        .max_queue
        .iter()
        .enumerate()
        .map(|(i, q)| format!("{{\"name\":\"{}\",\"max_queue\":{q}}}", server_name(i)))
        .collect();
    Some(format!("{{\"label\":\"{}\",\"servers\":[{}]}}", g.label.replace('"', "'"), servers.join(",")))
}

/// The requests at each server now, for screen readers: "Requests at each server at 4.2 s: A 0,
/// B 143, C 1."
pub(super) fn at_each_server(s: &Host<SlowServer>) -> String {
    let parts: Vec<String> =
        s.servers().iter().enumerate().map(|(i, sv)| format!("{} {}", server_name(i), sv.outstanding())).collect();
    format!("Requests at each server at {}: {}.", format::seconds(s.now()), parts.join(", "))
}

/// The picture, drawn by `draw::slow_server`, the code `resilience-lab figure` draws it with.
fn draw(el: &HtmlCanvasElement, w: f64, h: f64, scene: &Scene) {
    let Some(ctx) = context(el, w, h) else { return };
    set_attribute(el, "data-labels", &crate::draw::slow_server::draw(&ctx, w, h, &Theme::now(), scene));
}
