//! The request timeline, on Canvas 2D: lanes of rows on one time axis, with one vocabulary for
//! every request picture: bars (work, waiting; solid, outlined or hatched; open while still
//! going), marks with shapes (a click, an answer, a give-up), meters that run out (a budget, a
//! timeout), shaded spans, links between rows (a request travelling, an answer coming back,
//! dashed and crossed when nobody waits for it), a playhead and a legend.
//!
//! Every label goes through one placement rule (`layout`): lane names and row names in the
//! left gutter, axis labels chosen so they fit, then each label at the first free place among
//! its candidates, or left out. No two labels overlap, none crosses the canvas edge, and lines
//! pass under them. The boxes drawn are exposed as `data-labels` (JSON) on the canvas for the
//! tests. A label may be left out, so a page always gives the story in text as well.
//! Times are milliseconds of simulated time.

mod data;
mod draw;
mod layout;

use leptos::prelude::*;

pub use data::{At, Bar, Fill, Ghost, Key, Lane, LegendItem, Link, Mark, Meter, Shape, Span, TimelineData};

use super::canvas::drawn_canvas;
use super::chart::{color, is_dark, spoken_summary};

#[component]
pub fn Timeline(
    title: &'static str,
    data: Signal<TimelineData>,
    /// What the timeline shows now, in words, for screen readers.
    summary: Signal<String>,
    #[prop(optional)] id: &'static str,
    /// The earlier run drawn behind this one, as JSON for the canvas's `data-ghost` (none: no
    /// ghost now).
    #[prop(optional, into)]
    ghost: Option<Signal<Option<String>>>,
) -> impl IntoView {
    let (canvas, data) = drawn_canvas(data, draw::draw);
    // At most once a second while the run plays, as a chart's.
    let spoken = spoken_summary(summary);
    // The legend's items change far less often than the data (as the chart's): rebuilt every
    // frame, its swatches' classes and styles were set anew each time, a tenth of an embed's
    // frame on a phone's CPU.
    let items = Memo::new(move |_| data.with(|d| d.legend.clone()));
    let legend = move || {
        let dark = is_dark();
        items.with(|items| {
            items
                .iter()
                .map(|item| {
                    let (class, style, glyph) = swatch(item, color(item.color, dark));
                    view! { <li><span class=class style=style>{glyph}</span>{item.label.clone()}</li> }
                })
                .collect_view()
        })
    };
    view! {
        <figure class="chart timeline" id=id>
            <figcaption>{title}</figcaption>
            <canvas
                node_ref=canvas
                role="img"
                aria-label=move || format!("{title}. {}", spoken.get())
                data-ghost=move || ghost.and_then(|g| g.get())
            ></canvas>
            <ul class="legend">{legend}</ul>
        </figure>
    }
}

/// A legend entry's swatch: its class, its style and the glyph it shows, if any.
fn swatch(item: &LegendItem, c: &str) -> (&'static str, String, &'static str) {
    match item.key {
        Key::Fill(Fill::Solid) => ("swatch", format!("background:{c}"), ""),
        Key::Fill(Fill::Outline) => ("swatch", format!("border:2px solid {c}"), ""),
        Key::Fill(Fill::Hatched) => (
            "swatch",
            format!("background:repeating-linear-gradient(135deg,{c} 0 2px,transparent 2px 5px);border:1px solid {c}"),
            "",
        ),
        Key::Meter => ("swatch", format!("background:{c};height:0.3rem;vertical-align:0.15rem"), ""),
        Key::Span => ("swatch", format!("background:{c};opacity:0.3"), ""),
        Key::Link { dashed, cross } => {
            let glyph = match (dashed, cross) {
                (true, true) => "- - \u{2715}",
                (true, false) => "- - \u{25b8}",
                (false, true) => "\u{2014}\u{2715}",
                (false, false) => "\u{2014}\u{25b8}",
            };
            ("glyph", format!("color:{c}"), glyph)
        }
        Key::Shape(shape) => {
            let glyph = match shape {
                Shape::Dot => "\u{25cf}",
                Shape::Triangle => "\u{25bc}",
                Shape::Diamond => "\u{25c6}",
                Shape::Ring => "\u{25cb}",
                Shape::Tick => "|",
                Shape::Cross => "\u{2715}",
            };
            ("glyph", format!("color:{c}"), glyph)
        }
    }
}
