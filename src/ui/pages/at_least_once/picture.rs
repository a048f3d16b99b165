//! The at-least-once picture on the page: the model's moment, drawn by `draw::at_least_once` (the drawing
//! `resilience-lab figure` uses), with the legend, the words for screen readers and the hooks
//! the tests read.

use leptos::prelude::*;
use web_sys::HtmlCanvasElement;

use crate::draw::slot;
use crate::format;
use crate::scenarios::at_least_once::{AtLeastOnce, Picture as Moment};
use crate::sim::Simulation;
use crate::ui::kit::canvas::{context, set_attribute};
use crate::ui::kit::chart::Theme;
use crate::ui::kit::{Mark, Picture};
use crate::ui::runner::Runner;

const LEGEND: &[(&str, Mark)] = &[
    ("message", Mark::Dot(slot::BLUE)),
    ("redelivery", Mark::Ring(slot::ORANGE)),
    ("second copy", Mark::Dot(slot::PURPLE)),
    ("credited", Mark::Dot(slot::GREEN)),
    ("credited twice", Mark::Dot(slot::RED)),
    ("lost", Mark::Ring(slot::RED)),
    ("dead-letter", Mark::Dot(slot::GRAY)),
];

#[component]
pub fn MessagePicture(runner: Runner<AtLeastOnce>) -> impl IntoView {
    let data = Signal::derive(move || runner.track(|s| s.picture(s.now())));
    let summary = Signal::derive(move || data.with(summary));
    view! {
        <Picture
            id="picture"
            title="Each dot is a message"
            data
            draw=draw
            drawn=|moment: &Moment| moment.drawn_json()
            summary
            legend=LEGEND
        />
    }
}

/// The picture in words, for screen readers.
fn summary(m: &Moment) -> String {
    let (busy, restarting) = (m.busy(), m.restarting());
    format!(
        "At {}: {} in the queue, {} back after a crash or a lease; {} of crashed consumers running out; \
         consumers: {busy} busy, {restarting} restarting. Ledger: {} credited twice, {} lost.",
        format::seconds(m.at),
        format::counted(m.ready_total, "message", "messages"),
        m.ready_after_crash + m.ready_after_lease,
        format::counted(m.orphans, "lease", "leases"),
        format::counted(m.duplicated() as u64, "event", "events"),
        m.lost(),
    )
}

/// The picture, drawn by `draw::at_least_once`, the code `resilience-lab figure` draws it with.
fn draw(el: &HtmlCanvasElement, w: f64, h: f64, scene: &Moment) {
    let Some(ctx) = context(el, w, h) else { return };
    set_attribute(el, "data-labels", &crate::draw::at_least_once::draw(&ctx, w, h, &Theme::now(), scene));
}
