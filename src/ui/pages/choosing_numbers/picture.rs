//! The choosing-numbers picture on the page: the model's moment and the run before the reader's last
//! change (its ghost), drawn by `draw::choosing_numbers` (the drawing
//! `resilience-lab figure` uses), with the legend, the words for screen readers and the hooks
//! the tests read.

use leptos::prelude::*;
use web_sys::HtmlCanvasElement;

use crate::draw::choosing_numbers::{Scene, Trace, trace};
use crate::draw::slot;
use crate::format;
use crate::scenarios::choosing_numbers::{ChoosingNumbers, ChoosingNumbersConfig, Picture as Moment, worst_wait_bound};
use crate::sim::{Config, Micros};
use crate::ui::kit::canvas::{context, set_attribute};
use crate::ui::kit::chart::Theme;
use crate::ui::kit::ghost::previous_run;
use crate::ui::kit::{Mark, Picture, SimState};
use crate::ui::runner::Runner;

const LEGEND: &[(&str, Mark)] = &[
    ("answered", Mark::Dot(slot::BLUE)),
    ("timed out", Mark::Dot(slot::RED)),
    ("no connection", Mark::Ring(slot::ORANGE)),
    ("cut by the route", Mark::Ring(slot::GRAY)),
];

/// The longest wait the settings allow, and any of the figure's presets.
fn settings_bound(state: &SimState) -> Micros {
    let bound = |p: &crate::sim::Params| worst_wait_bound(&ChoosingNumbersConfig::from_params(p));
    let own = state.params.with(bound);
    state.preset_choice().into_iter().map(|id| bound(&state.preset_params(id))).fold(own, Micros::max)
}

#[component]
pub fn LatencyPicture(state: SimState, runner: Runner<ChoosingNumbers>) -> impl IntoView {
    let ghost = previous_run::<ChoosingNumbers, Trace>(state, trace);
    let bound = Memo::new(move |_| settings_bound(&state));
    let data = Signal::derive(move || {
        let (ghost, bound) = (ghost.get(), bound.get());
        runner.track(|s| Scene::of(s, ghost, bound))
    });
    let summary = Signal::derive(move || data.with(|s| summary(&s.moment)));
    view! {
        <Picture
            id="picture"
            title="Calls, and the slowest request"
            data
            draw=draw
            drawn=drawn
            summary
            legend=LEGEND
            ghost=ghost_json
        />
    }
}

/// The moment's JSON with the axis the picture drew on.
fn drawn(scene: &Scene) -> String {
    let json = scene.moment.drawn_json();
    let cut = json.rfind(",\"axis_end_ms\"").unwrap_or(json.len() - 1);
    format!("{},\"axis_end_ms\":{}}}", &json[..cut], scene.axis_end / 1000)
}

fn ghost_json(scene: &Scene) -> Option<String> {
    let g = scene.ghost.as_ref()?;
    let ms = |t: Option<Micros>| t.map_or("null".to_string(), |t| (t / 1000).to_string());
    Some(format!(
        "{{\"label\":\"{}\",\"timeout_ms\":{},\"worst_wait_ms\":{}}}",
        g.label.replace('"', "'"),
        ms(g.trace.timeout),
        ms(g.trace.worst)
    ))
}

/// The picture in words, for screen readers.
fn summary(m: &Moment) -> String {
    let at = match (m.timeout, m.tail_pct()) {
        (Some(t), Some(p)) => format!("With the timeout at {}, {} of calls are slower.", format::us_as_ms(t), format::pct(p)),
        _ => "No timeout is set.".to_string(),
    };
    let slowest = m.slowest.map_or(String::new(), |r| format!(" The slowest request so far waited {}.", format::us_as_ms(r.latency)));
    format!(
        "{at} Of the latest {} attempts, {} timed out.{slowest}",
        format::count(m.landed.len() as u64),
        format::count(m.landed_timed_out() as u64)
    )
}

/// The picture, drawn by `draw::choosing_numbers`, the code `resilience-lab figure` draws it with.
fn draw(el: &HtmlCanvasElement, w: f64, h: f64, scene: &Scene) {
    let Some(ctx) = context(el, w, h) else { return };
    set_attribute(el, "data-labels", &crate::draw::choosing_numbers::draw(&ctx, w, h, &Theme::now(), scene));
}
